"""``torch.linalg``: norms, inverses, determinants, solving and decompositions.

``import learntorch as torch`` makes this ``torch.linalg``: ``torch.linalg.inv(A)``,
``torch.linalg.norm(x)``, ``torch.linalg.solve(A, b)``.  The decompositions live in
``ops/linalg_decomp.py`` (one ``Function`` each, with its backward); this module adds
the norms, which are compositions of reductions, and a few small conveniences.

Each function works on the last two dimensions (matrices) or on ``dim`` (vectors)
and treats leading dimensions as a batch.  Errors follow PyTorch: a non-square
matrix or an integer tensor is a ``RuntimeError``; a singular matrix, or one that is
not positive-definite for ``cholesky``, is a ``torch.linalg.LinAlgError`` (a
``RuntimeError`` too).

The triangular solves and the LU factorisation (``solve_triangular``, ``lu_factor``,
``lu_solve`` …) and the ``_ex`` forms that return an ``info`` tensor instead of raising live
in ``ops/linalg_lu.py``; ``matrix_exp`` and ``householder_product`` in ``ops/linalg_products.py``.
This module adds ``cond``, ``vander``, ``tensorinv`` and ``tensorsolve``, made of those.

learntorch has no complex dtypes, so ``eig`` and ``eigvals`` (whose results are complex for
a general real matrix) raise a ``NotImplementedError`` that says so; ``eigh`` covers
symmetric matrices.  ``ldl_factor`` / ``ldl_solve`` are not implemented.

The older top-level spellings (``torch.inverse``, ``torch.det``, ``torch.svd`` with
``V`` rather than ``Vh``, ``torch.pinverse``, ``torch.cross``, ``torch.lu``,
``torch.triangular_solve`` …) are at the end.
"""
from __future__ import annotations

import functools
import numbers
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import warn_always
from . import dtypes
from .creation import eye, ones
from .dtypes import SCALAR_NAMES
from .ops import reduction
from .ops.arrange import diagonal as _diagonal
from .ops.matmul import matmul
from .ops.linalg_decomp import (LinAlgError, _check_matrix, cholesky, cross, det, eigh, inv, matrix_rank, pinv, qr,
                                slogdet, solve, svd, svdvals)
from .ops.linalg_lu import (cholesky_ex, inv_ex, legacy_lu as _legacy_lu, lu, lu_factor, lu_factor_ex, lu_solve,
                            lu_unpack, solve_ex, solve_triangular, triangular_solve as _triangular_solve)
from .ops.linalg_products import householder_product, matrix_exp
from .ops.shape import cat, stack
from .tensor import Tensor

__all__ = ["LinAlgError", "norm", "vector_norm", "matrix_norm", "inv", "det", "slogdet", "solve", "svd", "svdvals",
           "qr", "eigh", "eigvalsh", "cholesky", "pinv", "matrix_rank", "cross", "matmul", "vecdot",
           "matrix_power", "multi_dot", "diagonal", "lstsq",
           "solve_triangular", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "inv_ex", "solve_ex", "cholesky_ex",
           "cond", "matrix_exp", "householder_product", "vander", "tensorinv", "tensorsolve", "eig", "eigvals"]

Ord = Union[int, float, str, None]
_INF = float("inf")


def vector_norm(x: Tensor, ord: Union[int, float] = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """``(Σ |xᵢ|^ord)^(1/ord)`` over ``dim`` (all elements by default); ``ord=inf`` is ``max|xᵢ|``,
    ``-inf`` is ``min|xᵢ|``, ``0`` counts the non-zeros.  A matrix is treated as a flat vector."""
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{x.dtype.name.capitalize()}")
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' must be Number, not str")
    if dtype is not None:
        x = x.to(dtype)
    return reduction.VectorNorm.apply(x, float(ord), dim, keepdim)


def matrix_norm(A: Tensor, ord: Ord = "fro", dim: Sequence[int] = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """A norm of each matrix: ``'fro'`` (√Σa²), ``'nuc'`` (Σσ), ``2``/``-2`` (largest/smallest σ),
    ``1``/``-1`` (max/min column sum of |a|), ``inf``/``-inf`` (max/min row sum of |a|)."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = (d % A.ndim for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    # the rest are easiest with the two matrix dimensions last
    M = A.movedim((d0, d1), (-2, -1))
    if ord == "nuc":
        out = svdvals(M).sum(-1)
    elif ord in (2, -2):
        s = svdvals(M)
        out = s.amax(-1) if ord == 2 else s.amin(-1)
    elif ord in (1, -1, _INF, -_INF):
        sums = M.abs().sum(-2 if ord in (1, -1) else -1)  # column sums for 1, row sums for inf
        out = sums.amax(-1) if ord > 0 else sums.amin(-1)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if keepdim:
        for d in sorted((d0, d1)):
            out = out.unsqueeze(d)
    return out


def norm(A: Tensor, ord: Ord = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``vector_norm`` or ``matrix_norm``, chosen as PyTorch does: with ``ord=None`` the 2-norm of
    all elements; otherwise a matrix norm for a 2-D input (or a 2-tuple ``dim``), else a vector norm."""
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               f"Got {A.ndim}D.")
        dim = tuple(range(A.ndim))
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got '{ord}' (a matrix norm needs "
                           "two dimensions)")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of a symmetric matrix, ascending."""
    return eigh(A, UPLO).eigenvalues


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product along ``dim``, broadcasting the other dimensions."""
    return (x * y).sum(dim)


def matrix_power(A: Tensor, n: int) -> Tensor:
    """``A`` multiplied by itself ``n`` times (``n=0``: the identity; ``n<0``: powers of ``A⁻¹``)."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if n == 0:
        return eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(tuple(A.shape)).clone()
    if n < 0:
        A, n = inv(A), -n
    # square-and-multiply: A⁹ = A⁸·A needs 4 products, not 8
    result: Optional[Tensor] = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """``A @ B @ C …`` (a 1-D first/last argument is a row/column vector)."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    return functools.reduce(matmul, tensors)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal of each matrix (``torch.diagonal`` with the matrix dimensions last by default)."""
    return _diagonal(A, offset, dim1, dim2)


class _LstsqResult(tuple):
    """``torch.return_types.linalg_lstsq``: (solution, residuals, rank, singular_values)."""
    __slots__ = ()
    __module__ = "torch.return_types"
    solution = property(lambda self: self[0])
    residuals = property(lambda self: self[1])
    rank = property(lambda self: self[2])
    singular_values = property(lambda self: self[3])


_LstsqResult.__name__ = _LstsqResult.__qualname__ = "linalg_lstsq"


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A: Tensor, B: Tensor, rcond: Optional[float] = None, *, driver: Optional[str] = None) -> Any:
    """The ``X`` minimising ``‖A X - B‖`` (least squares), as ``pinv(A) @ B``.

    The other fields follow what PyTorch's CPU LAPACK drivers fill, since programs read them:
    ``rank`` for all but ``gels`` (which assumes full rank); ``singular_values`` only for the
    SVD-based ``gelsd`` / ``gelss``; ``residuals`` (the squared error of each column of ``B``)
    for ``gels`` / ``gelsd`` / ``gelss`` when ``A`` is tall and every matrix has full rank.
    The default driver, ``gelsy``, fills ``solution`` and ``rank`` only.  (PyTorch uses QR- or
    SVD-based LAPACK routines: for a well-conditioned ``A`` the numbers agree to float32 rounding.)"""
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    vector = B.ndim == A.ndim - 1
    if (B.shape[-1] if vector else B.shape[-2]) != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    P = pinv(A, rtol=rcond)
    B_matrix = B.unsqueeze(-1) if vector else B
    X = matmul(P, B_matrix)
    empty = Tensor._zeros((0,), A.dtype, A.device)
    rank = Tensor._zeros((0,), dtypes.int64, A.device) if driver == "gels" else matrix_rank(A.detach(), rtol=rcond)
    singular_values = svdvals(A.detach()) if driver in ("gelsd", "gelss") else empty
    residuals = empty
    m, n = A.shape[-2], A.shape[-1]
    if driver in ("gels", "gelsd", "gelss") and m > n and bool((matrix_rank(A.detach()) == n).all()):
        residuals = (matmul(A, X) - B_matrix).square().sum(-2)
    return _LstsqResult((X.squeeze(-1) if vector else X, residuals, rank, singular_values))


# ----------------------------------------------------------------------------- built on the factorisations
_COND_ORDERS = (None, 2, -2, "fro", "nuc", 1, -1, _INF, -_INF)


def cond(A: Tensor, p: Ord = None) -> Tensor:
    """The condition number ``‖A‖ · ‖A⁻¹‖``: how much a relative error in ``b`` can grow in the
    solution of ``A x = b`` (1 for an orthogonal matrix, ``inf`` for a singular one).

    For the 2-norm (the default) it is ``σ_max / σ_min``, from the singular values, so a
    non-square ``A`` is allowed; ``p=-2`` gives the reciprocal.  The other norms need the
    inverse, hence a square ``A``; a singular one gives ``inf``."""
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in _COND_ORDERS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in (None, 2, -2):
        s = svdvals(A)
        largest, smallest = s[..., :1], s[..., -1:]
        return (smallest / largest if p == -2 else largest / smallest).squeeze(-1)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    inverse, info = inv_ex(A)
    if p != "nuc":  # a singular matrix's "inverse" holds inf and nan: its condition number is inf
        return (matrix_norm(A, p) * matrix_norm(inverse, p)).nan_to_num(nan=_INF, posinf=_INF)
    singular = info > 0
    if not bool(singular.any()):
        return matrix_norm(A, p) * matrix_norm(inverse, p)
    inverse = inverse.where(~singular.unsqueeze(-1).unsqueeze(-1), 0.0)  # (no singular values of nan)
    return (matrix_norm(A, p) * matrix_norm(inverse, p)).where(~singular, _INF)


def vander(x: Tensor, *, N: Optional[int] = None) -> Tensor:
    """The Vandermonde matrix ``[1, x, x², …, x^(N-1)]`` (powers increasing along the last
    dimension; ``N`` defaults to ``x``'s length): the design matrix of a polynomial fit, since
    ``vander(x) @ c`` evaluates the polynomial with coefficients ``c`` at each ``x``."""
    if x.dtype is dtypes.bool:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    n = x.shape[-1] if x.ndim else 1
    N = n if N is None else N
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    if not x.dtype.is_floating_point:
        x = x.to(dtypes.int64)
    return cat([ones(*x.shape, 1, dtype=x.dtype, device=x.device), _running_powers(x, N - 1)], dim=-1)


def _running_powers(x: Tensor, count: int) -> Tensor:
    """``x, x², …, x^count`` along a new last dimension, each power the previous one times ``x``
    (the running product that ``cumprod`` computes, written out so that it can be
    differentiated twice)."""
    powers = [x]
    for _ in range(count - 1):
        powers.append(powers[-1] * x)
    return stack(powers, dim=-1)


def _prod(sizes: Sequence[int]) -> int:
    out = 1
    for s in sizes:
        out *= s
    return out


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` seen as a linear map from its last dimensions (from ``ind`` on) to
    its first ``ind``: ``tensordot(tensorinv(A, ind), A, ind)`` is the identity.  It is the
    matrix inverse of ``A`` flattened to a square matrix, reshaped back."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = _prod(A.shape[:ind]), _prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return inv(A.reshape(rows, cols)).reshape(*A.shape[ind:], *A.shape[:ind])


def tensorsolve(A: Tensor, B: Tensor, dims: Optional[Sequence[int]] = None) -> Tensor:
    """The ``X`` with ``tensordot(A, X, X.ndim) == B``: ``A``'s first ``B.ndim`` dimensions
    are the equations, the rest the unknowns (``dims``: dimensions of ``A`` to move to the end
    first).  A matrix ``solve`` on the flattened shapes."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))
    unknowns = tuple(A.shape[B.ndim:])
    rows, cols = _prod(A.shape[:B.ndim]), _prod(unknowns)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(unknowns)


def _no_complex(name: str, A: Tensor) -> None:
    _check_matrix(name, A)
    raise NotImplementedError(f"{name}: the eigenvalues of a general real matrix are complex numbers, and learntorch "
                              "has no complex dtypes, so this is not supported. For a symmetric matrix use "
                              "torch.linalg.eigh / eigvalsh, whose results are real.")


def eig(A: Tensor) -> Any:
    """Not supported: the eigen-decomposition of a general matrix is complex (see :func:`eigh`)."""
    _no_complex("linalg.eig", A)


def eigvals(A: Tensor) -> Tensor:
    """Not supported: the eigenvalues of a general matrix are complex (see :func:`eigvalsh`)."""
    _no_complex("linalg.eigvals", A)


_NOT_HERE = ("ldl_factor", "ldl_factor_ex", "ldl_solve")


def __getattr__(name: str) -> Any:
    """Say why a ``torch.linalg`` name is missing where the reason is known."""
    if name in _NOT_HERE:
        raise AttributeError(f"learntorch.linalg has no {name}: the LDLᵀ factorisation with Bunch-Kaufman pivoting "
                             "is not implemented. For a symmetric positive-definite matrix use "
                             "torch.linalg.cholesky, otherwise torch.linalg.lu_factor / lu_solve.")
    raise AttributeError(f"module 'learntorch.linalg' has no attribute '{name}'")


# ----------------------------------------------------------------------------- older top-level spellings
_WARNED: set = set()  # PyTorch gives each deprecation warning once per process (TORCH_WARN_ONCE)


def _deprecated(name: str, message: str) -> None:
    if name not in _WARNED or warn_always.is_warn_always_enabled():
        _WARNED.add(name)
        warn_always.warn(message, UserWarning, stacklevel=3)


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> Any:
    """``torch.triangular_solve``: ``(solution, cloned_coefficient)`` with ``A X = b``
    (``transpose``: ``Aᵀ X = b``).  Deprecated by PyTorch in favour of ``solve_triangular(A, b)``
    (arguments the other way round, and no copy of ``A``); it warns once."""
    _deprecated("triangular_solve",
                "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular and will be removed "
                "in a future PyTorch release.\ntorch.linalg.solve_triangular takes its arguments the other way "
                "round and returns no copy of A:\nX = torch.triangular_solve(B, A).solution\nbecomes\n"
                "X = torch.linalg.solve_triangular(A, B).")
    return _triangular_solve(b, A, upper, transpose, unitriangular)


def legacy_lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """``torch.lu``: ``(LU, pivots)`` or, with ``get_infos``, ``(LU, pivots, info)``.  Deprecated
    by PyTorch in favour of ``linalg.lu_factor`` / ``lu_factor_ex``; it warns once."""
    _deprecated("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
                "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
                "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
                "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
                "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")
    return _legacy_lu(A, pivot, get_infos)


def legacy_cholesky(A: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky`` (and ``Tensor.cholesky``): :func:`cholesky`, deprecated by PyTorch in favour of
    ``torch.linalg.cholesky`` (it warns once), with ``upper`` positional and two old ways kept: an
    empty input is handed back as a new empty tensor of its shape, square or not (no check runs),
    and a non-floating dtype is the kernel's NotImplementedError."""
    _deprecated("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
                "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
                "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = "
                "torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results for all valid (symmetric "
                "positive definite) inputs.")
    if not isinstance(upper, (bool, np.bool_)):  # (PyTorch's parser takes no other flag)
        raise TypeError(f"cholesky(): argument 'upper' (position 2) must be bool, not {type(upper).__name__}")
    if A.numel() == 0:
        return A.clone()
    if A.ndim < 2:
        raise RuntimeError("cholesky: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"cholesky: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if not A.dtype.is_floating_point or A.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{dtypes.type_name(A.dtype)}'")
    return cholesky(A, upper=bool(upper))


def legacy_lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """``torch.lu_solve(b, LU, pivots)``: ``linalg.lu_solve(LU, pivots, b)`` (deprecated by
    PyTorch, which moved ``b`` last; it warns once)."""
    _deprecated("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in a "
                "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
                "X = torch.lu_solve(B, LU, pivots)\nbecomes\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return lu_solve(LU_data, LU_pivots, b)


def legacy_vander(x: Tensor, N: Optional[int] = None, increasing: bool = False) -> Tensor:
    """``torch.vander``: the powers of a 1-D ``x`` as columns, *decreasing* by default
    (NumPy's convention; ``torch.linalg.vander`` increases and takes batches)."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    N = x.shape[0] if N is None else N
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    if not x.dtype.is_floating_point:
        x = x.to(dtypes.int64)
    result = ones(x.shape[0], N, dtype=x.dtype, device=x.device)
    if N > 1:
        result[:, 1:] = _running_powers(x, N - 1)
    return result if increasing else result.flip(1)


def inverse(input: Tensor) -> Tensor:
    """``torch.inverse``: the same as ``torch.linalg.inv``."""
    return inv(input)


def logdet(input: Tensor) -> Tensor:
    """``log det A``: NaN where the determinant is negative, ``-inf`` where it is 0."""
    sign, logabs = slogdet(input)
    return logabs.where(sign >= 0, float("nan")).where(sign != 0, -_INF)


def legacy_svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    """``torch.svd``: ``(U, S, V)`` with ``A = U diag(S) Vᵀ`` (note ``V``, not ``Vh``);
    prefer ``torch.linalg.svd``."""
    U, S, Vh = svd(input, full_matrices=not some)
    V = Vh.transpose(-2, -1)
    if not compute_uv:
        U, V = U.detach().zero_(), V.detach().zero_()
    return _svd_legacy_result(U, S, V)


def svd_lowrank(A: Tensor, q: Optional[int] = 6, niter: int = 2, M: Optional[Tensor] = None) -> Any:
    """``torch.svd_lowrank``: ``(U, S, V)``, the ``q`` largest singular values of ``A - M`` and
    their vectors (``A ≈ U diag(S) Vᵀ``; ``q`` is capped at ``min(m, n)``).

    PyTorch finds them by a randomized method (``niter`` power iterations on random
    projections), which is fast for a large matrix.  learntorch truncates the exact SVD
    instead: the same values up to the randomized method's error, deterministic, and
    ``niter`` is not used.  Singular vectors are defined up to sign, so theirs may differ."""
    if M is not None:
        A = A - M
    k = min(6 if q is None else q, A.shape[-2], A.shape[-1])
    U, S, Vh = svd(A, full_matrices=False)
    return U[..., :k], S[..., :k], Vh[..., :k, :].transpose(-2, -1)


def pca_lowrank(A: Tensor, q: Optional[int] = None, center: bool = True, niter: int = 2) -> Any:
    """``torch.pca_lowrank``: principal component analysis of the rows of ``A`` (samples) as
    :func:`svd_lowrank` of the centred data; ``V``'s columns are the principal directions and
    ``S² / (m - 1)`` the variances along them.  ``q`` defaults to ``min(6, m, n)``."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (isinstance(q, int) and 0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    M = A.mean(-2, keepdim=True) if center else None
    return svd_lowrank(A, q, niter, M)


from .ops.linalg_decomp import _named  # noqa: E402

_svd_legacy_result = _named("svd", "U S V")
_qr_legacy_result = _named("qr", "Q R")


def legacy_qr(input: Tensor, some: bool = True) -> Any:
    """``torch.qr`` (deprecated in PyTorch, with this warning): ``torch.linalg.qr``, ``some`` for its mode."""
    warn_always.warn_once("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                          "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
                          "Q, R = torch.qr(A, some)\nshould be replaced with\n"
                          "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning)
    return _qr_legacy_result(*qr(input, "reduced" if some else "complete"))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv`` with singular values below ``rcond · σ_max`` dropped."""
    return pinv(input, rtol=rcond)


def legacy_cross(input: Tensor, other: Tensor, dim: Optional[int] = None) -> Tensor:
    """``torch.cross``: without ``dim``, the first dimension of size 3 (PyTorch warns about
    that default; pass ``dim`` explicitly, or use ``torch.linalg.cross``, whose default is -1)."""
    if dim is None:
        warn_always.warn("Using torch.cross without specifying the dim arg is deprecated. Please either pass the "
                         "dim explicitly or simply use torch.linalg.cross. The default value of dim will change to "
                         "agree with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return cross(input, other, dim=dim)


def legacy_norm(input: Tensor, p: Any = "fro", dim: Union[int, Sequence[int], None] = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """``torch.norm`` / ``x.norm()``: the p-norm (2 by default) over all elements or ``dim``;
    ``'fro'`` over two dims and ``'nuc'`` are matrix norms.  (PyTorch keeps this older
    spelling beside ``torch.linalg.vector_norm`` / ``matrix_norm``, which it calls.)"""
    if not isinstance(p, (str, numbers.Number)) and p is not None and not (isinstance(p, Tensor) and p.numel() == 1):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(p).__name__}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{SCALAR_NAMES[input.dtype.name]}")
    if p == "nuc" or (p == "fro" and isinstance(dim, (tuple, list)) and len(dim) == 2):
        return matrix_norm(input, p, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if p == "fro" or p is None:
        p = 2
    if dim is None and not input.numel() and float(p) < 0:  # (the minimum of no numbers)
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor because the "
                           f"operation does not have an identity")
    return reduction.VectorNorm.apply(input if dtype is None else input.to(dtype), float(p), dim, keepdim)
