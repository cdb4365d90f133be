"""Pooling kernels for any number of spatial dimensions: what ``F.max_pool3d``,
``F.avg_pool3d``, the adaptive pools, and un-pooling (``F.max_unpool1d/2d/3d``) compute.

A pooling input is ``(N, C, *spatial)`` (or unbatched ``(C, *spatial)``) with ``k`` spatial
dimensions.  Channels never mix, so every kernel here first flattens the leading
dimensions into one axis of *planes*: ``(B, *spatial)``.  A 1-D, 2-D or 3-D pool is then
the same code, with a ``k``-dimensional window:

* **sliding windows** (max and average pooling).  A window has ``prod(kernel)`` cells.
  Instead of building the big im2col array of ``ops/convolution.py`` (every window's
  cells stacked: ``prod(kernel)`` times the input), the loop here runs over the kernel
  *offsets*: for offset ``(i, j, l)`` one strided slice of the padded planes holds the cell
  ``(i, j, l)`` of every window at once.  Average pooling adds the slices up; max pooling
  keeps a running maximum and where it came from.  The memory stays that of one output.
* **adaptive cells** (adaptive pooling): output cell ``i`` of ``n`` covers input cells
  ``floor(i·size/n)`` to ``ceil((i+1)·size/n)`` along each dimension.  An average over
  such a box is an average along each dimension in turn, so adaptive average pooling is
  one small ``(n, size)`` averaging matrix per dimension.  Adaptive max pooling visits
  the boxes one by one.

Max pooling remembers the winner of each window as a flat index into its plane (PyTorch's
``indices``): row-major over the *unpadded* spatial dimensions.  The backward sends each
gradient to its winner (a scatter-add, since windows may overlap), and un-pooling puts
each value back at its index -- the same scatter, which is why ``max_unpool`` needs the
indices of the pooling it undoes.

PyTorch has one kernel per dimension (``MaxPool3DWithIndicesBackward0``,
``AvgPool3DBackward0``, ``AdaptiveMaxPool2DBackward0`` ...).  Here each is one N-d
Function under PyTorch's name (:func:`_named`), as ``ops/resampling.py`` names its index maps.
Every backward is itself a Function whose own backward is the forward map's adjoint
(scatter ↔ gather, spread ↔ pool), so these pools can be differentiated twice.

These kernels serve every pool of ``F`` (``ops/pooling.py`` reads the arguments); 1-D pools
are 2-D pools of a one-row image, as in PyTorch.  ``ops/convolution.py`` keeps an older im2col
version of the 2-D pools, which stacks all ``prod(kernel)`` slices at once: the same
numbers, but 2 to 4 times slower here and a ``prod(kernel)``-fold copy of the input in memory.
"""
from __future__ import annotations

import itertools
import math
import operator
from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import dtypes
from ..autograd.function import Function
from .common import in_layout_of, new_result, wrap_dim
from .formula import differentiable_backward
from .resampling import contiguous_copy
from ..tensor import Tensor

__all__ = ["pool_args", "pooled_size", "max_pool_nd", "avg_pool_nd", "adaptive_avg_pool_nd", "adaptive_max_pool_nd",
           "max_unpool_nd"]

IntOrTuple = Union[int, Sequence[int]]
_WORDS = {1: "one", 2: "two", 3: "three"}  # PyTorch's messages say "a tuple of three ints"


# ---------------------------------------------------------------------------- geometry
def pool_args(value: IntOrTuple, dims: int, message: str) -> tuple[int, ...]:
    """``2`` → ``(2, 2, 2)`` for a 3-D pool; a one-element or ``dims``-element tuple is accepted too.
    ``message`` is the error for any other length (PyTorch's wording for that argument).  A float
    (``kernel_size=k / 2``) is a TypeError, as in PyTorch: ``operator.index`` refuses it where
    ``int`` would truncate it."""
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return (operator.index(value[0]),) * dims
        if len(value) != dims:
            raise RuntimeError(message.format(words=_WORDS.get(dims, str(dims))))
        return tuple(operator.index(v) for v in value)
    return (operator.index(value),) * dims


def pooled_size(size: int, kernel: int, stride: int, pad: int, dilation: int, ceil_mode: bool) -> int:
    """How many windows fit along one dimension.  ``ceil_mode`` keeps a last, partial window,
    unless it would start in the right padding (it must start inside the input or the left padding)."""
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _planes(xp: Any, x: Any, dims: int) -> Any:
    """``(N, C, *spatial)`` or ``(C, *spatial)`` → ``(B, *spatial)``: the planes pool independently."""
    return xp.reshape(x, (-1,) + tuple(x.shape[x.ndim - dims:]))


def _window_slice(offset: tuple, stride: tuple, dilation: tuple, out: tuple) -> tuple:
    """The strided slice of the padded planes that holds cell ``offset`` of every window."""
    return (slice(None),) + tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                                  for o, s, d, n in zip(offset, stride, dilation, out))


def _offsets(kernel: tuple) -> Any:
    """Every cell of a window, row-major: ``(0, 0, 0), (0, 0, 1) ...``."""
    return itertools.product(*(range(k) for k in kernel))


def _along(xp: Any, values: Any, d: int, dims: int) -> Any:
    """A 1-D array shaped to broadcast along spatial dimension ``d`` of an ``(B, *spatial)`` array."""
    return xp.reshape(values, (1,) * (d + 1) + (-1,) + (1,) * (dims - d - 1))


def _padded(xp: Any, planes: Any, before: tuple, after: tuple, value: Any = 0) -> Any:
    if not any(before) and not any(after):
        return planes
    return xp.pad(planes, ((0, 0),) + tuple(zip(before, after)), constant_values=value)


def _named(base: type, backward_name: str) -> type:
    """``base`` printing as PyTorch's node ``backward_name``: one N-d kernel, one name per
    dimension (``AvgPool2DBackward0``, ``AvgPool3DBackward0``)."""
    return type(backward_name[:-len("Backward0")], (base,), {"_backward_name": backward_name, "__module__": __name__})


# ---------------------------------------------------------------------------- the winners' scatter and gather
def _scatter(be: Any, g: Any, indices: Any, plane_shape: tuple) -> Any:
    """Each gradient added at its winner: ``g`` and ``indices`` are ``(*lead, *out)``, the result
    ``(*lead, *plane_shape)``.  Added, not assigned, because overlapping windows can share a winner."""
    xp = be.xp
    lead = tuple(indices.shape[:indices.ndim - len(plane_shape)])
    n_planes, per_plane = int(np.prod(lead, dtype=np.int64)), int(np.prod(plane_shape, dtype=np.int64))
    idx = xp.reshape(indices, (n_planes, -1))
    rows = xp.repeat(xp.arange(n_planes), idx.shape[1])  # the plane of every winner
    out = xp.zeros((n_planes, per_plane), dtype=g.dtype)
    out = be.scatter_add(out, (rows, xp.reshape(idx, (-1,))), xp.reshape(g, (-1,)))
    return xp.reshape(out, lead + tuple(plane_shape))


def _gather(xp: Any, h: Any, indices: Any, plane_shape: tuple) -> Any:
    """The adjoint of :func:`_scatter`: read ``h`` (``(*lead, *plane_shape)``) at every winner."""
    flat_h = xp.reshape(h, (-1, int(np.prod(plane_shape, dtype=np.int64))))
    picked = xp.take_along_axis(flat_h, xp.reshape(indices, (flat_h.shape[0], -1)), axis=1)
    return xp.reshape(picked, indices.shape)


class ScatterToWinners(Function):
    """A max pooling's backward as an operation (under ``create_graph=True``).  It is linear in
    the gradient; its adjoint reads at the same winners (:class:`GatherAtWinners`)."""

    gather: type  # the adjoint, set by _winner_backward for each name

    @staticmethod
    def forward(ctx, grad: Tensor, indices: Any = None, plane_shape: tuple = ()) -> Tensor:
        ctx.indices, ctx.plane_shape = indices, plane_shape
        return new_result(_scatter(grad._backend, grad._data, indices, plane_shape), grad)

    @staticmethod
    def backward(ctx, h: Tensor) -> tuple:
        return type(ctx)._forward_cls.gather.apply(h, ctx.indices, ctx.plane_shape), None, None


class GatherAtWinners(Function):
    """``h`` read at each window's winner: the adjoint of :class:`ScatterToWinners`."""

    scatter: type

    @staticmethod
    def forward(ctx, h: Tensor, indices: Any = None, plane_shape: tuple = ()) -> Tensor:
        ctx.indices, ctx.plane_shape = indices, plane_shape
        return new_result(_gather(h._backend.xp, h._data, indices, plane_shape), h)

    @staticmethod
    def backward(ctx, g: Tensor) -> tuple:
        return type(ctx)._forward_cls.scatter.apply(g, ctx.indices, ctx.plane_shape), None, None


def _winner_backward(node: str) -> type:
    """The scatter (and its gather) of the max pooling whose node is ``node + 'Backward0'``,
    under PyTorch's names: ``MaxPool3DWithIndicesBackwardBackward0`` for the scatter."""
    scatter = _named(ScatterToWinners, node + "BackwardBackward0")
    gather = _named(GatherAtWinners, node + "Backward0")
    scatter.gather, gather.scatter = gather, scatter
    return scatter


class _WinnersForward(Function):
    """What the max pools share: a backward that scatters the gradient to the winners."""

    scatter: type  # this pool's ScatterToWinners, by its name

    @staticmethod
    def backward(ctx, grad: Tensor, _grad_indices: Any = None) -> Tensor:
        if differentiable_backward():
            return type(ctx)._forward_cls.scatter.apply(grad, ctx.indices, ctx.plane_shape)
        return new_result(_scatter(grad._backend, grad._data, ctx.indices, ctx.plane_shape), grad)


def _with_indices(ctx: Any, x: Tensor, out: Any, indices: Any, ranks: tuple = (4,)) -> tuple:
    """The two results of a max pool: values, and the winners' indices (not differentiable), both
    channels-last for a channels-last input of one of the ``ranks`` (see :func:`in_layout_of`)."""
    ctx.indices = indices
    idx = in_layout_of(indices, x, ranks)
    ctx.mark_non_differentiable(idx)
    return in_layout_of(out, x, ranks), idx


# ---------------------------------------------------------------------------- max pooling
class MaxPoolWithIndices(_WinnersForward):
    """The maximum of each window and the flat index of the cell that held it.

    A running maximum over the window's cells: cell ``offset`` of every window is one strided
    slice.  A cell replaces the maximum when it is larger -- so the first maximum wins ties --
    or NaN (a NaN propagates), as PyTorch's CPU kernel decides; the padding never wins."""

    @staticmethod
    def forward(ctx, x: Tensor, dims: int = 3, kernel: tuple = (), stride: tuple = (), padding: tuple = (),
                dilation: tuple = (), ceil_mode: bool = False) -> tuple:
        xp = x._backend.xp
        planes = _planes(xp, x._data, dims)
        spatial = planes.shape[1:]
        out_size = tuple(pooled_size(*a, ceil_mode) for a in zip(spatial, kernel, stride, padding, dilation))
        lead = tuple(x.shape[:x.ndim - dims])
        ctx.plane_shape = tuple(spatial)
        shape = (planes.shape[0],) + out_size
        if 0 in shape:
            empty = xp.zeros(shape, dtype=planes.dtype)
            return _with_indices(ctx, x, xp.reshape(empty, lead + out_size),
                                 xp.reshape(xp.zeros(shape, dtype=np.int64), lead + out_size), (4, 5))
        # a ceil_mode window may run past the right padding: pad that much more
        extra = tuple(max(0, (o - 1) * s + d * (k - 1) + 1 - (n + 2 * p))
                      for o, s, d, k, n, p in zip(out_size, stride, dilation, kernel, spatial, padding))
        # the padding holds the lowest value there is, so that it never beats a real cell
        is_float = np.dtype(planes.dtype).kind in "fc"
        low = -np.inf if is_float else np.iinfo(planes.dtype).min
        padded = _padded(xp, planes, padding, tuple(p + e for p, e in zip(padding, extra)), low)
        plane_strides = [int(np.prod(spatial[d + 1:], dtype=np.int64)) for d in range(dims)]
        starts = [xp.arange(o) * s - p for o, s, p in zip(out_size, stride, padding)]
        best = where = None
        for offset in _offsets(kernel):
            cell = padded[_window_slice(offset, stride, dilation, out_size)]
            flat = sum(_along(xp, (starts[d] + offset[d] * dilation[d]) * plane_strides[d], d, dims)
                       for d in range(dims))  # where this cell is in the plane
            if best is None:
                best, where = cell.copy(), xp.broadcast_to(flat, shape).copy()
                continue
            better = cell > best
            if is_float:
                better = better | xp.isnan(cell)
            best = xp.where(better, cell, best)
            where = xp.where(better, flat, where)
        if any(padding) or any(extra):
            # A window whose maximum is the lowest value may have "found" it in the padding.  Its
            # index is the first cell inside the input, as in PyTorch (whose loop skips the padding).
            first = sum(_along(xp, _first_inside(xp, starts[d], dilation[d]) * plane_strides[d], d, dims)
                        for d in range(dims))
            where = xp.where(best == low, first, where)
        return _with_indices(ctx, x, xp.reshape(best, lead + out_size), xp.reshape(where, lead + out_size), (4, 5))


def _first_inside(xp: Any, start: Any, dilation: int) -> Any:
    """The first cell of each window at or after 0, stepping by the dilation from ``start``."""
    behind = xp.maximum(-start, 0)
    return start + (behind + dilation - 1) // dilation * dilation


def _max_family(dims: int) -> type:
    pool = _named(MaxPoolWithIndices, f"MaxPool{dims}DWithIndicesBackward0")
    pool.scatter = _winner_backward(f"MaxPool{dims}DWithIndices")
    return pool


_MAX_POOL = {2: _max_family(2), 3: _max_family(3)}


def _check_window(fn: str, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> None:
    """PyTorch's checks of a pooling window's options, in its order.  (Max pooling checks the padding
    twice: against half the *dilated* window, then against half the kernel.)"""
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got {_dims_text('k', kernel)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got {_dims_text('d', stride)}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {_dims_text('dilation', dilation)}")
    for p, k, d in zip(padding, kernel, dilation):
        if p < 0:
            raise RuntimeError("pad must be non-negative")
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    if fn.startswith("max") and any(p > k // 2 for p, k in zip(padding, kernel)):
        if len(kernel) == 2:
            shown = f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}"
        else:  # (PyTorch prints W before H here)
            shown = (f"kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} padT: {padding[0]} padW: {padding[2]} "
                     f"padH: {padding[1]}")
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got {shown}")


def _dims_text(prefix: str, values: tuple) -> str:
    """``kT: 2 kH: 2 kW: 2`` (3-D) or ``kH: 2 kW: 2`` (2-D), as PyTorch prints window options."""
    names = ("T", "H", "W")[3 - len(values):] if len(values) <= 3 else [str(i) for i in range(len(values))]
    return " ".join(f"{prefix}{n}: {v}" for n, v in zip(names, values))


def _check_input(input: Tensor, dims: int) -> None:
    if input.dim() not in (dims + 1, dims + 2) or any(s == 0 for s in input.shape[-dims - 1:]):
        raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected for input")


def _not_for_bool(input: Tensor, kernel: str) -> None:
    if input.dtype is dtypes.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _check_output(input: Tensor, dims: int, out_size: tuple) -> None:
    if any(o < 1 for o in out_size):
        shown = tuple(input.shape[-dims - 1:])
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, shown))}). Calculated output size: "
                           f"({'x'.join(map(str, (shown[0],) + out_size))}). Output size is too small")


def max_pool_nd(input: Tensor, dims: int, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,
                padding: IntOrTuple = 0, dilation: IntOrTuple = 1, ceil_mode: bool = False) -> tuple:
    """Max pooling over the last ``dims`` dimensions: ``(values, indices)``."""
    fn = f"max_pool{dims}d"
    kernel = pool_args(kernel_size, dims, fn + ": kernel_size must either be a single int, or a tuple of {words} ints")
    no_stride = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
    stride_ = kernel if no_stride else pool_args(
        stride, dims, fn + ": stride must either be omitted, a single int, or a tuple of {words} ints")
    pad = pool_args(padding, dims, fn + ": padding must either be a single int, or a tuple of {words} ints")
    dil = pool_args(dilation, dims, fn + ": dilation must be either a single int, or a tuple of {words} ints")
    _check_window(fn, kernel, stride_, pad, dil)
    _check_input(input, dims)
    _not_for_bool(input, fn)
    spatial = tuple(input.shape[-dims:])
    _check_output(input, dims, tuple(pooled_size(*a, ceil_mode) for a in zip(spatial, kernel, stride_, pad, dil)))
    return _MAX_POOL[dims].apply(input, dims=dims, kernel=kernel, stride=stride_, padding=pad, dilation=dil,
                                 ceil_mode=ceil_mode)


# ---------------------------------------------------------------------------- average pooling
def _divisors(xp: Any, spatial: tuple, kernel: tuple, stride: tuple, padding: tuple, out_size: tuple,
              count_include_pad: bool, dtype: Any) -> Any:
    """How many cells each window averages, shaped ``(1, *out)``.  A window is a box, so its count
    is a product of one count per dimension: the cells inside the input (``count_include_pad=False``),
    or inside input plus padding (a ``ceil_mode`` window running past the padding counts only up to it)."""
    divisor = 1
    for d, (n, k, s, p, o) in enumerate(zip(spatial, kernel, stride, padding, out_size)):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        count = end - start if count_include_pad else np.minimum(end, n) - np.maximum(start, 0)
        divisor = divisor * _along(np, count, d, len(spatial))
    return xp.asarray(divisor.astype(dtype))  # (an int64 divisor would turn a float32 division into float64)


class AvgPool(Function):
    """The mean of each window: the windows' sums (one strided slice per cell) over their divisors.
    The backward spreads ``grad / divisor`` over each window's cells."""

    spread: type  # this pool's backward as a Function (AvgPoolBackward, by name)

    @staticmethod
    def forward(ctx, x: Tensor, dims: int = 3, kernel: tuple = (), stride: tuple = (), padding: tuple = (),
                ceil_mode: bool = False, count_include_pad: bool = True,
                divisor_override: Optional[int] = None) -> Tensor:
        xp = x._backend.xp
        planes = _planes(xp, x._data, dims)
        spatial = tuple(planes.shape[1:])
        ones = (1,) * dims
        out_size = tuple(pooled_size(*a, ceil_mode) for a in zip(spatial, kernel, stride, padding, ones))
        lead = tuple(x.shape[:x.ndim - dims])
        if divisor_override:
            divisor = float(divisor_override)
        else:
            divisor = _divisors(xp, spatial, kernel, stride, padding, out_size, count_include_pad,
                                _sum_dtype(planes.dtype))
        ctx.geometry = (dims, kernel, stride, padding, spatial, out_size, divisor)
        ctx.options = dict(dims=dims, kernel=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode,
                           count_include_pad=count_include_pad, divisor_override=divisor_override)
        total = xp.zeros((planes.shape[0],) + out_size, dtype=_sum_dtype(planes.dtype))
        if total.size:
            padded = _padded(xp, planes, padding, _after(spatial, kernel, stride, padding, out_size))
            for offset in _offsets(kernel):
                total += padded[_window_slice(offset, stride, ones, out_size)]
        out = total / divisor
        if np.dtype(planes.dtype).kind in "iu":  # integer pools divide as C++ does: towards zero
            out = xp.trunc(out)
        return in_layout_of(xp.reshape(out.astype(planes.dtype, copy=False), lead + out_size), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        if differentiable_backward():
            return type(ctx)._forward_cls.spread.apply(grad, ctx.geometry, ctx.options)
        return new_result(_spread(grad._backend.xp, grad._data, *ctx.geometry), grad)


def _sum_dtype(dt: Any) -> Any:
    """What the windows' sums are added up in: float64 for integers, float32 for float16 (as
    PyTorch's kernels accumulate), else the input's own dtype."""
    dt = np.dtype(dt)
    if dt.kind in "iub":
        return np.float64
    return np.float32 if dt == np.float16 else dt


def _after(spatial: tuple, kernel: tuple, stride: tuple, padding: tuple, out_size: tuple) -> tuple:
    """The padding after each dimension: ``padding``, or more where a ``ceil_mode`` window runs past it."""
    return tuple(max(p, (o - 1) * s + k - n - p) for n, k, s, p, o in zip(spatial, kernel, stride, padding, out_size))


def _spread(xp: Any, g: Any, dims: int, kernel: tuple, stride: tuple, padding: tuple, spatial: tuple,
            out_size: tuple, divisor: Any) -> Any:
    """Average pooling's backward on arrays: every cell of a window gets ``grad / divisor``; the
    padding's share is cut off at the end."""
    lead = g.shape[:g.ndim - dims]
    share = _planes(xp, g, dims) / divisor
    after = _after(spatial, kernel, stride, padding, out_size)
    full = xp.zeros((share.shape[0],) + tuple(n + p + a for n, p, a in zip(spatial, padding, after)), dtype=g.dtype)
    if share.size:
        for offset in _offsets(kernel):
            full[_window_slice(offset, stride, (1,) * dims, out_size)] += share
    inner = (slice(None),) + tuple(slice(p, p + n) for p, n in zip(padding, spatial))
    return xp.ascontiguousarray(xp.reshape(full[inner].astype(g.dtype, copy=False), tuple(lead) + spatial))


class AvgPoolBackward(Function):
    """Average pooling's backward as an operation (for ``create_graph=True``): linear in the
    gradient, and its adjoint is the average pooling itself."""

    pool: type

    @staticmethod
    def forward(ctx, grad: Tensor, geometry: tuple = (), options: Optional[dict] = None) -> Tensor:
        ctx.options = options
        return new_result(_spread(grad._backend.xp, grad._data, *geometry), grad)

    @staticmethod
    def backward(ctx, h: Tensor) -> tuple:
        return type(ctx)._forward_cls.pool.apply(h, **ctx.options), None, None


def _avg_family(dims: int) -> type:
    pool = _named(AvgPool, f"AvgPool{dims}DBackward0")
    pool.spread = _named(AvgPoolBackward, f"AvgPool{dims}DBackwardBackward0")
    pool.spread.pool = pool
    return pool


_AVG_POOL = {2: _avg_family(2), 3: _avg_family(3)}


def avg_pool_nd(input: Tensor, dims: int, kernel_size: IntOrTuple, stride: Optional[IntOrTuple] = None,
                padding: IntOrTuple = 0, ceil_mode: bool = False, count_include_pad: bool = True,
                divisor_override: Optional[int] = None) -> Tensor:
    """Average pooling over the last ``dims`` dimensions (``dims`` 2 or 3)."""
    fn = f"avg_pool{dims}d"
    either = "either " if dims == 2 else ""  # (PyTorch's two messages differ by this word)
    kernel = pool_args(kernel_size, dims, fn + f": kernel_size must {either}be a single int, or a tuple of "
                       "{words} ints")
    no_stride = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
    stride_ = kernel if no_stride else pool_args(
        stride, dims, fn + ": stride must either be omitted, a single int, or a tuple of {words} ints")
    pad = pool_args(padding, dims, fn + ": padding must either be a single int, or a tuple of {words} ints")
    if dims == 2 and input.dim() < 3:
        wrap_dim(-3, input.dim())  # PyTorch's 2-D kernel reads the size of dimension -3 first: its IndexError
    if divisor_override is not None and operator.index(divisor_override) == 0:  # (a float: PyTorch's TypeError)
        raise RuntimeError("divisor must be not zero")
    _check_window(fn, kernel, stride_, pad, (1,) * dims)
    _check_input(input, dims)
    if dims == 2:
        _not_for_bool(input, fn)
    elif input.dtype in (dtypes.bool, dtypes.float16, dtypes.bfloat16):  # (PyTorch's CPU kernel has no such forms)
        name = dtypes.SCALAR_NAMES.get(input.dtype.name, input.dtype.name)
        raise NotImplementedError(f"\"{fn}_out_frame\" not implemented for '{name}'")
    spatial = tuple(input.shape[-dims:])
    if dims == 3 and any(n + 2 * p < k for n, p, k in zip(spatial, pad, kernel)):
        raise RuntimeError(f"input image ({_dims_text('', spatial)}) smaller than kernel size "
                           f"({_dims_text('k', kernel)})")
    _check_output(input, dims, tuple(pooled_size(*a, ceil_mode) for a in zip(spatial, kernel, stride_, pad,
                                                                               (1,) * dims)))
    return _AVG_POOL[dims].apply(input, dims=dims, kernel=kernel, stride=stride_, padding=pad, ceil_mode=ceil_mode,
                                 count_include_pad=count_include_pad, divisor_override=divisor_override)


# ---------------------------------------------------------------------------- adaptive pooling
def adaptive_cells(size: int, n: int) -> list[tuple[int, int]]:
    """PyTorch's adaptive cells: cell ``i`` of ``n`` covers ``[floor(i·size/n), ceil((i+1)·size/n))``."""
    return [(i * size // n, -(-(i + 1) * size // n)) for i in range(n)]


def _averaging_matrix(size: int, n: int) -> np.ndarray:
    """``(n, size)``: row ``i`` averages the cells of adaptive cell ``i``."""
    m = np.zeros((n, size))
    for i, (a, b) in enumerate(adaptive_cells(size, n)):
        m[i, a:b] = 1.0 / (b - a)
    return m


def _apply_matrices(be: Any, a: Any, matrices: list, transpose: bool) -> Any:
    """Multiply each of the last ``len(matrices)`` dimensions of ``a`` by its matrix (or its transpose)."""
    xp = be.xp
    first = a.ndim - len(matrices)
    for d, m in enumerate(matrices):
        m = xp.astype(be.asarray(m.T if transpose else m), a.dtype)  # (a host matrix, on a's device)
        a = xp.moveaxis(xp.tensordot(a, m, axes=([first + d], [1])), -1, first + d)
    return contiguous_copy(xp, a)


class AdaptiveAvgPool(Function):
    """Adaptive average pooling: one averaging matrix per spatial dimension (an average over a box
    is an average along each of its sides in turn).  The backward applies the transposed matrices."""

    spread: type

    @staticmethod
    def forward(ctx, x: Tensor, output_size: tuple = ()) -> Tensor:
        dims = len(output_size)
        ctx.matrices = [_averaging_matrix(s, n) for s, n in zip(x.shape[x.ndim - dims:], output_size)]
        return in_layout_of(_apply_matrices(x._backend, x._data, ctx.matrices, False), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        if differentiable_backward():
            return type(ctx)._forward_cls.spread.apply(grad, ctx.matrices, tuple(m.shape[0] for m in ctx.matrices))
        return new_result(_apply_matrices(grad._backend, grad._data, ctx.matrices, True), grad)


class AdaptiveAvgPoolBackward(Function):
    """The adaptive average pooling's backward as an operation; its adjoint is the pooling."""

    pool: type

    @staticmethod
    def forward(ctx, grad: Tensor, matrices: Any = None, output_size: tuple = ()) -> Tensor:
        ctx.output_size = output_size
        return new_result(_apply_matrices(grad._backend, grad._data, matrices, True), grad)

    @staticmethod
    def backward(ctx, h: Tensor) -> tuple:
        return type(ctx)._forward_cls.pool.apply(h, output_size=ctx.output_size), None, None


def _adaptive_avg_family(dims: int) -> type:
    pool = _named(AdaptiveAvgPool, f"AdaptiveAvgPool{dims}DBackward0")
    pool.spread = _named(AdaptiveAvgPoolBackward, f"AdaptiveAvgPool{dims}DBackwardBackward0")
    pool.spread.pool = pool
    return pool


_ADAPTIVE_AVG = {2: _adaptive_avg_family(2), 3: _adaptive_avg_family(3)}


def _not_for_integers(input: Tensor, kernel: str) -> None:
    if not (input.is_floating_point() or input.is_complex()):
        name = dtypes.SCALAR_NAMES.get(input.dtype.name, input.dtype.name)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _adaptive_size(output_size: Any, input: Tensor, dims: int, message: str) -> tuple[int, ...]:
    """``3`` → ``(3, 3, 3)``; ``None`` in a tuple keeps that dimension's input size.  Read before the
    input's rank is checked, as PyTorch's Python code reads it (a tuple needs one more input dimension)."""
    if isinstance(output_size, (tuple, list)) and input.dim() <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * dims
    if len(size) != dims:
        raise RuntimeError(message)
    spatial = ((None,) * dims + tuple(input.shape))[-dims:]  # (None: a dimension the input lacks)
    return tuple(n if o is None else operator.index(o) for o, n in zip(size, spatial))


def adaptive_avg_pool_nd(input: Tensor, dims: int, output_size: Any) -> Tensor:
    """Average the last ``dims`` dimensions into an ``output_size`` grid, whatever their size."""
    fn = f"adaptive_avg_pool{dims}d"
    size = _adaptive_size(output_size, input, dims, f"{fn}: output_size must be {dims}")
    if all(o == 1 for o in size):  # global average pooling: a plain mean, as in PyTorch (MeanBackward1),
        return input.mean(dim=tuple(range(-dims, 0)), keepdim=True)  # taken before any check of the input
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{fn}(): Expected {dims + 1}D or {dims + 2}D tensor, but got {list(input.shape)}")
    if any(o < 0 for o in size):
        shown = ", ".join(map(str, size)) if dims == 2 else f"{size[0]}, {size[1]},{size[2]}"  # (sic)
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but received "
                           "{" + shown + "}")
    if math.prod(input.shape[:input.dim() - dims]) * math.prod(size):  # (an empty result runs no kernel)
        _not_for_integers(input, fn if dims == 2 else f"{fn}_cpu")
    return _ADAPTIVE_AVG[dims].apply(input, output_size=size)


class AdaptiveMaxPool(_WinnersForward):
    """The maximum of each adaptive box, and the flat index (into the plane) of the first maximum."""

    @staticmethod
    def forward(ctx, x: Tensor, output_size: tuple = ()) -> tuple:
        xp = x._backend.xp
        dims = len(output_size)
        planes = _planes(xp, x._data, dims)
        spatial = tuple(planes.shape[1:])
        lead = tuple(x.shape[:x.ndim - dims])
        ctx.plane_shape = spatial
        out = xp.empty((planes.shape[0],) + tuple(output_size), dtype=planes.dtype)
        indices = xp.empty(out.shape, dtype=np.int64)
        plane_strides = [int(np.prod(spatial[d + 1:], dtype=np.int64)) for d in range(dims)]
        per_dim = [list(enumerate(adaptive_cells(n, o))) for n, o in zip(spatial, output_size)]
        for cell in itertools.product(*per_dim):
            position = (slice(None),) + tuple(i for i, _ in cell)
            box = planes[(slice(None),) + tuple(slice(a, b) for _, (a, b) in cell)]
            flat = xp.reshape(box, (box.shape[0], math.prod(box.shape[1:])))  # (not -1: there may be no plane)
            arg = xp.argmax(flat, axis=1)
            out[position] = xp.take_along_axis(flat, arg[:, None], axis=1)[:, 0]
            local = xp.unravel_index(arg, box.shape[1:])  # the winner's place in the box, per dimension
            indices[position] = sum((a + loc) * st for (_, (a, _b)), loc, st in zip(cell, local, plane_strides))
        return _with_indices(ctx, x, xp.reshape(out, lead + tuple(output_size)),
                             xp.reshape(indices, lead + tuple(output_size)))


def _adaptive_max_family(dims: int) -> type:
    pool = _named(AdaptiveMaxPool, f"AdaptiveMaxPool{dims}DBackward0")
    pool.scatter = _winner_backward(f"AdaptiveMaxPool{dims}D")
    return pool


_ADAPTIVE_MAX = {2: _adaptive_max_family(2), 3: _adaptive_max_family(3)}


def adaptive_max_pool_nd(input: Tensor, dims: int, output_size: Any) -> tuple:
    """Max-pool the last ``dims`` dimensions into an ``output_size`` grid: ``(values, indices)``."""
    fn = f"adaptive_max_pool{dims}d"
    size = _adaptive_size(output_size, input, dims, f"{fn}(): internal error: output_size.size() must be {dims}")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{fn}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(input.shape)}")
    if any(o < 0 for o in size):
        shape = list(input.shape[:input.dim() - dims]) + list(size)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {shape}")
    _not_for_integers(input, fn if dims == 2 else f"{fn}_cpu")  # (PyTorch's kernels are named so)
    return _ADAPTIVE_MAX[dims].apply(input, output_size=size)


# ---------------------------------------------------------------------------- un-pooling
class MaxUnpool(Function):
    """Put each value back where its max pooling found it (``indices``), zeros elsewhere: the
    scatter of max pooling's backward, as a forward.  Its backward reads the gradient at the
    same places (a gather, written with tensor operations: differentiable again)."""

    @staticmethod
    def forward(ctx, x: Tensor, indices: Any = None, output_size: tuple = ()) -> Tensor:
        be = x._backend
        xp = be.xp
        dims = len(output_size)
        lead = tuple(x.shape[:x.ndim - dims])
        per_plane = int(np.prod(output_size, dtype=np.int64))
        n_planes = int(np.prod(lead, dtype=np.int64))
        idx = xp.reshape(indices, (n_planes, -1))
        bad = (idx < 0) | (idx >= per_plane)
        if idx.size and bool(xp.any(bad)):
            first = int(xp.reshape(idx, (-1,))[int(xp.argmax(xp.reshape(bad, (-1,))))])
            raise RuntimeError(f"Found an invalid max index: {first} (output volumes are of size "
                               f"{'x'.join(map(str, output_size))})")
        out = xp.zeros((n_planes, per_plane), dtype=x._data.dtype)
        rows = xp.repeat(xp.arange(n_planes), idx.shape[1])
        out[rows, xp.reshape(idx, (-1,))] = xp.reshape(x._data, (-1,))
        ctx.indices, ctx.x_shape, ctx.per_plane = idx, tuple(x.shape), per_plane
        return new_result(xp.reshape(out, lead + tuple(output_size)), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        if differentiable_backward():  # PyTorch's double backward reads the gradient with gather + view
            flat = grad.reshape(ctx.indices.shape[0], ctx.per_plane)
            picked = flat.gather(1, Tensor._make(ctx.indices, grad._device))
            return picked.view(ctx.x_shape), None, None
        xp = grad._backend.xp
        flat = xp.reshape(grad._data, (ctx.indices.shape[0], ctx.per_plane))
        return new_result(xp.reshape(xp.take_along_axis(flat, ctx.indices, axis=1), ctx.x_shape), grad), None, None


_MAX_UNPOOL = {2: _named(MaxUnpool, "MaxUnpool2DBackward0"), 3: _named(MaxUnpool, "MaxUnpool3DBackward0")}


def max_unpool_nd(input: Tensor, indices: Tensor, dims: int, output_size: tuple) -> Tensor:
    """The native ``max_unpool2d/3d(input, indices, output_size)``: ``output_size`` is spatial only."""
    if indices.dtype is not dtypes.int64:
        raise RuntimeError("elements in indices should be type int64 but got: "
                           f"{dtypes.SCALAR_NAMES.get(indices.dtype.name, indices.dtype.name)}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Input to max_unpooling{dims}d should be a {dims + 1}d or {dims + 2}d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    _not_for_integers(input, f"max_unpool{dims}d")
    return _MAX_UNPOOL[dims].apply(input, indices=indices._data, output_size=tuple(int(s) for s in output_size))


def unpool_output_size(input: Tensor, kernel: tuple, stride: tuple, padding: tuple,
                       output_size: Optional[Sequence[int]]) -> tuple[int, ...]:
    """The size an un-pooling restores: by default the size a max pool with these options maps
    onto the input's size; a given ``output_size`` (spatial, or with ``N, C`` in front) must be
    one of the sizes that pool would also have mapped there (within a stride of the default)."""
    dims = len(kernel)
    default = tuple((n - 1) * s + k - 2 * p for n, k, s, p in zip(input.shape[input.dim() - dims:], kernel, stride,
                                                                   padding))
    if output_size is None:
        size = default
    else:
        size = tuple(output_size)
        if len(size) == dims + 2:
            size = size[2:]
        if len(size) != dims:
            raise ValueError(f"output_size should be a sequence containing {dims} or {dims + 2} elements, but it "
                             f"has a length of '{len(size)}'")
        for d in range(dims):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} '
                                 f"and {high})")
    for d, s in enumerate(size):
        if s < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={s}")
    return tuple(operator.index(s) for s in size)  # (a float is PyTorch's TypeError)

