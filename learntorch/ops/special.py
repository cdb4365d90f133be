"""Special functions on arrays: the error function ``erf``, for ``torch.erf`` and GELU, and
(below it) erfc, erfinv, lgamma, digamma, polygamma and the Bessel function I₀ for
ops/pointwise_extra.py.

Why a module of its own, in ``ops``: NumPy has no ``erf``, and both an operation
(``torch.erf``, ops/arrange.py) and a layer (GELU, nn/functional.py) need one.
Kept here, below both, so that ops never import from nn.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["erf_array"]


# W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23 (1969):
# the coefficients of his CALERF routine (also behind many C libraries' erf).  In float64 the
# maximum error against math.erf is 2.2e-16 (tests/nn/test_layers.py checks it on a dense grid).
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
          1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERF_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
          8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
          2.15311535474403846e-8)
_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
          3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_ERF_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
          6.58749161529837803e-4, 1.63153871373020978e-2)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
          2.33520497626869185e-3)


def erf_array(xp: Any, x: Any) -> Any:
    """The error function of a backend array, element-wise (NumPy has none, and SciPy is not
    a dependency).

    Cody's rational approximations: ``x·P(x²)/Q(x²)`` for ``|x| < 0.47``, and
    ``1 - exp(-x²)·R(|x|)`` beyond.  float64 arrays use all three of his ranges
    (error ≤ 2.2e-16); other float arrays are computed in float32 with the two ranges
    float32 needs (erf rounds to ±1 from |x| ≈ 3.9 on), error ≤ 2.5e-7 (a few float32 ulps).

    The polynomials are evaluated in place (Horner's rule on one buffer): a fresh
    temporary per step would cost more in memory traffic than the arithmetic."""
    if x.dtype == xp.float64:
        return _erf64(xp, x)
    orig = x.dtype
    x = x if x.dtype == xp.float32 else xp.astype(x, xp.float32)
    # Python floats are "weak" scalars (NumPy 2, the array API): the arithmetic stays float32
    y = xp.abs(x)
    small = _ratio(xp, xp.clip(x, -0.5, 0.5), _ERF_A, _ERF_B, square=True)
    yc = xp.clip(y, 0.46875, 4.0)
    big = _ratio(xp, yc, _ERF_C, _ERF_D)
    yc *= yc
    yc *= -1.0
    big *= xp.exp(yc)
    big *= -1.0
    big += 1.0  # 1 - erfc; rounds to 1 from |x| = 4 on
    out = _select(xp, y < 0.46875, small, xp.copysign(big, x))
    return out if out.dtype == orig else xp.astype(out, orig)


def _ratio(xp: Any, v: Any, p: tuple, q: tuple, square: bool = False) -> Any:
    """Cody's ``P(v)/Q(v)`` (``v·P(v²)/Q(v²)`` with ``square``), P with the leading coefficient
    last, as in CALERF: ``num = p[-1]·w; num = (num + p[i])·w …; (num + p[n])/(den + q[n])``."""
    w = v * v if square else v
    n = len(q) - 1
    num = p[-1] * w
    den = w + q[0]
    den *= w
    num += p[0]
    num *= w
    for i in range(1, n):
        num += p[i]
        num *= w
        den += q[i]
        den *= w
    num += p[n]
    den += q[n]
    if square:
        num *= v
    num /= den
    return num


def _erf64(xp: Any, x: Any) -> Any:
    y = xp.abs(x)
    small = _ratio(xp, xp.clip(x, -0.5, 0.5), _ERF_A, _ERF_B, square=True)
    mid = _ratio(xp, xp.clip(y, 0.46875, 4.0), _ERF_C, _ERF_D)
    yl = xp.clip(y, 4.0, 27.0)
    z = yl * yl
    z = 1.0 / z
    large = _ratio(xp, z, _ERF_P, _ERF_Q)
    large *= -z
    large += 0.56418958354775628695  # 1/√π
    large /= yl
    r = _select(xp, y <= 4.0, mid, large)
    yy = xp.clip(y, 0.0, 27.0)  # erfc underflows to 0 beyond 27
    t = xp.trunc(yy * 16.0) / 16.0  # exp(-y²) as exp(-t²)·exp(-(y-t)(y+t)): no rounding error in t²
    r *= xp.exp(-t * t) * xp.exp(-(yy - t) * (yy + t))
    r *= -1.0
    r += 1.0
    return _select(xp, y < 0.46875, small, xp.copysign(r, x))


def _select(xp: Any, cond: Any, a: Any, b: Any) -> Any:
    """``where(cond, a, b)`` for finite ``a`` and ``b`` (NaN propagates from ``b``), as
    ``m·a + (1-m)·b`` with m 0 or 1: exact, and much faster than NumPy's ``where`` when the
    condition has no pattern (its branches are then mispredicted).  Overwrites ``a`` and ``b``."""
    m = xp.astype(cond, a.dtype)
    a *= m
    m *= -1.0
    m += 1.0
    b *= m
    a += b
    return a


# ----------------------------------------------------------------------------- more special functions
# What follows serves ops/pointwise_extra.py (torch.lgamma, digamma, polygamma, erfc, erfinv, i0).
# NumPy has none of them and SciPy is not a dependency, so each is computed here, in float64,
# from a classical formula; the caller rounds the result to the tensor's dtype once.  float64
# leaves a margin of many digits over float32, the default dtype, and the float64 results agree
# with PyTorch's to ~1e-12 relative (tests/ops/test_pointwise_extra.py checks both dtypes).
__all__ += ["erfc_array", "erfinv_array", "lgamma_array", "digamma_array", "polygamma_array", "bessel_i_array"]

_SQRT_PI = 1.7724538509055160273
_LOG_SQRT_2PI = 0.91893853320467274178

# Lanczos' approximation of the gamma function, with g = 7 and nine terms (C. Lanczos, "A precise
# approximation of the gamma function", SIAM J. Numer. Anal. 1 (1964); these coefficients are the
# widely published ones of P. Godfrey): Γ(z+1) = √(2π) (z+g+½)^(z+½) e^-(z+g+½) A(z), A a short sum.
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)


def _f64(xp: Any, x: Any) -> Any:
    return x if x.dtype == xp.float64 else xp.astype(x, xp.float64)


def erfc_array(xp: Any, x: Any) -> Any:
    """``1 - erf(x)``, computed without the cancellation of that subtraction: ``erfc(5)`` is
    1.5e-12, which ``1 - erf(5)`` would round to 0 in float32.  Cody's ranges again (see
    :func:`erf_array`): his ``exp(-x²)·R(x)`` *is* erfc for ``x ≥ 0.47``; below that ``1 - erf``
    loses nothing (erf < 0.5 there); for negative x, ``erfc(x) = 2 - erfc(-x)``.  float64."""
    x = _f64(xp, x)
    y = xp.abs(x)
    small = _ratio(xp, xp.clip(x, -0.5, 0.5), _ERF_A, _ERF_B, square=True)
    small = 1.0 - small
    mid = _ratio(xp, xp.clip(y, 0.46875, 4.0), _ERF_C, _ERF_D)
    yl = xp.clip(y, 4.0, 27.0)
    z = 1.0 / (yl * yl)
    large = _ratio(xp, z, _ERF_P, _ERF_Q)
    large *= -z
    large += 0.56418958354775628695  # 1/√π
    large /= yl
    r = xp.where(y <= 4.0, mid, large)
    yy = xp.clip(y, 0.0, 27.0)  # erfc underflows to 0 beyond 27
    t = xp.trunc(yy * 16.0) / 16.0  # exp(-y²) without rounding error in y² (as in _erf64)
    r = r * (xp.exp(-t * t) * xp.exp(-(yy - t) * (yy + t)))
    r = xp.where(x < 0, 2.0 - r, r)
    return xp.where(y < 0.46875, small, xp.where(xp.isnan(x), x, r))


def erfinv_array(xp: Any, y: Any) -> Any:
    """The inverse of erf on (-1, 1): ±inf at ±1, NaN outside.

    Start from S. Winitzki's closed form (relative error ≈ 2e-3,
    ``erfinv(y) ≈ sign(y)·√(√(b² - ln(1-y²)/a) - b)``, ``b = 2/(πa) + ln(1-y²)/2``, a = 0.147),
    then polish with Newton's method on ``erf(x) - y = 0`` (``erf' = 2/√π·e^(-x²)``): each step
    squares the error, so four steps take 2e-3 to the rounding error of float64."""
    y = _f64(xp, y)
    inside = xp.abs(y) < 1.0
    yc = xp.where(inside, y, 0.0)  # keep ±1 and NaN out of the iteration
    a = 0.147
    ln = xp.log1p(-yc * yc)
    b = 2.0 / (xp.pi * a) + ln / 2.0
    x = xp.sign(yc) * xp.sqrt(xp.sqrt(b * b - ln / a) - b)
    for _ in range(4):
        step = (erf_array(xp, x) - yc) * (_SQRT_PI / 2.0) * xp.exp(x * x)
        x = x - step
    edge = xp.where(xp.abs(y) == 1.0, xp.copysign(xp.asarray(xp.inf, dtype=xp.float64), y), xp.nan)
    return xp.where(inside, x, edge)


def lgamma_array(xp: Any, x: Any) -> Any:
    """``log|Γ(x)|``: Lanczos' formula in log form (no overflow: ``lgamma(1e30)`` is 6.8e31) for
    x ≥ ½, and the reflection formula ``log|Γ(x)| = log(π/|sin(πx)|) - log|Γ(1-x)|`` below.
    The poles (0, -1, -2 …) and ±inf give +inf, as in PyTorch."""
    x = _f64(xp, x)
    refl = x < 0.5
    z = xp.where(refl, 1.0 - x, x) - 1.0  # Γ(z + 1) with z + 1 ≥ ½
    z = xp.where(xp.isfinite(z), z, 1.0)  # (±inf and NaN are put back at the end)
    s = xp.full(x.shape, _LANCZOS[0], dtype=xp.float64) if x.ndim else xp.asarray(_LANCZOS[0])
    for k, c in enumerate(_LANCZOS[1:], start=1):
        s = s + c / (z + k)
    t = z + _LANCZOS_G + 0.5
    with np.errstate(all="ignore"):
        lg = _LOG_SQRT_2PI + (z + 0.5) * xp.log(t) - t + xp.log(s)
        # sin(πx) computed on x's distance to the nearest integer keeps its accuracy for large |x|
        frac = x - xp.round(x)
        sin_pi = xp.abs(xp.sin(xp.pi * frac))
        lg = xp.where(refl, xp.log(xp.pi / sin_pi) - lg, lg)
    lg = xp.where(refl & (frac == 0), xp.inf, lg)  # the poles
    return xp.where(xp.isinf(x), xp.inf, xp.where(xp.isnan(x), x, lg))


def digamma_array(xp: Any, x: Any) -> Any:
    """ψ(x) = d/dx log Γ(x).

    For x > 0: step up with ``ψ(x) = ψ(x+1) - 1/x`` until x ≥ 10, then the asymptotic series
    ``ψ(x) ≈ ln x - 1/(2x) - Σ B₂ₖ/(2k·x²ᵏ)`` (six terms: error < 1e-16 from x = 10 on).
    For x ≤ 0: the reflection ``ψ(x) = ψ(1-x) - π/tan(πx)``.  As PyTorch: ψ(±0) = ∓inf,
    NaN at the negative integers and at -inf, +inf at +inf."""
    x = _f64(xp, x)
    refl = x <= 0
    v = xp.where(refl, 1.0 - x, x)
    v = xp.where(xp.isfinite(v), v, 10.0)
    acc = xp.zeros_like(v)
    for _ in range(10):
        low = v < 10.0
        acc = acc - xp.where(low, 1.0 / v, 0.0)
        v = xp.where(low, v + 1.0, v)
    w = 1.0 / (v * v)
    tail = w * (1 / 12 - w * (1 / 120 - w * (1 / 252 - w * (1 / 240 - w * (1 / 132 - w * (691 / 32760))))))
    psi = acc + xp.log(v) - 0.5 / v - tail
    with np.errstate(all="ignore"):
        frac = x - xp.round(x)
        psi = xp.where(refl, psi - xp.pi / xp.tan(xp.pi * frac), psi)
    psi = xp.where(refl & (frac == 0), xp.nan, psi)  # the negative integers
    psi = xp.where(x == 0, xp.where(xp.signbit(x), xp.inf, -xp.inf), psi)
    psi = xp.where(x == xp.inf, xp.inf, xp.where(x == -xp.inf, xp.nan, psi))
    return xp.where(xp.isnan(x), x, psi)


def _hurwitz_zeta(xp: Any, s: int, q: Any) -> Any:
    """ζ(s, q) = Σₖ (q+k)^-s for an integer s ≥ 2: the first terms summed until q ≥ 12, then
    Euler-Maclaurin's tail ``q^(1-s)/(s-1) + q^-s/2 + Σ B₂ⱼ/(2j)!·s(s+1)…(s+2j-2)·q^(-s-2j+1)``."""
    acc = xp.zeros_like(q)
    with np.errstate(all="ignore"):
        for _ in range(12):
            low = q < 12.0
            acc = acc + xp.where(low, q ** -s, 0.0)
            q = xp.where(low, q + 1.0, q)
        tail = q ** (1 - s) / (s - 1) + 0.5 * q ** -s
        bernoulli = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
        rising, fact = float(s), 2.0  # s(s+1)…(s+2j-2) and (2j)!
        for j, b in enumerate(bernoulli, start=1):
            tail = tail + b / fact * rising * q ** (-s - 2 * j + 1)
            rising *= (s + 2 * j - 1) * (s + 2 * j)
            fact *= (2 * j + 1) * (2 * j + 2)
    return acc + tail


def polygamma_array(xp: Any, n: int, x: Any) -> Any:
    """ψ⁽ⁿ⁾(x), the n-th derivative of ψ: ``(-1)^(n+1)·n!·ζ(n+1, x)`` for n ≥ 1 (x > 0; the
    poles x = 0, -1, … give ±inf as in PyTorch), ψ itself for n = 0."""
    if n == 0:
        return digamma_array(xp, x)
    x = _f64(xp, x)
    sign_fact = (-1.0) ** (n + 1) * math.factorial(n)
    out = sign_fact * _hurwitz_zeta(xp, n + 1, x)
    pole = (x <= 0) & (x == xp.round(x))
    out = xp.where(pole, sign_fact * xp.inf, out)
    return xp.where(x == xp.inf, 0.0 if n == 1 else xp.nan, out)  # (PyTorch: NaN at +inf from n = 2 on)


def bessel_i_array(xp: Any, x: Any, nu: int) -> Any:
    """The modified Bessel function of the first kind, I₀ or I₁ (``nu``): I₀ is ``torch.i0``,
    I₁ its derivative.

    For |x| ≤ 20 the power series ``Σₖ (x/2)^(2k+ν) / (k!·(k+ν)!)`` (70 terms reach float64's
    rounding there); beyond, the asymptotic expansion
    ``e^|x|/√(2π|x|) · Σₖ (-1)^k·∏ⱼ₌₁ᵏ(4ν² - (2j-1)²) / (k!·(8|x|)^k)`` (20 terms: error < 1e-13).
    I₀ is even, I₁ odd."""
    x = _f64(xp, x)
    ax = xp.abs(x)
    small = xp.minimum(ax, 20.0)
    h2 = (small / 2.0) ** 2
    term = (small / 2.0) ** nu / math.factorial(nu)
    series = term
    for k in range(1, 70):
        term = term * h2 / (k * (k + nu))
        series = series + term
    big = xp.maximum(ax, 20.0)
    coef, tail = 1.0, xp.ones_like(big)
    for k in range(1, 20):
        coef *= -(4 * nu * nu - (2 * k - 1) ** 2) / (k * 8.0)
        tail = tail + coef / big ** k
    with np.errstate(all="ignore"):
        asym = xp.exp(big) / xp.sqrt(2.0 * xp.pi * big) * tail
    out = xp.where(ax <= 20.0, series, asym)
    return xp.where(x < 0, -out, out) if nu % 2 else out
