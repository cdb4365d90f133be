"""The Tensor method table (``learntorch/_tensor_methods.py``): one table, no duplicates, and
every binary method agreeing with torch's function of the same name.

Why: methods used to be attached from three places with "the first one wins", and
``x.fmod(y)`` silently ran ``remainder``.  The test below calls every method that
learntorch shares with torch on two tensors, ``getattr(x, m)(y)``, and compares it
with ``getattr(torch, m)(x, y)``, so a method wired to the wrong function shows.
"""
from __future__ import annotations

import numpy as np
import pytest

import learntorch as lt
from learntorch import _tensor_methods
from conftest import assert_same

pytestmark = pytest.mark.torch

rng = np.random.default_rng(14)
# signs mixed on both sides (fmod and remainder differ only there), no zeros, no ties
X = np.array([[5.5, -3.25, 2.0], [-7.0, 1.5, -0.75]], dtype=np.float32)
Y = np.array([[2.0, 2.5, -1.5], [3.0, -0.5, -2.25]], dtype=np.float32)


def _shared_binary_methods(torch) -> list[str]:
    """Public names that are a learntorch method, a torch function and a torch method, and
    that torch accepts as ``torch.m(x, y)`` with two float tensors of one shape."""
    names = []
    xt, yt = torch.tensor(X), torch.tensor(Y)
    for name in sorted(_tensor_methods.METHODS):
        if name.startswith("_") or name.endswith("_") or not callable(getattr(torch, name, None)) \
                or not hasattr(torch.Tensor, name):
            continue
        try:
            getattr(torch, name)(xt, yt)
        except Exception:  # not a binary operation of two tensors
            continue
        names.append(name)
    return names


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")
def test_binary_methods_match_torch_functions(torch_oracle):
    names = _shared_binary_methods(torch_oracle)
    assert {"add", "fmod", "remainder", "hypot", "atan2", "maximum"} <= set(names)
    wrong = []
    for name in names:
        expected = getattr(torch_oracle, name)(torch_oracle.tensor(X), torch_oracle.tensor(Y))
        actual = getattr(lt.tensor(X), name)(lt.tensor(Y))
        try:
            assert_same(actual, expected, check_grad_fn=False)
        except AssertionError as e:
            wrong.append(f"{name}: {e}")
    assert not wrong, "\n".join(wrong)


def test_fmod_is_not_remainder(torch_oracle):
    a, b = lt.tensor([1.0, -1.0]), lt.tensor([-2.0, 2.0])
    assert a.fmod(b).tolist() == torch_oracle.fmod(torch_oracle.tensor([1.0, -1.0]),
                                                   torch_oracle.tensor([-2.0, 2.0])).tolist() == [1.0, -1.0]
    assert a.remainder(b).tolist() == [-1.0, 1.0]


@pytest.mark.parametrize("other", ["tensor", "number"])
def test_fmod_and_hypot_gradients(torch_oracle, other):
    def run(T):
        a = T.tensor(X.astype(np.float64), requires_grad=True)
        b = T.tensor(Y.astype(np.float64), requires_grad=True)
        out = (T.fmod(a, b if other == "tensor" else 1.75) + T.hypot(a, b)).sum()
        out.backward()
        return out, a.grad, b.grad
    from conftest import check_both
    check_both(run, torch_oracle)


@pytest.mark.parametrize("other", ["tensor", "number"])
def test_remainder_has_pytorchs_gradient_and_node(torch_oracle, other):
    """d/da = 1, d/db = -floor(a / b); RemainderBackward1 (tensor) or RemainderBackward0 (number)."""
    def run(T):
        a = T.tensor(X.astype(np.float64), requires_grad=True)
        b = T.tensor(Y.astype(np.float64) + 3.0, requires_grad=True)
        out = T.remainder(a, b if other == "tensor" else 1.75)
        (out * out).sum().backward()
        return out, a.grad, b.grad if other == "tensor" else T.zeros(())
    from conftest import check_both
    check_both(run, torch_oracle)
    a = lt.tensor([5.5, -3.2], requires_grad=True)
    assert (a % lt.tensor([2.0, 2.5])).grad_fn.name() == torch_oracle.remainder(
        torch_oracle.tensor([5.5, -3.2], requires_grad=True), torch_oracle.tensor([2.0, 2.5])).grad_fn.name()
    assert (a % 2).grad_fn.name() == "RemainderBackward0"
    assert lt.autograd.gradgradcheck(lambda t: lt.remainder(t, 1.7),
                                     (lt.tensor([0.3, 2.2], dtype=lt.float64, requires_grad=True),))


def test_hypot_of_integers_raises_as_in_torch(torch_oracle):
    with pytest.raises(NotImplementedError, match="hypot_cpu"):
        lt.hypot(lt.tensor([3, 4]), lt.tensor([4, 3]))


def test_a_duplicate_method_name_is_an_error():
    with pytest.raises(RuntimeError, match="defined twice"):
        _tensor_methods._one_table(dict(fmod=1), dict(fmod=2))

    class Fake:
        def item(self):
            return 0
    with pytest.raises(RuntimeError, match="both in the Tensor class"):
        _tensor_methods._install(Fake, dict(item=len))
