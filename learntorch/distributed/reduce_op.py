"""``ReduceOp``: how ``all_reduce`` and ``reduce`` combine the ranks' values."""
from __future__ import annotations

import enum

__all__ = ["ReduceOp"]


class ReduceOp:
    """The reduction of a collective: ``ReduceOp.SUM`` (the default), ``AVG``, ``PRODUCT``,
    ``MIN``, ``MAX`` and the bitwise ``BAND``, ``BOR``, ``BXOR`` (integer tensors only).

    ``AVG`` is a sum divided by the world size (floor division for integers);
    PyTorch's values print the same: ``<RedOpType.SUM: 0>``.
    """

    class RedOpType(enum.Enum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
