"""``F.bilinear``: ``y_k = x1ᵀ W_k x2 + b_k``, one quadratic form per output feature.

Composed of a matrix product, a broadcast product and a sum, so the gradients come from
those ops::

    t[n, k, j] = Σ_i x1[n, i] W[k, i, j]     (one matmul: x1 @ W seen as in1 × (out·in2))
    y[n, k]    = Σ_j t[n, k, j] x2[n, j]
"""
from __future__ import annotations

from typing import Optional

from ..ops.common import check_same_device
from ..tensor import Tensor

__all__ = ["bilinear"]


def _check(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor]) -> None:
    """PyTorch's checks and messages, in its order."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got "
                               f"{input1.shape[d]} and {input2.shape[d]}")
    if weight.dim() > 1 and input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, but got {weight.dim()}-D")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but "
                           f"expected {weight.shape[0]}")


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """``input1ᵀ · weight[k] · input2 (+ bias[k])`` for each output feature ``k``.

    Shapes: ``input1 (*, in1)``, ``input2 (*, in2)``, ``weight (out, in1, in2)``, ``bias (out)``;
    result ``(*, out)``."""
    check_same_device(*(t for t in (input1, input2, weight, bias) if t is not None))
    _check(input1, input2, weight, bias)
    out, in1, in2 = weight.shape
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out * in2)).reshape(-1, out, in2)
    y = (t * x2.unsqueeze(1)).sum(-1).reshape(lead + (out,))
    return y + bias if bias is not None else y
