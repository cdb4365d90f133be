"""The default process group (进程组): who am I, how many are we, and how do we talk.

``init_process_group`` is called once by every rank.  The *rendezvous* (how
the ranks find each other) is MPI's: ``mpiexec`` started them and told each
its rank, so there is no address or port to agree on.  The group remembers the
transports: MPI for tensors in host memory, NCCL (created on first use) for
CuPy tensors when the backend allows it.
"""
from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Optional

from .. import warn_always
from .errors import DistBackendError
from .. import cuda
from .work import Work

__all__ = ["init_process_group", "destroy_process_group", "is_available", "is_initialized", "is_mpi_available",
           "is_nccl_available", "get_backend", "get_rank", "get_world_size", "default_pg_timeout", "group",
           "GroupMember", "World", "default_world", "not_a_member", "is_gloo_available", "is_backend_available",
           "is_torchelastic_launched", "get_node_local_rank"]

default_pg_timeout = timedelta(minutes=30)  # PyTorch's default for CPU backends

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."
_BACKENDS = {"mpi": "mpi", "gloo": "mpi", "nccl": "nccl"}  # gloo: an alias, so PyTorch CPU programs run


@dataclass(eq=False)  # a group is equal only to itself, and hashable (programs key dicts by group)
class World:
    """The default process group: every rank that ``mpiexec`` started."""

    backend: str                 # "mpi", "nccl", or "cpu:mpi,cuda:nccl" (backend=None)
    rank: int
    size: int
    timeout: timedelta
    mpi_comm: Any                # an mpi4py communicator of our own (a Dup of COMM_WORLD)
    use_nccl: bool               # CuPy tensors go through NCCL (else through host memory and MPI)
    nccl: Any = None             # the NcclTransport, created by the first CUDA collective
    broken: Optional[str] = None  # why a collective gave up; the group is unusable after that
    asked_for: Optional[str] = None  # the backend name the program passed ("gloo"), for get_backend
    ranks: Optional[list[int]] = None  # the members' global ranks (a group from new_group); None: all ranks

    def __post_init__(self) -> None:
        if self.ranks is None:
            self.ranks = list(range(self.size))

    @property
    def is_default(self) -> bool:
        """Whether this is the default group (its ranks are the global ranks)."""
        return self is _world

    def group_rank(self, global_rank: int) -> int:
        """The rank inside this group of the process whose global rank is ``global_rank``."""
        if self.is_default:
            return global_rank
        if global_rank not in self.ranks:
            raise ValueError(f"Global rank {global_rank} is not part of group {self!r}")
        return self.ranks.index(global_rank)

    def global_rank(self, group_rank: int) -> int:
        """The global rank of the member that is ``group_rank`` inside this group."""
        if self.is_default:
            return group_rank
        if not 0 <= group_rank < self.size:
            raise ValueError(f"Group rank {group_rank} is not part of group {self!r}")
        return self.ranks[group_rank]

    @property
    def peer_failed(self) -> bool:
        """Whether the launcher has reported a dead rank (see ``_listen_for_dead_ranks``)."""
        return _dead_rank_reported

    def mark_broken(self, message: str) -> None:
        global _gave_up
        self.broken = message
        _gave_up = True

    def __repr__(self) -> str:
        return f"<ProcessGroup ranks={self.ranks} backend={self.asked_for or self.backend}>"

    def check_usable(self, name: str) -> None:
        if self.broken is not None:
            raise DistBackendError(f"learntorch.distributed: cannot run {name} on rank {self.rank}: an earlier "
                                   f"collective failed, so the process group is unusable. That failure was: "
                                   f"{self.broken}")


class group:
    """``dist.group.WORLD``: the default group (``None`` before ``init_process_group``).

    ``new_group`` returns ``NON_GROUP_MEMBER`` to the ranks it leaves out (PyTorch's
    value, -100): collectives called with it on those ranks warn and do nothing."""

    WORLD: Optional[World] = None
    NON_GROUP_MEMBER = -100


GroupMember = group

_world: Optional[World] = None
_subgroups: list[World] = []  # the groups made by new_group, freed with the default one
_exit_hook_installed = False
_dead_rank_reported = False  # set by the SIGUSR1 handler
_gave_up = False             # a collective did not complete: MPI must not be finalized
_listening = False           # that handler is installed


def default_world(group_arg: Any = None) -> World:
    """The default group, or PyTorch's ValueError if there is none yet."""
    if _world is None:
        raise ValueError(_NOT_INITIALIZED)
    if group_arg is None or group_arg is _world:
        return _world
    if isinstance(group_arg, World) and group_arg in _subgroups:
        return group_arg
    raise ValueError(f"Group {group_arg!r} is not registered, please create group with "
                     "torch.distributed.new_group API")


def not_a_member(group_arg: Any) -> bool:
    """Whether ``group_arg`` is what ``new_group`` gave a rank it left out."""
    return isinstance(group_arg, int) and group_arg == group.NON_GROUP_MEMBER


def is_available() -> bool:
    """Whether ``learntorch.distributed`` can be used here (it needs ``mpi4py``)."""
    return is_mpi_available()


def is_mpi_available() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_gloo_available() -> bool:
    """True where MPI is: ``backend="gloo"`` is served by MPI here, so a program that picks
    ``"gloo" if dist.is_gloo_available() else ...`` takes the path it takes under PyTorch CPU."""
    return is_mpi_available()


def is_backend_available(backend: str) -> bool:
    """Whether ``init_process_group(backend)`` can work here: ``"mpi"``, ``"gloo"`` (= MPI), ``"nccl"``."""
    checks = {"mpi": is_mpi_available, "gloo": is_gloo_available, "nccl": is_nccl_available}
    check = checks.get(str(backend).lower())
    return check is not None and check()


def is_torchelastic_launched() -> bool:
    """Whether ``torchrun`` started this process (PyTorch's test: ``TORCHELASTIC_RUN_ID`` is set).

    learntorch's launcher sets torchrun's rank variables but not that one, so this stays False."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def get_node_local_rank(fallback_rank: Optional[int] = None) -> int:
    """This process's rank on its machine: ``LOCAL_RANK`` (set by both launchers), else ``fallback_rank``."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def is_nccl_available() -> bool:
    """Whether CuPy with NCCL and a GPU are there (the ``nccl`` backend needs them)."""
    try:
        import cupy
        from cupy.cuda import nccl  # noqa: F401
        return int(cupy.cuda.runtime.getDeviceCount()) > 0
    except Exception:  # noqa: BLE001 - no CuPy, no NCCL in this CuPy build, or no driver
        return False


def is_initialized() -> bool:
    return _world is not None


def get_rank(group: Any = None) -> int:
    """This process's number in ``group``, 0 … group size − 1 (-1 outside the group, as in PyTorch)."""
    if not_a_member(group):
        return -1
    return default_world(group).rank


def get_world_size(group: Any = None) -> int:
    """How many processes take part in ``group`` (-1 outside it, as in PyTorch)."""
    if not_a_member(group):
        return -1
    return default_world(group).size


def get_backend(group: Any = None) -> str:
    """The backend's name as the program gave it: ``"gloo"`` stays ``"gloo"`` (as PyTorch
    prints it) although its messages travel over MPI here."""
    world = default_world(group)
    return world.asked_for or world.backend


def _import_mpi() -> Any:
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise RuntimeError("learntorch.distributed needs mpi4py and an MPI library: pip install "
                           "'learntorch[dist]' (mpi4py and the mpich wheel), or conda install -c conda-forge "
                           "mpi4py mpich") from e
    return MPI


def init_process_group(backend: Optional[str] = None, init_method: Optional[str] = None,
                       timeout: Optional[timedelta] = None, world_size: int = -1, rank: int = -1,
                       store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None) -> None:
    """Join the other ranks.  Call it once per process, before any collective.

    ``backend``: ``"mpi"``; ``"gloo"``, accepted as an alias for ``"mpi"``
    (learntorch has no Gloo); ``"nccl"`` for CuPy tensors (host tensors still
    go over MPI); ``None``: MPI, plus NCCL for CuPy tensors where there is a GPU.
    Rank and world size come from MPI; ``rank``/``world_size``, if given, must
    agree with them.  ``timeout`` bounds every collective (default 30 minutes).
    ``device_id`` (an int or ``cuda`` device) selects this rank's GPU.
    """
    global _world, _exit_hook_installed
    if _world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is None:
        name = "cpu:mpi,cuda:nccl" if is_nccl_available() else "mpi"
    else:
        name = _BACKENDS.get(str(backend).lower())
        if name is None:
            raise AssertionError(f"Unknown backend type {backend}: learntorch.distributed knows 'mpi', "
                                 "'gloo' (an alias of 'mpi') and 'nccl'")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    if init_method not in (None, "env://"):
        warn_always.warn(f"init_method={init_method!r} is not used: learntorch.distributed meets the other ranks "
                         "through MPI (start them with mpiexec or python -m learntorch.distributed.run).",
                         stacklevel=2)
    if store is not None:
        raise ValueError("learntorch.distributed has no Store: the ranks meet through MPI (mpiexec).")
    MPI = _import_mpi()
    _listen_for_dead_ranks()
    if not _exit_hook_installed:
        atexit.register(_leave_cleanly)  # after mpi4py's import: runs before mpi4py finalizes MPI
        _exit_hook_installed = True
    comm = _own_communicator(MPI, timeout)
    if world_size not in (-1, comm.Get_size()) or rank not in (-1, comm.Get_rank()):
        got = (rank, world_size)
        comm.Free()
        raise ValueError(f"init_process_group(rank={got[0]}, world_size={got[1]}) disagrees with MPI, which "
                         f"started this process as rank {MPI.COMM_WORLD.Get_rank()} of "
                         f"{MPI.COMM_WORLD.Get_size()}. Leave rank and world_size out, and choose the number "
                         "of processes with mpiexec -n N (or python -m learntorch.distributed.run -n N).")
    if name != "mpi" and device_id is not None:
        cuda.set_device(device_id)
    _world = World(backend=name, rank=comm.Get_rank(), size=comm.Get_size(), timeout=timeout, mpi_comm=comm,
                   use_nccl=name != "mpi", asked_for=None if backend is None else str(backend).lower())
    group.WORLD = _world


def destroy_process_group(group: Any = None) -> None:
    """Leave the process group; ``init_process_group`` may be called again afterwards.

    (MPI itself stays initialized until the process ends: MPI cannot start twice.)"""
    global _world
    if _world is None:
        raise AssertionError("Process group cannot be None")  # PyTorch's message
    if not_a_member(group):
        return
    world = default_world(group)
    if not world.is_default:  # one group made by new_group
        _subgroups.remove(world)
        _free(world)
        return
    for sub in _subgroups:
        _free(sub)
    _subgroups.clear()
    _free(world)
    _world = None
    GroupMember.WORLD = None


def _free(world: World) -> None:
    if world.nccl is not None:
        world.nccl.close()
    if world.broken is None:
        world.mpi_comm.Free()


def _own_communicator(MPI: Any, timeout: timedelta) -> Any:
    """A duplicate of ``COMM_WORLD``, so our messages never mix with the program's own MPI use.

    Duplicating is itself a collective: a rank that died before it would make the
    others wait for ever, so it too is waited for with the deadline."""
    comm, request = MPI.COMM_WORLD.Idup()
    joining = World(backend="mpi", rank=MPI.COMM_WORLD.Get_rank(), size=MPI.COMM_WORLD.Get_size(),
                    timeout=timeout, mpi_comm=comm, use_nccl=False)
    Work("init_process_group", joining, request.Test).wait()
    return comm


def _listen_for_dead_ranks() -> None:
    """Under ``mpiexec -disable-auto-cleanup`` (what ``learntorch.distributed.run`` uses),
    MPICH's launcher sends SIGUSR1 to the surviving ranks when one dies.  We note it, so
    that a rank waiting in a collective stops at once with a clear error instead of at
    the timeout.  (Under plain ``mpiexec`` the launcher kills the survivors itself.)"""
    global _listening
    if _listening or "PMI_RANK" not in os.environ or threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGUSR1) is not signal.SIG_DFL:
        return  # the program handles SIGUSR1 itself: leave it alone

    def note_dead_rank(signum: int, frame: Any) -> None:
        global _dead_rank_reported
        _dead_rank_reported = True

    signal.signal(signal.SIGUSR1, note_dead_rank)
    _listening = True


def _leave_cleanly() -> None:
    """At exit, two things.

    MPICH's launcher also sends SIGUSR1 while a rank finishes normally, once
    Python has put back the default action (which kills): so we ignore SIGUSR1
    from now on.  And when a rank has died or a collective gave up, MPI still
    waits for the dead rank, and ``MPI_Finalize`` (which mpi4py calls at exit)
    would wait for ever: such a rank leaves at once, with exit status 1."""
    if _listening:
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    if _dead_rank_reported or _gave_up:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
