"""``torch.autograd.grad``'s full signature: ``only_inputs`` (deprecated, ignored; False
warns with PyTorch's FutureWarning) in its position, and ``is_grads_batched``."""
from __future__ import annotations

import warnings

import pytest

import learntorch as lt
from conftest import assert_same


def _grads(T, **kw):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return T.autograd.grad((x * x).sum(), x, **kw)


def test_only_inputs_true_is_silent(torch_oracle):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(_grads(lt, only_inputs=True), _grads(torch_oracle, only_inputs=True))


def test_only_inputs_false_warns_like_torch(torch_oracle):
    got = []
    for T in (torch_oracle, lt):
        with pytest.warns(FutureWarning, match="only_inputs argument is deprecated and is ignored now") as rec:
            got.append(_grads(T, only_inputs=False))
        assert rec[0].filename == __file__  # stacklevel: the warning points at the caller
    assert_same(got[1], got[0])


def test_positional_order_matches_torch(torch_oracle):
    """outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, allow_unused."""
    def fn(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        unused = T.tensor([1.0], requires_grad=True)
        return T.autograd.grad((x * 3).sum(), [x, unused], None, None, False, True, True)
    assert_same(fn(lt), fn(torch_oracle))


def test_is_grads_batched_is_refused_with_a_reason():
    with pytest.raises(NotImplementedError, match="vmap"):
        _grads(lt, is_grads_batched=True)
