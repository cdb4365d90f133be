"""More of learntorch.optim against real PyTorch (the oracle): Adadelta, Adamax, NAdam, RAdam, ASGD,
LBFGS (closure-based) and the schedulers ConstantLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR,
OneCycleLR, SequentialLR, ChainedScheduler.

Same pattern as tests/optim/test_optimizers.py: the same weights in both libraries, 50 steps of the same loss,
parameters compared every 10 steps (rtol 1e-5), then the optimizers' state_dicts; schedulers must give
*identical* learning rates (the same Python float arithmetic)."""
import os
import tempfile
import warnings

import numpy as np
import pytest

import learntorch as lt

from test_optimizers import _compare_state_dicts, _errors, _loss, _models, _run

torch = pytest.importorskip("torch", reason="real PyTorch (the oracle) is not installed")

CASES = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5)),
    ("Adadelta", dict(lr=1.0, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.005, betas=(0.8, 0.99), maximize=True)),
    ("RAdam", dict(lr=0.01)),  # rho_t > 5 from step 6 on: both branches run
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.9))),  # rho_t stays small for longer
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, t0=20, lambd=1e-3)),  # averaging starts at step 21
    ("ASGD", dict(lr=0.05, t0=5, alpha=0.5, weight_decay=0.1, maximize=True)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{'-'.join(k)}" for n, k in CASES])
def test_trajectory_matches_torch(name, kwargs):
    m, tm = _models()
    opt = getattr(lt.optim, name)(m.parameters(), **kwargs)
    topt = getattr(torch.optim, name)(tm.parameters(), foreach=False, **kwargs)
    _run(m, tm, opt, topt)
    _compare_state_dicts(opt.state_dict(), topt.state_dict())


@pytest.mark.parametrize("name,kwargs", [("Adadelta", dict(lr=0.5)), ("Adamax", dict(lr=0.01)),
                                         ("NAdam", dict(lr=0.01)), ("RAdam", dict(lr=0.01)),
                                         ("ASGD", dict(lr=0.05, t0=10))])
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
    _compare_state_dicts(opt2.state_dict(), topt.state_dict())
    _run(m2, tm, opt2, topt, steps=30, start=20)


def test_asgd_average_is_the_mean_of_the_iterates_after_t0():
    """With ``lambd=0`` and ``t0=0`` the average is exactly the mean of the iterates (from the second on)."""
    w = lt.tensor([1.0, -2.0], requires_grad=True)
    opt = lt.optim.ASGD([w], lr=0.1, lambd=0.0, t0=0)
    iterates = []
    for _ in range(6):
        opt.zero_grad()
        (w ** 2).sum().backward()
        opt.step()
        iterates.append(w.detach().numpy().copy())
    # PyTorch's averaging starts one step late: mu is 1 (ax = p) through step t0 + 2, so ax = mean of p_2 .. p_k
    np.testing.assert_allclose(opt.state[w]["ax"].numpy(), np.mean(iterates[1:], axis=0), rtol=1e-6)


# ------------------------------------------------------------------ LBFGS
# L-BFGS's curvature pairs are *differences* of nearly equal gradients (y = g_new - g_old) near a minimum, so
# the last-bit differences of the two libraries' gradients and dot products grow there (H_diag = y.s / y.y
# agrees to ~1e-4 after a few iterations); the losses still agree to 1e-5 and the parameters to 1e-4.
LBFGS_RTOL, LBFGS_ATOL = 1e-4, 5e-5

def _closure(lib, model, opt):
    def closure():
        opt.zero_grad()
        loss = _loss(lib, model)
        loss.backward()
        return loss
    return closure


LBFGS_CASES = [
    dict(),
    dict(lr=0.5, max_iter=5, history_size=3),
    dict(line_search_fn="strong_wolfe"),
    dict(lr=0.8, max_iter=4, history_size=2, line_search_fn="strong_wolfe"),
]


@pytest.mark.parametrize("kwargs", LBFGS_CASES, ids=[str(k) for k in LBFGS_CASES])
def test_lbfgs_trajectory_matches_torch(kwargs):
    m, tm = _models()
    opt, topt = lt.optim.LBFGS(m.parameters(), **kwargs), torch.optim.LBFGS(tm.parameters(), **kwargs)
    for i in range(5):
        loss = opt.step(_closure(lt, m, opt))
        tloss = topt.step(_closure(torch, tm, topt))
        assert abs(loss.item() - tloss.item()) <= 1e-5 * abs(tloss.item()) + 1e-6, i
        for p, tp in zip(m.parameters(), tm.parameters()):
            np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=LBFGS_RTOL, atol=LBFGS_ATOL)
    s, ts = opt.state[m.weight], topt.state[tm.weight]
    # the stopping rules (|loss change| < tolerance_change ...) may fire one iteration apart near the minimum
    assert abs(s["func_evals"] - ts["func_evals"]) <= 2 and abs(s["n_iter"] - ts["n_iter"]) <= 2
    assert len(s["old_dirs"]) == len(ts["old_dirs"]) <= opt.param_groups[0]["history_size"]
    np.testing.assert_allclose(float(s["t"]), float(ts["t"]), rtol=LBFGS_RTOL)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sorted(sd["state"][0]) == sorted(tsd["state"][0])
    assert {k: v for k, v in sd["param_groups"][0].items()} == tsd["param_groups"][0]


def test_lbfgs_minimises_rosenbrock_like_torch():
    """Strong-Wolfe L-BFGS on the 2-d Rosenbrock function reaches (1, 1), along PyTorch's iterates."""
    xs = []
    for lib in (lt, torch):
        x = lib.tensor([-1.5, 2.0], requires_grad=True)
        opt = lib.optim.LBFGS([x], lr=1, max_iter=100, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
            loss.backward()
            return loss
        opt.step(closure)
        xs.append((x.detach().numpy().copy(), opt.state[x]["n_iter"]))
    np.testing.assert_allclose(xs[0][0], [1.0, 1.0], atol=1e-4)
    np.testing.assert_allclose(xs[0][0], xs[1][0], rtol=LBFGS_RTOL, atol=LBFGS_ATOL)
    assert abs(xs[0][1] - xs[1][1]) <= 2, (xs[0][1], xs[1][1])  # iterations until the tolerances stop it


def test_lbfgs_errors():
    m, _ = _models()
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        lt.optim.LBFGS([{"params": [m.weight]}, {"params": [m.bias]}])
    opt = lt.optim.LBFGS(m.parameters(), line_search_fn="backtracking")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(_closure(lt, m, opt))
    with pytest.raises(RuntimeError, match="needs a closure"):
        lt.optim.LBFGS(m.parameters()).step(None)


BAD = [
    lambda L: L.optim.Adadelta([L.zeros(2, requires_grad=True)], rho=1.5),
    lambda L: L.optim.Adadelta([L.zeros(2, requires_grad=True)], lr=-1.0),
    lambda L: L.optim.Adamax([L.zeros(2, requires_grad=True)], betas=(0.9, 1.0)),
    lambda L: L.optim.NAdam([L.zeros(2, requires_grad=True)], momentum_decay=-1.0),
    lambda L: L.optim.RAdam([L.zeros(2, requires_grad=True)], eps=-1.0),
    lambda L: L.optim.ASGD([L.zeros(2, requires_grad=True)], weight_decay=-1.0),
    lambda L: L.optim.LBFGS([L.zeros(2, requires_grad=True)], lr=-1.0),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_options_raise_like_torch(i):
    got, want = _errors(lt, BAD[i]), _errors(torch, BAD[i])
    assert want is not None
    assert got == want, (got, want)


# ------------------------------------------------------------------ schedulers

def _pair(lib, optim="SGD", **kw):
    p, q = lib.zeros(2, requires_grad=True), lib.zeros(2, requires_grad=True)
    extra = dict(foreach=False) if lib is torch else {}
    return getattr(lib.optim, optim)([{"params": [p]}, {"params": [q], "lr": 0.02}], lr=0.1, **kw, **extra)


def _same_lrs(s, ts, opt, topt, epochs=30, keys=("lr",)):
    for epoch in range(epochs):
        assert s.get_last_lr() == ts.get_last_lr(), epoch  # exact: same formulas, same order
        for key in keys:
            assert [g[key] for g in opt.param_groups] == [g[key] for g in topt.param_groups], (epoch, key)
        opt.step()
        topt.step()
        s.step()
        ts.step()


SCHEDULERS = [
    ("ConstantLR", dict()),
    ("ConstantLR", dict(factor=0.5, total_iters=4)),
    ("PolynomialLR", dict()),
    ("PolynomialLR", dict(total_iters=12, power=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=5)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.001)),
    ("LinearLR", dict(start_factor=0.25, total_iters=6)),
]


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=[f"{n}-{k}" for n, k in SCHEDULERS])
def test_scheduler_lr_sequence_matches_torch(name, kwargs):
    opt, topt = _pair(lt), _pair(torch)
    s = getattr(lt.optim.lr_scheduler, name)(opt, **kwargs)
    ts = getattr(torch.optim.lr_scheduler, name)(topt, **kwargs)
    assert s.base_lrs == ts.base_lrs and s.last_epoch == ts.last_epoch == 0
    _same_lrs(s, ts, opt, topt)
    sd, tsd = s.state_dict(), ts.state_dict()
    assert sorted(sd) == sorted(tsd)  # _get_lr_called_within_step included: get_lr() outside step() warns
    for key in sd:
        assert sd[key] == tsd[key], key
    s2 = getattr(lt.optim.lr_scheduler, name)(_pair(lt), **kwargs)
    s2.load_state_dict(sd)
    assert s2.last_epoch == 30 and s2.get_last_lr() == ts.get_last_lr()


def test_cosine_warm_restarts_fractional_epochs():
    """``step(epoch)`` with a float epoch (once per batch), as in PyTorch's docs."""
    opt, topt = _pair(lt), _pair(torch)
    s = lt.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
    ts = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(topt, T_0=3, T_mult=2)
    for epoch in range(12):
        for i in range(4):
            ts.step(epoch + i / 4)
            s.step(epoch + i / 4)
            assert s.get_last_lr() == ts.get_last_lr() and s.T_cur == ts.T_cur and s.T_i == ts.T_i
    with pytest.raises(ValueError, match="Expected non-negative epoch"):
        s.step(-1)


def test_step_with_epoch_uses_the_closed_form_and_warns():
    for lib in (lt, torch):
        opt = _pair(lib)
        s = lib.optim.lr_scheduler.LinearLR(opt, start_factor=0.2, total_iters=4)
        opt.step()
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
            s.step(2)
        assert s.last_epoch == 2 and s.get_last_lr() == [0.1 * (0.2 + 0.8 * 2 / 4), 0.02 * (0.2 + 0.8 * 2 / 4)]


def _warnings_of(lib, optimizer_first: bool, replace_step: bool = False) -> list:
    opt = _pair(lib)
    s = lib.optim.lr_scheduler.StepLR(opt, 1)
    if replace_step:
        opt.step = type(opt).step.__get__(opt)  # a step the scheduler did not wrap
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            if optimizer_first:
                opt.step()
            s.step()
            if not optimizer_first:
                opt.step()
    return [(w.category, str(w.message), w.filename) for w in caught]


@pytest.mark.parametrize("optimizer_first,replace_step", [(True, False), (False, False), (True, True)])
def test_scheduler_stepped_before_the_optimizer_warns(optimizer_first, replace_step):
    """The classic mistake (the first rate of the schedule is skipped): PyTorch warns once, and
    says something else when ``optimizer.step`` was replaced after the scheduler was made."""
    got = _warnings_of(lt, optimizer_first, replace_step)
    assert got == _warnings_of(torch, optimizer_first, replace_step)
    assert bool(got) == (not optimizer_first or replace_step)
    assert all(filename == __file__ for _, _, filename in got)


CYCLIC = [
    ("SGD", dict(momentum=0.9), dict(base_lr=0.01, max_lr=0.1, step_size_up=4)),
    ("SGD", dict(momentum=0.9), dict(base_lr=[0.01, 0.002], max_lr=0.1, step_size_up=3, step_size_down=5,
                                     mode="triangular2")),
    ("Adam", dict(), dict(base_lr=0.001, max_lr=0.01, step_size_up=2, mode="exp_range", gamma=0.9)),
    ("SGD", dict(), dict(base_lr=0.01, max_lr=0.1, step_size_up=4, cycle_momentum=False,
                         scale_fn=lambda x: 0.5 ** x, scale_mode="iterations")),
]


@pytest.mark.parametrize("optim,okw,kwargs", CYCLIC, ids=[str(k.get("mode", "fn")) for _, _, k in CYCLIC])
def test_cyclic_lr_matches_torch(optim, okw, kwargs):
    opt, topt = _pair(lt, optim, **okw), _pair(torch, optim, **okw)
    s = lt.optim.lr_scheduler.CyclicLR(opt, **kwargs)
    ts = torch.optim.lr_scheduler.CyclicLR(topt, **kwargs)
    keys = ("lr",) + ((("betas",) if optim == "Adam" else ("momentum",)) if kwargs.get("cycle_momentum", True) else ())
    _same_lrs(s, ts, opt, topt, keys=keys)
    sd, tsd = s.state_dict(), ts.state_dict()
    for key in ("base_lrs", "max_lrs", "last_epoch", "_step_count", "_last_lr", "total_size", "step_ratio", "mode",
                "scale_mode"):
        assert sd[key] == tsd[key], key


def test_cyclic_lr_needs_momentum():
    opt = lt.optim.Adagrad([lt.zeros(2, requires_grad=True)])
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lt.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)


ONECYCLE = [
    ("SGD", dict(momentum=0.9), dict(max_lr=0.1, total_steps=30)),
    ("SGD", dict(momentum=0.9), dict(max_lr=[0.1, 0.05], epochs=3, steps_per_epoch=10, anneal_strategy="linear")),
    ("Adam", dict(), dict(max_lr=0.01, total_steps=30, pct_start=0.25, three_phase=True)),
    ("AdamW", dict(), dict(max_lr=0.01, total_steps=30, div_factor=10.0, final_div_factor=100.0)),
]


@pytest.mark.parametrize("optim,okw,kwargs", ONECYCLE, ids=[str(k) for _, _, k in ONECYCLE])
def test_one_cycle_lr_matches_torch(optim, okw, kwargs):
    opt, topt = _pair(lt, optim, **okw), _pair(torch, optim, **okw)
    s = lt.optim.lr_scheduler.OneCycleLR(opt, **kwargs)
    ts = torch.optim.lr_scheduler.OneCycleLR(topt, **kwargs)
    keys = ("lr", "initial_lr", "max_lr", "min_lr", "betas" if optim != "SGD" else "momentum")
    _same_lrs(s, ts, opt, topt, epochs=30, keys=keys)
    with pytest.raises(ValueError, match="Tried to step 31 times"):
        s.step()
    with pytest.raises(ValueError, match="Tried to step 31 times"):
        ts.step()


def test_one_cycle_lr_errors():
    opt = _pair(lt, momentum=0.9)
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        lt.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of"):
        lt.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10, anneal_strategy="exp")


def _sequential(lib):
    opt = _pair(lib)
    S = lib.optim.lr_scheduler
    warm = S.LinearLR(opt, start_factor=0.1, total_iters=4)
    decay = S.ExponentialLR(opt, gamma=0.9)
    cos = S.CosineAnnealingLR(opt, T_max=6)
    return opt, S.SequentialLR(opt, [warm, decay, cos], milestones=[5, 12])


def test_sequential_lr_matches_torch():
    (opt, s), (topt, ts) = _sequential(lt), _sequential(torch)
    assert s.last_epoch == ts.last_epoch
    _same_lrs(s, ts, opt, topt)
    sd, tsd = s.state_dict(), ts.state_dict()
    assert sd["last_epoch"] == tsd["last_epoch"] and sd["_milestones"] == tsd["_milestones"]
    assert [d["last_epoch"] for d in sd["_schedulers"]] == [d["last_epoch"] for d in tsd["_schedulers"]]
    opt2, s2 = _sequential(lt)
    s2.load_state_dict(sd)
    assert s2.last_epoch == s.last_epoch and s2._schedulers[2].last_epoch == s._schedulers[2].last_epoch


def _chained(lib):
    opt = _pair(lib)
    S = lib.optim.lr_scheduler
    return opt, S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=3), S.ExponentialLR(opt, gamma=0.9),
                                    S.StepLR(opt, step_size=4, gamma=0.5)])


def test_chained_scheduler_matches_torch():
    (opt, s), (topt, ts) = _chained(lt), _chained(torch)
    _same_lrs(s, ts, opt, topt)
    sd, tsd = s.state_dict(), ts.state_dict()
    assert [d["last_epoch"] for d in sd["_schedulers"]] == [d["last_epoch"] for d in tsd["_schedulers"]]


def test_composite_scheduler_errors_like_torch():
    for lib in (lt, torch):
        S = lib.optim.lr_scheduler
        a, b = _pair(lib), _pair(lib)
        with pytest.raises(ValueError, match="expects at least one scheduler"):
            S.ChainedScheduler([])
        with pytest.raises(ValueError, match="expects all schedulers to belong to the same optimizer"):
            S.SequentialLR(a, [S.ConstantLR(a), S.ConstantLR(b)], milestones=[2])
        with pytest.raises(ValueError, match="number of milestone points"):
            S.SequentialLR(a, [S.ConstantLR(a), S.ConstantLR(a)], milestones=[2, 3])
        with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
            S.ChainedScheduler([S.ReduceLROnPlateau(a)])
        with pytest.raises(ValueError, match="Constant multiplicative factor"):
            S.ConstantLR(a, factor=1.5)
        with pytest.raises(ValueError, match="Expected positive integer T_0"):
            S.CosineAnnealingWarmRestarts(a, T_0=0)
        with pytest.raises(ValueError, match="Expected integer T_mult >= 1"):
            S.CosineAnnealingWarmRestarts(a, T_0=2, T_mult=0)


def test_lbfgs_state_dict_round_trip_continues_like_torch():
    """The whole L-BFGS memory (history pairs, direction, step) lives in the first parameter's state."""
    m, tm = _models()
    opt, topt = lt.optim.LBFGS(m.parameters(), max_iter=4), torch.optim.LBFGS(tm.parameters(), max_iter=4)
    for _ in range(2):
        opt.step(_closure(lt, m, opt))
        topt.step(_closure(torch, tm, topt))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ckpt.lt")
        lt.save({"model": m.state_dict(), "optim": opt.state_dict()}, path)
        ckpt = lt.load(path)
    m2 = lt.nn.Linear(5, 3)
    m2.load_state_dict(ckpt["model"])
    opt2 = lt.optim.LBFGS(m2.parameters(), max_iter=4)
    opt2.load_state_dict(ckpt["optim"])
    assert len(opt2.state[m2.weight]["old_dirs"]) == len(topt.state[tm.weight]["old_dirs"])
    for _ in range(2):
        opt2.step(_closure(lt, m2, opt2))
        topt.step(_closure(torch, tm, topt))
    for p, tp in zip(m2.parameters(), tm.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=LBFGS_RTOL, atol=LBFGS_ATOL)
    assert opt2.state[m2.weight]["n_iter"] == topt.state[tm.weight]["n_iter"]


def test_resuming_without_initial_lr_raises_torchs_key_error():
    """``last_epoch >= 0`` on an optimizer that no scheduler has touched: KeyError, with PyTorch's message."""
    def message(T):
        opt = T.optim.SGD([T.nn.Parameter(T.ones(2))], lr=0.1)
        with pytest.raises(KeyError) as info:
            T.optim.lr_scheduler.StepLR(opt, step_size=2, last_epoch=3)
        return info.value.args[0]
    assert message(lt) == message(torch)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
                                  "RAdam", "ASGD", "Rprop", "LBFGS", "Adafactor"])
def test_param_group_keys_in_torchs_order(name):
    """``print(optimizer.state_dict())`` shows a group's options in the order of PyTorch's ``defaults``."""
    def keys(T):
        opt = getattr(T.optim, name)([T.nn.Parameter(T.ones(2))], lr=0.1)
        opt.add_param_group({"params": [T.nn.Parameter(T.ones(1))], "weight_decay": 0.5} if "weight_decay"
                            in opt.defaults else {"params": [T.nn.Parameter(T.ones(1))]})
        return list(opt.defaults), [list(g) for g in opt.state_dict()["param_groups"]]
    assert keys(lt) == keys(torch)


@pytest.mark.parametrize("sched", ["LambdaLR", "MultiplicativeLR"])
def test_lambda_schedulers_save_callable_objects_attributes(sched):
    """A callable object's ``__dict__`` goes into the state_dict (a function's does not) and is restored."""
    class Warmup:
        def __init__(self, n):
            self.n, self.calls = n, 0

        def __call__(self, epoch):
            self.calls += 1
            return min(1.0, (epoch + 1) / self.n)

    def run(T):
        opt = T.optim.SGD([{"params": [T.nn.Parameter(T.ones(1))]}, {"params": [T.nn.Parameter(T.ones(1))]}], lr=0.1)
        s = getattr(T.optim.lr_scheduler, sched)(opt, [Warmup(4), lambda e: 0.5])
        for _ in range(2):
            opt.step()
            s.step()
        sd = s.state_dict()
        fresh = Warmup(9)
        s2 = getattr(T.optim.lr_scheduler, sched)(opt, [fresh, lambda e: 0.5])
        s2.load_state_dict(sd)
        return sd["lr_lambdas"], vars(fresh), s2.last_epoch
    assert run(lt) == run(torch)
