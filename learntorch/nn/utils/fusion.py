"""Folding an eval-mode BatchNorm into the Conv or Linear layer before it (融合).

In evaluation mode BatchNorm is a fixed affine map per channel::

    y = (x - running_mean) / sqrt(running_var + eps) * gamma + beta

and a convolution (or linear layer) followed by a per-channel affine map is again
a convolution: scale each output channel's filter by ``s = gamma / sqrt(var + eps)``
and set the bias to ``(b - mean) * s + beta``.  The fused layer gives the same
outputs with one layer fewer: a common step before deploying a model.

Only valid for *inference*: in training mode BatchNorm uses the batch's statistics,
which no fixed weight can reproduce, so both layers must be in eval mode.
"""
from __future__ import annotations

import copy
from typing import Optional, TypeVar

from ...creation import ones_like, zeros_like
from ...tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]

ConvT = TypeVar("ConvT", bound=Module)
LinearT = TypeVar("LinearT", bound=Module)


def fuse_conv_bn_eval(conv: ConvT, bn: Module, transpose: bool = False) -> ConvT:
    """A copy of ``conv`` whose weight and bias include ``bn`` (both in eval mode).
    ``transpose=True`` for a ``ConvTranspose``, whose output channels are its weight's dim 1."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Optional[Tensor], bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                         bn_w: Optional[Tensor], bn_b: Optional[Tensor],
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The fused ``(weight, bias)`` as Parameters (in the conv's dtypes).  A missing conv bias
    counts as zeros, a BatchNorm without ``affine`` as ``gamma=1, beta=0``."""
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    bn_var_rsqrt = (bn_rv + bn_eps).rsqrt()
    # the per-channel scale broadcast along the output-channel dimension of the weight
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (len(conv_w.shape) - 2)
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: LinearT, bn: Module) -> LinearT:
    """A copy of ``linear`` whose weight and bias include ``bn`` (both in eval mode).  ``bn``
    must have ``linear.out_features`` features, or 1 (one scale for every output)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Optional[Tensor], bn_rm: Tensor, bn_rv: Tensor,
                           bn_eps: float, bn_w: Tensor, bn_b: Tensor) -> tuple[Parameter, Parameter]:
    """The fused ``(weight, bias)`` of a Linear followed by an eval-mode BatchNorm1d."""
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    bn_scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
