"""More dropout: whole channels at once (``dropout1d``/``dropout3d``) and the *alpha* dropouts
that keep SELU networks self-normalising.

* **Feature (channel) dropout** draws one Bernoulli per ``(sample, channel)`` and
  broadcasts it over the positions: neighbouring positions of one feature map are
  correlated, so dropping single positions would regularise little.
* **Alpha dropout** does not set dropped units to 0 but to SELU's negative
  saturation value ``-α·λ``, then applies an affine map ``a·x + b`` chosen so that a
  zero-mean, unit-variance input keeps mean 0 and variance 1.  ``feature_alpha_dropout``
  does the same per channel.

The masks come from the CPU generator as PyTorch draws them (``bernoulli_(1 - p)`` on
the noise tensor), so the same ``manual_seed`` gives the same result.
"""
from __future__ import annotations

import math

from .. import warn_always
from ..arrays import transfer
from ..device import CPU
from ..ops.dropout import keep_mask
from ..random import default_generator
from ..tensor import Tensor
from ..tensor_arguments import require_tensor

__all__ = ["dropout1d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

# SELU's α·λ: the value a SELU unit saturates to (with a minus sign) for very negative inputs.
_ALPHA = 1.7580993408473766


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input: Tensor, p: float, per_channel: bool) -> Tensor:
    """The ``bernoulli(1 - p)`` keep-mask: one draw per element, or per (sample, channel)
    (shape ``(N, C, 1, ...)``) for the feature variants.  As in PyTorch, the per-element mask
    is ``empty_like(input)`` (the input's strides, the draws in memory order: see
    ``ops.dropout.keep_mask``); the per-channel one is a fresh contiguous tensor."""
    shape = tuple(input.shape)
    if not per_channel:
        return keep_mask(input, 1 - p)
    if len(shape) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = shape[:2] + (1,) * (len(shape) - 2)
    mask = default_generator.bernoulli(1 - p, shape, input._dtype._np)
    return Tensor._make(transfer(mask, CPU, input._device), input._device)


def _multiply(input: Tensor, factor: Tensor, inplace: bool) -> Tensor:
    return input.mul_(factor) if inplace else input * factor


def _dropout_impl(input: Tensor, p: float, training: bool, inplace: bool, per_channel: bool, alpha: bool) -> Tensor:
    """PyTorch's one dropout recipe behind all four variants (and ``dropout2d``)."""
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return _multiply(input, Tensor._zeros((), input._dtype, input._device), inplace)
    noise = _noise(input, p, per_channel)
    if not alpha:
        return _multiply(input, noise.div_(1 - p), inplace)
    # keep: a·x + b·0 ... drop: a·(-αλ)-shifted; a and b restore mean 0 and variance 1
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
    noise.mul_(a)
    out = _multiply(input, noise, inplace)
    return out.add_(b)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched_dims: int,
                     alpha: bool = False) -> Tensor:
    """Channel-wise dropout of an input whose batched form has ``batched_dims`` dims; any other
    input gets a batch dimension of 1 for the draw, as in PyTorch (``dropout3d`` of a 2-D input
    drops its rows: after the warning, it is taken for one sample whose channels are the rows)."""
    unbatched = input.dim() != batched_dims
    x = input.unsqueeze(0) if unbatched else input
    out = _dropout_impl(x, p, training, inplace, per_channel=True, alpha=alpha)
    return out.squeeze(0) if unbatched else out


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of an ``(N, C, L)`` (or ``(C, L)``) input with probability ``p``,
    scaling the rest by ``1/(1-p)``."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, batched_dims=3)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of an ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) input with probability ``p``."""
    _check_p(p)
    if input.dim() not in (4, 5):
        warn_always.warn(f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated and will "
                         "result in an error in a future release. To retain the behavior and silence this warning, "
                         "please use dropout instead. Note that dropout3d exists to provide channel-wise dropout on "
                         "inputs with 3 spatial dimensions, a channel dimension, and an optional batch dimension "
                         "(i.e. 4D or 5D inputs).", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, batched_dims=5)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped units take SELU's saturation value, and an affine
    correction keeps the mean and variance of a standardised input."""
    require_tensor("alpha_dropout", "input", input)  # (out of training it would hand a list back)
    return _dropout_impl(input, p, training, inplace, per_channel=False, alpha=True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (one draw per sample and channel)."""
    require_tensor("feature_alpha_dropout", "input", input)
    return _dropout_impl(input, p, training, inplace, per_channel=True, alpha=True)
