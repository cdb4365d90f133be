"""Gradient clipping (梯度裁剪): keep one bad batch from throwing the weights far away.

* :func:`clip_grad_norm_` treats all gradients as one long vector: if its norm is
  above ``max_norm``, every gradient is scaled by ``max_norm / norm`` -- the direction
  of the step is kept, only its length is capped.  It returns the norm *before*
  clipping, which is worth logging (a growing norm warns of exploding gradients).
* :func:`clip_grad_value_` clamps each gradient entry to ``[-clip_value, clip_value]``,
  which does change the direction.

Both act in place on ``.grad`` and are called between ``backward()`` and
``optimizer.step()``.
"""
from __future__ import annotations

import math
from typing import Iterable, Union

from ... import warn_always
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ...creation import tensor as make_tensor
from ...ops.shape import cat, stack

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
           "parameters_to_vector", "vector_to_parameters"]

Params = Union[Tensor, Iterable[Tensor]]


def _as_list(parameters: Params) -> list:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def get_total_norm(tensors: Params, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: object = None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` taken together as one vector: the norm of
    their norms (for p = ∞, the largest absolute entry)."""
    tensors = [t for t in _as_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return make_tensor(0.0)
    with no_grad():
        if math.isinf(norm_type):
            norms = [t.detach().abs().max() for t in tensors]
            total = norms[0] if len(norms) == 1 else stack(norms).max()
        else:
            norms = [t.detach().norm(norm_type) for t in tensors]
            total = stack(norms).norm(norm_type)
    if error_if_nonfinite and (bool(total.isnan()) or bool(total.isinf())):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: Params, max_norm: float, total_norm: Tensor, foreach: object = None) -> None:
    """Scale every ``.grad`` by ``min(1, max_norm / (total_norm + 1e-6))`` (the 1e-6 avoids 0/0)."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters: Params, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: object = None) -> Tensor:
    """Rescale the gradients so that their total norm is at most ``max_norm``; return the
    total norm they had."""
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: Params, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: object = None) -> Tensor:
    """The old name of :func:`clip_grad_norm_` (deprecated in PyTorch, which warns)."""
    warn_always.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                     FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Params, clip_value: float, foreach: object = None) -> None:
    """Clamp every gradient entry into ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and joined into one 1-D tensor."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """The inverse: copy consecutive slices of ``vec`` into the parameters (in place)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].view_as(p))
            offset += n
