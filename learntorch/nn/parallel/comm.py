"""Copying tensors between devices, the plain way (``torch.nn.parallel.comm``).

These four moves are what DataParallel is made of.  Here they only copy
numbers: no graph is recorded.  ``_functions.py`` wraps each in an autograd
Function so that gradients can flow back through it.

* ``broadcast``: the same tensor on every device;
* ``reduce_add``: tensors from several devices summed on one;
* ``scatter``: a tensor cut into chunks along ``dim``, chunk *i* on device *i*;
* ``gather``: chunks from several devices joined along ``dim`` on one.

PyTorch packs many small tensors into one buffer before copying (the
``*_coalesced`` variants, fewer and larger transfers); learntorch copies each
tensor on its own, which gives the same numbers.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ...autograd.grad_mode import no_grad
from ...device import device
from ...tensor import Tensor
from ... import cuda
from ...ops.shape import cat

__all__ = ["device_index", "broadcast", "broadcast_coalesced", "reduce_add", "reduce_add_coalesced", "scatter",
           "gather"]

DeviceId = Any  # an int, 'cuda:1', a learntorch.device; -1 or 'cpu' for the host where allowed


def device_index(d: DeviceId, allow_cpu: bool = False) -> int:
    """The CUDA index that ``d`` names (``1``, ``'cuda:1'``, ``device('cuda', 1)``); -1 for the CPU
    where ``allow_cpu`` (PyTorch's ``_get_device_index``)."""
    if isinstance(d, int) and not isinstance(d, bool):
        return d
    d = device(d) if isinstance(d, str) else d
    if not isinstance(d, device):
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{d}")
    if d.type == "cpu":
        if allow_cpu:
            return -1
        raise ValueError(f"Expected a cuda device, but got: {d}")
    if d.index is None:
        return cuda.current_device()
    return d.index


def _on(index: int) -> device:
    return device("cpu") if index == -1 else device("cuda", index)


def broadcast(tensor: Tensor, devices: Sequence[DeviceId]) -> tuple:
    """A copy of ``tensor`` on each device; on its own device, ``tensor`` itself (no copy)."""
    with no_grad():
        return tuple(tensor.to(_on(device_index(d))) for d in devices)


def broadcast_coalesced(tensors: Sequence[Tensor], devices: Sequence[DeviceId]) -> list:
    """``[[copies of tensors on devices[0]], [... on devices[1]], ...]``."""
    with no_grad():
        return [[t.to(_on(device_index(d))) for t in tensors] for d in devices]


def reduce_add(inputs: Sequence[Tensor], destination: Optional[DeviceId] = None) -> Tensor:
    """The element-wise sum of tensors from several devices, on ``destination``."""
    target = _on(device_index(destination if destination is not None else inputs[0].device))
    with no_grad():
        total = inputs[0].to(target, copy=True)
        for t in inputs[1:]:
            if t.shape != total.shape:
                raise ValueError(f"input has invalid size: got {'x'.join(map(str, t.shape))}, but expected "
                                 f"{'x'.join(map(str, total.shape))}")
            total.add_(t.to(target))
    return total


def reduce_add_coalesced(inputs: Sequence[Sequence[Tensor]], destination: Optional[DeviceId] = None) -> tuple:
    """``inputs[j][i]`` is tensor *i* on device *j*: the sum over *j* of each tensor *i*."""
    return tuple(reduce_add(group, destination) for group in zip(*inputs))


def scatter(tensor: Tensor, devices: Sequence[DeviceId], chunk_sizes: Optional[Sequence[int]] = None,
            dim: int = 0) -> tuple:
    """Cut ``tensor`` along ``dim`` and put chunk *i* on ``devices[i]``.

    Without ``chunk_sizes`` the cut is ``tensor.chunk(len(devices), dim)``: chunks of
    ceil(n / devices) rows, the last one smaller, and *fewer chunks than devices*
    when the batch is small (5 rows on 4 devices: 2, 2, 1)."""
    with no_grad():
        if chunk_sizes is None:
            chunks = tensor.chunk(len(devices), dim)
        else:
            if sum(chunk_sizes) != tensor.shape[dim]:
                raise RuntimeError(f"Chunk sizes should sum to {tensor.shape[dim]}, but got {sum(chunk_sizes)}")
            chunks = tensor.split(list(chunk_sizes), dim)
        return tuple(c.to(_on(device_index(d))) for c, d in zip(chunks, devices))


def gather(tensors: Sequence[Tensor], dim: int = 0, destination: Optional[DeviceId] = None) -> Tensor:
    """Join tensors from several devices along ``dim`` on ``destination`` (-1 or 'cpu': the host)."""
    target = _on(device_index(destination, allow_cpu=True)) if destination is not None else \
        _on(device_index("cuda"))
    with no_grad():
        return cat([t.to(target) for t in tensors], dim)
