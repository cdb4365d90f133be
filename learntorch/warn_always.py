"""``torch.set_warn_always``: whether the warnings PyTorch gives once per process are given
every time instead.

Some warnings (a deprecation, a beta API) are meant to be seen once, not once per call in
a training loop; tests that check for them want them every time.  The flag is kept here,
at the bottom of the package, so that any module giving such a warning can ask it.
"""
from __future__ import annotations

import warnings

__all__ = ["set_warn_always", "is_warn_always_enabled", "warn_once"]

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
    warnings.warn(message, category, stacklevel=stacklevel + 1)
