"""``index_reduce``: ``index_add``'s sibling that reduces with ``prod``, ``mean``, ``amax`` or
``amin`` instead of adding.

``x.index_reduce(dim, index, source, reduce)`` combines slice ``i`` of ``source`` (along ``dim``)
into slice ``index[i]`` of ``x``, together with ``x``'s own value unless ``include_self=False``.
It is ``scatter_reduce`` with the index repeated across the other dimensions, so it shares
:class:`ops.index_writes.ScatterReduce`'s forward and its per-reduction derivatives, under
PyTorch's own node name.  Integer ``mean`` rounds down, as in PyTorch.
"""
from __future__ import annotations


import numpy as np

from .. import dtypes, warn_always
from ..arrays import to_numpy, transfer
from ..device import CPU
from ..tensor import Tensor, _wrap_dim
from .index_writes import ScatterReduce
from .inplace import inplace

__all__ = ["index_reduce"]

_REDUCTIONS = ("prod", "mean", "amax", "amin")
_BETA = "index_reduce() is in beta and the API may change at any time."


class IndexReduce(ScatterReduce):
    _backward_name = "IndexReduceBackward0"


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """Reduce the slices of ``source`` into the slices ``index`` of ``input`` along ``dim``."""
    warn_always.warn_once(_BETA, UserWarning, stacklevel=3)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{dtypes.SCALAR_NAMES[index.dtype.name]}")
    d = _wrap_dim(dim, max(input.ndim, 1))
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({dtypes.SCALAR_NAMES[input.dtype.name]}) and source "
                           f"({dtypes.SCALAR_NAMES[source.dtype.name]}) must have the same scalar type")
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    idx = to_numpy(index._data).reshape(-1).astype(np.int64)
    n_src = source.shape[d] if source.ndim else 1
    if idx.size != n_src:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({n_src}), for dim: {dim}")
    size = input.shape[d] if input.ndim else 1
    if ((idx < 0) | (idx >= size)).any():
        raise IndexError("index out of range in self")
    shape = [1] * max(source.ndim, 1)
    shape[d] = idx.size
    spread = np.broadcast_to(idx.reshape(shape), tuple(source.shape) or (1,)).copy()
    spread = Tensor._make(transfer(spread.reshape(tuple(source.shape)), CPU, input._device), input._device)
    return IndexReduce.apply(input, source, dim=d, index=spread, reduce=reduce, include_self=bool(include_self))


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """In-place :func:`index_reduce`."""
    return inplace(self, lambda t: index_reduce(t, dim, index, source, reduce, include_self=include_self))
