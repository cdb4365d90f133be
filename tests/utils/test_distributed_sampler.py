"""``torch.utils.data.DistributedSampler`` against PyTorch's: each rank's indices (shuffled with
``seed + epoch``, padded by repetition or cut with ``drop_last``), lengths, the defaults taken from
the process group and the errors.

The defaults are tested with a stand-in default group (``process_group._world``), so that no MPI
job is needed: the sampler only asks the group for its size and this process's rank."""
from __future__ import annotations

from datetime import timedelta

import pytest

import learntorch as lt
from learntorch.distributed import process_group
from learntorch.utils.data import DataLoader, TensorDataset
from learntorch.utils.data.distributed import DistributedSampler
from conftest import raises_both

pytestmark = pytest.mark.torch


def _shares(T, n: int, replicas: int, epoch: int = 0, **kw) -> list:
    out = []
    for rank in range(replicas):
        sampler = T.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=rank, **kw)
        sampler.set_epoch(epoch)
        out.append((list(sampler), len(sampler), sampler.num_samples, sampler.total_size))
    return out


@pytest.mark.parametrize("n, replicas", [(0, 2), (1, 3), (2, 7), (10, 3), (12, 4), (13, 4), (50, 8)])
@pytest.mark.parametrize("shuffle, drop_last", [(True, False), (False, False), (True, True), (False, True)])
def test_each_rank_gets_pytorchs_indices(torch_oracle, n, replicas, shuffle, drop_last):
    """Padding repeats the list (several times when the dataset is smaller than the world)."""
    for epoch in (0, 3):
        kw = dict(shuffle=shuffle, drop_last=drop_last, seed=5, epoch=epoch)
        assert _shares(lt, n, replicas, **kw) == _shares(torch_oracle, n, replicas, **kw)


def test_set_epoch_reshuffles_and_the_shares_cover_the_dataset(torch_oracle):
    mine = DistributedSampler(range(10), num_replicas=2, rank=0, seed=1)
    first = list(mine)
    assert list(mine) == first  # no set_epoch: the same order again (the classic DDP mistake)
    mine.set_epoch(1)
    assert list(mine) != first
    both = sorted(list(DistributedSampler(range(10), num_replicas=2, rank=r, seed=1)) for r in range(2))
    assert sorted(both[0] + both[1]) == list(range(10))
    theirs = torch_oracle.utils.data.distributed.DistributedSampler(range(10), num_replicas=2, rank=0, seed=1)
    theirs.set_epoch(1)
    assert list(mine) == list(theirs)


def test_without_a_process_group_the_defaults_raise_pytorchs_error(torch_oracle):
    for kw in ({}, {"num_replicas": 2}, {"rank": 0}):
        raises_both(lambda T: T.utils.data.DistributedSampler(range(4), **kw), torch_oracle,
                    match="Default process group has not been initialized")


@pytest.mark.parametrize("rank", [2, 5, -1])
def test_a_rank_outside_the_world_is_a_value_error(torch_oracle, rank):
    raises_both(lambda T: T.utils.data.DistributedSampler(range(4), num_replicas=2, rank=rank), torch_oracle,
                match=rf"Invalid rank {rank}, rank should be in the interval \[0, 1\]")


def test_defaults_come_from_the_default_process_group(monkeypatch):
    world = process_group.World(backend="mpi", rank=1, size=3, timeout=timedelta(seconds=1), mpi_comm=None,
                                use_nccl=False)
    monkeypatch.setattr(process_group, "_world", world)
    sampler = DistributedSampler(range(7), shuffle=False)
    assert (sampler.num_replicas, sampler.rank, list(sampler)) == (3, 1, [1, 4, 0])
    assert DistributedSampler(range(7), rank=0, shuffle=False).num_replicas == 3


def test_a_dataloader_batches_one_ranks_share(torch_oracle):
    def batches(T):
        ds = T.utils.data.TensorDataset(T.arange(11))
        sampler = T.utils.data.DistributedSampler(ds, num_replicas=3, rank=2, seed=4)
        sampler.set_epoch(2)
        loader = T.utils.data.DataLoader(ds, batch_size=2, sampler=sampler)
        return [b[0].tolist() for b in loader], len(loader)
    assert batches(lt) == batches(torch_oracle)
    assert DataLoader is lt.utils.data.DataLoader and TensorDataset is lt.utils.data.TensorDataset
    assert lt.utils.data.DistributedSampler is DistributedSampler
