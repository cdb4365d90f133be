"""What the grader adds to the kernel: checks that record values instead of deciding.

This file is not imported by the grader's kernel: its source is sent in the
first line of every test cell, executed there in a fresh namespace bound to
the name ``__lt_probe``, and ``check`` and ``check_close`` are bound to
:func:`check` and :func:`check_close` below; an extra cell after the test
cell calls :func:`emit` with the run's nonce.

The records are *values*: for ``check_close(actual, expected, ...)`` the
array of ``actual``; for ``check(condition, ...)`` whether the condition was
true; and for every ``a == b`` inside a check's condition (the grader
rewrites it to ``__lt_probe.equal(a, b)``, see ``verdict.instrument``) a
canonical text of both sides (and ``a < b``, ``a <= b``, ``a > b``,
``a >= b``, ``a != b`` become ``__lt_probe.order(a, "<", b)``, decided on
plain numbers or canonical texts). A yes/no record could be won by an object
whose ``__eq__`` always says True (``unittest.mock.ANY``); a canonical text
is built only from plain data (type-checked, never by calling the object's
own ``__eq__``), so such an object records as "not plain data" and fails. The grader compares them, in its own process, with the records of the
instructor's solution run (see ``learntorch.grading.verdict``). The in-kernel
comparison below only keeps the learner's experience (a failing check stops
the cell with the message the learner knows); it decides nothing.
"""

from __future__ import annotations

import base64
import hashlib
import math
import sys
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


class _NotPlain(Exception):
    """A value whose type is not plain data: it cannot be compared outside the kernel."""


def _library_types(attribute: str) -> tuple[type, ...]:
    """The types of the tensor libraries' dtypes, devices and shapes (``attribute`` of each)."""
    found: list[type] = []
    for name in ("learntorch", "torch"):
        module = sys.modules.get(name)
        if module is None:
            continue
        try:
            if attribute == "dtype":
                found.append(type(module.float32))
            elif attribute == "device":
                found.append(module.device)
            elif attribute == "Size":
                found.append(module.Size)
            elif attribute == "Tensor":
                found.append(module.Tensor)
        except AttributeError:
            continue
    return tuple(t for t in found if isinstance(t, type))


def _canonical(x: Any, depth: int = 0) -> Any:
    """``x`` as nested plain tuples/strings, so that two values are ``==`` iff their forms are.

    Types are checked exactly (``type(x) is int``, not ``isinstance``): a subclass
    could redefine what its comparisons and conversions return. Numbers that
    ``==`` treats as equal (``True``, ``1``, ``1.0``, ``np.int64(1)``) share one
    form; a list and a tuple do not (``[1] == (1,)`` is False).
    """
    if depth > 50:
        raise _NotPlain("nested too deeply")
    kind = type(x)
    if x is None or kind is str or kind is bytes:
        return ("v", repr(x))
    if isinstance(x, np.generic) and kind.__module__ == "numpy":
        return _canonical(x.item(), depth + 1)
    if kind is bool or kind is int:
        return ("n", repr(int(x)))
    if kind is float:
        if math.isfinite(x) and x == int(x):
            return ("n", repr(int(x)))
        return ("n", repr(x))
    if kind is complex:
        return _canonical(x.real, depth + 1) if x.imag == 0 else ("n", repr(x))
    if kind is tuple or kind in _library_types("Size"):
        return ("tuple", tuple(_canonical(item, depth + 1) for item in tuple.__iter__(x)))
    if kind is list:
        return ("list", tuple(_canonical(item, depth + 1) for item in list.__iter__(x)))
    if kind is set or kind is frozenset:
        return ("set", tuple(sorted((_canonical(item, depth + 1) for item in x), key=repr)))
    if kind is dict:
        items = [(_canonical(k, depth + 1), _canonical(v, depth + 1)) for k, v in dict.items(x)]
        return ("dict", tuple(sorted(items, key=repr)))
    if kind in _library_types("dtype") or kind in _library_types("device") or kind is np.dtype:
        return ("v", f"{kind.__module__}.{kind.__name__}:{str(x)}")
    if kind is np.ndarray or kind in _library_types("Tensor"):
        a = _host(x)
        return ("array", a.dtype.str, tuple(a.shape), _canonical(a.tolist(), depth + 1))
    raise _NotPlain(f"{kind.__module__}.{kind.__qualname__}")


def canonical_text(x: Any) -> str:
    """:func:`_canonical` as one short string (a digest when long); ``"<not plain data: T>"`` else."""
    try:
        text = repr(_canonical(x))
    except _NotPlain as error:
        return f"<not plain data: {error}>"
    except Exception as error:  # noqa: BLE001 -- a broken value is not plain data either
        return f"<not plain data: {type(error).__name__}>"
    if len(text) > 2000:
        return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return text


def equal(left: Any, right: Any) -> bool:
    """``left == right`` decided on canonical forms, both recorded for the grader.

    What the grader puts in place of ``a == b`` inside a ``check`` condition.
    The answer is True only when both sides are plain data with the same form,
    whatever their ``__eq__`` says; the grader compares the recorded forms with
    the reference run's, so this return value only steers the learner's message.
    """
    a, b = canonical_text(left), canonical_text(right)
    _records.append({"kind": "equal", "value": [a, b]})
    return a == b and not a.startswith("<not plain data")


_ORDER = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
          ">=": lambda a, b: a >= b}


def _plain_number(x: Any, depth: int = 0) -> float | int:
    """``x`` as a Python int or float: plain numbers, NumPy scalars, one-element tensors/arrays."""
    kind = type(x)
    if kind is bool or kind is int or kind is float:
        return x
    if depth < 2 and ((isinstance(x, np.generic) and kind.__module__ == "numpy") or kind is np.ndarray
                      or kind in _library_types("Tensor")):
        a = _host(x) if kind is not np.ndarray else x
        if a.size == 1 and a.dtype.kind in "biuf":
            return _plain_number(a.reshape(()).item(), depth + 1)
    raise _NotPlain(f"{kind.__module__}.{kind.__qualname__}")


def order(left: Any, op: str, right: Any) -> bool:
    """``left op right`` for op in ``< <= > >= !=``, decided on plain values and recorded.

    What the grader puts in place of such a comparison inside a ``check``
    condition: an object whose ``__lt__`` (or ``__ne__``) always says True is
    not a plain number, so the comparison is False.
    """
    try:
        if op == "!=":
            a, b = canonical_text(left), canonical_text(right)
            held = a != b and not a.startswith("<not plain") and not b.startswith("<not plain")
        else:
            held = bool(_ORDER[op](_plain_number(left), _plain_number(right)))
    except _NotPlain:
        held = False
    _records.append({"kind": "order", "ok": held})
    return held


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
