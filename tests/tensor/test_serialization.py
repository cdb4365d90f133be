"""``learntorch.save`` / ``learntorch.load``: round trips, the file format, and hostile files.

The format (see ``learntorch/serialization.py``) is a zip archive with a JSON
manifest and one ``.npy`` file per tensor; nothing in it can run code.  These
tests check that everything a course program saves comes back equal (values,
dtypes, shapes, devices, ``requires_grad``, Parameters, shared tensors, key
types and order), that an interrupted save leaves no half-written file, and that
files which are not ours, damaged, forged or pickled are refused with a clear
``RuntimeError`` — and never executed.
"""
from __future__ import annotations

import io
import json
import math
import os
import pickle
import zipfile
from collections import Counter, OrderedDict, defaultdict, deque

import numpy as np
import pytest
from numpy.lib import format as npy_format

import learntorch as lt
from learntorch import arrays, cuda, serialization
from learntorch import nn

from conftest import TORCH_REASON, to_numpy

NOT_OURS = r"is not a learntorch file \(expected a zip archive with learntorch's manifest"


def roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    lt.save(obj, buf)
    buf.seek(0)
    return lt.load(buf, **load_kw)


def same_tensor(a, b):
    assert type(a) is type(b), f"{type(a).__name__} != {type(b).__name__}"
    assert a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape) and a.device == b.device
    assert a.requires_grad == b.requires_grad
    assert a.is_leaf
    np.testing.assert_array_equal(to_numpy(a), to_numpy(b))


def assert_same_tree(loaded, original, path="obj"):
    """Same structure, same container and key types, equal tensors and values."""
    if isinstance(original, lt.Tensor):
        same_tensor(loaded, original)
        return
    assert type(loaded) is type(original), f"{path}: {type(loaded).__name__} != {type(original).__name__}"
    if isinstance(original, dict):
        assert list(loaded) == list(original), f"{path}: keys {list(loaded)} != {list(original)}"
        for k in original:
            assert [type(x) for x in loaded] == [type(x) for x in original], f"{path}: key types differ"
            assert_same_tree(loaded[k], original[k], f"{path}[{k!r}]")
    elif isinstance(original, (list, tuple)):
        assert len(loaded) == len(original), path
        for i, (a, b) in enumerate(zip(loaded, original)):
            assert_same_tree(a, b, f"{path}[{i}]")
    elif isinstance(original, float) and math.isnan(original):
        assert math.isnan(loaded), path
    else:
        assert loaded == original, f"{path}: {loaded!r} != {original!r}"


# ============================================================================ round trips
@pytest.mark.parametrize("make", [
    lambda: lt.randn(3, 4),
    lambda: lt.tensor(3.5),                                   # 0-d
    lambda: lt.tensor(7, dtype=lt.int64),                     # 0-d int
    lambda: lt.arange(10, dtype=lt.int64).reshape(2, 5),
    lambda: lt.tensor([True, False, True]),
    lambda: lt.randn(2, 3, dtype=lt.float64),
    lambda: lt.tensor([1, -2, 3], dtype=lt.int32),
    lambda: lt.tensor([1, -2, 3], dtype=lt.int16),
    lambda: lt.tensor([1, -2, 3], dtype=lt.int8),
    lambda: lt.tensor([0, 200, 255], dtype=lt.uint8),
    lambda: lt.tensor([0.5, -1.25], dtype=lt.float16),
    lambda: lt.empty(0),                                      # empty tensors
    lambda: lt.zeros(0, 3),
    lambda: lt.zeros(2, 0, 4, dtype=lt.int64),
    lambda: lt.tensor([float("nan"), float("inf"), -float("inf"), -0.0]),
    lambda: lt.randn(2, 3, requires_grad=True),               # a leaf that requires grad stays one
], ids=["float32", "0d", "0d-int", "int64", "bool", "float64", "int32", "int16", "int8", "uint8", "float16",
        "empty", "empty-0x3", "empty-2x0x4", "non-finite", "requires_grad"])
def test_tensor_roundtrip(make):
    t = make()
    out = roundtrip(t)
    same_tensor(out, t)
    assert out is not t


def test_nonleaf_comes_back_as_a_leaf_that_requires_grad():
    """As in PyTorch: the history (grad_fn) is not saved, requires_grad is."""
    x = lt.randn(3, requires_grad=True)
    y = x * 2
    out = roundtrip(y)
    assert out.grad_fn is None and out.requires_grad and out.is_leaf
    np.testing.assert_array_equal(to_numpy(out), to_numpy(y))


def test_grad_is_not_saved():
    p = nn.Parameter(lt.ones(2))
    (p * 3).sum().backward()
    assert roundtrip(p).grad is None


def test_parameter_comes_back_as_parameter():
    p = nn.Parameter(lt.randn(2, 2))
    frozen = nn.Parameter(lt.randn(3), requires_grad=False)
    out_p, out_frozen = roundtrip([p, frozen])
    assert isinstance(out_p, nn.Parameter) and out_p.requires_grad
    assert isinstance(out_frozen, nn.Parameter) and not out_frozen.requires_grad
    same_tensor(out_p, p)
    same_tensor(out_frozen, frozen)


def test_state_dict_roundtrip_gives_identical_outputs(tmp_path):
    lt.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    model.register_buffer("steps", lt.tensor(12))
    path = tmp_path / "model.pt"
    lt.save(model.state_dict(), path)
    sd = lt.load(path)
    assert type(sd) is OrderedDict
    assert list(sd) == list(model.state_dict()) == ["steps", "0.weight", "0.bias", "2.weight", "2.bias"]
    lt.manual_seed(1)
    fresh = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    fresh.register_buffer("steps", lt.tensor(0))
    x = lt.randn(4, 3)
    assert not lt.equal(fresh(x), model(x))
    fresh.load_state_dict(sd)
    np.testing.assert_array_equal(to_numpy(fresh(x)), to_numpy(model(x)))
    assert fresh.steps.item() == 12


def test_optimizer_state_keeps_int_keys():
    state = {"state": {0: {"momentum_buffer": lt.randn(3, 2), "step": 3},
                       1: {"momentum_buffer": lt.randn(2), "step": 3}},
             "param_groups": [{"lr": 0.1, "momentum": 0.9, "nesterov": False, "weight_decay": 0,
                               "dampening": 0.0, "maximize": False, "foreach": None, "params": [0, 1]}]}
    out = roundtrip(state)
    assert_same_tree(out, state)
    assert list(out["state"]) == [0, 1] and all(type(k) is int for k in out["state"])


def test_nested_containers_and_scalars():
    obj = OrderedDict([
        ("b", [1, 2.5, "three", None, True, False, (4, (5, [6]))]),
        ("a", {"deep": {"deeper": [lt.ones(2), {"x": lt.zeros(1, dtype=lt.int64)}]}}),
        (3, "int key"), (2.5, "float key"), (None, "None key"), (True, "bool key"), ((1, "t"), "tuple key"),
        ("big", 2**80), ("neg", -7), ("nan", float("nan")), ("inf", float("inf")), ("-inf", -float("inf")),
        ("unicode", "梯度累加 ✓"), ("empty", [[], (), {}, ""]), ("tiny", 5e-324), ("pi", math.pi),
    ])
    out = roundtrip(obj)
    assert_same_tree(out, obj)
    assert type(out["b"][6]) is tuple and type(out["b"][6][1][1]) is list


def test_dtype_device_and_size_values():
    obj = {"dtype": lt.float64, "device": lt.device("cpu"), "size": lt.zeros(2, 3).shape}
    out = roundtrip(obj)
    assert out["dtype"] is lt.float64
    assert out["device"] == lt.device("cpu") and isinstance(out["device"], lt.device)
    assert type(out["size"]) is lt.Size and out["size"] == (2, 3)


def test_a_dict_subclass_is_pickled_and_comes_back_as_itself():
    """A ``defaultdict`` is not plain data: pickled, as PyTorch does, so it keeps its type and
    its default factory; a weights_only load needs both allowlisted."""
    obj = defaultdict(list, {"a": [1]})
    out = roundtrip(obj, weights_only=False)
    assert type(out) is defaultdict and out == {"a": [1]} and out.default_factory is list
    with pytest.raises(pickle.UnpicklingError, match="collections.defaultdict"):
        roundtrip(obj)
    with serialization.safe_globals([defaultdict, list]):
        assert type(roundtrip(obj)) is defaultdict
    assert serialization.get_safe_globals() == [], "the context manager restores the allowlist"


def test_shared_tensor_saved_once_and_restored_as_one_object():
    w = nn.Parameter(lt.randn(4, 4))
    obj = {"encoder": w, "decoder": w, "list": [w, lt.ones(1)]}
    buf = io.BytesIO()
    lt.save(obj, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert sorted(n for n in zf.namelist() if n.endswith(".npy")) == ["tensors/0.npy", "tensors/1.npy"]
    buf.seek(0)
    out = lt.load(buf)
    assert out["encoder"] is out["decoder"] is out["list"][0]
    assert isinstance(out["encoder"], nn.Parameter)


def test_a_view_saved_alone_is_a_compact_contiguous_copy():
    big = lt.arange(10000, dtype=lt.float32).reshape(100, 100)
    col = big[:, 7]
    assert not col.is_contiguous()
    buf = io.BytesIO()
    lt.save({"col": col}, buf)
    assert len(buf.getvalue()) < 2000, "a view saved alone must not drag its whole base (40 kB) into the file"
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert "storages" not in json.loads(zf.read("manifest.json")), "nothing shared: the old format"
    buf.seek(0)
    out = lt.load(buf)["col"]
    same_tensor(out, col)
    assert out.is_contiguous()


def _saved_and_loaded(obj):
    buf = io.BytesIO()
    lt.save(obj, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    buf.seek(0)
    return manifest, lt.load(buf)


def test_views_saved_together_share_memory_after_load():
    """As in PyTorch: views of one base saved together come back as views of one storage."""
    big = lt.arange(10000, dtype=lt.float32).reshape(100, 100)
    row, col, tr = big[3], big[:, 7], big[:4, :3].t()
    manifest, out = _saved_and_loaded([big, row, col, tr])
    assert manifest["version"] == 3 and len(manifest["storages"]) == 1
    assert all("file" not in r and r["storage"] == 0 for r in manifest["tensors"])
    for a, b in zip(out, [big, row, col, tr]):
        same_tensor(a, b)
    assert out[2].stride() == col.stride() and out[3].stride() == tr.stride()
    out[1][7] = -1.0  # row 3, column 7: seen by the base and by the column view
    assert out[0][3, 7].item() == -1.0 and out[2][3].item() == -1.0
    out[3][2, 1] = -2.0  # the transpose's [2, 1] is big[1, 2]
    assert out[0][1, 2].item() == -2.0
    assert big[3, 7].item() == 307.0, "the saved tensors are not touched"


@pytest.mark.parametrize("make", [
    lambda x: [x, x[0]],
    lambda x: [x[0], x[1]],                         # two views of a base that is not saved
    lambda x: [x.t(), x],
    lambda x: {"a": x.view(-1), "b": x.detach()},   # same memory, different tensor objects
    lambda x: [x[:, 1:], x.expand(2, 3, 3)[1]],
], ids=["slice", "two-slices", "transpose", "view-detach", "expand"])
def test_sharing_matches_torch(torch_oracle, make):
    """Writing into the first loaded tensor changes the others exactly as in PyTorch."""
    def run(T):
        x = T.arange(9, dtype=T.float32).reshape(3, 3)
        buf = io.BytesIO()
        T.save(make(x), buf)
        buf.seek(0)
        out = T.load(buf)
        out = list(out.values()) if isinstance(out, dict) else out
        first = out[0] if out[0].dim() == 2 else out[0].unsqueeze(0)
        first[0, 1] = -5.0  # one element of the first loaded tensor
        return [(o.tolist(), o.stride()) for o in out]
    assert run(lt) == run(torch_oracle)


@pytest.mark.parametrize("make", [
    lambda T: T.arange(24.).reshape(2, 3, 2, 2).contiguous(memory_format=T.channels_last),
    lambda T: T.arange(12.).reshape(1, 3, 2, 2).contiguous(memory_format=T.channels_last),
    lambda T: T.arange(6.).reshape(2, 3).t(),
    lambda T: T.nn.Parameter(T.arange(6.).reshape(2, 3).t()),
    lambda T: T.arange(12.).reshape(4, 1, 3).permute(2, 1, 0),
    lambda T: T.arange(12.).reshape(3, 4)[:, 1:3],       # not dense: a compact copy (PyTorch keeps (4, 1))
], ids=["channels-last", "channels-last-n1", "transpose", "parameter-transpose", "permute", "slice"])
def test_a_dense_tensor_saved_alone_keeps_its_strides(torch_oracle, make):
    """A channels_last batch or a transposed matrix saved alone comes back with its strides, as in
    PyTorch (``is_contiguous(memory_format=...)`` unchanged); a strided slice alone stays compact."""
    def run(T):
        buf = io.BytesIO()
        T.save(make(T), buf)
        buf.seek(0)
        out = T.load(buf)
        return type(out).__name__, out.tolist(), out.stride(), out.requires_grad
    expected, actual = run(torch_oracle), run(lt)
    if actual[1] == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]:  # (the slice: same values, compact strides)
        assert actual[:2] == expected[:2] and actual[2] == (2, 1)
    else:
        assert actual == expected


def test_views_of_a_parameter_share_memory_and_keep_their_kinds():
    w = nn.Parameter(lt.randn(3, 4))
    _, out = _saved_and_loaded({"w": w, "flat": w.view(-1), "row": w[1].detach()})
    assert isinstance(out["w"], nn.Parameter) and out["flat"].requires_grad and out["flat"].is_leaf
    assert not out["row"].requires_grad
    with lt.no_grad():
        out["w"][1, 2] = 42.0
    assert out["flat"][6].item() == 42.0 and out["row"][2].item() == 42.0


def test_same_tensor_twice_is_one_object_and_keeps_the_old_format():
    x = lt.randn(3)
    manifest, out = _saved_and_loaded([x, x])
    assert out[0] is out[1] and "storages" not in manifest and manifest["version"] == 1


def test_bfloat16_views_share_memory():
    x = lt.arange(6, dtype=lt.float32).to(lt.bfloat16).reshape(2, 3)
    _, out = _saved_and_loaded([x, x[1]])
    assert out[1].dtype is lt.bfloat16
    out[1][0] = 9.0
    assert out[0][1, 0].item() == 9.0


def _shared_manifest(storage_numel=6, offset=0, shape=(2, 3), stride=(3, 1), **storage_extra):
    storage = {"file": "storages/0.npy", "dtype": "float32", "numel": storage_numel}
    storage.update(storage_extra)
    record = {"storage": 0, "offset": offset, "shape": list(shape), "stride": list(stride), "dtype": "float32",
              "device": "cpu", "requires_grad": False, "parameter": False}
    return {"format": "learntorch", "version": 3, "root": {"kind": "tensor", "id": 0}, "tensors": [record],
            "storages": [storage]}


def test_a_handmade_shared_storage_file_loads():
    out = lt.load(make_zip(_shared_manifest(offset=1, shape=(2, 2), stride=(3, 1)),
                           {"storages/0.npy": npy(np.arange(6, dtype=np.float32))}))
    np.testing.assert_array_equal(out.numpy(), [[1.0, 2.0], [4.0, 5.0]])


@pytest.mark.parametrize("change, match", [
    (dict(offset=1), "reaches outside its storage of 6 elements"),
    (dict(shape=(3, 3)), "reaches outside its storage"),
    (dict(stride=(4, 1)), "reaches outside its storage"),
    (dict(offset=7, shape=(0,), stride=(1,)), "reaches outside its storage"),
    (dict(offset=-1), "invalid storage offset"),
    (dict(stride=(3, -1)), "invalid strides"),
    (dict(stride=(3,)), "invalid strides"),
    (dict(stride=(3.0, 1)), "invalid strides"),
    (dict(storage_numel=100), r"storages/0.npy has shape \(6,\) where the manifest says \(100,\)"),
    (dict(file="../evil.npy"), "not to a file 'storages/<n>.npy'"),
    (dict(file="tensors/0.npy"), "not to a file 'storages/<n>.npy'"),
    (dict(dtype="float64"), "holds 'float64' where a tensor on it says float32"),
], ids=["offset", "shape", "stride", "empty-offset", "negative-offset", "negative-stride", "stride-rank",
        "float-stride", "numel", "evil-file", "tensor-file", "dtype"])
def test_forged_storage_records_are_refused(change, match):
    kw = {"file": change.pop("file")} if "file" in change else {}
    kw.update({"dtype": change.pop("dtype")} if "dtype" in change else {})
    data = {"storages/0.npy": npy(np.arange(6, dtype=np.float32)), "tensors/0.npy": npy(np.ones(6, np.float32))}
    with pytest.raises(RuntimeError, match="corrupt learntorch file: .*" + match):
        lt.load(make_zip(_shared_manifest(**change, **kw), data))


def test_a_missing_storage_reference_is_refused():
    manifest = _shared_manifest()
    manifest["tensors"][0]["storage"] = 1
    with pytest.raises(RuntimeError, match="refers to storage 1, which is not in its table"):
        lt.load(make_zip(manifest, {"storages/0.npy": npy(np.arange(6, dtype=np.float32))}))


def test_shared_storages_load_with_weights_only_and_map_location():
    x = lt.arange(4.0).reshape(2, 2)
    buf = io.BytesIO()
    lt.save({"x": x, "col": x[:, 0]}, buf)
    for kw in ({"weights_only": True}, {"weights_only": False}, {"map_location": "cpu"}):
        buf.seek(0)
        out = lt.load(buf, **kw)
        out["col"][1] = 10.0
        assert out["x"][1, 0].item() == 10.0


def test_file_objects_paths_and_non_seekable_streams(tmp_path):
    t = lt.randn(5)
    # str path, pathlib.Path, an open binary file
    lt.save(t, str(tmp_path / "a.lt"))
    same_tensor(lt.load(str(tmp_path / "a.lt")), t)
    lt.save(t, tmp_path / "b.lt")
    same_tensor(lt.load(tmp_path / "b.lt"), t)
    with open(tmp_path / "c.lt", "wb") as fh:
        lt.save(t, fh)
    with open(tmp_path / "c.lt", "rb") as fh:
        same_tensor(lt.load(fh), t)

    class Stream(io.RawIOBase):  # a pipe-like stream: read() only
        def __init__(self, data):
            self._buf = io.BytesIO(data)

        def readable(self):
            return True

        def seekable(self):
            return False

        def readinto(self, b):
            chunk = self._buf.read(len(b))
            b[:len(chunk)] = chunk
            return len(chunk)

    same_tensor(lt.load(io.BufferedReader(Stream((tmp_path / "a.lt").read_bytes()))), t)


def test_weights_only_is_accepted_and_always_true():
    t = lt.ones(2)
    same_tensor(roundtrip(t, weights_only=False), t)
    same_tensor(roundtrip(t, weights_only=True), t)


def test_the_file_is_a_readable_zip_with_a_json_manifest_and_plain_npy_files(tmp_path):
    lt.manual_seed(0)
    sd = nn.Linear(2, 3).state_dict()
    lt.save(sd, tmp_path / "m.lt")
    with zipfile.ZipFile(tmp_path / "m.lt") as zf:
        assert zf.namelist() == ["manifest.json", "tensors/0.npy", "tensors/1.npy"]
        manifest = json.loads(zf.read("manifest.json"))  # strict JSON
        assert manifest["format"] == "learntorch" and manifest["version"] == 1
        assert manifest["root"]["kind"] == "OrderedDict"
        assert manifest["root"]["items"][0] == ["weight", {"kind": "tensor", "id": 0}]
        assert manifest["tensors"][0] == {"file": "tensors/0.npy", "dtype": "float32", "shape": [3, 2],
                                          "device": "cpu", "requires_grad": False, "parameter": False}
        weight = np.load(io.BytesIO(zf.read("tensors/0.npy")), allow_pickle=False)  # plain NumPy reads it
        np.testing.assert_array_equal(weight, to_numpy(sd["weight"]))


# ============================================================================ map_location and devices
def test_map_location_cpu_forms():
    t = lt.randn(3)
    for ml in ("cpu", lt.device("cpu"), {"cuda:0": "cpu"}, lambda storage, loc: storage, lambda s, loc: None):
        out = roundtrip(t, map_location=ml)
        same_tensor(out, t)


def test_map_location_callable_sees_saved_device_and_may_replace():
    seen = []

    def ml(storage, location):
        seen.append((location, storage.device.type))
        return storage * 2

    out = roundtrip({"a": lt.ones(2)}, map_location=ml)
    assert seen == [("cpu", "cpu")]
    np.testing.assert_array_equal(to_numpy(out["a"]), [2.0, 2.0])
    with pytest.raises(TypeError, match="map_location returned a int"):
        roundtrip(lt.ones(1), map_location=lambda s, loc: 3)
    with pytest.raises(TypeError, match="map_location should be"):
        roundtrip(lt.ones(1), map_location=3.5)


@pytest.fixture
def fake_cuda(monkeypatch):
    monkeypatch.setenv("LEARNTORCH_FAKE_CUDA", "1")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    arrays._cuda_backend.cache_clear()
    cuda.cupy_or_none.cache_clear()
    if cuda.cupy_or_none() is not None:
        pytest.skip("a real GPU is present: the stand-in is only used where there is none")
    yield monkeypatch
    monkeypatch.delenv("LEARNTORCH_FAKE_CUDA", raising=False)
    arrays._cuda_backend.cache_clear()


def test_cuda_tensors_come_back_on_their_device_or_where_mapped(fake_cuda):
    t = lt.randn(2, 3).to("cuda")
    p = nn.Parameter(lt.randn(2).cuda())
    buf = io.BytesIO()
    lt.save({"t": t, "p": p}, buf)
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(buf.getvalue())).read("manifest.json"))
    assert [r["device"] for r in manifest["tensors"]] == ["cuda:0", "cuda:0"]

    buf.seek(0)
    out = lt.load(buf)
    assert out["t"].device == lt.device("cuda:0") and isinstance(out["p"], nn.Parameter)
    assert out["p"].device == lt.device("cuda:0")
    np.testing.assert_array_equal(out["t"].cpu().numpy(), t.cpu().numpy())
    for ml in ("cpu", {"cuda:0": "cpu"}, lt.device("cpu"), lambda s, loc: s):
        buf.seek(0)
        out = lt.load(buf, map_location=ml)
        assert out["t"].device == lt.device("cpu") and out["p"].device == lt.device("cpu")
        np.testing.assert_array_equal(out["t"].numpy(), t.cpu().numpy())

    # the same file on a machine without CUDA: PyTorch's advice to use map_location
    fake_cuda.delenv("LEARNTORCH_FAKE_CUDA")
    arrays._cuda_backend.cache_clear()
    buf.seek(0)
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device.*map_location"):
        lt.load(buf)
    buf.seek(0)
    assert lt.load(buf, map_location="cpu")["t"].device == lt.device("cpu")
    buf.seek(0)  # a callable is asked first, so it can keep tensors on the CPU without any CUDA
    assert lt.load(buf, map_location=lambda storage, loc: storage)["p"].device == lt.device("cpu")


def test_cpu_file_mapped_to_cuda(fake_cuda):
    out = roundtrip({"w": lt.ones(2)}, map_location="cuda:0")
    assert out["w"].device == lt.device("cuda:0")
    out = roundtrip({"w": lt.ones(2)}, map_location={"cpu": "cuda:0"})
    assert out["w"].device == lt.device("cuda:0")


# ============================================================================ safe writing
def test_interrupted_save_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.lt"
    lt.save({"w": lt.zeros(3)}, path)
    before = path.read_bytes()
    calls = []

    def boom(t):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the user pressed Ctrl-C half-way through writing
        return real(t)

    real = serialization._npy_bytes
    monkeypatch.setattr(serialization, "_npy_bytes", boom)
    with pytest.raises(KeyboardInterrupt):
        lt.save({"w": lt.ones(3), "v": lt.ones(4)}, path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["ckpt.lt"]
    monkeypatch.undo()
    np.testing.assert_array_equal(to_numpy(lt.load(path)["w"]), np.zeros(3, np.float32))


def test_saved_file_gets_ordinary_permissions(tmp_path):
    lt.save(lt.ones(1), tmp_path / "a.lt")
    with open(tmp_path / "b.txt", "w") as fh:
        fh.write("x")
    assert (tmp_path / "a.lt").stat().st_mode == (tmp_path / "b.txt").stat().st_mode


def test_interrupted_first_save_leaves_no_file(tmp_path, monkeypatch):
    monkeypatch.setattr(serialization, "_npy_bytes", lambda t: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        lt.save([lt.ones(1)], tmp_path / "new.lt")
    assert os.listdir(tmp_path) == []


def test_an_object_that_cannot_be_pickled_is_refused_before_anything_is_written(tmp_path):
    path = tmp_path / "x.lt"
    with pytest.raises((pickle.PicklingError, AttributeError), match="pickle"):  # (pickle's own error, as torch's)
        lt.save({"net": [1, 2, 3, lambda x: x]}, path)
    assert os.listdir(tmp_path) == []


class _Settings:
    """A config object, as checkpoints hold them (module level: pickle finds classes by name)."""

    def __init__(self, lr: float) -> None:
        self.lr = lr

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Settings) and other.lr == self.lr


NOT_DATA = {"ndarray": lambda: np.arange(3.0), "numpy scalar": lambda: np.int64(3), "object": lambda: _Settings(0.1),
            "range": lambda: range(4), "deque": lambda: deque([1, 2]), "slice": lambda: slice(1, 2)}


@pytest.mark.parametrize("kind", NOT_DATA)
def test_objects_that_are_not_data_are_pickled_as_pytorch_pickles_them(kind):
    """PyTorch saves anything; loading such an object needs ``weights_only=False`` (or its class
    allowlisted).  learntorch's data format holds data only, so the whole object is pickled."""
    obj = {"state": {0: [lt.ones(2)]}, "x": NOT_DATA[kind]()}
    buf = io.BytesIO()
    lt.save(obj, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert json.loads(zf.read("manifest.json"))["pickle"] == "data.pkl"
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed.*add_safe_globals"):
        lt.load(buf)
    buf.seek(0)
    out = lt.load(buf, weights_only=False)
    x, expected = out["x"], obj["x"]
    assert type(x) is type(expected)
    assert (x == expected).all() if isinstance(x, np.ndarray) else x == expected
    assert np.array_equal(out["state"][0][0].numpy(), [1.0, 1.0])


@pytest.mark.parametrize("kind", NOT_DATA)
def test_pytorch_refuses_a_weights_only_load_of_the_same_objects(kind, torch_oracle):
    buf = io.BytesIO()
    torch_oracle.save({"x": NOT_DATA[kind]()}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        torch_oracle.load(buf)


def test_an_allowlisted_class_loads_with_weights_only():
    obj = {"settings": _Settings(0.5), "w": lt.ones(2)}
    lt.serialization.add_safe_globals([_Settings])
    try:
        out = roundtrip(obj)
        assert out["settings"] == _Settings(0.5) and serialization.get_safe_globals() == [_Settings]
    finally:
        lt.serialization.clear_safe_globals()
    with pytest.raises(pickle.UnpicklingError, match=r"test_serialization\._Settings"):
        roundtrip(obj)


def test_a_counter_is_pickled_and_trusted_as_pytorch_trusts_it(torch_oracle):
    for lib in (lt, torch_oracle):
        buf = io.BytesIO()
        lib.save({"counts": Counter("abca")}, buf)
        buf.seek(0)
        assert lib.load(buf) == {"counts": Counter("abca")}  # (weights_only: a class both allow by default)


def test_complex_numbers_are_data():
    obj = {"z": 1 + 2j, "inf": complex(float("inf"), -0.5)}
    out = roundtrip(obj)
    assert out == obj and type(out["z"]) is complex


def test_sets_and_bytes_round_trip():
    """PyTorch pickles them and its weights_only load takes them back: so do we."""
    obj = {"vocab": {"a", "b"}, "raw": b"\x00\xffab", "buf": bytearray(b"xy"), "nested": [set(), {(1, 2), None}]}
    back = roundtrip(obj)
    assert back == obj
    assert [type(back[k]) for k in ("vocab", "raw", "buf")] == [set, bytes, bytearray]
    assert roundtrip([frozenset([1])], weights_only=False) == [frozenset([1])]  # (not data: pickled)


def test_other_keys_and_cycles_are_pickled():
    assert roundtrip({"a": {frozenset([1]): 1}}, weights_only=False) == {"a": {frozenset([1]): 1}}
    loop: list = [1]
    loop.append(loop)
    back = roundtrip(loop)  # (a list that contains itself: pickled; it names no class, so weights_only takes it)
    assert back[0] == 1 and back[1] is back
    with pytest.raises(TypeError, match="path or a binary file object"):
        lt.save(lt.ones(1), 42)


# ============================================================================ hostile and foreign files
def make_zip(manifest=None, members=None, raw_manifest=None) -> io.BytesIO:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        if raw_manifest is not None:
            zf.writestr("manifest.json", raw_manifest)
        elif manifest is not None:
            zf.writestr("manifest.json", json.dumps(manifest))
        for name, data in (members or {}).items():
            zf.writestr(name, data)
    buf.seek(0)
    return buf


def npy(array, allow_pickle=False) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=allow_pickle)
    return buf.getvalue()


def one_tensor_manifest(file="tensors/0.npy", dtype="float32", shape=(2,), **extra):
    record = {"file": file, "dtype": dtype, "shape": list(shape), "device": "cpu", "requires_grad": False,
              "parameter": False}
    record.update(extra)
    return {"format": "learntorch", "version": 1, "root": {"kind": "tensor", "id": 0}, "tensors": [record]}


def test_a_handmade_file_loads():
    """The helpers below build valid files; each hostile test then breaks one thing."""
    out = lt.load(make_zip(one_tensor_manifest(), {"tensors/0.npy": npy(np.ones(2, np.float32))}))
    np.testing.assert_array_equal(out.numpy(), [1.0, 1.0])


@pytest.mark.parametrize("evil", ["../evil", "../evil.npy", "/etc/passwd", "tensors/../../evil.npy",
                                  "tensors\\..\\evil.npy", "tensors/0.npy/../x", "TENSORS/0.npy", "tensors/00.npy"])
def test_manifest_pointing_outside_is_refused(evil, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    buf = make_zip(one_tensor_manifest(file=evil), {evil: npy(np.ones(2, np.float32))})
    with pytest.raises(RuntimeError, match="corrupt learntorch file: tensor 0 points to"):
        lt.load(buf)
    assert os.listdir(tmp_path) == [], "loading must never write files"
    assert not (tmp_path.parent / "evil").exists()


_unpickled = []


class _Evil:
    """Unpickling this would record it (standing in for running an attacker's code)."""

    def __reduce__(self):
        return (_unpickled.append, ("pwned",))


def test_object_array_npy_is_refused_and_never_unpickled():
    payload = npy(np.array([_Evil(), 1], dtype=object), allow_pickle=True)
    buf = make_zip(one_tensor_manifest(), {"tensors/0.npy": payload})
    with pytest.raises(RuntimeError, match="holds Python objects"):
        lt.load(buf)
    assert _unpickled == []
    # even if the manifest claims the object dtype
    buf = make_zip(one_tensor_manifest(dtype="object"), {"tensors/0.npy": payload})
    with pytest.raises(RuntimeError, match="unknown dtype"):
        lt.load(buf)
    assert _unpickled == []


def test_huge_declared_shape_is_refused_without_allocating():
    header = io.BytesIO()
    npy_format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10**12,)})
    data = header.getvalue() + np.ones(4, np.float32).tobytes()
    buf = make_zip(one_tensor_manifest(shape=(10**12,)), {"tensors/0.npy": data})
    with pytest.raises(RuntimeError, match=r"declares shape \(1000000000000,\) .* but holds 16 bytes"):
        lt.load(buf)


@pytest.mark.parametrize("manifest_change, array, match", [
    (dict(shape=(3,)), np.ones(2, np.float32), r"has shape \(2,\) where the manifest says \(3,\)"),
    (dict(dtype="int64"), np.ones(2, np.float32), "holds float32 data where the manifest says int64"),
    (dict(dtype="float32"), np.ones(2, ">f4"), "holds >f4 data"),
    (dict(shape=(-1,)), np.ones(2, np.float32), "invalid shape"),
    (dict(dtype="Tensor"), np.ones(2, np.float32), "unknown dtype"),
    (dict(dtype="int64", requires_grad=True), np.ones(2, np.int64), "marked requires_grad"),
    (dict(device="tpu"), np.ones(2, np.float32), "invalid device"),
    (dict(device=None), np.ones(2, np.float32), "invalid device"),
])
def test_manifest_and_data_must_agree(manifest_change, array, match):
    manifest = one_tensor_manifest(**{k: v for k, v in manifest_change.items() if k in ("shape", "dtype")})
    manifest["tensors"][0].update({k: v for k, v in manifest_change.items() if k not in ("shape", "dtype")})
    with pytest.raises(RuntimeError, match=match):
        lt.load(make_zip(manifest, {"tensors/0.npy": npy(array)}))


@pytest.mark.parametrize("root, match", [
    ({"kind": "tensor", "id": 5}, "reference to tensor 5"),
    ({"kind": "tensor", "id": "0"}, "reference to tensor '0'"),
    ({"kind": "pickle", "data": "..."}, "unknown kind 'pickle'"),
    ({"no": "kind"}, "unexpected entry"),
    ({"kind": "dict", "items": [["a"]]}, "pairs"),
    ({"kind": "dict", "items": [[{"kind": "list", "items": []}, 1]]}, "dict key of type list"),
    ({"kind": "float", "value": "1e999"}, "a float entry"),
    ({"kind": "dtype", "name": "__class__"}, "unknown dtype"),
    ({"kind": "Size", "items": ["a"]}, "Size entry"),
])
def test_malformed_object_trees_are_refused(root, match):
    manifest = one_tensor_manifest()
    manifest["root"] = root
    with pytest.raises(RuntimeError, match=match):
        lt.load(make_zip(manifest, {"tensors/0.npy": npy(np.ones(2, np.float32))}))


def test_missing_member_and_bad_npy():
    with pytest.raises(RuntimeError, match="has no 'tensors/0.npy'"):
        lt.load(make_zip(one_tensor_manifest()))
    with pytest.raises(RuntimeError, match="not a valid .npy file"):
        lt.load(make_zip(one_tensor_manifest(), {"tensors/0.npy": b"hello, not numpy"}))


@pytest.mark.parametrize("data, match", [
    (np.random.default_rng(0).bytes(1000), NOT_OURS),  # random bytes
    (b"", NOT_OURS + r".*\(it is empty\)"),
    (b"just some text\n" * 10, NOT_OURS),
    (npy(np.ones(3)), NOT_OURS + r".*NumPy \.npy file"),
    (pickle.dumps({"a": 1}), "looks like a pickle file.*does not read other programs' pickle files"),
])
def test_files_that_are_not_ours(data, match, tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    with pytest.raises(RuntimeError, match=match) as info:
        lt.load(path)
    assert "f.bin" in str(info.value)


def test_zips_that_are_not_ours():
    with pytest.raises(RuntimeError, match=NOT_OURS + r".*a zip archive without one"):
        lt.load(make_zip(members={"readme.txt": "hi"}))
    npz = io.BytesIO()
    np.savez(npz, a=np.ones(2))
    npz.seek(0)
    with pytest.raises(RuntimeError, match=NOT_OURS + r".*NumPy \.npz archive"):
        lt.load(npz)
    with pytest.raises(RuntimeError, match=NOT_OURS + r".*does not say format 'learntorch'"):
        lt.load(make_zip({"format": "something-else", "version": 1, "root": None, "tensors": []}))
    with pytest.raises(RuntimeError, match=NOT_OURS):
        lt.load(make_zip(raw_manifest="[1, 2, 3]"))


def test_damaged_manifests_and_versions():
    with pytest.raises(RuntimeError, match="corrupt learntorch file: its manifest cannot be read"):
        lt.load(make_zip(raw_manifest="{not json"))
    with pytest.raises(RuntimeError, match="corrupt learntorch file: its manifest cannot be read"):
        lt.load(make_zip(raw_manifest=b"\xff\xfe"))
    with pytest.raises(RuntimeError, match="newer learntorch .*version 99"):
        lt.load(make_zip({"format": "learntorch", "version": 99, "root": None, "tensors": []}))
    with pytest.raises(RuntimeError, match="invalid format version"):
        lt.load(make_zip({"format": "learntorch", "version": "1", "root": None, "tensors": []}))
    with pytest.raises(RuntimeError, match="no object"):
        lt.load(make_zip({"format": "learntorch", "version": 1, "tensors": []}))
    with pytest.raises(RuntimeError, match="no list of tensors"):
        lt.load(make_zip({"format": "learntorch", "version": 1, "root": None}))


def test_deeply_nested_or_oversized_manifests(monkeypatch):
    deep = '{"format": "learntorch", "version": 1, "tensors": [], "root": ' + "[" * 100000 + "]" * 100000 + "}"
    with pytest.raises(RuntimeError, match="manifest cannot be read.*RecursionError"):
        lt.load(make_zip(raw_manifest=deep))
    monkeypatch.setattr(serialization, "_MAX_MANIFEST_BYTES", 100)
    with pytest.raises(RuntimeError, match="manifest declares .* bytes, more than any real one"):
        lt.load(make_zip(one_tensor_manifest(), {"tensors/0.npy": npy(np.ones(2, np.float32))}))


def test_truncated_file(tmp_path):
    path = tmp_path / "big.lt"
    lt.save({"w": lt.randn(100, 100), "b": lt.randn(100)}, path)
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 30):
        path.write_bytes(data[:cut])
        with pytest.raises(RuntimeError, match="corrupt or truncated zip archive"):
            lt.load(path)


def test_flipped_bit_in_tensor_data_is_detected(tmp_path):
    path = tmp_path / "m.lt"
    lt.save({"w": lt.zeros(1000)}, path)
    data = bytearray(path.read_bytes())
    pos = data.index(b"\x00" * 100, data.index(b"tensors/0.npy") + 200) + 50
    data[pos] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match=r"corrupt learntorch file: tensors/0\.npy cannot be read.*CRC"):
        lt.load(path)


def test_text_mode_file_and_wrong_arguments(tmp_path):
    path = tmp_path / "t.lt"
    lt.save(lt.ones(1), path)
    with open(path, encoding="latin-1") as fh, pytest.raises(TypeError, match="binary mode"):
        lt.load(fh)
    with pytest.raises(TypeError, match="path or a binary file object"):
        lt.load(3.0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        lt.load(path, mmap=True)
    with pytest.raises(FileNotFoundError):
        lt.load(tmp_path / "missing.lt")


# ============================================================================ real PyTorch files
def test_real_torch_save_file_is_refused_with_the_reason(tmp_path):
    torch = pytest.importorskip("torch", reason=TORCH_REASON)
    path = tmp_path / "model.pt"
    torch.save({"weight": torch.ones(2, 2)}, path)
    with pytest.raises(RuntimeError) as info:
        lt.load(path)
    msg = str(info.value)
    assert "PyTorch file written by torch.save" in msg and "does not read other programs' pickle files" in msg
    assert "could run anything" in msg and "numpy" in msg
    legacy = tmp_path / "legacy.pt"
    torch.save({"weight": torch.ones(2)}, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="looks like a pickle file.*does not read other programs' pickle files"):
        lt.load(legacy)


def test_same_round_trip_results_as_torch():
    """What comes back (types, key order, key types, identity of shared tensors,
    requires_grad, Parameters) is what torch.save/torch.load give for the same object."""
    torch = pytest.importorskip("torch", reason=TORCH_REASON)

    def build(T):
        w = T.nn.Parameter(T.ones(2, 2))
        return OrderedDict([("w", w), ("again", w), ("x", T.arange(3)), ("g", T.zeros(2, requires_grad=True)),
                            ("opt", {"state": {0: {"step": 3, "buf": T.ones(2)}},
                                     "param_groups": [{"lr": 0.1, "params": [0]}]}),
                            ("t", (1, 2.5, None, "s"))])

    buf = io.BytesIO()
    torch.save(build(torch), buf)
    buf.seek(0)
    expected = torch.load(buf)
    actual = roundtrip(build(lt))

    def describe(x):
        if isinstance(x, (lt.Tensor, torch.Tensor)):
            return ("Parameter" if type(x).__name__ == "Parameter" else "Tensor", str(x.dtype).split(".")[-1],
                    tuple(x.shape), x.requires_grad, x.is_leaf, to_numpy(x).tolist())
        if isinstance(x, dict):
            return (type(x).__name__, [(type(k).__name__, k, describe(v)) for k, v in x.items()])
        if isinstance(x, (list, tuple)):
            return (type(x).__name__, [describe(v) for v in x])
        return (type(x).__name__, x)

    assert describe(actual) == describe(expected)
    assert (actual["w"] is actual["again"]) == (expected["w"] is expected["again"]) is True


def test_a_raw_pickle_file_is_refused_with_torchs_error_type(torch_oracle):
    """PyTorch's default ``weights_only=True`` refuses a raw pickle with ``pickle.UnpicklingError``."""
    import io
    import pickle
    import warnings
    data = pickle.dumps({"a": 1})
    for lib in (torch_oracle, lt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch notes the pickle protocol
            with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
                lib.load(io.BytesIO(data))
