"""``torch.accelerator``: PyTorch 2's device-neutral face of whichever accelerator there is.

Programs write ``device = torch.accelerator.current_accelerator() or torch.device("cpu")``
instead of naming CUDA.  learntorch's only accelerator is CUDA (CuPy on a real GPU, or
the logical devices of ``learntorch.cuda.use_logical_devices``), so each function here
is the matching ``learntorch.cuda`` one; with none available, ``current_accelerator()``
is None, ``device_count()`` 0, and the rest raise PyTorch's RuntimeError.
"""
from __future__ import annotations

from typing import Any, Optional

from . import cuda
from .device import device as Device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "current_device_idx",
           "set_device_index", "set_device_idx", "synchronize", "device_index", "empty_cache", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
           "get_memory_info"]


def is_available() -> bool:
    """True when an accelerator (here: a CUDA device) can be used."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False) -> Optional[Device]:
    """``device('cuda')`` where CUDA is available, else None (``check_available`` changes
    nothing here: learntorch knows of an accelerator only when it can be used)."""
    return Device("cuda") if cuda.is_available() else None


def device_count() -> int:
    """How many accelerator devices there are (0 without one)."""
    return cuda.device_count() if cuda.is_available() else 0


def _require() -> None:
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def _cuda_index(device: Any) -> Any:
    """An accelerator device as ``learntorch.cuda`` takes it; a device of another type is refused."""
    if isinstance(device, (str, Device)):
        d = Device(device) if isinstance(device, str) else device
        if d.type != "cuda":
            raise ValueError(f"{d.type} doesn't match the current accelerator cuda.")
        return d
    return device


def current_device_index() -> int:
    """The index of the current accelerator device."""
    _require()
    return cuda.current_device()


def set_device_index(device: Any, /) -> None:
    """Make ``device`` (an index, ``'cuda:1'`` or a device) the current one; None changes nothing."""
    _require()
    if device is not None:
        cuda.set_device(_cuda_index(device))


def synchronize(device: Any = None, /) -> None:
    """Wait for the queued work of ``device`` (the current one by default)."""
    _require()
    cuda.synchronize(_cuda_index(device))


class device_index:
    """``with torch.accelerator.device_index(i):`` makes ``i`` current inside the block
    (None: changes nothing)."""

    def __init__(self, device: Optional[int], /) -> None:
        self.idx = device
        self.prev: Optional[int] = None

    def __enter__(self) -> None:
        if self.idx is not None:
            _require()
            self.prev = cuda.current_device()
            cuda.set_device(self.idx)

    def __exit__(self, *exc: Any) -> None:
        if self.prev is not None:
            cuda.set_device(self.prev)


current_device_idx = current_device_index  # the names PyTorch 2.6 used (deprecated there)
set_device_idx = set_device_index


def empty_cache() -> None:
    _require()
    cuda.empty_cache()


def memory_allocated(device_index: Any = None, /) -> int:
    _require()
    return cuda.memory_allocated(_cuda_index(device_index))


def max_memory_allocated(device_index: Any = None, /) -> int:
    _require()
    return cuda.max_memory_allocated(_cuda_index(device_index))


def memory_reserved(device_index: Any = None, /) -> int:
    _require()
    return cuda.memory_reserved(_cuda_index(device_index))


def max_memory_reserved(device_index: Any = None, /) -> int:
    _require()
    return cuda.max_memory_reserved(_cuda_index(device_index))


def reset_peak_memory_stats(device_index: Any = None, /) -> None:
    _require()
    cuda.reset_peak_memory_stats(_cuda_index(device_index))


def get_memory_info(device_index: Any = None, /) -> tuple[int, int]:
    """(free, total) bytes of the device, as ``cuda.mem_get_info``."""
    _require()
    return cuda.mem_get_info(_cuda_index(device_index))
