"""``GradBucket``: what DDP hands a communication hook (``register_comm_hook``).

A bucket is several parameters' gradients in one flat buffer (see
``nn/parallel/reducer.py``).  The hook receives it when it is full, starts
whatever communication it likes on ``bucket.buffer()`` (all-reduce it,
compress it to float16 first ...) and returns a :class:`Future` of the reduced
flat tensor; DDP copies that into the parameters' ``.grad``.
"""
from __future__ import annotations

from typing import Any

__all__ = ["GradBucket"]


class GradBucket:
    """One bucket, as a hook sees it (PyTorch's method names)."""

    def __init__(self, index: int, buffer: Any, offsets: list[int], params: list[Any], is_last: bool) -> None:
        self._index, self._buffer, self._offsets = index, buffer, offsets
        self._params, self._is_last = params, is_last

    def index(self) -> int:
        """Which bucket: 0 is the first launched (it holds the last layers' gradients)."""
        return self._index

    def buffer(self) -> Any:
        """The flat tensor of this rank's gradients (not yet averaged)."""
        return self._buffer

    def set_buffer(self, buffer: Any) -> None:
        self._buffer = buffer

    def gradients(self) -> list[Any]:
        """Each parameter's gradient, as a view into the buffer shaped like the parameter."""
        return [self._buffer[o:o + p.numel()].view(p.shape) for o, p in zip(self._offsets, self._params)]

    def parameters(self) -> list[Any]:
        return list(self._params)

    def is_last(self) -> bool:
        """Whether this is the last bucket of the iteration (the one launched last)."""
        return self._is_last
