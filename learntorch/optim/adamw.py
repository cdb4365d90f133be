"""AdamW: Adam with *decoupled* weight decay (Loshchilov & Hutter): instead of adding
``weight_decay * p`` to the gradient (which Adam's denominator then rescales),
shrink the parameter directly, ``p *= 1 - lr * weight_decay``, before the Adam step."""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .adam import Adam


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: Optional[bool] = None, capturable: bool = False,
                 differentiable: bool = False, fused: Optional[bool] = None) -> None:
        # the switches are named (not **kwargs) because programs look for them in the signature:
        # nanoGPT's ``"fused" in inspect.signature(torch.optim.AdamW).parameters``
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         maximize=maximize, foreach=foreach, capturable=capturable,
                         differentiable=differentiable, fused=fused)
