"""Edges of the tensor API found by running programs under both libraries: matrix products with
a non-tensor or bool operand, batch dimensions that do not broadcast, ``outer`` of matrices,
``cartesian_prod`` / ``combinations``, ``layout``, and backward of a tensor that needs no grad."""
from __future__ import annotations

import pytest

import learntorch as lt
from conftest import assert_same, raises_both


@pytest.mark.parametrize("expr, error, match", [
    ("T.ones(2, 2) @ 2", TypeError, None),
    ("T.matmul(T.ones(2, 2), 2)", TypeError, "must be Tensor, not int"),
    ("T.ones(2, 2).mm(2)", TypeError, "must be Tensor, not int"),
    ("T.ones(2, 2, 3) @ T.ones(3, 3, 4)", RuntimeError, "must match the size of tensor b"),
    ("T.bmm(T.ones(1, 2, 2, dtype=T.long), T.ones(1, 2, 2))", RuntimeError, "expected scalar type Long but found Float"),
    ("T.ones(2, 2, dtype=T.bool) @ T.ones(2, 2, dtype=T.bool)", NotImplementedError, "not implemented for 'Bool'"),
    ("T.outer(T.ones(2, 2), T.ones(2))", RuntimeError, "Expected 1-D argument self"),
    ("T.outer(T.ones(2), T.ones(2, 1))", RuntimeError, "Expected 1-D argument vec2"),
    ("T.combinations(T.ones(2, 2))", RuntimeError, "Expect a 1D vector"),
    ("T.tensor(1).backward()", RuntimeError, "does not require grad"),
    ("T.ones(2).backward()", RuntimeError, "does not require grad"),
])
def test_errors_like_torch(torch_oracle, expr, error, match):
    t_err, l_err = raises_both(lambda T: eval(expr, {"T": T}), torch_oracle, match=match)
    assert isinstance(l_err, error)


def test_cartesian_prod_and_combinations(torch_oracle):
    def run(T):
        a = T.tensor([1., 2., 3.], requires_grad=True)
        b = T.tensor([4., 5.], requires_grad=True)
        c = T.cartesian_prod(a, b)
        k = T.combinations(a)
        k3 = T.combinations(a, r=3, with_replacement=True)
        (c.sum() + (k ** 2).sum() + k3.prod(1).sum()).backward()
        return c, k, k3, a.grad, b.grad, T.combinations(a, r=4), T.cartesian_prod(a) is a
    for x, y in zip(run(lt), run(torch_oracle)):
        assert x == y if isinstance(x, bool) else assert_same(x, y) is None


def test_layout(torch_oracle):
    assert repr(lt.ones(1).layout) == repr(torch_oracle.ones(1).layout) == "torch.strided"
    assert lt.ones(1).layout is lt.strided and lt.sparse_coo is not lt.strided


def test_cross_entropy_with_probabilities_ends_in_div_backward1(torch_oracle):
    def run(T):
        T.manual_seed(0)
        x = T.randn(3, 4, requires_grad=True)
        loss = T.nn.functional.cross_entropy(x, T.randn(3, 4).softmax(1))
        loss.backward()
        return loss, x.grad
    for a, b in zip(run(lt), run(torch_oracle)):
        assert_same(a, b)


@pytest.mark.parametrize("expr", [
    "T.allclose(T.ones(2), T.ones(2, dtype=T.float64))", "T.isclose(T.ones(2), T.ones(2, dtype=T.int64))",
    "T.allclose(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int32))",
])
def test_allclose_compares_like_with_like(torch_oracle, expr):
    raises_both(lambda T: eval(expr, {"T": T}), torch_oracle, match="did not match")


def test_custom_function_node_prints_under_torch_autograd_function(torch_oracle):
    def run(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = T.ones(1, requires_grad=True)
        return [repr(y.grad_fn).split(" object at")[0] for y in (Double.apply(x), x * 2)]
    assert run(lt) == run(torch_oracle) == ["<torch.autograd.function.DoubleBackward", "<MulBackward0"]
