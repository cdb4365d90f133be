"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``.

They hold modules so that their parameters are registered (a plain Python
list of layers would hide them from ``parameters()``), with the names
``"0"``, ``"1"`` … or the dict's keys.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Iterator, Mapping, Optional, Union

from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _index(idx: int, size: int, kind: str) -> int:
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx + size if idx < 0 else idx


def _renumber(container: Module, items: list) -> None:
    """Store ``items`` under the names "0", "1", …: after a deletion or insertion the
    indices stay 0..n-1, as in PyTorch."""
    container._modules.clear()
    for i, module in enumerate(items):
        container._modules[str(i)] = module


class Sequential(Module):
    """Modules applied one after another: ``Sequential(Linear(2, 3), ReLU())(x)``."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input: Any) -> Any:
        for module in self._modules.values():
            input = module(input)
        return input

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self), "Sequential")]

    def __setitem__(self, idx: int, module: Module) -> None:
        self._modules[list(self._modules)[_index(idx, len(self), "Sequential")]] = module

    def __delitem__(self, idx: Union[int, slice]) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self), "Sequential")]]):
            del self._modules[key]
        _renumber(self, list(self._modules.values()))

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def __add__(self, other: "Sequential") -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return Sequential(*self, *other)

    def __iadd__(self, other: "Sequential") -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return self.extend(list(other))

    def extend(self, modules: Iterable[Module]) -> "Sequential":
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        if not -len(self) <= index <= len(self):
            raise IndexError(f"Index out of range: {index}")
        items = list(self._modules.values())
        items.insert(index, module)
        _renumber(self, items)
        return self

    def pop(self, index: int = -1) -> Module:
        module = self[index]
        del self[index]
        return module


class ModuleList(Module):
    """A list of modules, registered (use it for layers you loop over yourself)."""

    def __init__(self, modules: Optional[Iterable[Module]] = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self._modules[str(_index(idx, len(self), "ModuleList"))] = module

    def __delitem__(self, idx: Union[int, slice]) -> None:
        items = list(self._modules.values())
        del items[idx if isinstance(idx, slice) else _index(idx, len(self), "ModuleList")]
        _renumber(self, items)

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        if not hasattr(modules, "__iter__"):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        for module in modules:
            self.append(module)
        return self

    def __iadd__(self, modules: Iterable[Module]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        return ModuleList(list(self) + list(other))

    def pop(self, key: Union[int, slice]) -> Module:
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
            lines.append(_addindent(label + sep + reprs[start], 2))
            start = i
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        _renumber(self, items)


class ModuleDict(Module):
    """A dict of modules, registered under their keys."""

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
        pairs = modules.items() if hasattr(modules, "items") else modules
        for key, module in pairs:
            self[key] = module

    def pop(self, key: str) -> Module:
        module = self._modules[key]
        del self._modules[key]
        return module

    def clear(self) -> None:
        self._modules.clear()
