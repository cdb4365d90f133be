"""NAdam (Dozat, 2016): Adam with Nesterov momentum — the step uses the momentum
*one step ahead*, mixing the bias-corrected running average with the current
gradient.  The momentum coefficient ``mu_t`` warms up (``momentum_decay``), and
``mu_product`` (a float32 0-d tensor, as in PyTorch) keeps the product of all
``mu`` so far, which takes the place of Adam's ``1 - beta1 ** step``::

    step += 1
    g = -g if maximize;  g = g + weight_decay * p   (decoupled_weight_decay: p *= 1 - lr * weight_decay)
    mu      = beta1 * (1 - 0.5 * 0.96 ** (step * momentum_decay))
    mu_next = beta1 * (1 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
    mu_product = mu_product * mu
    exp_avg    = exp_avg + (1 - beta1) * (g - exp_avg)
    exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
    denom = sqrt(exp_avg_sq / (1 - beta2 ** step)) + eps
    p = p - lr * (1 - mu) / (1 - mu_product) * g / denom
    p = p - lr * mu_next / (1 - mu_product * mu_next) * exp_avg / denom
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from . import _ops
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class NAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: Optional[bool] = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        **_how_options(foreach=foreach, capturable=capturable, differentiable=differentiable))
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = creation.tensor(0.0)
                state["mu_product"] = creation.tensor(1.0)
                state["exp_avg"] = creation.zeros_like(p)
                state["exp_avg_sq"] = creation.zeros_like(p)
            exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
            state["step"].add_(1)
            step = state["step"].item()
            bias_correction2 = 1 - beta2 ** step
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mu_product.mul_(mu)  # in float32, as PyTorch keeps it
            _ops.lerp_(exp_avg, grad, 1 - beta1)
            _ops.addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
            mu_product_value = mu_product.item()
            mu_product_next = mu_product_value * mu_next
            _ops.addcdiv_(p, grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product_value))
            _ops.addcdiv_(p, exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
