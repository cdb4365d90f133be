"""``learntorch.Size``: a tensor's shape, a tuple that prints like PyTorch's."""
from __future__ import annotations

from typing import Any

__all__ = ["Size", "broadcast_shapes"]


class Size(tuple):
    """A tuple of ints; ``repr`` is ``torch.Size([2, 3])`` as learners see it in PyTorch."""

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
        return Size(tuple(self) + tuple(other))


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of these shapes broadcast to (``torch.broadcast_shapes``),
    without making any tensor: shapes are aligned on the right, and each dimension is the
    one size other than 1 (a RuntimeError if two such sizes differ).  An int is a 1-d shape."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    out: list[Any] = [1] * max((len(s) for s in shapes), default=0)
    for index, shape in enumerate(shapes):
        for i in range(-1, -len(shape) - 1, -1):
            size = shape[i]
            if isinstance(size, int) and size < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if size == 1 or size == out[i]:
                continue
            if out[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {i}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be "
                                   f"broadcastable to {out}")
            out[i] = size
    for size in out:
        if not isinstance(size, int):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item 0 is '{type(size).__name__}')")
    return Size(out)
