"""``torch.func``'s derivative transforms: ``grad``, ``vjp``, ``jacrev`` and friends.

A *transform* takes a Python function and returns a new function: ``grad(f)`` is
the function ``x -> ∂f/∂x``.  Because the result is again a function, transforms
compose: ``grad(grad(f))`` is the second derivative, ``vmap(grad(f))`` gives one
gradient per sample, ``jacrev(jacrev(f))`` a matrix of second derivatives.

PyTorch implements them with "levels" wrapped around tensors.  learntorch builds
every one of them on the same reverse-mode engine as ``autograd.grad``:

1. **fresh inputs.**  Each call gives ``f`` new tensor objects for the inputs it
   differentiates, so that the gradient is taken with respect to *this call's*
   inputs and nothing is written into anybody's ``.grad``.  An input that is
   already part of a graph the caller is building (it requires grad, grad mode is
   on) gets a differentiable alias (``x.view_as(x)``), so the result stays
   connected to the caller's ``x``; any other input gets a detached copy that
   requires grad (:class:`_Level`).  That is why ``grad`` works on inputs that do
   not require grad, and under ``no_grad`` too: the forward runs in ``enable_grad``.
2. **differentiate** with ``autograd.grad``.  The graph of the *gradient* is only
   built (``create_graph=True``) when somebody outside this call could use it: an
   outer transform (``grad(grad(f))``) or the caller's own graph (a parameter the
   function uses, an input that requires grad).  A walk over the graph of the
   output finds out (:meth:`_Level.reaches_outside`).
3. **unwrap**: results that depend only on this call's fresh inputs are detached,
   so they look exactly like PyTorch's (``requires_grad=False``); results that
   depend on the caller's tensors keep their graph.

``jacfwd`` and ``jvp`` are *forward-mode* transforms in PyTorch.  learntorch has no
forward mode: ``jacfwd`` computes the same matrix row by row in reverse mode, and
``jvp`` uses the "double-vjp trick" (a vjp is linear in its cotangent ``u``;
differentiating ``uᵀ·J`` with respect to ``u`` along ``v`` gives ``J·v``).  The
numbers agree with PyTorch's within float rounding; the cost differs.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Sequence, Union

from ..autograd.engine import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.node import AccumulateGrad
from ..ops.shape import stack
from ..tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten, treespec_pprint
from .vmap import check_randomness_arg, random_draws_guard

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"]

Argnums = Union[int, tuple[int, ...]]

_JVP = "jvp(f, primals, tangents)"
_VJP = "vjp(f, *primals)"


# ----------------------------------------------------------------------------- one call of a transform
class _Level:
    """What one call of a transform knows: which leaves it created itself.

    ``keep_outer_graph`` is the grad mode the caller had.  Under ``no_grad`` the
    results are always detached (nobody will differentiate them), as in PyTorch.
    """

    def __init__(self, keep_outer_graph: bool) -> None:
        self.keep_outer_graph = keep_outer_graph
        self.own: set[int] = set()  # ids of the detached copies made here (alive for the whole call)

    def fresh(self, value: Any) -> Tensor:
        """A new tensor object for ``value`` that requires grad (step 1 of the module docstring)."""
        if not isinstance(value, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
        if value.requires_grad and self.keep_outer_graph:
            return value.view_as(value)  # connected to the caller's graph
        copy = value.detach().requires_grad_(True)  # (an integer tensor raises PyTorch's error here)
        self.own.add(id(copy))
        return copy

    def fresh_tree(self, tree: Any) -> tuple[Any, list[Tensor]]:
        """:meth:`fresh` on every leaf of a pytree: ``(new tree, its leaves)``."""
        leaves, spec = tree_flatten(tree)
        new = [self.fresh(leaf) for leaf in leaves]
        return tree_unflatten(new, spec), new

    def reaches_outside(self, tensors: Sequence[Any]) -> bool:
        """Does the graph of any of ``tensors`` end in a leaf that this call did not make?

        Such a leaf belongs to the caller (a parameter, an input that requires grad)
        or to an outer transform; either may differentiate what we return, so the
        gradient's own graph must then be built."""
        if not self.keep_outer_graph:
            return False
        stack_: list = []
        for t in tensors:
            if not isinstance(t, Tensor) or not t.requires_grad:
                continue
            if t.grad_fn is None:  # a leaf itself
                if id(t) not in self.own:
                    return True
            else:
                stack_.append(t.grad_fn)
        seen: set[int] = set()
        while stack_:
            node = stack_.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, AccumulateGrad):
                if id(node.variable) not in self.own:
                    return True
                continue
            stack_.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
        return False

    def unwrap(self, tree: Any) -> Any:
        """Step 3: detach every tensor of ``tree`` whose graph stays inside this call."""
        def one(value: Any) -> Any:
            if isinstance(value, Tensor) and value.requires_grad and not self.reaches_outside([value]):
                return value.detach()
            return value
        leaves, spec = tree_flatten(tree)
        return tree_unflatten([one(v) for v in leaves], spec)


def _vjp_flat(outputs: Sequence[Tensor], cotangents: Sequence[Optional[Tensor]], inputs: Sequence[Tensor],
              create_graph: bool, retain_graph: bool) -> list[Tensor]:
    """``Σ cotangentᵀ·∂output/∂input`` for each input; zeros (not None) where an input is
    unused, since the mathematically right derivative of a constant is zero."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if pairs:
        grads = _autograd_grad(tuple(o for o, _ in pairs), tuple(inputs), tuple(c for _, c in pairs),
                               retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
    else:
        grads = (None,) * len(inputs)
    return [g if g is not None else x._filled_like(0) for g, x in zip(grads, inputs)]


# ----------------------------------------------------------------------------- argnums
def _check_argnums(argnums: Any, num_args: int) -> tuple[int, ...]:
    """The positions ``argnums`` names, counted from 0, with PyTorch's errors."""
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        items = argnums
    elif isinstance(argnums, int):
        items = (argnums,)
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    positions = []
    for a in items:
        if not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if not -num_args <= a < num_args:
            raise RuntimeError(f"Got argnum={a}, but only {num_args} positional inputs")
        positions.append(a % num_args)
    return tuple(positions)


def _differentiable_args(level: _Level, args: tuple, positions: tuple[int, ...]) -> tuple[tuple, list, list]:
    """``args`` with fresh tensors at ``positions``: ``(new args, flat inputs, (spec, count) per position)``."""
    new_args = list(args)
    flat_inputs: list[Tensor] = []
    layout = []
    for p in positions:
        new_args[p], leaves = level.fresh_tree(args[p])
        layout.append((tree_flatten(args[p])[1], len(leaves)))
        flat_inputs.extend(leaves)
    return tuple(new_args), flat_inputs, layout


def _regroup(flat: list, layout: list, argnums: Argnums) -> Any:
    """Flat per-input results back into the shape of the differentiated arguments: the
    argument's own structure for an int ``argnums``, a tuple of them for a tuple."""
    groups, start = [], 0
    for spec, count in layout:
        groups.append(tree_unflatten(flat[start:start + count], spec))
        start += count
    return tuple(groups) if isinstance(argnums, tuple) else groups[0]


def _split_aux(output: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


# ----------------------------------------------------------------------------- grad
def grad_and_value(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """Like :func:`grad`, but the new function returns ``(gradient, value)`` (with
    ``has_aux``: ``(gradient, (value, aux))``), so ``f`` need not run twice."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        positions = _check_argnums(argnums, len(args))
        level = _Level(is_grad_enabled())
        with enable_grad():  # differentiate even inside the caller's no_grad, as PyTorch does
            new_args, inputs, layout = _differentiable_args(level, args, positions)
            output, aux = _split_aux(func(*new_args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                                   "APIs instead?")
            create_graph = level.reaches_outside([output])
            grads = _vjp_flat([output], [None], inputs, create_graph=create_graph, retain_graph=create_graph)
        gradient = level.unwrap(_regroup(grads, layout, argnums))
        value = level.unwrap(output)
        return (gradient, (value, level.unwrap(aux))) if has_aux else (gradient, value)
    return wrapper


def grad(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``grad(f)`` is the function that returns the gradient of the scalar ``f`` with
    respect to its argument ``argnums`` (an int, or a tuple of them: then a tuple of
    gradients).  An argument may be a dict/list/tuple of tensors; its gradient has
    the same structure.  ``has_aux=True``: ``f`` returns ``(scalar, aux)`` and the new
    function returns ``(gradient, aux)``.

    Unlike ``loss.backward()`` nothing is accumulated into ``.grad``, and the inputs
    need not require grad: the gradient is the *return value*, which is what makes
    ``vmap(grad(f))`` (one gradient per sample) and ``grad(grad(f))`` possible."""
    value_and_grad = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gradient, value = value_and_grad(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient  # (with has_aux, value is (value, aux))
    return wrapper


# ----------------------------------------------------------------------------- vjp
def _tensor_outputs(output: Any, api: str, floating: bool) -> tuple[list, Any]:
    """The output's leaves, which must all be tensors (floating point for a vjp)."""
    flat, spec = tree_flatten(output)
    call = "f(*primals)" if api == _VJP else "f(*args)"
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected {call} to return only tensors, got unsupported type {type(o)}")
        if floating and not (o.is_floating_point() or o.is_complex()):
            raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                               f"Tensor with dtype {o.dtype}")
    return flat, spec


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple:
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` returns ``cotangentsᵀ·J``, one
    entry per primal (always a tuple), each shaped like its primal.

    The forward runs once; ``vjp_fn`` keeps its graph and may be called many times
    (each call is one backward pass).  ``cotangents`` must have the structure and
    shapes of the output.  With ``has_aux``: ``(output, vjp_fn, aux)``."""
    level = _Level(is_grad_enabled())
    with enable_grad():
        fresh_primals, inputs = level.fresh_tree(primals)
        output, aux = _split_aux(func(*fresh_primals), has_aux, _VJP)
        flat_out, out_spec = _tensor_outputs(output, _VJP, floating=True)
        outer = level.reaches_outside(flat_out)
    primals_spec = tree_flatten(primals)[1]

    def vjp_fn(cotangents: Any, *, retain_graph: bool = True, create_graph: Optional[bool] = None) -> tuple:
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {treespec_pprint(ct_spec)}, primal output: "
                               f"{treespec_pprint(out_spec)}")
        for i, (c, o) in enumerate(zip(flat_ct, flat_out)):
            if not isinstance(c, Tensor):
                raise RuntimeError(f"Expected tensors, got unsupported type {type(c)}")
            if c.shape != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and output[{i}] "
                                   f"has a shape of {o.shape}.")
        if create_graph is None:  # a graph for the caller: when it uses our result or differentiates the cotangents
            create_graph = outer or (is_grad_enabled() and any(c.requires_grad for c in flat_ct))
        with enable_grad():
            grads = _vjp_flat(flat_out, flat_ct, inputs, create_graph=create_graph, retain_graph=retain_graph)
        return tuple(level.unwrap(tree_unflatten(grads, primals_spec)))

    result = level.unwrap(output)
    return (result, vjp_fn, level.unwrap(aux)) if has_aux else (result, vjp_fn)


# ----------------------------------------------------------------------------- Jacobians
def _jacobian_blocks(output: Tensor, inputs: list[Tensor], create_graph: bool) -> list[Tensor]:
    """``∂output/∂input`` for each input, shaped ``output.shape + input.shape``: one
    backward pass per element of ``output`` gives one row of every block."""
    out_shape = tuple(output.shape)
    if output.numel() == 0 or not output.requires_grad:
        return [x.new_zeros(out_shape + tuple(x.shape)) for x in inputs]
    rows: list[list[Tensor]] = [[] for _ in inputs]
    flat = output.reshape(-1)
    for j in range(flat.numel()):
        for k, g in enumerate(_vjp_flat([flat[j]], [None], inputs, create_graph=create_graph, retain_graph=True)):
            rows[k].append(g)
    return [stack(r, 0).reshape(out_shape + tuple(x.shape)) for r, x in zip(rows, inputs)]


def _jacobian_transform(func: Callable[..., Any], argnums: Argnums, has_aux: bool, api: str,
                        randomness: Optional[str]) -> Callable[..., Any]:
    """The shared body of :func:`jacrev` and :func:`jacfwd` (``api`` names the messages)."""
    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        if randomness is not None:
            check_randomness_arg(randomness)  # (PyTorch's jacfwd checks it when called, vmap when created)
        positions = _check_argnums(argnums, len(args))
        level = _Level(is_grad_enabled())
        with enable_grad():
            new_args, inputs, layout = _differentiable_args(level, args, positions)
            with random_draws_guard(randomness):  # PyTorch's jacfwd vmaps f: random draws follow vmap's rules
                output = func(*new_args)
            output, aux = _split_aux(output, has_aux, api)
            flat_out, out_spec = _tensor_outputs(output, api, floating=api == _VJP)
            create_graph = level.reaches_outside(flat_out)
            per_output = [_regroup(_jacobian_blocks(o, inputs, create_graph), layout, argnums) for o in flat_out]
        jac = level.unwrap(tree_unflatten(per_output, out_spec))
        return (jac, level.unwrap(aux)) if has_aux else jac
    return wrapper


def jacrev(func: Callable[..., Any], argnums: Argnums = 0, *, has_aux: bool = False,
           chunk_size: Optional[int] = None, _preallocate_and_copy: bool = False) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to argument(s) ``argnums``, by reverse mode.

    For an output ``y`` and an input ``x`` the block has shape ``y.shape + x.shape``
    (``J[i, j] = ∂yᵢ/∂xⱼ``).  Several outputs (a tuple, a dict) give the same
    structure of blocks; a tuple ``argnums`` gives a tuple per output.  Each row is
    one backward pass, as ``autograd.functional.jacobian`` computes it.  PyTorch
    batches the rows with vmap and ``chunk_size`` bounds how many at once; here the
    rows are always computed one at a time, so ``chunk_size`` changes nothing."""
    if chunk_size is not None and not chunk_size > 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian_transform(func, argnums, has_aux, _VJP, randomness=None)


def jacfwd(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """The Jacobian of ``func``, as :func:`jacrev` returns it.

    PyTorch computes it in forward mode (one forward pass per *input* element,
    cheaper when there are fewer inputs than outputs).  learntorch has no forward
    mode, so the same matrix is computed in reverse mode, row by row: the values
    agree with PyTorch's within float rounding.  ``randomness`` follows PyTorch: with
    ``"error"`` a function that draws random numbers is a RuntimeError."""
    return _jacobian_transform(func, argnums, has_aux, _JVP, randomness=randomness)


def hessian(func: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """The matrix of second derivatives of a scalar ``func``: ``jacfwd(jacrev(func))``,
    as PyTorch composes it (both are reverse mode here).  For an input of shape ``s``
    the Hessian has shape ``s + s``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ----------------------------------------------------------------------------- forward-mode products
def _check_primals_and_tangents(primals: Any, tangents: Any) -> tuple[list, Any, list]:
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python structure. For example, "
                           "if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{p_spec} and tangents with structure {t_spec}")
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{_JVP}: Expected {name} to contain at least one Tensor.")
        for leaf in flat:
            if not isinstance(leaf, Tensor):
                raise RuntimeError(f"{_JVP}: Expected {name} to only contain Tensors, got {type(leaf)}")
    for p, t in zip(flat_p, flat_t):
        if p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while "
                               f"the given forward gradient is of size {list(t.shape)}.")
    return flat_p, p_spec, flat_t


class _DoubleVjp:
    """The graph of ``uᵀ·J`` (``u``: one dummy cotangent per output), ready to be
    differentiated with respect to ``u``: that derivative along ``v`` is ``J·v``.

    ``u``'s value never matters (the vjp is linear in it); zeros keep inf and nan out."""

    def __init__(self, level: _Level, flat_out: list[Tensor], inputs: list[Tensor]) -> None:
        self.flat_out = flat_out
        self.us = [o._filled_like(0, requires_grad=True) for o in flat_out]
        level.own.update(id(u) for u in self.us)  # leaves of this call: nothing outside depends on them
        live = [(o, u) for o, u in zip(flat_out, self.us) if o.requires_grad]
        if live:
            grads = _autograd_grad(tuple(o for o, _ in live), tuple(inputs), tuple(u for _, u in live),
                                   create_graph=True, allow_unused=True)
        else:
            grads = (None,) * len(inputs)
        self.uJ = list(grads)  # one per input; None where the outputs do not depend on it

    def jvp(self, flat_tangents: Sequence[Tensor], create_graph: bool, strict: bool = False) -> list[Tensor]:
        pairs = [(g, t) for g, t in zip(self.uJ, flat_tangents) if g is not None and g.requires_grad]
        if pairs:
            results = _autograd_grad(tuple(g for g, _ in pairs), tuple(self.us),
                                     tuple(t.to(g.dtype) for g, t in pairs), retain_graph=True,
                                     create_graph=create_graph, allow_unused=True)
        else:
            results = (None,) * len(self.us)
        out = []
        for r, o in zip(results, self.flat_out):
            if r is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of "
                                       "the inputs. This is not allowed with strict=True.")
                r = o._filled_like(0)
            out.append(r)
        return out


def jvp(func: Callable[..., Any], primals: tuple, tangents: tuple, *, strict: bool = False,
        has_aux: bool = False) -> tuple:
    """``(func(*primals), J·tangents)``: the Jacobian-vector product, shaped like the output.

    PyTorch runs one forward pass with dual numbers.  learntorch uses the double-vjp
    trick (module docstring): two backward passes, the same numbers.  Every backward
    on the way must itself be differentiable, which holds for the built-in
    operations, not for a custom Function marked ``@once_differentiable``."""
    flat_p, p_spec, flat_t = _check_primals_and_tangents(primals, tangents)
    level = _Level(is_grad_enabled())
    with enable_grad():
        fresh = [level.fresh(p) for p in flat_p]
        output, aux = _split_aux(func(*tree_unflatten(fresh, p_spec)), has_aux, _JVP)
        flat_out, out_spec = _tensor_outputs(output, _JVP, floating=False)
        create_graph = level.reaches_outside(flat_out) or (level.keep_outer_graph
                                                          and any(t.requires_grad for t in flat_t))
        tangents_out = _DoubleVjp(level, flat_out, fresh).jvp(flat_t, create_graph, strict)
    result = (level.unwrap(output), level.unwrap(tree_unflatten(tangents_out, out_spec)))
    return result + (level.unwrap(aux),) if has_aux else result


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is ``J·tangents`` at ``primals``,
    the linear approximation of ``func`` there, for many tangents after one forward
    pass.  (PyTorch traces a graph of the jvp; learntorch keeps the double-vjp graph.)"""
    level = _Level(is_grad_enabled())
    flat_p, p_spec = tree_flatten(primals)
    with enable_grad():
        fresh = [level.fresh(p) for p in flat_p]
        output = func(*tree_unflatten(fresh, p_spec))
        flat_out, out_spec = _tensor_outputs(output, _JVP, floating=False)
        create_graph = level.reaches_outside(flat_out)
        double_vjp = _DoubleVjp(level, flat_out, fresh)

    def jvp_fn(*tangents: Any) -> Any:
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the primals {p_spec}")
        for idx, (t, p) in enumerate(zip(flat_t, flat_p)):
            for what in ("shape", "device", "dtype"):
                if getattr(t, what) != getattr(p, what):
                    raise RuntimeError(f"tangent:{idx} with {what} {getattr(t, what)} in flattened pytree doesn't "
                                       f"match the {what} {getattr(p, what)} of the corresponding primal.")
        with enable_grad():
            flat = double_vjp.jvp(flat_t, create_graph or (is_grad_enabled() and any(t.requires_grad for t in flat_t)))
        return level.unwrap(tree_unflatten(flat, out_spec))

    return level.unwrap(output), jvp_fn
