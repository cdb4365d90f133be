"""The package's layer contract (docs/architecture.md), checked on the source.

Every ``import`` of ``learntorch`` by ``learntorch`` is read from the source files.
Three rules keep the core changeable:

1. the module-level import graph has no circle;
2. a module imports only from its own layer or the layers below it (``LAYERS``,
   lowest first);
3. no learntorch module is imported inside a function: a late import would hide
   a dependency, in the wrong direction as often as not.

Rules 1 and 2 count every import, at module level or inside a function, except
those under ``if TYPE_CHECKING:`` (for type hints only).

A small walker of our own instead of a new dependency (import-linter does the same).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "learntorch"

# lowest first; a module belongs to the layer of the longest prefix that matches it
# ("learntorch" itself, the package's __init__, matches only exactly)
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("learntorch.version", "learntorch.dtypes", "learntorch.size", "learntorch.cuda",
                    "learntorch.device", "learntorch.device_memory", "learntorch.arrays", "learntorch.type_info",
                    "learntorch.matmul_precision", "learntorch.dtype_bfloat16", "learntorch.autocast_state",
                    "learntorch.warn_always", "learntorch.cpu", "learntorch.futures")),
    # autograd's lower floor: grad mode and the graph's nodes, which the Tensor class holds
    ("graph", ("learntorch.autograd.grad_mode", "learntorch.autograd.node", "learntorch.autograd.anomaly_mode",
               "learntorch.autograd.graph")),
    ("tensor", ("learntorch.tensor", "learntorch.printing", "learntorch.random", "learntorch.tensor_arguments")),
    # autograd's upper floor: the engine, Function, gradcheck, which make tensors
    ("autograd", ("learntorch.autograd",)),
    ("ops", ("learntorch.ops",)),
    ("library", ("learntorch.creation", "learntorch.random_sampling", "learntorch.linalg", "learntorch.legacy",
                 "learntorch._tensor_methods", "learntorch.testing", "learntorch.backends",
                 "learntorch.accelerator", "learntorch.amp", "learntorch.compile", "learntorch.jit",
                 "learntorch.tensor_autograd_extras", "learntorch.autograd.functional", "learntorch.special",
                 "learntorch.distributions", "learntorch.storage")),
    ("models", ("learntorch.nn", "learntorch.optim", "learntorch.utils", "learntorch.datasets",
                "learntorch.distributed", "learntorch.func", "learntorch.multiprocessing")),
    # save/load of tensors, state dicts and whole modules (so above nn)
    ("saving", ("learntorch.serialization", "learntorch.serialization_pickle")),
    ("package", ("learntorch",)),
    # the autograder and the graph pictures use the whole package; the package never imports them
    ("tools", ("learntorch.viz", "learntorch.grading")),
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
    """The learntorch modules ``name`` imports: at module level (what runs at import
    time), or anywhere, inside functions too; never under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    nodes = []
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if _is_type_checking(node):
            continue
        if module_level and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        nodes.append(node)
        stack.extend(ast.iter_child_nodes(node))
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
                if name == p or (name.startswith(p + ".") and p != "learntorch")), default=None)
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
    """Not even through an import inside a function: a late import is still a dependency."""
    assert _cycles(_graph(module_level=False)) == []


def test_every_module_has_a_layer():
    for name in _modules():
        _layer(name)


def test_modules_import_only_their_own_layer_or_below():
    wrong = [f"{src} ({LAYERS[_layer(src)][0]}) imports {dst} ({LAYERS[_layer(dst)][0]})"
             for src, targets in sorted(_graph(module_level=False).items()) for dst in sorted(targets)
             if _layer(dst) > _layer(src)]
    assert not wrong, "\n".join(wrong)


# Imports inside functions, of learntorch's own modules: none, so that a module's
# first lines say everything it depends on.  (Optional libraries such as CuPy and
# mpi4py are still imported where they are used, and only if they are.)
LATE_IMPORTS_ALLOWED: set[tuple[str, str]] = set()


def _late_imports(name: str, path: Path, modules: dict) -> set[str]:
    """The learntorch modules that ``name`` imports inside a function (repeating a
    module-level import counts too: it says the same thing in a second place)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target == "learntorch" or target.startswith("learntorch."):
                    found.add(target)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.split(".")[0] == "learntorch")
    return found


def test_no_import_of_learntorch_inside_a_function():
    modules = _modules()
    late = {(name, target) for name, path in modules.items() for target in _late_imports(name, path, modules)}
    assert late <= LATE_IMPORTS_ALLOWED, "\n".join(f"{a} imports {b} inside a function"
                                                   for a, b in sorted(late - LATE_IMPORTS_ALLOWED))


def test_the_walker_sees_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
