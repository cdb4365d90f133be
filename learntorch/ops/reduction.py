"""Reductions: ``sum``, ``mean``, ``max`` … over all elements or over ``dim``.

``dim`` names the axis that *disappears*: for a (rows, cols) matrix,
``x.sum(dim=0)`` adds the rows together (one result per column) and
``x.sum(dim=1)`` adds along each row.  ``keepdim=True`` keeps the reduced axis
with size 1, which is what makes the result broadcast back against ``x``.
The backward of every reduction broadcasts the gradient back over that axis.
"""
from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import warn_always
from .. import autocast_state, dtypes
from ..autograd import grad_mode
from ..autograd.function import Function, FunctionCtx
from ..tensor import Tensor
from .autocast import float32_precision
from .common import new_result, numpy_aliases, return_type, wrap_dim, wrap_dims
from .indexing import scatter_into_zeros
from .pointwise import maximum, minimum
from .shape import stack

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "prod", "var", "std",
           "logsumexp", "all", "any", "cumsum", "count_nonzero"]

Dim = Union[int, Sequence[int], None]
_MinMax = namedtuple("_MinMax", ["values", "indices"])


def _return_type(name: str) -> type:
    """``torch.return_types.max``-like named tuples (values, indices)."""
    cls = type(name, (_MinMax,), {"__module__": "torch.return_types", "__slots__": ()})
    cls.__repr__ = lambda self: f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"
    return cls


max_result, min_result, sort_result, topk_result = (_return_type(n) for n in ("max", "min", "sort", "topk"))


def expand_back(grad: Tensor, shape: tuple, axes: Optional[tuple], keepdim: bool) -> Tensor:
    """Give a reduced gradient its reduced axes back (size 1), then broadcast to ``shape``."""
    kept = None  # the gradient's shape with the reduced axes back, when they were dropped
    if axes is not None and not keepdim:
        kept = list(grad._data.shape)
        for a in axes:
            kept.insert(a, 1)
        kept = tuple(kept)
    elif axes is None:
        kept = (1,) * len(shape)
    if not grad_mode._state.enabled:  # a plain backward records nothing: the same steps on the array
        xp, g = grad._backend.xp, grad._data
        g = xp.reshape(g, kept) if kept is not None else g
        return grad._view_of(xp.broadcast_to(g, tuple(shape)))  # (a view of grad, as PyTorch's expand is)
    if kept is not None:
        grad = grad.reshape(kept)
    return grad.expand(shape)


def _sum_dtype(x: Tensor, dtype: Any) -> dtypes.dtype:
    if dtype is not None:
        return dtypes.from_argument(dtype)
    return x._dtype if x._dtype.is_floating_point else dtypes.int64  # ints and bools sum to int64


class Sum(Function):
    _backward_name = "SumBackward1"

    @staticmethod
    def forward(ctx, x: Tensor, dim: Dim = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
        axes = wrap_dims(dim, x.ndim)
        dt = _sum_dtype(x, dtype)
        be = x._backend
        src = be.xp.astype(x._data, be.dtype(dt)) if x._dtype is dtypes.bool else x._data  # (the array API
        data = be.xp.sum(src, axis=axes, keepdims=keepdim, dtype=be.dtype(dt))             # sums numbers only)
        ctx.args = (tuple(x.shape), axes, keepdim)
        return new_result(data, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        shape, axes, keepdim = ctx.args
        return expand_back(grad, shape, axes, keepdim), None, None, None


class SumAll(Sum):
    _backward_name = "SumBackward0"


class Mean(Function):
    _backward_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, x: Tensor, dim: Dim = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
        dt = dtypes.from_argument(dtype) if dtype is not None else x._dtype
        if not dt.is_floating_point:
            wrap_dims(dim, x.ndim)  # (a dim of the wrong type is named first: PyTorch's parser sees it first)
            kind = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                    "bool": "Bool"}[dt.name]
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                               f"point or complex dtype. Got: {kind}")
        axes = wrap_dims(dim, x.ndim)
        be = x._backend
        n = 1
        for a in (range(x.ndim) if axes is None else axes):
            n *= x.shape[a]
        data = _mean_kernel(be.xp, be.xp.astype(x._data, be.dtype(dt)) if dt is not x._dtype else x._data,
                            axes, keepdim, n)
        ctx.args = (tuple(x.shape), axes, keepdim)
        ctx.count = n
        return new_result(data, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        shape, axes, keepdim = ctx.args
        # As PyTorch's mean_backward: expand, then divide -- a fresh row-major gradient, not a
        # stride-0 view (so a leaf keeps it as its .grad without a copy).
        expanded = expand_back(grad, shape, axes, keepdim)
        if not grad_mode._state.enabled and ctx.count and grad._dtype in (dtypes.float32, dtypes.float64):
            return new_result(expanded._data / ctx.count, grad), None, None, None  # (plain backward: on the array)
        return expanded / ctx.count, None, None, None


def _mean_kernel(xp: Any, data: Any, axes: Optional[tuple], keepdims: bool, n: int) -> Any:
    """The array library's mean of ``n`` numbers per result; the mean of none is nan, silently
    (as in PyTorch: NumPy would warn "Mean of empty slice")."""
    if n:
        return xp.mean(data, axis=axes, keepdims=keepdims)
    with np.errstate(invalid="ignore"):
        return xp.sum(data, axis=axes, keepdims=keepdims) / data.dtype.type(0)


class MeanAll(Mean):
    _backward_name = "MeanBackward0"


@numpy_aliases
def sum(input: Tensor, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    """Sum of all elements, or along ``dim`` (an int or a tuple of ints)."""
    if dim is None or (isinstance(dim, tuple) and not dim):
        return SumAll.apply(input, None, keepdim, dtype)
    return Sum.apply(input, dim, keepdim, dtype)


@numpy_aliases
def mean(input: Tensor, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Average over all elements, or along ``dim``; floating-point tensors only, as in PyTorch."""
    if dim is None or (isinstance(dim, tuple) and not dim):
        return MeanAll.apply(input, None, keepdim, dtype)
    return Mean.apply(input, dim, keepdim, dtype)


class _Extreme(Function):
    """max/min over all elements: the gradient is shared evenly among the tied maxima."""

    @staticmethod
    def forward(ctx, x: Tensor, largest: bool) -> Tensor:
        if x.numel() == 0:
            name = "max" if largest else "min"
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        xp = x._backend.xp
        out = new_result((xp.max if largest else xp.min)(x._data), x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        mask = (x == out).to(grad.dtype)
        return mask * (grad / mask.sum()), None


class MaxAll(_Extreme):
    _backward_name = "MaxBackward1"


class MinAll(_Extreme):
    _backward_name = "MinBackward1"


class _ExtremeDim(Function):
    """max/min along ``dim``: values and the indices they came from; the gradient
    goes to the chosen index only."""

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, keepdim: bool, largest: bool) -> tuple:
        axis = wrap_dim(dim, x.ndim)
        _check_reduced_dim("max()" if largest else "min()", x, axis)
        xp = x._backend.xp
        data = x._data if x.ndim else xp.reshape(x._data, (1,))
        idx = (xp.argmax if largest else xp.argmin)(data, axis=axis if x.ndim else 0, keepdims=True)
        values = xp.take_along_axis(data, idx, axis=axis if x.ndim else 0)
        if not keepdim or not x.ndim:
            values = xp.squeeze(values, axis=axis if x.ndim else 0)
            idx = xp.squeeze(idx, axis=axis if x.ndim else 0)
        indices = new_result(xp.astype(idx, xp.int64), x)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.args = (tuple(x.shape), axis, keepdim)
        return new_result(values, x), indices

    @staticmethod
    def backward(ctx, grad: Tensor, _grad_indices: Any = None) -> tuple:
        (indices,) = ctx.saved_tensors
        shape, axis, keepdim = ctx.args
        if not shape:
            return grad.reshape(()), None, None, None
        if not keepdim:
            grad, indices = grad.unsqueeze(axis), indices.unsqueeze(axis)
        return scatter_into_zeros(grad, shape, axis, indices), None, None, None


class MaxDim(_ExtremeDim):
    _backward_name = "MaxBackward0"


class MinDim(_ExtremeDim):
    _backward_name = "MinBackward0"


@numpy_aliases
def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """The largest value; with ``dim``, ``(values, indices)`` along it; with a
    tensor, the element-wise maximum."""
    if isinstance(dim, Tensor):
        _no_third_argument("max", keepdim)
        return maximum(input, dim)
    if dim is None:
        return MaxAll.apply(input, True)
    return max_result(*MaxDim.apply(input, dim, keepdim, True))


@numpy_aliases
def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    if isinstance(dim, Tensor):
        _no_third_argument("min", keepdim)
        return minimum(input, dim)
    if dim is None:
        return MinAll.apply(input, False)
    return min_result(*MinDim.apply(input, dim, keepdim, False))


def _no_third_argument(name: str, keepdim: Any) -> None:
    """``torch.max(a, b)`` of two tensors is the element-wise maximum, which takes nothing more:
    ``torch.max(a, b, c)`` is PyTorch's TypeError (for three tensors, nest two calls)."""
    if keepdim is not False:
        raise TypeError(f"{name}() received an invalid combination of arguments: {name}(input, other) of two "
                        f"tensors takes no third argument, got {type(keepdim).__name__}; for three tensors "
                        f"write torch.{name}(torch.{name}(a, b), c)")


class Amax(Function):
    _backward_name = "AmaxBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: Dim, keepdim: bool, largest: bool) -> Tensor:
        axes = wrap_dims(dim if dim != () else None, x.ndim)
        xp = x._backend.xp
        out = (xp.max if largest else xp.min)(x._data, axis=axes, keepdims=True)
        ctx.args = (tuple(x.shape), axes, keepdim)
        result = new_result(out if keepdim else xp.reshape(out, _drop(x.shape, axes)), x)
        ctx.save_for_backward(x, new_result(out, x))
        return result

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        shape, axes, keepdim = ctx.args
        mask = (x == out).to(grad.dtype)
        g = expand_back(grad, shape, axes, keepdim)
        return g * mask / mask.sum(dim=axes, keepdim=True), None, None, None


class Amin(Amax):
    _backward_name = "AminBackward0"


def _drop(shape: tuple, axes: Optional[tuple]) -> tuple:
    return () if axes is None else tuple(s for i, s in enumerate(shape) if i not in axes)


@numpy_aliases
def amax(input: Tensor, dim: Dim = (), keepdim: bool = False) -> Tensor:
    _check_not_empty("amax", input, dim)
    return Amax.apply(input, dim, keepdim, True)


@numpy_aliases
def amin(input: Tensor, dim: Dim = (), keepdim: bool = False) -> Tensor:
    _check_not_empty("amin", input, dim)
    return Amin.apply(input, dim, keepdim, False)


def _check_not_empty(name: str, input: Tensor, dim: Dim) -> None:
    """The maximum of no numbers is undefined: PyTorch asks for a ``dim``, and then every
    reduced dimension must have a size (NumPy's ValueError would say "no identity")."""
    if input.numel() == 0:
        if dim is None or (isinstance(dim, tuple) and not dim):
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        for axis in wrap_dims(dim, input.ndim):
            _check_reduced_dim(f"{name}()", input, axis)


def _check_reduced_dim(name: str, input: Tensor, axis: int) -> None:
    """A max, min, argmax … along a dimension of size 0 has no answer: PyTorch's IndexError."""
    if input.ndim and input.shape[axis] == 0:
        raise IndexError(f"{name}: Expected reduction dim {axis} to have non-zero size.")


aminmax_result = return_type("aminmax", ("min", "max"))


def aminmax(input: Tensor, *, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """``(min, max)`` in one call (over all elements, or along ``dim``)."""
    if input.numel() == 0:
        if dim is None:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                               "has no identity.")
        _check_reduced_dim("aminmax", input, wrap_dim(dim, input.ndim))
    return aminmax_result(amin(input, () if dim is None else dim, keepdim),
                          amax(input, () if dim is None else dim, keepdim))


@numpy_aliases
def argmax(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """Index of the largest value (of the flattened tensor when ``dim`` is None)."""
    return _arg_extreme(input, dim, keepdim, largest=True)


@numpy_aliases
def argmin(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(input, dim, keepdim, largest=False)


def _arg_extreme(x: Tensor, dim: Optional[int], keepdim: bool, largest: bool) -> Tensor:
    xp = x._backend.xp
    fn = xp.argmax if largest else xp.argmin
    name = "argmax()" if largest else "argmin()"
    if x._dtype is dtypes.bool:
        if dim is not None:
            wrap_dim(dim, x.ndim)  # (a dim of the wrong type is named first: PyTorch's parser sees it first)
        raise RuntimeError(f"{name}: does not support bool input")
    if dim is None:
        if x.numel() == 0:
            raise IndexError(f"{name}: Expected reduction dim to be specified for input.numel() == 0.")
        out = fn(xp.reshape(x._data, (-1,)))
        if keepdim:
            out = xp.reshape(out, (1,) * x.ndim)
    else:
        axis = wrap_dim(dim, x.ndim)
        _check_reduced_dim(name, x, axis)
        out = fn(x._data, axis=axis, keepdims=keepdim)
    return new_result(xp.astype(out, xp.int64), x)


class Prod(Function):
    _backward_name = "ProdBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: Optional[int], keepdim: bool) -> Tensor:
        axes = wrap_dims(dim, x.ndim)
        be = x._backend
        out = new_result(be.xp.prod(x._data, axis=axes, keepdims=keepdim,
                                    dtype=be.dtype(_sum_dtype(x, None))), x)
        ctx.args = (tuple(x.shape), axes, keepdim)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        shape, axes, keepdim = ctx.args
        # d(prod)/dx_i = prod / x_i where x_i != 0; with zeros, the product of the others.
        g = expand_back(grad, shape, axes, keepdim)
        p = expand_back(out, shape, axes, keepdim)
        if bool((x == 0).any()):
            others = _prod_of_others(x, axes)
            return g * others, None, None
        return g * p / x, None, None


def _prod_of_others(x: Tensor, axes: Optional[tuple]) -> Tensor:
    """For each element, the product of the *other* elements along the reduced axis.

    Needed only when ``x`` holds zeros (``prod / x`` would divide by zero).  A
    plain loop over the axis: slow, but rare and easy to check."""
    if axes is None:
        return _prod_of_others(x.reshape(-1), (0,)).reshape(x.shape)
    (axis,) = axes
    pieces = x.detach().unbind(axis)
    result = []
    for i in range(len(pieces)):
        p = x.new_ones(pieces[0].shape)
        for j, piece in enumerate(pieces):
            if j != i:
                p = p * piece
        result.append(p)
    return stack(result, axis)


class ProdDim(Prod):
    _backward_name = "ProdBackward1"


@numpy_aliases
def prod(input: Tensor, dim: Optional[int] = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(prod, input, dim, keepdim, dtype=dtype)
    if dtype is not None:
        input = input.to(dtype)
    return Prod.apply(input, dim, keepdim) if dim is None else ProdDim.apply(input, dim, keepdim)




def _check_floating_for_var(input: Tensor) -> None:
    """A variance of integers would have to be a float: PyTorch asks for a float tensor instead."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")


@numpy_aliases
def var(input: Tensor, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    """Variance; ``correction=1`` (Bessel's, the default) divides by N-1."""
    _check_floating_for_var(input)
    if isinstance(dim, bool):  # var(x, False): the old positional ``unbiased``
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    _warn_if_no_degrees_of_freedom("var", input, dim, correction)
    return Var.apply(input, dim, correction, keepdim)


def variance_with_mean(name: str, input: Tensor, dim: Dim = None, unbiased: Optional[bool] = None,
                       keepdim: bool = False, correction: Any = None) -> tuple:
    """``var_mean`` / ``std_mean`` (``name``): the variance or standard deviation and the mean,
    with the arguments of ``var``; a no-degrees-of-freedom warning is named after ``name``, as
    in PyTorch."""
    _check_floating_for_var(input)
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    _warn_if_no_degrees_of_freedom(name, input, dim, correction)
    spread = (Std if name == "std_mean" else Var).apply(input, dim, correction, keepdim)
    return spread, (input.mean() if dim is None else input.mean(dim, keepdim=keepdim))


def _warn_if_no_degrees_of_freedom(name: str, input: Tensor, dim: Dim, correction: Any) -> None:
    """PyTorch's warning when ``N - correction <= 0`` numbers are left to divide by (the
    variance of one number with Bessel's correction): the result is nan or inf."""
    axes = wrap_dims(dim if dim != () else None, input.ndim)
    n = input.numel() if axes is None else _count(input.shape, axes)
    if n - correction <= 0:
        warn_always.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                         "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=4)


class Var(Function):
    """Σ(x - mean)² / (N - correction); d/dx_i = 2 (x_i - mean) / (N - correction)."""
    _backward_name = "VarBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: Dim, correction: Any, keepdim: bool) -> Tensor:
        axes = wrap_dims(dim if dim != () else None, x.ndim)
        xp = x._backend.xp
        n = x.numel() if axes is None else _count(x.shape, axes)
        centred = x._data - _mean_kernel(xp, x._data, axes, True, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = xp.sum(centred * centred, axis=axes, keepdims=keepdim) / builtins.max(n - correction, 0)
        ctx.save_for_backward(x)
        ctx.args = (tuple(x.shape), axes, keepdim, builtins.max(n - correction, 0))
        return new_result(out, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        shape, axes, keepdim, dof = ctx.args
        centred = x - x.mean(axes, keepdim=True)
        return expand_back(grad, shape, axes, keepdim) * centred * (2.0 / dof if dof else float("inf")), \
            None, None, None


class Std(Function):
    """sqrt(var); d/dx_i = (x_i - mean) / ((N - correction) · std)."""
    _backward_name = "StdBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: Dim, correction: Any, keepdim: bool) -> Tensor:
        var_ctx = FunctionCtx()
        out = new_result(x._backend.xp.sqrt(Var.forward(var_ctx, x, dim, correction, keepdim)._data), x)
        ctx.args = var_ctx.args
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        shape, axes, keepdim, dof = ctx.args
        centred = x - x.mean(axes, keepdim=True)
        return expand_back(grad / out, shape, axes, keepdim) * centred * (1.0 / dof if dof else float("inf")), \
            None, None, None


def _count(shape: tuple, axes: tuple) -> int:
    n = 1
    for a in axes:
        n *= shape[a]
    return n


@numpy_aliases
def std(input: Tensor, dim: Dim = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    _check_floating_for_var(input)
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    _warn_if_no_degrees_of_freedom("std", input, dim, correction)
    return Std.apply(input, dim, correction, keepdim)


@numpy_aliases
def logsumexp(input: Tensor, dim: Dim, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` computed stably: shift by the maximum first.  Integers and bools
    are taken in the default float dtype, as in PyTorch."""
    if not input._dtype.is_floating_point:
        input = input.to(dtypes.get_default_dtype())
    return Logsumexp.apply(input, dim, keepdim)


class Logsumexp(Function):
    """d/dx_i log Σ exp(x) = exp(x_i - result): the softmax."""
    _backward_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: Dim, keepdim: bool) -> Tensor:
        axes = wrap_dims(dim, x.ndim)
        xp = x._backend.xp
        m = xp.max(x._data, axis=axes, keepdims=True) if x.numel() else xp.zeros_like(xp.sum(x._data, axis=axes,
                                                                                             keepdims=True))
        m = xp.where(xp.isinf(m), xp.zeros_like(m), m)
        with np.errstate(divide="ignore"):
            out = xp.log(xp.sum(xp.exp(x._data - m), axis=axes, keepdims=True)) + m
        if not keepdim:
            out = xp.reshape(out, _drop(x.shape, axes))
        result = new_result(out, x)
        ctx.args = (tuple(x.shape), axes, keepdim)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        shape, axes, keepdim = ctx.args
        return expand_back(grad, shape, axes, keepdim) * (x - expand_back(out, shape, axes, keepdim)).exp(), \
            None, None


class VectorNorm(Function):
    """‖x‖_p over ``dim``.  Backward: x·|x|^(p-2) / ‖x‖^(p-1) (x/‖x‖ for p=2, sign(x) for p=1,
    the tied maxima (minima) of |x| for p=∞ (-∞), none for p=0, the count of non-zeros),
    and 0 where the norm is 0, as in PyTorch."""
    _backward_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, p: float, dim: Dim, keepdim: bool) -> Tensor:
        axes = wrap_dims(dim if dim != () else None, x.ndim)
        xp = x._backend.xp
        a = xp.abs(x._data)
        if p == float("inf"):
            out = xp.max(a, axis=axes, keepdims=keepdim)
        elif p == float("-inf"):
            out = xp.min(a, axis=axes, keepdims=keepdim)
        elif p == 0:
            out = xp.sum(xp.astype(a != 0, a.dtype), axis=axes, keepdims=keepdim)
        elif p == 2:
            out = xp.sqrt(xp.sum(a * a, axis=axes, keepdims=keepdim))
        elif p == 1:
            out = xp.sum(a, axis=axes, keepdims=keepdim)
        else:
            out = xp.sum(a ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)
        result = new_result(out, x)
        ctx.args = (tuple(x.shape), axes, keepdim, p)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        shape, axes, keepdim, p = ctx.args
        g = expand_back(grad, shape, axes, keepdim)
        norm = expand_back(out, shape, axes, keepdim)
        if p == 1:
            return g * x.sign(), None, None, None
        if p == 0:
            return x * 0, None, None, None
        if p in (float("inf"), float("-inf")):
            mask = (x.abs() == norm).to(grad.dtype)
            return g * x.sign() * mask / mask.sum(axes, keepdim=True), None, None, None
        scale = x if p == 2 else x * x.abs() ** (p - 2)
        denom = norm if p == 2 else norm ** (p - 1)
        return (g * scale / denom).masked_fill(norm == 0, 0.0), None, None, None


@numpy_aliases
def all(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    xp = input._backend.xp
    axes = wrap_dims(dim, input.ndim)
    return new_result(xp.all(xp.astype(input._data, xp.bool), axis=axes, keepdims=keepdim), input)


@numpy_aliases
def any(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    xp = input._backend.xp
    axes = wrap_dims(dim, input.ndim)
    return new_result(xp.any(xp.astype(input._data, xp.bool), axis=axes, keepdims=keepdim), input)


@numpy_aliases
def count_nonzero(input: Tensor, dim: Optional[int] = None) -> Tensor:
    return sum(input != 0, dim)


class Cumsum(Function):
    _backward_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int) -> Tensor:
        axis = wrap_dim(dim, x.ndim)
        be = x._backend
        ctx.axis = axis
        a = x._data if x.ndim else be.xp.reshape(x._data, (1,))  # (a 0-d tensor: its one element)
        out = be.xp.cumulative_sum(a, axis=axis, dtype=be.dtype(_sum_dtype(x, None)))
        return new_result(out if x.ndim else be.xp.reshape(out, ()), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        # Each input contributes to every later output: the gradient is a reversed cumulative sum.
        return grad.flip(ctx.axis).cumsum(ctx.axis).flip(ctx.axis), None


@numpy_aliases
def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return Cumsum.apply(input if dtype is None else input.to(dtype), dim)
