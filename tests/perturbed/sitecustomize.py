"""Installs perturbed arithmetic (``perturb.py``) in every Python process that
imports learntorch, when ``LEARNTORCH_PERTURB_SEED`` is set.

``make test`` puts this folder on ``PYTHONPATH`` for its perturbed nbval pass,
so each notebook kernel (and each MPI rank a notebook starts) runs with it.
Python imports ``sitecustomize`` at start-up; learntorch is not imported yet,
so this waits for it: an import hook runs :func:`perturb.install` right after
``learntorch`` has finished importing.
"""
from __future__ import annotations

import importlib.abc
import os
import sys
from typing import Any

_SEED = os.environ.get("LEARNTORCH_PERTURB_SEED")


class _AfterLearntorch(importlib.abc.MetaPathFinder):
    """Finds nothing itself; wraps learntorch's loader so that install() runs after it."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "learntorch":
            return None
        sys.meta_path.remove(self)
        spec = next((s for s in (f.find_spec(name, path, target) for f in sys.meta_path
                                 if hasattr(f, "find_spec")) if s is not None), None)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_install(module: Any) -> None:
            exec_module(module)
            import perturb
            perturb.install(int(_SEED))
        spec.loader.exec_module = exec_then_install  # type: ignore[method-assign]
        return spec


if _SEED:
    sys.meta_path.insert(0, _AfterLearntorch())
