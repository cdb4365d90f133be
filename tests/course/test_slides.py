"""The chapters' slide decks: slide metadata in the notebooks, and `make slides` working offline.

The metadata half needs nothing but nbformat and runs everywhere. The build
half needs reveal.js and MathJax from npm (web/package.json): it skips with a
reason where npm is missing and they are not installed yet.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


slide_metadata = _load("slide_metadata")
build_site = _load("build_site")


# ---------------------------------------------------------------- the rules


def _types(cells):
    nb = new_notebook(cells=cells)
    slide_metadata.apply(nb)
    return [c.metadata["slideshow"]["slide_type"] for c in nb.cells]


def test_rules_headings_code_and_notes():
    cells = [
        new_markdown_cell("# 02 Title\nintro"),
        new_code_cell("import numpy as np\nimport learntorch as torch"),  # set-up
        new_markdown_cell("> Speaker notes — say this"),
        new_markdown_cell("## 1. A section"),
        new_markdown_cell("Some text under it."),
        new_code_cell("x = 1"),
        new_markdown_cell("An explanation after code."),
        new_code_cell("y = 2"),
        new_code_cell("\n".join(f"z{i} = {i}" for i in range(slide_metadata.LONG_CODE_LINES + 1))),
        new_markdown_cell("### 1.1 A subsection"),
        new_markdown_cell("tagged notes"),
    ]
    cells[-1].metadata["tags"] = ["notes"]
    assert _types(cells) == ["slide", "skip", "notes", "slide", "-", "-", "subslide", "-", "subslide", "subslide", "notes"]


def test_rules_tags_and_graded_cells():
    shown = new_code_cell("import numpy as np")
    shown.metadata["tags"] = ["slide-show"]
    locked = new_markdown_cell("## would be a slide")
    locked.metadata["tags"] = ["slide-locked"]
    locked.metadata["slideshow"] = {"slide_type": "fragment"}
    hidden = new_code_cell("assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(2) == 3\n### END HIDDEN TESTS")
    graded = new_code_cell("assert f(1) == 2")
    graded.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "t", "points": 1}
    solution = new_code_cell("def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION")
    solution.metadata["nbgrader"] = {"grade": False, "solution": True, "grade_id": "s"}
    assert _types([new_markdown_cell("# T"), shown, locked, hidden, graded, solution]) == [
        "slide", "-", "fragment", "skip", "skip", "-",
    ]


def test_apply_is_idempotent_and_check_reports(tmp_path):
    path = tmp_path / "nb.ipynb"
    nbformat.write(new_notebook(cells=[new_markdown_cell("# T"), new_code_cell("x = 1")]), path)
    assert slide_metadata.main(["--check", str(path)]) == 1  # no metadata yet
    assert slide_metadata.main([str(path)]) == 0
    first = path.read_text()
    assert slide_metadata.main([str(path)]) == 0
    assert path.read_text() == first
    assert slide_metadata.main(["--check", str(path)]) == 0


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_slide_metadata_follows_the_rules(path):
    nb = nbformat.read(path, as_version=4)
    problems = slide_metadata.mismatches(nb)
    assert not problems, (
        f"{path.name}: slide metadata out of step with scripts/slide_metadata.py; run\n"
        f"  .venv/bin/python scripts/slide_metadata.py notebooks/{path.name}\n" + "\n".join(problems[:10])
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_has_speaker_notes(path):
    nb = nbformat.read(path, as_version=4)
    assert any(slide_metadata.is_notes(c) for c in nb.cells), (
        f"{path.name} has no speaker notes: add a markdown cell starting with '> Speaker notes' (or tagged 'notes')"
    )


# ---------------------------------------------------------------- the build


@pytest.fixture(scope="module")
def deck_dir(tmp_path_factory):
    if not build_site._installed_ok() and shutil.which("npm") is None:
        pytest.skip("reveal.js/MathJax are not in web/node_modules and npm is not installed to get them")
    out = tmp_path_factory.mktemp("slides")
    try:
        build_site.build_slides([ROOT / "notebooks" / "02_autograd.ipynb"], out)
    except build_site.WebAssetsUnavailable as err:
        pytest.skip(f"cannot install reveal.js/MathJax from npm: {err}")
    return out


def test_deck_has_slides_notes_and_outputs(deck_dir):
    html = (deck_dir / "02_autograd.slides.html").read_text(encoding="utf-8")
    nb = nbformat.read(ROOT / "notebooks" / "02_autograd.ipynb", as_version=4)
    n_slides = sum(c.metadata["slideshow"]["slide_type"] in ("slide", "subslide") for c in nb.cells)
    assert n_slides > 30
    # one <section> per slide, and one more around each horizontal slide that has subslides
    assert html.count("<section") >= n_slides
    assert html.count('<aside class="notes">') == sum(slide_metadata.is_notes(c) for c in nb.cells) >= 1
    assert "data:image/svg+xml;base64," in html  # the graphviz pictures (SVG outputs, as images)
    assert "RevealNotes" in html and "Reveal.initialize" in html


def test_deck_loads_nothing_from_the_network(deck_dir):
    html = (deck_dir / "02_autograd.slides.html").read_text(encoding="utf-8")
    loaded = re.findall(r'<(?:script|link)\b[^>]*\s(?:src|href)="([^"]+)"', html)
    assert loaded, "no scripts or stylesheets found: the check would pass vacuously"
    assert not [u for u in loaded if re.match(r"(https?:)?//", u)]
    for url in loaded:
        assert (deck_dir / url).is_file(), f"{url} is referenced but was not copied next to the deck"
    for needed in ("reveal.js/dist/reveal.js", "reveal.js/plugin/notes/notes.js", build_site.MATHJAX_JS):
        assert needed in loaded
    assert list((deck_dir / "mathjax/output/chtml/fonts/woff-v2").glob("*.woff")), "MathJax's fonts are missing"
    assert build_site.audit(deck_dir) == []


def test_audit_catches_a_cdn(tmp_path):
    (tmp_path / "a.html").write_text('<script src="https://cdn.example/x.js"></script><link href="gone.css" rel="stylesheet">')
    (tmp_path / "t.css").write_text("@import url(https://fonts.example/f.css);")
    problems = build_site.audit(tmp_path)
    assert len(problems) == 3, problems
