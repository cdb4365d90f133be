"""``GroupNorm`` and ``InstanceNorm1d``/``2d`` (and their functions) against PyTorch: values,
gradients (and a second derivative), ``grad_fn`` names, running statistics, state_dict keys."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, grads_both, raises_both, to_numpy, torch_to_lt

RNG = np.random.default_rng(152)


def _r(*shape: int) -> np.ndarray:
    return (RNG.standard_normal(shape) * 2 + 0.5).astype(np.float32)


@pytest.mark.parametrize("shape,groups", [((3, 6, 4, 5), 3), ((3, 6, 7), 2), ((2, 4), 2), ((2, 4, 3, 3), 1),
                                          ((2, 4, 2, 2, 2), 4)])
def test_group_norm_function(torch_oracle: Any, shape: tuple, groups: int) -> None:
    c = shape[1]
    grads_both(lambda T, x, w, b: T.nn.functional.group_norm(x, groups, w, b, eps=1e-3), torch_oracle,
               _r(*shape), _r(c), _r(c), rtol=1e-4, atol=1e-5)
    grads_both(lambda T, x: T.nn.functional.group_norm(x, groups), torch_oracle, _r(*shape), rtol=1e-4, atol=1e-5)


def test_group_norm_double_backward(torch_oracle: Any) -> None:
    x0, w0, b0 = _r(2, 4, 3, 3).astype(np.float64), _r(4).astype(np.float64), _r(4).astype(np.float64)
    results = []
    for T in (lt, torch_oracle):
        x, w, b = (T.tensor(a, requires_grad=True) for a in (x0, w0, b0))
        y = T.nn.functional.group_norm(x, 2, w, b)
        gx, = T.autograd.grad((y ** 3).sum(), x, create_graph=True)
        (gx ** 2).sum().backward()
        results.append((gx, x.grad, w.grad, b.grad))
    for a, e in zip(*results):
        np.testing.assert_allclose(to_numpy(a), to_numpy(e), rtol=1e-7, atol=1e-9)


def test_group_norm_module(torch_oracle: Any) -> None:
    torch = torch_oracle
    tm, lm = torch.nn.GroupNorm(2, 6, eps=1e-4), lt.nn.GroupNorm(2, 6, eps=1e-4)
    assert repr(lm) == repr(tm)
    assert list(lm.state_dict()) == list(tm.state_dict())
    with torch.no_grad():
        tm.weight.normal_()
        tm.bias.normal_()
    lm.load_state_dict({k: torch_to_lt(v) for k, v in tm.state_dict().items()})
    x = _r(3, 6, 5)
    xl, xt = lt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out_l, out_t = lm(xl), tm(xt)
    assert_same(out_l, out_t, rtol=1e-4, atol=1e-5)
    out_l.pow(2).sum().backward()
    out_t.pow(2).sum().backward()
    for a, e in [(xl, xt), (lm.weight, tm.weight), (lm.bias, tm.bias)]:
        np.testing.assert_allclose(to_numpy(a.grad), to_numpy(e.grad), rtol=1e-4, atol=1e-4)
    assert list(lt.nn.GroupNorm(2, 4, affine=False).state_dict()) == []
    assert repr(lt.nn.GroupNorm(2, 4, bias=False)) == repr(torch.nn.GroupNorm(2, 4, bias=False))
    assert list(lt.nn.GroupNorm(2, 4, bias=False).state_dict()) == ["weight"]
    raises_both(lambda T: T.nn.GroupNorm(4, 6), torch,
                match=r"num_channels \(6\) must be divisible by num_groups \(4\)")
    raises_both(lambda T: T.nn.functional.group_norm(T.ones(2, 6, 3), 4), torch,
                match="Expected number of channels in input to be divisible by num_groups")


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 4, 3, 5)])
def test_instance_norm_function(torch_oracle: Any, shape: tuple) -> None:
    c = shape[1]
    grads_both(lambda T, x, w, b: T.nn.functional.instance_norm(x, weight=w, bias=b), torch_oracle,
               _r(*shape), _r(c), _r(c), rtol=1e-4, atol=1e-5)
    grads_both(lambda T, x: T.nn.functional.instance_norm(x, eps=1e-2), torch_oracle, _r(*shape),
               rtol=1e-4, atol=1e-5)


INSTANCE = [
    ("1d_default", lambda T: T.nn.InstanceNorm1d(4), (3, 4, 6)),
    ("1d_affine_tracked", lambda T: T.nn.InstanceNorm1d(4, affine=True, track_running_stats=True), (3, 4, 6)),
    ("1d_unbatched", lambda T: T.nn.InstanceNorm1d(4, affine=True), (4, 6)),
    ("2d_default", lambda T: T.nn.InstanceNorm2d(4), (2, 4, 3, 5)),
    ("2d_tracked", lambda T: T.nn.InstanceNorm2d(4, track_running_stats=True, momentum=0.3), (2, 4, 3, 5)),
    ("2d_cumulative", lambda T: T.nn.InstanceNorm2d(4, affine=True, track_running_stats=True, momentum=None),
     (2, 4, 3, 5)),
]


@pytest.mark.parametrize("make,shape", [m[1:] for m in INSTANCE], ids=[m[0] for m in INSTANCE])
def test_instance_norm_modules(torch_oracle: Any, make: Any, shape: tuple) -> None:
    torch = torch_oracle
    tm, lm = make(torch), make(lt)
    assert repr(lm) == repr(tm)
    assert list(lm.state_dict()) == list(tm.state_dict())
    if tm.affine:
        with torch.no_grad():
            tm.weight.normal_()
            tm.bias.normal_()
        lm.load_state_dict({k: torch_to_lt(v) for k, v in tm.state_dict().items()})
    for step in range(2):  # two training steps move the running statistics
        x = _r(*shape)
        xl, xt = lt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out_l, out_t = lm(xl), tm(xt)
        assert_same(out_l, out_t, rtol=1e-4, atol=1e-5)
        out_l.pow(2).sum().backward()
        out_t.pow(2).sum().backward()
        np.testing.assert_allclose(to_numpy(xl.grad), to_numpy(xt.grad), rtol=1e-4, atol=1e-4)
    for k, v in tm.state_dict().items():
        assert_same(lm.state_dict()[k], v, rtol=1e-5, atol=1e-6, check_grad_fn=False, check_requires_grad=False)
    lm.eval()
    tm.eval()
    x = _r(*shape)
    with torch.no_grad():
        expected = tm(torch.tensor(x))
    with lt.no_grad():
        actual = lm(lt.tensor(x))
    assert_same(actual, expected, rtol=1e-4, atol=1e-5)


def test_instance_norm_errors_and_warnings(torch_oracle: Any) -> None:
    torch = torch_oracle
    raises_both(lambda T: T.nn.InstanceNorm2d(4)(T.ones(4, 3)), torch, match="expected 3D or 4D input")
    raises_both(lambda T: T.nn.InstanceNorm1d(4)(T.ones(2, 4, 3, 3)), torch, match="expected 2D or 3D input")
    raises_both(lambda T: T.nn.InstanceNorm1d(3, affine=True)(T.ones(2, 4, 5)), torch,
                match="to match num_features")
    raises_both(lambda T: T.nn.functional.instance_norm(T.ones(2, 4, 1)), torch,
                match="Expected more than 1 spatial element when training")
    for T in (lt, torch):
        with pytest.warns(UserWarning, match="does not match num_features"):
            T.nn.InstanceNorm1d(3)(T.randn(2, 4, 5))
