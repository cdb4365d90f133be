"""Collectives on picklable Python objects (a dict of metrics, a config, a list of strings).

MPI and NCCL move arrays of numbers, not objects, so each function does what
PyTorch does: *pickle* the object into bytes, move the bytes as a ``uint8``
array, unpickle on the other side.  The ranks' byte strings have different
lengths, and a collective needs to know the sizes in advance, so there are
always two rounds: first the lengths (one integer per object), then the bytes,
padded to the longest.  The messages go over the group's MPI communicator as
non-blocking operations finished by :class:`Work`, so they too give up after
the group's timeout instead of hanging.

Unpickling runs arbitrary code: call these only with ranks you trust (the
same warning as PyTorch's).
"""
from __future__ import annotations

import pickle
from typing import Any, Optional

import numpy as np

from . import mpi_transport as mpi
from .collectives import _world
from .groups import resolve
from .process_group import World
from .work import Work

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
           "send_object_list", "recv_object_list"]

_SIZE = np.int64  # the dtype of the lengths


def _to_bytes(obj: Any) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj), dtype=np.uint8)


def _from_bytes(buf: np.ndarray) -> Any:
    return pickle.loads(buf.tobytes())


def _wait(name: str, world: World, request: Any) -> None:
    Work(name, world, request.Test).wait()


def _padded(payloads: list[np.ndarray], width: int) -> np.ndarray:
    """The byte strings as the rows of one ``len(payloads) × width`` array, zero-padded."""
    rows = np.zeros((len(payloads), width), dtype=np.uint8)
    for i, p in enumerate(payloads):
        rows[i, :p.size] = p
    return rows


def _all_sizes(name: str, world: World, size: int) -> np.ndarray:
    """Every rank's byte count (an all-gather of one integer)."""
    sizes = np.empty(world.size, dtype=_SIZE)
    _wait(name, world, mpi.iallgather(world.mpi_comm, np.array([size], dtype=_SIZE), sizes))
    return sizes


def all_gather_object(object_list: list, obj: Any, group: Any = None) -> None:
    """Every rank gets every rank's ``obj``: ``object_list[r]`` is set to rank r's (the list must have
    one slot per rank)."""
    world = _world("all_gather_object", group)
    if world is None:
        return None
    payload = _to_bytes(obj)
    sizes = _all_sizes("all_gather_object", world, payload.size)
    width = int(sizes.max())
    rows = np.empty((world.size, width), dtype=np.uint8)
    _wait("all_gather_object", world, mpi.iallgather(world.mpi_comm, _padded([payload], width)[0], rows))
    for r in range(world.size):
        object_list[r] = _from_bytes(rows[r, :sizes[r]])
    return None


def broadcast_object_list(object_list: list, src: Optional[int] = None, group: Any = None, device: Any = None,
                          group_src: Optional[int] = None) -> None:
    """Replace the objects of ``object_list`` on every rank by rank ``src``'s (in place; every rank's list
    must have the same length)."""
    world = _world("broadcast_object_list", group)
    if world is None:
        return None
    root = resolve(world, "broadcast_object_list", "root", 0 if src is None and group_src is None else src,
                   group_src)
    mine = world.rank == root
    payloads = [_to_bytes(o) for o in object_list] if mine else []
    sizes = np.array([p.size for p in payloads], dtype=_SIZE) if mine else np.empty(len(object_list), _SIZE)
    _wait("broadcast_object_list", world, mpi.ibroadcast(world.mpi_comm, sizes, root))
    data = np.concatenate(payloads) if mine and payloads else np.empty(int(sizes.sum()), np.uint8)
    _wait("broadcast_object_list", world, mpi.ibroadcast(world.mpi_comm, data, root))
    if not mine:
        start = 0
        for i, n in enumerate(sizes.tolist()):
            object_list[i] = _from_bytes(data[start:start + n])
            start += n
    return None


def gather_object(obj: Any, object_gather_list: Optional[list] = None, dst: Optional[int] = None,
                  group: Any = None, group_dst: Optional[int] = None) -> None:
    """Rank ``dst`` gets every rank's ``obj`` in ``object_gather_list`` (one slot per rank); the other
    ranks pass no list."""
    world = _world("gather_object", group)
    if world is None:
        return None
    root = resolve(world, "gather_object", "root", 0 if dst is None and group_dst is None else dst, group_dst)
    if world.rank == root and object_gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if world.rank != root and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    payload = _to_bytes(obj)
    sizes = _all_sizes("gather_object", world, payload.size)
    width = int(sizes.max())
    rows = np.empty((world.size, width), dtype=np.uint8) if world.rank == root else None
    _wait("gather_object", world, mpi.igather(world.mpi_comm, _padded([payload], width)[0], rows, root))
    if rows is not None:
        for r in range(world.size):
            object_gather_list[r] = _from_bytes(rows[r, :sizes[r]])
    return None


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list: Optional[list] = None,
                        src: Optional[int] = None, group: Any = None, group_src: Optional[int] = None) -> None:
    """Rank ``src`` sends ``scatter_object_input_list[r]`` to rank r, which finds it in
    ``scatter_object_output_list[0]``."""
    world = _world("scatter_object_list", group)
    if world is None:
        return None
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    root = resolve(world, "scatter_object_list", "root", 0 if src is None and group_src is None else src,
                   group_src)
    mine = world.rank == root
    if mine and (scatter_object_input_list is None or len(scatter_object_input_list) != world.size):
        raise ValueError(f"scatter_object_list: the source rank needs scatter_object_input_list with one object "
                         f"per rank ({world.size})")
    payloads = [_to_bytes(o) for o in scatter_object_input_list] if mine else []
    width = np.array([max(p.size for p in payloads)] if mine else [0], dtype=_SIZE)
    _wait("scatter_object_list", world, mpi.ibroadcast(world.mpi_comm, width, root))
    sizes = np.array([p.size for p in payloads], dtype=_SIZE) if mine else None
    my_size = np.empty(1, dtype=_SIZE)
    _wait("scatter_object_list", world, mpi.iscatter(world.mpi_comm, sizes, my_size, root))
    rows = _padded(payloads, int(width[0])) if mine else None
    row = np.empty(int(width[0]), dtype=np.uint8)
    _wait("scatter_object_list", world, mpi.iscatter(world.mpi_comm, rows, row, root))
    scatter_object_output_list[0] = _from_bytes(row[:int(my_size[0])])
    return None


def send_object_list(object_list: list, dst: Optional[int] = None, group: Any = None, device: Any = None,
                     group_dst: Optional[int] = None, use_batch: bool = False) -> None:
    """Send the objects of ``object_list`` to rank ``dst``, which calls ``recv_object_list`` with a list of
    the same length."""
    world = _world("send_object_list", group)
    if world is None:
        return None
    peer = resolve(world, "send_object_list", "destination", dst, group_dst)
    if peer == world.rank:
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    payloads = [_to_bytes(o) for o in object_list]
    sizes = np.array([p.size for p in payloads], dtype=_SIZE)
    data = np.concatenate(payloads) if payloads else np.empty(0, np.uint8)
    _wait(f"send_object_list to rank {dst}", world, world.mpi_comm.Isend(sizes, dest=peer))
    _wait(f"send_object_list to rank {dst}", world, world.mpi_comm.Isend(data, dest=peer))
    return None


def recv_object_list(object_list: list, src: Optional[int] = None, group: Any = None, device: Any = None,
                     group_src: Optional[int] = None, use_batch: bool = False) -> int:
    """Receive objects sent with ``send_object_list`` into ``object_list`` (in place) from rank ``src``
    (``None``: any rank); returns the sender's global rank."""
    from mpi4py import MPI
    world = _world("recv_object_list", group)
    if world is None:
        return -1
    peer = MPI.ANY_SOURCE
    if src is not None or group_src is not None:
        peer = resolve(world, "recv_object_list", "source", src, group_src)
    sizes = np.empty(len(object_list), dtype=_SIZE)
    status = MPI.Status()
    request = world.mpi_comm.Irecv(sizes, source=peer)
    Work("recv_object_list", world, lambda: request.Test(status)).wait()
    sender = status.Get_source()  # the bytes must come from the rank whose sizes we got
    data = np.empty(int(sizes.sum()), dtype=np.uint8)
    _wait("recv_object_list", world, world.mpi_comm.Irecv(data, source=sender))
    start = 0
    for i, n in enumerate(sizes.tolist()):
        object_list[i] = _from_bytes(data[start:start + n])
        start += n
    return world.global_rank(sender)
