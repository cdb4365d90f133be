"""``nn.ParameterList`` and ``nn.ParameterDict``: a varying number of parameters in one module.

A plain Python list of ``Parameter`` objects assigned to a module is invisible to
``parameters()`` (and so to the optimizer): only attributes that *are* parameters
get registered.  These containers register each entry under its index or key, so
``model.parameters()`` finds ``p.0``, ``p.1`` ...  A tensor that is not yet a
``Parameter`` is wrapped into one, as in PyTorch.
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable as IterableABC
from typing import Any, Iterable, Iterator, Mapping, Optional

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module, _typename

__all__ = ["ParameterList", "ParameterDict"]


def _as_parameter(value: Any) -> Any:
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


def _describe(p: Any, use_typename: bool) -> str:
    if not isinstance(p, Tensor):
        return "Object of type: " + type(p).__name__
    size = "x".join(str(s) for s in p.size())
    device = f" ({p.device})" if p.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"{kind} containing: [{_typename(p) if use_typename else p.dtype} of size {size}{device}]"


class ParameterList(Module):
    """A list whose entries are registered as parameters named ``"0"``, ``"1"`` ..."""

    def __init__(self, values: Optional[Iterable[Any]] = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self += values

    def _index(self, idx: Any) -> int:
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return idx % len(self)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(self._index(idx)))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, str(self._index(idx)), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> "ParameterList":
        return self.extend(parameters)

    def __dir__(self) -> list:
        return [key for key in super().__dir__() if not key.isdigit()]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")

    def append(self, value: Any) -> "ParameterList":
        """Add ``value`` at the end (a tensor becomes a Parameter); returns self."""
        new_idx = len(self)
        object.__setattr__(self, "_size", new_idx + 1)
        self[new_idx] = value
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        """Append each of ``values`` (a tensor is not a list of its rows here: TypeError)."""
        if isinstance(values, Tensor) or not isinstance(values, IterableABC):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, use_typename=False)}" for k, p in enumerate(self))


class ParameterDict(Module):
    """A dict whose values are registered as parameters under their keys.

    Besides the usual dict methods it has ``|`` (a merged copy) and ``|=``; values
    are looked up as attributes, so a missing key is an AttributeError, as in PyTorch."""

    def __init__(self, parameters: Optional[Any] = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                            f"'{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None  # (before the key check, as in PyTorch: a bad key is still counted)
        setattr(self, self._key_to_attr(key), _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def __call__(self, input: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``self[key]``, after storing ``default`` there if the key was absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last ``(key, value)`` pair (KeyError when empty)."""
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> "ParameterDict":
        """A new ParameterDict holding the same Parameter objects (a shallow copy)."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> "ParameterDict":
        """A new ParameterDict with ``default`` under each key (the same object under every key)."""
        return ParameterDict([(k, default) for k in keys])

    def __or__(self, other: "ParameterDict") -> "ParameterDict":
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: "ParameterDict") -> "ParameterDict":
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: "ParameterDict") -> "ParameterDict":
        self.update(other)
        return self

    def update(self, parameters: Any) -> None:
        """Add or replace entries.  From a plain dict they go in sorted by key, as in PyTorch (an
        OrderedDict, a ParameterDict or a list of pairs keeps its order)."""
        if not isinstance(parameters, IterableABC):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = list(parameters.items())
        elif isinstance(parameters, Mapping):
            items = sorted(parameters.items())
        else:
            items = []
            for j, pair in enumerate(parameters):
                if not isinstance(pair, IterableABC):
                    raise TypeError(f"ParameterDict update sequence element #{j} should be Iterable; is"
                                    + type(pair).__name__)
                if len(pair) != 2:
                    raise ValueError(f"ParameterDict update sequence element #{j} has length {len(pair)}; "
                                     "2 is required")
                items.append(pair)
        for key, value in items:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, use_typename=True)}" for k, p in self.items())
