"""Softmax and log-softmax along one dimension: two fused kernels, as in PyTorch.

``softmax(x)_i = exp(x_i) / Σ_j exp(x_j)``.  Both are computed with the row
maximum subtracted first, so ``exp`` never overflows, and ``log_softmax`` is
``(x - max) - log Σ exp(x - max)``, never the ``log`` of an underflowed 0.  Each
is one ``Function`` with its own backward node (``SoftmaxBackward0``,
``LogSoftmaxBackward0``), written with tensor operations so that it can be
differentiated again; ``LogSoftmax`` keeps an array backward for the plain case.

``x.softmax(dim)``, ``F.softmax`` and ``nn.Softmax`` all end here.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import warn_always
from .. import dtypes
from ..autograd import grad_mode
from ..autograd.function import Function
from ..tensor import Tensor, _wrap_dim
from .common import new_result, row_major

__all__ = ["softmax", "log_softmax", "Softmax", "LogSoftmax"]


def _along(x: Tensor, dim: int, fn: Any) -> Any:
    """``fn(xp, array, axis)`` where a 0-d tensor counts as one element along dim 0."""
    xp = x._backend.xp
    a = x._data
    if a.ndim == 0:
        return xp.reshape(fn(xp, xp.reshape(a, (1,)), 0), ())
    if a.shape[dim] == 0:
        return xp.asarray(a, copy=True)
    return fn(xp, a, dim)  # a row of -inf gives NaN (NumPy's warning is filtered in ops/__init__.py)


def _softmax_array(xp: Any, a: Any, axis: int) -> Any:
    e = xp.exp(a - xp.max(a, axis=axis, keepdims=True))  # the maximum subtracted: exp never overflows
    e /= xp.sum(e, axis=axis, keepdims=True)
    return e


def _log_softmax_array(xp: Any, a: Any, axis: int) -> Any:
    shifted = a - xp.max(a, axis=axis, keepdims=True)
    shifted -= xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))
    return shifted


def _sum_keep(t: Tensor, dim: int) -> Tensor:
    return t.sum(dim, keepdim=True) if t.ndim else t


def _forward_along(ctx, x: Tensor, dim: int, kernel: Any) -> Tensor:
    """The forward both kernels share: ``kernel`` along ``dim``; the result is what backward needs."""
    out = new_result(row_major(x._backend.xp, _along(x, dim, kernel)), x)
    ctx.save_for_backward(out)
    ctx.dim = dim
    return out


_HALF = (dtypes.bfloat16, dtypes.float16)


def _float32_arrays(*tensors: Tensor) -> tuple:
    """bfloat16/float16 tensors' NumPy arrays in float32: PyTorch's CPU kernels compute the
    backward of softmax in float32 (summing in bfloat16 would lose most bits) ..."""
    return tuple(np.asarray(t._data, dtype=np.float32) for t in tensors)


def _rounded_once(a: Any, like: Tensor) -> Tensor:
    """... and round the result once, to the gradient's dtype."""
    return new_result(a.astype(like._data.dtype), like)


class Softmax(Function):
    """``exp(x) / Σ exp(x)`` along ``dim``; backward ``y·(g - Σ g·y)``."""

    _backward_name = "SoftmaxBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int) -> Tensor:
        return _forward_along(ctx, x, dim, _softmax_array)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (y,) = ctx.saved_tensors
        if y._dtype in _HALF and type(y._data) is np.ndarray and not grad_mode._state.enabled and y.ndim:
            yf, g = _float32_arrays(y, grad)
            return _rounded_once(yf * (g - (g * yf).sum(axis=ctx.dim, keepdims=True)), grad), None
        return y * (grad - _sum_keep(grad * y, ctx.dim)), None


class LogSoftmax(Function):
    """``x - log Σ exp(x)`` along ``dim``, computed as ``(x - max) - log Σ exp(x - max)``;
    backward ``g - softmax·Σ g`` (for cross-entropy: softmax minus the one-hot target)."""

    _backward_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int) -> Tensor:
        return _forward_along(ctx, x, dim, _log_softmax_array)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (y,) = ctx.saved_tensors
        if y._dtype in _HALF and type(y._data) is np.ndarray and not grad_mode._state.enabled and y.ndim:
            yf, g = _float32_arrays(y, grad)
            return _rounded_once(g - np.exp(yf) * g.sum(axis=ctx.dim, keepdims=True), grad), None
        if not grad_mode._state.enabled and y.ndim:  # plain backward: on the arrays, nothing to record
            xp = y._backend.xp
            g = grad._data
            return new_result(g - xp.exp(y._data) * xp.sum(g, axis=ctx.dim, keepdims=True), grad), None
        return grad - y.exp() * _sum_keep(grad, ctx.dim), None


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warn_always.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                     "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_common(fn: type, kernel: str, input: Tensor, dim: Optional[int], stacklevel: int,
                    dtype: Any) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim(kernel, input.ndim, stacklevel + 1)
    if dtype is not None:
        input = input.to(dtype)
    d = _wrap_dim(dim, input.ndim)
    if not input.is_floating_point():
        where = "lastdim_" if input.ndim == 0 or d == input.ndim - 1 else ""
        raise NotImplementedError(f"\"{kernel}_{where}kernel_impl\" not implemented for '{dtypes.type_name(input.dtype)}'")
    return fn.apply(input, d)


def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """Turn scores into probabilities along ``dim``: ``exp(x_i) / Σ_j exp(x_j)``.
    ``dtype`` casts the input first (e.g. to float64 for more precision)."""
    return _softmax_common(Softmax, "softmax", input, dim, _stacklevel, dtype)


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``log(softmax(x))``, computed stably (never ``log`` of an underflowed 0)."""
    return _softmax_common(LogSoftmax, "log_softmax", input, dim, _stacklevel, dtype)
