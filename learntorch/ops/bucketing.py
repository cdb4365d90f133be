"""Counting and bucketing: ``bincount``, ``histc``, ``histogram``, ``bucketize``,
``searchsorted``, ``unique_consecutive``.

Each answers "which bucket does each value fall in, and how many fall in each?":

* ``searchsorted(boundaries, v)`` / ``bucketize(v, boundaries)``: the position where ``v``
  would be inserted into a sorted sequence (a binary search);
* ``bincount(x)``: how often each non-negative integer occurs;
* ``histc`` / ``histogram``: counts of values in equal-width (or given) bins;
* ``unique_consecutive``: runs of equal neighbours collapsed to one value each.

None of them is differentiable (the results are counts and positions): they return
tensors without history.  They compute on the host with NumPy and move the result
to the input's device.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import dtypes
from ..arrays import to_numpy, transfer
from ..device import CPU
from ..tensor import Tensor, _wrap_dim

__all__ = ["bincount", "histc", "histogram", "bucketize", "searchsorted", "unique_consecutive"]


def _c_order(array: Any) -> np.ndarray:
    """A C-contiguous array (copied only when needed; a 0-d array stays 0-d)."""
    a = np.asarray(array)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _host(t: Tensor) -> np.ndarray:
    return to_numpy(t._data)


def _to_device(array: Any, like: Tensor) -> Tensor:
    return Tensor._make(transfer(_c_order(array), CPU, like._device), like._device)


def _scalar_name(t: Tensor) -> str:
    return dtypes.SCALAR_NAMES[t.dtype.name]


# ----------------------------------------------------------------------------- bincount
def bincount(input: Tensor, weights: Optional[Tensor] = None, minlength: int = 0) -> Tensor:
    """``out[i]`` = how many times ``i`` occurs in the 1-D non-negative integer ``input`` (with
    ``weights``: the sum of their weights).  The length is ``max(input) + 1``, at least ``minlength``."""
    if input.dtype.is_floating_point or input.dtype is dtypes.bool:  # (an integer kernel)
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_scalar_name(input)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    data = _host(input)
    if input.ndim != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != data.size):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    length = max(int(data.max()) + 1 if data.size else 0, minlength)
    if weights is None:
        return _to_device(np.bincount(data, minlength=length).astype(np.int64), input)
    # float32 weights sum to float32, every other dtype to float64 (PyTorch's rule)
    out_dtype = np.float32 if weights.dtype is dtypes.float32 else np.float64
    w = _host(weights).astype(out_dtype)
    counts = np.zeros(length, dtype=out_dtype)
    np.add.at(counts, data, w)  # in input order, as a running sum
    return _to_device(counts, input)


# ----------------------------------------------------------------------------- histograms
class _Histogram(tuple):
    """``torch.return_types.histogram``: ``(hist, bin_edges)``."""
    __slots__ = ()
    __module__ = "torch.return_types"

    def __new__(cls, hist: Tensor, bin_edges: Tensor) -> "_Histogram":
        return super().__new__(cls, (hist, bin_edges))

    @property
    def hist(self) -> Tensor:
        return self[0]

    @property
    def bin_edges(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.histogram(\nhist={self[0]!r},\nbin_edges={self[1]!r})"


_Histogram.__name__ = _Histogram.__qualname__ = "histogram"


def _check_float(input: Tensor, kernel: str) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_scalar_name(input)}'")


def _linspace(lo: Any, hi: Any, steps: int, dtype: np.dtype) -> np.ndarray:
    """``torch.linspace``'s numbers: from both ends towards the middle (exact end points)."""
    lo, hi = dtype.type(lo), dtype.type(hi)
    if steps == 1:
        return np.array([lo], dtype=dtype)
    step = (hi - lo) / dtype.type(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    return np.where(i < half, lo + step * i.astype(dtype), hi - step * (steps - 1 - i).astype(dtype)).astype(dtype)


def _bin_positions(x: np.ndarray, lo: Any, hi: Any, bins: int) -> np.ndarray:
    """Each value's bin among ``bins`` equal bins of [lo, hi] (the last bin includes ``hi``),
    computed as PyTorch does, in the input's precision: ``(x - lo)·bins / (hi - lo)``."""
    t = x.dtype.type
    with np.errstate(invalid="ignore"):
        pos = ((x - t(lo)) * t(bins) / (t(hi) - t(lo))).astype(np.int64)
    return np.minimum(pos, bins - 1)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """Counts of ``input``'s values in ``bins`` equal-width bins between ``min`` and ``max``
    (the data's own range when both are 0); values outside are ignored."""
    if bins <= 0:  # (the arguments first, then the dtype, as PyTorch checks them)
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    _check_float(input, "histogram_cpu")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = _host(input).reshape(-1)
    lo, hi = min, max
    if lo == hi and x.size:
        lo, hi = x.min(), x.max()
    if lo == hi:  # one value only: a bin range around it
        lo, hi = lo - 1, hi + 1
    inside = x[(x >= x.dtype.type(lo)) & (x <= x.dtype.type(hi))]
    counts = np.bincount(_bin_positions(inside, lo, hi, bins), minlength=bins).astype(x.dtype)
    return _to_device(counts, input)


def histogram(input: Tensor, bins: Union[int, Tensor] = 100, *, range: Optional[Sequence[float]] = None,  # noqa: A002
              weight: Optional[Tensor] = None, density: bool = False) -> Any:
    """``(hist, bin_edges)``: ``bins`` equal bins over ``range`` (the data's range by default),
    or the bins between the given increasing ``bin_edges``; ``weight`` weighs each value and
    ``density=True`` scales the result to integrate to 1."""
    if isinstance(bins, Tensor):  # (the arguments first, then the dtype, as PyTorch checks them)
        if bins.ndim != 1 or not bins.numel():
            raise RuntimeError("torch.histogramdd: bins tensor should have " + (
                f"one dimension, but got {bins.ndim} dimensions" if bins.ndim != 1 else
                "at least 1 element, but got 0 elements") + " in the bins tensor for dimension 0")
    elif not isinstance(bins, int):
        raise TypeError(f"histogram(): argument 'bins' (position 2) must be int or Tensor, not {type(bins).__name__}")
    elif bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    _check_float(input, "histogramdd")
    x = _host(input).reshape(-1)
    dt = x.dtype
    if isinstance(bins, Tensor):
        edges = _host(bins).astype(dt)
    else:
        if range is not None:
            lo, hi = range
        elif x.size:
            lo, hi = x.min(), x.max()
        else:
            lo, hi = 0.0, 1.0
        if lo > hi:
            raise RuntimeError(f"torch.histogram(): min should not exceed max, but got min {lo} max {hi} "
                               f"for dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _linspace(lo, hi, bins + 1, dt)
    n_bins = edges.size - 1
    w = None if weight is None else _host(weight).reshape(-1).astype(dt)
    hist = np.zeros(n_bins, dtype=dt)
    if n_bins > 0 and x.size:
        keep = (x >= edges[0]) & (x <= edges[-1])
        # the bin is the last edge <= x (the last bin also holds x == its right edge)
        pos = np.minimum(np.searchsorted(edges, x[keep], side="right") - 1, n_bins - 1)
        np.add.at(hist, pos, 1 if w is None else w[keep])
    if density:
        widths = np.diff(edges)
        with np.errstate(invalid="ignore", divide="ignore"):
            hist = (hist / (hist.sum() * widths)).astype(dt)
    return _Histogram(_to_device(hist, input), _to_device(edges, input))


# ----------------------------------------------------------------------------- binary search
def _binary_search(boundaries: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """For every value (rows of ``values`` against the same rows of ``boundaries``), the
    insertion position that keeps each row sorted: before equal boundaries (``right=False``)
    or after them.

    A plain vectorised binary search, written out so that NaNs behave as in PyTorch:
    the search moves right while ``not (boundary >= value)`` (``>`` with ``right``), so a
    NaN value lands at the end and a NaN boundary counts as smaller."""
    n = boundaries.shape[-1]
    lo = np.zeros(values.shape, dtype=np.int64)
    hi = np.full(values.shape, n, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = lo < hi
            if not active.any():
                return lo
            mid = (lo + hi) // 2
            b = np.take_along_axis(boundaries, np.minimum(mid, n - 1), axis=-1)
            go_right = ~(b > values) if right else ~(b >= values)
            lo = np.where(active & go_right, mid + 1, lo)
            hi = np.where(active & ~go_right, mid, hi)


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: Optional[str] = None, sorter: Optional[Tensor] = None) -> Tensor:
    """Indices at which ``input``'s values would be inserted into ``sorted_sequence`` (sorted
    along its last dimension) to keep it sorted.  ``right=True`` (or ``side='right'``) puts a
    value after the equal ones; ``sorter`` gives the order that sorts an unsorted sequence."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    seq = sorted_sequence
    scalar = not isinstance(input, Tensor)
    if (scalar or not input.ndim) and seq.ndim != 1:
        raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                           f"dimension is 1, but we got boundaries tensor dim({seq.ndim}) and input value's "
                           f"dim(0) numel(1)")
    if seq.dtype is dtypes.bool:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    values = np.asarray(input) if scalar else _host(input)
    if seq.ndim != 1 and (seq.ndim != values.ndim or tuple(seq.shape[:-1]) != values.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor {list(values.shape)}")
    bounds = _host(seq)
    if sorter is not None:
        if sorter.dtype is not dtypes.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{sorter.dtype}")
        if tuple(sorter.shape) != tuple(seq.shape):
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got "
                               f"boundary tensor {list(seq.shape)}and got sorter tensor {list(sorter.shape)}")
        bounds = np.take_along_axis(bounds, _host(sorter), axis=-1)
    common = np.result_type(bounds.dtype, values.dtype)
    flat_values = values.reshape(values.shape or (1,)).astype(common, copy=False)
    if seq.ndim == 1:  # one sequence for every value
        rows_b, rows_v = bounds.reshape(1, -1), flat_values.reshape(1, -1)
    else:
        rows_b, rows_v = bounds.reshape(-1, bounds.shape[-1]), flat_values.reshape(-1, values.shape[-1])
    found = _binary_search(rows_b.astype(common, copy=False), rows_v, right).reshape(values.shape)
    return _to_device(found.astype(np.int32 if out_int32 else np.int64), seq)


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each value of ``input`` among the 1-D sorted ``boundaries``:
    ``searchsorted(boundaries, input)`` (the boundaries come second here)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ----------------------------------------------------------------------------- unique_consecutive
def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None) -> Any:
    """Collapse each run of equal neighbours to one element (``[1, 1, 2, 1]`` → ``[1, 2, 1]``),
    flattened when ``dim`` is None, else comparing whole slices along ``dim``.  ``inverse``
    says which run each element belongs to; ``counts`` how long each run is."""
    data = _host(input)
    if dim is None:
        rows = data.reshape(-1, 1)
        inverse_shape = data.shape
    else:
        d = _wrap_dim(dim, input.ndim)
        moved = np.moveaxis(data, d, 0)
        rows = moved.reshape(moved.shape[0], -1)
        inverse_shape = (data.shape[d],)
    new_run = np.ones(rows.shape[0], dtype=bool)
    new_run[1:] = (rows[1:] != rows[:-1]).any(axis=1)  # (NaN != NaN: each NaN starts a run)
    starts = np.flatnonzero(new_run)
    if dim is None:
        output = data.reshape(-1)[starts]
    else:
        output = np.take(data, starts, axis=d)
    inverse = (np.cumsum(new_run) - 1).astype(np.int64).reshape(inverse_shape)
    counts = np.diff(np.append(starts, rows.shape[0])).astype(np.int64)
    results = [_to_device(output, input)]
    if return_inverse:
        results.append(_to_device(inverse, input))
    if return_counts:
        results.append(_to_device(counts, input))
    return results[0] if len(results) == 1 else tuple(results)
