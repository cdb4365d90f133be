"""Activation layers: thin Modules around ``nn.functional``."""
from __future__ import annotations

from typing import Optional

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh", "GELU", "Softmax", "LogSoftmax"]


class ReLU(Module):
    """``max(0, x)`` element-wise."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class GELU(Module):
    """``x·Φ(x)`` (Φ the standard normal CDF); ``approximate='tanh'`` for the tanh formula."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class _AlongDim(Module):
    """A layer that normalises along one ``dim`` (Softmax, LogSoftmax): the module
    only remembers ``dim`` and calls its functional form."""

    _function = None  # the nn.functional function, set by each subclass

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_AlongDim):
    """Probabilities along ``dim``: ``exp(x_i) / Σ_j exp(x_j)`` (each slice sums to 1)."""

    _function = staticmethod(F.softmax)


class LogSoftmax(_AlongDim):
    """``log(softmax(x))`` along ``dim``, computed stably (pair it with ``NLLLoss``)."""

    _function = staticmethod(F.log_softmax)
