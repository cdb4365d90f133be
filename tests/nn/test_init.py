"""Chapter 05 (nn.init): every initialiser draws PyTorch's numbers after the same seed.

``nn.init`` functions fill a tensor in place from the global generator (or a
given ``Generator``), under ``no_grad``.  Because learntorch's generator is
PyTorch's, the numbers are PyTorch's, and the generator must be left in the same
state (the next draw agrees too).

Bit for bit where that holds on every machine, to float rounding elsewhere (the
policy of learntorch/random.py and tests/test_random.py): ``uniform_`` on [0, 1)
and ``normal_`` below 16 elements are exact everywhere; ``uniform_(a, b)`` (and so
the xavier/kaiming uniform initialisers) and float32 ``normal_`` from 16 elements
are exact on the torch build learntorch emulates (``draws_bit_exact``), and within
``torch.testing.assert_close``'s tolerances on others; float64 ``normal_`` from 16
elements goes through NumPy's libm: within those tolerances everywhere.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, raises_both

pytestmark = pytest.mark.torch

SHAPES = [(3, 5), (64, 33), (8, 3, 3, 3), (5, 1), (17, 2)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call", [
    ("uniform_", lambda I, t: I.uniform_(t)),
    ("uniform_-ab", lambda I, t: I.uniform_(t, -0.3, 2.5)),
    ("normal_", lambda I, t: I.normal_(t)),
    ("normal_-ms", lambda I, t: I.normal_(t, 1.5, 0.2)),
    ("xavier_uniform_", lambda I, t: I.xavier_uniform_(t)),
    ("xavier_uniform_-gain", lambda I, t: I.xavier_uniform_(t, gain=I.calculate_gain("tanh"))),
    ("xavier_normal_", lambda I, t: I.xavier_normal_(t, gain=2.0)),
    ("kaiming_uniform_", lambda I, t: I.kaiming_uniform_(t)),
    ("kaiming_uniform_-sqrt5", lambda I, t: I.kaiming_uniform_(t, a=math.sqrt(5))),
    ("kaiming_uniform_-relu-out", lambda I, t: I.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu")),
    ("kaiming_normal_", lambda I, t: I.kaiming_normal_(t)),
    ("kaiming_normal_-relu-out", lambda I, t: I.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")),
    ("kaiming_normal_-leaky", lambda I, t: I.kaiming_normal_(t, a=0.2, mode="FAN_IN")),
], ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_initialisers_draw_pytorchs_numbers(torch_oracle, draws_bit_exact, call, dtype, shape):
    name, fn = call

    def run(T_):
        T_.manual_seed(11)
        t = T_.empty(shape, dtype=getattr(T_, dtype))
        out = fn(T_.nn.init, t)
        return out is t, t, T_.rand(2)
    check_both(run, torch_oracle, exact=_exact(name, dtype, shape, draws_bit_exact), rtol=None, atol=None)


def _exact(name: str, dtype: str, shape: tuple, draws_bit_exact: bool) -> bool:
    """Whether ``name``'s draws must be bit-identical here (see the module docstring)."""
    if name == "uniform_":
        return True
    if "normal" in name:
        return math.prod(shape) < 16 or (dtype == "float32" and draws_bit_exact)
    return draws_bit_exact


@pytest.mark.parametrize("call", [
    lambda I, t: I.constant_(t, 0.3), lambda I, t: I.ones_(t), lambda I, t: I.zeros_(t), lambda I, t: I.eye_(t),
], ids=["constant_", "ones_", "zeros_", "eye_"])
@pytest.mark.parametrize("shape", [(3, 5), (4, 4), (5, 2)], ids=str)
def test_deterministic_initialisers(torch_oracle, call, shape):
    def run(T_):
        t = T_.empty(shape)
        return call(T_.nn.init, t) is t, t
    check_both(run, torch_oracle, exact=True)


def test_init_of_a_parameter_records_no_graph(torch_oracle):
    """Initialising a Parameter (requires_grad) runs under no_grad: it stays a leaf, no grad_fn."""
    def run(T_):
        T_.manual_seed(0)
        p = T_.nn.Parameter(T_.empty(4, 3))
        out = [T_.nn.init.kaiming_uniform_(p, a=math.sqrt(5)), T_.nn.init.normal_(p), T_.nn.init.zeros_(p),
               T_.nn.init.ones_(p), T_.nn.init.eye_(p), T_.nn.init.xavier_normal_(p)]
        return [o is p for o in out], p.is_leaf, p.grad_fn is None, p.requires_grad, p._version > 0
    check_both(run, torch_oracle, check_grad_fn=False)


def test_generator_argument(torch_oracle, draws_bit_exact):
    def run(T_):
        g = T_.Generator().manual_seed(5)
        a = T_.nn.init.uniform_(T_.empty(3, 4), generator=g)
        b = T_.nn.init.kaiming_normal_(T_.empty(20, 4), generator=g)
        c = T_.nn.init.xavier_uniform_(T_.empty(3, 4), generator=g)
        return a, b, c
    check_both(run, torch_oracle, exact=draws_bit_exact, rtol=None, atol=None)


def test_initialising_a_whole_model_with_apply(torch_oracle, draws_bit_exact):
    """The usual recipe: ``model.apply(init_fn)`` visits every submodule."""
    def run(T_):
        def init_fn(m):
            if isinstance(m, T_.nn.Linear):
                T_.nn.init.xavier_uniform_(m.weight, gain=T_.nn.init.calculate_gain("relu"))
                T_.nn.init.constant_(m.bias, 0.01)
            elif isinstance(m, T_.nn.Embedding):
                T_.nn.init.normal_(m.weight, 0, 0.02)
        T_.manual_seed(3)
        model = T_.nn.Sequential(T_.nn.Embedding(7, 4), T_.nn.Linear(4, 6), T_.nn.ReLU(), T_.nn.Linear(6, 2))
        model.apply(init_fn)
        return [p for p in model.parameters()]
    check_both(run, torch_oracle, exact=draws_bit_exact, rtol=None, atol=None, check_requires_grad=False)


@pytest.mark.parametrize("args", [
    ("linear",), ("conv1d",), ("conv2d",), ("conv3d",), ("conv_transpose2d",), ("sigmoid",), ("tanh",), ("relu",),
    ("leaky_relu",), ("leaky_relu", 0.2), ("leaky_relu", 1), ("leaky_relu", math.sqrt(5)), ("selu",),
], ids=str)
def test_calculate_gain(torch_oracle, args):
    check_both(lambda T_: T_.nn.init.calculate_gain(*args), torch_oracle, exact=True)


def test_fan_in_and_fan_out(torch_oracle):
    check_both(lambda T_: [T_.nn.init._calculate_fan_in_and_fan_out(T_.empty(s)) for s in [(3, 5), (8, 3, 3, 3),
                                                                                          (6, 2, 5)]], torch_oracle)


@pytest.mark.parametrize("fn, match", [
    (lambda T_: T_.nn.init.xavier_uniform_(T_.empty(5)), "Fan in and fan out can not be computed for tensor with "
                                                          "fewer than 2 dimensions"),
    (lambda T_: T_.nn.init.kaiming_normal_(T_.empty(5)), "fewer than 2 dimensions"),
    (lambda T_: T_.nn.init.kaiming_uniform_(T_.empty(3, 4), mode="fan_avg"),
     r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"),
    (lambda T_: T_.nn.init.calculate_gain("softplus"), "Unsupported nonlinearity softplus"),
    (lambda T_: T_.nn.init.calculate_gain("leaky_relu", True), "negative_slope True not a valid number"),
    (lambda T_: T_.nn.init.calculate_gain("leaky_relu", "0.1"), "negative_slope 0.1 not a valid number"),
    (lambda T_: T_.nn.init.eye_(T_.empty(2, 3, 4)), "Only tensors with 2 dimensions are supported"),
    (lambda T_: T_.nn.init.uniform_(T_.empty(3), 2.0, 1.0), "expects to return a \\[from, to\\) range"),
    (lambda T_: T_.nn.init.normal_(T_.empty(3), 0.0, -1.0), "normal expects std >= 0.0"),
], ids=["fan-1d", "kaiming-1d", "mode", "gain", "gain-bool", "gain-str", "eye-3d", "uniform-range", "normal-std"])
def test_init_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match=match)


def test_zero_element_tensors_warn_and_do_nothing(torch_oracle):
    for T_ in (lt, torch_oracle):
        for fn in (T_.nn.init.kaiming_uniform_, T_.nn.init.kaiming_normal_):
            t = T_.empty(0, 3)
            T_.manual_seed(0)
            with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
                assert fn(t) is t
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            T_.nn.init.uniform_(T_.empty(0, 3))  # the plain ones draw nothing, silently
    check_both(lambda T_: (T_.manual_seed(0), T_.nn.init.normal_(T_.empty(0)), T_.rand(2))[1:], torch_oracle,
               exact=True)


def test_default_layer_initialisation_distribution():
    """The documented distributions, checked statistically on big layers (no oracle needed)."""
    lt.manual_seed(0)
    lin = lt.nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w = lin.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    emb = lt.nn.Embedding(1000, 50).weight.detach().numpy()
    assert abs(emb.mean()) < 0.01 and abs(emb.std() - 1) < 0.01
    lt.manual_seed(0)
    t = lt.nn.init.kaiming_normal_(lt.empty(500, 200), nonlinearity="relu").numpy()
    assert abs(t.std() - math.sqrt(2 / 200)) < 0.01 * math.sqrt(2 / 200)
    for shape in [(3, 4), (4, 3), (4, 4)]:
        np.testing.assert_array_equal(lt.nn.init.eye_(lt.empty(shape)).numpy(), np.eye(*shape, dtype=np.float32))


@pytest.mark.parametrize("shape,sparsity", [((3, 5), 0.5), ((10, 4), 0.1), ((6, 3), 0.0), ((4, 2), 1.0),
                                            ((20, 7), 0.33)], ids=str)
def test_sparse_draws_pytorchs_numbers(torch_oracle, draws_bit_exact, shape, sparsity):
    """normal_ first, then one randperm per column (from the default generator): the same zeros
    in the same places, the same values, and the generator left in the same state."""
    def run(T_):
        T_.manual_seed(4)
        t = T_.empty(shape)
        out = T_.nn.init.sparse_(t, sparsity, std=0.5)
        return out is t, t == 0, t, T_.rand(2)
    check_both(run, torch_oracle, exact=math.prod(shape) < 16 or draws_bit_exact, rtol=None, atol=None)


def test_sparse_with_a_generator_still_permutes_from_the_default_one(torch_oracle):
    def run(T_):
        T_.manual_seed(9)
        t = T_.nn.init.sparse_(T_.empty(3, 4), 0.4, generator=T_.Generator().manual_seed(2))
        return t == 0, t, T_.rand(2)
    check_both(run, torch_oracle, exact=True)


@pytest.mark.parametrize("shape", [(5,), (2, 3, 4)], ids=str)
def test_sparse_refuses_a_tensor_that_is_not_2d(torch_oracle, shape):
    raises_both(lambda T_: T_.nn.init.sparse_(T_.empty(shape), 0.5), torch_oracle,
                match="Only tensors with 2 dimensions are supported")
