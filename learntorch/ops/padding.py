"""``F.pad``: pad (or crop) the last dimensions of a tensor.

``mode='constant'`` is made of differentiable pieces (``narrow`` to crop, ``cat`` with
filled blocks to pad), so its gradient is theirs: the padding's gradient is dropped
and the input's region passes through.  ``'circular'`` is made the same way: the
wrapped-around blocks are slices of the input itself, so their gradients flow back
to where they were copied from.

``'reflect'`` and ``'replicate'`` read every padded cell from one input cell: they
are index maps (``ops/resampling.py``), whose backward adds each gradient back onto
the cell that was read.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..tensor import Tensor
from .resampling import reflect_map, replicate_map, resample
from .shape import cat

__all__ = ["pad"]


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: Optional[float] = None) -> Tensor:
    """Pad (or, with negative amounts, crop) the last ``len(pad) // 2`` dimensions, last one
    first: ``pad=(left, right, top, bottom)``.  ``mode``: ``'constant'`` (with ``value``,
    default 0), ``'reflect'``, ``'replicate'`` or ``'circular'``."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    if mode != "constant":
        return _pad_non_constant(input, [int(p) for p in pad], mode, value)
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


_NON_CONSTANT_HELP = ("Supported combinations for non-constant padding:\n"
                      "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                      "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                      "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pad_non_constant(input: Tensor, pad: list, mode: str, value: Optional[float]) -> Tensor:
    """``reflect``, ``replicate`` and ``circular``: each pads ``k = len(pad) // 2`` (1 to 3)
    trailing dimensions of a batched or unbatched input (``k + 1`` or ``k + 2`` dims), as in PyTorch."""
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
                                  + _NON_CONSTANT_HELP)
    sizes = list(input.shape[-k:])  # the padded dimensions, first one first
    amounts = [(pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]) for i in range(k)]  # same order as sizes
    if mode == "circular":
        return _pad_circular(input, sizes, amounts)
    if mode == "reflect":
        for i, (size, (before, after)) in enumerate(zip(sizes, amounts)):
            if before >= size or after >= size:
                dim = input.dim() - k + i
                argument = 4 + 2 * (k - 1 - i)  # PyTorch's numbering: the width is #4, the height #6, the depth #8
                raise RuntimeError(f"Argument #{argument}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({before}, {after}) at dimension {dim} of input "
                                   f"{list(input.shape)}")
        maps = [reflect_map(s, b, a) for s, (b, a) in zip(sizes, amounts)]
    else:
        maps = [replicate_map(s, b, a) for s, (b, a) in zip(sizes, amounts)]
    for size, (before, after) in zip(sizes, amounts):
        if size + before + after <= 0:
            raise RuntimeError(f"input (size {size}) is too small for padding ({before}, {after}): "
                               "the output would be empty or negative")
    op = ("ReflectionPad" if mode == "reflect" else "ReplicationPad") + f"{k}D"
    return resample(input, maps, op)


def _pad_circular(input: Tensor, sizes: list, amounts: list) -> Tensor:
    """Wrap around: the left padding is the (cropped) input's last cells, the right padding its
    first ones -- slices of the input, so gradients flow back to the cells that were copied."""
    out = input
    for i, (size, (before, after)) in enumerate(zip(sizes, amounts)):
        if before > size or after > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        d = input.dim() - len(sizes) + i
        if before < 0:
            out = out.narrow(d, -before, out.size(d) + before)
        if after < 0:
            out = out.narrow(d, 0, out.size(d) + after)
        n = out.size(d)
        parts = ([out.narrow(d, n - before, before)] if before > 0 else []) + [out] + \
                ([out.narrow(d, 0, after)] if after > 0 else [])
        if len(parts) > 1:
            out = cat(parts, d)
    return out
