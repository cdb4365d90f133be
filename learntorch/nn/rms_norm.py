"""``F.rms_norm``: root-mean-square normalisation, the LayerNorm of modern GPTs (LLaMA & co).

LayerNorm subtracts the mean and divides by the standard deviation; RMSNorm skips the
mean and divides by the root mean square::

    y = x / √(mean(x², over the last dims) + eps) · weight

Cheaper, and it works as well in practice.  Composed of tensor operations in PyTorch's
order (``x · rsqrt(mean(x²) + eps)``, then ``· weight``), so it has PyTorch's numbers,
its gradients and second derivatives, and its ``grad_fn`` (``MulBackward0``).
"""
from __future__ import annotations

import operator
from typing import Optional, Sequence

from .. import dtypes
from ..ops.common import check_same_device
from ..ops.pointwise import AddScalar
from ..tensor import Tensor
from ..type_info import finfo

__all__ = ["rms_norm"]

_REDUCED = ("float16", "bfloat16")  # computed in float32 and rounded back, as PyTorch's opmath does


def _sizes(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_shapes(input: Tensor, shape: tuple, weight: Optional[Tensor]) -> None:
    """PyTorch's errors: the input must end with ``normalized_shape``; the weight must be it."""
    k = len(shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={_sizes(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size{_sizes(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{_sizes(weight.shape)} and normalized_shape = {_sizes(shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{dtypes.SCALAR_NAMES[input._dtype.name]}'")


def rms_norm(input: Tensor, normalized_shape: tuple[int, ...], weight: Optional[Tensor] = None,
             eps: Optional[float] = None) -> Tensor:
    """Divide each sample by its root mean square over the trailing ``normalized_shape`` dims.

    ``normalized_shape`` is a list or tuple of ints (one int is PyTorch's TypeError, as for
    ``layer_norm``).  ``eps=None`` means the machine epsilon of the computing dtype
    (``finfo(float32).eps`` for float32, bfloat16 and float16, which compute in float32)."""
    shape = tuple(map(operator.index, normalized_shape))
    check_same_device(*(t for t in (input, weight) if t is not None))
    _check_shapes(input, shape, weight)
    x = input.float() if input._dtype.name in _REDUCED else input
    if eps is None:
        eps = finfo(x.dtype).eps
    dims = tuple(range(-len(shape), 0))
    inv_rms = AddScalar.apply(x.pow(2).mean(dims, keepdim=True), eps).rsqrt()  # (AddBackward1, as PyTorch's)
    result = x.mul(inv_rms).type_as(input)
    return result.mul(weight) if weight is not None else result
