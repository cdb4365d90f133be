"""Writing values *to* positions given by an index: ``scatter``, ``scatter_add``, ``index_add``.

They are the mirror images of ``gather`` and ``index_select``: for ``dim=1``,
``out[i][index[i][j]] = src[i][j]`` (``scatter``) or ``+= src[i][j]`` (``scatter_add``,
where repeated indices add up).  The classic use is a one-hot matrix::

    torch.zeros(3, 4).scatter_(1, labels.unsqueeze(1), 1.0)

Backward: the gradient of ``src`` is ``grad.gather(dim, index)`` (each source element
went to one place); the overwritten positions of the input get no gradient from
``scatter``, all of them keep theirs under ``scatter_add``.  The in-place forms
(``scatter_`` ...) follow autograd's in-place rules and are attached to ``Tensor``
at the bottom of this file.  The forward runs in NumPy: on a GPU the arrays go to the
host and the result comes back (NumPy's ``add.at`` and its kin combine repeated
positions in index order; CuPy has no ``multiply.at``), so every device gives the
CPU's numbers.
"""
from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from .. import dtypes, warn_always
from ..arrays import to_numpy, transfer
from ..autograd.function import Function
from ..device import CPU
from ..tensor import Tensor, _wrap_dim
from .common import new_result
from .indexing import check_index_range
from .inplace import inplace

__all__ = ["scatter", "scatter_add", "index_add"]


def _positions(index: np.ndarray, dim: int) -> tuple:
    """Full coordinates of every entry of ``index``, with ``dim`` replaced by the index value."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _check_in_range(idx: np.ndarray, size: int, dim: int) -> None:
    """Every index inside ``[0, size)``: PyTorch's RuntimeError, where NumPy would raise an
    IndexError (or count a negative index from the end)."""
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx[(idx < 0) | (idx >= size)].flat[0]
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _check(input: Tensor, dim: int, index: Tensor, name: str) -> None:
    # PyTorch accepts int32 indices as well as int64, and names every scatter variant "scatter()"
    # in the message (scatter_add and scatter_reduce share one kernel check)
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if max(index.dim(), 1) != max(input.dim(), 1):  # PyTorch counts a 0-d tensor as 1-d here
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")


def check_scatter_shapes(input: Tensor, dim: int, index: Tensor, src: Any = None) -> None:
    """PyTorch's RuntimeError for an index larger than ``input`` in a dimension other than ``dim``,
    or larger than a ``src`` tensor in any (the writes would fall outside).  ``dim`` is wrapped;
    a 0-d tensor counts as 1-d of size 1."""
    def sizes(t: Tensor) -> list:
        return list(t.shape) or [1]
    idx, own = sizes(index), sizes(input)
    other = sizes(src) if isinstance(src, Tensor) else None
    if any(i > s for d, (i, s) in enumerate(zip(idx, own)) if d != dim) or \
            (other is not None and any(i > s for i, s in zip(idx, other))):
        def show(shape: list) -> str:
            return "[" + ", ".join(map(str, shape)) + "]"
        tail = f" and to be no larger size than src {show(other)}" if other is not None else ""
        raise RuntimeError(f"Expected index {show(idx)} to be no larger than self {show(own)} apart from "
                           f"dimension {dim}{tail}")


class Scatter(Function):
    _backward_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, src: Any = None, dim: int = 0, index: Any = None, value: Any = None,
                add: bool = False, combine: Any = None) -> Tensor:
        # a 0-d index, input or src counts as 1-d of size 1 (``zeros(10).scatter_(0, tensor(3), value=1)``)
        idx = np.atleast_1d(to_numpy(index._data))
        out = np.array(to_numpy(x._data), copy=True)
        target = out.reshape(out.shape or (1,))  # a view of out
        _check_in_range(idx, target.shape[dim], dim)
        pos = _positions(idx, dim)
        values = value if src is None else np.atleast_1d(to_numpy(src._data))[
            tuple(slice(0, s) for s in idx.shape)]
        if add or combine is not None:  # repeated positions combine, in index order
            (combine or np.add).at(target, pos, values)
        else:
            target[pos] = values
        ctx.dim, ctx.index, ctx.add, ctx.has_src = dim, index, add, src is not None
        return new_result(transfer(out, CPU, x._device), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        g_x = grad if ctx.add else scatter(grad, ctx.dim, ctx.index, 0.0)
        g_src = grad.gather(ctx.dim, ctx.index) if ctx.has_src and ctx.needs_input_grad[1] else None
        return (g_x, g_src) if ctx.has_src else (g_x,)


Scatter_add = type("ScatterAdd", (Scatter,), {"_backward_name": "ScatterAddBackward0"})
# a number written (PyTorch's ``scatter.value`` overload): its own node name, the input its one edge
ScatterValue = type("ScatterValue", (Scatter,), {"_backward_name": "ScatterBackward1"})


class ScatterReduceLegacy(Scatter):
    """``scatter(..., reduce='add'|'multiply')``, the older form of ``scatter_reduce``.  PyTorch
    records it in the graph but defines no derivative: backward raises."""
    _backward_name = "torch::autograd::NotImplemented"

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        raise RuntimeError("derivative for aten::scatter is not implemented")


_LEGACY_REDUCE = {"add": np.add, "multiply": np.multiply}
_LEGACY_REDUCE_DEPRECATED = ("The reduce argument of torch.scatter with Tensor src is deprecated and will be "
                             "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
                             "reduction options.")


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: Any = None) -> Tensor:
    """A copy of ``input`` with ``src`` (a tensor, or a number) written at ``index`` along ``dim``."""
    _check(input, dim, index, "scatter")
    dim = _wrap_dim(dim, input.dim())
    if reduce is not None:
        if reduce not in _LEGACY_REDUCE:
            raise RuntimeError("reduce argument must be either add or multiply.")
        if isinstance(src, Tensor):  # PyTorch warns once per process, and only for a tensor src
            if src.dtype is not input.dtype:
                raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
            warn_always.warn_once(_LEGACY_REDUCE_DEPRECATED, UserWarning, stacklevel=3)
            check_scatter_shapes(input, dim, index, src)
            return ScatterReduceLegacy.apply(input, src, dim=dim, index=index, combine=_LEGACY_REDUCE[reduce])
        check_scatter_shapes(input, dim, index)
        return ScatterReduceLegacy.apply(input, dim=dim, index=index, value=src if value is None else value,
                                         combine=_LEGACY_REDUCE[reduce])
    check_scatter_shapes(input, dim, index, src)
    if not isinstance(src, Tensor):
        value, src = (src if value is None else value), None
        return ScatterValue.apply(input, dim=dim, index=index, value=value)
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return Scatter.apply(input, src, dim=dim, index=index)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` added at ``index`` along ``dim`` (repeated indices add up)."""
    _check(input, dim, index, "scatter_add")
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    dim = _wrap_dim(dim, input.dim())
    check_scatter_shapes(input, dim, index, src)
    return Scatter_add.apply(input, src, dim=dim, index=index, add=True)


class IndexAdd(Function):
    _backward_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, source: Tensor, dim: int = 0, index: Any = None, alpha: Any = 1) -> Tensor:
        out = np.array(to_numpy(x._data), copy=True)
        moved = np.moveaxis(out, dim, 0)  # a view: adding into it adds into out
        np.add.at(moved, to_numpy(index._data), np.moveaxis(to_numpy(source._data) * alpha, dim, 0))
        ctx.dim, ctx.index, ctx.alpha = dim, index, alpha
        return new_result(transfer(out, CPU, x._device), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        g_src = grad.index_select(ctx.dim, ctx.index) * ctx.alpha if ctx.needs_input_grad[1] else None
        return grad, g_src


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """A copy of ``input`` with slice ``i`` of ``source`` added to slice ``index[i]`` along ``dim``."""
    if index.dim() > 1:
        raise IndexError("index_add_(): Index is supposed to be a vector")
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {dtypes.type_name(index._dtype)}")
    if source._dtype is not input._dtype:
        raise RuntimeError(f"index_add_(): self ({dtypes.type_name(input._dtype)}) and source "
                           f"({dtypes.type_name(source._dtype)}) must have the same scalar type")
    d = _wrap_dim(dim, input.dim())
    if source.dim() and index.numel() != source.shape[d]:
        raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({source.shape[d]}), for dim: {d}")
    check_index_range(index, input.shape[d] if input.dim() else 1)
    return IndexAdd.apply(input, source, dim=d, index=index, alpha=alpha)


def _inplace_method(fn: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace(self, lambda t: fn(t, *args, **kwargs))
    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place ``{fn.__name__}``."
    method.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]  # (read by tensor_arguments' check)
    return method


