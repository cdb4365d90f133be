"""Rprop (resilient backpropagation): each weight has its own step size, and only the
*sign* of the gradient is used.  PyTorch's algorithm, per parameter::

    g = -g if maximize
    s = sign(g · prev)                    did the gradient keep its sign since the last step?
    factor = etaplus  where s > 0         yes: take bigger steps
             etaminus where s < 0         no: we jumped over a minimum, take smaller steps
             1        where s == 0
    step_size = clamp(step_size · factor, step_size_min, step_size_max)
    g = 0 where s < 0                     after a sign change, do not move (and forget g)
    p = p - sign(g) · step_size
    prev = g

Step sizes start at ``lr``.  Rprop suits full-batch training: with mini-batches the
sign of the gradient is too noisy.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from . import _ops
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class Rprop(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: Optional[bool] = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Invalid learning rate: {lr}")
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes,
                        **_how_options(foreach=foreach), maximize=maximize,
                        **_how_options(differentiable=differentiable, capturable=capturable))
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = creation.tensor(0.0)
                state["prev"] = creation.zeros_like(p)
                state["step_size"] = creation.full_like(grad, group["lr"])
            state["step"].add_(1)
            prev, step_size = state["prev"], state["step_size"]
            factor = grad.mul(prev).sign()
            factor[factor.gt(0)] = etaplus
            factor[factor.lt(0)] = etaminus
            factor[factor.eq(0)] = 1
            step_size.mul_(factor).clamp_(step_size_min, step_size_max)
            grad = grad.clone()
            grad[factor.eq(etaminus)] = 0
            _ops.addcmul_(p, grad.sign(), step_size, value=-1)
            prev.copy_(grad)
