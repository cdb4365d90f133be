"""What a reduction's backward hands on: a plain backward now builds these gradients on the
arrays (``ops/reduction.py``, ``ops/common.py: sum_to``), so check that they are still what
PyTorch hands on -- a stride-0 view after ``sum`` (its ``expand``), a fresh row-major tensor
after ``mean`` (expand, then divide) -- with the same values, and the same ``.grad``."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt

CASES = {
    "sum": lambda x: x.sum(),
    "sum_dim": lambda x: x.sum(1),
    "sum_dims_keepdim": lambda x: x.sum((0, 2), keepdim=True),
    "mean": lambda x: x.mean(),
    "mean_dim": lambda x: x.mean(-1),
    "broadcast_add": lambda x: x + x[:1, :, :1],  # sum_to: the broadcast operand's gradient summed back
}


def _run(T: Any, name: str) -> tuple:
    x = T.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append((g._is_view(), tuple(g.stride()), g.is_contiguous(), g.detach().clone())))
    out = CASES[name](x)
    out.backward(T.ones_like(out) * 0.5)
    return seen, x.grad


@pytest.mark.parametrize("name", list(CASES))
def test_gradient_layout_and_values_match_torch(name: str, torch_oracle: Any) -> None:
    (lt_seen, lt_grad), (t_seen, t_grad) = _run(lt, name), _run(torch_oracle, name)
    assert [s[:3] for s in lt_seen] == [s[:3] for s in t_seen]
    for (*_, a), (*_, b) in zip(lt_seen, t_seen):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=0)
    np.testing.assert_allclose(lt_grad.numpy(), t_grad.numpy(), rtol=1e-6, atol=0)
    assert lt_grad.is_contiguous()  # what a leaf keeps is row-major, as PyTorch's .grad


def test_double_backward_through_sum_and_mean_still_records() -> None:
    x = lt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = lt.autograd.grad((x * x).mean(), x, create_graph=True)
    assert g.grad_fn is not None
    (gg,) = lt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.full(3, 2 / 3, np.float32), rtol=1e-6)
