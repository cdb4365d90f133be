"""Exercise generation (solutions/ -> exercises/) and grading, on small fixture notebooks.

The fixtures are in tests/fixtures/release/: ``two_exercises.ipynb`` is a
solutions notebook stored executed, with two exercises (indented and
repeated solution regions, a whole-cell answer, a markdown answer, hidden
tests); ``unclosed_solution.ipynb`` has a BEGIN SOLUTION that never ends;
``missing_ids.ipynb`` is a format-4.5 notebook saved without cell ids.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from learntorch.grading.checks import run_graded, with_answers
from learntorch.grading.notebooks import notebook_bytes, read_notebook, validate
from learntorch.grading.release import (
    check_folder,
    main,
    release_folder,
    release_notebook,
    released_bytes,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "release"
TWO = FIXTURES / "two_exercises.ipynb"
STUB = "# YOUR CODE HERE\nraise NotImplementedError()"


def by_grade_id(nb: NotebookNode) -> dict[str, NotebookNode]:
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "nbgrader" in c.metadata}


@pytest.fixture(scope="module")
def released() -> dict[str, NotebookNode]:
    return by_grade_id(release_notebook(read_notebook(TWO), name=str(TWO)))


def answer(source: str, gid: str = "ex1-f", cell_type: str = "code") -> NotebookNode:
    make = new_code_cell if cell_type == "code" else new_markdown_cell
    meta = {"solution": True, "grade": False, "locked": False, "grade_id": gid, "schema_version": 3}
    return make(source, metadata={"nbgrader": meta})


def graded(source: str, gid: str = "ex1-tests", points: float = 1) -> NotebookNode:
    meta = {
        "grade": True,
        "solution": False,
        "locked": True,
        "points": points,
        "grade_id": gid,
        "schema_version": 3,
    }
    return new_code_cell(source, metadata={"nbgrader": meta})


def solutions_folder(tmp_path: Path, *names: str) -> Path:
    source = tmp_path / "solutions"
    source.mkdir()
    for name in names:
        shutil.copy(FIXTURES / name, source / name)
    return source


# --- generation rules ----------------------------------------------------------------------


def test_solution_region_becomes_stub_at_the_indentation_of_its_begin_line(released):
    assert released["ex1-add"].source == (
        'def add(a, b):\n    """Return a + b."""\n'
        "    # YOUR CODE HERE\n    raise NotImplementedError()"
    )


def test_every_solution_region_of_a_cell_is_replaced(released):
    assert released["ex2-stats"].source == (
        "def mean(xs):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n\n\n"
        "def norm(xs):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    )


def test_answer_cell_without_markers_is_replaced_whole(released):
    assert released["ex2-answer"].source == STUB


def test_markdown_solution_region_becomes_your_answer_here(released):
    assert released["ex1-why"].source == "Why is `add` commutative?\n\nYOUR ANSWER HERE"


def test_hidden_tests_are_removed_and_visible_checks_kept(released):
    assert released["ex1-tests"].source == 'assert add(1, 2) == 3\nprint("exercise 1 passed")'
    assert released["ex2-tests"].source == "assert mean([1, 2, 3]) == 2"


def test_outputs_cleared_metadata_kept_other_cells_unchanged():
    solution = read_notebook(TWO)
    assert any(c.get("outputs") for c in solution.cells), "the fixture must be stored executed"
    exercise = release_notebook(solution)
    assert exercise.metadata == solution.metadata
    assert [c.id for c in exercise.cells] == [c.id for c in solution.cells]
    for before, after in zip(solution.cells, exercise.cells, strict=True):
        if after.cell_type == "code":
            assert (after.outputs, after.execution_count) == ([], None)
        assert "execution" not in after.metadata  # the run's timestamps
        assert after.metadata.get("nbgrader") == before.metadata.get("nbgrader")
        assert after.metadata.get("tags") == before.metadata.get("tags")
        if "nbgrader" not in before.metadata:
            assert after.source == before.source


def test_release_does_not_change_its_input():
    solution = read_notebook(TWO)
    before = notebook_bytes(solution)
    release_notebook(solution)
    assert notebook_bytes(solution) == before


def test_release_is_byte_identical_on_rerun(tmp_path):
    source = solutions_folder(tmp_path, "two_exercises.ipynb", "missing_ids.ipynb")
    first = {p.name: p.read_bytes() for p in release_folder(source, tmp_path / "a")}
    second = {p.name: p.read_bytes() for p in release_folder(source, tmp_path / "b")}
    assert first == second
    assert sorted(first) == ["missing_ids.ipynb", "two_exercises.ipynb"]
    assert all(content.endswith(b"}\n") for content in first.values())


def test_cells_saved_without_ids_get_stable_ids():
    nb = read_notebook(FIXTURES / "missing_ids.ipynb")
    assert [c.id for c in nb.cells] == ["cell-0", "cell-1"]
    path = FIXTURES / "missing_ids.ipynb"
    assert released_bytes(path) == released_bytes(path)


# --- malformed notebooks -------------------------------------------------------------------


def test_unclosed_begin_names_notebook_cell_and_fix(tmp_path):
    source = solutions_folder(tmp_path, "unclosed_solution.ipynb")
    with pytest.raises(ValueError) as error:
        release_folder(source, tmp_path / "exercises")
    message = str(error.value)
    assert str(source / "unclosed_solution.ipynb") in message
    assert "cell[0] (grade_id 'ex1-f')" in message
    assert "'### BEGIN SOLUTION' on line 2 is never closed" in message
    assert "add '### END SOLUTION'" in message


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        pytest.param(
            [answer("### BEGIN SOLUTION\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION")],
            "line 2: '### BEGIN SOLUTION' inside the region opened on line 1",
            id="nested-begin",
        ),
        pytest.param(
            [answer("x = 1\n### END SOLUTION")],
            "line 2: '### END SOLUTION' without a '### BEGIN SOLUTION' before it",
            id="end-without-begin",
        ),
        pytest.param(
            [new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION")],
            "line 1: '### BEGIN SOLUTION' in a cell that is not an answer cell",
            id="solution-in-plain-cell",
        ),
        pytest.param(
            [answer("x = 1\n### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS")],
            "line 2: '### BEGIN HIDDEN TESTS' in a cell that is not a test cell",
            id="hidden-tests-in-answer-cell",
        ),
        pytest.param(
            [graded("assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(2) == 4")],
            "'### BEGIN HIDDEN TESTS' on line 2 is never closed",
            id="unclosed-hidden-tests",
        ),
        pytest.param(
            [answer("x = 1  ### BEGIN SOLUTION\n### END SOLUTION")],
            "line 1: 'x = 1  ### BEGIN SOLUTION' mentions 'BEGIN SOLUTION' but is not a marker",
            id="marker-not-alone-on-its-line",
        ),
        pytest.param(
            [answer("Text\n### BEGIN SOLUTION\nAnswer", gid="ex1-why", cell_type="markdown")],
            "cell[0] (grade_id 'ex1-why'): '### BEGIN SOLUTION' on line 2 is never closed",
            id="unclosed-in-markdown",
        ),
    ],
)
def test_malformed_markers_raise_value_error_naming_the_cell(cells, expected):
    nb = new_notebook(cells=[*cells, graded("pass", gid="other-tests")])
    with pytest.raises(ValueError, match=r"^solutions/bad\.ipynb, cell") as error:
        release_notebook(nb, name="solutions/bad.ipynb")
    assert expected in str(error.value)


def test_invalid_metadata_is_reported_all_at_once():
    nb = new_notebook(
        cells=[
            answer("x = 1", gid="same"),
            graded("assert x == 1", gid="same"),
            graded("assert x", gid="no-points", points=0),
            new_code_cell("y = 2", metadata={"nbgrader": {"solution": True}}),
        ]
    )
    problems = validate(nb)
    assert problems == [
        "cell[1] (grade_id 'same') has the same grade_id as cell[0]: make them unique",
        "cell[2] (grade_id 'no-points') is graded but has no points: set points > 0",
        "cell[3] 'y = 2' has no grade_id: give it one in its nbgrader metadata",
    ]
    with pytest.raises(ValueError, match=r"nb\.ipynb has invalid nbgrader metadata") as error:
        release_notebook(nb, name="nb.ipynb")
    assert all(problem in str(error.value) for problem in problems)


def test_a_notebook_without_graded_cells_is_invalid():
    assert validate(new_notebook(cells=[answer("x = 1")])) == [
        "no graded cell: add a code cell of tests with nbgrader metadata grade: true"
    ]


# --- folders, check, command line -----------------------------------------------------------


def test_a_failed_release_leaves_dest_as_it_was(tmp_path):
    source = solutions_folder(tmp_path, "two_exercises.ipynb", "unclosed_solution.ipynb")
    dest = tmp_path / "exercises"
    dest.mkdir()
    (dest / "old.ipynb").write_text("{}")
    with pytest.raises(ValueError):
        release_folder(source, dest)
    assert sorted(p.name for p in dest.iterdir()) == ["old.ipynb"]


def test_release_removes_left_over_notebooks_only(tmp_path):
    source = solutions_folder(tmp_path, "two_exercises.ipynb")
    dest = tmp_path / "exercises"
    dest.mkdir()
    (dest / "old.ipynb").write_text("{}")
    (dest / "data.csv").write_text("a,b\n")
    assert release_folder(source, dest) == [dest / "two_exercises.ipynb"]
    assert sorted(p.name for p in dest.iterdir()) == ["data.csv", "two_exercises.ipynb"]


def test_release_refuses_to_overwrite_its_source(tmp_path):
    source = solutions_folder(tmp_path, "two_exercises.ipynb")
    with pytest.raises(ValueError, match="would overwrite the solutions"):
        release_folder(source, source)


def test_check_folder_reports_missing_out_of_date_and_extra(tmp_path):
    source = solutions_folder(tmp_path, "two_exercises.ipynb", "missing_ids.ipynb")
    dest = tmp_path / "exercises"
    release_folder(source, dest)
    assert check_folder(source, dest) == []
    (dest / "missing_ids.ipynb").unlink()
    with (dest / "two_exercises.ipynb").open("a") as file:
        file.write(" ")
    (dest / "old.ipynb").write_text("{}")
    two, ids = "two_exercises.ipynb", "missing_ids.ipynb"
    assert check_folder(source, dest) == [
        f"{dest / ids} is missing (it is generated from {source / ids})",
        f"{dest / two} is out of date with {source / two}",
        f"{dest / 'old.ipynb'} has no {source / 'old.ipynb'} to be generated from",
    ]


def test_cli_check_fails_with_the_fix_then_release_makes_it_pass(tmp_path, capsys):
    source = solutions_folder(tmp_path, "two_exercises.ipynb")
    dest = tmp_path / "exercises"
    args = ["--source", str(source), "--dest", str(dest)]
    assert main([*args, "--check"]) == 1
    err = capsys.readouterr().err
    assert f"{dest / 'two_exercises.ipynb'} is missing" in err
    assert "run `make exercises`" in err
    assert main(args) == 0
    assert f"wrote {dest / 'two_exercises.ipynb'}" in capsys.readouterr().out
    assert main([*args, "--check"]) == 0
    assert "is in step" in capsys.readouterr().out


def test_cli_reports_a_missing_source_folder(tmp_path, capsys):
    args = ["--source", str(tmp_path / "nowhere"), "--dest", str(tmp_path / "ex"), "--check"]
    assert main(args) == 1
    assert "no folder" in capsys.readouterr().err


@pytest.mark.slow  # a new interpreter imports nbformat: seconds
def test_cli_runs_as_a_module_with_default_folders(tmp_path):
    solutions_folder(tmp_path, "two_exercises.ipynb")
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    command = [sys.executable, "-W", "error::RuntimeWarning", "-m", "learntorch.grading.release"]
    run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "exercises" / "two_exercises.ipynb").exists()


# --- grading: answers merged by grade_id ------------------------------------------------------


def test_with_answers_takes_answer_sources_by_grade_id_and_stubs_the_rest():
    solution = read_notebook(TWO)
    learner = new_notebook(
        cells=[
            answer("def add(a, b):\n    return b + a", gid="ex1-add"),
            graded("pass", gid="ex2-tests"),  # a learner cannot replace a test cell
            answer("answer = 0", gid="ex2-answer"),  # an old copy above the working one
            answer("answer = 41", gid="ex2-answer"),  # the last one counts, as in a top-to-bottom run
        ]
    )
    merged = by_grade_id(with_answers(solution, learner))
    assert merged["ex1-add"].source == "def add(a, b):\n    return b + a"
    assert merged["ex2-answer"].source == "answer = 41"
    assert merged["ex2-stats"].source.count("raise NotImplementedError()") == 2
    assert merged["ex2-tests"].source == by_grade_id(solution)["ex2-tests"].source


def test_run_graded_refuses_invalid_metadata(tmp_path):
    bad = tmp_path / "bad.ipynb"
    nbformat.write(new_notebook(cells=[answer("x = 1")]), bad)
    with pytest.raises(ValueError, match=r"bad\.ipynb cannot be graded"):
        run_graded(bad)


@pytest.mark.slow
def test_solution_earns_full_marks():
    results = run_graded(TWO)
    assert [(r.grade_id, r.points, r.passed) for r in results] == [
        ("ex1-tests", 1.0, True),
        ("ex2-tests", 2.0, True),
    ]
    assert sum(r.score for r in results) == 3.0


@pytest.mark.slow
def test_untouched_exercise_fails_every_graded_cell(tmp_path):
    (exercise,) = release_folder(solutions_folder(tmp_path, "two_exercises.ipynb"), tmp_path / "ex")
    results = run_graded(TWO, answers_from=exercise)
    assert [(r.grade_id, r.passed, r.error_name) for r in results] == [
        ("ex1-tests", False, "NotImplementedError"),
        ("ex2-tests", False, "NotImplementedError"),
    ]
    assert sum(r.score for r in results) == 0


@pytest.mark.slow
def test_one_exercise_solved_earns_its_points_and_edited_tests_do_not_count(tmp_path):
    exercise = release_notebook(read_notebook(TWO))
    cells = by_grade_id(exercise)
    cells["ex1-add"].source = "def add(a, b):\n    return a + b"
    cells["ex1-tests"].source = cells["ex2-tests"].source = "pass"
    exercise.cells = [c for c in exercise.cells if c is not cells["ex2-answer"]]
    exercise.cells.append(new_code_cell("def mean(xs):\n    return 2"))  # not an answer cell
    path = tmp_path / "two_exercises.ipynb"
    nbformat.write(exercise, path)
    results = run_graded(TWO, answers_from=path)
    assert [(r.grade_id, r.passed, r.score) for r in results] == [
        ("ex1-tests", True, 1.0),
        ("ex2-tests", False, 0.0),
    ]
