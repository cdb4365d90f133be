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
"""
from __future__ import annotations

from typing import Any, Callable

from .node import Node, _saved_hooks_stack

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node", "increment_version"]

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


def increment_version(tensor: Any) -> None:
    """Count an in-place change made behind autograd's back (the saved-tensor check sees it)."""
    for t in (tensor if isinstance(tensor, (list, tuple)) else (tensor,)):
        t._version_counter[0] += 1
