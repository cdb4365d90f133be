"""Run a notebook once, top to bottom, in a fresh kernel.

Every check in this package reads the outputs of such a run: a cell passed
if it ran and left no error output. So the run must start from a clean
notebook (stored outputs would otherwise pass for a cell that never ran),
must not stop at the first error (later cells still earn their points), and
must not hang on a cell that loops forever.
"""

from __future__ import annotations

import contextlib
import copy
from pathlib import Path

from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbformat import NotebookNode

from learntorch.grading.notebooks import clear_outputs, read_notebook

KERNEL_NAME = "python3"
DEFAULT_TIMEOUT = 60.0


def execute(nb: NotebookNode, cwd: Path, timeout: float = DEFAULT_TIMEOUT) -> NotebookNode:
    """A run of ``nb`` in a fresh ``python3`` kernel started in ``cwd``; ``nb`` is not changed.

    Errors are recorded as outputs and the run goes on. A cell still running
    after ``timeout`` seconds is interrupted (its output is a
    KeyboardInterrupt error). If the kernel dies (``os._exit``, a crash),
    the cells after it keep ``execution_count`` None: they did not run.
    """
    run = copy.deepcopy(nb)
    clear_outputs(run)
    client = NotebookClient(
        run,
        timeout=timeout,
        kernel_name=KERNEL_NAME,
        allow_errors=True,
        interrupt_on_timeout=True,
        record_timing=False,
        resources={"metadata": {"path": str(cwd)}},
    )
    with contextlib.suppress(DeadKernelError):  # cells that did not run keep no execution_count
        client.execute()
    return run


def execute_notebook(path: Path, timeout: float = DEFAULT_TIMEOUT) -> NotebookNode:
    """A run of the notebook file at ``path``, in its own folder (as JupyterLab runs it)."""
    path = Path(path)
    return execute(read_notebook(path), cwd=path.parent, timeout=timeout)
