"""Chapter 03 (custom autograd Functions, gradcheck) against PyTorch 2.13.

The same ``Function`` subclasses are written once against a module ``T``
(``learntorch`` or ``torch``: ``T.autograd.Function``) and must behave alike:
outputs, ``grad_fn`` names, what ``ctx`` sees (``needs_input_grad``, saved
tensors, materialised gradients), gradients, and the errors for a backward that
returns the wrong number or shape of gradients.  ``gradcheck`` must pass for a
correct backward and fail for a wrong one, in both libraries.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, raises_both, to_numpy

pytestmark = pytest.mark.torch

rng = np.random.default_rng(303)
A = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((2, 3)).astype(np.float32)
A64 = rng.standard_normal((2, 3))


def functions(T):
    """The chapter's custom Functions, written against ``T.autograd.Function``."""
    Function = T.autograd.Function

    class MyReLU(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            grad = grad_output.clone()
            grad[x < 0] = 0
            return grad

    class Cube(Function):
        """Backward written with tensor operations: differentiable again (create_graph)."""
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x ** 2

    class Scale(Function):
        """Non-tensor arguments get None as their gradient."""
        @staticmethod
        def forward(ctx, x, factor, label):
            ctx.factor = factor
            ctx.seen = (ctx.needs_input_grad, label)
            return x * factor

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.factor, None, None

    class LinearFn(Function):
        """y = x·wᵀ + b, with needs_input_grad deciding which gradients to compute."""
        @staticmethod
        def forward(ctx, x, w, b=None):
            ctx.save_for_backward(x, w, b)
            out = x.mm(w.t())
            return out + b if b is not None else out

        @staticmethod
        def backward(ctx, grad_output):
            x, w, b = ctx.saved_tensors
            gx = grad_output.mm(w) if ctx.needs_input_grad[0] else None
            gw = grad_output.t().mm(x) if ctx.needs_input_grad[1] else None
            gb = grad_output.sum(0) if b is not None and ctx.needs_input_grad[2] else None
            return gx, gw, gb

    class MaxAndArg(Function):
        """Two outputs, the second marked non-differentiable."""
        @staticmethod
        def forward(ctx, x):
            values, idx = x.max(dim=1)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x, idx)
            return values, idx

        @staticmethod
        def backward(ctx, grad_values, grad_idx):
            x, idx = ctx.saved_tensors
            ctx.received = (grad_idx is None, None if grad_idx is None else to_numpy(grad_idx).tolist())
            grad = T.zeros_like(x)
            grad[T.arange(x.shape[0]), idx] = grad_values
            return grad

    class TwoOutputs(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.received = tuple(None if g is None else to_numpy(g).tolist() for g in (g1, g2))
            g1 = 0 if g1 is None else g1
            g2 = 0 if g2 is None else g2
            return g1 * 2 + g2 * 3

    class TwoOutputsNoMaterialize(TwoOutputs):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

    class AddOneInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2

    class WrongCount(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output[0]

    class BroadcastGrad(Function):
        """A gradient of a larger, broadcast shape is summed back to the input's shape."""
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.expand(4, *grad_output.shape) * 2

    class GradForNumber(Function):
        @staticmethod
        def forward(ctx, x, factor):
            return x * factor

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, T.ones(1)

    class SaveNumber(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(3)
            return x

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    class WrongBackward(Function):
        """exp with the derivative of exp forgotten (returns the incoming gradient)."""
        @staticmethod
        def forward(ctx, x):
            return x.exp()

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    class Sigmoid(Function):
        @staticmethod
        def forward(ctx, x):
            y = 1 / (1 + (-x).exp())
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            (y,) = ctx.saved_tensors
            return grad_output * y * (1 - y)

    return dict(MyReLU=MyReLU, Cube=Cube, Scale=Scale, LinearFn=LinearFn, MaxAndArg=MaxAndArg,
                TwoOutputs=TwoOutputs, TwoOutputsNoMaterialize=TwoOutputsNoMaterialize,
                AddOneInPlace=AddOneInPlace, Identity=Identity, WrongCount=WrongCount, WrongShape=WrongShape,
                BroadcastGrad=BroadcastGrad, GradForNumber=GradForNumber, SaveNumber=SaveNumber,
                WrongBackward=WrongBackward, Sigmoid=Sigmoid)


@pytest.fixture(scope="module")
def fns(torch_oracle):
    return {lt: functions(lt), torch_oracle: functions(torch_oracle)}


# ============================================================================ Function basics
def test_my_relu(torch_oracle, fns):
    """The chapter's MyReLU: output, grad_fn name (``MyReLUBackward``), gradient."""
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = fns[T]["MyReLU"].apply(x)
        (y * T.tensor(B)).sum().backward()
        return y, y.grad_fn.name(), x.grad, y.grad_fn.next_functions[0][0].name()
    check_both(run, torch_oracle)


def test_ctx_is_the_grad_fn(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = fns[T]["Cube"].apply(x)
        (saved,) = y.grad_fn.saved_tensors
        return saved, saved is x or T.equal(saved, x), type(y.grad_fn).__name__
    check_both(run, torch_oracle)


def test_non_tensor_arguments_and_needs_input_grad(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = fns[T]["Scale"].apply(x, 2.5, "label")
        y.sum().backward()
        return y, x.grad, y.grad_fn.seen, len(y.grad_fn.next_functions)
    check_both(run, torch_oracle)


@pytest.mark.parametrize("which", [(True, True, True), (True, False, True), (False, True, False),
                                   (False, False, True)])
def test_needs_input_grad_selects_gradients(torch_oracle, fns, which):
    data = [rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (2, 3), (2,))]

    def run(T):
        x, w, b = (T.tensor(d, requires_grad=r) for d, r in zip(data, which))
        y = fns[T]["LinearFn"].apply(x, w, b)
        y.pow(2).sum().backward()
        return y, x.grad, w.grad, b.grad, y.grad_fn.needs_input_grad
    check_both(run, torch_oracle)


def test_function_without_inputs_requiring_grad_records_nothing(torch_oracle, fns):
    def run(T):
        y = fns[T]["Cube"].apply(T.tensor(A))
        with T.no_grad():
            z = fns[T]["Cube"].apply(T.tensor(A, requires_grad=True))
        return y, z, y.grad_fn is None, z.grad_fn is None
    check_both(run, torch_oracle)


def test_mark_non_differentiable(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        values, idx = fns[T]["MaxAndArg"].apply(x)
        (values * T.tensor([1.0, 2.0])).sum().backward()
        return values, idx, idx.requires_grad, x.grad, values.grad_fn.received
    check_both(run, torch_oracle)


def test_unused_output_gets_zeros(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        a, b = fns[T]["TwoOutputs"].apply(x)
        a.sum().backward()
        return x.grad, a.grad_fn.received, a.grad_fn is b.grad_fn
    check_both(run, torch_oracle)


def test_set_materialize_grads_false_passes_none(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        a, b = fns[T]["TwoOutputsNoMaterialize"].apply(x)
        b.sum().backward()
        return x.grad, a.grad_fn.received
    check_both(run, torch_oracle)


def test_mark_dirty(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = x * 1
        v0 = y._version
        z = fns[T]["AddOneInPlace"].apply(y)
        (z * 3).sum().backward()
        return z, z is y, y.grad_fn.name(), y._version - v0, x.grad
    check_both(run, torch_oracle)


def test_mark_dirty_on_leaf_raises(torch_oracle, fns):
    def run(T):
        fns[T]["AddOneInPlace"].apply(T.tensor(A, requires_grad=True))
    raises_both(run, torch_oracle, "a leaf Variable that requires grad")


def test_forward_returning_its_input(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = fns[T]["Identity"].apply(x)
        y.sum().backward()
        return y, y is x, x.grad, y.grad_fn.name()
    check_both(run, torch_oracle)


def test_second_derivative_through_custom_backward(torch_oracle, fns):
    def run(T):
        x = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
        (g,) = T.autograd.grad(fns[T]["Cube"].apply(x).sum(), x, create_graph=True)
        (g2,) = T.autograd.grad(g.sum(), x)
        return g, g2
    lg, _ = check_both(run, torch_oracle)
    np.testing.assert_allclose(to_numpy(lg[1]), [6.0, -12.0, 3.0])


def test_custom_function_in_a_larger_graph(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        w = T.tensor(B.T.copy(), requires_grad=True)
        h = fns[T]["MyReLU"].apply(x.mm(w))
        loss = fns[T]["Sigmoid"].apply(h).sum() + fns[T]["Cube"].apply(h).mean()
        loss.backward()
        return loss, x.grad, w.grad, h.grad_fn.next_functions[0][0].name()
    check_both(run, torch_oracle)


def test_broadcast_gradient_is_summed_back(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        fns[T]["BroadcastGrad"].apply(x).sum().backward()
        return x.grad
    check_both(run, torch_oracle)


# ============================================================================ errors
def test_wrong_number_of_gradients(torch_oracle, fns):
    def run(T):
        x, y = T.tensor(A, requires_grad=True), T.tensor(B, requires_grad=True)
        fns[T]["WrongCount"].apply(x, y).sum().backward()
    l_exc, t_exc = raises_both(run, torch_oracle, "returned an incorrect number of gradients \\(expected 2, got 1\\)")
    assert str(l_exc) == str(t_exc)


def test_wrong_gradient_shape(torch_oracle, fns):
    def run(T):
        fns[T]["WrongShape"].apply(T.tensor(A, requires_grad=True)).sum().backward()
    l_exc, t_exc = raises_both(run, torch_oracle, "returned an invalid gradient at index 0 - got \\[3\\] but expected "
                               "shape compatible with \\[2, 3\\]")
    assert str(l_exc) == str(t_exc)


def test_gradient_for_a_non_tensor_argument(torch_oracle, fns):
    def run(T):
        fns[T]["GradForNumber"].apply(T.tensor(A, requires_grad=True), 2.0).sum().backward()
    l_exc, t_exc = raises_both(run, torch_oracle, "returned a gradient different than None at position 2, but the "
                               "corresponding forward input was not a Variable")
    assert str(l_exc) == str(t_exc)


def test_save_for_backward_only_saves_tensors(torch_oracle, fns):
    raises_both(lambda T: fns[T]["SaveNumber"].apply(T.tensor(A, requires_grad=True)), torch_oracle,
                "save_for_backward can only save variables, but argument 0 is of type int")


def test_saved_tensors_are_freed_after_backward(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        y = fns[T]["Cube"].apply(x)
        y.sum().backward()
        y.grad_fn.saved_tensors
    raises_both(run, torch_oracle, "Trying to backward through the graph a second time")


@pytest.mark.filterwarnings("ignore:.*should not be instantiated:DeprecationWarning")
def test_legacy_instance_call_raises(torch_oracle, fns):
    raises_both(lambda T: fns[T]["Cube"]()(T.tensor(A)), torch_oracle,
                "Legacy autograd function with non-static forward method is deprecated")


def test_modified_saved_input_detected(torch_oracle, fns):
    def run(T):
        x = T.tensor(A, requires_grad=True)
        a = x * 1
        y = fns[T]["Cube"].apply(a)
        a.mul_(2)
        y.sum().backward()
    raises_both(run, torch_oracle, "modified by an inplace operation")


# ============================================================================ gradcheck
CHECKED = [
    pytest.param(lambda T, f, x: f["Cube"].apply(x), id="cube"),
    pytest.param(lambda T, f, x: f["Sigmoid"].apply(x), id="sigmoid"),
    pytest.param(lambda T, f, x: f["MyReLU"].apply(x + 0.05 * x.sign()), id="relu-away-from-0"),
    pytest.param(lambda T, f, x: f["Scale"].apply(x, -1.5, "s"), id="scale-non-tensor-args"),
    pytest.param(lambda T, f, x: f["TwoOutputs"].apply(x), id="two-outputs"),
    pytest.param(lambda T, f, x: (x * x.sin()).sum(1), id="builtin-mul-sin-sum"),
    pytest.param(lambda T, f, x: x.mm(x.t()).logsumexp(0), id="builtin-mm-logsumexp"),
    pytest.param(lambda T, f, x: T.nn.functional.normalize(x, dim=1), id="builtin-normalize"),
    pytest.param(lambda T, f, x: x[[1, 0, 1]].std(1), id="builtin-index-std"),
]


@pytest.mark.parametrize("fn", CHECKED)
def test_gradcheck_passes_for_a_correct_backward(torch_oracle, fns, fn):
    for T in (lt, torch_oracle):
        x = T.tensor(A64, requires_grad=True)
        assert T.autograd.gradcheck(lambda t: fn(T, fns[T], t), (x,), eps=1e-6, atol=1e-5)


def test_gradgradcheck_passes(torch_oracle, fns):
    for T in (lt, torch_oracle):
        x = T.tensor(A64, requires_grad=True)
        assert T.autograd.gradgradcheck(lambda t: fns[T]["Cube"].apply(t), (x,))
        assert T.autograd.gradgradcheck(lambda t: (t.tanh() * t).sum(), (x,))


def test_gradcheck_fails_for_a_wrong_backward(torch_oracle, fns):
    def run(T):
        T.autograd.gradcheck(fns[T]["WrongBackward"].apply, (T.tensor(A64, requires_grad=True),))
    raises_both(run, torch_oracle, "Jacobian mismatch for output 0 with respect to input 0")
    for T in (lt, torch_oracle):
        assert T.autograd.gradcheck(fns[T]["WrongBackward"].apply, (T.tensor(A64, requires_grad=True),),
                                    raise_exception=False) is False


def test_gradcheck_error_is_a_runtime_error(torch_oracle, fns):
    from learntorch.autograd.gradcheck import GradcheckError
    assert issubclass(GradcheckError, RuntimeError)
    with pytest.raises(GradcheckError):
        lt.autograd.gradcheck(fns[lt]["WrongBackward"].apply, (lt.tensor(A64, requires_grad=True),))


def test_gradcheck_needs_an_input_requiring_grad(torch_oracle, fns):
    raises_both(lambda T: T.autograd.gradcheck(T.sin, (T.tensor(A64),)), torch_oracle,
                "gradcheck expects at least one input tensor to require gradient")


def _gradcheck_warnings(run):
    """``run()``'s result and the messages of the UserWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run()
    return result, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_gradcheck_warns_on_float32_and_goes_on(torch_oracle):
    """float32 is too coarse for finite differences (the module docstring says why): both
    libraries warn about each such input, then check anyway -- with a larger eps and
    tolerances a float32 check can pass."""
    for T in (lt, torch_oracle):
        x = T.tensor(A, requires_grad=True)
        ok, messages = _gradcheck_warnings(
            lambda: T.autograd.gradcheck(T.exp, (x,), eps=1e-3, atol=1e-2, rtol=1e-2, raise_exception=False))
        assert ok is True, T.__name__
        assert any(m.startswith("Input #0 requires gradient and is not a double precision floating point or "
                                "complex.") for m in messages), (T.__name__, messages)


def test_gradcheck_float32_at_the_default_eps_fails_in_both(torch_oracle):
    """With eps = 1e-6 the float32 rounding error swamps the step: a right backward fails."""
    def run(T):
        T.autograd.gradcheck(lambda t: (t * t.sin()).sum(1), (T.tensor(A, requires_grad=True),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        raises_both(run, torch_oracle, "Jacobian mismatch for output 0 with respect to input 0")


def test_gradcheck_accepts_non_leaf_inputs_and_leaves_them_alone(torch_oracle):
    for T in (lt, torch_oracle):
        base = T.tensor(A64, requires_grad=True)
        y = base * 2  # a non-leaf float64 input
        before = to_numpy(y).copy()
        assert T.autograd.gradcheck(T.exp, (y,)), T.__name__
        assert T.autograd.gradgradcheck(lambda t: (t * t.sin()).sum(), (y,)), T.__name__
        np.testing.assert_array_equal(to_numpy(y), before)
        assert base.grad is None
