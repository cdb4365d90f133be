"""Adam: a running average of the gradient (``exp_avg``, the first moment) divided
by the square root of a running average of its square (``exp_avg_sq``), both
bias-corrected for their zero start.  PyTorch's single-tensor algorithm, same
order of floating-point operations::

    step += 1
    g = -g if maximize;  g = g + weight_decay * p      (AdamW instead: p *= 1 - lr * weight_decay)
    exp_avg    = exp_avg + (1 - beta1) * (g - exp_avg)
    exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
    step_size  = lr / (1 - beta1 ** step)
    denom      = sqrt(exp_avg_sq) / sqrt(1 - beta2 ** step) + eps    (amsgrad: the max so far of exp_avg_sq)
    p = p - step_size * exp_avg / denom

``state["step"]`` is a float32 0-d tensor, as in PyTorch 2.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from ..ops import pointwise
from . import _ops
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: Optional[bool] = None, capturable: bool = False,
                 differentiable: bool = False, fused: Optional[bool] = None,
                 decoupled_weight_decay: bool = False) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, **_how_options(foreach=foreach, capturable=capturable,
                                                          differentiable=differentiable, fused=fused),
                        decoupled_weight_decay=decoupled_weight_decay or self._decoupled)
        self._decoupled = defaults["decoupled_weight_decay"]  # Adam(..., decoupled_weight_decay=True) is AdamW
        super().__init__(params, defaults)

    def _init_state(self, p: Any, amsgrad: bool) -> dict[str, Any]:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = creation.tensor(0.0)
            state["exp_avg"] = creation.zeros_like(p)
            state["exp_avg_sq"] = creation.zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = creation.zeros_like(p)
        return state

    def _update(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
        for p, grad in self._params_with_grad(group):
            state = self._init_state(p, amsgrad)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            state["step"].add_(1)
            step = state["step"].item()
            if weight_decay != 0:
                if self._decoupled:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            _ops.lerp_(exp_avg, grad, 1 - beta1)
            _ops.addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            if amsgrad:
                max_sq = state["max_exp_avg_sq"]
                max_sq.copy_(pointwise.maximum(max_sq, exp_avg_sq))
                denom = _ops.root_plus(max_sq, bias_correction2_sqrt, eps)
            else:
                denom = _ops.root_plus(exp_avg_sq, bias_correction2_sqrt, eps)  # √v̂ + ε
            _ops.addcdiv_(p, exp_avg, denom, value=-step_size)
