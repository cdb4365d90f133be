"""``standard_gamma(alpha)``: Gamma(alpha, 1) draws that gradients flow through.

The sampler is Marsaglia and Tsang's (2000) squeeze-and-reject method: for
``alpha >= 1`` propose ``d (1 + c z)^3`` with ``z ~ N(0, 1)``, ``d = alpha - 1/3``,
``c = 1 / sqrt(9 d)``, and accept with a cheap test; below 1, draw Gamma(alpha + 1)
and multiply by ``u^(1/alpha)``.  It is not torch's sampler, so the numbers differ
from torch's; the distribution is the same.

The gradient is *implicit* reparameterisation (Figurnov et al., 2018), as torch's:
a draw is ``x = F^-1(u; alpha)`` for a uniform ``u`` held fixed, so differentiating
``F(x; alpha) = u`` gives ``dx/dalpha = -(dF/dalpha) / p(x; alpha)``.  ``F`` is the
regularised incomplete gamma function, whose ``alpha``-derivative has no closed
form: a centred difference in float64 is accurate far beyond float32.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..creation import _finish, _generator
from ..ops.special import lgamma_array
from ..ops.special_gamma import igamma_array
from ..tensor import Tensor


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy(), dtype=np.float64)


def _marsaglia_tsang(gen: Any, alpha: np.ndarray) -> np.ndarray:
    """Gamma(alpha, 1) draws for ``alpha >= 1`` (flat float64), rejecting until all are accepted."""
    d = alpha - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.empty_like(alpha)
    pending = np.arange(alpha.size)
    while pending.size:
        z = gen.normal(pending.size, np.float64)
        u = gen.uniform(pending.size, np.float64)
        dp, cp = d[pending], c[pending]
        v = (1.0 + cp * z) ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (v > 0) & (np.log(u) < 0.5 * z * z + dp - dp * v + dp * np.log(v))
        out[pending[ok]] = (dp * v)[ok]
        pending = pending[~ok]
    return out


def sample_standard_gamma(gen: Any, alpha: np.ndarray) -> np.ndarray:
    """Gamma(alpha, 1) draws of ``alpha``'s shape, in float64 (``alpha > 0``)."""
    flat = alpha.reshape(-1)
    boosted = np.where(flat < 1, flat + 1.0, flat)
    draws = _marsaglia_tsang(gen, boosted)
    small = flat < 1
    if small.any():
        # Gamma(a) = Gamma(a + 1) * U^(1/a); in logs, so that tiny a does not underflow early
        u = gen.uniform(int(small.sum()), np.float64)
        with np.errstate(divide="ignore"):
            draws[small] = np.exp(np.log(draws[small]) + np.log(u) / flat[small])
    return draws.reshape(alpha.shape)


def _gammainc(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``P(a, x)``, with the points its power series suits (``x < a + 1``) and those its
    continued fraction suits evaluated apart: each loop then stops as soon as its own
    points converge, several times faster than one call over the mixture."""
    out = np.empty(np.broadcast(a, x).shape)
    a, x = np.broadcast_arrays(a, x)
    series = x < a + 1
    for part in (series, ~series):
        if part.any():
            out[part] = igamma_array(np, a[part], x[part])
    return out


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dx/dalpha`` at fixed CDF level: ``-(dP(alpha, x)/dalpha) / p(x; alpha)``."""
    h = 1e-4 * np.minimum(alpha, 1.0)
    dcdf = (_gammainc(alpha + h, x) - _gammainc(alpha - h, x)) / (2 * h)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_pdf = (alpha - 1) * np.log(x) - x - lgamma_array(np, alpha)
        grad = -dcdf / np.exp(log_pdf)
    return np.where(np.isfinite(grad), grad, 0.0)


class _StandardGamma(Function):
    _backward_name = "StandardGammaBackward0"

    @staticmethod
    def forward(ctx: Any, alpha: Tensor, gen: Any) -> Tensor:
        a = _host(alpha)
        x = np.maximum(sample_standard_gamma(gen, a), np.finfo(alpha.dtype._np).tiny).astype(alpha.dtype._np)
        ctx.alpha_x = (a, x)  # dx/dalpha is worked out in backward: sampling alone need not pay for it
        return _finish(x, alpha.device, False)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        a, x = ctx.alpha_x
        dx_dalpha = standard_gamma_grad(a, x.astype(np.float64)).astype(grad.dtype._np)
        return grad * _finish(dx_dalpha, grad.device, False), None


def standard_gamma(alpha: Tensor, generator: Any = None) -> Tensor:
    """One Gamma(alpha, 1) draw per element of ``alpha`` (like ``torch._standard_gamma``),
    differentiable with respect to ``alpha``."""
    return _StandardGamma.apply(alpha, _generator(generator))
