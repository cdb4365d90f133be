"""The course's own exercises: every solutions/*.ipynb earns full marks, its
untouched exercise earns none, and exercises/ is what `make exercises` writes.

A chapter's solutions notebook runs once for the full-marks check and the
raises-exception check together (tests/grading/test_raises_tags.py), through the
session fixture ``notebook_runs``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from nbformat import NotebookNode

from learntorch.grading.checks import grade_results, run_graded
from learntorch.grading.notebooks import read_notebook, validate
from learntorch.grading.release import FIX_COMMAND, check_folder

pytest_plugins = ["learntorch.grading.pytest_plugin"]  # the notebook_runs fixture
NotebookRuns = Callable[[Path], NotebookNode]

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
NO_SOLUTIONS = pytest.mark.skip(reason="no solutions notebooks yet (solutions/*.ipynb)")


def solution_notebooks() -> list[object]:
    found = sorted(SOLUTIONS.glob("*.ipynb"))
    # Same group as in test_raises_tags.py: under `pytest -n N --dist loadgroup` one worker
    # takes both checks of a notebook, and so runs it once.
    params = [
        pytest.param(p, id=p.stem, marks=pytest.mark.xdist_group(str(p.relative_to(ROOT))))
        for p in found
    ]
    return params or [pytest.param(None, marks=NO_SOLUTIONS)]


@pytest.mark.parametrize("solution", solution_notebooks())
def test_nbgrader_metadata_is_valid(solution: Path):
    assert validate(read_notebook(solution)) == [], f"{solution.relative_to(ROOT)}"


@pytest.mark.skipif(not SOLUTIONS.is_dir(), reason="no solutions/ folder yet")
def test_exercises_are_in_step_with_solutions():
    problems = check_folder(SOLUTIONS, EXERCISES)
    assert not problems, "\n".join([*problems, f"run `{FIX_COMMAND}` and commit exercises/"])


@pytest.mark.slow
@pytest.mark.parametrize("solution", solution_notebooks())
def test_solution_earns_full_marks(solution: Path, notebook_runs: NotebookRuns):
    failed = [r for r in grade_results(notebook_runs(solution)) if not r.passed]
    assert not failed, "\n".join(
        f"{solution.name}: {r.grade_id} failed: {r.error_name}: {r.error_message}" for r in failed
    )


@pytest.mark.slow
@pytest.mark.parametrize("solution", solution_notebooks())
def test_untouched_exercise_fails_every_graded_cell(solution: Path):
    exercise = EXERCISES / solution.name
    if not exercise.exists():
        pytest.fail(f"{exercise.relative_to(ROOT)} is missing: run `{FIX_COMMAND}`")
    passed = [r.grade_id for r in run_graded(solution, answers_from=exercise) if r.passed]
    assert not passed, (
        f"{solution.name}: these test cells pass on the untouched exercise, so they test "
        f"nothing the learner writes: {', '.join(passed)}"
    )
