"""Adamax: Adam with the infinity norm in place of the root mean square (Kingma & Ba,
section 7.1).  The denominator ``exp_inf`` is a *decaying maximum* of ``|g|``, which
needs no bias correction and no square root.  PyTorch's single-tensor algorithm::

    step += 1
    g = -g if maximize;  g = g + weight_decay * p
    exp_avg = exp_avg + (1 - beta1) * (g - exp_avg)
    exp_inf = max(beta2 * exp_inf, |g| + eps)
    p = p - lr / (1 - beta1 ** step) * exp_avg / exp_inf
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from ..ops import pointwise
from . import _ops
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class Adamax(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: Optional[bool] = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        **_how_options(foreach=foreach), maximize=maximize,
                        **_how_options(differentiable=differentiable, capturable=capturable))
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = creation.tensor(0.0)
                state["exp_avg"] = creation.zeros_like(p)
                state["exp_inf"] = creation.zeros_like(p)
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            state["step"].add_(1)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            _ops.lerp_(exp_avg, grad, 1 - beta1)
            exp_inf.copy_(pointwise.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
            clr = lr / (1 - beta1 ** state["step"].item())
            _ops.addcdiv_(p, exp_avg, exp_inf, value=-clr)
