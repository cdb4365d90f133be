"""Objects that are not plain data in a learntorch file: ``torch.save(model)``, and a
checkpoint holding a NumPy array or a config object, as PyTorch programs save them.

learntorch's own format (``serialization.py``) holds data only: tensors, numbers, strings,
dtypes, devices, and dicts, lists, tuples and sets of them.  Anything else (a whole
``nn.Module``, a NumPy array, a dataclass, an ``argparse.Namespace``) is an instance of a
class, and PyTorch saves it by *pickling* it.  So does learntorch, for the whole object:

* the tensors still go to ``tensors/<i>.npy`` (plain NumPy files); the pickle,
  ``data.pkl``, refers to them by number (pickle's *persistent ids*), as
  PyTorch's own zip format does;
* the manifest says ``"pickle": "data.pkl"`` and has format version 2, so an
  older learntorch refuses the file instead of misreading it.

Unpickling can run any code that the file names (a class's import, its
``__setstate__``), so ``load`` with ``weights_only=True`` (the default, as in PyTorch
since 2.6) unpickles only the classes it trusts: a few of its own (``OrderedDict``,
``Size``, dtypes, devices) and those a program allowlists with :func:`add_safe_globals` or
:func:`safe_globals`.  Any other class named in the file stops the load with PyTorch's
``pickle.UnpicklingError``, which names the class and the two ways out:
``weights_only=False``, on purpose, for a file you trust; or the allowlist.  Saving the
``state_dict`` needs none of this.
"""
from __future__ import annotations

import io
import pickle
from collections import Counter, OrderedDict
from typing import Any, Callable, Iterable, Optional

from . import dtypes
from .device import device
from .size import Size
from .tensor import Tensor

__all__ = ["pickle_bytes", "unpickle", "weights_only_error", "PICKLE_FILE", "add_safe_globals", "get_safe_globals",
           "clear_safe_globals", "safe_globals"]

PICKLE_FILE = "data.pkl"

# The classes and functions that a weights_only load may unpickle besides its own, by
# (module, qualified name): ``torch.serialization.add_safe_globals`` fills it.
_SAFE_GLOBALS: dict[tuple[str, str], Any] = {}


def _entry(item: Any) -> tuple[tuple[str, str], Any]:
    """An allowlist entry: a class or function, or PyTorch's ``(obj, "module.name")`` form."""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], str):
        module, _, name = item[1].rpartition(".")
        return (module, name), item[0]
    return (item.__module__, item.__qualname__), item


def add_safe_globals(safe_globals: Iterable[Any]) -> None:
    """Let a ``weights_only=True`` load unpickle these classes and functions (for a file you trust:
    a checkpoint holding your own config class)."""
    for item in safe_globals:
        key, obj = _entry(item)
        _SAFE_GLOBALS[key] = obj


def get_safe_globals() -> list:
    return list(_SAFE_GLOBALS.values())


def clear_safe_globals() -> None:
    _SAFE_GLOBALS.clear()


class safe_globals:
    """``with torch.serialization.safe_globals([Config]): torch.load(path)``: the allowlist for
    the block only."""

    def __init__(self, safe_globals: Iterable[Any]) -> None:
        self._items = list(safe_globals)
        self._before: dict = {}

    def __enter__(self) -> None:
        self._before = dict(_SAFE_GLOBALS)
        add_safe_globals(self._items)

    def __exit__(self, *exc: Any) -> None:
        _SAFE_GLOBALS.clear()
        _SAFE_GLOBALS.update(self._before)


# The globals a weights_only load takes without an allowlist, as PyTorch's does (and every dtype)
_TRUSTED = {("collections", "OrderedDict"): OrderedDict, ("collections", "Counter"): Counter,
            ("builtins", "complex"): complex, ("builtins", "set"): set,
            ("learntorch.size", "Size"): Size, ("learntorch.device", "device"): device}


def _trusted(module: str, name: str) -> Optional[Any]:
    """A trusted global, looked up without importing anything new; None if it is not one."""
    if module == "learntorch.dtypes" and isinstance(getattr(dtypes, name, None), dtypes.dtype):
        return getattr(dtypes, name)
    return _TRUSTED.get((module, name))


class _Pickler(pickle.Pickler):
    """Pickles everything but tensors; a tensor becomes a number in the tensor table."""

    def __init__(self, fh: Any, table: Callable[[Tensor], int]) -> None:
        super().__init__(fh, protocol=pickle.HIGHEST_PROTOCOL)
        self._table = table

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            return ("tensor", self._table(obj))
        return None


def pickle_bytes(obj: Any, table: Callable[[Tensor], int]) -> bytes:
    """``obj`` pickled, each tensor replaced by ``table(tensor)``, its index in the tensor table."""
    buf = io.BytesIO()
    _Pickler(buf, table).dump(obj)
    return buf.getvalue()


class _Unpickler(pickle.Unpickler):
    def __init__(self, fh: Any, tensor: Callable[[int], Tensor], weights_only: bool, name: str) -> None:
        super().__init__(fh)
        self._tensor = tensor
        self._weights_only, self._name = weights_only, name

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "tensor" and type(pid[1]) is int):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r} in a learntorch file")
        return self._tensor(pid[1])

    def find_class(self, module: str, name: str) -> Any:
        """Every class or function the pickle names comes through here: with ``weights_only`` only
        the trusted and allowlisted ones, before anything is imported."""
        if not self._weights_only:
            return super().find_class(module, name)
        found = _SAFE_GLOBALS.get((module, name))
        if found is None:
            found = _trusted(module, name)
        if found is None:
            raise weights_only_error(self._name, f"{module}.{name}")
        return found


def unpickle(data: bytes, tensor: Callable[[int], Tensor], weights_only: bool = False, name: str = "") -> Any:
    """The object back; ``tensor(i)`` gives the i-th tensor of the table.  With ``weights_only``
    only trusted and allowlisted classes are unpickled."""
    return _Unpickler(io.BytesIO(data), tensor, weights_only, name).load()


def weights_only_error(name: str, global_name: Optional[str] = None) -> pickle.UnpicklingError:
    """PyTorch's refusal (its exception type) to unpickle with ``weights_only=True``, and the ways out."""
    why = (f" It names {global_name}, which is not an allowed global by default: if you trust the class, "
           f"torch.serialization.add_safe_globals([{global_name.rpartition('.')[2]}]) (or the "
           "torch.serialization.safe_globals([...]) context manager) allows it." if global_name else "")
    return pickle.UnpicklingError(
        f"Weights only load failed. {name} holds a pickled object (a whole model saved with torch.save(model), "
        "or an object that is not plain data, such as a NumPy array or a config object), and unpickling it can "
        f"run arbitrary code named in the file.{why} This file can still be loaded: do it only if you trust its "
        "source. (1) Re-run torch.load with weights_only=False (PyTorch 2.6 changed the default to "
        "weights_only=True; learntorch does the same). (2) Better: save model.state_dict() instead of the model, "
        "and plain data (tensors, numbers) instead of other objects, which needs no unpickling.")
