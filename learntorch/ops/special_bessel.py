"""Bessel functions on arrays, for ``torch.special``: J₀, J₁, Y₀, Y₁ (first and second kind),
the exponentially scaled I₀, I₁, the modified K₀, K₁ (plain and scaled by eˣ), the spherical
j₀ and the Airy function Ai.

Each is computed in float64 from classical formulas (the caller rounds the result to the
tensor's dtype once):

* power series where they converge without much cancellation (small and moderate |x|);
* Hankel's asymptotic expansions for large |x| (Abramowitz & Stegun 9.2.5-9.2.10, 9.7.1-2,
  10.4.60), cut where their terms are smallest;
* for K_ν (and through it Ai on x > 0) the integral ``K_ν(x) = ∫₀^∞ e^(-x·cosh t)·cosh(νt) dt``
  (A&S 9.6.24) by the trapezoidal rule, which converges geometrically for such integrands
  (the error falls like ``exp(-π²/h)`` in the step h).

Against SciPy/PyTorch the float64 results agree to ~1e-12 absolute or better on the test grids
(tests/ops/test_special_more.py).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .special import _f64, bessel_i_array

__all__ = ["bessel_j_array", "bessel_y_array", "bessel_i_scaled_array", "bessel_k_array", "spherical_j0_array",
           "airy_ai_array"]

_EULER = 0.57721566490153286061
_SERIES_MAX = 15.0  # J, Y: the power series below this |x|, Hankel's expansion from it on
_TERMS = 60


def _hankel_pq(xp: Any, nu: int, x: Any) -> tuple:
    """Hankel's P(ν, x), Q(ν, x) (A&S 9.2.9-10): ``a_k(ν) = ∏ⱼ₌₁ᵏ (4ν² - (2j-1)²) / (k!·8ᵏ)``,
    ``P = Σ (-1)ᵏ a₂ₖ/x²ᵏ``, ``Q = Σ (-1)ᵏ a₂ₖ₊₁/x²ᵏ⁺¹``; 30 terms, enough from x = 15 on."""
    mu = 4.0 * nu * nu
    p = xp.ones_like(x)
    q = xp.zeros_like(x)
    coef = 1.0
    inv = 1.0 / x
    power = xp.ones_like(x)
    for k in range(1, 30):
        coef *= (mu - (2 * k - 1) ** 2) / (k * 8.0)
        power = power * inv
        sign = 1.0 if (k // 2) % 2 == 0 else -1.0
        if k % 2:
            q = q + sign * coef * power
        else:
            p = p + sign * coef * power
    return p, q


def _j_series(xp: Any, nu: int, x: Any) -> Any:
    """``J_ν(x) = Σₖ (-1)ᵏ (x/2)^(2k+ν) / (k!·(k+ν)!)`` (A&S 9.1.10)."""
    h2 = -(x / 2.0) ** 2
    term = (x / 2.0) ** nu / math.factorial(nu)
    total = term
    for k in range(1, _TERMS):
        term = term * h2 / (k * (k + nu))
        total = total + term
    return total


def bessel_j_array(xp: Any, x: Any, nu: int) -> Any:
    """J₀ or J₁ (``nu``): the power series for |x| < 15, Hankel's expansion
    ``√(2/(πx))·(P·cos χ - Q·sin χ)``, ``χ = x - (ν/2 + 1/4)π``, beyond.  J₀ is even, J₁ odd;
    PyTorch gives NaN at ±inf (its kernels do not special-case them), and so does this."""
    x = _f64(xp, x)
    ax = xp.abs(x)
    small = _j_series(xp, nu, xp.minimum(ax, _SERIES_MAX))
    big = xp.where(xp.isfinite(ax), xp.maximum(ax, _SERIES_MAX), _SERIES_MAX)
    p, q = _hankel_pq(xp, nu, big)
    chi = big - (nu / 2.0 + 0.25) * math.pi
    asym = xp.sqrt(2.0 / (math.pi * big)) * (p * xp.cos(chi) - q * xp.sin(chi))
    out = xp.where(ax < _SERIES_MAX, small, xp.where(xp.isinf(ax), xp.nan, asym))  # (±inf: NaN, as PyTorch)
    if nu % 2:
        out = xp.where(x < 0, -out, out)
    return xp.where(xp.isnan(x), x, out)


def bessel_y_array(xp: Any, x: Any, nu: int) -> Any:
    """Y₀ or Y₁: for 0 < x < 15 the series of A&S 9.1.13 and 9.1.11,
    ``Y₀ = (2/π)(ln(x/2) + γ)·J₀ + (2/π)·Σ (-1)^(k+1) Hₖ (x²/4)ᵏ/(k!)²`` and
    ``Y₁ = -2/(πx) + (2/π)·ln(x/2)·J₁ - (1/π)·Σ (-1)ᵏ (ψ(k+1)+ψ(k+2)) (x/2)^(2k+1)/(k!(k+1)!)``;
    Hankel's ``√(2/(πx))·(P·sin χ + Q·cos χ)`` beyond.  -inf at 0, NaN for x < 0 and (as PyTorch) at +inf."""
    x = _f64(xp, x)
    xs = xp.clip(x, 1e-300, _SERIES_MAX)
    h2 = (xs / 2.0) ** 2
    with np.errstate(all="ignore"):
        log_half = xp.log(xs / 2.0)
        if nu == 0:
            term = xp.ones_like(xs)
            harmonic = 0.0
            acc = xp.zeros_like(xs)
            for k in range(1, _TERMS):
                term = term * -h2 / (k * k)
                harmonic += 1.0 / k
                acc = acc - harmonic * term
            small = (2.0 / math.pi) * ((log_half + _EULER) * _j_series(xp, 0, xs) + acc)
        else:
            term = xs / 2.0
            psi_sum = 2.0 * -_EULER + 1.0  # ψ(1) + ψ(2)
            acc = psi_sum * term
            for k in range(1, _TERMS):
                term = term * -h2 / (k * (k + 1))
                psi_sum += 1.0 / k + 1.0 / (k + 1)
                acc = acc + psi_sum * term
            small = -2.0 / (math.pi * xs) + (2.0 / math.pi) * log_half * _j_series(xp, 1, xs) - acc / math.pi
    big = xp.where(xp.isfinite(x), xp.maximum(x, _SERIES_MAX), _SERIES_MAX)
    p, q = _hankel_pq(xp, nu, big)
    chi = big - (nu / 2.0 + 0.25) * math.pi
    asym = xp.sqrt(2.0 / (math.pi * big)) * (p * xp.sin(chi) + q * xp.cos(chi))
    out = xp.where(x < _SERIES_MAX, small, xp.where(x == xp.inf, xp.nan, asym))
    out = xp.where(x == 0, -xp.inf, xp.where(x < 0, xp.nan, out))
    return xp.where(xp.isnan(x), x, out)


def bessel_i_scaled_array(xp: Any, x: Any, nu: int) -> Any:
    """``e^(-|x|)·I_ν(x)`` (``i0e``, ``i1e``): the power series times e^(-|x|) for |x| ≤ 20
    (:func:`ops.special.bessel_i_array`), and Hankel's expansion without its exponential
    (``Σₖ (-1)ᵏ a_k(ν)/xᵏ / √(2π|x|)``, A&S 9.7.1) beyond, so nothing overflows."""
    x = _f64(xp, x)
    ax = xp.abs(x)
    small = bessel_i_array(xp, xp.minimum(ax, 20.0), nu) * xp.exp(-xp.minimum(ax, 20.0))
    big = xp.where(xp.isfinite(ax), xp.maximum(ax, 20.0), 20.0)
    coef, tail = 1.0, xp.ones_like(big)
    for k in range(1, 20):
        coef *= -(4 * nu * nu - (2 * k - 1) ** 2) / (k * 8.0)
        tail = tail + coef / big ** k
    asym = tail / xp.sqrt(2.0 * math.pi * big)
    out = xp.where(ax <= 20.0, small, xp.where(xp.isinf(ax), 0.0, asym))
    if nu % 2:
        out = xp.where(x < 0, -out, out)
    return xp.where(xp.isnan(x), x, out)


def _k_integral(xp: Any, x: Any, nu: float) -> Any:
    """``eˣ·K_ν(x) = ∫₀^∞ e^(-x(cosh t - 1))·cosh(νt) dt`` for x ≥ 1/2 by the trapezoidal rule:
    100 steps of ``h = 0.2·min(1, 2/√x)`` (the integrand's width shrinks like 1/√x; at the last
    point it is below e^-700)."""
    h = 0.2 * xp.minimum(1.0, 2.0 / xp.sqrt(x))
    total = 0.5 * xp.ones_like(x)  # t = 0, half weight
    with np.errstate(all="ignore"):
        for i in range(1, 101):
            t = i * h
            total = total + xp.exp(-x * (xp.cosh(t) - 1.0)) * xp.cosh(nu * t)
    return total * h


def bessel_k_array(xp: Any, x: Any, nu: int, scaled: bool = False) -> Any:
    """K₀ or K₁, or ``eˣ·K_ν(x)`` with ``scaled``: for 0 < x ≤ 1 the series of A&S 9.6.13 and
    9.6.11, ``K₀ = -(ln(x/2) + γ)·I₀ + Σ Hₖ (x²/4)ᵏ/(k!)²`` and
    ``K₁ = 1/x + ln(x/2)·I₁ - (x/4)·Σ (ψ(k+1)+ψ(k+2)) (x²/4)ᵏ/(k!(k+1)!)``; beyond, the integral of
    :func:`_k_integral`.  +inf at 0, NaN for x < 0, 0 at +inf."""
    x = _f64(xp, x)
    xs = xp.clip(x, 1e-300, 1.0)
    h2 = (xs / 2.0) ** 2
    log_half = xp.log(xs / 2.0)
    if nu == 0:
        term = xp.ones_like(xs)
        harmonic = 0.0
        acc = xp.zeros_like(xs)
        for k in range(1, 30):
            term = term * h2 / (k * k)
            harmonic += 1.0 / k
            acc = acc + harmonic * term
        small = -(log_half + _EULER) * bessel_i_array(xp, xs, 0) + acc
    else:
        term = xp.ones_like(xs)
        psi_sum = 1.0 - 2.0 * _EULER
        acc = psi_sum * term
        for k in range(1, 30):
            term = term * h2 / (k * (k + 1))
            psi_sum += 1.0 / k + 1.0 / (k + 1)
            acc = acc + psi_sum * term
        small = 1.0 / xs + log_half * bessel_i_array(xp, xs, 1) - xs / 4.0 * acc
    if scaled:
        small = small * xp.exp(xs)
    big = xp.where(xp.isfinite(x), xp.maximum(x, 1.0), 1.0)
    with np.errstate(all="ignore"):
        large = _k_integral(xp, big, float(nu))
        if not scaled:
            large = large * xp.exp(-big)
    out = xp.where(x <= 1.0, small, xp.where(x == xp.inf, 0.0, large))
    out = xp.where(x == 0, xp.inf, xp.where(x < 0, xp.nan, out))
    return xp.where(xp.isnan(x), x, out)


def spherical_j0_array(xp: Any, x: Any) -> Any:
    """j₀(x) = sin(x)/x; near 0 its Taylor series ``1 - x²/6 + x⁴/120 - x⁶/5040``; 0 at ±inf."""
    x = _f64(xp, x)
    with np.errstate(all="ignore"):
        direct = xp.sin(x) / x
    x2 = x * x
    taylor = 1.0 - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0)))
    out = xp.where(xp.abs(x) < 0.5, taylor, xp.where(xp.isinf(x), 0.0, direct))
    return xp.where(xp.isnan(x), x, out)


_AI0 = 0.35502805388781723926  # Ai(0) = 3^(-2/3)/Γ(2/3)
_AIP0 = 0.25881940379280679840  # -Ai'(0) = 3^(-1/3)/Γ(1/3)


def airy_ai_array(xp: Any, x: Any) -> Any:
    """The Airy function Ai(x).

    * -8 < x < 1: Maclaurin's series ``Ai = c₁·f - c₂·g`` (A&S 10.4.2-3), ``f = Σ 3ᵏ(1/3)ₖ x³ᵏ/(3k)!``,
      ``g = Σ 3ᵏ(2/3)ₖ x³ᵏ⁺¹/(3k+1)!``;
    * x ≥ 1: ``Ai(x) = (1/π)·√(x/3)·K_{1/3}(ζ)``, ``ζ = (2/3)x^(3/2)`` (A&S 10.4.14), K by the
      integral of :func:`_k_integral` (scaled, times e^-ζ: underflows to 0 cleanly);
    * x ≤ -8: the asymptotic form ``π^(-1/2)·|x|^(-1/4)·(sin(ζ+π/4)·Σ(-1)ᵏc₂ₖζ^-2k -
      cos(ζ+π/4)·Σ(-1)ᵏc₂ₖ₊₁ζ^(-2k-1))`` (A&S 10.4.60), ``c_k = Γ(3k+½)/(54ᵏ k! Γ(k+½))``.
    NaN at ±inf, as PyTorch."""
    x = _f64(xp, x)
    xs = xp.clip(x, -8.0, 1.0)
    x3 = xs * xs * xs
    f = xp.ones_like(xs)
    g = xs.copy() if hasattr(xs, "copy") else xs + 0.0
    tf, tg = f, g
    for k in range(1, 40):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f = f + tf
        g = g + tg
    series = _AI0 * f - _AIP0 * g
    # x ≥ 1
    xp_ = xp.where(xp.isfinite(x), xp.maximum(x, 1.0), 1.0)
    zeta = (2.0 / 3.0) * xp_ * xp.sqrt(xp_)
    with np.errstate(all="ignore"):
        pos = xp.sqrt(xp_ / 3.0) / math.pi * _k_integral(xp, zeta, 1.0 / 3.0) * xp.exp(-zeta)
    # x ≤ -8
    z = xp.where(xp.isfinite(x), xp.maximum(-x, 8.0), 8.0)
    zeta = (2.0 / 3.0) * z * xp.sqrt(z)
    inv = 1.0 / zeta
    p, q = xp.ones_like(zeta), xp.zeros_like(zeta)
    c, power = 1.0, xp.ones_like(zeta)
    for k in range(1, 24):
        c *= (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216.0 * k)
        power = power * inv
        sign = 1.0 if (k // 2) % 2 == 0 else -1.0
        if k % 2:
            q = q + sign * c * power
        else:
            p = p + sign * c * power
    theta = zeta + math.pi / 4
    neg = (xp.sin(theta) * p - xp.cos(theta) * q) / (math.sqrt(math.pi) * z ** 0.25)
    out = xp.where(x >= 1.0, pos, xp.where(x > -8.0, series, neg))
    out = xp.where(xp.isinf(x), xp.nan, out)  # (PyTorch's NaN)
    return xp.where(xp.isnan(x), x, out)
