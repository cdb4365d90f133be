"""More shape operations: ``rot90``, ``diag_embed``/``diagflat``, ``vsplit``/``hsplit``/``dsplit``,
``split_with_sizes``, the ``unsafe_`` splits, ``unfold`` (sliding windows) and ``fill_diagonal_``.

``ops/shape.py`` holds the everyday ones (view, transpose, cat, split …); these build on
them.  Two ideas are new here:

* ``unfold(dim, size, step)`` is a *view* whose windows overlap: with ``step < size``
  one element of the input appears in several windows.  No data is copied; the view
  reads the same memory with a larger stride (``step`` elements) between windows.
  Its backward adds each window's gradient back where the window came from, so an
  element seen in three windows receives three contributions.
* the ``unsafe_`` splits return pieces that share memory with the input *without*
  being tracked as views (PyTorch's promise to autograd that no one will write to them).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..arrays import to_numpy, transfer
from ..autograd.function import Function
from ..device import CPU
from ..tensor import Tensor, _wrap_dim
from .common import Number
from .inplace import inplace
from .shape import Split, split, tensor_split

__all__ = ["rot90", "diag_embed", "diagflat", "vsplit", "hsplit", "dsplit", "split_with_sizes",
           "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk", "unfold", "fill_diagonal_"]


def _c_order(array: Any) -> np.ndarray:
    """A C-contiguous array (copied only when needed; a 0-d array stays 0-d)."""
    a = np.asarray(array)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _host(t: Tensor) -> np.ndarray:
    return to_numpy(t._data)


def _to_device(array: np.ndarray, like: Tensor) -> Tensor:
    return Tensor._make(transfer(_c_order(array), CPU, like._device), like._device)


# ----------------------------------------------------------------------------- rot90
class Rot90(Function):
    _backward_name = "Rot90Backward0"

    @staticmethod
    def forward(ctx, x: Tensor, k: int, dims: tuple) -> Tensor:
        ctx.k, ctx.dims = k, dims
        return _to_device(np.rot90(_host(x), k, axes=dims), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return Rot90.apply(grad, -ctx.k % 4, ctx.dims), None, None


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotate by 90° ``k`` times in the plane of ``dims``, from the first axis towards the second
    (a copy, as in PyTorch: a rotation is a flip and a transpose)."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = _wrap_dim(dims[0], input.ndim), _wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return Rot90.apply(input, k % 4, (d0, d1))


# ----------------------------------------------------------------------------- diagonals
class DiagEmbed(Function):
    _backward_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        data = _host(x)
        n = data.shape[-1]
        m = n + abs(offset)
        out = np.zeros(data.shape[:-1] + (m, m), dtype=data.dtype)
        i = np.arange(n)
        out[..., i + max(-offset, 0), i + max(offset, 0)] = data  # the offset-th diagonal
        ctx.offset, ctx.dim1, ctx.dim2 = offset, dim1, dim2
        return _to_device(np.moveaxis(out, (-2, -1), (dim1, dim2)), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return grad.diagonal(ctx.offset, ctx.dim1, ctx.dim2), None, None, None


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims ``dim1``, ``dim2`` of the result) with the last dimension of ``input`` on
    their ``offset``-th diagonal, zeros elsewhere: the inverse of ``diagonal``, batched."""
    d1, d2 = _wrap_dim(dim1, input.ndim + 1), _wrap_dim(dim2, input.ndim + 1)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -1)")
    return DiagEmbed.apply(input, int(offset), d1, d2)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened ``input`` on its ``offset``-th diagonal."""
    return diag_embed(input.reshape(-1) if input.ndim != 1 else input, offset)


# ----------------------------------------------------------------------------- splits
def _split_along(name: str, input: Tensor, sections: Any, dim: int, min_dims: int) -> tuple:
    """NumPy-style ``vsplit``/``hsplit``/``dsplit``: ``tensor_split`` along one dimension; an
    integer count must divide the dimension exactly."""
    one_count = isinstance(sections, Tensor) and not sections.ndim and not sections.is_floating_point()
    if not isinstance(sections, (int, tuple, list)) and not one_count:
        raise TypeError(f"{name}(): argument 'indices_or_sections' (position 2) must be an int or a tuple of ints, "
                        f"not {type(sections).__name__}")
    if input.ndim < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    if isinstance(sections, int):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along dimension 0 (the rows)."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along dimension 1 (the columns; dimension 0 of a 1-D tensor)."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split along dimension 2 (the depth)."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """Pieces of the listed sizes (which must add up to the dimension's size)."""
    return split(input, list(split_sizes), dim)


class UnsafeSplit(Function):
    """``split``'s pieces, sharing memory with the input but not tracked as its views."""
    _backward_name = "UnsafeSplitBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, sizes: tuple, dim: int) -> tuple:
        pieces = Split.forward(ctx, x, sizes, dim)
        return tuple(Tensor._make(p._data, x._device) for p in pieces)

    backward = Split.backward


class UnsafeSplitWithSizes(UnsafeSplit):
    _backward_name = "UnsafeSplitWithSizesBackward0"


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    """``split`` into pieces of ``split_size`` that are not tracked as views (see the module's notes)."""
    if not isinstance(split_size, int):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 1) must be int, not "
                        f"{type(split_size).__name__}")
    pieces = split(input.detach(), split_size, dim)  # (checks the arguments, finds the sizes)
    return UnsafeSplit.apply(input, tuple(p.shape[_wrap_dim(dim, input.ndim)] for p in pieces),
                             _wrap_dim(dim, input.ndim))


def unsafe_split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    split(input.detach(), list(split_sizes), dim)  # (checks that the sizes add up)
    return UnsafeSplitWithSizes.apply(input, tuple(split_sizes), _wrap_dim(dim, input.ndim))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """``chunk`` into pieces that are not tracked as views."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    if not input.ndim:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    n = input.shape[_wrap_dim(dim, input.ndim)]
    return unsafe_split(input, -(-n // chunks) if n else 1, dim)


# ----------------------------------------------------------------------------- unfold
def _windows(data: Any, be: Any, dim: int, size: int, step: int) -> Any:
    """The sliding windows of ``data`` along ``dim`` as a strided view of the same memory:
    the window axis is appended last, and ``dim`` now counts windows, ``step`` apart."""
    count = (data.shape[dim] - size) // step + 1
    shape = data.shape[:dim] + (count,) + data.shape[dim + 1:] + (size,)
    strides = data.strides[:dim] + (data.strides[dim] * step,) + data.strides[dim + 1:] + (data.strides[dim],)
    if be.is_numpy:
        return np.lib.stride_tricks.as_strided(data, shape, strides)
    if be.name == "cupy":
        import cupy
        return cupy.lib.stride_tricks.as_strided(data, shape, strides)
    # the array-API stand-in has no strides: stack the windows (a copy)
    xp = be.xp
    starts = range(0, count * step, step)
    pieces = [xp.moveaxis(data[(slice(None),) * dim + (slice(s, s + size),)], dim, -1) for s in starts]
    return xp.stack(pieces, axis=dim)


class Unfold(Function):
    _backward_name = "UnfoldBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, size: int, step: int) -> Tensor:
        ctx.shape, ctx.dim, ctx.size, ctx.step = tuple(x.shape), dim, size, step
        data = x._data
        if x.ndim == 0:
            return x._view_of(x._backend.xp.reshape(data, (1,))[:size])
        return x._view_of(_windows(data, x._backend, dim, size, step))

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return UnfoldBackward.apply(grad, ctx.shape, ctx.dim, ctx.size, ctx.step), None, None, None


class UnfoldBackward(Function):
    """Add each window's gradient back at the positions the window covers (overlaps add up).
    Its own derivative is ``unfold`` again."""
    _backward_name = "UnfoldBackwardBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, shape: tuple, dim: int, size: int, step: int) -> Tensor:
        ctx.dim, ctx.size, ctx.step = dim, size, step
        g = _host(grad)
        out = np.zeros(shape or (1,), dtype=g.dtype)
        if not shape:
            out[:size] += g.reshape(-1)[:size]
            return _to_device(out.reshape(()), grad)
        count = g.shape[dim]
        # window w, element j came from position w·step + j along dim
        pos = (np.arange(count)[:, None] * step + np.arange(size)[None, :])  # (count, size)
        moved = np.moveaxis(out, dim, 0)  # a view: adding into it adds into out
        g_moved = np.moveaxis(g, (dim, -1), (0, 1))  # (count, size, other dims...)
        np.add.at(moved, pos, g_moved)
        return _to_device(out, grad)

    @staticmethod
    def backward(ctx, g: Tensor) -> tuple:
        return unfold(g, ctx.dim, ctx.size, ctx.step), None, None, None, None


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """All windows of ``size`` elements along ``dimension``, ``step`` apart, as a view: the
    dimension becomes the number of windows and a new last dimension of ``size`` holds each
    window.  ``torch.arange(7.).unfold(0, 3, 2)`` is ``[[0, 1, 2], [2, 3, 4], [4, 5, 6]]``."""
    d = _wrap_dim(dimension, max(input.ndim, 1))
    n = input.shape[d] if input.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(input, d, int(size), int(step))


# ----------------------------------------------------------------------------- fill_diagonal_
def _diagonal_positions(shape: tuple, wrap: bool) -> np.ndarray:
    """Flat (row-major) positions of the main diagonal ``(i, i, ..., i)``.  With ``wrap`` a tall
    matrix's diagonal starts again below the square part, one row further down (NumPy's rule)."""
    n = min(shape)
    step = sum(int(np.prod(shape[k + 1:])) for k in range(len(shape)))  # 1 + cols (+ cols·depth …)
    total = int(np.prod(shape))
    if wrap and len(shape) == 2 and shape[0] > shape[1] + 1:
        return np.arange(0, total, step)
    return np.arange(n) * step


class FillDiagonal(Function):
    """The tensor with its main diagonal set to ``value``; the old diagonal gets no gradient.
    PyTorch writes through a strided view of the diagonal, hence the node's name."""
    _backward_name = "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, x: Tensor, value: Any, wrap: bool) -> Tensor:
        out = _host(x).copy()
        out.reshape(-1)[_diagonal_positions(out.shape, wrap)] = value
        ctx.wrap = wrap
        return _to_device(out, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return FillDiagonal.apply(grad, 0, ctx.wrap), None, None


def fill_diagonal_(input: Tensor, fill_value: Number, wrap: bool = False) -> Tensor:
    """Set the main diagonal to ``fill_value`` in place (every dimension must have the same size
    beyond 2-D; ``wrap=True`` continues a tall matrix's diagonal below its square part)."""
    if input.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if input.ndim > 2 and len(set(input.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return inplace(input, lambda t: FillDiagonal.apply(t, fill_value, bool(wrap)))
