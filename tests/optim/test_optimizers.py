"""learntorch.optim against real PyTorch (the oracle): same model, same loss, same trajectory."""
import os
import tempfile

import numpy as np
import pytest

import learntorch as lt

torch = pytest.importorskip("torch", reason="real PyTorch (the oracle) is not installed")

RTOL, ATOL = 1e-5, 1e-6
# Optimizer *state* is compared more loosely than the parameters: RMSprop's momentum buffer holds g / sqrt(avg),
# O(1) numbers that amplify the last-bit differences of the two libraries' gradients (and PyTorch's fused
# multiply-adds) once a gradient element gets close to zero; the parameters themselves still agree to 1e-5/1e-6.
STATE_RTOL, STATE_ATOL = 1e-4, 1e-4


def _models():
    lt.manual_seed(0)
    m = lt.nn.Linear(5, 3)
    torch.manual_seed(0)
    tm = torch.nn.Linear(5, 3)
    return m, tm


_X = np.linspace(-1.0, 1.0, 20, dtype=np.float32).reshape(4, 5)
_Y = np.cos(np.arange(12, dtype=np.float32)).reshape(4, 3)


def _loss(lib, model, sign=1.0):
    """A smooth deterministic loss; ``sign=-1`` turns it into a reward for ``maximize=True``."""
    x, y = lib.tensor(_X), lib.tensor(_Y)
    out = model(x)
    return (((out - y) ** 2).mean() + (out ** 3).mean() * 0.1) * sign


def _compare_params(m, tm, what):
    for (name, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=RTOL, atol=ATOL,
                                   err_msg=f"{what}: {name}")


def _run(m, tm, opt, topt, steps=50, start=0):
    sign = -1.0 if opt.param_groups[0]["maximize"] else 1.0
    for i in range(start, start + steps):
        for model, o, lib in ((m, opt, lt), (tm, topt, torch)):
            o.zero_grad()
            _loss(lib, model, sign).backward()
            o.step()
        if (i + 1) % 10 == 0:
            _compare_params(m, tm, f"after step {i + 1}")


def _compare_state_dicts(sd, tsd):
    assert set(sd) == {"state", "param_groups"}
    assert sorted(sd["state"]) == sorted(tsd["state"])
    for k, ts in tsd["state"].items():
        s = sd["state"][k]
        assert sorted(s) == sorted(ts), (k, sorted(s), sorted(ts))
        for key, tv in ts.items():
            v = s[key]
            assert isinstance(v, lt.Tensor)
            assert str(v.dtype).split(".")[-1] == str(tv.dtype).split(".")[-1]
            assert tuple(v.shape) == tuple(tv.shape)
            np.testing.assert_allclose(v.numpy(), tv.numpy(), rtol=STATE_RTOL, atol=STATE_ATOL, err_msg=key)
    assert len(sd["param_groups"]) == len(tsd["param_groups"])
    for g, tg in zip(sd["param_groups"], tsd["param_groups"]):
        assert g["params"] == tg["params"]
        for key, value in g.items():
            assert key in tg, key
            if key == "foreach":  # torch was built with foreach=False (its per-parameter loop) on purpose
                continue
            assert value == tg[key], key


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.05, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6)),
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.5, amsgrad=True)),
    ("AdamW", dict(lr=0.003, betas=(0.5, 0.9), maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-6)),
    ("Adagrad", dict(lr=0.1, maximize=True)),
    ("RMSprop", dict(lr=0.002)),
    ("RMSprop", dict(lr=0.002, alpha=0.9, eps=1e-6)),
    ("RMSprop", dict(lr=0.002, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.0005, momentum=0.9)),
    ("RMSprop", dict(lr=0.002, centered=True)),
    ("RMSprop", dict(lr=0.0005, centered=True, momentum=0.5, maximize=True)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{'-'.join(k)}" for n, k in CASES])
def test_trajectory_matches_torch(name, kwargs):
    m, tm = _models()
    opt = getattr(lt.optim, name)(m.parameters(), **kwargs)
    topt = getattr(torch.optim, name)(tm.parameters(), foreach=False, **kwargs)
    _run(m, tm, opt, topt)
    _compare_state_dicts(opt.state_dict(), topt.state_dict())


def test_adam_step_is_float32_scalar_tensor():
    m, _ = _models()
    opt = lt.optim.Adam(m.parameters())
    _loss(lt, m).backward()
    opt.step()
    step = opt.state[m.weight]["step"]
    assert isinstance(step, lt.Tensor) and step.dtype == lt.float32 and step.shape == () and step.item() == 1.0


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_param_groups_with_different_lr(name):
    m, tm = _models()
    kw = dict(momentum=0.9) if name == "SGD" else {}
    opt = getattr(lt.optim, name)([{"params": [m.weight]}, {"params": [m.bias], "lr": 0.001}], lr=0.02, **kw)
    topt = getattr(torch.optim, name)([{"params": [tm.weight]}, {"params": [tm.bias], "lr": 0.001}], lr=0.02,
                                      foreach=False, **kw)
    assert [g["lr"] for g in opt.param_groups] == [0.02, 0.001]
    _run(m, tm, opt, topt)
    _compare_state_dicts(opt.state_dict(), topt.state_dict())


def test_add_param_group():
    m, tm = _models()
    opt = lt.optim.SGD([m.weight], lr=0.1)
    opt.add_param_group({"params": m.bias, "lr": 0.01})
    topt = torch.optim.SGD([tm.weight], lr=0.1, foreach=False)
    topt.add_param_group({"params": tm.bias, "lr": 0.01})
    assert opt.param_groups[1]["lr"] == 0.01 and opt.param_groups[1]["momentum"] == 0
    _run(m, tm, opt, topt, steps=20)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [m.weight]})


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    m, tm = _models()
    opt, topt = lt.optim.SGD(m.parameters(), lr=0.1), torch.optim.SGD(tm.parameters(), lr=0.1)
    _loss(lt, m).backward()
    _loss(torch, tm).backward()
    opt.zero_grad(set_to_none=set_to_none)
    topt.zero_grad(set_to_none=set_to_none)
    for p, tp in zip(m.parameters(), tm.parameters()):
        if set_to_none:
            assert p.grad is None and tp.grad is None
        else:
            assert p.grad is not None and not p.grad.numpy().any() and not tp.grad.numpy().any()
    opt.zero_grad()  # the default is set_to_none=True
    assert all(p.grad is None for p in m.parameters())


def test_closure_returns_loss_and_runs_with_grad():
    m, tm = _models()
    opt = lt.optim.Adam(m.parameters(), lr=0.01)
    topt = torch.optim.Adam(tm.parameters(), lr=0.01, foreach=False)

    def closure():
        opt.zero_grad()
        loss = _loss(lt, m)
        loss.backward()
        return loss

    def tclosure():
        topt.zero_grad()
        loss = _loss(torch, tm)
        loss.backward()
        return loss

    for _ in range(10):
        with lt.no_grad():  # step() evaluates the closure with grad enabled
            loss = opt.step(closure)
        tloss = topt.step(tclosure)
        assert abs(loss.item() - tloss.item()) <= 1e-5 * abs(tloss.item()) + 1e-6
    _compare_params(m, tm, "closure")
    assert lt.optim.SGD(m.parameters()).step() is None


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.05, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
                                         ("AdamW", dict(lr=0.01)), ("Adagrad", dict(lr=0.1)),
                                         ("RMSprop", dict(lr=0.0005, centered=True, momentum=0.5))])
def test_state_dict_round_trip_through_save_load(name, kwargs):
    m, tm = _models()
    opt = getattr(lt.optim, name)(m.parameters(), **kwargs)
    topt = getattr(torch.optim, name)(tm.parameters(), foreach=False, **kwargs)
    _run(m, tm, opt, topt, steps=20)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ckpt.lt")
        lt.save({"model": m.state_dict(), "optim": opt.state_dict()}, path)
        ckpt = lt.load(path)
    lt.manual_seed(123)
    m2 = lt.nn.Linear(5, 3)
    m2.load_state_dict(ckpt["model"])
    opt2 = getattr(lt.optim, name)(m2.parameters(), lr=123.0)
    opt2.load_state_dict(ckpt["optim"])
    assert opt2.param_groups[0]["lr"] == kwargs["lr"]
    assert opt2.param_groups[0]["params"][0] is m2.weight
    _compare_state_dicts(opt2.state_dict(), topt.state_dict())
    saved = {k: {n: v.numpy().copy() for n, v in s.items()} for k, s in ckpt["optim"]["state"].items()}
    _run(m2, tm, opt2, topt, steps=30, start=20)
    # the loaded state is a copy: stepping the new optimizer leaves the checkpoint alone
    for k, s in ckpt["optim"]["state"].items():
        for n, v in s.items():
            np.testing.assert_array_equal(v.numpy(), saved[k][n])


def test_load_state_dict_errors():
    m, _ = _models()
    opt = lt.optim.SGD(m.parameters(), lr=0.1)
    two = lt.optim.SGD([{"params": [m.weight]}, {"params": [m.bias]}], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(two.state_dict())
    one = lt.optim.SGD([m.weight], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(one.state_dict())


def _errors(lib, fn):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


BAD = [
    lambda L: L.optim.SGD([L.zeros(2, requires_grad=True)], lr=-0.1),
    lambda L: L.optim.SGD([L.zeros(2, requires_grad=True)], lr=0.1, momentum=-1),
    lambda L: L.optim.SGD([L.zeros(2, requires_grad=True)], lr=0.1, weight_decay=-1),
    lambda L: L.optim.SGD([L.zeros(2, requires_grad=True)], lr=0.1, nesterov=True),
    lambda L: L.optim.SGD([L.zeros(2, requires_grad=True)], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
    lambda L: L.optim.SGD([], lr=0.1),
    lambda L: L.optim.Adam([L.zeros(2, requires_grad=True) * 2]),
    lambda L: L.optim.Adam([L.zeros(2, requires_grad=True)], lr=-1.0),
    lambda L: L.optim.Adam([L.zeros(2, requires_grad=True)], eps=-1.0),
    lambda L: L.optim.Adam([L.zeros(2, requires_grad=True)], betas=(1.0, 0.999)),
    lambda L: L.optim.Adam([L.zeros(2, requires_grad=True)], betas=(0.9, -0.1)),
    lambda L: L.optim.AdamW([L.zeros(2, requires_grad=True)], weight_decay=-0.1),
    lambda L: L.optim.Adagrad([L.zeros(2, requires_grad=True)], lr_decay=-0.1),
    lambda L: L.optim.Adagrad([L.zeros(2, requires_grad=True)], initial_accumulator_value=-0.1),
    lambda L: L.optim.RMSprop([L.zeros(2, requires_grad=True)], alpha=-0.1),
    lambda L: L.optim.RMSprop([L.zeros(2, requires_grad=True)], momentum=-0.1),
    lambda L: (lambda p: L.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))(L.zeros(2, requires_grad=True)),
    lambda L: L.optim.SGD(L.zeros(2, requires_grad=True), lr=0.1),
    # a tensor lr must hold one number; fused excludes foreach and differentiable
    lambda L: L.optim.SGD([L.zeros(2, requires_grad=True)], lr=L.tensor([0.1, 0.2])),
    lambda L: L.optim.RMSprop([L.zeros(2, requires_grad=True)], lr=L.tensor([0.1, 0.2])),
    lambda L: L.optim.LBFGS([L.zeros(2, requires_grad=True)], lr=L.tensor([0.1, 0.2])),
    lambda L: L.optim.Adam([L.zeros(2, requires_grad=True)], lr=L.tensor(-0.1)),
    lambda L: L.optim.Adam([L.zeros(2, requires_grad=True)], fused=True, foreach=True),
    lambda L: L.optim.AdamW([L.zeros(2, requires_grad=True)], fused=True, differentiable=True),
    lambda L: L.optim.SGD([L.zeros(2, requires_grad=True)], lr=0.1, fused=True, foreach=True),
    lambda L: L.optim.Adagrad([L.zeros(2, requires_grad=True)], fused=True, differentiable=True),
    # named parameters: all or none, in every group
    lambda L: L.optim.SGD([("w", L.zeros(2, requires_grad=True)), L.zeros(1, requires_grad=True)], lr=0.1),
    lambda L: L.optim.SGD([{"params": [("w", L.zeros(2, requires_grad=True))]},
                           {"params": [L.zeros(1, requires_grad=True)]}], lr=0.1),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_options_raise_like_torch(i):
    got, want = _errors(lt, BAD[i]), _errors(torch, BAD[i])
    assert want is not None
    assert got is not None and got[0] == want[0], (got, want)
    assert got[1] == want[1] or got[1] in want[1] or want[1].startswith(got[1][:40]), (got, want)


def test_named_parameters_are_kept_as_param_names_like_torch(torch_oracle):
    """``SGD(model.named_parameters())``: the names go to each group's ``param_names``, printed
    and saved; a loaded state dict without names keeps this optimizer's."""
    def run(L):
        L.manual_seed(0)
        m = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.Linear(2, 1))
        opt = L.optim.SGD([{"params": m[0].named_parameters()}, {"params": m[1].named_parameters(), "lr": 0.5}],
                          lr=0.1, momentum=0.9)
        opt.add_param_group({"params": [("extra", L.zeros(1, requires_grad=True))]})
        m(L.ones(3, 2)).sum().backward()
        opt.step()
        saved = opt.state_dict()
        unnamed = {"state": saved["state"], "param_groups": [{k: v for k, v in g.items() if k != "param_names"}
                                                             for g in saved["param_groups"]]}
        other = L.optim.SGD([{"params": [("a", p) for p in m[0].parameters()]},
                             {"params": [("b", p) for p in m[1].parameters()]},
                             {"params": [("c", L.zeros(1, requires_grad=True))]}], lr=0.1, momentum=0.9)
        other.load_state_dict(unnamed)
        return (repr(opt), [{k: v for k, v in g.items()} for g in saved["param_groups"]], sorted(saved["state"]),
                [g["param_names"] for g in other.param_groups])
    assert run(lt) == run(torch_oracle)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam",
                                  "ASGD", "Rprop"])
def test_a_tensor_learning_rate_steps_like_a_number(torch_oracle, name):
    """``lr=torch.tensor(0.01)`` (what schedulers of compiled models use): the step sizes become
    0-d tensors, and the updates are those of the number."""
    def run(L):
        w = L.tensor([1.0, -2.0], requires_grad=True)
        opt = getattr(L.optim, name)([w], lr=L.tensor(0.01))
        for _ in range(3):
            opt.zero_grad()
            (w ** 2).sum().backward()
            opt.step()
        return w.detach().numpy(), type(opt.param_groups[0]["lr"]).__name__
    (mine, kind), (theirs, their_kind) = run(lt), run(torch_oracle)
    np.testing.assert_allclose(mine, theirs, rtol=1e-6)
    assert kind == their_kind == "Tensor"


def test_reduce_on_plateau_and_the_old_scheduler_name_are_lr_schedulers(torch_oracle):
    """``isinstance(s, LRScheduler)`` holds for ``ReduceLROnPlateau``, and programs written for
    PyTorch < 2.0 subclass ``_LRScheduler``: both as in PyTorch."""
    def run(L):
        sch = L.optim.lr_scheduler
        opt = L.optim.SGD([L.zeros(1, requires_grad=True)], lr=1.0)

        class Warmup(sch._LRScheduler):
            def get_lr(self):
                return [b * min(1.0, (self.last_epoch + 1) / 3) for b in self.base_lrs]
        s = Warmup(opt)
        rates = []
        for _ in range(4):
            opt.step()
            s.step()
            rates.append(s.get_last_lr()[0])
        plateau = sch.ReduceLROnPlateau(opt)
        return (rates, sch._LRScheduler.__name__, isinstance(plateau, sch.LRScheduler),
                isinstance(s, sch.LRScheduler))
    assert run(lt) == run(torch_oracle)


def test_empty_list_and_bad_lr_messages():
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        lt.optim.Adam([])
    with pytest.raises(ValueError, match="Invalid learning rate: -0.1"):
        lt.optim.SGD([lt.zeros(2, requires_grad=True)], lr=-0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        lt.optim.SGD([lt.zeros(2, requires_grad=True) + 1], lr=0.1)


SCHEDULERS = [
    ("StepLR", dict(step_size=3)),
    ("StepLR", dict(step_size=4, gamma=0.5)),
    ("CosineAnnealingLR", dict(T_max=10)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)),
]


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=[f"{n}-{k}" for n, k in SCHEDULERS])
def test_scheduler_lr_sequence_matches_torch(name, kwargs):
    p, tp = lt.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    q, tq = lt.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    opt = lt.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.02}], lr=0.1)
    topt = torch.optim.SGD([{"params": [tp]}, {"params": [tq], "lr": 0.02}], lr=0.1)
    s = getattr(lt.optim.lr_scheduler, name)(opt, **kwargs)
    ts = getattr(torch.optim.lr_scheduler, name)(topt, **kwargs)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.02]
    assert s.base_lrs == ts.base_lrs and s.last_epoch == ts.last_epoch == 0
    for epoch in range(25):
        assert s.get_last_lr() == ts.get_last_lr(), epoch  # exact: same recursive formulas
        assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in topt.param_groups]
        opt.step()
        topt.step()
        s.step()
        ts.step()
    assert s.last_epoch == ts.last_epoch == 25
    sd, tsd = s.state_dict(), ts.state_dict()
    for key in ("base_lrs", "last_epoch", "_step_count", "_last_lr") + tuple(kwargs):
        assert sd[key] == tsd[key], key


def test_scheduler_requires_optimizer():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        lt.optim.lr_scheduler.StepLR(object(), step_size=2)
