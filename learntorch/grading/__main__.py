"""``python -m learntorch.grading SUBMISSIONS`` (also ``learntorch-grade``, ``make grade``).

Grades every submitted exercise notebook under SUBMISSIONS (layouts: see
``learntorch.grading.layout``) against ``solutions/`` and writes
``OUT/gradebook.csv`` and ``OUT/feedback/<learner>/<chapter>.md``. Run it
again after an interruption: finished submissions are not graded twice.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from learntorch.grading.grader import Grader, GradingError, Limits, write_outputs
from learntorch.grading.layout import find_submissions
from learntorch.grading.sandbox import landlock_available


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0 graded, 1 nothing to grade, 2 grading error)."""
    defaults = Limits()
    parser = argparse.ArgumentParser(prog="python -m learntorch.grading",
                                     description="Grade a class's exercise notebooks against solutions/.")
    parser.add_argument("submissions", type=Path, help="the folder of submitted notebooks")
    parser.add_argument("--solutions", type=Path, default=Path("solutions"),
                        help="the instructor's notebooks (default: solutions)")
    parser.add_argument("--out", type=Path, default=Path("grades"),
                        help="where feedback/, gradebook.csv and the grader's cache go (default: grades)")
    parser.add_argument("--gradebook", type=Path, help="the gradebook CSV (default: OUT/gradebook.csv)")
    parser.add_argument("--jobs", type=int, default=None, help="submissions graded at once (default: cores)")
    parser.add_argument("--cell-timeout", type=float, default=defaults.cell_timeout,
                        help=f"seconds one cell may run (default {defaults.cell_timeout:g})")
    parser.add_argument("--notebook-timeout", type=float, default=defaults.notebook_timeout,
                        help=f"seconds one notebook may run (default {defaults.notebook_timeout:g})")
    parser.add_argument("--memory-mb", type=int, default=defaults.memory_mb,
                        help=f"address space of one kernel in MiB (default {defaults.memory_mb})")
    parser.add_argument("--max-output-mb", type=float, default=defaults.max_output_bytes / 1e6,
                        help="outputs kept per notebook, in MB (default 2)")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        print(f"error: no folder {args.submissions}", file=sys.stderr)
        return 1
    submissions = find_submissions(args.submissions, args.solutions)
    if not submissions:
        print(f"error: no submissions under {args.submissions} (see `python -m learntorch.grading "
              "--help` and README.md, 'For instructors', for the layouts)", file=sys.stderr)
        return 1
    if not landlock_available():
        print("warning: Landlock is not available here, so kernels are not confined to their scratch "
              "folder: run the grader as a user who cannot read solutions/ (see README.md)",
              file=sys.stderr)
    limits = Limits(args.cell_timeout, args.notebook_timeout, args.memory_mb,
                    int(args.max_output_mb * 1e6))
    grader = Grader(args.solutions, args.out, limits, jobs=args.jobs)
    started = time.monotonic()
    try:
        results = grader.grade_all(submissions)
    except GradingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    gradebook = write_outputs(results, args.out, args.gradebook)
    print(f"graded {len(submissions)} submissions in {time.monotonic() - started:.1f} s with "
          f"{grader.jobs} at a time; gradebook: {gradebook}; feedback: {args.out / 'feedback'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
