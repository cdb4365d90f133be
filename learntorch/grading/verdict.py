"""The graded notebook the kernel runs, and the verdicts the grader reaches outside it.

:func:`instrument` turns the instructor's notebook (with the learner's
answers already in it) into the notebook a sandboxed kernel runs: each test
cell starts by building a fresh ``__lt_probe`` from the source of
``learntorch.grading.probe`` (so a probe the answers patched is not used)
and binding ``check``/``check_close`` to its recording versions, and an
extra cell after each test cell emits its records tagged with a nonce the
grader chose for this run. Every ``a == b`` that is a check's condition (or
one of the ``and``-ed parts of it) becomes ``_lt_probe_equal(a, b)``
(:func:`rewrite_equalities`), so that the grader sees both sides' values, not
only the yes/no that an object with a lying ``__eq__`` decides.

:func:`cell_verdicts` reads an executed instrumented notebook and decides,
in the grader's process, whether each test cell passed: the cell must have
run without an error *and* its records must match the reference records of
the instructor's solution (same checks in the same order, every ``check``
true, every ``check_close`` value within the check's tolerances of the
reference value). Reference values are never sent to the kernel.
"""

from __future__ import annotations

import ast
import base64
import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell

from learntorch.grading import probe
from learntorch.grading.notebooks import grade_id, is_graded, is_solution, points
from learntorch.grading.runner import TIMEOUT_ERROR

PROBE_SOURCE = Path(probe.__file__).read_text(encoding="utf-8")
_ROLE = "learntorch_grader"  # cell metadata key naming the cells the grader added


_EQUAL = "_lt_probe_equal"  # bound to the fresh probe's ``equal`` by every test cell's prelude


_ORDER = "_lt_probe_order"  # bound to the fresh probe's ``order``
_OPERATORS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


def _comparisons(condition: ast.expr) -> list[ast.Compare]:
    """The ``a OP b`` parts of a check's condition: itself, or the operands of a top-level ``and``."""
    parts = condition.values if isinstance(condition, ast.BoolOp) and isinstance(condition.op, ast.And) \
        else [condition]
    return [part for part in parts if isinstance(part, ast.Compare) and len(part.ops) == 1
            and type(part.ops[0]) in _OPERATORS]


def rewrite_equalities(source: str) -> str:
    """``source`` with each ``check(a == b ...)`` condition's ``a == b`` made ``_lt_probe_equal(a, b)``.

    Likewise ``a < b`` (``<=``, ``>``, ``>=``, ``!=``) becomes
    ``_lt_probe_order(a, "<", b)``: decided on plain values, not by ``__lt__``.

    Edits are made in place in the text (not by unparsing), so line numbers,
    and with them the learner's tracebacks, stay those of the instructor's
    cell. Source that does not parse is returned unchanged (it fails anyway).
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    data = source.encode("utf-8")  # ast's column offsets count UTF-8 bytes
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        return starts[line - 1] + col

    edits: list[tuple[int, int, bytes]] = []  # (start, end, replacement)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "check" and node.args):
            continue
        for compare in _comparisons(node.args[0]):
            symbol = _OPERATORS[type(compare.ops[0])]
            left_end = offset(compare.left.end_lineno, compare.left.end_col_offset)
            right_start = offset(compare.comparators[0].lineno, compare.comparators[0].col_offset)
            operator = data.find(symbol.encode(), left_end, right_start)
            if operator < 0:
                continue
            if symbol == "==":
                call, separator = f"{_EQUAL}(", b","
            else:
                call, separator = f"{_ORDER}(", f", {symbol!r},".encode()
            edits.append((offset(compare.lineno, compare.col_offset), 0, call.encode()))
            edits.append((operator, len(symbol), separator))
            edits.append((offset(compare.end_lineno, compare.end_col_offset), 0, b")"))
    for start, length, text in sorted(edits, reverse=True):
        data = data[:start] + text + data[start + length:]
    return data.decode("utf-8")


def instrument(nb: NotebookNode, nonce: str) -> NotebookNode:
    """The notebook to run: ``nb`` with the probe cell, test-cell preludes and emission cells."""
    # A fresh probe, built from source by every test cell's first line: whatever the answers did
    # to an earlier one (its check_close made to record the expected value, say) is gone.
    fresh = ("__lt_probe = __import__('types').ModuleType('__lt_probe'); "
             f"exec(compile({PROBE_SOURCE!r}, '<learntorch-probe>', 'exec'), __lt_probe.__dict__)")
    out = copy.deepcopy(nb)
    cells = [new_code_cell(fresh, metadata={_ROLE: "probe"})]
    for cell in out.cells:
        if cell.cell_type == "code" and is_graded(cell):
            cell.source = (fresh + "; check, check_close = __lt_probe.check, __lt_probe.check_close; "
                           f"{_EQUAL}, {_ORDER} = __lt_probe.equal, __lt_probe.order\n" + rewrite_equalities(cell.source))
            cells.append(cell)
            emit = new_code_cell(f"__lt_probe.emit({nonce!r}, {grade_id(cell)!r})",
                                 metadata={_ROLE: "emit"})
            cells.append(emit)
        else:
            cells.append(cell)
    out.cells = cells
    for index, cell in enumerate(out.cells):
        cell["id"] = f"graded-{index}"
    return out


@dataclass(frozen=True)
class CellVerdict:
    """The grader's decision on one test cell.

    ``status`` is one word for the gradebook (see ``STATUSES`` in
    ``learntorch.grading.grader``); ``reason`` says why, for the feedback,
    without the hidden tests' code.
    """

    grade_id: str
    points: float
    passed: bool
    status: str
    reason: str
    records: list[dict[str, Any]] | None = None


def _decode(value: dict[str, Any] | None) -> np.ndarray | str | None:
    if not isinstance(value, dict):
        return None
    try:
        if value.get("dtype") == "repr":
            return str(value.get("data"))
        shape = tuple(int(n) for n in value["shape"])
        data = base64.b64decode(value["data"], validate=True)
        array = np.frombuffer(data, dtype=np.dtype(value["dtype"]))
        return array.reshape(shape)
    except (KeyError, TypeError, ValueError):
        return None


def compare(reference: list[dict[str, Any]], records: list[dict[str, Any]] | None) -> str | None:
    """Why ``records`` do not match ``reference``; None when they do.

    Tolerances come from the reference record (the instructor's check), never
    from the learner's run.
    """
    if not isinstance(records, list):
        return "the checks' results never reached the grader"
    for number, ref in enumerate(reference):
        what = ref.get("what") or _next_description(reference, number)
        if number >= len(records) or not isinstance(records[number], dict):
            return f"stopped before the check {what!r}"
        got = records[number]
        # Kinds must line up; descriptions may differ (one that prints a learner's value would).
        if got.get("kind") != ref.get("kind"):
            return f"the checks did not run in the expected order (at {what!r})"
        if ref["kind"] in ("check", "order"):
            if got.get("ok") is not True:
                return f"✗ {what}"
            continue
        if ref["kind"] == "equal":
            have_sides = got.get("value")
            if isinstance(have_sides, list) and any(
                    isinstance(side, str) and side.startswith("<not plain data") for side in have_sides):
                return (f"✗ {what}: a value compared with == is not plain data (numbers, strings, "
                        "tuples, lists, dicts, sets, dtypes, tensors), so it cannot be checked")
            if have_sides != ref.get("value"):
                return f"✗ {what}"
            continue
        want, have = _decode(ref.get("value")), _decode(got.get("value"))
        if isinstance(want, str) or isinstance(have, str):
            if want != have:
                return f"✗ {what}: the result differs from the expected one"
            continue
        if have is None or want is None:
            return f"✗ {what}: the result is not a tensor or an array"
        if have.shape != want.shape:
            return f"✗ {what}: expected shape {tuple(want.shape)}, got shape {tuple(have.shape)}"
        try:
            close = np.allclose(have, want, rtol=float(ref["rtol"]), atol=float(ref["atol"]),
                                equal_nan=True)
        except (TypeError, ValueError):
            close = False
        if not close:
            return f"✗ {what}: the values differ from the expected ones"
    if len(records) != len(reference):
        return "more checks ran than the tests hold"
    return None


def _next_description(reference: list[dict[str, Any]], number: int) -> str:
    """The description of the check that record ``number`` belongs to (an ``equal`` record has none)."""
    for ref in reference[number:]:
        if ref.get("what"):
            return str(ref["what"])
    return f"check {number + 1}"


def _error(cell: NotebookNode) -> tuple[str, str] | None:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return str(out.get("ename", "")), str(out.get("evalue", ""))
    return None


def _probe_payloads(cell: NotebookNode) -> list[Any]:
    return [out["data"][probe.MIME] for out in cell.get("outputs", [])
            if out.get("output_type") in ("display_data", "execute_result")
            and probe.MIME in out.get("data", {})]


def _first_line(text: str, limit: int = 300) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


# Printed by an answer cell, text like this is an attempt to look graded (it changes no verdict).
_BOAST = re.compile(r"(?i)(\bscore\b|\bpoints?\b|\bpassed\b|✓)")

_ERROR_STATUS = {"KeyboardInterrupt": "timeout", TIMEOUT_ERROR: "timeout", "MemoryError": "memory",
                 "SystemExit": "exit", "NotImplementedError": "not-answered",
                 "PermissionError": "denied"}


def cell_verdicts(run: NotebookNode, nonce: str, reference: dict[str, list[dict[str, Any]]] | None,
                  facts: dict[str, Any]) -> list[CellVerdict]:
    """The verdict on every test cell of an executed :func:`instrument` notebook.

    With ``reference`` None (the instructor's own run) records are kept and
    a cell passes when it ran without error and emitted its records.
    """
    verdicts = []
    cells = run.cells
    stray = sum(len(_probe_payloads(c)) for c in cells if c.get("metadata", {}).get(_ROLE) != "emit")
    boasts = any(_BOAST.search(out.get("text", "")) for c in cells if is_solution(c)
                 for out in c.get("outputs", []) if out.get("output_type") == "stream")
    answer_errors: list[str] = []  # errors of the answer cells since the last test cell
    for index, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        if not is_graded(cell):
            err = _error(cell)
            if err and cell.get("metadata", {}).get(_ROLE) is None:
                answer_errors.append(err[0])
            continue
        gid = grade_id(cell) or ""
        emit = cells[index + 1] if index + 1 < len(cells) else None
        payloads = _probe_payloads(emit) if emit is not None else []
        valid = [p for p in payloads if isinstance(p, dict) and p.get("nonce") == nonce
                 and p.get("grade_id") == gid]
        records = valid[0].get("records") if len(payloads) == 1 and len(valid) == 1 else None
        tampered = len(payloads) > 1 or (payloads and not valid) or stray > 0
        err = _error(cell)
        ran = cell.get("execution_count") is not None
        if facts.get("output_unread"):
            status, reason, passed = "failed", "the notebook's output was too large to read", False
        elif not ran:
            status = "timeout" if facts.get("timed_out") else "kernel-died"
            reason = ("the notebook ran out of time before this cell" if status == "timeout"
                      else "the kernel died (os._exit, a crash or the memory limit) before this cell ran")
            passed = False
        elif err is not None:
            status = _ERROR_STATUS.get(err[0], "failed")
            reason = f"{err[0]}: {_first_line(err[1])}" if err[1] else err[0]
            if err[0] == "NameError" and answer_errors:
                status = _ERROR_STATUS.get(answer_errors[-1], "failed")
                reason += f" (your answer cell raised {answer_errors[-1]})"
            passed = False
        elif records is None and not payloads and (facts.get("timed_out") or facts.get("kernel_died")):
            # The run ended inside this cell (a crash, e.g. a recursion past the C stack, or the
            # notebook's time limit): its checks were never emitted. Not a "mismatch" of values.
            status = "timeout" if facts.get("timed_out") else "kernel-died"
            reason = ("the notebook ran out of time in this cell" if status == "timeout"
                      else "the kernel died (a crash or the memory limit) while this cell ran")
            passed = False
        elif reference is None:
            passed = records is not None and not tampered
            status, reason = ("passed", "") if passed else ("failed", "no records")
        else:
            why = compare(reference.get(gid, []), records)
            passed = why is None and not tampered
            if passed:
                status, reason = "passed", ""
            elif tampered:
                status, reason = "tampered", "grader records were forged or duplicated"
            else:
                # The cell ran clean in the kernel, yet its values are not the reference's:
                # a patched check helper, or a result that only looks right there.
                status, reason = "mismatch", why or ""
        if tampered and not passed:
            status, reason = "tampered", "records in the grader's format came from the learner's code; " + reason
        if facts.get("truncated") and not passed:
            status += "+output-limit"
        if boasts and not passed:
            status += "+fake-output"
        answer_errors = []
        verdicts.append(CellVerdict(gid, points(cell), passed, status, reason,
                                    records if reference is None else None))
    return verdicts
