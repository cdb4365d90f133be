"""``torch.utils.checkpoint`` and ``torch.autograd.graph.register_multi_grad_hook`` against PyTorch 2.13.

Checkpointing must not change the numbers: the same outputs and the same gradients
(inputs and parameters) as PyTorch, for both variants (``use_reentrant=True``: a custom
Function with a backward inside the backward; ``False``: saved-tensor hooks), with
dropout inside (the recomputation must draw the same mask), for ``checkpoint_sequential``,
and the same warnings and errors.  The multi-grad hook must fire as often, with the
same gradients, as PyTorch's.
"""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, raises_both, to_numpy

pytestmark = pytest.mark.torch

rng = np.random.default_rng(1717)
W1 = rng.standard_normal((5, 4)).astype(np.float32)
W2 = rng.standard_normal((3, 5)).astype(np.float32)
XS = rng.standard_normal((6, 4)).astype(np.float32)


def C(T):
    return importlib.import_module(T.__name__ + ".utils.checkpoint")


def model(T, p_drop=0.5):
    """Linear → tanh → dropout → Linear → relu, with fixed weights."""
    l1, l2 = T.nn.Linear(4, 5), T.nn.Linear(5, 3)
    with T.no_grad():
        l1.weight.copy_(T.tensor(W1))
        l2.weight.copy_(T.tensor(W2))
        l1.bias.zero_()
        l2.bias.fill_(0.1)
    return T.nn.Sequential(l1, T.nn.Tanh(), T.nn.Dropout(p_drop), l2, T.nn.ReLU())


def train_step(T, run, p_drop=0.0):
    """Forward with ``run(seq, x)``, move the generator on, backward; outputs and every gradient."""
    T.manual_seed(0)
    seq = model(T, p_drop)
    x = T.tensor(XS, requires_grad=True)
    y = run(seq, x)
    T.manual_seed(99)  # the generator moves on between forward and backward
    (y * y).sum().backward()
    return [y.detach(), x.grad] + [p.grad for p in seq.parameters()]


VARIANTS = [True, False]


@pytest.mark.parametrize("reentrant", VARIANTS, ids=["reentrant", "non-reentrant"])
def test_checkpoint_gives_torchs_outputs_and_gradients(torch_oracle, reentrant):
    check_both(lambda T: train_step(T, lambda seq, x: C(T).checkpoint(seq, x, use_reentrant=reentrant)),
               torch_oracle, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reentrant", VARIANTS, ids=["reentrant", "non-reentrant"])
def test_checkpoint_replays_the_dropout_mask(reentrant):
    """With dropout, the checkpointed gradients equal the plain ones (same seed): the
    recomputation restored the generator's state, so it drew the same mask."""
    plain = train_step(lt, lambda seq, x: seq(x), p_drop=0.5)
    ckpt = train_step(lt, lambda seq, x: C(lt).checkpoint(seq, x, use_reentrant=reentrant), p_drop=0.5)
    for a, b in zip(plain, ckpt):
        np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=1e-6, atol=1e-6)
    # ... and backward leaves the generator where the program left it, not where the replay did
    seq, x = model(lt, 0.5), lt.tensor(XS, requires_grad=True)
    y = C(lt).checkpoint(seq, x, use_reentrant=reentrant)
    after_forward = to_numpy(lt.get_rng_state()).copy()
    y.sum().backward()
    np.testing.assert_array_equal(to_numpy(lt.get_rng_state()), after_forward)


@pytest.mark.parametrize("reentrant", VARIANTS, ids=["reentrant", "non-reentrant"])
def test_checkpoint_with_dropout_matches_torch(torch_oracle, reentrant):
    check_both(lambda T: train_step(T, lambda seq, x: C(T).checkpoint(seq, x, use_reentrant=reentrant),
                                    p_drop=0.5), torch_oracle, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reentrant", VARIANTS, ids=["reentrant", "non-reentrant"])
def test_checkpoint_sequential(torch_oracle, reentrant):
    check_both(lambda T: train_step(T, lambda seq, x: C(T).checkpoint_sequential(seq, 2, x,
                                                                                  use_reentrant=reentrant)),
               torch_oracle, rtol=1e-5, atol=1e-5)
    check_both(lambda T: train_step(T, lambda seq, x: C(T).checkpoint_sequential(list(seq), 3, x,
                                                                                  use_reentrant=reentrant)),
               torch_oracle, rtol=1e-5, atol=1e-5)


def test_non_reentrant_works_with_autograd_grad_and_kwargs(torch_oracle):
    def run(T):
        a = T.tensor(XS[0], requires_grad=True)
        b = T.tensor(XS[1], requires_grad=True)
        y = C(T).checkpoint(lambda u, scale=1.0: (u.exp() * b * scale).sum(), a, scale=2.0, use_reentrant=False)
        return y, T.autograd.grad(y, (a, b))
    check_both(run, torch_oracle, rtol=1e-5, atol=1e-5)


def test_several_outputs_and_a_non_tensor_argument(torch_oracle):
    def run(T):
        a = T.tensor(XS[0], requires_grad=True)
        outs = C(T).checkpoint(lambda u, k: (u * k, (u * u).sum()), a, 3.0, use_reentrant=True)
        (outs[0].sum() + outs[1]).backward()
        return outs[0].detach(), a.grad
    check_both(run, torch_oracle)


def _reentrant_then(T, differentiate):
    """A reentrant checkpoint, then ``differentiate(output, input)``: its inner backward fills
    every ``.grad``, so PyTorch refuses a pass limited to some inputs."""
    x = T.ones(2, requires_grad=True)
    out = C(T).checkpoint(lambda u: u * 3, x, use_reentrant=True).sum()
    return differentiate(out, x)


def _warnings_of(run):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return [(w.category.__name__, str(w.message)) for w in caught if "use_reentrant" in str(w.message)
            or "requires_grad=True" in str(w.message)]


@pytest.mark.parametrize("call", [
    lambda T: C(T).checkpoint(lambda u: u * 2, T.ones(2, requires_grad=True)),
    lambda T: C(T).checkpoint_sequential([lambda u: u * 2, lambda u: u + 1], 2, T.ones(2, requires_grad=True)),
    lambda T: C(T).checkpoint(lambda u: u * 2, T.ones(2), use_reentrant=True),
], ids=["checkpoint-no-use_reentrant", "sequential-no-use_reentrant", "no-input-requires-grad"])
def test_the_same_warnings(torch_oracle, call):
    expected = _warnings_of(lambda: call(torch_oracle))
    assert expected and _warnings_of(lambda: call(lt)) == expected


@pytest.mark.parametrize("call, exc, match", [
    (lambda T: C(T).checkpoint(lambda u, k=1: u * k, T.ones(2, requires_grad=True), k=2, use_reentrant=True),
     ValueError, r"^Unexpected keyword arguments: k$"),
    (lambda T: C(T).checkpoint_sequential([lambda u: u], 1, T.ones(2), use_reentrant=True, k=2),
     ValueError, r"^Unexpected keyword arguments: k$"),
    (lambda T: C(T).checkpoint(lambda u: u, T.ones(2), use_reentrant=True, debug=True),
     ValueError, r"only supported when use_reentrant=False"),
    (lambda T: _reentrant_then(T, lambda out, x: T.autograd.grad(out, x)),
     RuntimeError, r"^When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad\(\)"),
    (lambda T: _reentrant_then(T, lambda out, x: out.backward(inputs=[x])),
     RuntimeError, r"or passing an `inputs` parameter to .backward\(\)"),
], ids=["kwargs-reentrant", "sequential-kwargs", "debug-reentrant", "reentrant-autograd-grad",
        "reentrant-backward-inputs"])
def test_the_same_errors(torch_oracle, call, exc, match):
    l_exc, _ = raises_both(call, torch_oracle, match)
    assert isinstance(l_exc, exc)


def test_no_grad_around_non_reentrant_just_runs(torch_oracle):
    def run(T):
        with T.no_grad():
            return C(T).checkpoint(lambda u: u.exp(), T.tensor(XS[0], requires_grad=True), use_reentrant=False)
    check_both(run, torch_oracle)


# ============================================================================ register_multi_grad_hook
def G(T):
    return importlib.import_module(T.__name__ + ".autograd.graph")


def _grads_record(grads):
    return [None if g is None else g.tolist() for g in grads]


def test_multi_grad_hook_all_and_any(torch_oracle):
    def run(T):
        log = []
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([3.0], requires_grad=True)
        c = a * 2
        h_all = G(T).register_multi_grad_hook(
            (a, b, c), lambda grads: log.append(("all", type(grads).__name__, _grads_record(grads))))
        h_any = G(T).register_multi_grad_hook((a, b, c), lambda g: log.append(("any", g.tolist())), mode="any")
        (c.sum() * b).sum().backward(retain_graph=True)  # once per backward pass...
        (c.sum() * b * 2).sum().backward(retain_graph=True)
        h_all.remove()
        h_any.remove()
        (c.sum() * b).sum().backward()  # ... and never after remove()
        return log
    check_both(run, torch_oracle)


def test_multi_grad_hook_bad_mode(torch_oracle):
    raises_both(lambda T: G(T).register_multi_grad_hook((T.ones(1, requires_grad=True),), print, mode="some"),
                torch_oracle, r"^Expects mode to be one of \('all', 'any'\) but got some$")


def test_multi_grad_hook_all_skips_a_tensor_the_pass_does_not_reach(torch_oracle):
    """A pass that does not reach ``b`` calls the hook with None for it (PyTorch asks its engine
    which nodes will run; learntorch's engine answers ``GraphTask.will_execute``)."""
    def run(T):
        log = []
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([3.0], requires_grad=True)
        c = a * 2
        G(T).register_multi_grad_hook((a, b, c), lambda grads: log.append(_grads_record(grads)))
        c.sum().backward()
        return log
    check_both(run, torch_oracle)
