"""Connectionist Temporal Classification (CTC): the loss of a sequence labelling whose alignment
to the input is unknown (speech -> letters), ``F.ctc_loss``.

A target ``l`` (say "cat") can be read off ``T`` frames in many ways: every frame emits a
letter or the *blank*, repeated letters merge unless a blank separates them.  The loss is
``-log`` of the total probability of all those readings.  Summing over them is a dynamic
programme over the *extended* target ``l'`` = blank, c, blank, a, blank, t, blank:

* forward variables ``α_t(s)``: log-probability of the readings of frames ``0..t`` that end in
  ``l'_s``; ``α_t(s) = logsumexp(α_{t-1}(s), α_{t-1}(s-1), α_{t-1}(s-2)) + log p_t(l'_s)``, where the
  jump over ``s-1`` is allowed only onto a letter that differs from ``l'_{s-2}``;
* backward variables ``β_t(s)``: the same from the end (frames ``t..T-1``, starting in ``l'_s``).

``loss = -logsumexp(α_{T-1}(last two))``.  Backward, as PyTorch computes it: with
``lcab(t, c) = logsumexp over s with l'_s = c of α_t(s) + β_t(s)`` (both count frame t's
emission, hence the ``- lp`` below), the gradient sent to ``log_probs`` is
``exp(lp) - exp(lcab + loss - lp)``.  That is the gradient with respect to the *logits* when
``log_probs`` comes from ``log_softmax`` (PyTorch's documented use); ``log_softmax``'s backward
then passes it through unchanged, because it sums to 0 over the classes.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays import to_numpy
from ..autograd.function import Function
from ..tensor import Tensor
from .common import new_result

__all__ = ["CtcLoss"]

_NEG_INF = -np.inf


def _logsumexp(*terms: np.ndarray) -> np.ndarray:
    stacked = np.stack(terms)
    top = stacked.max(axis=0)
    safe = np.where(np.isfinite(top), top, 0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(stacked - safe).sum(axis=0))


def _extended(target: np.ndarray, blank: int) -> tuple[np.ndarray, np.ndarray]:
    """``l'`` (blanks around and between the labels) and where the skip over ``s-1`` is allowed."""
    ext = np.full(2 * len(target) + 1, blank, dtype=np.int64)
    ext[1::2] = target
    skip = np.zeros(len(ext), dtype=bool)
    skip[3::2] = ext[3::2] != ext[1:-2:2]  # a letter may follow the previous letter directly if it differs
    return ext, skip


def _shift(a: np.ndarray, by: int) -> np.ndarray:
    out = np.full_like(a, _NEG_INF)
    out[by:] = a[:-by] if by < len(a) else out[by:]
    return out


def _alphas(lp: np.ndarray, ext: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """``α`` for one sample: ``lp`` is (frames, classes) of log-probabilities."""
    alpha = np.full((lp.shape[0], len(ext)), _NEG_INF, dtype=lp.dtype)
    alpha[0, 0] = lp[0, ext[0]]
    if len(ext) > 1:
        alpha[0, 1] = lp[0, ext[1]]
    for t in range(1, lp.shape[0]):
        prev = alpha[t - 1]
        jump = np.where(skip, _shift(prev, 2), _NEG_INF)
        alpha[t] = _logsumexp(prev, _shift(prev, 1), jump) + lp[t, ext]
    return alpha


def _betas(lp: np.ndarray, ext: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """``β`` for one sample, computed as ``α`` of the reversed problem."""
    rev_skip = np.zeros_like(skip)
    rev_skip[:-2] = skip[2:]  # (the skip from s+2 back to s is allowed when the one from s to s+2 is)
    beta = np.full((lp.shape[0], len(ext)), _NEG_INF, dtype=lp.dtype)
    last = lp.shape[0] - 1
    beta[last, -1] = lp[last, ext[-1]]
    if len(ext) > 1:
        beta[last, -2] = lp[last, ext[-2]]
    for t in range(last - 1, -1, -1):
        nxt = beta[t + 1]
        ahead1 = np.full_like(nxt, _NEG_INF)
        ahead1[:-1] = nxt[1:]
        ahead2 = np.full_like(nxt, _NEG_INF)
        ahead2[:-2] = nxt[2:]
        beta[t] = _logsumexp(nxt, ahead1, np.where(rev_skip, ahead2, _NEG_INF)) + lp[t, ext]
    return beta


class CtcLoss(Function):
    """Per-sample CTC losses (N,) of ``log_probs`` (T, N, C); see the module docstring."""

    _backward_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, log_probs: Tensor, targets: list, input_lengths: list, target_lengths: list, blank: int,
                zero_infinity: bool) -> Tensor:
        lp_all = to_numpy(log_probs._data)  # (a loop over frames: on the host, whatever the device)
        losses = np.zeros(lp_all.shape[1], dtype=lp_all.dtype)
        keep = []
        for n, (target, frames) in enumerate(zip(targets, input_lengths)):
            ext, skip = _extended(target, blank)
            alpha = _alphas(lp_all[:frames, n], ext, skip)
            loss = -_logsumexp(*alpha[frames - 1, -2:]) if len(ext) > 1 else -alpha[frames - 1, -1]
            losses[n] = loss
            keep.append((ext, skip, alpha))
        ctx.lp, ctx.keep, ctx.losses = lp_all, keep, losses.copy()
        ctx.input_lengths, ctx.zero_infinity = input_lengths, zero_infinity
        # (with zero_infinity the caller turns the infinite losses to 0 with ``where``, as PyTorch does)
        return new_result(log_probs._backend.asarray(losses), log_probs)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        lp_all = ctx.lp
        g_out = to_numpy(grad._data).astype(lp_all.dtype).reshape(-1)
        out = np.zeros_like(lp_all)
        for n, ((ext, skip, alpha), frames) in enumerate(zip(ctx.keep, ctx.input_lengths)):
            loss = ctx.losses[n]
            if np.isinf(loss) and ctx.zero_infinity:  # a zeroed loss sends no gradient (not inf * 0 = NaN)
                continue
            lp = lp_all[:frames, n]
            ab = alpha + _betas(lp, ext, skip)
            lcab = np.full_like(lp, _NEG_INF)
            for c in np.unique(ext):
                lcab[:, c] = _logsumexp(*ab[:, ext == c].T)
            with np.errstate(over="ignore", invalid="ignore"):
                out[:frames, n] = (np.exp(lp) - np.exp(lcab + loss - lp)) * g_out[n]
        return new_result(grad._backend.asarray(out), grad), None, None, None, None, None


def check_lengths(name: str, lengths: Any, batch: int) -> list:
    """Lengths given as a tuple/list of ints or as a tensor, as PyTorch accepts them."""
    values = [int(v) for v in (lengths.tolist() if isinstance(lengths, Tensor) else lengths)]
    if len(values) != batch:
        raise RuntimeError(f"Expected tensor to have size at least {batch} at dimension 1, but got size "
                           f"{len(values)} for argument #2 '{name}' (while checking arguments for ctc_loss_cpu)")
    return values
