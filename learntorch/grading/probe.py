"""What the grader adds to the kernel: checks that record values instead of deciding.

This file is not imported by the grader's kernel: its source is sent in the
first line of every test cell, executed there in a fresh namespace bound to
the name ``__lt_probe``, and ``check`` and ``check_close`` are bound to
:func:`check` and :func:`check_close` below; an extra cell after the test
cell calls :func:`emit` with the run's nonce.

The records are *values*: for ``check_close(actual, expected, ...)`` the
array of ``actual``; for ``check(condition, ...)`` whether the condition was
true. The grader compares them, in its own process, with the records of the
instructor's solution run (see ``learntorch.grading.verdict``). The in-kernel
comparison below only keeps the learner's experience (a failing check stops
the cell with the message the learner knows); it decides nothing.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

MIME = "application/vnd.learntorch.probe+json"

_records: list[dict[str, Any]] = []


def _host(x: Any) -> np.ndarray:
    """``x`` as a NumPy array: tensors through ``.detach()`` and ``.numpy()``."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        x = x.detach()
        if hasattr(x, "cpu"):
            x = x.cpu()
        x = x.numpy()
    return np.asarray(x)


def _encode(a: np.ndarray) -> dict[str, Any]:
    """An array as JSON: dtype, shape and the raw bytes (NaN and inf survive)."""
    if a.dtype == object or a.dtype.kind not in "biufc":
        return {"dtype": "repr", "shape": list(a.shape), "data": repr(a.tolist())[:10_000]}
    a = np.ascontiguousarray(a)
    return {"dtype": a.dtype.str, "shape": list(a.shape),
            "data": base64.b64encode(a.tobytes()).decode("ascii")}


def check(condition: Any, what: str, hint: str = "") -> None:
    """Record whether ``condition`` held; fail like ``learntorch.testing.check``."""
    held = bool(condition)
    _records.append({"kind": "check", "what": str(what), "ok": held})
    if not held:
        raise AssertionError(f"✗ {what}" + (f"\nhint: {hint}" if hint else ""))
    print(f"✓ {what}")


def check_close(actual: Any, expected: Any, *, what: str, rtol: float = 1e-5,
                atol: float = 1e-6) -> None:
    """Record the value of ``actual``; fail like ``learntorch.testing.check_close``."""
    try:
        a = _host(actual)
    except Exception as error:  # not array-like: recorded as such, so it cannot match
        _records.append({"kind": "close", "what": str(what), "value": None})
        raise AssertionError(f"✗ {what}: the result is not a tensor or an array ({error})") from None
    _records.append({"kind": "close", "what": str(what), "value": _encode(a),
                     "rtol": float(rtol), "atol": float(atol)})
    e = _host(expected)
    if a.shape != e.shape:
        raise AssertionError(f"✗ {what}: expected shape {tuple(e.shape)}, got shape {tuple(a.shape)}")
    if not np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True):
        raise AssertionError(f"✗ {what}: the values differ from the expected ones")
    print(f"✓ {what}")


def emit(nonce: str, grade_id: str) -> None:
    """Send this cell's records to the grader as one display_data output."""
    from IPython.display import display

    display({MIME: {"nonce": nonce, "grade_id": grade_id, "records": list(_records)}}, raw=True)
    _records.clear()
