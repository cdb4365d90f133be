"""RAdam (Liu et al., 2019): *rectified* Adam.  In the first steps the running
average of ``g * g`` rests on a handful of samples, so its variance is large and
Adam's adaptive step is unreliable.  RAdam estimates the length ``rho_t`` of the
"simple moving average" that ``exp_avg_sq`` amounts to; while ``rho_t <= 5`` it
takes plain momentum-SGD steps, afterwards Adam steps scaled by a rectification
factor ``r_t`` (which tends to 1)::

    step += 1
    g = -g if maximize;  g = g + weight_decay * p   (decoupled_weight_decay: p *= 1 - lr * weight_decay)
    exp_avg    = exp_avg + (1 - beta1) * (g - exp_avg)
    exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
    m_hat   = exp_avg / (1 - beta1 ** step)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t   = rho_inf - 2 * step * beta2 ** step / (1 - beta2 ** step)
    rho_t > 5:  r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
                p = p - m_hat * lr * sqrt(1 - beta2 ** step) / (sqrt(exp_avg_sq) + eps) * r_t
    otherwise:  p = p - m_hat * lr
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from . import _ops
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class RAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: Optional[bool] = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        **_how_options(foreach=foreach, capturable=capturable),
                        decoupled_weight_decay=decoupled_weight_decay,
                        **_how_options(differentiable=differentiable))
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay = group["weight_decay"]
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = creation.tensor(0.0)
                state["exp_avg"] = creation.zeros_like(p)
                state["exp_avg_sq"] = creation.zeros_like(p)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            state["step"].add_(1)
            step = state["step"].item()
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            _ops.lerp_(exp_avg, grad, 1 - beta1)
            _ops.addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                # PyTorch writes ``c / tensor``, which it computes as ``tensor.reciprocal() * c``
                adaptive_lr = exp_avg_sq.sqrt().add_(eps).reciprocal().mul(bias_correction2 ** 0.5)
                p.add_(bias_corrected_exp_avg.mul(lr).mul(adaptive_lr).mul(rect), alpha=-1.0)
            else:
                p.add_(bias_corrected_exp_avg.mul(lr), alpha=-1.0)
