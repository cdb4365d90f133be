"""``learntorch.distributed``: several processes that train one model together (chapter 08).

Each process (a *rank*, 进程编号) holds a full copy of the model and a slice of
the data; after backward the ranks *all-reduce* (全归约) their gradients so
that every copy takes the same optimizer step.  The messages travel over a real
engine, never a hand-made one:

* **MPI** (through ``mpi4py``) for tensors in host memory, on one machine or
  many.  ``backend="gloo"`` is accepted as an alias for ``"mpi"``, so PyTorch
  CPU programs run unchanged (learntorch has no Gloo of its own).
* **NCCL** (through ``cupy.cuda.nccl``) for CuPy (``cuda``) tensors with
  ``backend="nccl"``; its unique id is passed around over MPI, so NCCL ranks are
  started by ``mpiexec`` too.  This path needs GPUs and is tested only by
  ``make test-gpu``.

Any other tensor (a CuPy tensor under ``"mpi"``, a tensor on one of the logical
``cuda`` devices of the CPU) is copied to host memory, sent over MPI and
copied back.

API (PyTorch's names and behaviour)::

    import learntorch as torch
    import learntorch.distributed as dist

    dist.init_process_group("mpi")          # or "gloo" (= "mpi") or "nccl"; timeout=timedelta(...)
    rank, world = dist.get_rank(), dist.get_world_size()
    t = torch.ones(3) * rank
    dist.all_reduce(t)                      # in place; op=dist.ReduceOp.SUM | AVG | PRODUCT | MIN | MAX
    dist.broadcast(t, src=0)                # in place: everyone gets rank 0's values
    dist.barrier()
    work = dist.all_reduce(t, async_op=True); work.wait()   # non-blocking form
    # also: all_gather, all_gather_single (all_gather_into_tensor), reduce, gather, scatter,
    #       reduce_scatter, reduce_scatter_single (reduce_scatter_tensor),
    #       all_to_all(_single), send / recv / isend / irecv / batch_isend_irecv (point to point),
    #       all_gather_object, broadcast_object_list, gather_object, scatter_object_list,
    #       send_object_list / recv_object_list (pickled Python objects), monitored_barrier,
    #       new_group, get_process_group_ranks, get_group_rank, get_global_rank,
    #       is_initialized, is_available, is_gloo_available, get_backend, destroy_process_group
    model = torch.nn.parallel.DistributedDataParallel(model)   # see nn/parallel/distributed.py
    dist.destroy_process_group()

Starting the ranks (a launcher, 启动器)::

    mpiexec -n 2 python train.py --epochs 3                   # MPI's own launcher
    python -m learntorch.distributed.run -n 2 train.py --epochs 3   # learntorch's wrapper

The wrapper finds the ``mpiexec`` that the ``mpich`` wheel puts next to the
Python executable, sets ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK`` and
``LOCAL_WORLD_SIZE`` in each rank as ``torchrun`` does, and tells ``mpiexec``
to let the other ranks report a dead rank (``-disable-auto-cleanup``) instead
of killing them silently.  ``init_process_group`` takes rank and world size
from MPI.

Or start them from Python, as PyTorch's DDP tutorial does, with
``torch.multiprocessing.spawn`` (``learntorch.multiprocessing``)::

    def run(rank, world_size):
        dist.init_process_group("gloo", rank=rank, world_size=world_size)
        ...                                                     # train with DDP
        dist.destroy_process_group()

    if __name__ == "__main__":                                  # required: the children re-run this file
        torch.multiprocessing.spawn(run, args=(2,), nprocs=2)   # python train.py

``spawn`` runs the same launcher (``mpiexec``) on a small entry module that
loads the script as ``__mp_main__``, finds ``run`` by name and calls
``run(rank, *args)`` with its MPI rank; the parent waits, and raises
``ProcessRaisedException`` with the child's traceback if a child fails.
``MASTER_ADDR`` and ``MASTER_PORT`` are not needed (MPI does the rendezvous);
a program that sets them is not disturbed.

Run without a launcher (a notebook, a plain ``python train.py``),
``init_process_group`` makes a world of one process: every collective works
and changes nothing, so DDP code runs unchanged.

A rank that dies or hangs must not make the others hang for ever: every
collective waits at most ``timeout`` (``init_process_group(timeout=...)``,
default 30 minutes as in PyTorch) and then raises ``DistBackendError`` (a
``RuntimeError``) that names the operation and the rank.  Under the wrapper a
rank that exits is noticed at once.  Under plain ``mpiexec``, MPICH's launcher
itself kills the other ranks as soon as one exits early (they print nothing;
the job's exit status is non-zero).

Groups: ``new_group(ranks)`` (called by every rank) makes a group of some
ranks with its own MPI communicator (``groups.py``); collectives take it as
``group=``, with ``src``/``dst`` given as global ranks (or ``group_src``...).

learntorch differences: a group is not a C++ ``ProcessGroup`` (no ``.rank()``
method: use ``dist.get_rank(group)``); ``init_method`` is not needed (MPI does the
rendezvous) and a value other than ``env://`` only warns; ``ReduceOp.AVG`` works
on every backend; host tensors under ``backend="nccl"`` go over MPI (PyTorch
refuses them).
"""
from __future__ import annotations

from .collectives import (all_gather, all_gather_into_tensor, all_gather_single, all_reduce, all_to_all,
                          all_to_all_single, barrier, broadcast, gather, irecv, isend, monitored_barrier, recv,
                          reduce, reduce_scatter, reduce_scatter_single, reduce_scatter_tensor, scatter, send)
from .errors import DistBackendError, DistError
from ..futures import Future
from .grad_bucket import GradBucket
from .groups import get_global_rank, get_group_rank, get_process_group_ranks, new_group
from .object_collectives import (all_gather_object, broadcast_object_list, gather_object, recv_object_list,
                                 scatter_object_list, send_object_list)
from .p2p_batch import P2POp, batch_isend_irecv
from .process_group import (GroupMember, default_pg_timeout, destroy_process_group, get_backend,
                            get_node_local_rank, get_rank, get_world_size, group, init_process_group, is_available,
                            is_backend_available, is_gloo_available, is_initialized, is_mpi_available,
                            is_nccl_available, is_torchelastic_launched)
from .process_group import World as ProcessGroup
from .reduce_op import ReduceOp
from .work import Work

__all__ = ["init_process_group", "destroy_process_group", "is_available", "is_initialized", "is_mpi_available",
           "is_nccl_available", "is_gloo_available", "is_backend_available", "is_torchelastic_launched",
           "get_node_local_rank", "get_backend", "get_rank", "get_world_size", "all_reduce", "broadcast", "barrier",
           "monitored_barrier", "all_gather", "all_gather_single", "all_gather_into_tensor", "reduce", "gather",
           "scatter", "reduce_scatter", "reduce_scatter_single", "reduce_scatter_tensor", "all_to_all",
           "all_to_all_single", "send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv", "all_gather_object",
           "broadcast_object_list", "gather_object", "scatter_object_list", "send_object_list", "recv_object_list",
           "new_group", "get_process_group_ranks", "get_global_rank", "get_group_rank", "ProcessGroup", "ReduceOp",
           "Work", "Future", "GradBucket", "DistError", "DistBackendError", "group", "GroupMember",
           "default_pg_timeout"]
