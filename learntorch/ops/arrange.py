"""Operations that rearrange or select elements, built from the basic differentiable ops.

``tril``/``triu`` (keep a triangle), ``diag``/``diagonal``/``trace``, ``roll``, ``tile``,
``repeat_interleave``, ``diff``, ``meshgrid``, ``cumprod``, ``einsum``, ``unique``,
``isin``, ``erf`` and ``logical_and``/``or``/``xor``.

Most are *compositions*: a triangle is the tensor with the other side filled with 0, a roll is two
slices joined by ``cat``.  Autograd then needs nothing new -- the gradient flows
through the multiply, the slices, the ``cat`` -- which is the point of having a
small set of primitives.  The price: the ``grad_fn`` names are those of the parts
(``MaskedFillBackward0``, ``CatBackward0``), not PyTorch's fused names (``TrilBackward0``...).
``einsum`` and ``cumprod`` have their own backward.  Each also becomes a ``Tensor``
method (``x.tril()``, ``x.roll(1)``), attached at the bottom of this file.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import dtypes
from ..autograd.function import Function
from ..tensor import Tensor, _wrap_dim
from .formula import differentiable_backward
from .common import infer_size, new_result, numpy_aliases
from .shape import cat, movedim
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
    if input.dtype is dtypes.bool:
        return input & _const(input, keep)
    # masked_fill, not a product with the 0/1 mask: 0·inf would be nan (a causal mask of -inf is the usual case)
    return input.masked_fill(_const(input, ~keep), 0)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (on and below the ``diagonal``-th diagonal); the rest zero."""
    return _triangle(input, diagonal, True)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (on and above the ``diagonal``-th diagonal); the rest zero."""
    return _triangle(input, diagonal, False)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset``-th diagonal of the matrices in ``dim1``, ``dim2`` (as the last dimension)."""
    x = movedim(input, (_wrap_dim(dim1, input.dim()), _wrap_dim(dim2, input.dim())), (-2, -1))
    rows, cols = x.shape[-2:]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    n = max(0, min(rows - r0, cols - c0))
    idx_r, idx_c = _const(input, np.arange(r0, r0 + n)), _const(input, np.arange(c0, c0 + n))
    return x[..., idx_r, idx_c]


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """1-D input: a square matrix with it on the ``diagonal``-th diagonal; 2-D input: that diagonal."""
    if input.dim() == 2:
        return globals()["diagonal"](input, diagonal)
    if input.dim() != 1:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.dim()}D")
    n = input.shape[0] + abs(diagonal)
    rows, cols = np.nonzero(np.eye(n, k=diagonal, dtype=bool))
    place = np.zeros((input.shape[0], n * n), dtype=bool)  # place[i] puts element i on its diagonal spot
    place[np.arange(input.shape[0]), rows * n + cols] = True
    return (input.unsqueeze(-1) * _const(input, place).to(input.dtype)).sum(0).reshape(n, n)


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix."""
    if input.dim() != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim " + str(input.dim()))
    return diagonal(input).sum()


def roll(input: Tensor, shifts: Union[int, Sequence[int]], dims: Union[int, Sequence[int], None] = None) -> Tensor:
    """Shift elements along ``dims`` by ``shifts``, wrapping around (no dims: the flattened tensor)."""
    if dims is None:
        return roll(input.flatten(), shifts, 0).view(*input.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    out = input
    for s, d in zip(shifts, dims):
        n = out.shape[d]
        s = s % n if n else 0
        if s:
            out = cat([out.narrow(d, n - s, s), out.narrow(d, 0, n - s)], d)
    return out


def tile(input: Tensor, dims: Sequence[int]) -> Tensor:
    """``repeat`` with missing leading counts taken as 1 (NumPy's ``tile``)."""
    dims = tuple(dims)
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + dims
    return input.repeat(*dims)


@numpy_aliases
def repeat_interleave(input: Tensor, repeats: Union[int, Tensor], dim: Optional[int] = None) -> Tensor:
    """Repeat each element ``repeats`` times in place (``[1, 2]`` → ``[1, 1, 2, 2]``)."""
    if dim is None:
        input, dim = input.flatten(), 0
    dim = _wrap_dim(dim, input.dim())
    counts = repeats.tolist() if isinstance(repeats, Tensor) else repeats
    index = np.repeat(np.arange(input.shape[dim]), counts)
    return index_select(input, dim, _const(input, index.astype(np.int64)))


@numpy_aliases
def diff(input: Tensor, n: int = 1, dim: int = -1) -> Tensor:
    """Differences of neighbours along ``dim``, ``n`` times."""
    out = input
    for _ in range(n):
        length = out.shape[dim] - 1
        out = out.narrow(dim, 1, length) - out.narrow(dim, 0, length) if out.dtype is not dtypes.bool else \
            out.narrow(dim, 1, length) ^ out.narrow(dim, 0, length)
    return out


_MESHGRID_WARNED = []  # PyTorch asks for ``indexing=`` once per process


def meshgrid(*tensors: Any, indexing: Optional[str] = None) -> tuple:
    """Coordinate grids from 1-D tensors (``indexing='xy'`` swaps the first two, as NumPy).
    Without ``indexing`` it is ``'ij'``, with PyTorch's warning that it will become required."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        if not _MESHGRID_WARNED:
            _MESHGRID_WARNED.append(True)
            warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                          "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
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
    """Running product; backward ``Σ_{j≥i} g_j · y_j / x_i``, computed without dividing (zeros are fine)."""

    _backward_name = "CumprodBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int = 0) -> Tensor:
        ctx.dim, ctx.x = dim, x._data
        return new_result(np.cumprod(x._data, axis=dim), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        x = np.moveaxis(np.asarray(ctx.x), ctx.dim, -1)
        g = np.moveaxis(np.asarray(grad._data), ctx.dim, -1)
        n = x.shape[-1]
        out = np.zeros_like(g)
        for i in range(n):  # d y_j / d x_i = prod_{k<=j, k!=i} x_k for j >= i
            others = x.copy()
            others[..., i] = 1
            prods = np.cumprod(others, axis=-1)
            out[..., i] = (g[..., i:] * prods[..., i:]).sum(-1)
        return new_result(np.ascontiguousarray(np.moveaxis(out, -1, ctx.dim)), grad)


@numpy_aliases
def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running product along ``dim`` (integers become int64, as in PyTorch)."""
    if dtype is not None:
        input = input.to(dtype)
    elif not input.dtype.is_floating_point:
        input = input.long()
    return Cumprod.apply(input, dim=_wrap_dim(dim, input.dim()))


# ---------------------------------------------------------------------------- einsum
def _parse_einsum(equation: str, n: int) -> tuple[list[str], str]:
    equation = equation.replace(" ", "")
    if "." in equation:
        raise NotImplementedError("learntorch's einsum does not support '...' (ellipsis); name every dimension")
    lhs, _, rhs = equation.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != n:
        raise RuntimeError(f"einsum(): more operands were provided than specified in the equation"
                           if n > len(inputs) else "einsum(): fewer operands were provided than specified in the "
                           "equation")
    if "->" not in equation:  # implicit output: the letters used once, alphabetically
        letters = "".join(inputs)
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return inputs, rhs


class Einsum(Function):
    """Einstein summation.  The gradient for operand k is itself an einsum: the output
    gradient contracted with all the other operands, into operand k's letters."""

    _backward_name = "EinsumBackward"

    @staticmethod
    def forward(ctx, *operands: Tensor, inputs: tuple = (), output: str = "") -> Tensor:
        arrays = [o._data for o in operands]
        ctx.arrays, ctx.inputs, ctx.output = arrays, inputs, output
        ctx.save_for_backward(*operands)  # for create_graph=True: the backward is an einsum too
        return new_result(np.asarray(np.einsum(",".join(inputs) + "->" + output, *arrays)), operands[0])

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        grads = []
        for k, sub in enumerate(ctx.inputs):
            if not ctx.needs_input_grad[k]:
                grads.append(None)
                continue
            if len(set(sub)) != len(sub):
                raise NotImplementedError("learntorch's einsum backward does not support a letter repeated within "
                                          "one operand (a diagonal); use torch.diagonal first")
            others = [(s, a) for j, (s, a) in enumerate(zip(ctx.inputs, ctx.arrays)) if j != k]
            present = set(ctx.output).union(*[set(s) for s, _ in others])
            target = "".join(c for c in sub if c in present)
            spec = ",".join([ctx.output] + [s for s, _ in others]) + "->" + target
            shape = ctx.arrays[k].shape
            if differentiable_backward():  # the same contraction as an operation: differentiable again
                operands = ctx.saved_tensors
                rest = [operands[j] for j in range(len(ctx.inputs)) if j != k]
                g = Einsum.apply(grad, *rest, inputs=(ctx.output, *[s for s, _ in others]), output=target)
                grads.append(g.reshape([shape[i] if c in present else 1 for i, c in enumerate(sub)])
                             .expand(*shape).to(operands[k].dtype))
                continue
            g = np.einsum(spec, grad._data, *[a for _, a in others])
            # letters only operand k has were summed away in forward: their gradient is broadcast back
            g = np.broadcast_to(g.reshape([shape[i] if c in present else 1 for i, c in enumerate(sub)]), shape)
            grads.append(new_result(np.ascontiguousarray(g).astype(ctx.arrays[k].dtype), grad))
        return tuple(grads)


def einsum(equation: str, *operands: Any) -> Tensor:
    """``einsum("ij,jk->ik", a, b)``: multiply the operands, summing the letters absent from the output."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    inputs, output = _parse_einsum(equation, len(operands))
    for sub, op in zip(inputs, operands):
        if len(sub) != op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(sub)}) does not match the "
                               f"number of dimensions ({op.dim()}) for operand {operands.index(op)} and no ellipsis "
                               "was given")
    if any(op.device.type != "cpu" for op in operands):
        raise NotImplementedError("learntorch's einsum runs on the CPU (NumPy) only")
    return Einsum.apply(*operands, inputs=tuple(inputs), output=output)


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
        a = input.detach().cpu().numpy() != 0
        b = (other.detach().cpu().numpy() if isinstance(other, Tensor) else np.asarray(other)) != 0
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
    return cat([t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors], 1)


def fliplr(input: Tensor) -> Tensor:
    return input.flip(1)


def flipud(input: Tensor) -> Tensor:
    return input.flip(0)


def moveaxis(input: Tensor, source: Any, destination: Any) -> Tensor:
    """NumPy's name for ``movedim``."""
    return input.movedim(source, destination)


__all__ += ["broadcast_tensors", "column_stack", "fliplr", "flipud", "moveaxis"]
