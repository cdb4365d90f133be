"""Process groups other than the default one: ``new_group`` and the rank translations.

A *group* (进程组) is a subset of the ranks with its own communicator, so that
some ranks can run collectives among themselves (pipeline stages, one group
per machine ...).  A group numbers its members 0 … size − 1 in the order of
their global ranks.  Two numberings therefore meet in every call that names a
rank: PyTorch's ``src``/``dst``/``peer`` arguments are *global* ranks, its
``group_src``/``group_dst``/``group_peer`` are ranks *inside* the group;
:func:`get_group_rank` and :func:`get_global_rank` convert.

Building a group is MPI's ``Comm.Split``: every rank of the default group
calls it (PyTorch's rule for ``new_group`` too), members with one colour, the
others with ``MPI.UNDEFINED``, which gives them no communicator: they get
``GroupMember.NON_GROUP_MEMBER`` back.  ``Split`` blocks without a deadline,
so a barrier that has one goes first: once every rank has passed it, nobody
is left to wait for.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any, Iterable, Optional

from .process_group import World, default_world, group, not_a_member
from . import process_group
from .work import Work

__all__ = ["new_group", "get_process_group_ranks", "get_global_rank", "get_group_rank"]


def new_group(ranks: Optional[Iterable[int]] = None, timeout: Optional[timedelta] = None,
              backend: Optional[str] = None, pg_options: Any = None, use_local_synchronization: bool = False,
              group_desc: Optional[str] = None, device_id: Any = None, sort_ranks: bool = True) -> Any:
    """A group of the ranks in ``ranks`` (global ranks; ``None``: all of them).

    Every rank of the default group must call it, members or not, in the same
    order as the other ranks' ``new_group`` calls.  Members get the group;
    the others get ``GroupMember.NON_GROUP_MEMBER``.  The group uses the default
    group's backend; ``backend``, if given, must be one that it can serve."""
    from mpi4py import MPI
    world = default_world()
    world.check_usable("new_group")
    members = list(range(world.size)) if ranks is None else [int(r) for r in ranks]
    if sort_ranks:
        members.sort()
    if len(set(members)) != len(members):
        raise ValueError(f"ranks list must not contain duplicate entries, got {members}")
    if len(members) > world.size:
        raise ValueError("the new group's world size should be less or equal to the world size set by "
                         "init_process_group")
    for r in members:
        if not 0 <= r < world.size:
            raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to {world.size - 1} "
                             f"(world_size={world.size})")
    if backend is not None and not process_group.is_backend_available(backend):
        raise ValueError(f"new_group: backend {backend!r} is not available here")
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    Work("new_group", world, world.mpi_comm.Ibarrier().Test).wait()  # everyone is here: Split cannot hang
    member = world.rank in members
    comm = world.mpi_comm.Split(0 if member else MPI.UNDEFINED, members.index(world.rank) if member else 0)
    if not member:
        return group.NON_GROUP_MEMBER
    sub = World(backend=world.backend, rank=comm.Get_rank(), size=comm.Get_size(),
                timeout=timeout or world.timeout, mpi_comm=comm, use_nccl=world.use_nccl,
                asked_for=world.asked_for, ranks=members)
    process_group._subgroups.append(sub)
    return sub


def get_process_group_ranks(group: Any) -> list[int]:
    """The global ranks of ``group``'s members, in group-rank order (``None``: the default group)."""
    return list(default_world(group).ranks)


def get_group_rank(group: Any, global_rank: int) -> int:
    """The rank inside ``group`` of global rank ``global_rank`` (ValueError if it is not a member)."""
    return _registered(group).group_rank(global_rank)


def get_global_rank(group: Any, group_rank: int) -> int:
    """The global rank of the member that is ``group_rank`` inside ``group``."""
    return _registered(group).global_rank(group_rank)


def _registered(group: Any) -> World:
    """A group object for the rank queries: here ``None`` does not mean the default group
    (``dist.group.WORLD`` does), as in PyTorch."""
    if group is None or not_a_member(group):
        raise ValueError(f"Group {group} is not registered, please create group with torch.distributed.new_group "
                         "API")
    return default_world(group)


def resolve(world: World, name: str, what: str, global_rank: Optional[int],
            group_rank: Optional[int]) -> int:
    """The rank inside ``world`` that a call names, by a global rank or a group rank (exactly one)."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        rank = group_rank
    elif global_rank is None:
        raise ValueError("Must specify global_rank or group_rank")
    else:
        rank = world.group_rank(global_rank)
    if not 0 <= rank < world.size:
        raise RuntimeError(f"{name}: invalid {what} rank: {rank} (the ranks are 0 … {world.size - 1})")
    return rank
