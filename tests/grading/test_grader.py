"""The class grader (learntorch.grading.grader): hostile submissions, resuming, layouts, verdicts.

The hostile submissions are committed notebooks in tests/fixtures/submissions/,
chapter-01 exercise notebooks whose answers attack the grader (each file's
first answer cell says how). They are graded once per session, with an honest
blank submission (exercises/01_tensors.ipynb) and a solved one, by one
:class:`Grader` with small limits; every test then reads that class's results.
"""

from __future__ import annotations

import base64
import csv
import functools
import io
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from learntorch.grading.__main__ import main
from learntorch.grading.grader import COLUMNS, STATUSES, Grader, Limits, gradebook_csv, write_outputs
from learntorch.grading.layout import find_submissions
from learntorch.grading.notebooks import read_notebook
from learntorch.grading.probe import MIME
from learntorch.grading.release import BEGIN_HIDDEN_TESTS, END_HIDDEN_TESTS
from learntorch.grading.sandbox import landlock_available, seccomp_available
from learntorch.grading.verdict import compare, cell_verdicts

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"
CHAPTER = "01_tensors"
LIMITS = Limits(cell_timeout=20, notebook_timeout=45, memory_mb=1536, max_output_bytes=200_000)
NEEDS_LANDLOCK = {"read_solutions", "write_files", "dev_shm"}  # without Landlock these attacks would succeed
NO_LANDLOCK = "Landlock (Linux 5.13+) is not available here, so kernels are not confined to their folder"
NEEDS_SECCOMP = {"other_processes"}  # without the seccomp filter (Linux x86-64/arm64) this one would succeed

# What each hostile submission must be reported as, in the status of at least its first exercise.
EXPECTED_STATUS = {
    "sys_exit": "exit",
    "os_exit": "kernel-died",
    "infinite_loop": "timeout",
    "unbounded_memory": "memory",
    "output_flood": "output-limit",
    "fake_score": "tampered",
    "patch_helpers": "mismatch",
    "patch_probe": "failed",
    "read_solutions": "denied",
    "write_files": "denied",
    "wrong_chapter": "wrong-chapter",
    "not_a_notebook": "not-a-notebook",
    "empty": "empty",
    "detached_child": "not-answered",
    "exec_shadow": "needs-review",
    "display_swap": "needs-review",
    "display_flood": "output-limit",
    "dev_shm": "denied",
    "other_processes": "denied",
    "ansi_feedback": "failed",
}
HONEST = HOSTILE / "honest"  # correct answers with twists the grader must not punish (graded in the same class)


def hostile_names() -> list[str]:
    return sorted(p.stem for p in HOSTILE.glob("*.ipynb"))


@functools.lru_cache(maxsize=None)
def _seccomp_available() -> bool:
    return seccomp_available()


def unsupported(name: str) -> str | None:
    """Why this machine cannot defend against the attack ``name``; None when it can."""
    import platform

    if name in NEEDS_LANDLOCK and not landlock_available():
        return NO_LANDLOCK
    if name in NEEDS_SECCOMP and not (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "aarch64")):
        return "the sandbox's seccomp filter exists for Linux on x86-64 and arm64 only"
    if name in NEEDS_SECCOMP and not _seccomp_available():
        return "this machine refuses seccomp filters (a kernel without them, or a container that forbids them)"
    return None


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """(results by learner, the class folder, the output folder, the grader, file bytes before)."""
    if not (SOLUTIONS / f"{CHAPTER}.ipynb").exists():
        pytest.skip(f"no solutions/{CHAPTER}.ipynb to grade against")
    base = tmp_path_factory.mktemp("class")
    submissions, out = base / "submitted", base / "grades"
    for name in hostile_names():
        if unsupported(name):
            continue
        (submissions / name).mkdir(parents=True)
        shutil.copy(HOSTILE / f"{name}.ipynb", submissions / name / f"{CHAPTER}.ipynb")
    for learner, source in (("honest_blank", ROOT / "exercises"), ("honest_solved", SOLUTIONS)):
        (submissions / learner).mkdir(parents=True)
        shutil.copy(source / f"{CHAPTER}.ipynb", submissions / learner / f"{CHAPTER}.ipynb")
    for path in sorted(HONEST.glob("*.ipynb")):
        (submissions / path.stem).mkdir(parents=True)
        shutil.copy(path, submissions / path.stem / f"{CHAPTER}.ipynb")
    before = {p: p.read_bytes() for p in submissions.rglob("*.ipynb")}
    grader = Grader(SOLUTIONS, out, LIMITS, jobs=2, log=lambda line: None)
    results = grader.grade_all(find_submissions(submissions, SOLUTIONS))
    write_outputs(results, out)
    by_learner = {sub.learner: rows for sub, rows in results.items()}
    return by_learner, submissions, out, grader, before


def earned(rows) -> float:
    return sum(row["points"] for row in rows)


@pytest.mark.slow
def test_honest_submissions_are_graded_right(graded_class):
    by_learner = graded_class[0]
    assert earned(by_learner["honest_solved"]) == 12
    assert {r["status"] for r in by_learner["honest_solved"]} == {"passed"}
    assert earned(by_learner["honest_blank"]) == 0
    assert {r["status"] for r in by_learner["honest_blank"]} == {"not-answered"}


@pytest.mark.slow
@pytest.mark.parametrize("name", hostile_names())
def test_hostile_submission_earns_no_more_than_blank_and_is_reported(graded_class, name):
    by_learner = graded_class[0]
    if unsupported(name):
        pytest.skip(unsupported(name))
    rows = by_learner[name]
    assert len(rows) == len(by_learner["honest_blank"]), "one row per exercise, whatever happened"
    assert earned(rows) <= earned(by_learner["honest_blank"])
    assert EXPECTED_STATUS[name] in rows[0]["status"].split("+"), rows[0]
    for row in rows:
        assert row["status"].split("+")[0] in STATUSES


@pytest.mark.slow
def test_hostile_submissions_touch_no_other_file(graded_class):
    _by_learner, submissions, out, _grader, before = graded_class
    after = {p: p.read_bytes() for p in submissions.rglob("*.ipynb")}
    assert after == before, "a submission was changed while grading"
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8"))))
    assert tuple(rows[0]) == COLUMNS
    assert not any(r[0] == "write_files" and r[3] != "0" for r in rows[1:])


@pytest.mark.slow
def test_no_process_of_a_submission_outlives_its_run(graded_class):
    """detached_child.ipynb leaves `sleep 602.718` behind, detached; the runner must have ended it."""
    if not Path("/proc").is_dir():
        pytest.skip("no /proc to list processes in")
    left = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == b"sleep\x00602.718\x00":
                left.append(int(entry.name))
        except OSError:
            continue
    assert not left, f"processes left behind by a submission: {left}"


def test_the_screen_passes_every_solution_and_stops_the_direct_hooks():
    from learntorch.grading.checks import with_answers
    from learntorch.grading.screen import screen

    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        assert screen(read_notebook(path)) == [], f"{path.name}: an honest answer was screened out"
    for name in ("exec_shadow", "display_swap", "patch_probe", "patch_helpers"):
        graded = with_answers(read_notebook(SOLUTIONS / f"{CHAPTER}.ipynb"),
                              read_notebook(HOSTILE / f"{name}.ipynb"))
        assert screen(graded), name


@pytest.mark.slow
def test_gradebook_and_feedback(graded_class):
    by_learner, _submissions, out, _grader, _before = graded_class
    rows = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8"))))
    assert len(rows) == sum(len(r) for r in by_learner.values())
    solved = [r for r in rows if r["learner"] == "honest_solved"]
    assert [r["points"] for r in solved] == ["2"] * 6 and {r["max_points"] for r in solved} == {"2"}
    assert [r["exercise"] for r in solved] == [f"ch01-ex{i}-tests" for i in range(1, 7)]
    blank = (out / "feedback" / "honest_blank" / f"{CHAPTER}.md").read_text(encoding="utf-8")
    assert "0 / 12 points" in blank and "NotImplementedError" in blank
    feedback = "\n".join(p.read_text(encoding="utf-8") for p in (out / "feedback").rglob("*.md"))
    for line in hidden_test_lines(SOLUTIONS / f"{CHAPTER}.ipynb"):
        assert line not in feedback, f"the feedback reveals hidden test code: {line!r}"
    # ansi_feedback.ipynb: a learner's error message must not carry terminal escapes into the file
    assert "\x1b" not in feedback and "\x07" not in feedback
    assert "\\x1b[2J" in (out / "feedback" / "ansi_feedback" / f"{CHAPTER}.md").read_text(encoding="utf-8")


def hidden_test_lines(path: Path) -> list[str]:
    lines, inside = [], False
    for cell in read_notebook(path).cells:
        for line in cell.source.splitlines():
            if line.strip() == BEGIN_HIDDEN_TESTS:
                inside = True
            elif line.strip() == END_HIDDEN_TESTS:
                inside = False
            elif inside and len(line.strip()) > 25:
                lines.append(line.strip())
    assert lines, "the chapter has hidden tests"
    return lines


@pytest.mark.slow
def test_rerun_is_idempotent_and_resumes(graded_class):
    by_learner, submissions, out, grader, _before = graded_class
    first = (out / "gradebook.csv").read_bytes()
    logged: list[str] = []
    again = Grader(SOLUTIONS, out, LIMITS, jobs=2, log=logged.append)
    results = again.grade_all(find_submissions(submissions, SOLUTIONS))
    assert gradebook_csv(results) == first and logged == [], "a second run re-graded something"
    # An interrupted run: two submissions' results never written. The rerun grades those two only.
    cached = sorted((out / ".grader" / "results").glob("*.json"))
    assert len(cached) == len(by_learner)
    blank_key = grader_key(grader, submissions / "honest_blank" / f"{CHAPTER}.ipynb")
    solved_key = grader_key(grader, submissions / "honest_solved" / f"{CHAPTER}.ipynb")
    for key in (blank_key, solved_key):
        (out / ".grader" / "results" / f"{key}.json").unlink()
    (out / "gradebook.csv").unlink()
    assert main([str(submissions), "--solutions", str(SOLUTIONS), "--out", str(out), "--jobs", "2",
                 "--cell-timeout", "20", "--notebook-timeout", "45", "--memory-mb", "1536",
                 "--max-output-mb", "0.2"]) == 0
    assert (out / "gradebook.csv").read_bytes() == first
    assert not list(out.rglob("*.tmp")), "a temporary file was left behind"


def grader_key(grader: Grader, path: Path) -> str:
    from dataclasses import asdict
    import json

    from learntorch.grading.grader import GRADER_VERSION, _sha256
    from learntorch.grading.verdict import PROBE_SOURCE

    return _sha256(GRADER_VERSION.encode(), path.read_bytes(),
                   (SOLUTIONS / f"{CHAPTER}.ipynb").read_bytes(), PROBE_SOURCE.encode(),
                   json.dumps(asdict(grader.limits)).encode())


# --- layouts (no notebook runs) ------------------------------------------------------------


def test_the_three_layouts_are_found(tmp_path):
    notebook = (ROOT / "exercises" / f"{CHAPTER}.ipynb").read_bytes()
    files = ["per_learner/ann/01_tensors.ipynb", "per_learner/ann/notes.txt",
             "per_learner/ann/.ipynb_checkpoints/01_tensors-checkpoint.ipynb",
             "flat/bo_li_01_tensors.ipynb", "flat/readme.ipynb",
             "course/submitted/cy/ps1/01_tensors.ipynb", "course/submitted/cy/ps1/99_unknown.ipynb"]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(notebook)
    found = {layout: [(s.learner, s.chapter_name, s.chapter) for s in
                      find_submissions(tmp_path / layout, SOLUTIONS)]
             for layout in ("per_learner", "flat", "course")}
    assert found == {"per_learner": [("ann", "01_tensors", "01_tensors")],
                     "flat": [("bo_li", "01_tensors", "01_tensors")],
                     "course": [("cy", "01_tensors", "01_tensors"), ("cy", "99_unknown", None)]}


def test_unknown_chapter_is_a_row_not_a_crash(tmp_path):
    (tmp_path / "cy").mkdir()
    (tmp_path / "cy" / "99_unknown.ipynb").write_text("{}")
    grader = Grader(SOLUTIONS, tmp_path / "out", LIMITS, jobs=1, log=lambda line: None)
    results = grader.grade_all(find_submissions(tmp_path, SOLUTIONS))
    assert [r["status"] for rows in results.values() for r in rows] == ["unknown-chapter"]


# --- verdicts, decided outside the kernel --------------------------------------------------


def encoded(values, dtype="<f4") -> dict:
    a = np.asarray(values, dtype=dtype)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "data": base64.b64encode(a.tobytes()).decode()}


REFERENCE = [{"kind": "check", "what": "a fact", "ok": True},
             {"kind": "close", "what": "values", "value": encoded([1.0, 2.0]), "rtol": 1e-5, "atol": 1e-6}]


def test_compare_uses_the_reference_values_and_tolerances():
    good = [dict(REFERENCE[0]), dict(REFERENCE[1], value=encoded([1.0, 2.0 + 1e-6]))]
    assert compare(REFERENCE, good) is None
    loose = [dict(REFERENCE[0]), dict(REFERENCE[1], value=encoded([1.0, 2.5]), rtol=1.0, atol=1.0)]
    assert "differ" in compare(REFERENCE, loose), "a learner's own tolerance must not count"
    assert "shape" in compare(REFERENCE, [REFERENCE[0], dict(REFERENCE[1], value=encoded([1.0]))])
    assert "a fact" in compare(REFERENCE, [dict(REFERENCE[0], ok=1), REFERENCE[1]])
    assert "stopped before" in compare(REFERENCE, REFERENCE[:1])
    assert compare(REFERENCE, None) is not None
    assert compare(REFERENCE, [*REFERENCE, REFERENCE[0]]) is not None


def fake_run(payloads: list, stray: list | None = None):
    meta = {"nbgrader": {"grade": True, "solution": False, "points": 2, "grade_id": "t1"}}
    test = new_code_cell("pass", metadata=meta, execution_count=2)
    emit = new_code_cell("emit", metadata={"learntorch_grader": "emit"}, execution_count=3)
    emit.outputs = [new_output("display_data", data={MIME: p}) for p in payloads]
    answer = new_code_cell("answer", metadata={"nbgrader": {"solution": True, "grade_id": "a1"}},
                           execution_count=1)
    answer.outputs = [new_output("display_data", data={MIME: p}) for p in stray or []]
    return new_notebook(cells=[answer, test, emit])


def test_records_need_the_nonce_and_arrive_once():
    ok = {"nonce": "n1", "grade_id": "t1", "records": REFERENCE}
    verdict = lambda run: cell_verdicts(run, "n1", {"t1": REFERENCE}, {})[0]  # noqa: E731
    assert verdict(fake_run([ok])).passed
    assert verdict(fake_run([dict(ok, nonce="guess")])).status == "tampered"
    assert verdict(fake_run([ok, ok])).status == "tampered"
    assert verdict(fake_run([ok], stray=[ok])).status == "tampered"
    assert not verdict(fake_run([])).passed
    # A run that ended inside a test cell (a crash, the time limit) is not a "mismatch" of values.
    for facts, status in (({"kernel_died": True}, "kernel-died"), ({"timed_out": True}, "timeout")):
        assert cell_verdicts(fake_run([]), "n1", {"t1": REFERENCE}, facts)[0].status == status
    assert cell_verdicts(fake_run([]), "n1", {"t1": REFERENCE}, {})[0].status == "mismatch"


# --- submissions the grader must not read, and names that must not collide (no notebook runs) --


def test_a_symlink_to_the_solutions_is_not_graded(tmp_path):
    """A link to solutions/ would be read by the grader (not by the confined kernel): full marks."""
    (tmp_path / "eve").mkdir()
    (tmp_path / "eve" / f"{CHAPTER}.ipynb").symlink_to(SOLUTIONS / f"{CHAPTER}.ipynb")
    grader = Grader(SOLUTIONS, tmp_path / "out", LIMITS, jobs=1, log=lambda line: None)
    rows = next(iter(grader.grade_all(find_submissions(tmp_path, SOLUTIONS)).values()))
    assert earned(rows) == 0 and {r["status"] for r in rows} == {"denied"}
    assert "symbolic link" in rows[0]["reason"]


def test_a_huge_file_is_not_read(tmp_path, monkeypatch):
    import learntorch.grading.grader as grader_module

    monkeypatch.setattr(grader_module, "MAX_NOTEBOOK_BYTES", 1000)
    (tmp_path / "eve").mkdir()
    shutil.copy(SOLUTIONS / f"{CHAPTER}.ipynb", tmp_path / "eve" / f"{CHAPTER}.ipynb")
    grader = Grader(SOLUTIONS, tmp_path / "out", LIMITS, jobs=1, log=lambda line: None)
    rows = next(iter(grader.grade_all(find_submissions(tmp_path, SOLUTIONS)).values()))
    assert earned(rows) == 0 and {r["status"] for r in rows} == {"not-a-notebook"}


def test_learner_names_cannot_share_a_feedback_file_or_inject_formulas(tmp_path):
    from learntorch.grading.layout import Submission

    row = {"exercise": "e", "points": 0.0, "max_points": 1.0, "status": "empty", "reason": ""}
    subs = [Submission(name, CHAPTER, tmp_path / f"{i}.ipynb", CHAPTER)
            for i, name in enumerate(["a b", "a_b", "a/b", "\t=cmd|' /C calc'!A0", "\r=1+1", "=1+1",
                                      "eve\rbob,01_tensors,e,1,1,passed"])]
    write_outputs({sub: [row] for sub in subs}, tmp_path)
    assert len(list((tmp_path / "feedback").rglob("*.md"))) == len(subs)
    text = (tmp_path / "gradebook.csv").read_bytes().decode("utf-8")  # keeps the "\r" in a name
    learners = [r[0] for r in csv.reader(io.StringIO(text, newline=""))][1:]
    assert len(learners) == len(subs)
    assert all(name[:1] not in "=+-@" and name.isprintable() for name in learners), learners
    assert "bob" not in learners


# --- regressions of the red-team review (one shared class run above; the rest runs no kernel) ---


@pytest.mark.slow
def test_a_flagged_notebook_needs_review_and_keeps_the_computed_points(graded_class):
    """A screen flag holds the points for an instructor; it does not call the learner a cheat."""
    rows = graded_class[0]["exec_shadow"]
    assert earned(rows) == 0
    assert all("needs-review" in row["status"].split("+") for row in rows), rows
    assert not any(row["status"].startswith("tampered") for row in rows)
    assert all("the tests gave" in row["reason"] and "line" in row["reason"] for row in rows)


@pytest.mark.slow
def test_innocent_uses_of_flagged_modules_earn_full_marks(graded_class):
    """import sys + sys.float_info, gc.collect(), __lt__/__hash__ on a helper class."""
    rows = graded_class[0]["innocent_sys"]
    assert earned(rows) == 12 and {r["status"] for r in rows} == {"passed"}, rows


@pytest.mark.slow
def test_the_last_copy_of_a_duplicated_answer_cell_is_graded_and_named(graded_class):
    rows = graded_class[0]["dup_answer_cell"]
    assert earned(rows) == 12, rows
    assert "'ch01-ex1-my-sum' 2 times" in rows[0]["reason"] and "last" in rows[0]["reason"]
    assert all(not row["reason"] for row in rows[1:])


@pytest.mark.slow
def test_a_helper_in_an_added_cell_is_named_in_the_feedback(graded_class):
    rows = {row["exercise"]: row for row in graded_class[0]["helper_cell"]}
    row = rows["ch01-ex5-tests"]
    assert row["status"] == "failed" and "NameError" in row["reason"]
    assert "'_row_norms' is defined in a cell you added" in row["reason"], row


def test_several_notebooks_for_one_chapter_are_ambiguous_not_graded_each(tmp_path):
    notebook = (SOLUTIONS / f"{CHAPTER}.ipynb").read_bytes()
    for name in ("01_tensors", "01_tensors_copy", "01_tensors_v2"):
        (tmp_path / "bob" / f"{name}.ipynb").parent.mkdir(exist_ok=True)
        (tmp_path / "bob" / f"{name}.ipynb").write_bytes(notebook)
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "01_tensors_v2.ipynb").write_bytes(notebook)  # one file, however named: graded
    subs = find_submissions(tmp_path, SOLUTIONS)
    assert [(s.learner, s.chapter, len(s.duplicates)) for s in subs] == [
        ("ann", CHAPTER, 0), ("bob", CHAPTER, 3)]
    grader = Grader(SOLUTIONS, tmp_path / "out", LIMITS, jobs=1, log=lambda line: None)
    rows = grader.grade([s for s in subs if s.learner == "bob"][0])  # runs no kernel
    assert len(rows) == 6 and earned(rows) == 0 and {r["status"] for r in rows} == {"ambiguous"}
    assert "01_tensors_copy.ipynb" in rows[0]["reason"] and "01_tensors_v2.ipynb" in rows[0]["reason"]
    assert "none was graded" in rows[0]["reason"]


def _run_probe_cell(source: str, namespace: dict) -> list[dict]:
    """Run an instrumented test cell's source in this process (no kernel); return its records."""
    from types import ModuleType

    from learntorch.grading.verdict import PROBE_SOURCE, rewrite_equalities

    fresh = ModuleType("__lt_probe")
    exec(compile(PROBE_SOURCE, "<learntorch-probe>", "exec"), fresh.__dict__)
    namespace.update(check=fresh.check, check_close=fresh.check_close,
                     _lt_probe_equal=fresh.equal, _lt_probe_order=fresh.order)
    exec(compile(rewrite_equalities(source), "<test cell>", "exec"), namespace)
    return list(fresh._records)


def test_an_object_that_equals_everything_fails_equality_and_order_checks():
    """unittest.mock.ANY made check(f(...) == expected) pass: the values are now compared here."""
    from unittest.mock import ANY

    test = "check(f() == [(0, 1), (2, 3)], 'batches')\ncheck(g() < 0.5, 'small loss')\n"

    class Lies:
        def __lt__(self, other):
            return True

    honest = _run_probe_cell(test, {"f": lambda: [(0, 1), (2, 3)], "g": lambda: 0.25})
    assert compare(honest, _run_probe_cell(test, {"f": lambda: [(0, 1), (2, 3)], "g": lambda: 0.1})) is None
    with pytest.raises(AssertionError):
        _run_probe_cell(test, {"f": lambda: ANY, "g": lambda: 0.25})
    with pytest.raises(AssertionError):
        _run_probe_cell(test, {"f": lambda: [(0, 1), (2, 3)], "g": Lies})
    # Even a run whose check() was rigged to record "ok" cannot match: the recorded values differ.
    forged = [dict(r, ok=True) for r in honest]
    forged[0] = dict(forged[0], value=["<not plain data: unittest.mock._ANY>", honest[0]["value"][1]])
    assert "not plain data" in compare(honest, forged)
    # == keeps Python's meaning for plain data: 1 == 1.0 == True, a list is not a tuple.
    assert _run_probe_cell("check(x == (1, 2.0), 'w')", {"x": (True, 2)})[0]["value"][0] == \
        _run_probe_cell("check(x == (1, 2.0), 'w')", {"x": (1, 2)})[0]["value"][0]
    with pytest.raises(AssertionError):
        _run_probe_cell("check(x == (1, 2), 'w')", {"x": [1, 2]})


def test_the_rewrite_keeps_line_numbers():
    from learntorch.grading.verdict import rewrite_equalities

    source = "x = 1\ncheck(f(x) ==\n      [1, 2] and y is None, 'é ✓')\ncheck_close(a == b, c, what='w')\n"
    rewritten = rewrite_equalities(source)
    assert rewritten.count("\n") == source.count("\n")
    assert "_lt_probe_equal(f(x) ,\n      [1, 2])" in rewritten and "check_close(a == b" in rewritten


def test_ch09_grades_do_not_depend_on_the_order_layers_are_created_in():
    """A correct Head that creates query before key, a Block that creates mlp before attn: same values."""
    from learntorch.grading.notebooks import grade_id, is_graded

    nb = read_notebook(SOLUTIONS / "09_attention_gpt.ipynb")
    by_id = {grade_id(c): c.source for c in nb.cells if grade_id(c)}
    setup = nb.cells[1].source
    swaps = {"ch09-ex2-head": ("        self.key = nn.Linear(n_embd, head_size, bias=False)\n", ""),
             "ch09-ex3-block": ("        self.attn = CausalSelfAttention(n_embd, n_head, block_size)\n", "")}
    reordered = {}
    for ident, (line, _) in swaps.items():
        assert line in by_id[ident]
        moved = by_id[ident].replace(line, "")
        reordered[ident] = moved.replace("        ### END SOLUTION\n", line + "        ### END SOLUTION\n", 1)
    cells = [c for c in nb.cells if c.cell_type == "code"]

    def records(answers: dict) -> dict:
        namespace: dict = {}
        exec(compile(setup, "<setup>", "exec"), namespace)
        found = {}
        for cell in cells[1:]:
            ident = grade_id(cell)
            if is_graded(cell):
                found[ident] = _run_probe_cell(cell.source, namespace)
                if ident == "ch09-ex3-tests":
                    return found
            else:
                exec(compile(answers.get(ident, cell.source), "<cell>", "exec"), namespace)
        return found

    reference, learner = records({}), records(reordered)
    for ident in ("ch09-ex2-tests", "ch09-ex3-tests"):
        assert compare(reference[ident], learner[ident]) is None, ident
