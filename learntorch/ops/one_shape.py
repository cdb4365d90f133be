"""``torch.reshape`` and ``torch.permute``: the functions take the shape as one tuple.

``x.reshape(2, 6)`` and ``x.reshape((2, 6))`` are both right, and so the method's code takes
one int as a shape of one dimension.  The function has one ``shape`` argument:
``torch.reshape(x, (-1,))`` is right, and ``torch.reshape(x, -1)`` is PyTorch's TypeError
("argument 'shape' (position 2) must be tuple of ints, not int"), as is a second size.  These
check that one argument, then do what the method does.
"""
from __future__ import annotations

from typing import Sequence

from ..tensor import Tensor
from ..tensor_arguments import require_sizes
from . import shape as _shape

__all__ = ["reshape", "permute"]


def reshape(input: Tensor, shape: Sequence[int]) -> Tensor:
    """``torch.reshape(x, shape)``: like ``x.reshape(shape)``, the shape as one tuple or list."""
    require_sizes("reshape", "shape", shape)
    return _shape.reshape(input, shape)


def permute(input: Tensor, dims: Sequence[int]) -> Tensor:
    """``torch.permute(x, dims)``: like ``x.permute(dims)``, the order as one tuple or list."""
    require_sizes("permute", "dims", dims)
    return _shape.permute(input, dims)
