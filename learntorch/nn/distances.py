"""Distances between vectors: ``F.pairwise_distance`` (row i of x1 to row i of x2) and
``F.pdist`` (every pair of rows of one matrix).

Both are p-norms of differences, composed of tensor operations, so their gradients
(and second derivatives) come from the ops they are made of.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..ops.reduction import VectorNorm
from ..tensor import Tensor

__all__ = ["pairwise_distance", "pdist"]


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``‖x1 - x2 + eps‖_p`` along the last dimension (the inputs broadcast).

    ``eps`` is added to the difference, as PyTorch does, so that the norm of two equal
    vectors is not exactly zero, where the 2-norm's gradient is undefined."""
    last = max(x1.dim(), x2.dim()) - 1
    diff = x1 - x2 + eps
    if not diff.is_floating_point():
        return diff.norm(p, last, keepdim)  # norm's own error for integer inputs
    return _PairwiseNorm.apply(diff, float(p), last, keepdim)


class _PairwiseNorm(VectorNorm):
    """The norm of the difference, under the name PyTorch's ``at::norm`` gives it (``NormBackward1``:
    a printed distance shows it), with the same forward and backward as ``linalg.vector_norm``."""
    _backward_name = "NormBackward1"


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between every pair of rows ``i < j`` of an ``(N, M)`` input, in
    row-major order of the pairs: a vector of ``N(N-1)/2`` distances (the upper triangle of
    the distance matrix, read row by row)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    rows, cols = np.triu_indices(input.shape[0], k=1)
    be = input._backend
    i = Tensor._make(be.asarray(rows, dtypes.int64), input._device)
    j = Tensor._make(be.asarray(cols, dtypes.int64), input._device)
    return (input.index_select(0, i) - input.index_select(0, j)).norm(p, 1)
