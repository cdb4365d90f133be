"""The in-place rule: how ``x.add_(y)``, ``x[i] = v`` and ``relu(x, inplace=True)``
change a tensor that autograd may be watching.

One function, :func:`inplace`, does it for every in-place operation:

1. check PyTorch's rules *before* touching memory (a leaf that requires grad,
   an inference tensor, an ``expand()``-ed tensor whose elements share memory);
2. compute the result out of place;
3. write it into the tensor's own memory and bump its version counter, so a
   backward that saved the old value can tell it was changed;
4. make the result's node the tensor's new ``grad_fn``.  Through a view, the
   change rewrites the *base*'s history instead (:class:`CopySlices`).

It lives with the ops, below the method table: the ops themselves (indexing's
``setitem``, the activations' ``inplace=True``, ``scatter_``) need it, as does ``creation``.
(The random fills write their numbers with ``random.fill_from_host``.)
"""
from __future__ import annotations

from typing import Any, Callable

from ..autograd import grad_mode
from ..autograd.function import Function, set_base_history_rewriter
from ..dtypes import SCALAR_NAMES
from ..tensor import Tensor

__all__ = ["inplace", "CopySlices", "covered_elements"]


def inplace(self: Tensor, fn: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Tensor:
    """Run ``fn(self, ...)`` and store the result in ``self`` (an in-place operation)."""
    self._check_inplace()
    if any(st == 0 and n > 1 for st, n in zip(self.stride(), self.shape)):  # an expand()ed tensor
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    result = fn(self, *args, **kwargs)
    if result._dtype is not self._dtype:
        if result._dtype.category > self._dtype.category:
            raise RuntimeError(f"result type {SCALAR_NAMES[result._dtype.name]} can't be cast to the desired "
                               f"output type {SCALAR_NAMES[self._dtype.name]}")
        result = Tensor._make(result._backend.xp.astype(result._data, self._backend.dtype(self._dtype)),
                              self._device) if result.grad_fn is None else result.to(self._dtype)
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape [{', '.join(map(str, self.shape))}] doesn't match the broadcast "
                           f"shape [{', '.join(map(str, result.shape))}]")
    recorded = result.grad_fn is not None and grad_mode._state.enabled
    if recorded:
        _keep_original_self(self, result.grad_fn)
    if recorded and self._base is not None:
        return _inplace_on_view(self, result)
    self._data[...] = result._data
    self._version_counter[0] += 1
    if recorded:
        self._set_history(result.grad_fn, result._output_nr)
    refresh_views(self._base if self._base is not None else self)
    return self


def refresh_views(base: Tensor) -> None:
    """After an in-place change to ``base`` (or to any view of it), give every live view of it
    that records gradients a new ``grad_fn`` read off ``base``'s *current* history.

    Without this, ``k = h[:2]; h.mul_(3); k.sum().backward()`` would send the gradient through
    ``h``'s old history (missing the ``* 3``).  PyTorch does the same, lazily: a view whose
    version is behind gets ``AsStridedBackward0`` (the view as a window of strides and offset on
    its base's memory), which is also the name it then prints.  Views of NumPy arrays only (the
    window is read from their memory addresses); others keep the history they had.

    Only views of a base *with* history are remembered (``Tensor._view_of``): a leaf that
    requires grad changes in place only under ``no_grad`` (an optimizer's step), and the
    gradient of a view of a leaf does not depend on the leaf's values, so its old history
    (``TBackward0`` of ``W.t()`` in every ``nn.Linear``) still gives the right gradient."""
    views = base.__dict__.get("_live_views")
    if not views or not base._backend.is_numpy:
        return
    if base.grad_fn is None and not base._requires_grad:
        return
    with grad_mode.enable_grad():
        for ref in list(views):
            view = ref()
            if view is not None and view._requires_grad:
                fresh = AsStridedView.apply(base, view=view)
                view._set_history(fresh.grad_fn, 0)


class AsStridedView(Function):
    """A view seen again as a window on its base's memory (PyTorch's ``AsStridedBackward0``).

    Forward: the base elements the view covers, found by memory position (a view's element at
    index ``i`` lives at ``offset + Σ i_d·stride_d``).  Backward: the view's gradient added into
    zeros of the base's shape at those elements (``index_add``, so overlapping windows, as of an
    ``expand``, add up)."""

    _backward_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, base: Tensor, view: Tensor = None) -> Tensor:
        ctx.elements = _covered_elements(base._data, view._data).reshape(-1)
        ctx.base_shape = tuple(base.shape)
        return Tensor._make(view._data, view._device)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        index = Tensor._make(ctx.elements, grad.device)
        flat = grad.new_zeros(_numel(ctx.base_shape))
        return flat.index_add(0, index, grad.reshape(-1)).reshape(ctx.base_shape)


def _numel(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _memory_positions(array: Any) -> Any:
    """Each element's memory position (in elements) relative to the array's first byte."""
    import numpy as np
    pos = np.zeros(array.shape, dtype=np.int64)
    for d, (n, st) in enumerate(zip(array.shape, array.strides)):
        shape = [1] * array.ndim
        shape[d] = n
        pos = pos + (np.arange(n, dtype=np.int64) * (st // array.itemsize)).reshape(shape)
    return pos


def _covered_elements(base: Any, view: Any) -> Any:
    """For each element of ``view``, the flat (row-major) index of the ``base`` element at the
    same memory position."""
    import numpy as np
    base_pos = _memory_positions(base).reshape(-1)
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    view_pos = _memory_positions(view) + offset
    low = min(int(base_pos.min(initial=0)), int(view_pos.min(initial=0)))
    lookup = np.full(max(int(base_pos.max(initial=0)), int(view_pos.max(initial=0))) - low + 1, -1, dtype=np.int64)
    lookup[base_pos - low] = np.arange(base_pos.size, dtype=np.int64)
    return lookup[view_pos - low]


covered_elements = _covered_elements  # (ops/strided.py: as_strided's backward maps memory the same way)


def _keep_original_self(self: Tensor, node: Any) -> None:
    """The op's backward may need ``self`` as it was *before* the change (``clamp_``,
    ``mul_(w)``, ``log_``): PyTorch saves that original value, so these in-place ops
    work under autograd.  Swap a snapshot (old values, old history) into the saved slot
    before ``self`` is overwritten."""
    saved = getattr(node, "_saved", None)
    if not saved or not any(s is not None and s.tensor is self for s in saved):
        return
    snapshot = Tensor._make(self._backend.xp.asarray(self._data, copy=True), self._device)
    snapshot.grad_fn, snapshot._output_nr, snapshot._requires_grad = self.grad_fn, self._output_nr, \
        self._requires_grad
    for s in saved:
        if s is not None and s.tensor is self:
            s.tensor, s.version = snapshot, snapshot._version_counter[0]


def _inplace_on_view(view: Tensor, result: Tensor) -> Tensor:
    """An in-place change through a view rewrites its *base*'s history (PyTorch's
    ``CopySlices``): the base now depends on its old self outside the view and on
    ``result`` inside it.  The view then gets a fresh ``grad_fn`` read off the base."""
    if view._view_fn is None:
        _refuse_custom_function_view(view)
        raise RuntimeError("learntorch cannot rewrite the history of this view (it was made in a way it cannot "
                           "replay); use an out-of-place operation instead, e.g. y = x.clone() first")
    return rewrite_base_history(view, result)


def rewrite_base_history(view: Tensor, result: Tensor) -> Tensor:
    """``view``'s region of its base now holds ``result`` (a recorded value): the base depends
    on it there (``CopySlices``) and the view gets a fresh ``grad_fn`` read off the base.
    (Also used for a view that a custom Function changed in place and marked dirty.)"""
    base = view._base
    CopySlices.apply(base, result, view_fn=view._view_fn)
    fresh = view._view_fn(base)
    view._set_history(fresh.grad_fn, fresh._output_nr)
    refresh_views(base)  # (as PyTorch: the view itself, too, is then an AsStridedBackward0 window)
    return view


set_base_history_rewriter(rewrite_base_history)  # (for a custom Function's mark_dirty on a view)


def _refuse_custom_function_view(view: Tensor) -> None:
    """PyTorch's errors for an in-place change of a view that a custom ``Function`` returned
    (an input returned as is, or ``x.view(...)`` made inside ``forward``): rewriting its history
    would bypass the Function's own backward.  (Module full backward hooks wrap a module's
    inputs and outputs in such a Function, so ``ReLU(inplace=True)`` right after a hooked module
    meets this too.)"""
    node = view.grad_fn
    cls = getattr(node, "_forward_cls", None)
    if cls is None:
        return
    start = f"Output {view._output_nr} of {cls.__name__} is a view and is being modified inplace. "
    if len(node._output_meta) > 1:
        raise RuntimeError(start + "This view is the output of a function that returns multiple views. Such "
                           "functions do not allow the output views to be modified inplace. You should replace "
                           "the inplace operation by an out-of-place one.")
    raise RuntimeError(start + "This view was created inside a custom Function (or because an input was "
                       "returned as-is) and the autograd logic to handle view+inplace would override the custom "
                       "backward associated with the custom Function, leading to incorrect gradients. This "
                       "behavior is forbidden. You can fix this by cloning the output of the custom Function.")


class CopySlices(Function):
    """The base of a view after an in-place change through the view.

    Forward writes ``value`` into the view's region of ``base`` (its memory).
    Backward: the region's gradient goes to ``value``; the rest goes to the old base."""

    _backward_name = "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, base: Tensor, value: Tensor, view_fn: Any = None) -> Tensor:
        region = view_fn(base.detach())
        region._data[...] = value._data
        ctx.view_fn = view_fn
        ctx.mark_dirty(base)
        return base

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        grad_base = grad.clone()
        ctx.view_fn(grad_base)._data[...] = 0
        return grad_base, ctx.view_fn(grad).clone()


