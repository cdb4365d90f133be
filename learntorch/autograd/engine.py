"""The backward engine: runs the graph's nodes in the right order, once each.

``loss.backward()`` comes here.  The engine

1. walks the graph from the roots once (iteratively: deep graphs such as long
   RNN unrolls must not hit Python's recursion limit) and counts, for each
   node, how many edges lead into it (its *dependencies*);
2. keeps a *ready* queue of nodes whose gradients are complete: all their
   dependencies have delivered.  Like PyTorch's CPU engine it always runs the
   ready node created *last* first (highest sequence number), and
   ``AccumulateGrad`` before anything else;
3. runs a node: first the tensor hooks of the tensors whose gradient it
   receives (in registration order, each seeing the previous one's result),
   then ``retain_grad``'s record, then the node's pre hooks, the node itself and
   its post hooks; then it adds the node's results into its inputs' buffers;
4. frees each node's saved tensors after it ran, unless ``retain_graph``.

That order is what makes hook order in chapter 04 predictable.
"""
from __future__ import annotations

import heapq
from typing import Any, Optional, Sequence, Union

from .. import warn_always
from . import anomaly_mode, grad_mode
from .graph import GradientEdge
from .node import AccumulateGrad, Node, _local, current_task
from ..tensor import Tensor

__all__ = ["run_backward", "current_task"]


# ``_local.task`` is the backward pass running in this thread; ``current_task()`` reads it.
# Both live in node.py, where AccumulateGrad asks the task things on every call.


class GraphTask:
    """The state of one backward pass."""

    def __init__(self, create_graph: bool, retain_graph: bool) -> None:
        self.create_graph = create_graph
        self.retain_graph = retain_graph
        # Gradient tensors that somebody else may also hold (handed to a hook, given
        # by the user, or passed down two edges): a leaf must copy them, not keep them.
        self._shared: dict[int, Any] = {}

        self._delivered: dict[int, Any] = {}
        self._reached: dict = {}  # the nodes this pass will reach (set by run_backward)
        # ``autograd.grad`` or ``backward(inputs=...)``: only the paths to some inputs run, which
        # a reentrant checkpoint cannot honour (``utils/checkpoint.py`` refuses it, as PyTorch does).
        self.only_some_inputs = False

    def will_execute(self, node: Node) -> bool:
        """Does this pass reach ``node``?  (``register_multi_grad_hook`` asks, to know which
        of its tensors will get no gradient in this pass.)"""
        return node in self._reached

    def share(self, grad: Any) -> None:
        self._shared[id(grad)] = grad

    def deliver(self, grad: Any) -> None:
        """Note a gradient put into a buffer; the same object twice means it is shared."""
        if id(grad) in self._delivered:
            self.share(grad)
        else:
            self._delivered[id(grad)] = grad

    def may_keep(self, grad: "Tensor") -> bool:
        """Whether AccumulateGrad may keep this gradient's buffer as ``.grad`` without
        a copy — PyTorch's "steal the gradient if nobody else holds it".

        A view may be kept too when it spans all of its base's buffer and that base is a
        gradient of this pass that nobody else holds.  That is ``W``'s gradient in every
        ``nn.Linear``: ``AddmmBackward0`` makes it for ``W.t()`` as ``(gᵀ·x)ᵀ`` and
        ``TBackward0`` transposes it back.  PyTorch steals it as well; copying it would
        cost a pass over the weights' size in every step."""
        if id(grad) in self._shared:
            return False
        base = grad._base
        if base is None:
            return grad._backend.owns(grad._data)
        return (id(base) in self._delivered and id(base) not in self._shared
                and grad._backend.spans_fresh_buffer(grad._data))


def _call_tensor_hooks(node: Node, grads: list, task: GraphTask) -> list:
    """Run ``register_hook`` hooks and ``retain_grad`` for each gradient arriving at ``node``."""
    if node._tensor_pre_hooks is None and node._retains_grad is None and not isinstance(node, AccumulateGrad):
        return grads  # the common case: nobody is watching this node
    for i, g in enumerate(grads):
        if g is None:
            continue
        hooks = node.tensor_pre_hooks(i)
        if hooks:
            for fn in list(hooks.values()):
                task.share(g)
                result = fn(g)
                if result is not None:
                    g = _check_hook_result(result, g, fn)
            grads[i] = g
        retained = node.retained_tensor(i)
        if retained is not None:
            retained._retain(g)
    return grads


def _check_hook_result(result: Any, grad: "Tensor", hook: Any = None) -> "Tensor":
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    name = getattr(hook, "__name__", "hook")
    if result.dtype is not grad.dtype or result.device.type != grad.device.type:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {grad.type()} got {result.type()})")
    if tuple(result.shape) != tuple(grad.shape):
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    return result


def run_backward(roots: Sequence["Tensor"], grad_roots: Sequence["Tensor"], *, retain_graph: bool,
                 create_graph: bool, inputs: Optional[Sequence["Tensor"]] = None,
                 accumulate: bool = True) -> Optional[list]:
    """Backpropagate ``grad_roots`` from ``roots``.

    With ``accumulate`` the leaves' ``.grad`` are updated (``backward``); without
    it the gradients of ``inputs`` are captured and returned (``autograd.grad``).
    """
    root_edges = [t._gradient_edge() for t in roots]
    for (node, _), t in zip(root_edges, roots):
        if node is None:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    task = GraphTask(create_graph, retain_graph)
    for g in grad_roots:
        task.share(g)

    input_edges = [t._gradient_edge() for t in inputs] if inputs is not None else []
    captures: dict[Node, list[tuple[int, int]]] = {}
    for k, (node, nr) in enumerate(input_edges):
        if node is not None:
            captures.setdefault(node, []).append((nr, k))
    targets = set(captures)
    runs = _nodes_to_run(root_edges, targets, accumulate) if inputs is not None else None
    deps = _dependencies(root_edges, runs, targets)
    task._reached = deps
    task.only_some_inputs = inputs is not None

    buffers: dict[Node, list] = {}
    ready: list = []
    tie = 0
    for (node, nr), g in zip(root_edges, grad_roots):
        _add_to_buffer(buffers, node, nr, g, task)
    for node, _ in root_edges:
        deps[node] -= 1
        if deps[node] == 0:
            heapq.heappush(ready, (-node._seq_nr, tie, node))
            tie += 1

    captured: list = [None] * len(input_edges)
    previous_task = _local.task
    _local.task = task
    # Grad mode during the pass is ``create_graph``, for hooks and nodes alike (as in PyTorch's
    # engine), set once here.  Loop invariants are looked up once too: this loop runs once per
    # node of every backward pass, so its own bookkeeping is a visible share of a small model's step.
    state, anomaly = grad_mode._state, anomaly_mode._mode
    previous_mode = state.enabled
    state.enabled = create_graph
    delivered = task._delivered
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            grads = buffers.pop(node)
            # Only a watched node pays for the hook call: one with tensor hooks or a retain_grad
            # record, or a leaf's AccumulateGrad whose leaf has hooks (it keeps them on the tensor).
            if (node._tensor_pre_hooks is not None or node._retains_grad is not None
                    or (isinstance(node, AccumulateGrad) and node.variable._hooks)):
                grads = _call_tensor_hooks(node, grads, task)
            if captures:
                for nr, k in captures.get(node, ()):
                    captured[k] = grads[nr]
            if runs is not None and node not in runs:
                continue
            if node._pre_hooks:
                for fn in list(node._pre_hooks.values()):
                    result = fn(tuple(grads))
                    if result is not None:
                        grads = _node_hook_result(result, grads, fn)
            try:
                grad_inputs = node.apply(grads)
                if anomaly["enabled"] and anomaly["check_nan"]:
                    anomaly_mode.check_nan(node, grad_inputs)
            except Exception:
                if anomaly["enabled"]:
                    anomaly_mode.report_failure(node)
                raise
            if node._post_hooks:
                for fn in list(node._post_hooks.values()):
                    result = fn(tuple(grad_inputs), tuple(grads))
                    if result is not None:
                        grad_inputs = _node_hook_result(result, grad_inputs, fn)
            if not retain_graph and node._saved is not None:  # (a node that saved nothing has nothing to free)
                node.release()
            for (nxt, nr), g in zip(node.next_functions, grad_inputs):
                left = deps.get(nxt)  # None: no edge (nxt is None) or a node this pass skips
                if left is None:
                    continue
                buf = buffers.get(nxt)
                if buf is None:
                    buf = buffers[nxt] = [None] * nxt._num_outputs
                if g is not None:
                    if buf[nr] is None and id(g) not in delivered:  # the common case, inline
                        delivered[id(g)] = g
                        buf[nr] = g
                    else:
                        _add_to_buffer(buffers, nxt, nr, g, task)
                deps[nxt] = left - 1
                if left == 1:
                    heapq.heappush(ready, (-nxt._seq_nr, tie, nxt))
                    tie += 1
    finally:
        state.enabled = previous_mode
        _local.task = previous_task
    return captured if inputs is not None else None


def _node_hook_result(result: Any, old: Sequence[Any], hook: Any) -> list:
    """What a node's (pre) hook returned in place of the gradients ``old``: a tuple of as many,
    each of the same shape, dtype and device as the one it replaces -- PyTorch checks all of it,
    so a module's backward hook returning ``grad[0]`` instead of ``(grad[0],)`` fails there."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(old):
        raise RuntimeError(f"hook '{getattr(hook, '__name__', 'hook')}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {len(old)})")
    for new, was in zip(result, old):
        if new is None:
            continue
        if was is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        _check_hook_result(new, was, hook)
    return list(result)


def _add_to_buffer(buffers: dict, node: Node, nr: int, grad: "Tensor", task: GraphTask) -> None:
    """Sum gradients that arrive at the same input of ``node`` from several edges."""
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node._num_outputs
    old = buf[nr]
    if old is None:
        task.deliver(grad)
        buf[nr] = grad
    elif (not task.create_graph and old._data.shape == grad._data.shape and old._dtype is grad._dtype
          and old._device == grad._device):
        buf[nr] = Tensor._make(old._data + grad._data, old._device)  # nothing to record: add the arrays
    else:
        buf[nr] = old + grad


def _dependencies(root_edges: list, runs: Optional[set], targets: set) -> dict[Node, int]:
    """Count, for every node the pass will reach, the edges that lead into it.

    ``runs`` (None: every node) are the nodes that will execute; ``targets`` are
    nodes that only receive a gradient to be captured."""
    deps: dict[Node, int] = {}
    stack = []
    for node, _ in root_edges:
        if node not in deps:
            stack.append(node)
        deps[node] = deps.get(node, 0) + 1
    # A node is walked once: it goes on the stack when its first edge is counted
    # (so ``deps`` doubles as the "seen" set).
    while stack:
        node = stack.pop()
        if runs is not None and node not in runs:
            continue
        for nxt, _ in node.next_functions:
            if nxt is None or (runs is not None and nxt not in runs and nxt not in targets):
                continue
            count = deps.get(nxt)
            if count is None:
                deps[nxt] = 1
                stack.append(nxt)
            else:
                deps[nxt] = count + 1
    return deps


def _nodes_to_run(root_edges: list, targets: set, accumulate: bool) -> set:
    """For ``autograd.grad`` and ``backward(inputs=...)``: the nodes that must run
    because a target lies below them (found by an iterative post-order walk).
    A target itself runs only if it is a leaf's AccumulateGrad and we accumulate."""
    below: dict[Node, bool] = {}  # node -> some target is reachable from it (itself included)
    for root, _ in root_edges:
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                below[node] = node in targets or any(
                    nxt is not None and below.get(nxt, False) for nxt, _ in node.next_functions)
                continue
            if node in below:
                continue
            below[node] = False  # provisional, guards against revisiting
            stack.append((node, True))
            for nxt, _ in node.next_functions:
                if nxt is not None and nxt not in below:
                    stack.append((nxt, False))
    runs = {node for node, ok in below.items()
            if ok and any(nxt is not None and below.get(nxt, False) for nxt, _ in node.next_functions)}
    if accumulate:
        runs |= {node for node in targets if isinstance(node, AccumulateGrad)}
    return runs


# ----------------------------------------------------------------------------- the entry points
TensorOrTensors = Union["Tensor", Sequence["Tensor"]]


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, (Tensor, GradientEdge)) else tuple(x)


def _make_grads(outputs: tuple, grad_outputs: tuple) -> list:
    """Default gradients (1 for scalars) and PyTorch's checks of given ones."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if g is None:
            if not out.requires_grad:  # (the pass then refuses it: "does not require grad")
                grads.append(out._filled_like(1) if out.dtype.is_floating_point else None)
                continue
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


_warned_create_graph = [False]  # backward(create_graph=True)'s warning has been given


def _check_counts(outputs: tuple, given: tuple) -> tuple:
    """The gradients given for ``outputs``: too few is PyTorch's error; extra ones are ignored
    (PyTorch pairs them with ``zip``)."""
    if len(given) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(given)} gradients")
    return given[:len(outputs)]


def backward(tensors: TensorOrTensors, grad_tensors: Optional[TensorOrTensors] = None,
             retain_graph: Optional[bool] = None, create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate into each leaf's ``.grad`` the gradient of ``tensors`` (weighted by
    ``grad_tensors``: a vector-Jacobian product when they are not scalars)."""
    outputs = _as_tuple(tensors)
    given = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    given = _check_counts(outputs, given)
    grads = _make_grads(outputs, given)
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and not _warned_create_graph[0]:
        _warned_create_graph[0] = True  # once per process, as PyTorch's TORCH_WARN_ONCE
        warn_always.warn("Using backward() with create_graph=True will create a reference cycle between the parameter "
                         "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
                         "creating the graph to avoid this. If you have to use this function, make sure to reset the "
                         ".grad fields of your parameters to None after use to break the cycle and avoid the leak.",
                         UserWarning, stacklevel=3)
    input_list = list(_as_tuple(inputs)) if inputs is not None else None
    if input_list is not None and not input_list:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    for t in input_list or ():
        # As PyTorch: each input gets its gradient in ``.grad``, a non-leaf too (so it must require grad).
        t.retain_grad()
    run_backward(outputs, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=input_list,
                 accumulate=True)


def tensor_backward(self: Tensor, gradient: Optional[Tensor] = None, retain_graph: Optional[bool] = None,
                    create_graph: bool = False, inputs: Optional[Sequence[Tensor]] = None) -> None:
    """``Tensor.backward``: compute the gradient of this tensor with respect to the graph's leaves.

    On a scalar, the gradient of the scalar.  On a non-scalar ``y``,
    ``y.backward(v)`` computes the vector-Jacobian product ``vᵀ·J`` — it does
    not "differentiate a matrix".  Gradients are *added* into ``.grad``.
    (Installed as the method by ``_tensor_methods.py``: the Tensor class sits
    below the engine, which creates tensors.)
    """
    backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)


def grad(outputs: TensorOrTensors, inputs: TensorOrTensors, grad_outputs: Optional[TensorOrTensors] = None,
         retain_graph: Optional[bool] = None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused: Optional[bool] = None, is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` is untouched).

    ``only_inputs`` is PyTorch's deprecated, ignored flag (``False`` warns as PyTorch does)."""
    if not only_inputs:
        warn_always.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                         "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                         stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    given = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    given = _check_counts(outs, given)
    for i, out in enumerate(outs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    for t in ins:
        if not isinstance(t, GradientEdge) and not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        return _grad_batched(outs, ins, given, retain_graph, create_graph, allow_unused, materialize_grads)
    captured = run_backward(outs, _make_grads(outs, given), retain_graph=retain_graph, create_graph=create_graph,
                            inputs=list(ins), accumulate=False)
    return tuple(_unused_or(g, t, index, allow_unused, materialize_grads)
                 for index, (t, g) in enumerate(zip(ins, captured)))


def _unused_or(g: Optional["Tensor"], t: "Tensor", index: int, allow_unused: Optional[bool],
               materialize_grads: bool) -> Optional["Tensor"]:
    """``g``; or, for an input the outputs do not depend on, zeros, None or PyTorch's error."""
    if g is not None:
        return g
    if materialize_grads:
        return t._filled_like(0)
    if not allow_unused:
        raise RuntimeError(f"The differentiated Tensor at index {index} appears to not have been used in "
                           "the graph. Set allow_unused=True if this is the desired behavior.")
    return None


def _grad_batched(outs: tuple, ins: tuple, given: tuple, retain_graph: bool, create_graph: bool,
                  allow_unused: Optional[bool], materialize_grads: bool) -> tuple:
    """``grad(..., is_grads_batched=True)``: the first dimension of each ``grad_output`` is a batch
    of vectors, each giving one vector-Jacobian product (rows of a Jacobian, for instance).
    PyTorch runs them in one pass with vmap; here it is one backward pass per row, the graph
    kept until the last one, and the rows stacked."""
    for i, (out, g) in enumerate(zip(outs, given)):
        if g is None or g.ndim == 0 or tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                f"{g.shape[1:] if g is not None and g.ndim else 'torch.Size([])'} and output[{i}] has a shape of "
                f"{out.shape}. If you only want some tensors in `grad_output` to be considered batched, consider "
                "using vmap.")
    n = given[0].shape[0]
    per_row = [grad(outs, ins, tuple(g[b] for g in given), retain_graph=retain_graph if b == n - 1 else True,
                    create_graph=create_graph, allow_unused=True) for b in range(n)]
    result = []
    for k, t in enumerate(ins):
        rows = [r[k] for r in per_row]
        if all(g is None for g in rows):
            result.append(_unused_or(None, t, k, allow_unused, materialize_grads))
            continue
        rows = [t._filled_like(0) if g is None else g for g in rows]
        stacked = rows[0].new_zeros((n, *rows[0].shape))
        for b, g in enumerate(rows):
            stacked[b] = g  # (with create_graph, a recorded copy: the rows stay differentiable)
        result.append(stacked)
    return tuple(result)
