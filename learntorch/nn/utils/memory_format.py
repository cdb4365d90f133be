"""``convert_conv2d_weight_memory_format``: store every 2-D convolution's weight in a memory
format (``torch.channels_last``: NHWC) without changing its values.

Convolution kernels run fastest when input and weight share a layout; converting the
weights once, up front, avoids a conversion at every call.  The values, shapes and the
Parameter objects stay the same; only the order of the numbers in memory changes.
"""
from __future__ import annotations

from typing import Any

from ..modules.conv import Conv2d
from ..modules.conv_variants import ConvTranspose2d
from ..modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format"]


def convert_conv2d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    """Give the weight of ``module`` and of every ``Conv2d``/``ConvTranspose2d`` inside it
    ``memory_format``; returns ``module`` (changed in place)."""
    if isinstance(module, (Conv2d, ConvTranspose2d)):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        convert_conv2d_weight_memory_format(child, memory_format)
    return module
