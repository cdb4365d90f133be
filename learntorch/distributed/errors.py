"""The errors a distributed program can meet, with PyTorch's names and hierarchy."""
from __future__ import annotations

__all__ = ["DistError", "DistBackendError"]


class DistError(RuntimeError):
    """Base of the errors of ``learntorch.distributed`` (a ``RuntimeError``, as in PyTorch)."""


class DistBackendError(DistError):
    """A collective could not complete: another rank died, hangs, or called something else.

    PyTorch raises this one when NCCL or Gloo times out or sees a peer fail;
    code that catches ``RuntimeError`` catches it too.
    """


# Tracebacks name them as PyTorch's do (torch.distributed.DistBackendError), not by the file they live in.
DistError.__module__ = DistBackendError.__module__ = "learntorch.distributed"
