"""Operations that rearrange or select elements, built from the basic differentiable ops.

``tril``/``triu`` (keep a triangle), ``diag``/``diagonal``/``trace``, ``roll``, ``tile``,
``repeat_interleave``, ``diff``, ``meshgrid``, ``cumprod``, ``einsum``, ``unique``,
``isin``, ``erf`` and ``logical_and``/``or``/``xor``.

Most are *compositions*: a diagonal's trace, a repeat_interleave, a diff are built from the basic
ops, so autograd needs nothing new -- the gradient flows through the parts -- which is the
point of having a small set of primitives.  The price: the ``grad_fn`` names are those of the
parts.  ``tril``/``triu`` and ``roll`` are the exceptions: a learner prints their results often
(a masked weight matrix, a shifted sequence), so they are single nodes with PyTorch's names
(``TrilBackward0``, ``TriuBackward0``, ``RollBackward0``); their backward is the same operation
on the gradient (the same triangle, the opposite roll).
``cumprod`` has its own backward; ``einsum`` is built, as in PyTorch, from permute, sum, mul
and bmm.  Each also becomes a ``Tensor``
method (``x.tril()``, ``x.roll(1)``), attached at the bottom of this file.
"""
from __future__ import annotations

import itertools
import math
from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import warn_always
from .. import autocast_state, dtypes
from ..arrays import to_numpy, transfer
from ..autograd.function import Function
from ..device import CPU
from ..tensor import Tensor, _wrap_dim
from ..tensor_arguments import require_tensor
from .autocast import float32_precision
from .common import check_kernel_dtype, infer_size, new_result, numpy_aliases, wrap_dim
from .formula import differentiable_backward
from .shape import cat, movedim, stack
from .indexing import index_select
from .special import erf_array

__all__ = ["tril", "triu", "diag", "diagonal", "trace", "roll", "tile", "repeat_interleave", "diff", "meshgrid",
           "cumprod", "einsum", "unique", "isin", "erf", "logical_and", "logical_or", "logical_xor"]


def _const(like: Tensor, array: Any) -> Tensor:
    return new_result(like._backend.asarray(np.asarray(array)), like)


def _triangle(input: Tensor, diagonal: int, lower: bool) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(f"{'tril' if lower else 'triu'}: input tensor must have at least 2 dimensions")
    rows, cols = input.shape[-2:]
    keep = np.tri(rows, cols, diagonal, dtype=bool) if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)
    return (Tril if lower else Triu).apply(input, keep=keep, diagonal=diagonal)


class Tril(Function):
    """Keep one triangle, zeros elsewhere.  ``where``, not a product with a 0/1 mask: 0·inf
    would be nan (a causal mask of -inf is the usual input).  Backward: the same triangle of
    the gradient (the zeroed elements did not reach the output)."""
    _backward_name = "TrilBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, keep: Any = None, diagonal: int = 0) -> Tensor:
        ctx.diagonal = diagonal
        xp = x._backend.xp
        mask = x._backend.asarray(keep)
        return new_result(xp.where(mask, x._data, xp.zeros_like(x._data)), x)  # zeros_like: x's device

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return tril(grad, ctx.diagonal)


class Triu(Tril):
    _backward_name = "TriuBackward0"

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return triu(grad, ctx.diagonal)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (on and below the ``diagonal``-th diagonal); the rest zero."""
    return _triangle(input, diagonal, True)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (on and above the ``diagonal``-th diagonal); the rest zero."""
    return _triangle(input, diagonal, False)


class Diagonal(Function):
    """The ``offset``-th diagonal of the matrices in ``dim1``, ``dim2``, as the last dimension.

    A view, as in PyTorch: ``A.diagonal().add_(lam)`` changes ``A``.  The diagonal of a matrix
    in memory is every ``(row stride + column stride)``-th element, so the view is the same
    memory read with that stride.  Backward: a zero matrix with the gradient on the diagonal."""

    _backward_name = "DiagonalBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.shape, ctx.args = tuple(x._data.shape), (offset, dim1, dim2)
        data = _diagonal_array(x, offset, dim1, dim2)
        return x._view_of(data) if data is not None else _diagonal_copy(x, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        g = Tensor._zeros(ctx.shape, grad._dtype, grad._device)
        diagonal(g, *ctx.args).copy_(grad)  # a write through the view: differentiable again
        return g, None, None, None


def _diagonal_array(x: Tensor, offset: int, dim1: int, dim2: int) -> Any:
    """The diagonal as a strided view of ``x``'s array (None on a backend without strides)."""
    a, be = x._data, x._backend
    if be.is_numpy:
        as_strided = np.lib.stride_tricks.as_strided
    elif be.name == "cupy":
        import cupy
        as_strided = cupy.lib.stride_tricks.as_strided
    else:
        return None
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    n = max(0, min(a.shape[dim1] - r0, a.shape[dim2] - c0))
    start = tuple(slice(min(r0, a.shape[i]), None) if i == dim1 else slice(min(c0, a.shape[i]), None)
                  if i == dim2 else slice(None) for i in range(a.ndim))
    rest = [i for i in range(a.ndim) if i not in (dim1, dim2)]
    shape = tuple(a.shape[i] for i in rest) + (n,)
    strides = tuple(a.strides[i] for i in rest) + (a.strides[dim1] + a.strides[dim2],)
    return as_strided(a[start], shape, strides)


def _diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal as a new tensor, gathered by indexing (on a backend whose arrays have no strides)."""
    x = movedim(input, (_wrap_dim(dim1, input.dim()), _wrap_dim(dim2, input.dim())), (-2, -1))
    rows, cols = x.shape[-2:]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    n = max(0, min(rows - r0, cols - c0))
    idx_r, idx_c = _const(input, np.arange(r0, r0 + n)), _const(input, np.arange(c0, c0 + n))
    return x[..., idx_r, idx_c]


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset``-th diagonal of the matrices in ``dim1``, ``dim2`` (as the last dimension), a view."""
    d1, d2 = _wrap_dim(dim1, input.dim()), _wrap_dim(dim2, input.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(input, offset, d1, d2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """1-D input: a square matrix with it on the ``diagonal``-th diagonal; 2-D input: that diagonal."""
    if input.dim() == 2:
        return globals()["diagonal"](input, diagonal)
    if input.dim() != 1:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.dim()}D")
    # PyTorch builds it with diag_embed (DiagEmbedBackward0); no product with a 0/1 mask, so an
    # inf on the diagonal leaves zeros, not nan, around it
    return input.diag_embed(diagonal)


class Trace(Function):
    """The sum of a matrix's main diagonal.  Backward: the gradient on the diagonal, 0 elsewhere."""

    _backward_name = "TraceBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        ctx.shape = tuple(x._data.shape)
        xp = x._backend.xp
        return new_result(xp.sum(xp.diagonal(x._data)), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        g = Tensor._zeros(ctx.shape, grad._dtype, grad._device)
        g.diagonal().copy_(grad.expand(min(ctx.shape)))  # a write through a view: differentiable again
        return g


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(trace, input)
    if input.dim() != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim " + str(input.dim()))
    check_kernel_dtype("trace", input, ints=True)
    return Trace.apply(input)


def roll(input: Tensor, shifts: Union[int, Sequence[int]], dims: Union[int, Sequence[int], None] = None) -> Tensor:
    """Shift elements along ``dims`` by ``shifts``, wrapping around (no dims: the flattened tensor)."""
    if dims is None:  # the flattened tensor rolled, in one node as well
        shift = shifts if isinstance(shifts, int) else tuple(shifts)
        if not isinstance(shift, int) and len(shift) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift)}, dims:0")
        return Roll.apply(input, shifts=shift if isinstance(shift, int) else shift[0], dims=None)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(_wrap_dim(d, input.dim()) for d in dims)
    return Roll.apply(input, shifts=shifts, dims=dims)


class Roll(Function):
    """One node for the whole roll, as PyTorch's ``RollBackward0``; backward rolls the gradient back."""
    _backward_name = "RollBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, shifts: tuple = (), dims: tuple = ()) -> Tensor:
        ctx.shifts, ctx.dims = shifts, dims
        return new_result(x._backend.xp.roll(x._data, shifts, axis=dims), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        if ctx.dims is None:
            return roll(grad, -ctx.shifts)
        return roll(grad, tuple(-s for s in ctx.shifts), ctx.dims)


def tile(input: Tensor, dims: Sequence[int]) -> Tensor:
    """``repeat`` with missing leading counts taken as 1 (NumPy's ``tile``)."""
    dims = tuple(dims)
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + dims
    return input.repeat(*dims)


@numpy_aliases
def _check_counts(counts: Tensor) -> None:
    """Counts are integers: PyTorch's kernel is not written for floats or bools."""
    if counts.dtype.is_floating_point or counts.dtype is dtypes.bool:
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{dtypes.type_name(counts.dtype)}'")


def repeat_interleave(input: Tensor, repeats: Union[int, Tensor, None] = None, dim: Optional[int] = None, *,
                      output_size: Optional[int] = None) -> Tensor:
    """Repeat each element ``repeats`` times in place (``[1, 2]`` → ``[1, 1, 2, 2]``).  With no
    ``repeats``, ``input`` holds the counts and index ``i`` is repeated ``input[i]`` times.
    ``output_size`` is the result's length along ``dim``, told in advance (PyTorch uses it to skip a
    device synchronisation); it must be right."""
    out = _repeat_interleave(input, repeats, dim)
    if output_size is not None:
        length = out.shape[dim if dim is not None else 0]
        if output_size != length:
            raise RuntimeError("allocated size does not match required size")
    return out


def _repeat_interleave(input: Tensor, repeats: Union[int, Tensor, None], dim: Optional[int]) -> Tensor:
    if repeats is None:
        _check_counts(input)
        if input.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        counts = np.asarray(input.tolist(), dtype=np.int64).reshape(-1)
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        return _const(input, np.repeat(np.arange(counts.size), counts).astype(np.int64))
    if isinstance(repeats, (list, tuple)):  # PyTorch takes an int or a tensor, not a list
        raise TypeError(f"repeat_interleave() received an invalid combination of arguments - got "
                        f"({type(repeats).__name__}, {type(dim).__name__}), but expected one of:\n"
                        " * (Tensor repeats, int dim = None, *, int output_size = None)\n"
                        " * (int repeats, int dim = None, *, int output_size = None)\n")
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        _check_counts(repeats)
    if dim is None:
        input, dim = input.flatten(), 0
    dim = _wrap_dim(dim, input.dim())
    counts = repeats.tolist() if isinstance(repeats, Tensor) else repeats
    if isinstance(counts, list):  # PyTorch's checks (NumPy's np.repeat would raise ValueError)
        if len(counts) not in (1, input.shape[dim]):
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{len(counts)} and input.size({dim}) = {input.shape[dim]}")
        if any(c < 0 for c in counts):
            raise RuntimeError("repeats can not be negative")
    elif counts < 0:
        raise RuntimeError("Repeats must be non-negative")
    elif not isinstance(repeats, Tensor):  # one count for all: PyTorch's unsqueeze → expand → clone → view
        shape = list(input.shape)
        spread = input.unsqueeze(dim + 1).expand(*shape[:dim + 1], counts, *shape[dim + 1:]).clone()
        return spread.view(*shape[:dim], shape[dim] * counts, *shape[dim + 1:])
    index = np.repeat(np.arange(input.shape[dim]), counts)
    return index_select(input, dim, _const(input, index.astype(np.int64)))


@numpy_aliases
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Optional[Tensor] = None,
         append: Optional[Tensor] = None) -> Tensor:
    """Differences of neighbours along ``dim``, ``n`` times (``x[1:] - x[:-1]``; for bools ``!=``).

    ``prepend``/``append`` are joined to ``input`` along ``dim`` first (``diff(x, prepend=zeros(1))``
    keeps the length); once nothing is left to subtract the result is simply empty."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    out = input
    if prepend is not None or append is not None:
        out = cat([t for t in (prepend, input, append) if t is not None], dim)
    for _ in range(n):
        if out.shape[dim] == 0:
            break
        length = out.shape[dim] - 1
        out = out.narrow(dim, 1, length) - out.narrow(dim, 0, length) if out.dtype is not dtypes.bool else \
            out.narrow(dim, 1, length) ^ out.narrow(dim, 0, length)
    return out


_MESHGRID_WARNED = []  # PyTorch asks for ``indexing=`` once per process


def meshgrid(*tensors: Tensor, indexing: Optional[str] = None) -> tuple:
    """Coordinate grids from 1-D tensors (``indexing='xy'`` swaps the first two, as NumPy).
    Without ``indexing`` it is ``'ij'``, with PyTorch's warning that it will become required."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        if not _MESHGRID_WARNED:
            _MESHGRID_WARNED.append(True)
            warn_always.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                             "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a "
                               f"{t.ndim}-D tensor of shape {list(t.shape)}")
    ts = list(tensors)
    if indexing == "xy" and len(ts) >= 2:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.reshape(*view).expand(*shape))
    if indexing == "xy" and len(ts) >= 2:  # the grids were built for (y, x, ...): give them back in input order
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


class Cumprod(Function):
    """Running product ``y_j = x_0 · x_1 ⋯ x_j`` along ``dim``.

    Its derivative is ``∂y_j/∂x_i = Π_{k≤j, k≠i} x_k`` for ``j ≥ i``, so the gradient is
    ``dx_i = Σ_{j≥i} g_j · Π_{k≤j, k≠i} x_k``.  Without zeros that product is ``y_j / x_i``
    and the whole gradient is one reversed cumulative sum, divided by ``x``.  A zero makes
    the division 0/0, so inputs with zeros take a slower road (see :func:`_cumprod_backward`).
    The backward is built from tensor operations under ``create_graph=True``, so that
    cumprod can be differentiated twice (``gradgradcheck``), as in PyTorch."""

    _backward_name = "CumprodBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int = 0) -> Tensor:
        # (a 0-d tensor is its own running product: NumPy would make it a vector of one)
        out = new_result(np.cumprod(x._data, axis=dim) if x.ndim else x._backend.xp.asarray(x._data, copy=True), x)
        ctx.dim = dim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        x, y = ctx.saved_tensors
        if not x.ndim:  # y = x: the gradient passes as it is
            return grad
        return _cumprod_backward(grad, x, y, ctx.dim)


def _cumprod_backward(grad: Tensor, x: Tensor, y: Tensor, dim: int) -> Tensor:
    """The gradient of ``y = cumprod(x, dim)``, given the incoming ``grad``.

    Three roads, all giving the same numbers up to rounding:

    * no zero in ``x``: ``reversed_cumsum(g·y) / x`` -- O(n), as tensors or arrays;
    * zeros, plain backward: :func:`_cumprod_backward_with_zeros` on the arrays -- O(n);
    * zeros under ``create_graph``: one cumprod per position ``i`` of ``x`` with ``x_i``
      replaced by 1 -- O(n²), but every step is a differentiable operation, so the result's
      own derivative is right too (the O(n) trick is not differentiable where x is 0)."""
    if x.dim() == 0 or x.shape[dim] <= 1:  # y = x: the gradient passes through
        return grad
    has_zero = bool((x._data == 0).any())
    if differentiable_backward():
        if not has_zero:
            return (grad * y).flip(dim).cumsum(dim).flip(dim) / x
        return _cumprod_backward_one_position_at_a_time(grad, x, dim)
    g, a, out = grad._data, x._data, y._data
    if not has_zero:
        with np.errstate(all="ignore"):
            reversed_cumsum = np.flip(np.cumsum(np.flip(g * out, dim), axis=dim), dim)  # (CuPy's, on a GPU)
            return new_result(grad._backend.xp.ascontiguousarray(reversed_cumsum / a), grad)
    host = _cumprod_backward_with_zeros(to_numpy(g), to_numpy(a), dim)  # a loop: on the host
    return new_result(transfer(host, CPU, grad._device), grad)


def _cumprod_backward_with_zeros(g: np.ndarray, x: np.ndarray, dim: int) -> np.ndarray:
    """The O(n) gradient for an input with zeros, on arrays.

    Along the dimension, let ``z`` be the first zero.  Before it (``i < z``) no product
    involved contains a zero at ``i``, so ``reversed_cumsum(g·y)/x`` is right, restricted to
    ``j < z`` (every ``y_j`` from ``z`` on is 0).  At ``i = z``: ``dx_z = Σ_{j≥z} g_j · P_j``
    with ``P_j`` the product of ``x_0..x_j`` skipping ``x_z`` -- zero from the second zero on.
    After ``z`` every product still contains ``x_z = 0``: the gradient is 0."""
    x = np.moveaxis(x, dim, -1)
    g = np.moveaxis(g, dim, -1)
    zeros_so_far = np.cumsum(x == 0, axis=-1)
    before_first_zero = zeros_so_far == 0
    first_zero = (x == 0) & (zeros_so_far == 1)
    # i < z: x_i ≠ 0 there, so dividing is safe; the terms j ≥ z are 0 (y_j = 0) and masked out
    x_before = np.where(before_first_zero, x, 1)
    w = np.where(before_first_zero, g * np.cumprod(x_before, axis=-1), 0)
    before = np.flip(np.cumsum(np.flip(w, -1), axis=-1), -1) / x_before
    # i = z: the products with x_z replaced by 1, up to (not including) the second zero
    skipping_z = np.where(first_zero, 1, x)
    at_z = (g * np.cumprod(skipping_z, axis=-1) * (zeros_so_far == 1)).sum(-1, keepdims=True)
    out = np.where(before_first_zero, before, np.where(first_zero, at_z, 0)).astype(g.dtype, copy=False)
    return np.ascontiguousarray(np.moveaxis(out, -1, dim))


def _cumprod_backward_one_position_at_a_time(grad: Tensor, x: Tensor, dim: int) -> Tensor:
    """``dx_i = Σ_{j≥i} g_j · cumprod(x with x_i := 1)_j``, one ``i`` at a time, with tensor
    operations only (for ``create_graph=True``).  Each ``dx_i`` is copied into its slice of a
    zero tensor, so the result's node is ``CopySlices``, as in PyTorch."""
    n = x.shape[dim]
    positions = np.arange(n).reshape([n if d == dim else 1 for d in range(x.dim())])
    out = grad.new_zeros(tuple(np.broadcast_shapes(tuple(grad.shape), tuple(x.shape))))
    for i in range(n):
        is_i = _const(x, positions == i)
        products = x.masked_fill(is_i, 1).cumprod(dim)  # Π_{k≤j, k≠i} x_k for every j ≥ i
        dx_i = (grad.narrow(dim, i, n - i) * products.narrow(dim, i, n - i)).sum(dim)
        out.select(dim, i).copy_(dx_i)
    return out


@numpy_aliases
def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running product along ``dim`` (integers become int64, as in PyTorch)."""
    if dtype is not None:
        input = input.to(dtype)
    elif not input.dtype.is_floating_point:
        input = input.long()
    return Cumprod.apply(input, dim=wrap_dim(dim, input.dim()))


# ---------------------------------------------------------------------------- einsum
# As PyTorch does, einsum is not one kernel: it is built from diagonal, permute, sum, mul and bmm
# (one bmm per pair of operands that share a summed letter), ending in a view that drops the
# summed dimensions.  So autograd needs nothing new, and the result's grad_fn is PyTorch's:
# ViewBackward0 after a contraction, MulBackward0 for a pure product, SumBackward1 or
# PermuteBackward0 for one operand.
_ELLIPSIS = "..."


def _einsum_subscripts(text: str, offset: int, owner: str) -> list[str]:
    """The subscripts of one operand (or of the output, ``owner == "output"``): letters, and at most
    one ``'...'``.  ``offset`` is where ``text`` starts in the equation, for PyTorch's error index."""
    labels: list[str] = []
    dots = 0
    for i, c in enumerate(text):
        if c == " ":
            continue
        if c == ".":
            if _ELLIPSIS in labels:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found"
                                   if owner == "output" else
                                   f"einsum(): found '.' for {owner} for which an ellipsis was already found")
            dots += 1
            if dots == 3:
                labels.append(_ELLIPSIS)
                dots = 0
            continue
        if dots:
            break
        if not ("a" <= c <= "z" or "A" <= c <= "Z"):
            raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in the equation string, "
                               "subscripts must be in [a-zA-Z]")
        labels.append(c)
    if dots:
        raise RuntimeError(f"einsum(): found '.' for {owner} that is not part of any ellipsis"
                           + (" (...)" if owner == "output" else ""))
    return labels


def _einsum_labels(equation: str, operands: Sequence[Tensor]) -> tuple[list[list[Any]], list[Any]]:
    """Each operand's label for each of its dimensions, and the output's labels.

    A letter is its own label; the dimensions under ``'...'`` become the integers 0..E-1, aligned
    to the right (E is the most any operand's ellipsis covers), so that they broadcast like NumPy's
    trailing dimensions and land in the output where its ``'...'`` is (first, in implicit mode)."""
    lhs, arrow, rhs = equation.partition("->")
    parts, start = [], 0
    for k, text in enumerate(lhs.split(",")):
        parts.append(_einsum_subscripts(text, start, f"operand {k}"))
        start += len(text) + 1
    if len(operands) != len(parts):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation"
                           if len(operands) > len(parts) else
                           "einsum(): fewer operands were provided than specified in the equation")
    spans = []
    for k, (labels, op) in enumerate(zip(parts, operands)):
        letters = len(labels) - (_ELLIPSIS in labels)
        if _ELLIPSIS not in labels and letters != op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({letters}) does not match the "
                               f"number of dimensions ({op.dim()}) for operand {k} and no ellipsis was given")
        if letters > op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({letters}) is more than the "
                               f"number of dimensions ({op.dim()}) for operand {k}")
        spans.append(op.dim() - letters)
    covered = max(spans)
    inputs = []
    for labels, span in zip(parts, spans):
        expanded: list[Any] = []
        for label in labels:
            expanded.extend(range(covered - span, covered) if label == _ELLIPSIS else [label])
        inputs.append(expanded)
    letters_seen = [label for labels in inputs for label in labels if isinstance(label, str)]
    if not arrow:  # implicit output: the ellipsis, then the letters used once, in alphabetical order
        return inputs, list(range(covered)) + sorted(c for c in set(letters_seen) if letters_seen.count(c) == 1)
    output: list[Any] = []
    for label in _einsum_subscripts(rhs, len(lhs) + 2, "output"):
        if label == _ELLIPSIS:
            output.extend(range(covered))
            continue
        if label not in letters_seen:
            raise RuntimeError(f"einsum(): output subscript {label} does not appear in the equation for any input "
                               "operand")
        if label in output:
            raise RuntimeError(f"einsum(): output subscript {label} appears more than once in the output")
        output.append(label)
    return inputs, output


def _check_einsum_sizes(inputs: list[list[Any]], operands: Sequence[Tensor]) -> None:
    """Each label's size, checking PyTorch's rules: a letter repeated within one operand has one size;
    across operands the sizes are equal or 1 (size 1 broadcasts)."""
    sizes: dict = {}
    for k, (labels, op) in enumerate(zip(inputs, operands)):
        own: dict = {}
        for label, size in zip(labels, op.shape):
            if label in own and own[label] != size:
                raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {k} but the sizes don't "
                                   f"match, {size} != {own[label]}")
            own[label] = size
        for d, (label, size) in enumerate(zip(labels, op.shape)):
            seen = sizes.get(label, 1)
            if size != 1 and seen != 1 and size != seen:
                if isinstance(label, str):
                    raise RuntimeError(f"einsum(): subscript {label} has size {size} for operand {k} which does not "
                                       f"broadcast with previously seen size {seen}")
                raise RuntimeError(f"einsum(): dimension {d} covered by ellipsis in operand {k}has size {size} which "
                                   f"does not broadcast with previously seen ellipsis with size {seen} for the "
                                   "respective dimension")
            if size != 1 or label not in sizes:
                sizes[label] = size


def _einsum_diagonal(x: Tensor, labels: list[Any]) -> tuple[Tensor, list[Any]]:
    """A letter repeated within one operand (``'ii'``) reads the diagonal: the two dimensions become
    one, moved to the end (as ``diagonal`` does)."""
    labels = list(labels)
    while len(set(labels)) != len(labels):
        first = next(i for i, label in enumerate(labels) if labels.count(label) > 1)
        second = labels.index(labels[first], first + 1)
        x = x.diagonal(0, first, second)
        labels = [label for i, label in enumerate(labels) if i not in (first, second)] + [labels[first]]
    return x, labels


def _sumproduct_pair(a: Tensor, b: Tensor, summed: list[int]) -> Tensor:
    """``(a * b).sum(summed, keepdim=True)`` as one bmm, for two tensors of the same rank.

    Dimensions are grouped as batch (both sizes not 1), left-only, right-only and summed; ``a``
    becomes (batch, left, summed), ``b`` (batch, summed, right); the bmm's result is viewed back
    into the groups and permuted to the original dimension order."""
    rank = a.dim()
    kept = [d for d in range(rank) if d not in summed]
    batch = [d for d in kept if a.shape[d] != 1 and b.shape[d] != 1]
    left = [d for d in kept if a.shape[d] != 1 and b.shape[d] == 1]
    right = [d for d in kept if a.shape[d] == 1 and b.shape[d] != 1]
    ones = [d for d in kept if a.shape[d] == 1 and b.shape[d] == 1]
    if left and right and max(right) < max(left):  # b's dimensions end first: bmm(b, a) lays them out in order
        return _sumproduct_pair(b, a, summed)

    def size(t: Tensor, dims: list[int]) -> int:
        return math.prod(t.shape[d] for d in dims)

    # (a is 1 long on the right-only dimensions and b on the left-only ones: they go with the ones)
    lhs = a.permute(*batch, *left, *summed, *right, *ones).reshape(size(a, batch), size(a, left), size(a, summed))
    rhs = b.permute(*batch, *summed, *right, *left, *ones).reshape(size(b, batch), size(b, summed), size(b, right))
    product = lhs.bmm(rhs).view(*[a.shape[d] for d in batch + left], *[b.shape[d] for d in right],
                                *[1] * (len(summed) + len(ones)))
    order = batch + left + right + summed + ones
    return product.permute(*[order.index(d) for d in range(rank)])


def _einsum_from_sublists(args: tuple) -> tuple[str, tuple]:
    """``einsum(op0, sub0, op1, sub1, ..., [out])`` as an equation and its operands: each sublist
    is a list of ints in ``[0, 52)`` (read as the letters a-z, A-Z) and ``...`` (Ellipsis), so
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` is ``einsum("ab,bc->ac", a, b)``."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def text(sublist: Any) -> str:
        if isinstance(sublist, Tensor):  # (``einsum(a, b)``: the equation is missing)
            # PyTorch's own code compares the tensor's rows with numbers: ambiguous for a matrix's rows
            error = RuntimeError if sublist.ndim > 1 else TypeError
            raise error("einsum(): got a Tensor where a subscripts list was expected; the equation string "
                        "comes first: einsum('ij,jk->ik', a, b)")
        out = []
        for item in sublist:
            if item is Ellipsis:
                out.append("...")
            elif isinstance(item, int) and 0 <= item < len(letters):
                out.append(letters[item])
            else:
                raise ValueError("einsum(): expected subscript to be within the range [0, 52), but got "
                                 f"{item}" if isinstance(item, int) else
                                 "einsum(): expected subscripts list to contain integers or Ellipsis")
        return "".join(out)

    operands = args[0::2][:len(args) // 2]
    subscripts = [text(sub) for sub in args[1::2][:len(args) // 2]]
    equation = ",".join(subscripts)
    if len(args) % 2:  # a trailing sublist: the output's
        equation += "->" + text(args[-1])
    return equation, tuple(operands)


def einsum(equation: str, *operands: Any) -> Tensor:
    """``einsum("ij,jk->ik", a, b)``: multiply the operands, summing the letters absent from the output.

    ``'...'`` stands for the dimensions no letter names (they broadcast); a letter repeated in one
    operand takes a diagonal.  Built from differentiable operations, as in PyTorch (see above)."""
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if not isinstance(equation, str):  # the sublist form: einsum(a, [0, 1], b, [1, 2], [0, 2])
        equation, operands = _einsum_from_sublists((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, operand in enumerate(operands):
        if not isinstance(operand, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(operand).__name__}")
    inputs, output = _einsum_labels(equation, operands)
    _check_einsum_sizes(inputs, operands)
    if len(operands) == 1:
        x, labels = _einsum_diagonal(operands[0], inputs[0])
        summed = [label for label in labels if label not in output]
        x = x.permute(*[labels.index(label) for label in output + summed])
        return x.sum(list(range(len(output), len(labels)))) if summed else x

    # every operand is laid out on one common order of labels (the output's, then the summed ones),
    # with a size-1 dimension for each label it lacks
    summed_labels = list(dict.fromkeys(label for labels in inputs for label in labels if label not in output))
    order = output + summed_labels
    last_use = {label: k for k, labels in enumerate(inputs) for label in labels}
    aligned = []
    for k, (op, labels) in enumerate(zip(operands, inputs)):
        x, labels = _einsum_diagonal(op, labels)
        alone = [d for d, label in enumerate(labels) if label not in output
                 and all(label not in other for j, other in enumerate(inputs) if j != k)]
        if alone:  # a letter only this operand has is summed at once
            x = x.sum(alone)
            labels = [label for d, label in enumerate(labels) if d not in alone]
        x = x.permute(*sorted(range(len(labels)), key=lambda d: order.index(labels[d])))
        for d, label in enumerate(order):
            if label not in labels:
                x = x.unsqueeze(d)
        aligned.append(x)

    result = aligned[0]
    for k in range(1, len(aligned)):
        b = aligned[k]
        both, only_a, only_b = [], [], []
        for d in range(len(output), len(order)):  # a summed label whose last operand is this one
            if last_use[order[d]] != k:
                continue
            big_a, big_b = result.shape[d] != 1, b.shape[d] != 1
            (both if big_a and big_b else only_a if big_a else only_b if big_b else []).append(d)
        if only_a:
            result = result.sum(only_a, keepdim=True)
        if only_b:
            b = b.sum(only_b, keepdim=True)
        result = _sumproduct_pair(result, b, both) if both else result * b
    if len(order) > len(output):  # the summed dimensions are size 1 now: drop them
        result = result.view(*result.shape[:len(output)])
    return result


# ---------------------------------------------------------------------------- sets, erf, logic
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: Optional[int] = None) -> Any:
    """The distinct values (sorted), optionally with where each element went and how often each occurs."""
    data = np.asarray(input.detach().cpu().numpy())
    values, inverse, counts = np.unique(data if dim is not None else data.reshape(-1), return_inverse=True,
                                        return_counts=True, axis=dim)
    out = [new_result(input._backend.asarray(values), input)]
    if return_inverse:
        shape = data.shape if dim is None else (data.shape[dim],)
        out.append(_const(input, inverse.reshape(shape).astype(np.int64)))
    if return_counts:
        out.append(_const(input, counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """A bool tensor: is each of ``elements`` among ``test_elements``?"""
    if any(isinstance(t, Tensor) and t.dtype is dtypes.bool for t in (elements, test_elements)):
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    like = elements if isinstance(elements, Tensor) else test_elements
    a = elements.detach().cpu().numpy() if isinstance(elements, Tensor) else np.asarray(elements)
    b = test_elements.detach().cpu().numpy() if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return _const(like, np.isin(a, b, invert=invert))


class Erf(Function):
    """The error function; d erf(x)/dx = 2/√π · e^(-x²)."""

    _backward_name = "ErfBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return new_result(erf_array(x._backend.xp, x._data), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad * ((-x * x).exp() * (2.0 / math.sqrt(math.pi)))


def erf(input: Tensor) -> Tensor:
    if not input.dtype.is_floating_point:
        input = input.to(dtypes.get_default_dtype())
    return Erf.apply(input)


def _logical(name: str) -> Any:
    def fn(input: Tensor, other: Tensor) -> Tensor:
        require_tensor(name, "input", input)
        require_tensor(name, "other", other, 2)  # (a number too is PyTorch's TypeError here)
        a = input.detach().cpu().numpy() != 0
        b = other.detach().cpu().numpy() != 0
        return _const(input, getattr(np, name)(a, b))
    fn.__name__ = name
    fn.__doc__ = f"Element-wise ``{name}`` of the truth values (non-zero is True); a bool tensor."
    return fn


logical_and, logical_or, logical_xor = _logical("logical_and"), _logical("logical_or"), _logical("logical_xor")



# ---------------------------------------------------------------------------- small shape helpers
def broadcast_tensors(*tensors: Tensor) -> tuple:
    """Every tensor expanded (as a view) to the common broadcast shape."""
    shape: tuple = ()
    for t in tensors:
        shape = infer_size(shape, tuple(t.shape))
    return tuple(t.expand(*shape) for t in tensors)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """1-D tensors become columns, 2-D ones are joined side by side."""
    if isinstance(tensors, Tensor):  # (iterating would take its rows for the tensors)
        raise TypeError("column_stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    return cat([t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors], 1)


def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def moveaxis(input: Tensor, source: Union[int, Sequence[int]], destination: Union[int, Sequence[int]]) -> Tensor:
    """NumPy's name for ``movedim``."""
    return input.movedim(source, destination)


__all__ += ["broadcast_tensors", "column_stack", "fliplr", "flipud", "moveaxis"]


# ----------------------------------------------------------------------------- products of sets
def _check_vector(t: Tensor) -> None:
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape [{', '.join(map(str, t.shape))}]")


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every tuple ``(a[i], b[j], ...)`` of the 1-D inputs, as the rows of a matrix (like
    ``itertools.product``); one input is returned as it is."""
    for t in tensors:
        _check_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The ``r``-element combinations of a 1-D tensor's entries, as rows (like
    ``itertools.combinations``, or ``combinations_with_replacement``), in the same order."""
    _check_vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty((0,))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    columns = [index_select(input, 0, _const(input, rows[:, k])) for k in range(r)]
    return stack(columns, 1)


def block_diag(*tensors: Tensor) -> Tensor:
    """The inputs placed along the diagonal of one matrix, zeros elsewhere (``torch.block_diag``).

    A 0-d input counts as 1×1 and a 1-d one as a single row; the result has the inputs' common
    dtype.  Built from ``cat`` of zero-padded rows, so gradients flow back to every block."""
    blocks = []
    for k, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {k} has "
                               f"{t.dim()} dimensions")
        blocks.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not blocks:
        return Tensor._zeros((1, 0), dtypes.get_default_dtype(), CPU)
    dt = blocks[0].dtype
    for b in blocks[1:]:
        dt = dtypes.promote_types(dt, b.dtype)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        b = b.to(dt)
        rows.append(cat([b.new_zeros(r, left), b, b.new_zeros(r, width - left - c)], 1))
        left += c
    return cat(rows, 0)


def _triangle_indices(row: int, col: int, offset: int, lower: bool, dtype: Any, device: Any) -> Tensor:
    rows, cols = np.nonzero(np.tri(row, col, offset, dtype=bool) if lower else ~np.tri(row, col, offset - 1, dtype=bool))
    dt = dtypes.int64 if dtype is None else dtypes.from_argument(dtype)
    out = Tensor._make(np.stack([rows, cols]).reshape(2, -1).astype(dt._np), CPU)
    return out if device is None else out.to(device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The coordinates (a 2×N tensor: rows, then columns) of the lower triangle of a ``row × col``
    matrix, row by row; ``offset`` moves the diagonal up (>0) or down (<0), as in ``tril``."""
    return _triangle_indices(row, col, offset, True, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The coordinates of the upper triangle of a ``row × col`` matrix (see :func:`tril_indices`)."""
    return _triangle_indices(row, col, offset, False, dtype, device)


__all__ += ["cartesian_prod", "combinations", "block_diag", "tril_indices", "triu_indices"]
