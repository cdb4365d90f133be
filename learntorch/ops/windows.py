"""Signal windows: ``torch.hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window`` (for ``torch.stft`` and filter design).

Computed as PyTorch computes them: step by step in the window's own dtype (float32 stays
float32; float16's rounding shows, as it does there), from ``arange(N)``:

* Hamming (Hann is α = β = ½): ``α - β·cos(2πn/(N-1))`` (R. W. Hamming, *Digital Filters*);
* Blackman: ``0.42 - 0.5·cos(2πn/(N-1)) + 0.08·cos(4πn/(N-1))``;
* Bartlett: ``2n/(N-1)`` rising to 1, then ``2 - 2n/(N-1)``;
* Kaiser: ``I₀(β·√(1 - ((n - α)/α)²)) / I₀(β)``, α = (N-1)/2 (J. F. Kaiser, 1974), with the
  modified Bessel function I₀ of ops/special.py.

``periodic=True`` (the default) computes the window of length N+1 and drops its last point
(the form for spectral analysis); a length of 1 gives ``[1.]``, 0 an empty tensor.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..arrays import transfer
from ..device import CPU, as_device
from ..tensor import Tensor
from .special import bessel_i_array

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]

_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _check(name: str, window_length: Any, dt: dtypes.dtype) -> None:
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{_CPP_NAMES.get(dt.name, dt.name)}, device=cpu, layout=Strided (default), "
                           "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")


def _window(name: str, window_length: int, periodic: bool, dtype: Any, device: Any, requires_grad: bool,
            layout: Any, compute: Callable[[np.ndarray, int], np.ndarray]) -> Tensor:
    """The checks, the edge lengths and the periodic trim shared by all windows; ``compute(n, N)``
    gets ``arange(N)`` in the window's NumPy dtype and the (possibly extended) length N ≥ 2."""
    dt = dtypes.from_argument(dtype) if dtype is not None else dtypes.get_default_dtype()
    _check(name, window_length, dt)
    npdt = np.dtype(np.float32) if dt.name == "bfloat16" else dt._np  # (bfloat16: float32, rounded at the end)
    if window_length == 0:
        host = np.zeros(0, dtype=npdt)
    elif window_length == 1:
        host = np.ones(1, dtype=npdt)
    else:
        n_full = window_length + 1 if periodic else window_length
        with np.errstate(all="ignore"):
            host = compute(np.arange(n_full, dtype=npdt), n_full)[:window_length]
    dev = as_device(device)
    t = Tensor._make(transfer(np.ascontiguousarray(host), CPU, dev), dev)
    if dt.name == "bfloat16":
        t = t.to(dt)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _cosine_terms(n: np.ndarray, big_n: int, alpha: float, beta: float) -> np.ndarray:
    """``α - β·cos(n·(2π/(N-1)))``, each step rounded to n's dtype as PyTorch's in-place chain."""
    t = n.dtype.type
    w = n * t(2.0 * math.pi / (big_n - 1))
    return np.cos(w) * t(-beta) + t(alpha)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: bool = False,
                   requires_grad: bool = False) -> Tensor:
    """The Hamming window ``α - β·cos(2πn/(N-1))``."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, layout,
                   lambda n, N: _cosine_terms(n, N, alpha, beta))


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """The Hann window ``½ - ½·cos(2πn/(N-1))`` (= ``sin²(πn/(N-1))``)."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, layout,
                   lambda n, N: _cosine_terms(n, N, 0.5, 0.5))


def _blackman(n: np.ndarray, big_n: int) -> np.ndarray:
    t = n.dtype.type
    w = n * t(math.pi / (big_n - 1))
    return np.cos(w * t(4)) * t(0.08) - np.cos(w * t(2)) * t(0.5) + t(0.42)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """The Blackman window ``0.42 - 0.5·cos(2πn/(N-1)) + 0.08·cos(4πn/(N-1))``."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, layout, _blackman)


def _bartlett(n: np.ndarray, big_n: int) -> np.ndarray:
    t = n.dtype.type
    w = n * t(2.0 / (big_n - 1))
    half = ((big_n - 1) >> 1) + 1
    w[half:] = w[half:] * t(-1) + t(2)
    return w


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """The Bartlett (triangular) window: ``2n/(N-1)`` up to the middle, ``2 - 2n/(N-1)`` after."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, layout, _bartlett)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None,
                  layout: Any = None, device: Any = None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    """The Kaiser window ``I₀(β·√(1 - ((n - α)/α)²)) / I₀(β)``, α = (N-1)/2."""
    def compute(n: np.ndarray, big_n: int) -> np.ndarray:
        alpha = (big_n - 1) / 2.0
        x = n.astype(np.float64)
        arg = beta * np.sqrt(np.abs(1.0 - ((x - alpha) / alpha) ** 2))
        return (bessel_i_array(np, arg, 0) / bessel_i_array(np, np.asarray(float(beta)), 0)).astype(n.dtype)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, layout, compute)
