"""``learntorch.testing.assert_close``: compare tensors with PyTorch's default tolerances."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .arrays import to_numpy
from .tensor import Tensor

__all__ = ["assert_close", "check_close", "check"]

# PyTorch's defaults by dtype: (rtol, atol)
_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def _host(x: Any) -> np.ndarray:
    if isinstance(x, Tensor):
        return to_numpy(x.detach()._data)
    return np.asarray(x)


def assert_close(actual: Any, expected: Any, *, rtol: Optional[float] = None, atol: Optional[float] = None,
                 equal_nan: bool = False, check_dtype: bool = True, msg: Optional[str] = None) -> None:
    """Raise AssertionError with the largest differences when ``actual`` and ``expected`` differ."""
    a, e = _host(actual), _host(expected)
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    if check_dtype and isinstance(actual, Tensor) and isinstance(expected, Tensor) and actual.dtype is not expected.dtype:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {actual.dtype} != "
                                    f"{expected.dtype}.")
    default = _TOLERANCES.get(a.dtype.name, (0.0, 0.0))
    rtol = default[0] if rtol is None else rtol
    atol = default[1] if atol is None else atol
    close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if not close.all():
        bad = int((~close).sum())
        diff = np.abs(a.astype(np.float64) - e.astype(np.float64))
        raise AssertionError(msg or f"Tensor-likes are not close!\n\nMismatched elements: {bad} / {a.size}\n"
                                    f"Greatest absolute difference: {np.nanmax(diff)}\n(rtol={rtol}, atol={atol})")


def check_close(actual: Any, expected: Any, *, what: str, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """A visible check for exercises: prints ``✓ what`` when ``actual`` matches
    ``expected``, otherwise fails saying what was expected and what came back."""
    a, e = _host(actual), _host(expected)
    if a.shape != e.shape:
        raise AssertionError(f"✗ {what}: expected shape {tuple(e.shape)}, got shape {tuple(a.shape)}")
    if not np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True):
        raise AssertionError(f"✗ {what}:\nexpected\n{np.array2string(e, precision=4)}\ngot\n"
                             f"{np.array2string(a, precision=4)}")
    print(f"✓ {what}")


def check(condition: bool, what: str, hint: str = "") -> None:
    """A visible check of a yes/no fact, with a hint for the learner when it fails."""
    if not condition:
        raise AssertionError(f"✗ {what}" + (f"\nhint: {hint}" if hint else ""))
    print(f"✓ {what}")
