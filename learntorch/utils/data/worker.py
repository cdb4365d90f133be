"""``DataLoader(num_workers=N)``: loading batches in N worker processes, as PyTorch does.

Why processes: reading and transforming samples (decoding images, augmenting)
is Python code, and Python runs one thread at a time; N processes prepare N
batches at once while the main process trains.

How it works (the design of ``torch/utils/data/dataloader.py``, rebuilt):

* the main process keeps the sampler: it draws the batches of indices exactly as
  with ``num_workers=0`` and hands them out in turn (batch ``k`` to worker
  ``k mod N``) through one queue per worker, keeping ``prefetch_factor * N``
  batches requested ahead;
* each worker fetches its batches (``dataset[i]`` and ``collate_fn``) and sends
  them back on one shared result queue; the main process puts them back in
  request order, so the batches are *the same, in the same order*, as with
  ``num_workers=0`` (``in_order=False`` yields them as they arrive instead);
* seeding: each iteration draws one ``base_seed`` from the loader's generator
  (as ``num_workers=0`` does too, keeping the main stream in step with PyTorch);
  worker ``i`` seeds learntorch's generator and Python's ``random`` with
  ``base_seed + i`` (so ``learntorch.initial_seed()`` there is that) before
  ``worker_init_fn(i)``.  NumPy's global generator in a worker is seeded from
  ``(base_seed, i)`` too, but not with PyTorch's exact numbers;
* ``get_worker_info()`` in a worker gives its ``id``, ``num_workers``, ``seed``
  and its copy of the ``dataset`` (an ``IterableDataset`` uses it to read its own
  share; without that, each worker yields the whole stream, as in PyTorch);
* an exception in a worker comes back to the main process and is raised there,
  of the same type, with the worker's traceback in the message;
  ``timeout`` (seconds, 0 = wait forever) raises ``RuntimeError`` when no batch
  arrives in time; a worker that dies is reported with its pid;
* processes start with ``fork`` on Linux (PyTorch's default there): the workers
  begin as copies of the main process, so a Dataset class defined in a notebook
  (a Jupyter kernel's ``__main__``) works without being importable.  Elsewhere the
  platform's default method is used, and the dataset must then be picklable;
* ``persistent_workers=True`` keeps the processes (and their dataset copies)
  from one epoch to the next instead of starting new ones.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Iterator, Optional

import numpy as np

from ... import random as lt_random
from .sampler import _draw_seed

__all__ = ["WorkerInfo", "get_worker_info", "MultiProcessIter"]

_POLL_SECONDS = 0.1  # how often a waiting main process checks that its workers are alive


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker process."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: Optional[WorkerInfo] = None


def get_worker_info() -> Optional[WorkerInfo]:
    """This worker's ``WorkerInfo`` inside a DataLoader worker process; None in the main process."""
    return _worker_info


class _StreamEnd:
    """A worker's "my IterableDataset is exhausted" (it answers no further requests)."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


class _Failure:
    """An exception raised in a worker, carried to the main process as its type and traceback text."""

    def __init__(self, exc: BaseException, worker_id: int) -> None:
        self.exc_type = type(exc)
        self.where = f"in DataLoader worker process {worker_id}"
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def reraise(self) -> None:
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.text}"
        try:
            exc = self.exc_type(message)
        except Exception:  # an exception type whose constructor wants other arguments
            raise RuntimeError(message) from None
        raise exc


def _seed_worker(seed: int, worker_id: int) -> None:
    random.seed(seed)
    lt_random.manual_seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, seed]).generate_state(4))


def _worker_loop(loader: Any, worker_id: int, num_workers: int, seed: int, index_queue: Any,
                 result_queue: Any) -> None:
    """A worker: seed, run ``worker_init_fn``, then answer ``(task, indices)`` requests until ``None``."""
    global _worker_info
    try:
        _seed_worker(seed, worker_id)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, loader.dataset)
        if loader.worker_init_fn is not None:
            loader.worker_init_fn(worker_id)
        stream = iter(loader.dataset) if loader._iterable else None
        ended = False
    except Exception as exc:  # reported with the first request's answer
        startup_failure: Optional[_Failure] = _Failure(exc, worker_id)
    else:
        startup_failure = None
    while True:
        try:
            request = index_queue.get()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if request is None:
            return
        task, index = request
        if task == "reset":  # persistent workers, next epoch: a fresh stream from the dataset copy
            if loader._iterable and startup_failure is None:
                stream, ended = iter(loader.dataset), False
            continue
        if startup_failure is not None:
            result_queue.put((task, startup_failure))
            continue
        if ended:
            continue  # as in PyTorch: an exhausted stream answers nothing more
        try:
            if loader._iterable:
                data = _fetch_stream(loader, stream, index)
                if data is None:
                    ended = True
                    data = _StreamEnd(worker_id)
            else:
                data = _fetch_map(loader, index)
        except Exception as exc:
            data = _Failure(exc, worker_id)
        result_queue.put((task, data))


def _fetch_map(loader: Any, index: Any) -> Any:
    if not loader._auto_collation:
        return loader.collate_fn(loader.dataset[index])
    getitems = getattr(loader.dataset, "__getitems__", None)
    samples = getitems(index) if getitems else [loader.dataset[i] for i in index]
    return loader.collate_fn(samples)


def _fetch_stream(loader: Any, stream: Iterator[Any], index: Any) -> Any:
    """The next batch (or sample) from this worker's stream; None once it has run dry."""
    if not loader._auto_collation:
        try:
            return loader.collate_fn(next(stream))
        except StopIteration:
            return None
    samples = list(itertools.islice(stream, len(index)))
    if not samples or (loader.drop_last and len(samples) < len(index)):
        return None
    return loader.collate_fn(samples)


def _context(loader: Any) -> Any:
    ctx = loader.multiprocessing_context
    if ctx is None:
        methods = multiprocessing.get_all_start_methods()
        return multiprocessing.get_context("fork" if sys.platform.startswith("linux") and "fork" in methods
                                           else None)
    return multiprocessing.get_context(ctx) if isinstance(ctx, str) else ctx


class MultiProcessIter:
    """One pass over a DataLoader with worker processes (reused across epochs when persistent)."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader
        self._owner_pid = os.getpid()  # __del__ in a forked copy must not shut the owner's workers down
        self._num_workers = loader.num_workers
        self._prefetch = (loader.prefetch_factor if loader.prefetch_factor is not None else 2) * self._num_workers
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        self._sampler_iter = iter(loader._index_sampler)
        seed = _draw_seed(loader.generator)
        ctx = _context(loader)
        self._results = ctx.Queue()
        self._index_queues, self._workers = [], []
        for i in range(self._num_workers):
            q = ctx.Queue()
            w = ctx.Process(target=_worker_loop, args=(loader, i, self._num_workers, seed + i, q, self._results),
                            daemon=True)
            w.start()
            self._index_queues.append(q)
            self._workers.append(w)
        self._shut = False
        self._start_epoch()

    # -- one epoch ------------------------------------------------------------------------
    def _start_epoch(self) -> None:
        self._active = [True] * self._num_workers
        self._cycle = itertools.cycle(range(self._num_workers))
        self._task_worker: dict[int, int] = {}  # sent, not yet yielded: task -> worker
        self._arrived: dict[int, Any] = {}
        self._next_task = 0   # the next task number to send
        self._next_yield = 0  # the next task number to yield (in order)
        self._exhausted = False
        for _ in range(self._prefetch):
            self._send()

    def _reset(self, loader: Any) -> None:
        """Persistent workers, a new epoch: a new pass of the sampler, the same processes."""
        self._sampler_iter = iter(loader._index_sampler)
        for w, q in enumerate(self._index_queues):
            q.put(("reset", None))
        self._start_epoch()

    def _send(self) -> None:
        if self._exhausted or not any(self._active):
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            self._exhausted = True
            return
        for _ in range(self._num_workers):
            worker = next(self._cycle)
            if self._active[worker]:
                break
        self._index_queues[worker].put((self._next_task, index))
        self._task_worker[self._next_task] = worker
        self._next_task += 1

    def __iter__(self) -> "MultiProcessIter":
        return self

    def __next__(self) -> Any:
        while True:
            if self._in_order:
                # skip tasks of workers whose stream has ended: they will never answer
                while self._next_yield < self._next_task and self._next_yield not in self._arrived \
                        and not self._active[self._task_worker[self._next_yield]]:
                    del self._task_worker[self._next_yield]
                    self._next_yield += 1
                if self._next_yield in self._arrived:
                    data = self._arrived.pop(self._next_yield)
                    del self._task_worker[self._next_yield]
                    self._next_yield += 1
                    if isinstance(data, _StreamEnd):
                        continue
                    self._send()
                    return self._unwrap(data)
            elif self._arrived:
                task = next(iter(self._arrived))
                data = self._arrived.pop(task)
                del self._task_worker[task]
                if isinstance(data, _StreamEnd):
                    continue
                self._send()
                return self._unwrap(data)
            if not self._task_worker:
                self._end_epoch()
                raise StopIteration
            task, data = self._receive()
            if isinstance(data, _StreamEnd):
                self._active[data.worker_id] = False
            if task in self._task_worker:
                self._arrived[task] = data

    def _unwrap(self, data: Any) -> Any:
        if isinstance(data, _Failure):
            self._shutdown()
            data.reraise()
        return data

    def _receive(self) -> tuple:
        """The next (task, data) from any worker, honouring ``timeout`` and noticing dead workers."""
        waited = 0.0
        while True:
            step = _POLL_SECONDS if not self._timeout else min(_POLL_SECONDS, self._timeout - waited)
            try:
                return self._results.get(timeout=max(step, 1e-3))
            except queue.Empty:
                waited += step
            dead = [w for w in self._workers if not w.is_alive()]
            if dead:
                pids = ", ".join(str(w.pid) for w in dead)
                self._shutdown()
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")
            if self._timeout and waited >= self._timeout:
                self._shutdown()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    # -- ending ---------------------------------------------------------------------------
    def _end_epoch(self) -> None:
        if not self._loader.persistent_workers:
            self._shutdown()

    def _shutdown(self) -> None:
        if self._shut:
            return
        self._shut = True
        for q in self._index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for w in self._workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()
        for q in self._index_queues + [self._results]:
            q.cancel_join_thread()
            q.close()
        if self._loader.__dict__.get("_persistent_iter") is self:
            self._loader._persistent_iter = None

    def __del__(self) -> None:
        try:
            if os.getpid() == self._owner_pid:
                self._shutdown()
        except Exception:
            pass
