"""The array backends: the CuPy path, exercised on a machine without a GPU by the strict stand-in.

``LEARNTORCH_FAKE_CUDA=1`` makes ``cuda:N`` tensors hold ``array_api_strict``
arrays: as strict as CuPy about host/device mixing, and without NumPy's extra
functions.  Every operation is run on ``cuda:0`` and on ``cpu`` with the same
inputs; values and gradients must agree (a failure here is most likely a
NumPy-only call inside learntorch).  Device errors must be PyTorch's.

Tests marked ``gpu`` need a real GPU with CuPy and skip elsewhere (see conftest).
"""
from __future__ import annotations

import numpy as np
import pytest

import learntorch as lt
from conftest import same_on_cpu_and_cuda
from learntorch import arrays, cuda

rng = np.random.default_rng(7)
A = rng.standard_normal((2, 3)).astype(np.float32)
A2 = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((3,)).astype(np.float32)
D = rng.standard_normal((3, 4)).astype(np.float32)
E = rng.standard_normal((2, 3, 4)).astype(np.float32)
P = (rng.random((2, 3)) + 0.5).astype(np.float32)


def _reset_caches() -> None:
    arrays._cuda_backend.cache_clear()
    cuda.cupy_or_none.cache_clear()


@pytest.fixture
def no_gpu_env(monkeypatch):
    """Neither the stand-in nor (where CuPy finds none) a GPU."""
    monkeypatch.delenv("LEARNTORCH_FAKE_CUDA", raising=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    _reset_caches()
    if cuda.cupy_or_none() is not None:
        pytest.skip("a real GPU is present: the no-GPU behaviour cannot be shown here")
    yield
    _reset_caches()


@pytest.fixture
def fake_cuda(monkeypatch):
    """Switch the stand-in on (one device) for one test, and off again afterwards."""
    monkeypatch.setenv("LEARNTORCH_FAKE_CUDA", "1")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    _reset_caches()
    if cuda.cupy_or_none() is not None:
        pytest.skip("a real GPU is present: the stand-in is only used where there is none")
    yield
    monkeypatch.delenv("LEARNTORCH_FAKE_CUDA", raising=False)
    _reset_caches()


def host(x):
    """NumPy values of a tensor on any device (through .cpu(), the only way off a device)."""
    return np.asarray(x.detach().cpu().numpy())


# ============================================================================ availability
def test_no_cuda_without_the_stand_in(no_gpu_env):
    assert cuda.is_available() is False
    assert cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        lt.zeros(2, device="cuda")
    with pytest.raises(AssertionError):  # PyTorch's CPU build raises AssertionError here; learntorch both
        lt.ones(2).to("cuda")
    assert cuda.memory_allocated() == 0
    cuda.empty_cache()  # harmless without a GPU


def test_stand_in_is_available(fake_cuda):
    assert cuda.is_available() is True
    assert cuda.device_count() == 1
    assert "stand-in" in cuda.get_device_name(0)
    t = lt.zeros(2, device="cuda")
    assert t.device == lt.device("cuda:0") and str(t.device) == "cuda:0" and t.is_cuda
    assert t.get_device() == 0
    assert type(t._data).__module__.startswith("array_api_strict")


@pytest.mark.parametrize("fake, visible, count", [
    ("1", None, 1), ("2", None, 2), ("2", "1", 1), ("2", "", 0), ("2", "0,1", 2), ("2", "1,0", 2),
    ("2", "1,7", 1), ("2", "7", 0), ("1", "0", 1), ("0", None, 0),
])
def test_cuda_visible_devices(monkeypatch, fake, visible, count):
    monkeypatch.setenv("LEARNTORCH_FAKE_CUDA", fake)
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    _reset_caches()
    if cuda.cupy_or_none() is not None:
        pytest.skip("a real GPU is present")
    try:
        assert cuda.device_count() == count
        assert cuda.is_available() is (count > 0)
    finally:
        _reset_caches()


def test_invalid_device_ordinal(any_cuda):
    assert lt.device("cuda:5").index == 5  # only a name: no error yet (as in PyTorch)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        lt.zeros(2, device="cuda:5")
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        lt.ones(2).to(lt.device("cuda", 5))
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        lt.ones(2).cuda(3)


def test_second_stand_in_device(monkeypatch):
    monkeypatch.setenv("LEARNTORCH_FAKE_CUDA", "2")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    _reset_caches()
    if cuda.cupy_or_none() is not None:
        pytest.skip("a real GPU is present")
    try:
        a, b = lt.ones(2, device="cuda:0"), lt.ones(2, device="cuda:1")
        assert str(b.device) == "cuda:1"
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            a + b
        np.testing.assert_array_equal(host(a + b.to("cuda:0")), [2.0, 2.0])
    finally:
        _reset_caches()


# ============================================================================ creation and transfer
CREATE = [
    pytest.param(lambda dev: lt.tensor(A, device=dev), id="tensor"),
    pytest.param(lambda dev: lt.tensor([[1, 2], [3, 4]], device=dev), id="tensor-int"),
    pytest.param(lambda dev: lt.tensor(True, device=dev), id="tensor-0dim-bool"),
    pytest.param(lambda dev: lt.zeros(2, 3, device=dev), id="zeros"),
    pytest.param(lambda dev: lt.ones(2, dtype=lt.int64, device=dev), id="ones-int"),
    pytest.param(lambda dev: lt.empty(2, 3, device=dev).shape, id="empty"),
    pytest.param(lambda dev: lt.full((2, 2), 7, device=dev), id="full"),
    pytest.param(lambda dev: lt.arange(0, 1, 0.25, device=dev), id="arange-float"),
    pytest.param(lambda dev: lt.arange(5, device=dev), id="arange"),
    pytest.param(lambda dev: lt.linspace(-1, 1, 5, device=dev), id="linspace"),
    pytest.param(lambda dev: lt.eye(3, device=dev), id="eye"),
    pytest.param(lambda dev: lt.zeros_like(lt.tensor(A, device=dev)), id="zeros_like"),
    pytest.param(lambda dev: lt.ones_like(lt.tensor(A, device=dev), dtype=lt.float64), id="ones_like-dtype"),
    pytest.param(lambda dev: lt.full_like(lt.tensor(A, device=dev), 2.5), id="full_like"),
    pytest.param(lambda dev: lt.tensor(A, device=dev).new_zeros(2), id="new_zeros"),
    pytest.param(lambda dev: (lt.manual_seed(0), lt.randn(4, device=dev))[1], id="randn-same-stream"),
    pytest.param(lambda dev: (lt.manual_seed(1), lt.rand(2, 2, device=dev))[1], id="rand"),
    pytest.param(lambda dev: (lt.manual_seed(2), lt.randint(0, 9, (5,), device=dev))[1], id="randint"),
]


@pytest.mark.parametrize("fn", CREATE)
def test_creation_on_cuda(any_cuda, fn):
    on_gpu, on_cpu = fn("cuda"), fn("cpu")
    if isinstance(on_cpu, lt.Tensor):
        assert str(on_gpu.device) == "cuda:0"
        assert on_gpu.dtype is on_cpu.dtype
        np.testing.assert_array_equal(host(on_gpu), host(on_cpu))
    else:
        assert on_gpu == on_cpu


def test_round_trips(any_cuda):
    for data in (A, np.arange(6).reshape(2, 3), np.array([True, False]), np.float64(2.5) * np.ones(3)):
        x = lt.tensor(data)
        g = x.to("cuda")
        assert str(g.device) == "cuda:0" and g.dtype is x.dtype and g is not x
        back = g.cpu()
        assert back.device == lt.device("cpu") and back.dtype is x.dtype
        np.testing.assert_array_equal(back.numpy(), data)
        assert g.to("cuda") is g and g.to("cuda:0") is g and g.cuda() is g
        np.testing.assert_array_equal(host(x.cuda()), data)
        np.testing.assert_array_equal(host(x.to("cuda", lt.float64)), data.astype(np.float64))
        assert x.to(g).device == g.device
    if any_cuda == "strict":  # the array API standard has no float16; CuPy has
        with pytest.raises(TypeError, match="stand-in .* has no float16"):
            lt.tensor(A).to(device="cuda", dtype=lt.float16)
    else:
        half = lt.tensor(A).to(device="cuda", dtype=lt.float16)
        assert half.dtype is lt.float16 and str(half.device) == "cuda:0"
        np.testing.assert_array_equal(host(half), A.astype(np.float16))


def test_transfer_copies_memory(any_cuda):
    x = lt.tensor(A)
    g = x.to("cuda")
    x.add_(100)                              # the device copy does not see host changes
    np.testing.assert_array_equal(host(g), A)
    back = g.cpu()
    back.zero_()
    np.testing.assert_array_equal(host(g), A)


def test_gradient_flows_across_devices(any_cuda):
    x = lt.tensor(A, requires_grad=True)
    y = x.to("cuda")
    assert y.grad_fn.name() == "ToCopyBackward0"
    z = (y * y).sum().cpu()
    z.backward()
    assert x.grad.device == lt.device("cpu")
    np.testing.assert_allclose(x.grad.numpy(), 2 * A, rtol=1e-6)


def test_item_tolist_repr_on_cuda(any_cuda):
    t = lt.tensor([1.5, 2.0], device="cuda")
    assert t[0].item() == 1.5 and t.tolist() == [1.5, 2.0]
    assert repr(t) == "tensor([1.5000, 2.0000], device='cuda:0')"
    assert repr(lt.tensor([1, 2], device="cuda")) == "tensor([1, 2], device='cuda:0')"
    assert repr(lt.tensor(A, device="cuda", requires_grad=True).sum()).endswith(
        "device='cuda:0', grad_fn=<SumBackward0>)")
    assert t.type() == "torch.cuda.FloatTensor"
    assert float(t.sum()) == 3.5 and bool(t[0] > 1)


# ============================================================================ strictness
def test_mixing_devices_raises(any_cuda):
    g, c = lt.ones(2, 3, device="cuda"), lt.ones(2, 3)
    message = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    for op in (lambda: g + c, lambda: c * g, lambda: lt.cat([g, c]), lambda: lt.stack([c, g]),
               lambda: g.t().mm(c), lambda: lt.matmul(c.t(), g), lambda: lt.where(g > 0, g, c),
               lambda: lt.maximum(g, c), lambda: g.masked_fill(c > 0, 0.0)):
        with pytest.raises(RuntimeError) as info:
            op()
        assert str(info.value) == message


def test_cpu_scalar_tensor_may_meet_cuda_tensor(any_cuda):
    """A 0-dim CPU tensor is a scalar, not an array on another device (as in PyTorch)."""
    g = lt.tensor(A, device="cuda")
    out = g * lt.tensor(2.0)
    assert str(out.device) == "cuda:0"
    np.testing.assert_allclose(host(out), A * 2)


def test_index_tensor_devices(any_cuda):
    g = lt.tensor(A, device="cuda")
    np.testing.assert_array_equal(host(g[lt.tensor([1, 0])]), A[[1, 0]])             # a CPU index is fine
    np.testing.assert_array_equal(host(g[lt.tensor([1, 0], device="cuda")]), A[[1, 0]])
    with pytest.raises(RuntimeError, match="indices should be either on cpu or on the same device"):
        lt.tensor(A)[lt.tensor([1, 0], device="cuda")]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        g[lt.tensor([1.0], device="cuda")]


def test_numpy_on_cuda_tensor_raises(any_cuda):
    g = lt.tensor(A, device="cuda")
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        g.numpy()
    with pytest.raises(TypeError):
        np.asarray(g)
    with pytest.raises(Exception):  # the raw device array refuses implicit conversion, as CuPy's does
        np.asarray(g._data)
    np.testing.assert_array_equal(g.detach().cpu().numpy(), A)


# ============================================================================ operations: cuda vs cpu
def op(name, fn, *arrays):
    return pytest.param(fn, arrays, id=name)


OPS = [
    op("add-broadcast", lambda x, y: x + y, A, B),
    op("scalar-ops", lambda x: (2 - x) * 3 / (x * x + 1) + x ** 2 - 2 ** x, A),
    op("div-pow", lambda x, y: x / y + y ** x, A, P),
    op("int-promotion", lambda x, i: x * i + i / 2, A, np.arange(6).reshape(2, 3)),
    op("unary", lambda x: x.exp() + x.sin() + x.cos() + x.tanh() + x.sigmoid() + x.abs() + x.relu(), A),
    op("unary-positive", lambda x: x.log() + x.sqrt() + x.rsqrt() + x.reciprocal() + x.log1p() + x.log2(), P),
    op("step-functions", lambda x: x.sign() + (x * 3).floor() + (x * 3).round() + (x * 3).trunc(), A),
    op("clamp", lambda x: x.clamp(-0.3, 0.4) + x.clamp(min=0), A),
    op("compare-logic", lambda x, y: lt.where((x > 0) & ~(y < 0) | (x == y), x, y * 2), A, A2),
    op("maximum-minimum", lambda x, y: lt.maximum(x, y) - lt.minimum(x, y), A, A2),
    op("sum-mean", lambda x: x.sum(2) + x.mean((0, 2)).sum() + x.mean(-1, keepdim=True).squeeze(-1), E),
    op("max-min", lambda x: x.max(1).values.sum() + x.min() + x.amax((0, 2)).sum() + x.amin(-1).sum(), E),
    op("argmax-argsort", lambda x: (x.argmax(1), x.argmin(), x.argsort(-1, descending=True)), E),
    op("prod-var-std", lambda x: x.prod(1) + x.var(1) + x.std(1), A),
    op("prod-with-zero", lambda x: x.prod(1), np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0]], np.float32)),
    op("logsumexp-norm", lambda x: x.logsumexp(1) + x.norm(dim=1) + x.norm(p=1, dim=1) + x.norm(3, dim=1), A),
    op("cumsum", lambda x: x.cumsum(1), E),
    op("all-any-count", lambda x: ((x > 0).all(1), (x > 0).any(), lt.count_nonzero(x > 0)), E),
    op("view-reshape", lambda x: x.view(6, 4).reshape(-1, 3).t().reshape(2, 12), E),
    op("transpose-permute", lambda x: x.transpose(0, 2).permute(1, 2, 0).flatten(), E),
    op("squeeze-unsqueeze-expand", lambda x: x.unsqueeze(1).expand(2, 5, 3).squeeze(), A),
    op("cat-stack-split", lambda x, y: lt.cat([lt.stack([x, y], 1).flatten(1), x.split([1, 2], 1)[1]], 1), A, A2),
    op("chunk-unbind-narrow", lambda x: lt.cat(list(x.chunk(2, -1)) + [u.unsqueeze(-1) for u in x.unbind(2)] +
                                               [x.narrow(2, 1, 2)], -1), E),
    op("flip-repeat-vstack", lambda x: lt.vstack([x.flip(0, 1), x.repeat(2, 1)]), A),
    op("movedim-mT", lambda x: lt.movedim(x, 0, -1).mT, E),
    op("index-basic", lambda x: x[1, :, None, ::2][..., 0], E),
    op("index-list", lambda x: x[[0, 1, 1], [2, 0, 2]], A),
    op("index-int-tensor", lambda x: x[lt.tensor([1, 1, 0], device=x.device)], A),
    op("index-mask", lambda x: x[x > 0], A),
    op("index-mixed", lambda x: x[0, :, [1, 3]], E),
    op("gather-index_select", lambda x: x.gather(1, lt.tensor([[0, 2], [1, 1]], device=x.device)).sum(1) +
       x.index_select(1, lt.tensor([2, 0], device=x.device)).sum(1), A),
    op("masked_fill-masked_select", lambda x: x.masked_fill(x < 0, 0.5).sum() + lt.masked_select(x, x > 0).sum(),
       A),
    op("sort-topk", lambda x: x.sort(1, descending=True).values + x.topk(3).values + x.topk(1, 0).values, D.T.copy()),
    op("matmul-variants", lambda x, y: (x @ y).sum() + lt.matmul(x[0], y).sum() + lt.matmul(x, y[:, 0]).sum() +
       lt.dot(x[0], y[:, 0]) + lt.mv(x, y[:, 1]).sum() + lt.outer(x[0], y[0]).sum(), A, D),
    op("matmul-batched", lambda x, y: lt.matmul(x, y.t()) + lt.bmm(x, x.transpose(1, 2)).sum(-1, keepdim=True), E, D),
    op("mm", lambda x, y: x.mm(y), A, D),
    op("normalize", lambda x: lt.nn.functional.normalize(x, dim=1) + lt.nn.functional.normalize(x, p=1, dim=0), A),
    op("pad_sequence", lambda x, y: lt.nn.utils.rnn.pad_sequence([x, y[:1]], batch_first=True, padding_value=-1.0),
       D, D),
    op("setitem-gradient", lambda x, y: _setitem(x, y), A, B),
    op("inplace", lambda x: _inplace(x), A),
    op("to-dtype", lambda x: x.double().float().long().float() + x.int() + x.bool(), A),
    op("int-ops", lambda i: (i // 2, i % 3, i & 6, i.sum(), i.max(), -i, i.abs(), i ** 2), np.arange(-3, 3)),
    op("isnan-isinf", lambda x: ((x / 0).isnan(), (x / 0).isinf(), (x / 0).isfinite()), A),
    op("float64", lambda x: (x.double() @ x.double().t()).sum(), A),
    op("nonzero-where", lambda x: (lt.nonzero(x > 0), lt.where(x > 0)[1], x.nonzero(as_tuple=True)[0]), A),
    op("isclose-equal", lambda x, y: (lt.isclose(x, y), lt.tensor(lt.allclose(x, x), device=x.device),
                                      lt.tensor(lt.equal(x, y), device=x.device),
                                      x.logical_not(), (x > 0) ^ (y > 0)), A, A2),
    op("T-expand_as-type", lambda x, y: x.T.expand_as(y.t()).type(lt.float64) * y.t(), A, A2),
    op("var-correction", lambda x: x.var(0, correction=0) + x.std(unbiased=False), A),
    op("new-tensors", lambda x: x.new_full((2,), 3.0) + x.new_ones(2) + x.new_tensor([1.0, 2.0]) +
       lt.zeros_like(x)[0, :2], A),
    op("setitem-list-advanced", lambda x: _setitem_advanced(x), A),
    op("index-two-lists-grad", lambda x: x[[1, 0, 1], [0, 2, 2]] * x[[0]].sum(), A),
    op("index-bool-rows", lambda x: x[lt.tensor([True, False], device=x.device)], A),
    op("contiguous", lambda x: x.t().contiguous().view(-1), A),
]


def _setitem_advanced(x):
    z = x * 1
    # distinct positions: where one repeats, which write wins is undefined on a GPU (PyTorch's too)
    z[[0, 1, 1], [2, 0, 2]] = lt.tensor([5.0, 6.0, 7.0], device=x.device)
    z[0, [0, 1]] = z[1, [1, 2]] * 2
    return z


def _setitem(x, y):
    z = x * 1
    z[0] = y * 2
    z[z > 1] = 0.0
    z[1][[0, 2]] = y[:2]
    return z


def _inplace(x):
    z = x * 1
    z.add_(1).mul_(2).clamp_(min=0.5)
    z[:, 0] *= 3
    return z


@pytest.mark.parametrize("fn, arrays", OPS)
def test_ops_on_cuda_equal_cpu(any_cuda, fn, arrays):
    same_on_cpu_and_cuda(fn, *arrays)


def test_two_layer_net_on_cuda_equals_cpu(any_cuda):
    """The notes' example: forward, backward and the manual update, on the device and on the host."""
    data = np.random.default_rng(0)
    x_np, y_np = data.standard_normal((16, 8)).astype(np.float32), data.standard_normal((16, 3)).astype(np.float32)
    w1_np, w2_np = data.standard_normal((8, 10)).astype(np.float32), data.standard_normal((10, 3)).astype(np.float32)
    results = {}
    for dev in ("cpu", "cuda"):
        device = lt.device(dev)
        x, y = lt.tensor(x_np, device=device), lt.tensor(y_np, device=device)
        w1 = lt.tensor(w1_np, device=device, requires_grad=True)
        w2 = lt.tensor(w2_np, device=device, requires_grad=True)
        losses = []
        for _ in range(5):
            y_pred = x.mm(w1).clamp(min=0).mm(w2)
            loss = (y_pred - y).pow(2).sum()
            losses.append(loss.item())
            loss.backward()
            with lt.no_grad():
                w1 -= 1e-3 * w1.grad
                w2 -= 1e-3 * w2.grad
                w1.grad.zero_()
                w2.grad.zero_()
        assert str(w1.device) == ("cpu" if dev == "cpu" else "cuda:0") and w1.is_leaf
        results[dev] = (losses, host(w1), host(w2))
    np.testing.assert_allclose(results["cuda"][0], results["cpu"][0], rtol=1e-5)
    np.testing.assert_allclose(results["cuda"][1], results["cpu"][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results["cuda"][2], results["cpu"][2], rtol=1e-5, atol=1e-6)


def test_autograd_features_on_cuda(any_cuda):
    x = lt.tensor(A, device="cuda", requires_grad=True)
    y = x * 2
    y.retain_grad()
    log = []
    y.register_hook(lambda g: log.append(str(g.device)))
    loss = (y * y).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(host(x.grad), 2 * (2 * 2 * 2 * A), rtol=1e-5)
    (gx,) = lt.autograd.grad(((x * 2) ** 3).sum(), x, create_graph=True)
    (g2,) = lt.autograd.grad(gx.sum(), x)
    np.testing.assert_allclose(host(g2), 48 * A, rtol=1e-5)
    assert log == ["cuda:0"] * 2
    assert str(y.grad.device) == "cuda:0"
    assert lt.autograd.gradcheck(lambda t: (t * t.sin()).sum(1), (lt.tensor(A.astype(np.float64), device="cuda",
                                                                              requires_grad=True),))


def test_custom_function_on_cuda(any_cuda):
    class MyReLU(lt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * (x > 0).float()
    x = lt.tensor(A, device="cuda", requires_grad=True)
    MyReLU.apply(x).sum().backward()
    np.testing.assert_array_equal(host(x.grad), (A > 0).astype(np.float32))


# ============================================================================ a real GPU
@pytest.mark.gpu
def test_real_gpu_two_layer_net():
    cp = cuda.cupy_or_none()
    assert cp is not None
    x = lt.randn(64, 32, device="cuda")
    w = lt.randn(32, 8, device="cuda", requires_grad=True)
    assert type(x._data).__module__.startswith("cupy")
    (x.mm(w).clamp(min=0) ** 2).sum().backward()
    assert str(w.grad.device) == "cuda:0"
    ref = lt.tensor(x.cpu().numpy()).mm(lt.tensor(w.detach().cpu().numpy(), requires_grad=True))
    np.testing.assert_allclose(host(x.mm(w)), host(ref), rtol=1e-4, atol=1e-4)
    assert cuda.memory_allocated() > 0


@pytest.mark.gpu
def test_real_gpu_refuses_implicit_conversion():
    g = lt.ones(3, device="cuda")
    with pytest.raises(TypeError):
        g.numpy()
    with pytest.raises(TypeError):
        np.asarray(g._data)
