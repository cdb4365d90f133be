"""``learntorch.cuda``: is there a GPU, how many, and how much memory is in use.

Backed by CuPy on a machine with an NVIDIA GPU.  Where there is none,
everything still imports: ``is_available()`` is False and the memory functions
return 0.  ``LEARNTORCH_FAKE_CUDA=1`` switches on the CPU stand-in for tests
(see ``backend.py``).  ``CUDA_VISIBLE_DEVICES`` decides which GPUs are seen,
and renumbers them from 0 — set it before the program starts.
"""
from __future__ import annotations

from typing import Any, Optional

from .backend import cupy_or_none, fake_cuda_count

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize", "empty_cache",
           "memory_allocated", "memory_reserved", "max_memory_allocated", "get_device_name", "manual_seed",
           "manual_seed_all"]

_current = 0


def is_available() -> bool:
    """True if a GPU can be used (CuPy found one), or the stand-in is switched on."""
    return device_count() > 0


def device_count() -> int:
    """How many CUDA devices are visible (after ``CUDA_VISIBLE_DEVICES``)."""
    cp = cupy_or_none()
    if cp is not None:
        return int(cp.cuda.runtime.getDeviceCount())
    return fake_cuda_count()


def current_device() -> int:
    return _current


def set_device(device: Any) -> None:
    global _current
    index = device if isinstance(device, int) else getattr(device, "index", None) or 0
    _current = int(index)
    cp = cupy_or_none()
    if cp is not None:
        cp.cuda.Device(_current).use()


def _pool() -> Any:
    cp = cupy_or_none()
    return cp.get_default_memory_pool() if cp is not None else None


def synchronize(device: Any = None) -> None:
    """Wait until the GPU has finished all queued work (timings need this)."""
    cp = cupy_or_none()
    if cp is not None:
        cp.cuda.Device(_index(device)).synchronize()


def empty_cache() -> None:
    """Give cached but unused GPU memory back to the driver.  Memory still held by
    live tensors is *not* freed: delete the tensors (every reference) first."""
    pool = _pool()
    if pool is not None:
        pool.free_all_blocks()


def memory_allocated(device: Any = None) -> int:
    """Bytes held by live tensors (CuPy's memory pool: used bytes)."""
    pool = _pool()
    return int(pool.used_bytes()) if pool is not None else 0


def memory_reserved(device: Any = None) -> int:
    """Bytes the pool holds from the driver (used + cached)."""
    pool = _pool()
    return int(pool.total_bytes()) if pool is not None else 0


def max_memory_allocated(device: Any = None) -> int:
    return memory_allocated(device)


def get_device_name(device: Any = None) -> str:
    cp = cupy_or_none()
    if cp is not None:
        return cp.cuda.runtime.getDeviceProperties(_index(device))["name"].decode()
    if fake_cuda_count():
        return "learntorch CPU stand-in (array-api-strict)"
    raise RuntimeError("Found no NVIDIA driver on your system.")


def _index(device: Optional[Any]) -> int:
    if device is None:
        return _current
    return device if isinstance(device, int) else (getattr(device, "index", None) or 0)


def manual_seed(seed: int) -> None:
    """Accepted for compatibility: learntorch draws CUDA random numbers on the host
    from the CPU generator, so ``learntorch.manual_seed`` covers them."""


manual_seed_all = manual_seed
