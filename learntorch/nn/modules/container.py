"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``.

They hold modules so that their parameters are registered (a plain Python
list of layers would hide them from ``parameters()``), with the names
``"0"``, ``"1"`` … or the dict's keys.

They behave like the Python list or dict they stand for (``+``, ``*``,
``insert``, ``pop``, slices, ``update``...), with PyTorch's corners kept where a
program could see them: which operations renumber the children, which errors
a wrong argument raises.
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable as IterableABC, Mapping as MappingABC
from typing import Any, Iterable, Iterator, Mapping, Optional, Union

from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _position(idx: Any, size: int) -> int:
    """``idx`` as a position in ``0..size-1`` (negative counts from the end).  Only integers
    (or objects with ``__index__``) are indices: ``seq["0"]`` is a TypeError, as for a list."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx + size if idx < 0 else idx


def _renumber(container: Module) -> None:
    """Store the children again under the names "0", "1", …: after a deletion the indices
    stay 0..n-1, as in PyTorch (a Sequential built from an OrderedDict loses its names)."""
    object.__setattr__(container, "_modules",
                       OrderedDict((str(i), m) for i, m in enumerate(container._modules.values())))


def _shift_in(container: Module, index: int, module: Module) -> None:
    """Insert ``module`` under the name ``str(index)``, moving the children at ``index`` and
    after it up by one name.  The names are used as they are: like PyTorch, a ModuleList
    given a negative index does not count from the end (KeyError), and an index past the
    end stores the module under that index."""
    modules = container._modules
    for i in range(len(modules), index, -1):
        modules[str(i)] = modules[str(i - 1)]
    modules[str(index)] = module


def _check_multiplier(container: Module, factor: Any) -> None:
    if not isinstance(factor, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(container)} and {type(factor)}")
    if factor <= 0:
        raise ValueError(f"Non-positive multiplication factor {factor} for {type(container)}")


class Sequential(Module):
    """Modules applied one after another: ``Sequential(Linear(2, 3), ReLU())(x)``.

    Built from modules (named "0", "1"...) or from one ``OrderedDict`` of named
    modules.  ``+`` and ``*`` build new Sequentials holding the *same* module
    objects (``block * 2`` applies the same weights twice)."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        """One child by position, or a slice as a new Sequential of the same class (named
        children keep their names)."""
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_position(idx, len(self))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, list(self._modules)[_position(idx, len(self))], module)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_position(idx, len(self))]]):
            delattr(self, key)
        _renumber(self)

    def __dir__(self) -> list:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, module: Module) -> "Sequential":
        """Add ``module`` at the end (named by its index); returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential: Iterable[Module]) -> "Sequential":
        """Append each module of ``sequential`` (any iterable of modules); returns self."""
        for module in sequential:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        """Put ``module`` before position ``index`` (``len(self)`` appends); returns self."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        _shift_in(self, index + n if index < 0 else index, module)
        return self

    def pop(self, key: Union[int, slice]) -> Any:
        """Remove the child at ``key`` and return it (the rest are renumbered)."""
        module = self[key]
        del self[key]
        return module

    def __add__(self, other: "Sequential") -> "Sequential":
        """A new Sequential with the modules of both (the same objects, renumbered)."""
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other: "Sequential") -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(offset + i), module)
        return self

    def __mul__(self, other: int) -> "Sequential":
        """``block * 3``: a new Sequential that runs the same modules three times in a row."""
        _check_multiplier(self, other)
        return Sequential(*(list(self) * other))

    def __rmul__(self, other: int) -> "Sequential":
        return self.__mul__(other)

    def __imul__(self, other: int) -> "Sequential":
        _check_multiplier(self, other)
        return self.extend(list(self) * (other - 1))


class ModuleList(Module):
    """A list of modules, registered (use it for layers you loop over yourself)."""

    def __init__(self, modules: Optional[Iterable[Module]] = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_position(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_position(idx, len(self))), module)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_position(idx, len(self))))
        _renumber(self)

    def __dir__(self) -> list:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, module: Module) -> "ModuleList":
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        """Append each module of ``modules``; returns self."""
        if not isinstance(modules, IterableABC):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def __iadd__(self, modules: Iterable[Module]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        """A new ModuleList with the modules of both (the same objects)."""
        return ModuleList().extend([*self, *other])

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index``.  Unlike ``list.insert`` (and like
        PyTorch), a negative index is a KeyError and one past the end is kept as given."""
        _shift_in(self, index, module)

    def pop(self, key: Union[int, slice]) -> Any:
        """Remove the module at ``key`` and return it (the rest are renumbered)."""
        module = self[key]
        del self[key]
        return module

    def __repr__(self) -> str:
        """Like Module's repr, but runs of identical layers are shown once: ``(0-2): 3 x Linear(...)``."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        lines, start = [], 0
        for i in range(1, len(reprs) + 1):
            if i < len(reprs) and reprs[i] == reprs[start]:
                continue
            end = i - 1  # reprs[start..end] are identical
            label = f"({start})" if end == start else f"({start}-{end}): {end - start + 1} x"
            sep = ": " if end == start else " "
            lines.append(_addindent(label + sep + reprs[start], 2, keep_blank_lines=True))
            start = i
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, registered under their keys (insertion order kept)."""

    def __init__(self, modules: Optional[Mapping[str, Module]] = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def update(self, modules: Any) -> None:
        """Add or replace entries from a mapping (its order) or from ``(key, module)`` pairs."""
        if not isinstance(modules, IterableABC):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        if isinstance(modules, (MappingABC, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, IterableABC):
                raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is"
                                + type(pair).__name__)
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required")
            self[pair[0]] = pair[1]

    def pop(self, key: str) -> Module:
        """Remove the entry ``key`` and return its module (KeyError if absent)."""
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        self._modules.clear()
