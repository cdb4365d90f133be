"""``learntorch.Size``: a tensor's shape, a tuple that prints like PyTorch's."""
from __future__ import annotations

__all__ = ["Size"]


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
