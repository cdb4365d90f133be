"""``Tensor.apply_(fn)`` and ``Tensor.map_(other, fn)``: a Python function run on every element,
in place.

They are the slow, general tool for what no tensor operation expresses (a lookup in a
Python dict, a call into another library): one Python call per element, so only for small
tensors, and only on the CPU, as in PyTorch.  Each element goes to ``fn`` as a Python number
and the answer is stored back in the tensor's dtype.  No gradient can flow through a Python
function, so a tensor that requires grad is refused.
"""
from __future__ import annotations

import numbers
from typing import Any, Callable

import numpy as np

from ..tensor import Tensor

__all__ = ["apply_", "map_"]


def _check(self: Tensor, name: str) -> None:
    if self._device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    if self._requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def _store(self: Tensor, values: list) -> None:
    """Write the Python results into ``self``'s memory, in ``self``'s dtype."""
    real = self._dtype.is_floating_point
    for v in values:
        if real and not isinstance(v, numbers.Real) or not real and not isinstance(v, numbers.Number):
            raise TypeError(f"must be real number, not {type(v).__name__}")
    self._data[...] = np.asarray(values, dtype=self._data.dtype).reshape(self._data.shape)
    self._version_counter[0] += 1


def apply_(self: Tensor, callable: Callable[[Any], Any]) -> Tensor:  # noqa: A002  (PyTorch's name)
    """Replace every element ``v`` with ``callable(v)``; returns ``self``."""
    _check(self, "apply_")
    _store(self, [callable(v) for v in self._data.reshape(-1).tolist()])
    return self


def map_(self: Tensor, tensor: Tensor, callable: Callable[[Any, Any], Any]) -> Tensor:  # noqa: A002
    """Replace every element ``v`` with ``callable(v, w)``, ``w`` the matching element of ``tensor``
    (broadcast to ``self``'s shape); returns ``self``."""
    _check(self, "map_")
    if tensor._dtype is not self._dtype:
        raise TypeError(f"map_: expected {self.type()} for 'other' (got {tensor.type()})")
    other = tensor.expand(tuple(self.shape))._data
    pairs = zip(self._data.reshape(-1).tolist(), np.asarray(other).reshape(-1).tolist())
    _store(self, [callable(v, w) for v, w in pairs])
    return self
