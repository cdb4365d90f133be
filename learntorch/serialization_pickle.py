"""Whole objects in a learntorch file: ``torch.save(model)``, as PyTorch programs do.

learntorch's own format (``serialization.py``) holds data only.  A whole
``nn.Module`` is not data: it is an instance of a class, and PyTorch saves it by
*pickling* it.  So does learntorch, for any object that holds a Module:

* the tensors still go to ``tensors/<i>.npy`` (plain NumPy files); the pickle,
  ``data.pkl``, refers to them by number (pickle's *persistent ids*), as
  PyTorch's own zip format does;
* the manifest says ``"pickle": "data.pkl"`` and has format version 2, so an
  older learntorch refuses the file instead of misreading it.

Unpickling can run any code that the file names (a class's import, its
``__setstate__``), so ``load`` refuses such a file by default, as PyTorch does
since 2.6: with ``weights_only=True`` (the default) it raises
``pickle.UnpicklingError`` explaining why; ``weights_only=False``, on purpose,
for a file you trust, loads it.  Saving the ``state_dict`` needs none of this.
"""
from __future__ import annotations

import io
import pickle
from typing import Any, Callable

from .tensor import Tensor
from .nn.modules.module import Module

__all__ = ["holds_module", "pickle_bytes", "unpickle", "weights_only_error", "PICKLE_FILE"]

PICKLE_FILE = "data.pkl"


def holds_module(obj: Any, _seen: Any = None) -> bool:
    """Is there an ``nn.Module`` in ``obj`` (itself, or inside dicts, lists and tuples)?"""
    seen = set() if _seen is None else _seen
    if isinstance(obj, Module):
        return True
    if id(obj) in seen:
        return False
    if isinstance(obj, dict):
        seen.add(id(obj))
        return any(holds_module(v, seen) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        seen.add(id(obj))
        return any(holds_module(v, seen) for v in obj)
    return False


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
    def __init__(self, fh: Any, tensor: Callable[[int], Tensor]) -> None:
        super().__init__(fh)
        self._tensor = tensor

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "tensor" and type(pid[1]) is int):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r} in a learntorch file")
        return self._tensor(pid[1])


def unpickle(data: bytes, tensor: Callable[[int], Tensor]) -> Any:
    """The object back; ``tensor(i)`` gives the i-th tensor of the table."""
    return _Unpickler(io.BytesIO(data), tensor).load()


def weights_only_error(name: str) -> pickle.UnpicklingError:
    """PyTorch's refusal (its exception type) to unpickle with ``weights_only=True``, and the way out."""
    return pickle.UnpicklingError(
        f"Weights only load failed. {name} holds a pickled object (a whole model saved with torch.save(model)), "
        "and unpickling it can run arbitrary code named in the file. This file can still be loaded: do it only "
        "if you trust its source. (1) Re-run torch.load with weights_only=False (PyTorch 2.6 changed the default "
        "to weights_only=True; learntorch does the same). (2) Better: save model.state_dict() instead of the "
        "model, and load it with model.load_state_dict(torch.load(path)), which needs no unpickling.")
