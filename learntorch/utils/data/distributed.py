"""``DistributedSampler``: in data-parallel training each process (rank) reads its own share of the
dataset, as ``torch.utils.data.distributed.DistributedSampler`` does.

How the shares are cut, for ``R = num_replicas`` processes and a dataset of ``n`` samples:

1. every rank builds the *same* list of all ``n`` indices: ``0 .. n-1``, or, with ``shuffle``,
   ``randperm(n)`` drawn from a fresh ``Generator`` seeded with ``seed + epoch``.  The same seed
   on every rank is what keeps the shares disjoint; no message has to be sent;
2. the list is made a multiple of ``R`` long: extended by repeating it from its start (a few
   samples are seen twice per epoch), or, with ``drop_last``, cut at the end;
3. rank ``r`` takes every ``R``-th entry starting at ``r``: positions ``r, r + R, r + 2R, ...``.

Call ``set_epoch(epoch)`` at the start of each epoch: without it the seed never changes and every
epoch repeats the first one's order -- a classic mistake in DDP programs.

The permutation is learntorch's ``randperm``, which draws PyTorch's numbers, so with the same
seed and epoch each rank gets PyTorch's own indices."""
from __future__ import annotations

import math
from typing import Any, Iterator, Optional

from ... import distributed as dist
from ...creation import randperm
from ...random import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """The indices that process ``rank`` of ``num_replicas`` reads (see the module docstring).

    ``num_replicas`` and ``rank`` default to the default process group's world size and rank;
    without ``init_process_group`` that is PyTorch's ValueError ("Default process group has not
    been initialized ...").  Each rank yields ``len(sampler)`` indices per epoch, the same count
    on every rank, so that no rank waits for the others in a collective at the end of an epoch."""

    def __init__(self, dataset: Any, num_replicas: Optional[int] = None, rank: Optional[int] = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        self.shuffle = shuffle
        self.seed = seed
        n = len(dataset)
        # an equal count per rank: round down (drop the tail) or up (repeat from the start)
        self.num_samples = n // num_replicas if drop_last else math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def _all_indices(self) -> list[int]:
        """Every rank's common list: the dataset's indices, shuffled with ``seed + epoch``."""
        n = len(self.dataset)
        if not self.shuffle:
            return list(range(n))
        generator = Generator()
        generator.manual_seed(self.seed + self.epoch)
        return randperm(n, generator=generator).tolist()

    def __iter__(self) -> Iterator[int]:
        indices = self._all_indices()
        if len(indices) < self.total_size:  # pad: the list again (and again), then cut to size
            indices = (indices * math.ceil(self.total_size / len(indices)))[:self.total_size]
        else:  # drop_last (or already a multiple of num_replicas)
            indices = indices[:self.total_size]
        return iter(indices[self.rank::self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Make the next pass shuffle with ``seed + epoch``; call it at the start of every epoch,
        with the same ``epoch`` on every rank."""
        self.epoch = epoch
