"""``torch.autograd.functional`` (jacobian, hessian, vjp, jvp, hvp, vhp) against PyTorch 2.13.

Values and shapes of every result (tensor, tuple, tuple of tuples), whether results
stay connected to the caller's inputs under ``create_graph=True`` (gradients flow back
into ``x.grad``), and the errors: outputs that are not tensors, ``v`` missing or of the
wrong shape, ``strict=True`` with an output independent of an input, and the
``strategy``/``vectorize`` combinations PyTorch refuses.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, check_both, raises_both

pytestmark = pytest.mark.torch

rng = np.random.default_rng(808)
X = rng.standard_normal(3).astype(np.float32)
Y = rng.standard_normal(3).astype(np.float32)
M = rng.standard_normal((2, 3)).astype(np.float32)
V3 = rng.standard_normal(3).astype(np.float32)


def F(T):
    """``T.autograd.functional`` (imported as a module: ``torch.autograd.functional``)."""
    return importlib.import_module(T.__name__ + ".autograd.functional")


def only_lt(T, **kwargs):
    """Options given to learntorch only: PyTorch's vmap and forward-mode paths take seconds
    to warm up, and they compute the same matrix as its plain reverse mode, the oracle here."""
    return kwargs if T is lt else {}


def cube_sum(t):
    return (t ** 3).sum()


def mixed(a, b):
    return (a ** 2 * b.sin()).sum()


# ============================================================================ values
@pytest.mark.parametrize("case", [
    pytest.param(lambda T: F(T).jacobian(lambda t: t.exp() * 2, T.tensor(X)), id="jacobian-1-1"),
    pytest.param(lambda T: F(T).jacobian(lambda t: (t.sum(), t * t), T.tensor(X)), id="jacobian-tuple-out"),
    pytest.param(lambda T: F(T).jacobian(lambda a, b: a * b, (T.tensor(X), T.tensor(Y))), id="jacobian-tuple-in"),
    pytest.param(lambda T: F(T).jacobian(lambda a, b: (a * b, a.sum()), (T.tensor(X), T.tensor(Y))),
                 id="jacobian-tuple-tuple"),
    pytest.param(lambda T: F(T).jacobian(lambda m: m @ m.t(), T.tensor(M)), id="jacobian-matrix"),
    pytest.param(lambda T: F(T).jacobian(lambda t: t * 2, T.tensor(1.5)), id="jacobian-scalar"),
    pytest.param(lambda T: F(T).jacobian(lambda a, b: a * 2, (T.tensor(X), T.tensor(Y))), id="jacobian-unused"),
    pytest.param(lambda T: F(T).jacobian(lambda t: t.tanh(), T.tensor(X), **only_lt(T, vectorize=True)),
                 id="jacobian-vectorize"),
    pytest.param(lambda T: F(T).jacobian(lambda t: t.tanh(), T.tensor(X),
                                         **only_lt(T, vectorize=True, strategy="forward-mode")),
                 id="jacobian-forward-mode"),
    pytest.param(lambda T: F(T).hessian(cube_sum, T.tensor(X)), id="hessian"),
    pytest.param(lambda T: F(T).hessian(mixed, (T.tensor(X), T.tensor(Y))), id="hessian-tuple"),
    pytest.param(lambda T: F(T).hessian(cube_sum, T.tensor(X), **only_lt(T, vectorize=True)), id="hessian-vectorize"),
    pytest.param(lambda T: F(T).vjp(lambda t: t.exp(), T.tensor(X), T.tensor(V3)), id="vjp"),
    pytest.param(lambda T: F(T).vjp(cube_sum, T.tensor(X)), id="vjp-scalar-no-v"),
    pytest.param(lambda T: F(T).vjp(lambda a, b: (a * b, a + b), (T.tensor(X), T.tensor(Y)),
                                    (T.tensor(V3), T.tensor(X))), id="vjp-tuples"),
    pytest.param(lambda T: F(T).jvp(lambda t: t.exp(), T.tensor(X), T.tensor(V3)), id="jvp"),
    pytest.param(lambda T: F(T).jvp(lambda a, b: a * b, (T.tensor(X), T.tensor(Y)), (T.tensor(V3), T.tensor(X))),
                 id="jvp-tuples"),
    pytest.param(lambda T: F(T).hvp(cube_sum, T.tensor(X), T.tensor(V3)), id="hvp"),
    pytest.param(lambda T: F(T).vhp(cube_sum, T.tensor(X), T.tensor(V3)), id="vhp"),
    pytest.param(lambda T: F(T).vhp(mixed, (T.tensor(X), T.tensor(Y)), (T.tensor(V3), T.tensor(X))),
                 id="vhp-tuples"),
    pytest.param(lambda T: F(T).hvp(mixed, (T.tensor(X), T.tensor(Y)), (T.tensor(V3), T.tensor(X))),
                 id="hvp-tuples"),
    pytest.param(lambda T: F(T).vhp(lambda t: (t * 2).sum(), T.tensor(X), T.tensor(V3)), id="vhp-linear-zeros"),
])
def test_values_match(torch_oracle, case):
    check_both(case, torch_oracle, rtol=1e-5, atol=1e-5)


# ============================================================================ create_graph
def test_jacobian_create_graph_reaches_the_callers_input(torch_oracle):
    """The probe's case: the Jacobian stays a function of x, so its trace has a gradient."""
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        J = F(T).jacobian(lambda t: t ** 3, x, create_graph=True)
        J.trace().backward()
        return J, x.grad
    check_both(run, torch_oracle)


@pytest.mark.parametrize("name", ["vjp", "jvp", "hvp", "vhp"])
def test_products_create_graph_keep_the_graph(torch_oracle, name):
    def run(T):
        x = T.tensor(X, requires_grad=True)
        out, prod = getattr(F(T), name)(cube_sum if name in ("hvp", "vhp") else (lambda t: t ** 3),
                                        x, T.tensor(V3) if name != "vjp" else T.tensor(V3), create_graph=True)
        (out.sum() + (prod * prod).sum()).backward()
        return out.requires_grad, prod.requires_grad, x.grad
    check_both(run, torch_oracle, rtol=1e-5, atol=1e-5)


def test_hessian_create_graph_reaches_the_callers_input(torch_oracle):
    def run(T):
        x = T.tensor(X, requires_grad=True)
        H = F(T).hessian(cube_sum, x, create_graph=True)
        H.sum().backward()
        return H.requires_grad, x.grad
    check_both(run, torch_oracle, rtol=1e-5, atol=1e-5)


def test_without_create_graph_results_are_detached_and_input_untouched(torch_oracle):
    def run(T):
        x = T.tensor(X, requires_grad=True)
        J = F(T).jacobian(lambda t: t ** 2, x)
        out, g = F(T).vjp(cube_sum, x)
        return J.requires_grad, out.requires_grad, g.requires_grad, x.grad, x.is_leaf
    check_both(run, torch_oracle)


# ============================================================================ errors
@pytest.mark.parametrize("case, match", [
    (lambda T: F(T).jacobian(lambda t: [t * 2, t * 3], T.tensor(X)),
     r"outputs of the user-provided function given to jacobian must be either a Tensor or a tuple of Tensors but "
     r"the given outputs of the user-provided function has type <class 'list'>"),
    (lambda T: F(T).jacobian(lambda t: 3.0, T.tensor(X)), r"has type <class 'float'>"),
    (lambda T: F(T).jacobian(lambda t: (t, 2), T.tensor(X)), r"the value at index 1 has type <class 'int'>"),
    (lambda T: F(T).jacobian(lambda t: t, [T.tensor(X)]), r"The inputs given to jacobian must be"),
    (lambda T: F(T).vjp(lambda t: [t], T.tensor(X), T.tensor(V3)), r"given to vjp must be"),
    (lambda T: F(T).hessian(lambda t: [t.sum()], T.tensor(X)), r"given to hessian must be"),
], ids=["jacobian-list", "jacobian-float", "jacobian-tuple-int", "inputs-list", "vjp-list", "hessian-list"])
def test_non_tensor_outputs_are_type_errors(torch_oracle, case, match):
    l_exc, _ = raises_both(case, torch_oracle, match)
    assert isinstance(l_exc, TypeError)


@pytest.mark.parametrize("case, match", [
    (lambda T: F(T).jacobian(lambda t: T.ones(2), T.tensor(X), strict=True),
     r"^Output 0 of the user-provided function does not require gradients"),
    (lambda T: F(T).jacobian(lambda a, b: a * 2, (T.tensor(X), T.tensor(Y)), strict=True),
     r"^Output 0 of the user-provided function is independent of input 1\. This is not allowed in strict mode\.$"),
    (lambda T: F(T).vjp(lambda a, b: a * 2, (T.tensor(X), T.tensor(Y)), T.tensor(V3), strict=True),
     r"^The output of the user-provided function is independent of input 1"),
    (lambda T: F(T).jvp(lambda a, b: a * 2, (T.tensor(X), T.tensor(Y)), (T.tensor(V3), T.tensor(X)), strict=True),
     r"^The output of the user-provided function is independent of input 1"),
    (lambda T: F(T).hessian(lambda t: (t * 2).sum(), T.tensor(X), strict=True),
     r"^While computing the hessian, found that the jacobian"),
    (lambda T: F(T).vhp(lambda t: (t * 2).sum(), T.tensor(X), T.tensor(V3), strict=True),
     r"^While computing the hessian, found that the jacobian"),
    (lambda T: F(T).jacobian(lambda t: t * t, T.tensor(X), strict=True, vectorize=True),
     r"`strict=True` and `vectorized=True` are not supported together"),
    (lambda T: F(T).jacobian(lambda t: t * t, T.tensor(X), strict=True, strategy="forward-mode", vectorize=True),
     r"`strict=True` and `strategy=\"forward-mode\"` are not supported together"),
    (lambda T: F(T).vjp(lambda t: t * 2, T.tensor(X)),
     r"^The vector v can only be None if the user-provided function returns a single Tensor with a single element\.$"),
    (lambda T: F(T).jvp(lambda t: t * 2, T.tensor(X)),
     r"^The vector v can only be None if the input to the user-provided function is a single Tensor"),
    (lambda T: F(T).hvp(cube_sum, T.tensor(X)), r"^The vector v can only be None if the input"),
    (lambda T: F(T).vhp(cube_sum, T.tensor(X)), r"^The vector v can only be None if the input"),
    (lambda T: F(T).vjp(lambda t: t * 2, T.tensor(X), T.ones(2)),
     r"^v has invalid size: should be torch.Size\(\[3\]\) but got torch.Size\(\[2\]\)\.$"),
    (lambda T: F(T).jvp(lambda a, b: a * b, (T.tensor(X), T.tensor(Y)), (T.tensor(X), T.ones(2))),
     r"^Entry 1 in v has invalid size: should be torch.Size\(\[3\]\) but got torch.Size\(\[2\]\)\.$"),
    (lambda T: F(T).vjp(lambda t: (t, t), T.tensor(X), (T.tensor(V3),)),
     r"^v is a tuple of invalid length: should be 2 but got 1\.$"),
    (lambda T: F(T).vhp(cube_sum, T.tensor(X), (T.tensor(V3), T.tensor(V3))),
     r"^The given v should contain a single Tensor\.$"),
    (lambda T: F(T).hessian(lambda t: t * 2, T.tensor(X)),
     r"^The Tensor returned by the function given to hessian should contain a single element$"),
    (lambda T: F(T).hvp(lambda t: (t.sum(), t.sum()), T.tensor(X), T.tensor(V3)),
     r"^The function given to hvp should return a single Tensor$"),
], ids=["strict-no-grad", "strict-jacobian-unused", "strict-vjp", "strict-jvp", "strict-hessian-linear",
        "strict-vhp-linear", "strict-vectorize", "strict-forward", "vjp-v-none", "jvp-v-none", "hvp-v-none",
        "vhp-v-none", "vjp-v-size", "jvp-v-entry-size", "vjp-v-length", "vhp-v-single", "hessian-not-scalar",
        "hvp-tuple-output"])
def test_runtime_errors(torch_oracle, case, match):
    l_exc, _ = raises_both(case, torch_oracle, match)
    assert isinstance(l_exc, RuntimeError)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(strategy="forward-mode"), NotImplementedError, r"only implemented for `vectorize=True`"),
    (dict(strategy="forward-mode", vectorize=True, create_graph=True), NotImplementedError,
     r"`create_graph=True` and `strategy=\"forward-mode\"` are not supported together"),
    (dict(strategy="sideways"), AssertionError, r"Expected strategy to be either"),
], ids=["forward-without-vectorize", "forward-create-graph", "unknown-strategy"])
def test_strategy_refusals(torch_oracle, kwargs, exc, match):
    l_exc, _ = raises_both(lambda T: F(T).jacobian(lambda t: t * t, T.tensor(X), **kwargs), torch_oracle, match)
    assert isinstance(l_exc, exc)


def test_hessian_forward_mode_outer_strategy_needs_vectorize(torch_oracle):
    raises_both(lambda T: F(T).hessian(cube_sum, T.tensor(X), outer_jacobian_strategy="forward-mode"),
                torch_oracle, r"only implemented for `vectorize=True`")
    check_both(lambda T: F(T).hessian(cube_sum, T.tensor(X), **only_lt(T, outer_jacobian_strategy="forward-mode",
                                                                        vectorize=True)),
               torch_oracle, rtol=1e-5, atol=1e-5)


def test_strict_passes_when_everything_depends_on_everything(torch_oracle):
    check_both(lambda T: F(T).jacobian(lambda a, b: a * b, (T.tensor(X), T.tensor(Y)), strict=True),
               torch_oracle)
    check_both(lambda T: F(T).hessian(mixed, (T.tensor(X), T.tensor(Y)), strict=True), torch_oracle,
               rtol=1e-5, atol=1e-5)


def test_vhp_is_its_own_function():
    """vhp (vᵀ·H, two backward passes) and hvp (H·v, the double-backward trick) are separate."""
    assert lt.autograd.functional.vhp is not lt.autograd.functional.hvp
    out, prod = lt.autograd.functional.vhp(cube_sum, lt.tensor(X), lt.tensor(V3))
    assert_same(prod, __import__("torch").tensor(6 * X * V3), rtol=1e-5, atol=1e-5)
