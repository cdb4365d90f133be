"""Tensor methods given an argument of the wrong kind raise PyTorch's exception type.

Found by calling each ``Tensor`` method with a few standard inputs in both libraries (a float,
a tensor, nothing, where an int dim, a size or a flag is due).  PyTorch's argument parser refuses
the type before anything runs (a TypeError); learntorch's methods are plain Python, and the
methods that take only numbers are not wrapped by ``tensor_arguments`` (they are the hot path):

* a ``dim`` that is no int (``x.softmax(2.5)``, ``x.size(x)``) is a TypeError from ``_wrap_dim``,
  which looks at the type only once the range test failed;
* the methods off the hot path (``cummax``, ``topk``, ``median``, ``std`` ...) have their numbers
  checked as the namespace's functions do (``_tensor_methods._NUMBERS_CHECKED``);
* ``view_as``/``expand_as`` of a non-tensor, ``view()``/``expand()``/``repeat()``/``new_zeros()``
  without a size, ``repeat``/``resize_`` to a negative size, a non-flag ``non_blocking``;
* and every right call still works, with PyTorch's numbers.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt

try:
    import torch
except ImportError:  # pragma: no cover - the differential tests say why they skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")


def _names(lib) -> dict:
    g = np.random.default_rng(0)
    f = g.standard_normal((3, 4)).astype(np.float32)
    return dict(torch=lib, x=lib.tensor(f), s=lib.tensor(1.5), i=lib.tensor((f * 3).astype(np.int64)),
                b=lib.tensor(f > 0), v=lib.tensor(f[0, :3]))


def _outcome(lib, expr: str) -> object:
    """What ``expr`` gives: its tensors as (shape, dtype name, values), or the error's type."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = eval(expr, _names(lib))
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__
    return _describe(result)


def _describe(value: object) -> object:
    if isinstance(value, (tuple, list)):
        return [_describe(v) for v in value]
    if hasattr(value, "detach") and hasattr(value, "shape"):
        return tuple(value.shape), str(value.dtype).split(".")[-1], np.asarray(value.detach().numpy(), np.float64)
    return value


# Each is a mistake PyTorch refuses; learntorch must raise the same exception type.
WRONG = [
    "x.view(2.5)", "x.view()", "x.view_as([2, 6])", "x.view_as(3)", "x.reshape_as(2.5)", "x.expand_as(3)",
    "x.expand()", "x.softmax(2.5)", "x.softmax(x)", "s.softmax(s)", "x.softmax()", "x.log_softmax(2.5)",
    "x.log_softmax(x)", "x.mean(2.5)", "i.mean(2.5)", "i.mean(x)", "b.mean(2.5)", "x.topk(2.5)", "x.topk(x)",
    "s.topk(2.5)", "b.topk(2.5)", "x.size(2.5)", "x.size(x)", "s.size(s)", "x.stride(2.5)", "x.stride(x)",
    "x.unsqueeze(2.5)", "x.unsqueeze(x)", "x.unsqueeze_(2.5)", "x.repeat(2.5)", "x.repeat()", "x.repeat(-1, 1)",
    "v.repeat(-1)", "x.median(2.5)", "b.median(2.5)", "x.median(x)", "x.nanmedian(2.5)", "b.nanmedian(x)",
    "x.mode(2.5)", "x.mode(x)", "x.kthvalue(2.5)", "x.kthvalue(1, 2.5)", "x.std(2.5)", "i.std(2.5)", "x.std(x, x)",
    "x.var(2.5)", "i.var(x)", "x.new_zeros(2.5)", "x.new_zeros()", "x.new_ones()", "x.new_empty()",
    "x.new_full((2,), x)", "x.new_full(x, 1)", "x.new_tensor([1], torch.float64)", "x.new_empty_strided((2,), x)",
    "x.diagonal(2.5)", "x.diagonal(x)", "s.diagonal(2.5)", "x.diagonal(0, 2.5)", "x.transpose_(0, 2.5)",
    "x.transpose_(x, x)", "x.swapaxes_(0, 2.5)", "x.swapdims_(x, x)", "x.cummax(2.5)", "x.cummin(x)", "s.cummax(s)",
    "x.logcumsumexp(2.5)", "i.logcumsumexp(2.5)", "x.select(x, 0)", "x.select(2.5, 0)", "x.unbind(2.5)",
    "x.unbind(x)", "x.unflatten(0, [])", "x.unflatten(x, x)", "x.unflatten(2.5, (2, 2))", "x.argmax(2.5)",
    "b.argmax(2.5)", "b.argmin(x)", "x.tril_(2.5)", "x.triu_(x)", "s.tril_(2.5)", "x.polygamma(2.5)",
    "x.polygamma_(x)", "x.mvlgamma_(2.5)", "x.fill_diagonal_(x)", "x.hardshrink(x)", "x.pinverse(x)",
    "x.quantile(0.5, x)", "x.nanquantile(x, x)", "x.scatter_(x, x)", "x.is_pinned(2.5)", "x.is_pinned(x)",
    "x.is_pinned(-1)", "x.pin_memory(2.5)", "x.pin_memory(x)", "x.to_dense(1)", "x.to_dense(x)", "x.copy_(x, x)",
    "x.copy_(x, 1)", "x.resize_()", "x.resize_(-1)", "x.bitwise_not()", "x.bitwise_not_()", "~x",
    "x.copy_(v)", "s.copy_(v)", "x[:1].copy_(x)",
]


@needs_torch
@pytest.mark.parametrize("expr", WRONG)
def test_a_wrong_argument_raises_pytorch_s_exception_type(expr: str) -> None:
    expected = _outcome(torch, expr)
    assert isinstance(expected, str), f"the list is wrong: torch accepts {expr}"
    assert _outcome(lt, expr) == expected


# The right calls next to them still work, with PyTorch's result.
RIGHT = [
    "x.view_as(v.new_zeros(12))", "x.reshape_as(torch.zeros(4, 3))", "x[:1].expand_as(x)", "x.expand(2, 3, 4)",
    "s.view(())", "s.expand(())", "s.expand(2)", "x.view(-1)", "x.repeat(2, 1)", "s.repeat(())", "x.softmax(-1)",
    "x.size(-1)", "x.new_zeros(())", "x.new_zeros(2, 3)", "x.new_ones((2,))", "x.new_full((2,), s)",
    "x.new_tensor([1], dtype=torch.float64)", "x.copy_(v.new_ones(4), True)", "x.to(i, True)",
    "x.to(torch.float64)", "x.unflatten(1, (2, 2))", "x.fill_diagonal_(s)", "x.fill_diagonal_(2.5, True)",
    "x.is_pinned('cpu')", "x.to_dense(torch.float64)", "x.tril_(1)", "i.bitwise_not_()", "~b", "x.polygamma(1)",
    "x.mean(0)", "x.resize_(2, 6)", "x.unsqueeze_(0)", "x.transpose_(0, 1)", "x.mvlgamma_(1)", "x.cummax(0)",
    "x.kthvalue(1, 0)", "x.topk(2)", "x.std(1)", "i.argmax(1)", "x.copy_(x[:1].clone())", "x.copy_(s)",
]


@needs_torch
@pytest.mark.parametrize("expr", RIGHT)
def test_the_right_call_still_works(expr: str) -> None:
    got, expected = _outcome(lt, expr), _outcome(torch, expr)
    assert not isinstance(expected, str), f"the list is wrong: torch refuses {expr}"
    assert not isinstance(got, str), f"{expr}: learntorch raised {got}"
    _assert_same(got, expected, expr)


def _assert_same(got: object, expected: object, expr: str) -> None:
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), expr
        for g, e in zip(got, expected):
            _assert_same(g, e, expr)
    elif isinstance(expected, tuple):
        assert isinstance(got, tuple) and got[:2] == expected[:2], f"{expr}: {got[:2]} vs {expected[:2]}"
        np.testing.assert_allclose(got[2], expected[2], rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=expr)
    else:
        assert got == expected, expr


def test_the_messages_say_what_was_wrong() -> None:
    x = lt.randn(3, 4)
    with pytest.raises(TypeError, match=r"^dim must be an int, not float$"):
        x.softmax(2.5)
    with pytest.raises(TypeError, match=r"^dim must be an int, not Tensor$"):
        x.size(x)
    with pytest.raises(IndexError, match=r"Dimension out of range"):  # a right type with a wrong value: its own error
        x.softmax(5)
    with pytest.raises(TypeError, match=r"^view_as\(\): argument 'other' \(position 1\) must be Tensor, not list$"):
        x.view_as([2, 6])
    with pytest.raises(TypeError, match=r"^cummax\(\): argument 'dim' \(position 1\) must be int, not float$"):
        x.cummax(2.5)
    with pytest.raises(TypeError, match=r"^topk\(\): argument 'k' \(position 1\) must be int, not Tensor$"):
        x.topk(x)
    with pytest.raises(TypeError, match=r'^new_zeros\(\) missing 1 required positional arguments: "size"$'):
        x.new_zeros()
    with pytest.raises(TypeError, match=r'^view\(\) missing 1 required positional arguments: "size"$'):
        x.view()
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -3: \[-3, 4\]$"):
        x.repeat(-1, 1)
    with pytest.raises(TypeError, match=r"^to_dense\(\): argument 'dtype' \(position 1\) must be torch.dtype, not int"):
        x.to_dense(1)


def test_a_refused_in_place_call_leaves_the_tensor_as_it_was() -> None:
    x, y = lt.randn(3, 4), lt.randn(3, 4)
    before = x.numpy().copy()
    with pytest.raises(TypeError, match=r"^tril_\(\): argument 'diagonal' \(position 1\) must be int, not float$"):
        x.tril_(2.5)  # (it would have kept the diagonal 2, truncated)
    with pytest.raises(TypeError, match=r"^copy_\(\): argument 'non_blocking' must be bool, not Tensor$"):
        x.copy_(y, y)
    with pytest.raises(TypeError, match=r"^mvlgamma_\(\): argument 'p' \(position 1\) must be int, not float$"):
        x.abs().mvlgamma_(2.5)
    with pytest.raises(RuntimeError, match=r"negative dimension -1"):
        x.resize_(-1, 2)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.shape == (3, 4)
