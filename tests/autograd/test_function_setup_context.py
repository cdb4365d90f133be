"""``autograd.Function`` in PyTorch 2's documented style (``forward`` without ctx plus
``setup_context``), ``generate_vmap_rule``, and the ctx methods ``set_materialize_grads``,
``mark_non_differentiable`` and ``mark_dirty`` in both styles, against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, grads_both, raises_both

rng = np.random.default_rng(15)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)


def mul_functions(T):
    """The same multiplication in the old style and in the setup_context style."""
    class OldMul(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    class NewMul(T.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x, y)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    return OldMul, NewMul


@pytest.mark.parametrize("style", [0, 1], ids=["ctx_in_forward", "setup_context"])
def test_mul_both_styles(torch_oracle, style):
    out = grads_both(lambda T, x, y: mul_functions(T)[style].apply(x, y), torch_oracle, A, B,
                     check_grad_fn=False)
    assert out[0][0].grad is not None


def test_setup_context_grad_fn_name_and_inputs_with_defaults(torch_oracle):
    def run(T):
        seen = {}

        class Scale(T.autograd.Function):
            @staticmethod
            def forward(x, scale=2.0):
                seen["grad_enabled"] = T.is_grad_enabled()
                return x * scale

            @staticmethod
            def setup_context(ctx, inputs, output):
                seen["inputs"] = tuple(type(i).__name__ if i is not None and not isinstance(i, float) else i
                                       for i in inputs)
                ctx.scale = inputs[1]

            @staticmethod
            def backward(ctx, g):
                return g * ctx.scale, None

        x = T.tensor(A, requires_grad=True)
        outs = [Scale.apply(x), Scale.apply(x, 3.0), Scale.apply(x, scale=4.0)]
        sum(o.sum() for o in outs).backward()
        return outs[0].grad_fn.name(), seen["inputs"], seen["grad_enabled"], x.grad
    got, want = run(lt), run(torch_oracle)
    assert got[:3] == want[:3] == ("ScaleBackward", ("Tensor", 4.0), False)
    assert_same(got[3], want[3])


def test_forward_without_ctx_needs_setup_context(torch_oracle):
    def fn(T):
        class NoSetup(T.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        return NoSetup.apply(T.ones(2, requires_grad=True))
    raises_both(fn, torch_oracle, match="takes 1 positional argument but 2 were given")


def test_ctx_in_forward_with_setup_context_is_an_error(torch_oracle):
    def fn(T):
        class Both(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                return g
        return Both.apply(T.ones(2, requires_grad=True))
    raises_both(fn, torch_oracle, match="missing a required argument: 'x'")


def test_base_setup_context_is_not_implemented(torch_oracle):
    raises_both(lambda T: T.autograd.Function.setup_context(None, (), None), torch_oracle,
                match="setup_context is not implemented")


def two_outputs(T, style, materialize):
    """Returns (x*2, x*3); backward records whether the unused output's gradient was None."""
    seen = []

    def set_up(ctx):
        ctx.set_materialize_grads(materialize)

    def backward(ctx, g1, g2):
        seen.append(g2 is None)
        return g1 * 2 if g2 is None else g1 * 2 + g2 * 3

    if style == "old":
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                set_up(ctx)
                return x * 2, x * 3
    else:
        class F(T.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 2, x * 3

            @staticmethod
            def setup_context(ctx, inputs, output):
                set_up(ctx)
    F.backward = staticmethod(backward)
    x = T.tensor(A, requires_grad=True)
    a, _ = F.apply(x)
    a.sum().backward()
    return seen, x.grad


@pytest.mark.parametrize("style", ["old", "new"])
@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(torch_oracle, style, materialize):
    got, want = two_outputs(lt, style, materialize), two_outputs(torch_oracle, style, materialize)
    assert got[0] == want[0] == [not materialize]
    assert_same(got[1], want[1])


def sort_function(T, style):
    seen = {}

    def mark(ctx, output):
        _, idx = output
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)

    def backward(ctx, gv, gi):
        seen["gi"] = gi
        (idx,) = ctx.saved_tensors
        return T.zeros_like(gv).scatter(0, idx, gv)

    if style == "old":
        class Sort(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x.sort()
                out = (out[0], out[1])
                mark(ctx, out)
                return out
    else:
        class Sort(T.autograd.Function):
            @staticmethod
            def forward(x):
                v, i = x.sort()
                return v, i

            @staticmethod
            def setup_context(ctx, inputs, output):
                mark(ctx, output)
    Sort.backward = staticmethod(backward)
    x = T.tensor([3.0, 1.0, 2.0], requires_grad=True)
    v, i = Sort.apply(x)
    (v * T.tensor([1.0, 10.0, 100.0])).sum().backward()
    return v, i, i.requires_grad, seen["gi"], x.grad


@pytest.mark.parametrize("style", ["old", "new"])
def test_mark_non_differentiable(torch_oracle, style):
    got, want = sort_function(lt, style), sort_function(torch_oracle, style)
    assert_same(got, want, check_grad_fn=False)
    assert got[2] is False


def add_one_in_place(T, style):
    if style == "old":
        class AddOne(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x
    else:
        class AddOne(T.autograd.Function):
            @staticmethod
            def forward(x):
                x.add_(1)
                return x

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.mark_dirty(inputs[0])
    AddOne.backward = staticmethod(lambda ctx, g: g * 1)
    return AddOne


@pytest.mark.parametrize("style", ["old", "new"])
def test_mark_dirty(torch_oracle, style):
    def run(T):
        a = T.tensor(A, requires_grad=True)
        x = a * 2
        y = add_one_in_place(T, style).apply(x)
        (y * y).sum().backward()
        return y is x, x._version, y.grad_fn.name(), y, a.grad
    got, want = run(lt), run(torch_oracle)
    assert got[:3] == want[:3] == (True, 2, "AddOneBackward")
    assert_same(got[3:], want[3:], check_grad_fn=False)


@pytest.mark.parametrize("style", ["old", "new"])
def test_mark_dirty_on_a_leaf_that_requires_grad(torch_oracle, style):
    raises_both(lambda T: add_one_in_place(T, style).apply(T.ones(2, requires_grad=True)), torch_oracle,
                match="a leaf Variable that requires grad has been used in an in-place operation")


def test_mark_dirty_input_not_returned(torch_oracle):
    def fn(T):
        class NotReturned(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        return NotReturned.apply(T.ones(2, requires_grad=True).clone())
    raises_both(fn, torch_oracle, match="marked as dirty during the forward method were not returned")
