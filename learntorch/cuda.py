"""``learntorch.cuda``: is there a GPU, how many, which is current, how much memory is in use.

The one module that holds CUDA's state: whether CuPy found a GPU, the logical
devices, the current device of each thread, and the check of a ``cuda:N`` index.
``device.py`` and ``arrays.py`` ask it; it asks neither.

Backed by CuPy on a machine with an NVIDIA GPU.  Where there is none,
everything still imports: ``is_available()`` is False and the memory functions
return 0.  ``CUDA_VISIBLE_DEVICES`` decides which GPUs are seen, and renumbers
them from 0 — set it before the program starts.

learntorch extension (not in PyTorch), for teaching on a laptop:
:func:`use_logical_devices` (or ``LEARNTORCH_FAKE_CUDA=N`` in the environment)
gives ``N`` *logical* CUDA devices backed by host memory (see ``arrays.py``).
Tensors on them remember their device, operations refuse to mix devices, and
the memory functions below count their bytes with a model of PyTorch's caching
allocator (see ``device_memory.py``), so the out-of-memory lesson has figures.
"""
from __future__ import annotations

import os
import threading
from functools import lru_cache
from types import ModuleType
from typing import Any, NamedTuple, Optional, Union

from . import warn_always
from . import device_memory
from .device_memory import OutOfMemoryError

__all__ = ["is_available", "device_count", "current_device", "set_device", "device", "synchronize",
           "use_logical_devices", "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated", "mem_get_info",
           "set_per_process_memory_fraction", "get_device_name", "get_device_properties", "manual_seed",
           "manual_seed_all", "OutOfMemoryError"]


class CudaUnavailableError(RuntimeError, AssertionError):
    """No CUDA device.  PyTorch raises AssertionError ("Torch not compiled with CUDA
    enabled") on CPU builds and RuntimeError on GPU builds without a GPU; this is both."""


@lru_cache(maxsize=None)
def cupy_or_none() -> ModuleType | None:
    """CuPy if it is installed *and* a GPU answers; None otherwise (never raises)."""
    try:
        import cupy
    except Exception:
        return None
    try:
        return cupy if cupy.is_available() else None
    except Exception:
        return None


def _visible_indices(count: int) -> list[int]:
    """Honour ``CUDA_VISIBLE_DEVICES`` for the stand-in as the CUDA driver does for CuPy."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is None:
        return list(range(count))
    visible = []
    for part in env.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) >= count:
            break  # CUDA stops at the first invalid entry
        visible.append(int(part))
    return visible


# Set by ``learntorch.cuda.use_logical_devices(n)``; None: follow LEARNTORCH_FAKE_CUDA.
_logical_devices: int | None = None


def set_logical_device_count(n: int | None) -> None:
    """Switch the logical devices on (``n`` > 0), off (0) or back to the environment (None)."""
    global _logical_devices
    _logical_devices = n


def fake_cuda_count() -> int:
    """How many logical (stand-in) CUDA devices are visible: the number asked for with
    ``use_logical_devices(n)`` or ``LEARNTORCH_FAKE_CUDA=n`` (any other non-empty value
    but ``0`` means one), filtered by ``CUDA_VISIBLE_DEVICES``."""
    if _logical_devices is not None:
        n = _logical_devices
    else:
        raw = os.environ.get("LEARNTORCH_FAKE_CUDA", "")
        if not raw or raw == "0":
            return 0
        n = int(raw) if raw.isdigit() else 1
    return len(_visible_indices(n)) if n > 0 else 0


def unavailable_error() -> CudaUnavailableError:
    """The error for using ``cuda`` where there is none, with what to do instead."""
    return CudaUnavailableError(
        "CUDA is not available: learntorch found no GPU (CuPy is not installed, or no device answers). "
        "Use device='cpu', install the GPU extra (pip install -e '.[cuda]') on a machine with an NVIDIA "
        "GPU, or switch on learntorch's logical devices on the CPU (learntorch.cuda.use_logical_devices(2), "
        "or LEARNTORCH_FAKE_CUDA=2 in the environment), which behave like CuPy.")


def check_index(index: int) -> None:
    """PyTorch's errors for ``cuda:N`` with no CUDA at all, or beyond the visible devices."""
    if not is_available():
        raise unavailable_error()
    if index >= device_count():
        raise RuntimeError("CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
                           "reported at some other API call, so the stacktrace below might be incorrect.")


def is_available() -> bool:
    """True if a GPU can be used (CuPy found one), or logical devices are switched on."""
    return device_count() > 0


def device_count() -> int:
    """How many CUDA devices are visible (after ``CUDA_VISIBLE_DEVICES``)."""
    cp = cupy_or_none()
    if cp is not None:
        return int(cp.cuda.runtime.getDeviceCount())
    return fake_cuda_count()


def use_logical_devices(n: int | None, total_memory: int = device_memory.DEFAULT_TOTAL_MEMORY) -> None:
    """learntorch extension: make ``n`` logical CUDA devices on the CPU (0 switches them off;
    None goes back to what ``LEARNTORCH_FAKE_CUDA`` says).

    Each has ``total_memory`` bytes of capacity for the memory counters.  Call it
    before making tensors on ``cuda``: the memory books start afresh.  Where a real
    GPU is present, learntorch uses the GPU and this call changes nothing (with a warning).
    """
    if cupy_or_none() is not None:
        warn_always.warn("a real GPU is present: learntorch uses it, and logical devices stay off", stacklevel=2)
        return
    if n is not None and (not isinstance(n, int) or n < 0):
        raise ValueError(f"use_logical_devices: n must be a non-negative int or None, got {n!r}")
    set_logical_device_count(n)
    device_memory.reset_pools(total_memory)
    _thread.index = 0


# ---------------------------------------------------------------------------- the current device
class _Current(threading.local):
    index = 0  # per thread, as in CUDA: DataParallel's worker threads each pick their own


_thread = _Current()


def current_device() -> int:
    """The index that ``'cuda'`` without a number means (in this thread)."""
    return _thread.index


def set_device(device: Any) -> None:
    """Make ``device`` the current one (in this thread)."""
    index = _index(device)
    _thread.index = index
    cp = cupy_or_none()
    if cp is not None:
        cp.cuda.Device(index).use()


class device:
    """``with cuda.device(1):`` — make a device current inside the block, as PyTorch's
    context manager does (DataParallel's threads run their replica inside one)."""

    def __init__(self, device: Any) -> None:
        self.index = -1 if device is None else _index(device)

    def __enter__(self) -> None:
        self.prev = _thread.index
        if self.index >= 0:
            set_device(self.index)

    def __exit__(self, *exc: Any) -> None:
        if self.index >= 0:
            set_device(self.prev)


def synchronize(device: Any = None) -> None:
    """Wait until the GPU has finished all queued work (timings need this)."""
    cp = cupy_or_none()
    if cp is not None:
        cp.cuda.Device(_index(device)).synchronize()


# ---------------------------------------------------------------------------- memory
def _pool() -> Any:
    cp = cupy_or_none()
    return cp.get_default_memory_pool() if cp is not None else None


def _cupy_pool_bytes(device: Any, what: str) -> int:
    cp = cupy_or_none()
    with cp.cuda.Device(_index(device)):
        return int(getattr(cp.get_default_memory_pool(), what)())


def _books(device: Any) -> Optional[device_memory.DevicePool]:
    """The stand-in's books for ``device``, or None where there are no logical devices."""
    return device_memory.pool(_index(device)) if fake_cuda_count() else None


def memory_allocated(device: Any = None) -> int:
    """Bytes held by live tensors on ``device`` (default: the current one).

    A tensor's memory is freed when the *last* reference to it goes: ``del x``
    removes one name only."""
    if _pool() is not None:
        return _cupy_pool_bytes(device, "used_bytes")
    books = _books(device)
    return books.allocated if books is not None else 0


def max_memory_allocated(device: Any = None) -> int:
    """The highest ``memory_allocated`` since the start or ``reset_peak_memory_stats``."""
    if _pool() is not None:
        index = _index(device)
        return max(device_memory._cupy_peaks.get(index, 0), memory_allocated(index))
    books = _books(device)
    return books.peak_allocated if books is not None else 0


def memory_reserved(device: Any = None) -> int:
    """Bytes the caching pool holds from the device: allocated + cached for reuse."""
    if _pool() is not None:
        return _cupy_pool_bytes(device, "total_bytes")
    books = _books(device)
    return books.reserved if books is not None else 0


def max_memory_reserved(device: Any = None) -> int:
    if _pool() is not None:
        return memory_reserved(device)
    books = _books(device)
    return books.peak_reserved if books is not None else 0


def reset_peak_memory_stats(device: Any = None) -> None:
    """Start the peaks again from the current figures."""
    if _pool() is not None:
        device_memory._cupy_peaks[_index(device)] = memory_allocated(device)
        return
    books = _books(device)
    if books is not None:
        books.peak_allocated, books.peak_reserved = books.allocated, books.reserved


reset_max_memory_allocated = reset_peak_memory_stats


def empty_cache() -> None:
    """Give cached but unused memory back to the device.  Memory still held by live
    tensors is *not* freed: delete the tensors (every reference) first."""
    pool = _pool()
    if pool is not None:
        pool.free_all_blocks()
    elif fake_cuda_count():
        for index in range(device_count()):
            device_memory.pool(index).empty_cache()


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """``(free, total)`` bytes of the device."""
    cp = cupy_or_none()
    if cp is not None:
        with cp.cuda.Device(_index(device)):
            free, total = cp.cuda.runtime.memGetInfo()
        return int(free), int(total)
    books = _require_books(device)
    return books.total - books.reserved, books.total


def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    """Let this process use at most ``fraction`` of the device's memory; beyond it,
    allocations raise :class:`OutOfMemoryError` (on CuPy: CuPy's own error)."""
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    cp = cupy_or_none()
    if cp is not None:
        with cp.cuda.Device(_index(device)):
            cp.get_default_memory_pool().set_limit(fraction=fraction)
        return
    _require_books(device).fraction = fraction


def _require_books(device: Any) -> device_memory.DevicePool:
    books = _books(device)
    if books is None:
        raise unavailable_error()
    assert books is not None
    return books


# ---------------------------------------------------------------------------- properties
class _DeviceProperties(NamedTuple):
    name: str
    total_memory: int
    multi_processor_count: int


def get_device_name(device: Any = None) -> str:
    return get_device_properties(device).name


def get_device_properties(device: Any = None) -> _DeviceProperties:
    """The device's name and total memory (``torch.cuda.get_device_properties``)."""
    cp = cupy_or_none()
    index = _index(device)
    if cp is not None:
        props = cp.cuda.runtime.getDeviceProperties(index)
        return _DeviceProperties(props["name"].decode(), int(props["totalGlobalMem"]),
                                 int(props["multiProcessorCount"]))
    if fake_cuda_count():
        if index >= fake_cuda_count():
            raise AssertionError("Invalid device id")
        return _DeviceProperties("learntorch logical device (CPU stand-in, array-api-strict)",
                                 device_memory.pool(index).total, 1)
    raise RuntimeError("Found no NVIDIA driver on your system.")


def _index(device: Optional[Union[int, str, Any]]) -> int:
    """An index from ``None`` (the current device), an int, ``'cuda:1'`` or a device object."""
    if device is None:
        return _thread.index
    if isinstance(device, int):
        return device
    if isinstance(device, str):  # 'cuda' or 'cuda:1' (device.py sits above this module)
        name, _, number = device.partition(":")
        return int(number) if number.isdigit() else _thread.index
    index = getattr(device, "index", None)
    return _thread.index if index is None else index


def manual_seed(seed: int) -> None:
    """Accepted for compatibility: learntorch draws CUDA random numbers on the host
    from the CPU generator, so ``learntorch.manual_seed`` covers them."""


manual_seed_all = manual_seed

