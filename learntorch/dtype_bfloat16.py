"""``torch.bfloat16``: a dtype that can be *named*, but not computed in.

Training scripts mention bfloat16 even on a CPU (``dtype = torch.bfloat16 if
torch.cuda.is_bf16_supported() else torch.float16``, ``torch.autocast("cpu")``
whose default it is).  NumPy, learntorch's array library, has no bfloat16 type,
so learntorch cannot store numbers in it.  The dtype object exists (prints as
``torch.bfloat16``, ``is_floating_point``, ``itemsize`` 2, compares and pickles),
and anything that would make a tensor of it raises a TypeError that names
bfloat16 and says to use float32 instead (its ``_np`` is where every array is made).
"""
from __future__ import annotations

from typing import Any

from . import dtypes

__all__ = ["bfloat16", "BFLOAT16_UNSUPPORTED"]

BFLOAT16_UNSUPPORTED = ("learntorch cannot make or compute tensors of dtype torch.bfloat16: NumPy, its array "
                        "library, has no bfloat16 type. Use torch.float32 (the default) instead, or torch.float16 "
                        "for a 16-bit float.")


class _NamedOnlyDtype(dtypes.dtype):
    """A dtype without an array type behind it."""

    __slots__ = ()

    @property  # type: ignore[override]
    def _np(self) -> Any:
        raise TypeError(BFLOAT16_UNSUPPORTED)


def _make(name: str, itemsize: int) -> dtypes.dtype:
    d = object.__new__(_NamedOnlyDtype)
    for attr, value in (("name", name), ("itemsize", itemsize), ("category", dtypes._FLOAT),
                        ("is_floating_point", True), ("is_signed", True)):
        object.__setattr__(d, attr, value)
    return d


bfloat16 = _make("bfloat16", 2)
dtypes.bfloat16 = bfloat16  # type: ignore[attr-defined]  # where pickle finds it again (dtype.__reduce__)


def _to_bfloat16(self: Any, memory_format: Any = None) -> Any:
    """``x.bfloat16()``: ``x.to(torch.bfloat16)``, which learntorch refuses with a reason."""
    return self.to(bfloat16)


def _attach() -> None:
    from .tensor import Tensor
    if not hasattr(Tensor, "bfloat16"):
        Tensor.bfloat16 = _to_bfloat16  # type: ignore[attr-defined]


_attach()
