"""Matrix decompositions and what is built on them: ``inv``, ``det``, ``slogdet``, ``solve``,
``cholesky``, ``eigh``, ``svd``, ``qr``, ``pinv``, ``matrix_rank``, and ``cross``.

The numbers come from the backend's ``xp.linalg`` (LAPACK through NumPy on the CPU,
cuSOLVER through CuPy on a GPU); each operation works on the last two dimensions and
treats any leading ones as a batch, as PyTorch does.  ``learntorch.linalg`` is the
public namespace; this module holds the ``Function`` of each differentiable one.

The backward formulas are the textbook ones (PyTorch uses the same), written with
tensor operations so that they are themselves differentiable:

* ``X = A⁻¹``:          ``gA = -Xᵀ g Xᵀ``
* ``d = det A``:        ``gA = g · d · A⁻ᵀ``
* ``X = solve(A, B)``:  ``gB = solve(Aᵀ, g)``, ``gA = -gB Xᵀ``
* ``A = L Lᵀ``:         ``gA = L⁻ᵀ Φ(Lᵀ g) L⁻¹`` (Φ: the lower triangle, mirrored, diagonal halved)
* ``eigh``, ``svd``:    through the eigen/singular vectors (see the classes).

``qr`` has no backward here (PyTorch has one); calling ``backward`` through it says so.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from .common import check_kernel_dtype, infer_size, new_result, return_type, sum_to
from .shape import cat

__all__ = ["LinAlgError", "inv", "det", "slogdet", "solve", "cholesky", "eigh", "svd", "svdvals", "qr", "pinv",
           "matrix_rank", "cross"]


class LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a matrix that the decomposition cannot handle (singular,
    not positive-definite).  A ``RuntimeError``, as in PyTorch, so ``except RuntimeError`` catches it."""


def _named(name: str, fields: str) -> type:
    return return_type(name, fields)


slogdet_result = _named("linalg_slogdet", "sign logabsdet")
eigh_result = _named("linalg_eigh", "eigenvalues eigenvectors")
svd_result = _named("linalg_svd", "U S Vh")
qr_result = _named("linalg_qr", "Q R")

_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "float16": "Half"}


def _check_matrix(name: str, A: Tensor, square: bool = True, arg: str = "A") -> None:
    """PyTorch's input checks: a floating tensor of (batches of) (square) matrices."""
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if not A.dtype.is_floating_point or A.dtype.name == "float16":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_TYPE_NAMES.get(A.dtype.name, A.dtype.name)}")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _mT(x: Tensor) -> Tensor:
    return x.transpose(-2, -1)


def _singular(name: str) -> LinAlgError:
    return LinAlgError(f"{name}: The input matrix is singular (its determinant is 0), so the operation could not "
                       "be completed. Check for linearly dependent rows or columns; torch.linalg.pinv or "
                       "torch.linalg.lstsq handle such matrices.")


# ----------------------------------------------------------------------------- inverse, determinant
class Inv(Function):
    _backward_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, A: Tensor) -> Tensor:
        xp = A._backend.xp
        try:
            out = new_result(xp.linalg.inv(A._data), A)
        except Exception as exc:  # NumPy's LinAlgError("Singular matrix")
            raise _singular("linalg.inv") from exc
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (X,) = ctx.saved_tensors
        return -(_mT(X) @ grad @ _mT(X)),


def inv(A: Tensor) -> Tensor:
    """The inverse ``A⁻¹`` of a square matrix (or of each in a batch); a singular matrix is a
    ``LinAlgError``.  To solve ``A x = b`` prefer :func:`solve`: it is faster and more accurate."""
    _check_matrix("linalg.inv", A)
    return Inv.apply(A)


class Det(Function):
    _backward_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, A: Tensor) -> Tensor:
        out = new_result(A._backend.xp.linalg.det(A._data), A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        A, d = ctx.saved_tensors
        # d det(A) / dA = det(A) · A⁻ᵀ (Jacobi's formula), for an invertible A
        return (grad * d).unsqueeze(-1).unsqueeze(-1) * _mT(inv(A)),


def det(A: Tensor) -> Tensor:
    """The determinant of a square matrix (or of each in a batch)."""
    _check_matrix("linalg.det", A)
    return Det.apply(A)


class Slogdet(Function):
    _backward_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, A: Tensor) -> tuple:
        sign, logabs = A._backend.xp.linalg.slogdet(A._data)
        sign, logabs = new_result(sign, A), new_result(logabs, A)
        ctx.mark_non_differentiable(sign)
        ctx.save_for_backward(A)
        return sign, logabs

    @staticmethod
    def backward(ctx, _grad_sign: Tensor, grad: Tensor) -> tuple:
        (A,) = ctx.saved_tensors
        return grad.unsqueeze(-1).unsqueeze(-1) * _mT(inv(A)),


def slogdet(A: Tensor) -> Any:
    """``(sign, log|det A|)``: the determinant without overflow (a product of many numbers)."""
    _check_matrix("linalg.slogdet", A)
    return slogdet_result(*Slogdet.apply(A))


_plain_slogdet_result = _named("slogdet", "sign logabsdet")


def torch_slogdet(A: Tensor) -> Any:
    """``torch.slogdet`` / ``Tensor.slogdet``: the same pair as ``torch.linalg.slogdet``, but PyTorch
    names its result type ``torch.return_types.slogdet`` (the linalg one is ``linalg_slogdet``),
    which shows when the result is printed."""
    return _plain_slogdet_result(*slogdet(A))


# ----------------------------------------------------------------------------- solving
class Solve(Function):
    _backward_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, A: Tensor, B: Tensor, vector: bool, left: bool) -> Tensor:
        xp = A._backend.xp
        a, b = A._data, xp.expand_dims(B._data, axis=-1) if vector else B._data
        if not left:  # X A = B  ⇔  Aᵀ Xᵀ = Bᵀ
            a, b = xp.matrix_transpose(a), xp.matrix_transpose(b)
        try:
            x = xp.linalg.solve(a, b)
        except Exception as exc:
            raise _singular("torch.linalg.solve") from exc
        x = x[..., 0] if vector else x if left else xp.matrix_transpose(x)
        out = new_result(x, A)
        ctx.vector, ctx.left = vector, left
        ctx.shapes = (tuple(A.shape), tuple(B.shape))
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        A, X = ctx.saved_tensors
        if not ctx.left:  # X A = B: gB = g A⁻ᵀ, gA = -Xᵀ gB
            gB = solve(_mT(A), grad, left=False)
            sa, sb = ctx.shapes
            return sum_to(-(_mT(X) @ gB), sa) if ctx.needs_input_grad[0] else None, \
                sum_to(gB, sb) if ctx.needs_input_grad[1] else None, None, None
        gB = solve(_mT(A), grad)
        if ctx.vector:
            gA = -(gB.unsqueeze(-1) * X.unsqueeze(-2))
        else:
            gA = -(gB @ _mT(X))
        sa, sb = ctx.shapes
        return sum_to(gA, sa) if ctx.needs_input_grad[0] else None, \
            sum_to(gB, sb) if ctx.needs_input_grad[1] else None, None, None


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The ``X`` with ``A X = B``.  ``B`` is a vector (or a batch of vectors) when it has one
    dimension fewer than ``A``, as in PyTorch; otherwise a matrix of right-hand sides."""
    return Solve.apply(A, B, _check_solve("linalg.solve", A, B, left), left)


def _check_solve(name: str, A: Tensor, B: Tensor, left: bool) -> bool:
    """PyTorch's checks of ``solve``'s arguments (``solve_ex`` shares them); True when ``B`` is
    a vector (or a batch of vectors) rather than a matrix of right-hand sides."""
    _check_matrix(name, A)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.name.capitalize()} and B of type {B.dtype.name.capitalize()} instead")
    vector = left and (B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1])))
    n = A.shape[-1]
    if B.ndim < 2 and not vector or (B.shape[-1] if vector else B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{n} and {'x'.join(map(str, B.shape))})")
    return vector


# ----------------------------------------------------------------------------- Cholesky
class Cholesky(Function):
    _backward_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, A: Tensor, upper: bool) -> Tensor:
        xp = A._backend.xp
        try:
            L = new_result(xp.linalg.cholesky(A._data), A)
        except Exception as exc:
            raise LinAlgError(f"linalg.cholesky: The factorization could not be completed because the input is "
                              f"not positive-definite{_failing_minor(A)}. A covariance-like matrix may need a "
                              "small multiple of the identity added to its diagonal.") from exc
        ctx.upper = upper
        ctx.save_for_backward(L)
        return new_result(xp.matrix_transpose(L._data), A) if upper else L

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (L,) = ctx.saved_tensors
        if ctx.upper:  # the output was Lᵀ
            grad = _mT(grad)
        phi = (_mT(L) @ grad).tril()
        phi = 0.5 * (phi + _mT(phi.tril(-1)))
        L_inv = inv(L)
        return _mT(L_inv) @ phi @ L_inv, None


def _failing_minor(A: Tensor) -> str:
    """`` (the leading minor of order k is not positive-definite)`` for a single matrix, else ''."""
    if A.ndim != 2:
        return ""
    xp = A._backend.xp
    for k in range(1, A.shape[0] + 1):
        try:
            xp.linalg.cholesky(A._data[:k, :k])
        except Exception:
            return f" (the leading minor of order {k} is not positive-definite)"
    return ""


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The lower-triangular ``L`` with ``A = L Lᵀ`` for a symmetric positive-definite ``A``
    (only the lower triangle of ``A`` is read); ``upper=True`` returns ``Lᵀ``."""
    _check_matrix("linalg.cholesky", A)
    return Cholesky.apply(A, upper)  # LAPACK reads the lower triangle only


# ----------------------------------------------------------------------------- eigh, svd
class Eigh(Function):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix.

    Backward (PyTorch's ``linalg_eig_backward`` for Hermitian input):
    ``gA = V (diag(gλ) + skew(Vᵀ gV) / (λⱼ - λᵢ)) Vᵀ``; the off-diagonal part is
    large when two eigenvalues are close: eigenvectors of a repeated eigenvalue are not unique."""
    _backward_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, A: Tensor, UPLO: str) -> tuple:
        xp = A._backend.xp
        a = A._data if UPLO == "L" else xp.matrix_transpose(A._data)  # LAPACK reads the lower triangle
        w, v = xp.linalg.eigh(a)
        w, v = new_result(w, A), new_result(v, A)
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, g_w: Tensor, g_v: Tensor) -> tuple:
        w, V = ctx.saved_tensors
        VtgV = _mT(V) @ g_v
        VtgV = 0.5 * (VtgV - _mT(VtgV))
        gaps = w.unsqueeze(-2) - w.unsqueeze(-1)  # λⱼ - λᵢ
        n = w.shape[-1]
        eye = _eye_like(n, w)
        inner = VtgV / (gaps + eye) * (1 - eye) + eye * g_w.unsqueeze(-1)
        return V @ inner @ _mT(V), None


def _eye_like(n: int, like: Tensor) -> Tensor:
    """The n×n identity, of ``like``'s dtype and on its device."""
    return Tensor._make(like._backend.asarray(np.eye(n), like._dtype), like._device)


def eigh(A: Tensor, UPLO: str = "L") -> Any:
    """``(eigenvalues, eigenvectors)`` of a symmetric matrix; values ascending, vectors as columns."""
    _check_matrix("linalg.eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return eigh_result(*Eigh.apply(A, UPLO))


class Svd(Function):
    """``A = U diag(S) Vh``.  Backward for the singular values: ``gA = U diag(gS) Vh``; for
    ``U`` and ``Vh`` the general formula (PyTorch's ``svd_backward``, real case)."""
    _backward_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, A: Tensor, full_matrices: bool) -> tuple:
        U, S, Vh = A._backend.xp.linalg.svd(A._data, full_matrices=full_matrices)
        U, S, Vh = new_result(U, A), new_result(S, A), new_result(Vh, A)
        ctx.full = full_matrices
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU: Tensor, gS: Tensor, gVh: Tensor) -> tuple:
        U, S, Vh = ctx.saved_tensors
        k = S.shape[-1]
        U, Vh, gU, gVh = U[..., :, :k], Vh[..., :k, :], gU[..., :, :k], gVh[..., :k, :]
        V, gV = _mT(Vh), _mT(gVh)
        if not (bool(gU.any()) or bool(gVh.any())):  # only the singular values are used (the common case)
            return (U * gS.unsqueeze(-2)) @ Vh, None
        eye = _eye_like(k, S)
        S2 = S * S
        F = (S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye)  # σⱼ² - σᵢ²
        F = (1 - eye) / F
        UtgU, VtgV = _mT(U) @ gU, _mT(V) @ gV
        J = F * (UtgU - _mT(UtgU))
        K = F * (VtgV - _mT(VtgV))
        Sd = S.unsqueeze(-2)
        inner = (J * Sd) + (Sd.transpose(-2, -1) * K) + eye * gS.unsqueeze(-1)
        # J·S + S·K as element-wise scalings: (J S)ᵢⱼ = Jᵢⱼ σⱼ,  (S K)ᵢⱼ = σᵢ Kᵢⱼ
        gA = U @ inner @ Vh
        m, n = U.shape[-2], V.shape[-2]
        S_inv = 1 / S
        if m > k:
            gA = gA + (gU - U @ UtgU) * S_inv.unsqueeze(-2) @ Vh
        if n > k:
            gA = gA + U @ _mT((gV - V @ VtgV) * S_inv.unsqueeze(-2))
        return gA, None


def svd(A: Tensor, full_matrices: bool = True) -> Any:
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``; ``S`` descending.  The signs of singular vectors
    are a convention of the LAPACK routine (the same one NumPy and PyTorch call)."""
    _check_matrix("linalg.svd", A, square=False)
    return svd_result(*Svd.apply(A, full_matrices))


def svdvals(A: Tensor) -> Tensor:
    """The singular values only (descending)."""
    _check_matrix("linalg.svdvals", A, square=False)
    return Svd.apply(A, False)[1]


# ----------------------------------------------------------------------------- QR
class Qr(Function):
    """``A = Q R``.  Backward (PyTorch's ``linalg_qr_backward``, real case), for ``m ≥ n``:
    with ``M = gR Rᵀ - Qᵀ gQ`` and ``sym(X) = X + Xᵀ`` with its diagonal halved,
    ``gA = (gQ + Q sym(triu(M))) R⁻ᵀ``.  A wide ``A = [X | Y]`` is the square case for ``X``
    with ``Y = Q V`` added.  The ``mode='r'`` and tall ``'complete'`` factorisations have no
    backward (in PyTorch either: ``Q`` is not determined by ``R`` alone)."""
    _backward_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, A: Tensor, mode: str) -> tuple:
        Q, R = A._backend.xp.linalg.qr(A._data, mode="reduced" if mode == "r" else mode)
        Q, R = new_result(Q, A), new_result(R, A)
        ctx.mode = mode
        ctx.save_for_backward(Q, R)
        return Q, R

    @staticmethod
    def backward(ctx, gQ: Tensor, gR: Tensor) -> tuple:
        Q, R = ctx.saved_tensors
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                               "linalg.qr.")
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if m < n:  # A = [X | Y] with X = Q U square and Y = Q V: V's gradient reaches Q and Y
            U, gU, gV = R[..., :, :m], gR[..., :, :m], gR[..., :, m:]
            Y = Q @ R[..., :, m:]
            gX = _qr_square_backward(Q, U, gQ + Y @ _mT(gV), gU)
            return cat([gX, Q @ gV], -1), None
        return _qr_square_backward(Q, R, gQ, gR), None


def _qr_square_backward(Q: Tensor, R: Tensor, gQ: Tensor, gR: Tensor) -> Tensor:
    """``gA`` for ``A = Q R`` with ``m ≥ n`` (``R`` square, invertible): ``Y R⁻ᵀ`` as the
    transpose of ``R⁻¹ Yᵀ`` (``solve``; the triangular solver lives in ``linalg_lu``, above)."""
    M = (gR @ _mT(R) - _mT(Q) @ gQ).triu()
    sym = M + _mT(M)
    sym = sym - 0.5 * sym.diagonal(0, -2, -1).diag_embed()
    return _mT(solve(R, _mT(Q @ sym + gQ)))


def qr(A: Tensor, mode: str = "reduced") -> Any:
    """``(Q, R)`` with ``A = Q R``, ``Q`` orthonormal columns, ``R`` upper-triangular."""
    _check_matrix("linalg.qr", A, square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    if mode == "r":
        Q, R = Qr.apply(A, "r")
        return qr_result(Tensor._zeros((0,), A.dtype, A.device), R)
    return qr_result(*Qr.apply(A, mode))


def _tolerance(S: Any, shape: tuple, atol: Optional[float], rtol: Optional[float], xp: Any) -> Any:
    """PyTorch's cut-off for 'zero' singular values: ``max(atol, rtol · σ_max)`` with the default
    ``rtol = eps · max(m, n)`` when neither is given."""
    import numpy as np
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else float(np.finfo(np.dtype(str(S.dtype))).eps) * max(shape)
    smax = xp.max(S, axis=-1, keepdims=True) if S.shape[-1] else xp.zeros(S.shape[:-1] + (1,), dtype=S.dtype)
    return xp.maximum(xp.asarray(atol or 0.0, dtype=S.dtype), rtol * smax)


class Pinv(Function):
    """The Moore–Penrose pseudo-inverse ``P = V diag(1/σ) Uᵀ`` (small σ dropped).  Backward
    (Golub & Pereyra, constant rank): ``gA = -Pᵀ g Pᵀ + (I - A P) gᵀ P Pᵀ + Pᵀ P gᵀ (I - P A)``."""
    _backward_name = "LinalgPinvBackward0"

    @staticmethod
    def forward(ctx, A: Tensor, atol: Optional[float], rtol: Optional[float]) -> Tensor:
        xp = A._backend.xp
        U, S, Vh = xp.linalg.svd(A._data, full_matrices=False)
        tol = _tolerance(S, tuple(A.shape[-2:]), atol, rtol, xp)
        keep = S > tol
        S_inv = xp.where(keep, 1 / xp.where(keep, S, xp.ones_like(S)), xp.zeros_like(S))
        P = xp.matrix_transpose(Vh) @ (S_inv[..., :, None] * xp.matrix_transpose(U))
        out = new_result(P, A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        A, P = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        I_m, I_n = _eye_like(m, A), _eye_like(n, A)
        gt = _mT(grad)
        return (-(_mT(P) @ grad @ _mT(P)) + (I_m - A @ P) @ gt @ P @ _mT(P)
                + _mT(P) @ P @ gt @ (I_n - P @ A)), None, None


def pinv(A: Tensor, *, atol: Optional[float] = None, rtol: Optional[float] = None, hermitian: bool = False) -> Tensor:
    """The pseudo-inverse: the least-squares inverse of any (even singular, non-square) matrix."""
    _check_matrix("linalg.pinv", A, square=False)
    return Pinv.apply(A, atol, rtol)


def matrix_rank(A: Tensor, *, atol: Optional[float] = None, rtol: Optional[float] = None,
                hermitian: bool = False) -> Tensor:
    """The number of singular values above the tolerance (an int64 tensor, no gradient)."""
    _check_matrix("linalg.matrix_rank", A, square=False)
    xp = A._backend.xp
    S = xp.linalg.svdvals(A._data)
    tol = _tolerance(S, tuple(A.shape[-2:]), atol, rtol, xp)
    return new_result(xp.sum(xp.astype(S > tol, xp.int64), axis=-1), A)


# ----------------------------------------------------------------------------- cross product
class Cross(Function):
    """``a × b`` along a dimension of size 3.  Backward: ``ga = b × g``, ``gb = g × a``."""
    _backward_name = "LinalgCrossBackward0"

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor, dim: int) -> Tensor:
        xp = a._backend.xp
        x, y = xp.broadcast_arrays(a._data, b._data)
        x, y = xp.moveaxis(x, dim, -1), xp.moveaxis(y, dim, -1)
        out = xp.stack([x[..., 1] * y[..., 2] - x[..., 2] * y[..., 1],
                        x[..., 2] * y[..., 0] - x[..., 0] * y[..., 2],
                        x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]], axis=-1)
        ctx.dim = dim
        ctx.shapes = (tuple(a.shape), tuple(b.shape))
        ctx.save_for_backward(a, b)
        return new_result(xp.moveaxis(out, -1, dim), a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        sa, sb = ctx.shapes
        ga = sum_to(Cross.apply(b, grad, ctx.dim), sa) if ctx.needs_input_grad[0] else None
        gb = sum_to(Cross.apply(grad, a, ctx.dim), sb) if ctx.needs_input_grad[1] else None
        return ga, gb, None


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The 3-D cross product along ``dim`` (which must have size 3), broadcasting the rest."""
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = infer_size(tuple(input.shape), tuple(other.shape))
    if not -len(shape) <= dim < len(shape):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-len(shape)}, {len(shape) - 1}], "
                         f"but got {dim})")
    d = dim % len(shape)
    if input.shape[d - len(shape) + input.ndim] != 3 or other.shape[d - len(shape) + other.ndim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d - len(shape) + input.ndim]} and {other.shape[d - len(shape) + other.ndim]}")
    if input.dtype is not other.dtype:
        raise RuntimeError("linalg.cross: expected both inputs to have the same dtype")
    check_kernel_dtype("cross", input, ints=True)
    return Cross.apply(input, other, d - len(shape))
