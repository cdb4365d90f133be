"""Regressions found while writing chapter 01 (notebooks/01_tensors.ipynb): each is a line the
chapter shows, checked against real PyTorch where it runs on the CPU."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, raises_both

SHAPE_PAIRS = [((3,), (4,)), ((2, 3), (4,)), ((2, 3), (2,)), ((5, 2, 3), (4, 1, 3)), ((2, 3), (3, 2)),
               ((0,), (2,)), ((2, 1), (8, 4, 3))]


@pytest.mark.parametrize("a, b", SHAPE_PAIRS, ids=str)
def test_broadcast_error_is_pytorchs(torch_oracle, a, b):
    l_exc, t_exc = raises_both(lambda T: T.zeros(a) + T.zeros(b), torch_oracle)
    assert str(l_exc) == str(t_exc)


BINARY = {"mul": lambda a, b: a * b, "sub": lambda a, b: a - b, "div": lambda a, b: a / b,
          "lt": lambda a, b: a < b, "maximum": lambda a, b: a.maximum(b)}


@pytest.mark.parametrize("op", list(BINARY))
def test_every_binary_op_checks_broadcasting(torch_oracle, op):
    l_exc, t_exc = raises_both(lambda T: BINARY[op](T.ones(3), T.ones(4)), torch_oracle)
    assert str(l_exc) == str(t_exc)


def test_matmul_still_broadcasts_batch_dims(torch_oracle):
    check_both(lambda T: T.matmul(T.ones(5, 1, 2, 3), T.ones(6, 3, 4)), torch_oracle)


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_integer_div_with_rounding_stays_integer(torch_oracle, mode):
    check_both(lambda T: T.div(T.tensor([7, -7, 6]), 2, rounding_mode=mode), torch_oracle, exact=True)
    check_both(lambda T: T.div(T.tensor([7, -7]), T.tensor([2, 3]), rounding_mode=mode), torch_oracle, exact=True)


@pytest.mark.parametrize("data", [[[1, 2, 3], [4, 5], [6]], [[1, 2], [3, 4, 5]], [[[1], [2]], [[3], [4, 5]]]],
                         ids=["short-row", "long-row", "deep"])
def test_ragged_list_message(torch_oracle, data):
    l_exc, t_exc = raises_both(lambda T: T.tensor(data), torch_oracle)
    assert str(l_exc) == str(t_exc)


def test_integer_tensor_cannot_require_grad(torch_oracle):
    l_exc, t_exc = raises_both(lambda T: T.tensor([1, 2], requires_grad=True), torch_oracle)
    assert str(l_exc) == str(t_exc)


def test_uint8_index_is_a_mask_with_a_warning(torch_oracle):
    def pick(T):
        x = T.arange(12).reshape(4, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = x[T.tensor([1, 0, 1, 1], dtype=T.uint8)]
        assert any("uint8 is now deprecated" in str(w.message) for w in caught)
        return out
    check_both(pick, torch_oracle, exact=True)


@pytest.mark.parametrize("key", ["rows", "cols", "after-int", "2d"])
def test_mask_shape_mismatch_message(torch_oracle, key):
    def index(T):
        x = T.arange(24).reshape(2, 3, 4)
        return {"rows": lambda: x[T.tensor([True, False, True])],
                "cols": lambda: x[:, T.tensor([True, False])],
                "after-int": lambda: x[0, T.tensor([True, False])],
                "2d": lambda: x[T.ones(2, 4, dtype=T.bool)]}[key]()
    l_exc, t_exc = raises_both(index, torch_oracle)
    assert str(l_exc) == str(t_exc)


@pytest.fixture
def stand_in(monkeypatch):
    """learntorch's CPU stand-in for CUDA (or the real GPU, where CuPy finds one)."""
    monkeypatch.setenv("LEARNTORCH_FAKE_CUDA", "1")
    return lt.device("cuda:0")


def test_stand_in_tensors_have_dtypes(stand_in):
    for dt in (lt.float32, lt.float64, lt.int64, lt.bool):
        t = lt.zeros(2, dtype=dt, device=stand_in)
        assert t.dtype is dt and t.device == stand_in
    assert lt.tensor([1.0, 2.0], device=stand_in).cpu().tolist() == [1.0, 2.0]


def test_stand_in_selects_rows_and_columns(stand_in):
    host = np.arange(12.0).reshape(4, 3)
    x = lt.tensor(host, device=stand_in)
    np.testing.assert_array_equal(x[lt.tensor([3, -1, 0])].cpu().numpy(), host[[3, -1, 0]])
    np.testing.assert_array_equal(x[[2, 0]].cpu().numpy(), host[[2, 0]])
    np.testing.assert_array_equal(x[:, [0, 2]].cpu().numpy(), host[:, [0, 2]])
    np.testing.assert_array_equal(x[lt.tensor([[0, 1], [2, 3]])].cpu().numpy(), host[[[0, 1], [2, 3]]])
    np.testing.assert_array_equal(x[lt.tensor([True, False, True, False])].cpu().numpy(), host[[0, 2]])


def test_stand_in_row_selection_backward(stand_in):
    w = lt.zeros(4, 3, device=stand_in, requires_grad=True)
    w[lt.tensor([3, 1, 3], device=stand_in)].sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [[0, 0, 0], [1, 1, 1], [0, 0, 0], [2, 2, 2]])
