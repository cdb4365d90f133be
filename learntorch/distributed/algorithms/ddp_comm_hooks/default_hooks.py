"""PyTorch's two basic DDP communication hooks, written with learntorch's collectives.

A hook is ``hook(state, bucket) -> Future``: ``state`` is what the program
passed to ``register_comm_hook`` (here, as in PyTorch, a process group or
``None`` for the default one), ``bucket`` a :class:`GradBucket`.  The Future's
value is the bucket's *averaged* gradients, so each hook divides by the group
size before summing over the ranks.
"""
from __future__ import annotations

from typing import Any

from ....dtypes import float16
from ... import collectives
from ....futures import Future
from ...grad_bucket import GradBucket
from ...process_group import get_world_size

__all__ = ["allreduce_hook", "fp16_compress_hook"]


def allreduce_hook(process_group: Any, bucket: GradBucket) -> Future:
    """What DDP does without a hook: average the bucket over the ranks (divide, then all-reduce a sum)."""
    tensor = bucket.buffer()
    tensor.div_(get_world_size(process_group))
    work = collectives.all_reduce(tensor, group=process_group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def fp16_compress_hook(process_group: Any, bucket: GradBucket) -> Future:
    """Send half as many bytes: cast the bucket to float16, all-reduce that, cast back.

    The gradients lose precision (float16 keeps about 3 significant digits),
    which training usually tolerates; dividing *before* the sum keeps it from
    overflowing float16's range."""
    buffer = bucket.buffer()
    compressed = buffer.to(float16).div_(get_world_size(process_group))
    work = collectives.all_reduce(compressed, group=process_group, async_op=True)

    def decompress(fut: Future) -> Any:
        buffer.copy_(fut.value()[0])
        return buffer
    return work.get_future().then(decompress)
