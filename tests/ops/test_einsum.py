"""``einsum`` (learntorch/ops/arrange.py) against real PyTorch: values and gradients (the ellipsis,
broadcasting of size-1 dimensions, diagonals, several operands), the result's grad_fn (einsum is
built from permute/sum/mul/bmm and a final view, as in PyTorch), double backward, and the
``einsum(): ...`` errors for bad equations."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import grads_both, raises_both

pytestmark = pytest.mark.torch

rng = np.random.default_rng(11)


def _arrays(*shapes: tuple) -> tuple:
    return tuple(rng.standard_normal(s) for s in shapes)


# equation, operand shapes (float64 leaves: gradients compared closely)
CASES = [
    ("ld,de->le", (4, 3), (3, 3)),
    ("bij,bjk->bik", (2, 4, 3), (2, 3, 5)),
    ("ii", (3, 3)),
    ("ii->i", (3, 3)),
    ("ij->j", (3, 4)),
    ("ij->ji", (3, 4)),
    ("ij->", (3, 4)),
    ("i,j->ij", (3,), (4,)),
    ("i,i->", (3,), (3,)),
    ("ij,j->i", (3, 4), (4,)),
    ("ij,jk", (3, 4), (4, 5)),
    ("ij,jk->ki", (3, 4), (4, 5)),
    ("ij,kj->ik", (3, 4), (5, 4)),
    ("ij,ij->ij", (3, 4), (3, 4)),
    ("ij,ij->i", (3, 4), (3, 4)),
    ("ii,i->i", (3, 3), (3,)),
    ("ij,k->jk", (3, 4), (5,)),
    ("ijk,jkl->il", (2, 3, 4), (3, 4, 5)),
    ("bhqd,bhkd->bhqk", (2, 3, 4, 5), (2, 3, 6, 5)),
    ("ij,jk,kl->il", (2, 3), (3, 4), (4, 5)),
    ("bn,anm,bm->ba", (2, 3), (4, 3, 5), (2, 5)),
    # size-1 dimensions broadcast against the other operands
    ("bij,bjk->bik", (1, 4, 3), (2, 3, 5)),
    ("ij,jk->ik", (4, 1), (1, 5)),
    ("ij,jk->ik", (4, 3), (1, 5)),
    # the ellipsis
    ("...d,d->...", (2, 4, 3), (3,)),
    ("b...i,bij->b...j", (2, 5, 3), (2, 3, 4)),
    ("...ij->...ji", (2, 3, 4)),
    ("...", (2, 3)),
    ("...ij,...jk", (3, 1, 2, 3), (4, 3, 5)),
    ("...ij,...jk->...ik", (3, 1, 2, 3), (4, 3, 5)),
    ("...,...->...", (2, 1, 3), (4, 3)),
    ("...i,...i->", (2, 3), (2, 3)),
    ("i...,i->...", (3, 2, 2), (3,)),
    ("ij...,...jk", (2, 3), (3, 4)),
    ("ij->ij...", (3, 4)),
    ("a...a->...", (3, 2, 3)),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{c[1:]}" for c in CASES])
def test_values_gradients_and_grad_fn_match_torch(torch_oracle: Any, case: tuple) -> None:
    equation, *shapes = case
    grads_both(lambda T, *ops: T.einsum(equation, *ops), torch_oracle, *_arrays(*shapes))


def test_operands_as_one_list_and_implicit_order(torch_oracle: Any) -> None:
    a, b = _arrays((2, 3), (3, 3))
    grads_both(lambda T, x, y: T.einsum("Ij,ji", [x, y]), torch_oracle, a, b)


def test_zero_sized_contraction_gives_zeros(torch_oracle: Any) -> None:
    grads_both(lambda T, x, y: T.einsum("ij,jk->ik", x, y), torch_oracle, *_arrays((3, 0), (0, 4)))


def test_integer_operands_keep_their_dtype(torch_oracle: Any) -> None:
    a, b = np.arange(6).reshape(2, 3), np.arange(3)
    out = lt.einsum("ij,j->i", lt.tensor(a), lt.tensor(b))
    expected = torch_oracle.einsum("ij,j->i", torch_oracle.tensor(a), torch_oracle.tensor(b))
    assert str(out.dtype) == str(expected.dtype) and out.tolist() == expected.tolist()


def test_double_backward_through_ellipsis() -> None:
    a = lt.randn(2, 3, 4, dtype=lt.float64, requires_grad=True)
    b = lt.randn(4, 5, dtype=lt.float64, requires_grad=True)
    assert lt.autograd.gradgradcheck(lambda x, y: lt.einsum("...j,jk->...k", x, y).sin(), (a, b))


ERRORS = [
    ("ij,jk", [(3, 4)]),
    ("i", [(3,), (3,)]),
    ("ij,jk->ik", [(3, 4), (5, 6)]),
    ("ij->k", [(3, 4)]),
    ("i->ii", [(3,)]),
    ("ij->", [(3,)]),
    ("...ij,ij->", [(3,), (3,)]),
    ("a.b", [(3,)]),
    ("i..j", [(3,)]),
    ("...i...", [(3, 3)]),
    ("i->i->i", [(3,)]),
    ("i1", [(3,)]),
    ("...i,...i", [(3, 2), (4, 2)]),
    ("ii", [(3, 4)]),
    ("...->....", [(3,)]),
    ("...i->i.", [(3, 3)]),
    ("->", [(3,)]),
    ("i,i->i", [(2,), (3,)]),
]


@pytest.mark.parametrize("equation,shapes", ERRORS, ids=[e for e, _ in ERRORS])
def test_bad_equations_raise_torchs_error(torch_oracle: Any, equation: str, shapes: list) -> None:
    l_exc, t_exc = raises_both(lambda T: T.einsum(equation, *[T.ones(s) for s in shapes]), torch_oracle,
                               match="einsum\\(\\): ")
    assert str(l_exc) == str(t_exc)


def test_no_operand_is_a_value_error(torch_oracle: Any) -> None:
    l_exc, t_exc = raises_both(lambda T: T.einsum("i,j->"), torch_oracle, match="at least one operand")
    assert str(l_exc) == str(t_exc)
