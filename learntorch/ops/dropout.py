"""Dropout: zero each element with probability ``p`` during training.

The mask is drawn from the CPU generator exactly as PyTorch's kernel draws it
(``bernoulli_(1 - p)``), so ``torch.manual_seed`` gives the same mask in both.
``F.dropout`` and ``nn.Dropout`` end here.
"""
from __future__ import annotations

from .. import dtypes, random
from ..tensor import Tensor

__all__ = ["dropout"]


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the survivors by ``1/(1-p)``, so the
    expected value is unchanged.  Only when ``training``; otherwise ``input`` itself.

    The mask comes from the generator exactly as PyTorch's CPU kernel draws it
    (``bernoulli_(1 - p)``), so ``manual_seed`` gives the same mask in both."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not isinstance(input, Tensor):  # (in evaluation nothing else would notice: input comes back as it is)
        raise TypeError(f"dropout(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    try:
        off = not training
    except RuntimeError:  # (a tensor of many numbers: PyTorch's parser, not Python, reads this flag)
        raise TypeError(f"dropout(): argument 'train' (position 3) must be bool, not {type(training).__name__}") from None
    if off or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        zero = Tensor._zeros((), input._dtype, input._device)
        return input.mul_(zero) if inplace else input * zero
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type {dtypes.type_name(input.dtype)}")
    noise = keep_mask(input, 1 - p).div_(1 - p)  # in the input's dtype, as PyTorch's noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def keep_mask(input: Tensor, keep: float) -> Tensor:
    """PyTorch's ``empty_like(input).bernoulli_(keep)``: 1 with probability ``keep``, else 0.

    ``empty_like`` keeps the strides of a densely stored ``input`` and ``bernoulli_`` draws
    in memory order, so on a transposed input (a ``batch_first`` Transformer's activations)
    the mask is the transposed mask of the same input stored the other way round -- PyTorch's
    mask, which drawing in index order would not give."""
    noise = Tensor._make(input._backend.xp.empty_like(input._data), input._device)  # (NumPy's rule is PyTorch's)
    random.fill_in_memory_order(noise, lambda shape: random.default_generator.bernoulli(keep, shape, noise.dtype._np))
    return noise
