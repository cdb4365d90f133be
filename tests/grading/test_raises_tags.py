"""Every code cell tagged ``raises-exception`` really raises.

nbval passes a tagged cell whether or not it raises, so a tag left on a cell
after its bug was fixed would silently take the cell out of the output
comparison. Notebooks in solutions/ share their run with the full-marks check
(tests/grading/test_exercises.py) through the session fixture ``notebook_runs``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from nbformat import NotebookNode

from learntorch.grading.checks import cells_that_should_raise_but_dont, describe_unraised

pytest_plugins = ["learntorch.grading.pytest_plugin"]  # the notebook_runs fixture
NotebookRuns = Callable[[Path], NotebookNode]

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "release"


def course_notebooks() -> list[object]:
    found = sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("solutions/*.ipynb")])
    names = [str(p.relative_to(ROOT)) for p in found]
    none = pytest.mark.skip(reason="no notebooks yet (notebooks/*.ipynb, solutions/*.ipynb)")
    # Same group as in test_exercises.py (see there).
    params = [pytest.param(ROOT / n, id=n, marks=pytest.mark.xdist_group(n)) for n in names]
    return params or [pytest.param(None, marks=none)]


@pytest.mark.slow
@pytest.mark.parametrize("notebook", course_notebooks())
def test_cells_tagged_raises_exception_raise(notebook: Path, notebook_runs: NotebookRuns):
    problems = describe_unraised(notebook_runs(notebook))
    assert not problems, "\n".join(f"{notebook.relative_to(ROOT)}: {p}" for p in problems)


@pytest.mark.slow
def test_a_tagged_cell_that_does_not_raise_is_found():
    # cell[0] raises and cell[4] raises with another tag beside; cell[1] does not
    # raise; cell[2] is untagged; cell[3] is a tagged markdown cell, never run.
    assert cells_that_should_raise_but_dont(FIXTURES / "raises_tags.ipynb") == [1]
