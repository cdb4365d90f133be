"""``nn.parallel.DistributedDataParallel`` (DDP): one process per device, gradients averaged by hooks.

Every rank runs the same program on its own slice of the data::

    dist.init_process_group("mpi")
    model = DistributedDataParallel(Net())      # 1. rank 0's weights are broadcast: all replicas start equal
    out = model(x_slice)                        # 2. forward is the module's own (buffers synced first)
    loss_fn(out, y_slice).backward()            # 3. hooks all-reduce the gradients in buckets, during backward
    optimizer.step()                            # 4. same gradients, same step: replicas stay equal

Unlike ``DataParallel`` nothing is scattered or gathered: each process loads
its own batch (``DistributedSampler`` in PyTorch, a slice by rank here), and
only gradients travel.  The bucket logic is in ``reducer.py``.

``no_sync()`` turns the all-reduce off for the backward passes inside it, so
gradient accumulation (梯度累加, chapter 07) over several micro-batches costs
one all-reduce, at the last backward, instead of one per micro-batch.

Supported: ``device_ids`` (one GPU per process, inputs moved there),
``broadcast_buffers``, ``init_sync``, ``bucket_cap_mb``,
``find_unused_parameters``, ``process_group`` (a group from ``new_group``),
and ``register_comm_hook`` (e.g. ``default_hooks.fp16_compress_hook``); the
other PyTorch arguments are accepted (kept as attributes) and ignored.  The
wrapped model is ``.module``; its ``state_dict`` keys carry the ``module.``
prefix, as in PyTorch.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Optional, Sequence

from ... import distributed as dist
from ...autograd import is_grad_enabled, no_grad
from ...device import device as _device
from ...tensor import Tensor
from ..modules.module import Module
from .reducer import FIRST_BUCKET_BYTES, Reducer

__all__ = ["DistributedDataParallel"]

_MB = 1024 * 1024


class DistributedDataParallel(Module):
    """Data parallelism across processes: wrap the model once per rank, then train as usual."""

    def __init__(self, module: Module, device_ids: Optional[Sequence[Any]] = None, output_device: Any = None,
                 dim: int = 0, broadcast_buffers: bool = True, init_sync: bool = True, process_group: Any = None,
                 bucket_cap_mb: Optional[float] = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False,
                 static_graph: bool = False, **ignored: Any) -> None:
        super().__init__()
        world = dist.process_group.default_world(process_group)  # PyTorch's ValueError before init_process_group
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        devices = {p.device for p in module.parameters()}
        if device_ids is not None and (len(device_ids) != 1 or any(d.type != "cuda" for d in devices)):
            shown = "{" + ", ".join(repr(d) for d in sorted(devices, key=str)) + "}"
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                             "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{list(device_ids)}, output_device {output_device}, and module parameters {shown}.")
        self.module = module
        self.device_ids = None if device_ids is None else [_as_index(d) for d in device_ids]
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.process_group = world
        self.gradient_as_bucket_view = gradient_as_bucket_view  # accepted; the buckets are always copies here
        self.static_graph = static_graph
        self.check_reduction = check_reduction
        self.require_backward_grad_sync = True   # False inside no_sync()
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * _MB)
        if init_sync:
            self._sync_module_states()
        # PyTorch makes the first bucket small (1 MiB) only when bucket_cap_mb is left at its default.
        first = min(FIRST_BUCKET_BYTES, self.bucket_bytes_cap) if bucket_cap_mb is None else self.bucket_bytes_cap
        self.reducer = Reducer(params, self.bucket_bytes_cap, first, find_unused_parameters, world)

    # ------------------------------------------------------------------ keeping replicas equal
    def _sync_module_states(self) -> None:
        """Broadcast rank 0's parameters and buffers, so every replica starts from the same weights."""
        if self.process_group.size == 1:
            return
        with no_grad():
            for t in list(self.module.parameters()) + list(self.module.buffers()):
                dist.broadcast(t, group=self.process_group, group_src=0)

    def _sync_buffers(self) -> None:
        """Before each forward: buffers (BatchNorm's running statistics) follow rank 0's."""
        if self.process_group.size == 1:
            return
        with no_grad():
            for b in self.module.buffers():
                dist.broadcast(b, group=self.process_group, group_src=0)

    # ------------------------------------------------------------------ forward
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        sync_grads = is_grad_enabled() and self.require_backward_grad_sync
        if sync_grads:
            self.reducer.check_previous_iteration_finished()
        if self.broadcast_buffers and self.require_forward_param_sync:
            self._sync_buffers()
        if self.device_ids:
            target = _device("cuda", self.device_ids[0])
            inputs, kwargs = _move(inputs, target), _move(kwargs, target)
        output = self.module(*inputs, **kwargs)
        if sync_grads:
            self.reducer.prepare_for_backward(output)
        else:
            self.reducer.expect_no_hooks()
        return output

    def register_comm_hook(self, state: Any, hook: Any) -> None:
        """Reduce each full gradient bucket with ``hook(state, bucket) -> Future`` instead of the
        built-in average (e.g. ``default_hooks.fp16_compress_hook`` with ``state=None``).  Once only."""
        if not callable(hook):
            raise TypeError(f"Communication hook must be callable, got {type(hook).__name__}")
        if self.reducer.comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self.reducer.comm_hook = (state, hook)

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Backward passes of forwards run inside this block only accumulate ``.grad`` locally;
        the first synchronised backward after it all-reduces the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old


def _as_index(d: Any) -> int:
    return d if isinstance(d, int) else (_device(d).index or 0)


def _move(obj: Any, target: Any) -> Any:
    """Move the tensors inside ``obj`` (tuples, lists, dicts) to ``target``."""
    if isinstance(obj, Tensor):
        return obj.to(target)
    if isinstance(obj, tuple):
        return tuple(_move(o, target) for o in obj)
    if isinstance(obj, list):
        return [_move(o, target) for o in obj]
    if isinstance(obj, dict):
        return {k: _move(v, target) for k, v in obj.items()}
    return obj
