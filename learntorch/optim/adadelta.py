"""Adadelta (Zeiler, 2012): no hand-tuned step size needed in principle — the step is the
ratio of two running root-mean-squares, of past *updates* over past *gradients*, so it
carries the parameter's own units.  PyTorch's single-tensor algorithm, same order::

    step += 1
    g = -g if maximize;  g = g + weight_decay * p
    square_avg = rho * square_avg + (1 - rho) * g * g
    delta      = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
    acc_delta  = rho * acc_delta + (1 - rho) * delta * delta
    p = p - lr * delta

``lr`` (default 1.0) only scales the result; ``eps`` starts the update ratio off
(with ``acc_delta = 0`` the first steps are about ``sqrt(eps) / rms(g) * g``).
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from . import _ops
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class Adadelta(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: Optional[bool] = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        **_how_options(capturable=capturable, foreach=foreach, differentiable=differentiable))
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = creation.tensor(0.0)
                state["square_avg"] = creation.zeros_like(p)
                state["acc_delta"] = creation.zeros_like(p)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            state["step"].add_(1)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            _ops.addcmul_(square_avg.mul_(rho), grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
            _ops.addcmul_(acc_delta.mul_(rho), delta, delta, value=1 - rho)
            p.add_(delta, alpha=-lr)
