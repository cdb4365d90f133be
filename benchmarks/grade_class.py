"""Time the class grader on a generated class: N learners, one chapter, solved and blank answers mixed.

Learner i solves exercise k (takes the solution's answer cells for it) when bit k of i is set,
and leaves the others as released; so the class holds every mix. The script checks every
learner's score against that plan, then prints the wall time and the machine's load.

    .venv/bin/python benchmarks/grade_class.py [--learners 40] [--chapter 01_tensors] [--jobs N]
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from learntorch.grading.grader import Grader, Limits, write_outputs
from learntorch.grading.layout import find_submissions
from learntorch.grading.notebooks import grade_id, is_graded, is_solution, notebook_bytes, points, read_notebook

ROOT = Path(__file__).resolve().parents[1]
_EXERCISE = re.compile(r"-ex(\d+)-")


def exercise_of(ident: str) -> int:
    match = _EXERCISE.search(ident)
    return int(match.group(1)) if match else 0


def make_class(chapter: str, learners: int, folder: Path) -> dict[str, float]:
    """Write the class into ``folder`` (one folder per learner); return each learner's expected points."""
    solution = read_notebook(ROOT / "solutions" / f"{chapter}.ipynb")
    exercise = read_notebook(ROOT / "exercises" / f"{chapter}.ipynb")
    solved_source = {grade_id(c): c.source for c in solution.cells if is_solution(c)}
    expected = {}
    for i in range(learners):
        name = f"learner{i:02d}"
        nb = copy.deepcopy(exercise)
        for cell in nb.cells:
            if is_solution(cell) and (i >> (exercise_of(grade_id(cell) or "") - 1)) & 1:
                cell.source = solved_source[grade_id(cell)]
        (folder / name).mkdir(parents=True)
        (folder / name / f"{chapter}.ipynb").write_bytes(notebook_bytes(nb))
        expected[name] = sum(points(c) for c in solution.cells
                             if is_graded(c) and (i >> (exercise_of(grade_id(c) or "") - 1)) & 1)
    return expected


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--chapter", default="01_tensors")
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grade-class-", dir=ROOT / "build" if (ROOT / "build").is_dir()
                                     else None) as tmp:
        submissions, out = Path(tmp) / "submissions", Path(tmp) / "grades"
        expected = make_class(args.chapter, args.learners, submissions)
        load_before = os.getloadavg()
        started = time.monotonic()
        retries: list[str] = []  # kernels that did not start and were started again
        grader = Grader(ROOT / "solutions", out, Limits(), jobs=args.jobs,
                        log=lambda line: retries.append(line) if "retrying" in line else None)
        results = grader.grade_all(find_submissions(submissions, ROOT / "solutions"))
        write_outputs(results, out)
        elapsed = time.monotonic() - started
        load_after = os.getloadavg()
        got = {sub.learner: sum(r["points"] for r in rows) for sub, rows in results.items()}
        statuses = {sub.learner: [(r["exercise"], r["status"], r["reason"][:120]) for r in rows]
                    for sub, rows in results.items()}
    wrong = {name: (got.get(name), want, statuses.get(name)) for name, want in expected.items()
             if got.get(name) != want}
    print(f"{args.learners} submissions of {args.chapter} (+1 reference run), {grader.jobs} at a time "
          f"on {os.cpu_count()} cores: {elapsed:.1f} s wall ({elapsed / args.learners:.2f} s per submission)")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min)")
    for line in retries:
        print(line)
    if wrong:
        print(f"WRONG scores (got, expected, statuses): {wrong}")
        return 1
    print("every score is as planned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
