"""The memory of CUDA devices: the bytes that tensors hold, and the caching pool.

On a real GPU, CuPy allocates through its memory pool and ``learntorch.cuda``'s
counters read that pool.  learntorch's logical devices (the CPU stand-in, see
``arrays.py``) allocate nothing on a GPU, so this file keeps the books itself,
with a small model of PyTorch's *caching allocator*, so that the figures behave
as they do on a GPU:

* a *storage* (the memory behind a tensor and all of its views) is counted once,
  rounded up to a multiple of 512 bytes as PyTorch rounds, from the moment a
  tensor is made on it until the last tensor or view using it is gone
  (``weakref.finalize`` on its NumPy buffer).  That is ``memory_allocated()``;
* a freed block is not given back: it stays *reserved* in the pool, and a later
  request of the same rounded size reuses it.  A training loop asks for the same
  sizes at every step, so reserved memory stops growing after the first step.
  That is ``memory_reserved()``;
* ``empty_cache()`` hands the cached blocks back: reserved falls to allocated.
  It cannot free what live tensors still hold (the notes' ``del x`` mistake);
* a device has a total capacity (16 GiB unless ``use_logical_devices`` says
  otherwise; ``set_per_process_memory_fraction`` lowers the limit).  A request
  that does not fit, even after emptying the cache as PyTorch does before it
  gives up, raises :class:`OutOfMemoryError` with PyTorch's message.

Simplifications, compared with PyTorch's allocator: blocks are never split or
merged, and a cached block serves only a request of exactly its size; memory
that an operation uses internally without making a tensor of it is not seen.
"""
from __future__ import annotations

import threading
import weakref
from collections import Counter
from typing import Any, Optional

import numpy as np

__all__ = ["OutOfMemoryError", "DevicePool", "pool", "reset_pools", "track", "check_room", "format_size",
           "DEFAULT_TOTAL_MEMORY", "ROUND"]

DEFAULT_TOTAL_MEMORY = 16 * 2**30  # a logical device's capacity unless use_logical_devices says otherwise
ROUND = 512                        # PyTorch rounds every allocation up to a multiple of 512 bytes


class OutOfMemoryError(RuntimeError):
    """``torch.OutOfMemoryError`` (also ``torch.cuda.OutOfMemoryError``): a device could not
    give the memory asked for.  A subclass of RuntimeError, as in PyTorch."""


OutOfMemoryError.__module__ = "learntorch"  # tracebacks print learntorch.OutOfMemoryError, as torch's do


def format_size(n: int) -> str:
    """Bytes as PyTorch's messages print them: ``512 bytes``, ``1.50 KiB``, ``20.00 MiB``, ``8.00 GiB``."""
    if n <= 1024:
        return f"{n} bytes"
    for unit, scale in (("KiB", 2**10), ("MiB", 2**20)):
        if n <= scale * 1024:
            return f"{n / scale:.2f} {unit}"
    return f"{n / 2**30:.2f} GiB"


class DevicePool:
    """The books of one logical device: what tensors hold, what the pool keeps, the peaks."""

    def __init__(self, index: int, total: int) -> None:
        self.index = index
        self.total = total
        self.fraction: Optional[float] = None  # set_per_process_memory_fraction
        self.allocated = 0          # bytes in blocks that live storages use
        self.reserved = 0           # bytes the pool holds: allocated + cached
        self.peak_allocated = 0
        self.peak_reserved = 0
        self.cached: Counter = Counter()  # block size -> number of free blocks of that size

    @property
    def limit(self) -> int:
        return self.total if self.fraction is None else int(self.total * self.fraction)

    def make_room(self, size: int) -> None:
        """Raise OutOfMemoryError unless a block of ``size`` bytes can be had: a cached one of
        that size, or a new one from the device (after emptying the cache, as PyTorch tries)."""
        if self.cached[size]:
            return
        if self.reserved + size > self.limit:
            self.empty_cache()
        if self.reserved + size > self.limit:
            raise OutOfMemoryError(self._oom_message(size))

    def allocate(self, size: int) -> None:
        """Give a block of ``size`` bytes to a new storage."""
        self.make_room(size)
        if self.cached[size]:
            self.cached[size] -= 1
        else:
            self.reserved += size
            self.peak_reserved = max(self.peak_reserved, self.reserved)
        self.allocated += size
        self.peak_allocated = max(self.peak_allocated, self.allocated)

    def free(self, size: int) -> None:
        """A storage died: its block goes back to the pool's cache (still reserved)."""
        self.allocated -= size
        self.cached[size] += 1

    def empty_cache(self) -> None:
        """Hand the cached (free) blocks back to the device."""
        self.reserved -= sum(size * count for size, count in self.cached.items())
        self.cached.clear()

    def _oom_message(self, size: int) -> str:
        allowed = f"{format_size(self.limit)} allowed; " if self.fraction is not None else ""
        return (f"CUDA out of memory. Tried to allocate {format_size(size)}. GPU {self.index} has a total capacity "
                f"of {format_size(self.total)} of which {format_size(max(self.total - self.reserved, 0))} is free. "
                f"Including non-PyTorch memory, this process has {format_size(self.reserved)} memory in use. "
                f"{allowed}Of the allocated memory {format_size(self.allocated)} is allocated by PyTorch, and "
                f"{format_size(self.reserved - self.allocated)} is reserved by PyTorch but unallocated. If reserved "
                "but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
                "avoid fragmentation.  See documentation for Memory Management  "
                "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


# One lock for all books: DataParallel's replicas make tensors from several threads, and a
# finalizer runs in whichever thread drops the last reference (an RLock, since that may
# happen while this thread is already inside).
_lock = threading.RLock()
_pools: dict[int, DevicePool] = {}
_total_memory = DEFAULT_TOTAL_MEMORY
_live: set[int] = set()  # id() of the NumPy buffers being counted


def reset_pools(total_memory: Optional[int] = None) -> None:
    """Start the books afresh (``use_logical_devices``); storages made before are no longer counted."""
    global _total_memory
    with _lock:
        _pools.clear()
        _live.clear()
        if total_memory is not None:
            _total_memory = int(total_memory)


def pool(index: int) -> DevicePool:
    """The books of logical device ``index`` (made on first use)."""
    with _lock:
        p = _pools.get(index)
        if p is None:
            p = _pools[index] = DevicePool(index, _total_memory)
        return p


def _rounded(nbytes: int) -> int:
    return -(-nbytes // ROUND) * ROUND


def check_room(index: int, nbytes: int) -> None:
    """Refuse a request that cannot fit *before* the host memory for it is filled
    (creation functions and copies to a logical device call this first)."""
    if nbytes:
        with _lock:
            pool(index).make_room(_rounded(nbytes))


def _storage_of(array: Any) -> Optional[np.ndarray]:
    """The NumPy buffer that owns a stand-in array's memory (views lead back to it through ``.base``)."""
    inner = getattr(array, "_array", array)  # an array-api-strict array wraps a NumPy one
    if not isinstance(inner, np.ndarray):
        return None
    while isinstance(inner.base, np.ndarray):
        inner = inner.base
    return inner


def _release(key: int, books: DevicePool, size: int) -> None:
    with _lock:
        if key in _live and _pools.get(books.index) is books:
            _live.discard(key)
            books.free(size)


def track(array: Any, index: int) -> None:
    """Count the storage behind a new tensor on logical device ``index`` (once per storage)."""
    root = _storage_of(array)
    if root is None or root.nbytes == 0:
        return
    key = id(root)
    with _lock:
        if key in _live:
            return
        books = pool(index)
        size = _rounded(root.nbytes)
        books.allocate(size)  # may raise OutOfMemoryError: the tensor is then never made
        _live.add(key)
        weakref.finalize(root, _release, key, books, size).atexit = False


# ---------------------------------------------------------------------------- a real GPU (CuPy)
_cupy_peaks: dict[int, int] = {}


def note_cupy_peak(cp: Any, index: int) -> None:
    """CuPy's pool has no peak counter: remember the highest use seen when a tensor is made."""
    with cp.cuda.Device(index):
        used = int(cp.get_default_memory_pool().used_bytes())
    if used > _cupy_peaks.get(index, 0):
        _cupy_peaks[index] = used
