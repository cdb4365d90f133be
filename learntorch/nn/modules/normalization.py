"""``nn.LayerNorm``: normalise each sample over its last dimensions; ``nn.RMSNorm``;
``nn.LocalResponseNorm``: AlexNet's normalisation of each activation by its neighbouring channels."""
from __future__ import annotations

import numbers
from typing import Any, Optional, Sequence, Union

from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ... import creation
from ..parameter import register_affine
from .module import Module

__all__ = ["LayerNorm", "RMSNorm", "LocalResponseNorm"]


class LayerNorm(Module):
    """``(x - mean) / √(var + eps) · weight + bias`` where mean and (biased) variance are taken
    over the trailing ``normalized_shape`` dimensions of each sample.  Unlike BatchNorm it has
    no running statistics: training and evaluation compute the same thing.

    ``weight`` starts as ones and ``bias`` as zeros (both of shape ``normalized_shape``)."""

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        register_affine(self, self.normalized_shape, self.elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """``x / √(mean(x²) + eps) · weight`` over the trailing ``normalized_shape`` dims: LayerNorm
    without the mean subtraction and without a bias (LLaMA-style transformers use it).

    ``eps=None`` means the machine epsilon of the input's dtype; ``weight`` starts as ones."""

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: Optional[float] = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """``b_c = a_c / (k + α · mean of a² over the size channels around c)^β`` (AlexNet): each
    activation is damped by its neighbours across channels.  No parameters (``F.local_response_norm``)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
