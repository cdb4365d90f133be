"""The lines training scripts carry even on a CPU: TF32 switches, matmul precision,
autocast, GradScaler (enabled on the CPU, and its no-op paths), torch.compile and
torch.bfloat16 -- against torch 2.13 on this CPU-only machine."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, raises_both


@pytest.fixture
def cpu_only(torch_oracle, monkeypatch):
    from learntorch import cuda
    monkeypatch.delenv("LEARNTORCH_FAKE_CUDA", raising=False)
    cuda.cupy_or_none.cache_clear()
    if cuda.cupy_or_none() is not None or torch_oracle.cuda.is_available():
        pytest.skip("a GPU is present: these compare the CPU-only behaviour")
    cuda.use_logical_devices(0)
    yield torch_oracle
    cuda.use_logical_devices(None)


def _caught(fn):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        result = fn()
    return result, [(w.category, str(w.message)) for w in rec]


# ----------------------------------------------------------------------------- TF32 and precision
def test_tf32_switches_and_matmul_precision(torch_oracle):
    def run(T):
        out = [T.backends.cuda.matmul.allow_tf32, T.backends.cudnn.allow_tf32, T.get_float32_matmul_precision()]
        for p in ("high", "medium", "highest"):
            T.set_float32_matmul_precision(p)
            out += [T.get_float32_matmul_precision(), T.backends.cuda.matmul.allow_tf32]
        T.backends.cuda.matmul.allow_tf32 = True
        out.append(T.get_float32_matmul_precision())
        T.backends.cuda.matmul.allow_tf32 = False
        T.backends.cudnn.allow_tf32 = False
        out.append(T.backends.cudnn.allow_tf32)
        T.backends.cudnn.allow_tf32 = True
        out += [T.backends.cuda.matmul.allow_fp16_reduced_precision_reduction, T.get_float32_matmul_precision()]
        return out
    assert run(lt) == run(torch_oracle)


def test_matmul_precision_validation(torch_oracle):
    raises_both(lambda T: T.set_float32_matmul_precision(3), torch_oracle, match="expects a str")
    for T in (torch_oracle, lt):
        with pytest.warns(UserWarning, match="low is not one of 'highest', 'high', or 'medium'"):
            T.set_float32_matmul_precision("low")
        assert T.get_float32_matmul_precision() == "highest"


# ----------------------------------------------------------------------------- autocast
def _autocast_run(T, *args, **kw):
    def body():
        with T.autocast(*args, **kw) as ctx:
            return isinstance(ctx, T.autocast), T.is_autocast_enabled("cpu"), T.is_autocast_enabled()
    return _caught(body)


@pytest.mark.parametrize("args, kw", [
    (("cuda",), {}), (("cpu",), {"dtype": "float32"}), (("cpu",), {"enabled": False}),
    (("cuda",), {"enabled": False}), (("cpu",), {"dtype": "int32"}),
], ids=["cuda_without_cuda", "cpu_float32", "cpu_disabled", "cuda_disabled", "cpu_int32"])
def test_autocast_disables_itself_like_torch(cpu_only, args, kw):
    kw_l = {k: getattr(lt, v) if k == "dtype" else v for k, v in kw.items()}
    kw_t = {k: getattr(cpu_only, v) if k == "dtype" else v for k, v in kw.items()}
    assert _autocast_run(lt, *args, **kw_l) == _autocast_run(cpu_only, *args, **kw_t)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_cpu_autocast_enabled_state(torch_oracle, dtype):
    (flags_t, warned_t), (flags_l, warned_l) = (_autocast_run(T, "cpu", dtype=getattr(T, dtype))
                                                for T in (torch_oracle, lt))
    assert flags_l == flags_t == (True, True, False)
    assert [c for c, _ in warned_l] == [c for c, _ in warned_t] == []  # (it lowers precision: nothing to warn)
    assert lt.get_autocast_dtype("cpu") == lt.bfloat16 and lt.get_autocast_dtype("cuda") == lt.float16


def test_autocast_as_decorator_and_bad_device(torch_oracle):
    @lt.autocast("cpu", enabled=False)
    def f(x):
        return x * 2
    assert f(lt.ones(1)).item() == 2.0
    raises_both(lambda T: T.autocast("xyz"), torch_oracle, match="device type at start of device string: xyz")


def test_cuda_amp_autocast_is_deprecated_like_torch(cpu_only):
    got = [[(c.__name__, m) for c, m in _caught(lambda: T.cuda.amp.autocast())[1]] for T in (cpu_only, lt)]
    assert got[0] == got[1]
    assert got[0][0][0] == "FutureWarning"


def test_cpu_amp_spellings_are_deprecated_like_torch(torch_oracle):
    """``torch.cpu.amp.autocast()`` (bfloat16 by default, also as a decorator) and
    ``torch.cpu.amp.GradScaler()``: they work, with PyTorch's FutureWarnings."""
    def run(T):
        @T.cpu.amp.autocast()
        def f(a):
            return a @ a
        with T.cpu.amp.autocast(dtype=T.float16):
            inside = (T.ones(2, 2) @ T.ones(2, 2)).dtype
        s = T.cpu.amp.GradScaler(init_scale=8.0)
        return str(f(T.ones(2, 2)).dtype), str(inside), s.is_enabled(), s.get_scale()
    (got_t, warned_t), (got_l, warned_l) = (_caught(lambda: run(T)) for T in (torch_oracle, lt))
    assert got_l == got_t
    assert [(c.__name__, m) for c, m in warned_l] == [(c.__name__, m) for c, m in warned_t]


# ----------------------------------------------------------------------------- GradScaler
def _scaler_steps(T, device="cpu", enabled=True):
    """A few scaled steps, one with an inf gradient: every observable of the scaler."""
    w = T.ones(2, requires_grad=True)
    opt = T.optim.SGD([w], lr=0.1)
    s = T.amp.GradScaler(device, enabled=enabled, growth_interval=2)
    log = [s.is_enabled(), s.get_scale(), s.state_dict()]
    for it in range(4):
        opt.zero_grad()
        loss = (w * 3).sum()
        scaled = s.scale(loss)
        log.append(scaled is loss)
        log.append(scaled.detach())
        scaled.backward()
        if it == 2:
            w.grad = T.tensor([float("inf"), 1.0])
        if it == 1:
            s.unscale_(opt)
            log.append(w.grad.clone())
        log.append(s.step(opt))
        s.update()
        log += [w.detach().clone(), s.get_scale(), s.state_dict()]
    return log


@pytest.mark.parametrize("enabled", [True, False])
def test_gradscaler_on_cpu_matches_torch(torch_oracle, enabled):
    assert_same(_scaler_steps(lt, enabled=enabled), _scaler_steps(torch_oracle, enabled=enabled))


def test_gradscaler_cuda_without_cuda_warns_and_is_a_no_op(cpu_only):
    (log_t, w_t), (log_l, w_l) = (_caught(lambda: _scaler_steps(T, "cuda")) for T in (cpu_only, lt))
    assert_same(log_l, log_t)
    assert [m for _, m in w_l] == [m for _, m in w_t] == [
        "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."]
    (_, wt), (_, wl) = (_caught(lambda: T.cuda.amp.GradScaler()) for T in (cpu_only, lt))
    assert [(c.__name__, m) for c, m in wl] == [(c.__name__, m) for c, m in wt]


def test_gradscaler_misuse_like_torch(torch_oracle):
    def prepared(T):
        w = T.ones(2, requires_grad=True)
        opt = T.optim.SGD([w], lr=0.1)
        s = T.amp.GradScaler("cpu")
        s.scale((w * 3).sum()).backward()
        return s, opt

    def twice(T):
        s, opt = prepared(T)
        s.unscale_(opt)
        s.unscale_(opt)

    def after_step(T):
        s, opt = prepared(T)
        s.step(opt)
        s.unscale_(opt)

    def step_twice(T):
        s, opt = prepared(T)
        s.step(opt)
        s.step(opt)
    raises_both(twice, torch_oracle, match="unscale_\\(\\) has already been called on this optimizer")
    raises_both(after_step, torch_oracle, match="unscale_\\(\\) is being called after step\\(\\)")
    raises_both(step_twice, torch_oracle, match="step\\(\\) has already been called since the last update")
    raises_both(lambda T: prepared(T)[0].step(prepared(T)[1], closure=lambda: 1), torch_oracle,
                match="Closure use is not currently supported")
    raises_both(lambda T: T.amp.GradScaler("cpu").scale(3.0), torch_oracle,
                match="outputs must be a Tensor or an iterable of Tensors")
    raises_both(lambda T: T.amp.GradScaler("cpu").load_state_dict({}), torch_oracle,
                match="The source state dict is empty")


def test_gradscaler_scale_nested_and_state_roundtrip(torch_oracle):
    def run(T):
        s = T.amp.GradScaler("cpu", init_scale=8.0)
        x = T.tensor(2.0, requires_grad=True)
        out = s.scale([x * 1, (x * 2, x * 3)])
        s.load_state_dict({"scale": 4.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 5,
                           "_growth_tracker": 1})
        s.update(16.0)
        return [out[0], list(out[1]), s.get_scale(), s.state_dict(), s.get_growth_factor(),
                s.get_backoff_factor(), s.get_growth_interval()]
    assert_same(run(lt), run(torch_oracle))


# ----------------------------------------------------------------------------- compile
# Real torch's compile() imports torch.jit, which warns about its own deprecated
# script_method decorator: the oracle's warning, not learntorch's.
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
def test_compile_returns_the_model_and_checks_arguments(torch_oracle):
    model = lt.nn.Linear(2, 2)
    assert lt.compile(model) is model
    assert lt.compile(model, mode="max-autotune", fullgraph=True, dynamic=False) is model

    def f(x):
        return x + 1
    assert lt.compile(f) is f
    assert lt.compile(mode="reduce-overhead")(f) is f
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lt.compile(model)  # silent, as torch
    raises_both(lambda T: T.compile(T.nn.Linear(2, 2), mode="fast"), torch_oracle, match="Unrecognized mode=fast")
    raises_both(lambda T: T.compile(T.nn.Linear(2, 2), mode="max-autotune", options={"a": 1}), torch_oracle,
                match="Either mode or options can be specified")
    raises_both(lambda T: T.compile(3), torch_oracle, match="A callable function is expected")


# ----------------------------------------------------------------------------- bfloat16
def test_bfloat16_is_a_dtype_that_can_be_named(torch_oracle):
    for T in (torch_oracle, lt):
        d = T.bfloat16
        assert str(d) == repr(d) == "torch.bfloat16"
        assert d.is_floating_point and d.itemsize == 2 and d != T.float16 and d == T.bfloat16
        assert pickle.loads(pickle.dumps(d)) is d
        assert T.cuda.is_bf16_supported() is False or T is torch_oracle


@pytest.mark.parametrize("make", [lambda: lt.zeros(2, dtype=lt.bfloat16), lambda: lt.ones(2).to(lt.bfloat16),
                                  lambda: lt.tensor([1.0], dtype=lt.bfloat16), lambda: lt.ones(2).bfloat16(),
                                  lambda: lt.randn(2, dtype=lt.bfloat16)])
def test_bfloat16_tensors_are_made_on_the_cpu(make):
    """Stored with ml_dtypes' NumPy bfloat16 (tests/tensor/test_bfloat16.py has the rest)."""
    x = make()
    assert x.dtype is lt.bfloat16 and x.device.type == "cpu" and x.element_size() == 2
