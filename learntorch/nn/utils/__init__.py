"""``learntorch.nn.utils``: helpers around modules and sequences.

* ``clip_grad``: gradient clipping, ``parameters_to_vector`` / ``vector_to_parameters``;
* ``rnn``: packed and padded sequences;
* ``parametrize`` and ``parametrizations``: weights computed from other tensors
  (``weight_norm``, ``spectral_norm``);
* ``weight_norm`` / ``spectral_norm`` (the functions here): the older hook-based forms;
* ``fusion``: folding an eval-mode BatchNorm into the layer before it;
* ``skip_init``, ``convert_conv2d_weight_memory_format``: building modules, their weights' layout;
* ``prune`` (imported explicitly, ``import torch.nn.utils.prune as prune``, as in PyTorch).
"""
from . import clip_grad, rnn, stateless  # stateless: functional_call (deprecated name of torch.func's)
from . import parametrize, parametrizations  # noqa: E402  (after rnn: nn.modules.rnn imports utils.rnn)
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
                        parameters_to_vector, vector_to_parameters)
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm
from .init import skip_init  # noqa: E402
from .memory_format import convert_conv2d_weight_memory_format  # noqa: E402

__all__ = ["rnn", "clip_grad", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters", "parametrize", "parametrizations",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
           "remove_spectral_norm", "spectral_norm", "remove_weight_norm", "weight_norm", "skip_init",
           "convert_conv2d_weight_memory_format"]
