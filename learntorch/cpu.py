"""``torch.cpu``: the CPU as a device module, with the questions a program asks of each device
(``torch.cuda``, ``torch.cpu``): is it there, how many, which one, wait for it.  The answers are
fixed: one CPU, always there, and nothing to wait for (every operation has finished when it
returns)."""
from __future__ import annotations

from typing import Any

__all__ = ["is_available", "device_count", "current_device", "synchronize", "set_device"]


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: a CPU operation is done when it returns."""


def set_device(device: Any) -> None:
    """There is one CPU: nothing to choose."""
