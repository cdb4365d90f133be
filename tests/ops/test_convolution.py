"""``F.conv2d``, ``F.max_pool2d``, ``nn.Conv2d``, ``nn.MaxPool2d``, ``nn.Flatten`` against PyTorch:
outputs, ``grad_fn`` names and gradients (float32: PyTorch sums in another order, hence rtol 1e-4),
initialisation (same seed, same bits), reprs and errors."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import assert_same, check_both, grads_both, raises_both, to_numpy

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(padding=2, dilation=2),
                                dict(groups=2, stride=(1, 2)), dict(padding="same"), dict(padding="valid")])
def test_conv2d_forward_and_backward(torch_oracle: Any, kw: dict) -> None:
    groups = kw.get("groups", 1)
    x = RNG.standard_normal((2, 4, 9, 8)).astype(np.float32)
    w = RNG.standard_normal((6, 4 // groups, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(6).astype(np.float32)
    grads_both(lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, **kw), torch_oracle, x, w, b,
               rtol=1e-4, atol=1e-5)


def test_conv2d_without_bias_and_unbatched(torch_oracle: Any) -> None:
    x = RNG.standard_normal((3, 6, 6)).astype(np.float32)
    w = RNG.standard_normal((2, 3, 2, 2)).astype(np.float32)
    grads_both(lambda T, x, w: T.nn.functional.conv2d(x, w), torch_oracle, x, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, dilation=2),
                                dict(kernel_size=(2, 3), stride=1)])
def test_max_pool2d(torch_oracle: Any, kw: dict) -> None:
    x = RNG.standard_normal((2, 3, 7, 8)).astype(np.float32)
    grads_both(lambda T, x: T.nn.functional.max_pool2d(x, **kw), torch_oracle, x)
    check_both(lambda T: T.nn.functional.max_pool2d(T.tensor(x), return_indices=True, **kw)[1], torch_oracle)


def test_layers_initialise_and_print_like_torch(torch_oracle: Any, draws_bit_exact: bool) -> None:
    def build(T: Any) -> Any:
        T.manual_seed(0)
        return T.nn.Sequential(T.nn.Conv2d(1, 4, 3, padding=1), T.nn.ReLU(), T.nn.MaxPool2d(2),
                               T.nn.Conv2d(4, 4, (3, 2), stride=2, bias=False, groups=2), T.nn.Flatten(),
                               T.nn.Linear(8, 3))
    m_l, m_t = build(lt), build(torch_oracle)
    assert repr(m_l) == repr(m_t)
    for (n_l, p_l), (n_t, p_t) in zip(m_l.named_parameters(), m_t.named_parameters()):
        assert n_l == n_t
        # the same draws: bit for bit on the torch build learntorch emulates, to float rounding elsewhere
        assert_same(p_l, p_t, exact=draws_bit_exact, rtol=None, atol=None, check_requires_grad=False, path=n_l)
    x = RNG.standard_normal((2, 1, 8, 8)).astype(np.float32)
    out_l, out_t = m_l(lt.tensor(x)), m_t(torch_oracle.tensor(x))
    assert_same(out_l, out_t, rtol=1e-4, atol=1e-5)
    out_l.sum().backward()
    out_t.sum().backward()
    np.testing.assert_allclose(to_numpy(m_l[0].weight.grad), to_numpy(m_t[0].weight.grad), rtol=1e-4, atol=1e-5)


def test_conv2d_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.nn.functional.conv2d(T.ones(1, 3, 5, 5), T.ones(2, 2, 3, 3)), torch_oracle,
                match="expected input")
    raises_both(lambda T: T.nn.functional.conv2d(T.ones(1, 1, 2, 2), T.ones(1, 1, 3, 3)), torch_oracle,
                match="Kernel size can't be greater than actual input size")
    raises_both(lambda T: T.nn.Conv2d(3, 4, 3, groups=2), torch_oracle, match="divisible by groups")
    raises_both(lambda T: T.nn.functional.conv2d(T.ones(3, 5), T.ones(1, 1, 3, 3)), torch_oracle)
