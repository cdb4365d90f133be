"""What each rank of ``torch.multiprocessing.spawn`` runs (started by ``mpiexec`` through
``learntorch.distributed._rank_entry``): ``python -m learntorch.multiprocessing._spawn_entry FOLDER``.

It does what Python's ``multiprocessing`` does in a spawned child: load the parent's
main script as ``__mp_main__`` (``multiprocessing.spawn.prepare``), look ``fn`` up by
its qualified name, unpickle ``args``, then call ``fn(rank, *args)`` with the rank
that MPI gave this process.  See ``spawn.py`` for the files it leaves for the parent.

Two differences from PyTorch's children, both for MPI: a rank whose ``fn`` failed
after MPI started leaves at once (``os._exit``, without ``atexit`` handlers and
``MPI_Finalize``, which could wait for ranks stuck in a collective), and
``os._exit(n)`` is wrapped so that the parent learns the code ``n``.
"""
from __future__ import annotations

import atexit
import multiprocessing.spawn
import os
import pickle
import signal
import sys
import traceback
import types

from learntorch.distributed import process_group
from learntorch.multiprocessing.spawn import PAYLOAD, write_record

_RANK_SOURCES = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "RANK")

_HINT = ("learntorch.multiprocessing.spawn: could not find the function to run in the child process. As with "
         "Python's multiprocessing, fn must be defined at the top level of an importable module or of the main "
         "script (not inside `if __name__ == \"__main__\":`, a function, or an interactive session), and the "
         "call to spawn must be guarded by `if __name__ == \"__main__\":`.")


def _rank() -> int:
    return int(next((os.environ[s] for s in _RANK_SOURCES if s in os.environ), "0"))


def _exit_code(exc: SystemExit) -> int:
    """The exit status Python gives ``sys.exit(code)``."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    return 1  # sys.exit("message"): the message goes to stderr, the status is 1


def _peer_died() -> bool:
    """Whether MPI's launcher has told this rank that another one died (see process_group)."""
    return process_group._dead_rank_reported


def _hard_exit(code: int) -> None:
    """Leave now.  With MPI started (``init_process_group``), ``MPI_Finalize`` at exit could wait
    for ranks that are stuck in a collective: a failed rank leaves without it, so that the
    launcher sees it go and tells the others."""
    sys.stdout.flush()
    sys.stderr.flush()
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        _real_os_exit(code)
    sys.exit(code)


_real_os_exit = os._exit


def _note_os_exit(folder: str, rank: int):
    """``os._exit(n)`` ends the process without Python's clean-up, so without our ``except``
    clauses: note the code first, so that the parent tells it from a signal (as PyTorch does)."""
    def os_exit(code: int) -> None:
        try:
            write_record(folder, "exit", rank, int(code), secondary=_peer_died())
        finally:
            _real_os_exit(code)
    return os_exit


def main(folder: str) -> None:
    rank = _rank()
    write_record(folder, "pid", rank, os.getpid())
    os._exit = _note_os_exit(folder, rank)
    # When a rank dies, MPI's launcher sends SIGUSR1 to the others, whose default action is to
    # die too.  A rank that is not in a collective should go on (as PyTorch's processes do):
    # only note it (process_group's handler; its collectives then stop with DistBackendError),
    # and ignore the signal once Python is leaving (the launcher sends it at the end as well).
    # (the parent started the job with SIGUSR1 ignored, so that a rank still starting up survives it)
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    process_group._listen_for_dead_ranks()
    atexit.register(signal.signal, signal.SIGUSR1, signal.SIG_IGN)
    try:
        with open(os.path.join(folder, PAYLOAD), "rb") as fh:
            preparation = pickle.load(fh)
            if "init_main_from_path" not in preparation and "init_main_from_name" not in preparation:
                # no main script to load (the parent runs interactively): this entry module must not
                # stand in for it, or a function of the same name here would be found instead
                sys.modules["__main__"] = types.ModuleType("__main__")
            multiprocessing.spawn.prepare(preparation)
            fn = pickle.load(fh)
            args = pickle.load(fh)
    except Exception:
        # what Python's spawned child does when it cannot unpickle its target: print, exit status 1
        traceback.print_exc()
        print(_HINT, file=sys.stderr, flush=True)
        write_record(folder, "exit", rank, 1)
        sys.exit(1)
    try:
        fn(rank, *args)
    except KeyboardInterrupt:
        pass  # SIGINT: stopped by the parent, as in PyTorch
    except SystemExit as e:
        code = _exit_code(e)
        write_record(folder, "exit", rank, code, secondary=_peer_died())
        if code != 0:
            if not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
            _hard_exit(code)
        raise
    except Exception:
        write_record(folder, "error", rank, traceback.format_exc(), secondary=_peer_died())
        _hard_exit(1)
    write_record(folder, "done", rank, None)


if __name__ == "__main__":
    main(sys.argv[1])
