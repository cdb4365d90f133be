"""``torch.autograd.graph``: hooks on the tensors that backward keeps (saved tensors).

An operation that needs its inputs (or its result) for the backward pass saves
them on its node (``ctx.save_for_backward``; ``grad_fn._saved_self`` shows them).
Those saved tensors are most of a network's training memory, so PyTorch lets a
program decide how they are kept:

* ``saved_tensors_hooks(pack_hook, unpack_hook)``: inside the block, every tensor
  saved for backward (by built-in operations and custom Functions alike) is
  passed to ``pack_hook`` and whatever it returns is kept instead; backward gets
  ``unpack_hook(that)`` back;
* ``save_on_cpu()``: those hooks, keeping a CPU copy of each saved tensor and
  moving it back to its device in backward (GPU memory traded for transfers);
* ``disable_saved_tensors_hooks(message)``: entering ``saved_tensors_hooks`` inside
  it raises ``RuntimeError(message)``.

One pair of hooks applies at a time, the innermost.

It also has ``register_multi_grad_hook(tensors, fn)``: one hook for a group of tensors,
called once per backward pass when all of their gradients (``mode="all"``) or the
first of them (``mode="any"``) are computed; and ``get_gradient_edge(t)``: where ``t``'s
gradient goes (its node and output number), which ``autograd.grad`` takes as an input, to
ask for the gradient flowing into that node even after ``t`` itself is gone.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, NamedTuple, Optional, Sequence

from .node import Node, RemovableHandle, _saved_hooks_stack, current_task

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node", "increment_version",
           "GradientEdge", "get_gradient_edge",
           "register_multi_grad_hook"]

_disabled: list = []  # messages of the active disable_saved_tensors_hooks blocks


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` (see the module docstring)."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> "saved_tensors_hooks":
        if _disabled:
            raise RuntimeError(_disabled[-1])
        _saved_hooks_stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc: Any) -> None:
        _saved_hooks_stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors on the CPU, moving them back to their device in backward.

    ``pin_memory`` is accepted (learntorch's host memory needs no pinning)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(tensor: Any) -> tuple:
            return tensor.device, tensor.detach().cpu() if tensor.device.type != "cpu" else tensor

        def unpack(packed: tuple) -> Any:
            device, tensor = packed
            return tensor.to(device)
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Refuse ``saved_tensors_hooks`` inside the block with ``RuntimeError(error_message)``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        if _saved_hooks_stack:
            raise RuntimeError(self.error_message)
        _disabled.append(self.error_message)

    def __exit__(self, *exc: Any) -> None:
        _disabled.pop()


class GradientEdge(NamedTuple):
    """One edge of the backward graph: a node and which of its inputs (``output_nr``)."""

    node: Node
    output_nr: int

    def _gradient_edge(self) -> tuple:
        return self.node, self.output_nr  # (what the engine asks a tensor given as an input)


def get_gradient_edge(tensor: Any) -> GradientEdge:
    """Where ``tensor``'s gradient goes: its ``grad_fn`` (or, for a leaf, its ``AccumulateGrad``)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    return GradientEdge(*tensor._gradient_edge())


def increment_version(tensor: Any) -> None:
    """Count an in-place change made behind autograd's back (the saved-tensor check sees it)."""
    for t in (tensor if isinstance(tensor, (list, tuple)) else (tensor,)):
        t._version_counter[0] += 1


# ----------------------------------------------------------------------------- register_multi_grad_hook
class _MultiHandle(RemovableHandle):
    """The handle of a multi-grad hook: ``remove()`` removes the hook from every tensor."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def _will_receive_gradient(task: Any, node: Node) -> bool:
    """Whether the running backward pass ``task`` reaches ``node``, so that the hooks of the
    tensor whose gradient ``node`` receives will be called.  The engine knows: the nodes it
    counted dependencies for (``GraphTask.will_execute``)."""
    return bool(task.will_execute(node))


def register_multi_grad_hook(tensors: Sequence[Any], fn: Callable[..., None], *,
                             mode: str = "all") -> RemovableHandle:
    """Call ``fn`` once per backward pass for a whole group of tensors.

    * ``mode="all"``: after the gradients of all the tensors *that this pass computes*
      are ready, ``fn(grads)`` with a list of them in the order of ``tensors`` (None
      for a tensor the pass does not reach, e.g. one outside the graph or not needed
      for ``autograd.grad``'s ``inputs``);
    * ``mode="any"``: ``fn(grad)`` with the first gradient of the group to be ready,
      once per pass.

    Why: a single tensor hook sees one gradient; code that needs a group of them at
    once (all parameters of a layer, say, to reduce them together) would otherwise
    count calls itself, and get it wrong when a pass skips some tensors.

    It is built from ordinary tensor hooks (``register_hook``) that keep a little state
    per backward pass (keyed by the engine's running pass, forgotten with it).
    Returns a handle whose ``remove()`` removes all of them."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    per_pass: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()

    def running_pass() -> Any:
        task = current_task()
        if task is None:
            raise AssertionError("expected this hook to be called inside a backward call")
        return task

    if mode == "any":
        def first_only(grad: Any) -> None:
            task = running_pass()
            if task in per_pass:
                return
            per_pass[task] = True
            fn(grad)

        return _MultiHandle(tuple(t.register_hook(first_only) for t in tensors if t.requires_grad))

    # "all": each tensor's hook files its gradient; the last expected one calls fn.
    # Keep the nodes that receive the gradients (a leaf's AccumulateGrad is otherwise held weakly).
    nodes = [t._gradient_edge()[0] for t in tensors]

    def hook_for(index: int) -> Callable[[Any], None]:
        def file_gradient(grad: Any) -> None:
            task = running_pass()
            state: Optional[list] = per_pass.get(task)
            if state is None:  # the first gradient of the group in this pass: how many will come?
                expected = sum(1 for node in nodes if node is not None and _will_receive_gradient(task, node))
                state = per_pass[task] = [expected, 0, [None] * len(tensors)]
            state[2][index] = grad
            state[1] += 1
            if state[1] == state[0]:
                fn(state[2])
        return file_gradient

    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))
