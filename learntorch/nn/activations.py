"""More activation functions (激活函数): the ReLU family and its smooth cousins.

Each is one ``autograd.Function`` named as PyTorch's backward node
(``LeakyReluBackward0``, ``EluBackward0`` ...), computed on the backend's arrays:

* ``leaky_relu``  x if x > 0 else slope·x — never a zero gradient;
* ``elu``/``selu``/``celu``  α(eˣ - 1) for x ≤ 0 — smooth, negative outputs
  push the mean activation towards 0 (SELU's constants make it self-normalising);
* ``silu`` (swish) x·σ(x), ``mish`` x·tanh(softplus(x)), ``softplus`` log(1 + eˣ):
  smooth ReLUs;
* ``hardtanh``/``relu6`` clip into [min, max]; ``hardsigmoid``/``hardswish`` are the
  cheap piecewise-linear versions of σ and swish; ``logsigmoid`` log σ(x) (stable).

Backwards are written on arrays too, so a second derivative (``create_graph=True``)
through these is not supported.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..autograd.function import Function
from ..ops.common import new_result
from ..tensor import Tensor

__all__ = ["leaky_relu", "elu", "selu", "celu", "silu", "mish", "softplus", "hardtanh", "relu6", "logsigmoid",
           "hardsigmoid", "hardswish", "softsign", "threshold"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _sigmoid(xp: Any, a: Any) -> Any:
    e = xp.exp(-xp.abs(a))  # exp of a non-positive number: no overflow
    return xp.where(a >= 0, 1 / (1 + e), e / (1 + e))


def _softplus(xp: Any, a: Any, beta: float, threshold: float) -> Any:
    """log(1 + e^(βx))/β, and x itself once βx > threshold (where they agree in float32)."""
    ba = a * beta
    return xp.where(ba > threshold, a, xp.log1p(xp.exp(xp.minimum(ba, threshold))) / beta)


def _activation(backward_name: str, forward: Callable[..., Any], derivative: Callable[..., Any]) -> type:
    """A Function ``y = f(x; options)`` with ``dy/dx = derivative(xp, x, y; options)``, both on arrays."""
    def fwd(ctx, x: Tensor, inplace: bool = False, **options: Any) -> Tensor:
        xp = x._backend.xp
        with np.errstate(all="ignore"):
            out = xp.asarray(forward(xp, x._data, **options)).astype(x._data.dtype, copy=False)
        # an in-place call overwrites x's memory with the result: keep a copy of the input for backward
        ctx.x, ctx.y, ctx.options = (x._data.copy() if inplace else x._data), out, options
        return new_result(out, x)

    def bwd(ctx, grad: Tensor) -> Tensor:
        xp = grad._backend.xp
        with np.errstate(all="ignore"):
            d = derivative(xp, ctx.x, ctx.y, **ctx.options)
        return new_result((grad._data * d).astype(grad._data.dtype, copy=False), grad)

    return type(backward_name.replace("Backward0", ""), (Function,),
                {"_backward_name": backward_name, "forward": staticmethod(fwd), "backward": staticmethod(bwd),
                 "forward_fn": staticmethod(forward), "derivative_fn": staticmethod(derivative),
                 "__module__": __name__})


LeakyRelu = _activation("LeakyReluBackward0",
                        lambda xp, a, slope: xp.where(a > 0, a, a * slope),
                        lambda xp, a, y, slope: xp.where(a > 0, 1.0, slope))
Elu = _activation("EluBackward0",
                  lambda xp, a, alpha, scale, input_scale: xp.where(a > 0, a * scale,
                                                                    xp.expm1(a * input_scale) * (alpha * scale)),
                  lambda xp, a, y, alpha, scale, input_scale: xp.where(
                      a > 0, scale, xp.exp(a * input_scale) * (alpha * scale * input_scale)))
Celu = _activation("CeluBackward0", Elu.forward_fn, Elu.derivative_fn)
Silu = _activation("SiluBackward0",
                   lambda xp, a: a * _sigmoid(xp, a),
                   lambda xp, a, y: _sigmoid(xp, a) * (1 + a * (1 - _sigmoid(xp, a))))
Mish = _activation("MishBackward0",
                   lambda xp, a: a * xp.tanh(_softplus(xp, a, 1.0, 20.0)),
                   lambda xp, a, y: xp.tanh(_softplus(xp, a, 1.0, 20.0))
                   + a * _sigmoid(xp, a) * (1 - xp.tanh(_softplus(xp, a, 1.0, 20.0)) ** 2))
Softplus = _activation("SoftplusBackward0",
                       lambda xp, a, beta, threshold: _softplus(xp, a, beta, threshold),
                       lambda xp, a, y, beta, threshold: xp.where(a * beta > threshold, 1.0,
                                                                  _sigmoid(xp, a * beta)))
Hardtanh = _activation("HardtanhBackward0",
                       lambda xp, a, lo, hi: xp.clip(a, lo, hi),
                       lambda xp, a, y, lo, hi: ((a > lo) & (a < hi)).astype(a.dtype))
LogSigmoid = _activation("LogSigmoidBackward0",
                         lambda xp, a: xp.minimum(a, 0) - xp.log1p(xp.exp(-xp.abs(a))),
                         lambda xp, a, y: 1 - _sigmoid(xp, a))
Hardsigmoid = _activation("HardsigmoidBackward0",
                          lambda xp, a: xp.clip(a / 6 + 0.5, 0, 1),
                          lambda xp, a, y: ((a > -3) & (a < 3)).astype(a.dtype) / 6)
Hardswish = _activation("HardswishBackward0",
                        lambda xp, a: a * xp.clip(a + 3, 0, 6) / 6,
                        lambda xp, a, y: xp.where(a <= -3, 0.0, xp.where(a < 3, a / 3 + 0.5, 1.0)))
Threshold = _activation("ThresholdBackward0",
                        lambda xp, a, threshold, value: xp.where(a > threshold, a, value),
                        lambda xp, a, y, threshold, value: (a > threshold).astype(a.dtype))


def _run(fn: type, input: Tensor, inplace: bool, **options: Any) -> Tensor:
    """``fn`` out of place, or written into ``input`` (``inplace=True``) with autograd's
    in-place rules (version counter, a new ``grad_fn`` for ``input``)."""
    if not inplace:
        return fn.apply(input, **options)
    from .._tensor_methods import _inplace
    return _inplace(input, lambda t: fn.apply(t, inplace=True, **options))


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _run(LeakyRelu, input, inplace, slope=float(negative_slope))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _run(Elu, input, inplace, alpha=float(alpha), scale=1.0, input_scale=1.0)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return _run(Elu, input, inplace, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _run(Celu, input, inplace, alpha=float(alpha), scale=1.0, input_scale=1.0 / alpha)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _run(Silu, input, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _run(Mish, input, inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return Softplus.apply(input, beta=float(beta), threshold=float(threshold))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _run(Hardtanh, input, inplace, lo=float(min_val), hi=float(max_val))


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def logsigmoid(input: Tensor) -> Tensor:
    return LogSigmoid.apply(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _run(Hardsigmoid, input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _run(Hardswish, input, inplace)


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|) -- composed, as in PyTorch (its grad_fn is DivBackward0)."""
    return input / (input.abs() + 1)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    return _run(Threshold, input, inplace, threshold=float(threshold), value=float(value))


