"""learntorch.utils.data: datasets, samplers, DataLoader, default_collate, random_split.

Differential tests against real PyTorch skip where torch is not installed."""
import collections
import warnings

import numpy as np
import pytest

import learntorch as lt
from learntorch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, RandomSampler,
                                   SequentialSampler, Subset, TensorDataset, default_collate, random_split)

try:
    import torch
    import torch.utils.data as td
except ImportError:  # pragma: no cover
    torch = td = None

needs_torch = pytest.mark.skipif(torch is None, reason="real PyTorch (the oracle) is not installed")
Point = collections.namedtuple("Point", "x y")


def lists(loader):
    return [b.tolist() for b in loader]


# ------------------------------------------------------------------ datasets

def test_tensor_dataset_index_len():
    x, y = lt.arange(12.0).reshape(6, 2), lt.arange(6)
    ds = TensorDataset(x, y)
    assert len(ds) == 6
    xi, yi = ds[4]
    assert xi.tolist() == [8.0, 9.0] and yi.item() == 4
    assert [t.tolist() for t in ds[1:3]] == [[[2.0, 3.0], [4.0, 5.0]], [1, 2]]


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(lt.zeros(3), lt.zeros(4))


def test_dataset_abstract_and_add():
    with pytest.raises(NotImplementedError):
        Dataset()[0]

    class Squares(Dataset):
        def __init__(self, n):
            self.n = n

        def __getitem__(self, i):
            return i * i

        def __len__(self):
            return self.n

    cat = Squares(3) + Squares(2)
    assert isinstance(cat, ConcatDataset)
    assert len(cat) == 5 and cat.cumulative_sizes == [3, 5]
    assert [cat[i] for i in range(5)] == [0, 1, 4, 0, 1]
    assert cat[-1] == 1
    with pytest.raises(ValueError, match="absolute value of index"):
        cat[-6]
    with pytest.raises(AssertionError, match="should not be an empty iterable"):
        ConcatDataset([])


def test_subset():
    s = Subset(list("abcdef"), [5, 0, 2])
    assert len(s) == 3 and [s[i] for i in range(3)] == ["f", "a", "c"]


# ------------------------------------------------------------------ samplers

def test_sequential_and_batch_sampler():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    bs = BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6]] and len(bs) == 3
    bs = BatchSampler(SequentialSampler(range(7)), 3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5]] and len(bs) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        BatchSampler(range(3), 0, False)


def test_random_sampler_errors_and_len():
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        RandomSampler(range(3), replacement=1)
    assert len(RandomSampler(range(5), replacement=True, num_samples=11)) == 11
    lt.manual_seed(0)
    assert sorted(RandomSampler(range(9))) == list(range(9))


# ---------------------------------------------------------------- DataLoader

def test_dataloader_batches_with_partial_last():
    dl = DataLoader(TensorDataset(lt.arange(10.0), lt.arange(10)), batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    assert [b[0].shape for b in batches] == [(4,), (4,), (2,)]
    assert batches[2][1].tolist() == [8, 9] and batches[2][1].dtype == lt.int64


def test_dataloader_drop_last():
    dl = DataLoader(lt.arange(10), batch_size=4, drop_last=True)
    assert len(dl) == 2 and lists(dl) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert lists(DataLoader(lt.arange(8), batch_size=4, drop_last=True)) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_dataloader_batch_size_none_and_batch_sampler():
    out = list(DataLoader([np.ones(2), np.zeros(2)], batch_size=None))
    assert all(isinstance(t, lt.Tensor) for t in out) and out[1].dtype == lt.float64
    dl = DataLoader(lt.arange(6), batch_sampler=[[5, 0], [1, 2, 3]])
    assert lists(dl) == [[5, 0], [1, 2, 3]]


def test_dataloader_option_errors():
    # num_workers > 0 runs worker processes: tests/utils/test_dataloader_workers.py
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(lt.arange(3), sampler=SequentialSampler(range(3)), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(lt.arange(3), batch_size=2, batch_sampler=[[0]])


def test_collate_tuples_dicts_numbers_numpy():
    b = default_collate([(1, 2.5, "a"), (3, 4.5, "b")])
    assert isinstance(b, list)  # PyTorch gives a list of columns, even for tuple samples
    assert b[0].dtype == lt.int64 and b[0].tolist() == [1, 3]
    assert b[1].dtype == lt.float64 and b[1].tolist() == [2.5, 4.5]
    assert b[2] == ("a", "b")  # a column of strings stays the tuple zip(*batch) made, as in PyTorch
    d = default_collate([{"x": lt.ones(2), "y": 0}, {"x": lt.zeros(2), "y": 1}])
    assert d["x"].shape == (2, 2) and d["y"].tolist() == [0, 1]
    p = default_collate([Point(1, lt.ones(3)), Point(2, lt.zeros(3))])
    assert isinstance(p, Point) and p.x.tolist() == [1, 2] and p.y.shape == (2, 3)
    n = default_collate([np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)])
    assert isinstance(n, lt.Tensor) and n.shape == (2, 2, 3) and n.dtype == lt.float32
    s = default_collate([np.float32(1), np.float32(2)])
    assert s.dtype == lt.float32 and s.tolist() == [1.0, 2.0]
    assert default_collate([True, False]).dtype == lt.bool
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([object(), object()])


def test_custom_collate_fn():
    dl = DataLoader(list(range(5)), batch_size=2, collate_fn=lambda batch: sum(batch))
    assert list(dl) == [1, 5, 4]


def test_shuffle_reproducible_with_manual_seed_and_generator():
    lt.manual_seed(7)
    first = lists(DataLoader(lt.arange(20), batch_size=6, shuffle=True))
    second = lists(DataLoader(lt.arange(20), batch_size=6, shuffle=True))
    lt.manual_seed(7)
    assert lists(DataLoader(lt.arange(20), batch_size=6, shuffle=True)) == first
    assert first != second  # the default generator moved on
    assert sorted(sum(first, [])) == list(range(20))
    dl = DataLoader(lt.arange(20), batch_size=6, shuffle=True, generator=lt.Generator().manual_seed(3))
    epochs = [lists(dl), lists(dl)]
    dl2 = DataLoader(lt.arange(20), batch_size=6, shuffle=True, generator=lt.Generator().manual_seed(3))
    assert [lists(dl2), lists(dl2)] == epochs and epochs[0] != epochs[1]


def test_random_split_sizes_and_errors():
    parts = random_split(range(10), [0.3, 0.3, 0.4], generator=lt.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 3, 4]
    assert sorted(sum((list(p.indices) for p in parts), [])) == list(range(10))
    # remainder handed out round-robin from the first split: floor(0.5 * 5) = 2 each, 1 left over
    assert [len(p) for p in random_split(range(5), [0.5, 0.5])] == [3, 2]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(range(10), [0.5, 1.5, -1.0])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(2), [0.9, 0.1])


# --------------------------------------------------- differential vs PyTorch

@needs_torch
@pytest.mark.parametrize("seed", [0, 1, 2024])
def test_shuffle_order_equals_torch(seed):
    lt.manual_seed(seed)
    torch.manual_seed(seed)
    mine = [lists(DataLoader(lt.arange(23), batch_size=5, shuffle=True)) for _ in range(2)]
    theirs = [lists(td.DataLoader(torch.arange(23), batch_size=5, shuffle=True)) for _ in range(2)]
    assert mine == theirs
    assert lt.rand(3).tolist() == torch.rand(3).tolist()  # both streams left in the same place


@needs_torch
@pytest.mark.parametrize("seed", [0, 5])
def test_shuffle_with_generator_equals_torch(seed):
    dl = DataLoader(lt.arange(17), batch_size=4, shuffle=True, drop_last=True,
                    generator=lt.Generator().manual_seed(seed))
    tdl = td.DataLoader(torch.arange(17), batch_size=4, shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(seed))
    assert [lists(dl) for _ in range(3)] == [lists(tdl) for _ in range(3)]


@needs_torch
def test_random_sampler_replacement_and_num_samples_equal_torch():
    lt.manual_seed(11)
    torch.manual_seed(11)
    assert list(RandomSampler(range(7), replacement=True, num_samples=70)) == \
        list(td.RandomSampler(range(7), replacement=True, num_samples=70))
    assert list(RandomSampler(range(7), num_samples=17)) == list(td.RandomSampler(range(7), num_samples=17))


@needs_torch
@pytest.mark.parametrize("lengths", [[3, 7], [5, 0, 5], [0.3, 0.3, 0.4], [0.25, 0.75], [0.1] * 10 + [0.0]])
@pytest.mark.parametrize("seed", [0, 42])
def test_random_split_equals_torch(lengths, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        mine = random_split(range(10), lengths, generator=lt.Generator().manual_seed(seed))
        theirs = td.random_split(range(10), lengths, generator=torch.Generator().manual_seed(seed))
        assert [list(p.indices) for p in mine] == [list(p.indices) for p in theirs]
        lt.manual_seed(seed)
        torch.manual_seed(seed)
        mine = random_split(range(10), lengths)  # the default generator
        theirs = td.random_split(range(10), lengths)
    assert [list(p.indices) for p in mine] == [list(p.indices) for p in theirs]


@needs_torch
def test_collate_matches_torch():
    samples = [(1, 2.5, {"a": np.arange(3, dtype=np.int32)}), (4, 5.5, {"a": np.arange(3, dtype=np.int32)})]
    mine, theirs = default_collate(samples), td.default_collate(samples)
    assert type(mine) is type(theirs)
    for m, t in ((mine[0], theirs[0]), (mine[1], theirs[1]), (mine[2]["a"], theirs[2]["a"])):
        assert str(m.dtype) == str(t.dtype) and m.tolist() == t.tolist()


# ------------------------------------------------------------------ DistributedSampler

@needs_torch
@pytest.mark.parametrize("n, replicas, shuffle, drop_last", [
    (10, 3, False, False), (10, 3, True, False), (10, 4, True, True), (10, 4, False, True), (3, 5, True, False),
    (12, 4, True, False), (7, 2, False, True)])
def test_distributed_sampler_shares_match_torch(n, replicas, shuffle, drop_last):
    """Each rank's indices (padding by repetition, or the tail dropped) and lengths, over two
    epochs with set_epoch: PyTorch's own."""
    from learntorch.utils.data import DistributedSampler
    for epoch in range(2):
        for rank in range(replicas):
            mine = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=7,
                                      drop_last=drop_last)
            theirs = td.DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=7,
                                           drop_last=drop_last)
            mine.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(mine) == list(theirs)
            assert (len(mine), mine.num_samples, mine.total_size) == (len(theirs), theirs.num_samples,
                                                                      theirs.total_size)


def test_distributed_sampler_errors_and_loader():
    from learntorch.utils.data.distributed import DistributedSampler
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))
    ds = TensorDataset(lt.arange(6))
    loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False))
    assert [b[0].tolist() for b in loader] == [[1, 3], [5]]


def test_single_process_iterator_has_a_length_and_pytorchs_name():
    loader = DataLoader(TensorDataset(lt.arange(5.0)), batch_size=2)
    it = iter(loader)
    assert type(it).__name__ == "_SingleProcessDataLoaderIter"
    assert len(it) == 3 and iter(it) is it
    assert [b[0].tolist() for b in it] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    with pytest.raises(StopIteration):
        next(it)
