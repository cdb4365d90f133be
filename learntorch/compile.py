"""``torch.compile``: accepted, and the model (or function) comes back unchanged.

PyTorch's compiler traces a model into fused kernels; learntorch's point is to
run every operation in plain Python that a learner can step through, so it
compiles nothing.  PyTorch compiles silently, and so this returns silently too
(a warning in every training script that calls it would be noise): the program
runs the same, only without the speed-up.  The arguments are checked as PyTorch
checks them.  One visible difference: PyTorch wraps a Module in an
``OptimizedModule``; here the Module itself is returned.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

__all__ = ["compile"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model: Optional[Callable] = None, *, fullgraph: bool = False, dynamic: Optional[bool] = None,
            backend: Any = "inductor", mode: Optional[str] = None, options: Optional[dict] = None,
            disable: bool = False, **kwargs: Any) -> Any:
    """``model`` itself (learntorch does not compile); without a model, a decorator that
    returns the function it decorates."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if model is None:
        def decorator(fn: Callable) -> Callable:
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           disable=disable, **kwargs)
        return decorator
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model
