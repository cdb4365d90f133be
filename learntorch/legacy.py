"""Legacy typed constructors: ``FloatTensor([1, 0.1])``, ``LongTensor([0, 2])`` …

The notes use ``torch.FloatTensor([1, 0.1, 0.01])``.  PyTorch keeps these for old
code; the modern spelling is ``tensor([1, 0.1, 0.01], dtype=torch.float32)``.
``isinstance(t, FloatTensor)`` checks the dtype, as it does in PyTorch.
"""
from __future__ import annotations

from typing import Any

from . import dtypes
from .tensor import Tensor
from .creation import tensor, zeros

__all__ = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"]


class _LegacyMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls._dtype and obj.device.type == "cpu"

    def __call__(cls, *args: Any) -> Tensor:
        if len(args) == 1 and not isinstance(args[0], int):
            data = args[0]
            if isinstance(data, float):
                raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
            return tensor(data.tolist() if isinstance(data, Tensor) else data, dtype=cls._dtype)
        return zeros(*args, dtype=cls._dtype)


def _legacy(name: str, dt: dtypes.dtype) -> type:
    return _LegacyMeta(name, (), {"_dtype": dt, "__doc__": f"Legacy constructor for {dt} tensors.",
                                  "__module__": __name__})


FloatTensor = _legacy("FloatTensor", dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", dtypes.float64)
LongTensor = _legacy("LongTensor", dtypes.int64)
IntTensor = _legacy("IntTensor", dtypes.int32)
BoolTensor = _legacy("BoolTensor", dtypes.bool)
