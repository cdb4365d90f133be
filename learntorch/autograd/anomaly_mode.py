"""Anomaly detection: find the forward line behind a failing backward.

An error raised inside backward (a modified saved tensor, a wrong shape) points
at the engine, not at the line of *your* forward that built the failing node.
With ``set_detect_anomaly(True)`` every node remembers the stack of the forward
call that created it; when its backward fails, that stack is printed first.
With ``check_nan`` (the default) a backward that returns NaN is an error, so
the first NaN is caught where it is born.  Slow: for debugging only.
"""
from __future__ import annotations

import traceback
from typing import Any
from .. import warn_always
from ..arrays import to_numpy

__all__ = ["set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_mode = {"enabled": False, "check_nan": True}


def is_anomaly_enabled() -> bool:
    return _mode["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    return _mode["check_nan"]


class set_detect_anomaly:
    """Switch anomaly detection on or off: as a plain call or as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = dict(_mode)
        _mode.update(enabled=bool(mode), check_nan=bool(check_nan))

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _mode.update(self._prev)


class detect_anomaly(set_detect_anomaly):
    """``with detect_anomaly():`` — anomaly detection inside the block."""

    def __init__(self, check_nan: bool = True) -> None:
        warn_always.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                         "be enabled for debugging.", UserWarning, stacklevel=2)
        super().__init__(True, check_nan)


def record_forward_stack(node: Any) -> None:
    """Called by ``Function.apply`` for each new node while anomaly mode is on."""
    node.metadata["traceback_"] = traceback.format_stack()[:-2]


def report_failure(node: Any) -> None:
    """Print the forward stack of the node whose backward just failed."""
    stack = node.metadata.get("traceback_") if "_metadata" in node.__dict__ else None
    warn_always.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
                     + "".join(stack or ["  (no forward traceback: the node was created before anomaly mode)\n"]),
                     UserWarning, stacklevel=3)


def check_nan(node: Any, grads: list) -> None:
    import numpy as np
    for i, g in enumerate(grads):
        if g is not None and np.isnan(to_numpy(g._data)).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
