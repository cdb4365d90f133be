"""``torch.storage``: the memory a tensor's elements live in, which views share.

A tensor is a *view* of a storage: a shape, strides and an offset into one buffer of bytes.
``x[1:]``, ``x.t()`` and ``x.view(3, 1)`` make new tensors over the same storage, so a write
through one is seen by all; ``x.clone()`` copies into a new storage.  ``x.untyped_storage()``
shows that buffer: ``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`` is the
question "do these two tensors share memory?", which ``a.data_ptr() == b.data_ptr()`` answers
only for views that start at the same element (``x[1:].data_ptr()`` is 4 bytes further on).

Here a storage is the NumPy (or CuPy) buffer at the root of the tensor's array: the array that
owns the memory, found by following NumPy's ``.base`` chain.  ``x.storage()`` is PyTorch's older
``TypedStorage`` (the same memory counted in elements of the tensor's dtype), deprecated there
with a warning, as here.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from . import warn_always
from .device import device as torch_device
from .tensor import Tensor

__all__ = ["UntypedStorage", "TypedStorage", "untyped_storage", "typed_storage", "is_storage"]


def _owner(array: Any) -> Any:
    """The array that owns ``array``'s memory (``array`` itself when it is no view)."""
    while isinstance(getattr(array, "base", None), type(array)):
        array = array.base
    return array


class UntypedStorage:
    """A tensor's memory as bytes: ``len(s)`` bytes from ``s.data_ptr()`` on."""

    def __init__(self, owner: Any, device: torch_device) -> None:
        self._owner = owner
        self.device = device

    def data_ptr(self) -> int:
        """The address of the first byte: equal for two tensors that share memory."""
        if isinstance(self._owner, np.ndarray):
            return int(self._owner.__array_interface__["data"][0])
        return int(self._owner.data.ptr)  # a CuPy array

    def nbytes(self) -> int:
        return int(self._owner.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def _bytes(self) -> np.ndarray:
        owner = self._owner if isinstance(self._owner, np.ndarray) else self._owner.get()
        return np.ascontiguousarray(owner).reshape(-1).view(np.uint8)

    def tolist(self) -> list:
        return self._bytes().tolist()

    def __getitem__(self, index: int) -> Any:
        return self._bytes()[index].tolist()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def __repr__(self) -> str:
        return _listing(self.tolist(), f"[torch.storage.{type(self).__name__}(device={self.device}) of size {len(self)}]")


class TypedStorage(UntypedStorage):
    """The same memory counted in elements of one dtype (PyTorch's older, deprecated storage)."""

    def __init__(self, owner: Any, device: torch_device, dtype: Any) -> None:
        super().__init__(owner, device)
        self.dtype = dtype

    def size(self) -> int:
        return self.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def untyped(self) -> UntypedStorage:
        return UntypedStorage(self._owner, self.device)

    def tolist(self) -> list:
        return self._bytes().view(self._owner.dtype).tolist()

    def __getitem__(self, index: int) -> Any:
        return self.tolist()[index]

    def __repr__(self) -> str:
        return _listing(self.tolist(), f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) "
                                       f"of size {len(self)}]")


def _listing(items: list, info: str) -> str:
    """PyTorch's print of a storage: each element on a line of its own, then what it is."""
    return " " + "\n ".join(str(v) for v in items) + "\n" + info


def untyped_storage(self: Tensor) -> UntypedStorage:
    """``x.untyped_storage()``: the bytes ``x`` is a view of (shared with every view of them)."""
    return UntypedStorage(_owner(self._data), self.device)


def typed_storage(self: Tensor) -> TypedStorage:
    """``x.storage()``: deprecated in PyTorch, with this warning, for ``x.untyped_storage()``."""
    warn_always.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                     "only storage class. This should only matter to you if you are using storages directly.  To "
                     "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                     UserWarning, stacklevel=2)
    return TypedStorage(_owner(self._data), self.device, self.dtype)


def is_storage(obj: Any) -> bool:
    """``torch.is_storage``: whether ``obj`` is a storage (not a tensor)."""
    return isinstance(obj, UntypedStorage)
