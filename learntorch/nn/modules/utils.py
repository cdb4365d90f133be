"""``torch.nn.modules.utils``: small helpers that programs import from PyTorch by this path.

* ``consume_prefix_in_state_dict_if_present(state_dict, "module.")``: what the
  DataParallel / DistributedDataParallel chapter needs to load a wrapped model's
  checkpoint (keys ``module.fc.weight``...) into the plain model (``fc.weight``).
* ``_single`` / ``_pair`` / ``_triple`` / ``_quadruple``: turn ``kernel_size=3`` into
  ``(3, 3)`` as the conv layers do; learners use them in their own layers.
"""
from __future__ import annotations

import collections.abc
from itertools import repeat
from typing import Any, Callable

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A function that repeats a single value ``n`` times and leaves an iterable as a tuple."""
    def parse(x: Any) -> tuple:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """``(a, b)`` -> ``(b, b, a, a)`` for ``n=2``: the per-side padding F.pad wants, last dim first."""
    return tuple(x for x in reversed(t) for _ in range(n))


def consume_prefix_in_state_dict_if_present(state_dict: dict, prefix: str) -> None:
    """Remove ``prefix`` from the keys of ``state_dict`` that start with it, in place (and from
    its ``_metadata`` keys, where the wrapper's own entry ``""`` is left alone)."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in list(metadata.keys()):
        if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
            metadata[key[len(prefix):]] = metadata.pop(key)
