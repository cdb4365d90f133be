"""``F.embedding_bag``: look up a *bag* of ids and reduce their rows to one vector per bag.

``embedding_bag(input, weight, offsets)`` equals ``embedding(input, weight)`` followed
by a sum, mean or max over each bag, without materialising the per-id rows of every
bag separately.  Bags are given either

* as the rows of a 2-D ``input`` (every bag the same length), or
* as a 1-D ``input`` with ``offsets``: bag ``b`` is ``input[offsets[b]:offsets[b+1]]``
  (``include_last_offset=True``: the last offset is the end of the last bag).

Composed of differentiable ops, so gradients reach ``weight`` (and ``per_sample_weights``);
the composite runs inside one node named like PyTorch's (``EmbeddingBagBackward0``, with
``weight`` and ``per_sample_weights`` as its inputs), whose backward differentiates it again:

* sum/mean: a 0/1 matrix ``S[b, i] = 1`` where position ``i`` is in bag ``b``, then
  ``S @ rows`` (divided by the bag sizes for mean; an empty bag gives zeros);
* max: the index of the largest value per bag and column is found on the arrays, then
  those entries are gathered from ``weight`` (so only they receive a gradient).

``padding_idx`` entries are left out of their bags (and of the mean's count).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import creation, dtypes
from ..arrays import to_numpy
from ..autograd.engine import grad as autograd_grad
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..tensor import Tensor

__all__ = ["embedding_bag"]

_MODES = ("sum", "mean", "max")


def _check_arguments(input: Tensor, weight: Tensor, offsets: Optional[Tensor], mode: str,
                     per_sample_weights: Optional[Tensor], scale_grad_by_freq: bool, sparse: bool) -> None:
    """PyTorch's argument errors, in its order."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2 and offsets is not None:
        raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                         f"length sequences. However, found offsets of type {type(offsets)}")
    if input.dim() == 1 and (offsets is None or offsets.dim() != 1):
        raise ValueError("offsets has to be a 1D Tensor but got None" if offsets is None
                         else "offsets has to be a 1D Tensor")
    if input.dim() not in (1, 2):
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if sparse:
        raise NotImplementedError("learntorch has no sparse tensors: use sparse=False (the gradient is then dense, "
                                  "with the same values)")
    if input._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{dtypes.SCALAR_NAMES.get(input._dtype.name, input._dtype.name)}"
                           "Tensor instead (while checking arguments for embedding_bag)")


def _bag_of_each_position(ids: np.ndarray, starts: np.ndarray, end: int) -> np.ndarray:
    """For each position of the flat ``ids``, the bag it belongs to (-1: after the last bag's end)."""
    positions = np.arange(ids.size)
    bags = np.searchsorted(starts, positions, side="right") - 1
    bags[positions >= end] = -1
    return bags


def _renorm_(weight: Tensor, ids: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Rescale, in place, the used rows whose norm exceeds ``max_norm`` (PyTorch's ``embedding_renorm_``)."""
    rows = np.unique(ids)
    if rows.size == 0:
        return
    with no_grad():
        index = creation.tensor(rows, device=weight.device)
        w = weight.index_select(0, index)
        norms = w.norm(norm_type, 1, keepdim=True)
        scale = (max_norm / (norms + 1e-7)).where(norms > max_norm, creation.ones_like(norms))
        weight[index] = w * scale


def _flatten(input: Tensor, offsets: Optional[Tensor], per_sample_weights: Optional[Tensor]) -> tuple:
    """A 2-D input as 1-D ids with one bag per row (and per_sample_weights flattened likewise)."""
    if input.dim() == 2:
        offsets = creation.arange(0, input.numel(), max(input.shape[1], 1), device=input.device)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    return input, offsets, per_sample_weights


def _bags(ids: np.ndarray, offs: np.ndarray, include_last_offset: bool) -> tuple[np.ndarray, int]:
    """The start of each bag and the end of the last one, with PyTorch's checks on ``offsets``."""
    if offs.size and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offs[0]}")
    if offs.size and offs[-1] > ids.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {ids.size} but got offsets[-1] of "
                           f"{offs[-1]}")
    if include_last_offset:
        return offs[:-1], int(offs[-1]) if offs.size else 0
    return offs, ids.size


def embedding_bag(input: Tensor, weight: Tensor, offsets: Optional[Tensor] = None, max_norm: Optional[float] = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Optional[Tensor] = None, include_last_offset: bool = False,
                  padding_idx: Optional[int] = None) -> Tensor:
    """One vector per bag: the sum, mean or max of the ``weight`` rows of the bag's ids.
    Result shape ``(number of bags, embedding_dim)``."""
    _check_arguments(input, weight, offsets, mode, per_sample_weights, scale_grad_by_freq, sparse)
    num, dim = weight.shape
    if padding_idx is not None and not -num <= padding_idx < num:
        raise AssertionError("padding_idx must be within the number of embeddings")
    padding = -1 if padding_idx is None else padding_idx % num
    input, offsets, per_sample_weights = _flatten(input, offsets, per_sample_weights)
    ids = to_numpy(input._data).astype(np.int64)
    bad = np.flatnonzero((ids < 0) | (ids >= num))
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {ids[bad[0]]} which is not in the valid range "
                           f"[0, {num})")
    starts, end = _bags(ids, to_numpy(offsets._data).astype(np.int64), include_last_offset)
    if max_norm is not None:
        _renorm_(weight, ids, max_norm, norm_type)
    bag = _bag_of_each_position(ids, starts, end)
    bag[ids == padding] = -1  # padding ids belong to no bag

    def compute(weight: Tensor, per_sample_weights: Optional[Tensor]) -> Tensor:
        return _bag_reduce(weight, per_sample_weights, input, ids, bag, len(starts), mode, scale_grad_by_freq)

    return _EmbeddingBag.apply(weight, per_sample_weights, compute)


class _EmbeddingBag(Function):
    """One node for the whole bag reduction (PyTorch's ``EmbeddingBagBackward0``): forward
    computes the composite without recording; backward records it again from the saved
    inputs and differentiates it (keeping the graph under ``create_graph=True``)."""

    _backward_name = "EmbeddingBagBackward0"
    _none_edges = True  # no per_sample_weights: still an input of the node, ``(None, 0)`` as in PyTorch

    @staticmethod
    def forward(ctx: Any, weight: Tensor, per_sample_weights: Optional[Tensor], compute: Any = None) -> Tensor:
        ctx.compute = compute
        ctx.save_for_backward(weight, per_sample_weights)
        return compute(weight, per_sample_weights)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        weight, psw = ctx.saved_tensors
        keep_graph = is_grad_enabled()
        needs = ctx.needs_input_grad[:2]
        with enable_grad():
            args = [t if t is None or keep_graph else t.detach().requires_grad_(need)
                    for t, need in zip((weight, psw), needs)]
            out = ctx.compute(*args)
            wanted = [a for a, need in zip(args, needs) if need]
            grads = list(autograd_grad(out, wanted, grad, create_graph=keep_graph, allow_unused=True))
        return tuple(grads.pop(0) if need else None for need in needs) + (None,)


def _bag_reduce(weight: Tensor, per_sample_weights: Optional[Tensor], input: Tensor, ids: np.ndarray,
                bag: np.ndarray, bags: int, mode: str, scale_grad_by_freq: bool) -> Tensor:
    """The bags' sums, means or maxima, as differentiable operations."""
    num = weight.shape[0]
    rows = weight.index_select(0, input)
    if scale_grad_by_freq and rows.requires_grad:
        counts = np.bincount(ids, minlength=num)[ids].astype(np.float64)
        scale = creation.tensor((1.0 / counts).reshape(-1, 1), dtype=weight.dtype, device=weight.device)
        rows.register_hook(lambda g: g * scale)
    if mode == "max":
        return _bag_max(weight, rows, ids, bag, bags)
    member = (bag[None, :] == np.arange(bags)[:, None]).astype(weight.dtype._np)
    S = creation.tensor(member, dtype=weight.dtype, device=weight.device)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    out = S.matmul(rows)
    if mode == "mean":
        sizes = np.maximum(member.sum(1, keepdims=True), 1)
        out = out / creation.tensor(sizes, dtype=weight.dtype, device=weight.device)
    return out


def _bag_max(weight: Tensor, rows: Tensor, ids: np.ndarray, bag: np.ndarray, bags: int) -> Tensor:
    """Per bag and column, the largest entry among the bag's rows (the first one on ties;
    zeros for an empty bag), gathered from ``weight`` so that the gradient reaches it."""
    values = to_numpy(rows.detach()._data)
    dim = values.shape[1]
    chosen = np.zeros((bags, dim), np.int64)
    filled = np.zeros((bags, 1), weight.dtype._np)
    for b in range(bags):
        members = np.flatnonzero(bag == b)
        if members.size:
            chosen[b] = ids[members[np.argmax(values[members], axis=0)]]
            filled[b] = 1
    picked = weight.gather(0, creation.tensor(chosen, device=weight.device))
    return picked * creation.tensor(filled, device=weight.device)
