"""Writing into positions chosen by an index: ``index_fill``, ``index_copy``, ``index_put``,
``masked_scatter``, ``scatter_reduce`` and ``put`` (each also in place: ``index_fill_`` …).

They are siblings of ``scatter`` and ``index_add`` (``ops/scatter.py``); they differ in how
the positions are named and in what happens there:

=================  ==========================================  ==========================
operation          positions                                   what is written
=================  ==========================================  ==========================
``index_fill``     whole slices ``index`` along ``dim``        one value
``index_copy``     whole slices ``index`` along ``dim``        the slices of ``source``
``index_put``      ``x[indices]`` (advanced indexing)          ``values`` (or ``+=``)
``masked_scatter`` where ``mask`` is True, in order            ``source``'s first elements
``scatter_reduce`` ``index`` along ``dim``, element-wise       sum/prod/mean/amax/amin
``put``            the *flattened* tensor at ``index``         ``source`` (or ``+=``)
=================  ==========================================  ==========================

Backward, the common rule: an overwritten position passes no gradient to the old
value (it is gone) and passes the gradient to what was written there; an *added*
value leaves the old value's gradient intact.  ``scatter_reduce`` follows each
reduction's own derivative, as PyTorch defines it.  The forwards compute on the host
with NumPy; the backwards are tensor operations (they can be differentiated again).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..arrays import to_numpy, transfer
from ..autograd.function import Function
from ..device import CPU
from ..tensor import Tensor, _wrap_dim
from .common import sum_to
from .indexing import INDEX_DTYPES, gather
from .inplace import inplace
from .pointwise import where
from .scatter import check_scatter_shapes, scatter, scatter_add
from .shape import cat

__all__ = ["index_fill", "index_copy", "index_put", "index_put_", "masked_scatter", "scatter_reduce", "put"]


def _c_order(array: Any) -> np.ndarray:
    """A C-contiguous array (copied only when needed; a 0-d array stays 0-d)."""
    a = np.asarray(array)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _host(t: Tensor) -> np.ndarray:
    return to_numpy(t._data)


def _to_device(array: np.ndarray, like: Tensor) -> Tensor:
    return Tensor._make(transfer(_c_order(array), CPU, like._device), like._device)


def _scalar_name(d: dtypes.dtype) -> str:
    return dtypes.SCALAR_NAMES[d.name]


def _as_1d(a: np.ndarray) -> np.ndarray:
    """PyTorch treats a 0-d tensor as 1-d of size 1 in these operations."""
    return a.reshape(a.shape or (1,))


def _check_slice_index(name: str, input: Tensor, dim: int, index: Tensor) -> np.ndarray:
    """A vector of slice numbers along ``dim``, in range (negative ones count from the end)."""
    if index.ndim > 1 and name == "index_copy_":  # (PyTorch's two kernels word it, and type it, apart)
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = input.shape[dim] if input.ndim else 1
    idx = _as_1d(_host(index)).astype(np.int64)
    for i in idx:
        if not -size <= i < size:
            raise IndexError(f"{name}(): index {i} is out of bounds for dimension {dim} with size {size}"
                             if name == "index_copy_" else
                             f"index {i} is out of bounds for dimension {dim} with size {size}")
    return idx % size if size else idx


# ----------------------------------------------------------------------------- index_fill
class IndexFill(Function):
    """``value`` (a Python number) written into the slices ``index`` along ``dim``."""
    _backward_name = "IndexFillBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int = 0, index: Any = None, value: Any = 0) -> Tensor:
        out = _as_1d(_host(x)).copy()
        np.moveaxis(out, dim, 0)[_host(index)] = value  # (moveaxis gives a view: writes land in out)
        ctx.dim, ctx.index = dim, index
        return _to_device(out.reshape(tuple(x.shape)), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return index_fill(grad, ctx.dim, ctx.index, 0),


class IndexFillTensor(Function):
    """The same, with a 0-d tensor ``value`` that gets the gradient of every filled element."""
    _backward_name = "IndexFillBackward1"

    @staticmethod
    def forward(ctx, x: Tensor, value: Tensor, dim: int = 0, index: Any = None) -> Tensor:
        ctx.dim, ctx.index = dim, index
        return IndexFill.forward(ctx, x, dim, index, _host(value).item())

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        g_value = None
        if ctx.needs_input_grad[1]:  # each filled element once, however often the index repeats it
            once = Tensor._make(np.unique(_host(ctx.index)), CPU).to(grad.device)
            g_value = grad.index_select(ctx.dim, once).sum() if grad.ndim else grad.sum()
        return index_fill(grad, ctx.dim, ctx.index, 0), g_value


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with the slices ``index`` along ``dim`` set to ``value``."""
    if index.dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = _wrap_dim(dim, max(input.ndim, 1))
    idx = Tensor._make(_check_slice_index("index_fill_", input, d, index), CPU)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return IndexFillTensor.apply(input, value, dim=d, index=idx)
    return IndexFill.apply(input, dim=d, index=idx, value=value)


# ----------------------------------------------------------------------------- index_copy
class IndexCopy(Function):
    _backward_name = "IndexCopyBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, source: Tensor, dim: int = 0, index: Any = None) -> Tensor:
        out = _as_1d(_host(x)).copy()
        src = _as_1d(_host(source))
        np.moveaxis(out, dim, 0)[_host(index)] = np.moveaxis(src, dim, 0)
        ctx.dim, ctx.index = dim, index
        return _to_device(out.reshape(tuple(x.shape)), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        index = ctx.index.to(grad.device)
        g_source = None
        if ctx.needs_input_grad[1]:
            g_source = grad.index_select(ctx.dim, index) if grad.ndim else grad
        return index_fill(grad, ctx.dim, ctx.index, 0), g_source


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` whose slice ``index[i]`` along ``dim`` is ``source``'s slice ``i``."""
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_scalar_name(index.dtype)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_scalar_name(input.dtype)} and (source) {_scalar_name(source.dtype)}")
    d = _wrap_dim(dim, max(input.ndim, 1))
    n_source = source.shape[d] if source.ndim else 1
    if index.numel() != n_source:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to "
                         f"source.size(dim) ({n_source})")
    idx = Tensor._make(_check_slice_index("index_copy_", input, d, index), CPU)
    return IndexCopy.apply(input, source, dim=d, index=idx)


# ----------------------------------------------------------------------------- index_put
class IndexPutValues(Function):
    _backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, values: Tensor, indices: tuple = (), accumulate: bool = False) -> Tensor:
        out = _host(x).copy()
        key = tuple(_host(i) for i in indices)
        try:
            target_shape = out[key].shape
        except IndexError as exc:
            raise IndexError(str(exc).replace("axis", "dimension")) from None
        try:
            vals = np.broadcast_to(_host(values), target_shape)
        except ValueError:
            raise RuntimeError(f"shape mismatch: value tensor of shape [{', '.join(map(str, values.shape))}] "
                               f"cannot be broadcast to indexing result of shape "
                               f"[{', '.join(map(str, target_shape))}]") from None
        if accumulate:
            np.add.at(out, key, vals)  # repeated positions add up
        else:
            out[key] = vals
        ctx.indices, ctx.accumulate, ctx.values_shape = indices, accumulate, tuple(values.shape)
        return _to_device(out, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        indices = tuple(i.to(grad.device) for i in ctx.indices)
        g_x = grad if ctx.accumulate else index_put(grad, indices, grad.new_zeros(()))
        g_values = sum_to(grad[indices], ctx.values_shape) if ctx.needs_input_grad[1] else None
        return g_x, g_values


def index_put(input: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool = False) -> Tensor:
    """``x[indices] = values`` (or ``+=`` with ``accumulate=True``, where repeated positions add up)
    on a copy: the functional form of an advanced-index assignment."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    for i in indices:
        if not isinstance(i, Tensor) or i.dtype not in INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if values.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_scalar_name(input.dtype)} for the destination and {_scalar_name(values.dtype)} "
                           f"for the source.")
    return IndexPutValues.apply(input, values, indices=tuple(indices), accumulate=bool(accumulate))


def index_put_(input: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool = False) -> Tensor:
    """``torch.index_put_``: :func:`index_put` written into ``input`` itself (the in-place rule)."""
    return inplace(input, lambda t: index_put(t, indices, values, accumulate))


# ----------------------------------------------------------------------------- masked_scatter
class MaskedScatter(Function):
    _backward_name = "MaskedScatterBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, source: Tensor, mask: Any = None) -> Tensor:
        out = _host(x).copy()
        m = _host(mask)
        k = int(m.sum())
        src = _host(source).reshape(-1)
        if src.size < k:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        out[m] = src[:k]  # the True positions in row-major order take source's first k elements
        ctx.mask, ctx.source_shape = mask, tuple(source.shape)
        return _to_device(out, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        mask = ctx.mask.to(grad.device)
        g_source = None
        if ctx.needs_input_grad[1]:  # source's first k elements went to the mask; the rest were unused
            picked = grad[mask]
            n = 1
            for s in ctx.source_shape:
                n *= s
            g_source = cat([picked, grad.new_zeros((n - picked.numel(),))]).reshape(ctx.source_shape)
        return grad.masked_fill(mask, 0), g_source


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` where the positions with ``mask`` True, in row-major order, take
    ``source``'s elements one after the other (``mask`` broadcasts to ``input``)."""
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                           f"{_scalar_name(input.dtype)} and {_scalar_name(source.dtype)}")
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
    if tuple(input.shape) != shape:
        input = input.expand(shape)
    mask = mask.expand(shape) if tuple(mask.shape) != shape else mask
    return MaskedScatter.apply(input, source, mask=mask.detach())


# ----------------------------------------------------------------------------- scatter_reduce
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _scatter_positions(index: np.ndarray, dim: int) -> tuple:
    """Full coordinates of every entry of ``index``, with ``dim``'s coordinate replaced by it."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _identity(reduce: str, dtype: np.dtype) -> Any:
    """The value that changes nothing under the reduction (where ``self`` is left out)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = np.inf if dtype.kind == "f" else (np.iinfo(dtype).max if dtype.kind in "iu" else True)
    small = -np.inf if dtype.kind == "f" else (np.iinfo(dtype).min if dtype.kind in "iu" else False)
    return small if reduce == "amax" else big


class ScatterReduce(Function):
    _backward_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, src: Tensor, dim: int = 0, index: Any = None, reduce: str = "sum",
                include_self: bool = True) -> Tensor:
        out = _as_1d(_host(x)).copy()
        idx = _as_1d(_host(index))
        values = _as_1d(_host(src))[tuple(slice(0, s) for s in idx.shape)]
        size = out.shape[dim]
        bad = idx[(idx < 0) | (idx >= size)]
        if bad.size:
            raise RuntimeError(f"index {bad[0]} is out of bounds for dimension {dim} with size {size}")
        pos = _scatter_positions(idx, dim)
        count = np.ones(out.shape, dtype=np.int64) if include_self else np.zeros(out.shape, dtype=np.int64)
        if not include_self:  # the scattered-to positions start from the reduction's identity
            out[pos] = _identity(reduce, out.dtype)
        np.add.at(count, pos, 1)
        with np.errstate(invalid="ignore", over="ignore"):
            if reduce in ("sum", "mean"):
                np.add.at(out, pos, values)
            elif reduce == "prod":
                np.multiply.at(out, pos, values)
            elif reduce == "amax":
                np.maximum.at(out, pos, values)  # (NaN propagates, as in PyTorch)
            else:
                np.minimum.at(out, pos, values)
            if reduce == "mean":
                safe = np.maximum(count, 1)
                out = (out / safe).astype(out.dtype) if out.dtype.kind == "f" else out // safe
        ctx.dim, ctx.index, ctx.reduce, ctx.include_self = dim, index, reduce, include_self
        ctx.save_for_backward(x, src)
        result = _to_device(out.reshape(tuple(x.shape)), x)
        ctx.result = result.detach()
        return result

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        """Each reduction's derivative, as PyTorch's ``scatter_reduce_backward`` defines it."""
        x, src = ctx.saved_tensors
        dim, index, reduce, include_self = ctx.dim, ctx.index, ctx.reduce, ctx.include_self
        result = ctx.result
        if reduce == "sum":
            g_x, g_src = grad, gather(grad, dim, index)
        elif reduce == "mean":
            n = (grad.new_ones(grad.shape) if include_self else grad.new_zeros(grad.shape))
            n = scatter_add(n, dim, index, src.new_ones(src.shape).to(grad.dtype))
            n = n.masked_fill(n == 0, 1)
            g_x, g_src = grad / n, gather(grad, dim, index) / gather(n, dim, index)
        elif reduce == "prod":
            # d(product)/d(one factor) = the product of the others; where a factor is 0 the
            # division trick fails, so the others are multiplied out again without it.
            masked_x = x.masked_fill(x == 0, 1)
            g_x = grad * scatter_reduce(masked_x, dim, index, src, "prod", include_self=include_self) / masked_x
            src_zero = src == 0
            zeros_here = gather(scatter_add(x.new_zeros(x.shape), dim, index, src_zero.to(x.dtype)), dim, index)
            single_zero = src_zero & (zeros_here == 1)
            masked_src = src.masked_fill(single_zero, 1)
            without_zero = scatter_reduce(x, dim, index, masked_src, "prod", include_self=include_self)
            g_src = where(single_zero, gather(grad * without_zero, dim, index),
                          gather(grad * result, dim, index) / src.masked_fill(src_zero, 1))
        else:  # amax / amin: shared evenly among the elements that reach the extreme
            value = gather(result, dim, index)
            x_is = (x == result).to(grad.dtype)
            src_is = (src == value).to(grad.dtype)
            share = grad / scatter_add(x_is, dim, index, src_is)
            g_x, g_src = x_is * share, src_is * gather(share, dim, index)
        if not include_self:
            g_x = scatter(g_x, dim, index, 0)
        return g_x, g_src


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """``scatter`` that *combines* instead of overwriting: every ``src[i][j]`` (for ``dim=1``) is
    reduced into ``out[i][index[i][j]]`` with ``reduce`` (``'sum'``, ``'prod'``, ``'mean'``,
    ``'amax'``, ``'amin'``), together with ``input``'s own value unless ``include_self=False``."""
    # PyTorch also takes the undocumented spellings "max"/"min" for amax/amin
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if index.dtype not in (dtypes.int64, dtypes.int32):  # int32 indices are accepted too
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if max(index.ndim, 1) != max(input.ndim, 1) or max(src.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    d = _wrap_dim(dim, max(input.ndim, 1))
    check_scatter_shapes(input, d, index, src)
    return ScatterReduce.apply(input, src, dim=d, index=index, reduce=reduce, include_self=bool(include_self))


# ----------------------------------------------------------------------------- put
class Put(Function):
    _backward_name = "PutBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, source: Tensor, index: Any = None, accumulate: bool = False) -> Tensor:
        out = _host(x).copy()
        flat = out.reshape(-1)  # a view of out
        idx = _host(index).reshape(-1)
        n = flat.size
        for i in idx:
            if not -n <= i < n:
                raise IndexError(f"out of range: tried to access index {i} on a tensor of {n} elements.")
        idx = idx % n if n else idx
        if accumulate:
            np.add.at(flat, idx, _host(source).reshape(-1))
        else:
            flat[idx] = _host(source).reshape(-1)
        ctx.index, ctx.accumulate, ctx.source_shape = index, accumulate, tuple(source.shape)
        return _to_device(out, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        index = ctx.index
        g_x = grad if ctx.accumulate else put(grad, index, grad.new_zeros(tuple(index.shape)))
        g_source = grad.reshape(-1)[index].reshape(ctx.source_shape) if ctx.needs_input_grad[1] else None
        return g_x, g_source


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source``'s elements written at positions ``index`` of the
    *flattened* tensor (``+=`` with ``accumulate=True``): the inverse of ``take``."""
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_scalar_name(index.dtype)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_scalar_name(input.dtype)} and source.dtype = {_scalar_name(source.dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    return Put.apply(input, source, index=index, accumulate=bool(accumulate))
