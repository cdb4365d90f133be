"""Chapter 03 (custom Functions): ``Tensor.sum_to_size``, ``gradcheck`` / ``gradgradcheck``,
and the Function mechanics the chapter shows, against PyTorch 2.13 where it has an answer."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, raises_both

rng = np.random.default_rng(303)
X = rng.standard_normal((2, 3, 4)).astype(np.float32)


@pytest.mark.torch
@pytest.mark.parametrize("size", [(3, 1), (1, 3, 1), ((3, 1),), (4,), (2, 3, 4), (1,), ((),)],
                         ids=lambda s: str(s))
def test_sum_to_size(torch_oracle, size):
    check_both(lambda T: T.tensor(X).sum_to_size(*size), torch_oracle)


@pytest.mark.torch
@pytest.mark.parametrize("size", [(2, 1), (5, 2, 3, 4), (1, 2, 3, 4)], ids=lambda s: str(s))
def test_sum_to_size_rejects_shapes_that_do_not_broadcast(torch_oracle, size):
    raises_both(lambda T: T.tensor(X).sum_to_size(*size), torch_oracle, match="is not expandable to size")


@pytest.mark.torch
def test_sum_to_size_needs_a_size(torch_oracle):
    raises_both(lambda T: T.tensor(X).sum_to_size(), torch_oracle, match="missing 1 required positional")


def test_sum_to_size_is_differentiable():
    x = lt.tensor(X, requires_grad=True)
    x.sum_to_size(3, 1).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.ones_like(X))


class _LogSumExp(lt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        m = x.max()
        out = m + (x - m).exp().sum().log()
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * (x - out).exp()


def test_gradcheck_and_gradgradcheck_of_a_custom_function():
    x = lt.tensor([3.0, -1.0, 0.5, 2.0], dtype=lt.float64, requires_grad=True)
    assert lt.autograd.gradcheck(_LogSumExp.apply, (x,))
    assert lt.autograd.gradgradcheck(_LogSumExp.apply, (x,))  # its backward is made of tensor ops
    assert lt.autograd.gradgradcheck(lambda t: t * t * t, (x,))


def test_gradcheck_reports_a_wrong_backward():
    class BadExp(lt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * x

    x = lt.tensor([0.5, 1.0], dtype=lt.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        lt.autograd.gradcheck(BadExp.apply, (x,))
    assert lt.autograd.gradcheck(BadExp.apply, (x,), raise_exception=False) is False


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gradcheck_message_shows_the_jacobians_as_tensors(torch_oracle, dtype):
    """PyTorch's message prints both Jacobians as tensors (in the input's dtype)."""
    def run(T):
        class Doubled(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3
        x = T.tensor([[0.5, 1.0], [2.0, -1.0]], dtype=getattr(T, dtype), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (float32: the precision warning)
            with pytest.raises(RuntimeError) as info:
                T.autograd.gradcheck(Doubled.apply, (x,), eps=1e-3, atol=1e-2)
        return str(info.value)
    assert run(lt) == run(torch_oracle)


def test_backward_returning_a_number_for_a_tensor_input(torch_oracle):
    def run(T):
        class Number(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return 2.0
        Number.apply(T.ones(2, requires_grad=True)).sum().backward()
    raises_both(run, torch_oracle, match=r"^expected Variable or None \(got float\)$")


def test_ctx_is_the_grad_fn_and_backward_gets_none_for_numbers():
    seen = []

    class Scale(lt.autograd.Function):
        @staticmethod
        def forward(ctx, x, factor):
            seen.append(ctx)
            ctx.factor = factor
            return x * factor

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.factor, None

    x = lt.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x, 3.0)
    assert seen[0] is y.grad_fn and y.grad_fn.name() == "ScaleBackward"
    assert len(y.grad_fn.next_functions) == 1
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_a_function_may_return_a_number_beside_a_tensor(torch_oracle):
    """The number's gradient reaches backward as None (there is nothing to make zeros of)."""
    def run(T):
        seen = []

        class WithCount(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 5

            @staticmethod
            def backward(ctx, g, g_count):
                seen.append(g_count)
                return g * 2

        x = T.tensor([1.0, 2.0], requires_grad=True)
        y, count = WithCount.apply(x)
        y.sum().backward()
        return x.grad, count, seen
    check_both(run, torch_oracle)


def _vjp_function(T, also_backward: bool):
    class Quadruple(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 4

    class Both(Quadruple):
        @staticmethod
        def backward(ctx, g):
            return g * 3

    return Both if also_backward else Quadruple


def test_backward_may_be_named_vjp(torch_oracle):
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        _vjp_function(T, False).apply(x).sum().backward()
        return x.grad
    check_both(run, torch_oracle)


def test_backward_and_vjp_together_are_refused(torch_oracle):
    raises_both(lambda T: _vjp_function(T, True).apply(T.ones(2, requires_grad=True)).sum().backward(),
                torch_oracle, match="Implementing both 'backward' and 'vjp'")


def test_forward_may_return_a_number() -> None:
    """A custom forward that returns a plain number (alone or beside a tensor) gives it back as it
    is, as PyTorch does; the tensor outputs still get the node."""
    class Three(lt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return 3

        @staticmethod
        def backward(ctx, g):
            return g

    class Pair(lt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5

        @staticmethod
        def backward(ctx, g, h):
            return g * 2

    x = lt.ones(2, requires_grad=True)
    assert Three.apply(x) == 3 and Three.apply(x.detach()) == 3
    a, b = Pair.apply(x)
    assert b == 5 and type(a.grad_fn).__name__ == "PairBackward"
    a.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
