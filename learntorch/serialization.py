"""``learntorch.save`` / ``learntorch.load``: tensors, state dicts and optimizer states on disk.

PyTorch's ``torch.save`` pickles the object.  Unpickling can run any code the
file names, so loading a checkpoint from someone else is as dangerous as running
their program (which is why ``torch.load`` now defaults to ``weights_only=True``).
learntorch's format cannot run code at all: it stores only *data*.

The file is a **zip archive** (open it with any zip tool and look) holding

* ``manifest.json`` — what the object was::

      {"format": "learntorch", "version": 1,
       "root": {"kind": "OrderedDict", "items": [["weight", {"kind": "tensor", "id": 0}], ...]},
       "tensors": [{"file": "tensors/0.npy", "dtype": "float32", "shape": [4, 3],
                    "device": "cpu", "requires_grad": false, "parameter": false}, ...]}

  The *object tree* in ``root`` is JSON: strings, ints, floats, bools and
  ``None`` are written as themselves; everything else is a ``{"kind": ...}``
  object: ``dict`` / ``OrderedDict`` (a list of ``[key, value]`` pairs, so the
  order and the *type* of each key survive — an optimizer's ``{0: ...}`` comes
  back with the int key ``0``, not ``"0"``), ``list``, ``tuple``, ``Size``,
  ``dtype``, ``device``, ``set`` (a list of items), ``bytes``/``bytearray``
  (hex digits), ``complex`` (its two parts), non-finite floats (``"nan"``, ``"inf"``)
  and ``tensor`` (a reference into the ``tensors`` table);
* ``tensors/<i>.npy`` — one NumPy ``.npy`` file per tensor, written with
  ``numpy.save(allow_pickle=False)`` and read back with
  ``numpy.load(allow_pickle=False)``: raw numbers with a small text header
  (a bfloat16 tensor, a type ``.npy`` cannot name, as its bit patterns: uint16);
* ``storages/<k>.npy`` — only when tensors saved together share memory (see
  below): the array they all look into, flattened, listed in the manifest's
  ``"storages"`` (``{"file", "dtype", "numel"}``).  Such a tensor's record names
  no file but ``"storage": k``, ``"offset"`` and ``"stride"`` (in elements), as a
  PyTorch tensor does; :func:`load` checks that every element it would read lies
  inside the storage.  A file with storages is format version 3.

What comes back:

* each tensor with its dtype, shape, ``requires_grad`` and device (the device
  it was saved from, unless ``map_location`` says otherwise); an
  ``nn.Parameter`` comes back as a Parameter.  ``.grad`` and ``grad_fn`` are
  not saved (a loaded tensor is a leaf), as in PyTorch;
* the same tensor object reached twice (a shared weight) is stored once and
  comes back as *one* object, reached twice;
* tensors saved together that share memory (a tensor and its slices,
  transposes or ``view``s, two views of one base) come back sharing memory, as
  in PyTorch: writing into one changes the others.  Their base array is
  written once, whole (as PyTorch writes the whole storage).  A view saved
  without anything it shares memory with is stored as a compact contiguous copy
  of just its elements (PyTorch would write its whole base), except a dense one
  (a channels_last batch, a transpose), whose elements are written in memory
  order, as a storage, so that it comes back with its strides, as in PyTorch;
* the same list reached twice comes back as two lists.

An object that is not such data -- a whole ``nn.Module``, a NumPy array, a dataclass
or ``argparse.Namespace`` of settings, a ``defaultdict``, a list that contains itself
-- is pickled instead, whole, as PyTorch pickles everything (``serialization_pickle.py``);
loading it needs ``weights_only=False``, on purpose, or its classes allowlisted with
``torch.serialization.add_safe_globals``, as in PyTorch.  Saving ``model.state_dict()``
and plain numbers needs no pickle.  :func:`load` refuses, with a ``RuntimeError``, a file
that is not one of ours, a damaged one, and PyTorch's own pickle-based files.
"""
from __future__ import annotations

import io
import json
import math
import os
import pickle
import re
import tempfile
import zipfile
from collections import OrderedDict
from typing import Any, BinaryIO, Callable, Optional, Sequence, Union

import numpy as np
from numpy.lib import format as npy_format

from . import cuda, dtypes
from .arrays import to_numpy, transfer
from .device import CPU, as_device
from .device import device as Device
from .nn.parameter import Parameter
from .serialization_pickle import (PICKLE_FILE, add_safe_globals, clear_safe_globals, get_safe_globals,
                                   pickle_bytes, safe_globals, unpickle)
from .size import Size
from .tensor import Tensor
from .version import __version__

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

FORMAT_NAME = "learntorch"
FORMAT_VERSION = 3  # the newest this learntorch reads; 2 marks a pickled object (a whole Module)
_PICKLE_VERSION = 2
_SHARED_VERSION = 3  # a file whose tensors share storages (older learntorch would not read those records)
MANIFEST = "manifest.json"
_TENSOR_FILE = re.compile(r"tensors/(0|[1-9][0-9]*)\.npy")
_STORAGE_FILE = re.compile(r"storages/(0|[1-9][0-9]*)\.npy")
_ZIP_MAGIC = b"PK\x03\x04"
_MAX_MANIFEST_BYTES = 256 * 2**20  # far beyond any real object tree; a bigger one is a forged file

FileLike = Union[str, "os.PathLike[str]", BinaryIO]
MapLocation = Union[None, str, Device, Callable[[Tensor, str], Optional[Tensor]], dict]


# ============================================================================ saving
class NotData(Exception):
    """Raised by :class:`_Writer` at the first part of an object that the data format cannot hold
    (then :func:`save` pickles the object instead)."""


class _Writer:
    """Turns an object into the JSON tree and the list of tensors to write."""

    def __init__(self) -> None:
        self.tensors: list[Tensor] = []
        self.records: list[dict] = []
        self._ids: dict[int, int] = {}  # id(tensor) -> index in the table (a shared tensor is stored once)
        self._open: set[int] = set()    # containers being encoded (to catch cycles)
        self.storages: list[dict] = []          # the manifest's "storages" (see share_storages)
        self.storage_arrays: list[np.ndarray] = []

    def encode(self, obj: Any, path: str) -> Any:
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if type(obj) is int:
            return obj
        if type(obj) is float:
            if math.isfinite(obj):
                return obj
            return {"kind": "float", "value": "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")}
        if isinstance(obj, Tensor):
            return {"kind": "tensor", "id": self._tensor(obj)}
        if isinstance(obj, dtypes.dtype):
            return {"kind": "dtype", "name": obj.name}
        if isinstance(obj, Device):
            return {"kind": "device", "name": str(obj)}
        if type(obj) in (bytes, bytearray):
            return {"kind": type(obj).__name__, "hex": obj.hex()}
        if type(obj) is complex:
            return {"kind": "complex", "parts": [self.encode(obj.real, path), self.encode(obj.imag, path)]}
        if type(obj) is set:  # (PyTorch's weights_only load takes sets back, not frozensets)
            return {"kind": "set", "items": [self.encode(v, f"{path}<set item>") for v in obj]}
        if type(obj) is dict or isinstance(obj, OrderedDict) or type(obj) in (list, tuple, Size):
            if id(obj) in self._open:
                raise NotData(f"{path} contains itself (a cyclic reference)")
            self._open.add(id(obj))
            try:
                if isinstance(obj, dict):
                    kind = "OrderedDict" if isinstance(obj, OrderedDict) else "dict"
                    items = []
                    for key, value in obj.items():
                        items.append([self.encode_key(key, path), self.encode(value, f"{path}[{key!r}]")])
                    node = {"kind": kind, "items": items}
                    metadata = getattr(obj, "_metadata", None)
                    if isinstance(metadata, dict):  # a state_dict's per-module versions, kept as PyTorch keeps them
                        node["metadata"] = self.encode(metadata, f"{path}._metadata")
                    return node
                kind = {list: "list", tuple: "tuple", Size: "Size"}[type(obj)]
                return {"kind": kind, "items": [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)]}
            finally:
                self._open.discard(id(obj))
        raise NotData(f"an object of type '{type(obj).__name__}' (at {path})")

    def encode_key(self, key: Any, path: str) -> Any:
        """Dict keys: numbers, strings, None, and tuples of those."""
        if key is None or type(key) in (bool, int, float, str) or (
                type(key) is tuple and all(k is None or type(k) in (bool, int, float, str) for k in key)):
            return self.encode(key, path)
        raise NotData(f"a dict key of type '{type(key).__name__}' (in {path})")

    def _tensor(self, t: Tensor) -> int:
        index = self._ids.get(id(t))
        if index is not None:
            return index
        index = len(self.tensors)
        self._ids[id(t)] = index
        self.tensors.append(t)
        self.records.append({"file": f"tensors/{index}.npy", "dtype": t.dtype.name, "shape": list(t.shape),
                             "device": str(t.device), "requires_grad": bool(t.requires_grad),
                             "parameter": isinstance(t, Parameter)})
        return index

    def share_storages(self) -> None:
        """Re-record the tensors that look into one NumPy array as views of one stored storage.

        Memory is shared when the arrays have the same owner (the array at the end of NumPy's
        ``.base`` chain).  Each group of two or more such tensors (same device) gets the owner
        written once, flattened, and each member's record ``"storage"``/``"offset"``/``"stride"``
        instead of its own file; everything else keeps its own compact file, as before."""
        groups: dict[tuple, list[int]] = {}
        owners: dict[tuple, np.ndarray] = {}
        for index, t in enumerate(self.tensors):
            owner = _owner_array(t)
            if owner is not None:
                key = (id(owner), str(t.device))
                groups.setdefault(key, []).append(index)
                owners[key] = owner
        for key, members in groups.items():
            owner = owners[key]
            layouts = {i: _layout_in(owner, self.tensors[i]._data) for i in members}
            members = [i for i in members if layouts[i] is not None]
            if len(members) < 2:
                continue
            k = len(self.storages)
            self.storages.append({"file": f"storages/{k}.npy", "dtype": self.tensors[members[0]].dtype.name,
                                  "numel": int(owner.size)})
            self.storage_arrays.append(owner.reshape(-1))
            for i in members:
                offset, stride = layouts[i]
                record = self.records[i]
                del record["file"]
                record.update(storage=k, offset=offset, stride=stride)
        for i, t in enumerate(self.tensors):
            if "file" in self.records[i]:
                self._keep_dense_layout(i, t)

    def _keep_dense_layout(self, index: int, t: Tensor) -> None:
        """A tensor alone whose elements fill their memory in another order than row-major (a
        channels_last image batch, a transposed matrix) keeps its strides, as in PyTorch: its
        elements are written in memory order, as a storage of its own, with its strides."""
        data = t._data
        if type(data) is not np.ndarray or data.flags.c_contiguous or data.size < 2:
            return
        size = data.itemsize
        if any(s % size for s in data.strides):
            return
        strides = [s // size if n > 1 else max(s // size, 0) for s, n in zip(data.strides, data.shape)]
        order = sorted(range(data.ndim), key=lambda d: -strides[d])  # outermost first
        expected = 1
        for d in reversed(order):  # dense: each stride is the product of the sizes inside it
            if data.shape[d] > 1 and strides[d] != expected:
                return
            expected *= data.shape[d]
        k = len(self.storages)
        self.storages.append({"file": f"storages/{k}.npy", "dtype": t.dtype.name, "numel": int(data.size)})
        self.storage_arrays.append(np.ascontiguousarray(data.transpose(order)).reshape(-1))
        record = self.records[index]
        del record["file"]
        record.update(storage=k, offset=0, stride=[s if n > 1 else min(s, data.size) for s, n in
                                                   zip(strides, data.shape)])


def _owner_array(t: Tensor) -> Optional[np.ndarray]:
    """The C-contiguous NumPy array that owns ``t``'s memory, or None (another backend, an
    owner that is not one plain block of its own dtype)."""
    data = t._data
    if type(data) is not np.ndarray:
        return None
    owner = data
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if not owner.flags.c_contiguous or owner.dtype != data.dtype:
        return None
    return owner


def _layout_in(owner: np.ndarray, data: np.ndarray) -> Optional[tuple[int, list[int]]]:
    """``data``'s offset and strides in elements of ``owner``'s flat memory, or None when they
    are not whole elements or a stride is negative (PyTorch has no negative strides)."""
    size = owner.itemsize
    delta = data.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    if delta % size or any(s % size for s in data.strides):
        return None
    strides = [s // size if n > 1 else max(s // size, 0) for s, n in zip(data.strides, data.shape)]
    if any(s < 0 for s in strides) or delta < 0:
        return None
    return delta // size, strides


def _file_dtype(dt: dtypes.dtype) -> np.dtype:
    """The NumPy dtype a tensor of ``dt`` is written as.  The ``.npy`` format has no bfloat16
    (it would write raw 2-byte records, ``V2``): a bfloat16 tensor is written as its bits, uint16,
    and the manifest's ``"dtype": "bfloat16"`` says how to read them back."""
    return np.dtype(np.uint16) if dt.name == "bfloat16" else np.dtype(dt._np)


def _npy_bytes(t: Tensor) -> bytes:
    return _array_npy_bytes(to_numpy(t.detach()._data), t.dtype)


def _array_npy_bytes(array: np.ndarray, dt: dtypes.dtype) -> bytes:
    if not array.flags.c_contiguous:
        array = array.copy(order="C")  # a view is saved as a compact copy of its own elements
    if array.dtype != _file_dtype(dt):
        array = array.view(_file_dtype(dt))  # bfloat16: the same bytes, as uint16
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def _write_zip(fileobj: BinaryIO, manifest: dict, tensors: list[Tensor], extra: Optional[dict] = None,
               storages: Sequence[np.ndarray] = ()) -> None:
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        zf.writestr(MANIFEST, json.dumps(manifest, indent=1, allow_nan=False))
        for member, data in (extra or {}).items():
            zf.writestr(member, data)
        for record, array in zip(manifest.get("storages", ()), storages):
            zf.writestr(record["file"], _array_npy_bytes(array, getattr(dtypes, record["dtype"])))
        for record, t in zip(manifest["tensors"], tensors):
            if "file" in record:  # (a tensor on a shared storage has none)
                zf.writestr(record["file"], _npy_bytes(t))


def save(obj: Any, f: FileLike) -> None:
    """Save ``obj`` (a tensor, a ``state_dict``, an optimizer state, or dicts/lists/tuples
    of tensors, numbers and strings) to ``f``, a path or a binary file object.

    Nothing that can run code is written (see the module's docstring for the
    format).  Saving to a path first writes a temporary file next to it and then
    renames it, so an interrupted save never leaves a half-written file under
    the destination's name (an older file there stays intact until the end).
    """
    writer = _Writer()
    extra: dict = {}
    try:
        root, version = writer.encode(obj, "obj"), 1
    except NotData:  # a whole model, a NumPy array, a config object: pickled, as PyTorch does
        writer = _Writer()
        root, version = None, _PICKLE_VERSION
        extra[PICKLE_FILE] = pickle_bytes(obj, writer._tensor)  # (a pickling error comes before any write)
    writer.share_storages()
    manifest = {"format": FORMAT_NAME, "version": version, "learntorch_version": __version__,
                "root": root, "tensors": writer.records}
    if writer.storages:
        manifest["version"] = _SHARED_VERSION
        manifest["storages"] = writer.storages
    if extra:
        manifest["pickle"] = PICKLE_FILE
    if not isinstance(f, (str, bytes, os.PathLike)):
        if not hasattr(f, "write"):
            raise TypeError(f"learntorch.save: f must be a path or a binary file object, got {type(f).__name__}")
        _write_zip(f, manifest, writer.tensors, extra, writer.storage_arrays)
        return
    path = os.fspath(f)
    path = path.decode() if isinstance(path, bytes) else path
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            _write_zip(fh, manifest, writer.tensors, extra, writer.storage_arrays)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # the permissions open() would give (mkstemp makes it private)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ============================================================================ loading
class _Reader:
    """Rebuilds the object from a manifest, reading each tensor once."""

    def __init__(self, zf: zipfile.ZipFile, manifest: dict, name: str, map_location: MapLocation) -> None:
        self.zf = zf
        self.name = name
        self.map_location = map_location
        records = manifest.get("tensors")
        if not isinstance(records, list):
            raise self.corrupt("its manifest has no list of tensors")
        self.records = records
        storages = manifest.get("storages", [])
        if not isinstance(storages, list):
            raise self.corrupt("its manifest's storages are not a list")
        self.storages = storages
        self.loaded: dict[int, Tensor] = {}
        self.storage_arrays: dict[int, np.ndarray] = {}  # each storage read once, then shared

    def corrupt(self, problem: str) -> RuntimeError:
        return RuntimeError(f"{self.name} is a corrupt learntorch file: {problem}")

    def decode(self, node: Any) -> Any:
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict) or not isinstance(node.get("kind"), str):
            raise self.corrupt(f"unexpected entry {_short(node)} in the manifest's object tree")
        kind = node["kind"]
        if kind in ("dict", "OrderedDict"):
            items = node.get("items")
            if not isinstance(items, list) or not all(isinstance(p, list) and len(p) == 2 for p in items):
                raise self.corrupt(f"a {kind} entry without a list of [key, value] pairs")
            out = OrderedDict() if kind == "OrderedDict" else {}
            for key, value in items:
                key = self.decode(key)
                try:
                    hash(key)
                except TypeError:
                    raise self.corrupt(f"a dict key of type {type(key).__name__}") from None
                out[key] = self.decode(value)
            if "metadata" in node and kind == "OrderedDict":
                out._metadata = self.decode(node["metadata"])  # type: ignore[attr-defined]
            return out
        if kind in ("list", "tuple", "Size"):
            items = node.get("items")
            if not isinstance(items, list):
                raise self.corrupt(f"a {kind} entry without items")
            values = [self.decode(v) for v in items]
            if kind == "Size":
                if not all(type(v) is int for v in values):
                    raise self.corrupt("a Size entry with entries that are not ints")
                return Size(values)
            return values if kind == "list" else tuple(values)
        if kind == "set":
            items = node.get("items")
            if not isinstance(items, list):
                raise self.corrupt("a set entry without items")
            try:
                return set(self.decode(v) for v in items)
            except TypeError:
                raise self.corrupt("a set entry with an unhashable item") from None
        if kind in ("bytes", "bytearray"):
            try:
                return (bytes if kind == "bytes" else bytearray).fromhex(node.get("hex"))
            except (TypeError, ValueError):
                raise self.corrupt("a bytes entry without its hex digits") from None
        if kind == "complex":
            parts = node.get("parts")
            if not (isinstance(parts, list) and len(parts) == 2):
                raise self.corrupt("a complex entry without its two parts")
            real, imag = (self.decode(v) for v in parts)
            if type(real) is not float or type(imag) is not float:
                raise self.corrupt("a complex entry whose parts are not floats")
            return complex(real, imag)
        if kind == "float":
            value = node.get("value")
            if value not in ("nan", "inf", "-inf"):
                raise self.corrupt(f"a float entry {_short(value)}")
            return float(value)
        if kind == "dtype":
            d = getattr(dtypes, str(node.get("name")), None)
            if not isinstance(d, dtypes.dtype):
                raise self.corrupt(f"an unknown dtype {_short(node.get('name'))}")
            return d
        if kind == "device":
            try:
                return Device(str(node.get("name")))
            except (RuntimeError, TypeError, ValueError) as e:
                raise self.corrupt(f"an invalid device ({e})") from None
        if kind == "tensor":
            index = node.get("id")
            if type(index) is not int or not 0 <= index < len(self.records):
                raise self.corrupt(f"a reference to tensor {_short(index)}, which is not in its table")
            if index not in self.loaded:
                self.loaded[index] = self.tensor(index)
            return self.loaded[index]
        raise self.corrupt(f"an entry of unknown kind {kind!r}")

    # -- one tensor --------------------------------------------------------------------
    def tensor(self, index: int) -> Tensor:
        record = self.records[index]
        if not isinstance(record, dict):
            raise self.corrupt(f"tensor {index}'s record is not an object")
        file = record.get("file")
        on_storage = "storage" in record
        if not on_storage and (not isinstance(file, str) or not _TENSOR_FILE.fullmatch(file)):
            # member names are never used as paths on disk, but a name we did not write is a forged file
            raise self.corrupt(f"tensor {index} points to {_short(file)}, not to a file 'tensors/<n>.npy' "
                               "inside the archive")
        dt = getattr(dtypes, str(record.get("dtype")), None)
        if not isinstance(dt, dtypes.dtype) or record.get("dtype") != dt.name:
            raise self.corrupt(f"tensor {index} has an unknown dtype {_short(record.get('dtype'))}")
        shape = record.get("shape")
        if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
            raise self.corrupt(f"tensor {index} has an invalid shape {_short(shape)}")
        saved = record.get("device")
        if not isinstance(saved, str):
            raise self.corrupt(f"tensor {index} has an invalid device {_short(saved)}")
        requires_grad = record.get("requires_grad") is True
        if requires_grad and not dt.is_floating_point:
            raise self.corrupt(f"tensor {index} of dtype {dt.name} is marked requires_grad")
        array = self.storage_view(index, record, dt, tuple(shape)) if on_storage else \
            self.read_npy(file, dt, tuple(shape))
        t = None
        if callable(self.map_location):  # PyTorch's map_location(storage, location), with a CPU tensor
            t = self.map_location(Tensor._make(array, CPU), saved)
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"map_location returned a {type(t).__name__}; it must return a Tensor "
                                "(or None for the default: the device the tensor was saved from)")
        if t is None:
            dev = self.target_device(saved, index)
            t = Tensor._make(transfer(array, CPU, dev), dev)
        if record.get("parameter") is True:
            return Parameter(t, requires_grad=requires_grad)
        return t.requires_grad_(True) if requires_grad else t

    def storage_view(self, index: int, record: dict, dt: dtypes.dtype, shape: tuple) -> np.ndarray:
        """Tensor ``index``'s array: a view into its storage (read once, shared with the other
        tensors on it), after checking that every element it reaches lies inside the storage."""
        k, offset, stride = record.get("storage"), record.get("offset"), record.get("stride")
        if type(k) is not int or not 0 <= k < len(self.storages):
            raise self.corrupt(f"tensor {index} refers to storage {_short(k)}, which is not in its table")
        if type(offset) is not int or offset < 0:
            raise self.corrupt(f"tensor {index} has an invalid storage offset {_short(offset)}")
        if (not isinstance(stride, list) or len(stride) != len(shape)
                or not all(type(s) is int and s >= 0 for s in stride)):
            raise self.corrupt(f"tensor {index} has invalid strides {_short(stride)} for shape {list(shape)}")
        flat = self.storage(k, dt)
        # the last element the view reaches (an empty view reaches none, but starts inside or at the end)
        last = offset + sum((n - 1) * s for n, s in zip(shape, stride)) if math.prod(shape) else offset - 1
        if offset > flat.size or last >= flat.size:
            raise self.corrupt(f"tensor {index} (offset {offset}, shape {list(shape)}, strides {stride}) reaches "
                               f"outside its storage of {flat.size} elements")
        size = flat.itemsize
        return np.ndarray(shape, dtype=flat.dtype, buffer=flat, offset=offset * size,
                          strides=[s * size for s in stride])

    def storage(self, k: int, dt: dtypes.dtype) -> np.ndarray:
        """Storage ``k`` as a flat array of dtype ``dt`` (the dtype of every tensor on it)."""
        record = self.storages[k]
        if not isinstance(record, dict):
            raise self.corrupt(f"storage {k}'s record is not an object")
        file, numel = record.get("file"), record.get("numel")
        if not isinstance(file, str) or not _STORAGE_FILE.fullmatch(file):
            raise self.corrupt(f"storage {k} points to {_short(file)}, not to a file 'storages/<n>.npy' "
                               "inside the archive")
        if record.get("dtype") != dt.name:
            raise self.corrupt(f"storage {k} holds {_short(record.get('dtype'))} where a tensor on it says "
                               f"{dt.name}")
        if type(numel) is not int or numel < 0:
            raise self.corrupt(f"storage {k} has an invalid size {_short(numel)}")
        if k not in self.storage_arrays:
            self.storage_arrays[k] = self.read_npy(file, dt, (numel,))
        return self.storage_arrays[k]

    def read_npy(self, file: str, dt: dtypes.dtype, shape: tuple) -> np.ndarray:
        try:
            info = self.zf.getinfo(file)
        except KeyError:
            raise self.corrupt(f"the archive has no {file!r}, which the manifest lists") from None
        expected_dtype = _file_dtype(dt)
        try:
            with self.zf.open(info) as fh:
                version = npy_format.read_magic(fh)
                if version == (1, 0):
                    npy_shape, fortran, npy_dtype = npy_format.read_array_header_1_0(fh)
                elif version == (2, 0):
                    npy_shape, fortran, npy_dtype = npy_format.read_array_header_2_0(fh)
                else:
                    raise ValueError(f"unsupported .npy version {version}")
                header_len = fh.tell()
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
            raise self.corrupt(f"{file} is not a valid .npy file ({e})") from None
        if npy_dtype.hasobject:
            raise self.corrupt(f"{file} holds Python objects (dtype {npy_dtype}); a learntorch file holds only "
                               "numbers, and object arrays would need pickle, which learntorch never loads")
        if npy_dtype != expected_dtype:
            raise self.corrupt(f"{file} holds {npy_dtype} data where the manifest says {dt.name}")
        if tuple(npy_shape) != shape:
            raise self.corrupt(f"{file} has shape {tuple(npy_shape)} where the manifest says {shape}")
        n_bytes = math.prod(shape) * expected_dtype.itemsize
        if info.file_size != header_len + n_bytes:
            raise self.corrupt(f"{file} declares shape {shape} ({n_bytes} bytes of data) but holds "
                               f"{info.file_size - header_len} bytes")
        try:
            data = self.zf.read(info)  # checks the CRC: a flipped bit is an error, not silently wrong numbers
            array = np.load(io.BytesIO(data), allow_pickle=False)
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
            raise self.corrupt(f"{file} cannot be read ({e})") from None
        if not (array.flags.c_contiguous and array.flags.writeable):
            array = array.copy(order="C")
        return array if array.dtype == dt._np else array.view(dt._np)  # bfloat16: its bits, read back

    def target_device(self, saved: str, index: int) -> Device:
        """Where a tensor saved from device ``saved`` goes (``map_location`` a str, device or dict)."""
        ml, where = self.map_location, saved
        if isinstance(ml, dict):
            where = ml.get(saved, saved)
        elif isinstance(ml, (str, Device)):
            where = ml
        elif ml is not None and not callable(ml):
            raise TypeError(f"map_location should be a str, a device, a dict or a callable, got "
                            f"{type(ml).__name__}")
        try:
            target = Device(where) if not isinstance(where, Device) else where
        except (RuntimeError, TypeError, ValueError) as e:
            if where is saved:
                raise self.corrupt(f"tensor {index} has an invalid device ({e})") from None
            raise
        if target.type == "cuda" and not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but learntorch.cuda.is_available() "
                               "is False. If you are running on a CPU-only machine, please use learntorch.load with "
                               "map_location='cpu' to map your tensors to the CPU.")
        return as_device(target)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(f: Any) -> str:
    if isinstance(f, (str, bytes, os.PathLike)):
        return repr(os.fsdecode(f))
    name = getattr(f, "name", None)
    return repr(name) if isinstance(name, str) else "the file object"


_PICKLE_ADVICE = (
    "learntorch does not read other programs' pickle files: unpickling runs whatever code the file names, so "
    "loading a file from someone else could run anything on your computer (learntorch unpickles only its own "
    "files, and only with weights_only=False). If you trust the "
    "file, convert it with real PyTorch: state = torch.load(path, weights_only=True); "
    "numpy.savez('weights.npz', **{k: v.numpy() for k, v in state.items()}); then build learntorch tensors "
    "with learntorch.from_numpy (or save them with learntorch.save).")


class PickleFileError(pickle.UnpicklingError, RuntimeError):
    """A raw pickle file given to :func:`load`: PyTorch's ``weights_only`` refusal is an
    ``UnpicklingError``; it is a ``RuntimeError`` too, as learntorch's other "not a learntorch
    file" errors are."""


def _not_ours(name: str, head: bytes) -> RuntimeError:
    what = ""
    if not head:
        what = " (it is empty)"
    elif head.startswith(b"\x93NUMPY"):
        what = " (it is a NumPy .npy file: read it with numpy.load and learntorch.from_numpy)"
    elif head[:1] == b"\x80":
        return PickleFileError(f"Weights only load failed. {name} is not a learntorch file: it looks like a pickle file (PyTorch's torch.save "
                            f"before version 1.6, or Python's pickle). {_PICKLE_ADVICE}")
    return RuntimeError(f"{name} is not a learntorch file (expected a zip archive with learntorch's manifest, "
                        f"{MANIFEST}){what}")


def load(f: FileLike, map_location: MapLocation = None, weights_only: Optional[bool] = True,
         **kwargs: Any) -> Any:
    """Load an object saved by :func:`save` from a path or a binary file object.

    ``map_location`` decides where tensors go, as in PyTorch: ``None`` — the
    device they were saved from; a string or device (``'cpu'``) — all of them
    there; a dict (``{'cuda:1': 'cuda:0'}``) — renames saved devices; a callable
    ``fn(tensor, saved_device_str)`` — gets each tensor on the CPU and returns
    the tensor to use (``None``: the default).

    ``weights_only`` matters only for a file holding a pickled object (``save(model)``
    of a whole Module, a checkpoint holding a NumPy array or a config object): such a
    file loads with ``weights_only=False``, given on purpose, or with the classes it
    names allowlisted (``serialization.add_safe_globals``), as in PyTorch; anything else
    is data, and loads either way.
    """
    if kwargs:
        raise TypeError(f"load() got unexpected keyword argument(s) {', '.join(map(repr, kwargs))}")
    name = _describe(f)
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "rb") as fh:
            return _load_from(fh, name, map_location, weights_only)
    if not hasattr(f, "read"):
        raise TypeError(f"learntorch.load: f must be a path or a binary file object, got {type(f).__name__}")
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return _load_from(f, name, map_location, weights_only)


def _load_from(fh: BinaryIO, name: str, map_location: MapLocation, weights_only: Optional[bool] = True) -> Any:
    start = fh.tell()
    head = fh.read(8)
    fh.seek(start)
    if not isinstance(head, bytes):
        raise TypeError("learntorch.load needs a file opened in binary mode ('rb')")
    try:
        zf = zipfile.ZipFile(fh, "r")
    except zipfile.BadZipFile as e:
        if head.startswith(_ZIP_MAGIC):
            raise RuntimeError(f"{name} is a corrupt or truncated zip archive ({e}); it cannot be loaded. "
                               "Was the save interrupted, or the download incomplete?") from None
        raise _not_ours(name, head) from None
    with zf:
        names = zf.namelist()
        if MANIFEST not in names:
            if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
                raise RuntimeError(f"{name} is a PyTorch file written by torch.save (a zip archive holding "
                                   f"pickled data, data.pkl), not a learntorch file. {_PICKLE_ADVICE}")
            if names and all(n.endswith(".npy") for n in names):
                raise RuntimeError(f"{name} is not a learntorch file (expected a zip archive with learntorch's "
                                   f"manifest, {MANIFEST}); it looks like a NumPy .npz archive: read it with "
                                   "numpy.load and convert with learntorch.from_numpy")
            raise RuntimeError(f"{name} is not a learntorch file (expected a zip archive with learntorch's "
                               f"manifest, {MANIFEST}); it is a zip archive without one")
        if zf.getinfo(MANIFEST).file_size > _MAX_MANIFEST_BYTES:
            raise RuntimeError(f"{name} is a corrupt learntorch file: its manifest declares "
                               f"{zf.getinfo(MANIFEST).file_size} bytes, more than any real one")
        try:
            manifest = json.loads(zf.read(MANIFEST).decode("utf-8"))
        except (zipfile.BadZipFile, OSError, EOFError, UnicodeDecodeError, ValueError, RecursionError) as e:
            raise RuntimeError(f"{name} is a corrupt learntorch file: its manifest cannot be read "
                               f"({type(e).__name__}: {e})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
            raise RuntimeError(f"{name} is not a learntorch file (expected a zip archive with learntorch's "
                               f"manifest, {MANIFEST}); its {MANIFEST} does not say format 'learntorch'")
        version = manifest.get("version")
        if type(version) is not int or version < 1:
            raise RuntimeError(f"{name} is a corrupt learntorch file: invalid format version {_short(version)}")
        if version > FORMAT_VERSION:
            raise RuntimeError(f"{name} was written by a newer learntorch (file format version {version}; this "
                               f"learntorch reads up to version {FORMAT_VERSION}). Upgrade learntorch to load it.")
        if "root" not in manifest:
            raise RuntimeError(f"{name} is a corrupt learntorch file: its manifest has no object ('root')")
        reader = _Reader(zf, manifest, name, map_location)
        if "pickle" in manifest:
            return _load_pickled(zf, manifest, reader, name, weights_only)
        try:
            return reader.decode(manifest["root"])
        except RecursionError:
            raise reader.corrupt("its object tree is nested too deeply") from None


def _load_pickled(zf: zipfile.ZipFile, manifest: dict, reader: "_Reader", name: str,
                  weights_only: Optional[bool]) -> Any:
    """A pickled object (``torch.save(model)``, a checkpoint holding a config object): with
    ``weights_only`` (the default), only trusted and allowlisted classes, as PyTorch."""
    if manifest["pickle"] != PICKLE_FILE or PICKLE_FILE not in zf.namelist():
        raise reader.corrupt(f"its manifest names a pickle {_short(manifest['pickle'])} that is not in the archive")
    return unpickle(zf.read(PICKLE_FILE), lambda i: reader.decode({"kind": "tensor", "id": i}),
                    weights_only is not False, name)
