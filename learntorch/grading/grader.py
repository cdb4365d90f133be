"""Grade a class: many learners' exercise notebooks -> a gradebook and feedback files.

How one submission is graded
----------------------------
1. Its answers -- the sources of the cells with nbgrader ``solution: true``,
   matched by ``grade_id`` -- are put into a fresh copy of the instructor's
   notebook from ``solutions/`` (``checks.with_answers``). Everything else the
   learner changed (test cells, setup cells, added cells) is ignored.
2. That notebook is instrumented (``verdict.instrument``) and run by
   ``runner`` in its own process, with its own kernel started by ``sandbox``
   in an empty scratch folder, under a per-cell and a per-notebook time limit,
   an address-space limit and an output cap.
3. The test cells' records (the values the checks saw) are compared in this
   process with the records of the instructor's solution, run once per
   chapter the same way and cached (``verdict.cell_verdicts``).

Threat model: what a learner's code can and cannot do
-----------------------------------------------------
The learner's answer cells run in the kernel before the test cells, so they
can change anything inside that process: builtins, NumPy, learntorch, the
check helpers, IPython's hooks, even the source of later cells.

Defended (the worst outcome is a wrong value, scored 0):

- editing or deleting test cells, renaming answers: only answer sources are
  taken; test cells come from ``solutions/``;
- printing text that looks like a score or a passing check: no verdict is
  read from printed output;
- redefining ``check``/``check_close``, patching ``numpy.allclose``,
  ``learntorch.testing`` or learntorch's ops so that wrong results compare
  equal: the comparison with the reference values happens here, and the
  reference values never enter the kernel;
- patching the grader's own recording checks (their source is public), e.g.
  making ``check_close`` record the expected value as the answer: every
  test cell builds a fresh probe from source, so a probe the answers
  patched is never used (tests/fixtures/submissions/patch_probe.ipynb
  earns 6 of 12 points against a grader without this, 0 with it);
- the direct routes to rigging the tests from an answer cell -- a global or
  builtin ``exec``/``compile``/``__import__`` that rigs each fresh probe,
  IPython input transformers or events that rewrite the test cells, trace
  functions, frames, ``gc``, ``ctypes``, objects whose ``__eq__``/
  ``__bool__``/``__array__`` lie, spies put on ``numpy.allclose`` (which is
  handed the expected value) and ``IPython.display.display`` (which carries
  the records out), reading the cells' sources (``In``, ``inspect``,
  ``traceback``) to leak hidden tests through error messages: the answers
  are screened before grading (``learntorch.grading.screen``) and such a
  submission is held at 0 points with the status ``needs-review``; its rows
  name the line and the points the tests gave, for an instructor to decide
  (tests/fixtures/submissions/exec_shadow.ipynb earns 2 points for a wrong
  ``my_sum`` without the screen, 0 with it). A flag is not a verdict of
  cheating, and the common innocent uses are let through (see the screen's
  docstring). The screen is a list, so it is a speed bump, not a wall (see
  "Not defended");
- objects that claim to equal everything (``unittest.mock.ANY``) in a
  ``check(a == b)``: comparisons in a check's condition are rewritten to
  record both sides as plain data, compared here
  (``verdict.rewrite_equalities``, ``probe.equal``/``probe.order``);
- several notebooks of one chapter from one learner: ``ambiguous``, none
  graded, so a chapter's points cannot be counted twice;
- submissions that are symbolic links (one to ``solutions/`` would be read
  by this process, which may read it): ``denied``, never read; files over
  ``MAX_NOTEBOOK_BYTES``: never read, so they cannot exhaust this process;
- learner names (folder or file names) that would break the gradebook: a
  formula prefix is quoted, control characters are escaped (a raw ``\r``
  in a name would otherwise start a forged row), and names that differ only
  in characters a file name cannot hold get their own feedback files;
- processes the answers start and detach (``fork`` + ``setsid``) that would
  outlive the kernel: the runner is their "child subreaper" on Linux and
  kills every one left when the run ends
  (tests/fixtures/submissions/detached_child.ipynb);
- forging the grader's records: they must carry the nonce chosen for this
  run and arrive once, in the grader's emission cell; anything else in that
  MIME type anywhere marks the submission ``tampered``. And a forged record
  still needs the right values to score;
- ``sys.exit``, ``os._exit``, crashes, infinite loops (also ones that catch
  ``KeyboardInterrupt``), unbounded memory, floods of output: the cell or the
  kernel fails, the runner records it, other submissions go on;
- reading ``solutions/``, the reference cache or other learners' work, and
  writing to the gradebook, the cache or other learners' files: on Linux
  5.13+ the kernel is confined by Landlock to its scratch folder (and
  read-only access to Python and the installed packages); outgoing network
  connections are refused (Linux 6.7+), and signals to processes outside the
  sandbox too (Linux 6.12+). Of /dev it may open only null, zero, full,
  random and urandom (not /dev/shm: memory outside its limit, left behind
  for other kernels to read; tests/fixtures/submissions/dev_shm.ipynb). The
  gradebook is written by this process only, from its results, through a
  temporary file and a rename;
- changing other processes of the grader's user, which Landlock does not
  cover: a seccomp filter (Linux x86-64, arm64) refuses ``prlimit`` on
  another process (an ``RLIMIT_CPU`` of 1 s would kill the runner or the
  grader), ``setpriority`` beyond the kernel itself (``PRIO_USER`` renices
  every process of the user, for good) and ``ioprio_set``
  (tests/fixtures/submissions/other_processes.ipynb);
- terminal escapes in a learner's error message or name: the feedback
  files escape control characters (tests/fixtures/submissions/ansi_feedback.ipynb).

Not defended:

- code inside one process cannot be walled off from code that ran before
  it there. The test cells compute their expected values in the kernel,
  and the records leave it through functions that live there (the fresh
  probe imports NumPy, base64 and IPython.display, whatever the answers
  made of them). A learner who reaches the interpreter by a route the
  screen does not list -- obfuscated names (``getattr`` with built-up
  strings, ``sys.modules[...]`` through an alias, a module object bound to
  another name before its attribute is assigned, code written to a file in
  the scratch folder and imported from there), patching other functions
  the probe or the tests call, tensors that remember the values they were
  built from -- can forge records and pass. That takes deliberate work
  against this grader's published source and leaves it in the answer
  cells, which the instructor can read. Yes/no checks other than
  comparisons (``check(torch.equal(a, b))``, ``check(bool(...))``, and tests
  written as plain ``raise AssertionError``) are decided in the kernel. Rewriting a test to call the library instead of the answer yields
  right values and passes: the grader checks results, not how they were
  computed. An error message of the learner's own is shown in the feedback
  (its first line, 300 characters): code that reads the hidden tests by an
  unscreened route can leak them there -- an instructor who keeps hidden
  tests secret should not send feedback of ``needs-review``/``tampered`` rows
  unread;
- where Landlock is missing (macOS, Windows, Linux before 5.13) the kernel
  runs with the grader's file permissions: run the grader as a user that
  cannot read ``solutions/`` or other learners' files, or in a container;
- time and memory limits are per process: a submission can slow the
  machine down for its time limit, not beyond it; with
  ``sched_setscheduler``/``sched_setaffinity`` (left open: libzmq needs them
  for its threads) it can also put another process of the grader's user on
  ``SCHED_IDLE`` or one CPU, until that process changes it back. A process that the
  learner's code starts and detaches may outlive its kernel until its own
  CPU-time limit ends it only where the runner cannot be its subreaper
  (not Linux) or was itself killed (still confined, and unable to signal
  other processes where Landlock scoping exists).
- the number of processes is not limited while a kernel runs (RLIMIT_NPROC
  counts all of the grader's user's processes, so a limit would fail honest
  kernels on a busy machine): a fork bomb slows the machine until the
  notebook's time limit; then the runner kills what is left. If the runner
  itself is killed (it hung past the notebook's limit plus two minutes), its
  kernel's leftovers live on until their CPU-time limit.

Resumable and idempotent: each submission's result is cached under a hash
of its bytes, the solution's bytes, the probe's source and the limits; an
interrupted run started again grades only what is missing and writes the
same gradebook.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from learntorch.grading.checks import duplicated_answers, with_answers
from learntorch.grading.layout import Submission
from learntorch.grading.notebooks import (
    grade_id,
    is_graded,
    is_solution,
    notebook_bytes,
    points,
    read_notebook,
    validate,
)
from learntorch.grading.screen import screen
from learntorch.grading.verdict import PROBE_SOURCE, cell_verdicts, instrument

GRADER_VERSION = "3"
MAX_NOTEBOOK_BYTES = 16 * 2**20  # exercise notebooks are kilobytes; reading costs ~1 s a MB
COLUMNS = ("learner", "chapter", "exercise", "points", "max_points", "status")

#: Every value the status column can hold (a test cell's may end in "+output-limit").
STATUSES = {
    "passed": "every check of the test cell passed",
    "failed": "a check failed, or the answer raised an error",
    "not-answered": "the answer still raises NotImplementedError (left blank)",
    "mismatch": "the cell ran without error in the kernel, but its values are not the reference's "
                "(a patched check helper, or a result that only looks right there)",
    "tampered": "the grader's records were forged or duplicated",
    "+fake-output": "(suffix) an answer cell printed text that looks like a score or a passed check",
    "+output-limit": "(suffix) the notebook's output passed the limit and was cut",
    "needs-review": "an answer uses a construct that can rig the tests (exec, frames, IPython's "
                    "transformers, patched NumPy/display...): held at 0 points until an instructor "
                    "reads the flagged line; the points the tests gave are in the feedback",
    "+needs-review": "(suffix) the same, on a test cell that did not pass anyway",
    "ambiguous": "several notebooks of this chapter were handed in: none was graded; hand in one",
    "timeout": "a cell or the notebook ran out of time",
    "memory": "MemoryError: the memory limit was reached",
    "exit": "the answer called sys.exit() / exit()",
    "kernel-died": "the kernel died (os._exit, a crash) before the cell ran",
    "denied": "the answer touched a file or the network outside its sandbox",
    "not-a-notebook": "the file is not a Jupyter notebook",
    "empty": "the file or the notebook is empty",
    "wrong-chapter": "the notebook holds no answer cell of this chapter",
    "unknown-chapter": "no notebook in solutions/ has this name",
    "grader-error": "the grader itself failed on this file (see its log); run again to retry",
}


class GradingError(RuntimeError):
    """The instructor's side is wrong (e.g. a solution fails its own tests): nothing is graded."""


@dataclass(frozen=True)
class Limits:
    """Per-submission limits: seconds per cell and per notebook, MiB of memory, bytes of output."""

    cell_timeout: float = 120.0
    notebook_timeout: float = 600.0
    memory_mb: int = 3072
    max_output_bytes: int = 2_000_000


def _sha256(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _safe_name(text: str) -> str:
    """``text`` as one file name; a name that had to change gets a hash of the original.

    Without the hash, learners "a b" and "a_b" would share (and overwrite)
    one feedback file.
    """
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", text).lstrip(".") or "_"
    if safe == text:
        return safe
    return f"{safe}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


class Grader:
    """Grades submissions against ``solutions_dir``; keeps its state under ``out_dir/.grader``."""

    def __init__(self, solutions_dir: Path, out_dir: Path, limits: Limits = Limits(),
                 jobs: int | None = None, log: Callable[[str], None] = print) -> None:
        self.solutions_dir = Path(solutions_dir).resolve()
        self.out_dir = Path(out_dir).resolve()
        self.state = self.out_dir / ".grader"
        self.limits = limits
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.log = log
        self._references: dict[str, dict[str, list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()

    # --- running one notebook ----------------------------------------------------------------

    def execute(self, nb: Any, attempts: int = 3) -> tuple[Any, dict[str, Any], str]:
        """Run ``nb`` instrumented in a sandboxed kernel; return (run, facts, nonce).

        A kernel that never started (two kernels starting at once can race for
        the same free port) is started again, up to ``attempts`` times in all;
        nothing of the learner's has run then, so this changes no grade.
        """
        for _ in range(attempts):
            run, facts, nonce = self._execute_once(nb)
            if facts.get("started"):
                break
            self.log(f"a kernel did not start ({facts.get('start_error', 'no reason given')}); retrying")
        return run, facts, nonce

    def _execute_once(self, nb: Any) -> tuple[Any, dict[str, Any], str]:
        nonce = secrets.token_hex(16)
        graded = instrument(nb, nonce)
        runs = self.state / "runs"
        runs.mkdir(parents=True, exist_ok=True)
        private = Path(tempfile.mkdtemp(prefix="run-", dir=runs))
        scratch = Path(tempfile.mkdtemp(prefix="learntorch-scratch-"))
        (private / "graded.ipynb").write_bytes(notebook_bytes(graded))
        job = {"private": str(private), "scratch": str(scratch), "notebook": str(private / "graded.ipynb"),
               "result": str(private / "result.ipynb"), "facts": str(private / "facts.json"),
               **asdict(self.limits)}
        (private / "job.json").write_text(json.dumps(job), encoding="utf-8")
        facts: dict[str, Any] = {}
        with open(private / "runner.log", "wb") as runner_log:
            process = subprocess.Popen(
                [sys.executable, "-m", "learntorch.grading.runner", str(private / "job.json")],
                stdout=runner_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, cwd=private)
            killed = False
            try:
                process.wait(timeout=self.limits.notebook_timeout + 120)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                killed = True
        try:
            facts = json.loads((private / "facts.json").read_text(encoding="utf-8"))
            # The runner caps outputs (at most ~3x max_output_bytes); a larger result means the cap
            # was got around somehow, and reading it could exhaust this process: it is not read.
            limit = len(notebook_bytes(graded)) + 4 * self.limits.max_output_bytes + 2**20
            if (private / "result.ipynb").stat().st_size > limit:
                facts.update(truncated=True, output_unread=True)
                raise ValueError("result.ipynb too large")
            run = read_notebook(private / "result.ipynb")
        except (OSError, ValueError):
            # Killed for running too long: it started, and must not be retried.
            if not facts.get("output_unread"):
                facts = {"kernel_died": not killed, "timed_out": killed, "runner_failed": True,
                         "started": killed}
            run = graded
            for cell in run.cells:
                if cell.cell_type == "code":
                    cell.outputs, cell.execution_count = [], None
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)
        return run, facts, nonce

    # --- reference runs ------------------------------------------------------------------------

    def reference(self, chapter: str) -> dict[str, list[dict[str, Any]]]:
        """The records of the instructor's solution for ``chapter``, run once and cached."""
        with self._lock:
            if chapter in self._references:
                return self._references[chapter]
        path = self.solutions_dir / f"{chapter}.ipynb"
        key = _sha256(GRADER_VERSION.encode(), path.read_bytes(), PROBE_SOURCE.encode())[:16]
        cache = self.state / "reference" / f"{chapter}-{key}.json"
        if cache.exists():
            records = json.loads(cache.read_text(encoding="utf-8"))
        else:
            solution = read_notebook(path)
            problems = validate(solution)
            if problems:
                raise GradingError(f"{path}: invalid nbgrader metadata:\n  " + "\n  ".join(problems))
            self.log(f"reference run of {path.name} (once per chapter, cached)")
            run, facts, nonce = self.execute(solution)
            verdicts = cell_verdicts(run, nonce, None, facts)
            failed = [v for v in verdicts if not v.passed]
            if failed or not verdicts:
                raise GradingError(
                    f"{path} does not earn full marks in the grader's sandbox, so it cannot be "
                    "the reference:\n  " + "\n  ".join(f"{v.grade_id}: {v.status} {v.reason}" for v in failed))
            records = {v.grade_id: v.records for v in verdicts}
            write_atomic(cache, json.dumps(records).encode("utf-8"))
        with self._lock:
            self._references[chapter] = records
        return records

    # --- one submission ----------------------------------------------------------------------

    def _rows(self, solution: Any, status: str, reason: str) -> list[dict[str, Any]]:
        return [{"exercise": grade_id(c) or "", "points": 0.0, "max_points": points(c),
                 "status": status, "reason": reason} for c in solution.cells if is_graded(c)]

    def _precheck(self, sub: Submission, solution: Any) -> tuple[Any, list[dict[str, Any]] | None]:
        """(the learner's notebook, None) when it can be graded, else (None, rows of zeros).

        A symbolic link is not read: one pointing at ``solutions/`` would hand
        the instructor's answers to the grader, which (unlike the kernel) may
        read them. A file larger than ``MAX_NOTEBOOK_BYTES`` is not read either,
        so one huge file cannot exhaust the grader's memory.
        """
        if sub.path.is_symlink():
            return None, self._rows(solution, "denied", "the submission is a symbolic link, not a "
                                    "file: submit the notebook itself")
        if sub.path.stat().st_size > MAX_NOTEBOOK_BYTES:
            return None, self._rows(solution, "not-a-notebook", f"the file is larger than "
                                    f"{MAX_NOTEBOOK_BYTES // 2**20} MiB: not an exercise notebook")
        data = sub.path.read_bytes()
        if not data.strip():
            return None, self._rows(solution, "empty", "the file is empty")
        try:
            learner = read_notebook(sub.path)
        except Exception as error:  # nbformat raises many kinds; all mean "not a notebook"
            return None, self._rows(solution, "not-a-notebook",
                                    f"the file is not a Jupyter notebook ({type(error).__name__})")
        if not learner.cells:
            return None, self._rows(solution, "empty", "the notebook has no cells")
        wanted = {grade_id(c) for c in solution.cells if is_solution(c)}
        present = {grade_id(c) for c in learner.cells if grade_id(c)}
        if not wanted & present:
            return None, self._rows(solution, "wrong-chapter",
                                    f"no answer cell of {sub.chapter} in this notebook: is it the "
                                    f"exercise notebook of another chapter?")
        return learner, None

    def grade(self, sub: Submission) -> list[dict[str, Any]]:
        """The gradebook rows of one submission (without learner and chapter), cached."""
        if sub.chapter is None:
            return [{"exercise": "", "points": 0.0, "max_points": 0.0, "status": "unknown-chapter",
                     "reason": f"no solutions/{sub.chapter_name}.ipynb to grade it against"}]
        solution_path = self.solutions_dir / f"{sub.chapter}.ipynb"
        solution = read_notebook(solution_path)
        if sub.duplicates:  # never read or run: grading all would count the chapter several times
            names = ", ".join(path.name for path in sub.duplicates)
            return self._rows(solution, "ambiguous",
                              f"{len(sub.duplicates)} notebooks for {sub.chapter} were handed in ({names}): "
                              f"none was graded. Keep the one to be graded as {sub.chapter}.ipynb, "
                              "delete or move the others, and hand it in again")
        if sub.path.is_symlink() or sub.path.stat().st_size > MAX_NOTEBOOK_BYTES:
            return self._precheck(sub, solution)[1] or []  # never read, never cached
        key = _sha256(GRADER_VERSION.encode(), sub.path.read_bytes(), solution_path.read_bytes(),
                      PROBE_SOURCE.encode(), json.dumps(asdict(self.limits)).encode())
        cache = self.state / "results" / f"{key}.json"
        if cache.exists():
            return json.loads(cache.read_text(encoding="utf-8"))
        learner, rows = self._precheck(sub, solution)
        if rows is None:
            reference = self.reference(sub.chapter)
            started = time.monotonic()
            graded = with_answers(solution, learner)
            run, facts, nonce = self.execute(graded)
            rows = [{"exercise": v.grade_id, "points": v.points if v.passed else 0.0,
                     "max_points": v.points, "status": v.status, "reason": v.reason}
                    for v in cell_verdicts(run, nonce, reference, facts)]
            _explain_added_helpers(rows, learner, solution)
            _note_duplicated_answers(rows, learner, solution)
            _hold_for_review(rows, screen(graded))
            earned = sum(r["points"] for r in rows)
            self.log(f"graded {sub.learner} {sub.chapter_name}: {earned:g}/"
                     f"{sum(r['max_points'] for r in rows):g} ({time.monotonic() - started:.1f} s)")
        write_atomic(cache, json.dumps(rows).encode("utf-8"))
        return rows

    # --- a class -------------------------------------------------------------------------------

    def grade_all(self, submissions: Iterable[Submission]) -> dict[Submission, list[dict[str, Any]]]:
        """Grade every submission, up to ``jobs`` at a time; references first."""
        subs = sorted(submissions)
        chapters = sorted({s.chapter for s in subs if s.chapter is not None and not s.duplicates})
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            list(pool.map(self.reference, chapters))
            results = dict(zip(subs, pool.map(self._grade_or_report, subs)))
        return results

    def _grade_or_report(self, sub: Submission) -> list[dict[str, Any]]:
        """:meth:`grade`, where a fault of the grader's own is one row, not the end of the class."""
        try:
            return self.grade(sub)
        except GradingError:
            raise
        except Exception as error:  # noqa: BLE001 -- reported in the gradebook, not cached
            self.log(f"grader error on {sub.path}: {type(error).__name__}: {error}")
            return [{"exercise": "", "points": 0.0, "max_points": 0.0, "status": "grader-error",
                     "reason": f"{type(error).__name__}: {error}"}]


def _hold_for_review(rows: list[dict[str, Any]], flagged: list[str]) -> None:
    """Hold the points of a submission the screen flagged, in place, for an instructor to decide.

    A flag means "an answer names a hook that could rig the tests", not "this
    learner cheated": the points the tests gave stay in the reason, so the
    instructor who reads the flagged line can restore them, while the points
    column is 0 until then (a rigged run would also show points earned).
    """
    if not flagged:
        return
    why = "; ".join(flagged[:3]) + (" ..." if len(flagged) > 3 else "")
    for row in rows:
        computed = row["points"]
        row["status"] = "needs-review" if row["status"] == "passed" else row["status"] + "+needs-review"
        row["points"] = 0.0
        row["reason"] = (f"held for an instructor's review (the tests gave {computed:g} / "
                         f"{row['max_points']:g}); flagged: {why}"
                         + (f" ({row['reason']})" if row["reason"] else ""))


def _answer_ids_by_test(solution: Any) -> dict[str, list[str]]:
    """For each test cell's grade_id, the answer cells' grade_ids since the previous test cell."""
    found: dict[str, list[str]] = {}
    pending: list[str] = []
    for cell in solution.cells:
        if is_solution(cell) and grade_id(cell):
            pending.append(grade_id(cell) or "")
        elif is_graded(cell):
            found[grade_id(cell) or ""] = pending
            pending = []
    return found


def _note_duplicated_answers(rows: list[dict[str, Any]], learner: Any, solution: Any) -> None:
    """Tell a learner whose notebook holds an answer cell twice which copy was graded.

    Jupyter runs top to bottom, so the copy further down is the one a learner
    saw working; :func:`checks.with_answers` grades that one too.
    """
    duplicated = duplicated_answers(learner)
    if not duplicated:
        return
    answers = _answer_ids_by_test(solution)
    for row in rows:
        for ident in answers.get(row["exercise"], []):
            if ident in duplicated:
                note = (f"your notebook holds the answer cell {ident!r} {duplicated[ident]} times; the last "
                        "one was graded: delete the other copies")
                row["reason"] = f"{row['reason']} ({note})" if row["reason"] else note


_NAME_ERROR = re.compile(r"^NameError: name '(?P<name>\w+)' is not defined")


def _added_definitions(learner: Any, solution: Any) -> dict[str, int]:
    """Top-level names defined in code cells the learner added (not cells of the solution), by cell index."""
    import ast

    known = {grade_id(c) for c in solution.cells if grade_id(c)}
    own_ids = {c.get("id") for c in solution.cells}
    found: dict[str, int] = {}
    for index, cell in enumerate(learner.cells):
        ours = grade_id(cell) in known or (grade_id(cell) is None and cell.get("id") in own_ids)
        if cell.cell_type != "code" or ours:
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            targets: list[ast.expr] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.setdefault(node.name, index)
            elif isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    found.setdefault((alias.asname or alias.name).split(".")[0], index)
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found.setdefault(name.id, index)
    return found


def _explain_added_helpers(rows: list[dict[str, Any]], learner: Any, solution: Any) -> None:
    """Say so when a test failed on a name that only a cell the learner added defines.

    Only answer cells are graded (see the module docstring), so a helper in an
    added cell is missing when the tests run; the bare NameError would leave
    the learner puzzled, as their notebook runs fine.
    """
    failing = [(row, _NAME_ERROR.match(row["reason"] or "")) for row in rows]
    if not any(match for _row, match in failing):
        return
    defined = _added_definitions(learner, solution)
    for row, match in failing:
        if match and match.group("name") in defined:
            row["reason"] += (f" ({match.group('name')!r} is defined in a cell you added, cell "
                              f"{defined[match.group('name')]} counting from 0, which the grader does not "
                              "run: only answer cells are graded. Move it into the answer cell that uses it)")


def printable(text: str) -> str:
    """``text`` with its control and format characters escaped (``\\x1b``, ``\\u2028``).

    Learner-chosen text (names, error messages) ends up in files an instructor may ``cat``: an
    ANSI escape there could rewrite the terminal (clear it, fake lines, set its title).
    """
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                   for c in text)


def gradebook_csv(results: dict[Submission, list[dict[str, Any]]]) -> bytes:
    """The gradebook: one row per learner, chapter and test cell, in a fixed order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for sub in sorted(results):
        for row in results[sub]:
            # A raw "\r" is not quoted by this writer, and readers take it for a new row: a folder
            # named "eve\rbob,01_tensors,ch01-ex1-tests,2,2,passed" would add a forged one.
            learner = printable(sub.learner)
            if learner[:1] in ("=", "+", "-", "@"):  # a spreadsheet would read it as a formula
                learner = "'" + learner
            writer.writerow([learner, sub.chapter_name, row["exercise"], f"{row['points']:g}",
                             f"{row['max_points']:g}", row["status"]])
    return out.getvalue().encode("utf-8")


def feedback_markdown(sub: Submission, rows: list[dict[str, Any]]) -> str:
    """What a learner reads: each exercise's test, passed or not, and why (no test code)."""
    earned = sum(r["points"] for r in rows)
    total = sum(r["max_points"] for r in rows)
    lines = [f"# {sub.chapter_name}: feedback for {printable(sub.learner)}", "",
             f"**{earned:g} / {total:g} points.** Each test cell below holds visible checks (the ones "
             "in your notebook) and hidden ones (more cases the grader runs). A test cell earns its "
             "points only when all of its checks pass.", "",
             "| test | points | result | why |", "|---|---|---|---|"]
    for row in rows:
        mark = "✓ passed" if row["status"] == "passed" else f"✗ {row['status']}"
        why = (row["reason"] or STATUSES.get(row["status"].split("+")[0], "")).replace("|", "\\|")
        why = printable(why.replace("\n", " "))
        lines.append(f"| {row['exercise']} | {row['points']:g} / {row['max_points']:g} | {mark} | {why} |")
    lines += ["", "Statuses: " + "; ".join(
        f"`{s}` {STATUSES[s]}" for s in sorted({r['status'].split('+')[0] for r in rows}) if s in STATUSES), ""]
    return "\n".join(lines)


def write_outputs(results: dict[Submission, list[dict[str, Any]]], out_dir: Path,
                  gradebook: Path | None = None) -> Path:
    """Write the gradebook CSV and the feedback files; return the gradebook's path."""
    out_dir = Path(out_dir)
    gradebook = Path(gradebook) if gradebook else out_dir / "gradebook.csv"
    for sub, rows in results.items():
        target = out_dir / "feedback" / _safe_name(sub.learner) / f"{_safe_name(sub.chapter_name)}.md"
        write_atomic(target, feedback_markdown(sub, rows).encode("utf-8"))
    write_atomic(gradebook, gradebook_csv(results))
    return gradebook
