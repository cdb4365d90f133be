"""``learntorch.autograd``: the graph, the backward engine and custom Functions.

* :func:`backward` / ``tensor.backward()`` — add gradients into the leaves' ``.grad``;
* :func:`grad` — return gradients instead of accumulating them;
* :class:`Function` — an operation with a hand-written backward (every
  built-in operation is one);
* :func:`gradcheck` — compare a backward with finite differences;
* grad mode: :class:`no_grad`, :class:`enable_grad`, :class:`set_grad_enabled`;
* ``functional`` — whole Jacobians and Hessians (``jacobian``, ``hessian``, ``vjp`` …).
"""
from __future__ import annotations

import warnings

from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import run_backward
from .function import BackwardFunction, Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck
from .node import AccumulateGrad, Node, RemovableHandle

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["backward", "grad", "Function", "FunctionCtx", "BackwardFunction", "once_differentiable",
           "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "gradcheck",
           "gradgradcheck", "set_detect_anomaly", "detect_anomaly", "Node", "AccumulateGrad", "RemovableHandle", "Variable"]

TensorOrTensors = Union["Tensor", Sequence["Tensor"]]


def _as_tuple(x: Any) -> tuple:
    from ..tensor import Tensor
    if x is None:
        return ()
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _make_grads(outputs: tuple, grad_outputs: tuple) -> list:
    """Default gradients (1 for scalars) and PyTorch's checks of given ones."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                   f"{out.dtype}")
            grads.append(out._filled_like(1))
            continue
        if tuple(g.shape) != tuple(out.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has "
                               f"a shape of {out.shape}.")
        if g.device != out.device:
            raise RuntimeError(f"invalid gradient at index {i} - expected device {out.device} but got {g.device}")
        grads.append(g if g.dtype is out.dtype else g.to(out.dtype))
    return grads


def backward(tensors: TensorOrTensors, grad_tensors: Optional[TensorOrTensors] = None,
             retain_graph: Optional[bool] = None, create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate into each leaf's ``.grad`` the gradient of ``tensors`` (weighted by
    ``grad_tensors``: a vector-Jacobian product when they are not scalars)."""
    outputs = _as_tuple(tensors)
    given = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    if len(given) != len(outputs):
        raise RuntimeError(f"got {len(given)} tensors and {len(outputs)} gradients")
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    grads = _make_grads(outputs, given)
    if retain_graph is None:
        retain_graph = create_graph
    input_list = list(_as_tuple(inputs)) if inputs is not None else None
    if input_list is not None and not input_list:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    run_backward(outputs, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=input_list,
                 accumulate=True)


def grad(outputs: TensorOrTensors, inputs: TensorOrTensors, grad_outputs: Optional[TensorOrTensors] = None,
         retain_graph: Optional[bool] = None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused: Optional[bool] = None, is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` is untouched).

    ``only_inputs`` is PyTorch's deprecated, ignored flag (``False`` warns as PyTorch does);
    ``is_grads_batched=True`` needs vmap, which learntorch does not have."""
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    if is_grads_batched:
        raise NotImplementedError("autograd.grad(is_grads_batched=True) needs vmap, which learntorch does not "
                                  "have: call autograd.grad once per row of grad_outputs (retain_graph=True) instead")
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    given = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    for i, out in enumerate(outs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    captured = run_backward(outs, _make_grads(outs, given), retain_graph=retain_graph, create_graph=create_graph,
                            inputs=list(ins), accumulate=False)
    result = []
    for index, (t, g) in enumerate(zip(ins, captured)):
        if g is None:
            if materialize_grads:
                g = t._filled_like(0)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {index} appears to not have been used in "
                                   "the graph. Set allow_unused=True if this is the desired behavior.")
        result.append(g)
    return tuple(result)


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        from ..tensor import Tensor
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


from . import functional  # noqa: E402  - torch.autograd.functional.jacobian / hessian, after grad() exists
