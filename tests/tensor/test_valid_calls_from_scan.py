"""Calls PyTorch runs that learntorch used to refuse, and a few it used to take wrongly.

A scan of every public function and method with a handful of inputs (a 3x4 float tensor,
a 0-d one, integers, bools, an empty 0x3 tensor ...) found programs that PyTorch 2.13 runs
and learntorch refused.  Some are PyTorch's old spellings, still accepted with a warning
(``torch.add(x, 2, y)`` is ``x + 2 * y``), some are empty or 0-d corners (``torch.lu`` of a
0x3 matrix, ``t.adjoint()`` of a 0-d tensor), some are plain uses a learner writes
(``x.random_()`` on an int64 or a bool tensor, ``x.to(float)``, ``x.new(other)``).  Each is
checked here against torch: same values, dtype and shape, the same warning where PyTorch
warns, the same generator stream for the random fills (the numbers drawn, and where the
stream is left after them).  The other direction is checked too: a 0-d tensor takes dim 0
and -1 only (``torch.sort(t, 1)`` is an IndexError), and a tensor where a random fill wants
a number is PyTorch's TypeError, checked before anything else.

Most tests are differential and skip, with a reason, where torch (the oracle) is not
installed; the ones at the end need only NumPy.
"""
from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt
import learntorch.nn.functional as LF
from learntorch.ops import pointwise

from conftest import assert_draws_same, assert_same, raises_both, to_numpy

_RNG = np.random.default_rng(0)
_F = _RNG.standard_normal((3, 4)).astype(np.float32)
_F3D = _RNG.standard_normal((2, 3, 5)).astype(np.float32)


def inputs(T: Any) -> dict[str, Any]:
    """The scan's inputs, in module ``T`` (torch or learntorch)."""
    F = __import__(T.__name__ + ".nn.functional", fromlist=["functional"])
    x = T.tensor(_F)
    return dict(T=T, F=F, np=np, x=x, t0=T.tensor(1.5), i=T.tensor((_F * 3).astype(np.int64)), b=T.tensor(_F > 0),
                e=T.zeros(0, 3), f3=T.tensor(_F[0, :3]), f3d=T.tensor(_F3D), f64=T.tensor(_F.astype(np.float64)))


def run(T: Any, expr: str) -> tuple[Any, list[tuple[type, str]]]:
    """``expr`` evaluated on the inputs of ``T``, with the warnings it gave: (category, message
    without PyTorch's "(Triggered internally at ...)" suffix)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = eval(expr, inputs(T))
    return result, [(w.category, str(w.message).split(" (Triggered internally")[0]) for w in caught]


@pytest.fixture
def warn_every_time(torch_oracle: Any) -> Any:
    """PyTorch gives its deprecation warnings once per process; both libraries give them on every
    call here (``set_warn_always``), so that each test sees its own."""
    before = torch_oracle.is_warn_always_enabled(), lt.is_warn_always_enabled()
    torch_oracle.set_warn_always(True)
    lt.set_warn_always(True)
    yield torch_oracle
    torch_oracle.set_warn_always(before[0])
    lt.set_warn_always(before[1])


def check_same(torch: Any, expr: str, **kw: Any) -> None:
    expected, t_warnings = run(torch, expr)
    actual, l_warnings = run(lt, expr)
    assert_same(actual, expected, check_grad_fn=False, **kw)
    assert l_warnings == t_warnings


# ----------------------------------------------------------------------------- valid calls, same results
VALID = [
    # the deprecated overloads: alpha in the middle (add, sub, their in-place forms), alpha third (subtract, rsub)
    "T.add(t0, t0, t0)", "T.add(x, 2, x)", "T.add(x, 2.5, x)", "T.add(x, t0, x)", "T.add(x, t0, 3)",
    "T.add(x, T.tensor(2), x)", "T.add(x, t0, x, out=T.empty(3, 4))", "T.sub(t0, t0, t0)", "T.sub(x, t0, x)",
    "T.sub(t0, 2.5, t0)", "T.subtract(t0, t0, t0)", "T.subtract(x, 2, 3)", "T.subtract(T.tensor(3), 2.5, 2)",
    "T.rsub(t0, t0, t0)", "T.rsub(x, 2, 3)", "T.rsub(x, t0, t0)",
    "x.add(t0, x)", "x.add(2, 3)", "x.sub(2, x)", "x.subtract(2, 3)", "t0.add(t0, t0)", "t0.sub(t0, t0)",
    "t0.subtract(t0, t0)", "x.clone().add_(t0, x)", "x.clone().sub_(t0, x)", "t0.clone().add_(t0, t0)",
    "t0.clone().sub_(t0, t0)", "t0.clone().subtract_(t0, t0)", "x.clone().subtract_(2, 3)",
    "T.add(b, b, alpha=2)", "T.add(i, 1, alpha=T.tensor(2))", "T.add(x, 1, alpha=T.tensor(3.))",
    # 0-d tensors: adjoint, mH, mT (deprecated identities, with PyTorch's warning)
    "t0.adjoint()", "T.adjoint(t0)", "t0.mH", "t0.mT", "t0.H",
    # empty tensors
    "T.cholesky(e)", "T.cholesky(T.zeros(2, 0, 3))", "T.cholesky(T.zeros(3, 0))", "T.cholesky(T.zeros(0))",
    "e.cholesky()", "T.cholesky(T.eye(2), True)", "T.lu(e)", "T.lu(e, get_infos=True)", "T.lu(T.zeros(3, 0))",
    "T.lu(T.zeros(2, 0, 3))", "T.linalg.lu_factor(e)", "T.linalg.lu(e)", "T.linalg.lu(T.zeros(3, 0))",
    "T.linalg.lu_factor_ex(T.zeros(2, 0, 3))", "T.linalg.cholesky(T.zeros(2, 0, 0))", "e.lu()",
    "T.tensordot(e, e)", "T.tensordot(e, e, ([0], [0]))", "T.tensordot(T.zeros(2, 0), T.zeros(0, 3), 1)",
    "T.take_along_dim(e, e)", "T.take_along_dim(x, T.zeros(0))", "T.gather(x, 0, T.zeros(0, 4))",
    "e.take_along_dim(e)", "T.take_along_dim(x, T.zeros(2, dtype=T.int32))",
    "F.group_norm(e, 1)", "F.group_norm(e, 3)", "F.group_norm(T.zeros(0, 3, 4), 1)",
    "F.group_norm(T.zeros(2, 4, 0), 2)",
    "F.batch_norm(e, e, e)", "F.batch_norm(e, T.zeros(2), T.ones(2))", "F.batch_norm(e, e, e, training=True)",
    "F.batch_norm(T.zeros(0, 3, 4), e, e)", "F.batch_norm(e.long(), None, None)",
    "F.batch_norm(T.zeros(0), None, None)", "F.batch_norm(e, None, None, T.ones(3) * 2, T.ones(3))",
    "F.adaptive_max_pool1d(e, 1)", "F.adaptive_max_pool1d_with_indices(e, 1)",
    "F.adaptive_max_pool1d(T.zeros(0, 2, 3), 1)", "F.adaptive_max_pool2d(T.zeros(0, 3, 3), 1)",
    "F.multilabel_margin_loss(e, e, reduction='none')",
    # (the value of a mean or a sum over no row is PyTorch's uninitialised memory: only its shape and dtype)
    "F.multilabel_margin_loss(e, e).shape", "F.multilabel_margin_loss(e, e).dtype",
    "F.multilabel_margin_loss(e, e, reduction='sum').dtype",
    # pooling: the unbatched forms PyTorch takes, and integers where its kernels take them
    "F.adaptive_avg_pool2d(x, 1)", "F.adaptive_avg_pool2d(e, 1)", "F.adaptive_avg_pool3d(f3d, 1)",
    "F.adaptive_avg_pool1d(i, 0)", "F.adaptive_avg_pool1d(b, 0)", "F.adaptive_avg_pool2d(i[None], 0)",
    "F.max_pool1d_with_indices(i, 1)", "F.max_pool1d_with_indices(i, 2)", "F.max_pool1d_with_indices(i.int(), 2)",
    "F.max_pool1d(i, 2, return_indices=True)",
    # dropout: the warned-about inputs PyTorch still takes (p = 0 or 1 draws nothing)
    "F.dropout2d(t0, 1)", "F.dropout2d(f3, 1)", "F.dropout2d(f3, 0.0)", "F.dropout2d(f3, 0.5, training=False)",
    "F.dropout3d(t0, 1)", "F.dropout3d(f3, 1.0)", "F.dropout3d(t0, 0.0)",
    # the in-place activations of the native namespace
    "F.hardtanh_(x.clone(), 2.5)", "F.hardtanh_(x.clone(), 0.5, 0.2)", "F.hardtanh_(t0.clone(), t0)",
    "F.hardtanh_(i.clone(), 2.5)", "F.hardtanh_(i.clone(), -1.5, 1.5)", "F.elu_(t0.clone(), t0, t0)",
    "F.elu_(x.clone(), 1.0, False)", "F.elu_(x.clone(), 1.0, True, 3)", "F.elu_(x.clone(), t0)",
    # new(tensor), to(a number or a Python type), dtype=float
    "x.new(x)", "x.new(t0)", "x.new(e)", "x.new(x.t())", "x.new(x.t()).stride()",
    "x.new(np.ones(2))", "x.to(2.5)", "x.to(True)", "x.to(False)", "i.to(2.5)", "t0.to(2.5)", "x.to(float)",
    "x.to(int)", "x.to(bool)", "x.to(np.float32(1))", "x.to(None)", "x.to(2.5, True)", "T.zeros(2, dtype=float)",
    "x.to(dtype=float)",
    # inference_mode(anything but a bool) decorates it, as @inference_mode without parentheses does
    "callable(T.inference_mode(x))", "callable(T.inference_mode(0))",
]


@pytest.mark.parametrize("expr", VALID)
def test_a_call_pytorch_runs_gives_its_result(warn_every_time: Any, expr: str) -> None:
    check_same(warn_every_time, expr)


def test_new_of_a_tensor_is_a_view_of_it(torch_oracle: Any) -> None:
    for T in (torch_oracle, lt):
        y = T.tensor([1.0, 2.0], requires_grad=True)
        z = T.ones(3).new(y)
        assert z is not y and z._base is y and z.requires_grad and z.grad_fn.name() == "AliasBackward0"
        assert z.data_ptr() == y.data_ptr()


def test_to_a_number_matches_its_dtype_only_when_needed(torch_oracle: Any) -> None:
    for T in (torch_oracle, lt):
        d = T.ones(2, dtype=T.float64)
        assert d.to(2.5) is d
        assert d.to(2.5, copy=True) is not d


def test_the_deprecated_overload_warns_once_per_process_for_all(torch_oracle: Any, monkeypatch: Any) -> None:
    """PyTorch's ``TORCH_WARN_ONCE`` in its argument parser: the first use of any deprecated
    overload (``add``, ``sub``, ``add_`` ...) warns, later ones do not; it points at the caller."""
    monkeypatch.setattr(pointwise, "_ALPHA_FIRST_WARNED", [False])
    x = lt.ones(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lt.sub(x, 2, x)
        lt.add(x, 2, x)
        x.add_(2, x)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert str(caught[0].message).startswith("This overload of sub is deprecated:\n\tsub(Tensor input, Number alpha")


# ----------------------------------------------------------------------------- what PyTorch refuses
REFUSED = [
    # a 0-d tensor has dims 0 and -1 only
    "T.sort(t0, 1)", "t0.sort(1)", "T.argsort(t0, 1)", "t0.argsort(-2)", "T.squeeze(t0, 1)", "t0.squeeze(1)",
    "t0.clone().squeeze_(1)", "T.flatten(t0, 1)", "t0.flatten(0, 1)", "T.topk(t0, 1, 1)",
    # the deprecated overloads take a number in the middle, nothing else
    "T.add(x, x, x)", "T.add(x, x, T.tensor(3.))", "x.add(x, T.tensor(3.))", "T.add(x, t0, x, alpha=3)",
    "T.add(x, T.tensor(2., requires_grad=True), x)", "T.subtract(x, t0, x)", "T.rsub(x, t0, x)",
    "T.rsub(x, x, 3)", "x.clone().subtract_(t0, x)", "x.clone().mul_(x, x)", "T.add(x, 2, 'a')",
    # alpha's own rules
    "T.add(i, 2.5, i)", "T.add(i, 1, alpha=2.5)", "T.add(x, 1, alpha=True)", "T.add(i, 1, alpha=True)",
    "T.sub(i, 1, alpha=2.5)", "i.clone().add_(1, alpha=2.5)", "T.add(i, 1, alpha=T.tensor(2.5))",
    "T.rsub(i, 1, alpha=2.5)", "T.add(b, b, alpha=2.5)",
    # what the valid corners above still check
    "T.cholesky(T.zeros(2, 3))", "T.cholesky(T.ones(3))", "T.cholesky(T.eye(2, dtype=T.long))",
    "T.cholesky(e, 1)", "T.take_along_dim(x, T.zeros(1, 4), 0)", "T.take_along_dim(x, T.zeros(1, 4, dtype=T.int32), 0)",
    "T.take_along_dim(x, T.zeros(2))", "F.batch_norm(T.zeros(2, 3), e, e)", "F.multilabel_margin_loss(x, x)",
    "F.adaptive_avg_pool1d(i, 2)", "F.max_pool1d(i, 2)", "F.max_pool1d_with_indices(b, 1)",
    "F.hardtanh(x.clone(), 2.5)", "F.hardtanh_(b.clone(), 2.5)", "F.hardtanh_(x.clone(), x)",
    "F.elu_(x.clone(), 1.0, x)", "F.elu_(x.clone(), inplace=False)", "F.elu_(i.clone(), 1.0, 1)",
    "F.dropout2d(t0, 0.5)", "F.dropout2d(f3)", "F.dropout3d(t0)", "t0.adjoint()[None].adjoint()",
    "x.new(i)", "i.new(x)", "x.new(x, device='cpu')", "x.new(x, 3)", "x.to(2.5, T.float64)",
    "T.inference_mode(x)(1)",
]


@pytest.mark.parametrize("expr", REFUSED)
def test_a_call_pytorch_refuses_raises_its_error(torch_oracle: Any, expr: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_both(lambda T: eval(expr, inputs(T)), torch_oracle)


# ----------------------------------------------------------------------------- the random fills
def _draw(T: Any, expr: str, seed: int = 7) -> tuple[Any, Any]:
    """``expr`` after ``manual_seed``, and then two ``rand`` numbers: where the stream was left."""
    T.manual_seed(seed)
    names = inputs(T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = eval(expr, names)
    return result, T.rand(2)


INTEGER_FILLS = [
    "i.clone().random_()", "b.clone().random_()", "T.zeros(5, dtype=T.int32).random_()",
    "T.zeros(5, dtype=T.int16).random_()", "T.zeros(5, dtype=T.int8).random_()", "T.zeros(5, dtype=T.uint8).random_()",
    "T.zeros(5).random_()", "T.zeros(5, dtype=T.float64).random_()", "T.zeros(5, dtype=T.float16).random_()",
    "T.zeros(5, dtype=T.bfloat16).random_()", "T.zeros(4, 3).t().random_()",
    "b.clone().random_(2)", "b.clone().random_(0, 2)", "b.clone().random_(0, 1)", "b.clone().random_(1, 2)",
    "i.clone().random_(-5, 5)", "i.clone().random_(2 ** 62)", "i.clone().random_(-2 ** 63, None)",
    "T.zeros(5, dtype=T.int8).random_(-100, 100)", "T.zeros(5).random_(0, None)", "x.clone().random_(T.tensor(3))",
    "x.clone().random_(T.tensor(3), T.tensor(5))", "x.clone().random_(to=3)", "x.clone().random_(1, to=3)",
    "x.clone().random_(**{'from': 1, 'to': 3})", "x.clone().random_(1, None)",
    "T.zeros(3, dtype=T.int64).random_(5, None)", "T.zeros(3).random_(5, None)",
    "T.zeros(3, dtype=T.bool).random_(0, None)", "T.zeros(3, dtype=T.int8).random_(-128, None)",
    "T.zeros(3, dtype=T.uint8).random_(3, None)", "T.zeros(3).random_(-2 ** 63, None)",
    "T.zeros(3, dtype=T.int64).random_(2 ** 63 - 1, None)",
    "T.zeros(3, dtype=T.float64).random_(-2 ** 63, None)", "T.zeros(3, dtype=T.int64).random_(0, 2 ** 30)",
    "T.zeros(3, dtype=T.int32).random_(0, 2 ** 30)", "T.zeros(3, dtype=T.int64).random_(0, 2 ** 33)",
    "T.randint_like(t0, t0)", "T.randint_like(x, T.tensor(5))", "T.randint_like(x, T.tensor(5), T.tensor(9))",
    "T.randint_like(x, 1, T.tensor(9))", "T.randint_like(x, T.tensor(1), 9)", "T.randint_like(x, T.tensor(5.7))",
    "T.randint_like(x, high=T.tensor(5))", "T.randint_like(x, T.tensor(True))", "T.randint_like(x, T.tensor([1]), 9)",
    "T.randint_like(i, T.tensor(5.9))", "x.abs().multinomial(T.tensor(2))", "i.clone().geometric_(0.5)",
    "i.clone().bernoulli_(0.5)", "b.clone().bernoulli_(0.5)", "T.bernoulli(i, 0.5)",
]


@pytest.mark.parametrize("expr", INTEGER_FILLS)
def test_an_integer_fill_draws_pytorchs_numbers(torch_oracle: Any, expr: str) -> None:
    """Integers drawn from the raw stream: exact on every machine, and the stream is left where
    PyTorch leaves it (the two ``rand`` numbers after)."""
    expected, t_after = _draw(torch_oracle, expr)
    actual, l_after = _draw(lt, expr)
    assert_same(actual, expected, exact=True, check_grad_fn=False)
    assert_same(l_after, t_after, exact=True)


FLOAT_FILLS = [
    "x.clone().cauchy_(t0)", "x.clone().cauchy_(t0, t0)", "x.clone().cauchy_(T.tensor(2))",
    "x.clone().cauchy_(T.tensor(True))", "x.clone().exponential_(t0)", "x.clone().exponential_(float('inf'))",
    "x.clone().uniform_(t0, T.tensor(3))", "x.clone().uniform_(True, 2)", "x.clone().normal_(t0)",
    "x.clone().log_normal_(t0)", "x.clone().geometric_(T.tensor(0.5))", "x.clone().bernoulli_(T.tensor(0.5))",
    "T.bernoulli(x.abs().clamp(max=1), 0.5)", "T.bernoulli(x.abs().clamp(max=1), T.tensor(0.5))",
    "T.normal(t0, t0, (2,))", "T.normal(t0, t0, [2, T.tensor(3)])", "T.normal(x, t0)", "T.normal(t0, t0)",
    "T.poisson(x.abs(), None)", "F.dropout3d(f3)", "F.dropout3d(x)", "F.dropout3d(f3d)",
]


@pytest.mark.parametrize("expr", FLOAT_FILLS)
def test_a_fill_with_tensor_arguments_draws_pytorchs_numbers(torch_oracle: Any, draws_bit_exact: bool,
                                                             expr: str) -> None:
    """A 0-d tensor goes where a number goes (``x.cauchy_(torch.tensor(1.5))``): the same draws as
    with the number itself, to float tolerance (log/tan/exp are NumPy's here, libm's in torch)."""
    expected, t_after = _draw(torch_oracle, expr)
    actual, l_after = _draw(lt, expr)
    assert_draws_same(actual, expected, bit_exact=False, err_msg=expr)
    assert_draws_same(l_after, t_after, draws_bit_exact, err_msg=expr)


FILL_ERRORS = [
    # a tensor of many numbers, a float, a bool or None where a number or an int is wanted: TypeError first
    "x.clone().random_(t0)", "x.clone().random_(2.5)", "x.clone().random_(True)", "x.clone().random_(0, 2.0)",
    "x.clone().random_(None)", "x.clone().random_(None, 3)", "x.clone().random_(x)", "x.clone().random_(x, x)",
    "i.clone().random_(x)", "b.clone().random_(x, x)",
    "x.clone().cauchy_(x)", "x.clone().cauchy_(x, x)", "i.clone().cauchy_(x)", "x.clone().cauchy_(T.tensor([1.5]))",
    "x.clone().cauchy_(T.tensor(1.5, requires_grad=True))", "x.clone().exponential_(x)", "i.clone().exponential_(x)",
    "x.clone().uniform_(x)", "x.clone().uniform_(0, x)", "i.clone().uniform_(x)", "x.clone().uniform_('a')",
    "x.clone().uniform_(None)", "x.clone().normal_(x)", "x.clone().normal_(0, x)", "b.clone().normal_(x, x)",
    "x.clone().normal_(None)", "x.clone().log_normal_(x)", "i.clone().log_normal_(x, x)", "x.clone().geometric_(x)",
    "x.clone().geometric_(None)", "i.clone().geometric_(x)", "x.clone().bernoulli_('a')", "T.bernoulli(x, x)",
    "x.bernoulli(x)", "x.multinomial(t0)", "T.multinomial(x.abs(), 2.5)", "x.abs().multinomial(True)",
    "T.multinomial(x.abs(), x)", "i.multinomial(2.5)", "t0.multinomial(x)",
    "T.normal(t0, t0, t0)", "T.normal(e, e, e)", "T.normal(0., 1., 3)", "T.normal(x, 1.0, (2,))",
    "T.poisson(x.abs(), 1)", "T.poisson(x.abs(), x)", "T.poisson(e, 1)", "T.poisson(i, 1)",
    "T.randint_like(x, x)", "T.randint_like(x, T.tensor([5]))", "T.randint_like(x, T.tensor(1.5), 9)",
    "T.randint_like(x, T.tensor(-3))",
    # the kernels' own refusals, after the arguments
    "b.clone().random_(3)", "b.clone().random_(-1, 2)", "T.zeros(5, dtype=T.int8).random_(200)",
    "T.zeros(5, dtype=T.int8).random_(-200, 0)", "T.zeros(3, dtype=T.int8).random_(-129, None)",
    "T.zeros(3, dtype=T.int32).random_(-2 ** 63, None)", "T.zeros(3, dtype=T.bool).random_(-2 ** 63, None)",
    "T.zeros(3, dtype=T.float16).random_(-2 ** 63, None)", "T.zeros(3).random_(2 ** 24 + 5, None)",
    "T.zeros(3, dtype=T.int8).random_(200, None)", "T.zeros(3, dtype=T.bool).random_(2, None)",
    "T.zeros(3, dtype=T.uint8).random_(-1, None)",
    "x.clone().random_(0)", "x.clone().random_(3, 3)", "i.clone().random_(0, 2 ** 63)",
    "i.clone().cauchy_()", "i.clone().exponential_()", "b.clone().exponential_(2.5)", "i.clone().exponential_(1)",
    "x.clone().exponential_(T.tensor(-1.))", "x.clone().exponential_(0)", "i.clone().log_normal_()",
    "i.clone().uniform_()", "i.clone().normal_()", "b.clone().geometric_(0.5)", "b.clone().geometric_(1)",
    "x.clone().bernoulli_(t0)", "x.clone().bernoulli_(i)", "i.clone().bernoulli_(i)", "T.bernoulli(i)",
    "T.bernoulli(b)", "T.normal(i, i)", "T.normal(i, -1)", "T.normal(b, -1)", "T.normal(i.abs(), i.abs())",
    "T.normal(1., -2., (2,), dtype=T.int64)", "T.normal(1., 2., (2,), dtype=T.int64)", "T.poisson(i)",
]


@pytest.mark.parametrize("expr", FILL_ERRORS)
def test_a_fill_pytorch_refuses_raises_its_error(torch_oracle: Any, expr: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_both(lambda T: eval(expr, inputs(T)), torch_oracle)


def test_the_kernel_names_read_as_pytorchs(torch_oracle: Any) -> None:
    for expr, fragment in (("i.clone().uniform_()", "\"check_uniform_bounds\" not implemented for 'Long'"),
                           ("i.clone().normal_()", "\"normal_kernel_cpu\" not implemented for 'Long'"),
                           ("T.bernoulli(i)", "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'"),
                           ("i.clone().exponential_()", "but you specified Long"),
                           ("x.clone().random_(2.5)", "random_() received an invalid combination of arguments"),
                           ("x.clone().cauchy_(x)", "cauchy_(): argument 'median' (position 1) must be float"),
                           ("x.clone().uniform_(0, x)", "uniform_(): argument 'to' (position 2) must be float"),
                           ("T.randint_like(x, x)", "high must be a scalar tensor and on CPU")):
        raises_both(lambda T: eval(expr, inputs(T)), torch_oracle, match=re.escape(fragment))


# ----------------------------------------------------------------------------- NumPy only
def test_random_on_bool_and_int64_tensors() -> None:
    """``x.random_()`` on a bool tensor gives 0/1 values, on int64 every non-negative int64."""
    lt.manual_seed(0)
    b = lt.zeros(1000, dtype=lt.bool).random_()
    values = set(to_numpy(b).tolist())
    assert values == {False, True}
    n = to_numpy(lt.zeros(1000, dtype=lt.int64).random_())
    assert n.min() >= 0 and n.max() > 2**60  # (draws of 63 bits)
    bounded = to_numpy(lt.zeros(1000, dtype=lt.int64).random_(-3, 4))
    assert set(bounded.tolist()) == set(range(-3, 4))
    assert to_numpy(lt.zeros(100, dtype=lt.uint8).random_(250, None)).min() >= 250


def test_a_random_fill_refuses_a_tensor_for_a_number_first() -> None:
    x = lt.ones(3, dtype=lt.int64)
    with pytest.raises(TypeError, match=r"^uniform_\(\): argument 'from' \(position 1\) must be float, not Tensor$"):
        x.uniform_(lt.ones(3))  # (before the kernel's NotImplementedError for integers)
    with pytest.raises(TypeError, match=r"^random_\(\) received an invalid combination of arguments - got \(float\)"):
        x.random_(2.5)
    assert lt.ones(3).exponential_(lt.tensor(2.0)).shape == (3,)


def test_a_0d_tensor_takes_dim_0_and_minus_1_only() -> None:
    t = lt.tensor(1.5)
    for fn in (lambda d: lt.sort(t, d), lambda d: t.argsort(d), lambda d: t.squeeze(d), lambda d: lt.flatten(t, d),
               lambda d: t.clone().squeeze_(d), lambda d: lt.topk(t, 1, d)):
        fn(0), fn(-1)
        with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got 1"):
            fn(1)


def test_the_old_add_order_and_alpha_checks() -> None:
    x = lt.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(to_numpy(lt.add(x, 3, x)), [4.0, 4.0])
        np.testing.assert_array_equal(to_numpy(x.clone().sub_(lt.tensor(2.0), x)), [-1.0, -1.0])
    np.testing.assert_array_equal(to_numpy(lt.subtract(x, 2, 3)), [-5.0, -5.0])
    np.testing.assert_array_equal(to_numpy(lt.rsub(x, 2, 3)), [-1.0, -1.0])
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating"):
        lt.add(lt.ones(2, dtype=lt.int64), 1, alpha=2.5)
    with pytest.raises(TypeError, match=r"add\(\) takes 2 positional arguments but 3 were given"):
        lt.add(x, x, x)
    assert lt.add(lt.ones(2, dtype=lt.bool), lt.ones(2, dtype=lt.bool), alpha=2).dtype is lt.bool


def test_empty_and_0d_corners() -> None:
    e = lt.zeros(0, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert lt.cholesky(e).shape == (0, 3)
        assert lt.tensor(2.0).adjoint().item() == 2.0
    lu, piv = lt.linalg.lu_factor(e)
    assert lu.shape == (0, 3) and piv.shape == (0,) and piv.dtype is lt.int32
    assert lt.tensordot(e, e).item() == 0.0
    assert LF.group_norm(e, 1).shape == (0, 3)
    assert LF.batch_norm(e, e, e).shape == (0, 3)
    assert LF.adaptive_max_pool1d(e, 1).shape == (0, 1)
    assert LF.multilabel_margin_loss(e, e, reduction="sum").item() == 0.0
    assert lt.take_along_dim(e, e).shape == (0,)


def test_to_a_python_type_or_number() -> None:
    x = lt.ones(2)
    assert x.to(float).dtype is lt.float64 and x.to(2.5).dtype is lt.float64 and x.to(True).dtype is lt.bool
    assert lt.zeros(2, dtype=float).dtype is lt.float64  # (PyTorch's dtype=float is float64, whatever the default)


def test_inference_mode_decorates_what_is_not_a_bool() -> None:
    @lt.inference_mode
    def f() -> bool:
        return lt.is_inference_mode_enabled()
    assert f() and not lt.is_inference_mode_enabled()
    assert callable(lt.inference_mode(lt.ones(2)))
    assert lt.inference_mode(False)(lambda: lt.is_inference_mode_enabled())() is False


def test_hardtanh_and_elu_in_place_forms() -> None:
    x = lt.tensor([-2.0, 0.5, 3.0])
    np.testing.assert_array_equal(to_numpy(LF.hardtanh_(x.clone(), 2.5)), [1.0, 1.0, 1.0])  # max_val wins
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        LF.hardtanh(x, 2.5)
    np.testing.assert_allclose(to_numpy(LF.elu_(x.clone(), 1.0, 2.0)), to_numpy(2.0 * LF.elu(x)), rtol=1e-6)
