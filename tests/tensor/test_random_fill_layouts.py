"""Random fills of tensors that are not contiguous: the numbers must land where PyTorch puts them.

PyTorch's CPU fills (``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_`` ...) take
the next number from the generator at each step of an element-wise loop that walks the
tensor's *memory* (its dimensions sorted by stride), not its index order.  So on
``x = torch.empty(4, 3).t()`` the second number drawn goes to ``x[0, 1]``, the element
next in memory.  learntorch reproduces that order (``learntorch.random.fill_in_memory_order``);
these tests compare it with torch 2.13 on transposed, permuted, sliced, channels-last and
overlapping views, through the fills, the ``*_like`` factories, ``nn.init`` and the
dropouts (a ``batch_first`` Transformer layer included), values and gradients.

Differential tests: they skip, with a reason, where torch (the oracle) is not installed.
The fills whose transform goes through NumPy's ``log``/``tan``/``exp`` (exponential,
geometric, log-normal, Cauchy) are compared to float tolerances; the others exactly where
the ``draws_bit_exact`` fixture says torch runs the emulated kernels.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import learntorch as lt
from learntorch import random as lr

from conftest import TORCH_REASON, assert_draws_same, assert_same, grads_both, raises_both, to_numpy

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# name -> how to make the (uninitialised) target view in module T (torch or learntorch)
LAYOUTS: dict[str, Callable[[Any], Any]] = {
    "contiguous": lambda T: T.empty(5, 7),
    "transposed-small": lambda T: T.empty(4, 3).t(),
    "transposed": lambda T: T.empty(5, 7).t(),
    "permuted-3d": lambda T: T.empty(2, 3, 5).permute(2, 0, 1),
    "permuted-3d-other": lambda T: T.empty(4, 3, 5).permute(1, 2, 0),
    "step-slice": lambda T: T.empty(6, 10)[:, ::2],
    "step-slice-transposed": lambda T: T.empty(10, 6)[::2].t(),
    "channels-last": lambda T: T.empty(2, 3, 4, 5).contiguous(memory_format=T.channels_last),
    "column-block": lambda T: T.empty(5, 8)[:, 2:5],
    "column": lambda T: T.empty(5, 8)[:, 2],
    "size-one-dims": lambda T: T.empty(3, 1, 4).transpose(0, 2),
    "transposed-window": lambda T: T.empty(6, 10)[1:5, 2:9].t(),
}

# name -> (fill, compared exactly where draws_bit_exact)
FILLS: dict[str, tuple[Callable[[Any], Any], bool]] = {
    "uniform_": (lambda t: t.uniform_(), True),
    "uniform_(-2, 3)": (lambda t: t.uniform_(-2, 3), True),
    "normal_": (lambda t: t.normal_(), True),
    "normal_(1, 2)": (lambda t: t.normal_(1, 2), True),
    "bernoulli_(0.3)": (lambda t: t.bernoulli_(0.3), True),
    "exponential_": (lambda t: t.exponential_(), False),
    "geometric_(0.3)": (lambda t: t.geometric_(0.3), False),
    "log_normal_": (lambda t: t.log_normal_(), False),
    "cauchy_": (lambda t: t.cauchy_(), False),
    "random_(0, 10)": (lambda t: t.random_(0, 10), True),
    "random_()": (lambda t: t.random_(), True),
}


def _fill(T: Any, layout: str, fill: Callable[[Any], Any], float64: bool = False) -> tuple[Any, float]:
    """Seed, fill the view, and return it with the next ``rand`` (the generator must end in step)."""
    T.manual_seed(0)
    old = T.get_default_dtype()
    T.set_default_dtype(T.float64 if float64 else T.float32)
    try:
        target = LAYOUTS[layout](T)
    finally:
        T.set_default_dtype(old)
    out = fill(target)
    assert out is target
    return out.clone(), float(T.rand(()).item())


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("fill", list(FILLS))
def test_fill_in_memory_order(torch_oracle: Any, draws_bit_exact: bool, layout: str, fill: str) -> None:
    fn, exact = FILLS[fill]
    expected, after_t = _fill(torch_oracle, layout, fn)
    actual, after_l = _fill(lt, layout, fn)
    assert actual.stride() == expected.stride() or actual.is_contiguous()
    assert_draws_same(actual, expected, draws_bit_exact and exact, err_msg=f"{fill} on {layout}")
    assert after_l == after_t, "the generator is not where torch's is after the fill"


@pytest.mark.parametrize("layout", ["transposed", "permuted-3d", "step-slice", "channels-last"])
@pytest.mark.parametrize("fill", ["uniform_", "normal_", "normal_(1, 2)", "bernoulli_(0.3)", "random_(0, 10)"])
def test_fill_in_memory_order_float64(torch_oracle: Any, draws_bit_exact: bool, layout: str, fill: str) -> None:
    fn, exact = FILLS[fill]
    expected, after_t = _fill(torch_oracle, layout, fn, float64=True)
    actual, after_l = _fill(lt, layout, fn, float64=True)
    assert_draws_same(actual, expected, draws_bit_exact and exact, err_msg=f"{fill} on float64 {layout}")
    assert after_l == after_t


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "uint8"])
def test_other_dtypes_transposed(torch_oracle: Any, dtype: str) -> None:
    def fill(T: Any) -> Any:
        T.manual_seed(3)
        x = T.empty(6, 5, dtype=getattr(T, dtype)).t()
        if dtype in ("int64", "uint8"):
            return x.random_(0, 50), T.rand(2)
        return x.normal_().float(), x.uniform_().float(), T.rand(2)
    assert_same(fill(lt), fill(torch_oracle), rtol=0, atol=0)


def test_bernoulli_with_tensor_probabilities(torch_oracle: Any) -> None:
    probs = np.random.default_rng(0).random((5, 6))

    def fill(T: Any) -> Any:
        T.manual_seed(1)
        single = T.empty(6, 5).t().bernoulli_(T.tensor(probs, dtype=T.float32))
        double = T.empty(6, 5, dtype=T.float64).t().bernoulli_(T.tensor(probs))
        row = T.empty(6, 5).t().bernoulli_(T.tensor(probs[:1], dtype=T.float32))  # broadcast probabilities
        return single, double, row, T.rand(2)
    assert_same(fill(lt), fill(torch_oracle), rtol=0, atol=0)


def test_generator_argument_and_cached_normal(torch_oracle: Any) -> None:
    """A generator of one's own, and the cached second normal sample carried across calls."""
    def fill(T: Any) -> Any:
        g = T.Generator().manual_seed(5)
        a = T.empty(6, 5).t().uniform_(generator=g)
        T.manual_seed(0)
        T.randn(1)  # leaves a cached sample that the next element-wise normal_ uses first
        b = T.empty(6, 5).t().normal_()
        c = T.empty(3, 3).t().normal_(2.0, 0.5)
        return a, b, c, T.randn(3)
    assert_same(fill(lt), fill(torch_oracle), rtol=0, atol=0)


def test_expanded_target_is_refused_before_drawing(torch_oracle: Any) -> None:
    raises_both(lambda T: T.empty(1, 4).expand(3, 4).uniform_(), torch_oracle, match="single memory location")
    raises_both(lambda T: T.empty(3, 1).expand(3, 4).bernoulli_(0.5), torch_oracle, match="single memory location")

    def after(T: Any) -> float:
        T.manual_seed(0)
        with pytest.raises(RuntimeError):
            T.empty(1, 4).expand(3, 4).normal_()
        return float(T.rand(()).item())
    assert after(lt) == after(torch_oracle)


@pytest.mark.parametrize("size, step", [(4, 1), (3, 1), (3, 2), (2, 3)])
def test_overlapping_unfold_view_keeps_the_last_write(torch_oracle: Any, size: int, step: int) -> None:
    """Elements of an ``unfold`` view share memory: the loop writes them in turn, the last write stays."""
    def fill(T: Any) -> Any:
        T.manual_seed(0)
        x = T.zeros(9)
        x.unfold(0, size, step).uniform_()
        y = T.zeros(9)
        y.unfold(0, size, step).bernoulli_(0.5)
        return x, y, T.rand(2)
    assert_same(fill(lt), fill(torch_oracle), rtol=0, atol=0)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "transposed-small", "permuted-3d",
                                    "permuted-3d-other", "channels-last", "size-one-dims"])
@pytest.mark.parametrize("factory", ["rand_like", "randn_like", "randint_like"])
def test_like_factories_keep_the_layout_and_its_order(torch_oracle: Any, layout: str, factory: str) -> None:
    """``rand_like(x)`` is ``empty_like(x).uniform_()``: x's dense strides, the numbers in memory order."""
    def make(T: Any) -> Any:
        T.manual_seed(0)
        x = LAYOUTS[layout](T)
        out = T.randint_like(x, 3, 10) if factory == "randint_like" else getattr(T, factory)(x)
        return out, out.stride(), T.rand(2)
    assert_same(make(lt), make(torch_oracle), rtol=0, atol=0)


NOT_DENSE = {
    "rows-step-transposed": lambda T: T.zeros(6, 12)[::2].t(),
    "columns-step": lambda T: T.zeros(6, 12)[:, ::2],
    "both-steps-transposed": lambda T: T.zeros(6, 12)[::2, ::3].t(),
    "expanded": lambda T: T.zeros(3, 1).expand(3, 4),
    "expanded-transposed": lambda T: T.zeros(1, 4).expand(3, 4).t(),
    "permuted-step": lambda T: T.zeros(2, 3, 4).permute(2, 0, 1)[:, :, ::2],
}


@pytest.mark.parametrize("layout", list(NOT_DENSE))
@pytest.mark.parametrize("factory", ["empty_like", "zeros_like", "rand_like", "randn_like"])
def test_like_factories_of_inputs_with_gaps(torch_oracle: Any, layout: str, factory: str) -> None:
    """An input with gaps or repeats (a stepped slice, an expanded tensor) gives a dense result
    whose strides keep the input's order, and the numbers are drawn in that memory order."""
    def make(T: Any) -> Any:
        T.manual_seed(1)
        out = getattr(T, factory)(NOT_DENSE[layout](T))
        return out.stride(), (out if factory.startswith("rand") else out.shape), T.rand(2)
    assert_same(make(lt), make(torch_oracle), rtol=0, atol=0)


@pytest.mark.parametrize("init", ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                                  "kaiming_normal_", "trunc_normal_", "sparse_"])
def test_nn_init_on_transposed_weights(torch_oracle: Any, draws_bit_exact: bool, init: str) -> None:
    def make(T: Any) -> Any:
        T.manual_seed(0)
        w = T.empty(20, 12).t()  # a (12, 20) weight stored the other way round
        if init == "sparse_":
            T.nn.init.sparse_(w, 0.3)
        else:
            getattr(T.nn.init, init)(w)
        return w.clone(), float(T.rand(()).item())
    (actual, after_l), (expected, after_t) = make(lt), make(torch_oracle)
    assert_draws_same(actual, expected, draws_bit_exact, err_msg=init)
    assert after_l == after_t


# ---------------------------------------------------------------------------- dropout
VIEWS: dict[str, tuple[tuple[int, ...], Callable[[Any], Any]]] = {
    "transposed": ((5, 7), lambda x: x.t()),
    "transposed-3d": ((3, 4, 6), lambda x: x.transpose(0, 1)),
    "permuted": ((2, 3, 5), lambda x: x.permute(2, 0, 1)),
    "step-slice": ((6, 10), lambda x: x[:, ::2]),
    "channels-last": ((2, 3, 4, 5), lambda x: x.contiguous(memory_format=lt.channels_last)
                      if isinstance(x, lt.Tensor) else x.contiguous(memory_format=_torch().channels_last)),
}


def _torch() -> Any:
    return pytest.importorskip("torch", reason=TORCH_REASON)


DROPOUTS: dict[str, Callable[[Any, Any], Any]] = {
    "F.dropout": lambda T, v: T.nn.functional.dropout(v, 0.4, True),
    "F.dropout inplace": lambda T, v: T.nn.functional.dropout(v * 1, 0.4, True, inplace=True),
    "nn.Dropout": lambda T, v: T.nn.Dropout(0.4)(v),
    "torch.dropout": lambda T, v: T.dropout(v, 0.4, True),
    "F.alpha_dropout": lambda T, v: T.nn.functional.alpha_dropout(v, 0.4, True),
    "F.feature_alpha_dropout": lambda T, v: T.nn.functional.feature_alpha_dropout(v, 0.4, True),
    "F.dropout2d": lambda T, v: T.nn.functional.dropout2d(v, 0.4, True),
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("name", list(DROPOUTS))
def test_dropout_on_views_outputs_and_grads(torch_oracle: Any, view: str, name: str) -> None:
    shape, make_view = VIEWS[view]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)

    def fn(T: Any, leaf: Any) -> Any:
        T.manual_seed(0)
        return DROPOUTS[name](T, make_view(leaf))
    grads_both(fn, torch_oracle, x, check_grad_fn=False)


def test_dropout2d_takes_a_3d_input_as_batch_channels_length(torch_oracle: Any) -> None:
    """PyTorch (still) reads a 3-D input of dropout2d as ``(N, C, L)``: one draw per (n, c), with a warning."""
    def make(T: Any) -> Any:
        T.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = T.nn.functional.dropout2d(T.ones(4, 3, 6), 0.4, True)
        return out, any("(N, C, L)" in str(w.message) for w in caught)
    assert_same(make(lt), make(torch_oracle))


def test_gumbel_softmax_of_transposed_logits_draws_in_index_order(torch_oracle: Any) -> None:
    """gumbel_softmax asks for a row-major noise tensor whatever the layout of the logits."""
    logits = np.random.default_rng(2).standard_normal((6, 5)).astype(np.float32)

    def make(T: Any) -> Any:
        T.manual_seed(0)
        return T.nn.functional.gumbel_softmax(T.tensor(logits).t(), tau=0.7)
    assert_same(make(lt), make(torch_oracle))


def test_batch_first_transformer_encoder_layer_with_dropout(torch_oracle: Any) -> None:
    """A ``batch_first`` layer transposes its activations internally: its dropout masks are drawn
    on transposed tensors, and must be PyTorch's for the outputs and gradients to agree."""
    torch = torch_oracle

    def layer(T: Any) -> Any:
        T.manual_seed(0)
        return T.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.3, batch_first=True)
    ref, ours = layer(torch), layer(lt)
    ours.load_state_dict({k: lt.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    ref.train()
    ours.train()
    x = np.random.default_rng(3).standard_normal((3, 5, 16)).astype(np.float32)
    xt, xl = torch.tensor(x, requires_grad=True), lt.tensor(x, requires_grad=True)
    torch.manual_seed(7)
    lt.manual_seed(7)
    yt, yl = ref(xt), ours(xl)
    assert_same(yl, yt, rtol=1e-4, atol=1e-5, check_grad_fn=False)
    w = np.random.default_rng(4).standard_normal(tuple(yt.shape)).astype(np.float32)
    (yt * torch.tensor(w)).sum().backward()
    (yl * lt.tensor(w)).sum().backward()
    assert_same(xl.grad, xt.grad, rtol=1e-4, atol=1e-5)
    grads = dict(ours.named_parameters())
    for name, p in ref.named_parameters():
        np.testing.assert_allclose(to_numpy(grads[name].grad), to_numpy(p.grad), rtol=1e-4, atol=1e-5,
                                   err_msg=name)
    assert float(lt.rand(()).item()) == float(torch.rand(()).item())


# ---------------------------------------------------------------------------- the helper, without torch
@pytest.mark.parametrize("shape, strides, order", [
    ((3, 4), (4, 1), (0, 1)),
    ((4, 3), (1, 4), (1, 0)),
    ((5, 2, 3), (1, 15, 5), (1, 2, 0)),
    ((2, 3, 4, 5), (60, 1, 15, 3), (0, 2, 3, 1)),
    ((4, 1, 3), (1, 12, 4), (1, 2, 0)),
    ((3, 4), (1, 1), (1, 0)),  # equal strides (overlap): the smaller dimension inside
    ((4, 3), (1, 1), (0, 1)),
    ((), (), ()),
])
def test_memory_order(shape: tuple, strides: tuple, order: tuple) -> None:
    assert lr.memory_order(shape, strides) == order


def test_contiguous_fill_is_drawn_as_before() -> None:
    """The contiguous case is index order: the same numbers as the plain generator call, no transpose."""
    lt.manual_seed(0)
    x = lt.empty(5, 7).uniform_()
    lt.manual_seed(0)
    np.testing.assert_array_equal(x.numpy(), lt.random.default_generator.uniform((5, 7)))
    seen = []
    out = lr.in_memory_order((5, 7), (7, 1), lambda s: seen.append(s) or np.arange(35.0).reshape(s))
    assert seen == [(5, 7)] and out.flags.c_contiguous


def test_transposed_fill_is_the_contiguous_fill_transposed() -> None:
    """Without torch: ``empty(5, 7).t().uniform_()`` holds the numbers of ``empty(5, 7).uniform_()``,
    transposed (the same memory, filled in the same order)."""
    lt.manual_seed(0)
    a = lt.empty(5, 7).uniform_()
    lt.manual_seed(0)
    b = lt.empty(5, 7).t().uniform_()
    np.testing.assert_array_equal(b.numpy(), a.t().numpy())
    lt.manual_seed(0)
    c = lt.empty(2, 3, 5).permute(2, 0, 1).bernoulli_(0.5)
    lt.manual_seed(0)
    d = lt.empty(2, 3, 5).bernoulli_(0.5)
    np.testing.assert_array_equal(c.numpy(), d.permute(2, 0, 1).numpy())
