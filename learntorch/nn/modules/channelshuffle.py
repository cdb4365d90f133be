"""``nn.ChannelShuffle``: interleave the channels of ``groups`` groups (ShuffleNet).

After a grouped convolution each output channel has seen only its own group's inputs;
shuffling the channels before the next grouped convolution lets information cross the
groups.  The layer has no parameters: it is ``F.channel_shuffle`` (``ops/pixel_shuffle.py``).
"""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """``(N, C, *)`` → the same shape, channel ``i·(C/g) + j`` moved to ``j·g + i``."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
