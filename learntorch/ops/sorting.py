"""Sorting: ``sort`` (values and indices), ``argsort``, ``topk``.

``sort`` returns where each value came from (``indices``), which is all its
backward needs: the gradient of the i-th sorted value goes back to position
``indices[i]``.  Sorting is stable, as PyTorch's CPU sort is, so equal values
keep their original order.
"""
from __future__ import annotations

from typing import Any

from .. import dtypes
from ..autograd.function import Function
from ..tensor import Tensor
from .common import new_result, numpy_aliases, wrap_dim
from .indexing import scatter_into_zeros
from .reduction import sort_result, topk_result

__all__ = ["sort", "argsort", "topk"]


class Sort(Function):
    _backward_name = "SortBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, descending: bool) -> tuple:
        xp = x._backend.xp
        data = x._data if x.ndim else xp.reshape(x._data, (1,))
        axis = dim if x.ndim else 0
        idx = xp.argsort(data, axis=axis, descending=descending, stable=True)
        values = xp.take_along_axis(data, idx, axis=axis)
        if not x.ndim:
            values, idx = xp.reshape(values, ()), xp.reshape(idx, ())
        indices = new_result(xp.astype(idx, xp.int64), x)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.dim, ctx.shape = axis, tuple(x.shape)
        return new_result(values, x), indices

    @staticmethod
    def backward(ctx, grad: Tensor, _grad_indices: Any = None) -> tuple:
        (indices,) = ctx.saved_tensors
        if not ctx.shape:
            return grad, None, None
        return scatter_into_zeros(grad, ctx.shape, ctx.dim, indices), None, None


@numpy_aliases
def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    """``(values, indices)``: sorted values along ``dim`` and their original positions."""
    d = wrap_dim(dim, input.ndim)  # (a 0-d tensor takes dim 0 and -1 only)
    return sort_result(*Sort.apply(input, d, descending))


@numpy_aliases
def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """Only the indices of ``sort`` (its second result)."""
    return sort(input, dim, descending).indices


class TopK(Function):
    """The first ``k`` of ``sort``; backward puts each gradient back at its index."""
    _backward_name = "TopkBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, k: int, dim: int, largest: bool) -> tuple:
        values, indices = Sort.forward(ctx, x, dim, largest)
        if x.ndim:
            key = (slice(None),) * dim + (slice(0, k), Ellipsis)  # (the array API wants every axis named)
            values, indices = new_result(values._data[key], x), new_result(indices._data[key], x)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad: Tensor, _grad_indices: Any = None) -> tuple:
        (indices,) = ctx.saved_tensors
        if not ctx.shape:
            return grad, None, None, None
        return scatter_into_zeros(grad, ctx.shape, ctx.dim, indices), None, None, None


@numpy_aliases
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    if input.dtype is dtypes.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = wrap_dim(dim, input.ndim)  # (a 0-d tensor takes dim 0 and -1 only)
    n = input.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    return topk_result(*TopK.apply(input, k, d, largest))


def msort(input: Tensor) -> Tensor:
    """The values sorted along the first dimension (``sort(input, 0).values``)."""
    return sort(input, 0).values
