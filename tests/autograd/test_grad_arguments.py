"""``torch.autograd.grad``'s and ``backward``'s arguments: ``only_inputs`` (deprecated, ignored;
False warns with PyTorch's FutureWarning) in its position, ``is_grads_batched``, ``materialize_grads``,
how many gradients are given and of what type, and ``backward(inputs=...)``."""
from __future__ import annotations

import warnings

import pytest

import learntorch as lt
from conftest import assert_same, check_both, raises_both


def _grads(T, **kw):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return T.autograd.grad((x * x).sum(), x, **kw)


def test_only_inputs_true_is_silent(torch_oracle):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(_grads(lt, only_inputs=True), _grads(torch_oracle, only_inputs=True))


def test_only_inputs_false_warns_like_torch(torch_oracle):
    got = []
    for T in (torch_oracle, lt):
        with pytest.warns(FutureWarning, match="only_inputs argument is deprecated and is ignored now") as rec:
            got.append(_grads(T, only_inputs=False))
        assert rec[0].filename == __file__  # stacklevel: the warning points at the caller
    assert_same(got[1], got[0])


def test_positional_order_matches_torch(torch_oracle):
    """outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, allow_unused."""
    def fn(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        unused = T.tensor([1.0], requires_grad=True)
        return T.autograd.grad((x * 3).sum(), [x, unused], None, None, False, True, True)
    assert_same(fn(lt), fn(torch_oracle))


def _batched(T, **kw):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    z = T.tensor(3.0, requires_grad=True)
    y = x ** 2 * z
    return T.autograd.grad(y, (x, z), T.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), is_grads_batched=True, **kw)


def test_is_grads_batched_gives_one_vjp_per_row(torch_oracle):
    """Each row of grad_outputs is one vector: the rows of the Jacobian, here."""
    assert_same(_batched(lt), _batched(torch_oracle))


def test_is_grads_batched_with_create_graph_stays_differentiable(torch_oracle):
    def fn(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        (jac,) = T.autograd.grad(x ** 3, x, T.eye(2), is_grads_batched=True, create_graph=True)
        jac.trace().backward()
        return x.grad
    assert_same(fn(lt), fn(torch_oracle))


@pytest.mark.parametrize("kw", [dict(allow_unused=True), dict(materialize_grads=True)])
def test_is_grads_batched_with_an_unused_input(torch_oracle, kw):
    def fn(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        unused = T.tensor(3.0, requires_grad=True)
        return T.autograd.grad(x ** 2, (x, unused), T.eye(2), is_grads_batched=True, **kw)
    assert_same(fn(lt), fn(torch_oracle))


def test_is_grads_batched_frees_the_graph_unless_retained(torch_oracle):
    for T in (lt, torch_oracle):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x ** 2
        T.autograd.grad(y, x, T.eye(2), is_grads_batched=True)
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            T.autograd.grad(y, x, T.eye(2), is_grads_batched=True)


def _batched_without_a_batch(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    return T.autograd.grad(x ** 2, x, T.ones(2), is_grads_batched=True)


def test_is_grads_batched_needs_a_batch_dimension(torch_oracle):
    raises_both(_batched_without_a_batch, torch_oracle, match="we interpret the first dimension of each grad_output")


def test_materialize_grads_refuses_allow_unused_false(torch_oracle):
    raises_both(lambda T: _grads(T, materialize_grads=True, allow_unused=False), torch_oracle,
                match="Expected allow_unused to be True or not passed when materialize_grads=True")


def _two_outputs_one_gradient(T, fn_name):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    if fn_name == "grad":
        return T.autograd.grad([x * 2, x * 3], x, grad_outputs=[T.ones(2)])
    return T.autograd.backward([x * 2, x * 3], [T.ones(2)])


@pytest.mark.parametrize("fn_name", ["grad", "backward"])
def test_as_many_gradients_as_outputs(torch_oracle, fn_name):
    raises_both(lambda T: _two_outputs_one_gradient(T, fn_name), torch_oracle, match="got 2 tensors and 1 gradients")


@pytest.mark.parametrize("fn_name", ["grad", "backward"])
def test_extra_gradients_are_ignored(torch_oracle, fn_name):
    """PyTorch pairs outputs and gradients with ``zip``: one gradient too many is not an error."""
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        if fn_name == "grad":
            return T.autograd.grad([x * 2], x, grad_outputs=[T.ones(2), T.ones(3)])
        T.autograd.backward([x * 2], [T.ones(2), T.ones(3)])
        return x.grad
    check_both(run, torch_oracle)


def test_a_gradient_must_be_a_tensor(torch_oracle):
    raises_both(lambda T: (T.ones(2, requires_grad=True) * 2).backward([1.0, 2.0]), torch_oracle,
                match="gradients can be either Tensors or None, but got float")


def test_backward_inputs_may_be_non_leaves(torch_oracle):
    """``backward(inputs=[b])`` fills ``b.grad`` for a non-leaf ``b`` (it retains its grad)."""
    def fn(T):
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = a * 3
        c = b * b
        c.sum().backward(inputs=[b, a])
        return b.grad, b.retains_grad, a.grad
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "non-leaf .grad" warning: it was asked for
        assert_same(fn(lt), fn(torch_oracle))


def test_backward_inputs_must_require_grad(torch_oracle):
    raises_both(lambda T: (T.ones(2, requires_grad=True) * 2).sum().backward(inputs=[T.ones(2)]), torch_oracle,
                match="can't retain_grad on Tensor that has requires_grad=False")
