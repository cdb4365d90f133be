"""A pytest plugin for the nbval steps of ``make test``: a notebook's kernel that dies while
starting is started again (up to 3 tries), and what it printed is shown, not lost.

Why: with ``-n 2`` two workers start their first kernels at the same moment.  Now and then one
of them died before answering ("Kernel died before replying to kernel_info"), and every cell of
that notebook then failed; the cells themselves were fine and passed when run again.  A kernel's
start is not what nbval tests, so a second start is fair; each retry is reported on stderr with
the dead kernel's own output (nbval itself sends it to os.devnull), so that a kernel that
always dies still fails, loudly.
"""
from __future__ import annotations

import sys
import tempfile
from typing import Any

import nbval.kernel

TRIES = 3
_start_new_kernel = nbval.kernel.start_new_kernel


def start_new_kernel(*args: Any, **kwargs: Any) -> Any:
    discard = kwargs.pop("stderr", None)  # nbval sends the kernel's stderr to os.devnull
    if discard is not None:
        discard.close()
    kwargs.pop("stdout", None)
    for attempt in range(1, TRIES + 1):
        with tempfile.TemporaryFile("w+") as log:
            try:
                return _start_new_kernel(*args, stdout=log, stderr=log, **kwargs)
            except RuntimeError as error:
                log.seek(0)
                printed = log.read().strip() or "(nothing)"
                if attempt == TRIES:
                    raise RuntimeError(f"{error}; the kernel printed:\n{printed}") from error
                print(f"\nnbval: the kernel died while starting ({error}), try {attempt} of {TRIES}; "
                      f"it printed:\n{printed}\nnbval: starting it again", file=sys.stderr)
    raise AssertionError("unreachable")


nbval.kernel.start_new_kernel = start_new_kernel
