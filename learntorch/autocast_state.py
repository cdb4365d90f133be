"""Autocast's switches: which device types have ``torch.autocast`` on, with which dtype, and the
casts made so far inside the region.

They sit at the bottom of the package because the operations autocast changes (matrix
products, convolutions, losses, in ``ops/`` and ``nn/``) ask one question on every call,
"is autocast on?" (:data:`ACTIVE`), while the ``autocast`` context manager that turns it on
lives higher up, in ``amp.py``.  How an operation then casts its arguments is
``ops/autocast.py``.
"""
from __future__ import annotations

from typing import Any

# True while autocast is on for some device type (and not paused inside an operation that
# already cast its arguments): the one flag the operations read, so that a step outside
# autocast pays for a single lookup.
ACTIVE = [False]

# per device type: [enabled, dtype (None: the device's default), cache_enabled]
STATE: dict[str, list] = {"cpu": [False, None, True], "cuda": [False, None, True]}

# id(weight) -> (weight, its cast): a parameter is cast once per autocast region, not once per
# use (PyTorch's cast cache), and forgotten when the outermost region ends.
CACHE: dict[int, tuple[Any, Any]] = {}

# how many autocast regions are open (the cache is cleared when the count returns to 0)
DEPTH = [0]


def refresh() -> None:
    """Recompute :data:`ACTIVE` after a region opens or closes."""
    ACTIVE[0] = any(entry[0] for entry in STATE.values())
