"""Stored notebook outputs read the same on every machine.

A learner's clone lives at another path, with another Python: a stored
traceback that names ``/home/me/learntorch/learntorch/ops/matmul.py`` or a
``site-packages`` folder is this machine's, not the course's.  The notebooks
are stored by ``scripts/execute_notebooks.py``, which rewrites those paths;
these tests catch a notebook stored any other way.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import execute_notebooks  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "solutions").glob("*.ipynb"))
# an absolute path into a checkout or a Python installation, as a traceback prints it
MACHINE_PATH = re.compile(r"(?:/[\w.-]+)+/(?:learntorch|site-packages|dist-packages|lib/python3\.\d+)/[\w/.-]+\.py")


def _texts(path: Path):
    for index, cell in enumerate(json.loads(path.read_text())["cells"]):
        for out in cell.get("outputs", []):
            parts = out.get("traceback", []) + [out.get("text", "")] + [
                "".join(v) if isinstance(v, list) else str(v) for v in out.get("data", {}).values()]
            for text in parts:
                yield index, "".join(text) if isinstance(text, list) else text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_machine_path_in_stored_outputs(path: Path) -> None:
    found = [(i, m.group(0)) for i, text in _texts(path) for m in MACHINE_PATH.finditer(text)]
    assert not found, f"{path.name}: absolute paths in stored outputs (code cells by index): {found[:5]}"


def test_the_executor_strips_this_machines_paths() -> None:
    import nbformat
    here = str(ROOT / "learntorch" / "ops" / "matmul.py")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1/0")])
    nb.cells[0].outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                                                  traceback=[f"File {here}:262, in addmm"])]
    execute_notebooks._strip_machine_paths(nb)
    assert nb.cells[0].outputs[0]["traceback"] == ["File learntorch/ops/matmul.py:262, in addmm"]
    assert not MACHINE_PATH.search(nb.cells[0].outputs[0]["traceback"][0])
    assert MACHINE_PATH.search(f"File {here}:262")  # the test's pattern sees what it must


PACKAGE_SOURCES = "\n".join(p.read_text() for p in sorted((ROOT / "learntorch").rglob("*.py"))) + "\n".join(
    p.read_text() for p in sorted((ROOT / "notebooks" / "scripts").rglob("*.py")))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shown_source_is_the_package_s_current_source(path: Path) -> None:
    """A ``show_source(...)`` cell is tagged ``nbval-ignore-output`` (its HTML depends on the
    highlighter's version), so nbval would not notice the code it shows going out of date: the
    stored plain-text source must still be found, verbatim, in the package (or the course's scripts).
    If this fails, re-execute the notebook (``make notebooks NB=...``)."""
    stale = []
    for index, cell in enumerate(json.loads(path.read_text())["cells"]):
        if cell["cell_type"] != "code" or "show_source(" not in "".join(cell["source"]):
            continue
        for out in cell.get("outputs", []):
            shown = out.get("data", {}).get("text/plain")
            if shown is not None and "".join(shown) not in PACKAGE_SOURCES:
                stale.append((index, "".join(cell["source"]).strip()))
    assert not stale, f"{path.name}: show_source cells whose stored source is out of date: {stale}"
