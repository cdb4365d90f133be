"""``torch.multiprocessing.spawn``: start N processes that run ``fn(i, *args)``, over MPI.

PyTorch starts the processes with Python's ``multiprocessing`` (a pipe to each
child).  learntorch starts them as the ranks of one MPI job, with the launcher of
``learntorch.distributed.run`` (``mpiexec``), so that ``dist.init_process_group``
inside ``fn`` finds the other ranks through MPI: process ``i`` *is* MPI rank ``i``.

How a child starts (what Python's ``multiprocessing`` does with ``spawn``, over MPI):

1. the parent writes a *payload* file: Python's own preparation data
   (``multiprocessing.spawn.get_preparation_data``: the main script, ``sys.path``,
   ``sys.argv``, the working directory), then ``fn`` and ``args`` pickled (a
   function travels by its qualified name, so a lambda or a nested function fails
   here, in the parent, with Python's pickling error);
2. ``mpiexec -n N python -m learntorch.distributed._rank_entry -m
   learntorch.multiprocessing._spawn_entry PAYLOAD`` starts the ranks;
3. each rank runs the main script again as ``__mp_main__`` (so its
   ``if __name__ == "__main__":`` block does not run: the block must guard the
   call to ``spawn``), finds ``fn`` in it by name, unpickles ``args`` and calls
   ``fn(rank, *args)``;
4. each rank leaves small files beside the payload: its pid when it starts, the
   traceback if ``fn`` raised, its exit code if it called ``sys.exit(n)``, a mark
   when it finished.  The parent reads them, as PyTorch's parent reads its
   children's error files.

When a rank fails the parent stops the others (SIGTERM, as PyTorch does) and
raises ``ProcessRaisedException`` with the child's traceback, or
``ProcessExitedException`` for a child that ended with a non-zero exit code (or a
signal) without a Python exception.
"""
from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.spawn
import os
import pickle
import shutil
import signal
import subprocess
import sys
import select
import tempfile
import threading
import time
from multiprocessing.reduction import ForkingPickler
from typing import Any, Callable, Optional

from .. import warn_always
from ..distributed.run import launch_command

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
           "SpawnContext", "start_processes", "ENV_VAR_PARALLEL_START"]

ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"  # PyTorch's name; the ranks always start together here

ENTRY_MODULE = "learntorch.multiprocessing._spawn_entry"
PAYLOAD = "payload.pickle"
_POLL_S = 0.02

# torchrun's variables: each rank gets its own from the launcher; a stale value inherited from the
# parent's environment would win over MPI's (the launcher only sets them when they are missing)
# (and those of an MPI job this parent itself may be a rank of: the children are a job of their own)
_RANK_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS")


class ProcessException(Exception):
    """A spawned process failed.  ``error_index``: which one; ``error_pid``: its pid."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """Exception raised when a process failed due to an exception raised by the code."""


class ProcessExitedException(ProcessException):
    """Exception raised when a process failed due to signal or exited with a specific code."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: Optional[str] = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


# ------------------------------------------------------------------ the files a rank leaves (written by _spawn_entry)
def record_path(folder: str, kind: str, rank: int) -> str:
    """``pid``, ``error`` (traceback), ``exit`` (exit code) or ``done``, for one rank."""
    return os.path.join(folder, f"{kind}.{rank}")


def write_record(folder: str, kind: str, rank: int, value: Any, secondary: bool = False) -> None:
    """Write atomically (a whole file or none), so the parent never reads half of one.

    ``secondary``: the rank failed because MPI's launcher reported another rank dead
    (its collective stopped with DistBackendError): the parent reports the first rank."""
    path = record_path(folder, kind, rank)
    with open(path + ".tmp", "wb") as fh:
        # CLOCK_MONOTONIC: one clock for every process of the machine
        pickle.dump((secondary, time.monotonic(), value), fh)
    os.replace(path + ".tmp", path)


def _read_record(folder: str, kind: str, rank: int) -> Optional[tuple[bool, float, Any]]:
    try:
        with open(record_path(folder, kind, rank), "rb") as fh:
            return pickle.load(fh)
    except (FileNotFoundError, EOFError, pickle.UnpicklingError):
        return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"<Unknown signal {number}>"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _prepare_launcher() -> None:
    """In the launcher, before it starts (and so in the ranks it starts).

    SIGUSR1 ignored: when a rank dies, MPI's launcher sends SIGUSR1 to the others, and a rank
    still starting Python would die of it (its default action); ``_spawn_entry`` installs the
    handler that notes it instead.  And end (SIGINT) when the parent dies, as PyTorch's
    children do (Linux)."""
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class ProcessContext:
    """What ``spawn(..., join=False)`` returns: ``pids()``, and ``join()`` until it returns True.

    learntorch's processes are the ranks of one MPI job, so there is no
    ``multiprocessing.Process`` per rank (``processes`` is not there); ``job`` is the
    launcher (``mpiexec``) as a ``subprocess.Popen``."""

    def __init__(self, job: Optional[subprocess.Popen], folder: str, nprocs: int, daemon: bool = False):
        self.job = job
        self.folder = folder
        self.nprocs = nprocs
        self.daemon = daemon
        self._finished = job is None  # nprocs=0: nothing to wait for
        self._pids: dict[int, int] = {}  # rank -> pid, once read (the files go when the job is over)
        self._gone: dict[int, float] = {}  # rank -> when its process ended (see _watch)
        if not self._finished:
            atexit.register(self._at_parent_exit)
            threading.Thread(target=self._watch, name="learntorch-spawn-watch", daemon=True).start()

    # ------------------------------------------------------------ what PyTorch's ProcessContext offers
    def pids(self) -> list[int]:
        """The process id of every rank (waits until each has started)."""
        while True:
            pids = [self._pid(rank) for rank in range(self.nprocs)]
            if all(p > 0 for p in pids) or self._finished or self.job.poll() is not None:
                return [p for p in pids if p > 0]
            time.sleep(_POLL_S)

    def join(self, timeout: Optional[float] = None, grace_period: Optional[float] = None) -> bool:
        """Wait for the processes.  Returns True once all have ended well, False if ``timeout``
        (seconds) passed first.  If one failed, stop the others (after ``grace_period`` seconds,
        if given) and raise ``ProcessRaisedException`` / ``ProcessExitedException``."""
        if self._finished:
            return True
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            status = self.job.poll()
            if status is None:
                failure = self._first_failure(primary_only=True)
            else:  # the job has ended: read the files once more
                failure = self._failure_after_exit(status)
                if failure is None:
                    self._finish()
                    return True
            if failure is not None:
                self._stop_the_others(grace_period)
                self._finish()
                raise failure
            if end is not None and time.monotonic() >= end:
                return False
            time.sleep(_POLL_S)

    def _watch(self) -> None:
        """Note when each rank's process ends (a pidfd becomes readable; Linux).  A rank killed by a
        signal leaves no file, and MPI's launcher then kills the others: the first to go is the one
        to report."""
        fds: dict[int, int] = {}  # pidfd -> rank
        try:
            while self.job.poll() is None and len(self._gone) < self.nprocs:
                for rank in range(self.nprocs):
                    if rank not in self._gone and rank not in fds.values() and self._pid(rank) > 0:
                        try:
                            fds[os.pidfd_open(self._pid(rank))] = rank
                        except ProcessLookupError:
                            self._gone[rank] = time.monotonic()
                waiting_for_pids = len(fds) + len(self._gone) < self.nprocs
                ready, _, _ = select.select(list(fds), [], [], 0.002 if waiting_for_pids else 0.05)
                now = time.monotonic()
                for fd in ready:
                    self._gone[fds.pop(fd)] = now
                    os.close(fd)
        except (AttributeError, OSError):
            pass  # no pidfd here: the rank that failed first is then only guessed
        finally:
            for fd in fds:
                os.close(fd)

    # ------------------------------------------------------------ reading the ranks' files
    def _pid(self, rank: int) -> int:
        if rank not in self._pids:
            seen = _read_record(self.folder, "pid", rank)
            if seen is None:
                return -1
            self._pids[rank] = int(seen[2])
        return self._pids[rank]

    def _first_failure(self, primary_only: bool = False) -> Optional[ProcessException]:
        """The failure that came first (a rank that raised, or exited with a code other than 0), if any;
        a rank that failed only because another died comes after every other (``secondary``)."""
        found = []
        for rank in range(self.nprocs):
            for kind in ("error", "exit"):
                seen = _read_record(self.folder, kind, rank)
                if seen is not None and (kind == "error" or seen[2] != 0) and not (primary_only and seen[0]):
                    found.append((seen[0], seen[1], rank, kind, seen[2]))
        if not found:
            return None
        _, _, rank, kind, value = min(found)
        if kind == "error":
            msg = f"\n\n-- Process {rank:d} terminated with the following error:\n" + value
            return ProcessRaisedException(msg, rank, self._pid(rank))
        return self._exited(rank, int(value))

    def _failure_after_exit(self, status: int) -> Optional[ProcessException]:
        """Once the job has ended: a failure that some rank wrote down, or one that none could write."""
        failure = self._first_failure(primary_only=True)
        if failure is not None or status == 0:
            return failure
        if all(_read_record(self.folder, "done", r) is not None for r in range(self.nprocs)):
            return None  # fn returned in every rank; what failed came after (MPI leaving with a dead peer)
        # A rank ended without a word: killed by a signal (or a crash, or exit() called from C).  It is
        # the rank with no file at all; mpiexec (MPICH's Hydra) then exits with the signal's number.
        silent = [r for r in range(self.nprocs)
                  if all(_read_record(self.folder, kind, r) is None for kind in ("done", "error", "exit"))]
        if not silent:
            return self._first_failure() or self._exited(0, status)
        first = min(silent, key=lambda r: (self._gone.get(r, float("inf")), r))
        return self._exited(first, -status if 0 < status < 65 else status)

    def _exited(self, rank: int, code: int) -> ProcessExitedException:
        pid = self._pid(rank)
        if code < 0:
            name = _signal_name(-code)
            return ProcessExitedException(f"process {rank:d} terminated with signal {name}", error_index=rank,
                                          error_pid=pid, exit_code=code, signal_name=name)
        return ProcessExitedException(f"process {rank:d} terminated with exit code {code:d}", error_index=rank,
                                      error_pid=pid, exit_code=code)

    # ------------------------------------------------------------ ending
    def _stop_the_others(self, grace_period: Optional[float]) -> None:
        """As PyTorch: a grace period (if given), then SIGTERM to the ranks still running, then
        SIGKILL.  Without a grace period the job still gets a moment to end by itself (MPI tells
        the other ranks, whose collectives then stop with DistBackendError) and to pass on output."""
        try:
            self.job.wait(grace_period if grace_period is not None else 1.0)
            return
        except subprocess.TimeoutExpired:
            pass
        pids = [p for p in (self._pid(r) for r in range(self.nprocs)) if p > 0]
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGTERM)
        try:
            self.job.wait(2.0)
        except subprocess.TimeoutExpired:
            self.job.terminate()  # a rank that had not written its pid yet: mpiexec stops the job
        try:
            self.job.wait(30 if grace_period is None else grace_period)
        except subprocess.TimeoutExpired:
            for pid in pids:
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)
            self.job.kill()
            self.job.wait()

    def _finish(self) -> None:
        for rank in range(self.nprocs):
            self._pid(rank)  # keep them for pids()
        self._finished = True
        atexit.unregister(self._at_parent_exit)
        shutil.rmtree(self.folder, ignore_errors=True)

    def _at_parent_exit(self) -> None:
        """Like Python's multiprocessing at exit: wait for non-daemonic children, stop daemonic ones."""
        if self._finished:
            return
        if self.daemon or self.job.poll() is not None:
            if self.job.poll() is None:
                self._stop_the_others(0)
        else:
            self.job.wait()
        self._finished = True
        shutil.rmtree(self.folder, ignore_errors=True)

    def __del__(self) -> None:
        if getattr(self, "_finished", True) is False and self.job is not None and self.job.poll() is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


class SpawnContext(ProcessContext):
    def __init__(self, *args: Any, **kwargs: Any):
        warn_always.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(*args, **kwargs)


def _payload(fn: Callable, args: tuple) -> bytes:
    """Python's preparation data for a spawned child, then ``fn``, then ``args``, each pickled on its own
    (the child must load the main module before it can look ``fn`` up in it)."""
    preparation = multiprocessing.spawn.get_preparation_data("SpawnProcess")
    preparation.pop("authkey", None)  # the children talk over MPI, not over multiprocessing's connections
    return b"".join(bytes(ForkingPickler.dumps(part)) for part in (preparation, fn, tuple(args)))


def start_processes(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
                    start_method: str = "spawn") -> Optional[ProcessContext]:
    """Start ``nprocs`` processes (MPI ranks) running ``fn(i, *args)``; see ``spawn``.

    Every ``start_method`` starts fresh interpreters (as ``"spawn"`` does): the ranks of an MPI
    job cannot be forked from this process."""
    payload = _payload(fn, args)  # a lambda or a local function fails here, with Python's pickling error
    if nprocs < 1:  # as PyTorch: no process, nothing to wait for
        return None if join else ProcessContext(None, "", 0, daemon=daemon)
    folder = tempfile.mkdtemp(prefix="learntorch-spawn-")
    try:
        with open(os.path.join(folder, PAYLOAD), "wb") as fh:
            fh.write(payload)
        command = launch_command(nprocs, [ENTRY_MODULE, folder], module=True)
        env = {k: v for k, v in os.environ.items() if k not in _RANK_VARIABLES and not k.startswith("PMI_")}
        for stream in (sys.stdout, sys.stderr):  # what the parent printed comes before the children's lines
            if stream is not None:
                stream.flush()
        job = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, preexec_fn=_prepare_launcher)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    context = ProcessContext(job, folder, nprocs, daemon=daemon)
    if not join:
        return context
    try:
        while not context.join():
            pass
    except KeyboardInterrupt:
        context._stop_the_others(0)
        context._finish()
        raise
    return None


def spawn(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
          start_method: str = "spawn") -> Optional[ProcessContext]:
    r"""Spawn ``nprocs`` processes that run ``fn(i, *args)``, ``i`` = 0 … nprocs − 1.

    The processes are the ranks of one MPI job, so ``dist.init_process_group("gloo",
    rank=i, world_size=nprocs)`` inside ``fn`` joins them (``MASTER_ADDR``/``MASTER_PORT``
    are not needed: MPI does the rendezvous).  ``fn`` must be defined at the top level of
    a module (the main script included); the main script is run again in every child
    as ``__mp_main__``, so the call to ``spawn`` must sit under
    ``if __name__ == "__main__":``.

    If a process fails, the others are stopped and ``ProcessRaisedException`` (with the
    child's traceback) or ``ProcessExitedException`` is raised.  Returns None if
    ``join``, else a ``ProcessContext``."""
    if start_method != "spawn":
        warn_always.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                         "To use a different start_method use:\n\t\t torch.multiprocessing.start_processes(...)",
                         FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
