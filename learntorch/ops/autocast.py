"""What an operation does inside ``torch.autocast``: cast its arguments, then run.

PyTorch sorts operations into lists.  On the CPU (``torch.autocast("cpu")``, bfloat16 by
default):

* **lower precision**: matrix products and convolutions (``linear``, ``matmul``, ``mm``,
  ``bmm``, ``addmm``, ``baddbmm``, ``addbmm``, ``conv*``, ``prelu``,
  ``scaled_dot_product_attention``, the LSTM layer) cast their float32 tensors to the
  autocast dtype: this is where 16-bit arithmetic saves time on hardware that has it;
* **float32**: losses and other operations that need the range or the precision
  (``mse_loss``, ``cross_entropy``, ``nll_loss``, ``prod``, ``cdist`` …) cast 16-bit
  tensors *up* to float32;
* every other operation runs in the dtypes of its inputs (``relu`` of a bfloat16 tensor is
  bfloat16; bfloat16 + float32 is float32, by the usual promotion).

A cast is an ordinary differentiable ``.to(dtype)`` (``ToCopyBackward0`` in the graph), so the
gradient reaches a float32 weight as float32.  float64 tensors are never cast.  A leaf that
requires grad (a parameter) is cast once per autocast region and the cast reused, as PyTorch's
cache does.  While the operation runs, autocast is paused, so the operations it is made of
do not cast again (PyTorch excludes its autocast dispatch key in the same way).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import autocast_state, dtypes
from ..autograd import grad_mode
from ..dtype_bfloat16 import bfloat16
from ..tensor import Tensor
from .pointwise import to_copy

__all__ = ["lower_precision", "float32_precision", "without_autocast"]


def _device_type(args: tuple, kwargs: dict) -> Any:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            return a._device.type
        if isinstance(a, (list, tuple)):
            found = _device_type(a, {})
            if found is not None:
                return found
    return None


def _cast(a: Any, target: dtypes.dtype, use_cache: bool) -> Any:
    """``a`` in ``target`` when it is a floating tensor autocast may cast (float64 never is);
    the tensors inside lists, tuples and dicts too (an RNN's states and weights)."""
    if isinstance(a, (list, tuple)):
        return type(a)(_cast(b, target, use_cache) for b in a)
    if isinstance(a, dict):
        return {k: _cast(v, target, use_cache) for k, v in a.items()}
    if (not isinstance(a, Tensor) or not a._dtype.is_floating_point or a._dtype is target
            or a._dtype is dtypes.float64):
        return a
    cacheable = (use_cache and a._dtype is dtypes.float32 and a._requires_grad and a.grad_fn is None
                 and a._base is None and grad_mode._state.enabled)
    if cacheable:
        hit = autocast_state.CACHE.get(id(a))
        if hit is not None and hit[0] is a:
            return hit[1]
    cast = to_copy(a, a._device, target)
    if cacheable:
        autocast_state.CACHE[id(a)] = (a, cast)
    return cast


def _run(fn: Callable, policy: Any, args: tuple, kwargs: dict) -> Any:
    """Cast by ``policy`` ("lower", "float32" or None: no cast), then run ``fn`` with autocast paused."""
    device_type = _device_type(args, kwargs)
    entry = autocast_state.STATE.get(device_type)
    if policy is not None and entry is not None and entry[0]:
        enabled, dtype, cache = entry
        lower = policy == "lower"
        default = bfloat16 if device_type == "cpu" else dtypes.float16
        target = (dtype or default) if lower else dtypes.float32
        args = _cast(args, target, lower and cache)
        kwargs = _cast(kwargs, target, lower and cache)
    autocast_state.ACTIVE[0] = False  # the operation's own parts do not cast again
    try:
        return fn(*args, **kwargs)
    finally:
        autocast_state.refresh()


def lower_precision(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with its float tensors cast to the autocast dtype (bfloat16 on the CPU)."""
    return _run(fn, "lower", args, kwargs)


def float32_precision(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with its 16-bit float tensors cast up to float32."""
    return _run(fn, "float32", args, kwargs)


def without_autocast(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` as it is, in its inputs' dtypes: for an operation PyTorch does not
    list but that learntorch builds from listed ones (a GRU from matrix products), which must
    not be cast piece by piece."""
    return _run(fn, None, args, kwargs)
