"""The rest of ``torch.special`` as tensor operations: the normal distribution's ``ndtr``,
``ndtri``, ``log_ndtr``; ``erfcx``, ``entr``; the scaled Bessel functions ``i0e``, ``i1e``;
Hurwitz's ``zeta``; the incomplete gamma functions (``gammainc`` = ``torch.igamma``,
``gammaincc`` = ``torch.igammac``); the multivariate log-gamma ``multigammaln`` (``torch.mvlgamma``);
and the functions PyTorch does not differentiate: the Bessel functions (``bessel_j0`` …,
``modified_bessel_k1``, ``airy_ai``) and the orthogonal polynomials (``chebyshev_polynomial_t`` …).

The array kernels are in ``ops/special_gamma.py``, ``ops/special_bessel.py`` and
``ops/special_polynomials.py``.  Here, PyTorch's behaviour around them:

* differentiable functions are ``Function`` s with PyTorch's node names (``SpecialNdtriBackward0``,
  ``IgammaBackward0`` …) and backward formulas written with tensor operations;
  where PyTorch has no derivative (zeta's and igamma's first argument) backward raises its
  ``NotImplementedError("the derivative for 'zeta' is not implemented.")``;
* ``ndtr`` is, as in PyTorch, ``(1 + erf(x/√2))·½`` built of operations (its graph shows
  ``MulBackward1``, ``AddBackward1``, ``ErfBackward0``);
* the Bessel functions and the polynomials give results without gradient (PyTorch marks their
  outputs non-differentiable), float32 or float64 only (float16 is PyTorch's NotImplementedError);
* integer inputs compute in the default float dtype.

:data:`METHODS` is this module's section of the Tensor method table (``igamma``, ``mvlgamma`` …).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..autograd.function import Function
from ..tensor import Tensor
from . import arrange, pointwise
from .common import new_result
from .inplace import inplace
from .pointwise_extra import _Binary, _as, _float_dtype, _float_unary, _i1, digamma, lgamma
from .special import lgamma_array
from .special_bessel import (airy_ai_array, bessel_i_scaled_array, bessel_j_array, bessel_k_array, bessel_y_array,
                             spherical_j0_array)
from .special import bessel_i_array
from .special_gamma import (entr_array, erfcx_array, igamma_array, igammac_array, log_ndtr_array, ndtri_array,
                            zeta_array)
from .special_polynomials import POLYNOMIALS, polynomial_array

__all__ = ["ndtr", "ndtri", "log_ndtr", "erfcx", "entr", "i0e", "i1", "i1e", "zeta", "gammainc", "gammaincc",
           "igamma", "igammac", "multigammaln", "mvlgamma", "METHODS", "NONDIFFERENTIABLE"]

_SQRT_2PI = math.sqrt(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def ndtr(input: Tensor) -> Tensor:
    """Φ(x), the standard normal CDF, as PyTorch composes it: ``(1 + erf(x·√½))·½`` (so
    ``ndtr(-10)`` is 0 in float32 and float64 alike, as there)."""
    inner = pointwise.MulScalar.apply(input, 0.707106781186547524400844362104849039)
    return pointwise.MulScalar.apply(pointwise.AddScalar.apply(arrange.erf(inner), 1), 0.5)


def _i1e_derivative(x: Tensor) -> Tensor:
    """i1e' = i0e - i1e·(sgn x + 1/x), ½ at x = 0 (x replaced by 1 there first: no 0/0 in the graph)."""
    zero = x == 0
    safe = pointwise.where(zero, 1.0, x)
    return pointwise.where(zero, 0.5, i0e(x) - i1e(safe) * (pointwise.sign(safe) + 1 / safe))


# Φ⁻¹' = √(2π)·e^(Φ⁻¹(x)²/2); (log Φ)' = φ/Φ; erfcx' = 2x·erfcx - 2/√π; i0e' = i1e - sgn(x)·i0e;
# entr' = -(1 + ln x)
Ndtri = _float_unary("Ndtri", "SpecialNdtriBackward0", ndtri_array,
                     lambda x: (ndtri(x).square() / 2).exp() * _SQRT_2PI)
LogNdtr = _float_unary("LogNdtr", "SpecialLogNdtrBackward0", log_ndtr_array,
                       lambda x: (-(x * x) / 2 - log_ndtr(x)).exp() / _SQRT_2PI)
Erfcx = _float_unary("Erfcx", "SpecialErfcxBackward0", erfcx_array,
                     lambda x: x * erfcx(x) * 2 - _TWO_OVER_SQRT_PI)
I0e = _float_unary("I0e", "SpecialI0EBackward0", lambda xp, a: bessel_i_scaled_array(xp, a, 0),
                   lambda x: i1e(x) - pointwise.sign(x) * i0e(x))
I1e = _float_unary("I1e", "SpecialI1EBackward0", lambda xp, a: bessel_i_scaled_array(xp, a, 1), _i1e_derivative)
Entr = _float_unary("Entr", "SpecialEntrBackward0", entr_array, lambda x: -(pointwise.log(x) + 1))


def ndtri(input: Tensor) -> Tensor:
    """Φ⁻¹(p), the standard normal quantile: -inf at 0, +inf at 1, NaN outside [0, 1]."""
    return Ndtri.apply(input)


def log_ndtr(input: Tensor) -> Tensor:
    """``log Φ(x)``, accurate far in the left tail (``log_ndtr(-40)`` is -804.6)."""
    return LogNdtr.apply(input)


def erfcx(input: Tensor) -> Tensor:
    """The scaled complementary error function ``e^(x²)·erfc(x)`` (no overflow for large x)."""
    return Erfcx.apply(input)


def entr(input: Tensor) -> Tensor:
    """The entropy term ``-x·ln x`` (0 at 0, -inf for x < 0)."""
    return Entr.apply(input)


def i0e(input: Tensor) -> Tensor:
    """``e^(-|x|)·I₀(x)``, the exponentially scaled modified Bessel function of order 0."""
    return I0e.apply(input)


def i1(input: Tensor) -> Tensor:
    """I₁, the modified Bessel function of the first kind of order 1 (``SpecialI1Backward0``)."""
    return _i1(input)


def i1e(input: Tensor) -> Tensor:
    """``e^(-|x|)·I₁(x)``."""
    return I1e.apply(input)


# ----------------------------------------------------------------------------- binary: zeta, igamma
def _not_implemented(what: str) -> NotImplementedError:
    return NotImplementedError(f"the derivative for '{what}' is not implemented.")


def _zeta_grads(ctx: Any, grad: Tensor, a: Any, b: Any, out: Tensor) -> tuple:
    """∂ζ(s, q)/∂q = -s·ζ(s+1, q); PyTorch has no derivative in s."""
    if ctx.needs_input_grad[0]:
        raise _not_implemented("zeta")
    return None, grad * -a * zeta(a + 1.0, b)


class Zeta(_Binary):
    _backward_name = "SpecialZetaBackward0"
    kernel = staticmethod(zeta_array)
    grads = staticmethod(_zeta_grads)


class ZetaScalarSelf(Zeta):
    _backward_name = "SpecialZetaBackward1"


class ZetaScalarOther(Zeta):
    _backward_name = "SpecialZetaBackward2"


def _type_name(v: Any) -> str:
    return type(v).__name__


def zeta(input: Any, other: Any) -> Tensor:
    """Hurwitz's zeta function ζ(x, q) = Σₖ (q+k)^-x (``zeta(x, 1)`` is Riemann's ζ(x))."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"special_zeta() received an invalid combination of arguments - got "
                        f"({_type_name(input)}, {_type_name(other)}), but expected one of:\n"
                        " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                        " * (Number self, Tensor other, *, Tensor out = None)\n"
                        " * (Tensor self, Number other, *, Tensor out = None)")
    cls = Zeta if isinstance(input, Tensor) and isinstance(other, Tensor) else \
        ZetaScalarOther if isinstance(input, Tensor) else ZetaScalarSelf
    return cls.apply(input, other)


def _igamma_density(a: Tensor, x: Tensor) -> Tensor:
    """∂P(a, x)/∂x = x^(a-1)·e^-x / Γ(a), as PyTorch writes it: ``exp((a-1)·log x - x - lgamma(a))``."""
    return ((a - 1) * pointwise.log(x) - x - lgamma(a)).exp()


class Igamma(_Binary):
    _backward_name = "IgammaBackward0"
    kernel = staticmethod(igamma_array)

    @staticmethod
    def grads(ctx: Any, grad: Tensor, a: Tensor, x: Tensor, out: Tensor) -> tuple:
        if ctx.needs_input_grad[0]:
            raise _not_implemented("igamma: input")
        return None, grad * _igamma_density(a, x)


class Igammac(_Binary):
    _backward_name = "IgammacBackward0"
    kernel = staticmethod(igammac_array)

    @staticmethod
    def grads(ctx: Any, grad: Tensor, a: Tensor, x: Tensor, out: Tensor) -> tuple:
        if ctx.needs_input_grad[0]:
            raise _not_implemented("igammac: input")
        return None, -grad * _igamma_density(a, x)


def _two_tensors(fn: str, input: Any, other: Any) -> None:
    for value, arg, pos in ((input, "input", 1), (other, "other", 2)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {_type_name(value)}")


def _igamma_dtype_check(fn: str, input: Tensor, other: Tensor) -> None:
    dt = dtypes.result_type(input, other)
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{fn}_cpu\" not implemented for '{dtypes.type_name(dt)}'")


def igamma(input: Tensor, other: Tensor) -> Tensor:
    """P(a, x) = γ(a, x)/Γ(a), the regularized lower incomplete gamma function (a = ``input``)."""
    _two_tensors("igamma", input, other)
    _igamma_dtype_check("igamma", input, other)
    return Igamma.apply(input, other)


def igammac(input: Tensor, other: Tensor) -> Tensor:
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function."""
    _two_tensors("igammac", input, other)
    _igamma_dtype_check("igammac", input, other)
    return Igammac.apply(input, other)


def gammainc(input: Tensor, other: Tensor) -> Tensor:
    """``torch.special.gammainc``: :func:`igamma`."""
    _two_tensors("special_gammainc", input, other)
    _igamma_dtype_check("igamma", input, other)
    return Igamma.apply(input, other)


def gammaincc(input: Tensor, other: Tensor) -> Tensor:
    """``torch.special.gammaincc``: :func:`igammac`."""
    _two_tensors("special_gammaincc", input, other)
    _igamma_dtype_check("igammac", input, other)
    return Igammac.apply(input, other)


# ----------------------------------------------------------------------------- multivariate log-gamma
class Mvlgamma(Function):
    """``log Γ_p(x) = p(p-1)/4·log π + Σⱼ₌₀^(p-1) lgamma(x - j/2)``; its derivative is the sum
    of the digammas.  (PyTorch 2.x no longer checks x > (p-1)/2: below it, lgamma's poles give
    inf and the rest its log-|Γ| values.)"""
    _backward_name = "MvlgammaBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, p: int) -> Tensor:
        dt = _float_dtype(x._dtype)
        xp = x._backend.xp
        a = _as(x, x._data, dt)
        a = a if a.dtype == xp.float64 else xp.astype(a, xp.float64)
        with np.errstate(all="ignore"):
            total = sum(lgamma_array(xp, a - j / 2.0) for j in range(p)) + p * (p - 1) / 4.0 * math.log(math.pi)
        ctx.save_for_backward(x)
        ctx.p = p
        return new_result(_as(x, xp.asarray(total), dt), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        d = digamma(x)
        for j in range(1, ctx.p):
            d = d + digamma(x - j / 2.0)
        return grad * d, None


def _check_p(p: Any) -> None:
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension ``p`` (``torch.special.multigammaln``)."""
    if input.dtype is dtypes.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    _check_p(p)
    return Mvlgamma.apply(input, int(p))


multigammaln = mvlgamma


def _mvlgamma_(self: Tensor, p: int) -> Tensor:
    """In-place ``mvlgamma``: an integer tensor cannot hold the float result (PyTorch's words)."""
    _check_p(p)
    if not self._dtype.is_floating_point:
        raise RuntimeError(f"mvlgamma: result type {dtypes.type_name(self._dtype)} can't be cast to the desired "
                           f"output type {dtypes.type_name(dtypes.get_default_dtype())}")  # (PyTorch's order)
    return inplace(self, mvlgamma, p)


def _in_place(fn: Callable, name: str) -> Callable:
    def method(self: Tensor, other: Tensor) -> Tensor:
        _two_tensors(name, self, other)
        if not self._dtype.is_floating_point:
            dt = dtypes.result_type(self, other)
            if dt.is_floating_point:
                raise RuntimeError(f"result type {dtypes.type_name(dt)} can't be cast to the desired output type "
                                   f"{dtypes.type_name(self._dtype)}")
        return inplace(self, fn, other)
    method.__name__ = name + "_"
    return method


# ----------------------------------------------------------------------------- no derivative
def _float_only(name: str, dt: dtypes.dtype) -> None:
    if dt not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{dtypes.type_name(dt)}'")


def _nondiff_unary(name: str, kernel: Callable) -> Callable:
    def fn(input: Tensor) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{_type_name(input)}")
        dt = _float_dtype(input._dtype)
        _float_only(name, dt)
        with np.errstate(all="ignore"):
            out = kernel(input._backend.xp, _as(input, input._data, dt))
        return new_result(_as(input, out, dt), input)
    fn.__name__ = name
    fn.__doc__ = (f"``torch.special.{name}`` (float32/float64; the result has no gradient: PyTorch "
                  "defines no derivative for it).")
    return fn


def _nan_at_inf(xp: Any, a: Any, out: Any) -> Any:
    """PyTorch's ``modified_bessel_i0/i1`` give NaN at ±inf (``torch.i0`` gives inf)."""
    return xp.where(xp.isinf(a), xp.nan, out)


_UNARY_KERNELS: dict[str, Callable] = {
    "bessel_j0": lambda xp, a: bessel_j_array(xp, a, 0),
    "bessel_j1": lambda xp, a: bessel_j_array(xp, a, 1),
    "bessel_y0": lambda xp, a: bessel_y_array(xp, a, 0),
    "bessel_y1": lambda xp, a: bessel_y_array(xp, a, 1),
    "modified_bessel_i0": lambda xp, a: _nan_at_inf(xp, a, bessel_i_array(xp, a, 0)),
    "modified_bessel_i1": lambda xp, a: _nan_at_inf(xp, a, bessel_i_array(xp, a, 1)),
    "modified_bessel_k0": lambda xp, a: bessel_k_array(xp, a, 0),
    "modified_bessel_k1": lambda xp, a: bessel_k_array(xp, a, 1),
    "scaled_modified_bessel_k0": lambda xp, a: bessel_k_array(xp, a, 0, scaled=True),
    "scaled_modified_bessel_k1": lambda xp, a: bessel_k_array(xp, a, 1, scaled=True),
    "spherical_bessel_j0": spherical_j0_array,
    "airy_ai": airy_ai_array,
}


def _degrees(xp: Any, n: Any) -> Any:
    """The degree as PyTorch's kernels take it: converted to int64 (truncated); a NaN, an
    infinity or an out-of-range value becomes a negative degree (whose polynomial is 0)."""
    if not np.issubdtype(n.dtype, np.floating):
        return xp.astype(n, xp.int64)
    good = xp.isfinite(n) & (xp.abs(n) < 9.2e18)
    return xp.astype(xp.where(good, n, -1.0), xp.int64)


def _polynomial(name: str) -> Callable:
    full = "special_" + name

    def fn(x: Any, n: Any) -> Tensor:
        if not isinstance(x, Tensor) and not isinstance(n, Tensor):
            raise TypeError(f"{full}() received an invalid combination of arguments - got ({_type_name(x)}, "
                            f"{_type_name(n)}), but expected one of:\n * (Tensor x, Tensor n, *, Tensor out = None)\n"
                            " * (Number x, Tensor n, *, Tensor out = None)\n"
                            " * (Tensor x, Number n, *, Tensor out = None)")
        like = x if isinstance(x, Tensor) else n
        dt = _float_dtype(dtypes.result_type(x, n))
        _float_only(name, dt)
        xp = like._backend.xp
        xd = like._backend.dtype(dt)
        xa = xp.astype(x._data, xd) if isinstance(x, Tensor) else xp.asarray(x, dtype=xd)
        if isinstance(n, Tensor):
            na = _degrees(xp, n._data)
        else:
            na = xp.asarray(int(n) if math.isfinite(n) else -1, dtype=xp.int64)
        out = polynomial_array(xp, name, xa, na)
        return new_result(xp.astype(xp.asarray(out), xd), like)
    fn.__name__ = name
    fn.__doc__ = (f"``torch.special.{name}(x, n)``: the polynomial of degree ``n`` (truncated to an integer; "
                  "a negative degree gives 0) at ``x``; no gradient (PyTorch defines none).")
    return fn


NONDIFFERENTIABLE: dict[str, Callable] = {
    **{name: _nondiff_unary(name, k) for name, k in _UNARY_KERNELS.items()},
    **{name: _polynomial(name) for name in POLYNOMIALS},
}
__all__ += list(NONDIFFERENTIABLE)
globals().update(NONDIFFERENTIABLE)

METHODS: dict[str, Any] = dict(
    igamma=igamma, igammac=igammac, igamma_=_in_place(igamma, "igamma"), igammac_=_in_place(igammac, "igammac"),
    mvlgamma=mvlgamma, mvlgamma_=_mvlgamma_,
)
