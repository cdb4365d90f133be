"""The fused GRU and LSTM gates (ops/rnn_cells.py): first and second derivatives by finite
differences, and the same numbers as the cell written with tensor operations."""
from __future__ import annotations

import numpy as np
import pytest

import learntorch as lt
from learntorch.ops.rnn_cells import gru_cell, lstm_cell

RNG = np.random.default_rng(0)


def _t(*shape: int) -> lt.Tensor:
    return lt.tensor(RNG.standard_normal(shape), dtype=lt.float64, requires_grad=True)


@pytest.mark.parametrize("check", [lt.autograd.gradcheck, lt.autograd.gradgradcheck])
def test_gru_cell_derivatives(check):
    assert check(gru_cell, (_t(3, 6), _t(3, 6), _t(3, 2)))


@pytest.mark.parametrize("check", [lt.autograd.gradcheck, lt.autograd.gradgradcheck])
def test_lstm_cell_derivatives(check):
    assert check(lstm_cell, (_t(3, 8), _t(3, 8), _t(3, 2)))


def test_lstm_cell_with_one_output_unused():
    """The gradient of c' missing (only h' used): materialized as zeros, as for any Function."""
    gi, gh, c = _t(2, 8), _t(2, 8), _t(2, 2)
    h, _ = lstm_cell(gi, gh, c)
    h.sum().backward()
    assert gi.grad is not None and c.grad is not None
    lt.testing.assert_close(gi.grad, gh.grad)


def test_fused_gru_matches_the_composed_formula():
    gi, gh, h = _t(4, 9), _t(4, 9), _t(4, 3)
    H = 3
    r = (gi[:, :H] + gh[:, :H]).sigmoid()
    z = (gi[:, H:2 * H] + gh[:, H:2 * H]).sigmoid()
    n = (gi[:, 2 * H:] + gh[:, 2 * H:] * r).tanh()
    composed = (1 - z) * n + z * h
    fused = gru_cell(gi, gh, h)
    lt.testing.assert_close(fused, composed)
    grads = lt.autograd.grad(composed.sum(), (gi, gh, h))
    fused_grads = lt.autograd.grad(fused.sum(), (gi, gh, h))
    for a, b in zip(fused_grads, grads):
        lt.testing.assert_close(a, b)
    assert fused.grad_fn.name() == "AddBackward0"  # PyTorch CPU cell's last op (.add_)
