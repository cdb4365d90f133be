"""Grad mode: whether operations record the graph (``no_grad``, ``enable_grad`` …).

One module-level flag, read by ``Function.apply`` before it builds a node.
Each context manager saves the previous value and restores it on exit, so they
nest, and each also works as a decorator, as in PyTorch.
"""
from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, TypeVar

__all__ = ["is_grad_enabled", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    enabled = True  # per thread, as in PyTorch (DataParallel's replicas run in threads)
    inference = False  # inside ``inference_mode()``: only reported, it records no graph like no_grad
    forwarding = False  # inside a Function's forward, which turned grad mode off itself (not the user)


_state = _State()


def is_grad_enabled() -> bool:
    """True while operations on tensors that require grad build a graph."""
    return _state.enabled


class _GradModeContext:
    """Base of the context managers: set a mode on enter, restore the old one on exit."""

    _mode: bool

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """``@torch.no_grad`` written without parentheses hands the function itself to the
        class: decorate it with a default instance, since PyTorch accepts both spellings."""
        if len(args) == 1 and not kwargs and callable(args[0]):
            return cls()(args[0])
        return super().__new__(cls)

    def __init__(self, orig_func: Any = None) -> None:
        """(``orig_func``: the function of ``@torch.no_grad``, which ``__new__`` decorates; one at
        most, so that ``torch.no_grad(a, b)`` is PyTorch's TypeError)"""

    def __enter__(self) -> None:
        self._prev = _state.enabled
        _state.enabled = self._mode

    def __exit__(self, *exc: Any) -> None:
        _state.enabled = self._prev

    def __call__(self, func: F) -> F:
        mode = self._mode
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(func, lambda: _Switch(mode))

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = _state.enabled
            _state.enabled = mode
            try:
                return func(*args, **kwargs)
            finally:
                _state.enabled = prev

        return wrapper  # type: ignore[return-value]


class _Switch:
    """Grad mode set to ``mode`` for a ``with`` block, the previous mode restored after it."""

    def __init__(self, mode: bool) -> None:
        self._mode = mode

    def __enter__(self) -> None:
        self._prev = _state.enabled
        _state.enabled = self._mode

    def __exit__(self, *exc: Any) -> None:
        _state.enabled = self._prev


def _wrap_generator(func: Callable, mode: Callable[[], Any]) -> Any:
    """A decorated *generator* function: its body runs in pieces, from one ``yield`` to the
    next, each time the caller asks for a value.  Wrapping only the call that creates the
    generator would cover none of them, so each piece runs inside a fresh ``mode()`` context
    while the caller's own code between two values runs in the caller's mode (as PyTorch does)."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gen = func(*args, **kwargs)
        try:
            with mode():
                value = gen.send(None)
            while True:
                try:
                    sent = yield value
                except GeneratorExit:
                    with mode():
                        gen.close()
                    raise
                except BaseException as error:  # thrown in by the caller: into the generator, in the mode
                    with mode():
                        value = gen.throw(error)
                else:
                    with mode():
                        value = gen.send(sent)
        except StopIteration as stop:
            return stop.value
    return wrapper


class no_grad(_GradModeContext):
    """Operations inside do not record the graph: results have ``requires_grad=False``.

    Used for evaluation and for updating weights by hand (``w -= lr * w.grad``).
    """

    _mode = False


class enable_grad(_GradModeContext):
    """Turn recording back on inside a ``no_grad`` block."""

    _mode = True


# Whether any thread has ever entered ``inference_mode()``.  Every new tensor and every recorded
# operation asks whether inference mode is on; reading the thread-local ``_state`` costs several
# times a module attribute, so the hot paths read ``_state.inference`` only once this is True.
used = False


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` (learntorch treats it as ``no_grad``)."""
    return _state.inference


class inference_mode(no_grad):
    """``no_grad``, and the tensors made inside are *inference tensors* (``is_inference()``):
    as in PyTorch they cannot be saved for backward later, nor changed in place outside
    inference mode (``tensor_autograd_extras.py``); ``clone()`` gives a normal tensor.
    """

    def __new__(cls, mode: Any = True) -> Any:
        """As in PyTorch, anything but a bool is taken for the function to decorate
        (``@torch.inference_mode`` without parentheses): checked only when it is called."""
        if not isinstance(mode, bool):
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self._inference = bool(mode)
        self._mode = not mode

    def __enter__(self) -> None:
        global used
        super().__enter__()
        self._prev_inference = _state.inference
        _state.inference = self._inference
        used = used or self._inference

    def __exit__(self, *exc: Any) -> None:
        _state.inference = self._prev_inference
        super().__exit__(*exc)

    def __call__(self, func: F) -> F:
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(func, lambda: inference_mode(self._inference))

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(self._inference):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(False)`` as a context manager, a decorator, or a plain call.

    As a plain call it takes effect at once (PyTorch does the same), which is
    why the mode is switched in ``__init__`` and restored by ``__exit__``.
    """

    def __init__(self, mode: bool) -> None:
        self._mode = bool(mode)
        self._prev = _state.enabled
        _state.enabled = self._mode

    def __enter__(self) -> None:
        _state.enabled = self._mode

    def __call__(self, func: F) -> F:
        """As a decorator, ``@set_grad_enabled(False)`` must not switch the mode for the
        rest of the program: undo ``__init__``'s switch, then wrap (as PyTorch does)."""
        _state.enabled = self._prev
        return super().__call__(func)
