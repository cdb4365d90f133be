"""Checks that execute notebooks: grading, and ``raises-exception`` tags.

Grading always runs the instructor's notebook, hidden tests included; a
learner's notebook only supplies the sources of the answer cells, matched by
``grade_id``. So a learner cannot delete, edit or skip a test cell, and an
untouched exercise is graded exactly as a learner who wrote nothing.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from nbformat import NotebookNode

from learntorch.grading.execute import DEFAULT_TIMEOUT, execute, execute_notebook
from learntorch.grading.notebooks import (
    describe_cell,
    grade_id,
    is_graded,
    is_solution,
    points,
    read_notebook,
    tags,
    validate,
)
from learntorch.grading.release import release_cell

RAISES_TAG = "raises-exception"  # nbval's tag for a cell that is meant to raise


@dataclass(frozen=True)
class GradeResult:
    """The outcome of one test cell.

    ``error_name`` and ``error_message`` say why a failed cell failed
    (``"AssertionError"``, ``"expected 3, got 4"``); both are None when it passed.
    """

    grade_id: str
    points: float
    passed: bool
    error_name: str | None = None
    error_message: str | None = None

    @property
    def score(self) -> float:
        """The points earned: all of them or none."""
        return self.points if self.passed else 0.0


def grade_results(run: NotebookNode) -> list[GradeResult]:
    """The result of every test cell of an executed notebook, in notebook order.

    A test cell passes when it ran and left no error output.
    """
    results = []
    for cell in run.cells:
        if not is_graded(cell):
            continue
        errors = [out for out in cell.get("outputs", []) if out.output_type == "error"]
        name: str | None
        message: str | None
        if cell.get("execution_count") is None:
            name, message = "NotRun", "the cell did not run: the kernel died or exited before it"
        elif errors:
            name, message = errors[0].ename, errors[0].evalue
        else:
            name = message = None
        results.append(
            GradeResult(
                grade_id=grade_id(cell) or "",
                points=points(cell),
                passed=name is None,
                error_name=name,
                error_message=message,
            )
        )
    return results


def with_answers(solution: NotebookNode, answers: NotebookNode) -> NotebookNode:
    """The instructor's notebook with each answer cell's source taken from ``answers``.

    An answer cell is found in ``answers`` by its ``grade_id`` (the last cell
    with it, if a learner duplicated one: Jupyter runs top to bottom, so the
    last copy is the definition a learner's own run ended with; see
    :func:`duplicated_answers`); where none has it, the released
    stub stands in, as if the learner had left the exercise untouched. Cells
    a learner added are not used: only answer cells are graded.
    """
    learner_sources: dict[str, str] = {}
    for cell in answers.cells:
        ident = grade_id(cell)
        if ident is not None and is_solution(cell):
            learner_sources[ident] = cell.source
    merged = copy.deepcopy(solution)
    for cell in merged.cells:
        ident = grade_id(cell)
        if is_solution(cell) and ident is not None:
            stub = release_cell(cell, f"answer cell {ident!r}").source
            cell.source = learner_sources.get(ident, stub)
    return merged


def duplicated_answers(answers: NotebookNode) -> dict[str, int]:
    """The answer cells' grade_ids that ``answers`` holds more than once, with how many times."""
    counts: dict[str, int] = {}
    for cell in answers.cells:
        ident = grade_id(cell)
        if ident is not None and is_solution(cell):
            counts[ident] = counts.get(ident, 0) + 1
    return {ident: count for ident, count in counts.items() if count > 1}


def run_graded(
    notebook_path: Path,
    answers_from: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[GradeResult]:
    """Grade the solutions notebook at ``notebook_path`` by running it in a fresh kernel.

    With ``answers_from`` (a learner's exercise notebook), the answer cells are
    the learner's (see :func:`with_answers`). The kernel starts in the
    solutions notebook's folder; ``timeout`` is per cell, in seconds.
    Raises ValueError if the notebook's nbgrader metadata is invalid, since
    its grades would mean nothing.
    """
    notebook_path = Path(notebook_path)
    solution = read_notebook(notebook_path)
    problems = validate(solution)
    if problems:
        raise ValueError(
            f"{notebook_path} cannot be graded; fix its nbgrader metadata:\n  "
            + "\n  ".join(problems)
        )
    if answers_from is not None:
        solution = with_answers(solution, read_notebook(Path(answers_from)))
    return grade_results(execute(solution, cwd=notebook_path.parent, timeout=timeout))


def unraised_cells(run: NotebookNode) -> list[int]:
    """Indices of the code cells tagged ``raises-exception`` that ran without an error.

    nbval accepts such a cell whether it raises or not, so a tag left behind
    after a fix would hide the cell's output from the comparison for good.
    """
    return [
        index
        for index, cell in enumerate(run.cells)
        if cell.cell_type == "code"
        and RAISES_TAG in tags(cell)
        and not any(out.output_type == "error" for out in cell.get("outputs", []))
    ]


def cells_that_should_raise_but_dont(
    notebook_path: Path, timeout: float = DEFAULT_TIMEOUT
) -> list[int]:
    """Run the notebook at ``notebook_path`` and return :func:`unraised_cells` of the run."""
    return unraised_cells(execute_notebook(Path(notebook_path), timeout=timeout))


def describe_unraised(run: NotebookNode) -> list[str]:
    """One line per cell of :func:`unraised_cells`, naming the cell for a person."""
    return [
        f"{describe_cell(run.cells[index], index)} is tagged {RAISES_TAG!r} but raised "
        "nothing: remove the tag, or make the cell raise"
        for index in unraised_cells(run)
    ]
