"""``finfo`` and ``iinfo``: the limits of a floating point or integer dtype.

``finfo(torch.float32).eps`` (the gap between 1 and the next float, ≈1.19e-7) is what
tolerances and "add a small epsilon" tricks are sized by; ``max``/``min``/``tiny``
bound what the type can hold.  The numbers come from NumPy, whose types these are (bfloat16's
from ``ml_dtypes``, which adds that type to NumPy).
"""
from __future__ import annotations

from typing import Any, Optional

import ml_dtypes
import numpy as np

from . import dtypes

__all__ = ["finfo", "iinfo"]


_NOT_GIVEN = object()


def _dtype_argument(value: Any, name: str) -> "dtypes.dtype":
    """The dtype ``finfo``/``iinfo`` were asked about: a torch dtype, or one of Python's ``float``,
    ``int``, ``bool`` (as PyTorch's argument parser reads them: float64, int64, bool; ``complex``
    has the limits of its float64 parts).  Anything else -- a string such as ``"float32"``, a NumPy type, ``None`` -- is
    PyTorch's TypeError."""
    python_types = {float: dtypes.float64, int: dtypes.int64, bool: dtypes.bool, complex: dtypes.float64}
    if isinstance(value, dtypes.dtype):
        return value
    if isinstance(value, type) and value in python_types:
        return python_types[value]
    raise TypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, not {type(value).__name__}")


class finfo:
    """Machine limits of a floating point dtype (the default dtype when none is given)."""

    def __init__(self, type: Any = _NOT_GIVEN) -> None:
        d = dtypes.get_default_dtype() if type is _NOT_GIVEN else _dtype_argument(type, "finfo")
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = ml_dtypes.finfo(d._np)  # NumPy's finfo, extended to bfloat16 (which NumPy lacks)
        self.bits: int = info.bits
        self.eps: float = float(info.eps)
        self.max: float = float(info.max)
        self.min: float = float(info.min)
        self.tiny: float = float(info.smallest_normal)
        self.smallest_normal: float = self.tiny
        self.resolution: float = 10.0 ** -info.precision  # exactly 1e-06 for float32, as PyTorch reports
        self.dtype: str = d.name

    def __eq__(self, other: object) -> bool:
        """Equal when about the same dtype (two calls give two objects, as in PyTorch; unhashable there too)."""
        return self.dtype == other.dtype if isinstance(other, finfo) else NotImplemented

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype."""

    def __init__(self, type: Any) -> None:
        d = _dtype_argument(type, "iinfo")
        if d.name == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(d._np)
        self.bits: int = info.bits
        self.max: int = int(info.max)
        self.min: int = int(info.min)
        self.dtype: str = d.name

    def __eq__(self, other: object) -> bool:
        return self.dtype == other.dtype if isinstance(other, iinfo) else NotImplemented

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
