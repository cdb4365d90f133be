"""Ragged sequences: ``pad_sequence`` stacks sequences of different lengths.

Sentences have different lengths, but a batch must be one rectangular tensor:
pad the short ones with ``padding_value`` up to the longest.  The result is
(longest, batch, *) by default — time first, as the RNN layers expect — or
(batch, longest, *) with ``batch_first=True``.  Packing (``pack_padded_sequence``)
comes with the RNN layers of chapter 05.
"""
from __future__ import annotations

from typing import Sequence

from ...ops.shape import cat, stack
from ...tensor import Tensor

__all__ = ["pad_sequence"]


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack tensors of shape (L_i, *) into (max L, B, *) (or (B, max L, *)), padding the gaps."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            pad = s.new_full((missing,) + tuple(s.shape[1:]), padding_value)
            s = cat([s, pad]) if padding_side == "right" else cat([pad, s])
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)
