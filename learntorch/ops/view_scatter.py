"""The out-of-place inverses of three views: ``slice_scatter``, ``select_scatter`` and
``diagonal_scatter``.

``x.slice_scatter(src, dim, start, end, step)`` is a copy of ``x`` whose slice
``x[start:end:step]`` (along ``dim``) holds ``src`` instead: what ``y = x.clone();
y[...] = src`` computes, without the in-place write (functional code, ``torch.func``,
compilers that cannot follow a write use these).  ``select_scatter`` does it for
``x.select(dim, index)`` and ``diagonal_scatter`` for ``x.diagonal(offset, dim1, dim2)``.

All three share one rule, :class:`_RegionScatter`, and differ only in the *region*: the
elements of ``x`` the view covers.  Backward: the region's gradient goes to ``src``, the
rest to ``x`` (the overwritten values had no effect on the result).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..autograd.function import Function
from ..tensor import Tensor, _wrap_dim

__all__ = ["slice_scatter", "select_scatter", "diagonal_scatter"]


class _RegionScatter(Function):
    """``x`` with a region set to ``src``.  ``region(array)`` gives ``(window, key)``: a view of
    ``array`` and the index of the region's elements in it (``window[key]``, read or written)."""

    @staticmethod
    def forward(ctx, x: Tensor, src: Tensor, region: Callable = None) -> Tensor:
        xp = x._backend.xp
        out = xp.asarray(x._data, copy=True)
        window, key = region(out)
        window[key] = src._data
        ctx.region = region
        return Tensor._make(out, x._device)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        xp = grad._backend.xp
        window, key = ctx.region(grad._data)
        g_src = xp.asarray(window[key], copy=True)
        g_x = xp.asarray(grad._data, copy=True)
        window, key = ctx.region(g_x)
        window[key] = 0
        return Tensor._make(g_x, grad._device), Tensor._make(g_src, grad._device)


class SliceScatter(_RegionScatter):
    _backward_name = "SliceScatterBackward0"


class SelectScatter(_RegionScatter):
    _backward_name = "SelectScatterBackward0"


class DiagonalScatter(_RegionScatter):
    _backward_name = "DiagonalScatterBackward0"


def _check_src(src: Any, region_shape: tuple, name: str) -> None:
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    if tuple(src.shape) != tuple(region_shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"[{', '.join(map(str, src.shape))}], slice size = [{', '.join(map(str, region_shape))}]")


def _window(dim: int, key: Any) -> Callable:
    """The region ``array[:, ..., key]`` with ``key`` in position ``dim`` (a basic index: a view)."""
    full = (slice(None),) * dim + (key,)
    return lambda array: (array, full)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: Optional[int] = None, end: Optional[int] = None,
                  step: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` in the slice ``start:end:step`` of dimension ``dim``."""
    d = _wrap_dim(dim, max(input.ndim, 1))
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    region = _window(d, slice(start, end, step))
    _check_src(src, input._data[region(input._data)[1]].shape, "slice_scatter")
    return SliceScatter.apply(input, src, region=region)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` as its ``index``-th slice along ``dim`` (``src`` has one
    dimension fewer)."""
    d = _wrap_dim(dim, max(input.ndim, 1))
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"[{', '.join(map(str, input.shape))}] at dimension {dim}")
    region = _window(d, index % size)
    _check_src(src, input._data[region(input._data)[1]].shape, "select_scatter")
    return SelectScatter.apply(input, src, region=region)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` on the ``offset``-th diagonal of dimensions ``dim1``, ``dim2``
    (laid out as ``input.diagonal(offset, dim1, dim2)`` is: the diagonal last)."""
    d1, d2 = _wrap_dim(dim1, input.ndim), _wrap_dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rows, cols = input.shape[d1], input.shape[d2]
    n = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    xp = input._backend.xp
    start_row, start_col = max(-offset, 0), max(offset, 0)

    rows_at, cols_at = xp.arange(start_row, start_row + n), xp.arange(start_col, start_col + n)

    def region(array: Any) -> tuple:
        # the two dimensions moved last (a view), where [..., i, j] puts the diagonal last;
        # integer indices, because NumPy's own diagonal() is read-only
        return xp.moveaxis(array, (d1, d2), (-2, -1)), (Ellipsis, rows_at, cols_at)

    other = tuple(s for i, s in enumerate(input.shape) if i not in (d1, d2))
    _check_src(src, other + (n,), "diagonal_scatter")
    return DiagonalScatter.apply(input, src, region=region)
