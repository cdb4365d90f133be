"""More of learntorch.utils.data against real PyTorch (the oracle): IterableDataset and DataLoader over it,
ChainDataset, StackDataset, get_worker_info, DataLoader's option checks (sampler / batch_sampler / shuffle /
prefetch_factor / persistent_workers / pin_memory), len() with drop_last, __getitems__, and default_collate /
default_convert on nested containers, compared value by value *and container type by container type*."""
import collections
import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, raises_both

Point = collections.namedtuple("Point", "x y")


def _lib_data(lib):
    return lib.utils.data


def _same(mine, theirs, path="batch"):
    """Recursive equality that also requires the same container types (list vs tuple, dict vs OrderedDict,
    namedtuple) and, for tensors, the same dtype and shape."""
    if type(theirs).__module__.startswith("torch"):
        assert_same(mine, theirs, exact=True, path=path)
        return
    assert type(mine) is type(theirs), f"{path}: {type(mine).__name__} != torch's {type(theirs).__name__}"
    if isinstance(theirs, dict):
        assert list(mine) == list(theirs), path
        for k in theirs:
            _same(mine[k], theirs[k], f"{path}[{k!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert len(mine) == len(theirs), path
        for i, (a, b) in enumerate(zip(mine, theirs)):
            _same(a, b, f"{path}[{i}]")
    else:
        assert mine == theirs, f"{path}: {mine!r} != {theirs!r}"


def _stream(lib, n, with_len=False):
    """An IterableDataset of the library ``lib`` yielding (i, float(i)) pairs."""
    base = _lib_data(lib).IterableDataset

    class Stream(base):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter([(np.array([i, i + 1], dtype=np.float32), i) for i in range(self.n)])

    if with_len:
        return type("SizedStream", (Stream,), {"__len__": lambda self: self.n})(n)
    return Stream(n)


# ------------------------------------------------------------------ IterableDataset + DataLoader

@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (2, False), (2, True), (3, True), (10, False),
                                                  (10, True), (None, False)])
def test_iterable_dataset_batches_match_torch(torch_oracle, batch_size, drop_last):
    got = list(lt.utils.data.DataLoader(_stream(lt, 7), batch_size=batch_size, drop_last=drop_last))
    want = list(torch_oracle.utils.data.DataLoader(_stream(torch_oracle, 7), batch_size=batch_size,
                                                   drop_last=drop_last))
    assert len(got) == len(want)
    _same(got, want)


@pytest.mark.parametrize("batch_size,drop_last", [(2, False), (2, True), (7, True), (None, False)])
def test_len_of_loader_over_sized_iterable_dataset(torch_oracle, batch_size, drop_last):
    mine = len(lt.utils.data.DataLoader(_stream(lt, 7, True), batch_size=batch_size, drop_last=drop_last))
    theirs = len(torch_oracle.utils.data.DataLoader(_stream(torch_oracle, 7, True), batch_size=batch_size,
                                                    drop_last=drop_last))
    assert mine == theirs


def test_len_of_loader_over_unsized_iterable_dataset_raises(torch_oracle):
    raises_both(lambda L: len(L.utils.data.DataLoader(_stream(L, 3), batch_size=2)), torch_oracle, match="len")


@pytest.mark.parametrize("option,match", [(dict(shuffle=True), "expected unspecified shuffle option"),
                                          (dict(sampler=[0, 1]), "expected unspecified sampler option"),
                                          (dict(batch_sampler=[[0, 1]]), "expected unspecified batch_sampler")])
def test_iterable_dataset_refuses_index_options(torch_oracle, option, match):
    raises_both(lambda L: L.utils.data.DataLoader(_stream(L, 3), **option), torch_oracle, match=match)


def test_iterable_dataset_shuffle_false_is_fine_and_base_is_abstract(torch_oracle):
    assert len(list(lt.utils.data.DataLoader(_stream(lt, 3), shuffle=False))) == 3
    raises_both(lambda L: iter(L.utils.data.IterableDataset()), torch_oracle)  # NotImplementedError
    raises_both(lambda L: len(_stream(L, 3)), torch_oracle, match="has no len")


def test_iterable_loader_restarts_each_epoch():
    loader = lt.utils.data.DataLoader(_stream(lt, 5), batch_size=2)
    first = [b[1].tolist() for b in loader]
    assert first == [b[1].tolist() for b in loader] == [[0, 1], [2, 3], [4]]


def test_get_worker_info_is_none_and_shards_see_whole_stream(torch_oracle):
    assert lt.utils.data.get_worker_info() is None and torch_oracle.utils.data.get_worker_info() is None

    def sharded(lib):
        class Shards(lib.utils.data.IterableDataset):
            """The usual per-worker split: each worker reads every k-th element."""

            def __iter__(self):
                info = lib.utils.data.get_worker_info()
                start, step = (0, 1) if info is None else (info.id, info.num_workers)
                return iter(range(start, 10, step))
        return Shards()
    got = [b.tolist() for b in lt.utils.data.DataLoader(sharded(lt), batch_size=4)]
    want = [b.tolist() for b in torch_oracle.utils.data.DataLoader(sharded(torch_oracle), batch_size=4)]
    assert got == want == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


# ------------------------------------------------------------------ ChainDataset / StackDataset

def test_chain_dataset_and_add(torch_oracle):
    for lib in (lt, torch_oracle):
        D = lib.utils.data
        chained = D.ChainDataset([_stream(lib, 2, True), _stream(lib, 3, True)])
        assert [s[1] for s in chained] == [0, 1, 0, 1, 2] and len(chained) == 5
        assert isinstance(_stream(lib, 2) + _stream(lib, 1), D.ChainDataset)
        assert [s[1] for s in _stream(lib, 2) + _stream(lib, 1)] == [0, 1, 0]
    raises_both(lambda L: list(L.utils.data.ChainDataset([range(3)])), torch_oracle,
                match="ChainDataset only supports IterableDataset")
    raises_both(lambda L: len(L.utils.data.ChainDataset([_stream(L, 2)])), torch_oracle, match="has no len")


def test_stack_dataset_matches_torch(torch_oracle):
    for make in (lambda L: L.utils.data.StackDataset(L.arange(4), [10, 11, 12, 13]),
                 lambda L: L.utils.data.StackDataset(x=L.arange(4.0), y=["a", "b", "c", "d"])):
        mine, theirs = make(lt), make(torch_oracle)
        assert len(mine) == len(theirs) == 4
        _same(mine[2], theirs[2], "sample")
        got = list(lt.utils.data.DataLoader(mine, batch_size=3))
        want = list(torch_oracle.utils.data.DataLoader(theirs, batch_size=3))
        _same(got, want)
    raises_both(lambda L: L.utils.data.StackDataset(range(3), range(4)), torch_oracle,
                match="Size mismatch between datasets")
    raises_both(lambda L: L.utils.data.StackDataset(range(3), b=range(3)), torch_oracle, match="both types are given")
    raises_both(lambda L: L.utils.data.StackDataset(), torch_oracle, match="At least one dataset should be passed")


def test_getitems_fetches_a_whole_batch(torch_oracle):
    def make(lib):
        class Batched(lib.utils.data.Dataset):
            calls = []

            def __len__(self):
                return 5

            def __getitem__(self, i):
                raise AssertionError("__getitems__ should have been used")

            def __getitems__(self, indices):
                self.calls.append(list(indices))
                return [i * 10 for i in indices]
        return Batched()
    mine, theirs = make(lt), make(torch_oracle)
    got = [b.tolist() for b in lt.utils.data.DataLoader(mine, batch_size=2)]
    want = [b.tolist() for b in torch_oracle.utils.data.DataLoader(theirs, batch_size=2)]
    assert got == want == [[0, 10], [20, 30], [40]] and mine.calls == theirs.calls


# ------------------------------------------------------------------ DataLoader options

DS = list(range(10))
OPTION_ERRORS = [
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified in multiprocessing"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
    (dict(shuffle=True, sampler=[0, 1]), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], shuffle=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], sampler=[0]), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_size=None, drop_last=True), "mutually exclusive with drop_last"),
    (dict(num_workers=-1), "num_workers option should be non-negative"),
    (dict(timeout=-1), "timeout option should be non-negative"),
]


@pytest.mark.parametrize("kwargs,match", OPTION_ERRORS, ids=[m[:30] for _, m in OPTION_ERRORS])
def test_option_errors_match_torch(torch_oracle, kwargs, match):
    raises_both(lambda L: L.utils.data.DataLoader(DS, **kwargs), torch_oracle, match=match)


def test_worker_only_options_accepted_as_torch_does(torch_oracle):
    kw = dict(prefetch_factor=None, persistent_workers=False, pin_memory_device="", in_order=True,
              multiprocessing_context=None, worker_init_fn=None, timeout=0)
    for lib in (lt, torch_oracle):
        loader = lib.utils.data.DataLoader(DS, batch_size=4, **kw)
        assert loader.prefetch_factor is None and loader.persistent_workers is False
        assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_pin_memory_is_a_documented_no_op(torch_oracle):
    for lib in (lt, torch_oracle):
        loader = lib.utils.data.DataLoader(DS, batch_size=5, pin_memory=True)
        assert loader.pin_memory is True
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = [b.tolist() for b in loader]
        assert batches == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
        if not lib.cuda.is_available():  # no accelerator: both say pinned memory won't be used
            assert any("pin_memory" in str(w.message) for w in caught), lib.__name__


@pytest.mark.parametrize("n,batch_size,drop_last", [(10, 3, False), (10, 3, True), (9, 3, True), (2, 3, True),
                                                    (0, 3, False)])
def test_len_with_drop_last_matches_torch(torch_oracle, n, batch_size, drop_last):
    mine = lt.utils.data.DataLoader(list(range(n)), batch_size=batch_size, drop_last=drop_last)
    theirs = torch_oracle.utils.data.DataLoader(list(range(n)), batch_size=batch_size, drop_last=drop_last)
    assert len(mine) == len(theirs) == len(list(mine))


@pytest.mark.parametrize("seed", [0, 7])
def test_generator_gives_torch_order_and_leaves_global_stream(torch_oracle, seed):
    lt.manual_seed(123)
    torch_oracle.manual_seed(123)
    g, tg = lt.Generator().manual_seed(seed), torch_oracle.Generator().manual_seed(seed)
    mine = [b.tolist() for e in range(2) for b in lt.utils.data.DataLoader(DS, batch_size=4, shuffle=True,
                                                                            generator=g)]
    theirs = [b.tolist() for e in range(2) for b in torch_oracle.utils.data.DataLoader(DS, batch_size=4,
                                                                                        shuffle=True, generator=tg)]
    assert mine == theirs
    assert lt.rand(3).tolist() == pytest.approx(torch_oracle.rand(3).tolist())  # the global stream was not used


# ------------------------------------------------------------------ default_collate / default_convert

COLLATE_BATCHES = {
    "nested dicts": [{"a": 1, "b": {"c": np.float32(2), "d": [1.5, 2]}}, {"a": 2, "b": {"c": np.float32(3),
                                                                                          "d": [2.5, 3]}}],
    "ordered dict": [collections.OrderedDict(a=1.5, b="x"), collections.OrderedDict(a=2.5, b="y")],
    "defaultdict": [collections.defaultdict(int, a=1), collections.defaultdict(int, a=2)],
    "tuples with strings": [(1, "a", np.zeros(2)), (2, "b", np.ones(2))],
    "lists": [[1, 2.0, True], [3, 4.0, False]],
    "namedtuple": [Point(1, np.array([1, 2], dtype=np.int16)), Point(2, np.array([3, 4], dtype=np.int16))],
    "numpy scalars": [np.int64(1), np.int64(2)],
    "numpy 0-d": [np.array(1.0), np.array(2.0)],
    "numpy float32": [np.arange(6, dtype=np.float32).reshape(2, 3)] * 3,
    "numpy bool": [np.array([True, False])] * 2,
    "strings": ["x", "y"],
    "bytes": [b"x", b"y"],
    "bools": [True, False, True],
    "floats": [0.5, 1.5],
    "tensors in dicts": "tensors",
}


@pytest.mark.parametrize("name", list(COLLATE_BATCHES))
def test_default_collate_matches_torch(torch_oracle, name):
    batch = COLLATE_BATCHES[name]
    if batch == "tensors":
        mine = lt.utils.data.default_collate([{"x": lt.ones(2, 3), "y": lt.tensor(1)}] * 2)
        theirs = torch_oracle.utils.data.default_collate([{"x": torch_oracle.ones(2, 3), "y": torch_oracle.tensor(1)}]
                                                         * 2)
    else:
        mine, theirs = lt.utils.data.default_collate(batch), torch_oracle.utils.data.default_collate(batch)
    _same(mine, theirs)


@pytest.mark.parametrize("batch", [[object(), object()], [None, None], [np.array(["a"]), np.array(["b"])],
                                   [[1, 2], [3]]], ids=["object", "None", "numpy-str", "ragged"])
def test_default_collate_errors_match_torch(torch_oracle, batch):
    raises_both(lambda L: L.utils.data.default_collate(batch), torch_oracle)


def test_default_collate_unequal_tensors(torch_oracle):
    raises_both(lambda L: L.utils.data.default_collate([L.zeros(2), L.zeros(3)]), torch_oracle,
                match="stack expects each tensor to be equal size")


@pytest.mark.parametrize("sample", [{"a": np.arange(3), "b": "s"}, (np.float64(2.5), [np.arange(2)]),
                                    Point(np.zeros(2), 3), collections.OrderedDict(z=np.ones(1)), [1, "x"]],
                         ids=["dict", "tuple", "namedtuple", "ordered", "list"])
def test_default_convert_matches_torch(torch_oracle, sample):
    _same(lt.utils.data.default_convert(sample), torch_oracle.utils.data.default_convert(sample), "sample")


def test_collate_fn_none_uses_defaults(torch_oracle):
    samples = [{"img": np.full((2, 2), i, dtype=np.float32), "label": i, "name": f"s{i}"} for i in range(5)]
    got = list(lt.utils.data.DataLoader(samples, batch_size=2, collate_fn=None))
    want = list(torch_oracle.utils.data.DataLoader(samples, batch_size=2, collate_fn=None))
    _same(got, want)
    got = list(lt.utils.data.DataLoader(samples, batch_size=None))  # no batching: default_convert per sample
    want = list(torch_oracle.utils.data.DataLoader(samples, batch_size=None))
    _same(got, want)
