"""The element-wise updates the optimizers need: ``addcmul_``, ``addcdiv_``, ``lerp_`` (in place)
and Adam's denominator ``√v̂ + ε`` (``root_plus``).

PyTorch has them as tensor methods, each one kernel; here each is one line of
arithmetic, shown so that the update equations read clearly.  They run inside
``step()``, under ``no_grad``, once per parameter per step: there, on NumPy
arrays of one dtype and shape, each is computed straight into the target's memory
(the same operations in the same order, so the same numbers), instead of as two
or three tensor operations with their temporaries.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import grad_mode
from ..tensor import Tensor


def _arrays(t: Tensor, *others: Tensor) -> Any:
    """``t``'s array and the others', when the update may be done on them directly: grad mode
    off, NumPy arrays of one floating dtype and one shape, ``t`` writable; else None."""
    if grad_mode._state.enabled or t._inference or type(t._data) is not np.ndarray:
        return None
    a = t._data
    if not t._dtype.is_floating_point or t._dtype.name == "bfloat16" or not a.flags.writeable or 0 in a.strides:
        return None
    for o in others:
        if not isinstance(o, Tensor) or type(o._data) is not np.ndarray or o._dtype is not t._dtype \
                or o._data.shape != a.shape:
            return None
    return (a,) + tuple(o._data for o in others)


def _number(v: Any) -> Any:
    """A coefficient for the array arithmetic: a 0-d tensor (a tensor ``lr`` makes the step size
    one) as its Python number, which NumPy arrays multiply by; numbers as they are."""
    return v.item() if isinstance(v, Tensor) else v


def _changed(t: Tensor) -> Tensor:
    t._version_counter[0] += 1  # an in-place change, as any other
    return t


def addcmul_(t: Tensor, a: Tensor, b: Tensor, value: float = 1) -> Tensor:
    """``t += value * a * b`` (PyTorch's ``t.addcmul_(a, b, value=value)``)."""
    arrays = _arrays(t, a, b)
    if arrays is not None:
        ta, aa, ba = arrays
        np.add(ta, aa * _number(value) * ba, out=ta)
        return _changed(t)
    return t.add_(a.mul(value).mul(b))


def addcdiv_(t: Tensor, a: Tensor, b: Tensor, value: float = 1) -> Tensor:
    """``t += value * a / b`` (PyTorch's ``t.addcdiv_(a, b, value=value)``, in its order: ``(value * a) / b``)."""
    arrays = _arrays(t, a, b)
    if arrays is not None:
        ta, aa, ba = arrays
        with np.errstate(divide="ignore", invalid="ignore"):
            np.add(ta, aa * _number(value) / ba, out=ta)
        return _changed(t)
    return t.add_(a.mul(value).div(b))


def lerp_(t: Tensor, end: Tensor, weight: float) -> Tensor:
    """``t += weight * (end - t)``: move ``t`` a fraction ``weight`` of the way to ``end``
    (PyTorch's ``t.lerp_(end, weight)``; from the far end when ``weight >= 0.5``, as PyTorch does)."""
    arrays = _arrays(t, end)
    if arrays is not None:
        ta, ea = arrays
        weight = _number(weight)
        if weight < 0.5:
            np.add(ta, (ea - ta) * weight, out=ta)
        else:
            np.subtract(ea, (ea - ta) * (1 - weight), out=ta)
        return _changed(t)
    if weight < 0.5:
        return t.add_(end.sub(t), alpha=weight)
    return t.copy_(end.sub(end.sub(t).mul(1 - weight)))


def root_plus(v: Tensor, scale: float, eps: float) -> Tensor:
    """``v.sqrt() / scale + eps`` as a new tensor: Adam's ``√v̂ + ε`` with ``v̂ = v / scale²``.
    On NumPy arrays the three steps share one buffer (the same operations in the same order,
    so the same numbers as the tensor form below)."""
    arrays = _arrays(v)
    if arrays is not None:
        d = np.sqrt(arrays[0])
        d /= _number(scale)
        d += _number(eps)
        return Tensor._make(d, v._device)
    return (v.sqrt() / scale).add_(eps)
