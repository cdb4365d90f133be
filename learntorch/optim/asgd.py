"""ASGD: averaged stochastic gradient descent (Polyak & Juditsky, 1992).  Plain SGD
with a slowly decaying step ``eta`` and a small weight decay ``lambd``; besides the
parameter it keeps ``ax``, the running *average* of all iterates since step ``t0``.
The average, not the last iterate, is the estimate with the good statistical
properties — read it from ``optimizer.state[p]["ax"]`` (the parameters themselves
are plain SGD's).  PyTorch's single-tensor algorithm::

    step += 1
    g = -g if maximize;  g = g + weight_decay * p
    p  = p * (1 - lambd * eta) - eta * g
    ax = ax + mu * (p - ax)             (ax = p while mu == 1, i.e. before t0)
    eta = lr / (1 + lambd * lr * step) ** alpha
    mu  = 1 / max(1, step - t0)

``step``, ``eta`` and ``mu`` are float32 0-d tensors in the state, as in PyTorch.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class ASGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: Optional[bool] = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        **_how_options(foreach=foreach), maximize=maximize,
                        **_how_options(differentiable=differentiable, capturable=capturable))
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = creation.tensor(0.0)
                state["eta"] = creation.tensor(float(lr))
                state["mu"] = creation.tensor(1.0)
                state["ax"] = creation.zeros_like(p)
            eta, mu, ax = state["eta"], state["mu"], state["ax"]
            state["step"].add_(1)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            eta_value = eta.item()
            p.mul_(1 - lambd * eta_value)  # decay term
            p.add_(grad, alpha=-eta_value)  # the SGD step
            if mu.item() != 1:
                ax.add_(p.sub(ax).mul_(mu))
            else:
                ax.copy_(p)
            step = state["step"].item()
            eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
            mu.fill_(1 / max(1, step - t0))
