"""Gradient buckets (梯度分桶) and the reducer that all-reduces them *during* backward.

This is the heart of ``DistributedDataParallel``, and chapter 04's hooks at
work.  The problem: after ``loss.backward()`` every rank has gradients from its
own slice of the batch; they must be averaged over the ranks before the
optimizer step.  All-reducing each parameter's ``.grad`` after backward would
work, but it sends many small messages and waits for the last gradient before
sending the first.  PyTorch's answer, and ours:

1. **Buckets.**  At construction the parameters are grouped into *buckets* of
   about ``bucket_cap_mb`` megabytes, walking the parameters **backwards**:
   backward computes the last layer's gradients first, so the first bucket
   fills first.  A bucket has one flat buffer: one message for many tensors.
2. **Hooks.**  Each parameter's ``AccumulateGrad`` node (the end of the graph
   for that leaf, found as ``p.expand_as(p).grad_fn.next_functions[0][0]``) gets
   a post hook: it runs right after backward has written ``p.grad``.  The hook
   copies the gradient into its bucket's buffer and counts down the bucket.
3. **All-reduce when full.**  When a bucket has all its gradients, it is
   divided by the world size and all-reduced *asynchronously*
   (``async_op=True``) while backward goes on computing the earlier layers'
   gradients: communication overlaps computation.  Buckets are launched
   strictly in order 0, 1, 2 …, the same on every rank, because MPI and NCCL
   match the n-th collective of one rank with the n-th of the others.
4. **Finish.**  When the last bucket is launched, the reducer waits for all
   of them and copies the averaged gradients back into each ``p.grad``.  After
   ``backward`` returns, every rank holds the same ``.grad``.

A parameter that takes no part in the loss never gets its hook called, so its
bucket never fills.  With ``find_unused_parameters=True`` the reducer walks the
graph after forward to find such parameters and counts them as ready (with a
zero gradient) at once; otherwise the next forward raises PyTorch's error.

**Communication hooks.**  ``register_comm_hook(state, hook)`` replaces step 3's
"divide and all-reduce": a full bucket is handed to ``hook(state, GradBucket)``,
which returns a ``Future`` of the averaged flat gradients (compressed to
float16 on the way, for instance); step 4 waits for the Futures instead.

Differences from PyTorch's C++ Reducer: the buckets are not rebuilt after the
first iteration in the order gradients really arrived; no ``gradient_as_bucket_view``,
no ``static_graph``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ... import distributed as dist
from ...autograd import no_grad
from ...autograd.grad_mode import enable_grad
from ...creation import tensor as _tensor
from ...creation import zeros
from ...tensor import Tensor
from ..parameter import Parameter

__all__ = ["Bucket", "Reducer", "assign_buckets"]

FIRST_BUCKET_BYTES = 1024 * 1024  # PyTorch's default first bucket (1 MiB): the first gradients go out early

UNFINISHED_REDUCTION = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs participate "
    "in calculating loss.")

MARKED_TWICE = (
    "Expected to mark a variable ready only once. This error is caused by a parameter whose gradient arrived "
    "twice in one iteration: a second backward through the same forward (retain_graph=True), or a parameter "
    "used outside the `forward` function. Run forward again before each backward, or use no_sync() for the "
    "backward passes that should not all-reduce.")


def assign_buckets(params: list[Parameter], cap_bytes: int, first_cap_bytes: int) -> list[list[int]]:
    """Group parameter indices into buckets, from the last parameter to the first.

    A bucket is closed once it holds at least ``cap_bytes`` (the first one:
    ``first_cap_bytes``), or when the next parameter has another dtype or device
    (one flat buffer holds one dtype on one device).  PyTorch's rule too."""
    buckets: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i in reversed(range(len(params))):
        p = params[i]
        if current and (p.dtype, p.device) != (params[current[0]].dtype, params[current[0]].device):
            buckets.append(current)
            current, size = [], 0
        current.append(i)
        size += p.numel() * p.element_size()
        if size >= (first_cap_bytes if not buckets else cap_bytes):
            buckets.append(current)
            current, size = [], 0
    if current:
        buckets.append(current)
    return buckets


@dataclass
class Bucket:
    """Some parameters whose gradients travel together, in one flat buffer."""

    indices: list[int]                 # which parameters (positions in the reducer's list), in arrival order
    offsets: list[int]                 # where each one's gradient starts in ``buffer``
    buffer: Tensor                     # the flat buffer: one all-reduce for the whole bucket
    pending: int = 0                   # gradients still missing in this iteration
    future: Optional[dist.Future] = field(default=None, repr=False)  # its averaged buffer, once reduced


class Reducer:
    """Puts gradients into buckets from hooks and all-reduces each bucket when it is full."""

    def __init__(self, params: list[Parameter], bucket_cap_bytes: int, first_bucket_bytes: int,
                 find_unused_parameters: bool, group: Any = None) -> None:
        self.params = params
        self.group = group  # the process group whose ranks average their gradients (None: the default one)
        self.world_size = dist.get_world_size(group)
        self.find_unused_parameters = find_unused_parameters
        self.buckets: list[Bucket] = []
        self.where: dict[int, tuple[int, int]] = {}   # parameter index -> (bucket index, offset)
        for b, indices in enumerate(assign_buckets(params, bucket_cap_bytes, first_bucket_bytes)):
            offsets, total = [], 0
            for i in indices:
                self.where[i] = (b, total)
                offsets.append(total)
                total += params[i].numel()
            first = params[indices[0]]
            self.buckets.append(Bucket(indices, offsets, zeros(total, dtype=first.dtype, device=first.device)))

        # The hooks.  We keep the AccumulateGrad nodes alive: a parameter only keeps a weak
        # reference to its own, and a hook on a node that was thrown away would never run.
        self._accumulators = []
        with enable_grad():
            for i, p in enumerate(params):
                accumulator = p.expand_as(p).grad_fn.next_functions[0][0]
                accumulator.register_hook(self._hook_for(i))
                self._accumulators.append(accumulator)

        self.expect_hooks = False    # True between a synchronised forward and the end of its backward
        self.started = False         # some gradient of this iteration has arrived
        self.ready: set[int] = set()
        self.next_bucket = 0         # the next bucket to launch (they go in order)
        self.locally_used = [True] * len(params)
        self.launch_log: list[int] = []  # bucket indices in launch order, last iteration (for the chapter)
        self.comm_hook: Optional[Any] = None  # (state, hook) from register_comm_hook

    # ------------------------------------------------------------------ iteration bookkeeping
    def check_previous_iteration_finished(self) -> None:
        """Before a forward: the last synchronised backward must have reduced every bucket."""
        if self.expect_hooks and self.started:
            raise RuntimeError(UNFINISHED_REDUCTION)

    def prepare_for_backward(self, outputs: Any) -> None:
        """After a forward whose backward must all-reduce: reset the buckets' counts."""
        self.expect_hooks = True
        self.started = False
        self.ready = set()
        self.next_bucket = 0
        self.launch_log = []
        for bucket in self.buckets:
            bucket.pending = len(bucket.indices)
            bucket.future = None
        self.locally_used = [True] * len(self.params)
        if self.find_unused_parameters:
            reached = _nodes_reached_from(outputs)
            for i, accumulator in enumerate(self._accumulators):
                if id(accumulator) not in reached:
                    self.locally_used[i] = False
                    self._mark_ready(i)

    def expect_no_hooks(self) -> None:
        """After a forward under ``no_sync()`` or ``no_grad``: its backward stays local."""
        self.expect_hooks = False

    # ------------------------------------------------------------------ during backward
    def _hook_for(self, index: int) -> Any:
        def grad_ready(grad_inputs: tuple, grad_outputs: tuple) -> None:
            self._on_grad_ready(index)
        grad_ready.__name__ = f"ddp_grad_ready_{index}"
        return grad_ready

    def _on_grad_ready(self, index: int) -> None:
        """Runs right after backward wrote ``params[index].grad`` (an AccumulateGrad post hook)."""
        if not self.expect_hooks:
            return  # a backward that must not all-reduce (no_sync, or the module used without its wrapper)
        if index in self.ready:
            raise RuntimeError(MARKED_TWICE)
        self.started = True
        self._mark_ready(index)
        for bucket in self.buckets[:self.next_bucket]:
            bucket.future.done()  # lets MPI move the buckets already in flight along

    def _mark_ready(self, index: int) -> None:
        """Copy one gradient into its bucket; launch the buckets that are complete."""
        self.ready.add(index)
        b, offset = self.where[index]
        bucket = self.buckets[b]
        p = self.params[index]
        with no_grad():
            slot = bucket.buffer[offset:offset + p.numel()]
            if p.grad is not None and self.locally_used[index]:
                slot.copy_(p.grad.reshape(-1))
            else:
                slot.zero_()  # an unused parameter contributes nothing to the sum
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_complete_buckets()

    def _launch_complete_buckets(self) -> None:
        """Launch buckets in order 0, 1, 2 …: a full bucket waits for the ones before it."""
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            bucket = self.buckets[self.next_bucket]
            with no_grad():
                bucket.future = self._reduce(self.next_bucket, bucket)
            self.launch_log.append(self.next_bucket)
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            self._finish()

    def _reduce(self, index: int, bucket: Bucket) -> dist.Future:
        """Start averaging one bucket over the ranks: the hook's way, or divide and all-reduce."""
        if self.comm_hook is not None:
            state, hook = self.comm_hook
            view = dist.GradBucket(index, bucket.buffer, bucket.offsets, [self.params[i] for i in bucket.indices],
                                   index == len(self.buckets) - 1)
            future = hook(state, view)
            if not isinstance(future, dist.Future):
                raise RuntimeError(f"a DDP communication hook must return a Future (torch.futures.Future), "
                                   f"got {type(future).__name__}")
            return future
        bucket.buffer.div_(self.world_size)  # the sum of g / n over the ranks is their average
        work = dist.all_reduce(bucket.buffer, group=self.group, async_op=True)
        return work.get_future().then(lambda fut: fut.value()[0])

    def _finish(self) -> None:
        """All buckets launched: wait for them, then write the averages into ``.grad``."""
        used_somewhere = [True] * len(self.params)
        if self.find_unused_parameters:  # a parameter unused on every rank keeps its .grad as it was
            counts = _tensor([int(u) for u in self.locally_used])
            dist.all_reduce(counts, group=self.group)
            used_somewhere = [bool(c) for c in counts.tolist()]
        with no_grad():
            for bucket in self.buckets:
                reduced = bucket.future.wait()
                if reduced is not bucket.buffer:  # a hook may return another tensor: it holds the average
                    bucket.buffer.copy_(reduced.reshape(-1))
                for i, offset in zip(bucket.indices, bucket.offsets):
                    if not used_somewhere[i]:
                        continue
                    p = self.params[i]
                    average = bucket.buffer[offset:offset + p.numel()].view_as(p)
                    if p.grad is None:
                        p.grad = average.clone()
                    else:
                        p.grad.copy_(average)
        self.expect_hooks = False


def _nodes_reached_from(outputs: Any) -> set[int]:
    """The ids of every backward node reachable from the tensors in ``outputs``
    (tensors found inside tuples, lists and dicts), walked without recursion."""
    stack = []
    todo = [outputs]
    while todo:
        item = todo.pop()
        if isinstance(item, Tensor):
            if item.grad_fn is not None:
                stack.append(item.grad_fn)
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
    return seen
