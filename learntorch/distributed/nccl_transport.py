"""NCCL through CuPy: collectives on GPU memory, for CuPy (``cuda``) tensors.

NCCL needs every rank to hold the same *unique id* before they can form a
communicator; rank 0 makes one and MPI broadcasts it (so NCCL ranks are started
by ``mpiexec`` as well).  The communicator is created by the first CUDA
collective, on the GPU that is current then (``torch.cuda.set_device(rank)``
first, as in PyTorch).

NCCL calls only *queue* work on a CUDA stream.  We queue them on a stream of
our own that first waits for the work already queued on the current stream
(the gradients must be computed before they are sent), record an event after
them, and ``Work`` asks the event whether it has happened.

This file runs only where CuPy finds a GPU; ``make test-gpu`` tests it there.
"""
from __future__ import annotations

from typing import Any, Callable

from .reduce_op import ReduceOp

__all__ = ["NcclTransport"]


class NcclTransport:
    def __init__(self, mpi_comm: Any, rank: int, size: int) -> None:
        import cupy as cp
        from cupy.cuda import nccl
        self._cp = cp
        self._nccl = nccl
        uid = nccl.get_unique_id() if rank == 0 else None
        uid = mpi_comm.bcast(uid, root=0)
        self.comm = nccl.NcclCommunicator(size, uid, rank)
        self.size = size
        self.stream = cp.cuda.Stream(non_blocking=True)
        self._types = {"float32": nccl.NCCL_FLOAT32, "float64": nccl.NCCL_FLOAT64, "float16": nccl.NCCL_FLOAT16,
                       "int32": nccl.NCCL_INT32, "int64": nccl.NCCL_INT64, "int8": nccl.NCCL_INT8,
                       "uint8": nccl.NCCL_UINT8}
        self._ops = {ReduceOp.SUM: nccl.NCCL_SUM, ReduceOp.PRODUCT: nccl.NCCL_PROD, ReduceOp.MIN: nccl.NCCL_MIN,
                     ReduceOp.MAX: nccl.NCCL_MAX, ReduceOp.AVG: nccl.NCCL_SUM}  # AVG: sum, then divide

    def _dtype(self, array: Any) -> int:
        try:
            return self._types[array.dtype.name]
        except KeyError:
            raise TypeError(f"NCCL cannot carry {array.dtype.name} tensors") from None

    def _op(self, op: ReduceOp) -> int:
        if op not in self._ops:
            raise ValueError(f"NCCL has no {op} reduction here")
        return self._ops[op]

    def _launch(self, queue: Callable[[int], None]) -> Callable[[], bool]:
        """Queue ``queue(stream_ptr)`` on our stream after the current stream's work; return "done yet?"."""
        cp = self._cp
        self.stream.wait_event(cp.cuda.get_current_stream().record())
        queue(self.stream.ptr)
        done = self.stream.record()
        cp.cuda.get_current_stream().wait_event(done)  # later work on the current stream sees the result
        return lambda: done.done  # CuPy's Event.done: True once the GPU has passed the event

    def all_reduce(self, buf: Any, op: ReduceOp) -> Callable[[], bool]:
        return self._launch(lambda s: self.comm.allReduce(buf.data.ptr, buf.data.ptr, buf.size, self._dtype(buf),
                                                          self._op(op), s))

    def broadcast(self, buf: Any, src: int) -> Callable[[], bool]:
        return self._launch(lambda s: self.comm.bcast(buf.data.ptr, buf.size, self._dtype(buf), src, s))

    def reduce(self, buf: Any, op: ReduceOp, dst: int) -> Callable[[], bool]:
        return self._launch(lambda s: self.comm.reduce(buf.data.ptr, buf.data.ptr, buf.size, self._dtype(buf),
                                                       self._op(op), dst, s))

    def all_gather(self, send: Any, recv: Any) -> Callable[[], bool]:
        return self._launch(lambda s: self.comm.allGather(send.data.ptr, recv.data.ptr, send.size,
                                                          self._dtype(send), s))

    def abort(self) -> None:
        self.comm.abort()

    def close(self) -> None:
        self.comm.destroy()
