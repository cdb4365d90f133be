"""``torch.set_warn_always``: whether the warnings PyTorch gives once per process are given
every time instead.

Some warnings (a deprecation, a beta API) are meant to be seen once, not once per call in
a training loop; tests that check for them want them every time.  The flag is kept here,
at the bottom of the package, so that any module giving such a warning can ask it.
"""
from __future__ import annotations

import sys
import warnings
from types import CodeType

__all__ = ["set_warn_always", "is_warn_always_enabled", "warn_once", "warn", "pass_through"]

_state = {"always": False}
_given: set = set()


def set_warn_always(b: bool) -> None:
    """When True, warnings given once per process (``warn_once``) are given on every call."""
    _state["always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _state["always"]


def warn_once(message: str, category: type = UserWarning, stacklevel: int = 2) -> None:
    """Warn with ``message`` the first time only (unless :func:`set_warn_always` is on)."""
    if message in _given and not _state["always"]:
        return
    _given.add(message)
    warn(message, category, stacklevel=stacklevel + 1)


# The code of the wrappers that only pass a call on (tensor_arguments.py): not counted by ``warn``.
_PASS_THROUGH: set = set()


def pass_through(code: CodeType) -> None:
    """Tell :func:`warn` that frames running ``code`` only pass a call on, and are not to be counted."""
    _PASS_THROUGH.add(code)


def warn(message: object, category: type = UserWarning, stacklevel: int = 1) -> None:
    """``warnings.warn``, with ``stacklevel`` counted without the pass-through wrappers.

    learntorch's warnings point at the line of the learner's program that called the function,
    as PyTorch's do (``stacklevel=2`` names the caller).  A function of the ``torch`` namespace
    is called through a wrapper that checks its arguments' types after a failure
    (``tensor_arguments.py``); that frame is the wrapper's, not the learner's, so it is skipped
    here, and every warning keeps pointing where it should."""
    frame = sys._getframe(1)  # the function that warns
    extra = 0
    for _ in range(stacklevel - 1):
        frame = frame.f_back
        while frame is not None and frame.f_code in _PASS_THROUGH:
            frame, extra = frame.f_back, extra + 1
        if frame is None:
            break
    warnings.warn(message, category, stacklevel=stacklevel + extra + 1)
