"""A GRU or LSTM layer's direction as one operation (``ops/rnn_layer.py``).

The whole-layer operation must be the step-by-step layer (a fused cell per step,
``nn/modules/rnn.py``'s ``_run_direction``) in everything but speed: the same outputs
and final states, the same gradients for every input (float64, to rounding), for
packed batches whose sequences end at different steps, in both directions, with and
without biases; differentiable twice (``create_graph=True``); one node per layer and
direction; and PyTorch's error when a saved weight is changed in place before backward.
"""
from __future__ import annotations

import pytest

import learntorch as lt
from learntorch.nn.modules.rnn import _CELLS, _run_direction, _run_layer


H, IN = 3, 2


def _inputs(mode: str, sizes: list, bias: bool) -> tuple:
    lt.manual_seed(0)
    gates = 4 if mode == "LSTM" else 3
    g = dict(dtype=lt.float64, requires_grad=True)
    x = lt.randn(sum(sizes), IN, **g)
    weights = {"weight_ih": lt.randn(gates * H, IN, **g), "weight_hh": lt.randn(gates * H, H, **g)}
    if bias:
        weights.update(bias_ih=lt.randn(gates * H, **g), bias_hh=lt.randn(gates * H, **g))
    state = (lt.randn(sizes[0], H, **g),) + ((lt.randn(sizes[0], H, **g),) if mode == "LSTM" else ())
    return x, weights, state


def _loss(out, final, seed: int = 1):
    lt.manual_seed(seed)
    total = (out * lt.randn(*out.shape, dtype=out.dtype)).sum()
    for s in final:
        total = total + (s * lt.randn(*s.shape, dtype=s.dtype)).sum()
    return total


@pytest.mark.parametrize("mode", ["GRU", "LSTM"])
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("sizes", [[4, 4, 4], [5, 3, 3, 2, 1], [2, 2, 1]], ids=["padded", "packed", "short"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_whole_layer_is_the_step_by_step_layer(mode, reverse, sizes, bias):
    results = []
    for whole in (True, False):
        x, weights, state = _inputs(mode, sizes, bias)
        if whole:
            out, final = _run_layer(x, sizes, state, weights, reverse=reverse, padded=False)
        else:
            steps, final = _run_direction(_CELLS[mode], x, sizes, state, weights, H, reverse=reverse)
            out = lt.cat(steps, 0)
        _loss(out, final).backward()
        leaves = [x, *weights.values(), *state]
        results.append([out.detach(), *(f.detach() for f in final), *(t.grad for t in leaves)])
    assert len(results[0]) == len(results[1])
    for a, b in zip(*results):
        lt.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["GRU", "LSTM"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_layers_differentiable_twice(mode, bidirectional):
    lt.manual_seed(0)
    layer = getattr(lt.nn, mode)(IN, H, bidirectional=bidirectional).double()
    x = lt.randn(3, 2, IN, dtype=lt.float64, requires_grad=True)

    def f(x):
        out, hidden = layer(lt.nn.utils.rnn.pack_padded_sequence(x, [3, 2]))
        hidden = hidden if isinstance(hidden, tuple) else (hidden,)
        return (out.data ** 2).sum() + sum((h ** 3).sum() for h in hidden)
    assert lt.autograd.gradcheck(f, (x,))
    assert lt.autograd.gradgradcheck(f, (x,))


def test_one_node_per_layer_and_direction():
    """A 2-layer bidirectional LSTM over 20 steps: the backward graph holds one node per
    layer and direction, not one per step."""
    lt.manual_seed(0)
    layer = lt.nn.LSTM(IN, H, num_layers=2, bidirectional=True)
    out, _ = layer(lt.randn(20, 2, IN))
    seen, todo = set(), [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(n for n, _ in node.next_functions)
    names = [n.name() for n in seen]
    assert names.count("MkldnnRnnLayerBackward0") == 4
    assert len(names) < 40


def test_changing_a_saved_weight_in_place_is_refused(torch_oracle):
    def run(T):
        T.manual_seed(0)
        layer = T.nn.GRU(IN, H)
        out, _ = layer(T.randn(4, 2, IN))
        with T.no_grad():
            layer.weight_hh_l0.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    run(lt)
    run(torch_oracle)
