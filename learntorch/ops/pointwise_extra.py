"""More element-wise functions: the rest of PyTorch's pointwise family, and in-place forms.

``ops/pointwise.py`` holds the operations a course builds first (``+``, ``exp``, ``relu`` …);
this module adds the ones a PyTorch program may still call: special functions (``lgamma``,
``digamma``, ``erfinv`` …, whose array kernels are in ``ops/special.py``), binary functions
(``logaddexp``, ``xlogy``, ``copysign``, ``fmax`` …), predicates (``signbit``, ``isposinf``),
``addcmul``/``addcdiv``/``addr``, torch's aliases (``arccosh``, ``absolute``, ``fix`` …) and the
in-place form ``x.f_()`` of every function here and in ``pointwise.py`` that PyTorch has.

Same conventions as ``pointwise.py``: a differentiable operation is a ``Function`` whose
``backward`` is written with tensor operations (so ``create_graph=True`` works) and whose node
has PyTorch's name (``LgammaBackward0``); integer and bool inputs of a float function compute in
the default float dtype; every in-place form goes through :func:`ops.inplace.inplace` (leaf
check, version counter, the result's node becomes the tensor's ``grad_fn``).

:data:`METHODS` is this module's section of the Tensor method table (``_tensor_methods.py``).
"""
from __future__ import annotations

import inspect
import math
from typing import Any, Callable, Optional

import numpy as np

from .. import dtypes
from ..autograd.function import Function
from ..tensor import Tensor
from . import arrange, matmul, pointwise, reduction, statistics
from .common import binary_operands, infer_size, new_result, return_type
from .inplace import inplace
from .pointwise import _grad_for, _meta, _nondiff
from .special import (bessel_i_array, digamma_array, erfc_array, erfinv_array, lgamma_array, polygamma_array)
from ..tensor_arguments import CHECKED_FIRST

__all__ = ["logaddexp", "logaddexp2", "logit", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "i0", "sinc",
           "xlogy", "copysign", "nextafter", "heaviside", "fmax", "fmin", "gcd", "lcm", "deg2rad", "rad2deg",
           "float_power", "frexp", "ldexp", "sgn", "signbit", "isposinf", "isneginf", "positive", "acosh",
           "asinh", "atanh", "arccosh", "arcsinh", "arctanh", "arctan2", "absolute", "fix", "addcmul", "addcdiv",
           "addr", "METHODS"]


def _float_dtype(dt: dtypes.dtype) -> dtypes.dtype:
    """A float function of an integer or bool tensor gives the default float dtype (as in PyTorch)."""
    return dt if dt.is_floating_point else dtypes.get_default_dtype()


def _as(x: Tensor, data: Any, dt: dtypes.dtype) -> Any:
    """``data`` (an array of ``x``'s backend) in dtype ``dt``."""
    return data if data.dtype == x._backend.dtype(dt) else x._backend.xp.astype(data, x._backend.dtype(dt))


def _need_tensor(fn: str, value: Any, arg: str = "other", position: int = 2) -> None:
    """PyTorch's TypeError for a function whose argument must be a tensor (``fmax(x, 2)``)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _not_for(fn: str, dt: dtypes.dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{fn}_cpu\" not implemented for '{dtypes.type_name(dt)}'")


# ----------------------------------------------------------------------------- unary float functions
class _FloatUnary(Function):
    """``y = f(x)`` for a float function: ``kernel(xp, a, *params)`` on the array (in the result's
    dtype; the special functions compute in float64 and are rounded here, once), and
    ``backward: grad * derivative(x, *params)`` with tensor operations.  Subclasses set
    ``_backward_name``, ``kernel`` and ``derivative``."""

    kernel: Callable = staticmethod(lambda xp, a: a)
    derivative: Callable = staticmethod(lambda x: x)

    @classmethod
    def forward(cls, ctx, x: Tensor, *params: Any) -> Tensor:
        dt = _float_dtype(x._dtype)
        with np.errstate(all="ignore"):  # poles and domain errors give inf/nan silently, as in PyTorch
            out = cls.kernel(x._backend.xp, _as(x, x._data, dt), *params)
        ctx.save_for_backward(x)
        ctx.params = params
        return new_result(_as(x, out, dt), x)

    @classmethod
    def backward(cls, ctx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        return (grad * cls.derivative(x, *ctx.params),) + (None,) * len(ctx.params)


def _float_unary(name: str, backward_name: str, kernel: Callable, derivative: Callable) -> type:
    # (forward/backward are classmethods: Function.apply calls them on the class, as staticmethods)
    return type(name, (_FloatUnary,), {"_backward_name": backward_name, "kernel": staticmethod(kernel),
                                       "derivative": staticmethod(derivative), "__module__": __name__})


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_LN2 = math.log(2.0)

# d erfc = -2/√π·e^(-x²); d erfinv = √π/2·e^(erfinv(x)²); d lgamma = ψ; d ψ = ψ⁽¹⁾; d ψ⁽ⁿ⁾ = ψ⁽ⁿ⁺¹⁾
Erfc = _float_unary("Erfc", "ErfcBackward0", erfc_array, lambda x: (-x * x).exp() * -_TWO_OVER_SQRT_PI)
Erfinv = _float_unary("Erfinv", "ErfinvBackward0", erfinv_array,
                      lambda x: erfinv(x).square().exp() * (math.sqrt(math.pi) / 2))
Lgamma = _float_unary("Lgamma", "LgammaBackward0", lgamma_array, lambda x: digamma(x))
Digamma = _float_unary("Digamma", "DigammaBackward0", digamma_array, lambda x: polygamma(1, x))
Polygamma = _float_unary("Polygamma", "PolygammaBackward0", lambda xp, a, n: polygamma_array(xp, n, a),
                         lambda x, n: polygamma(n + 1, x))


def _i1_derivative(x: Tensor) -> Tensor:
    """I₁' = I₀ - I₁/x, with its limit ½ at x = 0 (there x is replaced by 1 first: no 0/0 in the graph)."""
    zero = x == 0
    safe = pointwise.where(zero, 1.0, x)
    return pointwise.where(zero, 0.5, i0(x) - _i1(safe) / safe)


_I1 = _float_unary("I1", "SpecialI1Backward0", lambda xp, a: bessel_i_array(xp, a, 1), _i1_derivative)
I0 = _float_unary("I0", "I0Backward0", lambda xp, a: bessel_i_array(xp, a, 0), lambda x: _i1(x))


def _sinc_kernel(xp: Any, a: Any) -> Any:
    px = a * math.pi
    return xp.where(a == 0, xp.ones_like(a), xp.sin(px) / px)


def _sinc_derivative(x: Tensor) -> Tensor:
    """(πx·cos(πx) - sin(πx)) / (πx²), and 0 at x = 0 (PyTorch's formula)."""
    px = x * math.pi
    d = (px * pointwise.cos(px) - pointwise.sin(px)) / (px * x)
    return pointwise.where(x == 0, 0.0, d)


Sinc = _float_unary("Sinc", "SincBackward0", _sinc_kernel, _sinc_derivative)
Deg2Rad = _float_unary("Deg2Rad", "Deg2RadBackward0", lambda xp, a: a * (math.pi / 180), lambda x: math.pi / 180)
Rad2Deg = _float_unary("Rad2Deg", "Rad2DegBackward0", lambda xp, a: a * (180 / math.pi), lambda x: 180 / math.pi)
Acosh = _float_unary("Acosh", "AcoshBackward0", lambda xp, a: xp.acosh(a), lambda x: (x * x - 1).rsqrt())
Asinh = _float_unary("Asinh", "AsinhBackward0", lambda xp, a: xp.asinh(a), lambda x: (x * x + 1).rsqrt())
Atanh = _float_unary("Atanh", "AtanhBackward0", lambda xp, a: xp.atanh(a), lambda x: 1 / (1 - x * x))


def _logit_kernel(xp: Any, a: Any, eps: Optional[float]) -> Any:
    if eps is not None:
        a = xp.clip(a, eps, 1.0 - eps)
    return xp.log(a / (1.0 - a))


def _logit_derivative(x: Tensor, eps: Optional[float]) -> Tensor:
    """1 / (x(1-x)); with ``eps``, 0 where x was clamped (PyTorch's ``logit_backward``)."""
    d = 1 / (x * (1 - x))
    if eps is None:
        return d
    return pointwise.where((x < eps) | (x > 1 - eps), 0.0, d)


Logit = _float_unary("Logit", "LogitBackward0", _logit_kernel, _logit_derivative)


def erfc(input: Tensor) -> Tensor:
    """The complementary error function ``1 - erf(x)``, accurate where it is tiny (``erfc(5)``)."""
    return Erfc.apply(input)


def erfinv(input: Tensor) -> Tensor:
    """The inverse error function: ``erf(erfinv(y)) = y`` on (-1, 1); ±inf at ±1, NaN outside."""
    return Erfinv.apply(input)


def lgamma(input: Tensor) -> Tensor:
    """``log|Γ(x)|``, without overflow (Γ(200) overflows float64; its log is 857.9)."""
    return Lgamma.apply(input)


def digamma(input: Tensor) -> Tensor:
    """ψ(x) = d/dx lgamma(x) (also ``torch.special.psi``)."""
    return Digamma.apply(input)


def polygamma(n: int, input: Tensor) -> Tensor:
    """ψ⁽ⁿ⁾(x), the n-th derivative of the digamma function (n = 0 is digamma itself)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return Polygamma.apply(input, n)


def i0(input: Tensor) -> Tensor:
    """I₀, the modified Bessel function of the first kind of order 0 (the Kaiser window's)."""
    return I0.apply(input)


def _i1(input: Tensor) -> Tensor:
    """I₁ = I₀', for i0's backward (``torch.special.i1``)."""
    return _I1.apply(input)


def sinc(input: Tensor) -> Tensor:
    """The normalized sinc ``sin(πx)/(πx)``, 1 at x = 0."""
    return Sinc.apply(input)


def deg2rad(input: Tensor) -> Tensor:
    return Deg2Rad.apply(input)


def rad2deg(input: Tensor) -> Tensor:
    return Rad2Deg.apply(input)


def acosh(input: Tensor) -> Tensor:
    """The inverse hyperbolic cosine (NaN below 1)."""
    return Acosh.apply(input)


def asinh(input: Tensor) -> Tensor:
    return Asinh.apply(input)


def atanh(input: Tensor) -> Tensor:
    """The inverse hyperbolic tangent (±inf at ±1, NaN outside [-1, 1])."""
    return Atanh.apply(input)


def logit(input: Tensor, eps: Optional[float] = None) -> Tensor:
    """``log(p / (1 - p))``, the inverse of sigmoid; with ``eps``, p is first clamped to
    ``[eps, 1 - eps]`` so that 0 and 1 give finite values."""
    return Logit.apply(input, eps)


# ----------------------------------------------------------------------------- sign and class predicates
_Sgn = pointwise._step("SgnBackward0")


def sgn(input: Tensor) -> Tensor:
    """``sign`` extended to complex numbers (x/|x|); on real tensors it is ``sign``, a bool
    tensor staying bool.  Its own node name, ``SgnBackward0``."""
    if input._dtype is dtypes.bool:
        return _nondiff(input, input._backend.xp.asarray(input._data, copy=True))
    return _Sgn.apply(input, lambda xp, a: xp.where(a != a, xp.zeros_like(a), xp.sign(a)))  # sgn(NaN) is 0 in PyTorch


def signbit(input: Tensor) -> Tensor:
    """True where the sign bit is set: negative numbers *and* -0.0 (``x < 0`` misses -0.0)."""
    xp = input._backend.xp
    return _nondiff(input, xp.signbit(input._data) if input._dtype.is_floating_point else input._data < 0)


def isposinf(input: Tensor) -> Tensor:
    return _nondiff(input, input._data == np.inf if input._dtype.is_floating_point
                    else input._backend.xp.zeros(input._data.shape, dtype=bool))


def isneginf(input: Tensor) -> Tensor:
    return _nondiff(input, input._data == -np.inf if input._dtype.is_floating_point
                    else input._backend.xp.zeros(input._data.shape, dtype=bool))


def positive(input: Tensor) -> Tensor:
    """``+x``: the tensor itself (not a copy), as in PyTorch."""
    if input._dtype is dtypes.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


frexp_result = return_type("frexp", ("mantissa", "exponent"))


class Frexp(Function):
    """The mantissa of ``x = mantissa·2^exponent`` (|mantissa| in [0.5, 1)); its derivative is
    ``1 / 2^exponent``.  The integer exponent is a second, non-differentiable result."""

    _backward_name = "FrexpBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        mantissa, exponent = x._backend.xp.frexp(x._data)
        ctx.exponent = exponent
        return new_result(mantissa, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return grad / new_result(grad._backend.xp.ldexp(grad._backend.xp.ones_like(grad._data), ctx.exponent), grad)


def frexp(input: Tensor) -> Any:
    """Split floats into mantissa and int32 exponent: ``x = mantissa · 2**exponent``."""
    if not input._dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa = Frexp.apply(input)
    exponent = input._backend.xp.frexp(input._data)[1]
    return frexp_result(mantissa, _nondiff(input, exponent, dtypes.int32))


# ----------------------------------------------------------------------------- binary float functions
class _Binary(Function):
    """A binary operation of two tensors (or a tensor and a Python number): the operands in the
    promoted dtype (floats for the float functions), ``kernel(xp, a, b)``, and
    ``grads(ctx, grad, a, b, out)`` -> the gradients with tensor operations."""

    float_only = True  # integer operands compute in the default float dtype

    @classmethod
    def forward(cls, ctx, a: Any, b: Any) -> Tensor:
        like = a if isinstance(a, Tensor) else b
        if like is a:
            xa, xb, dt = binary_operands(a, b)
        else:  # a number first (``xlogy(2., y)``): promote as for ``y``, then put the operands back in order
            xb, xa, dt = binary_operands(b, a)
        if cls.float_only and not dt.is_floating_point:
            dt = dtypes.get_default_dtype()
            xa, xb = (_as(like, x, dt) if not isinstance(x, (int, float)) else float(x) for x in (xa, xb))
        with np.errstate(all="ignore"):  # (a kernel may meet a Python number as float64: rounded back to dt)
            out = new_result(_as(like, like._backend.xp.asarray(cls.kernel(like._backend.xp, xa, xb)), dt), like)
        ctx.metas = (_meta(a), _meta(b))
        ctx.numbers = (None if isinstance(a, Tensor) else a, None if isinstance(b, Tensor) else b)
        ctx.save_for_backward(a if isinstance(a, Tensor) else None, b if isinstance(b, Tensor) else None, out)
        return out

    @classmethod
    def backward(cls, ctx, grad: Tensor) -> tuple:
        a, b, out = ctx.saved_tensors
        a = ctx.numbers[0] if a is None else a
        b = ctx.numbers[1] if b is None else b
        ga, gb = cls.grads(ctx, grad, a, b, out)
        ma, mb = ctx.metas
        return (_grad_for(ga, ma) if ga is not None and ctx.needs_input_grad[0] else None,
                _grad_for(gb, mb) if gb is not None and ctx.needs_input_grad[1] else None)


def _logaddexp_kernel(xp: Any, a: Any, b: Any) -> Any:
    """``max + log1p(exp(-|a - b|))``: no overflow of exp; equal infinities give themselves."""
    m = xp.maximum(a, b)
    out = m + xp.log1p(xp.exp(-xp.abs(a - b)))
    return xp.where(xp.isinf(a) & (a == b), a, out)


def _logaddexp2_kernel(xp: Any, a: Any, b: Any) -> Any:
    m = xp.maximum(a, b)
    out = m + xp.log1p(2.0 ** (-xp.abs(a - b))) / _LN2
    return xp.where(xp.isinf(a) & (a == b), a, out)


class Logaddexp(_Binary):
    """``log(e^a + e^b)``; ∂/∂a = 1 / (1 + e^(b-a)), a softmax weight."""
    _backward_name = "LogaddexpBackward0"
    kernel = staticmethod(_logaddexp_kernel)

    @staticmethod
    def grads(ctx, grad: Tensor, a: Tensor, b: Tensor, out: Tensor) -> tuple:
        return grad / (1 + (b - a).exp()), grad / (1 + (a - b).exp())


class Logaddexp2(_Binary):
    """``log2(2^a + 2^b)``; ∂/∂a = 1 / (1 + 2^(b-a))."""
    _backward_name = "Logaddexp2Backward0"
    kernel = staticmethod(_logaddexp2_kernel)

    @staticmethod
    def grads(ctx, grad: Tensor, a: Tensor, b: Tensor, out: Tensor) -> tuple:
        return grad / (1 + (b - a).exp2()), grad / (1 + (a - b).exp2())


def _float_pair(fn: str, input: Tensor, other: Any) -> None:
    """The checks of logaddexp & co: two tensors, of a floating result dtype."""
    _need_tensor(fn, input, "input", 1)
    _need_tensor(fn, other)
    dt = dtypes.result_type(input, other)
    if not dt.is_floating_point:
        raise _not_for(fn, dt)


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """``log(exp(input) + exp(other))`` without overflow: adding probabilities stored as logs."""
    _float_pair("logaddexp", input, other)
    return Logaddexp.apply(input, other)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2**input + 2**other)`` without overflow."""
    _float_pair("logaddexp2", input, other)
    return Logaddexp2.apply(input, other)


def _xlogy_kernel(xp: Any, a: Any, b: Any) -> Any:
    """``a·log(b)``, defined as 0 where a = 0 (so 0·log 0 = 0, entropy's convention), unless b is NaN."""
    out = a * xp.log(b)
    return xp.where((a == 0) & ~xp.isnan(b), 0, out)


def _x_times_log_grads(log_of: Callable[[Any, Any], Tensor], pole: float) -> Callable:
    """The gradients of ``a·log(b - pole)`` (``xlogy``: pole 0; ``xlog1py``: pole -1), whose
    forward is ``log_of(a, b)``: ∂/∂a = ``log_of(grad, b)``, but 0 where a = 0 and b ≤ pole
    (PyTorch's choice, matching the forward's 0 there); ∂/∂b = a / (b - pole)."""
    def grads(ctx: Any, grad: Tensor, a: Any, b: Any, out: Tensor) -> tuple:
        ga = gb = None
        if isinstance(a, Tensor):
            ga = log_of(grad, b)
            if isinstance(b, Tensor):
                ga = pointwise.where((a == 0) & (b <= pole), 0.0, ga)
            elif b <= pole:
                ga = pointwise.where(a == 0, 0.0, ga)
        if isinstance(b, Tensor):
            gb = grad * a / (b if pole == 0 else b - pole)
        return ga, gb
    return grads


class Xlogy(_Binary):
    _backward_name = "XlogyBackward0"
    kernel = staticmethod(_xlogy_kernel)
    grads = staticmethod(_x_times_log_grads(lambda a, b: xlogy(a, b), 0))


class XlogyScalarSelf(Xlogy):
    """``xlogy(number, tensor)``."""
    _backward_name = "XlogyBackward1"


class XlogyScalarOther(Xlogy):
    """``xlogy(tensor, number)``."""
    _backward_name = "XlogyBackward2"


def xlogy(input: Any, other: Any) -> Tensor:
    """``input * log(other)``, but 0 where ``input`` is 0 (``0 · log 0 = 0``): cross-entropy terms."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlogy() received an invalid combination of arguments: neither is a Tensor")
    cls = Xlogy if isinstance(input, Tensor) and isinstance(other, Tensor) else \
        XlogyScalarOther if isinstance(input, Tensor) else XlogyScalarSelf
    return cls.apply(input, other)


def _xlog1py_kernel(xp: Any, a: Any, b: Any) -> Any:
    """``a·log(1 + b)``, 0 where a = 0 (unless b is NaN), as :func:`_xlogy_kernel`."""
    out = a * xp.log1p(b)
    return xp.where((a == 0) & ~xp.isnan(b), 0, out)


class Xlog1py(_Binary):
    _backward_name = "SpecialXlog1PyBackward0"
    kernel = staticmethod(_xlog1py_kernel)
    grads = staticmethod(_x_times_log_grads(lambda a, b: xlog1py(a, b), -1))


class Xlog1pyScalarSelf(Xlog1py):
    _backward_name = "SpecialXlog1PyBackward1"


class Xlog1pyScalarOther(Xlog1py):
    _backward_name = "SpecialXlog1PyBackward2"


def xlog1py(input: Any, other: Any) -> Tensor:
    """``input * log1p(other)``, 0 where ``input`` is 0 (``torch.special.xlog1py``): the
    ``xlogy`` of ``1 + other``, accurate for small ``other``."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("special_xlog1py() received an invalid combination of arguments: neither is a Tensor")
    cls = Xlog1py if isinstance(input, Tensor) and isinstance(other, Tensor) else \
        Xlog1pyScalarOther if isinstance(input, Tensor) else Xlog1pyScalarSelf
    return cls.apply(input, other)


class Copysign(_Binary):
    """``|a|`` with the sign of ``b`` (-0.0 counts as negative).  ∂/∂a = ±1 (0 at a = 0);
    ∂/∂b = 0 (a tensor of zeros, as in PyTorch)."""
    _backward_name = "CopysignBackward0"
    kernel = staticmethod(lambda xp, a, b: xp.copysign(a, b))

    @staticmethod
    def grads(ctx, grad: Tensor, a: Tensor, b: Any, out: Tensor) -> tuple:
        zero = a == 0
        ratio = pointwise.where(zero, 0.0, out / pointwise.where(zero, 1.0, a))
        return grad * ratio, (Tensor._zeros(grad.shape, grad._dtype, grad._device) if isinstance(b, Tensor) else None)


class CopysignScalar(Copysign):
    _backward_name = "CopysignBackward1"


def copysign(input: Tensor, other: Any) -> Tensor:
    """The magnitude of ``input`` with the sign of ``other`` (a tensor or a number); always a float."""
    if not isinstance(input, Tensor):
        raise TypeError(f"copysign() received an invalid combination of arguments - got ({type(input).__name__}, "
                        f"{type(other).__name__}), but expected (Tensor input, Tensor other) or (Tensor input, "
                        "Number other)")
    return (Copysign if isinstance(other, Tensor) else CopysignScalar).apply(input, other)


class Ldexp(_Binary):
    """``a · 2^b``; ∂/∂a = 2^b, ∂/∂b = a·2^b·ln 2."""
    _backward_name = "LdexpBackward0"
    kernel = staticmethod(lambda xp, a, b: a * 2.0 ** b)

    @staticmethod
    def grads(ctx, grad: Tensor, a: Tensor, b: Tensor, out: Tensor) -> tuple:
        scale = pointwise.exp2(b.to(grad.dtype) if not b.dtype.is_floating_point else b)
        return grad * scale, grad * a * scale * _LN2


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2**other``: build floats from mantissa and exponent (undoes ``frexp``)."""
    _need_tensor("ldexp", input, "input", 1)
    _need_tensor("ldexp", other)
    return Ldexp.apply(input, other)


class Nextafter(_Binary):
    """One ulp step from ``a`` towards ``b``: PyTorch treats it as the identity in ``a`` (∂/∂a = 1)
    and constant in ``b`` (∂/∂b = 0)."""
    _backward_name = "NextafterBackward0"
    kernel = staticmethod(lambda xp, a, b: xp.nextafter(a, b))

    @staticmethod
    def grads(ctx, grad: Tensor, a: Tensor, b: Tensor, out: Tensor) -> tuple:
        return grad, Tensor._zeros(grad.shape, grad._dtype, grad._device)


class Heaviside(_Binary):
    """The step function; PyTorch records it but has no derivative for it: backward raises."""
    _backward_name = "torch::autograd::NotImplemented"
    float_only = False
    kernel = staticmethod(lambda xp, a, b: xp.where(a == 0, b, xp.astype(a > 0, a.dtype)))

    @staticmethod
    def grads(ctx, grad: Tensor, a: Any, b: Any, out: Tensor) -> tuple:
        raise RuntimeError("derivative for aten::heaviside is not implemented")


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next float after ``input`` in the direction of ``other`` (one ulp step)."""
    _float_pair("nextafter", input, other)
    return Nextafter.apply(input, other)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The step function: 0 for x < 0, 1 for x > 0, ``values`` where x == 0."""
    _need_tensor("heaviside", input, "input", 1)
    _need_tensor("heaviside", values, "values")
    if input._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return Heaviside.apply(input, values)


class Fmax(_Binary):
    """``maximum`` that ignores NaN (NaN only where both are).  The whole gradient goes to the
    input chosen, ``a`` on ties (``maximum`` splits ties in half)."""
    _backward_name = "FmaxBackward0"
    float_only = False
    kernel = staticmethod(lambda xp, a, b: xp.fmax(a, b))
    pick_a = staticmethod(lambda a, b: (a >= b) | b.isnan())

    @classmethod
    def grads(cls, ctx, grad: Tensor, a: Tensor, b: Tensor, out: Tensor) -> tuple:
        takes_a = cls.pick_a(a, b)
        return pointwise.where(takes_a, grad, 0.0), pointwise.where(takes_a, 0.0, grad)


class Fmin(Fmax):
    _backward_name = "FminBackward0"
    kernel = staticmethod(lambda xp, a, b: xp.fmin(a, b))
    pick_a = staticmethod(lambda a, b: (a <= b) | b.isnan())


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """Element-wise maximum where a NaN loses to a number (``maximum`` propagates NaN)."""
    _need_tensor("fmax", input, "input", 1)
    _need_tensor("fmax", other)
    return Fmax.apply(input, other)


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """Element-wise minimum where a NaN loses to a number."""
    _need_tensor("fmin", input, "input", 1)
    _need_tensor("fmin", other)
    return Fmin.apply(input, other)


def _integer_pair(fn: str, input: Tensor, other: Tensor) -> Tensor:
    _need_tensor(fn, input, "input", 1)
    _need_tensor(fn, other)
    xa, xb, dt = binary_operands(input, other)
    if dt.is_floating_point or dt is dtypes.bool:
        raise _not_for(fn, dt)
    return _nondiff(input, getattr(input._backend.xp, fn)(xa, xb), dt)


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """Greatest common divisor of integers (never negative; gcd(0, 0) = 0)."""
    return _integer_pair("gcd", input, other)


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """Least common multiple of integers (never negative; 0 if either is 0)."""
    return _integer_pair("lcm", input, other)


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` computed in float64 whatever the inputs (PyTorch's float_power):
    precision over speed.  The casts are ordinary ``.double()`` copies, in the graph."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power() received an invalid combination of arguments: neither is a Tensor")
    wide = [x.double() if isinstance(x, Tensor) else float(x) for x in (input, exponent)]
    return pointwise.pow(*wide)


def _float_power_(self: Tensor, exponent: Any) -> Tensor:
    if self._dtype is not dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {dtypes.type_name(self._dtype)} but the "
                           "operation's result requires dtype Double")
    return inplace(self, float_power, exponent)


# ----------------------------------------------------------------------------- addcmul, addcdiv, addr
def _addc_forward(ctx, input: Tensor, t1: Tensor, t2: Tensor, value: Any, divide: bool) -> Tensor:
    for t in (t1, t2):
        _need_tensor("addcdiv" if divide else "addcmul", t, "tensor1", 2)
    shape = infer_size(infer_size(input._data.shape, t1._data.shape), t2._data.shape)
    dt = dtypes.result_type(input, t1, t2)
    if divide and not t1._dtype.is_floating_point and not t2._dtype.is_floating_point:
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
                           "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
                           "tensor2), for all dtypes.")
    a, b, c = (_as(t, t._data, dt) for t in (input, t1, t2))
    with np.errstate(all="ignore"):
        out = a + value * (b / c if divide else b * c)
    ctx.metas, ctx.value = (_meta(input), _meta(t1), _meta(t2)), value
    ctx.save_for_backward(t1, t2)
    xp = input._backend.xp
    return new_result(_as(input, xp.broadcast_to(out, shape) if out.shape != shape else out, dt), input)


class Addcmul(Function):
    """``input + value · t1 · t2`` in one step (Adam's ``v.addcmul_(g, g, value=1 - β₂)``)."""
    _backward_name = "AddcmulBackward0"

    @staticmethod
    def forward(ctx, input: Tensor, t1: Tensor, t2: Tensor, value: Any = 1) -> Tensor:
        return _addc_forward(ctx, input, t1, t2, value, divide=False)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        t1, t2 = ctx.saved_tensors
        m0, m1, m2 = ctx.metas
        need = ctx.needs_input_grad
        return (_grad_for(grad, m0) if need[0] else None,
                _grad_for(grad * t2 * ctx.value, m1) if need[1] else None,
                _grad_for(grad * t1 * ctx.value, m2) if need[2] else None, None)


class Addcdiv(Function):
    """``input + value · t1 / t2`` in one step (Adam's ``p.addcdiv_(m, v.sqrt() + eps, value=-lr)``)."""
    _backward_name = "AddcdivBackward0"

    @staticmethod
    def forward(ctx, input: Tensor, t1: Tensor, t2: Tensor, value: Any = 1) -> Tensor:
        return _addc_forward(ctx, input, t1, t2, value, divide=True)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        t1, t2 = ctx.saved_tensors
        m0, m1, m2 = ctx.metas
        need = ctx.needs_input_grad
        return (_grad_for(grad, m0) if need[0] else None,
                _grad_for(grad * ctx.value / t2, m1) if need[1] else None,
                _grad_for(-grad * ctx.value * t1 / (t2 * t2), m2) if need[2] else None, None)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    return Addcmul.apply(input, tensor1, tensor2, value=value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    return Addcdiv.apply(input, tensor1, tensor2, value=value)


class Addr(Function):
    """``beta · input + alpha · outer(vec1, vec2)``; the gradient of vec1 is ``alpha · grad @ vec2``."""
    _backward_name = "AddrBackward0"

    @staticmethod
    def forward(ctx, input: Tensor, vec1: Tensor, vec2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
        for name, v in (("vec1", vec1), ("vec2", vec2)):
            if v.ndim != 1:
                raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
        shape = (vec1.shape[0], vec2.shape[0])
        infer_size(input._data.shape, shape)
        dt = dtypes.result_type(input, vec1, vec2)
        xp = input._backend.xp
        a, v1, v2 = (_as(t, t._data, dt) for t in (input, vec1, vec2))
        prod = v1[:, None] * v2[None, :]
        out = alpha * prod if beta == 0 else beta * a + alpha * prod  # beta = 0: input is ignored (NaN too)
        ctx.metas, ctx.scale = (_meta(input),), (beta, alpha)
        ctx.save_for_backward(vec1, vec2)
        return new_result(_as(input, xp.asarray(xp.broadcast_to(out, shape), copy=True), dt), input)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        v1, v2 = ctx.saved_tensors
        beta, alpha = ctx.scale
        need = ctx.needs_input_grad
        return (_grad_for(grad * beta, ctx.metas[0]) if need[0] else None,
                matmul.mv(grad, v2) * alpha if need[1] else None,
                matmul.mv(grad.t(), v1) * alpha if need[2] else None, None, None)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``: add a rank-one matrix."""
    return Addr.apply(input, vec1, vec2, beta=beta, alpha=alpha)


# ----------------------------------------------------------------------------- aliases (PyTorch's other names)
absolute = pointwise.abs
arccosh, arcsinh, arctanh = acosh, asinh, atanh
arctan2 = pointwise.atan2
fix = pointwise.trunc


# ----------------------------------------------------------------------------- the method table's section
# PyTorch names a few in-place nodes apart from the out-of-place ones (asinh_ records AsinhBackward1;
# PyTorch 2.13 cannot differentiate that node, learntorch can: the formula is asinh's)
_INPLACE_NODE_NAMES = {"AsinhBackward0": "AsinhBackward1", "AtanhBackward0": "AtanhBackward1",
                       "PolygammaBackward0": "PolygammaBackward1"}
# Composite functions whose backward reads the input tensor itself rather than a saved copy: in place,
# they are given a copy of the tensor (``cumprod``'s backward divides by its input).
_READS_INPUT_IN_BACKWARD = {"cumprod"}


def _in_place(fn: Callable, name: str) -> Callable:
    """``x.f_(...)``: ``f`` computed out of place, then written into ``x`` by the in-place rule."""
    compute = (lambda self, *a, **k: fn(self.clone(), *a, **k)) if name in _READS_INPUT_IN_BACKWARD else fn

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        out = inplace(self, compute, *args, **kwargs)
        node = out.grad_fn
        if node is not None and getattr(node, "_name", None) in _INPLACE_NODE_NAMES:
            node._name = _INPLACE_NODE_NAMES[node._name]
        return out
    method.__name__ = name + "_"
    method.__doc__ = f"In-place ``{name}``: the result is written into this tensor (see ops/inplace.py)."
    if name in CHECKED_FIRST:  # (``x.tril_(2.5)`` is checked as ``x.tril(2.5)``: tensor_arguments reads this)
        method.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return method


def _compare(op: str) -> Callable:
    def fn(input: Tensor, other: Any) -> Tensor:
        return pointwise.compare(op, input, other)
    fn.__name__ = op
    return fn


# Functions whose method form takes the tensor first (``x.lgamma()``, ``x.xlogy(y)``).
_FUNCTIONS = dict(
    logaddexp=logaddexp, logaddexp2=logaddexp2, logit=logit, erfc=erfc, erfinv=erfinv, lgamma=lgamma,
    digamma=digamma, i0=i0, sinc=sinc, xlogy=xlogy, copysign=copysign, nextafter=nextafter,
    heaviside=heaviside, fmax=fmax, fmin=fmin, gcd=gcd, lcm=lcm, deg2rad=deg2rad, rad2deg=rad2deg,
    float_power=float_power, frexp=frexp, ldexp=ldexp, sgn=sgn, signbit=signbit, isposinf=isposinf,
    isneginf=isneginf, positive=positive, acosh=acosh, asinh=asinh, atanh=atanh, arccosh=acosh,
    arcsinh=asinh, arctanh=atanh, arccos=pointwise.acos, arcsin=pointwise.asin, arctan=pointwise.atan,
    arctan2=pointwise.atan2, absolute=pointwise.abs, fix=pointwise.trunc, addcmul=addcmul, addcdiv=addcdiv,
    addr=addr, addmm=matmul.addmm,
    greater=_compare("gt"), greater_equal=_compare("ge"), less=_compare("lt"), less_equal=_compare("le"),
    not_equal=_compare("ne"),
    polygamma=lambda self, n: polygamma(n, self),  # (torch.polygamma(n, x), but x.polygamma(n))
)

# In-place forms: the function each one applies.
_IN_PLACE_OF = dict(
    **{n: f for n, f in _FUNCTIONS.items() if n not in (
        "frexp", "positive", "signbit", "isposinf", "isneginf", "float_power", "fmax", "fmin", "logaddexp",
        "logaddexp2", "addmm", "polygamma")},
    polygamma=lambda self, n: polygamma(n, self),
    sin=pointwise.sin, cos=pointwise.cos, tan=pointwise.tan, sinh=pointwise.sinh, cosh=pointwise.cosh,
    asin=pointwise.asin, acos=pointwise.acos, atan=pointwise.atan, atan2=pointwise.atan2,
    ceil=pointwise.ceil, floor=pointwise.floor, round=pointwise.round, trunc=pointwise.trunc, frac=pointwise.frac,
    exp2=pointwise.exp2, expm1=pointwise.expm1, log1p=pointwise.log1p, log2=pointwise.log2,
    log10=pointwise.log10, rsqrt=pointwise.rsqrt, reciprocal=pointwise.reciprocal, sign=pointwise.sign,
    square=pointwise.square, erf=arrange.erf, clamp_min=pointwise.clamp_min, clamp_max=pointwise.clamp_max,
    lerp=pointwise.lerp, cumsum=reduction.cumsum, cumprod=arrange.cumprod, logical_not=pointwise.logical_not,
    logical_and=arrange.logical_and, logical_or=arrange.logical_or, logical_xor=arrange.logical_xor,
    bitwise_not=pointwise.bitwise_not, bitwise_and=pointwise.bitwise_and, bitwise_or=pointwise.bitwise_or,
    bitwise_xor=pointwise.bitwise_xor, bitwise_left_shift=pointwise.bitwise_left_shift,
    bitwise_right_shift=pointwise.bitwise_right_shift,
    eq=_compare("eq"), ne=_compare("ne"), lt=_compare("lt"), le=_compare("le"), gt=_compare("gt"),
    ge=_compare("ge"), fmod=pointwise.fmod, remainder=pointwise.remainder, floor_divide=pointwise.floor_divide,
    nan_to_num=statistics.nan_to_num, tril=arrange.tril, triu=arrange.triu, hypot=pointwise.hypot,
    multiply=pointwise.mul, subtract=pointwise.subtract_method, divide=pointwise.div, true_divide=pointwise.div,
    negative=pointwise.neg, addmv=matmul.addmv, baddbmm=matmul.baddbmm, addbmm=matmul.addbmm,
    addmm=matmul.addmm,
)

METHODS: dict[str, Any] = dict(
    _FUNCTIONS,
    **{name + "_": _in_place(fn, name) for name, fn in _IN_PLACE_OF.items()},
    float_power_=_float_power_,
)
