"""scatter / scatter_ / scatter_add / gather with 0-d tensors, which PyTorch counts as 1-d
of size 1: the one-hot of the data-transforms tutorial,
``torch.zeros(10).scatter_(0, torch.tensor(y), value=1)``."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import check_both, grads_both, raises_both

CASES = {
    "one_hot_value": lambda T: T.zeros(10, dtype=T.float).scatter_(0, T.tensor(3), value=1),
    "scatter_number": lambda T: T.zeros(10).scatter(0, T.tensor(3), 5.0),
    "scatter_0d_src": lambda T: T.zeros(10).scatter_(0, T.tensor(3), T.tensor(7.0)),
    "scatter_1d_src": lambda T: T.zeros(10).scatter_(0, T.tensor(3), T.tensor([7.0, 8.0])),
    "scatter_add": lambda T: T.zeros(10).scatter_add(0, T.tensor(3), T.tensor([7.0, 8.0])),
    "0d_input_0d_index": lambda T: T.zeros(()).scatter(0, T.tensor(0), 4.0),
    "0d_input_1d_index": lambda T: T.zeros(()).scatter(0, T.tensor([0]), 4.0),
    "gather_0d_index": lambda T: T.arange(4.0).gather(0, T.tensor(2)),
    "negative_dim": lambda T: T.zeros(5).scatter(-1, T.tensor(4), 2.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_zero_dim_scatter(torch_oracle, name):
    check_both(CASES[name], torch_oracle)


def test_zero_dim_scatter_backward(torch_oracle):
    grads_both(lambda T, x, s: x.scatter(0, T.tensor(3), s), torch_oracle,
               np.arange(10, dtype=np.float32), np.array(7.0, dtype=np.float32))


@pytest.mark.parametrize("fn", [lambda T: T.zeros(3, 3).scatter_(0, T.tensor(1), 1.0),
                                lambda T: T.zeros(3).scatter_(0, T.tensor([[1]]), 1.0)])
def test_other_dimension_mismatches_still_fail(torch_oracle, fn):
    raises_both(fn, torch_oracle, match="Index tensor must have the same number of dimensions")


def test_zero_dim_gather_backward(torch_oracle):
    grads_both(lambda T, x: x.gather(0, T.tensor(2)) * 3, torch_oracle, np.arange(4, dtype=np.float32))
    grads_both(lambda T, x: x.gather(0, T.tensor([0, 0])), torch_oracle, np.array(5.0, dtype=np.float32))
