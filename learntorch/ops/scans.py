"""Running scans along one dimension: ``cummax``, ``cummin``, ``logcumsumexp``; and ``renorm``,
which rescales each slice along a dimension.

A *scan* keeps every intermediate result of a reduction: ``cumsum([1, 2, 3])`` is
``[1, 3, 6]``.  ``cummax`` keeps the running maximum *and where it came from*
(``indices``), as ``max(dim)`` does; that index is all its backward needs: the
gradient of output ``i`` goes back to input ``indices[i]`` (added up where many
outputs share one input).

``logcumsumexp`` is ``log(cumsum(exp(x)))`` computed without overflow, the running
form of ``logsumexp`` (used for log-space probabilities, e.g. in CTC or HMMs).

The forwards compute on the host with NumPy (a scan is a loop along one axis;
``np.maximum.accumulate`` and ``np.logaddexp.accumulate`` are exactly that) and
move the result back to the input's device.  The backwards are tensor operations,
so they can be differentiated again.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes
from ..arrays import to_numpy, transfer
from ..autograd.function import Function
from ..device import CPU
from ..tensor import Tensor, _wrap_dim
from .pointwise import where
from .reduction import _return_type
from .sorting import Sort

__all__ = ["cummax", "cummin", "logcumsumexp", "renorm"]

cummax_result, cummin_result = _return_type("cummax"), _return_type("cummin")


def _c_order(array: Any) -> np.ndarray:
    """A C-contiguous array (copied only when needed; a 0-d array stays 0-d)."""
    a = np.asarray(array)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _host(t: Tensor) -> np.ndarray:
    """The tensor's numbers as a NumPy array (a copy only when they live on a GPU)."""
    return to_numpy(t._data)


def _to_device(array: np.ndarray, like: Tensor) -> Tensor:
    """A NumPy result as a new tensor on ``like``'s device."""
    return Tensor._make(transfer(_c_order(array), CPU, like._device), like._device)


def _running_extreme(x: np.ndarray, axis: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    """Running max (or min) along ``axis`` and the index each value came from.

    PyTorch's rule, element by element: the new element takes over when it is ``>=``
    the running max (``<=`` for min), so among equal values the *latest* index wins,
    and a NaN always takes over (once a NaN is seen, the result stays NaN and its
    index moves to each later NaN)."""
    moved = np.moveaxis(x, axis, -1)
    values = np.empty_like(moved)
    indices = np.empty(moved.shape, dtype=np.int64)
    if moved.shape[-1]:
        best, where = moved[..., 0].copy(), np.zeros(moved.shape[:-1], dtype=np.int64)
        with np.errstate(invalid="ignore"):
            for i in range(moved.shape[-1]):
                cur = moved[..., i]
                takes_over = (cur >= best if largest else cur <= best) | _isnan(cur)
                best = np.where(takes_over, cur, best)
                where = np.where(takes_over, i, where)
                values[..., i], indices[..., i] = best, where
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def _isnan(a: np.ndarray) -> np.ndarray:
    return np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, dtype=bool)


class Cummax(Function):
    _backward_name = "CummaxBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, largest: bool = True) -> tuple:
        data = _host(x).reshape(tuple(x.shape) or (1,))  # a 0-d tensor counts as 1-d of size 1
        values, idx = _running_extreme(data, dim, largest)
        values, idx = values.reshape(tuple(x.shape)), idx.reshape(tuple(x.shape))
        indices = _to_device(idx, x)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.dim, ctx.shape = dim, tuple(x.shape)
        return _to_device(values, x), indices

    # Each value's gradient goes back to where the value came from, as for sort (same ctx fields).
    backward = staticmethod(Sort.backward)


class Cummin(Cummax):
    _backward_name = "CumminBackward0"


def cummax(input: Tensor, dim: int) -> Any:
    """``(values, indices)``: the running maximum along ``dim`` and the index it came from
    (the latest of equal values; a NaN propagates)."""
    d = _wrap_dim(dim, input.ndim)
    return cummax_result(*Cummax.apply(input, d, True))


def cummin(input: Tensor, dim: int) -> Any:
    """``(values, indices)``: the running minimum along ``dim`` (see :func:`cummax`)."""
    d = _wrap_dim(dim, input.ndim)
    return cummin_result(*Cummin.apply(input, d, False))


class Logcumsumexp(Function):
    _backward_name = "LogcumsumexpBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int) -> Tensor:
        data = _host(x).reshape(tuple(x.shape) or (1,))
        with np.errstate(invalid="ignore", over="ignore"):
            out = np.logaddexp.accumulate(data, axis=dim) if data.size else data.copy()
        result = _to_device(out.reshape(tuple(x.shape)).astype(data.dtype, copy=False), x)
        ctx.dim = dim
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        """``out[i] = log Σ_{j≤i} exp(x[j])``, so ``∂out[i]/∂x[j] = exp(x[j] - out[i])`` for ``j ≤ i``
        and ``grad_x[j] = Σ_{i≥j} grad[i]·exp(x[j] - out[i])``: a *reversed* cumulative sum.
        Summed as is, ``exp(-out)`` overflows; so, as PyTorch does, the positive and the
        negative parts of ``grad`` are summed in log space with ``logcumsumexp`` itself."""
        x, out = ctx.saved_tensors
        d = ctx.dim if x.ndim else 0
        if not x.ndim:
            return grad, None

        def reversed_log_cumsum(t: Tensor) -> Tensor:
            return logcumsumexp(t.flip(d), d).flip(d)
        pos = (reversed_log_cumsum(_log_part(grad, positive=True) - out) + x).exp()
        neg = (reversed_log_cumsum(_log_part(grad, positive=False) - out) + x).exp()
        return pos - neg, None


def _log_part(grad: Tensor, positive: bool) -> Tensor:
    """``log(grad)`` where ``grad > 0`` (or ``log(-grad)`` where ``grad < 0``), ``-inf`` elsewhere."""
    part = grad if positive else -grad
    safe = part.clamp_min(0)
    return safe.log()  # log(0) = -inf: that element adds nothing


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input), dim))`` computed stably (floating-point inputs only)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{_scalar_name(input)}'")
    d = _wrap_dim(dim, input.ndim)
    return Logcumsumexp.apply(input, d)


def _scalar_name(t: Tensor) -> str:
    return dtypes.SCALAR_NAMES[t.dtype.name]


class Renorm(Function):
    _backward_name = "RenormBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
        norm = _slice_norms(x.detach(), p, dim)
        factor = where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
        ctx.save_for_backward(x)
        ctx.p, ctx.dim, ctx.maxnorm = p, dim, maxnorm
        return Tensor._make((x.detach() * factor)._data, x._device)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        """Where a slice was scaled, ``out = x·maxnorm/‖x‖``: the gradient has the plain scaling
        ``factor·grad`` minus the part that flows through the norm itself,
        ``factor/‖x‖ · (Σ grad·x) · ∂‖x‖/∂x``.  Slices within ``maxnorm`` pass ``grad`` through."""
        (x,) = ctx.saved_tensors
        p, dim, maxnorm = ctx.p, ctx.dim, ctx.maxnorm
        others = tuple(i for i in range(x.ndim) if i != dim)
        norm = _slice_norms(x, p, dim)
        inv = (norm + 1e-7).reciprocal()
        factor = inv * maxnorm
        through_norm = (x * grad).sum(others, keepdim=True) * _norm_derivative(x, p, norm, others)
        return where(norm > maxnorm, factor * grad - factor * inv * through_norm, grad), None, None, None


def _slice_norms(x: Tensor, p: float, dim: int) -> Tensor:
    """The ``p``-norm of every slice along ``dim`` (kept as a size-1 axis elsewhere)."""
    others = tuple(i for i in range(x.ndim) if i != dim)
    a = x.abs()
    if math.isinf(p):
        return a.amax(others, keepdim=True)
    if p == 1:
        return a.sum(others, keepdim=True)
    if p == 2:
        return (a * a).sum(others, keepdim=True).sqrt()
    return (a ** p).sum(others, keepdim=True) ** (1.0 / p)


def _norm_derivative(x: Tensor, p: float, norm: Tensor, others: tuple) -> Tensor:
    """``∂‖x‖_p/∂x`` for each element, with the slice's ``norm`` broadcast."""
    if math.isinf(p):  # shared among the elements that reach the maximum, as amax's gradient is
        hit = (x.abs() == norm).to(x.dtype)
        return x.sign() * hit / hit.sum(others, keepdim=True)
    if p == 1:
        return x.sign()
    if p == 2:
        return x / norm
    return x * x.abs() ** (p - 2) / norm ** (p - 1)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice ``input.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm`` is scaled down to
    norm ``maxnorm`` (the others are unchanged): a max-norm constraint on, say, the rows of
    an embedding matrix."""
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_scalar_name(input)}")
    return Renorm.apply(input, float(p), _wrap_dim(dim, input.ndim), float(maxnorm))
