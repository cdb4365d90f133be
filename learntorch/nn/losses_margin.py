"""Margin losses: a prediction is only penalised while it is on the wrong side of a margin.

They all share one shape, ``max(0, margin - how_right_we_are)``: once an example is right
by at least the margin its loss (and its gradient) is zero, so training spends its effort
on the examples that are still wrong.  What changes from loss to loss is *what* is
compared -- two scores (ranking), a distance (embeddings, triplets) or the score of the
right class against the others (multi-class).

Most are composed of existing tensor operations, as PyTorch composes them, so autograd
needs nothing new and ``grad_fn`` names agree.  Three are single kernels in PyTorch with
their own backward node (``SoftMarginLossBackward0``, ``MultiMarginLossBackward0``,
``MultilabelMarginLossBackward0``); here they are ``Function``s of that name whose forward
and backward are both written with tensor operations (so the backward can be
differentiated again, see docs/architecture.md, "one backward convention").

Not identical to PyTorch: where PyTorch calls ``clamp_min`` its node is
``ClampMinBackward0``, here ``ClampBackward1``; ``pairwise_distance``'s norm node is
``LinalgVectorNormBackward0`` here (``distances.py``), ``NormBackward1`` there.  Values and gradients agree.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from .. import autocast_state
from ..ops.autocast import float32_precision
from .. import dtypes
from ..autograd import grad_mode
from ..autograd.function import Function
from ..ops import pointwise
from ..ops.common import Number, check_kernel_dtype
from ..ops.activations import logsigmoid
from ..tensor import Tensor
from ..tensor_arguments import require_tensor
from ._reduction import _get_reduction, _reduce, _scale_grad
from .distances import pairwise_distance

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss"]


def _sizes(shape: tuple) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _check_long(target: Tensor) -> None:
    """Class-index targets must be int64 (PyTorch's message names the C++ types)."""
    if target.dtype is not dtypes.int64:
        name = dtypes.SCALAR_NAMES.get(target.dtype.name, target.dtype.name)
        raise RuntimeError(f"expected scalar type Long but found {name}")


# ============================================================================ pairs of scores
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, -y·(x1 - x2) + margin)``: ``y = 1`` says x1 should rank above x2, ``y = -1`` below."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(margin_ranking_loss, input1, input2, target, margin, size_average, reduce, reduction)
    reduction = _get_reduction(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)  # (ClampMinBackward0, as PyTorch's)


def _integer(t: Tensor) -> bool:
    """An integer tensor (a bool one fails further on, with PyTorch's message for its ``-``)."""
    return not (t._dtype.is_floating_point or t._dtype.is_complex or t._dtype is dtypes.bool)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Optional[bool] = None,
                         reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """``x`` where ``y = 1`` and ``max(0, margin - x)`` where ``y = -1``: ``x`` is a distance,
    small for similar pairs (y = 1), at least ``margin`` for dissimilar ones (y = -1)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(hinge_embedding_loss, input, target, margin, size_average, reduce, reduction)
    reduction = _get_reduction(reduction, size_average, reduce)
    if reduction == "mean" and _integer(input):  # (PyTorch's loss of integers is an integer)
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {dtypes.type_name(input._dtype)}")
    dissimilar = pointwise.where(target != 1, (margin - input).clamp(min=0), 0.0)
    similar = pointwise.where(target != -1, input, 0.0)
    return _reduce(dissimilar + similar, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                          reduction: str = "mean") -> Tensor:
    """With ``cos = cos(x1, x2)``: ``1 - cos`` where ``y = 1`` (pull together), ``max(0, cos - margin)``
    where ``y = -1`` (push apart).  Each squared norm gets 1e-12, so zero vectors give no nan."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(cosine_embedding_loss, input1, input2, target, margin, size_average, reduce,
                                 reduction)
    reduction = _get_reduction(reduction, size_average, reduce)
    dim = target.ndim
    if dim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if dim == 1 else 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(f"{dim}D target tensor expects {want}D input tensors, but found inputs with sizes "
                           f"{_sizes(tuple(input1.shape))} and {_sizes(tuple(input2.shape))}.")
    eps = 1e-12
    dot = (input1 * input2).sum(dim)
    norms = (((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)).sqrt()
    cos = dot / norms
    pull = pointwise.where(target == 1, 1 - cos, 0.0)
    push = pointwise.where(target == -1, (cos - margin).clamp(min=0), 0.0)
    return _reduce(pull + push, reduction)


# ============================================================================ triplets
def _check_triplet(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float) -> None:
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")


def _triplet(distance: Callable[[Tensor, Tensor], Tensor], anchor: Tensor, positive: Tensor, negative: Tensor,
             margin: float, swap: bool, reduction: str) -> Tensor:
    """``max(0, d(a, p) - d(a, n) + margin)``; with ``swap``, ``d(a, n)`` becomes
    ``min(d(a, n), d(p, n))``: the harder of the two negatives (Balntas et al., 2016)."""
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = pointwise.minimum(dist_neg, distance(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Optional[bool] = None,
                        reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """The anchor should be closer to the positive than to the negative, by ``margin``, in
    the ``p``-norm distance :func:`pairwise_distance`."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(triplet_margin_loss, anchor, positive, negative, margin, p, eps, swap, size_average,
                                 reduce, reduction)
    reduction = _get_reduction(reduction, size_average, reduce)
    _check_triplet(anchor, positive, negative, margin)
    return _triplet(lambda a, b: pairwise_distance(a, b, p, eps), anchor, positive, negative, margin, swap,
                    reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Optional[Callable[[Tensor, Tensor], Tensor]] = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """:func:`triplet_margin_loss` with any distance (default :func:`pairwise_distance`)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_triplet(anchor, positive, negative, margin)
    return _triplet(distance_function or pairwise_distance, anchor, positive, negative, margin, swap, reduction)


# ============================================================================ two-class and multi-label
class SoftMarginLoss(Function):
    """``log(1 + exp(-y·x))``: the logistic loss of labels ``y = ±1``, a smooth hinge.

    Its gradient is ``-y·σ(-y·x)`` for ``x``; PyTorch gives none for ``y``."""

    _backward_name = "SoftMarginLossBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, y: Tensor, reduction: str = "mean") -> Tensor:
        ctx.save_for_backward(x, y)
        ctx.reduction = reduction
        return _reduce((-y * x).exp().log1p(), reduction)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        margin = -y * x                       # (broadcast to the loss's shape)
        g = margin.sigmoid() * _scale_grad(grad, ctx.reduction, margin.numel())
        return (-y * g).sum_to_size(x.shape)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
                     reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-target·input))`` for targets ±1."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(soft_margin_loss, input, target, size_average, reduce, reduction)
    require_tensor("soft_margin_loss", "input", input)  # (the kernel would take a number)
    require_tensor("soft_margin_loss", "target", target, 2)
    if _integer(input):  # (PyTorch's kernel writes the loss into a tensor of the input's dtype)
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{dtypes.type_name(input._dtype)}")
    if target.requires_grad and grad_mode.is_grad_enabled():  # (PyTorch's kernel has no target gradient)
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument "
                           "'target'. This input cannot have requires_grad True.")
    # the target as a keyword: it is no input of PyTorch's node, so no ``(None, 0)`` edge for it
    return SoftMarginLoss.apply(input, y=target, reduction=_get_reduction(reduction, size_average, reduce))


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                                reduction: str = "mean") -> Tensor:
    """One binary cross-entropy per class (targets 0/1 in ``target``), averaged over the
    classes: ``-mean_c [y·log σ(x) + (1 - y)·log σ(-x)]`` (``weight`` per class)."""
    if size_average is not None or reduce is not None:
        reduction = _get_reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


# ============================================================================ multi-class hinge
def _as_matrix(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """(N, C) input and target rows; a single example (C,) or () becomes one row."""
    empty_row = (input.ndim == 1 and input.shape[0] == 0) or (input.ndim == 2 and input.shape[1] == 0)
    if input.ndim > 2 or empty_row:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{_sizes(tuple(input.shape))}")
    return (input.reshape(1, -1), target.reshape(1, -1)) if input.ndim < 2 else (input, target)


class MultiMarginLoss(Function):
    """Multi-class hinge loss, one row ``x`` with right class ``y`` at a time:

    ``Σ_{i ≠ y} w[y]·max(0, margin - x[y] + x[i])^p / C``

    -- every wrong class whose score comes within ``margin`` of the right one costs.
    Gradient of each active term ``h = margin - x[y] + x[i] > 0``: ``w[y]·p·h^(p-1) / C`` for
    ``x[i]``, the negative sum of these for ``x[y]``."""

    _backward_name = "MultiMarginLossBackward0"

    @staticmethod
    def _terms(x: Tensor, y: Tensor, margin: float) -> tuple[Tensor, Tensor]:
        """``margin - x[y] + x[i]`` per (row, class), and the one-hot mask of the right classes."""
        right = x.gather(1, y.reshape(-1, 1))
        is_right = (y.reshape(-1, 1) == _arange_like(x)).to(x.dtype)
        return margin - right + x, is_right

    @staticmethod
    def forward(ctx, x: Tensor, y: Tensor, p: int = 1, margin: float = 1.0, weight: Optional[Tensor] = None,
                reduction: str = "mean", shape: tuple = ()) -> Tensor:
        z, is_right = MultiMarginLoss._terms(x, y, margin)
        h = z.clamp(min=0) * (1 - is_right)
        loss = (h if p == 1 else h * h).sum(1) / x.shape[1]
        if weight is not None:
            loss = loss * weight[y.reshape(-1)]
        ctx.save_for_backward(x, y)
        ctx.options = (p, margin, weight, reduction, shape)
        return _reduce(loss.reshape(shape) if reduction == "none" else loss, reduction)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        p, margin, weight, reduction, _ = ctx.options
        z, is_right = MultiMarginLoss._terms(x, y, margin)
        active = (z > 0).to(x.dtype) * (1 - is_right)
        slope = active if p == 1 else 2 * z * active          # d/dz of max(0, z)^p
        g = _scale_grad(grad, reduction, x.shape[0]).reshape(-1, 1) / x.shape[1]
        if weight is not None:
            g = g * weight[y.reshape(-1)].reshape(-1, 1)
        slope = slope * g
        return slope - is_right * slope.sum(1, keepdim=True)


def _arange_like(x: Tensor) -> Tensor:
    """``[[0, 1, …, C-1]]``: the class numbers of an (N, C) input's columns."""
    return Tensor._make(x._backend.xp.arange(x.shape[1]).reshape(1, -1), x._device)


def multi_margin_loss(input: Tensor, target: Tensor, p: Number = 1, margin: float = 1.0,
                      weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                      reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss of scores ``input`` (N, C) against class indices ``target`` (N,)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(multi_margin_loss, input, target, p, margin, weight, size_average, reduce, reduction)
    reduction = _get_reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x, y = _as_matrix(input, target)
    check_kernel_dtype("multi_margin_loss_cpu_kernel", input)  # (floating-point scores, then a Long target)
    _check_long(target)
    n, c = x.shape
    if target.ndim > 1 or target.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size {_sizes((n,))}, but got "
                           f"{_sizes(tuple(target.shape))}. Input shape: {_sizes(tuple(input.shape))}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {_sizes(tuple(weight.shape))}")
    if weight is not None and weight.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True.")
    labels = np.asarray(y.tolist(), dtype=np.int64)
    if labels.size and (labels.min() < 0 or labels.max() >= c):
        raise RuntimeError("target out of range")
    shape = tuple(target.shape) if input.ndim < 2 else (n,)
    # the target as a keyword: it is no input of PyTorch's node, so no ``(None, 0)`` edge for it
    return MultiMarginLoss.apply(x, y=y.reshape(-1), p=p, margin=float(margin), weight=weight, reduction=reduction,
                                 shape=shape)


class MultilabelMarginLoss(Function):
    """Multi-label hinge loss.  Each row of ``target`` lists the right classes, ended by -1;
    every (right class j, wrong class i) pair costs ``max(0, 1 - (x[j] - x[i])) / C``:
    each right class should beat each wrong one by 1.

    The loss is piecewise linear, so its gradient is a constant pattern ``M`` per step
    (+1/C at a wrong class per active pair, -1/C at the right one) times the upstream
    gradient; differentiating again gives zero for ``x``, as in PyTorch."""

    _backward_name = "MultilabelMarginLossBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, labels: Tensor, valid: Tensor, is_target: Tensor, reduction: str = "mean",
                shape: tuple = ()) -> Tensor:
        right = x.gather(1, labels)                                        # x[j] per listed class (N, J)
        pair = (1 - right.unsqueeze(2) + x.unsqueeze(1)).clamp(min=0)     # (N, J, C): j against every i
        mask = valid.unsqueeze(2) * (1 - is_target).unsqueeze(1)           # listed j, wrong i
        active = (pair > 0).to(x.dtype) * mask
        c = x.shape[1]
        # d loss / d x: +1/C at each wrong class i of an active pair, -1/C at its right class j
        ctx.pattern = (active.sum(1) - x.new_zeros(x.shape).scatter_add(1, labels, active.sum(2))) / c
        ctx.options = (reduction, shape)
        loss = (pair * mask).sum((1, 2)) / c
        return _reduce(loss.reshape(shape) if reduction == "none" else loss, reduction)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        reduction, _ = ctx.options
        g = _scale_grad(grad, reduction, ctx.pattern.shape[0]).reshape(-1, 1)
        return ctx.pattern * g


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
                           reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss of scores ``input`` (N, C); ``target`` (N, C) holds the right
    classes of each row, then -1 and anything (ignored)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(multilabel_margin_loss, input, target, size_average, reduce, reduction)
    reduction = _get_reduction(reduction, size_average, reduce)
    if input.numel() == 0 and target.dtype is not dtypes.int64:  # no row: PyTorch's kernel reads no label,
        target = target.long()  # so it never asks the target's dtype (the sizes are still checked)
    x, t = _as_matrix(input, target)
    n, c = x.shape
    if input.ndim < 2 and (target.ndim > 1 or target.numel() != c):
        raise RuntimeError(f"inconsistent size {_sizes(tuple(target.shape))} for target")
    if input.ndim == 2 and tuple(target.shape) != (n, c):
        raise RuntimeError(f"inconsistent target size: {_sizes(tuple(target.shape))} for input of size: "
                           f"{_sizes(tuple(input.shape))}")
    labels = np.asarray(t.tolist(), dtype=np.int64).reshape(n, c)
    if labels.size and (labels.min() < -1 or labels.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    check_kernel_dtype("multilabel_margin_loss_forward_out_frame", input)  # (PyTorch's order: after the range)
    _check_long(target)
    valid = np.cumprod(labels != -1, axis=1).astype(bool)     # the listed classes: up to the first -1
    is_target = np.zeros((n, c), dtype=bool)
    rows = np.repeat(np.arange(n), c)[valid.ravel()]
    is_target[rows, labels[valid]] = True
    consts = [Tensor._make(x._backend.xp.asarray(a), x._device)
              for a in (np.where(valid, labels, 0), valid.astype(x._dtype._np), is_target.astype(x._dtype._np))]
    shape = () if input.ndim < 2 else (n,)
    labels, valid, is_target = consts  # keywords: the node's one input is x, as PyTorch's is
    return MultilabelMarginLoss.apply(x, labels=labels, valid=valid, is_target=is_target, reduction=reduction,
                                      shape=shape)
