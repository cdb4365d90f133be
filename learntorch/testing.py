"""``learntorch.testing``: PyTorch's ``torch.testing.assert_close``, and the course's visible checks.

``assert_close(actual, expected)`` is the comparison PyTorch's own test suite uses, and the one
a test, a grader or a learner's notebook written against PyTorch calls: it must pass and fail on
the same inputs, raise the same exception types and word its messages the same way, so that
``import learntorch as torch`` changes nothing.  It works in two steps, as PyTorch's does:

1. *Pair up* ``actual`` with ``expected``.  Sequences (lists, tuples) are walked element by
   element and mappings (dicts) key by key, down to *leaves*: ``None``, booleans, numbers
   (Python's or NumPy's) and tensor-likes (tensors, NumPy arrays).  A structure that does not
   match (lengths, keys), leaves of unrelated types (a tensor and a float: which of the two
   is meant?) or half a tolerance fail here, before any value is looked at.
2. *Compare* each pair of leaves: for tensors first their attributes (shape, then device,
   dtype and, only when asked, stride), then their values, element by element within
   ``atol + rtol * |expected|``.  The first failure is raised, saying where it happened
   ("The failure occurred for item [1]['weight']").

The values are compared on the host as NumPy arrays, each step in the dtype PyTorch's kernels
use, so that a message shows PyTorch's numbers digit for digit: a float32 difference prints as
``0.09999990463256836`` (the float32 nearest 0.1), not as float64's ``0.1``.
"""
from __future__ import annotations

import cmath
import collections.abc
from typing import Any, Callable, NamedTuple, Optional, Union

import numpy as np

from . import dtypes
from .arrays import to_numpy
from .device import CPU, device
from .dtype_bfloat16 import bfloat16
from .size import Size
from .tensor import Tensor

__all__ = ["assert_close", "check_close", "check"]

# PyTorch's default tolerances, (rtol, atol) by dtype.  About the rounding error of a few
# operations in that dtype: float32 keeps ~7 significant digits, so rtol=1.3e-6 allows an error
# of about ten units in the last place; atol covers results near zero, where a relative error
# means nothing.  Every other dtype (integers, bool) is compared exactly: (0.0, 0.0).
# (complex32/64/128 are for NumPy arrays and Python complex numbers: learntorch has no complex tensors.)
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5),
               "complex128": (1e-7, 1e-7)}

# A Python number is compared as the dtype PyTorch gives its type.
_NUMBER_DTYPES = {int: "int64", float: "float64", complex: "complex128"}

_Message = Union[str, Callable[[str], str], None]


class _Mismatch(Exception):
    """A failed comparison on its way to the user: the exception type PyTorch raises, the message
    it words, and the path to the leaf in nested sequences and mappings (``(1, 'weight')``)."""

    def __init__(self, kind: type, message: str, path: tuple = ()) -> None:
        super().__init__(message)
        self.kind, self.message, self.path = kind, message, path

    def error(self, msg: _Message = None) -> Exception:
        """The exception to raise: ``msg`` (a string) replaces the message; a callable gets the
        message and returns the one to show."""
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(f"[{key!r}]" for key in self.path)
        return self.kind(msg(text) if callable(msg) else text)


class _TensorLike(NamedTuple):
    """What the comparison needs of a tensor or a NumPy array: its values on the host (no
    gradient history: a tensor that requires grad compares like any other), and its attributes."""

    values: np.ndarray
    dtype: str  # PyTorch's name: "float32", "bfloat16", "int64" ...
    device: device
    stride: tuple


def _tensor_like(x: Any) -> Optional[_TensorLike]:
    """``x`` as a :class:`_TensorLike`, or None when it is not one (PyTorch: when
    ``torch.as_tensor(x)`` fails).  NumPy arrays of numbers count: torch.as_tensor takes them
    (sharing the memory, hence the same strides), except those with negative strides."""
    if isinstance(x, Tensor):
        return _TensorLike(to_numpy(x.detach()._data), x.dtype.name, x.device, x.stride())
    if isinstance(x, np.ndarray) and x.dtype.kind in "biufc" and all(s >= 0 for s in x.strides):
        return _TensorLike(x, x.dtype.name, CPU, tuple(s // x.itemsize for s in x.strides))
    return None


def _tolerances(dtype_names: list, rtol: Optional[float], atol: Optional[float], path: tuple) -> tuple:
    """The ``(rtol, atol)`` to use: the caller's, or the loosest default of the dtypes compared.
    Both or neither must be given: ``atol=0`` alone would still let ``rtol``'s default pass
    values the caller meant to reject."""
    if (rtol is None) != (atol is None):
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                    f"{'rtol' if rtol is None else 'atol'}.", path)
    if rtol is not None:
        return rtol, atol
    defaults = [_TOLERANCES.get(name, (0.0, 0.0)) for name in dtype_names]
    return max(r for r, _ in defaults), max(a for _, a in defaults)


def _no_pair(actual: Any, expected: Any, path: tuple) -> _Mismatch:
    return _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                                f"{type(expected)}.", path)


# ---------------------------------------------------------------------- step 1: pairing up
def _is_sequence(x: Any) -> bool:
    # A str is left out: its elements are strings again ("a"[0] is "a"), a walk that never ends.
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _pair_up(actual: Any, expected: Any, path: tuple, options: dict) -> list:
    """The comparisons to make, as ``(path, check)``: ``check()`` raises a :class:`_Mismatch`
    when the leaves at ``path`` differ.  Raises a :class:`_Mismatch` when the structures differ."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != "
                                            f"{len(expected)}", path)
        return [pair for i in range(len(actual)) for pair in _pair_up(actual[i], expected[i], (*path, i), options)]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            missing, additional = sorted(expected_keys - actual_keys), sorted(actual_keys - expected_keys)
            raise _Mismatch(AssertionError, f"The keys of the mappings do not match:\nMissing keys in the actual "
                                            f"mapping: {missing}\nAdditional keys in the actual mapping: {additional}",
                            path)
        try:  # in a fixed order, so that the same inputs always report the same failure
            keys: Any = sorted(actual_keys)
        except TypeError:  # keys of mixed types (1 and "a") have no order
            keys = actual_keys
        return [pair for key in keys for pair in _pair_up(actual[key], expected[key], (*path, key), options)]
    return [(path, _leaf_check(actual, expected, path, **options))]


def _leaf_check(actual: Any, expected: Any, path: tuple, *, allow_subclasses: bool, rtol: Optional[float],
                atol: Optional[float], equal_nan: bool, check_device: bool, check_dtype: bool,
                check_stride: bool) -> Callable[[], None]:
    """How to compare two leaves, tried in PyTorch's order: None, booleans, numbers, tensor-likes."""
    if actual is None or expected is None:
        return lambda: _compare_none(actual, expected)

    booleans = (bool, np.bool_)
    if isinstance(actual, booleans) and isinstance(expected, booleans):
        return lambda: _compare_booleans(bool(actual), bool(expected))

    numbers = (int, float, complex, np.number)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        a, e = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        if type(a) not in _NUMBER_DTYPES or type(e) not in _NUMBER_DTYPES:
            # True and 1: a bool is an int to Python but not to PyTorch, whose comparison then fails
            # with a RuntimeError (an internal error, not a verdict).  Compare bools with bools.
            raise _Mismatch(RuntimeError, f"Cannot compare {type(actual)} with {type(expected)}: numbers must "
                                          "be int, float or complex, and a bool is compared with a bool.", path)
        rtol, atol = _tolerances([_NUMBER_DTYPES[type(a)], _NUMBER_DTYPES[type(e)]], rtol, atol, path)
        return lambda: _compare_numbers(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype)

    # Anything else must be two tensor-likes of *directly related* types (one an instance of the
    # other's type: a Parameter and a Tensor, not a Tensor and an array), of the same type
    # exactly if allow_subclasses=False.
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or (not allow_subclasses and type(actual) is not type(expected)):
        raise _no_pair(actual, expected, path)
    a, e = _tensor_like(actual), _tensor_like(expected)
    if a is None or e is None:
        raise _no_pair(actual, expected, path)
    rtol, atol = _tolerances([a.dtype, e.dtype], rtol, atol, path)
    return lambda: _compare_tensors(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                                    check_dtype=check_dtype, check_stride=check_stride)


# ---------------------------------------------------------------------- step 2: comparing leaves
def _compare_none(actual: Any, expected: Any) -> None:
    if not (actual is None and expected is None):
        raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}")


def _compare_booleans(actual: bool, expected: bool) -> None:
    if actual is not expected:
        raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}")


def _compare_numbers(actual: Any, expected: Any, *, rtol: float, atol: float, equal_nan: bool,
                     check_dtype: bool) -> None:
    """Two Python numbers (a NumPy number arrives as its ``.item()``), in Python's own arithmetic."""
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    if actual == expected:  # also inf == inf, and -0.0 == 0.0
        return
    if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
        return
    difference = abs(actual - expected)
    if cmath.isfinite(difference) and difference <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_message(actual, expected, rtol=rtol, atol=atol))


def _compare_tensors(actual: _TensorLike, expected: _TensorLike, *, rtol: float, atol: float, equal_nan: bool,
                     check_device: bool, check_dtype: bool, check_stride: bool) -> None:
    """Attributes first, in PyTorch's order (shape, stride, device, dtype), then values."""
    def mismatch(attribute: str, a: Any, e: Any) -> _Mismatch:
        return _Mismatch(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {e}.")

    if actual.values.shape != expected.values.shape:
        raise mismatch("shape", Size._of(actual.values.shape), Size._of(expected.values.shape))
    if check_stride and actual.stride != expected.stride:
        raise mismatch("stride()", actual.stride, expected.stride)
    if check_device and actual.device != expected.device:
        raise mismatch("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        raise mismatch("dtype", f"torch.{actual.dtype}", f"torch.{expected.dtype}")
    # (Both are on the host already, whatever their devices.)  Of different dtypes, both are
    # converted to their common dtype, ``torch.promote_types``'s: int64 and float32 meet in float32.
    a, e = actual.values, expected.values
    if actual.dtype != expected.dtype:
        common = _common_dtype(actual.dtype, expected.dtype)
        a, e = a.astype(common), e.astype(common)
    _compare_values(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _common_dtype(name1: str, name2: str) -> np.dtype:
    """``torch.promote_types`` of two dtypes, as a NumPy dtype (PyTorch takes uint16-64 as int64)."""
    names = ["int64" if name in ("uint16", "uint32", "uint64") else name for name in (name1, name2)]
    known = dtypes._BY_NAME
    if all(name in known for name in names):
        return dtypes.promote_types(known[names[0]], known[names[1]])._np
    return np.promote_types(np.dtype(names[0]), np.dtype(names[1]))  # complex NumPy arrays


def _kind(array: np.ndarray) -> str:
    """"bool", "int", "float" or "complex": what decides how PyTorch computes with the values."""
    if array.dtype == bfloat16._np:  # ml_dtypes' bfloat16 is no NumPy float ("V"): it is one here
        return "float"
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[array.dtype.kind]


def _isclose(actual: np.ndarray, expected: np.ndarray, *, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """``torch.isclose``, where each element is close when it is equal (so inf matches inf, and
    -0.0 matches 0.0), NaN to NaN when ``equal_nan``, or when the error is finite and
    ``|actual - expected| <= atol + |rtol * expected|``."""
    kind = _kind(expected)
    close = actual == expected
    if equal_nan and kind in ("float", "complex"):
        close |= np.isnan(actual) & np.isnan(expected)
    if rtol == 0 and atol == 0:  # an equality check
        return close
    if kind in ("bool", "int"):
        # rtol * an integer tensor is a tensor of the default float dtype, and PyTorch computes the
        # error in it too: no wrap-around (int8's -128 - 127 is not 1), but float32's rounding
        # (2**40 + 1 and 2**40 differ by 0 in float32)
        default = dtypes.get_default_dtype()._np
        actual, expected = actual.astype(default), expected.astype(default)
    if expected.dtype.itemsize == 2:
        # float16 and bfloat16: PyTorch computes in float32 and rounds each result to 16 bits
        # (NumPy would round rtol itself to 16 bits first)
        product = (rtol * expected.astype(np.float32)).astype(expected.dtype)
        allowed = (atol + np.abs(product).astype(np.float32)).astype(expected.dtype)
        error = np.abs(actual - expected)
    else:
        allowed = atol + np.abs(rtol * expected)
        error = np.abs(actual - expected)
    return close | (np.isfinite(error) & (error <= allowed))


def _compare_values(actual: np.ndarray, expected: np.ndarray, *, rtol: float, atol: float, equal_nan: bool) -> None:
    with np.errstate(all="ignore"):  # inf - inf, x / 0: PyTorch computes them silently
        matches = _isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
        if matches.all():
            return
        if actual.ndim == 0:  # a 0-d tensor is reported as a scalar
            message = _scalar_message(actual.item(), expected.item(), rtol=rtol, atol=atol)
        else:
            message = _tensor_message(actual, expected, matches, rtol=rtol, atol=atol)
    raise _Mismatch(AssertionError, message)


# ---------------------------------------------------------------------- the messages
def _mismatch_message(what: str, details: str, *, absolute: tuple, relative: tuple, rtol: float,
                      atol: float) -> str:
    """PyTorch's message: a verdict ("not close", or "not equal" for zero tolerances), the
    details, and the absolute and relative differences as ``(difference, index)`` (index None for
    scalars) with what was allowed."""
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", "", details]
    for name, (difference, index), tolerance in (("absolute", absolute, atol), ("relative", relative, rtol)):
        if index is None:
            line = f"{name.title()} difference: {difference}"
        else:
            line = f"Greatest {name} difference: {difference} at index {index}"
        lines.append(line if exact else f"{line} (up to {tolerance} allowed)")
    return "\n".join(lines)


def _scalar_message(actual: Any, expected: Any, *, rtol: float, atol: float) -> str:
    difference = abs(actual - expected)
    relative = float("inf") if expected == 0 else difference / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.", absolute=(difference, None),
                             relative=(relative, None), rtol=rtol, atol=atol)


def _tensor_message(actual: np.ndarray, expected: np.ndarray, matches: np.ndarray, *, rtol: float,
                    atol: float) -> str:
    """How many elements differ, and the greatest differences among them with their indices.
    The differences are computed in the compared dtype (integers and booleans in int64, so that
    -128 - 127 does not wrap around in int8); relative ones of integers in the default float dtype."""
    total = matches.size
    wrong = total - int(np.count_nonzero(matches))
    details = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    a, e = actual.ravel(), expected.ravel()
    if _kind(a) in ("bool", "int"):
        a, e = a.astype(np.int64), e.astype(np.int64)
    absolute = np.abs(a - e)
    absolute[matches.ravel()] = 0  # only the mismatched elements count
    if _kind(a) == "int":
        default = dtypes.get_default_dtype()._np
        relative = absolute.astype(default) / np.abs(e).astype(default)
    else:
        relative = absolute / np.abs(e)
    relative[matches.ravel()] = 0

    def greatest(differences: np.ndarray) -> tuple:
        i = int(np.argmax(differences))  # the first greatest; a NaN is greater than any number
        return differences[i].item(), tuple(int(k) for k in np.unravel_index(i, actual.shape))

    return _mismatch_message("Tensor-likes", details, absolute=greatest(absolute), relative=greatest(relative),
                             rtol=rtol, atol=atol)


# ---------------------------------------------------------------------- the public function
def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: Optional[float] = None,
                 atol: Optional[float] = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: _Message = None) -> None:
    """Raise an error unless ``actual`` and ``expected`` are close (PyTorch's
    ``torch.testing.assert_close``).

    Two tensors are close when they have the same shape, device and dtype (and strides, with
    ``check_stride=True``) and every element satisfies
    ``|actual - expected| <= atol + rtol * |expected|``; an infinity only matches itself, and
    NaN matches NaN only with ``equal_nan=True``.  ``rtol`` and ``atol`` go together (give both
    or neither); by default they depend on the dtype, the looser of the two dtypes compared:

    ============  ==========  ========
    dtype         rtol        atol
    ============  ==========  ========
    float16       1e-3        1e-5
    bfloat16      1.6e-2      1e-5
    float32       1.3e-6      1e-5
    float64       1e-7        1e-7
    other         0.0         0.0
    ============  ==========  ========

    ``actual`` and ``expected`` may be tensors, NumPy arrays, Python numbers, or sequences and
    mappings of them, compared element by element.  Apart from Python numbers, the two must be of
    related types: a tensor and a float, or a tensor and an array, are a TypeError, since it is not
    clear which should become which.  ``check_dtype=False`` compares tensors of different dtypes
    in their common dtype (and Python numbers of different types).  ``check_device=False``
    compares tensors on different devices.  ``check_layout`` is accepted: every learntorch tensor
    is strided, so layouts always match.  ``allow_subclasses=False`` requires the same type
    exactly (a ``Parameter`` and a ``Tensor`` are then a TypeError).

    ``msg``, a string, replaces the message of a failed comparison; a callable receives the
    message and returns the one to show.

    Raises ``AssertionError`` when the values (or the shapes, devices, dtypes, lengths, keys)
    differ, ``TypeError`` for inputs that cannot be compared, ``ValueError`` when only one of
    ``rtol`` and ``atol`` is given.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_stride=check_stride)
    try:
        checks = _pair_up(actual, expected, (), options)
    except _Mismatch as failure:
        # As in PyTorch, ``msg`` only words failed *comparisons*: a structure or an argument
        # that is wrong is reported as it is.
        raise failure.error() from None
    for path, check in checks:
        try:
            check()
        except _Mismatch as failure:
            failure.path = path
            raise failure.error(msg) from None


# ---------------------------------------------------------------------- the course's checks
def _host(x: Any) -> np.ndarray:
    if isinstance(x, Tensor):
        return to_numpy(x.detach()._data)
    return np.asarray(x)


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
