"""``learntorch.nn.functional``: operations used by layers, as plain functions."""
from __future__ import annotations

from typing import Any, Optional

from ..ops import pointwise
from ..tensor import Tensor

__all__ = ["normalize", "relu", "sigmoid", "tanh", "linear"]


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """``input @ weight.T + bias`` — the maths of ``nn.Linear``."""
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """Divide each slice along ``dim`` by its p-norm, so it has length 1.

    ``eps`` guards against dividing by zero: the norm is clamped to at least eps."""
    denom = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    return input / denom


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else pointwise.relu(input)


def sigmoid(input: Tensor) -> Tensor:
    return pointwise.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return pointwise.tanh(input)
