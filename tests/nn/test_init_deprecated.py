"""``nn.init``'s old names without the underscore (``nn.init.uniform`` ...): each warns as PyTorch
does (a FutureWarning naming the new function, pointing at the caller's line) and then fills the
tensor exactly as the underscore version, drawing PyTorch's numbers."""
from __future__ import annotations

import warnings

import pytest

import learntorch as lt
from conftest import assert_same

pytestmark = pytest.mark.torch

CALLS = [("uniform", (4, 3), dict(a=-0.5, b=0.5)), ("normal", (3, 5), dict(mean=1.0, std=0.5)),
         ("constant", (2, 2), dict(val=0.3)), ("eye", (3, 4), {}), ("dirac", (2, 2, 3), {}),
         ("xavier_uniform", (4, 6), dict(gain=2.0)), ("xavier_normal", (5, 2), {}),
         ("kaiming_uniform", (3, 3), dict(a=0.1)), ("kaiming_normal", (4, 2), dict(mode="fan_out")),
         ("orthogonal", (3, 3), {}), ("sparse", (6, 3), dict(sparsity=0.5))]


@pytest.mark.parametrize("name, shape, kw", CALLS, ids=[c[0] for c in CALLS])
def test_old_names_warn_and_fill_like_pytorch(torch_oracle, name, shape, kw):
    def run(T):
        T.manual_seed(3)
        t = T.empty(shape)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = getattr(T.nn.init, name)(t, **kw)
        assert [(w.category, w.filename) for w in caught] == [(FutureWarning, __file__)]
        return str(caught[0].message), out is t, t, T.rand(2)
    mine, theirs = run(lt), run(torch_oracle)
    assert mine[0] == theirs[0] == f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."
    assert_same(mine[1:], theirs[1:], rtol=1e-5, atol=1e-6)


def test_old_names_are_listed_and_named_as_in_pytorch(torch_oracle):
    assert sorted(lt.nn.init.__all__) == sorted(torch_oracle.nn.init.__all__)
    for name in (c[0] for c in CALLS):
        assert getattr(lt.nn.init, name).__name__ == getattr(torch_oracle.nn.init, name).__name__ == name
