"""DataParallel's moves as autograd Functions, so that gradients flow back through them.

Each move's backward is the opposite move — that is the whole trick of
DataParallel's backward pass:

=========================  ==========================================
forward                    backward
=========================  ==========================================
``Scatter`` (cut, spread)  ``Gather`` the chunks' gradients back
``Broadcast`` (copy out)   ``ReduceAddCoalesced``: **sum** the copies'
                           gradients on the source device
``Gather`` (join)          ``Scatter`` the gradient to the devices
=========================  ==========================================

So ``loss.backward()`` on DataParallel's output sends each chunk's gradient
to its replica, each replica computes the gradients of its parameter copies,
and ``BroadcastBackward`` adds them up into ``.grad`` of the original
parameters on ``device_ids[0]`` — the same sum a single device would compute
over the whole batch.  ``grad_fn`` names are PyTorch's (``BroadcastBackward``,
``GatherBackward``, ``ScatterBackward``).
"""
from __future__ import annotations

from itertools import chain
from typing import Any

from ... import warn_always
from ...autograd.function import Function
from ...tensor import Tensor
from . import comm


class Broadcast(Function):
    """Copies of ``inputs`` on each of ``target_gpus`` (the replicas' parameters)."""

    @staticmethod
    def forward(ctx: Any, target_gpus: list, *inputs: Tensor) -> tuple:
        if not all(t.device.type != "cpu" for t in inputs):
            raise AssertionError("Broadcast function not implemented for CPU tensors")
        ctx.target_gpus = [comm.device_index(d) for d in target_gpus]
        if not inputs:
            return ()
        ctx.num_inputs = len(inputs)
        ctx.input_device = inputs[0].get_device()
        outputs = comm.broadcast_coalesced(inputs, ctx.target_gpus)
        # copies of tensors that need no gradient (buffers) take no part in backward
        frozen = [copies[i] for i, needs in enumerate(ctx.needs_input_grad[1:]) if not needs for copies in outputs]
        ctx.mark_non_differentiable(*frozen)
        return tuple(chain.from_iterable(outputs))

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Tensor) -> tuple:
        return (None,) + ReduceAddCoalesced.apply(ctx.input_device, ctx.num_inputs, *grad_outputs)


class ReduceAddCoalesced(Function):
    """``grads`` holds ``num_inputs`` tensors per device, device after device: the sum of
    each tensor over the devices, on ``destination``."""

    @staticmethod
    def forward(ctx: Any, destination: int, num_inputs: int, *grads: Tensor) -> tuple:
        ctx.target_gpus = [grads[i].get_device() for i in range(0, len(grads), num_inputs)]
        per_device = [grads[i:i + num_inputs] for i in range(0, len(grads), num_inputs)]
        return comm.reduce_add_coalesced(per_device, destination)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Tensor) -> tuple:
        return (None, None) + Broadcast.apply(ctx.target_gpus, *grad_outputs)


class Gather(Function):
    """Join the replicas' outputs along ``dim`` on ``target_device`` (-1 or 'cpu': the host)."""

    @staticmethod
    def forward(ctx: Any, target_device: Any, dim: int, *inputs: Tensor) -> Tensor:
        if not all(t.device.type != "cpu" for t in inputs):
            raise AssertionError("Gather function not implemented for CPU tensors")
        ctx.target_device = -1 if target_device == "cpu" else comm.device_index(target_device, allow_cpu=True)
        ctx.dim = dim
        ctx.input_gpus = tuple(t.get_device() for t in inputs)
        ctx.unsqueezed_scalar = all(t.dim() == 0 for t in inputs) and dim == 0
        if ctx.unsqueezed_scalar:
            inputs = tuple(t.view(1) for t in inputs)
            warn_always.warn("Was asked to gather along dimension 0, but all input tensors were scalars; will "
                             "instead unsqueeze and return a vector.", stacklevel=2)
        ctx.input_sizes = tuple(t.size(dim) for t in inputs)
        return comm.gather(inputs, dim, ctx.target_device)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple:
        grads = Scatter.apply(ctx.input_gpus, ctx.input_sizes, ctx.dim, grad_output)
        if ctx.unsqueezed_scalar:
            grads = tuple(g[0] for g in grads)
        return (None, None) + tuple(grads)


class Scatter(Function):
    """Cut ``input`` along ``dim`` into chunks, chunk *i* on ``target_gpus[i]``."""

    @staticmethod
    def forward(ctx: Any, target_gpus: Any, chunk_sizes: Any, dim: int, input: Tensor) -> tuple:
        ctx.dim = dim
        ctx.input_device = input.get_device()  # -1 for the CPU
        return comm.scatter(input, [comm.device_index(d) for d in target_gpus], chunk_sizes, dim)

    @staticmethod
    def backward(ctx: Any, *grad_output: Tensor) -> tuple:
        return (None, None, None, Gather.apply(ctx.input_device, ctx.dim, *grad_output))
