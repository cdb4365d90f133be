"""``nn.init.trunc_normal_`` and ``nn.init.orthogonal_`` against PyTorch 2.13.

trunc_normal_ reproduces PyTorch's rejection sampler draw for draw, so with the same
seed the values are PyTorch's (both of its branches: normal draws when [a, b] holds
> 30 % of the mass, uniform proposals otherwise): bit-identical on the torch build that
learntorch's generator emulates (``draws_bit_exact``), to float rounding on others,
where torch's float32 normal_ and uniform_(a, b) are computed differently.
orthogonal_ draws the same normals, but its QR runs in NumPy's float64 LAPACK where
PyTorch's runs in float32: equal to ~1e-6.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import assert_draws_same, raises_both, to_numpy


def _init_both(torch: Any, shape: tuple, fn_name: str, seed: int = 0, **kw: Any) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for T in (torch, lt):
        T.manual_seed(seed)
        t = T.empty(*shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(T.nn.init, fn_name)(t, **kw)
        assert r is t, f"{fn_name} must fill in place and return its argument"
        out.append(to_numpy(t))
    return out[1], out[0]


@pytest.mark.parametrize("kw", [{}, dict(std=0.02), dict(mean=1.0, std=0.5, a=0.5, b=1.2),  # normal branch
                                dict(a=-0.1, b=0.1), dict(mean=0.3, std=2.0, a=0.0, b=0.5),  # uniform proposals
                                dict(mean=5.0, std=1.0, a=-1.0, b=1.0)])                     # far-off mean
def test_trunc_normal_is_bit_identical(torch_oracle: Any, draws_bit_exact: bool, kw: dict) -> None:
    got, want = _init_both(torch_oracle, (120, 70), "trunc_normal_", seed=3, **kw)
    assert_draws_same(got, want, draws_bit_exact)
    a, b = kw.get("a", -2.0), kw.get("b", 2.0)
    assert got.min() >= a and got.max() <= b


def test_trunc_normal_then_the_stream_continues_the_same(torch_oracle: Any) -> None:
    """The same number of draws was consumed: the next random numbers agree too."""
    for T in (torch_oracle, lt):
        T.manual_seed(1)
        T.nn.init.trunc_normal_(T.empty(50, 50), a=-0.3, b=0.3)
    np.testing.assert_array_equal(to_numpy(lt.rand(5)), to_numpy(torch_oracle.rand(5)))


def test_trunc_normal_warns_when_the_mean_is_far(torch_oracle: Any) -> None:
    for T in (torch_oracle, lt):
        with pytest.warns(UserWarning, match="mean is more than 2 std from"):
            T.nn.init.trunc_normal_(T.empty(10), mean=10.0)


def test_trunc_normal_is_a_truncated_normal() -> None:
    """Statistics: N(0, 1) cut to [-1, 1] has mean 0 and variance 1 - 2φ(1)/(2Φ(1)-1) ≈ 0.2911."""
    lt.manual_seed(0)
    x = to_numpy(lt.nn.init.trunc_normal_(lt.empty(200_000), a=-1.0, b=1.0)).astype(np.float64)
    assert abs(x.mean()) < 0.005 and abs(x.var() - 0.2911) < 0.005


@pytest.mark.parametrize("shape,gain", [((6, 10), 1.0), ((10, 6), 2.0), ((4, 3, 2, 2), 1.0), ((30, 30), 0.5)])
def test_orthogonal_matches_torch(torch_oracle: Any, shape: tuple, gain: float) -> None:
    got, want = _init_both(torch_oracle, shape, "orthogonal_", seed=5, gain=gain)
    np.testing.assert_allclose(got, want, atol=2e-6)
    m = got.reshape(shape[0], -1).astype(np.float64) / gain
    small = min(m.shape)
    gram = m @ m.T if m.shape[0] == small else m.T @ m
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-5)


def test_orthogonal_needs_two_dimensions(torch_oracle: Any) -> None:
    raises_both(lambda T: T.nn.init.orthogonal_(T.empty(5)), torch_oracle, match="2 or more dimensions")
