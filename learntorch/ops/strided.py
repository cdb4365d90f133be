"""``as_strided``: a view given directly by its sizes, strides and storage offset.

Every view (``t()``, ``x[1:]``, ``expand``, ``unfold``) is a way of reading the same memory
with other strides; ``as_strided`` lets the programmer write those numbers down.  Element
``i`` of the result lives at ``storage_offset + Σ i_d · stride_d`` in the storage.  Here the
storage is the memory of the tensor's *base* (the tensor that owns it; a view's
``storage_offset()`` counts from there), so ``x[2:].as_strided((2,), (1,))`` starts at the
view's own first element, as in PyTorch.

Backward (``AsStridedBackward0``): each result element's gradient is added to the input
element at the same memory position (overlapping windows add up), as in
:class:`ops.inplace.AsStridedView`, which sees an existing view the same way.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from .inplace import covered_elements

__all__ = ["as_strided"]


class AsStrided(Function):
    _backward_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, size: tuple = (), stride: tuple = (), offset: int = 0) -> Tensor:
        base = x._base if x._base is not None else x
        itemsize = base._data.itemsize
        start = base.data_ptr() + offset * itemsize
        view = np.lib.stride_tricks.as_strided(_from_pointer(base._data, start), shape=size,
                                               strides=tuple(s * itemsize for s in stride))
        ctx.elements = covered_elements(x._data, view).reshape(-1)
        ctx.shape = tuple(x.shape)
        return x._view_of(view)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        elements = ctx.elements
        inside = elements >= 0  # (a window may reach memory outside the input: no gradient there)
        n = 1
        for s in ctx.shape:
            n *= s
        flat = grad.new_zeros(n)
        index = Tensor._make(elements[inside], grad.device)
        values = grad.reshape(-1)
        if not inside.all():
            values = values[Tensor._make(np.nonzero(inside)[0], grad.device)]
        return flat.index_add(0, index, values).reshape(ctx.shape)


def _from_pointer(array: np.ndarray, start: int) -> np.ndarray:
    """A 1-element array at address ``start`` in ``array``'s memory, for ``as_strided`` to read
    from.  Its ``base`` keeps ``array`` alive, so the view never outlives the storage."""
    interface = dict(array.__array_interface__)
    interface.update(data=(start, interface["data"][1]), shape=(1,), strides=None)
    interface.pop("mask", None)
    return np.asarray(_Memory(interface, array))


class _Memory:
    """An address in a NumPy array's memory, in NumPy's ``__array_interface__`` form."""

    def __init__(self, interface: dict, owner: np.ndarray) -> None:
        self.__array_interface__ = interface
        self.owner = owner


def _storage_elements(base: Tensor) -> int:
    """How many elements the base's storage holds (its own elements: it owns them)."""
    return base.numel()


def as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: Optional[int] = None) -> Tensor:
    """A view of ``input``'s storage with these sizes and strides (in elements), starting
    ``storage_offset`` elements into it (by default where ``input`` starts).  Strides must not be
    negative, and the window must lie inside the storage, as in PyTorch."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"[{', '.join(map(str, stride))}]")
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, size))}]")
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if not input._backend.is_numpy:
        raise RuntimeError("learntorch's as_strided works on CPU (NumPy) tensors only: move the tensor with "
                           ".cpu() first")
    base = input._base if input._base is not None else input
    itemsize = input._dtype.itemsize
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * st for n, st in zip(size, stride))
    available = _storage_elements(base)
    if needed > available:
        raise RuntimeError(f"setStorage: sizes [{', '.join(map(str, size))}], strides [{', '.join(map(str, stride))}],"
                           f" storage offset {offset}, and itemsize {itemsize} requiring a storage size of "
                           f"{needed * itemsize} are out of bounds for storage of size {available * itemsize}")
    return AsStrided.apply(input, size=size, stride=stride, offset=offset)
