"""The collectives (集合通信): what every rank calls together, and point-to-point messages.

Each function follows the same three steps:

1. find a *contiguous buffer* holding the tensor's values — the tensor's own
   memory when it can be (MPI then writes the result straight into the tensor),
   else a copy (a non-contiguous view; a CuPy tensor going over MPI);
2. *start* the transport's non-blocking operation on it (MPI for host memory,
   NCCL for CuPy tensors when the group has NCCL);
3. wrap it in a :class:`Work` whose ``finish`` puts the result into the tensor
   (and divides by the world size for ``ReduceOp.AVG``); wait for it at once,
   or return it to the caller with ``async_op=True``.

Every rank must call the same collectives in the same order: MPI matches the
n-th collective of one rank with the n-th collective of the others.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ..arrays import to_numpy, transfer
from ..device import CPU
from ..tensor import Tensor
from . import mpi_transport as mpi
from .process_group import World, default_world
from .reduce_op import ReduceOp
from .work import Work
from .nccl_transport import NcclTransport

__all__ = ["all_reduce", "broadcast", "barrier", "all_gather", "all_gather_into_tensor", "reduce", "gather",
           "scatter", "send", "recv", "isend", "irecv"]


# ---------------------------------------------------------------------------- helpers
def _world(name: str, group: Any) -> World:
    world = default_world(group)
    world.check_usable(name)
    return world


def _check_tensor(tensor: Any, param: str = "tensor") -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{param}` of type torch.Tensor but got "
                        f"{type(tensor)} instead.")


def _check_rank(world: World, rank: int, name: str, what: str) -> None:
    if not 0 <= rank < world.size:
        raise RuntimeError(f"{name}: invalid {what} rank: {rank} (the ranks are 0 … {world.size - 1})")


def _over_nccl(world: World, tensor: Tensor) -> bool:
    """CuPy tensors go through NCCL when the group has it; everything else through MPI."""
    return world.use_nccl and tensor.device.type == "cuda" and type(tensor._data).__module__.startswith("cupy")


def _nccl(world: World) -> Any:
    if world.nccl is None:
        world.nccl = NcclTransport(world.mpi_comm, world.rank, world.size)
    return world.nccl


def _changed(tensor: Tensor) -> None:
    """The tensor's values were changed in place: bump its version, as any in-place op does."""
    tensor._version_counter[0] += 1


def _inplace_buffer(tensor: Tensor, on_device: bool) -> tuple[Any, Callable[[], None]]:
    """A flat contiguous buffer for ``tensor`` and the function that puts the result back into it."""
    data = tensor._data
    if on_device:
        own_memory = data.flags.c_contiguous
    else:
        own_memory = isinstance(data, np.ndarray) and data.flags.c_contiguous and data.flags.writeable
    if own_memory:
        return data.reshape(-1), lambda: _changed(tensor)  # a view: the transport writes into the tensor
    if on_device:
        import cupy as cp
        buf = cp.ascontiguousarray(data).reshape(-1)
    else:
        buf = np.array(to_numpy(data), order="C").reshape(-1)  # a copy in host memory
    return buf, lambda: _write(tensor, buf)


def _read_buffer(tensor: Tensor, on_device: bool) -> Any:
    """A flat contiguous buffer with ``tensor``'s values, only read by the transport."""
    if on_device:
        import cupy as cp
        return cp.ascontiguousarray(tensor._data).reshape(-1)
    return np.ascontiguousarray(to_numpy(tensor._data)).reshape(-1)


def _write(tensor: Tensor, values: Any) -> None:
    """Copy ``values`` (any shape with the right number of elements) into ``tensor``'s memory."""
    data = tensor._data
    shaped = values.reshape(tuple(tensor.shape))
    if isinstance(values, np.ndarray) and not isinstance(data, np.ndarray):
        shaped = transfer(shaped, CPU, tensor.device)  # host result, device tensor
    data[...] = shaped
    _changed(tensor)


def _average(buf: Any, size: int) -> None:
    if buf.dtype.kind == "f":
        buf /= size
    else:
        buf //= size


def _run(work: Work, async_op: bool) -> Optional[Work]:
    if async_op:
        return work
    work.wait()
    return None


# ---------------------------------------------------------------------------- collectives
def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: Any = None,
               async_op: bool = False) -> Optional[Work]:
    """Combine ``tensor`` over all ranks with ``op`` and leave the result in ``tensor`` on every rank (in place)."""
    world = _world("all_reduce", group)
    _check_tensor(tensor)
    device = _over_nccl(world, tensor)
    buf, put_back = _inplace_buffer(tensor, device)
    abort = None
    if device:
        transport = _nccl(world)
        poll, abort = transport.all_reduce(buf, op), transport.abort
    else:
        poll = mpi.iallreduce(world.mpi_comm, buf, op).Test

    def finish() -> None:
        if op is ReduceOp.AVG:
            _average(buf, world.size)
        put_back()
    return _run(Work("all_reduce", world, poll, finish, abort), async_op)


def broadcast(tensor: Tensor, src: int, group: Any = None, async_op: bool = False) -> Optional[Work]:
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every other rank (in place)."""
    world = _world("broadcast", group)
    _check_tensor(tensor)
    _check_rank(world, src, "broadcast", "root")
    device = _over_nccl(world, tensor)
    buf, put_back = _inplace_buffer(tensor, device)
    abort = None
    if device:
        transport = _nccl(world)
        poll, abort = transport.broadcast(buf, src), transport.abort
    else:
        poll = mpi.ibroadcast(world.mpi_comm, buf, src).Test
    return _run(Work("broadcast", world, poll, put_back, abort), async_op)


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Optional[Work]:
    """Wait until every rank has reached this line."""
    world = _world("barrier", group)
    return _run(Work("barrier", world, mpi.ibarrier(world.mpi_comm).Test), async_op)


def reduce(tensor: Tensor, dst: int, op: ReduceOp = ReduceOp.SUM, group: Any = None,
           async_op: bool = False) -> Optional[Work]:
    """Combine ``tensor`` over all ranks into rank ``dst``'s ``tensor``; the others' stay as they were."""
    world = _world("reduce", group)
    _check_tensor(tensor)
    _check_rank(world, dst, "reduce", "root")
    device = _over_nccl(world, tensor)
    buf, put_back = _inplace_buffer(tensor, device)
    abort = None
    if device:
        transport = _nccl(world)
        poll, abort = transport.reduce(buf, op, dst), transport.abort
    else:
        poll = mpi.ireduce(world.mpi_comm, buf, op, dst).Test

    def finish() -> None:
        if world.rank == dst:
            if op is ReduceOp.AVG:
                _average(buf, world.size)
            put_back()
    return _run(Work("reduce", world, poll, finish, abort), async_op)


def all_gather(tensor_list: list, tensor: Tensor, group: Any = None, async_op: bool = False) -> Optional[Work]:
    """Every rank gets every rank's ``tensor``: ``tensor_list[r]`` receives rank r's."""
    world = _world("all_gather", group)
    _check_tensor(tensor)
    if len(tensor_list) != world.size:
        raise ValueError(f"all_gather: tensor_list must hold one tensor per rank ({world.size}), "
                         f"got {len(tensor_list)}")
    for t in tensor_list:
        _check_tensor(t, "tensor_list")
    device = _over_nccl(world, tensor)
    send = _read_buffer(tensor, device)
    abort = None
    if device:
        import cupy as cp
        recv = cp.empty((world.size, send.size), dtype=send.dtype)
        transport = _nccl(world)
        poll, abort = transport.all_gather(send, recv), transport.abort
    else:
        recv = np.empty((world.size, send.size), dtype=send.dtype)
        poll = mpi.iallgather(world.mpi_comm, send, recv).Test

    def finish() -> None:
        for r, t in enumerate(tensor_list):
            _write(t, recv[r])
    return _run(Work("all_gather", world, poll, finish, abort), async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Any = None,
                           async_op: bool = False) -> Optional[Work]:
    """``all_gather`` into one tensor: rank r's ``input_tensor`` lands in the r-th slice of ``output_tensor``."""
    world = _world("all_gather_into_tensor", group)
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    if output_tensor.numel() != world.size * input_tensor.numel():
        raise ValueError(f"all_gather_into_tensor: output_tensor must have world_size × input numel = "
                         f"{world.size * input_tensor.numel()} elements, got {output_tensor.numel()}")
    device = _over_nccl(world, input_tensor) and _over_nccl(world, output_tensor)
    send = _read_buffer(input_tensor, device)
    recv, put_back = _inplace_buffer(output_tensor, device)
    abort = None
    if device:
        transport = _nccl(world)
        poll, abort = transport.all_gather(send, recv), transport.abort
    else:
        poll = mpi.iallgather(world.mpi_comm, send, recv).Test
    return _run(Work("all_gather_into_tensor", world, poll, put_back, abort), async_op)


def gather(tensor: Tensor, gather_list: Optional[list] = None, dst: int = 0, group: Any = None,
           async_op: bool = False) -> Optional[Work]:
    """Rank ``dst`` gets every rank's ``tensor`` in ``gather_list`` (over MPI, in host memory)."""
    world = _world("gather", group)
    _check_tensor(tensor)
    _check_rank(world, dst, "gather", "root")
    if world.rank == dst and (gather_list is None or len(gather_list) != world.size):
        raise ValueError(f"Argument ``gather_list`` must be specified on destination rank, with one tensor per "
                         f"rank ({world.size}).")
    send = _read_buffer(tensor, False)
    recv = np.empty((world.size, send.size), dtype=send.dtype) if world.rank == dst else None
    poll = mpi.igather(world.mpi_comm, send, recv, dst).Test

    def finish() -> None:
        if recv is not None:
            for r, t in enumerate(gather_list):
                _write(t, recv[r])
    return _run(Work("gather", world, poll, finish), async_op)


def scatter(tensor: Tensor, scatter_list: Optional[list] = None, src: int = 0, group: Any = None,
            async_op: bool = False) -> Optional[Work]:
    """Rank ``src`` sends ``scatter_list[r]`` to rank r, which receives it in ``tensor`` (over MPI)."""
    world = _world("scatter", group)
    _check_tensor(tensor)
    _check_rank(world, src, "scatter", "root")
    send = None
    if world.rank == src:
        if scatter_list is None or len(scatter_list) != world.size:
            raise ValueError(f"Argument ``scatter_list`` must be specified on source rank, with one tensor per "
                             f"rank ({world.size}).")
        send = np.stack([_read_buffer(t, False) for t in scatter_list])
    recv, put_back = _inplace_buffer(tensor, False) if isinstance(tensor._data, np.ndarray) else (None, None)
    if recv is None:  # a device tensor: receive in host memory, then copy
        recv = np.empty(tensor.numel(), dtype=to_numpy(tensor._data).dtype)
        put_back = lambda: _write(tensor, recv)  # noqa: E731
    poll = mpi.iscatter(world.mpi_comm, send, recv, src).Test
    return _run(Work("scatter", world, poll, put_back), async_op)


# ---------------------------------------------------------------------------- point to point
def isend(tensor: Tensor, dst: int, group: Any = None, tag: int = 0) -> Work:
    """Start sending ``tensor`` to rank ``dst``; ``wait()`` on the result before changing ``tensor``."""
    world = _world("send", group)
    _check_tensor(tensor)
    _check_rank(world, dst, "send", "destination")
    buf = _read_buffer(tensor, False)
    request = world.mpi_comm.Isend(buf, dest=dst, tag=tag)
    return Work(f"send to rank {dst}", world, request.Test)


def irecv(tensor: Tensor, src: Optional[int] = None, group: Any = None, tag: int = 0) -> Work:
    """Start receiving into ``tensor`` from rank ``src`` (``None``: from any rank)."""
    from mpi4py import MPI
    world = _world("recv", group)
    _check_tensor(tensor)
    if src is not None:
        _check_rank(world, src, "recv", "source")
    buf, put_back = _inplace_buffer(tensor, False) if isinstance(tensor._data, np.ndarray) else (None, None)
    if buf is None:
        buf = np.empty(tensor.numel(), dtype=to_numpy(tensor._data).dtype)
        put_back = lambda: _write(tensor, buf)  # noqa: E731
    status = MPI.Status()
    request = world.mpi_comm.Irecv(buf, source=MPI.ANY_SOURCE if src is None else src, tag=tag)
    work = Work(f"recv from rank {'any' if src is None else src}", world, lambda: request.Test(status), put_back)
    work._status = status  # recv() reads the sender from it
    return work


def send(tensor: Tensor, dst: int, group: Any = None, tag: int = 0) -> None:
    """Send ``tensor`` to rank ``dst``, which must call ``recv``."""
    isend(tensor, dst, group, tag).wait()


def recv(tensor: Tensor, src: Optional[int] = None, group: Any = None, tag: int = 0) -> int:
    """Receive into ``tensor`` from rank ``src`` (``None``: any rank); returns the sender's rank."""
    work = irecv(tensor, src, group, tag)
    work.wait()
    return int(work._status.Get_source())
