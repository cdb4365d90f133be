"""``unravel_index``: flat (row-major) positions turned into coordinates of a shape.

``argmax`` of a flattened image gives one number; ``unravel_index(i, (H, W))`` gives the row
and the column.  Each coordinate is taken with floor division and the remainder, dimension
by dimension from the last, as in PyTorch: so a negative position counts from the end
(``-1`` is the last element), and nothing checks that the position is in range.
"""
from __future__ import annotations

from typing import Any

from .. import dtypes
from ..tensor import Tensor

__all__ = ["unravel_index"]


def unravel_index(indices: Tensor, shape: Any) -> tuple:
    """The coordinates of ``indices`` (positions in a row-major tensor of ``shape``), one int64
    tensor per dimension, each of ``indices``' shape."""
    if not isinstance(indices, Tensor):  # PyTorch fails here the same way (it asks the argument is_complex())
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices._dtype.is_floating_point or indices._dtype is dtypes.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(not isinstance(s, int) for s in shape):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {shape}")
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    flat = indices.to(dtypes.int64)
    coords = []
    for size in reversed(shape):
        coords.append(flat.remainder(size))
        flat = flat.div(size, rounding_mode="floor")
    return tuple(c.detach() for c in reversed(coords))
