"""Three in-place updates the optimizers need, written with learntorch's own ops.

PyTorch has them as tensor methods (``addcmul_``, ``addcdiv_``, ``lerp_``);
each is one line of arithmetic, shown here so the update equations read clearly.
They run inside ``step()``, under ``no_grad``.
"""
from __future__ import annotations

from ..tensor import Tensor


def addcmul_(t: Tensor, a: Tensor, b: Tensor, value: float = 1) -> Tensor:
    """``t += value * a * b`` (PyTorch's ``t.addcmul_(a, b, value=value)``)."""
    return t.add_(a.mul(value).mul(b))


def addcdiv_(t: Tensor, a: Tensor, b: Tensor, value: float = 1) -> Tensor:
    """``t += value * a / b`` (PyTorch's ``t.addcdiv_(a, b, value=value)``, in its order: ``(value * a) / b``)."""
    return t.add_(a.mul(value).div(b))


def lerp_(t: Tensor, end: Tensor, weight: float) -> Tensor:
    """``t += weight * (end - t)``: move ``t`` a fraction ``weight`` of the way to ``end``
    (PyTorch's ``t.lerp_(end, weight)``; from the far end when ``weight >= 0.5``, as PyTorch does)."""
    if weight < 0.5:
        return t.add_(end.sub(t), alpha=weight)
    return t.copy_(end.sub(end.sub(t).mul(1 - weight)))
