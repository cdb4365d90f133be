"""The API added after comparing ``dir(torch)`` with ``dir(learntorch)``: constants, as_strided,
the view scatters, index_reduce, trapezoid/gradient, rsub, unravel_index, default device,
frombuffer, the small Tensor methods.  Differential against torch (values, grads, grad_fn
names, error types); the torch_oracle fixture skips with its reason where torch is absent."""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, check_both, grads_both, raises_both

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

rng = np.random.default_rng(7)
A = rng.standard_normal((4, 3)).astype(np.float32)


def test_constants(torch_oracle):
    for name in ("pi", "e", "inf", "nan"):
        a, b = getattr(lt, name), getattr(torch_oracle, name)
        assert a == b or (np.isnan(a) and np.isnan(b))
    assert lt.newaxis is torch_oracle.newaxis is None


@pytest.mark.parametrize("case", [
    lambda T, x: T.slice_scatter(x, T.ones(2, 3) * 2, 0, 1, 3),
    lambda T, x: x.slice_scatter(T.ones(2, 3), 0, 0, 4, 2),
    lambda T, x: T.slice_scatter(x, T.ones(4, 1), 1, -2, -1),
    lambda T, x: T.select_scatter(x, T.ones(3), 0, -1),
    lambda T, x: x.select_scatter(T.ones(4), 1, 1),
    lambda T, x: T.diagonal_scatter(x, T.ones(3)),
    lambda T, x: x.diagonal_scatter(T.ones(2), 1),
    lambda T, x: T.diagonal_scatter(x, T.ones(3), -1),
])
def test_view_scatters(torch_oracle, case):
    grads_both(lambda T, x: case(T, x), torch_oracle, A)


def test_view_scatters_grad_to_src(torch_oracle):
    grads_both(lambda T, x, s: T.slice_scatter(x, s, 0, 1, 3), torch_oracle, A, A[:2].copy())
    grads_both(lambda T, x, s: T.select_scatter(x, s, 1, 0), torch_oracle, A, A[:, 1].copy())
    grads_both(lambda T, x, s: T.diagonal_scatter(x, s, -1), torch_oracle, A, A[:3, 0].copy())


@pytest.mark.parametrize("bad", [
    lambda T: T.slice_scatter(T.zeros(4, 3), T.ones(2, 3), 0, 0, 4),
    lambda T: T.slice_scatter(T.zeros(4, 3), T.ones(2, 3), 2),
    lambda T: T.slice_scatter(T.zeros(4, 3), T.ones(2, 3), 0, 0, 2, 0),
    lambda T: T.select_scatter(T.zeros(4, 3), T.ones(3), 0, 5),
    lambda T: T.select_scatter(T.zeros(4, 3), T.ones(4), 0, 1),
    lambda T: T.diagonal_scatter(T.zeros(3, 4), T.ones(4)),
])
def test_view_scatter_errors(torch_oracle, bad):
    raises_both(bad, torch_oracle)


def test_as_strided(torch_oracle):
    check_both(lambda T: T.arange(10.).as_strided((2, 2), (1, 2)), torch_oracle)
    check_both(lambda T: T.as_strided(T.arange(10.), (3, 2), (2, 1), 1), torch_oracle)
    check_both(lambda T: T.arange(10.)[2:].as_strided((2,), (1,)), torch_oracle)
    check_both(lambda T: T.arange(10.)[2:].as_strided((2, 2), (1, 2)).stride(), torch_oracle)
    grads_both(lambda T, x: (x * 1).as_strided((3, 3), (1, 1)), torch_oracle, np.arange(10, dtype=np.float32))
    grads_both(lambda T, x: x.as_strided((2, 2), (1, 3), 1), torch_oracle, A)


def test_as_strided_is_a_view():
    x = lt.arange(10.)
    v = x.as_strided((2, 2), (1, 2))
    v[0, 0] = 100.
    assert x[0].item() == 100.


@pytest.mark.parametrize("bad", [
    lambda T: T.arange(10.).as_strided((2, 2), (1, 2), 9),
    lambda T: T.arange(10.).as_strided((2, 2), (1,)),
    lambda T: T.arange(10.).as_strided((2, 2), (1, -1)),
    lambda T: T.arange(10.).as_strided((2, 2), (1, 2), -1),
])
def test_as_strided_errors(torch_oracle, bad):
    raises_both(bad, torch_oracle)
    raises_both(lambda T: T.arange(10.).as_strided((2, 2), (1, 2), 8), torch_oracle, match="out of bounds")


IDX = np.array([0, 4, 2, 0])
SRC = np.array([[1., 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], dtype=np.float32)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(torch_oracle, reduce, include_self):
    x = rng.standard_normal((5, 3)).astype(np.float32)
    grads_both(lambda T, a, s: a.index_reduce(0, T.tensor(IDX), s, reduce, include_self=include_self),
               torch_oracle, x, SRC)
    check_both(lambda T: (T.ones(5, 3, dtype=T.int64) * 7).index_reduce(0, T.tensor(IDX), T.tensor(SRC).long(),
                                                                         reduce, include_self=include_self),
               torch_oracle)
    check_both(lambda T: T.ones(3, 5).index_reduce_(1, T.tensor(IDX), T.tensor(SRC.T.copy()), reduce,
                                                    include_self=include_self), torch_oracle)


@pytest.mark.parametrize("bad", [
    lambda T: T.ones(5, 3).index_reduce(0, T.tensor(IDX), T.tensor(SRC), "sum"),
    lambda T: T.ones(5, 3).index_reduce(0, T.tensor(IDX).float(), T.tensor(SRC), "prod"),
    lambda T: T.ones(5, 3).index_reduce(0, T.tensor([0, 5, 1, 1]), T.tensor(SRC), "prod"),
    lambda T: T.ones(5, 3).index_reduce(0, T.tensor(IDX), T.tensor(SRC).double(), "prod"),
    lambda T: T.ones(5, 3).index_reduce(0, T.tensor(IDX[:3]), T.tensor(SRC), "prod"),
    lambda T: T.ones(5, 3).index_reduce(2, T.tensor(IDX), T.tensor(SRC), "prod"),
])
def test_index_reduce_errors(torch_oracle, bad):
    raises_both(bad, torch_oracle)


Y = np.array([1., 4, 9, 16, 30], dtype=np.float32)
X = np.array([0., 1, 3, 4, 7], dtype=np.float32)


def test_trapezoid_family(torch_oracle):
    grads_both(lambda T, y: T.trapezoid(y), torch_oracle, Y)
    grads_both(lambda T, y: T.trapezoid(y, dx=2.), torch_oracle, Y)
    grads_both(lambda T, y, x: T.trapezoid(y, x), torch_oracle, Y, X)
    grads_both(lambda T, y, x: T.trapz(y, x), torch_oracle, Y, X)
    grads_both(lambda T, y: T.cumulative_trapezoid(y), torch_oracle, Y)
    grads_both(lambda T, y: T.cumulative_trapezoid(y, dx=0.5), torch_oracle, Y)
    grads_both(lambda T, y, x: T.cumulative_trapezoid(y, x), torch_oracle, Y, X)
    grads_both(lambda T, y: T.trapezoid(y, dim=0), torch_oracle, A)
    check_both(lambda T: T.trapezoid(T.ones(2, 3), T.tensor([0., 1]), dim=0), torch_oracle)
    check_both(lambda T: T.trapezoid(T.tensor([1, 2, 3])), torch_oracle)
    check_both(lambda T: T.trapezoid(T.tensor([1, 2, 3]), T.tensor([1, 2, 4])), torch_oracle)
    check_both(lambda T: T.cumulative_trapezoid(T.tensor([1, 2, 3])), torch_oracle)
    check_both(lambda T: T.trapezoid(T.ones(0)), torch_oracle)
    check_both(lambda T: T.trapezoid(T.ones(1)), torch_oracle)
    raises_both(lambda T: T.trapezoid(T.ones(4), T.tensor([0., 1, 3])), torch_oracle, match="one `x` value")
    raises_both(lambda T: T.trapezoid(T.ones(4), dim=3), torch_oracle)
    raises_both(lambda T: T.trapezoid(T.tensor(3.)), torch_oracle)


@pytest.mark.parametrize("kw", [dict(), dict(spacing=2.), dict(edge_order=2), dict(spacing=[2.5], edge_order=2)])
def test_gradient_uniform(torch_oracle, kw):
    grads_both(lambda T, y: T.gradient(y, **kw)[0], torch_oracle, Y)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_coordinates_and_dims(torch_oracle, edge_order):
    grads_both(lambda T, y, x: T.gradient(y, spacing=[x.detach()], edge_order=edge_order)[0], torch_oracle, Y, X)
    m = (np.arange(20, dtype=np.float32).reshape(4, 5) ** 2)
    check_both(lambda T: T.gradient(T.tensor(m), spacing=(2., 3.), edge_order=edge_order), torch_oracle)
    check_both(lambda T: T.gradient(T.tensor(m), dim=1, spacing=[2.]), torch_oracle)
    check_both(lambda T: T.gradient(T.tensor([1, 4, 9, 16])), torch_oracle)


@pytest.mark.parametrize("bad", [
    lambda T: T.gradient(T.tensor([1.])),
    lambda T: T.gradient(T.tensor([1., 2]), edge_order=2),
    lambda T: T.gradient(T.tensor([1., 2, 3]), edge_order=3),
    lambda T: T.gradient(T.tensor([1., 2, 3]), spacing=[1., 2.]),
    lambda T: T.gradient(T.tensor([1., 2, 3]), spacing=T.tensor([0., 1, 2])),
])
def test_gradient_errors(torch_oracle, bad):
    raises_both(bad, torch_oracle)


def test_rsub(torch_oracle):
    grads_both(lambda T, x: T.rsub(x, 3, alpha=2), torch_oracle, Y)
    grads_both(lambda T, x, y: T.rsub(x, y, alpha=2), torch_oracle, Y, X)
    grads_both(lambda T, x, y: T.rsub(x, y), torch_oracle, A, A[0].copy())
    raises_both(lambda T: T.rsub(T.tensor([True]), T.tensor([True])), torch_oracle, match="two bool tensors")


def test_unravel_index(torch_oracle):
    check_both(lambda T: T.unravel_index(T.tensor([4, 1, -1, 6]), (2, 3)), torch_oracle)
    check_both(lambda T: T.unravel_index(T.tensor(4), (2, 3)), torch_oracle)
    check_both(lambda T: T.unravel_index(T.tensor([[7], [3]]), 6), torch_oracle)
    check_both(lambda T: T.unravel_index(T.tensor([1]), ()), torch_oracle)
    raises_both(lambda T: T.unravel_index(T.tensor([1.]), (2, 3)), torch_oracle, match="integer dtype")
    raises_both(lambda T: T.unravel_index(T.tensor([1]), (2, -3)), torch_oracle, match="negative")


def test_empty_strided_and_frombuffer(torch_oracle):
    check_both(lambda T: (T.empty_strided((2, 3), (1, 2)).stride(), T.empty_strided((2, 3), (1, 2)).is_contiguous(),
                          T.zeros(1).new_empty_strided((2, 3), (3, 1), dtype=T.float64).dtype), torch_oracle)
    raises_both(lambda T: T.empty_strided((2, 3), (1,)), torch_oracle, match="dimensionality")
    raises_both(lambda T: T.empty_strided((2, -3), (1, 2)), torch_oracle, match="negative dimension")
    buf = b"\x00\x00\x80?\x00\x00\x00@"
    check_both(lambda T: T.frombuffer(bytearray(buf), dtype=T.float32), torch_oracle)
    check_both(lambda T: T.frombuffer(bytearray(buf), dtype=T.float32, count=1, offset=4), torch_oracle)
    for bad in (lambda T: T.frombuffer(bytearray(7), dtype=T.float32),
                lambda T: T.frombuffer(bytearray(8), dtype=T.float32, count=3),
                lambda T: T.frombuffer(bytearray(8), dtype=T.float32, offset=9),
                lambda T: T.frombuffer(bytearray(0), dtype=T.float32),
                lambda T: T.frombuffer(bytearray(8)),
                lambda T: T.frombuffer([1, 2], dtype=T.int32)):
        raises_both(bad, torch_oracle)
    shared = bytearray(buf)
    t = lt.frombuffer(shared, dtype=lt.float32)
    t[0] = 3.0
    assert np.frombuffer(shared, dtype=np.float32)[0] == 3.0


def test_default_device_and_tensor_type(torch_oracle, logical):
    device_module = sys.modules["learntorch.device"]
    assert_same(lt.get_default_device(), torch_oracle.get_default_device())
    logical(2)
    try:
        lt.set_default_device("cuda")
        assert str(lt.get_default_device()) == "cuda:0"
        assert {str(t.device) for t in (lt.zeros(2), lt.tensor([1.]), lt.arange(3), lt.randn(2), lt.eye(2))} \
            == {"cuda:0"}
        assert lt.zeros(2, device="cpu").device.type == "cpu"
    finally:
        lt.set_default_device(None)
    assert lt.zeros(2).device.type == "cpu" and device_module.as_device(None) is device_module.CPU
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lt.set_warn_always(True)
        try:
            lt.set_default_tensor_type(lt.DoubleTensor)
            assert lt.get_default_dtype() is lt.float64
            lt.set_default_tensor_type("torch.FloatTensor")
        finally:
            lt.set_warn_always(False)
            lt.set_default_dtype(lt.float32)
    assert any("deprecated" in str(x.message) for x in w)
    assert lt.is_warn_always_enabled() is torch_oracle.is_warn_always_enabled() is False
    raises_both(lambda T: T.set_default_tensor_type(T.LongTensor), torch_oracle, match="floating-point")
    raises_both(lambda T: T.set_default_tensor_type("torch.IntTensor"), torch_oracle, match="floating-point")
    torch_oracle.set_default_dtype(torch_oracle.float32)
    lt.set_default_dtype(lt.float32)


def test_small_functions_and_methods(torch_oracle):
    check_both(lambda T: (T.typename(T.zeros(2)), T.typename(T.zeros(2, dtype=T.int64)), T.typename(3),
                          T.typename(None), T.is_storage(T.zeros(2))), torch_oracle)
    check_both(lambda T: T.row_stack([T.ones(2), T.zeros(2)]), torch_oracle)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check_both(lambda T: (T.isreal(T.tensor(x)), T.tensor(x).isreal(), T.is_conj(T.tensor(x)), T.is_neg(T.tensor(x))),
               torch_oracle)
    for name in ("conj", "resolve_conj", "resolve_neg", "real"):
        t = lt.tensor(x)
        assert getattr(lt, name)(t) is t
    raises_both(lambda T: T.imag(T.tensor(x)), torch_oracle, match="non-complex")
    check_both(lambda T: (T.tensor(x).dim_order(), T.tensor(x).t().dim_order(), T.tensor(2.).dim_order(),
                          T.zeros(2, 1, 4, 5).to(memory_format=T.channels_last).dim_order(),
                          T.zeros(2, 3, 4, 5).to(memory_format=T.channels_last).dim_order()), torch_oracle)
    raises_both(lambda T: T.zeros(2, 1, 4, 5).dim_order(ambiguity_check=True), torch_oracle, match="unique dim order")
    t = lt.tensor(x)
    assert t.to_dense() is t and t.is_pinned() is False
    if not lt.cuda.is_available():
        raises_both(lambda T: T.tensor(x).pin_memory(), torch_oracle, match="accelerator")
    check_both(lambda T: T.tensor(x).apply_(lambda v: v * 2 + 1), torch_oracle)
    check_both(lambda T: T.tensor(x).map_(T.ones(3), lambda a, b: a - b), torch_oracle)
    raises_both(lambda T: T.tensor(x, requires_grad=True).apply_(lambda v: v), torch_oracle, match="requires grad")
    raises_both(lambda T: T.tensor(x).map_(T.ones(2, 2), lambda a, b: a), torch_oracle)
    raises_both(lambda T: T.tensor(x).map_(T.ones(3, dtype=T.float64), lambda a, b: a), torch_oracle, match="map_")
    raises_both(lambda T: T.tensor(x).apply_(lambda v: "a"), torch_oracle)
    check_both(lambda T: T.tensor(x).resize_as_(T.ones(3)), torch_oracle)
    raises_both(lambda T: T.tensor(x, requires_grad=True).resize_as_(T.ones(3)), torch_oracle, match="resize")
    grads_both(lambda T, a, b: a.vdot(b), torch_oracle, X, Y)
    grads_both(lambda T, a, b: T.vdot(a, b), torch_oracle, X, Y)
    grads_both(lambda T, a, b: a.ger(b), torch_oracle, X, Y[:3].copy())
    raises_both(lambda T: T.vdot(T.ones(2), T.ones(3)), torch_oracle, match="inconsistent")


def test_nn_utils_additions(torch_oracle):
    m = lt.nn.utils.skip_init(lt.nn.Linear, 3, 4, bias=False)
    assert tuple(m.weight.shape) == (4, 3) and m.bias is None
    raises_both(lambda T: T.nn.utils.skip_init(T.nn.ReLU), torch_oracle, match="device")

    def convert(T):
        net = T.nn.Sequential(T.nn.Conv2d(3, 4, 3), T.nn.ReLU(), T.nn.Sequential(T.nn.ConvTranspose2d(4, 2, 3)))
        out = T.nn.utils.convert_conv2d_weight_memory_format(net, T.channels_last)
        return (out is net, net[0].weight.stride(), net[2][0].weight.stride(),
                net[0].weight.is_contiguous(memory_format=T.channels_last))
    check_both(convert, torch_oracle)
