"""``nn.init``: fill a layer's weights with starting values, in place.

Each function draws from the same generator, in the same order, as PyTorch's
``torch.nn.init``, so after ``manual_seed(s)`` both produce the same numbers:
the uniform initialisers call ``tensor.uniform_(-bound, bound)`` and the normal
ones ``tensor.normal_(0, std)``.  All of them run under ``no_grad`` (filling a
weight is not an operation anyone differentiates) and return the tensor.

Which spread?  Keep the variance of the activations about constant from
layer to layer:

* Xavier/Glorot (for tanh/sigmoid nets): ``std = gain·√(2 / (fan_in + fan_out))``;
* Kaiming/He (for ReLU nets): ``std = gain / √fan``, ``gain = √2`` for ReLU.

A uniform U(-b, b) has standard deviation ``b/√3``, hence ``bound = √3·std``.
``nn.Linear`` uses ``kaiming_uniform_(w, a=√5)``, whose bound works out to
``1/√fan_in``.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from .. import warn_always
from ..autograd.grad_mode import no_grad
from ..arrays import to_numpy
from ..ops.common import new_result
from ..tensor import Tensor
from ..creation import empty, empty_like, randperm
from ..creation import eye as identity_matrix  # (nn.init.eye is the deprecated eye_, as in PyTorch)
from ..ops.pointwise import where

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_", "sparse_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_", "orthogonal_",
           "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
           "kaiming_normal", "orthogonal", "sparse"]


def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    """The recommended scale for weights feeding ``nonlinearity``: 1 for linear/sigmoid, 5/3 for
    tanh, √2 for relu, √(2/(1 + slope²)) for leaky_relu, 3/4 for selu."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param  # True/False are ints too, hence the check above
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (for a 2-D tensor; rectangular ones get ones on the main diagonal)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(identity_matrix(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity of a convolution: a 3-, 4- or 5-d weight ``(out, in, *kernel)`` whose
    output channel ``d`` of each of the ``groups`` groups copies input channel ``d`` (a one at
    the kernel's centre, zeros elsewhere), for as many channels as both sides have."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    centre = tuple(k // 2 for k in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(out_per_group, sizes[1])):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """A sparse 2-D matrix (Martens, 2010): N(0, std²) values, then in every column
    ``ceil(sparsity * rows)`` of them set to zero.

    The draws follow PyTorch's order, so that the same ``manual_seed`` gives the same matrix:
    first the whole ``normal_`` fill (from ``generator``), then one ``randperm(rows)`` per column,
    whose first entries are the rows zeroed.  As in PyTorch, the permutations come from the
    default generator even when ``generator`` is given."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            tensor[randperm(rows)[:num_zeros], col] = 0
    return tensor


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """How many inputs feed each output (fan_in = size(1)·receptive field) and how many outputs
    each input feeds (fan_out = size(0)·receptive field)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """U(-a, a) with ``a = gain·√(6 / (fan_in + fan_out))`` (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """N(0, std²) with ``std = gain·√(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Any = None) -> Tensor:
    """U(-bound, bound) with ``bound = gain·√(3 / fan)`` (He et al., 2015); ``a`` is the negative
    slope of a following leaky ReLU."""
    if 0 in tensor.shape:
        warn_always.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Any = None) -> Tensor:
    """N(0, std²) with ``std = gain / √fan``."""
    if 0 in tensor.shape:
        warn_always.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    return normal_(tensor, 0, std, generator)


# ---------------------------------------------------------------------------- truncated normal
def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Any = None) -> Tensor:
    """N(mean, std²) restricted to [a, b], by rejection sampling -- PyTorch 2.13's method, with
    the same draws in the same order, so the same seed gives the same values.

    * When [a, b] holds more than 30 % of the normal's mass, draw normals and redraw (for
      the whole tensor, keeping only what is needed) every value outside [a, b]: few rounds.
    * Otherwise most normals would fall outside: draw uniformly on [a, b] instead and accept
      a draw ``x`` with probability ``pdf(x) / pdf(mode)`` (compared in logs:
      ``log u > log pdf(x) - log pdf(mode)`` rejects), repeating for the rejected ones.

    Either way every value is an exact sample of the truncated normal."""

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warn_always.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                         "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            # the bounds as the tensor's dtype holds them, so the test below is exact
            lo, hi = tensor.new_tensor(a, device="cpu").item(), tensor.new_tensor(b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = where(mask, empty_like(result).normal_(mean, std, generator=generator), result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def rejected(candidates: Tensor) -> Tensor:
            """log u > log pdf(x) - log pdf(mode), with a fresh uniform u per element."""
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            return empty_like(candidates).uniform_(generator=generator).log_().gt(candidates)

        candidates = empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        pending = rejected(candidates)
        result = tensor
        while pending.any():
            candidates.uniform_(a, b, generator=generator)
            result = where(pending, candidates, result)
            pending = where(pending, rejected(candidates), pending)
        if result is not tensor:
            tensor.copy_(result)
        return tensor


# ---------------------------------------------------------------------------- orthogonal
def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix (Saxe et al., 2013): QR of a standard normal matrix, with the
    signs of R's diagonal moved into Q so that Q is uniformly distributed.  Tensors with more
    than 2 dimensions are flattened to ``(size(0), rest)``.

    The normal draws are PyTorch's; the QR runs in NumPy (LAPACK, in float64) where PyTorch
    calls LAPACK in float32, so the values agree to about 1e-6, not to the bit."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor  # no-op
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = empty(rows, cols, dtype=tensor.dtype, device=tensor.device).normal_(0, 1, generator=generator)
    m = to_numpy(flattened._data).astype(np.float64)
    if rows < cols:
        m = m.T
    q, r = np.linalg.qr(m)
    q *= np.sign(np.diag(r))  # make the decomposition unique: R's diagonal positive
    if rows < cols:
        q = q.T
    q = q.reshape(tuple(tensor.shape)).astype(to_numpy(flattened._data).dtype)
    with no_grad():
        tensor.copy_(new_result(tensor._backend.asarray(q), tensor))
        tensor.mul_(gain)
    return tensor


# ---------------------------------------------------------------------------- deprecated names
def _deprecated_alias(initialiser: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """The old name of an initialiser, without the trailing underscore (``nn.init.uniform``).

    Old programs still call these, so they keep working; but the underscore is PyTorch's sign
    of an in-place change, and these names hide it.  So each call warns, as PyTorch does, with a
    ``FutureWarning`` that names the new function, and then runs it."""
    new_name = initialiser.__name__
    old_name = new_name[:-1]

    def alias(*args: Any, **kwargs: Any) -> Tensor:
        warn_always.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                         stacklevel=2)
        return initialiser(*args, **kwargs)

    alias.__name__ = old_name
    alias.__doc__ = f"Deprecated: ``nn.init.{new_name}`` under its old name (warns, then calls it)."
    return alias


uniform = _deprecated_alias(uniform_)
normal = _deprecated_alias(normal_)
constant = _deprecated_alias(constant_)
eye = _deprecated_alias(eye_)
dirac = _deprecated_alias(dirac_)
xavier_uniform = _deprecated_alias(xavier_uniform_)
xavier_normal = _deprecated_alias(xavier_normal_)
kaiming_uniform = _deprecated_alias(kaiming_uniform_)
kaiming_normal = _deprecated_alias(kaiming_normal_)
orthogonal = _deprecated_alias(orthogonal_)
sparse = _deprecated_alias(sparse_)
