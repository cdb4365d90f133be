"""``torch.utils.hooks``: the handle every ``register_*hook`` returns, under PyTorch's path.

Programs name it in type hints and checks (``handles: list[torch.utils.hooks.RemovableHandle]``,
``isinstance(h, torch.utils.hooks.RemovableHandle)``).  The class itself lives with the
autograd graph (``autograd/node.py``), where tensors and nodes make their handles.
"""
from __future__ import annotations

from typing import Any, Callable

from ..autograd.node import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook"]


def unserializable_hook(f: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a tensor hook as one that is not saved with the tensor (a decorator, as in PyTorch)."""
    f.__torch_unserializable__ = True  # type: ignore[attr-defined]
    return f
