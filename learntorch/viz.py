"""Pictures of the autograd graph: the forward graph and the backward graph.

``draw_backward(loss)`` draws what ``loss.backward()`` will walk: one box per
``grad_fn`` node, the ``AccumulateGrad`` nodes at the leaves, the tensors each
node saved for backward, the hooks that will run, and -- once backward has
run -- the leaves' gradients.  ``draw_forward(y)`` draws the same history the
way we think of it while writing the forward pass: tensors flowing into
operations.  Both return a :class:`graphviz.Digraph` that Jupyter shows as an
SVG picture; building one needs only the Python package ``graphviz``, showing
it needs Graphviz's ``dot`` program (:class:`GraphvizNotInstalled` says how to
install it when it is missing).

Colours: grad_fn nodes blue, leaves green, hooks orange, saved tensors grey,
the tensors you asked about yellow.

The graph is walked iteratively (breadth first from the roots, each node once,
by identity), so a graph 5000 operations deep draws without hitting Python's
recursion limit; ``max_nodes`` keeps big graphs readable.
"""
from __future__ import annotations

import inspect
import re
import shutil
from collections import deque
from typing import Any, Iterable, Optional

import graphviz
import numpy as np

from .autograd.node import AccumulateGrad, Node
from .tensor import Tensor

__all__ = ["draw_backward", "draw_forward", "to_svg", "show_source", "GraphvizNotInstalled", "Graph", "op_name",
           "dot_available"]

INSTALL_HELP = (
    "Graphviz's `dot` program is needed to render this picture, and it was not found on your PATH. "
    "Install it with one of:\n"
    "    sudo apt-get install graphviz        # Debian/Ubuntu\n"
    "    brew install graphviz                # macOS\n"
    "    conda install -c conda-forge graphviz\n"
    "    make setup                           # from the course repository\n"
    "then restart the Jupyter kernel. (The Python package `graphviz` is only the "
    "wrapper; `dot` is a separate program.) The graph itself was built fine: "
    "print(graph.source) shows it as text.")


class GraphvizNotInstalled(graphviz.ExecutableNotFound):
    """Graphviz's ``dot`` program is missing: the message says how to install it.

    A ``RuntimeError`` (and a ``graphviz.ExecutableNotFound``, so code that
    catches graphviz's own error keeps working)."""

    def __init__(self, message: str = INSTALL_HELP) -> None:
        RuntimeError.__init__(self, message)


def dot_available() -> bool:
    """Whether Graphviz's ``dot`` program can be found (the one graphviz will run)."""
    return shutil.which(str(graphviz.backend.dot_command.DOT_BINARY)) is not None


def _rendered(call: Any) -> Any:
    """Run a graphviz call that needs ``dot``; a missing ``dot`` becomes GraphvizNotInstalled,
    raised here rather than from deep inside graphviz."""
    if not dot_available():
        raise GraphvizNotInstalled()
    try:
        return call()
    except GraphvizNotInstalled:
        raise
    except graphviz.ExecutableNotFound:
        raise GraphvizNotInstalled() from None


class Graph(graphviz.Digraph):
    """A ``graphviz.Digraph`` whose rendering (Jupyter display, ``pipe``, ``render``,
    ``view``) fails with :class:`GraphvizNotInstalled` when ``dot`` is missing."""

    _display_failed = False

    def __repr__(self) -> str:
        """A text form without a memory address, so a stored notebook output is the
        same on every run (Jupyter stores it beside the picture)."""
        nodes = sum(1 for line in self.body if "->" not in line and " [label=" in line)
        return f"<learntorch.viz.Graph: {nodes} nodes>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict:
        self._display_failed = False
        if not dot_available():
            self._display_failed = True  # IPython asks _repr_svg_ next: do not report twice
            raise GraphvizNotInstalled()
        return _rendered(lambda: super(Graph, self)._repr_mimebundle_(include, exclude, **kwargs))

    def _repr_svg_(self) -> Optional[str]:
        if self._display_failed:  # the same display, already reported by _repr_mimebundle_
            self._display_failed = False
            return None
        return to_svg(self)

    def pipe(self, *args: Any, **kwargs: Any) -> Any:
        return _rendered(lambda: super(Graph, self).pipe(*args, **kwargs))

    def render(self, *args: Any, **kwargs: Any) -> Any:
        return _rendered(lambda: super(Graph, self).render(*args, **kwargs))

    def view(self, *args: Any, **kwargs: Any) -> Any:
        return _rendered(lambda: super(Graph, self).view(*args, **kwargs))


def to_svg(graph: graphviz.Digraph) -> str:
    """The picture as an SVG string (needs Graphviz's ``dot`` program)."""
    return _rendered(lambda: graphviz.Digraph.pipe(graph, format="svg", encoding="utf-8"))


def show_source(obj: Any) -> Any:
    """The source code of ``obj`` (a function, class or module), for display in a notebook.

    Returns an ``IPython.display.Code`` (syntax-highlighted in Jupyter), or the
    plain source string where IPython is not installed."""
    source = inspect.getsource(obj)
    try:
        from IPython.display import Code
    except ImportError:
        return source
    return Code(source, language="python")


# --------------------------------------------------------------------------- style

_FONT = "Helvetica"
_STYLE = {  # fill, border
    "fn": ("#e3f2fd", "#1565c0"),      # grad_fn nodes / operations
    "leaf": ("#c8e6c9", "#2e7d32"),    # leaves (AccumulateGrad, leaf tensors)
    "hook": ("#ffe0b2", "#e65100"),    # hooks
    "saved": ("#eeeeee", "#757575"),   # saved tensors
    "root": ("#fff9c4", "#f9a825"),    # the tensors drawn from
    "tensor": ("#ffffff", "#1565c0"),  # non-leaf tensors in the forward graph
    "const": ("#ffffff", "#9e9e9e"),   # tensors that do not require grad
    "more": ("#ffffff", "#9e9e9e"),
}
_BEFORE_COLOUR = "#c62828"
_AFTER_COLOUR = "#2e7d32"


def _new_graph(name: str) -> Graph:
    g = Graph(name)
    g.attr(rankdir="TB", fontname=_FONT, fontsize="12", labelloc="t", nodesep="0.35", ranksep="0.4",
           newrank="true")
    g.attr("node", fontname=_FONT, fontsize="11", style="filled", margin="0.12,0.05", height="0.3")
    g.attr("edge", fontname=_FONT, fontsize="9", color="#616161", arrowsize="0.7")
    return g


def _node(g: graphviz.Digraph, ident: str, lines: list[str], kind: str, **attrs: str) -> None:
    fill, border = _STYLE[kind]
    attrs.setdefault("shape", "box")
    attrs.setdefault("color", border)
    g.node(ident, graphviz.nohtml(_label(lines)), fillcolor=fill, **attrs)


def _label_attr(text: str) -> dict:
    return {"label": text} if text else {}


def _esc(text: str) -> str:
    """User text (names, hook names, reprs) made safe inside a DOT label."""
    return str(text).replace("\\", "\\\\")


def _left(line: str) -> str:
    """The line, left-justified."""
    return line if line.startswith("\\l") else "\\l" + line


def _label(lines: list[str]) -> str:
    r"""Join lines; a line starting with "\l" is left-justified (for lists and tensor reprs)."""
    out = []
    for line in lines:
        if line.startswith("\\l"):
            out.append(line[2:] + "\\l")
        else:
            out.append(line + "\\n")
    text = "".join(out)
    return text[:-2] if text.endswith("\\n") else text


# --------------------------------------------------------------------------- describing tensors

def _shape(shape: Iterable[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _meta(shape: Iterable[int], dtype: Any, device: Any = None) -> str:
    text = f"{_shape(shape)} {getattr(dtype, 'name', dtype)}"
    if device is not None and getattr(device, "type", "cpu") != "cpu":
        text += f" {device}"
    return text


def _tensor_meta(t: Tensor) -> str:
    return _meta(t.shape, t.dtype, t.device)


def _value_lines(prefix: str, t: Optional[Tensor]) -> list[str]:
    """``a.grad = tensor(30.)`` for small tensors, shape and norm for big ones."""
    if t is None:
        return [f"{_esc(prefix)} = None"]
    t = t.detach()
    if t.numel() <= 8:
        text = repr(t).splitlines()
        if len(text) <= 4 and max(len(line) for line in text) <= 48:
            if len(text) == 1:
                return [f"{_esc(prefix)} = {_esc(text[0])}"]
            return [f"{_esc(prefix)} ="] + ["\\l" + _esc(line) for line in text]
    arr = t.numpy(force=True).astype(np.float64) if t.numel() else np.zeros(0)
    return [f"{_esc(prefix)}: {_shape(t.shape)}, norm {np.linalg.norm(arr):.4g}"]


def _fn_name(fn: Any) -> str:
    name = getattr(fn, "__name__", None) or getattr(fn, "__qualname__", None)
    if name is None:
        name = getattr(getattr(fn, "func", None), "__name__", None)  # functools.partial
        name = f"partial({name})" if name else type(fn).__name__
    return name


class _Names:
    """Names for tensors, from ``params`` (name -> tensor), matched by identity."""

    def __init__(self, params: Any) -> None:
        if params is not None and hasattr(params, "named_parameters"):
            params = dict(params.named_parameters())
        self._keep = dict(params or {})
        self._by_id: dict[int, str] = {}
        self._by_edge: dict[tuple[int, int], str] = {}
        for name, t in self._keep.items():
            if not isinstance(t, Tensor):
                raise TypeError(f"params must map names to tensors, got {type(t).__name__} for {name!r}")
            self._by_id.setdefault(id(t), name)
            if t.grad_fn is not None:
                self._by_edge.setdefault((id(t.grad_fn), t._output_nr), name)

    def of(self, t: Tensor) -> Optional[str]:
        name = self._by_id.get(id(t))
        if name is None and t.grad_fn is not None:
            name = self._by_edge.get((id(t.grad_fn), t._output_nr))
        return name

    def of_output(self, node: Node, nr: int) -> Optional[str]:
        return self._by_edge.get((id(node), nr))


# --------------------------------------------------------------------------- walking the graph

def _flatten(items: tuple) -> list:
    out = []
    for item in items:
        if isinstance(item, (list, tuple)):
            out.extend(item)
        else:
            out.append(item)
    return out


def _walk(start: list[Node]) -> list[Node]:
    """Every node reachable from ``start``, breadth first (nearest the roots first),
    each once (by identity) -- a loop, not recursion, so any depth works."""
    order: list[Node] = []
    seen: set[int] = set()
    queue: deque[Node] = deque()
    for node in start:
        if id(node) not in seen:
            seen.add(id(node))
            queue.append(node)
    while queue:
        node = queue.popleft()
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                queue.append(nxt)
    return order


def _start_nodes(roots: list) -> list[tuple[Any, Optional[Node]]]:
    """(root, its node): a tensor's grad_fn (or a leaf's AccumulateGrad), or a Node itself."""
    out = []
    for r in roots:
        if isinstance(r, Node):
            out.append((r, r))
        elif isinstance(r, Tensor):
            out.append((r, r._gradient_edge()[0]))
        else:
            raise TypeError(f"draw a graph from tensors or grad_fn nodes, got {type(r).__name__}")
    return out


def _saved_entries(node: Node) -> tuple:
    saved = getattr(node, "_saved", None)
    return tuple(s for s in saved if s is not None) if saved else ()


def _backward_ran(order: list[Node]) -> tuple[bool, bool]:
    """(some gradient exists, some saved tensors were freed) -- what tells us backward ran."""
    freed = any(getattr(n, "_freed", False) for n in order)

    def has_grad(n: Node) -> bool:
        if isinstance(n, AccumulateGrad) and n.variable._grad is not None:
            return True
        retained = (ref() for ref in (n._retains_grad or {}).values())
        return any(t is not None and t._grad is not None for t in retained)

    return any(has_grad(n) for n in order), freed


def op_name(node: Node) -> str:
    """The forward operation a backward node belongs to: ``MulBackward0`` -> ``mul``,
    ``LogSoftmaxBackward0`` -> ``log_softmax``; a custom Function keeps its class name
    (``MyReLUBackward`` -> ``MyReLU``)."""
    name = node.name().rsplit("::", 1)[-1]
    match = re.fullmatch(r"(.+?)Backward\d*", name)
    base = match.group(1) if match else name
    forward_cls = getattr(node, "_forward_cls", None)
    if forward_cls is not None and forward_cls.__dict__.get("_backward_name") is None:
        return forward_cls.__name__  # a learner's own Function: the name they gave it
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z][a-z])|(?<=[a-z])(?=[A-Z])", "_", base)
    return snake.lower()


# --------------------------------------------------------------------------- the backward graph

def draw_backward(*roots: Any, params: Any = None, show_saved: bool = True, show_hooks: bool = True,
                  title: Optional[str] = None, max_nodes: int = 300) -> Graph:
    """Draw the backward graph that ``root.backward()`` walks.

    ``roots``: result tensors (or ``grad_fn`` nodes).  ``params``: names for
    tensors, ``{"w1": w1, ...}`` (or a module with ``named_parameters``); leaves
    and saved tensors are labelled with them, matched by identity.

    The picture shows one box per ``grad_fn`` node (``MulBackward0``), arrows
    from each node to the nodes it sends gradients to (``next_functions``,
    numbered by input when a node has several), an ``AccumulateGrad`` box per
    leaf with its name and shape, grey boxes for the tensors each node saved
    for backward ("freed" once a backward without ``retain_graph=True`` has
    released them), orange boxes for hooks (tensor hooks in the order they
    run, ``retain_grad``, node pre/post hooks), and after backward the leaves'
    ``.grad``.  A caption says whether backward has run.  At most
    ``max_nodes`` nodes are drawn (nearest the roots first); a marker counts
    the rest.

    Returns a :class:`Graph` (a ``graphviz.Digraph``): Jupyter shows it as a
    picture, ``to_svg(g)`` gives the SVG text, ``g.source`` the DOT text."""
    names = _Names(params)
    starts = _start_nodes(_flatten(roots))
    order = _walk([n for _, n in starts if n is not None])
    shown = order[:max_nodes]
    ids = {id(n): f"n{i}" for i, n in enumerate(shown)}
    g = _new_graph("backward")

    has_grads, freed = _backward_ran(order)
    if has_grads or freed:
        caption = ["after backward: gradients shown"]
        if not freed and any(_saved_entries(n) for n in order):
            caption.append("(saved tensors still held: backward(retain_graph=True) ran, "
                           "or .grad holds an earlier backward's gradients -- they accumulate)")
        colour = _AFTER_COLOUR
    else:
        caption = ["before backward: no gradients yet (.grad is None)",
                   "call .backward() and draw again to see them"]
        colour = _BEFORE_COLOUR
    if title:
        caption.insert(0, _esc(title))
    g.attr(label=graphviz.nohtml(_label(caption)), fontcolor=colour)

    for k, (root, node) in enumerate(starts):
        if isinstance(root, Node):
            continue
        rid = f"root{k}"
        name = names.of(root)
        lines = [_esc(name) if name else "result", _tensor_meta(root)]
        if node is None:
            lines.append("requires_grad=False: no graph to draw")
        elif not show_hooks and root.grad_fn is not None and root.retains_grad:
            lines += _value_lines(f"{name or 'result'}.grad", root._grad)
        _node(g, rid, lines, "root", style="filled,bold")
        if node is not None:
            g.edge(rid, ids.get(id(node), "more"), color=_STYLE["root"][1])

    more = len(order) - len(shown)
    if more:
        _node(g, "more", [f"... {more} more node{'s' if more != 1 else ''}",
                          f"(max_nodes={max_nodes})"], "more", style="dashed")

    for node in shown:
        nid = ids[id(node)]
        _draw_backward_node(g, node, nid, names, after=has_grads)
        edges = node.next_functions
        several = sum(1 for nxt, _ in edges if nxt is not None) > 1
        to_more = False
        for i, (nxt, nr) in enumerate(edges):
            if nxt is None:
                continue
            if id(nxt) not in ids:
                to_more = True
                continue
            label = str(i) if several else ""
            if nr and nxt._num_outputs > 1:
                label += f" (to output {nr})"
            g.edge(nid, ids[id(nxt)], **_label_attr(label.strip()))
        if to_more:
            g.edge(nid, "more", style="dashed")
        extras = []
        if show_saved:
            extras += _draw_saved(g, node, nid, names)
        if show_hooks:
            extras += _draw_hooks(g, node, nid, names)
        if extras:
            with g.subgraph() as same:
                same.attr(rank="same")
                same.node(nid)
                for e in extras:
                    same.node(e)
    return g


def _draw_backward_node(g: graphviz.Digraph, node: Node, nid: str, names: _Names, after: bool) -> None:
    if isinstance(node, AccumulateGrad):
        leaf = node.variable
        name = names.of(leaf)
        lines = ["AccumulateGrad", f"leaf {_esc(name)}" if name else "leaf (unnamed)", _tensor_meta(leaf)]
        if after or leaf._grad is not None:
            lines += _value_lines(f"{name or 'leaf'}.grad", leaf._grad)
        _node(g, nid, lines, "leaf", style="filled,rounded")
    else:
        _node(g, nid, [_esc(node.name())], "fn", style="filled,rounded")


def _draw_saved(g: graphviz.Digraph, node: Node, nid: str, names: _Names) -> list[str]:
    if getattr(node, "_freed", False):
        sid = f"{nid}_saved"
        _node(g, sid, ["saved tensors: freed", "(backward ran without retain_graph=True)"], "saved",
              style="filled,dashed", fontsize="9")
        g.edge(nid, sid, dir="none", style="dashed", color=_STYLE["saved"][1])
        return [sid]
    entries = _saved_entries(node)
    if not entries:
        return []
    lines = ["\\lsaved for backward:"]
    changed = False
    for i, s in enumerate(entries):
        t = s.peek()
        if t is None:
            lines.append("\\lheld by a saved-tensors hook")
            continue
        name = names.of(t)
        if name is None:
            if t.grad_fn is node:
                name = "its own result"
            elif t.grad_fn is not None:
                name = f"result of {t.grad_fn.name()}"
            else:
                name = "a leaf" if t.requires_grad else "a tensor without grad"
        lines.append(f"\\l{_esc(name)}: {_tensor_meta(t)}")
        now = t._version_counter[0]
        if now != s.version:
            changed = True
            lines += [f"\\l    CHANGED IN PLACE since saved (version {now}, saved at {s.version}):",
                      "\\l    backward through this node will raise an error"]
    sid = f"{nid}_saved"
    warn = {"color": _BEFORE_COLOUR, "penwidth": "2"} if changed else {}
    _node(g, sid, lines, "saved", fontsize="9", **warn)
    g.edge(nid, sid, dir="none", style="dashed", color=_STYLE["saved"][1])
    return [sid]


def _hook_names(hooks: Any) -> list[str]:
    return [_esc(_fn_name(fn)) for fn in (hooks or {}).values()]


def _draw_hooks(g: graphviz.Digraph, node: Node, nid: str, names: _Names) -> list[str]:
    """Orange notes: the tensor hooks run when a gradient arrives at this node (in order,
    then retain_grad), then the node's pre hooks; post hooks after the node."""
    boxes = []
    tensor_hooks: dict[int, list[str]] = {}
    if isinstance(node, AccumulateGrad):
        if node.variable._hooks:
            tensor_hooks[0] = _hook_names(node.variable._hooks)
    else:
        for nr, hooks in sorted((node._tensor_pre_hooks or {}).items()):
            if hooks:
                tensor_hooks[nr] = _hook_names(hooks)
    retained = {nr: ref() for nr, ref in (node._retains_grad or {}).items()}
    for nr in sorted(set(tensor_hooks) | set(retained)):
        if isinstance(node, AccumulateGrad):
            who = names.of(node.variable) or "the leaf"
        else:
            who = names.of_output(node, nr) or (f"output {nr}" if node._num_outputs > 1 else "its output")
        lines = [f"\\ltensor hooks on {_esc(who)},", "\\lrun in this order:"]
        lines += [f"\\l{i}. {h}" for i, h in enumerate(tensor_hooks.get(nr, []), 1)]
        if nr in retained:
            t = retained[nr]
            lines.append("\\llast (always): retain_grad() keeps .grad")
            if t is not None and t._grad is not None:
                lines += [_left(line) for line in _value_lines(f"{who}.grad", t._grad)]
        hid = f"{nid}_th{nr}"
        _node(g, hid, lines, "hook", shape="note", fontsize="9")
        g.edge(hid, nid, style="dashed", color=_STYLE["hook"][1], arrowhead="none")
        boxes.append(hid)
    for kind, hooks in (("pre", node._pre_hooks), ("post", node._post_hooks)):
        if hooks:
            when = "before" if kind == "pre" else "after"
            lines = [f"\\lnode {kind}-hooks, run {when}", f"\\l{_esc(node.name())} in this order:"]
            lines += [f"\\l{i}. {h}" for i, h in enumerate(_hook_names(hooks), 1)]
            hid = f"{nid}_{kind}"
            _node(g, hid, lines, "hook", shape="note", fontsize="9")
            g.edge(hid, nid, style="dashed", color=_STYLE["hook"][1], arrowhead="none")
            boxes.append(hid)
    return boxes


# --------------------------------------------------------------------------- the forward graph

def draw_forward(*outputs: Any, params: Any = None, title: Optional[str] = None, max_nodes: int = 300) -> Graph:
    """Draw the forward computation that produced ``outputs``: tensors as boxes,
    operations as ellipses (``mul``, ``mm``, ``clamp`` ...), arrows in the
    direction the data flowed.

    The picture is recovered from the backward graph (the ``grad_fn`` chain),
    because that is all autograd records.  So only the history of tensors that
    **require grad** can be drawn: an input that does not require grad (data,
    targets, constants) appears as a dashed "constant" box when its operation
    saved it for backward (``x`` in ``x.mm(w1)``), and is left out otherwise
    (``1.0001`` in ``x * 1.0001``); a result computed without grad (under
    ``no_grad()``) has no history at all.  Constants are found among the
    saved tensors, which backward frees: draw before backward to see them.

    Tensor boxes show the name given in ``params`` (``{"w1": w1}``), shape and
    dtype; leaves are green, results that require grad have a bold blue border
    and their ``grad_fn``.  At most ``max_nodes`` operations are drawn."""
    names = _Names(params)
    starts = _start_nodes(_flatten(outputs))
    order = [n for n in _walk([n for _, n in starts if n is not None]) if not isinstance(n, AccumulateGrad)]
    shown = order[:max_nodes]
    ops = {id(n): f"op{i}" for i, n in enumerate(shown)}
    g = _new_graph("forward")
    caption = ["forward graph (recovered from grad_fn: only tensors that require grad are recorded)"]
    if title:
        caption.insert(0, _esc(title))
    g.attr(label=graphviz.nohtml(_label(caption)), fontcolor="#424242")

    drawn: dict[Any, str] = {}
    roots_by_edge: dict[tuple[int, int], Tensor] = {}
    for root, node in starts:
        if isinstance(root, Tensor) and root.grad_fn is not None:
            roots_by_edge[(id(root.grad_fn), root._output_nr)] = root

    def leaf_box(acc: AccumulateGrad) -> str:
        key = ("leaf", id(acc))
        if key not in drawn:
            t = acc.variable
            name = names.of(t)
            tid = drawn[key] = f"t{len(drawn)}"
            _node(g, tid, [_esc(name) if name else "leaf", _tensor_meta(t), "leaf, requires_grad=True"],
                  "leaf", style="filled,bold")
        return drawn[key]

    def result_box(node: Node, nr: int) -> str:
        key = ("out", id(node), nr)
        if key not in drawn:
            tid = drawn[key] = f"t{len(drawn)}"
            root = roots_by_edge.get((id(node), nr))
            name = names.of_output(node, nr) or (names.of(root) if root is not None else None)
            meta = getattr(node, "_output_meta", ())
            if root is not None:
                desc = _tensor_meta(root)
            elif nr < len(meta) and meta[nr] is not None:
                desc = _meta(*meta[nr])
            else:
                desc = "shape unknown"
            lines = [_esc(name) if name else ("result" if root is not None else "tensor"), desc,
                     "non-leaf, requires_grad=True", f"grad_fn=<{_esc(node.name())}>"]
            _node(g, tid, lines, "root" if root is not None else "tensor", style="filled,bold")
        return drawn[key]

    def tensor_box(node: Node, nr: int) -> str:
        return leaf_box(node) if isinstance(node, AccumulateGrad) else result_box(node, nr)

    for root, node in starts:
        if isinstance(root, Tensor) and node is None:
            name = names.of(root)
            tid = drawn[("nograd", id(root))] = f"t{len(drawn)}"
            _node(g, tid, [_esc(name) if name else "result", _tensor_meta(root),
                           "requires_grad=False: no history recorded"], "const", style="dashed")
        elif isinstance(root, Tensor) and isinstance(node, AccumulateGrad):
            leaf_box(node)
        elif isinstance(root, Tensor):
            result_box(node, root._output_nr)

    more = len(order) - len(shown)
    if more:
        _node(g, "more", [f"... {more} more operation{'s' if more != 1 else ''}", f"(max_nodes={max_nodes})"],
              "more", style="dashed")

    consumed: dict[int, set[int]] = {}
    for node in shown:
        for nxt, nr in node.next_functions:
            if nxt is not None:
                consumed.setdefault(id(nxt), set()).add(nr)

    for node in shown:
        oid = ops[id(node)]
        _node(g, oid, [_esc(op_name(node))], "fn", shape="ellipse")
        outs = set(consumed.get(id(node), ())) | {nr for (nid, nr) in roots_by_edge if nid == id(node)}
        for nr in sorted(outs) or [0]:
            g.edge(oid, result_box(node, nr), color=_STYLE["fn"][1])
        edges = node.next_functions
        several = len(edges) > 1
        none_slots = [i for i, (nxt, _) in enumerate(edges) if nxt is None]
        for i, (nxt, nr) in enumerate(edges):
            if nxt is None:
                continue
            if isinstance(nxt, AccumulateGrad) or id(nxt) in ops:
                g.edge(tensor_box(nxt, nr), oid, **_label_attr(str(i) if several else ""))
            else:
                g.edge("more", oid, style="dashed")
        saved = [s.peek() for s in _saved_entries(node)]
        constants = [t for t in saved if t is not None and _is_constant_input(node, t)]
        for t in constants:
            key = ("const", id(t))
            if key not in drawn:
                tid = drawn[key] = f"t{len(drawn)}"
                name = names.of(t)
                _node(g, tid, [_esc(name) if name else "constant", _tensor_meta(t), "requires_grad=False"],
                      "const", style="filled,dashed")
            label = str(none_slots[0]) if several and len(constants) == 1 and len(none_slots) == 1 else ""
            g.edge(drawn[key], oid, style="dashed", **_label_attr(label))
    return g


def _is_constant_input(node: Node, t: Tensor) -> bool:
    """A saved tensor that is an input not requiring grad (not the node's own output,
    nor an output marked non-differentiable such as ``max``'s indices)."""
    if t.requires_grad or t.grad_fn is not None:
        return False
    if not any(nxt is None for nxt, _ in node.next_functions):
        return False  # every input requires grad: anything else saved is internal
    return not any(t is o for o in getattr(node, "_non_differentiable", ()))
