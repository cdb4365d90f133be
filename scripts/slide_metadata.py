"""Give every cell of a notebook its slide type, by rule, so `make slides` needs no second copy.

A chapter notebook *is* its slide deck: reveal.js (through nbconvert's
`--to slides`) and JupyterLab's RISE both read the cell metadata
``slideshow.slide_type``. Setting that by hand for ~100 cells per chapter is
tedious and drifts as the text changes, so this script sets it from the
structure the chapters already have. Run it after editing a notebook:

    .venv/bin/python scripts/slide_metadata.py notebooks/*.ipynb     # apply
    .venv/bin/python scripts/slide_metadata.py --check notebooks/*.ipynb

It changes metadata only (never sources or outputs), writes a file only when
something changed, and is idempotent. tests/course/test_slides.py fails when a
notebook in notebooks/ is not in step with these rules.

The rules, in order (the first that matches wins):

1. A cell tagged ``slide-locked`` keeps the ``slideshow.slide_type`` it has:
   use it to set a type by hand (in JupyterLab: the property inspector's
   "Slide Type", then add the tag).
2. Speaker notes -> ``notes`` (shown in reveal's speaker view, the `s` key):
   a markdown cell tagged ``notes``, or whose first line starts with
   ``> Speaker notes``.
3. Markdown starting with ``# `` or ``## `` -> ``slide`` (a new horizontal
   slide); ``### `` -> ``subslide`` (a vertical slide below it).
4. Code cells that a lecture does not show -> ``skip``: nbgrader's hidden or
   autograded test cells, and set-up cells (mostly ``import`` lines) unless
   tagged ``slide-show``.
5. A code cell longer than ``LONG_CODE_LINES`` lines -> ``subslide`` (it fills
   a slide on its own).
6. Other markdown right after a shown code cell -> ``subslide`` (a new
   explanation starts a new vertical slide, taking the code below it along);
   a code cell after a shown code cell when either has a picture (PNG/SVG)
   -> ``subslide``.
7. Everything else -> ``-`` (continue the current slide).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

#: A code cell with more source lines than this gets a slide of its own.
LONG_CODE_LINES = 15
#: Tags with a meaning here (see the module docstring).
LOCK_TAG, NOTES_TAG, SHOW_TAG = "slide-locked", "notes", "slide-show"
NOTES_PREFIX = "> Speaker notes"

_IMPORT = re.compile(r"^(import\s|from\s+\S+\s+import\s)")
_PICTURES = ("image/png", "image/svg+xml", "image/jpeg")


def _meaningful_lines(source: str) -> list[str]:
    """Source lines that are not blank and not comments."""
    return [ln for ln in source.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def is_notes(cell) -> bool:
    """True for a speaker-notes cell (rule 2)."""
    if cell.cell_type != "markdown":
        return False
    first = cell.source.lstrip().splitlines()[0] if cell.source.strip() else ""
    return NOTES_TAG in cell.metadata.get("tags", []) or first.startswith(NOTES_PREFIX)


def is_hidden_code(cell) -> bool:
    """True for a code cell a lecture does not show (rule 4)."""
    if cell.cell_type != "code":
        return False
    grader = cell.metadata.get("nbgrader", {})
    if "### BEGIN HIDDEN TESTS" in cell.source:
        return True
    if grader.get("grade") and not grader.get("solution"):
        return True  # an autograded test cell: the checks, not the lesson
    if SHOW_TAG in cell.metadata.get("tags", []):
        return False
    lines = _meaningful_lines(cell.source)
    imports = sum(bool(_IMPORT.match(ln)) for ln in lines)
    return bool(lines) and imports / len(lines) >= 0.6


def _has_picture(cell) -> bool:
    return any(m in out.get("data", {}) for out in cell.get("outputs", []) for m in _PICTURES)


def expected_types(nb) -> list[str]:
    """The slide type of every cell of `nb` by the rules (locked cells: their stored type)."""
    types: list[str] = []
    prev = None  # the previous cell shown on a slide (not skipped, not notes)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        stored = cell.metadata.get("slideshow", {}).get("slide_type")
        if LOCK_TAG in tags and stored:
            kind = stored
        elif is_notes(cell):
            kind = "notes"
        elif cell.cell_type == "markdown" and re.match(r"#{1,2} ", cell.source):
            kind = "slide"
        elif cell.cell_type == "markdown" and cell.source.startswith("### "):
            kind = "subslide"
        elif is_hidden_code(cell) or cell.cell_type == "raw":
            kind = "skip"
        elif cell.cell_type == "code" and len(cell.source.splitlines()) > LONG_CODE_LINES:
            kind = "subslide"
        elif prev is not None and prev.cell_type == "code" and (
            cell.cell_type == "markdown" or _has_picture(cell) or _has_picture(prev)
        ):
            kind = "subslide"
        else:
            kind = "-"
        types.append(kind)
        if kind not in ("skip", "notes"):
            prev = cell
    return types


def apply(nb) -> int:
    """Set every cell's slideshow.slide_type by the rules; return how many changed."""
    changed = 0
    for cell, kind in zip(nb.cells, expected_types(nb)):
        slideshow = cell.metadata.setdefault("slideshow", {})
        if slideshow.get("slide_type") != kind:
            slideshow["slide_type"] = kind
            changed += 1
    return changed


def mismatches(nb) -> list[str]:
    """Human-readable differences between the stored and the expected slide types."""
    out = []
    for i, (cell, kind) in enumerate(zip(nb.cells, expected_types(nb))):
        stored = cell.metadata.get("slideshow", {}).get("slide_type")
        if stored != kind:
            first = (cell.source.splitlines() or [""])[0][:50]
            out.append(f"cell {i} ({cell.cell_type}, {first!r}): stored {stored!r}, rule says {kind!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook is out of step")
    args = parser.parse_args(argv)
    bad = 0
    for path in args.notebooks:
        nb = nbformat.read(path, as_version=4)
        if args.check:
            problems = mismatches(nb)
            for p in problems:
                print(f"{path}: {p}")
            bad += bool(problems)
            continue
        n = apply(nb)
        if n:
            nbformat.write(nb, path)
        print(f"{path}: {n} cell(s) changed" if n else f"{path}: up to date")
    if args.check and bad:
        print(f"\n{bad} notebook(s) out of step: run .venv/bin/python scripts/slide_metadata.py on them", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
