"""A static screen of the learner's answer cells, read before anything runs.

Inside one Python process nothing walls the test cells off from answer
cells that ran before them (see the threat model in
``learntorch.grading.grader``): an answer that rebinds ``exec`` or
``compile``, installs a trace function or an IPython input transformer,
walks frames or the garbage collector, or swaps ``numpy.allclose`` and
``IPython.display.display`` for spies, can make the test cells record the
values they expect instead of the answer's. An exercise answer needs none
of that, so an answer that names one of these hooks is held for review: its
points are 0 in the gradebook, with the status ``needs-review``, and the
reason names the flagged line and the points the tests gave, so an
instructor who reads the line can restore them. A flag is not an
accusation: the wording says what was found, not what was meant.

Uses that are common in honest code and cannot reach those hooks are not
flagged: ``import sys`` for ``sys.float_info``/``sys.setrecursionlimit``
(and the other attributes in ``SAFE_MODULE_ATTRIBUTES``), ``gc.collect()``,
``inspect.signature``, ``traceback.print_exc()`` with no arguments,
``setattr(self, ...)``/``vars(self)`` inside a method, ordering and hashing
dunders (``__lt__``, ``__hash__``, ``__getattr__``; comparisons in checks are
decided on plain values, see ``verdict.rewrite_equalities``), a local
variable named ``compile`` inside a function, and a module's name in a
string (``"gc"``). Still flagged: the same modules bound to another name or
used any other way (``sys.modules``, ``gc.get_objects``), a global
``compile``/``exec``/``eval`` (it would replace the builtin the probe uses),
``__eq__``/``__bool__`` and the other dunders that fake results.

This is a screen, not a wall: Python offers more ways to reach the same
hooks than a list can hold. It stops the direct routes, so that forging a
grade takes deliberate obfuscation -- which stays in the submitted notebook.
"""

from __future__ import annotations

import ast
import re

from IPython.core.inputtransformer2 import TransformerManager
from nbformat import NotebookNode

from learntorch.grading.notebooks import grade_id, is_solution

#: Names an exercise answer never needs; each reaches the interpreter, IPython or other frames.
FORBIDDEN_NAMES = {
    # running or compiling code the grader sends, importing by string
    "exec", "eval", "compile", "__import__", "builtins", "__builtins__", "importlib",
    # changing objects by name, reading namespaces
    "setattr", "delattr", "vars", "globals", "locals", "__dict__", "__globals__", "__code__",
    "__closure__", "__subclasses__", "__setattr__", "__delattr__", "__traceback__",
    # IPython's shell: input transformers, display hooks, events
    "get_ipython", "_ip", "input_transformers_cleanup", "input_transformers_post", "ast_transformers",
    "displayhook", "display_formatter", "display_pub", "events",
    # tracing, frames, the garbage collector, raw memory
    "settrace", "setprofile", "addaudithook", "_getframe", "currentframe", "f_back", "f_globals",
    "f_locals", "f_code", "tb_frame", "gi_frame", "cr_frame", "gc", "get_objects", "get_referrers",
    "get_referents", "ctypes",
    # the cells' sources (IPython's input history) and the stack's source lines: a function called
    # by a hidden test could read the test's code and put it in an error message the feedback shows
    "In", "_ih", "Out", "_oh", "inspect", "getsource", "linecache", "traceback", "extract_stack",
    "format_stack", "walk_stack",
    # other modules that reach all of the above (sys.modules: replace numpy or IPython.display by a
    # fake before the probe imports them), or run code that was never screened
    "sys", "pickle", "marshal", "runpy", "pkgutil",
    # the grader's own probe
    "__lt_probe", "_records",
    # results that fake comparisons and conversions: ``check(answer == expected)`` is decided in
    # the kernel, so an object whose __eq__ says True would pass it
    "__eq__", "__ne__", "__bool__", "__float__", "__int__", "__index__", "__array__",
    "__array_interface__", "__array_struct__", "__array_ufunc__", "__array_function__",
    "__torch_function__", "__instancecheck__", "__subclasscheck__",
}

#: The dunder names an answer may use (defining a class of its own); any other is forbidden.
ALLOWED_DUNDERS = {
    "__init__", "__call__", "__len__", "__getitem__", "__setitem__", "__iter__", "__next__",
    "__repr__", "__str__", "__name__", "__class__", "__doc__", "__enter__", "__exit__",
    "__version__", "__post_init__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
    "__rmul__", "__truediv__", "__rtruediv__", "__matmul__", "__rmatmul__", "__neg__", "__pow__",
    # orderings and hashing: a check's ``a < b`` is decided on plain numbers by the probe, and
    # hashing or attribute fallbacks decide no check
    "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__getattr__", "__contains__", "__reversed__",
    "__abs__", "__pos__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__rpow__",
}

#: ``module.attribute`` uses that are safe; the module's name is then not flagged there (only with
#: a plain ``import module``: an alias could be used elsewhere unseen).
SAFE_MODULE_ATTRIBUTES = {
    "sys": {"float_info", "int_info", "maxsize", "maxunicode", "setrecursionlimit", "getrecursionlimit",
            "version", "version_info", "platform", "byteorder", "hash_info", "float_repr_style",
            "getsizeof"},
    "gc": {"collect"},
    "inspect": {"signature", "isclass", "isfunction", "ismethod", "Parameter", "Signature"},
    "traceback": {"print_exc"},  # only with no arguments: print_exc(file=buffer) would capture test code
}
_MODULE_NAMES = {"sys", "gc", "inspect", "traceback", "ctypes", "pickle", "marshal", "runpy", "pkgutil",
                 "importlib", "builtins", "linecache"}
_SELF_ONLY = {"setattr", "vars"}  # allowed as setattr(self, ...) and vars(self) inside a method
_DUNDER = re.compile(r"^__\w+__$")
_BARE_ONLY = {"exec", "eval", "compile", "events"}  # forbidden as names, common as attributes

#: Attributes an answer must not assign: what the probe and its emission call.
PATCHED_ATTRIBUTES = {
    "allclose", "isclose", "asarray", "asanyarray", "array", "ascontiguousarray", "frombuffer",
    "b64encode", "b64decode", "dumps", "display", "publish_display_data", "write", "flush",
    "detach", "numpy", "cpu", "tolist", "check", "check_close", "stdout", "stderr",
}


#: IPython magics an answer may use; the code they time is screened like the rest.
SAFE_MAGICS = {"time", "timeit", "matplotlib"}


def _magic(node: ast.AST) -> tuple[ast.Name, str, list[str]] | None:
    """For ``get_ipython().run_line_magic(name, line)`` (what ``%name line`` becomes; also
    ``run_cell_magic``): (the get_ipython name, the magic's name, its string arguments)."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run_line_magic", "run_cell_magic")
            and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "get_ipython" and node.args
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)):
        return node.func.value.func, node.args[0].value, [a.value for a in node.args[1:]]
    return None


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names local to ``function``: its parameters and what it assigns, less ``global``/``nonlocal``."""
    arguments = function.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    shared: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            shared.update(node.names)
    return names - shared


def _benign(tree: ast.AST) -> set[int]:
    """ids of the nodes that are flagged names used in a way that cannot reach the interpreter's hooks.

    See the module docstring for the list. Each case is narrow on purpose: the
    name must be the module imported under its own name (``import sys``, not
    ``import sys as s``), ``self`` must be a method's first parameter that the
    cell never rebinds, ``compile`` must be a function's local.
    """
    allowed: set[int] = set()
    aliased = {alias.asname for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names if alias.asname}
    # traceback.print_exc() prints; print_exc(file=buffer), or the function passed on, could capture
    # the test's source, so only a call without arguments is allowed
    bare_calls = {id(node.func) for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and not node.args and not node.keywords}
    rebinds_self = any(isinstance(node, ast.Name) and node.id == "self" and isinstance(node.ctx, ast.Store)
                       for node in ast.walk(tree))

    def visit(node: ast.AST, function: ast.FunctionDef | ast.AsyncFunctionDef | None,
              local: set[str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function, local = node, _local_names(node)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in SAFE_MODULE_ATTRIBUTES and alias.asname is None:
                    allowed.add(id(alias))
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and isinstance(node.ctx, ast.Load) and node.value.id not in aliased
              and node.attr in SAFE_MODULE_ATTRIBUTES.get(node.value.id, ())
              and (node.attr != "print_exc" or id(node) in bare_calls)):
            allowed.add(id(node.value))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SELF_ONLY
                and function is not None and not rebinds_self and node.args
                and isinstance(node.args[0], ast.Name) and node.args[0].id == "self"
                and function.args.args and function.args.args[0].arg == "self"):
            allowed.add(id(node.func))
        if (isinstance(node, ast.Name) and node.id in _BARE_ONLY and function is not None
                and node.id in local):
            allowed.add(id(node))  # a local variable named compile shadows nothing the tests use
        for child in ast.iter_child_nodes(node):
            visit(child, function, local)

    visit(tree, None, set())
    return allowed


def _flags(source: str) -> list[tuple[int, str]]:
    """(line, what) for each forbidden construct in one cell's source."""
    try:
        tree = ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError:
        return []  # the kernel parses it the same way: the cell fails and earns nothing
    except Exception as error:  # noqa: BLE001 -- e.g. RecursionError: what cannot be read is not run
        return [(0, f"cannot be screened ({type(error).__name__})")]
    found: list[tuple[int, str]] = []
    allowed: set[int] = set()  # the get_ipython of %time and %timeit, and the benign uses below
    allowed |= _benign(tree)
    for node in ast.walk(tree):
        magic = _magic(node)
        if magic is not None:
            shell, name, arguments = magic
            if name in SAFE_MAGICS:
                allowed.add(id(shell))
                found += [(node.lineno, what) for code in arguments for _, what in _flags(code)]
                node.args = []  # the code strings are screened above, not as names
            else:
                found.append((node.lineno, f"%{name}"))
    for node in ast.walk(tree):
        names: list[str] = []
        if id(node) in allowed:
            continue
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr] if node.attr not in _BARE_ONLY else []  # model.eval() is fine
            if isinstance(node.ctx, (ast.Store, ast.Del)) and node.attr in PATCHED_ATTRIBUTES:
                found.append((node.lineno, f"assigns .{node.attr}"))
        elif isinstance(node, ast.alias):
            names = [node.name.split(".")[0], node.name.split(".")[-1], node.asname or ""]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]]
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value not in _BARE_ONLY | _MODULE_NAMES):
            # getattr(x, "__dict__"), type("T", (), {"__eq__": ...}); a module's name alone ("gc") is
            # harmless, as every way to import by string (__import__, importlib, sys.modules) is flagged
            names = [node.value]
        found += [(getattr(node, "lineno", 0), name) for name in names if name in FORBIDDEN_NAMES
                  or (_DUNDER.match(name) and name not in ALLOWED_DUNDERS)]
    return found


def screen(answers: NotebookNode) -> list[str]:
    """One line per forbidden construct in the answer cells of ``answers``; [] when none.

    Pass the notebook that runs (``checks.with_answers``): its answer cells
    are exactly the sources the kernel gets.
    """
    problems = []
    for cell in answers.cells:
        if cell.cell_type == "code" and is_solution(cell):
            for line, what in sorted(set(_flags(cell.source))):
                problems.append(f"answer cell {grade_id(cell)!r}, line {line}: {what}")
    return problems
