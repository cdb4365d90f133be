"""``torch.utils.checkpoint``: trade compute for memory (activation checkpointing, 重计算).

Training keeps, for backward, the tensors each operation saved (``grad_fn._saved_*``):
for a deep network those activations are most of the memory.  ``checkpoint(f, x)``
runs ``f`` *without* keeping them and, when backward reaches ``f``, runs ``f`` again
with grad enabled to get them back.  Same gradients, roughly one extra forward pass,
and the memory of one segment instead of the whole network.

Two ways to do that, both as PyTorch has them:

* ``use_reentrant=True`` (PyTorch's old default): a custom :class:`~learntorch.autograd.Function`.
  Its ``forward`` runs ``f`` under ``no_grad`` and saves only the inputs; its
  ``backward`` runs ``f`` again with grad enabled on detached copies of the inputs and
  calls ``autograd.backward`` on that small graph -- a backward pass *inside* a
  backward pass ("reentrant").  Parameters used by ``f`` get their ``.grad`` from that
  inner pass, the inputs' gradients are returned to the outer one.  Limits: it is for
  ``.backward()`` (not ``autograd.grad``), and keyword arguments are refused.
* ``use_reentrant=False`` (recommended): ``f`` runs normally, building its graph, but
  under :class:`~learntorch.autograd.graph.saved_tensors_hooks` whose pack hook keeps
  only a *number* for each saved tensor.  The first unpack in backward runs ``f``
  again, collecting the tensors it saves, in the same order, and hands them out by
  number.  The outer engine does all the backward work: ``autograd.grad`` works too.

Recomputing must give the same values: a random operation (dropout) must draw the same
numbers again.  So with ``preserve_rng_state=True`` (the default) the generator's state
is saved before the forward and restored around the recomputation, then set back to
where it was.  (learntorch has one generator, the CPU one, for every device.)
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from .. import warn_always
from ..autograd.engine import backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import saved_tensors_hooks
from ..autograd.node import current_task
from ..nn import Sequential
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "detach_variable"]


class CheckpointError(RuntimeError):
    """The recomputation did not save the same tensors as the forward pass did."""


def detach_variable(inputs: tuple) -> tuple:
    """Detached copies of the tensors in ``inputs`` (same ``requires_grad``): fresh leaves
    for the recomputation, so its backward stops at them."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x for x in inputs)


def _warn_if_no_input_requires_grad(inputs: Iterable[Any]) -> None:
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        warn_always.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                         stacklevel=3)


class _RngReplay:
    """``with _RngReplay(state):`` the generator is at ``state`` inside (None: untouched),
    and back where it was after the block."""

    def __init__(self, state: Optional[Any]) -> None:
        self.state = state

    def __enter__(self) -> None:
        if self.state is not None:
            self.outside = get_rng_state()
            set_rng_state(self.state)

    def __exit__(self, *exc: Any) -> None:
        if self.state is not None:
            set_rng_state(self.outside)


# ----------------------------------------------------------------------------- use_reentrant=True
class CheckpointFunction(Function):
    """``forward`` runs the function without a graph; ``backward`` runs it again with one
    and backpropagates through it (see the module docstring)."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        _warn_if_no_input_requires_grad(args)
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        # Tensors go through save_for_backward (version-checked); the rest is kept as is.
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> tuple:
        task = current_task()
        if task is not None and task.only_some_inputs:  # the inner backward would fill every .grad
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        leaves = detach_variable(tuple(inputs))
        with _RngReplay(ctx.rng_state), enable_grad():
            outputs = ctx.run_function(*leaves)
        outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])  # the inner ("reentrant") backward pass
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in leaves)


# ----------------------------------------------------------------------------- use_reentrant=False
class _Recomputation:
    """The saved-tensor hooks of one checkpointed call (``use_reentrant=False``).

    ``pack`` replaces each tensor the forward saves by its number; ``unpack`` recomputes
    the whole call once, on first need, and returns the tensor saved under that number."""

    def __init__(self, function: Callable, args: tuple, kwargs: dict, rng_state: Optional[Any],
                 recompute_context: Any, check_metadata: bool) -> None:
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state = rng_state
        self.recompute_context = recompute_context
        self.check_metadata = check_metadata
        self.metadata: list = []  # (shape, dtype, device) of each tensor saved by the forward
        self.recomputed: Optional[list] = None

    def pack(self, tensor: Tensor) -> int:
        self.metadata.append((tuple(tensor.shape), tensor.dtype, tensor.device))
        return len(self.metadata) - 1

    def unpack(self, index: int) -> Tensor:
        if self.recomputed is None:
            self.recompute()
        return self.recomputed[index]

    def recompute(self) -> None:
        saved: list = []

        def keep(tensor: Tensor) -> Tensor:
            if len(saved) >= len(self.metadata):
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      "than during the original forward pass.")
            saved.append(tensor.detach() if tensor.requires_grad else tensor)
            return tensor

        with _RngReplay(self.rng_state), enable_grad(), self.recompute_context, \
                saved_tensors_hooks(keep, lambda t: t):
            self.function(*self.args, **self.kwargs)
        if len(saved) < len(self.metadata):
            raise CheckpointError("torch.utils.checkpoint: A different number of tensors was saved during the "
                                  f"original forward and recomputation.\nNumber of tensors saved during forward: "
                                  f"{len(self.metadata)}\nNumber of tensors saved during recomputation: "
                                  f"{len(saved)}.")
        if self.check_metadata:
            for i, (t, meta) in enumerate(zip(saved, self.metadata)):
                now = (tuple(t.shape), t.dtype, t.device)
                if now != meta:
                    raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors "
                                          f"have different metadata than during the forward pass.\ntensor at "
                                          f"position {i}:\nsaved metadata: {meta}\nrecomputed metadata: {now}\n")
        self.recomputed = saved


class _NoContext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _no_contexts() -> tuple:
    return _NoContext(), _NoContext()


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: Optional[bool] = None,
               context_fn: Callable[[], tuple] = _no_contexts, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, preserve_rng_state: bool = True,
               **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, without keeping its activations for backward: they are
    recomputed when backward needs them (see the module docstring for the two variants).

    Pass ``use_reentrant`` explicitly (``False`` is recommended); without it PyTorch 2.13
    warns and uses ``True``.  ``context_fn`` returns two context managers, for the
    forward and for the recomputation (``use_reentrant=False`` only).  ``early_stop`` is
    accepted; learntorch always recomputes the whole function."""
    if use_reentrant is None:
        warn_always.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
                         "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                         "use_reentrant=False is recommended, but if you need to preserve the current default "
                         "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                         "differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not _no_contexts or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)

    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    if not is_grad_enabled():  # no graph is built, so nothing is saved: just run it
        return function(*args, **kwargs)
    frame = _Recomputation(function, args, kwargs, get_rng_state() if preserve_rng_state else None,
                           recompute_context, determinism_check == "default")
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Tensor, use_reentrant: Optional[bool] = None,
                          **kwargs: Any) -> Tensor:
    """Run ``functions`` (an ``nn.Sequential`` or a list of modules/functions) one after the
    other on ``input``, cut into ``segments`` parts of equal length: every part but the
    last is checkpointed, so only the tensors between parts are kept (the last part's
    activations are needed right away by backward anyway)."""
    if use_reentrant is None:
        warn_always.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
                         "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
                         "passed. use_reentrant=False is recommended, but if you need to preserve the current "
                         "default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                         "differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start: int, end: int) -> Callable[[Tensor], Tensor]:
        def forward(x: Tensor) -> Tensor:
            for f in functions[start:end + 1]:
                x = f(x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
