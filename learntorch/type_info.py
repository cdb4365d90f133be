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


class finfo:
    """Machine limits of a floating point dtype (the default dtype when none is given)."""

    def __init__(self, type: Optional[Any] = None) -> None:
        d = dtypes.get_default_dtype() if type is None else dtypes.from_any(type)
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

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype."""

    def __init__(self, type: Any) -> None:
        d = dtypes.from_any(type)
        if d.is_floating_point or d.name == "bool":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(d._np)
        self.bits: int = info.bits
        self.max: int = int(info.max)
        self.min: int = int(info.min)
        self.dtype: str = d.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
