"""``learntorch.nn.functional``: the maths of the layers and losses, as plain functions.

Every layer of ``nn`` is a thin Module around one of these (``nn.Linear`` calls
:func:`linear`, ``nn.CrossEntropyLoss`` calls :func:`cross_entropy`).  Where
PyTorch has one fused kernel with its own backward node (``LogSoftmaxBackward0``,
``NllLossBackward0``, ``NativeLayerNormBackward0`` …) there is one
``autograd.Function`` here with a hand-written backward, named the same:

* it is faster (one node instead of a dozen element-wise ones), and
* it is numerically stable (``log_softmax`` subtracts the row maximum, so
  ``exp`` never overflows; its gradient is ``softmax - onehot`` up to scaling).

Where PyTorch itself composes smaller operations (``l1_loss``, label smoothing,
soft-label ``cross_entropy``), so does this file, so ``grad_fn`` names agree.

The backward formulas are written with tensor operations, so that
``create_graph=True`` can differentiate them again.
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any, Optional, Sequence

import numpy as np

from .. import warn_always
from .. import autocast_state
from ..ops.autocast import float32_precision, lower_precision
from .. import dtypes
from ..autograd import grad_mode
from ..autograd.function import Function
from ..arrays import to_numpy
from ..ops import pointwise, pointwise_extra
from ..ops.special import _select, erf_array  # noqa: F401  (erf: ops/special.py)
from ..ops.common import binary_operands, check_same_device, in_strides_of, infer_size, new_result, row_major
from ..ops.softmax import log_softmax, softmax  # noqa: F401  (softmax: own file)
from ..ops.matmul import linear  # noqa: F401  (the ops that the layers in attention.py & co use too)
from ..ops.batch_norm import batch_norm  # noqa: F401
from ..ops.dropout import dropout  # noqa: F401
from ..ops.padding import pad  # noqa: F401
from ..tensor import Tensor
from ..tensor_arguments import check_namespace
from ..ops.convolution import conv2d  # noqa: F401  (im2col: own file)
from ..ops.pooling import adaptive_avg_pool2d, max_pool2d  # noqa: F401  (the N-d pooling kernels: ops/pooling_nd.py)
from ..ops.activations import (celu, elu, hardsigmoid, hardswish, hardtanh, leaky_relu, logsigmoid,  # noqa: F401
                          mish, relu6, selu, silu, softplus, softsign, threshold)
from .attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from .convolution_variants import conv1d, conv_transpose1d, conv_transpose2d  # noqa: F401
from .convolution_variants import conv3d, conv_transpose3d  # noqa: F401
from .group_instance_norm import group_norm, instance_norm  # noqa: F401
from ..ops.activations import glu, hardshrink, rrelu, softshrink, tanhshrink  # noqa: F401
from .bilinear import bilinear  # noqa: F401
from .distances import pairwise_distance, pdist  # noqa: F401
from .embedding_bag import embedding_bag  # noqa: F401
from .feature_dropout import alpha_dropout, dropout1d, dropout3d, feature_alpha_dropout  # noqa: F401
from .feature_dropout import _dropout_impl
from .gumbel_softmax import gumbel_softmax  # noqa: F401
from .rms_norm import rms_norm  # noqa: F401
from ..ops.pooling import (adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool2d,  # noqa: F401
                           avg_pool1d, max_pool1d)
# 3-D pooling, un-pooling, the *_with_indices forms (ops/pooling.py, N-d kernels in ops/pooling_nd.py)
from ..ops.pooling import (adaptive_avg_pool3d, adaptive_max_pool1d_with_indices,  # noqa: F401
                           adaptive_max_pool2d_with_indices, adaptive_max_pool3d, adaptive_max_pool3d_with_indices,
                           avg_pool2d, avg_pool3d, max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d,
                           max_pool3d_with_indices, max_unpool1d, max_unpool2d, max_unpool3d)
from .lp_pool_lrn import local_response_norm, lp_pool1d, lp_pool2d, lp_pool3d  # noqa: F401
from ..ops.pixel_shuffle import channel_shuffle  # noqa: F401
from ..ops.activations import (celu_, elu_, hardtanh_, leaky_relu_, rrelu_, selu_,  # noqa: F401
                               threshold_)
_POOL_3D_ALL = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "max_pool1d_with_indices",
                "max_pool2d_with_indices", "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices",
                "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "max_unpool1d",
                "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d", "local_response_norm",
                "channel_shuffle", "relu_", "elu_", "selu_", "celu_", "leaky_relu_", "hardtanh_", "rrelu_",
                "threshold_"]
from ..ops.upsampling import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: F401
from ..ops.grid_sample import affine_grid, grid_sample  # noqa: F401  (the spatial transformer's two halves)
from ..ops.pixel_shuffle import pixel_shuffle, pixel_unshuffle  # noqa: F401
from ..ops.fold import fold, unfold  # noqa: F401
from ._reduction import (_get_reduction, _legacy_get_string, _reduce, _reduce_array,  # noqa: F401
                         _scale_grad)
from .losses_margin import *  # noqa: F401,F403  (margin_ranking_loss, triplet_margin_loss ... : own file)
from .losses_margin import __all__ as _losses_margin_all
from .losses_likelihood import ctc_loss, gaussian_nll_loss, poisson_nll_loss  # noqa: F401

# IEEE arithmetic without NumPy's warnings, as in PyTorch (log(0) is -inf, 0/0 nan; see learntorch.ops)
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"learntorch\.nn\.functional")

__all__ = [
    "linear", "relu", "sigmoid", "tanh", "gelu", "softmax", "log_softmax", "dropout", "batch_norm", "layer_norm",
    "embedding", "one_hot", "normalize", "mse_loss", "l1_loss", "nll_loss", "cross_entropy",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv2d", "max_pool2d",
    "celu", "elu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "logsigmoid", "mish", "relu6", "selu",
    "silu", "softplus", "softsign", "threshold", "softmin", "smooth_l1_loss", "huber_loss", "pad", "cosine_similarity",
    "kl_div", "avg_pool2d", "adaptive_avg_pool2d", "dropout2d", "prelu",
]
__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward", "conv1d", "conv_transpose1d",
            "conv_transpose2d", "group_norm", "instance_norm"]
__all__ += ["glu", "hardshrink", "rrelu", "softshrink", "tanhshrink", "bilinear", "pairwise_distance", "pdist",
            "embedding_bag", "alpha_dropout", "dropout1d", "dropout3d", "feature_alpha_dropout", "gumbel_softmax",
            "rms_norm"]
__all__ += _losses_margin_all + ["poisson_nll_loss", "gaussian_nll_loss", "ctc_loss"]
__all__ += ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d",
            "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle",
            "fold", "unfold"]
__all__ += _POOL_3D_ALL
__all__ += ["affine_grid", "grid_sample"]
__all__ += ["conv3d", "conv_transpose3d"]

# PyTorch's names of scalar types, as its error messages print them.
_SCALAR_NAMES = dtypes.SCALAR_NAMES


def _scalar_name(t: Tensor) -> str:
    return _SCALAR_NAMES.get(t.dtype.name, t.dtype.name)


def _sizes(shape: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _const(like: Tensor, data: Any) -> Tensor:
    """A backend array as a tensor on ``like``'s device (a constant in the graph)."""
    return new_result(data, like)


# ============================================================================ reductions of losses
# (_get_reduction & co live in _reduction.py, which every loss file imports)





# ============================================================================ activations
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(0, x)``; its gradient is 1 where the output is positive, else 0."""
    return input.relu_() if inplace else pointwise.relu(input)


def relu_(input: Tensor) -> Tensor:
    """``relu(input, inplace=True)``: overwrite ``input`` with ``max(0, x)`` and return it."""
    return input.relu_()


def sigmoid(input: Tensor) -> Tensor:
    return pointwise.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return pointwise.tanh(input)


_SQRT1_2 = 0.7071067811865476  # 1/√2
_INV_SQRT_2PI = 0.3989422804014327  # 1/√(2π)
_GELU_BETA = 0.7978845608028654  # √(2/π)
_GELU_KAPPA = 0.044715


def _gelu_parts(xp: Any, a: Any, approximate: str, order: int) -> Any:
    """GELU (order 0), its derivative (1) or second derivative (2) of a float array."""
    if approximate == "none":
        if order == 0:
            out = erf_array(xp, a * _SQRT1_2)
            out += 1.0
            out *= a
            out *= 0.5
            return out
        pdf = xp.exp(-0.5 * a * a) * _INV_SQRT_2PI
        if order == 1:
            return 0.5 * (1.0 + erf_array(xp, a * _SQRT1_2)) + a * pdf
        return pdf * (2.0 - a * a)
    # u = β·(x + κ·x³), GELU = ½x·(1 + tanh u).
    t = _gelu_tanh_t(xp, a)
    if order == 0:
        t += 1.0
        t *= a * 0.5
        return t                                    # ½x·(1 + t)
    if order == 1:
        return _gelu_tanh_slope(a, t)
    du = _gelu_tanh_du(a)
    d2u = 6.0 * _GELU_BETA * _GELU_KAPPA * a
    return (1.0 - t * t) * (du + 0.5 * a * (d2u - 2.0 * t * du * du))


# The tanh form, written in place, one buffer per quantity, in the same order of operations as
# the textbook form (so the same numbers): on a transformer's (B·T, 4d) activations a fresh
# temporary per step costs more than the arithmetic.
def _gelu_tanh_t(xp: Any, a: Any) -> Any:
    """``t = tanh(u)``, ``u = β·(x + κ·x³)``: what the tanh form and its derivative share, and its
    costly part (a tanh per element), so the forward keeps it for the backward."""
    u = a * _GELU_KAPPA
    u *= a
    u *= a
    u += a
    u *= _GELU_BETA
    return xp.tanh(u)


def _gelu_tanh_du(a: Any) -> Any:
    du = a * (3.0 * _GELU_KAPPA)
    du *= a
    du += 1.0
    du *= _GELU_BETA
    return du                                       # u' = β·(1 + 3κx²)


def _gelu_tanh_slope(a: Any, t: Any) -> Any:
    """GELU'(x) of the tanh form, ``½(1 + t) + ½x·(1 - t²)·u'``, from ``t`` (left unchanged)."""
    sech2 = t * t
    sech2 *= -1.0
    sech2 += 1.0                                    # 1 - t²
    sech2 *= a * 0.5
    sech2 *= _gelu_tanh_du(a)
    slope = t + 1.0
    slope *= 0.5
    slope += sech2
    return slope


def _on_float(x: Tensor, fn: Any) -> Any:
    """Run ``fn(xp, array)`` in float32 for half precision (as PyTorch's kernels do), cast back."""
    xp = x._backend.xp
    a = x._data
    if x._dtype is dtypes.float16:
        return xp.astype(fn(xp, xp.astype(a, xp.float32)), a.dtype)
    return fn(xp, a)


class Gelu(Function):
    """``x·Φ(x)``, Φ the standard normal CDF (``approximate='tanh'``: Hendrycks & Gimpel's tanh form).

    The backward needs Φ(x) again (``GELU'(x) = Φ(x) + x·φ(x)``); erf has no NumPy kernel and
    is the costly part, so the forward keeps Φ(x) for a backward that records nothing."""

    _backward_name = "GeluBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, approximate: str = "none") -> Tensor:
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        ctx.cdf = ctx.tanh_u = None
        if approximate == "none" and x._dtype is not dtypes.float16:
            xp = x._backend.xp
            cdf = erf_array(xp, x._data * _SQRT1_2)
            cdf += 1.0
            cdf *= 0.5                                  # Φ(x) = (1 + erf(x/√2)) / 2
            ctx.cdf = cdf
            return new_result(in_strides_of(cdf * x._data, x._data), x)
        if approximate == "tanh" and x._dtype is not dtypes.float16:
            t = ctx.tanh_u = _gelu_tanh_t(x._backend.xp, x._data)
            out = t + 1.0
            out *= x._data * 0.5
            return new_result(in_strides_of(out, x._data), x)  # ½x·(1 + t)
        return new_result(in_strides_of(_on_float(x, lambda xp, a: _gelu_parts(xp, a, approximate, 0)), x._data), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        if ctx.cdf is not None and not grad_mode._state.enabled:  # plain backward: on the arrays
            xp, a = x._backend.xp, x._data
            pdf = xp.exp(-0.5 * a * a) * _INV_SQRT_2PI
            return new_result(grad._data * (ctx.cdf + a * pdf), grad), None
        if ctx.tanh_u is not None and not grad_mode._state.enabled:
            return new_result(grad._data * _gelu_tanh_slope(x._data, ctx.tanh_u), grad), None
        return GeluDerivative.apply(grad, x, ctx.approximate), None


class GeluDerivative(Function):
    """GELU's backward ``(grad, x) ↦ grad · GELU'(x)`` as an operation of its own, so that
    ``create_graph=True`` can differentiate GELU twice, and the gradient's node is PyTorch's
    ``GeluBackwardBackward0``.  Linear in ``grad`` (its derivative there is itself again);
    with respect to ``x`` it is ``h · grad · GELU''(x)``, GELU'' taken as a constant (so a
    third derivative through ``x`` is not followed)."""

    _backward_name = "GeluBackwardBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, x: Tensor, approximate: str = "none") -> Tensor:
        ctx.save_for_backward(grad, x)
        ctx.approximate = approximate
        slope = _on_float(x, lambda xp, a: _gelu_parts(xp, a, approximate, 1))
        return new_result(grad._data * slope, grad)

    @staticmethod
    def backward(ctx, h: Tensor) -> tuple:
        grad, x = ctx.saved_tensors
        d_grad = GeluDerivative.apply(h, x, ctx.approximate) if ctx.needs_input_grad[0] else None
        curvature = _const(x, _on_float(x, lambda xp, a: _gelu_parts(xp, a, ctx.approximate, 2)))
        return d_grad, h * grad * curvature, None


def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    """Gaussian Error Linear Unit: ``x·Φ(x) = x/2·(1 + erf(x/√2))``; ``approximate='tanh'`` uses
    ``x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³)))``.  ``approximate`` is keyword-only, as in PyTorch
    (``F.gelu(x, 'tanh')`` is a TypeError there)."""
    if approximate not in ("none", "tanh"):
        if not isinstance(approximate, str):
            raise TypeError(f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}")
        raise RuntimeError("approximate argument must be either none or tanh.")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"GeluKernelImpl\" not implemented for '{_scalar_name(input)}'")
    return Gelu.apply(input, approximate)


# ============================================================================ dropout



# ============================================================================ normalization
class LayerNorm(Function):
    """Normalise over the last ``len(normalized_shape)`` dimensions of each sample:
    ``(x - mean) / √(var + eps) · weight + bias`` (biased variance)."""

    _backward_name = "NativeLayerNormBackward0"
    _none_edges = True  # no weight/bias: still inputs of the node, ``(None, 0)`` as in PyTorch

    @staticmethod
    def forward(ctx, x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], k: int = 1,
                eps: float = 1e-5) -> Tensor:
        xp = x._backend.xp
        a = x._data
        half = x._dtype in _HALF_DTYPES  # (bfloat16 with float32 weights, as under autocast; float16)
        if half:  # PyTorch's CPU kernel computes in float32 and rounds the output once
            a = a.astype(np.float32)
        axes = tuple(range(a.ndim - k, a.ndim))
        n = math.prod(a.shape[a.ndim - k:])
        mean = _mean_over(xp, a, axes, n)
        out = a - mean
        var = _mean_over(xp, out * out, axes, n)
        invstd = 1.0 / xp.sqrt(var + eps)
        out *= invstd
        if weight is not None:
            out *= weight._data
        if bias is not None:
            out += bias._data
        ctx.save_for_backward(x, weight)
        ctx.stats, ctx.axes, ctx.eps = (mean, invstd), axes, eps
        ctx.bias_dtype = None if bias is None else bias._dtype
        out = row_major(xp, out)
        return new_result(out.astype(x._data.dtype) if half else out, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, weight = ctx.saved_tensors
        axes = ctx.axes
        lead = tuple(range(x.ndim - len(axes)))
        if not grad_mode._state.enabled and x._dtype in (dtypes.float32, dtypes.float64):
            return _layer_norm_backward_arrays(ctx, grad, x, weight, lead)
        if not grad_mode._state.enabled and x._dtype in _HALF_DTYPES and type(x._data) is np.ndarray:
            return _layer_norm_backward_half(ctx, grad, x, weight, lead)
        if grad_mode.is_grad_enabled():  # create_graph: statistics as operations of x
            mean = x.mean(axes, keepdim=True)
            invstd = ((x - mean) ** 2).mean(axes, keepdim=True).add(ctx.eps).rsqrt()
        else:
            mean, invstd = _const(x, ctx.stats[0]), _const(x, ctx.stats[1])
        xhat = (x - mean) * invstd
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            g = grad * weight if weight is not None else grad
            gx = (g - g.mean(axes, keepdim=True) - xhat * (g * xhat).mean(axes, keepdim=True)) * invstd
        if ctx.needs_input_grad[1]:
            gw = (grad * xhat).sum(lead) if lead else grad * xhat
        if ctx.needs_input_grad[2]:
            gb = grad.sum(lead) if lead else grad
        return gx, gw, gb


def _mean_over(xp: Any, a: Any, axes: tuple, n: int) -> Any:
    """The mean over ``axes`` (``n`` numbers each), kept as dimensions of size 1.  For NumPy's
    float32 and float64, ``sum / n``: ``xp.mean``'s wrapper costs more than the sum on a small batch.
    Half precision keeps ``xp.mean``, which adds up in float32 (a float16 sum would not)."""
    if type(a) is np.ndarray and a.dtype in (np.float32, np.float64):  # (CuPy's own mean is no slower)
        return xp.sum(a, axis=axes, keepdims=True) / n
    return xp.mean(a, axis=axes, keepdims=True)


_HALF_DTYPES = (dtypes.bfloat16, dtypes.float16)


def _layer_norm_backward_half(ctx: Any, grad: Tensor, x: Tensor, weight: Optional[Tensor], lead: tuple) -> tuple:
    """LayerNorm's backward for bfloat16/float16 tensors: PyTorch's CPU kernel computes the
    gradients in float32 and rounds each once, to the dtype of what it is the gradient of (a
    float32 weight of a bfloat16 input, as under autocast, gets a float32 gradient)."""
    def f32(t: Optional[Tensor]) -> Optional[Tensor]:
        return None if t is None else Tensor._make(t._data.astype(np.float32), t._device)

    def back(g: Optional[Tensor], dtype: Any) -> Optional[Tensor]:
        return None if g is None else Tensor._make(g._data.astype(dtype._np), g._device)
    mean, invstd = ctx.stats
    if weight is None or weight._dtype is x._dtype:  # not "mixed": PyTorch keeps the statistics in x's dtype
        mean, invstd = (v.astype(x._data.dtype).astype(np.float32) for v in (mean, invstd))
    gx, gw, gb = _layer_norm_backward_arrays(ctx, f32(grad), f32(x), f32(weight), lead, (mean, invstd))
    return (back(gx, x._dtype), back(gw, weight._dtype) if weight is not None else None,
            back(gb, ctx.bias_dtype or x._dtype))


def _layer_norm_backward_arrays(ctx: Any, grad: Tensor, x: Tensor, weight: Optional[Tensor], lead: tuple,
                                stats: Optional[tuple] = None) -> tuple:
    """LayerNorm's backward without recording (the common ``loss.backward()``): the formulas
    above, in the same order, on the arrays: a dozen tensor operations fewer per layer."""
    xp = x._backend.xp
    axes = ctx.axes
    mean, invstd = stats or ctx.stats
    g0 = grad._data
    xhat = x._data - mean
    xhat *= invstd
    gx = gw = gb = None
    if ctx.needs_input_grad[0]:
        n = math.prod(g0.shape[d] for d in axes)
        g = g0 * weight._data if weight is not None else g0
        gx = g - _mean_over(xp, g, axes, n)
        gx -= xhat * _mean_over(xp, g * xhat, axes, n)
        gx *= invstd
        gx = new_result(gx, grad)
    if ctx.needs_input_grad[1]:
        gw = new_result(xp.sum(g0 * xhat, axis=lead) if lead else g0 * xhat, grad)
    if ctx.needs_input_grad[2]:
        gb = new_result(xp.sum(g0, axis=lead), grad) if lead else grad
    return gx, gw, gb


def layer_norm(input: Tensor, normalized_shape: tuple[int, ...], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Layer normalisation over the trailing ``normalized_shape`` dimensions (see :class:`nn.LayerNorm`).

    ``normalized_shape`` is a list or tuple of ints: one int, or a float in it, is PyTorch's TypeError
    (``nn.LayerNorm(4)`` makes the tuple; ``F.layer_norm(x, 4)`` does not)."""
    shape = tuple(map(operator.index, normalized_shape))
    check_same_device(*(t for t in (input, weight, bias) if t is not None))
    k = len(shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={_sizes(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{_sizes(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{_sizes(t.shape)} and normalized_shape = {_sizes(shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"LayerNormKernelImpl\" not implemented for '{_scalar_name(input)}'")
    return LayerNorm.apply(input, weight, bias, k=k, eps=eps)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """Divide each slice along ``dim`` by its p-norm, so it has length 1.

    ``eps`` guards against dividing by zero: the norm is clamped to at least eps."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


# ============================================================================ embedding
class Embedding(Function):
    """Row ``i`` of ``weight`` for each index ``i``: a lookup table.  Backward adds each
    position's gradient into the row it came from (rows used twice get both)."""

    _backward_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, weight: Tensor, indices: Any = None, padding_idx: int = -1,
                scale_grad_by_freq: bool = False) -> Tensor:
        xp = weight._backend.xp
        idx = indices._data
        rows = xp.take(weight._data, xp.reshape(idx, (-1,)), axis=0)
        ctx.indices, ctx.num_weights = indices, weight.shape[0]
        ctx.padding_idx, ctx.scale = padding_idx, scale_grad_by_freq
        return new_result(xp.reshape(rows, tuple(idx.shape) + (weight.shape[1],)), weight)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return EmbeddingDenseBackward.apply(grad, indices=ctx.indices, num_weights=ctx.num_weights,
                                            padding_idx=ctx.padding_idx, scale=ctx.scale)


def _index_counts(be: Any, flat: Any, n: int) -> Any:
    """How often each row index occurs (for ``scale_grad_by_freq``), as a float per position."""
    xp = be.xp
    counts = be.scatter_add(xp.zeros((n,), dtype=xp.float64, device=be.native_device), flat,
                            xp.ones(flat.shape, dtype=xp.float64, device=be.native_device))
    return xp.take(counts, flat, axis=0)


class EmbeddingDenseBackward(Function):
    """The gradient of the table: ``grad`` rows added at their indices, none into ``padding_idx``."""

    _backward_name = "EmbeddingDenseBackwardBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, indices: Any = None, num_weights: int = 0, padding_idx: int = -1,
                scale: bool = False) -> Tensor:
        be = grad._backend
        xp = be.xp
        dim = grad.shape[-1]
        flat = xp.reshape(indices._data, (-1,))
        rows = xp.reshape(grad._data, (-1, dim))
        if scale:
            rows = rows / xp.astype(xp.reshape(_index_counts(be, flat, num_weights), (-1, 1)), rows.dtype)
        out = be.scatter_add(xp.zeros((num_weights, dim), dtype=rows.dtype, device=be.native_device), flat, rows)
        if padding_idx >= 0:
            out[padding_idx, :] = 0
        ctx.indices, ctx.padding_idx, ctx.scale, ctx.num_weights = indices, padding_idx, scale, num_weights
        return new_result(out, grad)

    @staticmethod
    def backward(ctx, gg: Tensor) -> tuple:
        be = gg._backend
        xp = be.xp
        out = Embedding.apply(gg, indices=ctx.indices)
        flat = xp.reshape(ctx.indices._data, (-1,))
        factor = xp.astype(flat != ctx.padding_idx, gg._data.dtype)
        if ctx.scale:
            factor = factor / xp.astype(_index_counts(be, flat, ctx.num_weights), factor.dtype)
        factor = xp.reshape(factor, tuple(ctx.indices.shape) + (1,))
        return out * _const(gg, factor)


def _embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescale, in place, each looked-up row whose ``norm_type``-norm exceeds ``max_norm``."""
    xp = weight._backend.xp
    rows = np.unique(to_numpy(indices._data))
    if rows.size == 0:
        return
    sel = weight._backend.asarray(rows, dtypes.int64)
    w = xp.take(weight._data, sel, axis=0)
    norms = xp.sum(xp.abs(w) ** norm_type, axis=1) ** (1.0 / norm_type)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), xp.ones_like(norms))
    weight._data[sel, ...] = w * xp.reshape(scale, (-1, 1))
    weight._version_counter[0] += 1


def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None, max_norm: Optional[float] = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Look up rows of ``weight`` (num_embeddings, dim) by the integer ``input``: output shape
    ``input.shape + (dim,)``.  The ``padding_idx`` row receives no gradient."""
    if padding_idx is not None:
        padding_idx = operator.index(padding_idx)  # (a float is PyTorch's TypeError)
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{_scalar_name(input)}Tensor instead (while checking arguments "
                           "for embedding)")
    if sparse:
        raise NotImplementedError("learntorch has no sparse tensors: use sparse=False (the gradient is then dense, "
                                  "with the same values)")
    check_same_device(weight, input)
    if input.numel():
        xp = input._backend.xp
        if bool(xp.any(input._data < 0)) or bool(xp.any(input._data >= weight.shape[0])):
            raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return Embedding.apply(weight, indices=input, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Integer class indices as int64 one-hot rows: shape ``tensor.shape + (num_classes,)``."""
    if tensor._dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    be = tensor._backend
    xp = be.xp
    if tensor.numel() == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return Tensor._zeros(tuple(tensor.shape) + (num_classes,), dtypes.int64, tensor._device)
    if int(xp.min(tensor._data)) < 0:
        raise RuntimeError("Class values must be non-negative.")
    top = int(xp.max(tensor._data))
    if num_classes == -1:
        num_classes = top + 1
    elif top >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = xp.arange(num_classes, dtype=xp.int64, device=be.native_device)
    return new_result(xp.astype(xp.expand_dims(tensor._data, axis=-1) == classes, xp.int64), tensor)


# ============================================================================ regression losses
def _broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    shape = infer_size(tuple(input.shape), tuple(target.shape))
    return (input if tuple(input.shape) == shape else input.expand(shape),
            target if tuple(target.shape) == shape else target.expand(shape))


def _warn_size(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warn_always.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                         "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                         "same size.", stacklevel=3)


def _weighted(errors: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    errors = errors * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    if reduction == "mean":
        return errors.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


class MseLoss(Function):
    """``(x - y)²``, reduced; backward ``2(x - y)`` (divided by the count for 'mean')."""

    _backward_name = "MseLossBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, y: Tensor, reduction: str = "mean") -> Tensor:
        a, b, _ = binary_operands(x, y)
        d = a - b
        ctx.save_for_backward(x, y)
        ctx.reduction = reduction
        return new_result(_reduce_array(x._backend.xp, d * d, reduction), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        g = (x - y) * (_scale_grad(grad, ctx.reduction, x.numel()) * 2)
        gx = g if ctx.needs_input_grad[0] else None
        gy = -g if ctx.needs_input_grad[1] else None
        return (None if gx is None else gx.to(x.dtype), None if gy is None else gy.to(y.dtype))


def mse_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
             reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    """Mean squared error ``mean((input - target)²)`` (or its sum, or element-wise with 'none')."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(mse_loss, input, target, size_average, reduce, reduction, weight)
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted((input - target) ** 2, weight, input, reduction)
    _require_floating("mse_cpu", input, target)
    return MseLoss.apply(input, target, reduction=_get_reduction(reduction))


def l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
            reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    """Mean absolute error ``mean(|input - target|)`` (composed of ``sub``, ``abs``, ``mean``, as in PyTorch)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(l1_loss, input, target, size_average, reduce, reduction, weight)
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted((input - target).abs(), weight, input, reduction)
    return _reduce((input - target).abs(), _get_reduction(reduction))


# ============================================================================ classification losses
class NllLoss(Function):
    """Negative log likelihood: ``-input[n, target[n]]`` (times the class weight), skipping
    ``ignore_index``; 'mean' divides by the total weight of the counted targets.

    Backward puts ``-weight / total`` at each target's class and zero elsewhere."""

    _backward_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, target: Any = None, weight: Any = None, reduction: str = "mean",
                ignore_index: int = -100) -> Tensor:
        be = x._backend
        xp = be.xp
        a, t = x._data, target._data
        if a.ndim == 1:  # one sample without a batch dimension
            a, t = xp.reshape(a, (1,) + a.shape), xp.reshape(t, (1,))
        if t.dtype != xp.int64:
            t = xp.astype(t, xp.int64)
        c = a.shape[1]
        lo, hi = (int(xp.min(t)), int(xp.max(t))) if t.size else (0, -1)
        if 0 <= lo and hi < c and not lo <= ignore_index <= hi:
            all_valid, safe, valid = True, t, None  # every target is a class, none is ignored: the usual batch
        else:
            valid = t != ignore_index
            all_valid = t.size == 0 or bool(xp.all(valid))
            safe = t if all_valid else xp.where(valid, t, xp.zeros_like(t))  # ignored positions point at class 0
            if t.size and (int(xp.min(safe)) < 0 or int(xp.max(safe)) >= c):
                bad = to_numpy(valid & ((t < 0) | (t >= c)))
                raise IndexError(f"Target {to_numpy(t)[bad][0]} is out of bounds.")
        if be.is_numpy and a.ndim == 2:
            picked = a[np.arange(a.shape[0]), safe]
        else:
            picked = xp.squeeze(xp.take_along_axis(a, xp.expand_dims(safe, axis=1), axis=1), axis=1)
        # the weight of each target (None: all 1, the common case)
        if weight is None and all_valid:
            wt = None
        else:
            wt = xp.astype(t != ignore_index if valid is None else valid, a.dtype)
        if weight is not None:
            wt = wt * xp.reshape(xp.take(weight._data, xp.reshape(safe, (-1,)), axis=0), safe.shape)
        losses = -picked if wt is None else -picked * wt
        total = None
        if reduction == "none":
            out = xp.reshape(losses, tuple(target.shape))
        else:
            out = xp.sum(losses)
            if reduction == "mean":
                total = float(picked.size) if wt is None else float(xp.sum(wt))
                out = out / total if total else out * math.nan  # nothing counted: nan, as in PyTorch
        ctx.reduction, ctx.safe, ctx.wt, ctx.total = reduction, safe, wt, total
        ctx.input_shape = x._data.shape
        return new_result(out, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        be = grad._backend
        xp = be.xp
        safe, wt, shape = ctx.safe, ctx.wt, ctx.input_shape
        shape2 = (safe.shape[0], shape[-1] if len(shape) == 1 else shape[1]) + tuple(safe.shape[1:])
        if be.is_numpy and wt is None and len(shape2) == 2 and not grad_mode._state.enabled:
            # The usual batch (no class weights, every target counted), plainly backpropagated:
            # PyTorch's ``-(grad / total)`` written at each sample's target class, in one assignment.
            g = grad._data
            coef = np.zeros(shape2, dtype=g.dtype)
            coef[np.arange(shape2[0]), safe] = -(g / ctx.total) if ctx.reduction == "mean" else -g
            return _const(grad, coef.reshape(shape))
        dt = grad._data.dtype
        # (0 - wt, not -wt: an ignored target's weight 0 must give +0, as in PyTorch, not -0)
        scale = xp.full(safe.shape, -1.0, dtype=dt, device=be.native_device) if wt is None else 0.0 - wt
        if ctx.reduction == "mean":
            scale = scale / ctx.total if ctx.total != 0 else xp.zeros_like(scale)
        if be.is_numpy:
            coef = np.zeros(shape2, dtype=scale.dtype)
            if coef.ndim == 2:
                coef[np.arange(shape2[0]), safe] = scale
            else:
                np.put_along_axis(coef, safe[:, None], scale[:, None], axis=1)
        else:
            classes = xp.reshape(xp.arange(shape2[1], dtype=xp.int64, device=be.native_device),
                                 (1, shape2[1]) + (1,) * (len(shape2) - 2))
            coef = xp.astype(xp.expand_dims(safe, axis=1) == classes, scale.dtype) * xp.expand_dims(scale, axis=1)
        coef = xp.reshape(coef, shape)
        if ctx.reduction == "none" and grad.ndim:
            grad = grad.unsqueeze(1) if len(shape) > 1 else grad
        if not grad_mode._state.enabled:  # plain backward: scale in place, nothing to record
            coef *= grad._data
            return _const(grad, coef)
        return _const(grad, coef) * grad


class NllLoss2d(NllLoss):
    """``nll_loss`` of a per-pixel prediction (N, C, H, W) against targets (N, H, W)."""

    _backward_name = "NllLoss2DBackward0"


def _check_target_dtype(target: Tensor, input: Optional[Tensor] = None) -> None:
    if target._dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_scalar_name(target)}")
    if input is not None:  # then the scores: nll_loss has float kernels only
        _require_floating("nll_loss_out_frame" if input.ndim <= 2 else "nll_loss2d_forward_out_frame", input)


def _require_floating(kernel: str, input: Tensor, target: Optional[Tensor] = None) -> None:
    """PyTorch's loss kernels are written for floating-point numbers only: on integer (or bool)
    tensors they raise NotImplementedError naming the kernel and the dtype, where NumPy would
    happily compute in integers.  (One float operand is enough: the other is promoted.)"""
    if not (input._dtype.is_floating_point or (target is not None and target._dtype.is_floating_point)):
        dt = input._dtype if target is None else dtypes.result_type(input, target)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.type_name(dt)}'")


def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
             ignore_index: int = -100, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of class-index targets, given log-probabilities ``input``
    (N, C) or (N, C, d1, …): ``-input[n, target[n]]``, averaged over the counted targets."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(nll_loss, input, target, weight, size_average, ignore_index, reduce, reduction)
    reduction = _get_reduction(reduction, size_average, reduce)
    check_same_device(input, target, *(() if weight is None else (weight,)))
    # (the checks read the arrays' shapes: every classifier's step comes through here)
    shape, t_shape = input._data.shape, target._data.shape
    ndim, t_ndim = len(shape), len(t_shape)
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim != 1 and shape[0] != (t_shape[0] if t_ndim else 1):
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target batch_size "
                         f"({t_shape[0] if t_ndim else 1}).")
    if weight is not None and weight._dtype is not input._dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(input)} but found {_scalar_name(weight)}")
    kw = dict(weight=weight, reduction=reduction, ignore_index=ignore_index)
    if ndim <= 2:
        if t_ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if not (ndim == 1 and t_ndim == 0) and shape[0] != t_shape[0]:
            raise RuntimeError(f"size mismatch (got input: {_sizes(input.shape)}, target: {_sizes(target.shape)})")
        c = shape[-1]
        if weight is not None and (weight.ndim != 1 or weight.numel() != c):
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got "
                               f"weight tensor of shape: {_sizes(weight.shape)}")
        _check_target_dtype(target, input)
        if ndim == 1 and t_ndim == 1:  # (C,) with a target of one element
            target = target.reshape(())
        return NllLoss.apply(input, target=target, **kw)
    if ndim == 4:
        if t_ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {target.ndim}")
        if weight is not None and weight.numel() != input.shape[1]:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if tuple(input.shape[2:]) != tuple(target.shape[1:]):
            raise RuntimeError(f"size mismatch (got input: {_sizes(input.shape)} , target: {_sizes(target.shape)}")
        _check_target_dtype(target, input)
        return NllLoss2d.apply(input, target=target, **kw)
    # 3-D or more than 4-D: folded to (N, C, 1, -1), as PyTorch's nll_loss_nd does
    n, c = input.shape[0], input.shape[1]
    out_size = (n,) + tuple(input.shape[2:])
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {_sizes(out_size)}, got {_sizes(target.shape)}")
    if weight is not None and weight.numel() != c:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    _check_target_dtype(target, input)
    x4 = input.reshape(n, c, 1, -1) if input.numel() else input.reshape(n, c, 0, 0)
    t3 = target.reshape(n, 1, -1) if target.numel() else target.reshape(n, 0, 0)
    out = NllLoss2d.apply(x4, target=t3, **kw)
    return out.view(*out_size) if reduction == "none" else out


def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                  size_average: Optional[bool] = None, ignore_index: int = -100, reduce: Optional[bool] = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy between raw scores (logits) ``input`` (N, C, …) and ``target``:

    * class indices (N, …) of dtype int64: ``nll_loss(log_softmax(input, 1), target)``;
    * class probabilities (same shape as ``input``): ``-Σ_c target·log_softmax(input)``.

    ``label_smoothing=ε`` mixes the target with the uniform distribution:
    ``(1-ε)·loss + ε·mean over classes of -log_softmax``."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(cross_entropy, input, target, weight, size_average, ignore_index, reduce, reduction,
                                 label_smoothing)
    reduction = _get_reduction(reduction, size_average, reduce)
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:
        if not target.is_floating_point():
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_scalar_name(target)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        return _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim)
    return nll_loss(log_softmax(input, class_dim), target, weight, None, ignore_index, None, reduction)


def _class_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(*shape)


def _cross_entropy_smoothed(input: Tensor, target: Tensor, weight: Optional[Tensor], reduction: str,
                            ignore_index: int, eps: float, class_dim: int) -> Tensor:
    """PyTorch's ``cross_entropy_loss_label_smoothing``, step for step."""
    n_classes = input.shape[class_dim]
    logp = log_softmax(input, class_dim)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    ignore_mask = target == ignore_index
    if weight is not None:
        smooth = -(logp * _class_view(weight, logp.ndim, class_dim)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore_mask, 0.0)
    if reduction == "mean":
        if weight is not None:
            ret = smooth.sum() / weight.gather(0, target.masked_select(~ignore_mask).flatten()).sum()
        else:
            ret = smooth.sum() / (~ignore_mask).sum()
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return pointwise.MulScalar.apply(nll, 1 - eps) + pointwise.MulScalar.apply(ret, eps / n_classes)


def _cross_entropy_probabilities(input: Tensor, target: Tensor, weight: Optional[Tensor], reduction: str,
                                 eps: float, class_dim: int) -> Tensor:
    """PyTorch's ``cross_entropy_loss_prob_target``: ``-Σ target·log_softmax(input)``."""
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or "
                           f"no classes but got weight tensor of shape: {_sizes(weight.shape)}")
    logp = log_softmax(input, class_dim)
    if eps > 0.0:
        if eps > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {eps:g}")
        target = target * (1 - eps) + eps / n_classes
    prod = logp * target
    if weight is not None:
        prod = prod * _class_view(weight, logp.ndim, class_dim)
    if reduction == "mean":
        if input.numel() == 0:
            return -prod.sum() * float("nan")
        return pointwise.DivScalar.apply(-prod.sum(), input.numel() / n_classes)  # (DivBackward1, as PyTorch's)
    if reduction == "sum":
        return -prod.sum()
    return -prod.sum(class_dim)


# ============================================================================ binary losses
def _log_sigmoid(x: Tensor) -> Tensor:
    """``log σ(x) = -(max(-x, 0) + log(1 + exp(-|x|)))``, without overflow."""
    return -((-x).clamp(min=0) + (-x.abs()).exp().log1p())


class BinaryCrossEntropyWithLogits(Function):
    """``-[pos_weight·y·log σ(x) + (1-y)·log(1-σ(x))]`` from the logit ``x``, computed as
    ``(1-y)·x - (1 + (pos_weight-1)·y)·log σ(x)`` (stable for any ``x``)."""

    _backward_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, y: Tensor, weight: Any = None, pos_weight: Any = None,
                reduction: str = "mean") -> Tensor:
        xp = x._backend.xp
        a, b, _ = binary_operands(x, y)
        log_sig = -(xp.maximum(-a, 0.0) + xp.log1p(xp.exp(-xp.abs(a))))
        if pos_weight is not None:
            loss = (1 - b) * a - ((pos_weight._data - 1) * b + 1) * log_sig
        else:
            loss = (1 - b) * a - log_sig
        if weight is not None:
            loss = loss * weight._data
        ctx.save_for_backward(x, y)
        ctx.weight, ctx.pos_weight, ctx.reduction = weight, pos_weight, reduction
        return new_result(_reduce_array(xp, loss, reduction), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        w, pw = ctx.weight, ctx.pos_weight
        g = _scale_grad(grad, ctx.reduction, x.numel())
        if w is not None:
            g = g * w
        gx = gy = None
        if ctx.needs_input_grad[0]:
            gx = ((pw - 1) * y + 1) * x.sigmoid() - pw * y if pw is not None else x.sigmoid() - y
            gx = gx * g
        if ctx.needs_input_grad[1]:
            gy = _log_sigmoid(-x) - _log_sigmoid(x) * pw if pw is not None else -x
            gy = gy * g
        return gx, gy


def _type_name(t: Tensor) -> str:
    """PyTorch's name for a tensor's element type in messages: "Float", "Long", "Bool" ..."""
    return t.type().rsplit(".", 1)[1][:-len("Tensor")]


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                     size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                                     reduction: str = "mean", pos_weight: Optional[Tensor] = None) -> Tensor:
    """Binary cross-entropy of the logits ``input`` (no sigmoid layer before it: it is built in,
    stably).  ``pos_weight`` weighs the positive examples (per class, broadcast)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(binary_cross_entropy_with_logits, input, target, weight, size_average, reduce,
                                 reduction, pos_weight)
    reduction = _get_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    _require_floating("log_sigmoid_cpu", input)
    if not target.dtype.is_floating_point:  # labels made with torch.tensor([1, 0]): a common slip
        raise RuntimeError(f"result type {_type_name(input)} can't be cast to the desired output type "
                           f"{_type_name(target)}\n"
                           "Binary cross-entropy needs float targets (0.0 or 1.0): use target.float().")
    _check_weighs(pos_weight, tuple(target.shape), weight_first=True)  # PyTorch's ``(pos_weight - 1) * target``
    _check_weighs(weight, tuple(input.shape), weight_first=False)  # and ``loss.mul_(weight)``
    return BinaryCrossEntropyWithLogits.apply(input, target, weight=weight, pos_weight=pos_weight,
                                              reduction=reduction)


def _check_weighs(weight: Optional[Tensor], shape: tuple[int, ...], weight_first: bool) -> None:
    """A weight must broadcast to the loss's ``shape`` without growing it (PyTorch applies it in
    place): PyTorch's RuntimeErrors, checked before NumPy gives its ValueError."""
    if weight is None:
        return
    out = infer_size(tuple(weight.shape), shape) if weight_first else infer_size(shape, tuple(weight.shape))
    if out != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(out)}")


class BinaryCrossEntropy(Function):
    """``-[y·log x + (1-y)·log(1-x)]`` of probabilities ``x``, each log clamped at -100 (as PyTorch)."""

    _backward_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, y: Tensor, weight: Any = None, reduction: str = "mean") -> Tensor:
        xp = x._backend.xp
        a, b, _ = binary_operands(x, y)
        if bool(xp.any(~((a >= 0) & (a <= 1)))):
            raise RuntimeError("all elements of input should be between 0 and 1")
        if bool(xp.any(~((b >= 0) & (b <= 1)))):  # (a probability too: PyTorch checks it, NaN included)
            raise RuntimeError("all elements of target should be between 0 and 1")
        with np.errstate(all="ignore"):  # log(0) = -inf, then clamped
            loss = (b - 1) * xp.maximum(xp.log1p(-a), -100.0) - b * xp.maximum(xp.log(a), -100.0)
        if weight is not None:
            loss = loss * weight._data
        ctx.save_for_backward(x, y)
        ctx.weight, ctx.reduction = weight, reduction
        return new_result(_reduce_array(xp, loss, reduction), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        g = _scale_grad(grad, ctx.reduction, x.numel())
        if ctx.weight is not None:
            g = g * ctx.weight
        gx = (x - y) / ((1 - x) * x).clamp(min=1e-12) * g if ctx.needs_input_grad[0] else None
        gy = ((1 - x).log() - x.log()) * g if ctx.needs_input_grad[1] else None
        return gx, gy


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                         size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                         reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities ``input`` in [0, 1] (after a sigmoid).  Prefer
    :func:`binary_cross_entropy_with_logits`, which is stable for large logits."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(binary_cross_entropy, input, target, weight, size_average, reduce, reduction)
    reduction = _get_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    _require_floating("binary_cross_entropy", input, target)
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"Found dtype {_type_name(target)} but expected {_type_name(input)}\nBinary "
                           "cross-entropy needs float targets (0.0 or 1.0): use target.float().")
    if weight is not None:
        shape = infer_size(tuple(target.shape), tuple(weight.shape))
        weight = weight.expand(shape)
    return BinaryCrossEntropy.apply(input, target, weight=weight, reduction=reduction)


# ============================================================================ more losses and helpers
# Mostly composed of tensor operations (so autograd needs nothing new); where PyTorch has a fused
# kernel whose grad_fn a learner sees on every loss (smooth L1, Huber), one Function with its name.
def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``softmax(-input)``: small scores get the large probabilities."""
    return softmax(-input, dim, _stacklevel + 1, dtype)


class _RobustLoss(Function):
    """Smooth L1 (``huber=False``) and Huber loss in one node, as PyTorch's fused kernels:
    with ``d = input - target``, ``0.5·d²/β`` (Huber: ``0.5·d²``) where ``|d| < β``, linear beyond.
    The gradient is ``d/β`` (Huber: ``d``) inside and ``±1`` (Huber: ``±δ``) outside."""

    @staticmethod
    def forward(ctx, x: Tensor, y: Tensor, reduction: str = "mean", beta: float = 1.0, huber: bool = False) -> Tensor:
        a, b, _ = binary_operands(x, y)
        xp = x._backend.xp
        d = a - b
        ad = xp.abs(d)
        if huber:
            loss = xp.where(ad < beta, 0.5 * d * d, beta * (ad - 0.5 * beta))
        else:
            loss = ad if beta == 0 else xp.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)
        ctx.save_for_backward(x, y)
        ctx.options = (reduction, beta, huber)
        return new_result(_reduce_array(xp, loss.astype(a.dtype, copy=False), reduction), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        reduction, beta, huber = ctx.options
        d = x - y
        limit = beta if huber else 1.0
        inner = d if huber else (d / beta if beta > 0 else d * 0)
        slope = pointwise.where(d.abs() < beta, inner, d.sign() * limit)
        g = slope * _scale_grad(grad, reduction, x.numel())
        return (g if ctx.needs_input_grad[0] else None), (-g if ctx.needs_input_grad[1] else None)


SmoothL1 = type("SmoothL1", (_RobustLoss,), {"_backward_name": "SmoothL1LossBackward0"})
Huber = type("Huber", (_RobustLoss,), {"_backward_name": "HuberLossBackward0"})


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
                   reduce: Optional[bool] = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Quadratic ``0.5·d²/β`` for small errors ``d = |input - target| < β``, linear ``d - β/2``
    beyond: the gradient of an outlier is capped at 1."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(smooth_l1_loss, input, target, size_average, reduce, reduction, beta)
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:  # PyTorch: the quadratic part vanishes, and the loss is computed as l1_loss
        return l1_loss(input, target, reduction=reduction)
    input, target = _broadcast_pair(input, target)
    _require_floating("smooth_l1_cpu", input, target)
    return SmoothL1.apply(input, target, reduction=_get_reduction(reduction), beta=float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Optional[Tensor] = None) -> Tensor:
    """``0.5·d²`` for ``d < δ``, ``δ·(d - δ/2)`` beyond (smooth_l1_loss times β = δ)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(huber_loss, input, target, reduction, delta, weight)
    _warn_size(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        d = (input - target).abs()
        return _weighted(pointwise.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), weight, input, reduction)
    _require_floating("huber_cpu", input, target)
    return Huber.apply(input, target, reduction=_get_reduction(reduction), beta=float(delta), huber=True)


def kl_div(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL(target ‖ exp(input)) with ``input`` given as log-probabilities: ``Σ t·(log t - input)``.
    ``reduction='batchmean'`` divides the sum by the batch size -- the true KL divergence;
    'mean' divides by the number of elements (PyTorch warns about it, and so does this)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(kl_div, input, target, size_average, reduce, reduction, log_target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction == "mean":
        warn_always.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                         "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                         "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                         stacklevel=2)
    if not (input._dtype.is_floating_point and target._dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # PyTorch's ``xlogy(t, t) - t·input``: t·log t is 0 where t = 0 (its limit), and nan for t < 0
        loss = pointwise_extra.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.size(0) if input.dim() > 0 else loss.sum()
    return _reduce(loss, _get_reduction(reduction))


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``x1·x2 / (‖x1‖·‖x2‖)`` along ``dim`` (each norm at least ``eps``, so zero vectors give 0).

    As in PyTorch, each input is divided by its norm *before* the dot product, so the rounding is
    PyTorch's (``cosine_similarity(ones(3), ones(3), dim=0)`` is 0.99999994, not 1); the floor
    at ``eps`` is applied outside autograd (the gradient is that of the plain norm)."""
    if x1.shape != x2.shape:  # broadcast first: ``dim`` counts in the common shape
        shape = infer_size(x1.shape, x2.shape)
        x1, x2 = x1.expand(*shape), x2.expand(*shape)
    n1 = x1.norm(dim=dim, keepdim=True)
    n2 = x2.norm(dim=dim, keepdim=True)
    n1 = n1 + (n1.clamp(min=eps) - n1).detach()
    n2 = n2 + (n2.clamp(min=eps) - n2).detach()
    return ((x1 / n1) * (x2 / n2)).sum(dim)





def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Channel-wise dropout: one Bernoulli draw per ``(sample, channel)``, broadcast over the
    spatial positions (PyTorch's ``bernoulli_(1 - p)`` on an ``(N, C, 1, 1)`` tensor, then ``/ (1 - p)``).
    A 3-D input is taken as ``(N, C, L)`` with a warning, as PyTorch still does."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (3, 4):
        warn_always.warn(f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will "
                         "result in an error in a future release. To retain the behavior and silence this warning, "
                         "please use dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
                         "inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension "
                         "(i.e. 3D or 4D inputs).", stacklevel=2)
    if input.dim() == 3:
        warn_always.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                         "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                         "This behavior will change in a future release to interpret the input as one without a "
                         "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                         "please switch to using dropout1d instead.", stacklevel=2)
    # A 3-D input is (N, C, L) here, as in PyTorch (not an unbatched (C, H, W)): one draw per (n, c).
    # (The recipe of the other variants: an integer input fails as in PyTorch, on the in-place division.)
    return _dropout_impl(input, p, training, inplace, per_channel=True, alpha=False)


class PreluKernel(Function):
    """``x`` where positive, ``w·x`` elsewhere, as one node (PyTorch's ``PreluKernelBackward0``,
    whose two inputs are ``x`` and the slopes: ``(None, 0)`` for slopes that need no gradient).
    ``w`` comes already shaped to broadcast over ``x`` (see :func:`prelu`).

    Backward: ∂/∂x is ``grad`` where ``x > 0`` and ``w·grad`` elsewhere (at 0 too, as in
    PyTorch); ∂/∂w is ``x·grad`` where ``x ≤ 0``, summed back to ``w``'s shape.  Written with
    tensor operations, so it can be differentiated again."""

    _backward_name = "PreluKernelBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, w: Tensor) -> Tensor:
        ctx.save_for_backward(x, w)
        return pointwise.where(x > 0, x, w * x)  # (forward records nothing: these are plain values)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        positive = x > 0
        gx = pointwise.where(positive, grad, w * grad) if ctx.needs_input_grad[0] else None
        gw = None
        if ctx.needs_input_grad[1]:
            gw = pointwise.where(positive, 0.0, x * grad).sum_to_size(w.shape)
        return gx, gw


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight·x`` elsewhere; ``weight`` holds one slope per channel (dim 1)
    or a single one."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(prelu, input, weight)
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    # the slopes as (1, C, 1, ...) (or all ones), to broadcast over the channels; a view of the
    # weight, as PyTorch's (so its gradient reaches the weight through ViewBackward0)
    shape = tuple(weight.numel() if d == 1 else 1 for d in range(input.dim()))
    w = weight if tuple(weight.shape) == shape else weight.reshape(shape)
    return PreluKernel.apply(input, w)


# PyTorch's TypeError for a non-tensor where a tensor is needed (``F.relu([1.0])``), checked
# after a call fails (tensor_arguments.py); the calls between these functions go through it too.
check_namespace(globals(), __name__, __all__, attribute_errors="""
binary_cross_entropy binary_cross_entropy_with_logits dropout1d dropout2d dropout3d embedding_bag glu group_norm
huber_loss instance_norm interpolate l1_loss local_response_norm log_softmax margin_ranking_loss mse_loss normalize
sigmoid smooth_l1_loss softmax softmin softsign tanh tanhshrink triplet_margin_with_distance_loss upsample
upsample_bilinear upsample_nearest""", python_flags=True)  # (functions that PyTorch writes in Python: see check_namespace)
