"""``Work``: a collective in flight, and the one place where a rank waits for the others.

Every collective starts as a *non-blocking* operation of the transport (MPI's
``Iallreduce``, ``Ibcast`` …; a CUDA event after an NCCL call) and is finished
by :meth:`Work.wait`.  ``async_op=True`` hands the ``Work`` to the caller, who
can compute while the messages travel (DDP all-reduces one bucket while
backward computes the next one); otherwise the collective waits at once.

Waiting is a loop that asks "done yet?" and sleeps a little in between, with a
deadline.  That is what turns "another rank died, so I wait for ever" into an
error that says what happened: a blocking ``MPI_Allreduce`` cannot be
interrupted, a test loop can.  The sleeps also keep a waiting rank from
spinning a CPU core that another rank needs (on a laptop the ranks share them).
"""
from __future__ import annotations

import time
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Callable, Optional

from .errors import DistBackendError
from ..futures import Future

if TYPE_CHECKING:
    from .process_group import World

__all__ = ["Work"]

_MAX_NAP_S = 0.002  # the longest sleep between two "done yet?" questions


class Work:
    """What ``dist.all_reduce(..., async_op=True)`` returns: call ``wait()`` before using the tensor."""

    def __init__(self, name: str, world: "World", poll: Callable[[], bool],
                 finish: Optional[Callable[[], None]] = None, abort: Optional[Callable[[], None]] = None,
                 result: Optional[list[Any]] = None) -> None:
        self._name = name          # the collective, for error messages: "all_reduce"
        self._world = world
        self._poll = poll          # True once the transport has finished (MPI Request.Test, CUDA event.query)
        self._finish = finish      # then: copy the result into the tensor, divide for AVG ...
        self._abort = abort        # what to do with the transport when we give up (NCCL: abort the communicator)
        self._done = False
        self._result = result or []  # the tensors the collective writes (what result() and the Future give)

    def is_completed(self) -> bool:
        """Whether the collective has finished (it also makes MPI progress: call it now and then)."""
        if not self._done and self._poll():
            self._complete()
        return self._done

    def wait(self, timeout: Optional[timedelta] = None) -> bool:
        """Block until the collective has finished on this rank, at most ``timeout``
        (default: the process group's, from ``init_process_group(timeout=...)``).

        Raises ``DistBackendError`` if the time runs out or a rank is known to have died."""
        limit = timeout if timeout is not None else self._world.timeout
        deadline = time.monotonic() + limit.total_seconds()
        nap = 0.0
        while not self._done:
            if self._poll():
                self._complete()
                break
            if self._world.peer_failed:
                self._give_up("cannot complete: another rank has exited (the launcher reported a dead "
                              "process). Look at the other ranks' output for the first error; this rank "
                              "stops too.")
            if time.monotonic() > deadline:
                self._give_up(f"did not complete within {limit}: at least one rank has not joined it. A rank "
                              "has probably died or is stuck before this call (look at the other ranks' output "
                              "for their error), or the ranks called different collectives: every rank must "
                              "call the same collectives in the same order. If the ranks are only slow, pass "
                              "a longer timeout: init_process_group(..., timeout=timedelta(minutes=60)).")
            time.sleep(nap)
            nap = min(nap * 2 or 1e-5, _MAX_NAP_S)
        return True

    def result(self) -> list[Any]:
        """The output tensors (for ``all_reduce``: ``[tensor]``); wait first."""
        return self._result

    def get_future(self) -> Future:
        """A :class:`Future` whose value is ``result()``, once the collective has finished."""
        return Future(lambda: (self.wait(), self._result)[1], self.is_completed)

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            self._finish()

    def _give_up(self, why: str) -> None:
        world = self._world
        message = (f"learntorch.distributed: {self._name} on rank {world.rank} (world size {world.size}, "
                   f"backend {world.backend}) {why}")
        world.mark_broken(message)
        if self._abort is not None:
            self._abort()
        raise DistBackendError(message)

    def __repr__(self) -> str:
        return f"<Work {self._name} {'done' if self._done else 'in flight'}>"
