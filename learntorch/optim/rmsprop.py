"""RMSprop: divide the gradient by the root of a running average of its square.
PyTorch's algorithm::

    g = -g if maximize;  g = g + weight_decay * p
    square_avg = alpha * square_avg + (1 - alpha) * g * g
    avg = sqrt(square_avg)                      centered: sqrt(square_avg - grad_avg**2),
                                                with grad_avg = running average of g
    avg = avg + eps
    momentum > 0:  buf = momentum * buf + g / avg;  p = p - lr * buf
    otherwise:     p = p - lr * g / avg
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from . import _ops
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class RMSprop(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, *,
                 maximize: bool = False, foreach: Optional[bool] = None, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Invalid learning rate: {lr}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= alpha, f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay,
                        **_how_options(capturable=capturable, foreach=foreach), maximize=maximize,
                        **_how_options(differentiable=differentiable))
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        alpha, momentum, centered = group["alpha"], group["momentum"], group["centered"]
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = creation.tensor(0.0)
                state["square_avg"] = creation.zeros_like(p)
                if momentum > 0:
                    state["momentum_buffer"] = creation.zeros_like(p)
                if centered:
                    state["grad_avg"] = creation.zeros_like(p)
            state["step"].add_(1)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            square_avg = state["square_avg"]
            _ops.addcmul_(square_avg.mul_(alpha), grad, grad, value=1 - alpha)
            if centered:
                grad_avg = state["grad_avg"]
                _ops.lerp_(grad_avg, grad, 1 - alpha)
                avg = _ops.addcmul_(square_avg.clone(), grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(group["eps"])
            if momentum > 0:
                buf = state["momentum_buffer"]
                _ops.addcdiv_(buf.mul_(momentum), grad, avg)
                p.add_(buf, alpha=-group["lr"])
            else:
                _ops.addcdiv_(p, grad, avg, value=-group["lr"])
