"""``learntorch.multiprocessing`` (``torch.multiprocessing``): Python's ``multiprocessing``, plus ``spawn``.

Everything of Python's :mod:`multiprocessing` is here under the same names
(``Process``, ``Queue``, ``Pool``, ``get_context``, ``set_start_method``,
``cpu_count``, ``Manager`` ...), as in PyTorch.  What PyTorch adds:

* ``spawn(fn, args=(), nprocs=1, join=True, daemon=False)`` and
  ``start_processes``: run ``fn(i, *args)`` in ``nprocs`` new processes, the
  pattern of PyTorch's DDP tutorial::

      def run(rank, world_size):
          dist.init_process_group("gloo", rank=rank, world_size=world_size)
          ...
      if __name__ == "__main__":
          mp.spawn(run, args=(2,), nprocs=2, join=True)

  learntorch starts the processes as the ranks of one MPI job (the launcher of
  ``learntorch.distributed.run``), so ``init_process_group`` meets the others
  through MPI; see ``spawn.py``.  A failing process raises
  ``ProcessRaisedException`` (with its traceback) or ``ProcessExitedException``
  in the parent (both subclasses of ``learntorch.multiprocessing.spawn.ProcessException``);
  ``join=False`` gives a ``ProcessContext`` (``join()``, ``pids()``).
* ``get_all_sharing_strategies`` / ``set_sharing_strategy`` /
  ``get_sharing_strategy``: stand-ins that keep the names and checks only.
  PyTorch moves tensors sent through a ``Queue`` into shared memory; learntorch
  tensors are NumPy arrays and are pickled, i.e. copied (no shared memory, so the
  strategy changes nothing).

learntorch differences: ``start_processes`` starts fresh interpreters for every
``start_method`` (``fork`` too); ``ProcessContext`` has no ``processes`` list (the
ranks are not ``multiprocessing.Process`` objects); ``Tensor.share_memory_`` does
not make a tensor shared between processes.
"""
from __future__ import annotations

import multiprocessing
import sys
from multiprocessing import *  # noqa: F401,F403

from .spawn import (ENV_VAR_PARALLEL_START, ProcessContext, ProcessExitedException, ProcessRaisedException,
                    SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn",
           "start_processes", "ProcessContext", "ProcessExitedException",
           "ProcessRaisedException", "SpawnContext"]
__all__ += multiprocessing.__all__

if sys.platform in ("darwin", "win32"):
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy: str) -> None:
    """Set the strategy for sharing CPU tensors (a stand-in: learntorch copies tensors between processes)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy() -> str:
    """Return the current strategy for sharing CPU tensors (a stand-in, see the module's docstring)."""
    return _sharing_strategy


def get_all_sharing_strategies() -> set[str]:
    """Return a set of sharing strategies supported on a current system (a stand-in)."""
    return _all_sharing_strategies
