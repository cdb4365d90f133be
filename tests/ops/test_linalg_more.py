"""More of ``torch.linalg`` against PyTorch: triangular solves, the LU factorisation and what
is built on it (``lu_solve``, the ``_ex`` forms, ``cond``), ``matrix_exp``,
``householder_product``, ``vander``, ``tensorinv``/``tensorsolve`` and the older top-level
spellings (``torch.triangular_solve``, ``torch.lu``, ``torch.lu_solve``, ``torch.lu_unpack``,
``torch.vander``).  Values, dtypes, ``grad_fn`` names, gradients, result types and error
types; ``gradcheck``/``gradgradcheck`` in float64 for every new backward.

Matrices are well conditioned (``G`` = random + 3·I) so that float32 results agree to ~1e-5.
Two of PyTorch 2.13's own backwards fail (``cond`` with ``p`` in fro/1/inf and ``torch.vander``
raise "modified by an inplace operation"): there learntorch's gradients are checked with
``gradcheck`` alone."""
from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt
from learntorch.autograd import gradcheck, gradgradcheck

from conftest import check_both, grads_both, raises_both

pytestmark = pytest.mark.torch

RNG = np.random.default_rng(11)
G = (RNG.standard_normal((4, 4)) + 3 * np.eye(4)).astype(np.float32)     # invertible, no near-tie pivots
BATCH = np.stack([G, G.T, 2 * G]).astype(np.float32)                      # 3 × 4 × 4
B = RNG.standard_normal((4, 2)).astype(np.float32)
WIDE = RNG.standard_normal((3, 5)).astype(np.float32)
TALL = RNG.standard_normal((5, 3)).astype(np.float32)
_X = RNG.standard_normal((4, 4))
SPD = (_X @ _X.T + 4 * np.eye(4)).astype(np.float32)
NOT_PD = np.array([[1., 2., 0.], [2., 1., 0.], [0., 0., 1.]], dtype=np.float32)
SINGULAR_DIAG = np.diag([1., 0., 2.]).astype(np.float32)
TOL = dict(rtol=1e-4, atol=1e-4)


def T_(T: Any, a: np.ndarray, **kw: Any) -> Any:
    return T.tensor(np.array(a), **kw)


def f64(a: np.ndarray) -> lt.Tensor:
    return lt.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


# ----------------------------------------------------------------------------- solve_triangular
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(torch_oracle: Any, upper: bool, left: bool, unit: bool) -> None:
    rhs = B if left else B.T.copy()
    grads_both(lambda T, a, b: T.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit),
               torch_oracle, G, rhs, **TOL)


def test_solve_triangular_batches_singular_and_errors(torch_oracle: Any) -> None:
    grads_both(lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False), torch_oracle, BATCH, B, **TOL)
    grads_both(lambda T, a, b: T.linalg.solve_triangular(a, b.expand(2, 1, 4, 2), upper=True), torch_oracle,
               BATCH, B, **TOL)
    # a zero on the diagonal: inf and nan where LAPACK has them, no error
    check_both(lambda T: T.linalg.solve_triangular(T_(T, SINGULAR_DIAG), T.ones(3, 1), upper=True), torch_oracle)
    check_both(lambda T: T.linalg.solve_triangular(T.eye(3, dtype=T.float64), T.ones(3, 1), upper=True),
               torch_oracle)
    raises_both(lambda T: T.linalg.solve_triangular(T.eye(3), T.ones(3), upper=True), torch_oracle,
                match="at least 2 dimensions")
    raises_both(lambda T: T.linalg.solve_triangular(T.eye(3), T.ones(3, 1)), torch_oracle)  # upper is required
    raises_both(lambda T: T.linalg.solve_triangular(T.eye(3, dtype=T.long), T.ones(3, 1, dtype=T.long),
                                                    upper=True), torch_oracle, match="not implemented for 'Long'")
    raises_both(lambda T: T.linalg.solve_triangular(T.ones(3, 2), T.ones(3, 1), upper=True), torch_oracle,
                match="square matrices")
    raises_both(lambda T: T.linalg.solve_triangular(T.eye(3), T.ones(2, 2), upper=True, left=False),
                torch_oracle, match="XA = B")


# ----------------------------------------------------------------------------- LU
@pytest.mark.parametrize("data", [G, WIDE, TALL, BATCH], ids=["square", "wide", "tall", "batch"])
def test_lu_factor_and_lu(torch_oracle: Any, data: np.ndarray) -> None:
    grads_both(lambda T, a: T.linalg.lu_factor(a).LU, torch_oracle, data, **TOL)
    grads_both(lambda T, a: T.linalg.lu(a).L, torch_oracle, data, **TOL)
    grads_both(lambda T, a: T.linalg.lu(a).U, torch_oracle, data, **TOL)
    check_both(lambda T: (T.linalg.lu_factor_ex(T_(T, data)).pivots, T.linalg.lu_factor_ex(T_(T, data)).info,
                          T.linalg.lu(T_(T, data)).P), torch_oracle)


def test_lu_singular_and_errors(torch_oracle: Any) -> None:
    check_both(lambda T: tuple(T.linalg.lu_factor_ex(T.ones(3, 3))), torch_oracle)
    check_both(lambda T: tuple(T.linalg.lu_factor_ex(T.stack([T.eye(3), T.ones(3, 3)]))), torch_oracle)
    check_both(lambda T: tuple(T.linalg.lu(T.ones(3, 3))), torch_oracle)
    raises_both(lambda T: T.linalg.lu_factor(T.ones(3, 3)), torch_oracle, match=r"U\[2,2\] is zero")
    raises_both(lambda T: T.linalg.lu_factor(T.stack([T.eye(3), T.ones(3, 3)])), torch_oracle,
                match=r"\(Batch element 1\): U\[2,2\] is zero")
    raises_both(lambda T: T.linalg.lu_factor_ex(T.ones(3, 3), check_errors=True), torch_oracle, match="lu_factor_ex")
    raises_both(lambda T: T.linalg.lu_factor(T.eye(3), pivot=False), torch_oracle, match="without pivoting")
    raises_both(lambda T: T.linalg.lu_factor(T.ones(3)), torch_oracle, match="2 or more dimensions")
    raises_both(lambda T: T.linalg.lu(T.eye(3, dtype=T.long)), torch_oracle, match="not implemented for 'Long'")


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(torch_oracle: Any, left: bool, adjoint: bool) -> None:
    rhs = B if left else B.T.copy()
    grads_both(lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b, left=left, adjoint=adjoint),
               torch_oracle, G, rhs, **TOL)


def test_lu_solve_gradient_of_lu_itself_and_errors(torch_oracle: Any) -> None:
    LU, pivots = (x.numpy() for x in lt.linalg.lu_factor(lt.tensor(G)))
    grads_both(lambda T, lu, b: T.linalg.lu_solve(lu, T.tensor(pivots), b), torch_oracle, LU, B, **TOL)
    grads_both(lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b), torch_oracle, BATCH, B, **TOL)
    factors = lambda T: T.linalg.lu_factor(T.eye(3))
    raises_both(lambda T: T.linalg.lu_solve(*factors(T), T.ones(3)), torch_oracle, match="at least 2 dimensions")
    raises_both(lambda T: T.linalg.lu_solve(*factors(T), T.ones(2, 1)), torch_oracle, match="AX = B")
    raises_both(lambda T: T.linalg.lu_solve(factors(T)[0], T.ones(3, dtype=T.long), T.ones(3, 1)), torch_oracle,
                match="int32")
    raises_both(lambda T: T.linalg.lu_solve(*factors(T), T.ones(3, 1, dtype=T.float64)), torch_oracle,
                match="same dtype")


def test_lu_unpack_and_the_deprecated_forms(torch_oracle: Any) -> None:
    for data in (G, WIDE, TALL):
        grads_both(lambda T, a: T.lu_unpack(*T.linalg.lu_factor(a)).L, torch_oracle, data, **TOL)
        grads_both(lambda T, a: T.lu_unpack(*T.linalg.lu_factor(a)).U, torch_oracle, data, **TOL)
    check_both(lambda T: tuple(T.lu_unpack(*T.linalg.lu_factor(T_(T, WIDE)))), torch_oracle)
    check_both(lambda T: tuple(T.lu_unpack(*T.linalg.lu_factor(T_(T, G)), unpack_data=False)), torch_oracle)
    check_both(lambda T: tuple(T.lu_unpack(*T.linalg.lu_factor(T_(T, G)), unpack_pivots=False)), torch_oracle)
    raises_both(lambda T: T.lu_unpack(T.eye(3), T.ones(3, dtype=T.long)), torch_oracle, match="int32")
    raises_both(lambda T: T.lu_unpack(T.eye(3), T.zeros(3, dtype=T.int32)), torch_oracle, match="between 1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_both(lambda T: T.lu(T_(T, G)), torch_oracle, **TOL)                 # a plain tuple
        check_both(lambda T: tuple(T.lu(T.ones(3, 3), get_infos=True)), torch_oracle)
        grads_both(lambda T, a, b: T.lu_solve(b, *T.linalg.lu_factor(a)), torch_oracle, G, B, **TOL)
        grads_both(lambda T, b, a: T.triangular_solve(b, a).solution, torch_oracle, B, G, **TOL)
        grads_both(lambda T, b, a: T.triangular_solve(b, a, upper=False, transpose=True, unitriangular=True).solution,
                   torch_oracle, B, G, **TOL)
        # both results come from one node: the gradient of the copy of A adds to that of the solution
        grads_both(lambda T, b, a: (lambda r: r.solution.sum(-1) + r.cloned_coefficient.sum(-1))(
            T.triangular_solve(b, a, transpose=True)), torch_oracle, B, G, **TOL)
        raises_both(lambda T: T.triangular_solve(T.ones(3), T.eye(3)), torch_oracle, match="at least 2 dimensions")
    assert type(lt.lu(lt.tensor(G))) is tuple


def test_deprecated_forms_warn_once() -> None:
    lt.linalg._WARNED.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            LU, pivots = lt.lu(lt.tensor(G))
            lt.lu_solve(lt.tensor(B), LU, pivots)
            lt.triangular_solve(lt.tensor(B), lt.tensor(G))
    assert [w.category for w in caught] == [UserWarning] * 3
    assert [str(w.message).split()[0] for w in caught] == ["torch.lu", "torch.lu_solve", "torch.triangular_solve"]
    assert all(w.filename == __file__ for w in caught)  # pointed at the caller, as PyTorch's


# ----------------------------------------------------------------------------- the _ex forms
def test_inv_ex_solve_ex_cholesky_ex(torch_oracle: Any) -> None:
    grads_both(lambda T, a: T.linalg.inv_ex(a).inverse, torch_oracle, BATCH, **TOL)
    grads_both(lambda T, a, b: T.linalg.solve_ex(a, b).result, torch_oracle, G, B, **TOL)
    grads_both(lambda T, a, b: T.linalg.solve_ex(a, b[:, 0], left=True).result, torch_oracle, G, B, **TOL)
    grads_both(lambda T, a, b: T.linalg.solve_ex(a, b.T, left=False).result, torch_oracle, G, B, **TOL)
    grads_both(lambda T, a: T.linalg.cholesky_ex(a).L, torch_oracle, SPD, **TOL)
    grads_both(lambda T, a: T.linalg.cholesky_ex(a, upper=True).L, torch_oracle, SPD, **TOL)
    check_both(lambda T: tuple(T.linalg.inv_ex(T_(T, G))), torch_oracle, **TOL)   # info 0


def test_ex_forms_report_instead_of_raising(torch_oracle: Any) -> None:
    check_both(lambda T: tuple(T.linalg.inv_ex(T_(T, SINGULAR_DIAG))), torch_oracle)       # inf/nan, info 2
    check_both(lambda T: T.linalg.inv_ex(T.stack([T.eye(3), T.ones(3, 3)])).info, torch_oracle)
    check_both(lambda T: tuple(T.linalg.solve_ex(T_(T, SINGULAR_DIAG), T.ones(3))), torch_oracle)
    check_both(lambda T: tuple(T.linalg.cholesky_ex(T_(T, NOT_PD))), torch_oracle)     # LAPACK's partial factor
    check_both(lambda T: T.linalg.cholesky_ex(T.stack([T.eye(2), -T.eye(2)])).info, torch_oracle)
    raises_both(lambda T: T.linalg.inv_ex(T.stack([T.eye(3), T.ones(3, 3)]), check_errors=True), torch_oracle,
                match=r"\(Batch element 1\): The diagonal element 2 is zero")
    raises_both(lambda T: T.linalg.solve_ex(T.ones(3, 3), T.ones(3), check_errors=True), torch_oracle,
                match="singular")
    raises_both(lambda T: T.linalg.cholesky_ex(T_(T, NOT_PD), check_errors=True), torch_oracle,
                match="leading minor of order 2")
    raises_both(lambda T: T.linalg.inv_ex(T.eye(2, dtype=T.long)), torch_oracle, match="floating point")
    with pytest.raises(lt.linalg.LinAlgError):
        lt.linalg.inv_ex(lt.ones(3, 3), check_errors=True)


# ----------------------------------------------------------------------------- cholesky_solve / cholesky_inverse
L_SPD = np.linalg.cholesky(SPD.astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(torch_oracle: Any, upper: bool) -> None:
    factor = L_SPD.T.copy() if upper else L_SPD
    # the gradient of the factor matches PyTorch's entry for entry (its upper triangle too)
    grads_both(lambda T, b, f: T.cholesky_solve(b, f, upper), torch_oracle, B, factor, **TOL)
    grads_both(lambda T, b, f: b.expand(3, 4, 2).cholesky_solve(f, upper=upper), torch_oracle, B, factor, **TOL)
    grads_both(lambda T, b, f: T.cholesky_solve(b, f.expand(2, 4, 4), upper=upper), torch_oracle, B, factor, **TOL)
    grads_both(lambda T, f: T.cholesky_inverse(f, upper), torch_oracle, factor, **TOL)
    grads_both(lambda T, f: f.expand(2, 4, 4).cholesky_inverse(upper=upper), torch_oracle, factor, **TOL)


def test_cholesky_solve_and_inverse_errors(torch_oracle: Any) -> None:
    L = T_  # (short name for the lambdas below)
    check_both(lambda T: T.cholesky_solve(T.ones(3, 1), L(T, SINGULAR_DIAG)), torch_oracle)  # inf/nan, no error
    raises_both(lambda T: T.cholesky_solve(T.ones(4), L(T, L_SPD)), torch_oracle, match="at least 2 dimensions")
    raises_both(lambda T: T.cholesky_solve(T.ones(3, 1), L(T, L_SPD)), torch_oracle, match="Incompatible matrix")
    raises_both(lambda T: T.cholesky_solve(T.ones(2, 1), T.ones(2, 3)), torch_oracle, match="square matrices")
    raises_both(lambda T: T.cholesky_solve(T.ones(4, 1, dtype=T.float64), L(T, L_SPD)), torch_oracle,
                match="same dtype")
    raises_both(lambda T: T.cholesky_solve(T.ones(2, 1, dtype=T.long), T.eye(2, dtype=T.long)), torch_oracle,
                match="not implemented for 'Long'")
    raises_both(lambda T: T.cholesky_inverse(T.ones(3)), torch_oracle, match="at least 2 dimensions")
    raises_both(lambda T: T.cholesky_inverse(T.ones(2, 3)), torch_oracle, match="square matrices")
    raises_both(lambda T: T.cholesky_inverse(L(T, SINGULAR_DIAG)), torch_oracle, match="diagonal element 2 is zero")
    with pytest.raises(lt.linalg.LinAlgError, match=r"\(Batch element 1\): The diagonal element 2"):
        lt.cholesky_inverse(lt.stack([lt.eye(3), lt.tensor(SINGULAR_DIAG)]))


# ----------------------------------------------------------------------------- svd_lowrank / pca_lowrank
def test_svd_lowrank_and_pca_lowrank(torch_oracle: Any) -> None:
    """PyTorch's randomized method and learntorch's truncated exact SVD: the same shapes and,
    for data with a clear spectrum, the same leading singular values (vectors up to sign)."""
    data = (RNG.standard_normal((30, 5)) * [5, 3, 1, .5, .1]).astype(np.float32)
    for fn in (lambda T, a: T.pca_lowrank(a, q=3), lambda T, a: T.pca_lowrank(a.expand(2, 30, 5)),
               lambda T, a: T.svd_lowrank(a, q=2), lambda T, a: T.svd_lowrank(a, q=9, M=a.mean(0)),
               lambda T, a: T.pca_lowrank(a, center=False)):
        torch_oracle.manual_seed(0)  # (PyTorch's random projections: the same draws in every run)
        ours, theirs = fn(lt, T_(lt, data)), fn(torch_oracle, T_(torch_oracle, data, dtype=torch_oracle.float64))
        assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]
        np.testing.assert_allclose(ours[1].numpy(), theirs[1].numpy(), rtol=1e-2)
        np.testing.assert_allclose(np.abs(ours[2][..., 0].numpy()), np.abs(theirs[2][..., 0].numpy()), atol=1e-2)
    raises_both(lambda T: T.pca_lowrank(T.ones(6, 4), q=5), torch_oracle, match="not greater than min")
    raises_both(lambda T: T.pca_lowrank(T.ones(6, 4), q=-1), torch_oracle, match="non-negative")


# ----------------------------------------------------------------------------- cond
@pytest.mark.parametrize("p", [None, 2, -2, "nuc"])
def test_cond_through_singular_values_and_nuc(torch_oracle: Any, p: Any) -> None:
    grads_both(lambda T, a: T.linalg.cond(a, p), torch_oracle, BATCH, **TOL)


@pytest.mark.parametrize("p", ["fro", 1, -1, float("inf"), -float("inf")])
def test_cond_through_the_inverse(torch_oracle: Any, p: Any) -> None:
    # (PyTorch 2.13 cannot differentiate these: its backward fails, ours is checked by gradcheck below)
    check_both(lambda T: T.linalg.cond(T_(T, BATCH), p), torch_oracle, **TOL)
    check_both(lambda T: T.linalg.cond(T.ones(3, 3), p), torch_oracle)           # singular: inf
    assert gradcheck(lambda a: lt.linalg.cond(a, p), (f64(G),))


def test_cond_edges_and_errors(torch_oracle: Any) -> None:
    check_both(lambda T: T.linalg.cond(T_(T, WIDE)), torch_oracle, **TOL)
    check_both(lambda T: T.linalg.cond(T.ones(3, 3), "nuc"), torch_oracle)
    raises_both(lambda T: T.linalg.cond(T.ones(2, 3), "fro"), torch_oracle, match="square matrices")
    raises_both(lambda T: T.linalg.cond(T.eye(2), 3), torch_oracle, match="invalid norm type")
    raises_both(lambda T: T.linalg.cond(T.ones(2)), torch_oracle, match="at least 2 dimensions")


# ----------------------------------------------------------------------------- matrix_exp, householder_product
def test_matrix_exp(torch_oracle: Any) -> None:
    grads_both(lambda T, a: T.linalg.matrix_exp(a), torch_oracle, G / 4, **TOL)
    grads_both(lambda T, a: T.matrix_exp(a), torch_oracle, BATCH / 4, **TOL)
    rotation = np.array([[0., 10.], [-10., 0.]], dtype=np.float32)  # needs many squarings
    check_both(lambda T: T.linalg.matrix_exp(T_(T, rotation)), torch_oracle, **TOL)
    check_both(lambda T: T.linalg.matrix_exp(T.zeros(0, 0)), torch_oracle)
    raises_both(lambda T: T.linalg.matrix_exp(T.ones(2, 3)), torch_oracle, match="square matrices")
    raises_both(lambda T: T.linalg.matrix_exp(T.eye(2, dtype=T.long)), torch_oracle, match="floating point")


def test_householder_product(torch_oracle: Any) -> None:
    tau = RNG.standard_normal(3).astype(np.float32)
    grads_both(lambda T, a, t: T.linalg.householder_product(a, t), torch_oracle, TALL, tau, **TOL)
    grads_both(lambda T, a, t: T.orgqr(a, t), torch_oracle, TALL, tau[:2], **TOL)      # fewer reflections
    grads_both(lambda T, a, t: T.linalg.householder_product(a, t), torch_oracle, np.stack([TALL, -TALL]),
               np.stack([tau, tau / 2]), **TOL)
    raises_both(lambda T: T.linalg.householder_product(T.ones(2, 3), T.ones(2)), torch_oracle,
                match="greater than or equal")
    raises_both(lambda T: T.linalg.householder_product(T.ones(3, 2), T.ones(3)), torch_oracle,
                match="greater than or equal")
    raises_both(lambda T: T.linalg.householder_product(T.ones(2, 3, 2), T.ones(2)), torch_oracle,
                match="one dimension less")
    raises_both(lambda T: T.linalg.householder_product(T.ones(3, 2), T.ones(2, dtype=T.float64)), torch_oracle,
                match="tau dtype Double does not match input dtype Float")


@pytest.mark.parametrize("data", [TALL, WIDE, G, BATCH, np.zeros((0, 3), np.float32)],
                         ids=["tall", "wide", "square", "batch", "empty"])
def test_geqrf_and_back_to_q(torch_oracle: Any, data: np.ndarray) -> None:
    check_both(lambda T: tuple(T.geqrf(T_(T, data))), torch_oracle, **TOL)
    if data.size and data.shape[-2] >= data.shape[-1]:
        check_both(lambda T: T.linalg.householder_product(*T_(T, data).geqrf()), torch_oracle, **TOL)


def test_geqrf_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.geqrf(T.ones(3)), torch_oracle, match="at least 2 dimensions")
    raises_both(lambda T: T.geqrf(T.ones(3, 3, dtype=T.long)), torch_oracle, match="not implemented for 'Long'")
    raises_both(lambda T: T.geqrf(T.eye(3, requires_grad=True)).a.sum().backward(), torch_oracle,
                match="derivative for 'geqrf' is not implemented")


def test_orthogonal_maps_use_the_operations() -> None:
    from learntorch.nn.utils import _orthogonal_maps
    # (torch.matrix_exp is the same function, behind the check of its arguments' types: tensor_arguments.py)
    assert _orthogonal_maps.matrix_exp is lt.linalg.matrix_exp is inspect.unwrap(lt.matrix_exp)
    assert _orthogonal_maps.householder_product is lt.linalg.householder_product


# ----------------------------------------------------------------------------- vander, tensorinv, tensorsolve
def test_vander(torch_oracle: Any) -> None:
    x = RNG.standard_normal(4).astype(np.float32)
    grads_both(lambda T, v: T.linalg.vander(v), torch_oracle, x)
    grads_both(lambda T, v: T.linalg.vander(v, N=3), torch_oracle, np.stack([x, 2 * x]))
    check_both(lambda T: T.linalg.vander(T.arange(3, dtype=T.int32)), torch_oracle)
    # (PyTorch 2.13's torch.vander has no working backward: values and node names only)
    check_both(lambda T: T.vander(T_(T, x, requires_grad=True)), torch_oracle)
    check_both(lambda T: T.vander(T_(T, x, requires_grad=True), N=3, increasing=True), torch_oracle)
    check_both(lambda T: (T.vander(T.tensor([True, False])), T.vander(T_(T, x), N=0), T.vander(T_(T, x), N=1)),
               torch_oracle)
    raises_both(lambda T: T.linalg.vander(T.ones(3), N=1), torch_oracle, match="greater than 1")
    raises_both(lambda T: T.linalg.vander(T.tensor([True])), torch_oracle, match="Bool")
    raises_both(lambda T: T.vander(T.ones(2, 2)), torch_oracle, match="one-dimensional")
    raises_both(lambda T: T.vander(T.ones(2), N=-1), torch_oracle, match="non-negative")


def test_tensorinv_tensorsolve(torch_oracle: Any) -> None:
    a = RNG.standard_normal((4, 6, 8, 3)).astype(np.float32) + np.eye(24, dtype=np.float32).reshape(4, 6, 8, 3) * 4
    grads_both(lambda T, m: T.linalg.tensorinv(m, ind=2), torch_oracle, a, check_grad_fn=False, **TOL)
    grads_both(lambda T, m: T.linalg.tensorinv(m.reshape(4, 2, 2), ind=1), torch_oracle, G, check_grad_fn=False,
               **TOL)
    eq = (RNG.standard_normal((2, 3, 6)) + 3 * np.eye(6).reshape(2, 3, 6)).astype(np.float32)
    rhs = RNG.standard_normal((2, 3)).astype(np.float32)
    grads_both(lambda T, m, b: T.linalg.tensorsolve(m, b), torch_oracle, eq, rhs, **TOL)
    grads_both(lambda T, m, b: T.linalg.tensorsolve(m.movedim(2, 0), b, dims=(0,)), torch_oracle, eq, rhs, **TOL)
    raises_both(lambda T: T.linalg.tensorinv(T.ones(2, 3, 4), ind=1), torch_oracle, match="12 != 2")
    raises_both(lambda T: T.linalg.tensorinv(T.ones(2, 2), ind=0), torch_oracle, match="strictly positive")
    raises_both(lambda T: T.linalg.tensorsolve(T.ones(2, 3, 5), T.ones(2, 3)), torch_oracle, match="5 != 6")


# ----------------------------------------------------------------------------- not supported here
def test_eig_and_ldl_say_why_they_are_missing(torch_oracle: Any) -> None:
    for fn in (lt.linalg.eig, lt.linalg.eigvals):
        with pytest.raises(NotImplementedError, match="no complex dtypes"):
            fn(lt.tensor(G))
    raises_both(lambda T: T.linalg.eig(T.eye(2, dtype=T.long)), torch_oracle)
    assert issubclass(NotImplementedError, RuntimeError)  # so `except RuntimeError` catches it, as in PyTorch
    with pytest.raises(AttributeError, match="LDL"):
        lt.linalg.ldl_factor  # noqa: B018


def test_result_types_match_torch(torch_oracle: Any) -> None:
    def types(T: Any) -> list:
        a, spd = T_(T, G), T_(T, SPD)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = [T.linalg.lu_factor(a), T.linalg.lu_factor_ex(a), T.linalg.lu(a), T.linalg.inv_ex(a),
                       T.linalg.solve_ex(a, a), T.linalg.cholesky_ex(spd), T.lu_unpack(*T.linalg.lu_factor(a)),
                       T.triangular_solve(a, a), T.lu(a, get_infos=True)]
        return [(type(r).__module__, type(r).__name__, tuple(r._fields) if hasattr(r, "_fields") else
                 tuple(sorted(k for k in dir(r) if not k.startswith("_") and k not in ("count", "index")
                              and not k.startswith("n_")))) for r in results]
    ours, theirs = types(lt), types(torch_oracle)
    assert [(m, n) for m, n, _ in ours] == [(m, n) for m, n, _ in theirs]
    assert [sorted(f) for *_, f in ours] == [sorted(f) for *_, f in theirs]
    assert repr(lt.linalg.lu_factor(lt.eye(2))).startswith("torch.return_types.linalg_lu_factor(\nLU=tensor(")


# ----------------------------------------------------------------------------- gradcheck in float64
# small inputs: gradgradcheck differentiates each backward numerically, one element at a time
G3 = (RNG.standard_normal((3, 3)) + 3 * np.eye(3))
B3 = RNG.standard_normal((3, 2))
GRADCHECKS = {
    "solve_triangular": (lambda a, b: lt.linalg.solve_triangular(a, b, upper=True), (G3, B3)),
    "solve_triangular_right_unit": (lambda a, b: lt.linalg.solve_triangular(a, b, upper=False, left=False,
                                                                            unitriangular=True), (G3, B3.T)),
    "lu_factor": (lambda a: lt.linalg.lu_factor(a).LU, (G3,)),
    "lu_wide": (lambda a: lt.linalg.lu(a)[1:], (B3.T,)),
    "lu_tall": (lambda a: lt.linalg.lu(a)[1:], (B3,)),
    "lu_solve": (lambda a, b: lt.linalg.lu_solve(*lt.linalg.lu_factor(a), b, adjoint=True), (G3, B3)),
    "lu_solve_right": (lambda a, b: lt.linalg.lu_solve(*lt.linalg.lu_factor(a), b, left=False), (G3, B3.T)),
    "lu_unpack": (lambda a: lt.lu_unpack(*lt.linalg.lu_factor(a))[1:], (B3.T,)),
    "triangular_solve": (lambda b, a: tuple(lt.linalg._triangular_solve(b, a, False, True)), (B3, G3)),
    "inv_ex": (lambda a: lt.linalg.inv_ex(a).inverse, (G3,)),
    "solve_ex": (lambda a, b: lt.linalg.solve_ex(a, b).result, (G3, B3)),
    "cholesky_ex": (lambda a: lt.linalg.cholesky_ex(a @ a.mT).L, (G3,)),  # (a symmetric input)
    "cholesky_solve": (lambda b, f: lt.cholesky_solve(b, f.tril()), (B3, G3)),
    "cholesky_inverse_upper": (lambda f: lt.cholesky_inverse(f.triu(), upper=True), (G3,)),
    "qr": (lambda a: tuple(lt.linalg.qr(a)), (B3,)),
    "qr_wide": (lambda a: tuple(lt.linalg.qr(a)), (B3.T,)),
    "cond": (lambda a: lt.linalg.cond(a), (G3,)),
    "matrix_exp": (lambda a: lt.linalg.matrix_exp(a), (G3 / 4,)),
    "householder_product": (lambda a, t: lt.linalg.householder_product(a, t), (B3, np.array([0.5, 1.2]))),
    "vander": (lambda x: (lt.linalg.vander(x), lt.vander(x, increasing=True), lt.vander(x)), (B3[:, 0],)),
}


@pytest.mark.parametrize("name", list(GRADCHECKS))
def test_gradcheck_float64(name: str) -> None:
    fn, arrays = GRADCHECKS[name]
    inputs = tuple(f64(a) for a in arrays)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)
