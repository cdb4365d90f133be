"""``learntorch.autograd``: the graph, the backward engine and custom Functions.

* :func:`backward` / ``tensor.backward()`` — add gradients into the leaves' ``.grad``;
* :func:`grad` — return gradients instead of accumulating them;
* :class:`Function` — an operation with a hand-written backward (every
  built-in operation is one);
* :func:`gradcheck` — compare a backward with finite differences;
* grad mode: :class:`no_grad`, :class:`enable_grad`, :class:`set_grad_enabled`;
* ``functional`` — whole Jacobians and Hessians (``jacobian``, ``hessian``, ``vjp`` …);
  it computes with the ops, so the package's ``__init__`` imports it, above them.
"""
from __future__ import annotations

import warnings

from typing import Any

from ..tensor import Tensor
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import backward, grad, run_backward, tensor_backward
from .function import BackwardFunction, Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck
from .node import AccumulateGrad, Node, RemovableHandle

__all__ = ["backward", "grad", "Function", "FunctionCtx", "BackwardFunction", "once_differentiable",
           "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "gradcheck",
           "gradgradcheck", "set_detect_anomaly", "detect_anomaly", "Node", "AccumulateGrad", "RemovableHandle", "Variable"]

class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)  # every tensor "is" a Variable, as in PyTorch

    def __call__(cls, data: "Tensor", requires_grad: bool = False) -> "Tensor":
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


class Variable(metaclass=_VariableMeta):
    """The pre-2018 wrapper.  Tensors carry ``data``, ``grad`` and ``grad_fn`` themselves
    now, so ``Variable(x)`` only returns a plain tensor: ``x.detach()`` (same storage, no
    history), with ``requires_grad`` as given, as PyTorch's ``Variable`` does.
    ``isinstance(t, Variable)`` is True for every tensor."""
