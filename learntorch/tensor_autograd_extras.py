"""Tensor methods of PyTorch 2's autograd: ``register_post_accumulate_grad_hook`` and ``is_inference``.

``register_post_accumulate_grad_hook(hook)`` runs ``hook(tensor)`` on a leaf right
after backward has added into its ``.grad`` (``AccumulateGrad`` calls it, after
the tensor's ``register_hook`` hooks): the place to step an optimizer per
parameter during backward.  ``autograd.grad`` accumulates nothing, so it does not
call these hooks.  ``is_inference()`` is True for a tensor made inside
``inference_mode()``; such a tensor cannot be saved for backward nor changed in
place outside inference mode, as in PyTorch.
"""
from __future__ import annotations

from typing import Callable

from .autograd.node import RemovableHandle, add_hook
from .tensor import Tensor

__all__ = ["register_post_accumulate_grad_hook", "is_inference"]


def register_post_accumulate_grad_hook(self: Tensor, hook: Callable[[Tensor], None]) -> RemovableHandle:
    """Call ``hook(self)`` after each accumulation into ``self.grad`` (leaves only)."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    self._post_accumulate_grad_hooks, handle = add_hook(self._post_accumulate_grad_hooks, hook)
    return handle


def is_inference(self: Tensor) -> bool:
    """Whether this tensor was made inside ``inference_mode()``."""
    return self._inference


for _name, _fn in (("register_post_accumulate_grad_hook", register_post_accumulate_grad_hook),
                   ("is_inference", is_inference)):
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, _fn)
