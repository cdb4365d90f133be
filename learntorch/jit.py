"""``torch.jit``: TorchScript's decorators and queries, accepted; nothing is compiled.

TorchScript turns a model into a program that runs without Python.  learntorch is the
opposite on purpose: every operation runs in Python that a learner can step through.
Model code written for PyTorch still uses a few of ``torch.jit``'s names:
``@torch.jit.script`` on a helper function, ``if not torch.jit.is_scripting():``,
``@torch.jit.ignore``; those work here as they do in eager PyTorch -- the function or
module comes back as it is, and the code is never being scripted or traced.  What only a
compiled program can do (``torch.jit.save`` of a ScriptModule) raises an error that says
what to do instead.  (``torch.compile``, learntorch/compile.py, is the same choice.)
"""
from __future__ import annotations

from typing import Any, Callable, Final, Optional  # (Final: ``torch.jit.Final[int]`` is typing's)

from . import warn_always

__all__ = ["script", "trace", "ignore", "unused", "export", "is_scripting", "is_tracing", "annotate", "Final",
           "save", "load"]


def script(obj: Any, optimize: Optional[bool] = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> Any:
    """``obj`` itself (a function, a class or a Module): learntorch runs it eagerly.  PyTorch 2.13
    deprecates ``torch.jit.script``, with a DeprecationWarning located in its own code (so hidden by
    Python's default filters); so does this."""
    warn_always.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                     DeprecationWarning, stacklevel=1)
    return obj


def trace(func: Callable, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Callable:
    """``func`` itself.  PyTorch records one run on ``example_inputs`` and replays that graph;
    an eager function gives the same results (and follows its control flow on every input)."""
    if not callable(func):
        raise TypeError(f"trace expects a function or a Module, got {type(func).__name__}")
    return func


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """``@torch.jit.ignore`` (with or without arguments): leaves the function as it is."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: Callable) -> Callable:
    return fn


def export(fn: Callable) -> Callable:
    return fn


def is_scripting() -> bool:
    """False: learntorch never scripts, so the eager branch of ``if torch.jit.is_scripting()`` runs."""
    return False


def is_tracing() -> bool:
    return False


def annotate(the_type: Any, the_value: Any) -> Any:
    """TorchScript's type hint for a value: the value itself."""
    return the_value


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    raise RuntimeError("torch.jit.save writes a TorchScript program, and learntorch compiles none: save the weights "
                       "with torch.save(model.state_dict(), path), and rebuild the model from its class to load them")


def load(f: Any, map_location: Any = None, _extra_files: Any = None) -> Any:
    raise RuntimeError("torch.jit.load reads a TorchScript program, which learntorch cannot run: load the weights "
                       "saved with torch.save(model.state_dict(), path) into a model built from its class")
