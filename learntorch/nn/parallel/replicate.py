"""Step 2 of DataParallel: one copy of the module per device, made afresh at every call.

A replica is a *shallow* copy of each module in the tree (the same class, the
same hooks and plain attributes) whose tensors are replaced:

* parameters by the outputs of one ``Broadcast`` — differentiable copies, no
  longer leaves and no longer ``Parameter``s (a replica has no
  ``parameters()``; the only parameters are the original ones).  In backward,
  ``BroadcastBackward`` sums the replicas' gradients into the originals' ``.grad``;
* buffers by plain copies, made again from the original at every call.  On
  ``devices[0]`` the copy *is* the original tensor (PyTorch's broadcast does not
  copy onto the source device), so what replica 0 changes in place — BatchNorm's
  running statistics, from its own chunk of the batch — reaches the original;
  what the other replicas change is thrown away with them.

Under ``no_grad`` (``detach=True``) parameters are copied without a graph.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Sequence, TypeVar

from ..modules.module import Module
from . import comm
from ._functions import Broadcast

__all__ = ["replicate"]

T = TypeVar("T", bound=Module)


def _replicate_for_data_parallel(module: Module) -> Module:
    """A shallow copy of one module, with its own tables (no parameters of its own)."""
    replica = module.__new__(type(module))
    setattr_ = object.__setattr__
    setattr_(replica, "__dict__", module.__dict__.copy())
    setattr_(replica, "_parameters", OrderedDict())
    setattr_(replica, "_buffers", module._buffers.copy())
    setattr_(replica, "_modules", module._modules.copy())
    setattr_(replica, "_is_replica", True)
    return replica


def _copies(tensors: list, devices: list, detach: bool) -> list:
    """``[[copies on devices[0]], [copies on devices[1]], ...]``, differentiable unless ``detach``."""
    if not tensors:
        return [[] for _ in devices]
    if detach:
        return comm.broadcast_coalesced(tensors, devices)
    flat = Broadcast.apply(devices, *tensors)
    n = len(tensors)
    return [list(flat[i:i + n]) for i in range(0, len(flat), n)]


def replicate(network: T, devices: Sequence[Any], detach: bool = False) -> list[T]:
    """One replica of ``network`` per device (see the module docstring)."""
    devices = [comm.device_index(d) for d in devices]
    if not devices:
        return []
    params = list(network.parameters())
    param_copies = _copies(params, devices, detach)
    param_index = {id(p): i for i, p in enumerate(params)}

    # buffers that require grad (rare) are broadcast with a graph, the others without
    buffers = list(network.buffers())
    buffer_copies: dict[int, tuple[list, int]] = {}  # id(buffer) -> (copies per device, position)
    for differentiable in (True, False):
        group = [b for b in buffers if (b.requires_grad and not detach) == differentiable]
        copies = _copies(group, devices, detach=not differentiable)
        for k, b in enumerate(group):
            buffer_copies[id(b)] = (copies, k)

    modules = list(network.modules())
    module_index = {id(m): i for i, m in enumerate(modules)}
    replicas = [[_replicate_for_data_parallel(m) for m in modules] for _ in devices]

    for i, module in enumerate(modules):
        for j in range(len(devices)):
            replica = replicas[j][i]
            for name, child in module._modules.items():
                replica._modules[name] = None if child is None else replicas[j][module_index[id(child)]]
            for name, param in module._parameters.items():
                if param is None:
                    replica._parameters[name] = None
                else:  # no longer a leaf, so a plain attribute, not a Parameter
                    object.__setattr__(replica, name, param_copies[j][param_index[id(param)]])
            for name, buf in module._buffers.items():
                if buf is not None:
                    copies, k = buffer_copies[id(buf)]
                    replica._buffers[name] = copies[j][k]
    return [replicas[j][0] for j in range(len(devices))]
