"""What each rank runs under ``learntorch.distributed.run``: set torchrun's environment
variables from the launcher's, then run the user's script as ``__main__``."""
from __future__ import annotations

import os
import runpy
import sys

# MPICH's Hydra and Open MPI name these differently; torchrun's names are what PyTorch scripts read.
_SOURCES = {"RANK": ("PMI_RANK", "OMPI_COMM_WORLD_RANK"),
            "WORLD_SIZE": ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE"),
            "LOCAL_RANK": ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK"),
            "LOCAL_WORLD_SIZE": ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")}


def main() -> None:
    for name, sources in _SOURCES.items():
        value = next((os.environ[s] for s in sources if s in os.environ), None)
        if value is not None:
            os.environ.setdefault(name, value)
    args = sys.argv[1:]
    if args and args[0] == "-m":
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = args
        sys.path[0] = os.path.dirname(os.path.abspath(args[0]))
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
