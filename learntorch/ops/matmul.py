"""Matrix products: ``matmul`` (the ``@`` operator), ``mm``, ``bmm``, ``dot``, ``mv``.

``matmul`` follows NumPy's rules (1-D, 2-D, batched, broadcasting batch
dimensions); ``mm`` is for 2-D matrices only and never broadcasts; ``dot`` is
the inner product of two 1-D tensors.  The backward of ``C = A @ B`` is
``dA = dC @ Bᵀ`` and ``dB = Aᵀ @ dC`` (summed over broadcast batch dimensions).

``tensordot``, ``inner``, ``kron``, ``cdist`` and ``dist`` at the end are compositions of these
products with reshapes and reductions, so their gradients come from those operations.
"""
from __future__ import annotations

import math
from typing import Any, Optional

from .. import warn_always
from .. import autocast_state, dtypes
from ..autograd import grad_mode
from ..autograd.function import Function
from ..tensor import Tensor
from ..tensor_arguments import require_tensor
from .autocast import float32_precision, lower_precision
from .common import binary_operands, check_same_device, infer_size, new_result, sum_to
from .reduction import VectorNorm
from .shape import Expand, UnsafeView

__all__ = ["matmul", "mm", "bmm", "dot", "mv", "outer", "addmm", "tensordot", "inner", "kron", "vdot", "cdist", "dist",
           "addmv", "baddbmm", "addbmm"]


def _product(a: Tensor, b: Tensor) -> object:
    xa, xb, _ = binary_operands(a, b, broadcast=False)
    return xa @ xb  # the array API's matmul as an operator: no namespace wrapper to call through


class Matmul(Function):
    """The general case (batched, broadcasting, 1-D operands promoted to matrices)."""

    _backward_name = "MatmulBackward0"

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(b if ctx.needs_input_grad[0] else None, a if ctx.needs_input_grad[1] else None)
        ctx.shapes = (tuple(a.shape), tuple(b.shape))
        ctx.mat2_transposed = ctx.needs_input_grad[1] and _is_transposed(b)
        return new_result(_product(a, b), a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        b, a = ctx.saved_tensors
        sa, sb = ctx.shapes
        if not grad_mode._state.enabled and grad._backend.is_numpy:  # a plain backward: on the arrays
            return _matmul_backward_arrays(ctx, grad, a, b)
        ga = gb = None
        # Treat 1-D operands as matrices, as the forward did, then undo.
        g = grad
        if len(sa) == 1:
            g = g.unsqueeze(-2)
        if len(sb) == 1:
            g = g.unsqueeze(-1)
        if ctx.needs_input_grad[0]:
            bm = b.unsqueeze(-1) if len(sb) == 1 else b
            ga = g.matmul(bm.transpose(-1, -2))
            ga = ga.squeeze(-2) if len(sa) == 1 else ga
            ga = sum_to(ga, sa)
        if ctx.needs_input_grad[1]:
            am = a.unsqueeze(-2) if len(sa) == 1 else a
            gb = am.transpose(-1, -2).matmul(g)
            gb = gb.squeeze(-1) if len(sb) == 1 else gb
            gb = sum_to(gb, sb)
        return ga, gb


def _matmul_backward_arrays(ctx, grad: Tensor, a: Tensor, b: Tensor) -> tuple:
    """Matmul's backward without recording (the common ``loss.backward()``): the same
    formulas as above, on the NumPy arrays (``ga = g·bᵀ``, ``gb = aᵀ·g``, summed over
    broadcast batch dimensions)."""
    sa, sb = ctx.shapes
    g = grad._data
    if len(sa) == 1:
        g = g[..., None, :]
    if len(sb) == 1:
        g = g[..., None]
    ga = gb = None
    if ctx.needs_input_grad[0]:
        bm = b._data[..., None] if len(sb) == 1 else b._data
        out = g @ bm.swapaxes(-1, -2)
        ga = sum_to(new_result(out[..., 0, :] if len(sa) == 1 else out, grad), sa)
    if ctx.needs_input_grad[1]:
        am = a._data[..., None, :] if len(sa) == 1 else a._data
        out = am.swapaxes(-1, -2) @ g
        gb = sum_to(new_result(out[..., 0] if len(sb) == 1 else out, grad), sb)
    return ga, gb


class Mm(Matmul):
    _backward_name = "MmBackward0"

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        b, a = ctx.saved_tensors
        if not grad_mode._state.enabled:  # a plain backward: on the arrays, as Addmm's
            g = grad._data
            ga = new_result(g @ b._data.T, grad) if ctx.needs_input_grad[0] else None
            gb = None
            if ctx.needs_input_grad[1]:
                gb = new_result((g.T @ a._data).T if ctx.mat2_transposed else a._data.T @ g, grad)
            return ga, gb
        ga = grad.mm(b.t()) if ctx.needs_input_grad[0] else None
        gb = _mat2_grad(a, grad, ctx.mat2_transposed) if ctx.needs_input_grad[1] else None
        return ga, gb


class Bmm(Matmul):
    _backward_name = "BmmBackward0"


class Dot(Matmul):
    _backward_name = "DotBackward0"

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        b, a = ctx.saved_tensors
        return (grad * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


class Mv(Matmul):
    _backward_name = "MvBackward0"

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        """PyTorch's formulas for ``mv`` (derivatives.yaml): the matrix gets the outer product
        ``grad ⊗ vec`` (a ``Mul`` node under ``create_graph``), the vector ``matᵀ·grad``."""
        if not grad_mode._state.enabled and grad._backend.is_numpy:  # a plain backward: on the arrays
            b, a = ctx.saved_tensors
            return _matmul_backward_arrays(ctx, grad, a, b)
        b, a = ctx.saved_tensors
        return (grad.reshape(-1, 1) * b if ctx.needs_input_grad[0] else None,
                a.t().mv(grad) if ctx.needs_input_grad[1] else None)


def _dims_error(name: str, a: Tensor, b: Tensor) -> str:
    return f"{name}: {a.ndim}D and {b.ndim}D"


def _tensor_arguments(name: str, *named: tuple) -> None:
    """A matrix product takes tensors only: ``x @ 2`` is a TypeError, as in PyTorch."""
    for position, (arg_name, value) in enumerate(named, 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg_name}' (position {position}) must be Tensor, not "
                            f"{type(value).__name__}")


def _products_of(kernel: str, t: Tensor) -> None:
    """PyTorch's CPU matrix products have no bool kernel."""
    if t._dtype is dtypes.bool:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with NumPy's rules for 1-D and batched operands."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        _tensor_arguments("matmul", ("input", input), ("other", other))
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(matmul, input, other)
    check_same_device(input, other)
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {input.ndim}D and "
                           f"{other.ndim}D")
    k_a = input.shape[-1]
    k_b = other.shape[-2] if other.ndim > 1 else other.shape[0]
    if k_a != k_b:
        if input.ndim == 1 and other.ndim == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{k_a}] and src [{k_b}] to have the "
                               "same number of elements, but got " + f"{k_a} and {k_b} elements respectively")
        rows = 1 if input.ndim == 1 else input.numel() // k_a
        cols = other.shape[-1] if other.ndim > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k_a} and {k_b}x{cols})")
    if input._dtype is not other._dtype:  # PyTorch does not promote in matrix products
        if input.ndim == 1 and other.ndim == 1:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_short(input)} and "
                               f"{_short(other)}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(input)} != {_cname(other)}")
    _products_of("addmm_impl_cpu_", input)
    if input.ndim == 1 and other.ndim == 1:
        return Dot.apply(input, other)
    if input.ndim == 2 and other.ndim == 2:
        return Mm.apply(input, other)
    if input.ndim == 2 and other.ndim == 1:
        return Mv.apply(input, other)
    return _decomposed_matmul(input, other)


def _should_fold(big: Tensor, small: Tensor, big_is_input: bool) -> bool:
    """PyTorch's test for computing ``(…, n, k) @ (k, p)`` as one ``mm`` on the first operand
    flattened to ``(-1, k)``: always when the smaller operand requires grad (a cheaper backward),
    otherwise only when flattening needs no copy (and never for a 2-D input times a batch)."""
    if small.requires_grad:
        return True
    if big_is_input is False and small.ndim == 2:
        return False
    if big.numel() == 0:
        return True
    t1 = big if big_is_input else big.transpose(-1, -2)
    sizes, strides = t1.shape, t1.stride()
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(t1.ndim - 2))


def _decomposed_matmul(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` beyond the plain 1-D/2-D cases, built as PyTorch builds it, from ``mm``/``mv``/
    ``bmm`` and reshapes.  The values are the same either way; doing it PyTorch's way gives the
    result the ``grad_fn`` a learner sees printed -- ``UnsafeViewBackward0`` for batched and
    folded products (attention scores ``q @ k.transpose(-2, -1)``), ``SqueezeBackward4`` for
    vector @ matrix, ``CloneBackward0`` for matrix @ batch -- and the same graph behind it."""
    da, db = a.ndim, b.ndim
    if da == 1 and db == 2:
        return a.unsqueeze(0).mm(b).squeeze_(0)
    if da >= 3 and db <= 2 and _should_fold(a, b, True):
        flat = a.reshape(-1, a.shape[-1])
        prod = flat.mm(b) if db == 2 else flat.mv(b)
        return UnsafeView.apply(prod, tuple(a.shape[:-1]) + tuple(b.shape[1:]), False)
    if db >= 3 and da <= 2 and _should_fold(b, a, False):
        flat = b.transpose(-1, -2).reshape(-1, b.shape[-2])  # (…, p, k) flattened: bᵀ aᵀ = (a b)ᵀ
        if da == 1:
            return UnsafeView.apply(flat.mv(a), tuple(b.shape[:-2]) + (b.shape[-1],), False)
        folded = UnsafeView.apply(flat.mm(a.t()), tuple(b.shape[:-2]) + (b.shape[-1], a.shape[0]), False)
        return folded.transpose(-1, -2).contiguous()
    # the general case: broadcast the batch dimensions, flatten them into one, one bmm
    a2 = a.unsqueeze(0) if da == 1 else a
    b2 = b.unsqueeze(-1) if db == 1 else b
    batch = infer_size(tuple(a2.shape[:-2]), tuple(b2.shape[:-2]))  # the batch dimensions must broadcast
    n, k, p = a2.shape[-2], a2.shape[-1], b2.shape[-1]
    count = 1
    for size in batch:
        count *= size
    # (Expand.apply: the sizes are known to be valid, expand's own checks would only repeat infer_size's)
    prod = Bmm.apply(Expand.apply(a2, batch + (n, k)).reshape(count, n, k),
                     Expand.apply(b2, batch + (k, p)).reshape(count, k, p))
    return UnsafeView.apply(prod, tuple(batch) + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ()), False)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """2-D matrix product only: no broadcasting, no 1-D operands."""
    if not isinstance(mat2, Tensor):
        _tensor_arguments("mm", ("mat2", mat2))
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(mm, input, mat2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    check_same_device(input, mat2)
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x{input.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    if input._dtype is not mat2._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(input)} != {_cname(mat2)}")
    return Mm.apply(input, mat2)


def _cname(t: Tensor) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16"}.get(t.dtype.name, t.dtype.name)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(bmm, input, mat2)
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if input._dtype is not mat2._dtype:
        raise RuntimeError(f"expected scalar type {_short(input)} but found {_short(mat2)}")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    check_same_device(input, mat2)
    return Bmm.apply(input, mat2)


def dot(input: Tensor, tensor: Tensor, *, _node: Any = None) -> Tensor:  # (``_node``: vdot's; no third tensor)
    """Inner product of two 1-D tensors (the notes' ``a*b`` is element-wise, not this)."""
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{tensor.shape[0]}] to have the same number of elements, but got "
                           f"{input.shape[0]} and {tensor.shape[0]} elements respectively")
    if input._dtype is not tensor._dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_short(input)} and "
                           f"{_short(tensor)}")
    check_same_device(input, tensor)
    return (_node or Dot).apply(input, tensor)


def _short(t: Tensor) -> str:
    """PyTorch's scalar-type name in messages: torch.HalfTensor -> "Half", torch.LongTensor -> "Long"."""
    return t.type().rsplit(".", 1)[1][:-len("Tensor")]  # also for torch.cuda.HalfTensor


def mv(input: Tensor, vec: Tensor) -> Tensor:
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    check_same_device(input, vec)
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat ({input.shape[0]}x{input.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    if input._dtype is not vec._dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_short(vec)}, {_short(input)}, "
                           f"and {_short(vec)}")
    return Mv.apply(input, vec)  # (not through matmul: autocast leaves mv in float32, as PyTorch does)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two vectors: ``input[i] * vec2[j]``."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return input.unsqueeze(1) * vec2.unsqueeze(0)


class Addmm(Function):
    """``input + mat1 @ mat2`` in one step: ``nn.Linear``'s ``bias + x @ Wᵀ``.

    The product's fresh array receives the (broadcast) ``input`` in place, so the
    layer costs one matrix product and one addition pass, no extra copy."""

    _backward_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, input: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
        ctx.save_for_backward(mat2 if ctx.needs_input_grad[1] else None, mat1 if ctx.needs_input_grad[2] else None)
        ctx.input_shape = tuple(input.shape)
        ctx.mat2_transposed = ctx.needs_input_grad[2] and _is_transposed(mat2)
        out = _product(mat1, mat2)
        out += input._data
        return new_result(out, mat1)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        mat2, mat1 = ctx.saved_tensors
        if not grad_mode._state.enabled:  # a plain backward records nothing: work on the arrays directly
            return _addmm_backward_arrays(ctx, grad, mat1, mat2)
        g_in = None
        if ctx.needs_input_grad[0]:
            shape = ctx.input_shape
            g_in = grad.sum(0) if len(shape) == 1 and shape[0] == grad.shape[1] else sum_to(grad, shape)
        g1 = grad.mm(mat2.t()) if ctx.needs_input_grad[1] else None
        g2 = _mat2_grad(mat1, grad, ctx.mat2_transposed) if ctx.needs_input_grad[2] else None
        return g_in, g1, g2


def _addmm_backward_arrays(ctx, grad: Tensor, mat1: Tensor, mat2: Tensor) -> tuple:
    """Addmm's backward without recording (the common ``loss.backward()``): the same formulas
    on the backend arrays, skipping the dozen small tensor operations the recorded form needs."""
    xp = grad._backend.xp
    g = grad._data
    g_in = g1 = g2 = None
    if ctx.needs_input_grad[0]:
        shape = ctx.input_shape
        if len(shape) == 1 and shape[0] == g.shape[1]:
            if grad._dtype in (dtypes.bfloat16, dtypes.float16):  # added up in float32, rounded once (as PyTorch)
                g_in = new_result(xp.astype(xp.sum(g, axis=0, dtype=xp.float32), g.dtype), grad)
            else:
                g_in = new_result(xp.sum(g, axis=0), grad)
        else:
            g_in = sum_to(grad, shape)
    if ctx.needs_input_grad[1]:
        g1 = new_result(g @ mat2._data.T, grad)
    if ctx.needs_input_grad[2]:
        g2 = new_result((g.T @ mat1._data).T if ctx.mat2_transposed else mat1._data.T @ g, grad)
    return g_in, g1, g2


def _is_transposed(t: Tensor) -> bool:
    """A column-major matrix, typically ``W.t()`` of a row-major ``W`` (NumPy and CuPy arrays have
    flags; the strict stand-in has no layout to speak of)."""
    flags = getattr(t._data, "flags", None)
    return flags is not None and t._data.ndim == 2 and flags.f_contiguous and not flags.c_contiguous


def _mat2_grad(mat1: Tensor, grad: Tensor, transposed: bool) -> Tensor:
    """``mat1ᵀ @ grad``, laid out like ``mat2`` (PyTorch's ``mm_mat2_backward``): when ``mat2`` is
    ``W.t()``, compute ``(gradᵀ @ mat1)ᵀ`` so that ``W.grad`` comes out row-major like ``W``;
    element-wise updates of ``W`` by a column-major gradient would be several times slower."""
    return grad.t().mm(mat1).t() if transposed else mat1.t().mm(grad)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` (``input`` broadcast to the product's shape)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(addmm, input, mat1, mat2, beta=beta, alpha=alpha)
    if mat1.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    check_same_device(input, mat1, mat2)
    n, k = mat1.shape
    k2, m = mat2.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_short(mat1)} and {_short(mat2)}")
    if input._dtype is not mat2._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_short(input)} and {_short(mat2)}")
    shape = tuple(input.shape)
    if len(shape) > 2:
        raise RuntimeError(f"expand(torch.{_short(input)}Tensor{{[{', '.join(map(str, shape))}]}}, size=[{n}, {m}]): "
                           f"the number of sizes provided (2) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shape)})")
    for dim, (s, t) in reversed(list(enumerate(zip((1,) * (2 - len(shape)) + shape, (n, m))))):
        if s not in (1, t):
            raise RuntimeError(f"The expanded size of the tensor ({t}) must match the existing size ({s}) at "
                               f"non-singleton dimension {dim}.  Target sizes: [{n}, {m}].  "
                               f"Tensor sizes: [{', '.join(map(str, shape))}]")
    if beta != 1 or alpha != 1:  # the general form, composed (rare)
        return mm(mat1, mat2) * alpha + input * beta
    return Addmm.apply(input, mat1, mat2)


# ----------------------------------------------------------------------------- compositions
def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Sum the products over pairs of dimensions: ``dims=n`` pairs ``a``'s last ``n`` with ``b``'s
    first ``n``; ``dims=([1, 2], [0, 1])`` names the pairs.  Done as one matrix product: the summed
    dimensions of ``a`` are moved last and those of ``b`` first, both flattened to matrices."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    dims_a, dims_b = [d % a.ndim for d in dims_a], [d % b.ndim for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim "
                               f"{da} and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    k = 1
    for d in dims_a:
        k *= a.shape[d]
    rows, cols = math.prod(a.shape[d] for d in free_a), math.prod(b.shape[d] for d in free_b)
    am = a.permute(*free_a, *dims_a).reshape(rows, k)  # (not -1: a size may be 0)
    bm = b.permute(*dims_b, *free_b).reshape(k, cols)
    return mm(am, bm).reshape(*[a.shape[d] for d in free_a], *[b.shape[d] for d in free_b])


def inner(input: Tensor, other: Tensor) -> Tensor:
    """Sum of products over the last dimension of both (a scalar operand just multiplies)."""
    if input.ndim == 0 or other.ndim == 0:
        require_tensor("inner", "other", other, 2)  # (``input * other`` would take a number)
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


class Vdot(Dot):
    """``vdot``: :class:`Dot` under PyTorch's own node name (for real numbers there is no conjugate)."""
    _backward_name = "VdotBackward0"


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """``dot`` with the first vector conjugated (for real numbers there is no conjugate to take)."""
    return dot(input, other, _node=Vdot)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times a whole copy of ``other``.
    The two are given the same number of dimensions, interleaved as ``(a0, b0, a1, b1, …)``
    by broadcasting, and each pair flattened into one dimension of size ``a_i · b_i``."""
    n = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (n - input.ndim) + tuple(input.shape))
    b = other.reshape((1,) * (n - other.ndim) + tuple(other.shape))
    a_shape = [s for d in a.shape for s in (d, 1)]
    b_shape = [s for d in b.shape for s in (1, d)]
    out = a.reshape(a_shape) * b.reshape(b_shape)
    return out.reshape([x * y for x, y in zip(a.shape, b.shape)])


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") \
        -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` and each row of ``x2`` (batched).
    Computed directly as ``‖x1ᵢ - x2ⱼ‖_p``; PyTorch may use the faster but slightly less
    exact ``‖a‖² + ‖b‖² - 2a·b`` for large Euclidean inputs, so the last digits can differ."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(cdist, x1, x2, p, compute_mode)
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {dtypes.type_name(x._dtype)}")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return _Cdist.apply(diff, float(p), -1, False)


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """``‖input - other‖_p`` over all elements (after broadcasting)."""
    require_tensor("dist", "input", input)
    require_tensor("dist", "other", other, 2)  # (``input - other`` would take a number)
    difference = input - other
    if not difference.is_floating_point():  # (a norm of integers: PyTorch's error)
        raise RuntimeError("norm(): input dtype should be either floating point or complex. Got "
                           f"{dtypes.type_name(difference._dtype)} instead.")
    return _Dist.apply(difference, float(p), None, False)


class _Dist(VectorNorm):
    """The norm of a difference, under PyTorch's name for it."""
    _backward_name = "DistBackward0"


class _Cdist(VectorNorm):
    _backward_name = "CdistBackward0"


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``."""
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)``, one product per batch element."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(baddbmm, input, batch1, batch2, beta=beta, alpha=alpha)
    return _scaled_sum(input, bmm(batch1, batch2), beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """``beta * input + alpha * Σ_b batch1[b] @ batch2[b]`` (the batch products summed)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(addbmm, input, batch1, batch2, beta=beta, alpha=alpha)
    return _scaled_sum(input, bmm(batch1, batch2).sum(0), beta, alpha)


def _scaled_sum(input: Tensor, product: Tensor, beta: float, alpha: float) -> Tensor:
    product = product if alpha == 1 else product * alpha
    if beta == 0:  # PyTorch ignores input then, even NaN or inf in it
        return product
    return (input if beta == 1 else input * beta) + product


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """``input @ weight.T + bias`` — the maths of ``nn.Linear``.

    A batch of rows (2-D input) with a bias is one fused ``addmm`` (PyTorch's
    ``AddmmBackward0`` node): one matrix product, the bias added in place.
    More leading dimensions are folded into the batch and unfolded after."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(linear, input, weight, bias)
    if weight._data.ndim != 2:  # F.linear(x, w_1d): a dot product
        out = input.matmul(weight.t())
        return out if bias is None else out + bias
    if input._data.ndim == 2:
        if bias is None:
            return input.mm(weight.t())
        # the hot path of every nn.Linear: checked here on the arrays' shapes, so addmm's checks are skipped
        if (input._dtype is weight._dtype is bias._dtype and input._device == weight._device == bias._device
                and input._data.shape[1] == weight._data.shape[1] and bias._data.shape == weight._data.shape[:1]):
            return Addmm.apply(bias, input, weight.t())
        return addmm(bias, input, weight.t())
    if input.ndim == 1:
        if bias is None:
            return input.unsqueeze(0).mm(weight.t()).squeeze_(0)  # in place, as PyTorch (SqueezeBackward4)
        return addmm(bias, input.unsqueeze(0), weight.t()).view(weight.shape[0])
    if input.ndim == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are 0D and 2D")
    lead = tuple(input.shape[:-1])
    flat = input.reshape(-1, input.shape[-1])
    if bias is None or not input.is_contiguous():
        # PyTorch's general path: a matrix product, then the bias added in place (AddBackward0).  A
        # non-contiguous input, such as ``lstm_out.transpose(0, 1)``, takes it: its reshape is a copy.
        out = UnsafeView.apply(flat.mm(weight.t()), lead + (weight.shape[0],), False)
        return out if bias is None else out.add_(bias)
    return addmm(bias, flat, weight.t()).view(*lead, weight.shape[0])


def chain_matmul(*matrices: Tensor) -> Tensor:
    """The product ``A₁ A₂ … Aₙ`` of 2-D matrices (deprecated in PyTorch for
    ``torch.linalg.multi_dot``).  Multiplied left to right; the result is reshaped into a fresh
    view at the end, as PyTorch's result is (its node is ``ViewBackward0``)."""
    warn_always.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                     "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                     "multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    out = matrices[0]
    for m in matrices[1:]:
        out = mm(out, m)
    return out.view(tuple(out.shape))
