"""``torch.rsub(input, other, alpha=1)``: ``other - alpha * input``, subtraction with the
operands reversed.

Python's ``2 - x`` already runs ``x.__rsub__(2)`` (``ops/pointwise.py``); this is the named
function, with PyTorch's ``alpha`` and its two nodes: ``RsubBackward0`` when ``other`` is a
tensor, ``RsubBackward1`` when it is a number.
"""
from __future__ import annotations

from typing import Any

from ..autograd.function import Function
from ..tensor import Tensor
from .common import binary_operands, new_result, sum_to
from .pointwise import Sub, check_alpha, check_bool_subtraction, number_alpha

__all__ = ["rsub"]


class RsubTensor(Sub):
    """``other - alpha * input`` for two tensors: :class:`Sub` with its operands swapped."""
    _backward_name = "RsubBackward0"


class RsubScalar(Function):
    """``number - alpha * input``."""
    _backward_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a: Tensor, number: Any = 0, alpha: Any = 1) -> Tensor:
        check_bool_subtraction(number, a)
        xa, xb, _ = binary_operands(a, number)
        ctx.alpha, ctx.shape = alpha, tuple(a.shape)
        return new_result(xb - xa if alpha == 1 else xb - xa * alpha, a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return sum_to(grad * -ctx.alpha, ctx.shape), None, None


def rsub(input: Tensor, other: Any, *number_alpha_: Any, alpha: Any = 1) -> Tensor:
    """``other - alpha * input``; ``alpha`` may come third when ``other`` is a number (PyTorch's
    ``rsub(Tensor input, Number other, Number alpha=1)``)."""
    if number_alpha_:
        number_alpha("rsub", (other,) + number_alpha_, method=False)
        alpha = number_alpha_[0]
    if type(alpha) is not int or alpha != 1:
        alpha = check_alpha(alpha, input, other)
    if isinstance(other, Tensor):
        return RsubTensor.apply(other, input, alpha=alpha)
    return RsubScalar.apply(input, number=other, alpha=alpha)
