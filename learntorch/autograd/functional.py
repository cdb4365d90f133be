"""``torch.autograd.functional``: whole derivative matrices of a Python function.

``jacobian(f, x)`` answers "how does every output element move with every input
element?" and ``hessian(f, x)`` is the Jacobian of the gradient of a scalar
function.  Both are built from :func:`learntorch.autograd.grad`, one backward
pass per output element (a row of the Jacobian, 雅可比矩阵), which is the
plain way PyTorch computes them too when ``vectorize=False``.  ``vjp``, ``jvp``,
``hvp`` and ``vhp`` compute one product with those matrices without building them.

Every function follows the same three steps, as PyTorch's do:

1. **preprocess** the inputs: the function is called on *new* tensor objects, so
   that ``autograd.grad`` can tell "the input given to ``jacobian``" from "the same
   tensor captured by the function from outside".  Without ``create_graph`` they are
   detached copies (the caller's graph is not needed).  With ``create_graph`` and an
   input that requires grad they are differentiable aliases (``x.view_as(x)``), so
   the result stays connected to the caller's ``x``: ``jacobian(f, x,
   create_graph=True).sum().backward()`` fills ``x.grad``;
2. differentiate, checking the shapes of ``v`` and, with ``strict=True``, that
   every output depends on every input (otherwise the mathematically right answer,
   zeros, is returned);
3. **postprocess**: detach the results unless ``create_graph``.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Union

from ..ops.shape import stack
from ..tensor import Tensor
from .engine import grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]

Inputs = Union["Tensor", tuple]


# ----------------------------------------------------------------------------- the three steps
def _as_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """``(was it a tuple?, the tensors as a tuple)``; anything but a Tensor or a tuple of
    Tensors (a list, a float) is PyTorch's TypeError."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the {where} has type {type(item)}.")
    return is_tuple, items


def _grad_preprocess(tensors: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """New tensor objects for ``tensors`` (see step 1 of the module docstring).

    ``need_graph``: the new tensors must require grad (inputs we differentiate with
    respect to) or need not (the vectors ``v``)."""
    fresh = []
    for t in tensors:
        if create_graph and t.requires_grad:
            fresh.append(t.view_as(t))  # a new object, still differentiable back to ``t``
        else:
            fresh.append(t.detach().requires_grad_(need_graph))
    return tuple(fresh)


def _grad_postprocess(results: tuple, create_graph: bool) -> tuple:
    """Detach the results (tuples of tuples too) unless the caller asked for a graph."""
    if results and not isinstance(results[0], Tensor):
        return tuple(_grad_postprocess(inner, create_graph) for inner in results)
    return results if create_graph else tuple(t.detach() for t in results)


def _tuple_postprocess(results: Any, was_tuple: Union[bool, tuple]) -> Any:
    """Undo :func:`_as_tuple`: a single tensor comes back as a tensor.  ``was_tuple`` may be
    a pair ``(outputs were a tuple, inputs were a tuple)`` for a tuple of tuples."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            results = tuple(row[0] for row in results)
        return results if outer else results[0]
    return results if was_tuple else results[0]


def _validate_v(v: tuple, other: tuple, other_is_tuple: bool) -> None:
    """``v`` must have one tensor per tensor of ``other``, each of the same size."""
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.size() != b.size():
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.size()} but got {a.size()}.")


def _check_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """``strict=True``: refuse a result that cannot depend on the inputs (it does not
    require grad, or is None), with PyTorch's message for each ``kind``."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is independent of the "
                "input. This is not allowed in strict mode. You should ensure that your function is thrice "
                "differentiable and that the hessian depends on the inputs.")
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided function with respect "
                f"to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                "would be violated by a linear function for example).")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                               "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                           "must be computed in a differentiable manner from the input when running in strict mode.")


def _grads(outputs: tuple, inputs: tuple, grad_outputs: Optional[tuple] = None, create_graph: bool = False,
           retain_graph: Optional[bool] = None) -> tuple:
    """``autograd.grad`` that skips the outputs that do not require grad (None for every
    input when none does) and allows unused inputs (None for them)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad(tuple(o for o, _ in pairs), inputs, tuple(g for _, g in pairs), retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


_STRICT_NONE = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in "
                  "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                   "in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Zeros (shaped like ``refs``) for the gradients that came back None, the right answer
    for a result that does not depend on an input; ``strict=True`` raises instead."""
    filled = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_NONE[stage].format(i=i))
            g = refs[i]._filled_like(0)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode when create_graph=True.")
        filled.append(g)
    return tuple(filled)


def _v_or_none(v: Any, others: tuple, others_tuple: bool, create_graph: bool, fn_name: str,
               none_message: str) -> Optional[tuple]:
    """Check ``v`` against ``others`` (what it multiplies); ``v=None`` only when there is one
    single-element tensor (then PyTorch uses 1)."""
    if v is None:
        if len(others) != 1 or others[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, vs = _as_tuple(v, "v", fn_name)
    vs = _grad_preprocess(vs, create_graph=create_graph, need_graph=False)
    _validate_v(vs, others, others_tuple)
    return vs


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a single Tensor "
                 "with a single element.")


# ----------------------------------------------------------------------------- products
def vjp(func: Callable[..., Any], inputs: Inputs, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), vᵀ·J)``: one backward pass, the product without the whole Jacobian.
    ``v`` is shaped like the output (it may be omitted for a one-element output)."""
    with enable_grad():
        ins_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        outs_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outs, "outputs", strict)
        vs = _v_or_none(v, outs, outs_tuple, create_graph, "vjp",
                        "The vector v can only be None if the user-provided function returns a single Tensor with "
                        "a single element.")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        result = _fill_in_zeros(_grads(outs, ins, vs, create_graph=create_graph), ins, strict, create_graph, "back")
    return (_tuple_postprocess(_grad_postprocess(outs, create_graph), outs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), ins_tuple))


def jvp(func: Callable[..., Any], inputs: Inputs, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), J·v)`` by the "double backward" trick PyTorch uses: the vjp ``uᵀ·J``
    with a dummy vector ``u`` is linear in ``u``, so differentiating it with respect to
    ``u`` along ``v`` gives ``J·v``.  ``v`` is shaped like the inputs."""
    with enable_grad():
        ins_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        vs = _v_or_none(v, ins, ins_tuple, create_graph, "jvp",
                        "The vector v can only be None if the input to the user-provided function is a single "
                        "Tensor with a single element.")
        outs_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outs, "outputs", strict)
        # The vjp is linear in u, so u's value never matters; zeros keep inf and nan out.
        us = tuple(o._filled_like(0, requires_grad=True) for o in outs)
        grad_inputs = _grads(outs, ins, us, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        result = _fill_in_zeros(_grads(grad_inputs, us, vs, create_graph=create_graph), outs, strict, create_graph,
                                "back_trick")
    return (_tuple_postprocess(_grad_postprocess(outs, create_graph), outs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), outs_tuple))


def _scalar_output(func: Callable[..., Any], ins: tuple, strict: bool, fn_name: str) -> "Tensor":
    """``func(*ins)``, which must be one Tensor with one element (hessian, hvp, vhp)."""
    outs_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outs, "outputs", strict)
    if outs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return outs[0]


def vhp(func: Callable[..., Any], inputs: Inputs, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), vᵀ·H)`` for a scalar ``func``: the vjp of the gradient with ``v``,
    two backward passes (the cheap one of the pair)."""
    with enable_grad():
        ins_tuple, ins = _as_tuple(inputs, "inputs", "vhp")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        vs = _v_or_none(v, ins, ins_tuple, create_graph, "vhp", _V_NONE_INPUT)
        out = _scalar_output(func, ins, strict, "vhp")
        jac = _grads((out,), ins, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        result = _fill_in_zeros(_grads(jac, ins, vs, create_graph=create_graph), ins, strict, create_graph,
                                "double_back")
    return (_grad_postprocess((out,), create_graph)[0],
            _tuple_postprocess(_grad_postprocess(result, create_graph), ins_tuple))


def hvp(func: Callable[..., Any], inputs: Inputs, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), H·v)`` for a scalar ``func``.

    Reverse mode gives rows (``vᵀ·H``) directly; ``H·v`` takes the double backward trick
    of :func:`jvp` once more (three backward passes).  For a twice continuously
    differentiable function H is symmetric and both are equal: prefer ``vhp`` then."""
    with enable_grad():
        ins_tuple, ins = _as_tuple(inputs, "inputs", "hvp")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        vs = _v_or_none(v, ins, ins_tuple, create_graph, "hvp", _V_NONE_INPUT)
        out = _scalar_output(func, ins, strict, "hvp")
        jac = _grads((out,), ins, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        us = tuple(x._filled_like(0, requires_grad=True) for x in ins)
        double_back = _grads(jac, ins, us, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)  # (PyTorch checks ``jac`` here too)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        result = _fill_in_zeros(_grads(double_back, us, vs, create_graph=create_graph), ins, strict, create_graph,
                                "double_back_trick")
    return (_grad_postprocess((out,), create_graph)[0],
            _tuple_postprocess(_grad_postprocess(result, create_graph), ins_tuple))


# ----------------------------------------------------------------------------- whole matrices
def _check_strategy(strategy: str, create_graph: bool, strict: bool, vectorize: bool) -> None:
    """PyTorch's refusals for ``strategy="forward-mode"``.  learntorch has no forward-mode
    AD: an accepted forward-mode request is computed in reverse mode (the same matrix)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                               'are not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    elif vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                           "supported together. Please either set `strict=False` or `vectorize=False`.")


def _jacobian_block_rows(out: "Tensor", i: int, ins: tuple, create_graph: bool, strict: bool) -> tuple:
    """The Jacobian of output ``i`` with respect to each input: one backward pass per
    output element gives one row, ``∂out[j]/∂input``, of every block."""
    rows: list[list] = [[] for _ in ins]
    flat = out.reshape(-1)
    for j in range(out.nelement()):
        grads = _grads((flat[j],), ins, retain_graph=True, create_graph=create_graph)
        for k, (g, x) in enumerate(zip(grads, ins)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent of input {k}. "
                                       "This is not allowed in strict mode.")
                g = x._filled_like(0)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                   "This is not allowed in strict mode when create_graph=True.")
            rows[k].append(g)
    return tuple(stack(r, 0).view(tuple(out.size()) + tuple(x.size())) for r, x in zip(rows, ins))


def jacobian(func: Callable[..., Any], inputs: Inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``, shaped like PyTorch's answer.

    One Tensor input and one Tensor output give one Tensor of shape
    ``output.shape + input.shape``; a tuple on either side gives a tuple (tuples of
    tuples when both are tuples: ``J[i][k]`` is output ``i`` by input ``k``).
    ``vectorize=True`` gives the same matrix: PyTorch batches the rows with vmap,
    learntorch still computes them one backward pass at a time.
    """
    _check_strategy(strategy, create_graph, strict, vectorize)
    with enable_grad():
        ins_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        outs_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outs, "outputs", strict)
        blocks = tuple(_jacobian_block_rows(out, i, ins, create_graph, strict) for i, out in enumerate(outs))
    return _tuple_postprocess(_grad_postprocess(blocks, create_graph), (outs_tuple, ins_tuple))


def hessian(func: Callable[..., Any], inputs: Inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The matrix of second derivatives of a scalar ``func``: the Jacobian of its gradient.

    With a tuple of inputs the answer is a tuple of tuples, ``H[i][k] = ∂²f/∂xᵢ∂xₖ`` of
    shape ``xᵢ.shape + xₖ.shape``."""
    ins_tuple, ins = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar(*xs: "Tensor") -> "Tensor":
        return _scalar_output(func, xs, strict, "hessian").squeeze()

    def gradient(*xs: "Tensor") -> tuple:
        # create_graph=True: the gradient must stay differentiable for the outer Jacobian
        grads = jacobian(scalar, xs, create_graph=True)
        _check_requires_grad(grads, "jacobian", strict)
        return grads

    result = jacobian(gradient, ins, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _tuple_postprocess(result, (ins_tuple, ins_tuple))
