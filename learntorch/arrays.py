"""The array backends: which array library holds a device's numbers.

Every operation in ``learntorch.ops`` is written once, against the array API
standard that NumPy, CuPy and ``array-api-strict`` share (the module called
``xp``).  This file is the one place that decides, for a device, which ``xp``
that is:

* ``cpu``      → NumPy (through ``array_api_compat.numpy``, standard names)
* ``cuda:N``   → CuPy on GPU ``N`` where a GPU exists, or, on a machine without
  one, **learntorch's logical devices** (the *stand-in*, a teaching extension
  that PyTorch does not have): ``LEARNTORCH_FAKE_CUDA=N`` in the environment, or
  ``learntorch.cuda.use_logical_devices(N)`` from a program or a notebook cell,
  gives ``N`` devices ``cuda:0`` … ``cuda:N-1`` whose tensors hold
  ``array_api_strict`` arrays in host memory.  The stand-in is as strict as
  CuPy: it refuses implicit conversion to NumPy and has none of NumPy's extra
  functions, so code that only works because NumPy is forgiving fails a test
  on a laptop instead of on the GPU.  Tensors remember their logical device,
  and the operations refuse to mix devices with PyTorch's error, so that
  ``DataParallel``'s scatter, replicate and gather can be watched on a laptop.
  Their memory is counted by ``device_memory.py``.

Moving data between devices is always explicit (:func:`transfer`).
"""
from __future__ import annotations

from functools import lru_cache
from types import ModuleType
from typing import Any

import numpy as np

from . import cuda, device_memory
from .device import device
from .dtype_bfloat16 import BFLOAT16_CPU_ONLY

__all__ = ["Backend", "for_device", "transfer", "to_numpy"]


class Backend:
    """One array library serving one device: its namespace ``xp`` and how to
    name the device to it.  Small helpers that the standard lacks live here too,
    each with a portable fallback, so that ops never test which library they run on."""

    __slots__ = ("name", "xp", "native_device", "is_numpy")

    def __init__(self, name: str, xp: ModuleType, native_device: Any) -> None:
        self.name = name
        self.xp = xp
        self.native_device = native_device
        self.is_numpy = name == "numpy"

    def __repr__(self) -> str:
        return f"Backend({self.name!r}, device={self.native_device!r})"

    def dtype(self, d: Any) -> Any:
        """The backend's dtype object for a learntorch dtype."""
        try:
            return getattr(self.xp, d.name)
        except AttributeError:
            if self.is_numpy:
                return d._np  # bfloat16: ml_dtypes' type, which NumPy's standard namespace does not name
            if d.name == "bfloat16":  # CuPy and the stand-in have no bfloat16 (dtype_bfloat16.py)
                raise TypeError(BFLOAT16_CPU_ONLY) from None
            raise TypeError(f"learntorch's CUDA stand-in (array-api-strict) has no {d.name}; CuPy on a real GPU "
                            f"has. Use float32 on the stand-in.") from None

    def asarray(self, data: Any, dtype: Any = None) -> Any:
        """An array on this backend's device from host data (lists, NumPy arrays, numbers)."""
        xd = None if dtype is None else self.dtype(dtype)
        if self.is_numpy:
            return np.asarray(data, dtype=None if xd is None else xd)
        return self.xp.asarray(data, dtype=xd, device=self.native_device)

    def scatter_add(self, target: Any, index: Any, values: Any) -> Any:
        """``target[index] += values`` along axis 0, adding duplicates (indexing backward).

        NumPy has ``np.add.at`` and CuPy ``cupyx.scatter_add``; the standard has
        neither, so the stand-in builds a one-hot matrix and multiplies.
        """
        if self.is_numpy:
            np.add.at(target, index, values)
            return target
        if self.name == "cupy":
            import cupyx
            cupyx.scatter_add(target, index, values)
            return target
        xp = self.xp
        n = target.shape[0]
        onehot = xp.astype(xp.reshape(index, (-1, 1)) == xp.arange(n, device=self.native_device), target.dtype)
        flat = xp.reshape(values, (onehot.shape[0], -1))
        return target + xp.reshape(onehot.T @ flat, target.shape)

    def owns(self, array: Any) -> bool:
        """True if ``array`` is a fresh, writable, contiguous buffer that nothing
        else views: safe to keep as a leaf's ``.grad`` without copying."""
        if self.is_numpy:
            f = array.flags
            return type(array) is np.ndarray and f.owndata and f.writeable and f.c_contiguous
        return False

    def spans_fresh_buffer(self, array: Any) -> bool:
        """True if ``array`` is a writable, C-contiguous view of *all* of a buffer that
        owns its memory, such as ``(Mᵀ)ᵀ``: the same memory, in the same layout, as ``M``."""
        if self.is_numpy:
            base = array.base
            return (type(array) is np.ndarray and type(base) is np.ndarray and array.flags.c_contiguous
                    and array.flags.writeable and base.flags.owndata and base.nbytes == array.nbytes)
        return False


@lru_cache(maxsize=None)
def _numpy_backend() -> Backend:
    return Backend("numpy", _numpy_namespace(), "cpu")


def _numpy_namespace() -> ModuleType:
    """``array_api_compat.numpy`` with its most called functions in their direct form.

    ``np.sum``, ``np.max``, ``np.reshape`` … are Python functions that dispatch
    (``__array_function__``, ``_wrapreduction``) before they reach the ufunc or the
    array method that does the work; the wrappers cost 0.5–1.5 µs a call, more
    than the work itself on the small arrays of a notebook or an RNN step, and
    the operations call them several times each.  The direct forms below give the
    same results for NumPy arrays (``np.sum`` *is* ``np.add.reduce``, ``np.max``
    is ``np.maximum.reduce``, with the same dtype rules and errors; the tests in
    ``tests/package/test_arrays.py`` compare them)."""
    import array_api_compat.numpy as compat

    xp = ModuleType("learntorch.arrays.numpy", compat.__doc__)
    xp.__dict__.update({k: v for k, v in vars(compat).items() if not k.startswith("__")})

    def sum(x: Any, /, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        return np.add.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)

    def max(x: Any, /, axis: Any = None, keepdims: bool = False) -> Any:
        return np.maximum.reduce(x, axis=axis, keepdims=keepdims)

    def min(x: Any, /, axis: Any = None, keepdims: bool = False) -> Any:
        return np.minimum.reduce(x, axis=axis, keepdims=keepdims)

    def reshape(x: Any, /, shape: Any, *, copy: Any = None) -> Any:
        return np.asarray(x).reshape(shape) if copy is None else compat.reshape(x, shape, copy=copy)

    def permute_dims(x: Any, /, axes: tuple) -> Any:
        return x.transpose(axes)

    def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
        if device not in (None, "cpu"):
            return compat.astype(x, dtype, copy=copy, device=device)  # (its error for another device)
        return x.astype(dtype, copy=copy)

    def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Any:
        if device not in (None, "cpu"):
            return compat.full(shape, fill_value, dtype=dtype, device=device)  # (its error for another device)
        return np.full(shape, fill_value, dtype=dtype)

    for f in (sum, max, min, reshape, permute_dims, astype, full):
        setattr(xp, f.__name__, f)
    return xp


@lru_cache(maxsize=None)
def _cuda_backend(index: int, logical_devices: int) -> Backend:
    """The backend of ``cuda:index``; keyed by the number of logical devices too, so that
    switching them on or off (``cuda.use_logical_devices``) picks a fresh one."""
    cp = cuda.cupy_or_none()
    if cp is not None:
        import array_api_compat.cupy as xp
        return Backend("cupy", xp, cp.cuda.Device(index))
    if logical_devices:
        # array-api-strict has two devices of its own; logical device i uses one of them
        # (neighbours differ), and learntorch's own check catches every mix of devices.
        import array_api_strict as xps
        return Backend("strict", xps, xps.Device(f"device{index % 2 + 1}"))
    raise cuda.unavailable_error()


def for_device(d: device) -> Backend:
    """The backend that serves device ``d`` (which must be a concrete device)."""
    if d.type == "cpu":
        return _numpy_backend()
    return _cuda_backend(d.index or 0, cuda.fake_cuda_count())


def to_numpy(array: Any) -> np.ndarray:
    """Copy any backend's array to a NumPy array (the only way off a device)."""
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get"):  # CuPy
        return array.get()
    import array_api_strict as xps
    return np.from_dlpack(xps.asarray(array, device=xps.Device("CPU_DEVICE"), copy=True))


def transfer(array: Any, src: device, dst: device) -> Any:
    """Move an array between devices, explicitly, through host memory if needed."""
    if src == dst:
        return array
    host = to_numpy(array)
    target = for_device(dst)
    if not target.is_numpy and host.dtype.name == "bfloat16":
        raise TypeError(BFLOAT16_CPU_ONLY)
    if target.is_numpy:
        return np.array(host, copy=True) if host is array else host
    if target.name == "cupy":
        with target.native_device:
            return target.xp.asarray(host)
    # a logical device: refuse what cannot fit before copying it
    device_memory.check_room(dst.index or 0, host.nbytes)
    return target.xp.asarray(host, device=target.native_device, copy=True)
