"""Differences from PyTorch that a probe of course-style programs found (f01 … f17), each
checked against real PyTorch: reflected operators, integer arithmetic (division by zero,
wrap-around, negative powers), conversions to Python numbers, the error types NumPy would
leak, NumPy's RuntimeWarnings that PyTorch does not give, and PyTorch's UserWarnings.
"""
from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt
from learntorch import _tensor_methods, warn_always
from learntorch.ops import arrange
from conftest import check_both, raises_both

pytestmark = pytest.mark.torch


# ----------------------------------------------------------------------------- f01 reflected operators
@pytest.mark.parametrize("expr", [
    lambda T: -7 // T.tensor(2),
    lambda T: 7 % T.tensor([-3]),
    lambda T: 7.5 % T.tensor([-3.0]),
    lambda T: -7.5 // T.tensor([2.0]),
    lambda T: 7.5 // T.tensor([2]),           # a float number makes the result float
    lambda T: True % T.tensor([3]),
    lambda T: 1000 // T.tensor([3], dtype=T.int8),  # the number takes the tensor's dtype (wrapped)
    lambda T: 1 << T.tensor([3]),
    lambda T: 16 >> T.tensor([3]),
    lambda T: 3 & T.tensor([1]),
    lambda T: 2 ** T.tensor([3]),
], ids=["rfloordiv", "rmod", "rmod_float", "rfloordiv_float", "float_on_int", "bool_mod", "int8", "rlshift",
        "rrshift", "rand", "rpow"])
def test_number_on_the_left(torch_oracle: Any, expr: Any) -> None:
    check_both(expr, torch_oracle)


def test_reflected_operators_refuse_other_types(torch_oracle: Any) -> None:
    raises_both(lambda T: [1.0, 2.0] @ T.tensor([1.0, 2.0]), torch_oracle, match="unsupported operand")
    raises_both(lambda T: "a" // T.tensor([1.0]), torch_oracle, match="unsupported operand")


# ----------------------------------------------------------------------------- f02 integer division by zero
@pytest.mark.parametrize("expr", [
    lambda T: T.tensor([1, 2]) // T.tensor([0, 1]),
    lambda T: T.tensor([1, 2]) // 0,
    lambda T: T.tensor([1, 2]) % 0,
    lambda T: T.tensor([1, 2]) % T.tensor([0, 1]),
    lambda T: 1 // T.tensor([0]),
    lambda T: 1 % T.tensor([0]),
    lambda T: T.tensor([1, 2]).div(0, rounding_mode="floor"),
    lambda T: T.tensor([1, 2]).div(T.tensor([0, 1]), rounding_mode="trunc"),
    lambda T: T.floor_divide(T.tensor([1]), 0),
    lambda T: T.remainder(T.tensor([1]), 0),
    lambda T: T.fmod(T.tensor([1]), 0),
    lambda T: T.fmod(T.tensor([1]), T.tensor([0])),
    lambda T: T.tensor([1], dtype=T.uint8) // 0,
], ids=["floordiv_t", "floordiv_s", "mod_s", "mod_t", "rfloordiv", "rmod", "div_floor", "div_trunc",
        "floor_divide", "remainder", "fmod_s", "fmod_t", "uint8"])
def test_integer_division_by_zero_raises(torch_oracle: Any, expr: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no NumPy RuntimeWarning on the way
        raises_both(expr, torch_oracle, match="ZeroDivisionError")


def test_division_by_zero_without_error(torch_oracle: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_both(lambda T: T.tensor([1.0, -1.0, 0.0]) // 0, torch_oracle)  # floats: inf and nan
        check_both(lambda T: T.tensor([1.0]) % 0, torch_oracle)
        check_both(lambda T: T.tensor([1]) // 0.0, torch_oracle)  # a float divisor makes it float division
        check_both(lambda T: T.tensor([], dtype=T.long) % 0, torch_oracle)  # nothing is divided
    raises_both(lambda T: T.tensor([True]) // T.tensor([True]), torch_oracle, match="not implemented for 'Bool'")
    raises_both(lambda T: T.tensor([True]) % T.tensor([True]), torch_oracle, match="not implemented for 'Bool'")


# ----------------------------------------------------------------------------- f03 wrap-around of Python ints
@pytest.mark.parametrize("expr", [
    lambda T: T.tensor([1, 2], dtype=T.int8) + 1000,
    lambda T: T.tensor([1], dtype=T.uint8) * 300,
    lambda T: T.tensor([1], dtype=T.uint8) - 300,
    lambda T: T.tensor([1], dtype=T.uint8) + (-1),
    lambda T: T.tensor([1]) + 2 ** 63,
    lambda T: T.tensor([1], dtype=T.int32) + 2 ** 40,
    lambda T: T.tensor([1], dtype=T.int8) < 1000,
    lambda T: T.tensor([1], dtype=T.int8) // 1000,
    lambda T: T.tensor([1], dtype=T.int8) % 1000,
    lambda T: T.tensor([1], dtype=T.int8) & 1000,
    lambda T: T.tensor([1], dtype=T.int8).add_(1000),
], ids=["int8_add", "uint8_mul", "uint8_sub", "uint8_neg", "int64", "int32", "lt", "floordiv", "mod", "and",
        "add_"])
def test_python_int_wraps_to_the_tensor_dtype(torch_oracle: Any, expr: Any) -> None:
    check_both(expr, torch_oracle)


def test_python_int_beyond_64_bits(torch_oracle: Any) -> None:
    raises_both(lambda T: T.tensor([1], dtype=T.int8) + 2 ** 70, torch_oracle, match="int too big to convert")


# ----------------------------------------------------------------------------- f04 integer powers
@pytest.mark.parametrize("expr", [
    lambda T: T.tensor([2]) ** -1,
    lambda T: T.pow(T.tensor([2]), -2),
    lambda T: T.tensor([2]).pow_(-1),
    lambda T: T.tensor([2], dtype=T.uint8) ** -1,
    lambda T: T.tensor([True]) ** -1,
], ids=["pow", "torch_pow", "pow_", "uint8", "bool"])
def test_integer_to_negative_number_power_raises(torch_oracle: Any, expr: Any) -> None:
    raises_both(expr, torch_oracle, match="Integers to negative integer powers are not allowed")


def test_integer_to_negative_tensor_power(torch_oracle: Any) -> None:
    """With the exponent a tensor, PyTorch computes: 0, or ±1 for a base of ±1."""
    check_both(lambda T: T.tensor([1, -1, 2, 0, -1, 3]) ** T.tensor([-1, -3, -2, -1, -2, 2]), torch_oracle)
    check_both(lambda T: T.tensor([1, -1, 2], dtype=T.int8) ** T.tensor(-1, dtype=T.int8), torch_oracle)
    check_both(lambda T: 2 ** T.tensor([-1, 2]), torch_oracle)
    check_both(lambda T: (-1) ** T.tensor([-1, -2, 3]), torch_oracle)
    check_both(lambda T: T.tensor([2]) ** -1.0, torch_oracle)


# ----------------------------------------------------------------------------- f07, f08 tensors as numbers
def test_tensor_of_tensors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.tensor([T.ones(2), T.ones(2)]), torch_oracle,
                match="only one element tensors can be converted to Python scalars")
    raises_both(lambda T: T.tensor([T.ones(0)]), torch_oracle, match="only one element tensors")
    check_both(lambda T: T.tensor([T.ones(1), T.tensor(2.0)]), torch_oracle)
    check_both(lambda T: T.tensor([[T.ones(1)], [T.tensor(2)]]), torch_oracle)
    check_both(lambda T: T.tensor([T.ones(1, 1), T.ones(1, 1)]), torch_oracle)


@pytest.mark.parametrize("convert", [int, float, complex], ids=["int", "float", "complex"])
@pytest.mark.parametrize("size", [0, 2])
def test_python_number_of_a_tensor(torch_oracle: Any, convert: Any, size: int) -> None:
    raises_both(lambda T: convert(T.ones(size)), torch_oracle,
                match="only one element tensors can be converted to Python scalars")


def test_bool_and_item_of_a_tensor(torch_oracle: Any) -> None:
    raises_both(lambda T: bool(T.ones(2)), torch_oracle, match="more than one value is ambiguous")
    raises_both(lambda T: bool(T.ones(0)), torch_oracle, match="with no values is ambiguous")
    raises_both(lambda T: T.ones(2).item(), torch_oracle, match="cannot be converted to Scalar")
    check_both(lambda T: (float(T.ones(1, 1)), int(T.tensor([3])), complex(T.tensor(2.0))), torch_oracle)


# ----------------------------------------------------------------------------- f09 NumPy's errors
@pytest.mark.parametrize("expr", [
    lambda T: T.where(T.tensor([True, False]), T.ones(3), 0.0),
    lambda T: T.where(T.tensor([True, False]), T.ones(3), T.ones(3)),
    lambda T: T.where(T.tensor([True, False, True]), T.ones(2), T.ones(3)),
    lambda T: T.ones(3).where(T.tensor([True, False]), 0.0),
], ids=["number", "tensors", "input", "method"])
def test_where_shapes(torch_oracle: Any, expr: Any) -> None:
    raises_both(expr, torch_oracle, match=r"The size of tensor a \(\d\) must match the size of tensor b")


@pytest.mark.parametrize("name", ["argmax", "argmin", "max", "min", "amax", "amin"])
def test_reduction_over_an_empty_dim(torch_oracle: Any, name: str) -> None:
    raises_both(lambda T: getattr(T.zeros(0, 3), name)(0), torch_oracle,
                match=name + r"\(\): Expected reduction dim 0 to have non-zero size")
    check_both(lambda T: getattr(T.zeros(0, 3), name)(1), torch_oracle)


def test_reduction_of_an_empty_tensor(torch_oracle: Any) -> None:
    raises_both(lambda T: T.zeros(0, 3).argmax(), torch_oracle, match="Expected reduction dim to be specified")
    raises_both(lambda T: T.zeros(2, 0).argmin(1, keepdim=True), torch_oracle, match="reduction dim 1")
    raises_both(lambda T: T.zeros(0, 3).aminmax(dim=0), torch_oracle, match="Expected reduction dim 0")
    raises_both(lambda T: T.zeros(0, 3).aminmax(), torch_oracle, match="cannot compute aminmax")


@pytest.mark.parametrize("expr", [
    lambda T: T.zeros(3).scatter_(0, T.tensor([5]), 1.0),
    lambda T: T.zeros(3).scatter_(0, T.tensor([-1]), 1.0),
    lambda T: T.zeros(3).scatter(0, T.tensor([5]), T.zeros(1)),
    lambda T: T.zeros(3).scatter_add(0, T.tensor([5]), T.zeros(1)),
    lambda T: T.zeros(3).gather(0, T.tensor([5])),
    lambda T: T.zeros(3).gather(0, T.tensor([-1])),
], ids=["scatter_", "scatter_negative", "scatter", "scatter_add", "gather", "gather_negative"])
def test_index_out_of_range(torch_oracle: Any, expr: Any) -> None:
    raises_both(expr, torch_oracle, match=r"index -?\d is out of bounds for dimension 0 with size 3")


# ----------------------------------------------------------------------------- f10 NumPy's RuntimeWarnings
@pytest.mark.parametrize("expr", [
    lambda T: T.tensor([-8.0]) ** (1 / 3),
    lambda T: T.tensor([-8.0]) ** T.tensor([1 / 3]),
    lambda T: (-8.0) ** T.tensor([1 / 3]),
    lambda T: T.zeros(0).mean(),
    lambda T: T.zeros(0, 3).mean(0),
    lambda T: T.tensor([70000.0]).half(),
    lambda T: T.tensor([1.0, -1.0, 0.0]).div(0),
], ids=["pow", "pow_tensor", "rpow", "mean_empty", "mean_empty_dim", "half_overflow", "div_zero"])
def test_no_numpy_warning_even_as_errors(torch_oracle: Any, expr: Any) -> None:
    """These are silenced where they arise, so that even ``simplefilter('error')`` (which
    overrides learntorch's module filters) sees nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_both(expr, torch_oracle)


def test_nan_to_integer_cast_is_silent() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lt.tensor([float("nan"), 1e10]).long()  # (the value is undefined in C, so not compared)
        lt.tensor([1e10]).int()


def test_no_numpy_warning_under_dash_w_error() -> None:
    """``inf * 0`` on the hot path of ``*`` is silenced by learntorch's module filter (an
    ``errstate`` per multiply would cost microseconds), which wins over ``python -W error``:
    that filter is installed before learntorch's, so learntorch's come first.  (Run in a
    fresh interpreter: pytest imported learntorch inside its own ``catch_warnings``.)"""
    program = ("import learntorch as T\n"
               "print((T.tensor([1.0, -1.0]) / 0) * 0, T.tensor([3e38]) * 10 - T.tensor([3e38]) * 10)")
    done = subprocess.run([sys.executable, "-W", "error", "-c", program], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["tensor([nan,", "nan])", "tensor([nan])"]


# ----------------------------------------------------------------------------- f11 PyTorch's UserWarnings
@pytest.mark.parametrize("expr,name", [
    (lambda T: T.ones(1, 3).std(0), "std"),
    (lambda T: T.ones(1).var(), "var"),
    (lambda T: T.ones(2).var(correction=2), "var"),
    (lambda T: T.ones(0).var(correction=0), "var"),
    (lambda T: T.ones(0).std(), "std"),
], ids=["std_dim", "var", "correction", "empty", "std_empty"])
def test_no_degrees_of_freedom_warns(torch_oracle: Any, expr: Any, name: str) -> None:
    for T in (torch_oracle, lt):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            expr(T)
        messages = [str(w.message) for w in caught]
        assert [w.category for w in caught] == [UserWarning], (T.__name__, messages)
        assert messages[0].startswith(f"{name}(): degrees of freedom is <= 0"), (T.__name__, messages)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_both(expr, torch_oracle)


def test_T_of_not_a_matrix_warns_once(torch_oracle: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(_tensor_methods, "_T_WARNED", set())  # (PyTorch warns once per process)
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        lt.ones(2, 3, 4).T
    with pytest.warns(UserWarning, match="Tensor.T is deprecated on 0-D tensors"):
        lt.tensor(1.0).T
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lt.ones(3).T, lt.ones(2, 3).T  # once only; never for a matrix
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_both(lambda T: T.ones(2, 3, 4).T, torch_oracle)
    raises_both(lambda T: T.ones(3).mT, torch_oracle, match="only supported on matrices or batches of matrices")


def test_meshgrid_without_indexing_warns_once(torch_oracle: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(arrange, "_MESHGRID_WARNED", [])
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        lt.meshgrid(lt.arange(2), lt.arange(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lt.meshgrid(lt.arange(2))
        check_both(lambda T: T.meshgrid(T.arange(2), T.arange(3), indexing="ij"), torch_oracle)
        check_both(lambda T: T.meshgrid(T.arange(2), T.arange(3), indexing="xy"), torch_oracle)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_both(lambda T: T.meshgrid(T.arange(2), T.arange(3)), torch_oracle)


@pytest.mark.parametrize("make", [
    lambda T: T.tensor([np.ones(2), np.zeros(2)]), lambda T: T.as_tensor((np.ones(2), np.zeros(2))),
    lambda T: T.tensor([[np.ones(2)]], dtype=T.float32),
], ids=["tensor", "as_tensor-tuple", "nested"])
def test_a_list_of_numpy_arrays_warns_once_at_the_callers_line(torch_oracle: Any, monkeypatch: Any, make: Any) -> None:
    """A Dataset that builds a batch from a list of images gets PyTorch's hint to np.stack them first
    (once per process); a list of 0-d arrays (NumPy scalars) does not."""
    monkeypatch.setattr(warn_always, "_given", set())
    with pytest.warns(UserWarning, match="Creating a tensor from a list of numpy.ndarrays is extremely slow") as rec:
        make(lt)
    assert rec[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make(lt), lt.tensor([np.array(1.0), np.array(2.0)])
        monkeypatch.setattr(warn_always, "_given", set())
        lt.tensor([np.array(1.0), np.array(2.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_both(make, torch_oracle)


# ----------------------------------------------------------------------------- f12 losses of integers
@pytest.mark.parametrize("expr,match", [
    (lambda T: T.nn.MSELoss()(T.tensor([1, 2]), T.tensor([1, 3])), "\"mse_cpu\" not implemented for 'Long'"),
    (lambda T: T.nn.functional.mse_loss(T.tensor([1]), T.tensor([True]), reduction="none"), "mse_cpu"),
    (lambda T: T.nn.functional.mse_loss(T.tensor([1], dtype=T.int32), T.tensor([1], dtype=T.int32)), "'Int'"),
    (lambda T: T.nn.functional.l1_loss(T.tensor([1, 2]), T.tensor([1, 3])), "could not infer output dtype"),
    (lambda T: T.nn.functional.smooth_l1_loss(T.tensor([1]), T.tensor([2])), "smooth_l1_cpu"),
    (lambda T: T.nn.functional.huber_loss(T.tensor([1]), T.tensor([2])), "huber_cpu"),
    (lambda T: T.nn.functional.nll_loss(T.tensor([[1, 2]]), T.tensor([0])), "nll_loss_out_frame"),
    (lambda T: T.nn.functional.nll_loss(T.zeros(1, 2, 2, 2, dtype=T.long), T.zeros(1, 2, 2, dtype=T.long)),
     "nll_loss2d_forward_out_frame"),
    (lambda T: T.nn.functional.nll_loss(T.tensor([[1, 2]]), T.tensor([0], dtype=T.int32)),
     "expected target dtype to be Long or Byte"),
    (lambda T: T.nn.functional.cross_entropy(T.tensor([[1, 2]]), T.tensor([0])), "not implemented for 'Long'"),
    (lambda T: T.nn.functional.binary_cross_entropy(T.tensor([1, 0]), T.tensor([1, 0])),
     "\"binary_cross_entropy\" not implemented"),
    (lambda T: T.nn.functional.binary_cross_entropy_with_logits(T.tensor([1, 0]), T.tensor([1., 0])),
     "log_sigmoid_cpu"),
    (lambda T: T.nn.functional.kl_div(T.tensor([1.0, 0.0]), T.tensor([1, 0]), reduction="sum"),
     "kl_div: Integral inputs not supported"),
], ids=["mse", "mse_bool", "mse_int32", "l1", "smooth_l1", "huber", "nll", "nll2d", "nll_target", "cross_entropy",
        "bce", "bce_logits", "kl_div"])
def test_losses_of_integers_raise(torch_oracle: Any, expr: Any, match: str) -> None:
    raises_both(expr, torch_oracle, match=match)


def test_losses_with_one_float_operand(torch_oracle: Any) -> None:
    check_both(lambda T: T.nn.functional.mse_loss(T.tensor([1, 2]), T.tensor([1.0, 3.0])), torch_oracle)
    check_both(lambda T: T.nn.functional.mse_loss(T.tensor([1.0, 2.0]), T.tensor([1, 3])), torch_oracle)
    check_both(lambda T: T.nn.functional.l1_loss(T.tensor([1, 2]), T.tensor([1, 3]), reduction="none"),
               torch_oracle)
    check_both(lambda T: T.nn.functional.smooth_l1_loss(T.tensor([1]), T.tensor([1.5])), torch_oracle)


# ----------------------------------------------------------------------------- f16, f17 indexing
@pytest.mark.parametrize("key,value_shape", [
    ((lambda T: (T.tensor([0, 2]), T.tensor([1, 3]))), (3,)),
    ((lambda T: T.tensor([0, 2])), (3, 4)),
    ((lambda T: T.tensor([True, False, True])), (3, 4)),
    ((lambda T: [0, 1]), (3,)),
], ids=["two_index_tensors", "index_tensor", "mask", "list"])
def test_advanced_assignment_shape_mismatch(torch_oracle: Any, key: Any, value_shape: tuple) -> None:
    def assign(T: Any) -> None:
        T.zeros(3, 4)[key(T)] = T.ones(*value_shape)
    raises_both(assign, torch_oracle, match=r"shape mismatch: value tensor of shape \[[\d, ]+\] cannot be "
                                            r"broadcast to indexing result of shape \[[\d, ]+\]")


def test_basic_assignment_shape_mismatch(torch_oracle: Any) -> None:
    def assign(T: Any) -> None:
        T.zeros(3, 4)[0:2] = T.ones(3, 4)
    raises_both(assign, torch_oracle, match="The expanded size of the tensor")


@pytest.mark.parametrize("key", [
    [1.0, 2.0], [1.5, 2.0], [1, 2.0], [True, 1.0], [-1.0],
], ids=["floats", "fraction", "mixed", "bool_and_float", "negative"])
def test_list_of_floats_as_index(torch_oracle: Any, key: list) -> None:
    check_both(lambda T: T.arange(3)[key], torch_oracle)

    def assign(T: Any) -> Any:
        x = T.arange(3)
        x[key] = 7
        return x
    check_both(assign, torch_oracle)


def test_floats_as_index_elsewhere(torch_oracle: Any) -> None:
    check_both(lambda T: T.arange(6).reshape(2, 3)[[1.0, 0.0], 1], torch_oracle)
    raises_both(lambda T: T.arange(3)[1.0], torch_oracle, match="only integers, slices")
    raises_both(lambda T: T.arange(3)[T.tensor([1.0])], torch_oracle, match="tensors used as indices must be long")


_SCALAR_WARNINGS = """
import warnings
import {lib} as torch
warnings.simplefilter("always")
x = torch.ones(2, requires_grad=True)
loss = (x * 2).sum()
with warnings.catch_warnings(record=True) as caught:
    float(loss); float(loss); complex(loss); int(loss); loss.item(); f"{{loss:.2f}}"; float(loss.detach())
    with torch.no_grad():
        float(loss)
first = [(w.category.__name__, str(w.message).splitlines()[0], w.lineno) for w in caught]
torch.set_warn_always(True)
with warnings.catch_warnings(record=True) as caught:
    float(loss); float(loss)
print(first, len(caught))
"""


@pytest.mark.parametrize("lib", ["torch", "learntorch"])
def test_float_of_a_tensor_in_the_graph_warns_once_as_in_pytorch(torch_oracle: Any, lib: str) -> None:
    """``float(loss)`` takes a number out of the graph: PyTorch 2.13 warns, once per process (every
    time with ``set_warn_always(True)``), not under ``no_grad`` and not for ``int``, ``item`` or a
    format; the warning names the caller's line.  Run in a fresh process: "once" is per process."""
    out = subprocess.run([sys.executable, "-c", _SCALAR_WARNINGS.format(lib=lib)], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == ("[('UserWarning', 'Converting a tensor with requires_grad=True to a scalar may lead to "
                           "unexpected behavior.', 8)] 2")
