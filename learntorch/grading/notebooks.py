"""Notebook files and the nbgrader cell metadata that the course relies on.

The cell metadata is nbgrader's (schema version 3), so an instructor can run
nbgrader itself on ``solutions/``:

- an exercise (answer) cell: ``{"solution": true, "grade": false, "grade_id": ...}``
- a test cell: ``{"grade": true, "solution": false, "points": 2, "grade_id": ...}``

learntorch grades automatically only, so a cell that is both graded and a
solution (nbgrader's "manually graded answer") is rejected by :func:`validate`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode

_GRADE_ID = re.compile(r"^[A-Za-z0-9_-]+$")  # what nbgrader accepts


def read_notebook(path: Path) -> NotebookNode:
    """Read a notebook as nbformat 4.

    nbformat gives a cell without an ``id`` (required from format 4.5 on) a
    random one while reading, which would make a released notebook differ on
    every run; such a cell gets the id ``cell-<index>`` instead.
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if (data.get("nbformat", 0), data.get("nbformat_minor", 0)) >= (4, 5):
        for index, cell in enumerate(data.get("cells", [])):
            cell.setdefault("id", f"cell-{index}")
    return nbformat.reads(json.dumps(data), as_version=4)


def notebook_bytes(nb: NotebookNode) -> bytes:
    """The file content for ``nb``, exactly as ``nbformat.write`` would save it.

    Keys sorted, one-space indent, a newline at the end: the same notebook
    always gives the same bytes, so "in step" is a plain comparison.
    """
    text = nbformat.writes(nb)
    if not text.endswith("\n"):
        text += "\n"
    return text.encode("utf-8")


def _nbgrader(cell: NotebookNode) -> dict[str, Any]:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_solution(cell: NotebookNode) -> bool:
    """True for an answer cell, whose solution regions the learner fills in."""
    return bool(_nbgrader(cell).get("solution", False))


def is_graded(cell: NotebookNode) -> bool:
    """True for a test cell, whose passing earns its points."""
    return bool(_nbgrader(cell).get("grade", False))


def grade_id(cell: NotebookNode) -> str | None:
    """The nbgrader ``grade_id`` of the cell, None when it has none."""
    value = _nbgrader(cell).get("grade_id")
    return value if isinstance(value, str) and value else None


def points(cell: NotebookNode) -> float:
    """The points a test cell is worth (0 when unset or not a number)."""
    value = _nbgrader(cell).get("points", 0)
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if is_number else 0.0


def tags(cell: NotebookNode) -> list[str]:
    """The cell's tags (JupyterLab's property inspector edits them)."""
    return list(cell.get("metadata", {}).get("tags", []))


def describe_cell(cell: NotebookNode, index: int) -> str:
    """A name for a cell that a person can find in JupyterLab.

    ``cell[3] (grade_id 'ex1-tests')`` or ``cell[3] 'def f(x):'``: the index
    counts cells from 0, as ``nb.cells[3]`` does; the grade_id or first line
    says which cell it is without counting.
    """
    ident = grade_id(cell)
    if ident:
        return f"cell[{index}] (grade_id {ident!r})"
    first_line = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return f"cell[{index}] {first_line[:40]!r}"


def clear_outputs(nb: NotebookNode) -> None:
    """Remove, in place, what running the notebook left in it.

    Outputs, execution counts, and the run's timestamps (``metadata.execution``,
    written by nbclient and by JupyterLab's "record timing"), so that running
    a notebook again changes nothing that is derived from it.
    """
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.get("metadata", {}).pop("execution", None)


def validate(nb: NotebookNode) -> list[str]:
    """Problems with the nbgrader metadata of a solutions notebook, [] when none.

    Every answer and test cell needs a unique ``grade_id`` (the grader matches
    a learner's answer to the instructor's cell by it), every test cell needs
    points > 0 (otherwise passing or failing it changes nothing), and there
    must be at least one test cell (otherwise the notebook cannot be graded).
    """
    problems: list[str] = []
    seen: dict[str, int] = {}
    graded_cells = 0
    for index, cell in enumerate(nb.cells):
        if not (is_solution(cell) or is_graded(cell)):
            continue
        where = describe_cell(cell, index)
        ident = grade_id(cell)
        if ident is None:
            problems.append(f"{where} has no grade_id: give it one in its nbgrader metadata")
        elif not _GRADE_ID.match(ident):
            problems.append(f"{where}: a grade_id may hold only letters, digits, '-' and '_'")
        elif ident in seen:
            problems.append(
                f"{where} has the same grade_id as cell[{seen[ident]}]: make them unique"
            )
        else:
            seen[ident] = index
        if is_graded(cell):
            graded_cells += 1
            if is_solution(cell) or cell.cell_type != "code":
                problems.append(
                    f"{where} is graded but is not a code cell of tests: learntorch grades "
                    "automatically, so put answers in solution cells and tests in graded "
                    "code cells (solution: false)"
                )
            if points(cell) <= 0:
                problems.append(f"{where} is graded but has no points: set points > 0")
    if graded_cells == 0:
        problems.append(
            "no graded cell: add a code cell of tests with nbgrader metadata grade: true"
        )
    return problems
