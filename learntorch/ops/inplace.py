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
``setitem``, the activations' ``inplace=True``, ``scatter_``) need it, as do
``creation`` and the random fills (:func:`fill_from_host`).
"""
from __future__ import annotations

from typing import Any, Callable

from ..autograd import grad_mode
from ..autograd.function import Function
from ..arrays import transfer
from ..device import CPU
from ..dtypes import SCALAR_NAMES
from ..tensor import Tensor

__all__ = ["inplace", "fill_from_host", "CopySlices"]


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
    return self


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
        raise RuntimeError("learntorch cannot rewrite the history of this view (it was made in a way it cannot "
                           "replay); use an out-of-place operation instead, e.g. y = x.clone() first")
    base = view._base
    CopySlices.apply(base, result, view_fn=view._view_fn)
    fresh = view._view_fn(base)
    view._set_history(fresh.grad_fn, fresh._output_nr)
    return view


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


def fill_from_host(self: Tensor, host: Any) -> Tensor:
    """Write host (NumPy) numbers into ``self``'s memory, on its device: the random
    in-place fills (``uniform_``, ``normal_``, ``bernoulli_`` …) draw on the host
    generator, as PyTorch's CPU generator does, and land here."""
    self._check_inplace()
    self._data[...] = transfer(host, CPU, self._device)
    self._version_counter[0] += 1
    return self
