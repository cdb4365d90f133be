"""More special functions on arrays, for ``torch.special``: the scaled complementary error
function ``erfcx``, the normal distribution's ``log_ndtr`` and ``ndtri``, the entropy term
``entr``, Hurwitz's zeta function and the regularized incomplete gamma functions
(``gammainc``/``gammaincc``, ``torch.igamma``/``igammac``).

All in float64 (the caller rounds once to the tensor's dtype), from the classical formulas
named in each docstring.  The edge values (poles, domain errors, infinities) are PyTorch's.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .special import (_ERF_C, _ERF_D, _ERF_P, _ERF_Q, _f64, _ratio, erf_array, erfc_array, lgamma_array)

__all__ = ["erfcx_array", "log_ndtr_array", "ndtri_array", "entr_array", "zeta_array", "igamma_array",
           "igammac_array"]

_SQRT_2PI = math.sqrt(2.0 * math.pi)
_INV_SQRT_PI = 0.56418958354775628695


def _erfcx_positive(xp: Any, y: Any) -> Any:
    """``e^(y²)·erfc(y)`` for y ≥ 0.47: this is exactly the rational factor R(y) of Cody's
    ``erfc(y) = e^(-y²)·R(y)`` (see ops/special.py), so no exponential is needed:
    ``R = P(y)/Q(y)`` up to 4, ``(1/√π - z·P(z)/Q(z))/y`` with ``z = 1/y²`` beyond (→ 1/(y√π))."""
    mid = _ratio(xp, xp.clip(y, 0.46875, 4.0), _ERF_C, _ERF_D)
    yl = xp.where(xp.isfinite(y), xp.maximum(y, 4.0), 4.0)
    z = 1.0 / (yl * yl)
    large = _ratio(xp, z, _ERF_P, _ERF_Q)
    large = (_INV_SQRT_PI - z * large) / yl
    large = xp.where(y == xp.inf, 0.0, large)
    return xp.where(y <= 4.0, mid, large)


def erfcx_array(xp: Any, x: Any) -> Any:
    """The scaled complementary error function ``e^(x²)·erfc(x)``: Cody's R(x) for x ≥ 0.47
    (:func:`_erfcx_positive`), ``e^(x²)·(1 - erf(x))`` for |x| < 0.47, and
    ``2e^(x²) - erfcx(-x)`` for x ≤ -0.47 (+inf once e^(x²) overflows)."""
    x = _f64(xp, x)
    y = xp.abs(x)
    pos = _erfcx_positive(xp, xp.maximum(y, 0.46875))
    xs = xp.clip(x, -0.5, 0.5)
    small = xp.exp(xs * xs) * (1.0 - erf_array(xp, xs))
    with np.errstate(all="ignore"):
        xn = xp.where(xp.isfinite(x), xp.minimum(x, 0.0), 0.0)
        neg = 2.0 * xp.exp(xn * xn) - pos
    out = xp.where(y < 0.46875, small, xp.where(x > 0, pos, neg))
    out = xp.where(x == -xp.inf, xp.inf, out)
    return xp.where(xp.isnan(x), x, out)


def log_ndtr_array(xp: Any, x: Any) -> Any:
    """``log Φ(x)``, Φ the standard normal CDF, without underflow: for x < -1,
    ``log(erfcx(-x/√2)/2) - x²/2`` (Φ(x) = erfc(-x/√2)/2); else ``log1p(-erfc(x/√2)/2)``."""
    x = _f64(xp, x)
    t = x / math.sqrt(2.0)
    with np.errstate(all="ignore"):
        xl = xp.where(xp.isfinite(x), xp.minimum(x, -1.0), -1.0)
        low = xp.log(erfcx_array(xp, -xl / math.sqrt(2.0)) / 2.0) - xl * xl / 2.0
        high = xp.log1p(-erfc_array(xp, xp.maximum(t, -1.0)) / 2.0)
    out = xp.where(x < -1.0, low, high)
    out = xp.where(x == -xp.inf, -xp.inf, out)
    return xp.where(xp.isnan(x), x, out)


# P. J. Acklam's rational approximation of the normal quantile (relative error < 1.2e-9),
# "An algorithm for computing the inverse normal cumulative distribution function" (2003).
_ACK_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
          -3.066479806614716e+01, 2.506628277459239e+00)
_ACK_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
          -1.328068155288572e+01)
_ACK_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
          4.374664141464968e+00, 2.938163982698783e+00)
_ACK_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)


def _horner(xp: Any, coeffs: tuple, v: Any) -> Any:
    out = xp.zeros_like(v) + coeffs[0]
    for c in coeffs[1:]:
        out = out * v + c
    return out


def ndtri_array(xp: Any, p: Any) -> Any:
    """The normal quantile Φ⁻¹(p): Acklam's approximation on ``q = min(p, 1-p)`` (1-p is exact
    for p ≥ ½), then one Halley step on ``Φ(x) - q`` with Φ(x) = erfc(-x/√2)/2 (accurate in the
    tail): the error goes from 1e-9 to float64's rounding.  -inf at 0, +inf at 1, NaN outside."""
    p = _f64(xp, p)
    inside = (p > 0) & (p < 1)
    q = xp.where(inside, xp.minimum(p, 1.0 - p), 0.25)
    with np.errstate(all="ignore"):
        r = xp.sqrt(-2.0 * xp.log(q))
        tail = _horner(xp, _ACK_C, r) / (_horner(xp, _ACK_D, r) * r + 1.0)
        u = q - 0.5
        s = u * u
        central = u * _horner(xp, _ACK_A, s) / (_horner(xp, _ACK_B, s) * s + 1.0)
        x = xp.where(q < 0.02425, tail, central)
        e = erfc_array(xp, -x / math.sqrt(2.0)) / 2.0 - q
        v = e * _SQRT_2PI * xp.exp(x * x / 2.0)
        x = x - v / (1.0 + x * v / 2.0)
    x = xp.where(p > 0.5, -x, x)
    out = xp.where(inside, x, xp.where(p == 0, -xp.inf, xp.where(p == 1, xp.inf, xp.nan)))
    return xp.where(xp.isnan(p), p, out)


def entr_array(xp: Any, x: Any) -> Any:
    """``-x·ln x`` for x > 0, 0 at 0, -inf for x < 0 (PyTorch's ``entr``), NaN stays NaN."""
    x = _f64(xp, x)
    with np.errstate(all="ignore"):
        out = -x * xp.log(x)
    out = xp.where(x == 0, 0.0, xp.where(x < 0, -xp.inf, out))
    return xp.where(xp.isnan(x), x, out)


# B₂ⱼ/(2j)! for j = 1 … 12: the Euler-Maclaurin coefficients of zeta's tail
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330,
              854513 / 138, -236364091 / 2730)
_EM_COEF = tuple(b / math.factorial(2 * j) for j, b in enumerate(_BERNOULLI, start=1))


def zeta_array(xp: Any, s: Any, q: Any) -> Any:
    """Hurwitz's ζ(s, q) = Σₖ (q+k)^-s for real s > 1: the first terms summed until q + k ≥ 16
    (at least 10 of them), then the Euler-Maclaurin tail
    ``a^(1-s)/(s-1) + a^-s/2 + Σⱼ B₂ⱼ/(2j)!·s(s+1)…(s+2j-2)·a^(1-s-2j)`` (12 terms).
    As Cephes and PyTorch: +inf at s = 1 and at q a non-positive integer; NaN for s < 1, for
    q < 0 with a non-integer s, and at q = +inf."""
    s, q = xp.broadcast_arrays(xp.asarray(s, dtype=xp.float64), xp.asarray(q, dtype=xp.float64))
    pole = (q <= 0) & (q == xp.floor(q))  # (-inf too)
    ok = (s > 1) & xp.isfinite(s) & xp.isfinite(q) & ~pole & ~((q < 0) & (s != xp.floor(s)))
    ss = xp.where(ok, s, 2.0)
    a = xp.where(ok, q, 1.0)
    acc = xp.zeros_like(a)
    with np.errstate(all="ignore"):
        for i in range(100000):
            low = (a < 16.0) | (i < 10)
            if not xp.any(low):
                break
            acc = acc + xp.where(low, a ** -ss, 0.0)
            a = xp.where(low, a + 1.0, a)
        tail = a ** (1.0 - ss) / (ss - 1.0) + 0.5 * a ** -ss
        rising = ss
        power = a ** (-ss - 1.0)
        inv2 = 1.0 / (a * a)
        for j, c in enumerate(_EM_COEF, start=1):
            tail = tail + c * rising * power
            rising = rising * (ss + 2 * j - 1) * (ss + 2 * j)
            power = power * inv2
    out = xp.where(ok, acc + tail, xp.nan)
    # the edges, in the order of Cephes' tests (which PyTorch follows)
    out = xp.where(s == xp.inf, xp.where(q == 1, 1.0, xp.where((q > 1) | xp.isnan(q), xp.nan, xp.inf)), out)
    out = xp.where(pole & ~(s < 1), xp.inf, out)
    out = xp.where(s < 1, xp.nan, out)
    return xp.where(s == 1, xp.inf, out)


def _igamma_parts(xp: Any, a: Any, x: Any) -> tuple:
    """(P, Q) = the regularized lower and upper incomplete gamma functions, for a > 0, x > 0 finite.

    ``x^a·e^-x/Γ(a)`` times: the series ``Σₙ xⁿ/(a(a+1)…(a+n))`` (for P, where x < a + 1),
    or Legendre's continued fraction ``1/(x+1-a- 1·(1-a)/(x+3-a- 2·(2-a)/(x+5-a- …)))`` (for Q,
    elsewhere), evaluated by the modified Lentz method (Numerical Recipes §6.2 describes both).
    The other one is 1 minus it.  Up to 2000 steps: enough for a up to ~1e5."""
    with np.errstate(all="ignore"):
        prefix = xp.exp(a * xp.log(x) - x - lgamma_array(xp, a))
        use_series = x < a + 1.0
        # series
        term = 1.0 / a
        total = term
        ap = a
        for _ in range(2000):
            ap = ap + 1.0
            term = term * x / ap
            total = total + term
            if not xp.any(use_series & (xp.abs(term) > xp.abs(total) * 1e-17)):
                break
        p_series = prefix * total
        # continued fraction (Lentz)
        tiny = 1e-300
        b = x + 1.0 - a
        c = xp.full_like(x, 1.0 / tiny)
        d = 1.0 / xp.where(b == 0, tiny, b)
        h = d
        for i in range(1, 2000):
            an = -i * (i - a)
            b = b + 2.0
            d = an * d + b
            d = xp.where(xp.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = xp.where(xp.abs(c) < tiny, tiny, c)
            d = 1.0 / d
            delta = d * c
            h = h * delta
            if not xp.any(~use_series & (xp.abs(delta - 1.0) > 1e-16)):
                break
        q_cf = prefix * h
    p = xp.where(use_series, p_series, 1.0 - q_cf)
    q = xp.where(use_series, 1.0 - p_series, q_cf)
    return p, q


def _igamma(xp: Any, a: Any, x: Any, upper: bool) -> Any:
    a, x = xp.broadcast_arrays(xp.asarray(a, dtype=xp.float64), xp.asarray(x, dtype=xp.float64))
    ok = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    p, q = _igamma_parts(xp, xp.where(ok, a, 1.0), xp.where(ok, x, 1.0))
    out = xp.where(xp.isnan(a) | xp.isnan(x), xp.nan, q if upper else p)
    lo, hi = (1.0, 0.0) if upper else (0.0, 1.0)  # the value at x = 0, at x = +inf
    # the edges, in Cephes' (and PyTorch's) order of tests
    out = xp.where(x == xp.inf, hi, out)
    out = xp.where(xp.isinf(a), xp.where(xp.isinf(x), xp.nan, lo), out)
    out = xp.where(x == 0, lo, out)
    out = xp.where(a == 0, xp.where(x > 0, hi, xp.nan), out)
    return xp.where((a < 0) | (x < 0), xp.nan, out)


def igamma_array(xp: Any, a: Any, x: Any) -> Any:
    """P(a, x) = γ(a, x)/Γ(a), the regularized lower incomplete gamma function (``gammainc``)."""
    return _igamma(xp, a, x, False)


def igammac_array(xp: Any, a: Any, x: Any) -> Any:
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function (``gammaincc``)."""
    return _igamma(xp, a, x, True)
