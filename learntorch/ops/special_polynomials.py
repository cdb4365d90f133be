"""The classical orthogonal polynomials of ``torch.special``, on arrays: Chebyshev's T, U, V, W
(and their shifted forms on [0, 1]), Hermite's H (physicists') and He (probabilists'),
Laguerre's L and Legendre's P, each of degree ``n`` (an integer array; a negative degree gives 0).

Computed as PyTorch computes them, in the result's own dtype (float32 stays float32), so that
the rounding errors are alike too:

* the three-term recurrences (Abramowitz & Stegun 22.7), e.g. ``T_{k+1} = 2x·T_k - T_{k-1}``;
* for the Chebyshev families inside (-1, 1) and a degree above a small threshold, their
  trigonometric forms (A&S 22.3.15-16; Mason & Handscomb, *Chebyshev Polynomials*, §1.2 for V, W):
  ``T_n = cos nθ``, ``U_n = sin((n+1)θ)/sin θ``, ``V_n = cos((n+½)θ)/cos(θ/2)``,
  ``W_n = sin((n+½)θ)/sin(θ/2)``, ``θ = arccos x``;
* the exact values at the interval's ends (``T_n(-1) = (-1)ⁿ``, ``U_n(1) = n+1`` …);
* Hermite's polynomials are NaN above degree 128 (float32) or 512 (float64), PyTorch's limit.

The shifted polynomials are the plain ones of ``2x - 1``.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["polynomial_array", "POLYNOMIALS"]


def _recur(xp: Any, x: Any, n: Any, todo: Any, p0: Any, p1: Any, step: Callable, first: int = 2) -> Any:
    """Degree n of the sequence p0, p1, step(k, p, q) …, for the elements where ``todo``
    (degrees 0 and 1 included); elsewhere 0 (the caller overwrites those)."""
    out = xp.where(n == 0, p0, p1)
    top = int(xp.max(xp.where(todo, n, 0))) if n.size else 0
    p, q = p0, p1
    for k in range(first, top + 1):
        r = step(k, p, q)
        p, q = q, r
        out = xp.where(n == k, r, out)
    return out


def _parity(n: Any, even: Any, odd: Any, xp: Any) -> Any:
    return xp.where(n % 2 == 0, even, odd)


def _chebyshev(kind: str, shifted: bool) -> Callable:
    """T, U, V or W (``kind``), plain or shifted."""
    threshold = {"t": 6, "u": 8, "v": 8, "w": 8}[kind] if not shifted else {"t": 6, "u": 6, "v": 6, "w": 4}[kind]

    def fn(xp: Any, x: Any, n: Any) -> Any:
        one = x.dtype.type(1.0)
        y = x + x - one if shifted else x
        at_plus = (x == one) if shifted else (y == one)       # y = 1
        at_minus = (x == 0) if shifted else (y == -one)      # y = -1
        n_f = n.astype(x.dtype)
        two_n1 = n_f + n_f + one
        # the values at y = ±1
        plus = {"t": one, "u": n_f + one, "v": one, "w": two_n1}[kind]
        minus = {"t": _parity(n, one, -one, xp), "u": _parity(n, n_f + one, -(n_f + one), xp),
                 "v": _parity(n, two_n1, -two_n1, xp), "w": _parity(n, one, -one, xp)}[kind]
        plus = xp.broadcast_to(xp.asarray(plus, dtype=x.dtype), x.shape)
        inside = (n > threshold) & (xp.abs(y) < one)
        # the trigonometric forms, on the elements inside (-1, 1)
        theta = xp.arccos(xp.where(inside, y, 0))
        if kind == "t":
            trig = xp.cos(n_f * theta)
        elif kind == "u":
            s = xp.sin(theta)
            trig = xp.where(s != 0, xp.sin((n_f + one) * theta) / s, (n_f + one) * xp.cos((n_f + one) * theta) / y)
        elif kind == "v":
            half = theta / 2
            trig = xp.where(xp.sin(half) != one, xp.cos((n_f + 0.5) * theta) / xp.cos(half), minus)
        else:
            half = theta / 2
            trig = xp.where(xp.cos(half) != one, xp.sin((n_f + 0.5) * theta) / xp.sin(half),
                            xp.where(y > 0, plus, minus))
        p1 = {"t": y, "u": y + y, "v": y + y - one, "w": y + y + one}[kind]
        todo = ~inside & ~at_plus & ~at_minus & (n >= 0)
        rec = _recur(xp, x, n, todo, xp.ones_like(x), p1, lambda k, p, q: (y + y) * q - p)
        out = xp.where(inside, trig, rec)
        out = xp.where(at_plus, plus, xp.where(at_minus, minus, out))
        return xp.where(n < 0, 0, out)
    return fn


def _hermite(physicists: bool) -> Callable:
    def fn(xp: Any, x: Any, n: Any) -> Any:
        limit = 128 if x.dtype == np.float32 else 512
        todo = (n >= 0) & (n <= limit)
        if physicists:  # H_{m} = 2x·H_{m-1} - 2(m-1)·H_{m-2}
            rec = _recur(xp, x, n, todo, xp.ones_like(x), x + x, lambda m, p, q: (x + x) * q - (2 * (m - 1)) * p)
        else:  # He_{m} = x·He_{m-1} - (m-1)·He_{m-2}
            rec = _recur(xp, x, n, todo, xp.ones_like(x), x, lambda m, p, q: x * q - (m - 1) * p)
        out = xp.where(n > limit, xp.nan, rec)
        return xp.where(n < 0, 0, out)
    return fn


def _laguerre_step(x: Any, one: Any) -> Callable:
    """``L_{k+1} = ((2k + 1 - x)·L_k - k·L_{k-1}) / (k+1)``, written for the degree m = k+1."""
    return lambda m, p, q: (((2 * (m - 1)) + (one - x)) * q - (m - 1) * p) / m


def _laguerre_fn(xp: Any, x: Any, n: Any) -> Any:
    one = x.dtype.type(1.0)
    rec = _recur(xp, x, n, n >= 0, xp.ones_like(x), one - x, _laguerre_step(x, one))
    out = xp.where(x == 0, one, rec)
    return xp.where(n < 0, 0, out)


def _legendre(xp: Any, x: Any, n: Any) -> Any:
    """``P_{k+1} = ((2k+1)·x·P_k - k·P_{k-1}) / (k+1)``; ±1 at x = ±1."""
    one = x.dtype.type(1.0)
    ends = xp.abs(x) == one
    rec = _recur(xp, x, n, ~ends & (n >= 0), xp.ones_like(x), x,
                 lambda m, p, q: ((2 * m - 1) * x * q - (m - 1) * p) / m)
    out = xp.where(ends, xp.where((x > 0) | (n % 2 == 0), one, -one), rec)
    return xp.where(n < 0, 0, out)


POLYNOMIALS: dict[str, Callable] = {
    **{f"chebyshev_polynomial_{k}": _chebyshev(k, False) for k in "tuvw"},
    **{f"shifted_chebyshev_polynomial_{k}": _chebyshev(k, True) for k in "tuvw"},
    "hermite_polynomial_h": _hermite(True),
    "hermite_polynomial_he": _hermite(False),
    "laguerre_polynomial_l": _laguerre_fn,
    "legendre_polynomial_p": _legendre,
}


def polynomial_array(xp: Any, name: str, x: Any, n: Any) -> Any:
    """The polynomial ``name`` of degree ``n`` (int64, broadcast with ``x``) at ``x`` (a float array
    in the result's dtype)."""
    x, n = xp.broadcast_arrays(x, n)
    with np.errstate(all="ignore"):
        return POLYNOMIALS[name](xp, x, n)
