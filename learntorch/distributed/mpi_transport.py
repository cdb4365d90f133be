"""MPI through mpi4py: collectives on NumPy buffers in host memory.

Each function *starts* a non-blocking MPI operation (``Iallreduce``, ``Ibcast``
…) on a contiguous NumPy buffer and returns MPI's request; ``Work`` finishes
it.  ``MPI.IN_PLACE`` makes MPI write the result into the same buffer it read,
which is how ``all_reduce`` changes the tensor in place without a copy.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .reduce_op import ReduceOp

__all__ = ["mpi_op", "iallreduce", "ibroadcast", "ireduce", "iallgather", "igather", "iscatter", "ibarrier",
           "ireduce_scatter", "ialltoallv"]


def mpi_op(op: ReduceOp) -> Any:
    from mpi4py import MPI
    table = {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN,
             ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}
    if op not in table:
        raise ValueError(f"op must be a dist.ReduceOp (SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR), got {op!r}")
    return table[op]


def iallreduce(comm: Any, buf: np.ndarray, op: ReduceOp) -> Any:
    from mpi4py import MPI
    return comm.Iallreduce(MPI.IN_PLACE, buf, mpi_op(op))


def ibroadcast(comm: Any, buf: np.ndarray, src: int) -> Any:
    return comm.Ibcast(buf, root=src)


def ireduce(comm: Any, buf: np.ndarray, op: ReduceOp, dst: int) -> Any:
    from mpi4py import MPI
    if comm.Get_rank() == dst:
        return comm.Ireduce(MPI.IN_PLACE, buf, mpi_op(op), root=dst)
    return comm.Ireduce(buf, None, mpi_op(op), root=dst)


def iallgather(comm: Any, send: np.ndarray, recv: np.ndarray) -> Any:
    return comm.Iallgather(send, recv)


def igather(comm: Any, send: np.ndarray, recv: Optional[np.ndarray], dst: int) -> Any:
    return comm.Igather(send, recv, root=dst)


def iscatter(comm: Any, send: Optional[np.ndarray], recv: np.ndarray, src: int) -> Any:
    return comm.Iscatter(send, recv, root=src)


def ibarrier(comm: Any) -> Any:
    return comm.Ibarrier()


def ireduce_scatter(comm: Any, send: np.ndarray, recv: np.ndarray, op: ReduceOp) -> Any:
    """Reduce ``send`` (world size equal blocks) over the ranks; rank r receives block r."""
    return comm.Ireduce_scatter_block(send, recv, mpi_op(op))


def ialltoallv(comm: Any, send: np.ndarray, send_counts: list[int], recv: np.ndarray,
               recv_counts: list[int]) -> Any:
    """Rank r sends its r'-th piece of ``send`` (``send_counts[r']`` elements) to rank r',
    which receives it as its r-th piece of ``recv``.  The pieces lie one after the other."""
    return comm.Ialltoallv([send, (send_counts, _starts(send_counts))], [recv, (recv_counts, _starts(recv_counts))])


def _starts(counts: list[int]) -> list[int]:
    """Where each piece begins: the running sum of the counts before it."""
    starts, total = [], 0
    for c in counts:
        starts.append(total)
        total += c
    return starts
