"""optim.Rprop and optim.Adafactor against PyTorch: the parameters and the state after every step,
options (maximize, step-size bounds, weight decay, vectors and matrices), repr, state_dict round
trip, and the errors for bad arguments."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import raises_both

torch = pytest.importorskip("torch", reason="real PyTorch (the oracle) is not installed")

RTOL, ATOL = 1e-5, 1e-6
# Adafactor's step size comes from norms read with ``.item()``; their last-bit differences between the
# two libraries move a parameter near zero by ~1e-6 after a dozen steps.
ADAFACTOR_ATOL = 1e-5
_X = np.linspace(-1.0, 1.0, 20, dtype=np.float32).reshape(4, 5)
_Y = np.cos(np.arange(12, dtype=np.float32)).reshape(4, 3)


def _models() -> tuple[Any, Any]:
    lt.manual_seed(0)
    torch.manual_seed(0)
    return lt.nn.Linear(5, 3), torch.nn.Linear(5, 3)


def _loss(lib: Any, model: Any, sign: float) -> Any:
    out = model(lib.tensor(_X))
    return (((out - lib.tensor(_Y)) ** 2).mean() + (out ** 3).mean() * 0.1) * sign


def _compare(m: Any, tm: Any, opt: Any, topt: Any, what: str) -> None:
    atol = ADAFACTOR_ATOL if type(opt).__name__ == "Adafactor" else ATOL
    for (name, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=RTOL, atol=atol,
                                   err_msg=f"{what}: {name}")
    for p, tp in zip(m.parameters(), tm.parameters()):
        state, tstate = opt.state[p], topt.state[tp]
        assert sorted(state) == sorted(tstate), what
        for key in tstate:
            np.testing.assert_allclose(state[key].numpy(), tstate[key].numpy(), rtol=1e-4, atol=1e-6,
                                       err_msg=f"{what}: state {key}")


def _run(m: Any, tm: Any, opt: Any, topt: Any, steps: int) -> None:
    sign = -1.0 if opt.param_groups[0]["maximize"] else 1.0
    for i in range(steps):
        for model, o, lib in ((m, opt, lt), (tm, topt, torch)):
            o.zero_grad()
            _loss(lib, model, sign).backward()
            o.step()
        _compare(m, tm, opt, topt, f"step {i}")


RPROP = [{}, dict(lr=0.05), dict(etas=(0.3, 1.5), step_sizes=(1e-3, 0.02)), dict(maximize=True)]
ADAFACTOR = [{}, dict(lr=0.05, weight_decay=0.1), dict(beta2_decay=-0.5, eps=(1e-4, 1e-2), d=0.9 + 0.2),
             dict(maximize=True)]


@pytest.mark.parametrize("name,kw", [("Rprop", kw) for kw in RPROP] + [("Adafactor", kw) for kw in ADAFACTOR])
def test_trajectory_matches_torch(name: str, kw: dict) -> None:
    m, tm = _models()
    opt, topt = getattr(lt.optim, name)(m.parameters(), **kw), getattr(torch.optim, name)(tm.parameters(), **kw)
    _run(m, tm, opt, topt, 15)


@pytest.mark.parametrize("name", ["Rprop", "Adafactor"])
def test_repr_and_state_dict_round_trip(name: str) -> None:
    m, tm = _models()
    opt, topt = getattr(lt.optim, name)(m.parameters()), getattr(torch.optim, name)(tm.parameters())
    assert repr(opt) == repr(topt)
    _run(m, tm, opt, topt, 5)
    saved, tsaved = opt.state_dict(), topt.state_dict()
    assert saved["param_groups"] == tsaved["param_groups"]
    assert {k: sorted(v) for k, v in saved["state"].items()} == {k: sorted(v) for k, v in tsaved["state"].items()}
    # a fresh optimizer (over the same parameters) continues exactly where the first one stopped
    opt2, topt2 = getattr(lt.optim, name)(m.parameters()), getattr(torch.optim, name)(tm.parameters())
    opt2.load_state_dict(saved)
    topt2.load_state_dict(tsaved)
    _run(m, tm, opt2, topt2, 5)


def test_adafactor_on_a_3d_parameter_and_a_vector() -> None:
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    v0 = rng.standard_normal(4).astype(np.float32)
    params = [lt.tensor(w0, requires_grad=True), lt.tensor(v0, requires_grad=True)]
    tparams = [torch.tensor(w0, requires_grad=True), torch.tensor(v0, requires_grad=True)]
    opt, topt = lt.optim.Adafactor(params, lr=0.1), torch.optim.Adafactor(tparams, lr=0.1)
    for _ in range(10):
        for ps, o, lib in ((params, opt, lt), (tparams, topt, torch)):
            o.zero_grad()
            ((ps[0] * ps[1]).sin().sum() + (ps[1] ** 2).sum()).backward()
            o.step()
        for p, tp in zip(params, tparams):
            np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=RTOL, atol=ADAFACTOR_ATOL)


@pytest.mark.parametrize("call", [
    lambda T, p: T.optim.Rprop(p, lr=-1.0),
    lambda T, p: T.optim.Rprop(p, etas=(1.2, 0.5)),
    lambda T, p: T.optim.Adafactor(p, lr=-1.0),
    lambda T, p: T.optim.Adafactor(p, beta2_decay=0.5),
    lambda T, p: T.optim.Adafactor(p, eps=(-1.0, 1e-3)),
    lambda T, p: T.optim.Adafactor(p, d=0.5),
    lambda T, p: T.optim.Adafactor(p, weight_decay=-0.1),
])
def test_bad_arguments(call: Any) -> None:
    raises_both(lambda T: call(T, [T.zeros(2, requires_grad=True)]), torch)
