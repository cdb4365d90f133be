"""``torch.linalg`` and the products built on it, against PyTorch: values, dtypes, shapes,
``grad_fn`` names, gradients (where PyTorch has them) and error types.

Matrices are well conditioned (a symmetric positive-definite ``SPD``, a general ``G``)
so that float32 results agree to ~1e-5 in both libraries; the decompositions with a sign
convention (``svd``, ``eigh``, ``qr``) are compared through sign-free quantities
(singular values, ``U diag(S) Vh``, ``|Q|``, squared eigenvectors)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import check_both, grads_both, raises_both

pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)
_X = RNG.standard_normal((4, 4)).astype(np.float32)
SPD = (_X @ _X.T + 4 * np.eye(4)).astype(np.float32)          # symmetric positive-definite
G = (RNG.standard_normal((4, 4)) + 3 * np.eye(4)).astype(np.float32)  # general, invertible
BATCH = np.stack([G, SPD, G.T]).astype(np.float32)           # 3 × 4 × 4
WIDE = RNG.standard_normal((2, 4)).astype(np.float32)         # full row rank, for pinv
B = RNG.standard_normal((4, 3)).astype(np.float32)
V = RNG.standard_normal(4).astype(np.float32)
TOL = dict(rtol=1e-4, atol=1e-4)


def T_(T: Any, a: np.ndarray, **kw: Any) -> Any:
    return T.tensor(a.copy(), **kw)


# ----------------------------------------------------------------------------- norms
@pytest.mark.parametrize("call", [
    lambda T, x: T.linalg.norm(x),
    lambda T, x: T.linalg.norm(x, dim=1),
    lambda T, x: T.linalg.norm(x, ord=1, dim=0, keepdim=True),
    lambda T, x: T.linalg.vector_norm(x, ord=3),
    lambda T, x: T.linalg.vector_norm(x, ord=float("inf"), dim=-1),
    lambda T, x: T.linalg.vector_norm(x, ord=float("-inf"), dim=-1),
    lambda T, x: T.linalg.vector_norm(x, ord=0.5, dim=(0, 1)),
    lambda T, x: T.linalg.matrix_norm(x),
    lambda T, x: T.linalg.matrix_norm(x, ord=1),
    lambda T, x: T.linalg.matrix_norm(x, ord=-1),
    lambda T, x: T.linalg.matrix_norm(x, ord=float("inf")),
    lambda T, x: T.linalg.matrix_norm(x, ord=2),
    lambda T, x: T.linalg.matrix_norm(x, ord=-2),
    lambda T, x: T.linalg.matrix_norm(x, ord="nuc"),
    lambda T, x: T.linalg.norm(x, ord="fro"),
    lambda T, x: T.linalg.norm(x, ord=2),
    lambda T, x: T.norm(x, p="nuc"),
    lambda T, x: x.norm(p="fro", dim=(0, 1)),
    lambda T, x: T.dist(x, x.t(), p=3),
])
def test_norms_values_and_grads(torch_oracle: Any, call: Any) -> None:
    grads_both(call, torch_oracle, G, **TOL)


def test_vector_norm_of_a_vector_and_its_errors(torch_oracle: Any) -> None:
    grads_both(lambda T, v: T.linalg.norm(v, 1), torch_oracle, V)
    check_both(lambda T: T.linalg.vector_norm(T.tensor([0., 2., 0., -1.]), 0), torch_oracle)
    check_both(lambda T: T.linalg.vector_norm(T.ones(3), dtype=T.float64), torch_oracle)
    raises_both(lambda T: T.linalg.vector_norm(T.arange(3)), torch_oracle, match="floating point")
    raises_both(lambda T: T.linalg.norm(T.ones(2, 2, 2), ord=2), torch_oracle, match="1D or 2D")
    raises_both(lambda T: T.linalg.matrix_norm(T.ones(3)), torch_oracle, match="at least 2 dimensions")


# ----------------------------------------------------------------------------- inverse, determinant, solve
@pytest.mark.parametrize("call", [
    lambda T, a: T.linalg.inv(a),
    lambda T, a: T.inverse(a),
    lambda T, a: a.inverse(),
    lambda T, a: T.linalg.det(a),
    lambda T, a: T.det(a),
    lambda T, a: a.det(),
    lambda T, a: T.linalg.slogdet(a).logabsdet,
    lambda T, a: T.logdet(a @ a.mT),
    lambda T, a: T.linalg.solve(a, a.sum(-1)),
])
@pytest.mark.parametrize("data", [G, BATCH], ids=["matrix", "batch"])
def test_square_matrix_functions(torch_oracle: Any, call: Any, data: np.ndarray) -> None:
    grads_both(call, torch_oracle, data, **TOL)


@pytest.mark.parametrize("call", [lambda T, a: T.linalg.matrix_power(a, 3), lambda T, a: T.linalg.matrix_power(a, -2),
                                  lambda T, a: T.linalg.pinv(a)])
@pytest.mark.parametrize("data", [G, BATCH], ids=["matrix", "batch"])
def test_matrix_power_and_pinv(torch_oracle: Any, call: Any, data: np.ndarray) -> None:
    """(PyTorch names the batched products' nodes after its own kernels: only values and grads are compared.)"""
    grads_both(call, torch_oracle, data, rtol=1e-3, atol=1e-4, check_grad_fn=False)


def test_slogdet_and_logdet_of_negative_determinant(torch_oracle: Any) -> None:
    m = np.diag([2., -3., 1.]).astype(np.float32)
    check_both(lambda T: tuple(T.linalg.slogdet(T_(T, m))), torch_oracle)
    check_both(lambda T: T.logdet(T_(T, m)), torch_oracle)            # NaN: log of a negative number
    check_both(lambda T: T.logdet(T.zeros(2, 2)), torch_oracle)        # -inf
    lt_res = lt.linalg.slogdet(lt.tensor(m))
    assert type(lt_res).__name__ == "linalg_slogdet" and lt_res.sign.requires_grad is False


def test_solve_matrix_rhs_broadcast_and_left(torch_oracle: Any) -> None:
    grads_both(lambda T, a, b: T.linalg.solve(a, b), torch_oracle, G, B, **TOL)
    grads_both(lambda T, a, b: T.linalg.solve(a, b), torch_oracle, BATCH, B, **TOL)   # B broadcast over the batch
    grads_both(lambda T, a, v: T.linalg.solve(a, v), torch_oracle, BATCH, V, **TOL)
    grads_both(lambda T, a, b: T.linalg.solve(a, b, left=False), torch_oracle, G, B.T.copy(), **TOL)


def test_inverse_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.linalg.inv(T.ones(2, 2)), torch_oracle, match="singular")
    raises_both(lambda T: T.linalg.inv(T.ones(2, 3)), torch_oracle, match="square matrices")
    raises_both(lambda T: T.linalg.inv(T.eye(2, dtype=T.int64)), torch_oracle, match="floating point")
    raises_both(lambda T: T.linalg.solve(T.ones(2, 2), T.ones(2)), torch_oracle, match="singular")
    raises_both(lambda T: T.linalg.solve(T.eye(3), T.ones(2)), torch_oracle)
    raises_both(lambda T: T.linalg.det(T.ones(3)), torch_oracle, match="at least 2 dimensions")
    err = pytest.raises(lt.linalg.LinAlgError, lt.linalg.inv, lt.zeros(3, 3))
    assert isinstance(err.value, RuntimeError)


# ----------------------------------------------------------------------------- decompositions
def test_cholesky_values_grads_and_errors(torch_oracle: Any) -> None:
    grads_both(lambda T, a: T.linalg.cholesky(a), torch_oracle, SPD, **TOL)
    grads_both(lambda T, a: T.linalg.cholesky(a, upper=True), torch_oracle, SPD, **TOL)
    grads_both(lambda T, a: T.linalg.cholesky(a), torch_oracle, np.stack([SPD, 2 * SPD]), **TOL)
    raises_both(lambda T: T.linalg.cholesky(T.tensor([[1., 2.], [2., 1.]])), torch_oracle,
                match="not positive-definite")
    raises_both(lambda T: T.linalg.cholesky(T.ones(2, 3)), torch_oracle, match="square")


def test_eigh(torch_oracle: Any) -> None:
    grads_both(lambda T, a: T.linalg.eigh(a).eigenvalues, torch_oracle, SPD, **TOL)
    grads_both(lambda T, a: T.linalg.eigvalsh(a), torch_oracle, SPD, **TOL)
    # eigenvectors are defined up to sign: their squares are not
    grads_both(lambda T, a: T.linalg.eigh(a).eigenvectors ** 2, torch_oracle, SPD, rtol=1e-3, atol=1e-4,
               check_grad_fn=False)
    check_both(lambda T: T.linalg.eigh(T_(T, SPD), UPLO="U").eigenvalues, torch_oracle, **TOL)


def test_svd(torch_oracle: Any) -> None:
    grads_both(lambda T, a: T.linalg.svdvals(a), torch_oracle, B, **TOL)
    grads_both(lambda T, a: T.linalg.svd(a).S, torch_oracle, G, **TOL)
    grads_both(lambda T, a: T.svd(a).S, torch_oracle, B, **TOL)
    # the factors, through sign-free quantities: the product, and U, V up to column signs
    def product(T: Any, a: Any) -> Any:
        U, S, Vh = T.linalg.svd(a, full_matrices=False)
        return (U * S) @ Vh
    grads_both(product, torch_oracle, B, check_grad_fn=False, **TOL)
    grads_both(lambda T, a: T.linalg.svd(a, full_matrices=False).U.abs(), torch_oracle, B, check_grad_fn=False,
               rtol=1e-3, atol=1e-3)
    grads_both(lambda T, a: T.linalg.svd(a.t(), full_matrices=False).Vh.abs(), torch_oracle, B,
               check_grad_fn=False, rtol=1e-3, atol=1e-3)
    shapes = lambda T: [tuple(x.shape) for x in T.linalg.svd(T.ones(4, 3))] + \
        [tuple(x.shape) for x in T.svd(T.ones(4, 3))] + [tuple(x.shape) for x in T.svd(T.ones(4, 3), some=False)]
    assert shapes(lt) == shapes(torch_oracle)


def test_qr_pinv_rank(torch_oracle: Any) -> None:
    check_both(lambda T: [x.abs() for x in T.linalg.qr(T_(T, B))], torch_oracle, **TOL)
    check_both(lambda T: [x.abs() for x in T.linalg.qr(T_(T, B), mode="complete")], torch_oracle, **TOL)
    grads_both(lambda T, a: T.linalg.pinv(a), torch_oracle, WIDE, **TOL)
    grads_both(lambda T, a: T.pinverse(a.t()), torch_oracle, WIDE, **TOL)
    check_both(lambda T: (T.linalg.matrix_rank(T.ones(3, 3)), T.linalg.matrix_rank(T_(T, G)),
                          T.linalg.matrix_rank(T_(T, BATCH)), T.linalg.matrix_rank(T.ones(3, 3), atol=5.)),
               torch_oracle)



# QR's factors are unique up to the signs LAPACK picks (the same routine in both), so gradients compare directly
@pytest.mark.parametrize("shape,mode", [((4, 3), "reduced"), ((4, 4), "complete"), ((2, 4), "reduced"),
                                        ((2, 4), "complete"), ((3, 4, 3), "reduced")])
def test_qr_backward(torch_oracle: Any, shape: tuple, mode: str) -> None:
    data = RNG.standard_normal(shape).astype(np.float32) + np.eye(*shape[-2:], dtype=np.float32)
    grads_both(lambda T, a: T.cat([f.flatten() for f in T.linalg.qr(a, mode=mode)]), torch_oracle, data,
               check_grad_fn=False, **TOL)


def test_qr_backward_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.linalg.qr(T.ones(4, 3, requires_grad=True), mode="r").R.sum().backward(), torch_oracle,
                match="mode='r'")
    raises_both(lambda T: T.linalg.qr(T.ones(4, 3, requires_grad=True), mode="complete").Q.sum().backward(),
                torch_oracle, match="not differentiable when mode='complete'")


# ----------------------------------------------------------------------------- products
@pytest.mark.parametrize("call", [
    lambda T, a, b: T.tensordot(a, b, dims=1),
    lambda T, a, b: T.tensordot(a, a.t(), dims=2),
    lambda T, a, b: T.tensordot(a, b, dims=([0], [0])),
    lambda T, a, b: T.inner(a, b.t()),
    lambda T, a, b: a.inner(b.t()[0]),
    lambda T, a, b: T.kron(a, b),
    lambda T, a, b: T.kron(a[0], b),
    lambda T, a, b: T.cdist(a, b.t()),
    lambda T, a, b: T.cdist(a, b.t(), p=1),
    lambda T, a, b: T.cdist(a.unsqueeze(0), a.unsqueeze(0)),   # zero distances on the diagonal
    lambda T, a, b: T.linalg.vecdot(a[:3], b.t()),
    lambda T, a, b: T.linalg.multi_dot([a, b, b.t()]),
    lambda T, a, b: T.linalg.cross(a[:, :3], b.sum(0, keepdim=True)),   # broadcast over rows
    lambda T, a, b: T.cross(a[:3, :3], b[:3], dim=0),
    lambda T, a, b: a[:3, :3].cross(b[:3], dim=1),
    lambda T, a, b: T.outer(a[0], b[0]),
    lambda T, a, b: T.ger(a[0], b[0]),
    lambda T, a, b: T.vdot(a[0], b[:, 0]),
    lambda T, a, b: T.linalg.matmul(a, b),
    lambda T, a, b: T.linalg.diagonal(a),
])
def test_products(torch_oracle: Any, call: Any) -> None:
    grads_both(call, torch_oracle, G, B, check_grad_fn=False, **TOL)


def test_product_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.tensordot(T.ones(2, 3), T.ones(2, 3), dims=1), torch_oracle, match="contracted")
    raises_both(lambda T: T.inner(T.ones(2, 3), T.ones(2)), torch_oracle)
    raises_both(lambda T: T.linalg.cross(T.ones(2), T.ones(2)), torch_oracle, match="length 3")
    raises_both(lambda T: T.linalg.cross(T.ones(2, 3), T.ones(3)), torch_oracle, match="same number of dimensions")
    raises_both(lambda T: T.cdist(T.ones(2, 3), T.ones(2, 4)), torch_oracle)
    raises_both(lambda T: T.linalg.matrix_power(T.ones(2, 3), 2), torch_oracle)


def test_matrix_power_zero_and_namedtuples(torch_oracle: Any) -> None:
    check_both(lambda T: T.linalg.matrix_power(T_(T, BATCH), 0), torch_oracle)
    check_both(lambda T: T_(T, G).matrix_power(1), torch_oracle)
    ours, theirs = lt.linalg.eigh(lt.tensor(SPD)), torch_oracle.linalg.eigh(torch_oracle.tensor(SPD))
    assert type(ours).__name__ == type(theirs).__name__ and ours._fields == ("eigenvalues", "eigenvectors")
    assert lt.linalg.svd(lt.tensor(G))._fields == ("U", "S", "Vh")
    assert lt.svd(lt.tensor(G))._fields == ("U", "S", "V")


def test_lstsq(torch_oracle: Any) -> None:
    tall = RNG.standard_normal((6, 3)).astype(np.float32)
    rhs = RNG.standard_normal((6, 2)).astype(np.float32)
    # learntorch solves through pinv (PyTorch through QR): the solution and its gradients agree
    grads_both(lambda T, a, b: T.linalg.lstsq(a, b).solution, torch_oracle, tall, rhs, check_grad_fn=False, **TOL)
    grads_both(lambda T, a, b: T.linalg.lstsq(a, b[:, 0]).solution, torch_oracle, tall, rhs, check_grad_fn=False,
               **TOL)
    check_both(lambda T: tuple(T.linalg.lstsq(T_(T, tall), T_(T, rhs)))[1:], torch_oracle)  # empty, rank, empty


LSTSQ_CASES = {  # the fields each LAPACK driver fills: residuals for a tall full-rank A, singular values for SVD
    "gelsd": (lambda T, a, b: T.linalg.lstsq(a, b, driver="gelsd"), (6, 3), (6, 2)),
    "gelss-vector": (lambda T, a, b: T.linalg.lstsq(a, b[:, 0], driver="gelss"), (6, 3), (6, 2)),
    "gels": (lambda T, a, b: T.linalg.lstsq(a, b, driver="gels"), (6, 3), (6, 2)),
    "gelsd-batch": (lambda T, a, b: T.linalg.lstsq(a.expand(2, 6, 3), b.expand(2, 6, 2), driver="gelsd"), (6, 3), (6, 2)),
    "gelsd-wide": (lambda T, a, b: T.linalg.lstsq(a, b, driver="gelsd"), (3, 5), (3, 2)),
    "gelsd-rank-deficient": (lambda T, a, b: T.linalg.lstsq(a * T.tensor([1., 1., 0.]), b, driver="gelsd"),
                             (6, 3), (6, 2)),
}


@pytest.mark.parametrize("name", list(LSTSQ_CASES))
def test_lstsq_driver_fields(torch_oracle: Any, name: str) -> None:
    fn, a_shape, b_shape = LSTSQ_CASES[name]
    a = RNG.standard_normal(a_shape).astype(np.float32)
    b = RNG.standard_normal(b_shape).astype(np.float32)
    ours, theirs = fn(lt, T_(lt, a), T_(lt, b)), fn(torch_oracle, T_(torch_oracle, a), T_(torch_oracle, b))
    for field in ("residuals", "rank", "singular_values"):
        o, t = getattr(ours, field), getattr(theirs, field)
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype), (field, o, t)
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-4, atol=1e-4)
    if name == "gelsd":  # residuals are differentiable, as PyTorch's
        grads_both(lambda T, x, y: T.linalg.lstsq(x, y, driver="gelsd").residuals, torch_oracle, a, b,
                   check_grad_fn=False, **TOL)
    raises_both(lambda T: T.linalg.lstsq(T.ones(3, 2), T.ones(3, 1), driver="qr"), torch_oracle,
                match="should be one of")


def test_cross_without_dim_warns_like_torch(torch_oracle: Any) -> None:
    with pytest.warns(UserWarning, match="without specifying the dim"):
        ours = lt.cross(lt.tensor(B[:3]), lt.tensor(B[1:]))
    with pytest.warns(UserWarning, match="without specifying the dim"):
        theirs = torch_oracle.cross(torch_oracle.tensor(B[:3]), torch_oracle.tensor(B[1:]))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
