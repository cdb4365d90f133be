"""``learntorch.device``: where a tensor's numbers live (``cpu`` or ``cuda:N``).

A device is only a name here; which array library serves it is decided in
``arrays.py``; the CUDA state (which devices exist, the current one) in ``cuda.py``.  The class mirrors ``torch.device``: ``device('cuda:1')``,
``device('cuda', 1)``, equality by type and index, and PyTorch's error for a
string it does not understand.
"""
from __future__ import annotations

from typing import Any, Optional, Union

from . import cuda

__all__ = ["device", "as_device", "DeviceLike", "get_default_device", "set_default_device"]

_TYPES = ("cpu", "cuda")


class device:
    """A device type (``'cpu'`` or ``'cuda'``) and an optional index."""

    __slots__ = ("type", "index")

    def __init__(self, type: Union[str, "device"], index: Optional[int] = None) -> None:  # noqa: A002
        if isinstance(type, device):
            if index is not None:
                raise ValueError("device(): a device object cannot be combined with an index")
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type  # torch.device(0) means cuda:0
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type!r})")
        name, sep, idx = type.partition(":")
        if name not in _TYPES:
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}")
        if sep:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type, self.index = name, index

    def __eq__(self, other: Any) -> bool:
        if other is self:  # the common case, asked by every operation: tensors share the CPU object
            return True
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):  # picklable, for DataLoader workers and saving
        return (device, (self.type, self.index))


DeviceLike = Union[str, int, device, None]
CPU = device("cpu")


def as_device(d: DeviceLike) -> device:
    """Normalise what a user may pass as ``device=``; ``cuda`` gets its current index.

    A tensor always knows its exact device (``cuda:0``, never bare ``cuda``),
    as in PyTorch, so that two tensors can be checked for being on the same one.
    """
    if d is None:
        d = _default[0]
        if d is CPU:  # (the common case: one comparison more than before set_default_device existed)
            return CPU
    d = d if isinstance(d, device) else device(d)
    if d.type == "cuda":
        if d.index is None:
            d = device("cuda", cuda.current_device())
        cuda.check_index(d.index)
    return d


# ``set_default_device``: where ``device=None`` puts new tensors.  Kept as given ('cuda' without
# an index means the current CUDA device at each creation, as in PyTorch).
_Device = device  # (the class, under a name that set_default_device's parameter does not hide)
_default: list = [CPU]


def set_default_device(device: DeviceLike) -> None:
    """Make ``device`` the one that the creation functions (``zeros``, ``tensor``, ``randn`` …) use
    when no ``device=`` is given; ``None`` restores the CPU.  A CUDA device is checked when a
    tensor is made there, as in PyTorch."""
    chosen = CPU if device is None else device if isinstance(device, _Device) else _Device(device)
    _default[0] = CPU if chosen == CPU else chosen


def get_default_device() -> device:
    """The device new tensors go to when none is named (``cpu`` unless :func:`set_default_device`)."""
    return as_device(None)
