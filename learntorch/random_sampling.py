"""The rest of PyTorch's random sampling: ``torch.normal`` (its four overloads),
``torch.poisson`` and the in-place samplers ``cauchy_``, ``log_normal_`` and
``geometric_``.

Like ``learntorch.random``, each one consumes PyTorch's CPU Mersenne-Twister stream
the way the ATen CPU kernel does, so after ``manual_seed`` the numbers are
torch's (the tests check them against torch 2.13 on the CPU):

* ``normal`` with a tensor mean or std is ``randn`` of the result's shape, then
  ``* std + mean`` (ATen's ``normal_out_impl``); with two numbers it is
  ``empty(size).normal_(mean, std)``;
* ``cauchy_``: one double uniform ``u`` per element, ``median + sigma * tan(pi (u - 1/2))``;
* ``log_normal_``: ``exp`` of one double normal per element (the scalar Box-Muller,
  with its cached second sample);
* ``geometric_``: one double uniform per element, ``ceil(log u / log(1 - p))``;
* ``poisson``: element by element, the product-of-uniforms method below rate 10,
  and above it Hörmann's transformed rejection (PTRS, 1993), both on double uniforms.

The results of ``normal`` and ``poisson`` carry a ``grad_fn`` when an input requires
grad, with a zero gradient (PyTorch defines it so: a sample does not move
differentiably with its parameters here).
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from . import dtypes
from .autograd.function import Function
from .creation import _finish, _generator, _size, float_argument
from .random import fill_from_host, fill_in_memory_order
from .tensor import Tensor

__all__ = ["normal", "poisson"]

_C_LONG_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                 "bool": "Bool", "float16": "Half"}


def _kernel_name(dt: dtypes.dtype) -> str:
    return _C_LONG_NAMES.get(dt.name, dt.name)


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


# ----------------------------------------------------------------------------- torch.normal
class _NormalTensorFloat(Function):
    _backward_name = "NormalBackward1"

    @staticmethod
    def forward(ctx: Any, mean: Tensor, std: float, gen: Any) -> Tensor:
        ctx.mean_shape = tuple(mean.shape)
        return _normal_fill(gen, _host(mean), np.float64(std), mean.dtype, mean.device, tuple(mean.shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        return Tensor._zeros(ctx.mean_shape, grad.dtype, grad.device), None, None


class _NormalFloatTensor(Function):
    _backward_name = "NormalBackward2"

    @staticmethod
    def forward(ctx: Any, mean: float, std: Tensor, gen: Any) -> Tensor:
        ctx.std_shape = tuple(std.shape)
        return _normal_fill(gen, np.float64(mean), _host(std), std.dtype, std.device, tuple(std.shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        return None, Tensor._zeros(ctx.std_shape, grad.dtype, grad.device), None


class _NormalTensorTensor(Function):
    _backward_name = "NormalBackward3"

    @staticmethod
    def forward(ctx: Any, mean: Tensor, std: Tensor, gen: Any) -> Tensor:
        ctx.shapes = tuple(mean.shape), tuple(std.shape)
        shape = np.broadcast_shapes(tuple(mean.shape), tuple(std.shape)) if _broadcastable(mean, std) else None
        dt = dtypes.promote_types(mean.dtype, std.dtype)
        return _normal_fill(gen, _host(mean), _host(std), dt, mean.device, shape)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        return tuple(Tensor._zeros(s, grad.dtype, grad.device) for s in ctx.shapes) + (None,)


def _broadcastable(a: Tensor, b: Tensor) -> bool:
    """PyTorch's broadcasting error, raised here with its words."""
    sa, sb = tuple(a.shape), tuple(b.shape)
    for i in range(1, min(len(sa), len(sb)) + 1):
        x, y = sa[-i], sb[-i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {max(len(sa), len(sb)) - i}")
    return True


def _normal_fill(gen: Any, mean: Any, std: Any, dt: dtypes.dtype, device: Any, shape: tuple) -> Tensor:
    """ATen's ``normal_out_impl``: standard normals of the result's shape, times std, plus mean.
    (``std`` is checked before the dtype, as there.)"""
    if np.ndim(std) == 0 and not isinstance(std, np.ndarray) and not float(std) >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
    if isinstance(std, np.ndarray) and not (std >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_kernel_name(dt)}'")
    z = gen.normal(shape, dt._np)
    out = (z * np.asarray(std, dtype=dt._np)).astype(dt._np) + np.asarray(mean, dtype=dt._np)
    return _finish(out.astype(dt._np).reshape(shape), device, False)


def normal(mean: Any, std: Any = 1.0, size: Optional[Sequence[int]] = None, *, generator: Any = None,
           out: Optional[Tensor] = None, dtype: Any = None, layout: Any = None, device: Any = None,
           pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """``torch.normal``: samples of N(mean, std**2).

    ``normal(Tensor mean, Tensor std)``, ``normal(Tensor mean, float std=1)``,
    ``normal(float mean, Tensor std)`` (each element its own parameters, the result
    shaped like the tensor(s)), and ``normal(float mean, float std, size)``."""
    gen = _generator(generator)
    if size is not None:  # only ``normal(float mean, float std, size)`` takes a size (0-d tensors count as floats)
        if not (_float_like(mean) and _float_like(std) and isinstance(size, (tuple, list))
                and all(_int_like(n) for n in size)):
            raise _normal_overloads(mean, std, size)
        mean, std = (v.item() if isinstance(v, Tensor) else v for v in (mean, std))
    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if m_t and s_t:
        result = _NormalTensorTensor.apply(mean, std, gen)
    elif m_t:
        result = _NormalTensorFloat.apply(mean, float(std), gen)
    elif s_t:
        result = _NormalFloatTensor.apply(float(mean), std, gen)
    else:
        if size is None:
            raise _normal_overloads(mean, std)
        dt = dtypes.from_argument(dtype) if dtype is not None else (out.dtype if out is not None
                                                               else dtypes.get_default_dtype())
        if not float(std) >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
        if not dt.is_floating_point:
            raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_kernel_name(dt)}'")
        size = tuple(int(n) for n in size)
        result = _finish(gen.normal(_size((tuple(size),)), dt._np, float(mean), float(std)), device, requires_grad)
    if out is None:
        return result
    return _into(out, result)


def _float_like(value: Any) -> bool:
    """A float to PyTorch's parser: a number, or a 0-d tensor that needs no gradient."""
    if isinstance(value, Tensor):
        return value.ndim == 0 and not value.requires_grad
    return isinstance(value, (int, float, np.integer, np.floating, np.bool_))


def _int_like(value: Any) -> bool:
    """An int to PyTorch's parser: an integer (not a bool), or an integer tensor of one element."""
    if isinstance(value, Tensor):
        return value.numel() == 1 and not value.dtype.is_floating_point and value.dtype is not dtypes.bool
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _normal_overloads(*args: Any) -> TypeError:
    """PyTorch's TypeError for arguments that fit none of ``normal``'s four overloads."""
    return TypeError(f"normal() received an invalid combination of arguments - got "
                     f"({', '.join(type(a).__name__ for a in args)}), but expected one of:\n"
                     " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                     " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
                     " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                     " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
                     "Tensor out = None, torch.dtype dtype = None, ...)")


def _into(out: Tensor, result: Tensor) -> Tensor:
    """The ``out=`` form: PyTorch writes into ``out``, whose shape must be the result's."""
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError(f"normal: out= has shape {list(out.shape)} but the result has shape "
                           f"{list(result.shape)}; pass an out tensor of the result's shape")
    return fill_from_host(out, _host(result).astype(out.dtype._np))


# ----------------------------------------------------------------------------- torch.poisson
class _Poisson(Function):
    _backward_name = "PoissonBackward0"

    @staticmethod
    def forward(ctx: Any, rates: Tensor, gen: Any) -> Tensor:
        ctx.shape = tuple(rates.shape)
        lam = _host(rates).astype(np.float64).reshape(-1)
        draws = np.array([_poisson_one(gen, float(v)) for v in lam], dtype=np.float64)
        return _finish(draws.astype(rates.dtype._np).reshape(ctx.shape), rates.device, False)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        return Tensor._zeros(ctx.shape, grad.dtype, grad.device), None


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Poisson counts, one per element, with the element as the rate (float dtype, like ``input``)."""
    if generator is not None and not hasattr(generator, "_uniform01_f64"):  # (PyTorch's parser checks it first)
        raise TypeError(f"poisson(): argument 'generator' (position 2) must be torch.Generator, not "
                        f"{type(generator).__name__}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_kernel_name(input.dtype)}'")
    if (_host(input) < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _Poisson.apply(input, _generator(generator))


def _uniform(gen: Any) -> float:
    return float(gen._uniform01_f64(1)[0])


def _poisson_one(gen: Any, lam: float) -> float:
    """One Poisson draw, consuming double uniforms as ATen's ``sample_poisson`` does."""
    if lam >= 10:
        return _poisson_ptrs(gen, lam)
    if lam == 0:
        return 0.0
    enlam, prod, k = math.exp(-lam), 1.0, 0
    while True:  # count uniforms until their running product falls to e^-lam
        prod *= _uniform(gen)
        if prod > enlam:
            k += 1
        else:
            return float(k)


def _poisson_ptrs(gen: Any, lam: float) -> float:
    """Hörmann's "transformed rejection with squeeze" for large rates (W. Hörmann, The
    transformed rejection method for generating Poisson random variables, 1993)."""
    slam, loglam = math.sqrt(lam), math.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    while True:
        u = _uniform(gen) - 0.5
        v = _uniform(gen)
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + lam + 0.43)
        if us >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or (us < 0.013 and v > us):
            continue
        if math.log(v) + math.log(inv_alpha) - math.log(a / (us * us) + b) <= -lam + k * loglam - math.lgamma(k + 1):
            return float(k)


# ----------------------------------------------------------------------------- in-place samplers
def _cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with Cauchy(median, sigma) draws."""
    median = float_argument("cauchy_", "median", 1, median)
    sigma = float_argument("cauchy_", "sigma", 2, sigma)
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    if not self.dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_c_type(self.dtype)}")
    gen = _generator(generator)
    return fill_in_memory_order(  # in the order of self's memory, as PyTorch's loop draws
        self, lambda shape: (median + sigma * np.tan(np.pi * (gen.uniform(shape, np.float64) - 0.5))).astype(
            self.dtype._np))


def _c_type(dt: dtypes.dtype) -> str:
    return {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool"}.get(dt.name, dt.name)


def _log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    """Fill with exp(N(mean, std**2)) draws (PyTorch's defaults: mean 1, std 2)."""
    mean = float_argument("log_normal_", "mean", 1, mean)
    std = float_argument("log_normal_", "std", 2, std)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{_kernel_name(self.dtype)}'")
    gen = _generator(generator)
    return fill_in_memory_order(  # one scalar normal per element, in the order of self's memory
        self, lambda shape: np.exp(gen._normal_each(math.prod(shape), float(mean), float(std))).astype(
            self.dtype._np).reshape(shape))


def _geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    p = float_argument("geometric_", "p", 1, p)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if self.dtype is dtypes.bool:  # (integers take the counts; a bool cannot)
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    gen = _generator(generator)
    return fill_in_memory_order(  # in the order of self's memory
        self, lambda shape: np.ceil(np.log(gen.uniform(shape, np.float64)) / np.log1p(-p)).astype(self.dtype._np))


for _name, _fn in (("cauchy_", _cauchy_), ("log_normal_", _log_normal_), ("geometric_", _geometric_)):
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, _fn)
