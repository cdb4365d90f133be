"""``F.pad``: pad (or crop) the last dimensions of a tensor.

``mode='constant'`` is one operation, :class:`ConstantPadNd` (PyTorch's node name).  Its
backward is the same operation with the amounts negated: what was added is cropped away
(its gradient is dropped), what was cropped comes back as zeros.  Being an operation of its
own, that backward can be differentiated again, and again it is a constant pad.

``'circular'`` is built as PyTorch builds it: an empty result, the input copied into its
middle, then each wrapped-around block copied from the result's own opposite edge.  Those
are in-place writes into slices, so the result's node is ``CopySlices`` and the gradients
flow back to the cells that were copied.

``'reflect'`` and ``'replicate'`` read every padded cell from one input cell: they
are index maps (``ops/resampling.py``), whose backward adds each gradient back onto
the cell that was read.
"""
from __future__ import annotations

import operator
from typing import Any, Optional, Sequence

from ..autograd.function import Function
from ..tensor import Tensor
from .common import in_layout_of, new_result
from .formula import differentiable_backward
from .resampling import reflect_map, replicate_map, resample

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
        return _pad_non_constant(input, [operator.index(p) for p in pad], mode, value)
    amounts = [operator.index(p) for p in pad]  # (a float is PyTorch's TypeError, which int() would truncate)
    for i in range(len(amounts) // 2):
        d = input.dim() - 1 - i
        if input.shape[d] + min(amounts[2 * i], 0) + min(amounts[2 * i + 1], 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")  # cropped more than there is
    return ConstantPadNd.apply(input, pad=tuple(amounts), value=0.0 if value is None else value)


def _constant_pad_arrays(data: Any, xp: Any, pad: tuple, value: Any) -> Any:
    """``data`` with its last ``len(pad) // 2`` dimensions padded with ``value`` (or, for
    negative amounts, cropped): a filled array with the kept part of ``data`` copied into it."""
    shape = list(data.shape)
    source = [slice(None)] * data.ndim
    target = [slice(None)] * data.ndim
    for i in range(len(pad) // 2):
        d = data.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        size = shape[d]
        shape[d] = size + before + after
        kept = size + min(before, 0) + min(after, 0)  # cells of the input that stay
        source[d] = slice(max(-before, 0), max(-before, 0) + kept)
        target[d] = slice(max(before, 0), max(before, 0) + kept)
    out = xp.full(tuple(shape), value, dtype=data.dtype)
    out[tuple(target)] = data[tuple(source)]
    return out


class ConstantPadNd(Function):
    """Pad with a constant (``F.pad(x, pad, value=v)``, ``nn.ZeroPad2d``, ``nn.ConstantPad*d``).

    The gradient of a constant pad is a constant pad of the gradient with the amounts
    negated (and the value 0): the padding's cells did not come from the input, and a
    cropped cell did not reach the output.  That map is linear, so its own derivative is
    itself again: the double backward is one more ``ConstantPadNd``, as in PyTorch."""

    _backward_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, pad: tuple = (), value: Any = 0.0) -> Tensor:
        ctx.pad = pad
        return in_layout_of(_constant_pad_arrays(x._data, x._backend.xp, pad, value), x, (4, 5))

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        undo = tuple(-p for p in ctx.pad)
        if differentiable_backward():  # create_graph: record the pad, so it can be differentiated again
            return ConstantPadNd.apply(grad, pad=undo, value=0.0)
        return new_result(_constant_pad_arrays(grad._data, grad._backend.xp, undo, 0.0), grad)


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
        for i, (size, (before, after)) in reversed(list(enumerate(zip(sizes, amounts)))):  # the width first
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
    """Wrap around: the left padding repeats the (cropped) input's last cells, the right padding
    its first ones.  Built with copies into slices of an empty result (so its node is
    ``CopySlices``, as in PyTorch): first the input into the middle, then, one dimension after
    the other, each padding block from the result's own opposite edge -- so that the corners of
    a 2-D padding wrap around in both directions."""
    k = len(sizes)
    first = input.dim() - k
    for size, (before, after) in zip(sizes, amounts):
        if before > size or after > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
    out_sizes = [size + before + after for size, (before, after) in zip(sizes, amounts)]
    out = input.new_empty(tuple(input.shape[:first]) + tuple(out_sizes))
    middle, inside = [slice(None)] * input.dim(), [slice(None)] * input.dim()
    for i, (size, (before, after)) in enumerate(zip(sizes, amounts)):
        inside[first + i] = slice(max(-before, 0), size - max(-after, 0))  # the input's kept cells
        middle[first + i] = slice(max(before, 0), out_sizes[i] - max(after, 0))  # where they go
    out[tuple(middle)] = input[tuple(inside)]
    for i, (before, after) in enumerate(amounts):
        d, n = first + i, out_sizes[i]
        if before > 0:  # the left block repeats the last `before` cells of the middle
            out.narrow(d, 0, before).copy_(out.narrow(d, n - max(after, 0) - before, before))
        if after > 0:  # the right block repeats the first `after` cells of the middle
            out.narrow(d, n - after, after).copy_(out.narrow(d, max(before, 0), after))
    return out
