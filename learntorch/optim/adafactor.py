"""Adafactor: Adam-like per-weight scaling with a second-moment estimate that costs
memory O(rows + columns) instead of O(rows · columns).

For a matrix gradient ``G`` (n × m) it keeps only the running mean of ``G²`` over each row
(``row_var``, n × 1) and over each column (``col_var``, 1 × m) and estimates the full
matrix as their outer product divided by the overall mean: a rank-1 factorisation.
Vectors keep a full ``variance``.  PyTorch's algorithm (its own variant of the paper),
per parameter, at step ``t``::

    β̂ = t ** beta2_decay                   the weight of the new gradient (1 at t = 1)
    ρ = min(lr, 1/√t);  α = max(eps2, RMS(p)) · ρ     a step relative to the weight's size
    p = p · (1 - lr · weight_decay)
    matrix:  row_var ← lerp(row_var, mean(G², dim=-1), β̂);  col_var ← lerp(col_var, mean(G², dim=-2), β̂)
             V = row_var @ col_var / max(mean(row_var, dim=-2), eps1)
    vector:  variance ← lerp(variance, G², β̂);  V = variance
    U = G / √max(V, eps1²)
    p = p - α · U / max(1, RMS(U) / d)     clip updates whose RMS exceeds d

``eps1=None`` means the machine epsilon of the parameters' dtype.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import creation
from ..type_info import finfo
from . import _ops
from .optimizer import Optimizer, _check, _one_element_lr, _how_options


class Adafactor(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[Optional[float], float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: Optional[bool] = None, maximize: bool = False) -> None:
        _check(0.0 <= _one_element_lr(lr), f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        _check(eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}")
        _check(0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}")
        _check(1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}")
        _check(0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                        **_how_options(foreach=foreach), maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, state: dict[str, Any], grad: Any) -> None:
        """A step counter, and the factored (row, column) or full second-moment estimate."""
        state["step"] = creation.tensor(0.0)
        if grad.dim() > 1:
            state["row_var"] = grad.new_zeros(tuple(grad.shape[:-1]) + (1,))
            state["col_var"] = grad.new_zeros(tuple(grad.shape[:-2]) + (1, grad.shape[-1]))
        else:
            state["variance"] = creation.zeros_like(grad)

    @staticmethod
    def _mean_square(grad: Any, dim: int) -> Any:
        """``mean(grad², dim)`` computed as PyTorch does it: ``norm(grad, dim)² / size``."""
        return grad.norm(dim=dim, keepdim=True).square().div(grad.size(dim))

    def _update(self, group: dict[str, Any]) -> None:
        lr, d, weight_decay, beta2_decay = group["lr"], group["d"], group["weight_decay"], group["beta2_decay"]
        eps1, eps2 = group["eps"]
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if len(state) == 0:
                self._init_state(state, grad)
            if eps1 is None:
                eps1 = finfo(p.dtype).eps
            state["step"].add_(1)
            t = state["step"].item()
            new_weight = t ** beta2_decay
            alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * min(lr, 1 / (t ** 0.5))
            if weight_decay != 0:
                p.mul_(1 - lr * weight_decay)
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                _ops.lerp_(row_var, self._mean_square(grad, -1), new_weight)
                _ops.lerp_(col_var, self._mean_square(grad, -2), new_weight)
                var_estimate = (row_var @ col_var).div(row_var.mean(dim=-2, keepdim=True).clamp(min=eps1))
            else:
                _ops.lerp_(state["variance"], grad * grad, new_weight)
                var_estimate = state["variance"].clone()
            update = var_estimate.clamp(min=eps1 * eps1).rsqrt().mul(grad)
            denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
            p.add_(update, alpha=-alpha / denom)
