"""``nn.DataParallel``: one process, several devices, the batch split between them.

API summary (as in PyTorch; chapter 08)::

    model = nn.DataParallel(module, device_ids=None, output_device=None, dim=0)
    out = model(x)            # x may be on the CPU or on any device
    out.device                # output_device (default device_ids[0])
    model.module              # the wrapped module (its parameters are the real ones)
    model.state_dict()        # keys prefixed 'module.'

Each call does four steps (one file each in ``learntorch.nn.parallel``):

1. ``scatter``: split every tensor argument along ``dim`` into
   ``len(device_ids)`` chunks (sizes as ``torch.chunk``: fewer chunks when the
   batch is small) and copy chunk *i* to ``device_ids[i]``;
2. ``replicate``: copy the module to each device; the copies' parameters are
   *differentiable* copies of the originals (``BroadcastBackward``), so in
   backward the gradients of all replicas are **summed** into ``.grad`` of the
   original parameters on ``device_ids[0]``;
3. ``parallel_apply``: run replica *i* on chunk *i*, one thread per device
   (an exception in a thread is raised again in the caller);
4. ``gather``: concatenate the outputs on ``output_device`` (``GatherBackward``).

Rules, as in PyTorch: the module must already be on ``device_ids[0]``; with no
GPU (and no learntorch logical devices) DataParallel just calls the module;
with one device it calls the module without replicating it; the wrapper does
not forward the inner module's own attributes (``model.module.x`` works,
``model.x`` is an AttributeError). Buffers (BatchNorm's running statistics)
are copied from the original at each call; replica 0's buffers *are* the
original's, so its in-place updates (from its own chunk only) are kept, while
what the other replicas change is thrown away.

Random numbers drawn inside replicas (Dropout) come from learntorch's one
generator, in whatever order the threads ask (PyTorch has one per GPU), so
they are not reproducible run to run; everything else is.

Without a GPU, switch on learntorch's logical devices (a teaching extension,
not in PyTorch) first: ``learntorch.cuda.use_logical_devices(2)`` or
``LEARNTORCH_FAKE_CUDA=2`` in the environment.
"""
from __future__ import annotations

from itertools import chain
from typing import Any, Optional, Sequence

from ... import cuda
from ...autograd import grad_mode
from ...device import device
from ..modules.module import Module
from . import comm
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Split each batch between devices, run a copy of ``module`` on each, join the outputs.

    See the top of this file for the four steps and the rules.  Gradients of the
    whole batch end up, summed, in ``.grad`` of ``module``'s own parameters, so
    an optimizer built on ``model.parameters()`` (or ``model.module.parameters()``,
    the same tensors) trains the model as one device would.
    """

    def __init__(self, module: Module, device_ids: Optional[Sequence[Any]] = None,
                 output_device: Optional[Any] = None, dim: int = 0) -> None:
        super().__init__()
        if not cuda.is_available():  # no GPU and no logical devices: a plain call of the module
            self.module = module
            self.device_ids: list[int] = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [comm.device_index(d) for d in device_ids]
        self.output_device = comm.device_index(output_device, allow_cpu=isinstance(output_device, int))
        self.src_device_obj = device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {t.device}")
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        if not inputs and not module_kwargs:  # a forward without arguments still runs, on device_ids[0]
            inputs, module_kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    # The four steps, as methods so that a subclass can change one of them.
    def scatter(self, inputs: tuple, kwargs: Optional[dict], device_ids: Sequence[int]) -> tuple[tuple, tuple]:
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def replicate(self, module: Module, device_ids: Sequence[int]) -> list:
        return replicate(module, device_ids, not grad_mode.is_grad_enabled())

    def parallel_apply(self, replicas: Sequence[Module], inputs: Sequence[Any], kwargs: Any) -> list:
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs: Sequence[Any], output_device: Any) -> Any:
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module: Module, inputs: Any, device_ids: Optional[Sequence[Any]] = None,
                  output_device: Optional[Any] = None, dim: int = 0, module_kwargs: Optional[dict] = None) -> Any:
    """The functional form: ``module(*inputs)`` computed as DataParallel would, without a wrapper."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if not cuda.is_available():
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        device_ids = list(range(cuda.device_count()))
    device_ids = [comm.device_index(d) for d in device_ids]
    output_device = device_ids[0] if output_device is None else \
        comm.device_index(output_device, allow_cpu=isinstance(output_device, int))
    source = device("cuda", device_ids[0])
    for t in chain(module.parameters(), module.buffers()):
        if t.device != source:
            raise RuntimeError(f"module must have its parameters and buffers on device {source} (device_ids[0]) "
                               f"but found one of them on device: {t.device}")
    inputs, kwargs = scatter_kwargs(inputs, module_kwargs, device_ids, dim)
    if not inputs and not kwargs:
        inputs, kwargs = ((),), ({},)
    if len(device_ids) == 1:
        return module(*inputs[0], **kwargs[0])
    used = device_ids[:len(inputs)]
    return gather(parallel_apply(replicate(module, used), inputs, kwargs, used), output_device, dim)
