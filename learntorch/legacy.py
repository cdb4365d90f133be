"""Legacy typed constructors: ``FloatTensor([1, 0.1])``, ``LongTensor([0, 2])`` …

The notes use ``torch.FloatTensor([1, 0.1, 0.01])``.  PyTorch keeps these for old
code; the modern spelling is ``tensor([1, 0.1, 0.01], dtype=torch.float32)``.
``isinstance(t, FloatTensor)`` checks the dtype, as it does in PyTorch.
"""
from __future__ import annotations

from typing import Any

from . import dtypes, warn_always
from .device import set_default_device
from .tensor import Tensor
from .creation import tensor, zeros

__all__ = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "set_default_tensor_type"]


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


_DEPRECATED = ("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() "
               "and torch.set_default_device() as alternatives.")


def set_default_tensor_type(t: Any) -> None:
    """The old way to say both the default dtype and device at once (deprecated: PyTorch warns,
    and so does this).  ``t`` is a legacy class (``torch.DoubleTensor``) or its name
    (``'torch.FloatTensor'``, ``'torch.cuda.FloatTensor'``); only floating-point types."""
    warn_always.warn_once(_DEPRECATED, UserWarning, stacklevel=2)
    on_cuda = False
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "torch.cuda", "learntorch", "learntorch.cuda"):
            raise ModuleNotFoundError(f"No module named '{module}'")
        on_cuda = module.endswith("cuda")
        found = globals().get(name)
        if not isinstance(found, _LegacyMeta):
            raise AttributeError(f"module '{module}' has no attribute '{name}'")
        t = found
    if not isinstance(t, _LegacyMeta):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    dtypes.set_default_dtype(t._dtype)  # (TypeError for an integer type, in PyTorch's words)
    set_default_device("cuda" if on_cuda else "cpu")
