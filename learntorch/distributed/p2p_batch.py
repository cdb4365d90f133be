"""``P2POp`` and ``batch_isend_irecv``: several point-to-point messages started together.

A ring exchange (each rank sends to the next and receives from the previous)
deadlocks if every rank first *waits* for its send: nobody is receiving yet.
Describing the sends and receives as ``P2POp`` objects and starting them all
before waiting for any is the cure; with MPI's non-blocking ``Isend``/``Irecv``
that is simply "start each one, return the ``Work`` objects".
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from .collectives import irecv, isend
from .work import Work

__all__ = ["P2POp", "batch_isend_irecv"]


class P2POp:
    """One message of a batch: ``op`` is ``dist.isend`` or ``dist.irecv``; ``peer`` a global rank
    (or ``group_peer``, a rank inside ``group``)."""

    def __init__(self, op: Callable, tensor: Any, peer: Optional[int] = None, group: Any = None, tag: int = 0,
                 group_peer: Optional[int] = None) -> None:
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, \
            group_peer

    def __repr__(self) -> str:
        return f"P2POp({self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list: list) -> list[Work]:
    """Start every message of the list, then return their ``Work`` objects: ``wait()`` on each."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    if any(p.group is not p2p_op_list[0].group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    works = []
    for p in p2p_op_list:
        work = p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer)
        if work is not None:
            works.append(work)
    return works
