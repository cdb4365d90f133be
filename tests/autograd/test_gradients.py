"""Chapter 02 (autograd): gradients of every operation and the engine's behaviour, against PyTorch 2.13.

* ``test_op_gradients``: each operation of chapter 01 on the same inputs in both
  libraries, then backward with the same random weights: outputs, ``grad_fn``
  names and every ``.grad`` must agree (``conftest.grads_both``);
* graph structure: ``grad_fn`` / ``next_functions`` / ``is_leaf`` / ``requires_grad``;
* the engine: backward on a non-scalar, ``retain_graph``, accumulation, vector-Jacobian
  products, ``autograd.grad`` (``allow_unused``, ``create_graph``), version counters,
  ``detach``, grad mode, ``retain_grad`` and hooks (order compared by recording calls).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, grads_both, graph_signature, leaves, raises_both, to_numpy

pytestmark = pytest.mark.torch

rng = np.random.default_rng(2024)
A = rng.standard_normal((2, 3)).astype(np.float32)
A2 = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((3,)).astype(np.float32)
C = rng.standard_normal((4, 1, 3)).astype(np.float32)
D = rng.standard_normal((3, 4)).astype(np.float32)
E = rng.standard_normal((2, 3, 4)).astype(np.float32)
F = rng.standard_normal((2, 4, 5)).astype(np.float32)
P = (rng.random((2, 3)) + 0.5).astype(np.float32)
V = rng.standard_normal((4,)).astype(np.float32)
S0 = np.float32(1.5)                                      # a 0-dim input
TIED = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, -1.0]], dtype=np.float32)
ZEROS = np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0]], dtype=np.float32)
MASK = A > 0


def g(name, fn, *arrays, **kw):
    return pytest.param(fn, arrays, kw, id=name)


GRAD_CASES = [
    # ---------------------------------------------------------------- arithmetic
    g("add", lambda T, x, y: x + y, A, A2),
    g("add-broadcast", lambda T, x, y: x + y, A, B),
    g("add-broadcast-3d", lambda T, x, y: x + y, C, A),
    g("add-alpha", lambda T, x, y: T.add(x, y, alpha=3), A, B),
    g("sub", lambda T, x, y: x - y, B, A),
    g("sub-alpha", lambda T, x, y: T.sub(x, y, alpha=0.5), A, B),
    g("mul-broadcast", lambda T, x, y: x * y, C, A),
    g("mul-self", lambda T, x: x * x, A),
    g("div-broadcast", lambda T, x, y: x / y, A, P[0]),
    g("div-self", lambda T, x: x / x, P),
    g("scalar-add-left", lambda T, x: 2 + x, A),
    g("scalar-add-right", lambda T, x: x + 2.5, A),
    g("scalar-sub-left", lambda T, x: 2 - x, A),
    g("scalar-sub-right", lambda T, x: x - 2, A),
    g("scalar-mul-left", lambda T, x: 3 * x, A),
    g("scalar-mul-right", lambda T, x: x * -0.5, A),
    g("scalar-div-left", lambda T, x: 2 / x, P),
    g("scalar-div-right", lambda T, x: x / 4, A),
    g("pow-2", lambda T, x: x ** 2, A),
    g("pow-3", lambda T, x: x.pow(3), A),
    g("pow-half", lambda T, x: x ** 0.5, P),
    g("pow-negative", lambda T, x: x ** -1.5, P),
    g("pow-0", lambda T, x: x ** 0, A),
    g("rpow", lambda T, x: 2 ** x, A),
    g("pow-tensor", lambda T, x, y: x ** y, P, A),
    g("pow-tensor-broadcast", lambda T, x, y: x ** y, P, B),
    g("neg", lambda T, x: -x, A),
    g("0dim-times-matrix", lambda T, x, s: x * s, A, S0),
    g("0dim-plus-0dim", lambda T, s, t: s * t + s, S0, np.float32(-2.0)),
    g("maximum", lambda T, x, y: T.maximum(x, y), A, B),
    g("maximum-ties", lambda T, x, y: T.maximum(x, y), TIED, TIED[::-1].copy()),
    g("minimum-ties", lambda T, x, y: T.minimum(x, y), TIED, np.full((2, 3), 2.0, np.float32)),
    g("where", lambda T, x, y: T.where(x > 0, x, y), A, B),
    g("where-scalar", lambda T, x: T.where(x > 0, x, 0.0), A),
    g("to-float64", lambda T, x: x.to(T.float64) * 2, A),
    g("double-float", lambda T, x: x.double().float(), A),
    g("clone", lambda T, x: x.clone() * 2, A),
    # ---------------------------------------------------------------- unary
    g("exp", lambda T, x: x.exp(), A),
    g("log", lambda T, x: T.log(x), P),
    g("sqrt", lambda T, x: x.sqrt(), P),
    g("sin", lambda T, x: T.sin(x), A),
    g("cos", lambda T, x: x.cos(), A),
    g("tanh", lambda T, x: x.tanh(), A),
    g("sigmoid", lambda T, x: T.sigmoid(x), A),
    g("relu", lambda T, x: x.relu(), A),
    g("abs", lambda T, x: x.abs(), A),
    g("reciprocal", lambda T, x: x.reciprocal(), P),
    g("rsqrt", lambda T, x: x.rsqrt(), P),
    g("square", lambda T, x: x.square(), A),
    g("log1p", lambda T, x: x.log1p(), P),
    g("expm1", lambda T, x: x.expm1(), A),
    g("log2", lambda T, x: x.log2(), P),
    g("log10", lambda T, x: x.log10(), P),
    g("exp2", lambda T, x: x.exp2(), A),
    g("sign", lambda T, x: x.sign() + x, A),
    g("floor", lambda T, x: x.floor(), A * 3),
    g("ceil", lambda T, x: T.ceil(x), A * 3),
    g("round", lambda T, x: x.round(), A * 3),
    g("round-decimals", lambda T, x: T.round(x, decimals=1), A * 3),
    g("trunc", lambda T, x: x.trunc(), A * 3),
    g("clamp-min", lambda T, x: x.clamp(min=0), A),
    g("clamp-max", lambda T, x: T.clamp(x, max=0.3), A),
    g("clamp-both", lambda T, x: x.clamp(-0.5, 0.5), A),
    g("clamp-at-bound", lambda T, x: x.clamp(min=2.0, max=3.0), TIED),
    # ---------------------------------------------------------------- reductions
    g("sum", lambda T, x: x.sum(), E),
    g("sum-dim", lambda T, x: x.sum(1), E),
    g("sum-keepdim", lambda T, x: x.sum(-1, keepdim=True), E),
    g("sum-tuple", lambda T, x: T.sum(x, (0, 2)), E),
    g("sum-tuple-neg-keepdim", lambda T, x: x.sum((-1, 0), keepdim=True), E),
    g("mean", lambda T, x: x.mean(), E),
    g("mean-dim", lambda T, x: x.mean(0), E),
    g("mean-tuple-keepdim", lambda T, x: T.mean(x, (1, 2), keepdim=True), E),
    g("max-all", lambda T, x: x.max(), A),
    g("max-all-ties", lambda T, x: x.max(), TIED),
    g("min-all-ties", lambda T, x: T.min(x), np.array([1.0, -1.0, -1.0], np.float32)),
    g("max-dim", lambda T, x: x.max(1), A, select=lambda r: r[0]),
    g("max-dim-keepdim", lambda T, x: T.max(x, -1, keepdim=True), E, select=lambda r: r.values),
    g("min-dim", lambda T, x: x.min(0), A, select=lambda r: r[0]),
    g("amax", lambda T, x: x.amax(1), TIED),
    g("amax-tuple", lambda T, x: T.amax(x, (0, 2)), E),
    g("amin-keepdim", lambda T, x: x.amin(-1, keepdim=True), TIED),
    g("prod", lambda T, x: x.prod(), P),
    g("prod-dim", lambda T, x: x.prod(1), A),
    g("prod-keepdim", lambda T, x: T.prod(x, 0, keepdim=True), A),
    g("prod-with-zero", lambda T, x: x.prod(1), ZEROS),
    g("prod-all-with-zero", lambda T, x: x.prod(), ZEROS[0]),
    g("var", lambda T, x: x.var(), E),
    g("var-dim", lambda T, x: T.var(x, 1, unbiased=False), E),
    g("std", lambda T, x: x.std(), E),
    g("std-dim-keepdim", lambda T, x: x.std(-1, keepdim=True), E),
    g("logsumexp", lambda T, x: T.logsumexp(x, 1), E),
    g("logsumexp-tuple", lambda T, x: x.logsumexp((0, 2), keepdim=True), E),
    g("norm", lambda T, x: x.norm(), A),
    g("norm-dim", lambda T, x: T.norm(x, dim=1), A),
    g("norm-p1", lambda T, x: x.norm(p=1, dim=-1, keepdim=True), E),
    g("norm-p3", lambda T, x: x.norm(3), A),
    g("norm-inf", lambda T, x: x.norm(float("inf"), dim=0), A),
    g("cumsum", lambda T, x: x.cumsum(1), E),
    # ---------------------------------------------------------------- shape
    g("view", lambda T, x: x.view(3, 2), A),
    g("view-minus-one", lambda T, x: x.view(-1), E),
    g("reshape", lambda T, x: x.reshape(4, 6), E),
    g("reshape-noncontiguous", lambda T, x: x.t().reshape(-1), A),
    g("t", lambda T, x: x.t(), A),
    g("transpose", lambda T, x: x.transpose(0, 2), E),
    g("permute", lambda T, x: T.permute(x, (2, 0, 1)), E),
    g("mT", lambda T, x: x.mT, E),
    g("squeeze", lambda T, x: x.squeeze(1), C),
    g("squeeze-all", lambda T, x: T.squeeze(x), C),
    g("unsqueeze", lambda T, x: x.unsqueeze(1), A),
    g("expand", lambda T, x: x.expand(4, 2, 3), C[:1, :, :].reshape(1, 3)[None]),
    g("expand-new-dim", lambda T, x: x.expand(2, 3), B),
    g("cat", lambda T, x, y: T.cat([x, y, x]), A, A2),
    g("cat-dim1", lambda T, x, y: T.cat((x, y), dim=1), A, D[:2]),
    g("cat-promote", lambda T, x, y: T.cat([x, y]), A, A2.astype(np.float64)),
    g("stack", lambda T, x, y: T.stack([x, y], dim=1), A, A2),
    g("split", lambda T, x: T.cat([p * (i + 1) for i, p in enumerate(x.split(2, dim=1))], 1), D),
    g("split-sections", lambda T, x: x.split([1, 3], dim=1)[1], D),
    g("chunk", lambda T, x: x.chunk(2)[1], V),
    g("unbind", lambda T, x: x.unbind(1)[2] * 2, A),
    g("flatten", lambda T, x: x.flatten(1), E),
    g("narrow", lambda T, x: x.narrow(2, 1, 2), E),
    g("flip", lambda T, x: x.flip(0, 2), E),
    g("repeat", lambda T, x: x.repeat(2, 1, 3), A),
    g("movedim", lambda T, x: T.movedim(x, 0, -1), E),
    g("vstack", lambda T, x, y: T.vstack([x, y]), B, B[::-1].copy()),
    g("iterate", lambda T, x: T.stack([r * i for i, r in enumerate(x)]), A),
    # ---------------------------------------------------------------- indexing
    g("index-int", lambda T, x: x[1], A),
    g("index-two-ints", lambda T, x: x[1, -1], A),
    g("index-slice", lambda T, x: x[:, 1:], A),
    g("index-step", lambda T, x: x[::2, 1::2], D),
    g("index-none-ellipsis", lambda T, x: x[None, ..., 0], E),
    g("index-list-repeated", lambda T, x: x[[0, 1, 1, 0, 1]], A),
    g("index-two-lists", lambda T, x: x[[0, 1, 1], [2, 0, 2]], A),
    g("index-int-tensor", lambda T, x: x[T.tensor([2, 0, 2])], D),
    g("index-int-tensor-2d", lambda T, x: x[T.tensor([[1, 1], [0, 1]])], A),
    g("index-column-tensor", lambda T, x: x[:, T.tensor([3, 3, 0])], D),
    g("index-mask", lambda T, x: x[x > 0], A),
    g("index-mask-rows", lambda T, x: x[T.tensor([True, False, True])], D),
    g("index-negative-list", lambda T, x: x[[-1, -1]], A),
    g("gather", lambda T, x: x.gather(1, T.tensor([[0, 0, 2], [1, 2, 2]])), A),
    g("gather-dim0", lambda T, x: T.gather(x, 0, T.tensor([[1, 0, 1, 1]])), D),
    g("index_select-repeated", lambda T, x: x.index_select(0, T.tensor([2, 2, 0])), D),
    g("index_select-dim1", lambda T, x: T.index_select(x, 1, T.tensor([1, 3])), D),
    g("masked_fill", lambda T, x: x.masked_fill(T.tensor(MASK), 0.0), A),
    g("masked_fill-broadcast", lambda T, x: x.masked_fill(T.tensor([True, False, True]), -1.0), A),
    g("masked_select", lambda T, x: T.masked_select(x, x > 0), A),
    # ---------------------------------------------------------------- sorting
    g("sort", lambda T, x: x.sort(dim=1, descending=True), D, select=lambda r: r.values),
    g("sort-dim0", lambda T, x: T.sort(x, 0), D, select=lambda r: r[0]),
    g("topk", lambda T, x: x.topk(2), D, select=lambda r: r.values),
    g("topk-smallest", lambda T, x: T.topk(x, 1, dim=0, largest=False), D, select=lambda r: r[0]),
    # ---------------------------------------------------------------- products
    g("matmul-1d-1d", lambda T, x, y: T.matmul(x, y), V, V[::-1].copy()),
    g("matmul-2d-1d", lambda T, x, y: x @ y, D, V),
    g("matmul-2d-2d", lambda T, x, y: x @ y, A, D),
    g("mm", lambda T, x, y: x.mm(y), A, D),
    g("bmm", lambda T, x, y: T.bmm(x, y), E, F),
    g("dot", lambda T, x, y: T.dot(x, y), V, V[::-1].copy()),
    g("mv", lambda T, x, y: T.mv(x, y), D, V),
    g("outer", lambda T, x, y: T.outer(x, y), B, V),
    # ---------------------------------------------------------------- nn helpers
    g("normalize", lambda T, x: T.nn.functional.normalize(x), A),
    g("normalize-p1-dim0", lambda T, x: T.nn.functional.normalize(x, p=1, dim=0), A),
    # (PyTorch fills a preallocated tensor, so its grad_fn is CopySlices; learntorch stacks: StackBackward0)
    g("pad_sequence", lambda T, x, y: T.nn.utils.rnn.pad_sequence([x, y], batch_first=True, padding_value=-1), D,
      D[:2] * 2, check_grad_fn=False),
    # ---------------------------------------------------------------- compositions
    g("two-layer-net", lambda T, x, w1, w2: x.mm(w1).clamp(min=0).mm(w2), A, D, D.T.copy()),
    g("softmax-by-hand", lambda T, x: (x - x.logsumexp(1, keepdim=True)).exp(), E[0]),
    g("mse", lambda T, x, y: ((x - y) ** 2).mean(), A, A2),
]


@pytest.mark.parametrize("fn, arrays, kw", GRAD_CASES)
def test_op_gradients(torch_oracle, fn, arrays, kw):
    grads_both(fn, torch_oracle, *arrays, **kw)


# Matrix products whose grad_fn PyTorch names after its internal decomposition.
MATMUL_NAMES = [
    g("matmul-3d-3d", lambda T, x, y: x @ y, E, F),
    g("matmul-1d-2d", lambda T, x, y: T.matmul(x, y), B, D),
    g("matmul-3d-2d", lambda T, x, y: x @ y, E, D.T.copy()),
    g("matmul-1d-3d", lambda T, x, y: x @ y, B, E),
    g("matmul-batched-broadcast", lambda T, x, y: T.matmul(x, y), E[None], F[:, None][:1, :, :, :].reshape(1, 4, 5)),
]


@pytest.mark.parametrize("fn, arrays, kw", MATMUL_NAMES)
def test_matmul_gradients(torch_oracle, fn, arrays, kw):
    """Values and gradients of the other matmul cases (their grad_fn names are checked below)."""
    grads_both(fn, torch_oracle, *arrays, check_grad_fn=False)


@pytest.mark.parametrize("fn, arrays, kw", MATMUL_NAMES)
def test_matmul_grad_fn_names(torch_oracle, fn, arrays, kw):
    """PyTorch names these grad_fn after its internal decomposition of matmul (SqueezeBackward4 /
    UnsafeViewBackward0 from reshape-to-mm/bmm); learntorch builds the product the same way, so a
    printed tensor shows the same grad_fn."""
    lts, tts = leaves(torch_oracle, *arrays)
    assert fn(lt, *lts).grad_fn.name() == fn(torch_oracle, *tts).grad_fn.name()


# ============================================================================ the graph
def test_leaves_and_requires_grad_propagation(torch_oracle):
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([3.0, 4.0])
        y = x * w
        z = (w * 2).sum()
        d = y.detach()
        i = T.tensor([1, 2]) * 2
        return [(t.is_leaf, t.requires_grad, t.grad_fn is None) for t in (x, w, y, z, d, i, y.sum(), x > 0,
                                                                            x.argmax(), x.sort().indices)]
    check_both(run, torch_oracle)


GRAPHS = [
    pytest.param(lambda T, x, w1, w2: (x.mm(w1).clamp(min=0).mm(w2) - 1).pow(2).sum(), id="two-layer-net-loss"),
    pytest.param(lambda T, x, w1, w2: x * 2, id="scalar-edge"),
    pytest.param(lambda T, x, w1, w2: 2 - x, id="rsub"),
    pytest.param(lambda T, x, w1, w2: (x.sum(0) + w1.sum(1)[:3] * x.mean()).exp(), id="diamond"),
    pytest.param(lambda T, x, w1, w2: T.cat([x, x * 2]).t().sum(1), id="cat-t"),
    pytest.param(lambda T, x, w1, w2: x[0].unsqueeze(0).expand(3, 3), id="index-unsqueeze-expand"),
    pytest.param(lambda T, x, w1, w2: T.stack([x.detach(), x]).view(-1), id="stack-with-detached"),
    pytest.param(lambda T, x, w1, w2: (x.max(1).values, x.sort(0))[1].values.tanh(), id="sort"),
]


@pytest.mark.parametrize("fn", GRAPHS)
def test_grad_fn_and_next_functions(torch_oracle, fn):
    """``grad_fn`` names all the way down ``next_functions`` (None for inputs that need no gradient)."""
    (l_x, l_w1, l_w2), (t_x, t_w1, t_w2) = leaves(torch_oracle, A, D, D.T.copy())
    out_l, out_t = fn(lt, l_x, l_w1, l_w2), fn(torch_oracle, t_x, t_w1, t_w2)
    assert graph_signature(out_l.grad_fn) == graph_signature(out_t.grad_fn)


def test_accumulate_grad_variable(torch_oracle):
    for T in (lt, torch_oracle):
        x = T.tensor([1.0], requires_grad=True)
        acc = (x * 2).grad_fn.next_functions[0][0]
        assert acc.name() == "torch::autograd::AccumulateGrad"
        assert acc.variable is x
        assert (x * 3).grad_fn.next_functions[0][0] is acc  # one AccumulateGrad per leaf


def test_inplace_rewrites_grad_fn_and_gradient(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = x * 2
        names = [y.grad_fn.name()]
        y.add_(1)
        names.append(y.grad_fn.name())
        y.mul_(3)
        names.append(y.grad_fn.name())
        y.sub_(T.tensor(B))
        names.append(y.grad_fn.name())
        y.sum().backward()
        return names, x.grad, y._version
    check_both(run, torch_oracle)


def test_inplace_through_view_of_non_leaf(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = x.clone()
        y[:, 0] *= 3
        y[1] = y[0] * 2
        z = y.sum(0)
        (z * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        return y.grad_fn.name(), x.grad
    check_both(run, torch_oracle)


# ============================================================================ indexed assignment
SETITEM_GRADS = [
    pytest.param((0,), id="row"),
    pytest.param((slice(None), 1), id="column"),
    pytest.param((MASK,), id="mask"),
    pytest.param(([0, 1], [2, 0]), id="two-lists"),
]


@pytest.mark.parametrize("key", SETITEM_GRADS)
def test_setitem_gradient(torch_oracle, key):
    """``y[key] = v``: gradient flows to v at key and to the old y everywhere else (CopySlices)."""
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = x * 1.5
        k = tuple(T.tensor(kk) if isinstance(kk, np.ndarray) else kk for kk in key)
        shape = tuple(y[k].shape)
        v = T.tensor(np.arange(1.0, 1.0 + int(np.prod(shape))).reshape(shape).astype(np.float32),
                     requires_grad=True)
        y[k] = v * 2
        (y * T.tensor(D[:2, :3])).sum().backward()
        return y, x.grad, v.grad
    check_both(run, torch_oracle)


SETITEM_VIEWS = [
    pytest.param(lambda T, y, v: y[0].__setitem__([0, 1], 5.0), id="view-list"),
    pytest.param(lambda T, y, v: y[0].__setitem__(slice(1, None), v[:2]), id="view-slice-tensor"),
    pytest.param(lambda T, y, v: y[:, 1].__setitem__(T.tensor([True, False]), v[0]), id="view-mask"),
    pytest.param(lambda T, y, v: y.__setitem__((0, slice(None), ), v), id="int-row"),
    pytest.param(lambda T, y, v: y.__setitem__((1, [0, 2]), v[:2] * 3), id="int-and-list"),
]


@pytest.mark.parametrize("op", SETITEM_VIEWS)
def test_setitem_through_views_gradient(torch_oracle, op):
    """Assigning into a view of a tensor in the graph rewrites the base's history (CopySlices)."""
    def run(T):
        x = T.tensor(A, requires_grad=True)
        v = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        op(T, y, v)
        (y * T.tensor(A2)).sum().backward()
        return y, x.grad, v.grad
    check_both(run, torch_oracle)


def test_setitem_into_constant_view_from_tensor_requiring_grad(torch_oracle):
    def run(T):
        v = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = T.zeros(2, 3)
        y[1][:] = v * 2
        (y * T.tensor(A2)).sum().backward()
        return y, v.grad
    check_both(run, torch_oracle)


def test_setitem_scalar_gradient(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = x * 2
        y[y > 1] = 0.0
        y.sum().backward()
        return y, x.grad
    check_both(run, torch_oracle)


# ============================================================================ backward and the engine
def test_backward_on_non_scalar_needs_gradient(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        (x * 2).backward()
    raises_both(run, torch_oracle, "grad can be implicitly created only for scalar outputs")


def test_backward_gradient_shape_mismatch(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        (x * 2).backward(T.ones(3))
    raises_both(run, torch_oracle, "Mismatch in shape")


def test_backward_without_grad(torch_oracle):
    raises_both(lambda T: T.tensor(A).sum().backward(), torch_oracle,
                "element 0 of tensors does not require grad and does not have a grad_fn")


def test_backward_of_integer_scalar(torch_oracle):
    """A leaf scalar that requires grad: backward works on the leaf itself."""
    def run(T):
        x = T.tensor(2.0, requires_grad=True)
        x.backward()
        return x.grad
    check_both(run, torch_oracle)


def test_vector_jacobian_product(torch_oracle):
    """Correction 10: ``y.backward(v)`` computes vᵀ·J, not "the derivative of a matrix"."""
    def run(T):
        x = T.tensor(V, requires_grad=True)
        m = T.tensor(D)
        y = m @ (x * x)
        v = T.tensor([0.1, 1.0, 0.0001])
        y.backward(v)
        return x.grad
    lg, tg = check_both(run, torch_oracle)
    jac = D * (2 * V)[None, :]
    np.testing.assert_allclose(to_numpy(lg), np.array([0.1, 1.0, 0.0001], np.float32) @ jac, rtol=1e-5, atol=1e-6)


def test_autograd_backward_function(torch_oracle):
    def run(T):
        x = T.tensor(V, requires_grad=True)
        y1, y2 = x * 2, (x ** 2).sum()
        T.autograd.backward([y1, y2], [T.ones(4), T.tensor(3.0)])
        return x.grad
    check_both(run, torch_oracle)


def test_backward_inputs_argument(torch_oracle):
    def run(T):
        x = T.tensor(V, requires_grad=True)
        w = T.tensor(V[::-1].copy(), requires_grad=True)
        (x * w).sum().backward(inputs=[w])
        return x.grad, w.grad
    check_both(run, torch_oracle)


def test_second_backward_needs_retain_graph(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    raises_both(run, torch_oracle, "Trying to backward through the graph a second time")


def test_second_backward_without_saved_tensors_is_fine(torch_oracle):
    """Only graphs that saved tensors are freed: ``(x + 2).sum()`` saves none."""
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = (x + 2).sum()
        y.backward()
        y.backward()
        return x.grad
    check_both(run, torch_oracle)


def test_retain_graph_and_accumulation(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        first = x.grad.clone()
        y.backward()
        return first, x.grad
    lg, _ = check_both(run, torch_oracle)
    np.testing.assert_allclose(to_numpy(lg[1]), 2 * to_numpy(lg[0]))


def test_gradient_accumulates_across_graphs_until_zeroed(torch_oracle):
    def run(T):
        w = T.tensor(B, requires_grad=True)
        out = []
        for step in range(3):
            loss = ((w * (step + 1)) ** 2).sum()
            loss.backward()
            out.append(w.grad.clone())
        g = w.grad
        w.grad.zero_()
        out.append(g)                       # zero_ works in place on the same tensor
        (w * 2).sum().backward()
        out.append(w.grad)
        w.grad = None
        (w * 5).sum().backward()
        out.append(w.grad)
        return out
    check_both(run, torch_oracle)


def test_grad_of_non_leaf_warns_and_is_none(torch_oracle):
    for T in (lt, torch_oracle):
        x = T.tensor(A, requires_grad=True)
        y = x * 2
        y.sum().backward()
        with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
            assert y.grad is None


def test_retain_grad(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = x * 2
        y.retain_grad()
        z = y.exp()
        z.retain_grad()
        x.retain_grad()                     # a no-op on a leaf
        (z * T.tensor(A2)).sum().backward()
        return y.grad, z.grad, x.grad, y.retains_grad, x.retains_grad, y.is_leaf
    check_both(run, torch_oracle)


def test_retain_grad_without_requires_grad(torch_oracle):
    raises_both(lambda T: T.tensor(A).retain_grad(), torch_oracle, "can't retain_grad on Tensor that has "
                "requires_grad=False")


def test_dynamic_graph_with_python_control_flow(torch_oracle):
    def run(T):
        w = T.tensor(D[:, :3], requires_grad=True)
        h = T.tensor(B, requires_grad=True)
        grads = []
        for steps in (1, 3, 2):
            s = h
            for _ in range(steps):
                s = (w @ s).tanh()
            if s.sum() > 0:
                s = s * 2
            s.sum().backward()
            grads.append((w.grad.clone(), h.grad.clone()))
        return grads
    check_both(run, torch_oracle)


def test_two_layer_net_manual_update(torch_oracle):
    """The notes' example: ``y_pred = x.mm(w1).clamp(min=0).mm(w2)``, updated by hand under no_grad."""
    data = np.random.default_rng(0)
    x_np = data.standard_normal((8, 5)).astype(np.float32)
    y_np = data.standard_normal((8, 2)).astype(np.float32)
    w1_np = data.standard_normal((5, 6)).astype(np.float32)
    w2_np = data.standard_normal((6, 2)).astype(np.float32)

    def run(T):
        x, y = T.tensor(x_np), T.tensor(y_np)
        w1 = T.tensor(w1_np, requires_grad=True)
        w2 = T.tensor(w2_np, requires_grad=True)
        losses = []
        for _ in range(5):
            y_pred = x.mm(w1).clamp(min=0).mm(w2)
            loss = (y_pred - y).pow(2).sum()
            losses.append(loss.item())
            loss.backward()
            with T.no_grad():
                w1 -= 1e-3 * w1.grad
                w2 -= 1e-3 * w2.grad
                w1.grad.zero_()
                w2.grad.zero_()
        return losses, w1, w2, w1.is_leaf, w1.requires_grad
    check_both(run, torch_oracle)


# ============================================================================ autograd.grad
def test_autograd_grad_basic(torch_oracle):
    def run(T):
        x = T.tensor(V, requires_grad=True)
        y = (x ** 2).sum()
        (gx,) = T.autograd.grad(y, x)
        return gx, x.grad
    check_both(run, torch_oracle)


def test_autograd_grad_allow_unused(torch_oracle):
    def run(T):
        x = T.tensor(V, requires_grad=True)
        u = T.tensor(V, requires_grad=True)
        return T.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
    check_both(run, torch_oracle)

    def unused(T):
        x = T.tensor(V, requires_grad=True)
        u = T.tensor(V, requires_grad=True)
        T.autograd.grad((x * 2).sum(), [x, u])
    raises_both(unused, torch_oracle, "The differentiated Tensor at index 1 appears to not have been used in the graph")


def test_autograd_grad_of_input_without_grad(torch_oracle):
    def run(T):
        x = T.tensor(V, requires_grad=True)
        T.autograd.grad((x * 2).sum(), [T.tensor(V)])
    raises_both(run, torch_oracle, "One of the differentiated Tensors does not require grad")


def test_autograd_grad_grad_outputs(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        return T.autograd.grad(x.sin(), x, grad_outputs=T.tensor(A2))
    check_both(run, torch_oracle)


def test_second_derivative_of_cube(torch_oracle):
    """d²(x³)/dx² = 6x, through ``create_graph=True``."""
    def run(T):
        x = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
        y = (x ** 3).sum()
        (dy,) = T.autograd.grad(y, x, create_graph=True)
        (d2y,) = T.autograd.grad(dy.sum(), x)
        return dy, d2y
    lg, _ = check_both(run, torch_oracle)
    np.testing.assert_allclose(to_numpy(lg[1]), [6.0, -12.0, 3.0])


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
def test_double_backward_into_grad(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = (x.sin() * x).sum()
        y.backward(create_graph=True)
        first = x.grad.clone()
        g = x.grad
        x.grad = None
        g.sum().backward()
        return first, x.grad, g.requires_grad
    check_both(run, torch_oracle)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
def test_accumulating_into_a_grad_with_history(torch_oracle):
    """After ``backward(create_graph=True)`` the ``.grad`` has a history; a later plain backward
    adds into it in place (PyTorch: grad mode is off), so it keeps that history and stays the
    same tensor, which a backward through the ``.grad`` itself also updates."""
    def run(T):
        x = T.tensor(A, requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        (x * x).sum().backward()
        after_plain = (x.grad is g, type(x.grad.grad_fn).__name__)
        g.sum().backward()
        return after_plain, x.grad is g, x.grad, type(x.grad.grad_fn).__name__
    check_both(run, torch_oracle)


@pytest.mark.parametrize("name, fn, data", [
    ("tanh", lambda x: x.tanh(), A), ("sigmoid", lambda x: x.sigmoid(), A), ("log", lambda x: x.log(), P),
    ("matmul", lambda x: x @ x.t(), A), ("div", lambda x: 1 / (x * x + 1), A), ("max", lambda x: x.amax(1) ** 2, A),
    ("norm", lambda x: x.norm(dim=1), A), ("index", lambda x: x[[0, 0, 1]] ** 3, A),
    ("std", lambda x: x.std(1), A), ("logsumexp", lambda x: x.logsumexp(0), A), ("var", lambda x: x.var(), A),
    ("prod", lambda x: x.prod(1), A), ("pow-tensor", lambda x: x ** x, P), ("sort", lambda x: x.sort(1)[0] ** 2, A),
    ("norm-p3", lambda x: x.norm(3), A), ("normalize", lambda x: lt_or_torch_normalize(x), A),
    ("relu", lambda x: x.relu(), A),  # relu's backward is recorded (ThresholdBackwardBackward0), as in PyTorch
])
def test_hessian_vector_products(torch_oracle, name, fn, data):
    """Second derivatives (``create_graph=True``) of each op's backward formula."""
    def run(T):
        x = T.tensor(data, requires_grad=True)
        (gx,) = T.autograd.grad(fn(x).sum(), x, create_graph=True)
        (hv,) = T.autograd.grad((gx * T.tensor(A2)).sum(), x, allow_unused=True)
        return gx, hv
    check_both(run, torch_oracle, check_grad_fn=False)


# ============================================================================ version counter, detach
def lt_or_torch_normalize(x):
    return (lt if isinstance(x, lt.Tensor) else __import__("torch")).nn.functional.normalize(x, dim=1)


INPLACE_OPS = [
    pytest.param(lambda T, y, w: y.clamp_(min=0.5), id="clamp_-min"),
    pytest.param(lambda T, y, w: y.clamp_(max=1.0), id="clamp_-max"),
    pytest.param(lambda T, y, w: y.pow_(2), id="pow_"),
    pytest.param(lambda T, y, w: y.log_(), id="log_"),
    pytest.param(lambda T, y, w: y.abs_(), id="abs_"),
    pytest.param(lambda T, y, w: y.relu_(), id="relu_"),
    pytest.param(lambda T, y, w: y.sigmoid_(), id="sigmoid_"),
    pytest.param(lambda T, y, w: y.exp_(), id="exp_"),
    pytest.param(lambda T, y, w: y.sqrt_(), id="sqrt_"),
    pytest.param(lambda T, y, w: y.tanh_(), id="tanh_"),
    pytest.param(lambda T, y, w: y.neg_(), id="neg_"),
    pytest.param(lambda T, y, w: y.mul_(w), id="mul_-tensor"),
    pytest.param(lambda T, y, w: y.div_(w), id="div_-tensor"),
    pytest.param(lambda T, y, w: y.add_(w, alpha=2), id="add_-alpha"),
    pytest.param(lambda T, y, w: y.sub_(w), id="sub_"),
    pytest.param(lambda T, y, w: y.div_(2), id="div_-number"),
    pytest.param(lambda T, y, w: y.masked_fill_(y > 2.5, 0.0), id="masked_fill_"),
    pytest.param(lambda T, y, w: y.__imul__(w), id="imul"),
    pytest.param(lambda T, y, w: y.__itruediv__(w), id="itruediv"),
    pytest.param(lambda T, y, w: y.__setitem__(0, w[0] * 2), id="setitem"),
    pytest.param(lambda T, y, w: y.copy_(w * 3), id="copy_"),
    pytest.param(lambda T, y, w: y.zero_(), id="zero_"),
    pytest.param(lambda T, y, w: y.fill_(2.0), id="fill_"),
    pytest.param(lambda T, y, w: y[1:].mul_(w[:1]), id="view-mul_"),
    pytest.param(lambda T, y, w: y.unsqueeze(0).clamp_(max=2.0), id="view-clamp_"),
]


@pytest.mark.parametrize("op", INPLACE_OPS)
def test_inplace_op_gradients(torch_oracle, op):
    """In-place ops on a non-leaf: the new ``grad_fn`` and the gradients.  Ops whose backward
    needs the old value (``clamp_``, ``mul_(w)``, ``log_``) keep a copy of it, as PyTorch does."""
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([3.0, 4.0], requires_grad=True)
        y = x * 1.5
        v0 = y._version
        op(T, y, w)
        (y * T.tensor([1.0, 10.0])).sum().backward()
        return y, x.grad, w.grad, y._version - v0
    check_both(run, torch_oracle)


@pytest.mark.xfail(strict=True, reason="PyTorch refuses y.mul_(y) (the saved 'other' is y itself, then "
                   "overwritten); learntorch keeps a copy of the old y for both operands and returns the correct "
                   "gradient 2y instead of raising")
def test_inplace_mul_by_itself(torch_oracle):
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1.5
        y.mul_(y)
        y.sum().backward()
    raises_both(run, torch_oracle, "modified by an inplace operation")


def test_version_counter_counts_inplace_ops(torch_oracle):
    def run(T):
        x = T.tensor(A)
        versions = [x._version]
        for op in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.__setitem__(0, 1.0), lambda: x.zero_(),
                   lambda: x.clamp_(min=0), lambda: x.fill_(3.0)):
            op()
            versions.append(x._version)
        x += 1
        versions.append(x._version)
        y = x + 1                            # out of place: no change
        versions.append(x._version)
        return versions, y
    check_both(run, torch_oracle)


@pytest.mark.parametrize("op", ["sin", "sigmoid-result", "pow", "mul", "log", "div", "matmul"])
def test_inplace_on_saved_tensor_is_detected(torch_oracle, op):
    def run(T):
        x = T.tensor(P, requires_grad=True)
        a = x * 1
        if op == "sigmoid-result":
            b = a.sigmoid()
            b.add_(1)                        # sigmoid saved its result
        else:
            b = {"sin": lambda: a.sin(), "pow": lambda: a ** 3, "mul": lambda: a * x, "log": lambda: a.log(),
                 "div": lambda: x / a, "matmul": lambda: a @ a.t()}[op]()
            a.mul_(2)                        # these saved their input a
        b.sum().backward()
    l_exc, t_exc = raises_both(run, torch_oracle, "one of the variables needed for gradient computation has been "
                               "modified by an inplace operation")
    if op != "matmul":  # (PyTorch names a.t()'s maker "AsStrided" there, after its internals)
        assert str(l_exc) == str(t_exc)


def test_inplace_on_unsaved_tensor_is_fine(torch_oracle):
    """exp saves its result, not its input: changing the input afterwards is harmless."""
    def run(T):
        x = T.tensor(A, requires_grad=True)
        a = x * 1
        b = a.exp()
        a.add_(1)
        c = x + 1
        d = c * 3                            # mul by a number saves nothing of c
        c.zero_()
        (b.sum() + d.sum()).backward()
        return x.grad
    check_both(run, torch_oracle)


def test_inplace_on_leaf_requiring_grad(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        x.add_(1)
    raises_both(run, torch_oracle, "a leaf Variable that requires grad is being used in an in-place operation.")

    def setitem(T):
        x = T.tensor(A, requires_grad=True)
        x[0] = 1.0
    raises_both(setitem, torch_oracle, "a leaf Variable that requires grad is being used in an in-place operation.")

    def augmented(T):
        x = T.tensor(A, requires_grad=True)
        x -= 1
    raises_both(augmented, torch_oracle, "a leaf Variable that requires grad is being used in an in-place operation.")


def test_inplace_on_view_of_leaf(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        x[0].mul_(2)
    raises_both(run, torch_oracle, "a view of a leaf Variable that requires grad is being used in an in-place")


def test_inplace_on_leaf_under_no_grad_is_allowed(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        with T.no_grad():
            x.mul_(2)
            x[0] = 0.0
        return x, x.is_leaf, x.grad_fn is None, x._version
    check_both(run, torch_oracle)


def _split_view(T):
    return (T.tensor(A, requires_grad=True) * 1).split(1)[1]


def _unbind_row(T):
    return (T.tensor(A, requires_grad=True) * 1).unbind(0)[0]


def _no_grad_view(T):
    x = T.tensor(A, requires_grad=True) * 1
    with T.no_grad():
        return x[0]


def _inference_mode_view(T):
    x = T.tensor(A, requires_grad=True) * 1
    with T.inference_mode():
        return x[:, 1:]


def _custom_function_view(T):
    class FirstRow(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[0]

        @staticmethod
        def backward(ctx, g):
            return T.stack([g, T.zeros_like(g)])
    return FirstRow.apply(T.tensor(A, requires_grad=True) * 1)


# Views PyTorch refuses to change in place with grad mode on (its CreationMeta rule), with the
# start and the end of its message: what learntorch must say too.
VIEW_INPLACE_REFUSED = [
    pytest.param(_split_view, lambda v: v.mul_(2), "Output 1 of Split is a view and is being modified inplace",
                 "function that returns multiple views", id="split-mul_"),
    pytest.param(lambda T: (T.tensor(A, requires_grad=True) * 1).chunk(3, 1)[0], lambda v: v.add_(1),
                 "Output 0 of Split is a view", "function that returns multiple views", id="chunk-add_"),
    pytest.param(lambda T: (T.tensor(A, requires_grad=True) * 1).split([1, 1])[0], lambda v: v.zero_(),
                 "Output 0 of SplitWithSizes is a view", "function that returns multiple views", id="split-sizes"),
    pytest.param(_unbind_row, lambda v: v.relu_(), "Output 0 of Unbind is a view",
                 "function that returns multiple views", id="unbind-relu_"),
    pytest.param(_no_grad_view, lambda v: v.mul_(2),
                 "A view was created in no_grad mode and is being modified inplace with grad mode enabled",
                 "both inside the no_grad block", id="no_grad-view"),
    pytest.param(lambda T: _no_grad_view(T)[1:], lambda v: v.mul_(2),
                 "Output 0 of Slice is a view of a view which was created in no_grad mode",
                 "both inside the no_grad block", id="view-of-no_grad-view"),
    pytest.param(_inference_mode_view, lambda v: v.sub_(1),
                 "A view was created in inference mode and is being modified inplace in normal mode",
                 "both inside the inference_mode block", id="inference_mode-view"),
    pytest.param(_custom_function_view, lambda v: v.mul_(2), "Output 0 of FirstRow is a view",
                 "cloning the output of the custom Function", id="custom-function-view"),
]


@pytest.mark.parametrize("make, change, start, end", VIEW_INPLACE_REFUSED)
def test_inplace_on_a_view_pytorch_forbids(torch_oracle, make, change, start, end):
    t_exc, l_exc = raises_both(lambda T: change(make(T)), torch_oracle, start)
    assert str(l_exc).startswith(start) and end in str(l_exc) and end in str(t_exc)


def test_views_pytorch_lets_change_in_place(torch_oracle):
    """The same views, changed where PyTorch allows it: under no_grad, or with nothing
    requiring grad, or a ``tensor_split`` part (plain narrow views)."""
    def run(T):
        x = T.tensor(A, requires_grad=True) * 1
        with T.no_grad():
            x.split(1)[0].mul_(2)
            row = x[1]
            row.add_(1)
        plain = T.tensor(A).unbind(0)[0].mul_(3)
        part = x.tensor_split(2)[0].mul_(2)
        return x, plain, part
    check_both(run, torch_oracle)


def test_view_made_under_no_grad_requires_grad_but_gets_no_gradient(torch_oracle):
    """PyTorch: a view of a tensor that requires grad, made with grad mode off, requires grad
    (its repr says so) and is a leaf; operations on it are recorded, but no gradient reaches it
    nor its base."""
    def run(T):
        w = T.tensor(A, requires_grad=True)
        with T.no_grad():
            row = w[0]
        with T.inference_mode():
            col = w[:, 0]
        out = (row * 2).sum() + col.sum()
        out.backward()
        return (row.requires_grad, row.is_leaf, row.grad_fn is None, repr(row), col.is_inference(),
                col.requires_grad, out.requires_grad, w.grad, row.grad)
    check_both(run, torch_oracle)


def test_custom_function_marking_a_view_dirty_rewrites_its_base(torch_oracle):
    """``mark_dirty`` on a view: the base's history goes through the Function's backward."""
    def run(T):
        class Triple(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x.mul_(3)

            @staticmethod
            def backward(ctx, g):
                return g * 3
        x = T.tensor(A, requires_grad=True)
        base = x * 1
        out = Triple.apply(base[:, 1:])
        (base * T.tensor(A2)).sum().backward()
        return out, base, type(base.grad_fn).__name__, type(out.grad_fn).__name__, x.grad
    check_both(run, torch_oracle)


def test_requires_grad_rules(torch_oracle):
    raises_both(lambda T: T.tensor([1, 2]).requires_grad_(), torch_oracle,
                "^only Tensors of floating point dtype can require gradients")
    raises_both(lambda T: T.tensor([1, 2], requires_grad=True), torch_oracle,
                "^Only Tensors of floating point and complex dtype can require gradients")

    def non_leaf(T):
        x = T.tensor(A, requires_grad=True)
        (x * 2).requires_grad_(False)
    raises_both(non_leaf, torch_oracle, "you can only change requires_grad flags of leaf variables")

    def setter(T):
        t = T.tensor([1, 2])
        t.requires_grad = True
    raises_both(setter, torch_oracle, "^only Tensors of floating point and complex dtype can require gradients")


def test_detach_shares_memory_and_version_counter(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = x * 1
        d = y.detach()
        v0 = y._version
        d.zero_()
        return y, y._version - v0, d.requires_grad, d.is_leaf, d.grad_fn is None
    check_both(run, torch_oracle)

    def detected(T):
        x = T.tensor(A, requires_grad=True)
        a = x * 1
        b = a.sin()
        a.detach().add_(1)                  # detach shares the version counter: autograd notices
        b.sum().backward()
    raises_both(detected, torch_oracle, "modified by an inplace operation")


def test_data_is_invisible_to_the_version_counter(torch_oracle):
    """``.data`` shares memory but not the version counter: the gradient is silently off (why detach is better)."""
    def run(T):
        x = T.tensor(A, requires_grad=True)
        a = x * 1
        b = a.sin()
        a.data.add_(1)
        b.sum().backward()
        return x.grad, a._version
    check_both(run, torch_oracle)


# ============================================================================ grad mode
def test_grad_mode_context_managers(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        out = []
        with T.no_grad():
            y = x * 2
            out.append((y.requires_grad, T.is_grad_enabled()))
            with T.enable_grad():
                z = x * 2
                out.append((z.requires_grad, T.is_grad_enabled()))
            out.append(T.is_grad_enabled())
        out.append(T.is_grad_enabled())
        with T.set_grad_enabled(False):
            out.append((x * 2).requires_grad)
        with T.set_grad_enabled(True):
            out.append((x * 2).requires_grad)
        T.set_grad_enabled(False)
        out.append(((x * 2).requires_grad, T.is_grad_enabled()))
        T.set_grad_enabled(True)
        out.append(((x * 2).requires_grad, T.is_grad_enabled()))
        return out
    check_both(run, torch_oracle)


def test_grad_mode_decorators(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)

        @T.no_grad()
        def frozen(t):
            return t * 2, T.is_grad_enabled()

        @T.enable_grad()
        def thawed(t):
            return t * 2

        @T.set_grad_enabled(False)
        def off(t):
            return t * 2

        a, mode = frozen(x)
        with T.no_grad():
            b = thawed(x)
        c = off(x)
        return a.requires_grad, mode, b.requires_grad, c.requires_grad, T.is_grad_enabled(), frozen.__name__
    check_both(run, torch_oracle)


@pytest.mark.parametrize("decorator", ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"])
def test_grad_mode_decorates_a_generator_function(torch_oracle, decorator):
    """A decorated generator runs its body piece by piece, one ``yield`` to the next: each
    piece runs in the decorator's mode, and the caller's code between them in the caller's."""
    def run(T):
        make = {"no_grad": T.no_grad, "enable_grad": T.enable_grad, "inference_mode": T.inference_mode,
                "set_grad_enabled": lambda: T.set_grad_enabled(False)}[decorator]

        @make()
        def gen(t):
            got = yield t * 2, T.is_grad_enabled(), T.is_inference_mode_enabled()
            yield got, T.is_grad_enabled(), T.is_inference_mode_enabled()
            return "done"

        x = T.tensor(A, requires_grad=True)
        out = []
        with T.no_grad() if decorator == "enable_grad" else T.enable_grad():
            g = gen(x)
            first = next(g)
            out.append((first[0].requires_grad, first[1], first[2], T.is_grad_enabled()))
            out.append(g.send(7) + (T.is_grad_enabled(),))
            with pytest.raises(StopIteration) as stop:
                next(g)
            out.append(stop.value.value)
        return out
    check_both(run, torch_oracle)


def test_enable_grad_inside_inference_mode_records_nothing(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        with T.inference_mode():
            with T.enable_grad():
                y = x * 2
                mode = T.is_grad_enabled()
        return y.requires_grad, y.grad_fn is None, mode
    check_both(run, torch_oracle)


def test_grad_mode_restored_after_exception(torch_oracle):
    for T in (lt, torch_oracle):
        with pytest.raises(ZeroDivisionError):
            with T.no_grad():
                1 / 0
        assert T.is_grad_enabled()


def test_no_grad_result_then_backward_raises(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        with T.no_grad():
            y = (x * 2).sum()
        y.backward()
    raises_both(run, torch_oracle, "does not require grad")


# ============================================================================ hooks
def test_register_hook_needs_requires_grad(torch_oracle):
    raises_both(lambda T: T.tensor(A).register_hook(lambda g: g), torch_oracle,
                "cannot register a hook on a tensor that doesn't require gradient")


def _record(T, log, name, scale=None):
    def hook(grad):
        log.append((name, to_numpy(grad).tolist()))
        return grad * scale if scale is not None else None
    return hook


def test_hooks_run_in_registration_order_and_replace(torch_oracle):
    def run(T):
        log = []
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.register_hook(_record(T, log, "first", 2))
        y.register_hook(_record(T, log, "second"))          # sees the doubled gradient, keeps it
        y.register_hook(_record(T, log, "third", 10))
        y.retain_grad()
        y.sum().backward()
        return log, y.grad, x.grad
    check_both(run, torch_oracle)


def test_hook_removal(torch_oracle):
    def run(T):
        log = []
        x = T.tensor([1.0, 2.0], requires_grad=True)
        h1 = x.register_hook(_record(T, log, "leaf-1", 100))
        x.register_hook(_record(T, log, "leaf-2"))
        h1.remove()
        h1.remove()                          # removing twice is harmless
        (x * 2).sum().backward()
        return log, x.grad
    check_both(run, torch_oracle)


def test_leaf_hook_runs_before_accumulation(torch_oracle):
    def run(T):
        log = []
        x = T.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(_record(T, log, "leaf", 3))
        (x * x).sum().backward()
        first = x.grad.clone()
        (x * 1).sum().backward()
        return log, first, x.grad
    check_both(run, torch_oracle)


@pytest.mark.parametrize("retain_first", [True, False])
def test_retain_grad_records_after_hooks_regardless_of_order(torch_oracle, retain_first):
    """Correction 11: ``.grad`` of a retained non-leaf is the value after all of its hooks."""
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        if retain_first:
            y.retain_grad()
        y.register_hook(lambda grad: grad * 10)
        if not retain_first:
            y.retain_grad()
        y.sum().backward()
        return y.grad, x.grad
    lg, _ = check_both(run, torch_oracle)
    np.testing.assert_array_equal(to_numpy(lg[0]), [10.0, 10.0])


def test_hook_sees_summed_gradient_once(torch_oracle):
    def run(T):
        log = []
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(_record(T, log, "y"))
        (y * 3 + y.exp() + y[0]).sum().backward()
        return log, x.grad
    check_both(run, torch_oracle)


def test_hook_order_across_tensors_notes_example(torch_oracle):
    """The notes' graph: a=2, b=3, c=a*b, d=4, e=c*d with hooks on every tensor; the call
    order (which tensor's hook fires first) follows the engine's schedule, as in PyTorch."""
    def run(T):
        log = []
        a = T.tensor(2.0, requires_grad=True)
        b = T.tensor(3.0, requires_grad=True)
        c = a * b
        d = T.tensor(4.0, requires_grad=True)
        e = c * d
        for name, t in (("a", a), ("b", b), ("c", c), ("d", d), ("e", e)):
            t.register_hook(_record(T, log, name))
        c.retain_grad()
        e.retain_grad()
        e.backward()
        return log, a.grad, b.grad, c.grad, d.grad, e.grad
    lg, _ = check_both(run, torch_oracle)
    assert [name for name, _ in lg[0]] == ["e", "d", "c", "a", "b"]


def test_hook_order_across_branches(torch_oracle):
    """A wider graph: the order in which hooks of different tensors fire matches PyTorch's engine."""
    def run(T):
        log = []
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([0.5, -1.0], requires_grad=True)
        p = x * w
        q = x.exp()
        r = w.sin()
        s = p + q
        t = s * r
        u = (t + p).sum()
        for name, v in (("x", x), ("w", w), ("p", p), ("q", q), ("r", r), ("s", s), ("t", t), ("u", u)):
            v.register_hook(_record(T, log, name))
        u.backward()
        return [name for name, _ in log], log, x.grad, w.grad
    check_both(run, torch_oracle)


def test_hook_changing_shape_raises(torch_oracle):
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda grad: grad.sum())
        y.sum().backward()
    raises_both(run, torch_oracle, "^hook '<lambda>' has changed the size of value$")


def test_hooks_in_autograd_grad(torch_oracle):
    def run(T):
        log = []
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(_record(T, log, "y", 5))
        (gx,) = T.autograd.grad((y * y).sum(), x)
        return log, gx, x.grad
    check_both(run, torch_oracle)


def test_node_hooks(torch_oracle):
    def run(T):
        log = []
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.grad_fn.register_prehook(lambda grad_outputs: log.append(("pre", to_numpy(grad_outputs[0]).tolist())))
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: log.append(
            ("post", to_numpy(grad_inputs[0]).tolist(), to_numpy(grad_outputs[0]).tolist())))
        (y * 2).sum().backward()
        return log, x.grad
    check_both(run, torch_oracle)


def test_removable_handle_context_manager(torch_oracle):
    def run(T):
        log = []
        x = T.tensor([1.0], requires_grad=True)
        with x.register_hook(_record(T, log, "inside")):
            (x * 2).sum().backward()
        (x * 2).sum().backward()
        return log, x.grad
    check_both(run, torch_oracle)


def test_warnings_are_not_raised_by_plain_backward(torch_oracle):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grads_both(lambda T, x, w: (x.mm(w).relu() ** 2).mean(), torch_oracle, A, D)


def test_sequence_nr_is_a_method_as_in_pytorch(torch_oracle):
    """``node._sequence_nr()`` orders nodes by creation in both libraries (PyTorch's is a method)."""
    for lib in (torch_oracle, lt):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        z = y.sum()
        assert isinstance(z.grad_fn._sequence_nr(), int)
        assert z.grad_fn._sequence_nr() > y.grad_fn._sequence_nr()


@pytest.mark.parametrize("op", ["mul", "rmul", "add", "sub", "div"])
def test_second_backward_through_an_op_with_a_number(torch_oracle, op):
    """``w * 3`` saves the number (PyTorch keeps it as a tensor): a second backward without
    ``retain_graph`` is refused.  ``w + 3`` saves nothing, so a second backward simply runs."""
    def run(T):
        w = T.ones(2, requires_grad=True)
        y = {"mul": lambda: w * 3, "rmul": lambda: 3 * w, "add": lambda: w + 3, "sub": lambda: w - 3,
             "div": lambda: w / 3}[op]()
        loss = y.sum()
        loss.backward()
        try:
            loss.backward()
            second = "ran"
        except RuntimeError as e:
            second = str(e)[:50]
        return second, w.grad
    check_both(run, torch_oracle)


@pytest.mark.parametrize("key", ["int", "slice", "list", "mask", "ellipsis"])
def test_assigning_into_a_leaf_names_the_view_as_pytorch(torch_oracle, key):
    """``x[0] = v`` writes through a view of x (PyTorch's message says so); ``x[[0]] = v``
    and ``x[...] = v`` write into x itself."""
    def run(T):
        x = T.ones(3, requires_grad=True)
        k = {"int": 1, "slice": slice(0, 2), "list": [0], "mask": T.tensor([True, False, True]),
             "ellipsis": ...}[key]
        x[k] = 5
    raises_both(run, torch_oracle, match="in-place operation")
    for T in (lt, torch_oracle):
        with pytest.raises(RuntimeError) as err:
            run(T)
        if T is lt:
            mine = str(err.value)
        else:
            assert mine == str(err.value)


def test_data_must_be_set_to_a_tensor(torch_oracle):
    raises_both(lambda T: setattr(T.ones(2), "data", [1.0]), torch_oracle,
                match="Variable data has to be a tensor, but got list")


def test_del_grad_is_assigning_none(torch_oracle):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        (x * 2).sum().backward()
        del x.grad
        cleared = x.grad
        (x * 3).sum().backward()
        return cleared, x.grad
    check_both(run, torch_oracle)


def test_backward_with_empty_inputs(torch_oracle):
    raises_both(lambda T: (T.ones(2, requires_grad=True) * 2).sum().backward(inputs=[]), torch_oracle,
                match="`inputs` argument to `backward\\(\\)` cannot be empty.")


def test_clamp_with_tensor_bounds_and_clamp_min_max_names(torch_oracle):
    """Tensor bounds get their own gradients (ClampBackward0 / ClampMinBackward1 / ClampMaxBackward1),
    including where min > max; clamp_min / clamp_max with numbers are ClampMin/MaxBackward0; a
    one-element tensor beside a number is read as a number (ClampBackward1)."""
    def run(T):
        out = []
        x = T.tensor([-2., 0., 1., 2., 3., 0.5, 1., 5.], requires_grad=True)
        lo = T.tensor([0., 0., 0., 2.5, 2., 1., 1., 3.], requires_grad=True)
        hi = T.tensor([1., 1., 1., 1., 2.5, 0., 1., 3.], requires_grad=True)
        for f in (lambda: T.clamp(x, lo, hi), lambda: T.clamp_min(x, lo), lambda: T.clamp_max(x, hi),
                  lambda: x.clamp(max=hi), lambda: x.clamp_min(0.5), lambda: x.clamp_max(1.),
                  lambda: T.clamp(x, lo[:1], None), lambda: T.clamp(x, T.tensor(0.), 1.)):
            x.grad = lo.grad = hi.grad = None
            y = f()
            y.backward(T.arange(1., 9.))
            out.append((y.grad_fn.name(), y.tolist(), x.grad.tolist(), None if lo.grad is None else lo.grad.tolist(),
                        None if hi.grad is None else hi.grad.tolist()))
        return out
    assert run(lt) == run(torch_oracle)
    assert lt.autograd.gradcheck(lambda x, a, b: lt.clamp(x, a, b), (
        lt.randn(5, dtype=lt.float64, requires_grad=True), lt.randn(5, dtype=lt.float64, requires_grad=True) - 1,
        lt.randn(5, dtype=lt.float64, requires_grad=True) + 1))
