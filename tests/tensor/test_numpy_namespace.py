"""The CPU backend's namespace: ``array_api_compat.numpy`` with a few functions in their
direct form (``learntorch/arrays.py``, ``_numpy_namespace``).

The direct forms exist for speed only, so they must give exactly what the functions
they replace give: the same values, dtypes, shapes, result types and errors, on the
inputs the operations pass them (every dtype a tensor can hold, 0-d arrays, empty
arrays, tuples of axes, keepdims)."""
from __future__ import annotations

import array_api_compat.numpy as compat
import ml_dtypes
import numpy as np
import pytest

from learntorch import arrays

xp = arrays._numpy_backend().xp
rng = np.random.default_rng(3)

ARRAYS = {
    "float32": rng.standard_normal((3, 4)).astype(np.float32),
    "float64 with nan": np.array([[1.0, np.nan], [-2.0, 3.0]]),
    "float16": rng.standard_normal((2, 5)).astype(np.float16),
    "bfloat16": rng.standard_normal((2, 3)).astype(ml_dtypes.bfloat16),
    "int32": np.arange(12, dtype=np.int32).reshape(3, 4),
    "uint8": np.arange(6, dtype=np.uint8).reshape(2, 3),
    "bool": np.array([[True, False, True], [False, False, True]]),
    "0-d": np.array(2.5, dtype=np.float32),
    "3-d": rng.standard_normal((2, 3, 4)).astype(np.float32),
}


def _same(a, b) -> None:
    assert type(a) is type(b)
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)  # bit for bit: the same ufunc runs underneath


@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("fn", ["sum", "max", "min"])
def test_reductions_match(name: str, fn: str) -> None:
    a = ARRAYS[name]
    axes = [None] + list(range(a.ndim)) + ([tuple(range(a.ndim))] if a.ndim > 1 else [])
    for axis in axes:
        for keepdims in (False, True):
            _same(getattr(xp, fn)(a, axis=axis, keepdims=keepdims), getattr(compat, fn)(a, axis=axis, keepdims=keepdims))


def test_sum_with_dtype_and_empty() -> None:
    a = ARRAYS["int32"]
    _same(xp.sum(a, axis=0, dtype=np.float64), compat.sum(a, axis=0, dtype=np.float64))
    empty = np.zeros((0, 3), np.float32)
    _same(xp.sum(empty, axis=0), compat.sum(empty, axis=0))
    for fn in ("max", "min"):
        with pytest.raises(ValueError) as direct:
            getattr(xp, fn)(empty, axis=0)
        with pytest.raises(ValueError) as wrapped:
            getattr(compat, fn)(empty, axis=0)
        assert str(direct.value) == str(wrapped.value)


@pytest.mark.parametrize("name", list(ARRAYS))
def test_shape_functions_match(name: str) -> None:
    a = ARRAYS[name]
    _same(xp.reshape(a, (-1,)), compat.reshape(a, (-1,)))
    _same(xp.reshape(a, a.shape + (1,)), compat.reshape(a, a.shape + (1,)))
    axes = tuple(reversed(range(a.ndim)))
    _same(xp.permute_dims(a, axes), compat.permute_dims(a, axes))
    assert np.shares_memory(xp.permute_dims(a, axes), a) or a.size <= 1  # still a view
    for dtype in (np.float64, np.int64, np.bool_):
        with np.errstate(invalid="ignore"):  # nan to int64: NumPy's warning is not what is tested here
            _same(xp.astype(a, dtype), compat.astype(a, dtype))
    assert xp.astype(a, a.dtype, copy=False) is a
    assert xp.astype(a, a.dtype) is not a  # copy=True by default, as the standard says


def test_reshape_views_and_copy_rules() -> None:
    a = ARRAYS["float32"]
    assert np.shares_memory(xp.reshape(a, (4, 3)), a)
    with pytest.raises(ValueError):  # copy=False where a copy is needed: the standard's error
        xp.reshape(a.T, (12,), copy=False)
    assert not np.shares_memory(xp.reshape(a, (12,), copy=True), a)
    _same(xp.reshape(np.float32(2.0), (1,)), compat.reshape(np.float32(2.0), (1,)))


@pytest.mark.parametrize("fill", [1, -0.0, 2.5, True, float("nan")])
@pytest.mark.parametrize("dtype", [None, np.float32, np.float64, np.int64, np.bool_, ml_dtypes.bfloat16])
def test_full_matches(fill, dtype) -> None:
    for shape in ((), (3,), (2, 0), (2, 3)):
        with np.errstate(invalid="ignore"):  # nan to int64: NumPy's warning is not what is tested here
            direct = xp.full(shape, fill, dtype=dtype, device="cpu")
            wrapped = compat.full(shape, fill, dtype=dtype, device="cpu")
        assert type(direct) is type(wrapped) and direct.dtype == wrapped.dtype and direct.shape == wrapped.shape
        assert direct.tobytes() == wrapped.tobytes()  # bit for bit: -0.0 and nan included
    with pytest.raises(ValueError) as direct:  # another device: the compat layer's own error
        xp.full((2,), 1.0, device="cuda")
    with pytest.raises(ValueError) as wrapped:
        compat.full((2,), 1.0, device="cuda")
    assert str(direct.value) == str(wrapped.value)


def test_everything_else_is_the_compat_namespace() -> None:
    replaced = {"sum", "max", "min", "reshape", "permute_dims", "astype", "full"}
    for name, value in vars(compat).items():
        if not name.startswith("__") and name not in replaced:
            assert getattr(xp, name) is value, name
