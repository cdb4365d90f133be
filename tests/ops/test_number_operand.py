"""A Python float meeting a float32/float64 array is kept as a 0-d array of that dtype
(``ops/common.py``, ``number_operand``): only a speed-up, so every result must be the one the
Python float itself gives, bit for bit, for the numbers that are kept and those that are not."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
from learntorch.ops import common

NUMBERS = [1.01, 0.5, -3.0, 1e-45, 1e-30, 3.4e38, 1e39, -1e39, 0.0, -0.0, float("nan"), float("inf"), 7]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("number", NUMBERS)
def test_same_bits_as_the_python_number(dtype, number) -> None:
    a = np.array([[1.5, -0.0, 3.0e38], [np.inf, -2.0, 1e-40]], dtype=dtype)
    x = lt.from_numpy(a.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (overflow in the multiply itself: as NumPy's, not the subject here)
        got = {"mul": (x * number).numpy(), "add": (x + number).numpy(), "sub": (x - number).numpy(),
               "rmul": (number * x).numpy()}
    with np.errstate(all="ignore"):
        want = {"mul": a * number, "add": a + number, "sub": a - number, "rmul": number * a}
    for op in got:
        assert got[op].dtype == dtype, op
        assert got[op].tobytes() == want[op].astype(dtype).tobytes(), (op, number)


def test_what_is_kept() -> None:
    x = lt.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # keeping a number never warns (1e39 overflows float32: not kept)
        for b in (0.0, -0.0, float("nan"), float("inf"), 1e39):
            assert type(common.number_operand(x, b)) is float  # zero's sign, nan, inf, overflow: not kept
    kept = common.number_operand(x, 1.25)
    assert isinstance(kept, np.ndarray) and kept.shape == () and kept.dtype == np.float32
    assert not kept.flags.writeable and common.number_operand(x, 1.25) is kept
    assert type(common.number_operand(lt.ones(3, dtype=lt.float16), 1.25)) is float  # float32/64 only
    assert type(common.number_operand(lt.ones(3, dtype=lt.int64), 1.25)) is float


def test_the_table_stays_small() -> None:
    x = lt.ones(2, dtype=lt.float64)
    for i in range(1000):
        x * (i + 0.5)
    assert len(common._NUMBER_ARRAYS[lt.float64]) <= 256
    assert (x * 999.5).tolist() == [999.5, 999.5]  # past the bound: the plain number, the same result


def test_backward_scaling_uses_the_same_numbers() -> None:
    x = lt.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (x * 1.01).sum().backward()
    assert x.grad.numpy().tobytes() == (np.ones(3, np.float32) * 1.01).astype(np.float32).tobytes()
