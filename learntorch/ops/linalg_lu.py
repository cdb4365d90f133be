"""Triangular matrices: solving with them (substitution) and factoring into them (LU).

Most of linear algebra comes down to two steps.  A *triangular* system ``U x = b`` is
solved one unknown at a time, from the last row up (back substitution), or from the
first row down for a lower-triangular ``L``.  A general square system ``A x = b`` is
first *factored*, ``A = P L U``: Gaussian elimination, where ``L`` (unit lower-triangular)
records the multiples of rows that were subtracted, ``U`` (upper-triangular) is what is
left, and the permutation ``P`` records the row swaps made to divide by the largest
available number ("partial pivoting", for accuracy).  Then ``A x = b`` is two triangular
solves.  Factoring once and solving for many right-hand sides is the point of
``lu_factor`` / ``lu_solve``.

NumPy has no triangular solver and no LU, so both are written here on arrays, one row
(or one column) per step of a Python loop: each step is a vectorised operation over the
batch and the right-hand sides.  Like LAPACK (which PyTorch calls), a zero on the
diagonal does not stop anything: the solution gets ``inf``/``nan`` and the factorisation
reports, in ``info``, where the first zero pivot was.

The pivots are LAPACK's: ``pivots[i] = p`` (1-based) means "row i was swapped with row p"
at step i, the swaps applied in order.  Results are ``torch.return_types`` named tuples.

Also here, because they need the LU to say *where* a matrix is singular: the
``_ex`` forms of ``inv``, ``solve`` and ``cholesky``, which return an ``info`` tensor
instead of raising (``check_errors=False``), with the ``Function`` of each plain form.

Backward formulas, written with tensor operations (so they can be differentiated again):

* ``X = A⁻¹B`` (triangular):  ``gB = A⁻ᵀ g``, ``gA = -gB Xᵀ`` kept on ``A``'s triangle;
* ``A = P L U`` (square):      ``gA = P L⁻ᵀ (tril₋₁(Lᵀ gL) + triu(gU Uᵀ)) U⁻ᵀ``; the wide and
  tall cases add the part of ``U`` (or ``L``) that lies outside the square (see ``_lu_backward``);
* ``X = lu_solve(LU, B)``:     the gradient of ``A`` as for ``solve``, then carried to ``L`` and ``U``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes
from ..arrays import to_numpy
from ..autograd.function import Function
from ..tensor import Tensor
from .common import infer_size, new_result, return_type, sum_to
from .linalg_decomp import Cholesky, Inv, LinAlgError, Solve, _check_matrix, _check_solve, _eye_like, _mT
from .shape import cat

__all__ = ["solve_triangular", "lu_factor", "lu_factor_ex", "lu", "lu_unpack", "lu_solve", "triangular_solve",
           "legacy_lu", "inv_ex", "solve_ex", "cholesky_ex", "cholesky_solve", "cholesky_inverse"]

lu_factor_result = return_type("linalg_lu_factor", "LU pivots")
lu_factor_ex_result = return_type("linalg_lu_factor_ex", "LU pivots info")
lu_result = return_type("linalg_lu", "P L U")
lu_unpack_result = return_type("lu_unpack", "P L U")
lu_with_info_result = return_type("_lu_with_info", "LU pivots info")
triangular_solve_result = return_type("triangular_solve", "solution cloned_coefficient")
inv_ex_result = return_type("linalg_inv_ex", "inverse info")
solve_ex_result = return_type("linalg_solve_ex", "result info")
cholesky_ex_result = return_type("linalg_cholesky_ex", "L info")


# ----------------------------------------------------------------------------- checks and messages
def _check_kernel_dtype(kernel: str, *tensors: Tensor) -> None:
    """LAPACK has float32 and float64 routines only: any other dtype is PyTorch's
    ``NotImplementedError: "lu_cpu" not implemented for 'Long'`` (a RuntimeError too)."""
    for t in tensors:
        if t.dtype.name not in ("float32", "float64"):
            name = dtypes.SCALAR_NAMES.get(t.dtype.name, "BFloat16" if t.dtype.name == "bfloat16" else t.dtype.name)
            raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def _at_least_2d(name: str, t: Tensor, arg: str) -> None:
    if t.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")


def _check_rhs_shape(name: str, A: Tensor, B: Tensor, left: bool) -> None:
    """``A X = B`` needs as many rows in ``B`` as ``A`` has; ``X A = B`` as many columns."""
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{n} and {B.shape[-2]}x{B.shape[-1]})")


def _first_failure(info: Any) -> tuple[str, int]:
    """``('(Batch element 1): ', 2)``: where the first failed matrix of a batch is (PyTorch
    names it only for a batch) and its ``info`` value."""
    flat = to_numpy(info).reshape(-1)
    index = int(np.flatnonzero(flat > 0)[0])
    prefix = f"(Batch element {index}): " if info.ndim > 0 else ""
    return prefix, int(flat[index])


def _failed(info: Tensor) -> bool:
    return bool((info > 0).any())


def _triangle(M: Tensor, upper: bool, unit: bool) -> Tensor:
    """The part of ``M`` that a triangular matrix really has: its triangle, without the
    diagonal when the diagonal is taken to be ones (``unitriangular``)."""
    if upper:
        return M.triu(1 if unit else 0)
    return M.tril(-1 if unit else 0)


# ----------------------------------------------------------------------------- array kernels
def _solve_triangular_arrays(xp: Any, a: Any, b: Any, upper: bool, unit: bool) -> Any:
    """``x`` with ``a x = b`` for triangular ``a`` (..., n, n) and ``b`` (..., n, k), batch
    dimensions broadcast.  Substitution: unknown ``i`` is ``(bᵢ - Σⱼ aᵢⱼ xⱼ) / aᵢᵢ`` over the
    unknowns already found (below ``i`` for upper, above it for lower).  Only ``a``'s triangle
    is read; a zero on its diagonal gives ``inf``/``nan``, as in LAPACK."""
    n = a.shape[-1]
    batch = infer_size(a.shape[:-2], b.shape[:-2])
    x = xp.zeros(batch + tuple(b.shape[-2:]), dtype=b.dtype)
    with np.errstate(all="ignore"):  # (inf and nan are results here, as in PyTorch, not warnings)
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            known = slice(i + 1, n) if upper else slice(0, i)
            xi = b[..., i:i + 1, :] - a[..., i:i + 1, known] @ x[..., known, :]
            if not unit:
                xi = xi / a[..., i:i + 1, i:i + 1]
            x[..., i:i + 1, :] = xi
    return x


def _lu_arrays(xp: Any, a: Any) -> tuple[Any, Any, Any]:
    """Gaussian elimination with partial pivoting of ``a`` (..., m, n): ``(LU, pivots, info)``.

    Step ``j``: bring the row with the largest ``|a[i, j]|`` (``i >= j``) up to row ``j``
    (the whole row, so that the multipliers already stored move with it), divide the
    column below the pivot by it (those are ``L``'s multipliers), and subtract multiples
    of row ``j`` from the rows below.  ``L`` (without its unit diagonal) and ``U`` share one
    array.  A zero pivot is skipped and reported in ``info`` (1-based, first one only)."""
    *batch, m, n = a.shape
    k = min(m, n)
    lu = xp.reshape(xp.asarray(a, copy=True), (math.prod(batch), m, n))  # (not -1: m or n may be 0)
    which = xp.arange(lu.shape[0])
    pivots = xp.zeros((lu.shape[0], k), dtype=xp.int32)
    info = xp.zeros(lu.shape[0], dtype=xp.int32)
    for j in range(k):
        p = j + xp.argmax(xp.abs(lu[:, j:, j]), axis=-1)
        pivots[:, j] = p + 1
        row_j = lu[which, j, :]          # (a copy: fancy indexing)
        lu[which, j, :] = lu[which, p, :]
        lu[which, p, :] = row_j
        pivot = lu[:, j, j]
        zero = pivot == 0
        info = xp.where((info == 0) & zero, j + 1, info)
        lu[:, j + 1:, j] /= xp.where(zero, xp.ones_like(pivot), pivot)[:, None]  # (a zero pivot's column is 0)
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:]
    return (xp.reshape(lu, (*batch, m, n)), xp.reshape(pivots, (*batch, k)),
            xp.astype(xp.reshape(info, tuple(batch)), xp.int32))


def _permutation(xp: Any, pivots: Any, m: int) -> Any:
    """The row order ``perm`` that the swaps recorded in ``pivots`` produce: row ``i`` of
    ``Pᵀ A`` is row ``perm[i]`` of ``A``."""
    *batch, k = pivots.shape
    piv = xp.reshape(pivots, (math.prod(batch), k))  # (not -1: k may be 0)
    perm = xp.asarray(xp.broadcast_to(xp.arange(m), (piv.shape[0], m)), copy=True)
    which = xp.arange(piv.shape[0])
    for j in range(k):
        p = xp.astype(piv[:, j], xp.int64) - 1
        row_j = perm[which, j]
        perm[which, j] = perm[which, p]
        perm[which, p] = row_j
    return xp.reshape(perm, (*batch, m))


def _permutation_matrix(xp: Any, perm: Any, dtype: Any) -> Any:
    """``P`` with ``P[perm[i], i] = 1``, so that ``A = P L U``."""
    m = perm.shape[-1]
    return xp.matrix_transpose(xp.astype(perm[..., :, None] == xp.arange(m), dtype))


def _permute_rows(xp: Any, x: Any, perm: Any) -> Any:
    """Row ``i`` of the result is row ``perm[i]`` of ``x`` (``Pᵀ x``); batch dimensions broadcast."""
    batch = infer_size(perm.shape[:-1], x.shape[:-2])
    x = xp.broadcast_to(x, batch + tuple(x.shape[-2:]))
    index = xp.broadcast_to(perm[..., :, None], batch + (perm.shape[-1], x.shape[-1]))
    return xp.take_along_axis(x, index, axis=-2)


def _lu_solve_arrays(xp: Any, lu: Any, perm: Any, b: Any, adjoint: bool) -> Any:
    """``A x = b`` (or ``Aᵀ x = b``) with ``A = P L U`` given as ``lu`` and ``perm``.

    ``A x = b``:  ``L U x = Pᵀ b``, so forward substitution with ``L``, then back with ``U``.
    ``Aᵀ x = b``: ``Uᵀ Lᵀ Pᵀ x = b``: forward with ``Uᵀ``, back with ``Lᵀ``, then undo ``P``."""
    if not adjoint:
        y = _solve_triangular_arrays(xp, lu, _permute_rows(xp, b, perm), upper=False, unit=True)
        return _solve_triangular_arrays(xp, lu, y, upper=True, unit=False)
    luT = xp.matrix_transpose(lu)
    y = _solve_triangular_arrays(xp, luT, b, upper=False, unit=False)
    z = _solve_triangular_arrays(xp, luT, y, upper=True, unit=True)
    return _permute_rows(xp, z, xp.argsort(perm, axis=-1))  # row perm[i] of x is row i of z


def _unpack_arrays(xp: Any, lu: Any) -> tuple[Any, Any]:
    """``L`` (m × k, unit diagonal) and ``U`` (k × n) from the packed ``lu`` (m × n)."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = xp.tril(lu[..., :, :k], k=-1) + xp.eye(m, k, dtype=lu.dtype)
    U = xp.triu(lu[..., :k, :])
    return L, U


# ----------------------------------------------------------------------------- triangular solve
class SolveTriangular(Function):
    """``X = A⁻¹ B`` (``left``) or ``X = B A⁻¹`` for a triangular ``A``."""
    _backward_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor, B: Tensor, upper: bool, left: bool, unit: bool) -> Tensor:
        xp = A._backend.xp
        if left:
            x = _solve_triangular_arrays(xp, A._data, B._data, upper, unit)
        else:  # X A = B  ⇔  Aᵀ Xᵀ = Bᵀ, and Aᵀ is triangular the other way
            x = xp.matrix_transpose(_solve_triangular_arrays(xp, xp.matrix_transpose(A._data),
                                                             xp.matrix_transpose(B._data), not upper, unit))
        out = new_result(x, A)
        ctx.flags = (upper, left, unit)
        ctx.shapes = (tuple(A.shape), tuple(B.shape))
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        A, X = ctx.saved_tensors
        upper, left, unit = ctx.flags
        sa, sb = ctx.shapes
        gB = solve_triangular(_mT(A), grad, upper=not upper, left=left, unitriangular=unit)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = sum_to(_triangle(-(gB @ _mT(X)) if left else -(_mT(X) @ gB), upper, unit), sa)
        return gA, sum_to(gB, sb) if ctx.needs_input_grad[1] else None, None, None, None


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """The ``X`` with ``A X = B`` (``left=False``: ``X A = B``) for a triangular ``A``: cheaper
    than ``solve`` (no factorisation, ``n²`` work per column) and exact about which triangle
    is read.  ``unitriangular=True`` takes ``A``'s diagonal to be ones without reading it."""
    name = "linalg.solve_triangular"
    _at_least_2d(name, B, "B")
    _at_least_2d(name, A, "A")
    _check_kernel_dtype("triangular_solve_cpu", A, B)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    _check_rhs_shape(name, A, B, left)
    infer_size(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    if B.dtype is not A.dtype:  # (PyTorch computes in A's dtype)
        B = B.to(A.dtype)
    return SolveTriangular.apply(A, B, upper, left, unitriangular)


class TriangularSolve(Function):
    """The older ``torch.triangular_solve(b, A)``: ``(A⁻¹ b, A.clone())``, one node for both."""
    _backward_name = "TriangularSolveBackward0"

    @staticmethod
    def forward(ctx: Any, b: Tensor, A: Tensor, upper: bool, transpose: bool, unit: bool) -> tuple:
        xp = A._backend.xp
        a = xp.matrix_transpose(A._data) if transpose else A._data
        x = new_result(_solve_triangular_arrays(xp, a, b._data, upper != transpose, unit), A)
        ctx.flags = (upper, transpose, unit)
        ctx.shapes = (tuple(b.shape), tuple(A.shape))
        ctx.save_for_backward(A, x)
        return x, new_result(xp.asarray(A._data, copy=True), A)

    @staticmethod
    def backward(ctx: Any, g_x: Tensor, g_clone: Tensor) -> tuple:
        A, X = ctx.saved_tensors
        upper, transpose, unit = ctx.flags
        sb, sa = ctx.shapes
        op = _mT(A) if transpose else A  # the matrix really solved with, triangular with upper != transpose
        gb = solve_triangular(_mT(op), g_x, upper=transpose == upper, unitriangular=unit)
        g_op = _triangle(-(gb @ _mT(X)), upper != transpose, unit)
        gA = (_mT(g_op) if transpose else g_op) + g_clone
        return sum_to(gb, sb), sum_to(gA, sa), None, None, None


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> Any:
    """``torch.triangular_solve`` (deprecated by PyTorch: use :func:`solve_triangular`, whose
    arguments come the other way round): ``(solution, cloned_coefficient)``."""
    if b.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {b.ndim} "
                           "dimensions instead")
    if A.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has {A.ndim} "
                           "dimensions instead")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"torch.triangular_solve: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    _check_kernel_dtype("triangular_solve_cpu", A, b)  # (after the shapes, as PyTorch checks them)
    _check_rhs_shape("torch.triangular_solve", A, b, True)
    return triangular_solve_result(*TriangularSolve.apply(b, A, upper, transpose, unitriangular))


# ----------------------------------------------------------------------------- LU factorisation
def _square_lu_backward(L: Tensor, U: Tensor, gL: Tensor, gU: Tensor) -> Tensor:
    """``gA`` for a square ``A = L U`` (no permutation).

    ``dA = dL U + L dU`` gives ``L⁻¹ dA U⁻¹ = L⁻¹ dL + dU U⁻¹``: a strictly lower plus an upper
    triangle, so each of ``dL``, ``dU`` is read off one triangle, and
    ``gA = L⁻ᵀ (tril₋₁(Lᵀ gL) + triu(gU Uᵀ)) U⁻ᵀ``."""
    M = (_mT(L) @ gL).tril(-1) + (gU @ _mT(U)).triu()
    M = solve_triangular(_mT(L), M, upper=True, unitriangular=True)
    return solve_triangular(_mT(U), M, upper=False, left=False)


def _lu_backward(P: Tensor, L: Tensor, U: Tensor, gL: Tensor, gU: Tensor) -> Tensor:
    """``gA`` for ``A = P L U`` with ``L`` m × k and ``U`` k × n, ``k = min(m, n)``.

    Square: :func:`_square_lu_backward`.  Wide (``m < n``): ``U = [U₁ U₂]``; ``U₂ = L⁻¹ Pᵀ A₂``
    depends on ``A``'s last columns (``gA₂ = P L⁻ᵀ gU₂``) and on ``L`` (which adds
    ``-L⁻ᵀ gU₂ U₂ᵀ`` to ``gL``).  Tall (``m > n``): ``L = [L₁; L₂]`` with ``L₂ = A₂ U⁻¹``,
    the same argument with rows for columns."""
    m, n = L.shape[-2], U.shape[-1]
    if m == n:
        gA = _square_lu_backward(L, U, gL, gU)
    elif m < n:
        U2, gU1, gU2 = U[..., :, m:], gU[..., :, :m], gU[..., :, m:]
        gL = gL - solve_triangular(_mT(L), gU2 @ _mT(U2), upper=True, unitriangular=True)
        gA1 = _square_lu_backward(L, U[..., :, :m], gL, gU1)
        gA = cat([gA1, solve_triangular(_mT(L), gU2, upper=True, unitriangular=True)], dim=-1)
    else:
        L2, gL1, gL2 = L[..., n:, :], gL[..., :n, :], gL[..., n:, :]
        gU = gU - solve_triangular(_mT(U), _mT(L2) @ gL2, upper=False, left=False)
        gA1 = _square_lu_backward(L[..., :n, :], U, gL1, gU)
        gA = cat([gA1, solve_triangular(_mT(U), gL2, upper=False, left=False)], dim=-2)
    return P @ gA


def _unpack(LU: Tensor, P_data: Any) -> tuple[Tensor, Tensor, Tensor]:
    """``P``, ``L``, ``U`` as tensors made from ``LU`` by tensor operations (so a backward that
    uses them can itself be differentiated)."""
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + _eye_like(m, LU)[:, :k]
    return Tensor._make(P_data, LU._device), L, LU[..., :k, :].triu()


class LuFactor(Function):
    """``(LU, pivots, info)``: ``L`` and ``U`` packed in one matrix, LAPACK's ``getrf``."""
    _backward_name = "LinalgLuFactorExBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple:
        xp = A._backend.xp
        lu, pivots, info = _lu_arrays(xp, A._data)
        LU = new_result(lu, A)
        ctx.P = _permutation_matrix(xp, _permutation(xp, pivots, A.shape[-2]), lu.dtype)
        ctx.save_for_backward(LU)
        return LU, new_result(pivots, A), new_result(info, A)

    @staticmethod
    def backward(ctx: Any, g_lu: Tensor, *_int_grads: Any) -> tuple:
        (LU,) = ctx.saved_tensors
        P, L, U = _unpack(LU, ctx.P)
        k = L.shape[-1]
        return _lu_backward(P, L, U, g_lu[..., :, :k].tril(-1), g_lu[..., :k, :].triu()),


def _check_lu_input(A: Tensor, pivot: bool) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    _check_kernel_dtype("lu_cpu", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _raise_zero_pivot(name: str, info: Tensor) -> None:
    prefix, j = _first_failure(info._data)
    raise RuntimeError(f"{name}: {prefix}U[{j},{j}] is zero and using it on lu_solve would result in a division by "
                       "zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) "
                       "or linalg.lu_factor_ex(A, pivot)")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    """``(LU, pivots, info)``: the LU factorisation of ``A`` (any m × n, or a batch) in LAPACK's
    packed form, for :func:`lu_solve`.  ``info > 0`` says that ``U`` has a zero on its diagonal
    (at position ``info``, 1-based): the matrix is singular.  Nothing is raised for it unless
    ``check_errors=True``."""
    _check_lu_input(A, pivot)
    LU, pivots, info = LuFactor.apply(A)
    if check_errors and _failed(info):
        _raise_zero_pivot("torch.linalg.lu_factor_ex", info)
    return lu_factor_ex_result(LU, pivots, info)


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    """``(LU, pivots)``, as :func:`lu_factor_ex`, but a singular ``A`` is an error: its factors
    could not be used to solve (``linalg.lu`` and ``lu_factor_ex`` factor it anyway)."""
    _check_lu_input(A, pivot)
    LU, pivots, info = LuFactor.apply(A)
    if _failed(info):
        _raise_zero_pivot("torch.linalg.lu_factor", info)
    return lu_factor_result(LU, pivots)


def legacy_lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """``torch.lu`` without its deprecation warning (``linalg.py`` gives that): ``(LU, pivots)``,
    or ``(LU, pivots, info)`` with ``get_infos``; never raises for a singular matrix."""
    _check_lu_input(A, pivot)
    LU, pivots, info = LuFactor.apply(A)
    return lu_with_info_result(LU, pivots, info) if get_infos else (LU, pivots)


class Lu(Function):
    """``torch.linalg.lu``: the factors ``P``, ``L``, ``U`` as separate matrices."""
    _backward_name = "LinalgLuBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple:
        xp = A._backend.xp
        lu, pivots, _ = _lu_arrays(xp, A._data)
        L, U = _unpack_arrays(xp, lu)
        P = new_result(_permutation_matrix(xp, _permutation(xp, pivots, A.shape[-2]), lu.dtype), A)
        L, U = new_result(L, A), new_result(U, A)
        ctx.mark_non_differentiable(P)
        ctx.save_for_backward(P, L, U)
        return P, L, U

    @staticmethod
    def backward(ctx: Any, _g_p: Tensor, g_l: Tensor, g_u: Tensor) -> tuple:
        P, L, U = ctx.saved_tensors
        return _lu_backward(P, L, U, g_l, g_u),


def lu(A: Tensor, *, pivot: bool = True) -> Any:
    """``(P, L, U)`` with ``A = P L U``: ``P`` a permutation, ``L`` unit lower-triangular (m × k),
    ``U`` upper-triangular (k × n), ``k = min(m, n)``.  Works for singular matrices too."""
    _check_lu_input(A, pivot)
    return lu_result(*Lu.apply(A))


class LuUnpack(Function):
    """``P``, ``L``, ``U`` out of ``lu_factor``'s packed form.  Backward: ``L``'s gradient goes to
    the strict lower triangle of ``LU``, ``U``'s to the upper one."""
    _backward_name = "LuUnpackBackward0"

    @staticmethod
    def forward(ctx: Any, LU: Tensor, pivots: Tensor, unpack_data: bool, unpack_pivots: bool) -> tuple:
        xp = LU._backend.xp
        empty = xp.zeros((0,), dtype=LU._data.dtype)
        P = _permutation_matrix(xp, _permutation(xp, pivots._data, LU.shape[-2]), LU._data.dtype) \
            if unpack_pivots else empty
        L, U = _unpack_arrays(xp, LU._data) if unpack_data else (empty, empty)
        P, L, U = new_result(P, LU), new_result(L, LU), new_result(U, LU)
        ctx.mark_non_differentiable(P)
        if not unpack_data:
            ctx.mark_non_differentiable(L, U)
        ctx.shape = tuple(LU.shape)
        return P, L, U

    @staticmethod
    def backward(ctx: Any, _g_p: Tensor, g_l: Tensor, g_u: Tensor) -> tuple:
        *batch, m, n = ctx.shape
        k = min(m, n)
        g_l, g_u = g_l.tril(-1), g_u.triu()
        if m > k:  # U is k × n: fill the rows below it
            g_u = cat([g_u, Tensor._zeros((*g_u.shape[:-2], m - k, n), g_u.dtype, g_u.device)], dim=-2)
        if n > k:  # L is m × k: fill the columns right of it
            g_l = cat([g_l, Tensor._zeros((*g_l.shape[:-2], m, n - k), g_l.dtype, g_l.device)], dim=-1)
        return g_l + g_u, None, None, None


def _check_pivots(name: str, LU: Tensor, pivots: Tensor) -> None:
    if pivots.dtype.name != "int32":
        raise RuntimeError(f"{name}: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    p = pivots._data
    if p.size and (int(p.min()) < 1 or int(p.max()) > LU.shape[-2]):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly "
                           "pass the result of lu_factor?")


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> Any:
    """``(P, L, U)`` from ``lu_factor``'s ``(LU, pivots)``; a part that is not asked for
    (``unpack_data``/``unpack_pivots`` False) is an empty tensor."""
    _check_pivots("torch.lu_unpack", LU_data, LU_pivots)
    return lu_unpack_result(*LuUnpack.apply(LU_data, LU_pivots, unpack_data, unpack_pivots))


class LuSolve(Function):
    """``X`` with ``A X = B`` for ``A = P L U`` given by ``lu_factor`` (``left=False``: ``X A = B``;
    ``adjoint=True``: ``Aᵀ`` instead of ``A``).

    Backward: first ``gA`` exactly as for ``solve``, then carried through ``A = P L U``:
    ``gL = tril₋₁(Pᵀ gA Uᵀ)``, ``gU = triu(Lᵀ Pᵀ gA)``, both stored in one ``gLU``."""
    _backward_name = "LinalgLuSolveBackward0"

    @staticmethod
    def forward(ctx: Any, LU: Tensor, pivots: Tensor, B: Tensor, left: bool, adjoint: bool) -> Tensor:
        xp = LU._backend.xp
        perm = _permutation(xp, pivots._data, LU.shape[-2])
        if left:
            x = _lu_solve_arrays(xp, LU._data, perm, B._data, adjoint)
        else:  # X A = B  ⇔  Aᵀ Xᵀ = Bᵀ
            x = xp.matrix_transpose(_lu_solve_arrays(xp, LU._data, perm, xp.matrix_transpose(B._data), not adjoint))
        out = new_result(x, LU)
        ctx.P = _permutation_matrix(xp, perm, LU._data.dtype)
        ctx.flags = (left, adjoint)
        ctx.shapes = (tuple(LU.shape), tuple(B.shape))
        ctx.save_for_backward(LU, pivots, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        LU, pivots, X = ctx.saved_tensors
        left, adjoint = ctx.flags
        s_lu, s_b = ctx.shapes
        # the solve that undoes A's transpose: gB = A⁻ᵀ g (left) or g A⁻ᵀ (right), with A ↔ Aᵀ for adjoint
        gB = lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint)
        g_lu = None
        if ctx.needs_input_grad[0]:
            if left:
                gA = -(X @ _mT(gB)) if adjoint else -(gB @ _mT(X))
            else:
                gA = -(_mT(gB) @ X) if adjoint else -(_mT(X) @ gB)
            P, L, U = _unpack(LU, ctx.P)
            PtgA = _mT(P) @ gA
            g_lu = sum_to((PtgA @ _mT(U)).tril(-1) + (_mT(L) @ PtgA).triu(), s_lu)
        return g_lu, None, sum_to(gB, s_b) if ctx.needs_input_grad[2] else None, None, None


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """``A X = B`` solved with ``A``'s LU factors from :func:`lu_factor`: two triangular solves
    per right-hand side, however many times it is called for one ``A``."""
    name = "linalg.lu_solve"
    _at_least_2d(name, B, "B")
    _at_least_2d(name, LU, "LU")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.{name}: A must be batches of square matrices, but they are {LU.shape[-2]} by "
                           f"{LU.shape[-1]} matrices")
    _check_rhs_shape(name, LU, B, left)
    if pivots.dtype.name != "int32":
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if B.dtype is not LU.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of type "
                           f"{dtypes.type_name(LU.dtype)} and B of type {dtypes.type_name(B.dtype)} instead")
    _check_kernel_dtype("lu_solve_cpu", LU)
    infer_size(tuple(LU.shape[:-2]), tuple(B.shape[:-2]))
    return LuSolve.apply(LU, pivots, B, left, adjoint)


# ----------------------------------------------------------------------------- the _ex forms
def _lapack_or_none(xp: Any, routine: Any, *arrays: Any) -> Any:
    """The backend's own routine (LAPACK, cuSOLVER), or None where it failed: NumPy raises for
    a singular or indefinite matrix, CuPy returns ``nan``/``inf``.  Then the slower routines
    of this file compute the result again, with ``info`` saying what went wrong."""
    try:
        out = routine(*arrays)
    except Exception:  # NumPy's LinAlgError
        return None
    return out if bool(xp.all(xp.isfinite(out))) else None


class InvEx(Function):
    """``inverse`` and ``info``: NumPy's inverse when ``A`` is invertible; otherwise the LU
    factors say which pivot is zero, and solving with them gives PyTorch's ``inf``/``nan``."""
    _backward_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple:
        xp = A._backend.xp
        x = _lapack_or_none(xp, xp.linalg.inv, A._data)
        info = xp.zeros(A.shape[:-2], dtype=xp.int32)
        if x is None:  # a zero pivot: NumPy gives up, LAPACK's info says where
            lu, pivots, info = _lu_arrays(xp, A._data)
            eye = xp.broadcast_to(xp.eye(A.shape[-1], dtype=lu.dtype), lu.shape)
            x = _lu_solve_arrays(xp, lu, _permutation(xp, pivots, A.shape[-2]), eye, adjoint=False)
        out = new_result(x, A)
        ctx.save_for_backward(out)
        return out, new_result(info, A)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _g_info: Any) -> tuple:
        return Inv.backward(ctx, grad)


def inv_ex(A: Tensor, *, check_errors: bool = False) -> Any:
    """``(inverse, info)``: ``info`` is 0 for an invertible matrix, else the (1-based) position of
    the first zero pivot of its LU factorisation; the inverse is then ``inf``/``nan``."""
    _check_matrix("linalg.inv", A)
    inverse, info = InvEx.apply(A)
    if check_errors and _failed(info):
        prefix, j = _first_failure(info._data)
        raise LinAlgError(f"linalg.inv_ex: {prefix}The diagonal element {j} is zero, the inversion could not be "
                          "completed because the input matrix is singular.")
    return inv_ex_result(inverse, info)


class SolveEx(Function):
    """``solve`` that reports a singular matrix in ``info`` instead of raising (same backward)."""
    _backward_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor, B: Tensor, vector: bool, left: bool) -> tuple:
        xp = A._backend.xp
        a, b = A._data, xp.expand_dims(B._data, axis=-1) if vector else B._data
        if not left:  # X A = B  ⇔  Aᵀ Xᵀ = Bᵀ
            a, b = xp.matrix_transpose(a), xp.matrix_transpose(b)
        x = _lapack_or_none(xp, xp.linalg.solve, a, b)
        info = xp.zeros(A.shape[:-2], dtype=xp.int32)
        if x is None:
            lu, pivots, info = _lu_arrays(xp, a)
            x = _lu_solve_arrays(xp, lu, _permutation(xp, pivots, a.shape[-2]), b, adjoint=False)
        x = x[..., 0] if vector else x if left else xp.matrix_transpose(x)
        out = new_result(x, A)
        ctx.vector, ctx.left = vector, left
        ctx.shapes = (tuple(A.shape), tuple(B.shape))
        ctx.save_for_backward(A, out)
        return out, new_result(info, A)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _g_info: Any) -> tuple:
        return Solve.backward(ctx, grad)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> Any:
    """``(result, info)``: :func:`solve` that does not raise for a singular ``A`` (unless
    ``check_errors``): ``info`` says where its LU factorisation found a zero pivot."""
    vector = _check_solve("linalg.solve", A, B, left)
    result, info = SolveEx.apply(A, B, vector, left)
    if check_errors and _failed(info):
        prefix, _ = _first_failure(info._data)
        raise LinAlgError(f"torch.linalg.solve_ex: {prefix}The solver failed because the input matrix is singular.")
    return solve_ex_result(result, info)


def _cholesky_arrays(xp: Any, a: Any) -> tuple[Any, Any]:
    """The lower Cholesky factor, column by column, stopping where a matrix turns out not to be
    positive-definite: ``lᵢᵢ = √(aᵢᵢ - Σₖ lᵢₖ²)`` needs a positive number under the root.
    As LAPACK's ``potrf``, a failed matrix keeps the columns done so far, the failed value
    (not its root) on the diagonal, and ``A``'s own entries after it; ``info`` is the order
    of the first minor that is not positive-definite."""
    *batch, n, _ = a.shape
    w = xp.reshape(xp.tril(a), (math.prod(batch), n, n))  # (not -1: n may be 0)
    info = xp.zeros(w.shape[0], dtype=xp.int32)
    with np.errstate(all="ignore"):  # (the failed matrices' columns are computed, then dropped)
        for j in range(n):
            active = info == 0
            d = w[:, j, j] - xp.sum(w[:, j, :j] * w[:, j, :j], axis=-1)
            bad = active & ~(d > 0)  # (a NaN is not positive either)
            info = xp.where(bad, j + 1, info)
            root = xp.sqrt(xp.where(bad, xp.ones_like(d), d))
            w[:, j, j] = xp.where(active, xp.where(bad, d, root), w[:, j, j])
            column = (w[:, j + 1:, j] - (w[:, j + 1:, :j] @ w[:, j, :j, None])[..., 0]) / w[:, j, j][:, None]
            w[:, j + 1:, j] = xp.where((info == 0)[:, None], column, w[:, j + 1:, j])
    return xp.reshape(w, (*batch, n, n)), xp.reshape(info, tuple(batch))


class CholeskyEx(Function):
    """``L`` and ``info``; ``L``'s backward is ``cholesky``'s."""
    _backward_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor, upper: bool) -> tuple:
        xp = A._backend.xp
        L = _lapack_or_none(xp, xp.linalg.cholesky, A._data)
        info = xp.zeros(A.shape[:-2], dtype=xp.int32)
        if L is None:
            L, info = _cholesky_arrays(xp, A._data)
        L = new_result(L, A)
        ctx.upper = upper
        ctx.save_for_backward(L)
        out = new_result(xp.matrix_transpose(L._data), A) if upper else L
        return out, new_result(info, A)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _g_info: Any) -> tuple:
        return Cholesky.backward(ctx, grad)


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    """``(L, info)``: :func:`cholesky` that reports a matrix that is not positive-definite in
    ``info`` (the order of the first leading minor that is not) instead of raising."""
    _check_matrix("linalg.cholesky", A)
    L, info = CholeskyEx.apply(A, upper)
    if check_errors and _failed(info):
        prefix, j = _first_failure(info._data)
        raise LinAlgError(f"linalg.cholesky_ex: {prefix}The factorization could not be completed because the input "
                          f"is not positive-definite (the leading minor of order {j} is not positive-definite).")
    return cholesky_ex_result(L, info)


# ----------------------------------------------------------------------------- solving with a Cholesky factor
def _cholesky_factor_arrays(xp: Any, factor: Any, upper: bool) -> Any:
    """The lower-triangular ``L`` with ``A = L Lᵀ``, whichever triangle the caller passed
    (``upper`` means ``A = Uᵀ U``, so ``L = Uᵀ``)."""
    return xp.matrix_transpose(factor) if upper else factor


def _cholesky_solve_arrays(xp: Any, factor: Any, b: Any, upper: bool) -> Any:
    """``A⁻¹ b`` for ``A = L Lᵀ``: two triangular solves, ``L y = b`` then ``Lᵀ x = y``."""
    L = _cholesky_factor_arrays(xp, factor, upper)
    y = _solve_triangular_arrays(xp, L, b, False, False)
    return _solve_triangular_arrays(xp, xp.matrix_transpose(L), y, True, False)


def _check_cholesky_factor(name: str, L: Tensor) -> None:
    _at_least_2d(name, L, "A")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {L.shape[-2]} by "
                           f"{L.shape[-1]} matrices")


class CholeskySolve(Function):
    """``X = A⁻¹ B`` where ``A = L Lᵀ`` is given by its Cholesky factor ``L`` (or ``U = Lᵀ``).

    Backward (PyTorch's formula, so that the gradient of ``L`` matches it entry for entry, the
    upper triangle included): ``gB = A⁻¹ g``; with ``S = gB Xᵀ + X gBᵀ``, ``gL = -S L``
    (``-U S`` for an upper factor)."""
    _backward_name = "CholeskySolveBackward0"

    @staticmethod
    def forward(ctx: Any, B: Tensor, L: Tensor, upper: bool) -> Tensor:
        out = new_result(_cholesky_solve_arrays(L._backend.xp, L._data, B._data, upper), L)
        ctx.upper = upper
        ctx.shapes = (tuple(B.shape), tuple(L.shape))
        ctx.save_for_backward(L, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        L, X = ctx.saved_tensors
        sb, sl = ctx.shapes
        gB = cholesky_solve(grad, L, ctx.upper)
        gL = None
        if ctx.needs_input_grad[1]:
            S = gB @ _mT(X)
            S = S + _mT(S)
            gL = sum_to(-(L @ S) if ctx.upper else -(S @ L), sl)
        return sum_to(gB, sb) if ctx.needs_input_grad[0] else None, gL, None


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky_solve(B, L)``: the ``X`` with ``A X = B`` where ``A = L Lᵀ`` (``upper``:
    ``A = Uᵀ U``) is a positive-definite matrix already factored by ``torch.linalg.cholesky``.
    Factoring once and solving for many ``B`` is the point (Gaussian processes, normal equations).
    Batch dimensions broadcast; like LAPACK, a zero on the diagonal gives ``inf``/``nan``."""
    if B.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions instead")
    if L.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L.ndim} dimensions instead")
    if B.dtype is not L.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{dtypes.SCALAR_NAMES.get(B.dtype.name, B.dtype.name)} and A of type "
                           f"{dtypes.SCALAR_NAMES.get(L.dtype.name, L.dtype.name)} instead.")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {L.shape[-2]} by {L.shape[-1]} "
                           "matrices")
    if B.shape[-2] != L.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {L.shape[-2]} by "
                           f"{L.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    infer_size(tuple(B.shape[:-2]), tuple(L.shape[:-2]))
    _check_kernel_dtype("cholesky_solve_cpu", L)
    return CholeskySolve.apply(B, L, bool(upper))


class CholeskyInverse(Function):
    """``A⁻¹`` for ``A = L Lᵀ``.  Backward (PyTorch's formula): with ``S = X (g + gᵀ) X``,
    ``gL = -S L`` (``-U S`` for an upper factor)."""
    _backward_name = "CholeskyInverseBackward0"

    @staticmethod
    def forward(ctx: Any, L: Tensor, upper: bool) -> Tensor:
        xp = L._backend.xp
        eye = xp.broadcast_to(xp.eye(L.shape[-1], dtype=L._data.dtype), tuple(L.shape))
        out = new_result(_cholesky_solve_arrays(xp, L._data, eye, upper), L)
        ctx.upper = upper
        ctx.save_for_backward(L, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        L, X = ctx.saved_tensors
        S = X @ (grad + _mT(grad)) @ X
        return (-(L @ S) if ctx.upper else -(S @ L)), None


def cholesky_inverse(L: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky_inverse(L)``: ``A⁻¹`` for the positive-definite ``A = L Lᵀ`` (``upper``:
    ``A = Uᵀ U``) from its Cholesky factor, e.g. a Gaussian process's posterior precision.  A zero
    on the factor's diagonal means ``A`` is singular: a ``LinAlgError`` that says which."""
    name = "cholesky_inverse"
    _check_cholesky_factor(name, L)
    _check_kernel_dtype("cholesky_inverse_out_cpu", L)
    diagonal = to_numpy(L._data).diagonal(axis1=-2, axis2=-1).reshape(-1, L.shape[-1]) if L.numel() else None
    if diagonal is not None and (diagonal == 0).any():
        batch, column = np.argwhere(diagonal == 0)[0]
        prefix = f"(Batch element {batch}): " if L.ndim > 2 else ""
        raise LinAlgError(f"{name}: {prefix}The diagonal element {column + 1} is zero, the inversion could not be "
                          "completed because the input matrix is singular.")
    return CholeskyInverse.apply(L, bool(upper))
