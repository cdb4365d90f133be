"""Re-execute course notebooks in place, each top to bottom in one fresh kernel.

    python scripts/execute_notebooks.py notebooks/05_nn.ipynb solutions/05_nn.ipynb
    python scripts/execute_notebooks.py            # every chapter and solution

This is how the stored outputs are made (``make notebooks``): the kernel starts
in the notebook's own folder, as JupyterLab starts it, and every cell runs
(cells tagged ``raises-exception`` may fail; any other error stops the run and
leaves the file untouched).  After a chapter changes, run this, then
``make exercises`` (exercises/ is generated from solutions/), then ``make test``.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _machine_paths() -> list[tuple[str, str]]:
    """Absolute paths that a traceback shows and that differ from machine to machine: this
    checkout (shown relative to it) and the Python installation (shown as ``<python>``)."""
    import sysconfig
    found = [(str(ROOT) + "/", "")]
    for key in ("purelib", "platlib", "stdlib"):
        found.append((sysconfig.get_paths()[key] + "/", f"<python {key}>/"))
    return sorted(set(found), key=lambda pair: -len(pair[0]))


def _strip_machine_paths(nb: nbformat.NotebookNode) -> None:
    """A stored traceback must read the same on every machine: no absolute path in it."""
    paths = _machine_paths()
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                lines = []
                for line in out.get("traceback", []):
                    for old, new in paths:
                        line = line.replace(old, new)
                    lines.append(line)
                out["traceback"] = lines


def _coalesce_streams(nb: nbformat.NotebookNode) -> None:
    """One output per run of printed text: the kernel sends a long cell's prints in as many
    messages as its flushes happened to fall, which depends on the machine's speed.  Joined,
    the stored file is the same on every machine (and Jupyter shows it the same way)."""
    for cell in nb.cells:
        merged: list = []
        for out in cell.get("outputs", []):
            last = merged[-1] if merged else None
            if (out.get("output_type") == "stream" and last is not None and last.get("output_type") == "stream"
                    and last.get("name") == out.get("name")):
                last["text"] += out["text"]
            else:
                merged.append(out)
        if "outputs" in cell:
            cell["outputs"] = merged


def execute(path: pathlib.Path, timeout: int) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in nb.cells:  # nbclient's timing metadata differs on every run: keep the files stable
        cell.metadata.pop("execution", None)
    _strip_machine_paths(nb)
    _coalesce_streams(nb)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=pathlib.Path)
    parser.add_argument("--timeout", type=int, default=300, help="seconds a cell may run")
    args = parser.parse_args(argv)
    paths = args.paths or sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "solutions").glob("*.ipynb"))
    for path in paths:
        seconds = execute(path.resolve(), args.timeout)
        print(f"{path}: executed in {seconds:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
