"""Step 1 and step 4 of DataParallel: ``scatter`` the inputs, ``gather`` the outputs.

``scatter`` walks through the arguments (tensors inside tuples, lists, dicts and
named tuples, to any depth) and cuts every tensor along ``dim`` with the
differentiable ``Scatter``; anything else (a number, a string, None) is given
to every device as it is.  The result has one entry per device that got a chunk.
``gather`` is the reverse, on the replicas' outputs.
"""
from __future__ import annotations

from typing import Any, Sequence

from ...tensor import Tensor
from ._functions import Gather, Scatter

__all__ = ["scatter", "scatter_kwargs", "gather"]


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def scatter(inputs: Any, target_gpus: Sequence[Any], dim: int = 0) -> list:
    """One piece of ``inputs`` per device: ``[piece for device 0, piece for device 1, ...]``.

    Several tensors cut into different numbers of chunks give as many pieces as
    the smallest number (``zip``), as in PyTorch."""
    def split(obj: Any) -> list:
        if isinstance(obj, Tensor):
            return list(Scatter.apply(target_gpus, None, dim, obj))
        if _is_namedtuple(obj):
            return [type(obj)(*fields) for fields in zip(*map(split, obj))]
        if isinstance(obj, tuple) and obj:
            return list(zip(*map(split, obj)))
        if isinstance(obj, list) and obj:
            return [list(items) for items in zip(*map(split, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(pairs) for pairs in zip(*map(split, obj.items()))]
        return [obj for _ in target_gpus]
    return split(inputs)


def scatter_kwargs(inputs: tuple, kwargs: dict | None, target_gpus: Sequence[Any],
                   dim: int = 0) -> tuple[tuple, tuple]:
    """Scatter the positional and the keyword arguments; pad the shorter list of pieces
    with ``()`` / ``{}`` so that each device gets both."""
    pieces = scatter(inputs, target_gpus, dim) if inputs else []
    kw_pieces = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(pieces) < len(kw_pieces):
        pieces.extend(() for _ in range(len(kw_pieces) - len(pieces)))
    elif len(kw_pieces) < len(pieces):
        kw_pieces.extend({} for _ in range(len(pieces) - len(kw_pieces)))
    return tuple(pieces), tuple(kw_pieces)


def gather(outputs: Sequence[Any], target_device: Any, dim: int = 0) -> Any:
    """Join the replicas' outputs (one per device) on ``target_device``, keeping their structure."""
    def join(items: Sequence[Any]) -> Any:
        first = items[0]
        if isinstance(first, Tensor):
            return Gather.apply(target_device, dim, *items)
        if first is None:
            return None
        if isinstance(first, dict):
            if not all(len(first) == len(d) for d in items):
                raise ValueError("All dicts must have the same number of keys")
            return type(first)((k, join([d[k] for d in items])) for k in first)
        if _is_namedtuple(first):
            return type(first)._make(map(join, zip(*items)))
        return type(first)(map(join, zip(*items)))
    return join(outputs)
