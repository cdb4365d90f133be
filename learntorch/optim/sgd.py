"""Stochastic gradient descent (随机梯度下降), with momentum, Nesterov and weight decay.

For each parameter ``p`` with gradient ``g`` (PyTorch's algorithm, same order)::

    g = -g if maximize
    g = g + weight_decay * p                       # L2 penalty
    if momentum:
        buf = g (first step)  or  buf = momentum * buf + (1 - dampening) * g
        g = g + momentum * buf  if nesterov  else  buf
    p = p - lr * g
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: Optional[bool] = None, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        _check(_one_element_lr(lr) >= 0.0, f"Invalid learning rate: {lr}")
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize,
                        **_how_options(foreach=foreach, differentiable=differentiable, fused=fused))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any]) -> None:
        # the group's settings, read once per group rather than once per parameter
        lr, momentum, dampening, weight_decay = group["lr"], group["momentum"], group["dampening"], group["weight_decay"]
        for p, grad in self._params_with_grad(group):
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = grad.clone().detach()
                    state["momentum_buffer"] = buf
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            p.add_(grad, alpha=-lr)
