"""The package's layer contract (docs/architecture.md), checked on the source.

Every ``import`` of ``learntorch`` by ``learntorch`` is read from the source files
(module level: what runs at import time; ``TYPE_CHECKING`` blocks excluded).
Two rules keep the core changeable:

1. the module-level import graph has no circle;
2. a module imports only from its own layer or the layers below it (``LAYERS``,
   lowest first).  Imports inside functions are held to the few rules in
   ``FORBIDDEN`` (autograd never reaches for creation; the ops never for nn or
   the public linalg), so a late import cannot hide a dependency in the wrong direction.

A small walker of our own instead of a new dependency (import-linter does the same).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "learntorch"

# lowest first; a module belongs to the first layer with a matching prefix
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("learntorch.dtypes", "learntorch.size", "learntorch.device", "learntorch.arrays",
                    "learntorch.cuda", "learntorch.device_memory", "learntorch.type_info",
                    "learntorch.matmul_precision", "learntorch.dtype_bfloat16")),
    # autograd's lower floor: grad mode and the graph's nodes, which the Tensor class holds
    ("graph", ("learntorch.autograd.grad_mode", "learntorch.autograd.node", "learntorch.autograd.anomaly_mode",
               "learntorch.autograd.graph")),
    ("tensor", ("learntorch.tensor", "learntorch.printing", "learntorch.random")),
    # autograd's upper floor: the engine, Function, gradcheck, which make tensors
    ("autograd", ("learntorch.autograd",)),
    ("ops", ("learntorch.ops",)),
    ("library", ("learntorch.creation", "learntorch.linalg", "learntorch.legacy",
                 "learntorch._tensor_methods", "learntorch.serialization", "learntorch.testing",
                 "learntorch.arrayss", "learntorch.random_sampling", "learntorch.serialization_pickle",
                 "learntorch.accelerator", "learntorch.amp", "learntorch.compile",
                 "learntorch.tensor_autograd_extras", "learntorch.autograd.functional")),
    ("models", ("learntorch.nn", "learntorch.optim", "learntorch.utils", "learntorch.datasets",
                "learntorch.distributed")),
    ("tools", ("learntorch.viz", "learntorch.grading")),
    ("package", ("learntorch",)),
]

# (importer prefix, imported prefix): never, not even inside a function
FORBIDDEN = [
    ("learntorch.autograd", "learntorch.creation"),
    ("learntorch.ops", "learntorch.nn"),
    ("learntorch.ops", "learntorch.optim"),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING"


def _imports(name: str, path: Path, modules: dict, module_level: bool) -> set[str]:
    """The learntorch modules ``name`` imports (at module level, or anywhere)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    nodes = []
    if module_level:
        stack = list(tree.body)
        while stack:
            node = stack.pop()
            if _is_type_checking(node) or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            nodes.append(node)
            stack.extend(ast.iter_child_nodes(node))
    else:
        nodes = list(ast.walk(tree))
    out = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                full = f"{target}.{alias.name}"
                out.add(full if full in modules else target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m in modules and m != name}


def _layer(name: str) -> int:
    """The layer of the longest prefix that matches (``learntorch.autograd.node`` before ``learntorch.autograd``)."""
    best = max(((len(p), i) for i, (_, prefixes) in enumerate(LAYERS) for p in prefixes
                if name == p or name.startswith(p + ".")), default=None)
    if best is None:
        raise AssertionError(f"{name} belongs to no layer: add it to LAYERS and to docs/architecture.md")
    return best[1]


def _graph(module_level: bool = True) -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules, module_level) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_circle():
    assert _cycles(_graph()) == []


def test_every_module_has_a_layer():
    for name in _modules():
        _layer(name)


def test_modules_import_only_their_own_layer_or_below():
    wrong = [f"{src} ({LAYERS[_layer(src)][0]}) imports {dst} ({LAYERS[_layer(dst)][0]})"
             for src, targets in sorted(_graph().items()) for dst in sorted(targets) if _layer(dst) > _layer(src)]
    assert not wrong, "\n".join(wrong)


def test_no_forbidden_import_even_inside_a_function():
    wrong = [f"{src} imports {dst}" for src, targets in sorted(_graph(module_level=False).items())
             for dst in sorted(targets) for a, b in FORBIDDEN
             if (src == a or src.startswith(a + ".")) and (dst == b or dst.startswith(b))]
    assert not wrong, "\n".join(wrong)


def test_the_walker_sees_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
