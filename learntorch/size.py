"""``learntorch.Size``: a tensor's shape, a tuple that prints like PyTorch's."""
from __future__ import annotations

import operator
from typing import Any

__all__ = ["Size", "broadcast_shapes"]


def _as_dim(value: Any, position: int) -> int:
    """One entry of a Size as a Python int: ints, bools and NumPy ints as they are (through
    ``__index__``), a one-element integer tensor through ``item()`` (``torch.Size([n, 2])`` with
    ``n = x.size(0)`` traced as a tensor); anything else -- a float, a float tensor, a string --
    is the TypeError PyTorch raises, naming the offending item's type."""
    if hasattr(value, "is_floating_point") and hasattr(value, "item"):  # a tensor
        if value.numel() == 1 and not value.is_floating_point() and not value.is_complex():
            return int(value.item())
    elif hasattr(value, "__index__"):
        return operator.index(value)
    raise TypeError(f"torch.Size() takes an iterable of 'int' (item {position} is '{type(value).__name__}')")


class Size(tuple):
    """A tuple of ints; ``repr`` is ``torch.Size([2, 3])`` as learners see it in PyTorch.

    Building one checks its entries (``torch.Size([1.5])`` is a TypeError, not a shape that fails
    later), and arithmetic with tuples keeps the type on either side: ``(1,) + size``,
    ``size + (2,)`` and ``size * 2`` are all Sizes, as in PyTorch.  Adding a list is Python's
    usual TypeError for tuples."""

    def __new__(cls, sizes: Any = ()) -> "Size":
        items = tuple(sizes)
        if not all(type(s) is int for s in items):  # the fast path: shapes the library builds
            items = tuple(_as_dim(s, i) for i, s in enumerate(items))
        return tuple.__new__(cls, items)

    @classmethod
    def _of(cls, shape: tuple) -> "Size":
        """An array's shape (a tuple of ints already) as a Size, without the checks: a tensor's
        ``.shape`` asks for one several times per operation."""
        return tuple.__new__(cls, shape)

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):  # slicing keeps the type, as torch.Size does
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):  # ``(1,) + size``: Python asks the subclass first, so this wins
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        out = tuple.__mul__(self, n)
        return out if out is NotImplemented else Size(out)

    __rmul__ = __mul__


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of these shapes broadcast to (``torch.broadcast_shapes``),
    without making any tensor: shapes are aligned on the right, and each dimension is the
    one size other than 1 (a RuntimeError if two such sizes differ).  An int is a 1-d shape."""
    for s in shapes:
        if not isinstance(s, (int, tuple, list)):  # (a tensor is not a shape: ``x.shape`` is)
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    out: list[Any] = [1] * max((len(s) for s in shapes), default=0)
    for index, shape in enumerate(shapes):
        for i in range(-1, -len(shape) - 1, -1):
            size = shape[i]
            if size == 1 or size == out[i]:
                continue
            if out[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {i}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be "
                                   f"broadcastable to {out}")
            if isinstance(size, int) and size < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            out[i] = size
    for size in out:
        if not isinstance(size, int):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item 0 is '{type(size).__name__}')")
    return Size(out)
