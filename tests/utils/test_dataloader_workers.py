"""``DataLoader(num_workers>0)``: real worker processes.  Same batches in the same order as
``num_workers=0`` (and as torch), worker seeding (``base_seed + worker_id``), ``get_worker_info``,
``worker_init_fn``, ``persistent_workers``, ``timeout``, errors re-raised with the worker's
traceback.  The datasets are defined at module level, as in a script or a notebook."""
from __future__ import annotations

import os
import time

import numpy as np
import pytest

import learntorch as lt
from learntorch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info


class Squares(Dataset):
    def __init__(self, n=23):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return lt.tensor([float(i), float(i * i)]), i


class WhoLoads(Dataset):
    """Each sample says which process and worker loaded it, and what the worker's RNG gives."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "pid": os.getpid(), "worker": info.id, "num_workers": info.num_workers,
                "seed": info.seed, "initial_seed": lt.initial_seed(), "same_dataset": info.dataset is not None}


class Failing(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"sample {i} is broken")
        return i


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(3)
        return i


class Range(IterableDataset):
    """Split between workers with get_worker_info(), the documented way."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


class Unsplit(IterableDataset):
    def __iter__(self):
        return iter(range(5))


def _as_lists(loader):
    out = []
    for batch in loader:
        out.append([b.tolist() if isinstance(b, lt.Tensor) else b for b in batch]
                   if isinstance(batch, (list, tuple)) else batch.tolist())
    return out


@pytest.mark.parametrize("kw", [dict(batch_size=4), dict(batch_size=4, shuffle=True), dict(batch_size=5,
                                drop_last=True), dict(batch_size=None), dict(batch_size=3, prefetch_factor=1)],
                         ids=["plain", "shuffle", "drop_last", "no_batching", "prefetch_1"])
def test_same_batches_as_single_process(kw):
    lt.manual_seed(7)
    single = _as_lists(DataLoader(Squares(), num_workers=0, **{k: v for k, v in kw.items()
                                                               if k != "prefetch_factor"}))
    after_single = lt.rand(2).tolist()
    lt.manual_seed(7)
    multi = _as_lists(DataLoader(Squares(), num_workers=3, **kw))
    assert multi == single
    assert lt.rand(2).tolist() == after_single  # the main generator is left where num_workers=0 leaves it


def test_shuffled_order_matches_torch(torch_oracle):
    class TorchSquares(torch_oracle.utils.data.Dataset):
        def __len__(self):
            return 23

        def __getitem__(self, i):
            return i
    lt.manual_seed(3)
    got = [b.tolist() for b in DataLoader(list(range(23)), batch_size=4, shuffle=True, num_workers=2)]
    torch_oracle.manual_seed(3)
    want = [b.tolist() for b in torch_oracle.utils.data.DataLoader(TorchSquares(), batch_size=4, shuffle=True,
                                                                   num_workers=0)]
    assert got == want


def test_workers_are_processes_seeded_like_torch():
    gen = lt.Generator().manual_seed(11)
    from learntorch.utils.data.sampler import _draw_seed
    base_seed = _draw_seed(lt.Generator().manual_seed(11))
    rows = [row for batch in DataLoader(WhoLoads(), batch_size=2, num_workers=2, generator=gen,
                                        collate_fn=lambda b: b) for row in batch]
    assert [r["i"] for r in rows] == list(range(8))
    assert all(r["pid"] != os.getpid() for r in rows) and len({r["pid"] for r in rows}) == 2
    for r in rows:
        worker = (r["i"] // 2) % 2  # batch k goes to worker k mod 2
        assert r["worker"] == worker and r["num_workers"] == 2 and r["same_dataset"]
        assert r["seed"] == r["initial_seed"] == base_seed + worker
    assert get_worker_info() is None  # in the main process


_INIT_LOG = "LT_TEST_INIT_DIR"


def _record_init(worker_id):
    info = get_worker_info()
    with open(os.path.join(os.environ[_INIT_LOG], f"{worker_id}.txt"), "w") as fh:
        fh.write(f"{worker_id} {info.seed} {lt.initial_seed()} {os.getpid()}")


def test_worker_init_fn_runs_once_per_worker_after_seeding(tmp_path, monkeypatch):
    monkeypatch.setenv(_INIT_LOG, str(tmp_path))
    list(DataLoader(Squares(6), batch_size=2, num_workers=3, worker_init_fn=_record_init))
    lines = sorted(p.read_text().split() for p in tmp_path.iterdir())
    assert [line[0] for line in lines] == ["0", "1", "2"]
    assert all(line[1] == line[2] for line in lines)  # seeded before worker_init_fn


def test_persistent_workers_keep_their_processes():
    loader = DataLoader(WhoLoads(), batch_size=4, num_workers=2, persistent_workers=True, collate_fn=lambda b: b)
    pids = [{r["pid"] for batch in loader for r in batch} for _ in range(3)]
    assert pids[0] == pids[1] == pids[2] and len(pids[0]) == 2
    loader._persistent_iter._shutdown()
    fresh = DataLoader(WhoLoads(), batch_size=4, num_workers=2, collate_fn=lambda b: b)
    assert {r["pid"] for batch in fresh for r in batch} != {r["pid"] for batch in fresh for r in batch}


def test_persistent_workers_with_an_iterable_dataset_restart_the_stream():
    loader = DataLoader(Range(10), batch_size=3, num_workers=2, persistent_workers=True)
    first, second = _as_lists(loader), _as_lists(loader)
    assert first == second
    loader._persistent_iter._shutdown()


def test_iterable_dataset_split_by_worker_info_like_torch(torch_oracle):
    class TorchRange(torch_oracle.utils.data.IterableDataset):
        def __iter__(self):
            info = torch_oracle.utils.data.get_worker_info()
            start, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(range(start, 10, step))
    want = [b.tolist() for b in torch_oracle.utils.data.DataLoader(TorchRange(), batch_size=2, num_workers=2)]
    got = [b.tolist() for b in DataLoader(Range(10), batch_size=2, num_workers=2)]
    assert got == want == [[0, 2], [1, 3], [4, 6], [5, 7], [8], [9]]


def test_unsplit_iterable_dataset_is_duplicated_per_worker_as_in_torch():
    got = [b.tolist() for b in DataLoader(Unsplit(), batch_size=2, num_workers=2)]
    assert got == [[0, 1], [0, 1], [2, 3], [2, 3], [4], [4]]


def test_worker_error_is_reraised_with_its_traceback():
    with pytest.raises(ValueError) as info:
        list(DataLoader(Failing(), batch_size=2, num_workers=2))
    msg = str(info.value)
    assert "Caught ValueError in DataLoader worker process 0" in msg
    assert "Original Traceback (most recent call last)" in msg and "sample 5 is broken" in msg
    assert "__getitem__" in msg


def test_timeout():
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        next(iter(DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.5)))


def test_pin_memory_accepted_on_cpu():
    with pytest.warns(UserWarning, match="pin_memory"):
        out = _as_lists(DataLoader(Squares(4), batch_size=2, num_workers=2, pin_memory=True))
    assert len(out) == 2


def test_in_order_false_yields_every_batch():
    got = sorted(b.tolist() for b, _ in DataLoader(Squares(12), batch_size=3, num_workers=3, in_order=False))
    want = sorted(b.tolist() for b, _ in DataLoader(Squares(12), batch_size=3))
    assert got == want


def test_prefetch_factor_needs_workers(torch_oracle):
    from conftest import raises_both
    raises_both(lambda T: T.utils.data.DataLoader(list(range(3)), prefetch_factor=2), torch_oracle,
                match="prefetch_factor option could only be specified in multiprocessing")


def test_len_and_tensors_cross_the_process_boundary():
    loader = DataLoader(Squares(10), batch_size=4, num_workers=2)
    batches = list(loader)
    assert len(loader) == len(batches) == 3
    x, i = batches[0]
    assert isinstance(x, lt.Tensor) and x.dtype == lt.float32 and i.dtype == lt.int64
    assert np.array_equal(x.numpy(), [[0, 0], [1, 1], [2, 4], [3, 9]])


def test_workers_in_a_jupyter_kernel_with_a_notebook_defined_dataset(monkeypatch):
    """fork: the workers start as copies of the kernel, so a class defined in a cell works."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import learntorch as torch\n"
        "from learntorch.utils.data import Dataset, DataLoader, get_worker_info\n"
        "class D(Dataset):\n"
        "    def __len__(self): return 6\n"
        "    def __getitem__(self, i):\n"
        "        info = get_worker_info()\n"
        "        return torch.tensor([float(i)]), (info.id if info else -1)\n"
        "torch.manual_seed(0)\n"
        "multi = [x.tolist() for x, w in DataLoader(D(), batch_size=2, num_workers=2, shuffle=True)]\n"
        "torch.manual_seed(0)\n"
        "single = [x.tolist() for x, w in DataLoader(D(), batch_size=2, shuffle=True)]\n"
        "print(multi == single, len(multi))")]
    env_path = os.pathsep.join([os.path.dirname(os.path.dirname(lt.__file__)), os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", env_path)  # the kernel imports this learntorch
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    assert nb.cells[0].outputs[0]["text"].strip() == "True 3"
