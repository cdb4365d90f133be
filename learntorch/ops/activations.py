"""More activation functions (激活函数): the ReLU family and its smooth cousins.

Each is one ``autograd.Function`` named as PyTorch's backward node
(``LeakyReluBackward0``, ``EluBackward0`` ...), computed on the backend's arrays:

* ``leaky_relu``  x if x > 0 else slope·x — never a zero gradient;
* ``elu``/``selu``/``celu``  α(eˣ - 1) for x ≤ 0 — smooth, negative outputs
  push the mean activation towards 0 (SELU's constants make it self-normalising);
* ``silu`` (swish) x·σ(x), ``mish`` x·tanh(softplus(x)), ``softplus`` log(1 + eˣ):
  smooth ReLUs;
* ``hardtanh``/``relu6`` clip into [min, max]; ``hardsigmoid``/``hardswish`` are the
  cheap piecewise-linear versions of σ and swish; ``logsigmoid`` log σ(x) (stable);
* ``hardshrink``/``softshrink``/``tanhshrink`` push small values to (or towards) zero;
  ``glu`` gates one half of a dimension with the sigmoid of the other half;
  ``rrelu`` is a leaky ReLU whose slope is drawn at random while training.

Each derivative is written once (``.formula``): on arrays for a plain backward, on
tensors under ``create_graph=True``, so these can be differentiated twice, as in PyTorch.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..autograd.function import Function
from ..random import default_generator
from .common import Number, check_kernel_dtype, in_strides_of, new_result
from .formula import TensorMath, array_math, differentiable_backward
from .inplace import inplace as inplace_op
from ..tensor import Tensor

__all__ = ["leaky_relu", "elu", "selu", "celu", "silu", "mish", "softplus", "hardtanh", "relu6", "logsigmoid",
           "hardsigmoid", "hardswish", "softsign", "threshold", "hardshrink", "softshrink", "tanhshrink", "glu",
           "rrelu", "elu_", "selu_", "celu_", "leaky_relu_", "hardtanh_", "rrelu_", "threshold_"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _sigmoid(m: Any, a: Any) -> Any:
    return m.sigmoid(a)


def _softplus(m: Any, a: Any, beta: float, threshold: float) -> Any:
    """log(1 + e^(βx))/β, and x itself once βx > threshold (where they agree in float32)."""
    ba = a * beta
    return m.where(ba > threshold, a, m.log1p(m.exp(m.minimum(ba, threshold))) / beta)


def _activation(backward_name: str, forward: Callable[..., Any], derivative: Callable[..., Any],
                second: Any = False, double_name: str = "", kernel: str = "", ints: bool = False) -> type:
    """A Function ``y = f(x; options)`` with ``dy/dx = derivative(m, x; options)``.

    Both formulas are written once against a namespace ``m`` (:mod:`.formula`): the
    forward and a plain backward run them on arrays.  Under ``create_graph=True`` the
    backward must be differentiable.  By default it is ``grad * derivative`` on tensors
    (a ``MulBackward0`` node).  Where PyTorch has a node of its own for the backward
    (``LeakyReluBackwardBackward0`` ...), ``double_name`` names it and ``second`` gives
    ``d²y/dx²`` (``None``: zero, the function is piecewise linear): see :func:`_backward_op`.
    ``kernel`` is PyTorch's kernel name, for the error on a dtype it does not take
    (:func:`check_kernel_dtype`; ``ints``: integers are taken)."""
    double = _backward_op(double_name, derivative, second) if double_name else None

    def fwd(ctx, x: Tensor, inplace: bool = False, **options: Any) -> Tensor:
        if kernel:
            check_kernel_dtype(kernel, x, ints)
        m = array_math(x._backend.xp)
        with np.errstate(all="ignore"):
            out = m.xp.asarray(forward(m, x._data, **options)).astype(x._data.dtype, copy=False)
        # an in-place call overwrites x's memory with the result: keep a copy of the input for backward
        ctx.x, ctx.options = (x._data.copy() if inplace else x._data), options
        ctx.save_for_backward(x)  # for a double backward (an in-place call keeps the old x: _inplace)
        return new_result(in_strides_of(out, x._data), x)

    def bwd(ctx, grad: Tensor) -> Tensor:
        if differentiable_backward():
            (x,) = ctx.saved_tensors
            if double is not None:
                return double.apply(grad, x, **ctx.options)
            return grad * derivative(TensorMath(x), x, **ctx.options)
        m = array_math(grad._backend.xp)
        with np.errstate(all="ignore"):
            d = derivative(m, ctx.x, **ctx.options)
        return new_result((grad._data * d).astype(grad._data.dtype, copy=False), grad)

    return type(backward_name.replace("Backward0", ""), (Function,),
                {"_backward_name": backward_name, "forward": staticmethod(fwd), "backward": staticmethod(bwd),
                 "forward_fn": staticmethod(forward), "derivative_fn": staticmethod(derivative),
                 "__module__": __name__})


def _backward_op(name: str, derivative: Callable[..., Any], second: Any) -> type:
    """The backward ``(grad, x) ↦ grad · f'(x)`` as an operation of its own, named as PyTorch
    names it, so that a gradient taken with ``create_graph=True`` shows PyTorch's node.

    Its own derivatives: with respect to ``grad`` it is linear -- the same operation on the
    incoming ``h`` (so third derivatives work too); with respect to ``x`` it is
    ``h · grad · f''(x)``, or zero for a piecewise-linear ``f`` (``second is None``)."""
    def fwd(ctx, grad: Tensor, x: Tensor, **options: Any) -> Tensor:
        ctx.options = options
        ctx.save_for_backward(grad, x)
        with np.errstate(all="ignore"):
            d = derivative(array_math(x._backend.xp), x._data, **options)
        return new_result((grad._data * d).astype(grad._data.dtype, copy=False), grad)

    def bwd(ctx, h: Tensor) -> tuple:
        grad, x = ctx.saved_tensors
        d_grad = op.apply(h, x, **ctx.options) if ctx.needs_input_grad[0] else None
        if not ctx.needs_input_grad[1]:
            return d_grad, None
        if second is None:  # f' is piecewise constant: no gradient reaches x
            return d_grad, Tensor._zeros(tuple(x.shape), x._dtype, x._device)
        if differentiable_backward():
            return d_grad, h * grad * second(TensorMath(x), x, **ctx.options)
        with np.errstate(all="ignore"):
            d2 = second(array_math(x._backend.xp), x._data, **ctx.options)
        return d_grad, new_result((h._data * grad._data * d2).astype(x._data.dtype, copy=False), x)

    op = type(name.replace("Backward0", ""), (Function,),
              {"_backward_name": name, "forward": staticmethod(fwd), "backward": staticmethod(bwd),
               "__module__": __name__})
    return op


def _sigmoid_slope(m: Any, a: Any) -> Any:
    """σ'(a) = σ(a)·(1 - σ(a))."""
    s = _sigmoid(m, a)
    return s * (1 - s)


LeakyRelu = _activation("LeakyReluBackward0",
                        lambda m, a, slope: m.where(a > 0, a, a * slope),
                        lambda m, a, slope: m.where(a > 0, 1.0, slope),
                        None, "LeakyReluBackwardBackward0", kernel="leaky_relu_cpu")
Elu = _activation("EluBackward0",
                  lambda m, a, alpha, scale, input_scale: m.where(a > 0, a * scale,
                                                                  m.expm1(a * input_scale) * (alpha * scale)),
                  lambda m, a, alpha, scale, input_scale: m.where(
                      a > 0, scale, m.exp(a * input_scale) * (alpha * scale * input_scale)),
                  lambda m, a, alpha, scale, input_scale: m.where(
                      a > 0, 0.0, m.exp(a * input_scale) * (alpha * scale * input_scale * input_scale)),
                  "EluBackwardBackward0", kernel="elu_cpu")
Celu = _activation("CeluBackward0", Elu.forward_fn, Elu.derivative_fn,
                   lambda m, a, alpha, scale, input_scale: m.where(
                       a > 0, 0.0, m.exp(a * input_scale) * (alpha * scale * input_scale * input_scale)),
                   "EluBackwardBackward0", kernel="elu_cpu")  # (PyTorch's celu is an elu: so say its nodes)
Silu = _activation("SiluBackward0",
                   lambda m, a: a * _sigmoid(m, a),
                   lambda m, a: _sigmoid(m, a) * (1 + a * (1 - _sigmoid(m, a))), kernel="silu_cpu")
Mish = _activation("MishBackward0",
                   lambda m, a: a * m.tanh(_softplus(m, a, 1.0, 20.0)),
                   lambda m, a: m.tanh(_softplus(m, a, 1.0, 20.0))
                   + a * _sigmoid(m, a) * (1 - m.tanh(_softplus(m, a, 1.0, 20.0)) ** 2), kernel="mish_cpu")
Softplus = _activation("SoftplusBackward0",
                       lambda m, a, beta, threshold: _softplus(m, a, beta, threshold),
                       lambda m, a, beta, threshold: m.where(a * beta > threshold, 1.0, _sigmoid(m, a * beta)),
                       lambda m, a, beta, threshold: m.where(a * beta > threshold, 0.0,
                                                             _sigmoid_slope(m, a * beta) * beta),
                       "SoftplusBackwardBackward0", kernel="softplus_cpu")
Hardtanh = _activation("HardtanhBackward0",
                       lambda m, a, lo, hi: m.clip(a, lo, hi),
                       lambda m, a, lo, hi: m.mask((a > lo) & (a < hi), a),
                       None, "HardtanhBackwardBackward0")
LogSigmoid = _activation("LogSigmoidBackward0",
                         lambda m, a: m.minimum(a, 0) - m.log1p(m.exp(-m.abs(a))),
                         lambda m, a: 1 - _sigmoid(m, a),
                         lambda m, a: -_sigmoid_slope(m, a),
                         "LogSigmoidBackwardBackward0", kernel="log_sigmoid_cpu")
Hardsigmoid = _activation("HardsigmoidBackward0",
                          lambda m, a: m.clip(a / 6 + 0.5, 0, 1),
                          lambda m, a: m.mask((a > -3) & (a < 3), a) / 6, kernel="hardsigmoid_cpu")
Hardswish = _activation("HardswishBackward0",
                        lambda m, a: a * m.clip(a + 3, 0, 6) / 6,
                        lambda m, a: m.where(a <= -3, 0.0, m.where(a < 3, a / 3 + 0.5, 1.0)),
                        lambda m, a: m.mask((a > -3) & (a < 3), a) / 3,
                        "HardswishBackwardBackward0", kernel="hardswish_cpu")
Threshold = _activation("ThresholdBackward0",
                        lambda m, a, threshold, value: m.where(a > threshold, a, value),
                        lambda m, a, threshold, value: m.mask(a > threshold, a),
                        None, "ThresholdBackwardBackward0", kernel="threshold_cpu", ints=True)

Hardshrink = _activation("HardshrinkBackward0",
                         lambda m, a, lambd: m.where(_inside(a, lambd), 0.0, a),
                         lambda m, a, lambd: m.mask(~_inside(a, lambd), a),
                         None, "HardshrinkBackwardBackward0", kernel="hardshrink_cpu")
Softshrink = _activation("SoftshrinkBackward0",
                         lambda m, a, lambd: m.where(a > lambd, a - lambd, m.where(a < -lambd, a + lambd, 0.0)),
                         lambda m, a, lambd: m.mask(~_inside(a, lambd), a),
                         None, "SoftshrinkBackwardBackward0")  # (softshrink() checks the dtype first: before lambd)


def _inside(a: Any, lambd: float) -> Any:
    """Where ``-λ ≤ a ≤ λ``: the band the shrink functions set to zero (NaN is outside it, as in PyTorch)."""
    return (a >= -lambd) & (a <= lambd)


def _inplace_twin(fn: type, backward_name: str) -> type:
    """``fn`` under the node name PyTorch gives its in-place form.  ``elu_`` saves its *result*
    (the input is gone) and so is another derivative formula in PyTorch, ``EluBackward1``;
    here the input is kept (copied before it is overwritten) and only the name differs."""
    return type(fn.__name__ + "Inplace", (fn,), {"_backward_name": backward_name, "__module__": __name__})


def _run(fn: type, input: Tensor, inplace: bool, **options: Any) -> Tensor:
    """``fn`` out of place, or written into ``input`` (``inplace=True``) with autograd's
    in-place rules (version counter, a new ``grad_fn`` for ``input``)."""
    if not inplace:
        return fn.apply(input, **options)
    twin = _INPLACE_TWINS.get(fn, fn)
    return inplace_op(input, lambda t: twin.apply(t, inplace=True, **options))


# the activations whose in-place node PyTorch names ``...Backward1`` (hardtanh_, relu6_, silu_ ... keep Backward0)
_INPLACE_TWINS = {fn: _inplace_twin(fn, fn._backward_name.replace("Backward0", "Backward1"))
                  for fn in (LeakyRelu, Elu, Celu, Threshold)}


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _run(LeakyRelu, input, inplace, slope=float(negative_slope))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _run(Elu, input, inplace, alpha=float(alpha), scale=1.0, input_scale=1.0)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return _run(Elu, input, inplace, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if alpha == 0:  # (1 / alpha below: PyTorch's message, and its type)
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _run(Celu, input, inplace, alpha=float(alpha), scale=1.0, input_scale=1.0 / alpha)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _run(Silu, input, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _run(Mish, input, inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return Softplus.apply(input, beta=float(beta), threshold=float(threshold))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:  # (F.hardtanh's own check, in Python: F.hardtanh_ has none)
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh(input, min_val, max_val, inplace)


def _hardtanh(input: Tensor, min_val: float, max_val: float, inplace: bool) -> Tensor:
    """The kernel: ``min(max(x, min_val), max_val)``, so ``max_val`` everywhere when the bounds cross."""
    if input._dtype is dtypes.bool:  # (integers are clipped as they are)
        raise RuntimeError("Bool inputs not supported for hardtanh")
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




# ---------------------------------------------------------------------------- shrinkage, GLU, RReLU
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > λ``, else 0: small values are cut to exactly zero."""
    return Hardshrink.apply(input, lambd=float(lambd))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - λ`` above λ, ``x + λ`` below -λ, 0 between: every value moves λ towards zero
    (the proximal step of the L1 penalty)."""
    check_kernel_dtype("softshrink_check", input)
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, {np.finfo(input._dtype._np).max:g}] for input dtype "
                           f"{dtypes.SCALAR_NAMES.get(input._dtype.name, input._dtype.name)}, but found {lambd:g}")
    return Softshrink.apply(input, lambd=float(lambd))


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)`` -- composed, as in PyTorch (its grad_fn is SubBackward0)."""
    return input - input.tanh()


class Glu(Function):
    """``a · σ(b)`` where ``a, b`` are the two halves of ``input`` along ``dim``.

    The backward is written with tensor operations on the saved input, so it can be
    differentiated again: d/da = σ(b), d/db = a·σ(b)·(1 - σ(b))."""

    _backward_name = "GluBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int = -1) -> Tensor:
        xp = x._backend.xp
        half = x.shape[dim] // 2
        first = tuple(slice(0, half) if d == dim else slice(None) for d in range(x.ndim))
        second = tuple(slice(half, None) if d == dim else slice(None) for d in range(x.ndim))
        with np.errstate(all="ignore"):
            out = x._data[first] * array_math(xp).sigmoid(x._data[second])
        ctx.dim = dim
        ctx.save_for_backward(x)
        return new_result(xp.asarray(out).astype(x._data.dtype, copy=False), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        a, b = x.chunk(2, ctx.dim)
        gate = b.sigmoid()
        return TensorMath.concat([grad * gate, grad * a * gate * (1 - gate)], ctx.dim)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: split ``input`` in two halves along ``dim``, return ``a · σ(b)``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.dim()} is size {size}")
    check_kernel_dtype("glu_cpu", input)
    return Glu.apply(input, dim=dim % input.dim())


class RreluWithNoise(Function):
    """``x`` where ``x > 0``, else ``r · x``.  In training each non-positive element gets its
    own slope ``r ~ U(lower, upper)``; in evaluation ``r`` is the mean slope ``(lower+upper)/2``.

    The slopes (PyTorch's ``noise``) are drawn from the CPU generator one double per
    non-positive element, in order, as PyTorch's CPU kernel draws them.  The derivative is
    the slope itself, a constant, so the backward ``grad · noise`` can be differentiated again."""

    _backward_name = "RreluWithNoiseBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, inplace: bool = False, lower: float = 1 / 8, upper: float = 1 / 3,
                training: bool = False) -> Tensor:
        data = x._data
        xp = x._backend.xp
        negative = data <= 0
        noise = xp.ones_like(data)
        if training:
            count = int(xp.sum(negative))
            slopes = default_generator.uniform((count,), np.float64, lower, upper).astype(data.dtype)
            noise[negative] = x._backend.asarray(slopes) if xp is not np else slopes
        else:
            noise = xp.where(data > 0, noise, xp.asarray((lower + upper) / 2, dtype=data.dtype))
        ctx.noise = noise
        return new_result((data * noise).astype(data.dtype, copy=False), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return grad * Tensor._make(ctx.noise, grad._device)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: random negative slopes in training (a regulariser), their mean in eval."""
    if not lower <= upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    check_kernel_dtype("leaky_relu_cpu", input)
    return _run(RreluWithNoise, input, inplace, lower=float(lower), upper=float(upper), training=bool(training))


_INPLACE_TWINS[RreluWithNoise] = _inplace_twin(RreluWithNoise, "RreluWithNoiseBackward1")


# ---------------------------------------------------------------------------- F.elu_ & co
# The in-place functional forms: the ``inplace=True`` call under its own name, as PyTorch
# exports them (``F.elu_(x)`` is ``F.elu(x, inplace=True)``; both return ``x`` itself).
def elu_(input: Tensor, alpha: Number = 1.0, scale: Number = 1.0, input_scale: Number = 1.0) -> Tensor:
    """``F.elu_`` is the native ``elu_``, with its ``scale`` and ``input_scale`` (the ``selu`` constants)."""
    return _run(Elu, input, True, alpha=float(alpha), scale=float(scale), input_scale=float(input_scale))


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input: Tensor, min_val: Number = -1.0, max_val: Number = 1.0) -> Tensor:
    """The native ``hardtanh_``: without ``F.hardtanh``'s check that ``min_val <= max_val``."""
    return _hardtanh(input, min_val, max_val, True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _run(Threshold, input, True, threshold=float(threshold), value=float(value))
