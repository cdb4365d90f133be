"""Python ranges and (nested) sequences of ints as indices, as PyTorch reads them.

``log_probs[range(n), target]`` is the hand-written NLL loss of "What is torch.nn
really?"; a list holding sequences (``x[[rows, cols]]``) is PyTorch's deprecated
tuple reading, with its warning.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from conftest import assert_same, grads_both, raises_both

X = np.arange(12, dtype=np.float32).reshape(3, 4)

KEYS = {
    "range_and_tensor": lambda T: (range(3), T.tensor([1, 0, 3])),
    "range_alone": lambda T: range(3),
    "range_step": lambda T: (slice(None), range(0, 4, 2)),
    "range_then_slice": lambda T: (range(1, 3), slice(1, None)),
    "empty_range": lambda T: range(0),
    "tuple_of_tuples": lambda T: ((0, 1), (2, 3)),
    "list_of_ints": lambda T: [0, 2, 2],
    "tuple_inside_key": lambda T: ((0, 2), 1),
    "nested_lists": lambda T: ([[0, 1], [2, 2]], range(2)),
    "range_repeated_rows": lambda T: (range(3), [0, 0, 0]),
}


@pytest.mark.parametrize("name", sorted(KEYS))
def test_sequence_index_forward_and_backward(torch_oracle, name):
    grads_both(lambda T, x: x[KEYS[name](T)], torch_oracle, X)


def test_handwritten_nll(torch_oracle):
    """The tutorial's ``-input[range(target.shape[0]), target].mean()``."""
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((5, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 1, 0])

    def nll(T, z):
        log_probs = z - z.exp().sum(-1).log().unsqueeze(-1)
        t = T.tensor(target)
        return -log_probs[range(t.shape[0]), t].mean()
    grads_both(nll, torch_oracle, logits)


def test_list_of_sequences_is_a_tuple_with_torchs_warning(torch_oracle):
    import learntorch as lt
    for T in (torch_oracle, lt):
        x = T.tensor(X)
        with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional indexing"):
            r = x[[(0, 1), (2, 3)]]
        assert r.tolist() == [2.0, 7.0]
        with pytest.warns(UserWarning, match="non-tuple sequence"):
            assert x[[[0, 1], [1, 2]]].tolist() == [1.0, 6.0]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert tuple(x[[0, 1]].shape) == (2, 4)  # a plain list of ints: one index, no warning


def test_setitem_with_range(torch_oracle):
    import learntorch as lt
    out = []
    for T in (lt, torch_oracle):
        x = T.zeros(3, 4)
        x[range(3), T.tensor([1, 0, 3])] = 1.0
        x[range(0, 3, 2), 2] = T.tensor([5.0, 6.0])
        out.append(x)
    assert_same(*out)


def test_range_out_of_bounds(torch_oracle):
    raises_both(lambda T: T.tensor(X)[range(4)], torch_oracle, match="out of bounds")
