"""Tensor printing must match PyTorch's repr character for character.

Differential tests: each array is printed by ``learntorch.printing`` and, via
``torch.from_numpy``, by real PyTorch, and the two strings must be equal.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch",
    reason="PyTorch is the oracle for these differential printing tests "
           "(pip install -r requirements/oracle.txt); it is not installed here",
)

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from learntorch import printing  # noqa: E402

from conftest import max_examples  # noqa: E402

pytestmark = pytest.mark.torch


# --------------------------------------------------------------------------- helpers

@pytest.fixture(autouse=True)
def _reset_print_options() -> Iterator[None]:
    """Every test starts and ends with default options, in both libraries."""
    def reset() -> None:
        printing.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float32)
    reset()
    yield
    reset()


def set_both(**options: Any) -> None:
    printing.set_printoptions(**options)
    torch.set_printoptions(**options)


def ours(arr: np.ndarray, *, requires_grad: bool = False, grad_fn_name: str | None = None,
         device: str | None = None, default: type = np.float32) -> str:
    return printing.format_tensor(
        arr, dtype_name=arr.dtype.name, is_default_dtype=arr.dtype == np.dtype(default),
        device=device, requires_grad=requires_grad, grad_fn_name=grad_fn_name)


def theirs(arr: np.ndarray, op: Callable[[Any], Any] | None = None,
           requires_grad: bool = False) -> tuple[str, str | None, bool]:
    """Torch's repr of ``arr`` (optionally after ``op``), its grad_fn name and requires_grad."""
    t = torch.from_numpy(np.array(arr))  # a copy; a NumPy scalar becomes a 0-d array
    if requires_grad:
        t.requires_grad_()
    if op is not None:
        t = op(t)
    name = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    return repr(t), name, t.requires_grad


def check(arr: np.ndarray) -> None:
    expected, _, _ = theirs(arr)
    assert ours(arr) == expected


RNG_SEED = 20240611
SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (100,), (30, 40), (2000,), (4, 3, 2, 5)]
SCALES = [1.0, 1e-6, 1e3, 1e9]


def normal(shape: tuple[int, ...], scale: float = 1.0, dtype: Any = np.float32,
           seed: int = RNG_SEED) -> np.ndarray:
    return np.asarray(np.random.default_rng(seed).standard_normal(shape) * scale, dtype=dtype)


# --------------------------------------------------------------------------- values

@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_random_normal(shape: tuple[int, ...], scale: float) -> None:
    check(normal(shape, scale))


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
@pytest.mark.parametrize("shape", [(), (7,), (3, 4), (30, 40)], ids=str)
@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e4])
def test_other_float_dtypes(dtype: Any, shape: tuple[int, ...], scale: float) -> None:
    check(normal(shape, scale, dtype))


@pytest.mark.parametrize("arr", [
    np.array([1.0, 2.0, -3.0], np.float32),
    np.arange(12, dtype=np.float32).reshape(3, 4),
    np.array([0.0, -0.0, 5.0], np.float32),
    np.array([-0.0], np.float32),
    np.array([0.0, 0.0], np.float32),
    np.array([1e5, 2.0], np.float32),          # integral but sci (ratio > 1000)
    np.array([1e10, -3e10], np.float64),       # integral, > 1e8
    np.array([123456.0, 7.0], np.float32),
    np.arange(2000, dtype=np.float32),
    np.array(3.0, np.float32),
    np.array(-0.0, np.float32),
    np.array(1e20, np.float64),
    np.array([1e-300, 1e300], np.float64),     # three-digit exponents
    np.array([0.5, 1e-5], np.float32),
    np.array([9.99996, 1.0], np.float32),      # rounds up to a wider number
    np.array([999.99996, 1.0], np.float64),
    np.array([65504.0, -65504.0, 1.0], np.float16),
    np.array([6e-8, 1.0], np.float16),         # float16 subnormal
], ids=lambda a: f"{a.dtype}{list(np.atleast_1d(a)[:3])}")
def test_special_floats(arr: np.ndarray) -> None:
    check(arr)


@pytest.mark.parametrize("arr", [
    np.array([np.nan, 1.0], np.float32),
    np.array([np.inf, -np.inf, np.nan], np.float32),
    np.array([np.inf, 1.5, -2.25], np.float32),
    np.array([np.nan, 1e-7, 3.0], np.float32),
    np.array([[np.nan, 0.0], [-np.inf, 2.0]], np.float64),
    np.array([np.inf, 0.0, 12345.0], np.float16),
    np.array(np.nan, np.float32),
    np.array(-np.inf, np.float32),
    np.array([-np.inf, 1e12], np.float32),
], ids=lambda a: f"{a.dtype}{list(np.atleast_1d(a)[:3])}")
def test_nan_and_inf(arr: np.ndarray) -> None:
    check(arr)


def test_nan_inf_mixed_into_large_random() -> None:
    arr = normal((40, 50))
    arr[0, 1], arr[-1, -1], arr[0, -2] = np.nan, np.inf, -np.inf
    check(arr)
    small = normal((6,), 1e-6)
    small[2] = np.nan
    check(small)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.int8, np.uint8])
@pytest.mark.parametrize("shape", [(), (6,), (3, 4), (2000,), (40, 30)], ids=str)
def test_integers(dtype: Any, shape: tuple[int, ...]) -> None:
    info = np.iinfo(dtype)
    arr = np.asarray(np.random.default_rng(RNG_SEED).integers(
        info.min, info.max, size=shape, dtype=dtype, endpoint=True))
    check(arr)
    check(arr // 7)


@pytest.mark.parametrize("arr", [
    np.array([-5, 3, 120], np.int64),
    np.array(7, np.int64),
    np.array(-7, np.int32),
    np.array([np.iinfo(np.int64).min, 0], np.int64),
    np.arange(-10, 10, dtype=np.int64).reshape(4, 5),
], ids=lambda a: f"{a.dtype}{a.shape}")
def test_integer_examples(arr: np.ndarray) -> None:
    check(arr)


@pytest.mark.parametrize("shape", [(), (2,), (3, 4), (1200,), (50, 50)], ids=str)
def test_bool(shape: tuple[int, ...]) -> None:
    check(np.asarray(np.random.default_rng(RNG_SEED).random(shape) > 0.5))
    check(np.ones(shape, dtype=bool))
    check(np.zeros(shape, dtype=bool))


def test_bool_example() -> None:
    assert ours(np.array([True, False])) == "tensor([ True, False])"


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.int32,
                                   np.uint8, np.bool_])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (2, 0, 4)], ids=str)
def test_empty(dtype: Any, shape: tuple[int, ...]) -> None:
    check(np.zeros(shape, dtype=dtype))


def test_str_is_repr_in_torch() -> None:
    """Why one function serves repr, str and print."""
    for arr in (normal((3, 4)), np.arange(5), normal((30, 40)), np.zeros((0, 2))):
        t = torch.from_numpy(arr.copy())
        assert str(t) == repr(t) == ours(arr)


def test_examples_from_the_docs() -> None:
    assert ours(np.array(3.0, np.float32)) == "tensor(3.)"
    assert ours(np.zeros((0,), np.float32)) == "tensor([])"
    assert ours(np.zeros((0, 3), np.float32)) == "tensor([], size=(0, 3))"
    assert ours(np.zeros((0,), np.int64)) == "tensor([], dtype=torch.int64)"


# --------------------------------------------------------------------------- suffixes

OPS: dict[str, Callable[[Any], Any]] = {
    "mul": lambda t: t * 1,
    "exp": lambda t: t.exp(),
    "sum": lambda t: t.sum(),
    "reshape": lambda t: t.reshape(-1),
    "t": lambda t: t.t() if t.dim() == 2 else t * 2,
    "softmax": lambda t: t.softmax(-1) if t.dim() else t * 3,
}


@pytest.mark.parametrize("op", list(OPS), ids=str)
@pytest.mark.parametrize("shape", [(), (1,), (5,), (8,), (3, 4), (2, 3, 4), (30, 40)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grad_fn(op: str, shape: tuple[int, ...], dtype: Any) -> None:
    arr = normal(shape, dtype=dtype)
    expected, name, _ = theirs(arr, OPS[op], requires_grad=True)
    assert name is not None
    result = torch.from_numpy(arr.copy()).requires_grad_()
    host = OPS[op](result).detach().numpy()
    assert ours(host, grad_fn_name=name) == expected


@pytest.mark.parametrize("shape", [(), (3,), (8,), (9,), (3, 4), (30, 40)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_requires_grad_leaf(shape: tuple[int, ...], dtype: Any) -> None:
    arr = normal(shape, dtype=dtype)
    expected, name, requires_grad = theirs(arr, requires_grad=True)
    assert name is None and requires_grad
    assert ours(arr, requires_grad=True) == expected


@pytest.mark.parametrize("width", range(4, 16))
def test_suffix_wrapping_at_every_length(width: int) -> None:
    """Rows of growing length push the suffixes across the line-width limit."""
    for dtype in (np.float32, np.float64):
        arr = np.full((width,), 1.5, dtype)
        expected, name, _ = theirs(arr, lambda t: t * 1, requires_grad=True)
        assert ours(arr, grad_fn_name=name) == expected
        expected, _, _ = theirs(arr, requires_grad=True)
        assert ours(arr, requires_grad=True) == expected
        expected, _, _ = theirs(np.zeros((0, width), dtype), requires_grad=True)
        assert ours(np.zeros((0, width), dtype), requires_grad=True) == expected


def test_empty_with_requires_grad() -> None:
    for shape in [(0,), (2, 0)]:
        for dtype in (np.float32, np.float64):
            arr = np.zeros(shape, dtype)
            expected, _, _ = theirs(arr, requires_grad=True)
            assert ours(arr, requires_grad=True) == expected


def test_device_suffix() -> None:
    """CPU-only torch can't print a CUDA tensor; these follow its rules by hand."""
    assert ours(np.array([1.0, 2.0], np.float32), device="cuda:0") \
        == "tensor([1., 2.], device='cuda:0')"
    assert ours(np.array([1.0, 2.0]), device="cuda:0", requires_grad=True) == \
        "tensor([1., 2.], device='cuda:0', dtype=torch.float64, requires_grad=True)"
    assert ours(np.zeros((0, 3), np.int64), device="cuda:1") == \
        "tensor([], device='cuda:1', size=(0, 3), dtype=torch.int64)"
    long = ours(np.full((9,), 1.5, np.float64), device="cuda:0", grad_fn_name="MulBackward0")
    assert long == ("tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, "
                    "1.5000, 1.5000],\n       device='cuda:0', dtype=torch.float64, "
                    "grad_fn=<MulBackward0>)")


def test_default_dtype_float64() -> None:
    torch.set_default_dtype(torch.float64)
    for arr in [normal((3,)), normal((3,), dtype=np.float64), np.zeros((0,), np.float64),
                np.zeros((0,), np.float32), np.arange(3)]:
        expected, _, _ = theirs(arr)
        assert ours(arr, default=np.float64) == expected


def test_parameter() -> None:
    arr = normal((3, 4))
    expected = repr(torch.nn.Parameter(torch.from_numpy(arr.copy())))
    got = printing.format_parameter(arr, dtype_name="float32", is_default_dtype=True,
                                    device=None)
    assert got == expected
    arr64 = normal((2,), dtype=np.float64)
    expected = repr(torch.nn.Parameter(torch.from_numpy(arr64.copy()), requires_grad=False))
    got = printing.format_parameter(arr64, dtype_name="float64", is_default_dtype=False,
                                    device=None, requires_grad=False)
    assert got == expected


def test_custom_prefix_indents_continuation_lines() -> None:
    got = printing.format_tensor(np.arange(6, dtype=np.float32).reshape(2, 3),
                                 dtype_name="float32", is_default_dtype=True, device=None,
                                 requires_grad=False, grad_fn_name=None, prefix="Buffer(")
    assert got == "Buffer([[0., 1., 2.],\n        [3., 4., 5.]])"


# --------------------------------------------------------------------------- options

ARRAYS_FOR_OPTIONS = [
    normal((5,)), normal((3, 4), 1e3), normal((2, 3, 4), 1e-6), normal((30, 40)),
    normal((2000,)), normal((12,), dtype=np.float64), np.arange(2000, dtype=np.float32),
    np.array([np.nan, 0.0, -np.inf, 2.5], np.float32), np.zeros(4, np.float32),
    np.arange(-50, 50, dtype=np.int64).reshape(10, 10), np.array(2.5, np.float32),
    np.random.default_rng(1).random((60,)) > 0.5, np.zeros((0, 2), np.float32),
    normal((7, 8, 9)),
]
OPTIONS = [
    {"precision": 2}, {"precision": 0}, {"precision": 8}, {"sci_mode": True},
    {"sci_mode": False}, {"linewidth": 40}, {"linewidth": 10}, {"profile": "full"},
    {"profile": "short"}, {"threshold": 5}, {"threshold": 0}, {"edgeitems": 1},
    {"edgeitems": 0}, {"threshold": 10, "edgeitems": 0}, {"profile": "short", "precision": 6},
    {"linewidth": 200, "precision": 3, "sci_mode": True},
]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_print_options(options: dict[str, Any]) -> None:
    set_both(**options)
    for arr in ARRAYS_FOR_OPTIONS:
        check(arr)
        if arr.dtype.kind == "f" and arr.size <= 100:  # suffix placement under these options
            expected, name, _ = theirs(arr, lambda t: t * 1, requires_grad=True)
            assert ours(arr, grad_fn_name=name) == expected


def test_get_and_set_printoptions_roundtrip() -> None:
    set_both(profile="full", precision=3, sci_mode=True)
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
    set_both(linewidth=50)  # sci_mode goes back to None, as in PyTorch
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
    assert printing.get_printoptions()["sci_mode"] is None
    set_both(profile="default")
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
    assert printing.get_printoptions() == {"precision": 4, "threshold": 1000,
                                           "edgeitems": 3, "linewidth": 80,
                                           "sci_mode": None}


def test_printoptions_context_manager() -> None:
    arr = np.array([1.12345], np.float32)
    with printing.printoptions(precision=2):
        assert ours(arr) == "tensor([1.12])"
    assert ours(arr) == "tensor([1.1235])"


def test_unknown_profile_is_an_error() -> None:
    with pytest.raises(ValueError, match="profile"):
        printing.set_printoptions(profile="ful")


def test_complex_is_rejected() -> None:
    with pytest.raises(TypeError):
        ours(np.array([1 + 2j]))


# --------------------------------------------------------------------------- hypothesis

FLOAT_DTYPES = st.sampled_from([np.float16, np.float32, np.float64])
SMALL_SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6)


@st.composite
def finite_float_arrays(draw: st.DrawFn) -> np.ndarray:
    dtype = draw(FLOAT_DTYPES)
    width = np.finfo(dtype).bits
    elements = st.floats(allow_nan=False, allow_infinity=False, width=width)
    # Mix arbitrary floats with "friendly" ones so int mode and fixed point also occur.
    if draw(st.booleans()):
        elements = st.one_of(st.integers(-10**4, 10**4).map(float),
                             st.floats(-100, 100, width=width))
    return draw(hnp.arrays(dtype, SMALL_SHAPES, elements=elements))


@settings(max_examples=max_examples(80), deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(finite_float_arrays(), st.sampled_from([None, {"precision": 2}, {"sci_mode": False},
                                               {"linewidth": 40}]))
def test_hypothesis_floats(arr: np.ndarray, options: dict[str, Any] | None) -> None:
    if options:
        set_both(**options)
    try:
        check(arr)
    finally:
        set_both(profile="default")


@settings(max_examples=max_examples(40), deadline=None, database=None)
@given(hnp.arrays(st.sampled_from([np.int64, np.int8, np.uint8, np.int32, np.bool_]),
                  SMALL_SHAPES))
def test_hypothesis_integers_and_bools(arr: np.ndarray) -> None:
    check(arr)
