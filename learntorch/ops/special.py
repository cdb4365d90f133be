"""Special functions on arrays: the error function ``erf``, for ``torch.erf`` and GELU.

Why a module of its own, in ``ops``: NumPy has no ``erf``, and both an operation
(``torch.erf``, ops/arrange.py) and a layer (GELU, nn/functional.py) need one.
Kept here, below both, so that ops never import from nn.
"""
from __future__ import annotations

from typing import Any

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
