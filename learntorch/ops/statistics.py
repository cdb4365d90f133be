"""Order statistics and NaN-aware reductions: ``median``, ``quantile``, ``kthvalue``,
``nansum``, ``nanmean``, ``nan_to_num``, ``std_mean``, ``var_mean``; plus small element
pickers ``take`` and ``select``; the covariance ``cov`` and correlation ``corrcoef`` matrices.

Most are compositions of differentiable pieces: ``nansum`` is "replace NaN by 0, then sum".
The selections -- ``median``, ``kthvalue``, ``nanmedian``, ``mode`` -- are single nodes with
PyTorch's names (``MedianBackward0/1``, ``KthvalueBackward0``...), since a learner sees them
printed: with ``dim`` the gradient goes to the index picked; ``median()`` of all elements
shares it evenly among the elements equal to the result, as PyTorch does.  Each also becomes
a ``Tensor`` method.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import dtypes
from ..arrays import to_numpy, transfer
from ..autograd.function import Function
from ..device import CPU
from ..tensor import Tensor, _wrap_dim
from .common import check_kernel_dtype, new_result, numpy_aliases, wrap_dims
from .index_writes import put
from .indexing import scatter_into_zeros
from . import pointwise
from .reduction import Dim, _return_type, expand_back, variance_with_mean
from ..type_info import finfo

__all__ = ["median", "kthvalue", "quantile", "nanquantile", "nanmedian", "mode",
           "nansum", "nanmean", "nan_to_num", "std_mean", "var_mean", "take",
           "select", "cov", "corrcoef"]

median_result, kthvalue_result = _return_type("median"), _return_type("kthvalue")
nanmedian_result, mode_result = _return_type("nanmedian"), _return_type("mode")


@numpy_aliases
def median(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """The middle value; for an even count the *lower* of the two middle values (PyTorch's rule,
    unlike NumPy's average).  With ``dim``: ``(values, indices)``."""
    check_kernel_dtype("median_cpu" if dim is None else "median_out", input, ints=True)
    if dim is None:
        if input.numel() == 0:  # PyTorch: the median of nothing is nan
            return Tensor._make(input._backend.xp.asarray(float("nan"), dtype=input._data.dtype), input._device)
        return MedianAll.apply(input)
    dim = _wrap_dim(dim, max(input.dim(), 1))
    _check_nonempty_dim("median", input, dim)
    return median_result(*MedianDim.apply(input, dim, keepdim))


def _check_nonempty_dim(name: str, input: Tensor, dim: int) -> None:
    """PyTorch's IndexError for a selection (median, kthvalue) along a dimension of size 0."""
    if input.dim() and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


@numpy_aliases
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The ``k``-th smallest value along ``dim`` and its index."""
    dim = _wrap_dim(dim, max(input.dim(), 1))
    _check_nonempty_dim("kthvalue", input, dim)
    if not 1 <= k <= (input.shape[dim] if input.dim() else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    check_kernel_dtype("kthvalue_cpu", input, ints=True)  # (after the arguments, as PyTorch checks them)
    return kthvalue_result(*Kthvalue.apply(input, dim, keepdim, k))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


@numpy_aliases
def quantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-quantile(s) (``q`` in [0, 1]) along ``dim`` (of all elements when ``dim`` is None).
    A slice holding a NaN has a NaN quantile; :func:`nanquantile` skips NaNs instead."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


@numpy_aliases
def nanquantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """:func:`quantile` of the non-NaN values of each slice (NaN where a slice has none)."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


def _quantile(input: Tensor, q: Any, dim: Optional[int], keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    """Sort each slice, then read the value at rank ``q·(k-1)`` (``k`` values in the slice),
    interpolating between the two neighbouring ranks.

    The ranks differ from slice to slice when NaNs are skipped, so they are a tensor and the
    values are picked with ``gather``: the gradient flows back through ``gather`` and ``sort``
    to the (one or two) elements that were read."""
    if input.dtype not in (dtypes.float32, dtypes.float64):  # PyTorch's rule (no float16, bfloat16, ints)
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or "
                           f"nearest, but got {interpolation}")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    qs = q.tolist() if isinstance(q, Tensor) else q
    one_q = not isinstance(qs, (list, tuple))
    qs = [qs] if one_q else list(qs)
    for v in qs:
        if not 0 <= v <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {v}")
    x = input.flatten() if dim is None else input
    d = 0 if dim is None else _wrap_dim(dim, input.dim())
    values = x.sort(dim=d)[0].movedim(d, -1) if x.ndim else x.reshape(1)  # NaNs sort last
    n = values.shape[-1]
    nan = values.isnan()
    if ignore_nan:
        count = (~nan).sum(-1, keepdim=True)  # the non-NaN values come first in each sorted slice
    else:
        count = pointwise.where(nan.any(-1, keepdim=True), 0, n)  # a NaN: read the last (NaN) value
    q_t = Tensor._make(values._backend.asarray(qs, input.dtype), input.device)
    rank = q_t * (count - 1).to(input.dtype)  # shape (..., Q)
    rank = pointwise.where(count == 0, float(n - 1), rank)
    below, above = rank.floor(), rank.ceil()
    if interpolation == "lower":
        above = below
    elif interpolation == "higher":
        below = above
    elif interpolation == "nearest":
        below = above = rank.round()
    a = values.gather(-1, below.long())
    b = values.gather(-1, above.long())
    if interpolation == "midpoint":
        weight = pointwise.where(below == above, 0.0, 0.5)
    else:
        weight = rank - below
    # torch.lerp's two-sided formula: exact at both ends
    result = pointwise.where(weight < 0.5, a + weight * (b - a), b - (b - a) * (1 - weight))
    if keepdim:
        result = result.reshape((1,) * input.ndim + (len(qs),)) if dim is None else result.unsqueeze(d)
    if one_q:
        return result.squeeze_(-1)
    return result.unsqueeze(0).transpose_(0, -1).squeeze_(-1)  # the q axis first, as in PyTorch


class Nansum(Function):
    """The sum with each NaN counted as 0; its gradient is the sum's, and 0 at the NaNs."""

    _backward_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: Any, keepdim: bool) -> Tensor:
        axes = wrap_dims(dim if dim != () else None, x.ndim)
        ctx.save_for_backward(x)
        ctx.args = (tuple(x.shape), axes, keepdim)
        xp, a = x._backend.xp, x._data
        return new_result(xp.sum(xp.where(xp.isnan(a), xp.zeros_like(a), a), axis=axes, keepdims=keepdim), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        return pointwise.where(x.isnan(), 0.0, expand_back(grad, *ctx.args)), None, None


@numpy_aliases
def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum, treating NaN as 0 (integers and bools have no NaN: their sum is int64, as ``sum``'s)."""
    if dtype is not None:
        input = input.to(dtype)
    if not input.is_floating_point():
        return input.sum() if dim is None else input.sum(dim, keepdim=keepdim)
    return Nansum.apply(input, dim, keepdim)


@numpy_aliases
def nanmean(input: Tensor, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean of the non-NaN values (of floating-point numbers: integers have no NaN)."""
    if not input.is_floating_point():
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{dtypes.type_name(input._dtype)}")
    count = (~input.isnan()).sum() if dim is None else (~input.isnan()).sum(dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Tensor:
    """NaN → ``nan``, +∞ → ``posinf`` (default: the dtype's largest value), -∞ → ``neginf``."""
    if not input.is_floating_point():
        return input.clone()
    info = finfo(input.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    return NanToNum.apply(input, nan=nan, posinf=posinf, neginf=neginf)


class NanToNum(Function):
    """One node, PyTorch's ``NanToNumBackward0`` (a printed cleaned-up tensor shows it): the
    gradient passes where the input was finite and is 0 at the replaced NaN/±inf."""
    _backward_name = "NanToNumBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, nan: float = 0.0, posinf: float = 0.0, neginf: float = 0.0) -> Tensor:
        xp, data = x._backend.xp, x._data
        out = xp.where(xp.isnan(data), xp.full_like(data, nan), data)  # full_like: on x's device
        out = xp.where(out == float("inf"), xp.full_like(data, posinf), out)
        out = xp.where(out == float("-inf"), xp.full_like(data, neginf), out)
        ctx.save_for_backward(x)
        return new_result(out, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad.masked_fill(x.isfinite().logical_not(), 0)


@numpy_aliases
def std_mean(input: Tensor, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """``(std, mean)`` in one call."""
    return variance_with_mean("std_mean", input, dim, unbiased, keepdim, correction)


@numpy_aliases
def var_mean(input: Tensor, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """``(var, mean)`` in one call."""
    return variance_with_mean("var_mean", input, dim, unbiased, keepdim, correction)


def take(input: Tensor, index: Tensor) -> Tensor:
    """Elements of the *flattened* input at ``index`` (the result has ``index``'s shape);
    negative indices count from the end."""
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {dtypes.type_name(index.dtype)}")
    return Take.apply(input, index=index)


class Take(Function):
    """One node, PyTorch's ``TakeBackward0``; backward adds each gradient element back at the
    flat position it was taken from (``put`` with ``accumulate=True``: repeats add up)."""
    _backward_name = "TakeBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, index: Any = None) -> Tensor:
        n = x.numel()
        host = to_numpy(index._data)
        bad = host[(host < -n) | (host >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad.flat[0])} on a tensor of {n} elements.")
        ctx.index, ctx.shape = index, tuple(x.shape)
        flat = x._backend.xp.reshape(x._data, (-1,))
        return new_result(flat[x._backend.asarray(host % n if n else host)], x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        zeros = grad.new_zeros(ctx.shape)
        return put(zeros, ctx.index, grad.reshape(ctx.index.shape), accumulate=True)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, that dimension removed (``x.select(0, i)`` is ``x[i]``)."""
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {dim}")
    # plain indexing, so the node is PyTorch's SelectBackward0 (not narrow + squeeze)
    return input[(slice(None),) * dim + (index,)]


def cov(input: Tensor, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Tensor:
    """The covariance matrix of the variables in the *rows* of ``input`` (observations in the
    columns, NumPy's convention): ``(X - mean) (X - mean)ᵀ / (N - correction)``."""
    if input.ndim > 2:
        raise ValueError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                         f"{input.ndim} dimensions")
    if input.dtype is dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if fweights is not None or aweights is not None:
        raise NotImplementedError("learntorch's cov() has no fweights/aweights; weight the observations "
                                  "yourself (repeat columns, or compute the weighted mean and products)")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if not x.dtype.is_floating_point:
        x = x.float()
    centred = x - x.mean(1, keepdim=True)
    out = (centred @ centred.t()) / max(x.shape[1] - correction, 0)
    return out.squeeze() if input.ndim < 2 else out


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the rows: ``cov`` scaled by the standard deviations,
    clipped to [-1, 1] against rounding."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)




# ----------------------------------------------------------------------------- nanmedian and mode
# Both pick one element per slice: the forward finds it on the host with NumPy and returns
# (values, indices); the backward sends the gradient back to that index, as max(dim) does.

def _c_order(array: Any) -> np.ndarray:
    """A C-contiguous array (copied only when needed; a 0-d array stays 0-d)."""
    a = np.asarray(array)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _host_rows(x: Tensor, dim: int) -> np.ndarray:
    """``x``'s numbers as rows of a NumPy matrix: ``dim`` last, the other dims flattened."""
    data = to_numpy(x._data).reshape(tuple(x.shape) or (1,))
    moved = np.moveaxis(data, dim, -1)
    return moved.reshape(-1, moved.shape[-1])


def _picked(x: Tensor, dim: int, keepdim: bool, values: np.ndarray, idx: np.ndarray) -> tuple[Tensor, Tensor]:
    """Per-row results as tensors of the reduced shape, on ``x``'s device."""
    shape = list(x.shape)
    if shape:
        shape[dim] = 1
        if not keepdim:
            del shape[dim]
    out = [Tensor._make(transfer(_c_order(a.reshape(shape)), CPU, x._device), x._device)
           for a in (values, idx)]
    return out[0], out[1]


class _PickAlongDim(Function):
    """The gradient of the picked value goes to the index it was picked from."""

    @staticmethod
    def backward(ctx, grad: Tensor, _grad_indices: Any = None) -> tuple:
        (indices,) = ctx.saved_tensors
        shape, dim, keepdim = ctx.args
        if not shape:
            return grad.reshape(()), None, None
        if not keepdim:
            grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
        return scatter_into_zeros(grad, shape, dim, indices), None, None

    @classmethod
    def _finish(cls, ctx: Any, x: Tensor, dim: int, keepdim: bool, values: np.ndarray,
                idx: np.ndarray) -> tuple:
        v, i = _picked(x, dim, keepdim, values, idx)
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        ctx.args = (tuple(x.shape), dim, keepdim)
        return v, i


def _nan_last_order(row: np.ndarray) -> np.ndarray:
    """A stable sorting order with NaNs last (NumPy's sort puts them last too)."""
    return np.argsort(row, kind="stable")


class NanmedianDim(_PickAlongDim):
    _backward_name = "NanmedianBackward1"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, keepdim: bool) -> tuple:
        rows = _host_rows(x, dim)
        values = np.empty(rows.shape[0], dtype=rows.dtype)
        idx = np.zeros(rows.shape[0], dtype=np.int64)
        for r, row in enumerate(rows):
            order = _nan_last_order(row)
            k = int(np.count_nonzero(~np.isnan(row))) if row.dtype.kind == "f" else row.size
            pick = order[(k - 1) // 2] if k else order[0]  # all NaN: the result is NaN
            values[r], idx[r] = row[pick], pick
        return NanmedianDim._finish(ctx, x, dim, keepdim, values, idx)


class MedianDim(_PickAlongDim):
    """``median(dim)``: the lower middle value of each slice, NaN (at its first NaN) where the
    slice holds one.  One node, PyTorch's ``MedianBackward1``: the gradient goes to the index
    picked, as for ``max(dim)``."""
    _backward_name = "MedianBackward1"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, keepdim: bool) -> tuple:
        rows = _host_rows(x, dim)
        values = np.empty(rows.shape[0], dtype=rows.dtype)
        idx = np.zeros(rows.shape[0], dtype=np.int64)
        for r, row in enumerate(rows):
            nan = np.isnan(row) if row.dtype.kind == "f" else np.zeros(row.shape, dtype=bool)
            pick = int(np.argmax(nan)) if nan.any() else _nan_last_order(row)[(row.size - 1) // 2]
            values[r], idx[r] = row[pick], pick
        return MedianDim._finish(ctx, x, dim, keepdim, values, idx)


class Kthvalue(_PickAlongDim):
    """The ``k``-th smallest of each slice (stable: the first of equals; NaNs count as largest)."""
    _backward_name = "KthvalueBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, keepdim: bool, k: int) -> tuple:
        rows = _host_rows(x, dim)
        idx = np.array([_nan_last_order(row)[k - 1] for row in rows], dtype=np.int64).reshape(-1)
        values = np.take_along_axis(rows, idx[:, None], axis=1).reshape(-1)
        return Kthvalue._finish(ctx, x, dim, keepdim, values, idx)

    @staticmethod
    def backward(ctx, grad: Tensor, _grad_indices: Any = None) -> tuple:
        return _PickAlongDim.backward(ctx, grad) + (None,)


class NanmedianAll(Function):
    _backward_name = "NanmedianBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        flat = to_numpy(x._data).reshape(-1)
        kept = np.sort(flat[~np.isnan(flat)]) if flat.dtype.kind == "f" else np.sort(flat)
        value = kept[(kept.size - 1) // 2] if kept.size else flat.dtype.type(np.nan)
        out = Tensor._make(transfer(np.asarray(value, dtype=flat.dtype), CPU, x._device), x._device)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        """As for ``median()``, the gradient is shared evenly among the elements equal to the
        result (among the NaNs when the result is NaN)."""
        x, out = ctx.saved_tensors
        hit = (x == out) | (x.isnan() & out.isnan())
        hit = hit.to(grad.dtype)
        return hit * (grad / hit.sum()),


class MedianAll(NanmedianAll):
    """``median()`` of all elements: the lower middle value, NaN if there is one.  Its backward
    (PyTorch's ``MedianBackward0``) shares the gradient evenly among the elements equal to the
    result, unlike ``median(dim)``, which picks one index."""
    _backward_name = "MedianBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        flat = to_numpy(x._data).reshape(-1)
        if flat.dtype.kind == "f" and np.isnan(flat).any():
            value = flat.dtype.type(np.nan)
        else:
            value = np.sort(flat)[(flat.size - 1) // 2]
        out = Tensor._make(transfer(np.asarray(value, dtype=flat.dtype), CPU, x._device), x._device)
        ctx.save_for_backward(x, out)
        return out


@numpy_aliases
def nanmedian(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """:func:`median` of the non-NaN values (the lower middle one for an even count); NaN only
    where a slice is all NaN.  With ``dim``: ``(values, indices)``."""
    check_kernel_dtype("median_cpu" if dim is None else "median_out", input, ints=True)
    if dim is None:
        return NanmedianAll.apply(input)
    d = _wrap_dim(dim, input.dim())
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {d} to have non-zero size.")
    return nanmedian_result(*NanmedianDim.apply(input, d, keepdim))


class Mode(_PickAlongDim):
    _backward_name = "ModeBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, keepdim: bool) -> tuple:
        rows = _host_rows(x, dim)
        values = np.empty(rows.shape[0], dtype=rows.dtype)
        idx = np.zeros(rows.shape[0], dtype=np.int64)
        for r, row in enumerate(rows):
            values[r], idx[r] = _row_mode(row)
        return Mode._finish(ctx, x, dim, keepdim, values, idx)


def _row_mode(row: np.ndarray) -> tuple[Any, int]:
    """The most frequent value of a row and its *last* position, PyTorch's choices: among
    values equally frequent the smallest wins (NaNs count as equal, and as largest)."""
    order = _nan_last_order(row)
    s = row[order]
    same_as_previous = s[1:] == s[:-1]
    if s.dtype.kind == "f":
        same_as_previous |= np.isnan(s[1:]) & np.isnan(s[:-1])
    starts = np.flatnonzero(np.concatenate([[True], ~same_as_previous]))
    ends = np.append(starts[1:], s.size)
    best = int(np.argmax(ends - starts))  # the first (smallest) of the most frequent
    return s[starts[best]], int(order[starts[best]:ends[best]].max())


@numpy_aliases
def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest one when
    several are as frequent) and the last index where it occurs."""
    d = _wrap_dim(dim, max(input.dim(), 1))
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return mode_result(*Mode.apply(input, d, keepdim))
