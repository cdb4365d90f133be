"""nbgrader interop: nbgrader itself, run on solutions/ with the repository's nbgrader_config.py,
hands out the same exercise notebooks as `make exercises` (cell by cell, sources and kinds)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from learntorch.grading.notebooks import read_notebook

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_nbgrader_generate_assignment_matches_exercises(tmp_path):
    pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[test]')")
    if not list((ROOT / "solutions").glob("*.ipynb")):
        pytest.skip("no solutions notebooks yet (solutions/*.ipynb)")
    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions", course / "solutions")
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    bin_dir = str(Path(sys.executable).parent)  # nbgrader runs `alembic` from the same environment
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", "solutions", "--force"],
                          cwd=course, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    released = sorted((course / "release" / "solutions").glob("*.ipynb"))
    assert [p.name for p in released] == sorted(p.name for p in (ROOT / "solutions").glob("*.ipynb"))
    for path in released:
        exercise = ROOT / "exercises" / path.name
        assert exercise.exists(), f"nbgrader released {path.name}, exercises/ has no such notebook"
        ours = [(c.cell_type, c.source) for c in read_notebook(exercise).cells]
        theirs = [(c.cell_type, c.source) for c in read_notebook(path).cells]
        assert len(theirs) == len(ours), path.name
        for index, (mine, nbgraders) in enumerate(zip(ours, theirs)):
            assert mine == nbgraders, f"{path.name}, cell[{index}] differs from nbgrader's"
