"""Adagrad: divide each gradient by the root of the *sum* of all its past squares,
so often-updated coordinates take smaller steps.  PyTorch's algorithm::

    step += 1
    g = -g if maximize;  g = g + weight_decay * p
    clr = lr / (1 + (step - 1) * lr_decay)
    sum = sum + g * g
    p = p - clr * g / (sqrt(sum) + eps)

The state (``step``, ``sum`` starting at ``initial_accumulator_value``) is made
when the optimizer is built, as PyTorch does.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from . import _ops
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class Adagrad(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, *, maximize: bool = False,
                 foreach: Optional[bool] = None, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= initial_accumulator_value, f"Invalid initial_accumulator_value value: "
                                                 f"{initial_accumulator_value}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        **_how_options(foreach=foreach), maximize=maximize,
                        **_how_options(differentiable=differentiable, fused=fused))
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = creation.tensor(0.0)
                state["sum"] = creation.full_like(p, group["initial_accumulator_value"])

    def _update(self, group: dict[str, Any]) -> None:
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            state["step"].add_(1)
            step = state["step"].item()
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
            _ops.addcmul_(state["sum"], grad, grad, value=1)
            std = state["sum"].sqrt().add_(group["eps"])
            _ops.addcdiv_(p, grad, std, value=-clr)
