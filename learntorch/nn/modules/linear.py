"""``nn.Linear``: ``y = x Wᵀ + b``, initialised as PyTorch initialises it; ``nn.LazyLinear``, which
learns its ``in_features`` from the first input; ``nn.Bilinear``: ``y = x1ᵀ W x2 + b``."""
from __future__ import annotations

import math
from typing import Any

from ... import creation
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..uninitialized import UninitializedParameter, materialize_from_checkpoint
from .module import Module

__all__ = ["Linear", "Identity", "LazyLinear", "Bilinear"]


class Linear(Module):
    """A fully connected layer with ``weight`` (out_features, in_features) and ``bias`` (out_features).

    Both start as U(-1/√in, 1/√in): PyTorch's ``kaiming_uniform_(a=√5)`` for the
    weight reduces to exactly that bound, so with the same seed the same numbers come out."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # kaiming_uniform_ with a=√5 gives U(-1/√in, 1/√in); computed exactly as PyTorch does,
        # so the same seed gives the same bits.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Identity(Module):
    """Returns its input unchanged (a placeholder layer)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Bilinear(Module):
    """``y_k = x1ᵀ W_k x2 + b_k``: each output feature is a learned quadratic form of the two inputs.

    ``weight`` (out_features, in1_features, in2_features) and ``bias`` (out_features) start as
    U(-1/√in1, 1/√in1), as in PyTorch (so the same seed gives the same numbers)."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(creation.empty(out_features, in1_features, in2_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(Linear):
    """A ``Linear`` whose ``in_features`` is read from the first input it sees.

    Until then ``weight`` and ``bias`` are :class:`UninitializedParameter` placeholders
    (``nn/uninitialized.py``); the first ``forward`` gives them their shapes from the input's
    last dimension (keeping any ``.to()``/``.double()`` applied meanwhile), initialises them as
    ``Linear`` does (the same draws from the generator), and the module *becomes* a
    ``Linear`` (its class changes, as in PyTorch).  Create the optimizer after that first
    call (a dry run on an example batch), since the parameters only then have their shapes."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def has_uninitialized_params(self) -> bool:
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Create ``weight`` (out_features, input.shape[-1]) and ``bias``, and initialise them."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # shapes from a loaded checkpoint: the input must fit them
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]

    def _complete_old_checkpoint(self, local: dict, prefix: str) -> None:
        materialize_from_checkpoint(self, local, prefix)  # loading a checkpoint gives the shapes instead

    def forward(self, input: Tensor) -> Tensor:
        self.initialize_parameters(input)
        self.__class__ = self.cls_to_become  # from now on an ordinary Linear
        return Linear.forward(self, input)
