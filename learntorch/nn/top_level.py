"""The ``torch.*`` forms of operations that live in ``nn.functional`` (``torch.conv2d``,
``torch.layer_norm``, ``torch.selu_`` ...), exported by ``learntorch/__init__.py``.

PyTorch exposes its native ops at top level with their *native* signatures, which are not
always ``nn.functional``'s: ``torch.dropout(input, p, train)`` takes all three arguments,
``torch.batch_norm`` puts ``weight, bias`` before the running statistics,
``torch.embedding(weight, indices)`` takes the weight first, and ``torch.adaptive_max_pool1d``
always returns ``(output, indices)``.  Each function here keeps torch's signature and calls
the one implementation in ``nn.functional``, so the numbers and ``grad_fn`` are the same.
"""
from __future__ import annotations

from typing import Any, Optional

from ..ops.common import wrap_dim
from ..tensor import Tensor
from . import functional as F

# Same signature as nn.functional: the very same function.
hardshrink = F.hardshrink
prelu = F.prelu
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
pdist = F.pdist
cosine_similarity = F.cosine_similarity
pairwise_distance = F.pairwise_distance
bilinear = F.bilinear
conv1d = F.conv1d
conv2d = F.conv2d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
avg_pool1d = F.avg_pool1d
adaptive_avg_pool1d = F.adaptive_avg_pool1d
rms_norm = F.rms_norm


def selu(input: Tensor) -> Tensor:
    return F.selu(input)


def selu_(input: Tensor) -> Tensor:
    return F.selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha, inplace=True)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    if generator is not None:
        raise NotImplementedError("learntorch's rrelu draws from the default generator only")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator: Any = None) -> Tensor:
    if generator is not None:
        raise NotImplementedError("learntorch's rrelu draws from the default generator only")
    return F.rrelu(input, lower, upper, training, inplace=True)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold(input, threshold, value, inplace=True)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    """The native default ``stride=[]`` means "the kernel size", as ``None`` does in ``F``."""
    return F.max_pool1d(input, kernel_size, stride if stride != () and stride != [] else None, padding,
                        dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    return F.max_pool2d(input, kernel_size, stride if stride != () and stride != [] else None, padding,
                        dilation, ceil_mode)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """Always ``(output, indices)``, as the native op returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def _native_p(p: float) -> float:
    """``p`` when it is a probability.  The native ops raise a RuntimeError for one outside [0, 1]
    (``torch.dropout(x, 1.5, True)``), where ``F.dropout``, written in Python, raises a ValueError."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return p


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, _native_p(p), train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout(input, _native_p(p), train, inplace=True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, _native_p(p), train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, _native_p(p), train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.feature_alpha_dropout(input, _native_p(p), train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.feature_alpha_dropout(input, _native_p(p), train, inplace=True)


def layer_norm(input: Tensor, normalized_shape: tuple[int, ...], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Tensor:
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor:
    wrap_dim(1, input.dim())  # (the native op reads the number of channels first: PyTorch's IndexError)
    if num_groups == 0:  # (the native op checks it; F.group_norm's Python code divides by it first)
        raise RuntimeError("Expected num groups to be greater than 0, got 0")
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Optional[Tensor],
               running_var: Optional[Tensor], training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    """The native order: ``weight, bias`` come before the running statistics."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Optional[Tensor],
                  running_var: Optional[Tensor], use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """The native order: the weight first; ``padding_idx=-1`` means none (the native op does
    not count from the end)."""
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# torch.X(t, *args) for Tensor methods that PyTorch also exports at top level (mostly the
# in-place forms of pointwise ops: torch.exp_(t) is t.exp_()).
METHOD_FORMS = """
abs_ acos_ acosh_ addmv_ adjoint arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_
ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ detach detach_ erf_ erfc_ exp2_ exp_ expm1_ fill_
fix_ floor_ frac_ gcd_ get_device i0_ is_complex is_inference is_same_size is_signed lcm_ ldexp_ log10_ log1p_ log2_ log_
logit_ nan_to_num_ neg_ negative_ rad2deg_ ravel reciprocal_ relu_ round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_
sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_
""".split()


def method_form(name: str) -> Any:
    """``torch.<name>(input, ...)``: ``input.<name>(...)``, looked up when called (so a
    method installed later, or replaced, is the one used)."""
    def call(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        return getattr(input, name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``torch.{name}(input, ...)``: the same as ``input.{name}(...)``."
    return call
