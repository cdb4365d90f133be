"""The lazy convolutions ``nn.LazyConv1d/2d/3d`` and ``nn.LazyConvTranspose1d/2d/3d``.

A lazy convolution is given everything but ``in_channels``: it reads that from the first
input (``input.shape[1]``, or ``shape[0]`` for an unbatched one), so a network can be
written without working out how many channels each layer receives.  Until then
``weight`` and ``bias`` are :class:`~learntorch.nn.uninitialized.UninitializedParameter`
placeholders and the layer prints with ``in_channels`` 0.  The first ``forward`` gives
the placeholders their shapes, initialises them exactly as the eager layer would (the same
draws from the generator, so the same seed gives the same weights) and turns the module
into that eager layer: a ``LazyConv2d`` becomes a ``Conv2d``, as in PyTorch.

Create the optimizer after a first call on an example batch (a dry run): before it,
``model.parameters()`` holds the empty placeholders.
"""
from __future__ import annotations

from typing import Any, Union

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..uninitialized import UninitializedParameter, materialize_from_checkpoint
from .conv import Conv2d
from .conv_variants import Conv1d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

__all__ = ["LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d"]


class _LazyConvMixin:
    """What the six lazy layers share; placed before the eager layer in each one's bases, so
    that its ``reset_parameters`` and ``forward`` come first.

    The eager ``__init__`` runs with ``in_channels = out_channels = 0`` and no bias (an empty
    weight, whose initialisation draws nothing); :meth:`_make_placeholders` then puts the
    placeholders in the parameters' places."""

    cls_to_become: type
    _dims: int
    in_channels: int
    out_channels: int
    groups: int
    kernel_size: tuple
    transposed: bool
    weight: Any
    bias: Any

    def _make_placeholders(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def has_uninitialized_params(self) -> bool:
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())  # type: ignore

    def reset_parameters(self) -> None:
        """The eager layer's initialisation, once the shapes are known (nothing before)."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def _in_channels_of(self, input: Tensor) -> int:
        """``in_channels`` from the first input: dimension 1 of a batch, 0 of a single example."""
        unbatched = self._dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input: Tensor) -> None:
        """Give ``weight`` (``(out, in/groups, *k)``; transposed: ``(in, out/groups, *k)``) and
        ``bias`` their shapes from ``input``, and initialise them as the eager layer does."""
        if not self.has_uninitialized_params():
            return  # (shapes from a loaded checkpoint)
        with no_grad():
            self.in_channels = self._in_channels_of(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _complete_old_checkpoint(self, local: dict, prefix: str) -> None:
        materialize_from_checkpoint(self, local, prefix)  # loading a checkpoint gives the shapes instead

    def forward(self, input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        self.initialize_parameters(input)
        self.__class__ = self.cls_to_become  # from now on an ordinary (eager) layer
        return self.forward(input, *args, **kwargs)


class LazyConv1d(_LazyConvMixin, Conv1d):
    """A ``Conv1d`` whose ``in_channels`` is read from the first input."""

    cls_to_become = Conv1d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Union[int, tuple, str] = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._make_placeholders(out_channels, bias, device, dtype)


class LazyConv2d(_LazyConvMixin, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` is read from the first input."""

    cls_to_become = Conv2d
    _dims = 2

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Union[int, tuple, str] = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._make_placeholders(out_channels, bias, device, dtype)


class LazyConv3d(_LazyConvMixin, Conv3d):
    """A ``Conv3d`` whose ``in_channels`` is read from the first input."""

    cls_to_become = Conv3d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Union[int, tuple, str] = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._make_placeholders(out_channels, bias, device, dtype)


class _LazyConvTransposeMixin(_LazyConvMixin):
    """The transposed layers' constructor (their arguments come in another order)."""

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,  # type: ignore
                         dilation, padding_mode, device, dtype)
        self._make_placeholders(out_channels, bias, device, dtype)


class LazyConvTranspose1d(_LazyConvTransposeMixin, ConvTranspose1d):
    """A ``ConvTranspose1d`` whose ``in_channels`` is read from the first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeMixin, ConvTranspose2d):
    """A ``ConvTranspose2d`` whose ``in_channels`` is read from the first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeMixin, ConvTranspose3d):
    """A ``ConvTranspose3d`` whose ``in_channels`` is read from the first input."""

    cls_to_become = ConvTranspose3d
