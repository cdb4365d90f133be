"""``nn.AdaptiveLogSoftmaxWithLoss`` against real PyTorch (the oracle): the same submodules and
parameter names, the same weights for a seed, the same ``(output, loss)``, gradients,
``log_prob`` and ``predict`` (rows answered by the head alone, by the clusters, and both in one
batch), and PyTorch's errors."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import assert_same, raises_both

RNG = np.random.default_rng(31)
X = RNG.standard_normal((7, 8)).astype(np.float32)
TARGETS = np.array([0, 4, 5, 11, 12, 19, 7])


def _make(T: Any, **kw: Any) -> Any:
    T.manual_seed(0)
    return T.nn.AdaptiveLogSoftmaxWithLoss(8, 20, **{"cutoffs": [5, 12], "div_value": 2.0, **kw})


@pytest.mark.parametrize("kw", [{}, {"head_bias": True}, {"cutoffs": [3]}, {"div_value": 2.0, "cutoffs": [2, 6, 10]}])
def test_forward_backward_log_prob_predict(torch_oracle: Any, kw: dict) -> None:
    def run(T: Any) -> tuple:
        m = _make(T, **kw)
        x = T.tensor(X, requires_grad=True)
        out = m(x, T.tensor(TARGETS))
        out.loss.backward()
        with T.no_grad():
            table = m.log_prob(x)
            # scaled rows push the head's choice towards the clusters or the shortlist: both paths of predict
            picks = [m.predict(x * s) for s in (1.0, 8.0, -8.0)]
        names = [(n, tuple(p.shape)) for n, p in m.named_parameters()]
        return (out.output, out.loss, x.grad, m.head.weight.grad, table, picks, m(x[0], T.tensor(TARGETS[0])).output,
                type(out).__name__, out._fields, names, repr(m))
    assert_same(run(lt), run(torch_oracle), rtol=1e-5, atol=1e-6, check_grad_fn=False)


@pytest.mark.parametrize("case, match", [
    (lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[12, 5]), "sorted in an increasing order"),
    (lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[5, 20]), "between 1 and n_classes-1"),
    (lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[]), "length larger than 0"),
    (lambda T: _make(T)(T.zeros(2, 8), T.tensor([0, 20])), r"Target values should be in \[0, 19\]"),
    (lambda T: _make(T)(T.zeros(2, 8), T.tensor([0, 1, 2])), "same size in the batch dimension"),
    (lambda T: _make(T)(T.zeros(2, 8), T.zeros(2, 1, dtype=T.int64)), "multi-target not supported"),
    (lambda T: _make(T)(T.zeros(2, 3, 8), T.tensor([1, 2])), "1D target tensor expects 2D input"),
])
def test_errors(torch_oracle: Any, case: Any, match: str) -> None:
    raises_both(case, torch_oracle, match=match)
