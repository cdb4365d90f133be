"""A static screen of the learner's answer cells, read before anything runs.

Inside one Python process nothing walls the test cells off from answer
cells that ran before them (see the threat model in
``learntorch.grading.grader``): an answer that rebinds ``exec`` or
``compile``, installs a trace function or an IPython input transformer,
walks frames or the garbage collector, or swaps ``numpy.allclose`` and
``IPython.display.display`` for spies, can make the test cells record the
values they expect instead of the answer's. An exercise answer needs none
of that, so an answer that names one of these hooks is not run at all: it
earns 0 points: the gradebook shows ``tampered`` where a test cell would
have passed (and ``+screened`` after the status of the others), and the
reason names the line, for the instructor to read (and regrade by hand if it
was innocent). The submission still runs, so its status also says what the
grader's other defences saw.

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
}
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


def _flags(source: str) -> list[tuple[int, str]]:
    """(line, what) for each forbidden construct in one cell's source."""
    try:
        tree = ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError:
        return []  # the kernel parses it the same way: the cell fails and earns nothing
    except Exception as error:  # noqa: BLE001 -- e.g. RecursionError: what cannot be read is not run
        return [(0, f"cannot be screened ({type(error).__name__})")]
    found: list[tuple[int, str]] = []
    allowed: set[int] = set()  # the get_ipython of %time and %timeit
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
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value not in _BARE_ONLY:
            names = [node.value]  # getattr(x, "__dict__"), type("T", (), {"__eq__": ...})
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
