"""``python -m learntorch.distributed.run -n 2 train.py [args]``: start N ranks of a program.

This is a thin wrapper around MPI's own launcher: it runs ::

    mpiexec [-disable-auto-cleanup] -n N python -m learntorch.distributed._rank_entry train.py [args]

``mpiexec`` is looked for next to the running Python first (where the ``mpich``
wheel puts it in a virtual environment), then on ``PATH``.  What the wrapper
adds to plain ``mpiexec -n 2 python train.py``:

* each rank gets ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK`` and ``LOCAL_WORLD_SIZE``
  in its environment, as ``torchrun`` sets them, so PyTorch scripts that read
  them keep working;
* with MPICH's launcher it passes ``-disable-auto-cleanup``: when a rank dies,
  the others are told (a signal) and stop with a clear ``DistBackendError``
  instead of being killed without a word;
* ``--nproc-per-node`` (torchrun's name) is accepted for ``-n``, and
  ``-m module`` runs a module instead of a file.

The exit status is ``mpiexec``'s: 0 when every rank succeeded.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from typing import Optional, Sequence

__all__ = ["find_mpiexec", "launch_command", "main"]


def find_mpiexec() -> str:
    """The ``mpiexec`` to use: beside this Python (a venv with the mpich wheel), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which("mpiexec")
    if found is None:
        raise FileNotFoundError("mpiexec not found, next to Python or on PATH: pip install 'learntorch[dist]' "
                                "(the mpich wheel brings one), or conda install -c conda-forge mpich mpi4py")
    return found


def _is_hydra(mpiexec: str) -> bool:
    """MPICH's launcher (Hydra) understands -disable-auto-cleanup; Open MPI's does not."""
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "HYDRA" in out


def launch_command(nprocs: int, target: Sequence[str], module: bool = False,
                   mpiexec: Optional[str] = None) -> list[str]:
    """The command line that starts ``nprocs`` ranks of ``target`` (a script and its arguments)."""
    mpiexec = mpiexec or find_mpiexec()
    command = [mpiexec]
    if _is_hydra(mpiexec):
        command.append("-disable-auto-cleanup")
    command += ["-n", str(nprocs), sys.executable, "-m", "learntorch.distributed._rank_entry"]
    if module:
        command.append("-m")
    return command + list(target)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m learntorch.distributed.run",
        description="Start N ranks of a learntorch.distributed program with mpiexec.")
    parser.add_argument("-n", "--nproc-per-node", "--nproc_per_node", dest="nprocs", type=int, default=1,
                        help="how many processes (ranks) to start")
    parser.add_argument("-m", dest="module", action="store_true", help="run the target as a module (python -m)")
    parser.add_argument("target", help="the script (or module with -m) to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    ns = parser.parse_args(argv)
    if ns.nprocs < 1:
        parser.error("-n must be at least 1")
    command = launch_command(ns.nprocs, [ns.target, *ns.args], module=ns.module)
    status = subprocess.call(command)
    if status != 0:
        print(f"learntorch.distributed.run: the job failed (mpiexec exit status {status}); the ranks' errors "
              "are above.", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
