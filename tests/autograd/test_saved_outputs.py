"""A node that saves its own result (``exp``, ``tanh``, ``sigmoid``, ``relu``, softmax …)
keeps it without a reference cycle, as PyTorch does: the array and version counter, and a
weak reference to the node (``autograd/function.py``, ``_SavedOutput``).

Why it matters: result → grad_fn → saved result → result is a cycle that only Python's
cyclic garbage collector frees, so every such result's memory used to stay allocated
until a collection (a recorded relu on 256 × 512 was five times slower than an
unrecorded one, as each call needed fresh memory)."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import learntorch as lt

A = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)

SAVES_RESULT = {
    "exp": lambda x: x.exp(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "relu": lambda x: x.relu(),
    "softmax": lambda x: x.softmax(1),
    "log_softmax": lambda x: x.log_softmax(1),
    "sqrt": lambda x: x.abs().sqrt(),
    "pow_tensor": lambda x: x.abs() ** x,
}


@pytest.mark.parametrize("name", sorted(SAVES_RESULT))
def test_a_result_is_freed_without_the_cycle_collector(name: str) -> None:
    x = lt.tensor(A, requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        y = SAVES_RESULT[name](x)
        node, result = weakref.ref(y.grad_fn), weakref.ref(y)
        del y
        assert result() is None and node() is None, "freed by reference counting alone"
    finally:
        gc.enable()


def test_saved_result_equals_the_result_but_is_not_it(torch_oracle) -> None:
    """PyTorch's documented behaviour ("Saved tensors" in autograd mechanics)."""
    for T in (lt, torch_oracle):
        x = T.tensor(A, requires_grad=True)
        y = x.exp()
        saved = y.grad_fn._saved_result
        assert saved is not y and saved.equal(y)
        assert saved.grad_fn is y.grad_fn and saved.requires_grad
        z = x.pow(2)
        assert z.grad_fn._saved_self is x  # an input is kept as it is


def test_changing_a_saved_result_in_place_is_still_caught(torch_oracle) -> None:
    messages = []
    for T in (lt, torch_oracle):
        x = T.tensor(A, requires_grad=True)
        y = x.tanh()
        y.add_(1)
        with pytest.raises(RuntimeError) as err:
            y.sum().backward()
        messages.append(str(err.value).split("Hint")[0])
    assert messages[0] == messages[1]


def test_results_are_differentiated_twice_through_their_saved_copy(torch_oracle) -> None:
    out = []
    for T in (lt, torch_oracle):
        x = T.tensor(A, requires_grad=True)
        y = x.tanh() * x.sigmoid()
        (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        out.append(gg.detach().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)


def test_hooks_on_a_raw_saved_result(torch_oracle) -> None:
    for T in (lt, torch_oracle):
        x = T.tensor(A, requires_grad=True)
        y = x.exp()
        packed = []
        y.grad_fn._raw_saved_result.register_hooks(lambda t: packed.append(t) or t * 1, lambda t: t * 2)
        y.sum().backward()
        assert len(packed) == 1 and packed[0].equal(y)
        np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(A), rtol=1e-6)
