"""``torch.func`` (grad, vjp, jvp, jacrev, jacfwd, hessian, linearize, vmap, functional_call,
stack_module_state) against PyTorch 2.13.

The documented examples first: the per-sample-gradients tutorial (``vmap(grad(loss))``
with ``functional_call``), model ensembling (``stack_module_state`` + ``vmap``),
Jacobians of ``sin`` and of a matrix product, Hessians, ``has_aux`` and tuples of
``argnums``.  Then the compositions (``jacrev(jacrev(f))``, ``vmap(jacrev(f))``,
nested ``vmap``), the "functional" promises (nothing lands in ``.grad``, ``no_grad``
outside does not stop ``grad``, results stay connected to the caller's graph when
they should), ``vmap``'s ``in_dims``/``out_dims`` and randomness modes, and the
errors, each of the built-in type PyTorch raises.

The differential tests (``@pytest.mark.torch``) take the ``torch_oracle`` fixture
and skip with its reason where PyTorch is not installed; the few tests about
learntorch's own bookkeeping (pytrees, restoring a module) run everywhere.
``torch.func.linearize`` is not called: PyTorch traces it with FX, which takes
seconds; its ``jvp_fn`` is compared with ``torch.func.jvp`` instead.
"""
from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, check_both, raises_both
from learntorch.func._pytree import broadcast_prefix, tree_flatten, tree_unflatten

rng = np.random.default_rng(2013)
X = rng.standard_normal(3).astype(np.float32)
Y = rng.standard_normal(2).astype(np.float32)
M = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((4, 3)).astype(np.float32)  # a batch of 4 samples of shape (3,)
B2 = rng.standard_normal((4, 2)).astype(np.float32)
W1 = rng.standard_normal((5, 3)).astype(np.float32) * 0.5
B1 = rng.standard_normal(5).astype(np.float32) * 0.1
W2 = rng.standard_normal((2, 5)).astype(np.float32) * 0.5
DATA = rng.standard_normal((6, 3)).astype(np.float32)
TARGETS = rng.integers(0, 2, 6)

torch_only = pytest.mark.torch
# PyTorch's first torch.func call compiles a helper with torch.jit.script, which PyTorch itself deprecates
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")


def without_dicts(value):
    """Dicts as tuples of ``(key, value)`` pairs, recursively (``assert_same`` compares
    sequences, tensors and numbers; the keys and their order are compared this way too)."""
    if isinstance(value, dict):
        return tuple((k, without_dicts(v)) for k, v in value.items())
    if isinstance(value, (tuple, list)) and not type(value).__name__ == "Size":
        return type(value)(without_dicts(v) for v in value) if not hasattr(value, "_fields") else value
    return value


def same(fn, torch, **kw):
    """:func:`check_both` on results that may hold dicts."""
    return check_both(lambda T: without_dicts(fn(T)), torch, **kw)


def cube_sum(t):
    return (t ** 3).sum()


def mlp(T):
    """A small model with the same weights in both libraries (not their random init)."""
    model = T.nn.Sequential(T.nn.Linear(3, 5), T.nn.Tanh(), T.nn.Linear(5, 2))
    with T.no_grad():
        model[0].weight.copy_(T.tensor(W1))
        model[0].bias.copy_(T.tensor(B1))
        model[2].weight.copy_(T.tensor(W2))
        model[2].bias.zero_()
    return model


# ============================================================================ documented examples
@torch_only
def test_per_sample_gradients_tutorial(torch_oracle):
    """The tutorial: ``vmap(grad(compute_loss), in_dims=(None, None, 0, 0))`` with
    ``functional_call``; the model's own ``.grad`` stays empty."""
    def run(T):
        model = mlp(T)
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def compute_loss(params, buffers, sample, target):
            predictions = T.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
            return T.nn.functional.cross_entropy(predictions, target.unsqueeze(0))

        per_sample = T.func.vmap(T.func.grad(compute_loss), in_dims=(None, None, 0, 0))
        grads = per_sample(params, buffers, T.tensor(DATA), T.tensor(TARGETS))
        return grads, [p.grad for p in model.parameters()]
    same(run, torch_oracle, rtol=1e-5, atol=1e-6)  # (the names, in order, too)


def test_per_sample_gradients_equal_one_backward_per_sample():
    """The claim the tutorial makes, checked in learntorch alone: row i is sample i's gradient."""
    model = mlp(lt)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, x, y):
        return lt.nn.functional.cross_entropy(lt.func.functional_call(model, p, x.unsqueeze(0)), y.unsqueeze(0))

    grads = lt.func.vmap(lt.func.grad(loss), in_dims=(None, 0, 0))(params, lt.tensor(DATA), lt.tensor(TARGETS))
    for i in range(len(DATA)):
        model.zero_grad()
        loss(dict(model.named_parameters()), lt.tensor(DATA[i]), lt.tensor(TARGETS[i])).backward()
        for name, p in model.named_parameters():
            np.testing.assert_allclose(grads[name][i].numpy(), p.grad.numpy(), rtol=1e-6, atol=1e-7)


@torch_only
def test_model_ensembling_with_stack_module_state(torch_oracle):
    def run(T):
        models = [mlp(T) for _ in range(3)]
        with T.no_grad():
            for i, m in enumerate(models):
                m[2].bias.fill_(0.1 * i)
        params, buffers = T.func.stack_module_state(models)
        base = models[0]

        def fmodel(params, buffers, x):
            return T.func.functional_call(base, (params, buffers), (x,))

        same_data = T.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, T.tensor(DATA))
        own_data = T.func.vmap(fmodel)(params, buffers, T.tensor(DATA).reshape(3, 2, 3))
        return ({k: (v.shape, v.requires_grad, v.is_leaf) for k, v in params.items()}, same_data, own_data,
                same_data[1], models[1](T.tensor(DATA)).detach())
    same(run, torch_oracle, rtol=1e-5, atol=1e-6, check_grad_fn=False, check_requires_grad=False)


@pytest.mark.parametrize("case", [
    pytest.param(lambda T: T.func.jacrev(T.sin)(T.tensor(X)), id="jacrev-sin"),
    pytest.param(lambda T: T.func.jacfwd(T.sin)(T.tensor(X)), id="jacfwd-sin"),
    pytest.param(lambda T: T.func.jacrev(lambda w: w @ T.tensor(X))(T.tensor(M)), id="jacrev-matmul"),
    pytest.param(lambda T: T.func.jacrev(lambda w, x: T.sin(w @ x), argnums=(0, 1))(T.tensor(M), T.tensor(X)),
                 id="jacrev-argnums-tuple"),
    pytest.param(lambda T: T.func.jacfwd(lambda w, x: T.sin(w @ x), argnums=1)(T.tensor(M), T.tensor(X)),
                 id="jacfwd-argnums-1"),
    pytest.param(lambda T: T.func.jacrev(lambda x: {"s": x.sum(), "p": x * 2})(T.tensor(X)), id="jacrev-dict-out"),
    pytest.param(lambda T: T.func.jacrev(lambda d: d["a"] * d["b"])({"a": T.tensor(X), "b": T.tensor(X) + 1}),
                 id="jacrev-dict-in"),
    pytest.param(lambda T: T.func.jacrev(lambda x: (x.sin(), x.cos()), has_aux=True)(T.tensor(X)),
                 id="jacrev-has-aux"),
    pytest.param(lambda T: T.func.jacfwd(lambda x: (x.sin(), x.cos()), has_aux=True)(T.tensor(X)),
                 id="jacfwd-has-aux"),
    pytest.param(lambda T: T.func.jacrev(lambda x: x.sum())(T.tensor(2.0)), id="jacrev-scalar"),
    pytest.param(lambda T: T.func.jacrev(lambda x: x[:0])(T.tensor(X)), id="jacrev-empty-output"),
    pytest.param(lambda T: T.func.jacrev(lambda x, y: x * 2, argnums=1)(T.tensor(X), T.tensor(Y)),
                 id="jacrev-unused-input"),
    pytest.param(lambda T: T.func.hessian(cube_sum)(T.tensor(X)), id="hessian"),
    pytest.param(lambda T: T.func.hessian(lambda a, b: (a ** 2).sum() * b.sin().sum(), argnums=(0, 1))(
        T.tensor(Y), T.tensor(X)), id="hessian-argnums-tuple"),
    pytest.param(lambda T: T.func.jacrev(T.func.jacrev(cube_sum))(T.tensor(X)), id="jacrev-jacrev"),
    pytest.param(lambda T: T.func.vmap(T.func.jacrev(T.sin))(T.tensor(B)), id="vmap-jacrev"),
    pytest.param(lambda T: T.func.vmap(T.func.hessian(cube_sum))(T.tensor(B)), id="vmap-hessian"),
])
@torch_only
def test_jacobians_and_hessians(torch_oracle, case):
    same(case, torch_oracle, rtol=1e-5, atol=1e-6)


# ============================================================================ grad
@pytest.mark.parametrize("case", [
    pytest.param(lambda T: T.func.grad(cube_sum)(T.tensor(X)), id="grad"),
    pytest.param(lambda T: T.func.grad(lambda x: T.sin(x).sum())(T.tensor(X)), id="grad-sin"),
    pytest.param(lambda T: T.func.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(T.tensor(X), T.tensor(X) * 2),
                 id="argnums-tuple"),
    pytest.param(lambda T: T.func.grad(lambda a, b: (a * b).sum(), argnums=-1)(T.tensor(X), T.tensor(X) * 2),
                 id="argnums-negative"),
    pytest.param(lambda T: T.func.grad(lambda x: (cube_sum(x), {"double": x * 2}), has_aux=True)(T.tensor(X)),
                 id="has-aux"),
    pytest.param(lambda T: T.func.grad_and_value(cube_sum)(T.tensor(X)), id="grad-and-value"),
    pytest.param(lambda T: T.func.grad_and_value(lambda x: (cube_sum(x), x.mean()), has_aux=True)(T.tensor(X)),
                 id="grad-and-value-aux"),
    pytest.param(lambda T: T.func.grad(lambda p: (p["w"] @ p["x"]).pow(2).sum())(
        {"w": T.tensor(M), "x": T.tensor(X)}), id="dict-input"),
    pytest.param(lambda T: T.func.grad(lambda xs: (xs[0] * xs[1][0]).sum())([T.tensor(X), (T.tensor(X),)]),
                 id="nested-list-input"),
    pytest.param(lambda T: T.func.grad(T.func.grad(lambda x: x.sin() * x ** 2))(T.tensor(0.7)), id="grad-grad"),
    pytest.param(lambda T: T.func.grad(lambda x, scale=1.0: (x * scale).sum())(T.tensor(X), scale=3.0),
                 id="kwargs"),
    pytest.param(lambda T: T.func.grad(lambda a, b: b.sum())(T.tensor(X), T.tensor(X)), id="unused-is-zeros"),
    pytest.param(lambda T: T.func.grad(lambda x: T.tensor(1.0))(T.tensor(X)), id="constant-is-zeros"),
    pytest.param(lambda T: T.func.grad(lambda x: (x > 0).long().sum())(T.tensor(X)), id="integer-output-zeros"),
    pytest.param(lambda T: T.func.grad(lambda x: T.func.vmap(T.sin)(x).sum())(T.tensor(B)), id="grad-of-vmap"),
])
@torch_only
def test_grad_values(torch_oracle, case):
    same(case, torch_oracle, rtol=1e-5, atol=1e-6)


@torch_only
def test_grad_is_functional(torch_oracle):
    """Nothing lands in ``.grad``; the input need not require grad; an outer ``no_grad``
    does not stop the transform, and its results are then detached."""
    def run(T):
        x = T.tensor(X, requires_grad=True)
        g = T.func.grad(cube_sum)(x)  # connected to x, as in PyTorch
        with T.no_grad():
            g_ng = T.func.grad(cube_sum)(x)
            gg_ng = T.func.grad(T.func.grad(lambda t: t ** 3))(T.tensor(2.0))
        plain = T.func.grad(cube_sum)(T.tensor(X))
        return g.requires_grad, x.grad, g_ng, gg_ng, plain, x.requires_grad, x.is_leaf
    same(run, torch_oracle)


@torch_only
def test_results_stay_connected_to_the_callers_graph(torch_oracle):
    """A gradient that depends on the caller's tensors (an input that requires grad, a
    captured parameter) can be differentiated again: a gradient penalty."""
    def run(T):
        x = T.tensor(X, requires_grad=True)
        w = T.tensor(X * 0 + 2.0, requires_grad=True)
        g = T.func.grad(lambda t: (t ** 2 * w).sum())(x)
        (g ** 2).sum().backward()
        only_x = T.func.grad(lambda t: (t ** 2).sum() + w.sum())(T.tensor(X))  # depends on no outer tensor
        out, vjp_fn = T.func.vjp(lambda t: t * w, T.tensor(X))
        (ct,) = vjp_fn(T.ones(3))
        return g.requires_grad, x.grad, w.grad, only_x.requires_grad, out.requires_grad, ct.requires_grad
    same(run, torch_oracle)


@torch_only
def test_second_order_compositions(torch_oracle):
    """Hessian-vector products the tutorial's ways (``jvp(grad(f))``, ``vjp(grad(f))``), a
    Hessian of a dict of inputs (a dict of dicts), and tangents/cotangents that require
    grad (the products are differentiable with respect to them)."""
    def run(T):
        def f(x):
            return x.sin().sum() * x.pow(2).sum()
        x, v = T.tensor(X), T.tensor(X[::-1].copy())
        hvp_fwd = T.func.jvp(T.func.grad(f), (x,), (v,))[1]
        hvp_rev = T.func.vjp(T.func.grad(f), x)[1](v)
        hess = T.func.hessian(lambda d: (d["a"] ** 2 * d["b"]).sum())({"a": T.tensor(Y), "b": T.tensor(Y) + 1})
        t = T.ones(3, requires_grad=True)
        _, jv = T.func.jvp(T.sin, (x,), (t,))
        jv.sum().backward()
        c = T.ones(3, requires_grad=True)
        (vj,) = T.func.vjp(T.sin, x)[1](c)
        return hvp_fwd, hvp_rev, hess, jv.requires_grad, t.grad, vj.requires_grad
    same(run, torch_oracle, rtol=1e-5, atol=1e-5)


# ============================================================================ vjp, jvp, linearize
@torch_only
def test_vjp_values(torch_oracle):
    def run(T):
        out, fn = T.func.vjp(T.sin, T.tensor(X))
        first, second = fn(T.ones(3)), fn(T.tensor(X))  # the graph is kept: vjp_fn can be called again
        out2, fn2 = T.func.vjp(lambda a, b: (a[:2] * b, a.sum()), T.tensor(X), T.tensor(Y))
        out3, fn3 = T.func.vjp(lambda d: {"s": d["a"] * d["b"]}, {"a": T.tensor(X), "b": T.tensor(X) + 1})
        out4, fn4, aux = T.func.vjp(lambda a: (a.exp(), a.cos()), T.tensor(X), has_aux=True)
        return (out, first, second, out2, fn2((T.tensor(Y), T.tensor(3.0))), out3, fn3({"s": T.tensor(X)}),
                out4, fn4(T.ones(3)), aux)
    same(run, torch_oracle, rtol=1e-5, atol=1e-6)


@torch_only
def test_jvp_and_linearize_values(torch_oracle):
    def run(T):
        r1 = T.func.jvp(T.sin, (T.tensor(X),), (T.ones(3),))
        r2 = T.func.jvp(lambda w, x: w @ x, (T.tensor(M), T.tensor(X)), (T.ones(2, 3), T.tensor(X)))
        r3 = T.func.jvp(lambda x: (x.exp(), {"c": x.cos().sum()}), (T.tensor(X),), (T.tensor(X),))
        r4 = T.func.jvp(lambda x: (x.sin(), x.cos()), (T.tensor(X),), (T.ones(3),), has_aux=True)
        r5 = T.func.jvp(lambda x: T.ones(2), (T.tensor(X),), (T.ones(3),))
        return r1, r2, r3, r4, r5
    same(run, torch_oracle, rtol=1e-5, atol=1e-6)


@torch_only
def test_linearize_matches_jvp(torch_oracle):
    """learntorch's ``linearize`` against torch's ``jvp`` at the same point (torch's own
    ``linearize`` traces with FX, seconds per call)."""
    def f(x, y):
        return x.sin() * y, (x ** 2).sum()
    out, jvp_fn = lt.func.linearize(f, lt.tensor(X), lt.tensor(X) + 1)
    for tangent in (np.ones(3, np.float32), X):
        t_out, t_jvp = torch_oracle.func.jvp(f, (torch_oracle.tensor(X), torch_oracle.tensor(X) + 1),
                                             (torch_oracle.tensor(tangent), torch_oracle.zeros(3)))
        assert_same(out, t_out)
        assert_same(jvp_fn(lt.tensor(tangent), lt.zeros(3)), t_jvp, rtol=1e-5, atol=1e-6)


# ============================================================================ vmap
@pytest.mark.parametrize("case", [
    pytest.param(lambda T: T.func.vmap(T.sin)(T.tensor(B)), id="sin"),
    pytest.param(lambda T: T.vmap(T.dot)(T.tensor(B), T.tensor(B)), id="torch.vmap-dot"),
    pytest.param(lambda T: T.func.vmap(T.mv, in_dims=(None, 0))(T.tensor(M), T.tensor(B)), id="in-dims-none"),
    pytest.param(lambda T: T.func.vmap(lambda a, b: a * b.sum(), in_dims=(1, 0))(T.tensor(B).t(), T.tensor(B)),
                 id="in-dims-1"),
    pytest.param(lambda T: T.func.vmap(lambda a: a * 2, in_dims=-1)(T.tensor(B)), id="in-dims-negative"),
    pytest.param(lambda T: T.func.vmap(lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": None},))(
        {"a": T.tensor(B), "b": T.tensor(X)}), id="in-dims-dict"),
    pytest.param(lambda T: T.func.vmap(lambda xs: xs[0] + xs[1], in_dims=([0, None],))(
        [T.tensor(B), T.tensor(X)]), id="in-dims-list"),
    pytest.param(lambda T: T.func.vmap(lambda a: a, out_dims=1)(T.tensor(B)), id="out-dims-1"),
    pytest.param(lambda T: T.func.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(T.tensor(B)), id="out-dims-tuple"),
    pytest.param(lambda T: T.func.vmap(lambda a: {"s": a.sum(), "d": a * 2}, out_dims={"s": 0, "d": 1})(
        T.tensor(B)), id="out-dims-dict"),
    pytest.param(lambda T: T.func.vmap(lambda a: [a, a.exp()])(T.tensor(B)), id="list-output"),
    pytest.param(lambda T: T.func.vmap(lambda a: (a, 3), out_dims=(0, None))(T.tensor(B)), id="out-dims-none"),
    pytest.param(lambda T: T.func.vmap(lambda a: T.ones(2))(T.tensor(B)), id="unbatched-output-expands"),
    pytest.param(lambda T: T.func.vmap(lambda a, scale=1.0: a * scale)(T.tensor(B), scale=T.tensor(X)),
                 id="kwargs-not-mapped"),
    pytest.param(lambda T: T.func.vmap(T.func.vmap(T.dot))(T.tensor(B).reshape(2, 2, 3),
                                                           T.tensor(B).reshape(2, 2, 3)), id="nested"),
    pytest.param(lambda T: T.func.vmap(T.func.vmap(T.outer, in_dims=(None, 0)), in_dims=(0, None))(
        T.tensor(B), T.tensor(B2)), id="nested-outer"),
    pytest.param(lambda T: T.func.vmap(lambda a: a.sum())(T.zeros(0, 3)), id="empty-batch"),
    pytest.param(lambda T: T.func.vmap(lambda a: a.sum(), chunk_size=2)(T.tensor(B)), id="chunk-size"),
    pytest.param(lambda T: T.func.vmap(T.func.grad(cube_sum))(T.tensor(B)), id="vmap-grad"),
    pytest.param(lambda T: T.func.vmap(lambda x: T.func.jvp(T.sin, (x,), (T.ones(3),)))(T.tensor(B)),
                 id="vmap-jvp"),
])
@torch_only
def test_vmap_values(torch_oracle, case):
    same(case, torch_oracle, rtol=1e-5, atol=1e-6)


@torch_only
def test_vmap_output_is_differentiable(torch_oracle):
    def run(T):
        x = T.tensor(B, requires_grad=True)
        y = T.func.vmap(lambda a: (a.sin() * a).sum())(x)
        y.sum().backward()
        return y.requires_grad, x.grad
    same(run, torch_oracle)


@pytest.mark.parametrize("randomness", ["same", "different"])
@torch_only
def test_vmap_randomness_draws(torch_oracle, randomness):
    """``rand`` is drawn bit for bit as PyTorch draws it; ``"same"`` rewinds the generator,
    ``"different"`` draws the samples one after the other, as PyTorch's small draws do."""
    def run(T):
        T.manual_seed(0)
        out = T.func.vmap(lambda a: a + T.rand(3), randomness=randomness)(T.zeros(4, 3))
        return out, T.rand(2)  # and the generator continues where PyTorch's does
    same(run, torch_oracle, exact=True)


# ============================================================================ functional_call
@torch_only
def test_functional_call_with_linear(torch_oracle):
    def run(T):
        lin = T.nn.Linear(3, 2)
        x = T.tensor(DATA)
        w, b = T.tensor(M), T.ones(2)
        full = T.func.functional_call(lin, {"weight": w, "bias": b}, (x,))
        single_arg = T.func.functional_call(lin, {"weight": w, "bias": b}, x)
        two_dicts = T.func.functional_call(lin, ({"weight": w}, {"bias": b}), x)
        by_kwargs = T.func.functional_call(lin, {"weight": w, "bias": b}, (), {"input": x})
        g = T.func.grad(lambda p: T.func.functional_call(lin, p, x).pow(2).sum())({"weight": w, "bias": b})
        return full, single_arg, two_dicts, by_kwargs, g, type(lin.weight).__name__, lin.weight.grad
    same(run, torch_oracle, rtol=1e-5, atol=1e-6)


@torch_only
def test_functional_call_ties_weights_and_writes_buffers_back(torch_oracle):
    def run(T):
        class Tied(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = T.nn.Linear(2, 2, bias=False)
                self.b = T.nn.Linear(2, 2, bias=False)
                self.b.weight = self.a.weight

            def forward(self, x):
                return self.b(self.a(x))
        tied = Tied()
        both = T.func.functional_call(tied, {"a.weight": T.eye(2) * 2}, T.ones(1, 2))
        bn = T.nn.BatchNorm1d(3)
        buffers = {"running_mean": T.zeros(3), "running_var": T.ones(3), "num_batches_tracked": T.tensor(0)}
        mean = buffers["running_mean"]
        T.func.functional_call(bn, buffers, T.tensor(DATA))
        return both, buffers, mean, bn.running_mean, bn.num_batches_tracked
    same(run, torch_oracle, rtol=1e-5, atol=1e-6)


@torch_only
def test_stateless_functional_call_is_deprecated(torch_oracle):
    for T in (torch_oracle, lt):
        with pytest.warns(FutureWarning, match="torch.func.functional_call"):
            out = T.nn.utils.stateless.functional_call(T.nn.Linear(3, 2), {"weight": T.tensor(M), "bias": T.ones(2)},
                                                       T.tensor(X))
        np.testing.assert_allclose(out.detach().numpy(), M @ X + 1, rtol=1e-6)


def test_functional_call_restores_the_module_even_on_error():
    lin = lt.nn.Linear(3, 2)
    weight, bias = lin.weight, lin.bias

    def boom(module, inputs):
        raise ValueError("boom")
    handle = lin.register_forward_pre_hook(boom)
    with pytest.raises(ValueError, match="boom"):
        lt.func.functional_call(lin, {"weight": lt.zeros(2, 3), "extra": lt.ones(1)}, lt.tensor(X))
    handle.remove()
    assert lin.weight is weight and lin.bias is bias and lin._parameters["weight"] is weight
    assert not hasattr(lin, "extra")
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]


@torch_only
def test_stack_module_state(torch_oracle):
    def run(T):
        models = [T.nn.BatchNorm1d(3) for _ in range(2)]
        params, buffers = T.func.stack_module_state(models)
        return ({k: (tuple(v.shape), v.requires_grad, v.is_leaf) for k, v in params.items()},
                {k: (tuple(v.shape), v.requires_grad, v.dtype) for k, v in buffers.items()})
    same(run, torch_oracle)


# ============================================================================ errors
ERRORS = [
    # grad
    (lambda T: T.func.grad(lambda x: x)(T.tensor(X)), RuntimeError, r"Expected f\(\*args\) to return a scalar Tensor"),
    (lambda T: T.func.grad(lambda x: 3.0)(T.tensor(X)), RuntimeError, r"to return a Tensor, got <class 'float'>"),
    (lambda T: T.func.grad(cube_sum, has_aux=True)(T.tensor(X)), RuntimeError, r"should be a tuple: \(output, aux\)"),
    (lambda T: T.func.grad(lambda a, b: a.sum(), argnums=2)(T.tensor(X), T.tensor(X)), RuntimeError,
     r"Got argnum=2, but only 2 positional inputs"),
    (lambda T: T.func.grad(lambda a, b: a.sum(), argnums=[0, 1])(T.tensor(X), T.tensor(X)), RuntimeError,
     r"argnums must be int or Tuple\[int, \.\.\.\], got: <class 'list'>"),
    (lambda T: T.func.grad(lambda a, b: a.sum(), argnums=())(T.tensor(X), T.tensor(X)), RuntimeError,
     r"argnums must be non-empty"),
    (lambda T: T.func.grad(lambda a, b: a.sum(), argnums=(0, 0))(T.tensor(X), T.tensor(X)), RuntimeError,
     r"argnums elements must be unique"),
    (lambda T: T.func.grad(lambda a: a)(3.0), ValueError, r"Thing passed to transform API must be Tensor"),
    (lambda T: T.func.grad(lambda a: a.sum())(T.tensor([1, 2])), RuntimeError, r"floating point dtype"),
    # vjp, jvp, jacrev
    (lambda T: T.func.vjp(lambda a: (a, a), T.tensor(X))[1](T.ones(3)), RuntimeError,
     r"cotangents: \*, primal output: \(\*, \*\)"),
    (lambda T: T.func.vjp(T.sin, T.tensor(X))[1](T.ones(2)), RuntimeError, r"Mismatch in shape"),
    (lambda T: T.func.vjp(lambda a: 3, T.tensor(X)), RuntimeError, r"to return only tensors"),
    (lambda T: T.func.vjp(lambda a: (a > 0).long(), T.tensor(X)), RuntimeError, r"floating-point or complex"),
    (lambda T: T.func.jvp(T.sin, T.tensor(X), T.ones(3)), RuntimeError, r"Expected primals to be a tuple"),
    (lambda T: T.func.jvp(lambda a, b: a, (T.tensor(X), T.tensor(X)), (T.ones(3),)), RuntimeError,
     r"Expected primals and tangents to have the same python structure"),
    (lambda T: T.func.jvp(T.sin, (T.tensor(X),), (T.ones(2),)), RuntimeError, r"different size"),
    (lambda T: T.func.jvp(T.sin, (), ()), RuntimeError, r"Expected primals to contain at least one Tensor"),
    (lambda T: T.func.jacrev(T.sin, chunk_size=0), ValueError, r"`chunk_size` should be greater than 0"),
    (lambda T: T.func.jacfwd(lambda a: a * T.rand(3))(T.tensor(X)), RuntimeError, r"randomness error mode"),
    (lambda T: T.func.jacfwd(T.sin, randomness="maybe")(T.tensor(X)), RuntimeError,
     r"Only allowed values for randomness"),
    # vmap
    (lambda T: T.func.vmap(T.add)(T.tensor(B), T.ones(5, 3)), ValueError,
     r"Expected all tensors to have the same size in the mapped dimension, got sizes \[4, 5\]"),
    (lambda T: T.func.vmap(T.sin, in_dims=[0])(T.tensor(B)), ValueError, r"expected `in_dims` to be int or a"),
    (lambda T: T.func.vmap(T.add, in_dims=(0,))(T.tensor(B), T.tensor(B)), ValueError,
     r"in_dims is not compatible with the structure of `inputs`"),
    (lambda T: T.func.vmap(lambda a, b: a, in_dims=(0, 0))(T.tensor(B), 3), ValueError,
     r"We cannot vmap over non-Tensor arguments"),
    (lambda T: T.func.vmap(T.sin, in_dims=2)(T.tensor(B)), ValueError, r"expected in_dim to satisfy -2 <= in_dim < 2"),
    (lambda T: T.func.vmap(T.sin, in_dims=(None,))(T.tensor(B)), ValueError, r"Expected at least one Tensor"),
    (lambda T: T.func.vmap(T.sin)(), ValueError, r"got no inputs"),
    (lambda T: T.func.vmap(lambda a: 3)(T.tensor(B)), ValueError, r"must only return Tensors, got type <class 'int'>"),
    (lambda T: T.func.vmap(T.sin, out_dims=(0, 1))(T.tensor(B)), ValueError, r"out_dims is not compatible"),
    (lambda T: T.func.vmap(T.sin, out_dims=0.5)(T.tensor(B)), ValueError, r"`out_dims` must be an int, None"),
    (lambda T: T.func.vmap(T.sin, out_dims=None)(T.tensor(B)), ValueError,
     r"can not return a BatchedTensor when out_dim is None"),
    (lambda T: T.func.vmap(T.sin, out_dims=3)(T.tensor(B)), IndexError, r"Dimension out of range"),
    (lambda T: T.func.vmap(lambda a: a + T.rand(3))(T.tensor(B)), RuntimeError, r"randomness error mode"),
    (lambda T: T.func.vmap(T.sin, randomness="maybe"), RuntimeError, r"Only allowed values for randomness"),
    (lambda T: T.func.vmap(T.sin, chunk_size=0), ValueError, r"chunk_size should be None or greater than 0"),
    # functional_call, stack_module_state
    (lambda T: T.func.functional_call(T.nn.Linear(3, 2), ({"weight": T.tensor(M)}, {"weight": T.tensor(M)}),
                                      T.tensor(X)), ValueError, r"appeared in multiple dictionaries"),
    (lambda T: T.func.functional_call(T.nn.Linear(3, 2), [T.tensor(M)], T.tensor(X)), ValueError,
     r"Expected all elements of parameter_and_buffer_dicts to be dictionaries"),
    (lambda T: T.func.functional_call(T.nn.Linear(3, 2), {"weight": T.tensor(M), "foo": T.ones(1)}, T.tensor(X),
                                      strict=True), RuntimeError,
     r"Error\(s\) in reparametrizing for Linear:\n\tUnexpected key\(s\): 'foo'.\n\tMissing key\(s\): 'bias'."),
    (lambda T: T.func.functional_call(T.nn.Linear(3, 2), {"sub.weight": T.tensor(M)}, T.tensor(X)),
     AttributeError, r"Linear has no attribute `sub`"),
    (lambda T: T.func.stack_module_state([]), RuntimeError, r"Expected at least one model, got 0"),
    (lambda T: T.func.stack_module_state([T.nn.Linear(3, 2), T.nn.Linear(3, 2).eval()]), RuntimeError,
     r"same training/eval mode"),
    (lambda T: T.func.stack_module_state([T.nn.Linear(3, 2), T.nn.Tanh()]), RuntimeError, r"same class"),
]


@pytest.mark.parametrize("case, kind, match", ERRORS, ids=[f"error-{i}" for i in range(len(ERRORS))])
@torch_only
def test_errors(torch_oracle, case, kind, match):
    l_exc, _ = raises_both(case, torch_oracle, match)
    assert isinstance(l_exc, kind)


def test_randomness_error_leaves_the_generator_untouched():
    lt.manual_seed(3)
    state = lt.get_rng_state()
    with pytest.raises(RuntimeError, match="randomness error mode"):
        lt.func.vmap(lambda a: a * lt.randn(3))(lt.tensor(B))
    assert lt.get_rng_state().equal(state)


# ============================================================================ pytrees
def test_pytree_round_trip_and_prefix_broadcast():
    Point = collections.namedtuple("Point", "x y")
    tree = {"a": (1, [2, None]), "b": Point(3, {"c": 4})}
    leaves, spec = tree_flatten(tree)
    assert leaves == [1, 2, None, 3, 4]
    rebuilt = tree_unflatten([v * 10 if v is not None else None for v in leaves], spec)
    assert rebuilt == {"a": (10, [20, None]), "b": Point(30, {"c": 40})} and type(rebuilt["b"]) is Point
    _, args_spec = tree_flatten((1, {"p": 2, "q": 3}))
    assert broadcast_prefix((0, None), args_spec) == [0, None, None]
    assert broadcast_prefix((0, {"q": 1, "p": None}), args_spec) == [0, None, 1]
    assert broadcast_prefix((0,), args_spec) is None
    assert broadcast_prefix((0, {"p": 0}), args_spec) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(tree_flatten((1, 2))[1]) == "TreeSpec(tuple, None, [*,\n  *])"
