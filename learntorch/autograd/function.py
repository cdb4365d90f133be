"""``autograd.Function``: an operation with a forward and a hand-written backward.

This is the one mechanism by which the graph grows.  Every built-in operation
of learntorch (``mul``, ``sum``, ``matmul`` …) is a ``Function`` exactly like the
``MyReLU`` a learner writes in chapter 03; the only difference is a
``_backward_name`` so that ``grad_fn`` prints PyTorch's name (``MulBackward0``).

``Function.apply`` does all the bookkeeping, so a Function writes only maths:

1. note which inputs need a gradient (``ctx.needs_input_grad``);
2. run ``forward`` with recording switched off (the forward's own operations
   must not build a second graph);
3. if grad mode is on and some input requires grad, make the context object the
   outputs' ``grad_fn`` and link it to the inputs' nodes (``next_functions``).

As in PyTorch, the context ``ctx`` *is* the backward node: ``y.grad_fn`` is the
object that ``forward`` stored its tensors on.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Optional, Sequence

from .. import warn_always
from . import anomaly_mode, bfloat16_compute, grad_mode
from .. import dtype_bfloat16
from .node import _FREED_MESSAGE, Node, SavedTensor
from .saved_attributes import attribute_names as saved_attribute_names, saved_attribute
from ..tensor import Tensor


__all__ = ["Function", "FunctionCtx", "BackwardFunction", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` and ``backward`` can do with ``ctx``."""

    _saved: Any = None
    _freed = False
    _materialize_grads = True
    _non_differentiable: Any = ()
    _dirty: Any = ()
    needs_input_grad: tuple = ()

    def save_for_backward(self, *tensors: "Tensor | None") -> None:
        """Keep tensors for backward.  They are checked for in-place changes when
        unpacked, and freed after backward unless ``retain_graph=True``."""
        saved = []
        for i, t in enumerate(tensors):
            if t is None:
                saved.append(None)
            elif isinstance(t, Tensor):
                saved.append(SavedTensor(t, getattr(self, "_name", "")))
            else:
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self._saved = tuple(saved)

    @property
    def saved_tensors(self) -> tuple:
        if self._freed:
            raise RuntimeError(_FREED_MESSAGE)
        if self._saved is None:
            return ()
        return tuple([None if s is None else s.unpack() for s in self._saved])

    def mark_non_differentiable(self, *tensors: "Tensor") -> None:
        """Outputs that are not differentiable (indices, masks): they get ``requires_grad=False``."""
        self._non_differentiable = tuple(tensors)

    def mark_dirty(self, *tensors: "Tensor") -> None:
        """Inputs that ``forward`` modified in place; their history is rewritten to this node."""
        self._dirty = tuple(tensors)

    def set_materialize_grads(self, value: bool) -> None:
        """With True (the default) a missing output gradient reaches backward as zeros, not None."""
        self._materialize_grads = bool(value)


class BackwardFunction(Node, FunctionCtx):
    """The node (and context) that ``Function.apply`` creates; one subclass per Function."""

    _forward_cls: type = None  # type: ignore[assignment]
    _validate = True  # check what a user's backward returns (built-ins are trusted)
    _arg_is_edge: tuple = ()  # set by _link when some argument has no edge: which arguments have one
    _output_meta: tuple = ()  # set by _link: (shape, dtype, device) of each output
    _bfloat16_args: tuple = ()  # set by bfloat16_compute.finish: which arguments were bfloat16
    _all_edges = True  # False (set by _link) when some forward argument has no edge

    def apply(self, grad_outputs: list) -> Sequence:
        if self._freed:
            raise RuntimeError(_FREED_MESSAGE)
        if self._materialize_grads and (grad_outputs[0] is None if len(grad_outputs) == 1
                                        else _is_one_of(None, grad_outputs)):
            grad_outputs = [self._zeros_for(i) if g is None else g for i, g in enumerate(grad_outputs)]
        result = self._forward_cls._user_backward(self, *grad_outputs)
        if type(result) is not tuple:
            result = (result,)
        if self._bfloat16_args:  # forward computed in float32: bfloat16 inputs get bfloat16 gradients
            result = bfloat16_compute.round_gradients(result, self._bfloat16_args)
        if self._validate or not self._all_edges or len(result) != len(self.next_functions):
            return self._checked(result)
        return result  # a built-in op's gradients, one per edge: nothing to check (the usual case)

    def _checked(self, result: tuple) -> list:
        """What ``backward`` returned, checked and matched to the edges: one gradient per
        argument of ``forward`` (extra trailing Nones allowed), and, for a learner's own Function,
        None where an argument was not a tensor, and each gradient's shape, dtype and device."""
        expected = len(self.next_functions) if self._all_edges else len(self._arg_is_edge)
        if len(result) != expected:
            if len(result) > expected and all(r is None for r in result[expected:]):
                result = result[:expected]  # PyTorch allows extra trailing Nones
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                                   f"(expected {expected}, got {len(result)})")
        if self._validate:
            for i, (g, is_edge) in enumerate(zip(result, self._arg_is_edge)):
                if g is not None and not is_edge:
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None at "
                                       f"position {i + 1}, but the corresponding forward input was not a Variable")
        if self._all_edges:
            grads = list(result)
        else:
            grads = [g for g, is_edge in zip(result, self._arg_is_edge) if is_edge]
        if self._validate:
            grads = self._validate_grads(grads)
        return grads

    def __repr__(self) -> str:
        # a learner's own Function -- or one PyTorch itself writes in Python (``_python_in_torch``) --
        # PyTorch prints under torch.autograd.function
        if self._validate or getattr(self._forward_cls, "_python_in_torch", False):
            return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"
        return super().__repr__()

    def _zeros_for(self, index: int) -> "Tensor | None":
        meta = self._output_meta[index]
        if meta is None:  # a non-tensor output (a number forward also returned): its gradient stays None
            return None
        shape, dtype, device = meta
        return Tensor._zeros(shape, dtype, device)

    def _validate_grads(self, grads: list) -> list:
        """PyTorch's ``validate_outputs``: a gradient must match its input's shape
        (or be broadcastable back to it), dtype and device."""
        out = []
        for i, (g, (node, _)) in enumerate(zip(grads, self.next_functions)):
            if g is None or node is None:
                out.append(g if node is not None else None)
                continue
            if not isinstance(g, Tensor):  # (a number, an array: PyTorch's words, with the C type's name)
                kind = type(g)
                name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
                raise RuntimeError(f"expected Variable or None (got {name})")
            shape, dtype, device = self._input_meta[i]
            if tuple(g.shape) != shape:
                if not _expandable(shape, tuple(g.shape)):
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {i} - got "
                        f"[{', '.join(map(str, g.shape))}] but expected shape compatible with "
                        f"[{', '.join(map(str, shape))}]")
                g = g.sum_to_size(shape)
            if g.device != device:
                raise RuntimeError(f"Function {self.name()} returned an invalid gradient at index {i} - "
                                   f"expected device {device} but got {g.device}")
            if g.dtype is not dtype:
                g = g.to(dtype)
            out.append(g)
        return out

    def release(self) -> None:
        if self._saved is not None:
            self._saved = None
            self._freed = True


def _both_backward_and_vjp(ctx: Any, *grad_outputs: Any) -> Any:
    raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                       "You should only implement one of them.")


def _expandable(target: tuple, shape: tuple) -> bool:
    """Can a gradient of ``shape`` be summed down to ``target`` (the reverse of broadcasting)?"""
    if len(shape) < len(target):
        return False
    for t, s in zip(reversed(target), reversed(shape)):
        if t != s and t != 1:
            return False
    return True


class _PythonNodeCheck(type):
    def __instancecheck__(cls, node: Any) -> bool:
        return isinstance(node, BackwardFunction) and (
            node._validate or getattr(node._forward_cls, "_python_in_torch", False))


class BackwardCFunction(metaclass=_PythonNodeCheck):
    """PyTorch's class of the nodes of Python-defined Functions: ``isinstance(y.grad_fn,
    torch.autograd.function.BackwardCFunction)`` tells a learner's own Function from a built-in
    op.  In learntorch the built-in ops are Functions too, so the check looks at the node."""


class _FunctionMeta(type):
    """Gives every Function subclass its own backward-node class, named as PyTorch names it."""

    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        super().__init__(name, bases, attrs)
        node_name = attrs.get("_backward_name") or f"{name}Backward"
        # PyTorch's C++ nodes print as <CopySlices> but name() is "torch::autograd::CopySlices".
        namespace = {"_forward_cls": cls, "_name": node_name, "_validate": attrs.get("_backward_name") is None,
                     "__module__": cls.__module__}
        # ``grad_fn._saved_self`` and the other saved values PyTorch's nodes expose, as properties
        # (``autograd/saved_attributes.py``).  A property, not a ``__getattr__``: a class with
        # ``__getattr__`` makes every attribute read on its instances slower, and the engine
        # reads a node's attributes many times per backward.
        for attr in saved_attribute_names(node_name):
            namespace[attr] = property(functools.partial(saved_attribute, attr=attr))
        cls._backward_cls = type(node_name.rsplit("::", 1)[-1], (BackwardFunction,), namespace)
        # Whether the views it returns may be changed in place later (``Tensor._creation``): a
        # learner's Function's may not; a built-in's may, unless it says otherwise (split's).
        inherited = getattr(cls, "_view_creation", None)
        cls._view_creation = "custom" if namespace["_validate"] else (None if inherited == "custom" else inherited)
        cls._resolve_backward()
        # PyTorch 2's style: ``forward(*args)`` without ctx, plus ``setup_context(ctx, inputs, output)``.
        setup = getattr(cls, "setup_context", None)
        cls._uses_setup_context = setup is not None and not getattr(setup, "_not_overridden", False)


    def _resolve_backward(cls) -> None:
        """``_user_backward``: what the node calls.  A Function may define its backward under
        PyTorch's other name for it, ``vjp`` (not both: that is an error when backward runs)."""
        backward, vjp = inspect.getattr_static(cls, "backward"), inspect.getattr_static(cls, "vjp", None)
        base = globals().get("Function")  # (None while Function itself is being made)
        own_vjp = base is not None and vjp is not inspect.getattr_static(base, "vjp")
        if own_vjp and backward is not vjp and backward is not inspect.getattr_static(base, "backward"):
            type.__setattr__(cls, "_user_backward", staticmethod(_both_backward_and_vjp))
        else:
            type.__setattr__(cls, "_user_backward", vjp if own_vjp else backward)

    def __setattr__(cls, name: str, value: Any) -> None:
        """``MyFn.backward = ...`` after the class statement works too: resolved again, for the
        class and the classes made from it."""
        super().__setattr__(name, value)
        if name in ("backward", "vjp"):
            todo = [cls]
            while todo:
                c = todo.pop()
                c._resolve_backward()
                todo.extend(c.__subclasses__())


class Function(metaclass=_FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``; call ``.apply``.

    ``backward`` returns one gradient per argument of ``forward`` (``None`` for
    non-tensor arguments and inputs that need none).
    """

    _backward_name: str | None = None
    _scalar_edges = False  # built-in binary ops list a Python number as a (None, 0) edge, like PyTorch
    # True: a positional ``None`` stands for an optional tensor that was not given (a convolution's
    # bias, layer_norm's weight).  PyTorch's node still has an input slot for it, so
    # ``next_functions`` lists it as ``(None, 0)``; the Function's backward returns None there.
    # Any positional None becomes an edge, so such a Function passes options that may be None
    # (a ``dim=None``) as keywords.  Off by default: a learner's own Function lists no edge for
    # a None argument, as in PyTorch.
    _none_edges = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warn_always.warn(f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so "
                         "you should invoke them on the class itself. Instantiating an autograd function will raise an "
                         "error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``MyFn()(x)``, the legacy style: refused (call ``MyFn.apply(x)``)."""
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method. "
                           "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:  # type: ignore[misc]
        """Overridden, it makes ``forward`` take no ctx: ``apply`` calls ``forward(*inputs)`` and
        then this, to save tensors and mark outputs (PyTorch 2's documented style)."""
        raise NotImplementedError("setup_context is not implemented.")

    setup_context._not_overridden = True  # type: ignore[attr-defined]
    setup_context = staticmethod(setup_context)
    generate_vmap_rule = False  # accepted for PyTorch programs; learntorch has no vmap to generate a rule for

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward  # PyTorch's other name for backward: a subclass may define either

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        state = grad_mode._state
        prev = state.enabled
        if cls._uses_setup_context:
            args, kwargs = _bind_defaults(cls.forward, args, kwargs), {}
        elif kwargs and cls._backward_cls._validate:  # a learner's Function called with keywords
            args, kwargs = _keywords_as_positions(cls.forward, args, kwargs), {}
        needs = _needs_input_grad(args)
        # (enable_grad inside inference_mode records nothing)
        record = prev and True in needs and not (grad_mode.used and state.inference)
        # Only a recorded call needs a real node; otherwise a throw-away context will do.
        ctx = cls._backward_cls() if record else _UnrecordedCtx()
        ctx.needs_input_grad = needs
        if prev:
            state.enabled = False  # forward records nothing itself
            forwarding, state.forwarding = state.forwarding, True
        try:
            if dtype_bfloat16.made and cls._backward_name is not None and bfloat16_compute.has_bfloat16(args, kwargs):
                outputs, ctx = _forward_in_float32(cls, ctx, args, kwargs, record)
            elif cls._uses_setup_context:
                outputs = _forward(cls, ctx, args, kwargs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            if prev:
                state.enabled = True
                state.forwarding = forwarding
        if isinstance(outputs, tuple) or getattr(outputs, "_base", None) is not None:  # (a number: no view)
            _remember_views(cls, args, kwargs, outputs, Tensor)
            if prev:
                if cls._view_creation is not None:  # (split's views, a learner's Function's: one class read)
                    _mark_view_creation(cls._view_creation, args, outputs)
            elif not state.forwarding and args and getattr(args[0], "_requires_grad", False):
                _mark_no_grad_views(args, outputs, state.inference)  # (the user's no_grad, not a forward's)
        if record:
            if anomaly_mode._mode["enabled"]:
                anomaly_mode.record_forward_stack(ctx)
            if type(outputs) is Tensor and not ctx._dirty and not ctx._non_differentiable:
                return _link_one(ctx, cls, args, outputs)  # the common case: one new result
            single = not isinstance(outputs, tuple)
            outs = _link(ctx, cls, args, (outputs,) if single else outputs, ctx._dirty)
            return outs[0] if single else outs
        for t in ctx._dirty:
            if prev:
                t._check_inplace()
            t._version_counter[0] += 1
        return outputs


def _needs_input_grad(args: tuple) -> tuple:
    """``ctx.needs_input_grad``: which arguments are tensors that require grad.  (Asked once
    per operation; one and two arguments, the usual counts, are spelled out.)"""
    if len(args) == 2:
        a, b = args
        return (isinstance(a, Tensor) and a._requires_grad, isinstance(b, Tensor) and b._requires_grad)
    if len(args) == 1:
        a = args[0]
        return (isinstance(a, Tensor) and a._requires_grad,)
    return tuple([isinstance(a, Tensor) and a._requires_grad for a in args])


def _forward_in_float32(cls: type, ctx: Any, args: tuple, kwargs: dict, record: bool) -> tuple:
    """A built-in operation with bfloat16 arguments: run ``forward`` on float32 stand-ins
    and round the results once (``bfloat16_compute``), as PyTorch's CPU kernels do.
    Returns the outputs and the context (a new one, when the operation had to be run again
    on the bfloat16 tensors themselves)."""
    swapped = bfloat16_compute.stand_ins(cls._backward_name, args, kwargs, Tensor)
    if swapped is None:  # nothing computes in bfloat16 here (``bf16 + float32`` is float32 anyway)
        return _forward(cls, ctx, args, kwargs), ctx
    f_args, f_kwargs, originals = swapped
    needs = ctx.needs_input_grad
    try:
        outputs = _forward(cls, ctx, f_args, f_kwargs)
        redo = bfloat16_compute.only_moved_data(ctx, outputs, originals)  # a view, a write
    except Exception:
        redo = True  # let the error come from the bfloat16 tensors: its message names their dtype
    if redo:
        ctx = cls._backward_cls() if record else _UnrecordedCtx()
        ctx.needs_input_grad = needs
        return _forward(cls, ctx, args, kwargs), ctx
    return bfloat16_compute.finish(ctx, outputs, args, kwargs, originals), ctx


def _forward(cls: type, ctx: Any, args: tuple, kwargs: dict) -> Any:
    """Run ``forward`` in either style: with ``ctx``, or without it and then ``setup_context``."""
    if cls._uses_setup_context:
        outputs = cls.forward(*args)
        cls.setup_context(ctx, args, outputs)
        return outputs
    return cls.forward(ctx, *args, **kwargs)


def _keywords_as_positions(forward: Any, args: tuple, kwargs: dict) -> tuple:
    """``MyFn.apply(x, scale=2.0)``: PyTorch puts each keyword argument at its position in
    ``forward(ctx, ...)`` and then calls ``forward`` positionally, so ``ctx.needs_input_grad``
    has an entry for it.  Defaults are *not* filled in: a gap before a keyword argument is an
    error, even where that parameter has a default."""
    names = [p.name for p in inspect.signature(forward).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]  # (without ctx)
    placed = {}
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{name}'")
        index = names.index(name)
        if index < len(args):
            raise TypeError(f"forward() got multiple values for argument '{name}'")
        placed[index] = value
    out = list(args)
    for index in range(len(args), max(placed) + 1):
        if index not in placed:
            raise TypeError(f"forward() missing required argument: '{names[index]}' (position {index})")
        out.append(placed[index])
    return tuple(out)


def _bind_defaults(forward: Any, args: tuple, kwargs: dict) -> tuple:
    """``forward``'s arguments as one positional tuple with its defaults filled in: the
    ``inputs`` that ``setup_context`` receives (PyTorch binds them the same way)."""
    bound = inspect.signature(forward).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args)


def _remember_views(cls: type, args: tuple, kwargs: dict, outputs: Any, Tensor: type) -> None:
    """Give each view that ``forward`` returned a way to make it again from its base.

    An in-place change to a view (``h[:, 0] *= 2``) changes its base too, so the
    base's history must be rewritten (``CopySlices``): that needs the view's
    recipe, which is simply "apply this Function to the base again"."""
    if not args or not isinstance(args[0], Tensor):
        return
    multi = isinstance(outputs, tuple)
    for i, out in enumerate(outputs if multi else (outputs,)):
        if (isinstance(out, Tensor) and out._base is not None and out._view_fn is None
                and not _is_one_of(out, args)):
            out._view_fn = _replay(cls, args[0], args[1:], kwargs, i if multi else None)


def _mark_no_grad_views(args: tuple, outputs: Any, inference: bool) -> None:
    """Views made with grad mode off (``no_grad`` or ``inference_mode``) may not be changed in place
    later with grad mode on (PyTorch's CreationMeta; the check is ``Tensor._check_inplace``).

    Called only for views of a tensor that requires grad (of another, no change in place is
    ever recorded, so none needs refusing).  Such a view requires grad too, as in PyTorch
    (``with no_grad(): row = w[0]`` prints ``requires_grad=True``), without a history:
    operations on it are recorded, but no gradient reaches it (``Tensor._gradient_edge``)."""
    for out in outputs if isinstance(outputs, tuple) else (outputs,):
        if isinstance(out, Tensor) and out._base is not None and out._dtype.is_floating_point:
            out._requires_grad = out._base_requires_grad = True
    _mark_view_creation("inference" if inference else "no_grad", args, outputs)


def _mark_view_creation(creation: str, args: tuple, outputs: Any) -> None:
    """Note on each view that ``forward`` returned how it was made, when that forbids changing it
    in place later with grad mode on (``Tensor._creation``): made with grad mode off, one of
    several views from one call (``split``, ``unbind``: ``Function._view_creation``), or returned
    by a learner's Function."""
    for out in outputs if isinstance(outputs, tuple) else (outputs,):
        if (isinstance(out, Tensor) and out._base is not None and out._creation != "inference"
                and not _is_one_of(out, args)):
            out._creation = creation


def _replay(cls: type, source: Any, rest: tuple, kwargs: dict, index: Any) -> Any:
    parent = source._view_fn
    if source._base is not None and parent is None:
        return None  # a view we cannot rebuild: in-place changes through it are refused

    def view_fn(base: Any) -> Any:
        x = parent(base) if parent is not None else base
        out = cls.apply(x, *rest, **kwargs)
        return out if index is None else out[index]
    return view_fn


class _UnrecordedCtx(FunctionCtx):
    """The context of a call that builds no graph (grad mode off, or no input needs
    grad): forward may still save and mark, but nothing is kept."""

    def save_for_backward(self, *tensors: Any) -> None:
        pass


_NO_EDGE = (None, 0)


def _link_inputs(ctx: BackwardFunction, cls: type, args: tuple) -> None:
    """Point ``ctx`` at the nodes its tensor arguments' gradients go to (``next_functions``),
    one edge per tensor argument (and per Python number, for the built-in binary ops, and per
    ``None`` given for an optional tensor, for the Functions with ``_none_edges``);
    a custom Function also keeps each input's shape, dtype and device, to check what its
    backward returns."""
    edges = []
    meta = [] if ctx._validate else None
    for a in args:
        if isinstance(a, Tensor):
            if a.grad_fn is not None:  # (Tensor._gradient_edge, inlined: it runs for every input)
                edges.append((a.grad_fn, a._output_nr))
            else:
                edges.append(a._gradient_edge() if a._requires_grad else _NO_EDGE)
            if meta is not None:
                meta.append((tuple(a.shape), a.dtype, a.device))
        elif (cls._scalar_edges and isinstance(a, (int, float))) or (a is None and cls._none_edges):
            edges.append(_NO_EDGE)  # a number, or an optional tensor not given: an edge to nothing
            if meta is not None:
                meta.append(None)
        else:
            edges.append(None)  # an argument without an edge (a dim, a flag): dropped below
    if None in edges:
        ctx._arg_is_edge = tuple([e is not None for e in edges])
        ctx._all_edges = False
        edges = [e for e in edges if e is not None]
    ctx.next_functions = tuple(edges)
    if meta is not None:
        ctx._input_meta = tuple(meta)


def _link_one(ctx: BackwardFunction, cls: type, args: tuple, out: Tensor) -> Tensor:
    """:func:`_link` for the common case, one tensor result and nothing marked dirty or
    non-differentiable: the same steps, without the loops over outputs."""
    _link_inputs(ctx, cls, args)
    ctx._output_meta = ((out._data.shape, out._dtype, out._device),)
    for a in args:
        if a is out:  # forward returned an input as it is: give the result an alias of its own
            out = out._alias()
            break
    if out._dtype.is_floating_point:  # integer results (argmax, indices) never require grad
        out.grad_fn = ctx  # (Tensor._set_history, inlined)
        out._output_nr = 0
        out._requires_grad = True
        if ctx._saved:
            _forget_saved_outputs(ctx, (out,))
    return out


def _link(ctx: BackwardFunction, cls: type, args: tuple, outs: tuple, dirty: tuple) -> tuple:
    """Make ``ctx`` the ``grad_fn`` of the outputs and point it at the inputs' nodes.

    Returns the outputs, where an input returned unchanged is replaced by an alias
    (a new tensor on the same storage), so the input keeps its own history."""
    _link_inputs(ctx, cls, args)
    ctx._num_outputs = len(outs)
    non_diff = ctx._non_differentiable
    for t in dirty:
        if not _is_one_of(t, outs):
            raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                               "output. The inputs that are modified inplace must all be outputs of the Function.")
        if t.is_leaf and t._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    output_meta = []
    outs = list(outs)
    for nr, out in enumerate(outs):
        if not isinstance(out, Tensor):
            output_meta.append(None)
            continue
        output_meta.append((out._data.shape, out._dtype, out._device))
        if non_diff and any(out is t for t in non_diff):
            out.requires_grad_(False) if out.is_leaf else None
            continue
        if dirty and any(out is t for t in dirty):
            out._check_inplace()
            out._version_counter[0] += 1
        elif _is_one_of(out, args):
            out = outs[nr] = out._alias()
        if not out._dtype.is_floating_point:
            continue  # integer results (argmax, indices) never require grad
        out._set_history(ctx, nr)
    ctx._output_meta = tuple(output_meta)
    _forget_saved_outputs(ctx, tuple(o for o in outs if isinstance(o, Tensor) and o.grad_fn is ctx))
    for out in outs:
        if (dirty and isinstance(out, Tensor) and out._base is not None and out.grad_fn is ctx
                and out._view_fn is not None and _is_one_of(out, dirty)):
            _rebase_dirty_view(out)
    # A dirty tensor now has ``ctx`` as its grad_fn: keeping it on ``ctx`` would be a reference cycle
    # (tensor -> node -> tensor), and the graph would live on until the garbage collector ran.
    ctx._dirty = ()
    return tuple(outs)


# ``ops/inplace.py``'s ``rewrite_base_history(view, value)`` (CopySlices), which it registers
# here with :func:`set_base_history_rewriter`: the ops sit a layer above autograd.
_rewrite_base_history: Optional[Callable[[Tensor, Tensor], Any]] = None


def set_base_history_rewriter(fn: Callable[[Tensor, Tensor], Any]) -> None:
    global _rewrite_base_history
    _rewrite_base_history = fn


def _rebase_dirty_view(view: Tensor) -> None:
    """A view that forward changed in place (``mark_dirty``) changed its base too: as for a
    built-in in-place op on a view, the base's history is rewritten (``CopySlices``) so that its
    gradient, inside the view's region, goes through this Function's backward."""
    if _rewrite_base_history is None:
        return
    value = Tensor._make(view._data, view._device)
    value._set_history(view.grad_fn, view._output_nr)
    _rewrite_base_history(view, value)


def _forget_saved_outputs(ctx: BackwardFunction, outs: tuple) -> None:
    """Each saved tensor that is one of ``outs`` (now that they have ``ctx`` as their
    ``grad_fn``, as PyTorch decides it too) is kept without the tensor itself:
    :meth:`SavedTensor.forget_output` says why."""
    for s in ctx._saved or ():
        if s is not None and s.tensor is not None and s.unpack_hook is None and _is_one_of(s.tensor, outs):
            s.forget_output(ctx)


def _is_one_of(obj: Any, items: tuple) -> bool:
    """``any(obj is x for x in items)`` without a generator: ``_link`` and the backward node
    ask it once per recorded operation (``obj in items`` would compare tensors with ``==``)."""
    for x in items:
        if x is obj:
            return True
    return False


def once_differentiable(fn: Any) -> Any:
    """Mark a ``backward`` that cannot itself be differentiated (it uses NumPy, say).

    The backward runs with grad mode off, so it records no graph.  When grad mode is
    on and some arriving gradient requires grad (a double backward through this
    Function is under way), each result is detached, marked ``requires_grad=True``
    and passed through :class:`_OnceDifferentiableError` (grad_fn ``<Error>``), whose
    backward raises "trying to differentiate twice ..." -- exactly what PyTorch does.
    Otherwise the results come back as they are.
    """
    @functools.wraps(fn)
    def wrapper(ctx: Any, *grads: Any) -> Any:
        with grad_mode.no_grad():
            result = fn(ctx, *grads)
        if not grad_mode.is_grad_enabled() or not any(isinstance(g, Tensor) and g.requires_grad for g in grads):
            return result
        results = result if isinstance(result, tuple) else (result,)
        marked = [r.detach().requires_grad_(True) if isinstance(r, Tensor) else r for r in results]
        if not any(isinstance(r, Tensor) for r in marked):
            return result
        wrapped = _OnceDifferentiableError.apply(*marked)
        wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
        return wrapped if isinstance(result, tuple) else wrapped[0]

    return wrapper


class _OnceDifferentiableError(Function):
    """PyTorch's ``DelayedError`` node: identity forward; a backward that explains why a
    second derivative through a ``@once_differentiable`` backward is impossible."""

    _backward_name = "torch::autograd::Error"

    @staticmethod
    def forward(ctx: Any, *xs: Any) -> Any:
        outs = tuple(x.clone() if x is not None else None for x in xs)
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")
