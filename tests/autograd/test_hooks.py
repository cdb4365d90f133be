"""Chapter 04 (hooks): details the chapter shows, against PyTorch 2.13.

Beyond tests/autograd/test_gradients.py (tensor hooks) and tests/nn/test_module_hooks.py (module
hooks): a hook's return value checked for type and dtype, an in-place change in a
hook leaking through a shared gradient or refused on an expanded one, ``f"{t}"`` of
a 0-d tensor, and the warnings of module hooks: the deprecated
``register_backward_hook`` warns when the module is called (not when registered),
and a full backward hook whose inputs need no grad warns when it fires.
"""
from __future__ import annotations

import warnings

import pytest

from conftest import raises_both

pytestmark = pytest.mark.torch


# ============================================================================ tensor hooks
@pytest.mark.parametrize("hook, exc, match", [
    (lambda g: 5, TypeError, "^expected Variable, but hook returned 'int'$"),
    (lambda g: g.double(), RuntimeError,
     r"^hook '<lambda>' has changed the type of value \(was torch.FloatTensor got torch.DoubleTensor\)$"),
], ids=["not-a-tensor", "other-dtype"])
def test_hook_result_is_checked(torch_oracle, hook, exc, match):
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(hook)
        (y * 1).sum().backward()
    l_exc, _ = raises_both(run, torch_oracle, match)
    assert isinstance(l_exc, exc)


def test_in_place_change_in_a_hook_leaks_through_add(torch_oracle):
    """AddBackward0 hands one gradient object to both inputs (the chapter's warning example)."""
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = T.tensor([3.0, 4.0], requires_grad=True)

        def bad(grad):
            grad += 100
        x.register_hook(bad)
        v = T.tensor([1.0, 1.0])
        (x + y).backward(v)
        return x.grad.tolist(), y.grad.tolist(), v.tolist()
    assert run(__import__("learntorch")) == run(torch_oracle) == ([101.0] * 2, [101.0] * 2, [101.0] * 2)


def test_in_place_on_an_expanded_tensor_raises(torch_oracle):
    raises_both(lambda T: T.ones(3).expand(2, 3).add_(1), torch_oracle,
                "more than one element of the written-to tensor refers to a single memory location")


def test_format_of_a_0d_tensor_is_its_number(torch_oracle):
    import learntorch as lt
    for T in (lt, torch_oracle):
        assert f"{T.tensor(30.0)}" == "30.0"
        assert f"{T.tensor(2.5, requires_grad=True):.2f}" == "2.50"
        assert f"{T.tensor([1.0, 2.0])}" == "tensor([1., 2.])"


# ============================================================================ module hooks
def _affine(T):
    class Affine(T.nn.Module):
        def forward(self, x):
            return x * 2 + 1
    return Affine()


def test_deprecated_backward_hook_warns_at_call_and_sees_the_last_operation(torch_oracle):
    """Correction 8: register_backward_hook is deprecated; its grad_input is the last op's."""
    import learntorch as lt
    results = []
    for T in (lt, torch_oracle):
        seen = []
        m = _affine(T)
        with warnings.catch_warnings(record=True) as at_register:
            warnings.simplefilter("always")
            m.register_backward_hook(lambda mod, gi, go: seen.append(
                [None if g is None else g.tolist() for g in gi]))
        x = T.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as at_call:
            warnings.simplefilter("always")
            y = m(x)
        y.backward(T.tensor([1.0, 10.0]))
        results.append(([str(w.message) for w in at_register],
                        [(w.category, str(w.message)) for w in at_call], seen, x.grad.tolist()))
    assert results[0] == results[1]
    assert results[0][0] == [] and results[0][1][0][0] is FutureWarning
    assert results[0][2] == [[[1.0, 10.0], None]] and results[0][3] == [2.0, 20.0]


def test_full_backward_hook_without_input_grad_warns(torch_oracle):
    import learntorch as lt
    results = []
    for T in (lt, torch_oracle):
        T.manual_seed(0)
        layer = T.nn.Linear(3, 2)
        seen = []
        layer.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, [tuple(g.shape) for g in go])))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(T.ones(4, 3)).sum().backward()
        results.append(([(w.category, str(w.message)) for w in caught], seen))
    assert results[0] == results[1]
    assert results[0][1] == [((None,), [(4, 2)])] and results[0][0][0][0] is UserWarning


@pytest.mark.parametrize("kind", ["post-two", "pre-two", "post-list", "post-int"])
def test_a_node_hook_must_return_a_tuple_of_the_right_length(torch_oracle, kind):
    def run(T):
        a = T.tensor([1.0, 2.0], requires_grad=True)
        d = a.exp()
        if kind == "post-two":
            d.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
        elif kind == "pre-two":
            d.grad_fn.register_prehook(lambda go: (go[0], go[0]))
        elif kind == "post-list":
            d.grad_fn.register_hook(lambda gi, go: [gi[0] * 0])
        else:
            d.grad_fn.register_hook(lambda gi, go: 5)
        d.sum().backward()
    raises_both(run, torch_oracle, match="hook")
