"""``learntorch.nn.utils``: helpers around modules and sequences."""
from . import clip_grad, rnn
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
                        parameters_to_vector, vector_to_parameters)

__all__ = ["rnn", "clip_grad", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters"]
