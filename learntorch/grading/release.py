"""Make the learner's ``exercises/`` from the instructor's ``solutions/``.

The rules are nbgrader's ``generate_assignment``, so an instructor who uses
nbgrader on ``solutions/`` hands out the same exercises:

- in an answer cell, each ``### BEGIN SOLUTION`` ... ``### END SOLUTION``
  region becomes ``# YOUR CODE HERE`` / ``raise NotImplementedError()`` at the
  indentation of the BEGIN line (``YOUR ANSWER HERE`` in a markdown cell); an
  answer cell without a region is replaced whole;
- in a test cell, each ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS``
  region is removed, markers included;
- outputs and execution counts are cleared; all metadata is kept.

Unlike nbgrader, a marker must stand alone on its line, and a line that
mentions a marker's words in any other way is an error rather than silently
a marker, since either reading could leak a solution or hide a test.

Released notebooks are byte-for-byte reproducible, so ``--check`` proves that
``exercises/`` is in step with ``solutions/`` by comparing bytes.

Usage::

    python -m learntorch.grading.release [--source solutions] [--dest exercises] [--check]
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Sequence
from pathlib import Path

from nbformat import NotebookNode

from learntorch.grading.notebooks import (
    clear_outputs,
    describe_cell,
    is_graded,
    is_solution,
    notebook_bytes,
    read_notebook,
    validate,
)

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
BEGIN_HIDDEN_TESTS = "### BEGIN HIDDEN TESTS"
END_HIDDEN_TESTS = "### END HIDDEN TESTS"
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
TEXT_STUB = ("YOUR ANSWER HERE",)
FIX_COMMAND = "make exercises"

_MARKERS = (BEGIN_SOLUTION, END_SOLUTION, BEGIN_HIDDEN_TESTS, END_HIDDEN_TESTS)


def _marker(line: str, where: str, number: int) -> str | None:
    """The marker that ``line`` is, None for an ordinary line."""
    stripped = line.strip()
    for marker in _MARKERS:
        if stripped == marker:
            return marker
        words = marker.removeprefix("### ")
        if words in line:
            raise ValueError(
                f"{where}, line {number}: {stripped!r} mentions {words!r} but is not a "
                f"marker; write the marker alone on its line as {marker!r}, or reword the line"
            )
    return None


def _replace_regions(
    source: str, begin: str, end: str, stub: Sequence[str], where: str
) -> tuple[str, bool]:
    """Replace each ``begin``...``end`` region by ``stub`` indented like its BEGIN line.

    Returns the new source and whether any region was found. Markers of any
    other kind are an error: the caller passes the only pair the cell may hold.
    """
    kept: list[str] = []
    opened_at: int | None = None
    found = False
    for number, line in enumerate(source.split("\n"), start=1):
        marker = _marker(line, where, number)
        if marker is None:
            if opened_at is None:
                kept.append(line)
        elif marker == begin:
            if opened_at is not None:
                raise ValueError(
                    f"{where}, line {number}: {begin!r} inside the region opened on "
                    f"line {opened_at}; close that one with {end!r} first"
                )
            opened_at, found = number, True
            indent = line[: len(line) - len(line.lstrip())]
            kept.extend(indent + stub_line for stub_line in stub)
        elif marker == end:
            if opened_at is None:
                raise ValueError(f"{where}, line {number}: {end!r} without a {begin!r} before it")
            opened_at = None
        else:
            raise ValueError(f"{where}, line {number}: {_misplaced(marker)}")
    if opened_at is not None:
        raise ValueError(
            f"{where}: {begin!r} on line {opened_at} is never closed; add {end!r} after the region"
        )
    return "\n".join(kept), found


def _misplaced(marker: str) -> str:
    if marker in (BEGIN_SOLUTION, END_SOLUTION):
        return (
            f"{marker!r} in a cell that is not an answer cell; give the cell nbgrader "
            "metadata solution: true and a grade_id, or remove the marker"
        )
    return (
        f"{marker!r} in a cell that is not a test cell; hidden tests belong in a cell "
        "with nbgrader metadata grade: true, points and a grade_id"
    )


def _released_source(cell: NotebookNode, where: str) -> str:
    if is_solution(cell):
        stub = CODE_STUB if cell.cell_type == "code" else TEXT_STUB
        source, found = _replace_regions(cell.source, BEGIN_SOLUTION, END_SOLUTION, stub, where)
        return source if found else "\n".join(stub)
    if is_graded(cell):
        return _replace_regions(cell.source, BEGIN_HIDDEN_TESTS, END_HIDDEN_TESTS, (), where)[0]
    for number, line in enumerate(cell.source.split("\n"), start=1):
        marker = _marker(line, where, number)
        if marker is not None:
            raise ValueError(f"{where}, line {number}: {_misplaced(marker)}")
    return cell.source


def release_cell(cell: NotebookNode, where: str = "cell") -> NotebookNode:
    """The learner's version of one cell (see the module docstring for the rules).

    ``where`` names the cell in error messages. Raises ValueError for a
    malformed region (unclosed, nested, stray END) or a marker in a cell of
    the wrong kind.
    """
    released = copy.deepcopy(cell)
    released.source = _released_source(cell, where)
    return released


def release_notebook(nb: NotebookNode, name: str = "notebook") -> NotebookNode:
    """The learner's version of an instructor's notebook; ``nb`` is not changed.

    ``name`` (usually the file's path) starts every error message. Raises
    ValueError listing every metadata problem (see ``notebooks.validate``), or
    naming the first cell whose markers are malformed.
    """
    problems = validate(nb)
    if problems:
        raise ValueError(
            f"{name} has invalid nbgrader metadata (edit it in JupyterLab's property "
            "inspector, or with nbgrader's Create Assignment toolbar):\n  " + "\n  ".join(problems)
        )
    released = copy.deepcopy(nb)
    released.cells = [
        release_cell(cell, f"{name}, {describe_cell(cell, index)}")
        for index, cell in enumerate(nb.cells)
    ]
    clear_outputs(released)
    return released


def released_bytes(solution: Path) -> bytes:
    """The exercise file that the solutions notebook at ``solution`` gives."""
    return notebook_bytes(release_notebook(read_notebook(solution), name=str(solution)))


def _solution_notebooks(source: Path) -> list[Path]:
    if not source.is_dir():
        raise FileNotFoundError(
            f"no folder {source}: run from the repository root, or pass --source"
        )
    return sorted(source.glob("*.ipynb"))


def _extra_notebooks(source: Path, dest: Path) -> list[Path]:
    """Notebooks in ``dest`` that no notebook in ``source`` generates."""
    return sorted(p for p in dest.glob("*.ipynb") if not (source / p.name).exists())


def release_folder(source: Path, dest: Path) -> list[Path]:
    """Write ``dest/X.ipynb`` for every ``source/X.ipynb``; return the paths written.

    Every notebook is released before any is written, so an error in one
    leaves ``dest`` as it was. Notebooks in ``dest`` without a source are
    deleted, because ``dest`` is generated and must hold nothing else; other
    files there (data, a README) are left alone.
    """
    source, dest = Path(source), Path(dest)
    if source.resolve() == dest.resolve():
        raise ValueError(
            f"--source and --dest are both {source}: releasing would overwrite the solutions"
        )
    contents = {dest / path.name: released_bytes(path) for path in _solution_notebooks(source)}
    dest.mkdir(parents=True, exist_ok=True)
    for extra in _extra_notebooks(source, dest):
        extra.unlink()
    for path, content in contents.items():
        path.write_bytes(content)
    return list(contents)


def check_folder(source: Path, dest: Path) -> list[str]:
    """Why ``dest`` is not what ``release_folder(source, dest)`` would make; [] when it is.

    Reports exercise notebooks that are missing, out of date, or left over
    from a solutions notebook that is gone.
    """
    source, dest = Path(source), Path(dest)
    problems: list[str] = []
    for solution in _solution_notebooks(source):
        exercise = dest / solution.name
        if not exercise.exists():
            problems.append(f"{exercise} is missing (it is generated from {solution})")
        elif exercise.read_bytes() != released_bytes(solution):
            problems.append(f"{exercise} is out of date with {solution}")
    problems.extend(
        f"{extra} has no {source / extra.name} to be generated from"
        for extra in _extra_notebooks(source, dest)
    )
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0 done or in step, 1 problems)."""
    parser = argparse.ArgumentParser(
        prog="python -m learntorch.grading.release",
        description="Write exercises/ from solutions/ (nbgrader markers), "
        "or check that they are in step.",
    )
    parser.add_argument(
        "--source",
        type=Path,
        default=Path("solutions"),
        help="the instructor's notebooks (default: solutions)",
    )
    parser.add_argument(
        "--dest",
        type=Path,
        default=Path("exercises"),
        help="the learner's notebooks (default: exercises)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if dest is not what a release would write",
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            return _report_check(args.source, args.dest)
        stale = _extra_notebooks(args.source, args.dest)
        written = release_folder(args.source, args.dest)
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in stale:
        print(f"removed {path} (no {args.source / path.name})")
    for path in written:
        print(f"wrote {path}")
    return 0


def _report_check(source: Path, dest: Path) -> int:
    problems = check_folder(source, dest)
    if not problems:
        print(f"{dest}/ is in step with {source}/")
        return 0
    print(f"{dest}/ is not in step with {source}/:", file=sys.stderr)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    print(
        f"Fix: run `{FIX_COMMAND}` (python -m learntorch.grading.release --source {source} "
        f"--dest {dest}) and commit {dest}/; never edit {dest}/ by hand.",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
