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

from datetime import timedelta
from typing import Any, Callable, Optional

import numpy as np

from .. import warn_always
from ..arrays import to_numpy, transfer
from ..device import CPU
from ..tensor import Tensor
from . import mpi_transport as mpi
from .groups import resolve
from .process_group import World, default_world, not_a_member
from .reduce_op import ReduceOp
from .work import Work
from .nccl_transport import NcclTransport

__all__ = ["all_reduce", "broadcast", "barrier", "all_gather", "all_gather_single", "all_gather_into_tensor", "reduce",
           "gather", "scatter", "send", "recv", "isend", "irecv", "reduce_scatter", "reduce_scatter_single",
           "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "monitored_barrier"]


# ---------------------------------------------------------------------------- helpers
def _world(name: str, group: Any) -> Optional[World]:
    """The group a collective runs in; ``None`` on a rank outside it (the collective then does nothing)."""
    if not_a_member(group):
        warn_always.warn(f"Running {name} on global rank {default_world().rank} which does not belong to the "
                         "given group.", UserWarning, stacklevel=3)
        return None
    world = default_world(group)
    world.check_usable(name)
    return world


def _check_tensor(tensor: Any, param: str = "tensor") -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{param}` of type torch.Tensor but got "
                        f"{type(tensor)} instead.")


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
    if world is None:
        return None
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
    return _run(Work("all_reduce", world, poll, finish, abort, [tensor]), async_op)


def broadcast(tensor: Tensor, src: Optional[int] = None, group: Any = None, async_op: bool = False,
              group_src: Optional[int] = None) -> Optional[Work]:
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every other rank (in place).

    ``src`` is a global rank; ``group_src`` names the same rank inside ``group``."""
    world = _world("broadcast", group)
    if world is None:
        return None
    _check_tensor(tensor)
    src = resolve(world, "broadcast", "root", src, group_src)
    device = _over_nccl(world, tensor)
    buf, put_back = _inplace_buffer(tensor, device)
    abort = None
    if device:
        transport = _nccl(world)
        poll, abort = transport.broadcast(buf, src), transport.abort
    else:
        poll = mpi.ibroadcast(world.mpi_comm, buf, src).Test
    return _run(Work("broadcast", world, poll, put_back, abort, [tensor]), async_op)


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Optional[Work]:
    """Wait until every rank has reached this line."""
    world = _world("barrier", group)
    if world is None:
        return None
    return _run(Work("barrier", world, mpi.ibarrier(world.mpi_comm).Test), async_op)


def reduce(tensor: Tensor, dst: Optional[int] = None, op: ReduceOp = ReduceOp.SUM, group: Any = None,
           async_op: bool = False, group_dst: Optional[int] = None) -> Optional[Work]:
    """Combine ``tensor`` over all ranks into rank ``dst``'s ``tensor``; the others' stay as they were."""
    world = _world("reduce", group)
    if world is None:
        return None
    _check_tensor(tensor)
    dst = resolve(world, "reduce", "root", dst, group_dst)
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
    if world is None:
        return None
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
    """The older name of :func:`all_gather_single` (PyTorch 2.13 deprecates it with a FutureWarning)."""
    warn_always.warn("`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
                     "`torch.distributed.all_gather_single` instead.", FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def all_gather_single(output_tensor: Tensor, input_tensor: Tensor, group: Any = None,
                      async_op: bool = False) -> Optional[Work]:
    """``all_gather`` into one tensor: rank r's ``input_tensor`` lands in the r-th slice of ``output_tensor``."""
    world = _world("all_gather_single", group)
    if world is None:
        return None
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    if output_tensor.numel() != world.size * input_tensor.numel():
        raise ValueError(f"all_gather_single: output_tensor must have world_size × input numel = "
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
    return _run(Work("all_gather_single", world, poll, put_back, abort, [output_tensor]), async_op)


def gather(tensor: Tensor, gather_list: Optional[list] = None, dst: Optional[int] = None, group: Any = None,
           async_op: bool = False, group_dst: Optional[int] = None) -> Optional[Work]:
    """Rank ``dst`` gets every rank's ``tensor`` in ``gather_list`` (over MPI, in host memory)."""
    world = _world("gather", group)
    if world is None:
        return None
    _check_tensor(tensor)
    dst = resolve(world, "gather", "root", 0 if dst is None and group_dst is None else dst, group_dst)
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


def scatter(tensor: Tensor, scatter_list: Optional[list] = None, src: Optional[int] = None, group: Any = None,
            async_op: bool = False, group_src: Optional[int] = None) -> Optional[Work]:
    """Rank ``src`` sends ``scatter_list[r]`` to rank r, which receives it in ``tensor`` (over MPI)."""
    world = _world("scatter", group)
    if world is None:
        return None
    _check_tensor(tensor)
    src = resolve(world, "scatter", "root", 0 if src is None and group_src is None else src, group_src)
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


def monitored_barrier(group: Any = None, timeout: Optional[timedelta] = None, wait_all_ranks: bool = False) -> None:
    """A barrier with its own deadline: a rank that does not arrive within ``timeout``
    (default: the group's) makes the others raise ``DistBackendError`` (a ``RuntimeError``)
    instead of waiting; PyTorch uses it to find a stuck rank.  (learntorch does not name
    the missing rank; ``wait_all_ranks`` is accepted.)"""
    world = _world("monitored_barrier", group)
    if world is None:
        return None
    Work("monitored_barrier", world, mpi.ibarrier(world.mpi_comm).Test).wait(timeout)
    return None


# ---------------------------------------------------------------------------- every rank to every rank
def _host_output(tensor: Tensor) -> tuple[np.ndarray, Callable[[], None]]:
    """A flat host buffer for a result tensor (its own memory when it can be) and how to put the result back."""
    return _inplace_buffer(tensor, False)


def _same_dtype(name: str, tensors: list[Tensor]) -> None:
    if len({t.dtype for t in tensors}) > 1:
        raise ValueError(f"{name}: all tensors must have the same dtype, got {sorted({str(t.dtype) for t in tensors})}")


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM, group: Any = None,
                          async_op: bool = False) -> Optional[Work]:
    """The older name of :func:`reduce_scatter_single` (PyTorch 2.13 deprecates it with a FutureWarning)."""
    warn_always.warn("`torch.distributed.reduce_scatter_tensor` is deprecated. Please use "
                     "`torch.distributed.reduce_scatter_single` instead.", FutureWarning, stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def reduce_scatter_single(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM, group: Any = None,
                          async_op: bool = False) -> Optional[Work]:
    """Reduce ``input`` over the ranks, then give rank r only the r-th of its world-size equal slices, in
    ``output``: an ``all_reduce`` whose result is split between the ranks (half of what it costs; ZeRO
    and FSDP shard gradients this way).  ``input`` has world size × ``output``'s elements."""
    world = _world("reduce_scatter_single", group)
    if world is None:
        return None
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _same_dtype("reduce_scatter_single", [output, input])
    if input.numel() != world.size * output.numel():
        raise RuntimeError(f"reduce_scatter_single: input must have world_size × output numel = "
                         f"{world.size * output.numel()} elements, got {input.numel()}")
    return _reduce_scatter("reduce_scatter_single", world, _read_buffer(input, False), output, op, async_op)


def _reduce_scatter(name: str, world: World, send: np.ndarray, output: Tensor, op: ReduceOp,
                    async_op: bool) -> Optional[Work]:
    """The exchange both reduce-scatters share: ``send`` holds world-size slices, one per rank in
    order; rank r receives the reduction of every rank's slice r in ``output``."""
    recv, put_back = _host_output(output)
    poll = mpi.ireduce_scatter(world.mpi_comm, send, recv, op).Test

    def finish() -> None:
        if op is ReduceOp.AVG:
            _average(recv, world.size)
        put_back()
    return _run(Work(name, world, poll, finish, result=[output]), async_op)


def reduce_scatter(output: Tensor, input_list: list, op: ReduceOp = ReduceOp.SUM, group: Any = None,
                   async_op: bool = False) -> Optional[Work]:
    """``reduce_scatter_tensor`` with the slices as a list: rank r gets the reduction of every rank's
    ``input_list[r]`` in ``output``."""
    world = _world("reduce_scatter", group)
    if world is None:
        return None
    _check_tensor(output, "output")
    for t in input_list:
        _check_tensor(t, "input_list")
    if len(input_list) != world.size:
        raise ValueError(f"reduce_scatter: input_list must hold one tensor per rank ({world.size}), "
                         f"got {len(input_list)}")
    _same_dtype("reduce_scatter", [output, *input_list])
    if any(t.numel() != output.numel() for t in input_list):
        raise RuntimeError("reduce_scatter: every tensor of input_list must have as many elements as output")
    send = np.concatenate([_read_buffer(t, False) for t in input_list])
    return _reduce_scatter("reduce_scatter", world, send, output, op, async_op)


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: Optional[list] = None,
                      input_split_sizes: Optional[list] = None, group: Any = None,
                      async_op: bool = False) -> Optional[Work]:
    """Every rank sends a different slice of ``input`` to every rank: rank r's j-th slice (along dim 0)
    becomes rank j's r-th slice of ``output`` (a transpose of the ranks × slices table; mixture-of-experts
    layers route tokens this way).  Without split sizes the slices are equal; with them, slice j has
    ``input_split_sizes[j]`` rows, and ``output_split_sizes[r]`` rows come from rank r."""
    world = _world("all_to_all_single", group)
    if world is None:
        return None
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _same_dtype("all_to_all_single", [output, input])
    send_counts = _split_counts(input, input_split_sizes, world.size, "input")
    recv_counts = _split_counts(output, output_split_sizes, world.size, "output")
    send = _read_buffer(input, False)
    recv, put_back = _host_output(output)
    poll = mpi.ialltoallv(world.mpi_comm, send, send_counts, recv, recv_counts).Test
    return _run(Work("all_to_all_single", world, poll, put_back, result=[output]), async_op)


def _split_counts(tensor: Tensor, split_sizes: Optional[list], size: int, what: str) -> list[int]:
    """How many elements of ``tensor`` go to (come from) each rank: split sizes count rows of dim 0."""
    rows = tensor.shape[0] if tensor.dim() > 0 else 1
    row = tensor.numel() // rows if rows else 0
    if not split_sizes:
        if rows % size:
            raise RuntimeError(f"all_to_all_single: {what}'s first dimension ({rows}) must be divisible by the "
                             f"world size ({size}) when no split sizes are given")
        return [rows // size * row] * size
    if len(split_sizes) != size:
        raise RuntimeError(f"Number of tensor splits not equal to group size: {what}_split_sizes has "
                           f"{len(split_sizes)} entries, the group has {size} ranks")
    if sum(split_sizes) != rows:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    return [int(s) * row for s in split_sizes]


def all_to_all(output_tensor_list: list, input_tensor_list: list, group: Any = None,
               async_op: bool = False) -> Optional[Work]:
    """``all_to_all_single`` with lists: ``input_tensor_list[j]`` goes to rank j, and
    ``output_tensor_list[r]`` receives what rank r sent to this rank (the sizes may differ)."""
    world = _world("all_to_all", group)
    if world is None:
        return None
    for t in output_tensor_list:
        _check_tensor(t, "output_tensor_list")
    for t in input_tensor_list:
        _check_tensor(t, "input_tensor_list")
    if len(output_tensor_list) != world.size or len(input_tensor_list) != world.size:
        raise ValueError(f"all_to_all: both lists must hold one tensor per rank ({world.size})")
    _same_dtype("all_to_all", [*output_tensor_list, *input_tensor_list])
    send = np.concatenate([_read_buffer(t, False) for t in input_tensor_list])
    recv = np.empty(sum(t.numel() for t in output_tensor_list), dtype=send.dtype)
    recv_counts = [t.numel() for t in output_tensor_list]
    poll = mpi.ialltoallv(world.mpi_comm, send, [t.numel() for t in input_tensor_list], recv, recv_counts).Test

    def finish() -> None:
        start = 0
        for t in output_tensor_list:
            _write(t, recv[start:start + t.numel()])
            start += t.numel()
    return _run(Work("all_to_all", world, poll, finish), async_op)


# ---------------------------------------------------------------------------- point to point
def isend(tensor: Tensor, dst: Optional[int] = None, group: Any = None, tag: int = 0,
          group_dst: Optional[int] = None) -> Optional[Work]:
    """Start sending ``tensor`` to rank ``dst``; ``wait()`` on the result before changing ``tensor``."""
    world = _world("send", group)
    if world is None:
        return None
    _check_tensor(tensor)
    dst = resolve(world, "send", "destination", dst, group_dst)
    buf = _read_buffer(tensor, False)
    request = world.mpi_comm.Isend(buf, dest=dst, tag=tag)
    return Work(f"send to rank {dst}", world, request.Test)


def irecv(tensor: Tensor, src: Optional[int] = None, group: Any = None, tag: int = 0,
          group_src: Optional[int] = None) -> Optional[Work]:
    """Start receiving into ``tensor`` from rank ``src`` (``None``: from any rank)."""
    from mpi4py import MPI
    world = _world("recv", group)
    if world is None:
        return None
    _check_tensor(tensor)
    if src is not None or group_src is not None:
        src = resolve(world, "recv", "source", src, group_src)
    buf, put_back = _inplace_buffer(tensor, False) if isinstance(tensor._data, np.ndarray) else (None, None)
    if buf is None:
        buf = np.empty(tensor.numel(), dtype=to_numpy(tensor._data).dtype)
        put_back = lambda: _write(tensor, buf)  # noqa: E731
    status = MPI.Status()
    request = world.mpi_comm.Irecv(buf, source=MPI.ANY_SOURCE if src is None else src, tag=tag)
    work = Work(f"recv from rank {'any' if src is None else src}", world, lambda: request.Test(status), put_back)
    work._status = status  # recv() reads the sender from it
    return work


def send(tensor: Tensor, dst: Optional[int] = None, group: Any = None, tag: int = 0,
         group_dst: Optional[int] = None) -> None:
    """Send ``tensor`` to rank ``dst``, which must call ``recv``."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor: Tensor, src: Optional[int] = None, group: Any = None, tag: int = 0,
         group_src: Optional[int] = None) -> int:
    """Receive into ``tensor`` from rank ``src`` (``None``: any rank); returns the sender's global rank
    (-1 on a rank outside ``group``)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._world.global_rank(int(work._status.Get_source()))
