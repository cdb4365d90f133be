"""Nodes of the backward graph: ``grad_fn`` objects, ``AccumulateGrad``, saved tensors, hook handles.

Every result of a differentiable operation points to a :class:`Node` (its
``grad_fn``).  A node knows the nodes of its inputs (``next_functions``, a tuple
of ``(node, input_nr)`` pairs, ``None`` where an input needs no gradient) and
how to turn the gradient of its outputs into gradients of its inputs.  Leaves
that require grad end the graph in an :class:`AccumulateGrad`, which adds the
arriving gradient into the leaf's ``.grad``.

Tensor hooks live here too: on the node that *receives* the tensor's gradient
(the tensor's ``grad_fn`` at its ``output_nr``; for a leaf, on the leaf itself,
read by its ``AccumulateGrad``).  The engine calls them when it runs that node.
"""
from __future__ import annotations

import itertools
import re
import threading
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Optional

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "RemovableHandle", "next_sequence_nr"]

_sequence = itertools.count()
_handle_ids = itertools.count()
_MAX_SEQ = 2**64 - 1  # AccumulateGrad's priority in the engine, as in PyTorch


class _Task(threading.local):
    task: Optional[Any] = None


_local = _Task()


def current_task() -> Optional[Any]:
    """The backward pass (engine.GraphTask) running in this thread, if any (AccumulateGrad asks it things)."""
    return _local.task


def next_sequence_nr() -> int:
    """Nodes are numbered in creation order; the engine runs the newest ready node first."""
    return next(_sequence)


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` takes the hook out again."""

    __slots__ = ("_hooks_ref", "id")

    def __init__(self, hooks: "OrderedDict[int, Any]") -> None:
        self.id = next(_handle_ids)
        self._hooks_ref = weakref.ref(hooks)

    def remove(self) -> None:
        hooks = self._hooks_ref()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __repr__(self) -> str:  # PyTorch's class lives in torch.utils.hooks (learntorch.utils.hooks here)
        return f"<torch.utils.hooks.RemovableHandle object at {hex(id(self))}>"

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class _HookDict(OrderedDict):
    """An OrderedDict that a weakref can point to (handles must not keep it alive).

    It prints as PyTorch's hook tables do (``OrderedDict([(0, <function hook ...>)])``)."""

    def __repr__(self) -> str:
        return "OrderedDict(" + (repr(list(self.items())) if self else "") + ")"


def add_hook(hooks: Optional[_HookDict], fn: Callable) -> tuple[_HookDict, RemovableHandle]:
    """Append ``fn`` to an ordered hook table (creating it if needed); return both."""
    if hooks is None:
        hooks = _HookDict()
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return hooks, handle


_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    Unpacking checks the version again: if the tensor was changed in place
    since (``x.add_(1)``, ``x[0] = 5``, an optimizer step), the saved value is
    no longer the one the forward used, so the gradient would be silently
    wrong.  PyTorch raises instead, and so do we.
    """

    __slots__ = ("tensor", "version", "saver", "packed", "unpack_hook", "output_of")

    def __init__(self, tensor: "Tensor", node_name: str) -> None:
        if tensor._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
                "in computation tracked by autograd. To work around this, you can make a clone to get a normal "
                "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
        self.tensor = tensor
        self.version = tensor._version_counter[0]
        # A tensor with no grad_fn yet while forward runs is the saving node's own
        # output (``exp`` saves its result): PyTorch's message then names the saver.
        # For a saved input it names the input's grad_fn at the time of the error.
        self.saver = node_name if tensor.grad_fn is None else None
        self.unpack_hook: Optional[Callable] = None
        self.output_of: Optional[weakref.ref] = None
        if _saved_hooks_stack:  # autograd.graph.saved_tensors_hooks: store what pack returns instead
            pack, unpack = _saved_hooks_stack[-1]
            self._set_hooks(pack, unpack)

    def forget_output(self, node: "Node") -> None:
        """This tensor is a result of ``node``, the node that saved it (``exp``, ``tanh``,
        ``relu``, softmax save their result): keep its array, device and version counter,
        and only a *weak* reference to the node, as PyTorch does.

        Holding the result itself would close a reference cycle (result → ``grad_fn`` →
        saved result → result) that only Python's cyclic garbage collector frees: each
        result's memory would stay allocated until the next collection, and every new
        result would need fresh memory (a recorded ``relu`` on 256 × 512 was five times
        slower than an unrecorded one).  So ``y.grad_fn._saved_result`` equals ``y`` but
        is not ``y``: a new tensor on the same memory with the same history, made when
        backward (or a program) asks for it."""
        t = self.tensor
        self.tensor = None
        self.packed = (t._remade, t._data, t._device, t._dtype, t._version_counter, t._output_nr)
        self.output_of = weakref.ref(node)

    def _output(self) -> "Tensor":
        """The result that :meth:`forget_output` let go of, made again (with the same version
        counter, so in-place changes of the result are still seen)."""
        remade, data, device, dtype, counter, output_nr = self.packed
        return remade(data, device, dtype, counter, self.output_of(), output_nr)

    def peek(self) -> Optional["Tensor"]:
        """The saved tensor as it is now, without the version check or the unpack hook (for
        drawing a graph); None when a saved-tensors hook holds it."""
        return self._output() if self.output_of is not None else self.tensor

    def _set_hooks(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        if self.output_of is not None:
            self.tensor, self.output_of = self._output(), None
        version = self.tensor._version_counter[0]
        self.packed = pack_hook(self.tensor)
        if self.tensor._version_counter[0] != version:
            raise RuntimeError("A saved tensor pack hook is modifying its input in place. Tensors provided as input "
                               "to pack hook cannot be modified by in-place operations as this can lead to "
                               "unexpected side-effects. Please open an issue if you need to perform in-place "
                               "operations on the input to a pack hook.")
        self.unpack_hook = unpack_hook
        self.tensor = None  # the hooks own the value now (save_on_cpu keeps only a CPU copy)

    def register_hooks(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        """``grad_fn._raw_saved_self.register_hooks(pack, unpack)``: pack this one saved tensor now,
        unpack it when backward reads it."""
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks(): incompatible function arguments: pack_hook and unpack_hook must "
                            "be callables")
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: "
                               "only one pair of hooks is allowed at a time.")
        self._set_hooks(pack_hook, unpack_hook)

    def unpack(self) -> "Tensor":
        if self.unpack_hook is not None:
            return self.unpack_hook(self.packed)
        t = self.tensor if self.output_of is None else self._output()
        now = t._version_counter[0]
        if now != self.version:
            kind = {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor"}.get(
                t.dtype.name, t.dtype.name)
            out = ""
            if t.grad_fn is not None:
                maker = re.sub(r"Backward\d*$", "", self.saver or t.grad_fn.name())
                out = f", which is output {t._output_nr if not self.saver else 0} of {maker},"
            shape = ", ".join(str(s) for s in t.shape)
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [torch.{kind} [{shape}]]{out} is at version {now}; expected version "
                f"{self.version} instead. Hint: enable anomaly detection to find the operation that failed to "
                "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
        return t


# (pack_hook, unpack_hook) pairs of the active ``autograd.graph.saved_tensors_hooks`` blocks, innermost last
_saved_hooks_stack: list = []


class Node:
    """Base of every ``grad_fn``.

    Subclasses implement :meth:`apply` (gradients of outputs in, gradients of
    inputs out, one per entry of ``next_functions``).  Hook tables are created
    on first use so a node that never gets a hook costs nothing for them.
    """

    _name: str = "Node"
    # Hook tables and retain_grad records start as these class-level Nones and become
    # instance attributes when first used: most nodes never get one, and every
    # operation makes a node, so a node costs only what __init__ sets.
    _pre_hooks: Optional[_HookDict] = None
    _post_hooks: Optional[_HookDict] = None
    _tensor_pre_hooks: Optional[dict[int, _HookDict]] = None
    _retains_grad: Optional[dict[int, Any]] = None
    _num_outputs = 1
    next_functions: tuple = ()  # set on the instance when the node is linked into a graph
    _saved: Any = None  # the tensors a Function's node saved for backward (the engine releases them)

    def __init__(self) -> None:
        self._seq_nr = next(_sequence)

    # -- what PyTorch's Node offers ------------------------------------------------
    def name(self) -> str:
        return self._name

    def _sequence_nr(self) -> int:
        """The order in which nodes were made (a method, as in PyTorch): when several nodes are
        ready, the engine runs the one made last first."""
        return self._seq_nr

    def __repr__(self) -> str:
        # PyTorch prints the class name: <AccumulateGrad object at ...>, while name() is
        # "torch::autograd::AccumulateGrad"
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict:
        if "_metadata" not in self.__dict__:
            self._metadata: dict = {}
        return self._metadata

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """A post hook ``fn(grad_inputs, grad_outputs)``, run after this node; may return new grad_inputs."""
        self._post_hooks, handle = add_hook(self._post_hooks, fn)
        return handle

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """A pre hook ``fn(grad_outputs)``, run before this node; may return new grad_outputs."""
        self._pre_hooks, handle = add_hook(self._pre_hooks, fn)
        return handle

    def apply(self, grad_outputs: list) -> list:
        raise NotImplementedError

    def __call__(self, *grad_outputs: Any) -> Any:
        """Run the backward formula by hand, as ``grad_fn(grad)`` does in PyTorch."""
        out = self.apply(list(grad_outputs))
        return out[0] if len(out) == 1 else tuple(out)

    # -- used by the engine ----------------------------------------------------------
    def tensor_pre_hooks(self, index: int) -> Optional[_HookDict]:
        """Hooks registered with ``tensor.register_hook`` on output ``index`` of this node."""
        return self._tensor_pre_hooks.get(index) if self._tensor_pre_hooks else None

    def add_tensor_pre_hook(self, index: int, fn: Callable) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        table, handle = add_hook(self._tensor_pre_hooks.get(index), fn)
        self._tensor_pre_hooks[index] = table
        return handle

    def retained_tensor(self, index: int) -> Optional["Tensor"]:
        """The non-leaf output ``index`` whose ``.grad`` must be kept (``retain_grad``), if any."""
        if not self._retains_grad:
            return None
        ref = self._retains_grad.get(index)
        return ref() if ref is not None else None

    def release(self) -> None:
        """Free saved tensors after backward (unless ``retain_graph``)."""


def _obeys_layout(grad: "Tensor", var: "Tensor") -> bool:
    """PyTorch's layout contract for ``.grad``: a densely stored leaf gets a gradient with its own
    strides (a channels-last or transposed weight, a channels-last or transposed ``.grad``, so the
    optimizer's element-wise update walks both in the same order); any other leaf, a row-major one.
    Dimensions of size 1 may have any stride but 0.  (The usual case, equal strides, is one test.)"""
    have, want = getattr(grad._data, "strides", None), getattr(var._data, "strides", None)
    if have == want:  # (the array-API stand-in has no strides: None == None)
        return True
    dense = var._dense_strides()
    if dense is None:
        return bool(grad._data.flags.c_contiguous)
    return all(s == d if n != 1 else s != 0 for s, d, n in zip(grad.stride(), dense, var.shape))


def _copy_in_layout(grad: "Tensor", var: "Tensor") -> "Tensor":
    """A copy of ``grad`` that obeys the layout contract above (``var``'s strides when it is stored
    densely, else row-major): what a leaf keeps when it may not keep ``grad`` itself."""
    if _obeys_layout(grad, var):
        return grad.detach().clone()
    like = var._data if var._dense_strides() is not None else None
    data = grad._backend.xp.empty_like(like) if like is not None else grad._backend.xp.empty(tuple(grad.shape),
                                                                                            dtype=grad._data.dtype)
    data[...] = grad._data
    return type(grad)._make(data, grad._device)


class AccumulateGrad(Node):
    """The end of the graph for a leaf: adds the arriving gradient into ``leaf.grad``.

    Runs before any other ready node (the highest sequence number), so a leaf's
    ``.grad`` is up to date as early as possible, as in PyTorch.
    """

    _name = "torch::autograd::AccumulateGrad"

    def __init__(self, variable: "Tensor") -> None:
        super().__init__()
        self._seq_nr = _MAX_SEQ
        self.variable = variable

    def tensor_pre_hooks(self, index: int) -> Optional[_HookDict]:
        return self.variable._hooks

    def apply(self, grad_outputs: list) -> list:
        grad = grad_outputs[0]
        if grad is None:
            return []
        var = self.variable
        task = current_task()
        create_graph = task is not None and task.create_graph
        if grad._device != var._device:
            raise RuntimeError(f"expected a gradient on {var.device} for a leaf on {var.device}, got one on {grad.device}")
        if grad._dtype is not var._dtype:  # the engine casts gradients to their input's dtype, as PyTorch does
            grad = grad.to(var.dtype)
        if var._grad is None:
            if create_graph:  # a copy, as PyTorch makes (CopyBackwards): never a view of another tensor
                var._grad = grad._filled_like(0).copy_(grad)
            elif task is not None and task.may_keep(grad) and _obeys_layout(grad, var):
                var._grad = grad._kept_as_grad()
            else:
                var._grad = _copy_in_layout(grad, var)
        elif create_graph:
            var._grad = var._grad + grad
        else:  # in place, as PyTorch does: views of .grad see it, and a .grad with a history
            var._grad._accumulate_(grad)  # (from create_graph=True) keeps that history
        post = var._post_accumulate_grad_hooks
        if post:  # Tensor.register_post_accumulate_grad_hook: after .grad is updated, with the tensor
            for fn in list(post.values()):
                result = fn(var)
                if result is not None:  # PyTorch's words for a hook that returns something
                    raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
        return []
