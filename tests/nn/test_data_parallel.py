"""``nn.DataParallel`` on learntorch's logical devices against a single-device run.

PyTorch's DataParallel needs GPUs; on the oracle's CPU build it just calls the
module.  So the reference numbers are a single-device run of the same model
with the same weights (in torch where it is installed, and in learntorch), and
DataParallel on 2 and 3 logical devices must give the same outputs and the
same gradients (summed back into the original parameters) to float32 tolerance.
The behaviour around the wrapper (attributes, ``state_dict`` keys, errors) is
compared with torch's own DataParallel where torch can show it without a GPU.
"""
from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
import pytest

import learntorch as lt
from learntorch.nn.parallel import gather, parallel_apply, replicate, scatter

from conftest import assert_draws_same

RTOL, ATOL = 1e-5, 1e-6


def host(x):
    return np.asarray(x.detach().cpu().numpy())


def make_model(T, seed=0):
    T.manual_seed(seed)
    return T.nn.Sequential(T.nn.Linear(5, 8), T.nn.Tanh(), T.nn.Linear(8, 3))


def data(n, seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 5)).astype(np.float32), rng.integers(0, 3, n)


# ============================================================================ against a single device
@pytest.mark.parametrize("devices", [2, 3])
@pytest.mark.parametrize("batch", [12, 10, 2])  # even chunks, chunks of 4/4/2 (or 5/5), fewer rows than devices
def test_outputs_and_gradients_equal_single_device_torch(torch_oracle, draws_bit_exact, logical, devices, batch):
    torch = torch_oracle
    logical(devices)
    x, y = data(batch)
    ref = make_model(torch)
    ref_loss = torch.nn.functional.cross_entropy(ref(torch.from_numpy(x)), torch.from_numpy(y))
    ref_loss.backward()

    model = make_model(lt)  # the same initialisation stream as torch
    for p, q in zip(model.parameters(), ref.parameters()):
        assert_draws_same(host(p), q.detach().numpy(), draws_bit_exact)
    dp = lt.nn.DataParallel(model.cuda())
    out = dp(lt.tensor(x))                           # the input starts on the CPU
    assert out.device == lt.device("cuda:0") and out.grad_fn.name() == "GatherBackward"
    loss = lt.nn.functional.cross_entropy(out, lt.tensor(y, device="cuda:0"))
    loss.backward()
    np.testing.assert_allclose(host(out), ref(torch.from_numpy(x)).detach().numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(loss.item(), ref_loss.item(), rtol=RTOL)
    for p, q in zip(model.parameters(), ref.parameters()):
        assert p.grad.device == lt.device("cuda:0") and p.is_leaf
        np.testing.assert_allclose(host(p.grad), q.grad.numpy(), rtol=RTOL, atol=ATOL)


def test_training_with_data_parallel_follows_single_device(logical):
    """Five SGD steps on 3 devices reach the weights of five steps on one."""
    logical(3)
    x, y = data(30)
    weights = {}
    for name in ("single", "parallel"):
        model = make_model(lt).cuda()
        net = lt.nn.DataParallel(model) if name == "parallel" else model
        opt = lt.optim.SGD(net.parameters(), lr=0.5, momentum=0.9)
        xs, ys = lt.tensor(x, device="cuda:0"), lt.tensor(y, device="cuda:0")
        for _ in range(5):
            opt.zero_grad()
            lt.nn.functional.cross_entropy(net(xs), ys).backward()
            opt.step()
        weights[name] = [host(p) for p in model.parameters()]
    for a, b in zip(weights["single"], weights["parallel"]):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def test_gradients_are_summed_from_every_replica(logical):
    """With a sum loss, each replica contributes its chunk's gradient; BroadcastBackward adds them."""
    logical(2)
    w = lt.nn.Linear(1, 1, bias=False).cuda()
    with lt.no_grad():
        w.weight.fill_(1.0)
    dp = lt.nn.DataParallel(w)
    out = dp(lt.tensor([[1.0], [2.0], [3.0], [4.0]]))
    out.sum().backward()
    assert w.weight.grad.item() == 10.0               # (1 + 2) from cuda:0 plus (3 + 4) from cuda:1


def test_scatter_replicate_gather_step_by_step(logical):
    logical(3)
    x = lt.arange(20.0).view(10, 2).requires_grad_()
    chunks = scatter(x, [0, 1, 2])
    assert [tuple(c.shape) for c in chunks] == [(4, 2), (4, 2), (2, 2)]  # torch.chunk's sizes
    assert [str(c.device) for c in chunks] == ["cuda:0", "cuda:1", "cuda:2"]
    assert chunks[0].grad_fn.name() == "ScatterBackward"
    assert len(scatter(lt.ones(5, 2), [0, 1, 2, 1])) == 3  # 5 rows on 4 devices: chunks of 2, 2, 1

    model = lt.nn.Linear(2, 1).cuda(0)
    replicas = replicate(model, [0, 1, 2])
    assert len(replicas) == 3 and all(type(r) is lt.nn.Linear for r in replicas)
    assert [str(r.weight.device) for r in replicas] == ["cuda:0", "cuda:1", "cuda:2"]
    assert replicas[1].weight.grad_fn.name() == "BroadcastBackward"
    assert not isinstance(replicas[1].weight, lt.nn.Parameter) and list(replicas[1].parameters()) == []
    assert replicas[0].weight._data is model.weight._data     # on the source device: the same storage
    assert replicas[1].weight._data is not model.weight._data

    outputs = parallel_apply(replicas, chunks, None, [0, 1, 2])
    assert [str(o.device) for o in outputs] == ["cuda:0", "cuda:1", "cuda:2"]
    out = gather(outputs, 0)
    assert out.device == lt.device("cuda:0") and out.grad_fn.name() == "GatherBackward"
    out.sum().backward()
    np.testing.assert_allclose(host(x.grad), np.tile(host(model.weight), (10, 1)), rtol=RTOL)
    np.testing.assert_allclose(host(model.weight.grad), host(x).sum(0, keepdims=True), rtol=RTOL)


def test_dim_and_output_device(logical):
    logical(2)

    class Cols(lt.nn.Module):
        def forward(self, x):
            return x * 2

    x = lt.arange(12.0).view(2, 6)
    out = lt.nn.DataParallel(Cols(), dim=1, output_device=1)(x)
    assert out.device == lt.device("cuda:1")
    np.testing.assert_array_equal(host(out), host(x) * 2)
    on_host = lt.nn.DataParallel(Cols(), output_device=-1)(x)  # -1: the CPU
    assert on_host.device == lt.device("cpu")


def test_structured_inputs_kwargs_and_outputs(logical):
    logical(3)
    Pair = namedtuple("Pair", "a b")

    class Mixed(lt.nn.Module):
        def forward(self, pair, items, table, scale=1.0, shift=None, tag="?"):
            assert isinstance(pair, Pair) and isinstance(items, list) and isinstance(table, dict)
            assert tag == "same for all"                 # not a tensor: given to every replica as it is
            total = (pair.a + pair.b + items[0] + table["t"]) * scale + shift
            return {"sum": total, "parts": (pair.a, items[0].device.index * lt.ones_like(pair.a))}

    a, b = lt.randn(7, 2), lt.randn(7, 2)
    c, d, s = lt.randn(7, 2), lt.randn(7, 2), lt.randn(7, 2)
    out = lt.nn.DataParallel(Mixed())(Pair(a, b), [c], {"t": d}, scale=2.0, shift=s, tag="same for all")
    assert set(out) == {"sum", "parts"} and isinstance(out["parts"], tuple)
    np.testing.assert_allclose(host(out["sum"]), (host(a) + host(b) + host(c) + host(d)) * 2 + host(s), rtol=RTOL)
    np.testing.assert_array_equal(host(out["parts"][1])[:, 0], [0, 0, 0, 1, 1, 1, 2])  # rows 3/3/1 per device


def test_forward_hook_runs_once_per_replica(logical):
    logical(3)
    model = lt.nn.Linear(2, 2).cuda()
    seen = []
    model.register_forward_hook(lambda m, args, out: seen.append(str(out.device)))
    lt.nn.DataParallel(model)(lt.ones(6, 2))
    assert sorted(seen) == ["cuda:0", "cuda:1", "cuda:2"]


def test_no_grad_replicas_have_no_graph(logical):
    logical(2)
    dp = lt.nn.DataParallel(make_model(lt).cuda())
    with lt.no_grad():
        out = dp(lt.ones(4, 5))
    assert not out.requires_grad and out.grad_fn is None


def test_scalar_outputs_are_gathered_into_a_vector(logical):
    logical(2)

    class Loss(lt.nn.Module):
        def forward(self, x):
            return x.sum()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = lt.nn.DataParallel(Loss())(lt.ones(4, 3))
    assert any("all input tensors were scalars" in str(w.message) for w in caught)
    assert tuple(out.shape) == (2,) and out.tolist() == [6.0, 6.0]


# ============================================================================ buffers
def test_batchnorm_buffers_come_from_replica_zero(logical):
    """Replica 0's buffers are the original's (no copy onto the source device): its chunk's
    running statistics reach the original; the other replicas' updates are thrown away."""
    logical(2)
    x = np.random.default_rng(3).standard_normal((8, 4)).astype(np.float32)
    bn = lt.nn.BatchNorm1d(4).cuda()
    lt.nn.DataParallel(bn)(lt.tensor(x))
    first_half = lt.nn.BatchNorm1d(4)
    first_half(lt.tensor(x[:4]))
    np.testing.assert_allclose(host(bn.running_mean), host(first_half.running_mean), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(host(bn.running_var), host(first_half.running_var), rtol=RTOL, atol=ATOL)
    assert bn.num_batches_tracked.item() == 1


# ============================================================================ the wrapper
def test_without_gpus_it_just_calls_the_module(torch_oracle, logical):
    torch = torch_oracle
    x, _ = data(4)
    results = []
    for T in (lt, torch):
        dp = T.nn.DataParallel(make_model(T))
        assert dp.device_ids == []
        out = dp(T.tensor(x))
        results.append((out.grad_fn.name(), out.detach().numpy()))
    assert results[0][0] == results[1][0] == "AddmmBackward0"
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=RTOL, atol=ATOL)


def test_one_device_moves_the_module_and_does_not_replicate(logical):
    logical(2)
    model = make_model(lt)
    dp = lt.nn.DataParallel(model, device_ids=[0])
    assert model[0].weight.device == lt.device("cuda:0")      # moved at construction, as in PyTorch
    out = dp(lt.ones(3, 5))
    assert out.grad_fn.name() == "AddmmBackward0"             # the module's own output: no gather


def test_module_must_be_on_the_first_device(logical):
    logical(2)
    dp = lt.nn.DataParallel(make_model(lt))                   # still on the CPU
    with pytest.raises(RuntimeError) as info:
        dp(lt.ones(4, 5))
    assert str(info.value) == ("module must have its parameters and buffers on device cuda:0 (device_ids[0]) "
                               "but found one of them on device: cpu")
    dp2 = lt.nn.DataParallel(make_model(lt).cuda(1), device_ids=[0, 1])
    with pytest.raises(RuntimeError, match="but found one of them on device: cuda:1"):
        dp2(lt.ones(4, 5))


def test_an_error_in_a_replica_is_raised_in_the_caller(logical):
    logical(2)

    class Picky(lt.nn.Module):
        def forward(self, x):
            if x.device.index == 1:
                raise ValueError("replica one refuses")
            return x

    with pytest.raises(ValueError) as info:
        lt.nn.DataParallel(Picky())(lt.ones(4, 1))
    assert str(info.value).startswith("Caught ValueError in replica 1 on device 1.\nOriginal Traceback")
    assert "replica one refuses" in str(info.value)


def test_wrapper_hides_the_modules_attributes_as_pytorch(torch_oracle, logical):
    """The notes' complaint, the notes' MyDataParallel (infinite recursion), and the fix."""
    torch = torch_oracle
    logical(2)
    errors, fixed = {}, {}
    for T in (lt, torch):
        model = make_model(T)
        model.num_classes = 3
        device = "cuda:0" if T is lt else "cpu"
        dp = T.nn.DataParallel(model.to(device))
        assert dp.module is model and dp.module.num_classes == 3
        with pytest.raises(AttributeError) as info:
            dp.num_classes
        errors[T.__name__] = str(info.value)

        class MyDataParallel(T.nn.DataParallel):  # the notes' version
            def __getattr__(self, name):
                return getattr(self.module, name)

        with pytest.raises(RecursionError):
            MyDataParallel(model).num_classes

        class FixedDataParallel(T.nn.DataParallel):  # ask the parent class first, then the module
            def __getattr__(self, name):
                try:
                    return super().__getattr__(name)
                except AttributeError:
                    return getattr(self.module, name)

        good = FixedDataParallel(model)
        fixed[T.__name__] = (good.num_classes, type(good.module).__name__, good.module is model)
        with pytest.raises(AttributeError, match="'Sequential' object has no attribute 'missing'"):
            good.missing
    assert errors["learntorch"] == errors["torch"] == "'DataParallel' object has no attribute 'num_classes'"
    assert fixed["learntorch"] == fixed["torch"] == (3, "Sequential", True)


def test_state_dict_keys_are_prefixed_module(torch_oracle, logical):
    torch = torch_oracle
    logical(2)
    keys = {}
    for T in (lt, torch):
        model = make_model(T).to("cuda:0" if T is lt else "cpu")
        keys[T.__name__] = list(T.nn.DataParallel(model).state_dict())
    assert keys["learntorch"] == keys["torch"] == ["module.0.weight", "module.0.bias", "module.2.weight",
                                                   "module.2.bias"]
    dp = lt.nn.DataParallel(make_model(lt, seed=5).cuda())
    plain = make_model(lt, seed=6)
    plain.load_state_dict({k.removeprefix("module."): v.cpu() for k, v in dp.state_dict().items()})
    for p, q in zip(plain.parameters(), dp.module.parameters()):
        np.testing.assert_array_equal(host(p), host(q))
    assert repr(dp).startswith("DataParallel(\n  (module): Sequential(")


# ============================================================================ real GPUs (make test-gpu)
@pytest.mark.gpu
def test_real_gpus_data_parallel_equals_one_gpu():
    """On every visible GPU (one GPU: the no-replication path) against a single-GPU run."""
    x, y = data(24)
    results = []
    for parallel in (False, True):
        model = make_model(lt).cuda(0)
        net = lt.nn.DataParallel(model) if parallel else model
        loss = lt.nn.functional.cross_entropy(net(lt.tensor(x, device="cuda:0")), lt.tensor(y, device="cuda:0"))
        loss.backward()
        results.append([loss.item()] + [host(p.grad) for p in model.parameters()])
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5)
    for a, b in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
