"""The chi-squared distribution with ``df`` degrees of freedom: the sum of ``df``
squared standard normals.  It is exactly ``Gamma(df / 2, 1 / 2)``, so it is one."""
from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import constraints
from .gamma import Gamma


class Chi2(Gamma):
    """``Chi2(df)``, ``df > 0``."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self) -> Tensor:
        return self.concentration * 2
