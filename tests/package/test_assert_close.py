"""``learntorch.testing.assert_close`` against ``torch.testing.assert_close`` (learntorch/testing.py).

A test, a grader or a learner's notebook written against PyTorch calls ``assert_close``: with
``import learntorch as torch`` it must pass and fail on the same inputs, with the same exception
type and the same message.  The differential cases run one expression with each library and
compare the outcomes (the exception's type and text; the only words that may differ are the
class names, ``learntorch.tensor.Tensor`` for ``torch.Tensor``).  The learntorch-only tests
below them pin the messages PyTorch documents, so they hold where PyTorch is not installed.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import learntorch as lt
from learntorch import testing as lt_testing

try:
    import torch
    import torch.testing  # noqa: F401 - its assert_close is the oracle
except ImportError:  # pragma: no cover - the differential tests say why they skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")

# One comparison a line, evaluated with ``torch`` bound to each library and ``ac`` to its
# assert_close.  A line ending in "# type only" compares the exception type and not its text.
CASES = r"""
ac(1.0, 1.0 + 1e-9)
ac(1.0, 1.1)
ac(1, 2)
ac(1, 1.0)
ac(1, 1.0, check_dtype=False)
ac(1, 1.5, check_dtype=False)
ac(1 + 1j, 1 + 2j)
ac(1.0, 1 + 0j)
ac(1.0, 1 + 0j, check_dtype=False)
ac(np.float32(1.1), 1.0)
ac(np.float32(1.0), 1.0)
ac(np.float64(1.0), 1.2)
ac(np.int64(3), 3)
ac(True, True)
ac(True, False)
ac(np.bool_(True), False)
ac(True, 1)  # type only
ac(nan, nan)
ac(nan, nan, equal_nan=True)
ac(nan, 1.0)
ac(inf, inf)
ac(inf, -inf)
ac(-0.0, 0.0)
ac(1e-3, 0.0)
ac(1e-9, 1e-10, rtol=0, atol=0)
ac(1.0, 1.05, rtol=0.1, atol=0.0)
ac(None, None)
ac(None, 0)
ac(0, None)
ac(torch.ones(2), torch.ones(2), rtol=1e-3)
ac(torch.ones(2), torch.ones(2), atol=1e-3)
ac(1.0, 1.0, atol=1e-3)
ac(True, True, rtol=1e-3)
ac(torch.tensor(1.0), 1.0)
ac(1.0, torch.tensor(1.0))
ac(torch.ones(1), np.ones(1))
ac([1.0], torch.ones(1))
ac(np.ones(1), [1.0])
ac("a", "a")
ac(torch.tensor(2.0, requires_grad=True), 2.0)
ac(torch.nn.Parameter(torch.ones(2)), torch.ones(2))
ac(torch.nn.Parameter(torch.ones(2)), torch.ones(2), allow_subclasses=False)
ac(np.float64(1.0), np.array(1.0))
ac(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
ac(np.array([1.0], dtype=np.float32), np.array([1.0]))
ac(np.array([1.0], dtype=np.float32), np.array([1.5]), check_dtype=False)
ac(np.array(1.0), np.array(2.0))
ac(np.array([1, 2]), np.array([1, 3]))
ac(np.ones((2, 2)).T, np.ones((2, 2)), check_stride=True)
ac(np.arange(3.0)[::-1], np.arange(3.0)[::-1])
ac([1.0, 2.0], [1.0])
ac((1.0, 2.0), [1.0, 2.0])
ac([1.0, [2.0, 3.0]], [1.0, [2.0, 3.5]])
ac([torch.ones(1), [1.0, 2.0]], [torch.zeros(1), [1.0]])
ac([torch.ones(1), "a"], [torch.zeros(1), "a"])
ac({"a": 1.0, "b": 2.0}, {"a": 1.0, "c": 2.0})
ac({"a": 1.0}, {"b": 1.0, "a": 1.0})
ac({"w": torch.tensor([1.0, 2.0])}, {"w": torch.tensor([1.0, 3.0])})
ac({"w": torch.ones(2), "b": [torch.ones(1), 2.0]}, {"w": torch.ones(2), "b": [torch.ones(1), 2.5]})
ac(range(3), [0, 1, 2])
ac(torch.ones(2, 3).shape, (2, 3))
ac(torch.ones(2, 3).shape, (2, 4))
ac(torch.ones(2), torch.ones(3))
ac(torch.tensor(1.0), torch.ones(1))
ac(torch.ones(2), torch.ones(2, dtype=torch.float64))
ac(torch.ones(2, dtype=torch.int64), torch.ones(2))
ac(torch.ones(2), torch.ones(3, dtype=torch.float64))
ac(torch.ones(2, 3).t(), torch.ones(3, 2), check_stride=True)
ac(torch.ones(2, 3).t(), torch.ones(3, 2))
ac(torch.ones(2, 3).t(), torch.ones(3, 2, dtype=torch.float64), check_stride=True)
ac(torch.ones(2, dtype=torch.int64), torch.tensor([1.0, 1.5]), check_dtype=False)
ac(torch.tensor([1.0], dtype=torch.float16), torch.tensor([1.0001]))
ac(torch.tensor([1.0], dtype=torch.float16), torch.tensor([1.0001]), check_dtype=False)
ac(torch.tensor([1.0], dtype=torch.float16), torch.tensor([1.01]), check_dtype=False)
ac(torch.tensor([True]), torch.tensor([2]), check_dtype=False)
ac(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.1, 3.0]))
ac(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0 + 1e-6, 3.0]))
ac(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), torch.tensor([1.0, 2.1, 3.0], dtype=torch.float64))
ac(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float16), torch.tensor([1.0, 2.1, 3.0], dtype=torch.float16))
ac(torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16), torch.tensor([1.0, 2.1, 3.0], dtype=torch.bfloat16))
ac(torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16), torch.tensor([1.0, 2.01, 3.0], dtype=torch.bfloat16))
ac(torch.tensor([1, 2, 3]), torch.tensor([1, 3, 5]))
ac(torch.tensor([1, 2, 3]), torch.tensor([1, 3, 5]), rtol=0.1, atol=1)
ac(torch.tensor([1, 2, -128], dtype=torch.int8), torch.tensor([1, 3, 127], dtype=torch.int8))
ac(torch.tensor([1, 0, 200], dtype=torch.uint8), torch.tensor([2, 255, 100], dtype=torch.uint8), rtol=0.0, atol=1.0)
ac(torch.tensor([True, False]), torch.tensor([True, True]))
ac(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 2.0], [3.0, 5.0]]))
ac(torch.tensor(1.0), torch.tensor(1.1))
ac(torch.tensor(1), torch.tensor(2))
ac(torch.tensor(True), torch.tensor(False))
ac(torch.tensor(1.0), torch.tensor(0.0))
ac(torch.tensor([1.0, 0.0]), torch.tensor([1.0, 1e-4]))
ac(torch.tensor([nan]), torch.tensor([nan]))
ac(torch.tensor([nan]), torch.tensor([nan]), equal_nan=True)
ac(torch.tensor([1.0, nan]), torch.tensor([1.0, 1.0]))
ac(torch.tensor([1.0, 1.0]), torch.tensor([1.0, nan]))
ac(torch.tensor([inf, -inf]), torch.tensor([inf, -inf]))
ac(torch.tensor([1.0, inf]), torch.tensor([1.0, -inf]))
ac(torch.tensor([inf, 1.0]), torch.tensor([1.0, 1.0]))
ac(torch.tensor([-0.0]), torch.tensor([0.0]))
ac(torch.tensor([1.0], requires_grad=True), torch.tensor([1.0]))
ac(torch.tensor([1.0], requires_grad=True) * 2, torch.tensor([1.0]))
ac(torch.tensor([]), torch.tensor([]))
ac(torch.arange(10.0), torch.arange(10.0) + torch.tensor([0, 0, 0, 1e-3, 0, 0, 2e-3, 0, 0, 0]))
ac(torch.tensor([100.0, 1.0]), torch.tensor([101.0, 1.5]))
ac(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]), rtol=1e-2, atol=1e-2)
ac(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]), rtol=0, atol=0)
ac(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 4.0, 5.0]), msg="Argh, the tensors are not close!")
ac(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 4.0, 5.0]), msg=lambda m: f"Header\n\n{m}\n\nFooter")
ac(torch.ones(1), torch.ones(2), msg=lambda m: "X" + m)
ac({"a": torch.ones(2)}, {"a": torch.zeros(2)}, msg=lambda m: "<" + m + ">")
ac({"a": torch.ones(2)}, {"a": torch.zeros(2)}, msg="boom")
ac([1.0, 2.0], [1.0], msg="boom")
ac(torch.ones(2), torch.ones(2), rtol=1e-3, msg="boom")
"""
CASE_LINES = [line for line in CASES.strip().splitlines() if line]

# The only words the two libraries may print differently: the classes' names.
CLASS_NAMES = {"learntorch.tensor.Tensor": "torch.Tensor", "learntorch.nn.parameter.Parameter":
               "torch.nn.parameter.Parameter"}


def _outcome(lib, expr: str) -> tuple:
    """("passed", "") or the exception's (type name, message), class names written as PyTorch's."""
    env = {"torch": lib, "ac": lib.testing.assert_close, "np": np, "nan": float("nan"), "inf": float("inf")}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(expr, env)  # noqa: S307 - the test's own expressions
    except Exception as error:  # noqa: BLE001 - the outcome is what is compared
        message = str(error)
        for ours, theirs in CLASS_NAMES.items():
            message = message.replace(ours, theirs)
        return type(error).__name__, message
    return "passed", ""


@needs_torch
@pytest.mark.parametrize("expr", CASE_LINES)
def test_the_outcome_is_pytorchs(expr: str) -> None:
    ours, theirs = _outcome(lt, expr), _outcome(torch, expr)
    if expr.endswith("# type only"):
        assert ours[0] == theirs[0]
    else:
        assert ours == theirs


@needs_torch
def test_random_tensors_pass_and_fail_as_in_pytorch() -> None:
    """Values near the tolerance in every dtype, the default tolerances and given ones, and
    mixed dtypes with check_dtype=False: the same verdicts and the same numbers in the messages."""
    rng = np.random.default_rng(0)
    names = ["float16", "bfloat16", "float32", "float64", "int64", "int8", "uint8", "bool"]
    for _ in range(300):
        name1 = rng.choice(names)
        name2 = rng.choice(names) if rng.random() < 0.3 else name1
        shape = tuple(int(s) for s in rng.integers(1, 4, size=rng.integers(0, 3)))
        x = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 3)
        scale = 10.0 ** rng.integers(-8, 0)
        y = x * (1 + scale * rng.standard_normal(shape)) + scale * 1e-2 * rng.standard_normal(shape)
        options = {"check_dtype": name1 == name2}
        if rng.random() < 0.3:
            options.update(rtol=float(rng.choice([0, 1e-3, 1e-2, 0.1])), atol=float(rng.choice([0, 1e-5, 1, 2])))

        def values(v: np.ndarray, name: str) -> list:
            if name == "bool":
                return (v > 0).tolist()
            if name in ("int64", "int8", "uint8"):
                return np.clip(np.round(v * 20), 0 if name == "uint8" else -128, 127).tolist()
            return v.tolist()

        expr = (f"ac(torch.tensor({values(x, name1)}, dtype=torch.{name1}), "
                f"torch.tensor({values(y, name2)}, dtype=torch.{name2}), **{options})")
        assert _outcome(lt, expr) == _outcome(torch, expr), expr


@needs_torch
def test_the_default_tolerances_are_pytorchs() -> None:
    from torch.testing._comparison import _DTYPE_PRECISIONS
    theirs = {str(dt).removeprefix("torch."): tol for dt, tol in _DTYPE_PRECISIONS.items()
              if dt.is_floating_point or dt.is_complex}
    assert lt_testing._TOLERANCES == theirs


@needs_torch
def test_the_signature_is_pytorchs() -> None:
    ours = inspect.signature(lt.testing.assert_close).parameters
    theirs = inspect.signature(torch.testing.assert_close).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == \
           [(p.name, p.kind, p.default) for p in theirs.values()]


# ---------------------------------------------------------------------- learntorch only
def _message(*args, **kwargs) -> str:
    with pytest.raises(AssertionError) as info:
        lt.testing.assert_close(*args, **kwargs)
    return str(info.value)


def test_close_values_pass() -> None:
    expected = lt.tensor([1e0, 1e-1, 1e-2])
    lt.testing.assert_close(lt.acos(lt.cos(expected)), expected)
    lt.testing.assert_close(2.0 / 2.0 ** 0.5, 2.0 ** 0.5)
    lt.testing.assert_close(np.arccos(np.cos(np.array([1e0, 1e-1]))), np.array([1e0, 1e-1]))
    lt.testing.assert_close((lt.tensor([1.0]), 2.0, np.array(3.0)), [lt.tensor([1.0]), 2.0, np.array(3.0)])
    lt.testing.assert_close({"b": 2.0, "a": lt.tensor(1.0)}, {"a": lt.tensor(1.0), "b": 2.0})
    lt.testing.assert_close(lt.nn.Parameter(lt.ones(3)), lt.ones(3))
    lt.testing.assert_close(1.0, 1, check_dtype=False)
    lt.testing.assert_close(lt.tensor([float("inf"), -0.0]), lt.tensor([float("inf"), 0.0]))


def test_a_tensor_that_requires_grad_is_compared_without_error() -> None:
    x = lt.ones(3, requires_grad=True)
    lt.testing.assert_close(x * 1.0, lt.ones(3))
    assert "Mismatched elements: 3 / 3 (100.0%)" in _message(x * 2.0, lt.ones(3))


def test_the_messages_are_pytorchs() -> None:
    assert _message(lt.tensor([1.0, 2.0, 3.0]), lt.tensor([1.0, 4.0, 5.0])) == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.5 at index (1,) (up to 1.3e-06 allowed)")
    # a float32 difference prints as the float32 it is
    assert "Greatest absolute difference: 0.09999990463256836 at index (1,)" in _message(
        lt.tensor([1.0, 2.0, 3.0]), lt.tensor([1.0, 2.1, 3.0]))
    assert _message(lt.tensor([1, 2, 3]), lt.tensor([1, 3, 5])) == (
        "Tensor-likes are not equal!\n\n"
        "Mismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 2 at index (2,)\n"
        "Greatest relative difference: 0.4000000059604645 at index (2,)")
    assert _message(lt.tensor(float("nan")), lt.tensor(float("nan"))) == (
        "Scalars are not close!\n\nExpected nan but got nan.\n"
        "Absolute difference: nan (up to 1e-05 allowed)\nRelative difference: nan (up to 1.3e-06 allowed)")
    assert _message(1e-9, 1e-10, rtol=0, atol=0) == (
        "Scalars are not equal!\n\nExpected 1e-10 but got 1e-09.\n"
        "Absolute difference: 9.000000000000001e-10\nRelative difference: 9.0")
    assert _message(lt.ones(2), lt.ones(3)) == (
        "The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3]).")
    assert _message(lt.ones(2), lt.ones(2, dtype=lt.float64)) == (
        "The values for attribute 'dtype' do not match: torch.float32 != torch.float64.")
    assert _message(lt.ones(2, 3).t(), lt.ones(3, 2), check_stride=True) == (
        "The values for attribute 'stride()' do not match: (1, 3) != (2, 1).")
    lt.testing.assert_close(lt.ones(2, 3).t(), lt.ones(3, 2))  # strides are only compared when asked


def test_the_failure_says_where_it_happened() -> None:
    message = _message({"layer": [lt.ones(2), lt.ones(2)]}, {"layer": [lt.ones(2), lt.zeros(2)]})
    assert message.endswith("\n\nThe failure occurred for item ['layer'][1]")
    assert _message([1.0, [2.0]], [1.0, [2.0, 3.0]]) == (
        "The length of the sequences mismatch: 1 != 2\n\nThe failure occurred for item [1]")
    assert _message({"a": 1, "b": 2}, {"a": 1, "c": 2}) == (
        "The keys of the mappings do not match:\n"
        "Missing keys in the actual mapping: ['c']\nAdditional keys in the actual mapping: ['b']")


def test_msg_replaces_or_rewrites_the_message() -> None:
    a, e = lt.tensor([1.0, 2.0]), lt.tensor([1.0, 3.0])
    assert _message(a, e, msg="Argh!") == "Argh!"
    rewritten = _message([a], [e], msg=lambda m: f"Header\n\n{m}\n\nFooter")
    assert rewritten.startswith("Header\n\nTensor-likes are not close!\n\n")
    assert rewritten.endswith("The failure occurred for item [0]\n\nFooter")
    # as in PyTorch, a structure that does not match is reported as it is
    assert _message([1.0], [1.0, 2.0], msg="Argh!").startswith("The length of the sequences mismatch")


def test_nan_matches_nan_only_with_equal_nan() -> None:
    nan = float("nan")
    lt.testing.assert_close(lt.tensor([1.0, nan]), lt.tensor([1.0, nan]), equal_nan=True)
    lt.testing.assert_close(nan, nan, equal_nan=True)
    assert "Mismatched elements: 1 / 2 (50.0%)" in _message(lt.tensor([1.0, nan]), lt.tensor([1.0, nan]))
    assert "Greatest absolute difference: inf at index (1,)" in _message(
        lt.tensor([1.0, float("inf")]), lt.tensor([1.0, -float("inf")]))


def test_wrong_arguments_and_unrelated_types() -> None:
    with pytest.raises(ValueError, match=r"^Both 'rtol' and 'atol' must be either specified or omitted, "
                                         r"but got no atol\.$"):
        lt.testing.assert_close(lt.ones(2), lt.ones(2), rtol=1e-3)
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        lt.testing.assert_close(lt.ones(1), 1.0)
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        lt.testing.assert_close(lt.ones(1), np.ones(1))
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        lt.testing.assert_close(lt.nn.Parameter(lt.ones(1)), lt.ones(1), allow_subclasses=False)
    with pytest.raises(AssertionError, match=r"^The \(d\)types do not match: <class 'int'> != <class 'float'>\.$"):
        lt.testing.assert_close(1, 1.0)
    with pytest.raises(RuntimeError):  # a bool is an int to Python, not to PyTorch
        lt.testing.assert_close(True, 1)


def test_check_dtype_false_compares_in_the_common_dtype() -> None:
    lt.testing.assert_close(lt.tensor([1, 2]), lt.tensor([1.0, 2.0]), check_dtype=False)
    # float16 with float32: compared in float32, with float16's (looser) tolerances
    lt.testing.assert_close(lt.tensor([1.0], dtype=lt.float16), lt.tensor([1.0001]), check_dtype=False)
    assert "(up to 0.001 allowed)" in _message(lt.tensor([1.0], dtype=lt.float16), lt.tensor([1.01]),
                                               check_dtype=False)


def test_devices_are_compared(any_cuda) -> None:
    on_cpu = lt.tensor([1.0, 2.0])
    on_gpu = on_cpu.cuda()
    assert _message(on_cpu, on_gpu) == "The values for attribute 'device' do not match: cpu != cuda:0."
    lt.testing.assert_close(on_cpu, on_gpu, check_device=False)
    assert "Mismatched elements: 2 / 2 (100.0%)" in _message(on_gpu, on_gpu + 1)
