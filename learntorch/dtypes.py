"""Data types (``learntorch.float32`` …) and PyTorch's type-promotion rules.

Why a module of its own: NumPy and PyTorch disagree about promotion.  NumPy
turns ``int64 + float32`` into ``float64``; PyTorch keeps ``float32``, and a
Python float times an integer tensor gives the *default* dtype (float32).  A
course that promises "the same numbers as PyTorch" must decide the result
dtype itself, before any array library sees the operands.
"""
from __future__ import annotations

import builtins
from typing import Any

import numpy as np

__all__ = [
    "dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
    "uint8", "bool", "half", "float", "double", "short", "int", "long",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type",
]

_BOOL, _INT, _FLOAT = 0, 1, 2  # promotion categories, lowest to highest


class dtype:
    """A tensor element type.  Prints as ``torch.float32`` so that output reads
    exactly like PyTorch's (``import learntorch as torch`` is the course's idiom)."""

    __slots__ = ("name", "itemsize", "category", "is_floating_point", "is_signed", "_np")

    def __init__(self, name: str, np_dtype: Any, category: int) -> None:
        self.name = name
        self._np = np.dtype(np_dtype)
        self.itemsize = self._np.itemsize
        self.category = category
        self.is_floating_point = category == _FLOAT
        self.is_signed = category != _BOOL and self._np.kind != "u"

    @property
    def is_complex(self) -> bool:
        return False

    def to_real(self) -> "dtype":
        return self

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:  # pickled as the module-level singleton
        return self.name


float16 = dtype("float16", np.float16, _FLOAT)
float32 = dtype("float32", np.float32, _FLOAT)
float64 = dtype("float64", np.float64, _FLOAT)
int8 = dtype("int8", np.int8, _INT)
int16 = dtype("int16", np.int16, _INT)
int32 = dtype("int32", np.int32, _INT)
int64 = dtype("int64", np.int64, _INT)
uint8 = dtype("uint8", np.uint8, _INT)
bool = dtype("bool", np.bool_, _BOOL)  # noqa: A001 - PyTorch's public name
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool)
_BY_NP = {d._np: d for d in ALL}  # every array dtype a tensor can hold (dtype_bfloat16.py adds bfloat16)
_FROM_NUMPY = dict(_BY_NP)  # the NumPy arrays torch.from_numpy accepts: PyTorch refuses ml_dtypes' bfloat16
_BY_NAME = {d.name: d for d in ALL}
# PyTorch's C++ scalar-type names, as its messages print them ("not implemented for 'Long'"):
# written once, here, for every module that words such a message.
SCALAR_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char", "int16": "Short",
                "int32": "Int", "int64": "Long", "uint8": "Byte", "bool": "Bool"}


# The C++ type names some PyTorch messages print for a dtype ("mask with dtype float",
# "Input type (double) and bias type (float)", "a gradient with dtype 'long int'").
C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                "uint8": "unsigned char", "bool": "bool"}


def c_type_name(dt: dtype) -> str:
    """``float`` for float32, ``long int`` for int64 ... as PyTorch's messages name C++ types."""
    return C_TYPE_NAMES.get(dt.name, dt.name)


def type_name(dt: dtype) -> str:
    """PyTorch's scalar-type name of ``dt`` in error messages: ``Float``, ``Long``, ``Bool`` ..."""
    return SCALAR_NAMES[dt.name]
_default_float = float32


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The learntorch dtype of a NumPy/CuPy dtype (TypeError for unsupported ones)."""
    try:
        return _FROM_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        kind = np.dtype(np_dtype).type  # named as PyTorch names it: numpy.str_, numpy.complex128
        raise TypeError(
            f"can't convert np.ndarray of type {kind.__module__}.{kind.__name__}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool.") from None


def from_argument(obj: Any) -> dtype:
    """A ``dtype=`` argument of a PyTorch function: a dtype, or the Python type ``float``, ``int`` or
    ``bool``, as PyTorch takes.  A string (``"float32"``) or a NumPy type is PyTorch's TypeError:
    accepting it here would let a program work in the course that fails in PyTorch."""
    if isinstance(obj, dtype):
        return obj
    if obj is builtins.float:  # PyTorch's ``dtype=float`` is float64, whatever the default dtype
        return float64
    if obj is builtins.int or obj is builtins.bool:
        return from_any(obj)
    kind = type(obj)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    raise TypeError(f"argument 'dtype' must be torch.dtype, not {name}")


def from_any(obj: Any) -> dtype:
    """Accept a learntorch dtype, a NumPy dtype or a Python type (``float`` → default)."""
    if isinstance(obj, dtype):
        return obj
    found = _BY_NP.get(obj) if isinstance(obj, np.dtype) else None
    if found is not None:
        return found
    if obj is builtins.float:
        return _default_float
    if obj is builtins.int:
        return int64
    if obj is builtins.bool:
        return bool
    if type(obj).__module__.partition(".")[0] == "array_api_strict":  # the stand-in's dtype objects
        import array_api_strict as xps
        for d in ALL:
            if getattr(xps, d.name, None) == obj:  # (the standard has no float16)
                return d
    return from_numpy_dtype(obj)


def get_default_dtype() -> dtype:
    """The dtype a Python float becomes (float32 unless changed, as in PyTorch)."""
    return _default_float


def set_default_dtype(d: dtype) -> None:
    global _default_float
    d = from_any(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """PyTorch's ``promote_types``: the smallest dtype both values fit in.

    Across categories the higher category wins (int with float → that float),
    which is where NumPy differs.  Among floats the wider one wins, and the two
    16-bit floats (float16, bfloat16) meet in float32; among ints NumPy's answer
    is PyTorch's.
    """
    a, b = type1, type2
    if a is b:
        return a
    if type(a) is not dtype or type(b) is not dtype:  # ``float``, ``int``, ``bool`` name dtypes too, as in PyTorch
        return promote_types(from_argument(a), from_argument(b))
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.category == _INT and (a is uint8) != (b is uint8):
        other = b if a is uint8 else a  # uint8 with a signed int: PyTorch picks int16 at least
        return other if other.itemsize > 1 else int16
    if a.category == _FLOAT and a.itemsize != b.itemsize:
        return a if a.itemsize > b.itemsize else b  # the wider float holds both
    if a.category == _FLOAT:
        return float32  # float16 with bfloat16: neither holds the other (range vs digits), float32 holds both
    return _BY_NP[np.promote_types(a._np, b._np)]


def _scalar_dtype(value: Any) -> dtype:
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, builtins.int):
        return int64
    return _default_float


def result_type(*operands: Any) -> dtype:
    """The dtype of an elementwise op on tensors and Python numbers.

    PyTorch ranks operands in three tiers: tensors with dimensions, zero-dim
    tensors, Python numbers.  The highest category present wins; among the
    operands of that category, the highest tier decides the exact dtype.  So
    ``int_tensor * 2.5`` is float32 and ``float32_tensor * float64_scalar_tensor``
    stays float32.
    """
    tiers: list[list[dtype]] = [[], [], []]
    for op in operands:
        if hasattr(op, "_data") and hasattr(op, "dtype"):
            tiers[0 if op.ndim else 1].append(op.dtype)
        else:
            tiers[2].append(_scalar_dtype(op))
    top = max(d.category for tier in tiers for d in tier)
    for tier in tiers:
        found = [d for d in tier if d.category == top]
        if found:
            out = found[0]
            for d in found[1:]:
                out = promote_types(out, d)
            return out
    raise AssertionError("no operands")


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """Whether PyTorch allows an in-place/``out=`` cast from ``from_`` to ``to``: never to a lower
    category (float → int, int → bool), any size within a category.  ``float``, ``int`` and ``bool``
    stand for float64, int64 and bool, as in PyTorch."""
    return from_argument(from_).category <= from_argument(to).category


# The C type names in PyTorch's overflow message, per integer dtype.
_OVERFLOW_C_NAMES = {uint8: "uint8_t", int8: "int8_t", int16: "int16_t", int32: "int", int64: "int64_t"}


def check_scalar_fits(value: Any, dt: dtype) -> Any:
    """PyTorch's RuntimeError when a Python number written into an integer tensor (``fill_``,
    ``full``, ``masked_fill``, ``x[i] = v``, ``clamp``, ``where``) does not fit its dtype, instead
    of wrapping around.

    PyTorch's rule (c10's ``overflows``): a float must lie within ``[min, max]`` (nan never does);
    an int too, except that an unsigned type also takes ``-max..-1`` (they wrap: ``-1`` is 255
    in uint8).  An int that PyTorch's scalar cannot hold at all (below int64, above uint64) is its
    OverflowError, whatever the dtype; a bool tensor takes any other number (as True or False).
    Returns the value to write: wrapped into range (NumPy refuses -1 for uint8)."""
    if isinstance(value, builtins.bool) or not isinstance(value, (builtins.int, builtins.float)):
        return value
    if isinstance(value, builtins.int) and not -2 ** 63 <= value < 2 ** 64:
        raise OverflowError("can't convert negative int to unsigned" if value < 0 else "int too big to convert")
    name = _OVERFLOW_C_NAMES.get(dt)
    if name is None:
        return value
    info = np.iinfo(dt._np)
    hi = builtins.int(info.max)
    lo = -hi if isinstance(value, builtins.int) and info.min == 0 else builtins.int(info.min)
    if not lo <= value <= hi:  # (nan fails this too, as in PyTorch)
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value % (hi + 1) if value < 0 and info.min == 0 else value
