"""A pytest fixture that executes each notebook at most once per test session.

Running a notebook costs seconds to minutes, and several checks read the
same run of ``solutions/*.ipynb`` (full marks, ``raises-exception`` tags).
A test module loads this with::

    pytest_plugins = ["learntorch.grading.pytest_plugin"]

The cache lives only as long as the session, so an edit to a notebook or
to the package is always seen by the next ``pytest``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from nbformat import NotebookNode

from learntorch.grading.execute import execute_notebook

NotebookRuns = Callable[[Path], NotebookNode]


@pytest.fixture(scope="session")
def notebook_runs() -> NotebookRuns:
    """``notebook_runs(path)``: the run of the notebook at ``path`` (see ``execute_notebook``)."""
    runs: dict[Path, NotebookNode] = {}

    def run(path: Path) -> NotebookNode:
        key = Path(path).resolve()
        if key not in runs:
            runs[key] = execute_notebook(key)
        return runs[key]

    return run
