"""``nn.GroupNorm``: normalise each sample's channels in groups (independent of the batch)."""
from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import init
from ..group_instance_norm import group_norm
from ..parameter import register_affine
from .module import Module

__all__ = ["GroupNorm"]


class GroupNorm(Module):
    """Split ``num_channels`` into ``num_groups`` groups; normalise each group of each sample over
    its channels and positions, then scale and shift per channel (``weight`` ones, ``bias``
    zeros, both ``(num_channels,)``, with ``affine=True``).  Works the same with a batch of one,
    which is why detection and small-batch models prefer it to BatchNorm."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        register_affine(self, num_channels, affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")
