"""One graded run: a notebook in a sandboxed kernel, in its own process.

The grader starts ``python -m learntorch.grading.runner JOB.json`` once per
submission (and once per chapter for the instructor's reference run). That
process owns nothing but the run: it starts the kernel through
``learntorch.grading.sandbox`` in an empty scratch folder, executes the cells
one by one under a per-cell and a per-notebook time limit, keeps at most
``max_output_bytes`` of outputs, and writes the executed notebook and a few
facts about the run (kernel died, ran out of time, output cut) to files in a
folder the kernel cannot reach. If this process hangs or dies anyway, the
grader kills it and records a time-out: one submission never stops the others.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode

from learntorch.grading.notebooks import clear_outputs, notebook_bytes, read_notebook
from learntorch.grading.probe import MIME
from learntorch.grading.sandbox import KERNEL_NAME, kernelspec

TIMEOUT_ERROR = "CellTimeout"
MAX_FILE_MB = 1024  # no single file the kernel writes may grow past this (RLIMIT_FSIZE)


class _CappedClient(NotebookClient):
    """A NotebookClient that keeps at most ``max_output_bytes`` of outputs in all.

    Past the cap, outputs are dropped and ``truncated`` is set. Two routes
    lead around :meth:`output` and are capped too:

    - ``update_display(..., display_id=...)`` replaces the data of earlier
      outputs in place (nbclient's ``_update_display_id``, called before
      ``output``): each update counts its size once per output it replaces,
      and past the cap it is dropped;
    - the probe's records must survive a flood of prints, so below 200 KB
      each they are kept past the cap, but only up to a second
      ``max_output_bytes`` in all: a loop of fake records cannot grow the
      run's memory either.

    So a run never holds much more than three times ``max_output_bytes`` of
    outputs, whatever the kernel sends.
    """

    max_output_bytes = 1_000_000
    used_bytes = 0
    probe_bytes = 0
    truncated = False

    def _admit(self, size: int, is_probe: bool) -> bool:
        """Count ``size`` bytes of output; True when they may be kept."""
        self.used_bytes += size
        if self.used_bytes <= self.max_output_bytes:
            return True
        if is_probe and size < 200_000 and self.probe_bytes + size <= self.max_output_bytes:
            self.probe_bytes += size
            return True
        self.truncated = True
        return False

    def output(self, outs: list[NotebookNode], msg: dict[str, Any], display_id: str | None,
               cell_index: int) -> NotebookNode | None:
        content = msg.get("content", {})
        size = len(json.dumps(content, default=str))
        if not self._admit(size, MIME in content.get("data", {})):
            return None
        return super().output(outs, msg, display_id, cell_index)

    def _update_display_id(self, display_id: str, msg: dict[str, Any]) -> None:
        targets = sum(len(indices) for indices in self._display_id_map.get(display_id, {}).values())
        if targets:
            size = len(json.dumps(msg.get("content", {}), default=str)) * targets
            if not self._admit(size, False):
                return
        super()._update_display_id(display_id, msg)


_PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> bool:
    """Make this process the parent of every orphan the kernel leaves (Linux); True if it worked.

    A learner's code may fork a child that detaches (``os.setsid``) and
    outlives its kernel, burning CPU the other submissions need until its
    own CPU-time limit ends it. As a "child subreaper" this process inherits
    such orphans, so :func:`kill_leftovers` can end them with the run.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:  # the field after the state: ppid
                found.append(int(entry.name))
    return found


def kill_leftovers(rounds: int = 200) -> int:
    """SIGKILL every remaining child of this process, and reap it; return how many there were.

    Killing an orphan's parent hands its own children to this process (see
    :func:`adopt_orphans`), so the scan repeats until none is left.
    """
    killed = 0
    for _ in range(rounds):
        children = _children(os.getpid())
        if not children:
            break
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        for pid in children:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
    return killed


def run(job: dict[str, Any]) -> dict[str, Any]:
    """Execute ``job["notebook"]`` as the module docstring says; return the facts of the run."""
    private = Path(job["private"])
    scratch = Path(job["scratch"])
    os.environ["JUPYTER_RUNTIME_DIR"] = str(private / "runtime")  # the connection file lives here
    kernel_dirs = kernelspec(private, scratch, job["memory_mb"], int(job["notebook_timeout"]) + 5,
                             MAX_FILE_MB, log=private / "kernel.log")
    km = AsyncKernelManager(kernel_name=KERNEL_NAME,
                       kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dirs)]))
    nb = read_notebook(Path(job["notebook"]))
    clear_outputs(nb)
    client = _CappedClient(
        nb, km=km, kernel_name=KERNEL_NAME, timeout=job["cell_timeout"], allow_errors=True,
        interrupt_on_timeout=True, record_timing=False, startup_timeout=60,
        error_on_timeout={"ename": TIMEOUT_ERROR,
                          "evalue": f"the cell ran longer than {job['cell_timeout']:g} s and was interrupted",
                          "traceback": []},
        resources={"metadata": {"path": str(scratch)}},
    )
    client.max_output_bytes = job["max_output_bytes"]
    facts: dict[str, Any] = {"kernel_died": False, "timed_out": False, "truncated": False,
                             "started": False}
    deadline = time.monotonic() + job["notebook_timeout"]
    adopt_orphans()
    try:
        with client.setup_kernel():
            facts["started"] = True
            for index, cell in enumerate(nb.cells):
                left = deadline - time.monotonic()
                if left <= 0:
                    facts["timed_out"] = True
                    break
                client.timeout = max(1, int(min(job["cell_timeout"], left)))
                client.execute_cell(cell, index)
    except DeadKernelError:
        facts["kernel_died"] = True
    except CellTimeoutError:
        facts["timed_out"] = True
    except RuntimeError as error:  # the kernel never started (e.g. it died while starting)
        facts["kernel_died"] = True
        facts["start_error"] = str(error)[:500]
    facts["truncated"] = bool(getattr(client, "truncated", False))
    if sys.platform.startswith("linux"):
        facts["leftover_processes"] = kill_leftovers()
    Path(job["result"]).write_bytes(notebook_bytes(nb))
    return facts


def main() -> int:
    """``python -m learntorch.grading.runner JOB.json``: run the job, write its facts beside it."""
    job_path = Path(sys.argv[1])
    job = json.loads(job_path.read_text(encoding="utf-8"))
    facts = run(job)
    tmp = Path(job["facts"] + ".tmp")
    tmp.write_text(json.dumps(facts), encoding="utf-8")
    os.replace(tmp, job["facts"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
