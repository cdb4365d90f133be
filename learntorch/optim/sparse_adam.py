"""``SparseAdam``: Adam for *sparse* gradients, the kind ``nn.Embedding(sparse=True)`` produces
(only the rows of the words in the batch), updating only those rows and their moments.

learntorch has no sparse tensors (``Embedding(sparse=True)`` refuses), so every gradient here is
dense, and PyTorch's SparseAdam refuses dense gradients at ``step()``.  So this class checks its
options as PyTorch does, prints as PyTorch's, and raises PyTorch's RuntimeError at the first step
that finds a gradient -- the advice in the message is the fix: use ``Adam``, whose update of a
dense gradient is what SparseAdam would compute on the rows that have one."""
from __future__ import annotations

from typing import Any, Iterable

from ..tensor import Tensor
from .optimizer import Optimizer, _check, _one_element_lr


class SparseAdam(Optimizer):
    """PyTorch's options (``lr``, ``betas``, ``eps``, ``maximize``); ``step()`` raises for the
    dense gradients that are all learntorch has."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 < _one_element_lr(lr), f"Invalid learning rate: {lr}")  # strictly positive, unlike Adam's checks
        _check(0.0 < eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def _update(self, group: dict[str, Any]) -> None:
        for p in group["params"]:
            if p.grad is not None:  # always dense here (see the module docstring)
                raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
