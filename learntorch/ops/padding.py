"""``F.pad``: pad (or crop) the last dimensions of a tensor with a constant.

Made of differentiable pieces (``narrow`` to crop, ``cat`` with filled blocks to
pad), so its gradient is theirs: the padding's gradient is dropped and the
input's region passes through.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..tensor import Tensor
from .shape import cat

__all__ = ["pad"]


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: Optional[float] = None) -> Tensor:
    """Pad (or, with negative amounts, crop) the last ``len(pad) // 2`` dimensions, last one
    first: ``pad=(left, right, top, bottom)``.  Only ``mode='constant'`` is implemented."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    if mode != "constant":
        raise NotImplementedError(f"learntorch's F.pad implements mode='constant' only, not {mode!r}")
    out = input
    for i in range(len(pad) // 2):
        d = input.dim() - 1 - i
        before, after = int(pad[2 * i]), int(pad[2 * i + 1])
        if before < 0:
            out = out.narrow(d, -before, out.size(d) + before)
        if after < 0:
            out = out.narrow(d, 0, out.size(d) + after)
        parts = []
        for n in (max(before, 0), max(after, 0)):
            shape = list(out.shape)
            shape[d] = n
            parts.append(out.new_full(shape, 0.0 if value is None else value))
        if before > 0 or after > 0:
            out = cat([parts[0], out, parts[1]], d)
    return out
