"""``torch.autograd.functional``: whole derivative matrices of a Python function.

``jacobian(f, x)`` answers "how does every output element move with every input
element?" and ``hessian(f, x)`` is the Jacobian of the gradient of a scalar
function.  Both are built from :func:`learntorch.autograd.grad`, one backward
pass per output element (a row of the Jacobian, 雅可比矩阵), which is the
plain way PyTorch computes them too when ``vectorize=False``.
"""
from __future__ import annotations

from typing import Any, Callable, Union

from ..ops.shape import stack
from ..tensor import Tensor
from .engine import grad
from .grad_mode import enable_grad

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]

Inputs = Union["Tensor", tuple]


def _as_inputs(inputs: Inputs, fn_name: str = "jacobian") -> tuple[tuple, bool]:
    """Tensors to differentiate, made fresh leaves that require grad (the caller's are untouched)."""
    if isinstance(inputs, list):  # PyTorch accepts a Tensor or a tuple, not a list
        raise TypeError(f"The inputs given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                        f"given inputs has type {type(inputs)}.")
    is_tuple = isinstance(inputs, tuple)
    items = tuple(inputs) if is_tuple else (inputs,)
    return tuple(t.detach().requires_grad_(True) for t in items), is_tuple


def _jacobian_of(output: "Tensor", inputs: tuple, create_graph: bool) -> tuple:
    """One Jacobian block per input, each of shape ``output.shape + input.shape``."""
    flat = output.reshape(-1)
    rows: list[list] = [[] for _ in inputs]
    for i in range(flat.numel()):
        if flat.requires_grad:
            grads = grad(flat[i], inputs, retain_graph=True, create_graph=create_graph, allow_unused=True)
        else:  # an output that does not depend on the inputs at all
            grads = (None,) * len(inputs)
        for k, (g, t) in enumerate(zip(grads, inputs)):
            rows[k].append(t._filled_like(0) if g is None else g)
    blocks = []
    for k, t in enumerate(inputs):
        block = stack(rows[k]) if rows[k] else t._filled_like(0).reshape(0, *t.shape)
        block = block.reshape(*output.shape, *t.shape)
        blocks.append(block if create_graph else block.detach())
    return tuple(blocks)


def jacobian(func: Callable[..., Any], inputs: Inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``, shaped like PyTorch's answer.

    One Tensor input and one Tensor output give one Tensor; a tuple on either
    side gives a tuple (tuples of tuples when both are tuples).
    """
    ins, in_tuple = _as_inputs(inputs)
    with enable_grad():
        outputs = func(*ins)
        out_tuple = isinstance(outputs, (tuple, list))
        outs = tuple(outputs) if out_tuple else (outputs,)
        per_output = [_jacobian_of(o, ins, create_graph) for o in outs]
    result = [blocks if in_tuple else blocks[0] for blocks in per_output]
    return tuple(result) if out_tuple else result[0]


def hessian(func: Callable[..., Any], inputs: Inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The matrix of second derivatives of a scalar ``func``: the Jacobian of its gradient."""
    ins, in_tuple = _as_inputs(inputs, "hessian")

    def gradient(*xs: "Tensor") -> Any:
        out = func(*xs)
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        grads = grad(out.reshape(()), xs, create_graph=True, allow_unused=True)
        grads = tuple(x._filled_like(0) if g is None else g for g, x in zip(grads, xs))
        return grads if in_tuple else grads[0]

    return jacobian(gradient, ins if in_tuple else ins[0], create_graph=create_graph)


def _pack(items: tuple, is_tuple: bool) -> Any:
    return items if is_tuple else items[0]


def vjp(func: Callable[..., Any], inputs: Inputs, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), v^T J)``: one backward pass, the product without the whole Jacobian."""
    ins, in_tuple = _as_inputs(inputs, "vjp")
    with enable_grad():
        out = func(*ins)
        grads = grad(out, ins, grad_outputs=v, create_graph=create_graph, allow_unused=True)
    grads = tuple(x._filled_like(0) if g is None else (g if create_graph else g.detach())
                  for g, x in zip(grads, ins))
    return out.detach(), _pack(grads, in_tuple)


def jvp(func: Callable[..., Any], inputs: Inputs, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), J v)`` by the "double backward" trick PyTorch uses: the vjp with a
    dummy vector ``u`` is linear in ``u``, so differentiating it with respect to ``u`` along
    ``v`` gives ``J v``."""
    ins, in_tuple = _as_inputs(inputs, "jvp")
    vs = v if isinstance(v, tuple) else (v,)
    with enable_grad():
        out = func(*ins)
        u = out._filled_like(0, requires_grad=True)
        grads = grad(out, ins, grad_outputs=u, create_graph=True, allow_unused=True)
        used = [(g, w) for g, w in zip(grads, vs) if g is not None]
        if not used:
            return out.detach(), out._filled_like(0)
        (result,) = grad(tuple(g for g, _ in used), u, grad_outputs=tuple(w for _, w in used),
                          create_graph=create_graph)
    return out.detach(), result if create_graph else result.detach()


def hvp(func: Callable[..., Any], inputs: Inputs, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), H v)`` for a scalar ``func``: the gradient's vjp with ``v`` (H is symmetric)."""
    ins, in_tuple = _as_inputs(inputs, "hvp")
    vs = v if isinstance(v, tuple) else (v,)
    with enable_grad():
        out = func(*ins)
        grads = grad(out.reshape(()), ins, create_graph=True)
        second = grad(grads, ins, grad_outputs=vs, create_graph=create_graph, allow_unused=True)
    second = tuple(x._filled_like(0) if g is None else (g if create_graph else g.detach())
                   for g, x in zip(second, ins))
    return out.detach(), _pack(second, in_tuple)


vhp = hvp  # v^T H equals H v for the symmetric Hessians of twice-differentiable functions
