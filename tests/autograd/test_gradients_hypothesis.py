"""Property tests: gradients of random compositions equal finite differences and PyTorch's.

Hypothesis draws small shapes, broadcast partners, reduction dims (tuples,
negative, keepdim), matmul batch shapes and indices.  For each example:

1. learntorch's own ``gradcheck`` (central finite differences, float64) must pass;
2. where PyTorch 2.13 is installed, the gradients (backward with the same random
   weights) must equal PyTorch's to float64 precision.

The strategies draw only where the property holds, so that finite differences are
meaningful and random draws (``make test-explore``) find bugs, not numerics:

* values are kept away from the kinks and poles of the ops: |x| ≥ 0.1, and a jitter
  plus a filter keep every two entries at least ``GAP`` apart (no ties for
  max/amax/sort, a spread for std/var);
* random compositions are probed before they are checked (:func:`well_posed`): every
  intermediate value finite and at most ``BOUND`` in size (``exp`` of ``exp`` of
  ``exp``... overflows), the inputs of ``sort`` without near-ties (other than copies of
  one value), of ``clamp`` away from its bounds, of ``normalize`` away from a zero norm;
* the two-layer net's pre-activations stay away from the kink of ``clamp(min=0)``.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import learntorch as lt
from conftest import grads_both, max_examples

try:
    import torch
except ImportError:  # the gradcheck half still runs; the PyTorch comparison is skipped
    torch = None

SETTINGS = settings(max_examples=max_examples(25), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])
ELEMENT = st.one_of(st.floats(-2.0, -0.1), st.floats(0.1, 2.0))
GAP = 1e-3     # the least distance between two entries, and from a kink (finite differences use eps=1e-6)
BOUND = 1e3    # the largest intermediate value of a composition


def shapes(min_dims: int = 1, max_dims: int = 3):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=3)


def separated(a: np.ndarray) -> bool:
    """Every two entries at least GAP apart."""
    v = np.sort(a.reshape(-1))
    return bool(np.all(np.diff(v) >= GAP))


def arrays(shape):
    """float64 values with |x| ≥ 0.1, pairwise at least GAP apart: a jitter (outwards, so
    |x| ≥ 0.1 still holds) separates equal draws, a filter drops the rare near-ties left."""
    def jitter(a):
        return a + np.linspace(0.0, 0.06, a.size).reshape(a.shape) * np.sign(a)
    return hnp.arrays(np.float64, shape, elements=ELEMENT).map(jitter).filter(separated)


@st.composite
def broadcast_partner(draw, shape):
    """A shape that broadcasts with ``shape``: trailing dims kept or set to 1, leading ones dropped."""
    keep = draw(st.integers(0, len(shape)))
    dims = [1 if draw(st.booleans()) else s for s in shape[len(shape) - keep:]]
    return tuple(dims)


def check(fn, *data, compare_names=True):
    """gradcheck in learntorch, then the same gradients as PyTorch."""
    xs = tuple(lt.tensor(a, requires_grad=True) for a in data)
    assert lt.autograd.gradcheck(lambda *t: fn(lt, *t), xs, eps=1e-6, atol=1e-5, rtol=1e-3)
    if torch is not None:
        grads_both(fn, torch, *data, rtol=1e-7, atol=1e-9, check_grad_fn=compare_names)


BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: y - x,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "pow": lambda x, y: x.abs() ** y,
    "exp-of-product": lambda x, y: (x * y).exp() + x,
}


@SETTINGS
@given(data=st.data(), op=st.sampled_from(sorted(BINARY)), reduce=st.booleans())
def test_broadcasting_binary_ops(data, op, reduce):
    shape = data.draw(shapes())
    a = data.draw(arrays(shape))
    b = data.draw(arrays(data.draw(broadcast_partner(shape))))
    if data.draw(st.booleans()):
        a, b = b, a

    def fn(T, x, y):
        out = BINARY[op](x, y)
        return out.sum(-1) if reduce else out
    check(fn, a, b)


@SETTINGS
@given(data=st.data(), scalar=st.floats(-3, 3).filter(lambda v: abs(v) > 0.1), left=st.booleans(),
       op=st.sampled_from(["+", "-", "*", "/"]))
def test_python_scalars_on_both_sides(data, scalar, left, op):
    a = data.draw(arrays(data.draw(shapes())))
    ops = {"+": lambda u, v: u + v, "-": lambda u, v: u - v, "*": lambda u, v: u * v, "/": lambda u, v: u / v}

    def fn(T, x):
        return ops[op](scalar, x) if left else ops[op](x, scalar)
    check(fn, a)


REDUCTIONS = {
    "sum": lambda x, d, k: x.sum(d, keepdim=k),
    "mean": lambda x, d, k: x.mean(d, keepdim=k),
    "var": lambda x, d, k: x.var(d, keepdim=k),
    "std": lambda x, d, k: x.std(d, keepdim=k, unbiased=False),
    "logsumexp": lambda x, d, k: x.logsumexp(d, keepdim=k),
    "norm": lambda x, d, k: x.norm(p=2, dim=d, keepdim=k),
    "norm-p1": lambda x, d, k: x.norm(p=1, dim=d, keepdim=k),
    "norm-p3": lambda x, d, k: x.norm(p=3, dim=d, keepdim=k),
    "prod": lambda x, d, k: x.prod(d[0], keepdim=k),
    "amax": lambda x, d, k: x.amax(d, keepdim=k),
    "max-dim": lambda x, d, k: x.max(d[0], keepdim=k).values,
    "cumsum": lambda x, d, k: x.cumsum(d[0]),
}


@SETTINGS
@given(data=st.data(), op=st.sampled_from(sorted(REDUCTIONS)), keepdim=st.booleans())
def test_reductions_over_random_dims(data, op, keepdim):
    shape = data.draw(shapes())
    nd = len(shape)
    dims = data.draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
    dims = tuple(d - nd if data.draw(st.booleans()) else d for d in dims)   # some negative
    if op in ("var", "std") and int(np.prod([shape[d] for d in dims])) < 2:  # one value: no spread to differentiate
        dims = tuple(range(nd))
        if int(np.prod(shape)) < 2:
            shape, dims = shape + (2,), tuple(range(nd + 1))
    a = data.draw(arrays(shape))
    check(lambda T, x: REDUCTIONS[op](x, dims, keepdim) * 1.5, a)


@st.composite
def matmul_shapes(draw):
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    a_batch = tuple(1 if draw(st.booleans()) else s for s in batch)
    b_batch = tuple(1 if draw(st.booleans()) else s for s in batch)[draw(st.integers(0, len(batch))):]
    a = (k,) if draw(st.integers(0, 4)) == 0 else a_batch + (n, k)
    b = (k,) if draw(st.integers(0, 4)) == 0 else b_batch + (k, m)
    return a, b


@SETTINGS
@given(data=st.data())
def test_matmul_with_broadcast_batches(data):
    sa, sb = data.draw(matmul_shapes())
    a, b = data.draw(arrays(sa)), data.draw(arrays(sb))
    # (grad_fn names: PyTorch names some matmul cases after its internal reshapes; see test_autograd)
    check(lambda T, x, y: T.matmul(x, y), a, b, compare_names=False)


@SETTINGS
@given(data=st.data())
def test_mm_bmm_dot_chains(data):
    n, k, m = (data.draw(st.integers(1, 3)) for _ in range(3))
    a, b = data.draw(arrays((n, k))), data.draw(arrays((k, m)))
    check(lambda T, x, y: x.mm(y).tanh().mm(y.t()).sum(1), a, b)
    v, w = data.draw(arrays((k,))), data.draw(arrays((k,)))
    check(lambda T, x, y: T.dot(x, y) * x, v, w)
    batch = data.draw(st.integers(1, 3))
    p, q = data.draw(arrays((batch, n, k))), data.draw(arrays((batch, k, m)))
    check(lambda T, x, y: T.bmm(x, y).sigmoid(), p, q)


@st.composite
def index_for(draw, shape):
    """A PyTorch index of ints, slices, lists, int tensors, None and Ellipsis for ``shape``."""
    key = []
    for size in shape:
        kind = draw(st.sampled_from(["int", "slice", "list", "full"]))
        if kind == "int":
            key.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            start = draw(st.integers(0, size - 1))
            key.append(slice(start, draw(st.integers(start + 1, size)), draw(st.integers(1, 2))))
        elif kind == "list":
            key.append(draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=4)))
        else:
            key.append(slice(None))
    lists = [i for i, k in enumerate(key) if isinstance(k, list)]
    for i in lists[1:]:  # several advanced indices must broadcast: give them one length
        key[i] = (key[i] * 4)[:len(key[lists[0]])]
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), None)
    return tuple(key)


@SETTINGS
@given(data=st.data(), tensor_index=st.booleans())
def test_indexing(data, tensor_index):
    shape = data.draw(shapes())
    a = data.draw(arrays(shape))
    key = data.draw(index_for(shape))

    def fn(T, x):
        k = tuple(T.tensor(i) if tensor_index and isinstance(i, list) else i for i in key)
        out = x[k]
        return out * out + out
    check(fn, a)


@SETTINGS
@given(data=st.data())
def test_gather_index_select_masked_fill(data):
    shape = data.draw(shapes(min_dims=2, max_dims=2))
    a = data.draw(arrays(shape))
    dim = data.draw(st.integers(0, 1))
    idx = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(0, shape[dim] - 1)))
    rows = data.draw(st.lists(st.integers(0, shape[0] - 1), min_size=1, max_size=4))
    mask = data.draw(hnp.arrays(np.bool_, shape))
    check(lambda T, x: x.gather(dim, T.tensor(idx)) * x, a)
    check(lambda T, x: x.index_select(0, T.tensor(rows)).exp(), a)
    check(lambda T, x: x.masked_fill(T.tensor(mask), 0.5) * x, a)


UNARY = ["exp", "tanh", "sin", "cos", "sigmoid", "square", "expm1"]
CLAMP_BOUNDS = (-0.05371, 1.46293)
SHAPE_OPS = {
    "t": lambda x: x.t() if x.ndim <= 2 else x.transpose(0, -1),
    "flip": lambda x: x.flip(0),
    "flatten": lambda x: x.flatten(),
    "unsqueeze-expand": lambda x: x.unsqueeze(0).expand(2, *x.shape),
    "cat": lambda x: lt_or_torch(x).cat([x, x * 2], dim=-1),
    "stack": lambda x: lt_or_torch(x).stack([x, x.sin()], dim=0),
    "split": lambda x: x.split(1, dim=0)[0],
    "repeat": lambda x: x.repeat(*([2] + [1] * (x.ndim - 1))),
    "permute": lambda x: x.permute(*reversed(range(x.ndim))),
    "normalize": lambda x: lt_or_torch(x).nn.functional.normalize(x, dim=0),
    "sort": lambda x: x.sort(dim=-1, descending=True).values,
    "clamp": lambda x: x.clamp(*CLAMP_BOUNDS),  # (inputs near the bounds, kinks, are left out: well_posed)
    "inverse": lambda x: (x * x + 1).reciprocal(),
}


def lt_or_torch(x):
    return lt if isinstance(x, lt.Tensor) else torch


def apply_op(name, x):
    return SHAPE_OPS[name](x) if name in SHAPE_OPS else getattr(x, name)()


def well_posed(chain, a) -> bool:
    """Whether ``chain`` on ``a`` is a fair test of gradients: the forward pass, run here
    step by step (learntorch, float64, no graph), stays finite and within BOUND, and
    no kinked op sees an input near its kink.  Equal inputs of ``sort`` are allowed only
    when they are copies of one value (``repeat``, ``expand``): those stay equal when the
    input moves a little (a second pass at ``a`` nudged), where a chance tie splits."""
    nudge = np.random.default_rng(0).uniform(-1.0, 1.0, a.shape) * 1e-4
    x, y = lt.tensor(a), lt.tensor(a + nudge)
    with lt.no_grad():
        for name in chain:
            u, w = x.numpy(), y.numpy()
            if name == "sort":
                order = np.argsort(u, axis=-1)
                us, ws = np.take_along_axis(u, order, -1), np.take_along_axis(w, order, -1)
                close = np.diff(us, axis=-1) < GAP
                copies = (np.diff(us, axis=-1) == 0) & (np.diff(ws, axis=-1) == 0)
                if np.any(close & ~copies):
                    return False
            elif name == "clamp":
                if min(np.abs(u - b).min() for b in CLAMP_BOUNDS) < GAP:
                    return False
            elif name == "normalize":
                if np.sqrt((u * u).sum(0)).min() < 10 * GAP:
                    return False
            x, y = apply_op(name, x), apply_op(name, y)
            v = x.numpy()
            if not np.all(np.isfinite(v)) or np.abs(v).max(initial=0.0) > BOUND:
                return False
    return True


@SETTINGS
@given(data=st.data(), chain=st.lists(st.sampled_from(UNARY + sorted(SHAPE_OPS)), min_size=1, max_size=4))
def test_random_compositions(data, chain):
    a = data.draw(arrays(data.draw(shapes())))
    assume(well_posed(chain, a))

    def fn(T, x):
        for name in chain:
            x = apply_op(name, x)
        return x
    check(fn, a, compare_names=False)


@SETTINGS
@given(data=st.data())
def test_second_derivatives(data):
    """gradgradcheck of a smooth composition (create_graph through every backward)."""
    a = data.draw(arrays(data.draw(shapes(max_dims=2))))
    x = lt.tensor(a, requires_grad=True)
    assert lt.autograd.gradgradcheck(lambda t: (t.tanh() * t.exp()).sum() + (t * t).logsumexp(-1).sum(), (x,))


@pytest.mark.skipif(torch is None, reason="real PyTorch 2.13 (CPU) is the oracle for differential tests; "
                                          "install it with pip install torch==2.13.0")
@SETTINGS
@given(data=st.data())
def test_two_layer_net_matches_torch(data):
    """The notes' ``x.mm(w1).clamp(min=0).mm(w2)`` loss, random sizes, float32 as in the chapter."""
    n, d, h, o = (data.draw(st.integers(1, 4)) for _ in range(4))
    x = data.draw(arrays((n, d))).astype(np.float32)
    w1 = data.draw(arrays((d, h))).astype(np.float32)
    w2 = data.draw(arrays((h, o))).astype(np.float32)
    y = data.draw(arrays((n, o))).astype(np.float32)
    # clamp(min=0) has a kink at 0: pre-activations within float32 rounding of it may go
    # either way in either library, and then their gradients differ (both correctly)
    assume(np.abs(x.astype(np.float64) @ w1.astype(np.float64)).min() >= GAP)
    grads_both(lambda T, a, b, c: (a.mm(b).clamp(min=0).mm(c) - T.tensor(y)).pow(2).sum(), torch, x, w1, w2,
               rtol=1e-4, atol=1e-5)
