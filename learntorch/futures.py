"""``torch.futures``: ``Future``, a value that will exist once some work has finished.

``work.get_future()`` turns an asynchronous collective into a Future whose value
is the list of result tensors; ``fut.then(f)`` is a new Future whose value is
``f(fut)``, computed once ``fut`` is done.  DDP's communication hooks
(``register_comm_hook``) return one: the reducer waits for it at the end of
backward and takes its value as the bucket's reduced gradients.

learntorch's Futures are *lazy*: nothing runs in the background, so a
callback runs when someone waits for the result (PyTorch may run it as soon
as the collective completes).  The values are the same.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

__all__ = ["Future"]


class Future:
    """A result to come: ``wait()`` blocks until it is there and returns it; ``value()`` too;
    ``done()`` asks without blocking.  ``Future()`` alone is completed by ``set_result``."""

    def __init__(self, compute: Optional[Callable[[], Any]] = None,
                 poll: Optional[Callable[[], bool]] = None) -> None:
        self._compute = compute  # blocks until the result is there, and returns it
        self._poll = poll        # True once computing would not block
        self._done = False
        self._value: Any = None

    def set_result(self, result: Any) -> None:
        if self._done:
            raise RuntimeError("Future can only be marked completed once.")
        self._value, self._done = result, True

    def done(self) -> bool:
        return self._done or (self._poll is not None and self._poll())

    def wait(self) -> Any:
        if not self._done:
            if self._compute is None:
                raise RuntimeError("learntorch.distributed.Future: waited for a Future that nothing will "
                                   "complete (call set_result first)")
            self._value, self._done = self._compute(), True
        return self._value

    def value(self) -> Any:
        return self.wait()

    def then(self, callback: Callable[["Future"], Any]) -> "Future":
        """A Future whose value is ``callback(self)``, once this one is done."""
        def compute() -> Any:
            self.wait()
            return callback(self)
        return Future(compute, self.done)

    def __repr__(self) -> str:
        return f"<Future {'done' if self._done else 'pending'}>"
