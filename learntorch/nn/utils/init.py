"""``skip_init``: build a module without running its parameter initialisation.

PyTorch builds the module on the ``meta`` device (shapes only) and then gives it real but
uninitialised memory, for code that will load or set every weight anyway and wants to skip
the cost of drawing random numbers it would throw away.  learntorch has no ``meta`` device,
so the module is built as usual on the device asked for: the values are the ordinary
initial ones, which is one of the values "uninitialised" allows.  What PyTorch checks is
checked the same way: a Module class whose constructor takes ``device=``.
"""
from __future__ import annotations

import inspect
from typing import Any

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Module:
    """``module_cls(*args, **kwargs)`` whose parameters the caller will set (see the module's note)."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
