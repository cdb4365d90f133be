"""A sweep over ``optim``: every optimizer with the options programs pass, and every
learning-rate scheduler, run for six steps on the same least-squares problem in learntorch and
in PyTorch.  The losses, the learning rates after each step and the final parameters must agree
(or both libraries refuse the optimizer with the same type of error)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from conftest import to_numpy

import learntorch as lt

OPTIMIZERS = """SGD(p, lr=0.1)
SGD(p, lr=0.1, momentum=0.9)
SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
SGD(p, lr=0.1, momentum=0.9, dampening=0.5)
SGD(p, lr=0.1, maximize=True)
Adam(p, lr=0.01)
Adam(p, lr=0.01, amsgrad=True, weight_decay=0.1)
Adam(p, lr=0.01, betas=(0.8, 0.9), eps=1e-6, maximize=True)
AdamW(p, lr=0.01)
AdamW(p, lr=0.01, amsgrad=True, weight_decay=0.5)
Adagrad(p, lr=0.1)
Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)
RMSprop(p, lr=0.01)
RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)
Adadelta(p)
Adadelta(p, lr=0.5, rho=0.8, weight_decay=0.1)
Adamax(p, lr=0.01)
NAdam(p, lr=0.01)
NAdam(p, lr=0.01, decoupled_weight_decay=True, weight_decay=0.1, momentum_decay=0.01)
RAdam(p, lr=0.01)
RAdam(p, lr=0.01, decoupled_weight_decay=True, weight_decay=0.1)
ASGD(p, lr=0.01)
ASGD(p, lr=0.01, t0=2, lambd=0.01, alpha=0.5)
Rprop(p)
Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-4, 1))
LBFGS(p, lr=0.5)
LBFGS(p, lr=1, history_size=3, line_search_fn='strong_wolfe')
Adafactor(p, lr=0.01)
SparseAdam(p)""".splitlines()

SCHEDULERS = """StepLR(o, step_size=2, gamma=0.5)
MultiStepLR(o, milestones=[1, 3], gamma=0.3)
ExponentialLR(o, gamma=0.9)
CosineAnnealingLR(o, T_max=4, eta_min=0.001)
CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2, eta_min=0.01)
LambdaLR(o, lambda e: 1 / (e + 1))
MultiplicativeLR(o, lambda e: 0.95)
LinearLR(o, start_factor=0.25, total_iters=3)
ConstantLR(o, factor=0.5, total_iters=2)
PolynomialLR(o, total_iters=4, power=2)
OneCycleLR(o, max_lr=0.1, total_steps=8)
OneCycleLR(o, max_lr=0.1, total_steps=8, anneal_strategy='linear', three_phase=True)
CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2)
CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode='exp_range', gamma=0.9)
SequentialLR(o, [lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2), lr_scheduler.ExponentialLR(o, gamma=0.9)], milestones=[2])
ChainedScheduler([lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2), lr_scheduler.ExponentialLR(o, gamma=0.9)])""".splitlines()


def _train(lib: Any, optimizer: str, scheduler: str = "") -> tuple:
    """Six steps; the loss and the learning rates after each, and the final parameters."""
    g = np.random.default_rng(0)
    w = lib.tensor(g.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    b = lib.tensor(g.standard_normal(3).astype(np.float32), requires_grad=True)
    x = lib.tensor(g.standard_normal((5, 4)).astype(np.float32))
    y = lib.tensor(g.standard_normal((5, 3)).astype(np.float32))
    opt = eval("lib.optim." + optimizer, {"lib": lib, "p": [w, b]})
    sched = eval("lib.optim.lr_scheduler." + scheduler,
                 {"lib": lib, "o": opt, "lr_scheduler": lib.optim.lr_scheduler}) if scheduler else None

    def closure() -> Any:
        opt.zero_grad()
        loss = ((x @ w.t() + b - y) ** 2).mean()
        loss.backward()
        return loss

    history = []
    for _ in range(6):
        if optimizer.startswith("LBFGS"):
            loss = opt.step(closure)
        else:
            loss = closure()
            opt.step()
        if sched is not None:
            sched.step()
        history.append((loss.item(), [float(group["lr"]) for group in opt.param_groups]))
    return history, to_numpy(w.detach()), to_numpy(b.detach())


def _compare(torch_oracle: Any, optimizer: str, scheduler: str = "") -> None:
    try:
        expected = _train(torch_oracle, optimizer, scheduler)
    except Exception as e:  # noqa: BLE001 - refused alike
        with pytest.raises(type(e)):
            _train(lt, optimizer, scheduler)
        return
    actual = _train(lt, optimizer, scheduler)
    # LBFGS runs to a loss of 1e-10 within its first step: what is left of the loss is float32
    # rounding (compared absolutely), and it shows in the fifth digit of the parameters
    lbfgs = optimizer.startswith("LBFGS")
    rtol = 1e-3 if lbfgs else 1e-4
    np.testing.assert_allclose([loss for loss, _ in actual[0]], [loss for loss, _ in expected[0]], rtol=rtol,
                               atol=1e-5 if lbfgs else 1e-7, err_msg="losses")
    np.testing.assert_allclose([lrs for _, lrs in actual[0]], [lrs for _, lrs in expected[0]], rtol=1e-6,
                               err_msg="learning rates")
    for name, a, e in (("weight", actual[1], expected[1]), ("bias", actual[2], expected[2])):
        np.testing.assert_allclose(a, e, rtol=rtol, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_an_optimizer_takes_pytorch_s_steps(torch_oracle: Any, optimizer: str) -> None:
    _compare(torch_oracle, optimizer)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_scheduler_sets_pytorch_s_learning_rates(torch_oracle: Any, scheduler: str) -> None:
    _compare(torch_oracle, "SGD(p, lr=0.1, momentum=0.9)", scheduler)
