"""The test-only perturbed arithmetic of ``make test-notebooks-perturbed`` (tests/perturbed/perturb.py).

``perturb.install(seed)`` stands in for another CPU's BLAS and libm: the results of
matrix products, reductions and transcendental functions -- and the gradients their
backward nodes compute -- move by up to ``MAX_ULPS`` units in the last place, element
by element; values that every machine computes exactly (a sum of small integers,
``exp(0)``) stay what they are; ``uninstall()`` gives back exact results.  These tests
check that contract against plain NumPy, which is what learntorch computes unperturbed.

``perturb`` patches learntorch's ``Function.apply`` for the whole process, and
pytest-xdist runs other tests in the same worker: the ``perturb`` fixture uninstalls it
after every test, pass or fail, and checks that nothing is left installed.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

import learntorch as lt
from learntorch.autograd import function as fn

PERTURBED_DIR = str(Path(__file__).parents[1] / "perturbed")
SEEDS = [0, 1, 2024]
RNG = np.random.default_rng(13)
X = RNG.uniform(-3.0, 3.0, (200, 50)).astype(np.float32)
A = RNG.standard_normal((30, 40)).astype(np.float32)
B = RNG.standard_normal((40, 20)).astype(np.float32)


@pytest.fixture
def perturb() -> Iterator[Any]:
    """The ``perturb`` module (imported from tests/perturbed, which leaves sys.path again),
    not installed at the start; uninstalled at the end whatever happened."""
    originals = (fn.Function.apply.__func__, fn.BackwardFunction.apply)
    sys.path.insert(0, PERTURBED_DIR)
    try:
        module = importlib.import_module("perturb")
    finally:
        sys.path.remove(PERTURBED_DIR)
    module.uninstall()
    try:
        yield module
    finally:
        module.uninstall()
    assert not module.is_installed()
    assert (fn.Function.apply.__func__, fn.BackwardFunction.apply) == originals, "learntorch left patched"


def within_ulps(actual: np.ndarray, exact: np.ndarray, max_ulps: int) -> None:
    """Every element at most ``max_ulps`` ulps (of the exact value) away, same dtype and shape."""
    actual, exact = np.asarray(actual), np.asarray(exact)
    assert actual.dtype == exact.dtype and actual.shape == exact.shape
    ulps = np.abs(actual.astype(np.float64) - exact.astype(np.float64)) / np.spacing(np.abs(exact))
    assert ulps.max(initial=0.0) <= max_ulps, f"moved by {ulps.max()} ulps (at most {max_ulps} allowed)"


def nudged(actual: np.ndarray, exact: np.ndarray) -> bool:
    """Whether some element differs: the perturbation is really on."""
    return not np.array_equal(actual, exact)


# ----------------------------------------------------------------------------- forward results
@pytest.mark.parametrize("seed", SEEDS)
def test_results_move_by_at_most_max_ulps(perturb: Any, seed: int) -> None:
    perturb.install(seed)
    assert perturb.is_installed()
    results = {
        "exp": (lt.tensor(X).exp().numpy(), np.exp(X)),
        "matmul": ((lt.tensor(A) @ lt.tensor(B)).numpy(), A @ B),
        "sum(1)": (lt.tensor(X).sum(1).numpy(), X.sum(1)),
    }
    for name, (got, exact) in results.items():
        within_ulps(got, exact, perturb.MAX_ULPS)
        assert nudged(got, exact), f"{name}: not one of {exact.size} rounded values was moved"
    total = lt.tensor(X).sum().numpy()  # one value: moved or not (1 chance in 7), but never further
    within_ulps(total, X.sum(), perturb.MAX_ULPS)


def test_the_same_seed_gives_the_same_numbers(perturb: Any) -> None:
    """Like a real machine's libm or BLAS: the same inputs give the same result every time,
    within one installation and across installations with one seed; another seed stands
    in for another machine."""
    perturb.install(5)
    first, again = lt.tensor(X).exp().numpy(), lt.tensor(X).exp().numpy()
    np.testing.assert_array_equal(first, again)
    perturb.uninstall()
    runs = []
    for seed in (5, 5, 6):
        perturb.install(seed)
        runs.append((lt.tensor(X).exp().numpy(), (lt.tensor(A) @ lt.tensor(B)).numpy()))
        perturb.uninstall()
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert nudged(runs[0][0], runs[2][0]), "another seed moves other elements"


def test_exact_values_stay_exact(perturb: Any) -> None:
    """What every machine computes exactly is not moved: any CPU gets it bit for bit."""
    perturb.install(0)
    assert lt.tensor([1.0, 2.0, 3.0]).sum().item() == 6.0
    assert lt.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(0).tolist() == [4.0, 6.0]
    assert lt.tensor([0.5, 0.25, 0.125]).sum().item() == 0.875
    np.testing.assert_array_equal(lt.zeros(40).exp().numpy(), np.ones(40, np.float32))
    np.testing.assert_array_equal(lt.zeros(40).log1p().numpy(), np.zeros(40, np.float32))
    small = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal((lt.tensor(small) @ lt.tensor(small.T)).numpy(), small @ small.T)
    np.testing.assert_array_equal(lt.tensor([np.inf, -np.inf]).exp().numpy(), [np.inf, 0.0])
    # ops that IEEE 754 rounds exactly everywhere are never perturbed, rounded results or not
    np.testing.assert_array_equal((lt.tensor(X) * lt.tensor(X) + 1 / lt.tensor(X)).numpy(), X * X + 1 / X)
    np.testing.assert_array_equal(lt.tensor(np.abs(X)).sqrt().numpy(), np.sqrt(np.abs(X)))


# ----------------------------------------------------------------------------- gradients
@pytest.mark.parametrize("seed", SEEDS)
def test_gradients_through_backward_are_nudged(perturb: Any, seed: int) -> None:
    """(a @ b).sum(): a.grad = ones @ b.T is computed by the matmul's backward node (the
    forward's nudge does not reach it: the incoming gradient is exactly ones).  That node
    computes with a learntorch matmul, itself nudged, and its result is nudged once more:
    up to 2 * MAX_ULPS.  x.exp().sum(): exp's backward multiplies by the saved, nudged
    result, and is nudged: up to 2 * MAX_ULPS as well."""
    def grads() -> tuple[np.ndarray, np.ndarray]:
        a = lt.tensor(A, requires_grad=True)
        (a @ lt.tensor(B)).sum().backward()
        x = lt.tensor(X, requires_grad=True)
        x.exp().sum().backward()
        return a.grad.numpy(), x.grad.numpy()

    exact_a, exact_x = grads()  # learntorch unperturbed
    np.testing.assert_array_equal(exact_x, np.exp(X))
    perturb.install(seed)
    got_a, got_x = grads()
    within_ulps(got_a, exact_a, 2 * perturb.MAX_ULPS + 1)
    assert nudged(got_a, exact_a)
    within_ulps(got_x, exact_x, 2 * perturb.MAX_ULPS + 1)
    assert nudged(got_x, exact_x)


# ----------------------------------------------------------------------------- switching off
def test_uninstall_restores_exact_results(perturb: Any) -> None:
    perturb.install(3)
    assert nudged(lt.tensor(X).exp().numpy(), np.exp(X))
    perturb.uninstall()
    assert not perturb.is_installed()
    perturb.uninstall()  # a second uninstall is harmless
    np.testing.assert_array_equal(lt.tensor(X).exp().numpy(), np.exp(X))
    np.testing.assert_array_equal((lt.tensor(A) @ lt.tensor(B)).numpy(), A @ B)
    np.testing.assert_array_equal(lt.tensor(X).sum(1).numpy(), X.sum(1))
    a = lt.tensor(A, requires_grad=True)
    (a @ lt.tensor(B)).sum().backward()
    exact = lt.ones(A.shape[0], B.shape[1]) @ lt.tensor(B).t()  # what the backward node computes
    np.testing.assert_array_equal(a.grad.numpy(), exact.numpy())
    x = lt.tensor(X, requires_grad=True)
    x.exp().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.exp(X))


def test_install_twice_keeps_one_layer(perturb: Any) -> None:
    """A second install replaces the first (it does not wrap it): one uninstall undoes it."""
    perturb.install(1)
    perturb.install(2)
    within_ulps(lt.tensor(X).exp().numpy(), np.exp(X), perturb.MAX_ULPS)  # not nudged twice
    perturb.uninstall()
    np.testing.assert_array_equal(lt.tensor(X).exp().numpy(), np.exp(X))
