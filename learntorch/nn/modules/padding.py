"""Padding layers: ``nn.ZeroPad1d/2d/3d``, ``nn.ConstantPad1d/2d/3d``, ``nn.ReflectionPad1d/2d/3d``,
``nn.ReplicationPad1d/2d/3d``, ``nn.CircularPad1d/2d/3d``.

Each is ``F.pad`` with a fixed ``padding`` and ``mode`` (``ops/padding.py``, which pads any
number of trailing dimensions).  A layer only says how many (``dims``).  An int ``padding``
pads every side by that much; a tuple is ``(left, right)`` in 1-D, ``(left, right, top,
bottom)`` in 2-D and ``(left, right, top, bottom, front, back)`` in 3-D, as in ``F.pad``.
"""
from __future__ import annotations

from typing import Any, Sequence, Union

from ...tensor import Tensor
from ...ops.padding import pad
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
           "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d", "ZeroPad3d", "ConstantPad3d",
           "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d"]

Padding = Union[int, Sequence[int]]


def _padding_tuple(padding: Padding, dims: int) -> tuple:
    """``2`` → ``(2, 2)`` (1-D), ``(2, 2, 2, 2)`` (2-D) or six 2s (3-D); a sequence is kept as it is."""
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * dims)


class _Pad(Module):
    """``F.pad(input, self.padding, mode)``: the subclasses set ``mode`` and ``dims``."""

    mode = "constant"
    dims = 1

    def __init__(self, padding: Padding) -> None:
        super().__init__()
        self.padding = _padding_tuple(padding, self.dims)

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPad(_Pad):
    """Pad with a constant ``value``."""

    def __init__(self, padding: Padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPad):
    """Pad the last dimension with ``value``."""


class ConstantPad2d(_ConstantPad):
    """Pad the last two dimensions with ``value``."""

    dims = 2


class ConstantPad3d(_ConstantPad):
    """Pad the last three dimensions with ``value``."""

    dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pad the last dimension with zeros."""

    def __init__(self, padding: Padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dimensions with zeros (the classic "same" padding of a convolution)."""

    def __init__(self, padding: Padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dimensions (of a volume) with zeros."""

    def __init__(self, padding: Padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_Pad):
    """Mirror the last dimension at its edges (the edge itself not repeated)."""

    mode = "reflect"


class ReflectionPad2d(_Pad):
    """Mirror the last two dimensions at their edges."""

    mode, dims = "reflect", 2


class ReflectionPad3d(_Pad):
    """Mirror the last three dimensions at their faces."""

    mode, dims = "reflect", 3


class ReplicationPad1d(_Pad):
    """Repeat the edge values of the last dimension."""

    mode = "replicate"


class ReplicationPad2d(_Pad):
    """Repeat the edge values of the last two dimensions."""

    mode, dims = "replicate", 2


class ReplicationPad3d(_Pad):
    """Repeat the face values of the last three dimensions."""

    mode, dims = "replicate", 3


class CircularPad1d(_Pad):
    """Wrap the last dimension around (periodic boundary)."""

    mode = "circular"


class CircularPad2d(_Pad):
    """Wrap the last two dimensions around (a torus)."""

    mode, dims = "circular", 2


class CircularPad3d(_Pad):
    """Wrap the last three dimensions around (periodic in all three)."""

    mode, dims = "circular", 3
