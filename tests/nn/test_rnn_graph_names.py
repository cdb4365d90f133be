"""The ``grad_fn`` a user sees on the results of the recurrent layers, their cells and
``pad_packed_sequence``: the same node names as PyTorch's CPU build (StackBackward0,
CatBackward0, TransposeBackward1, MkldnnRnnLayerBackward0, the cells' AddBackward0 and
MulBackward0, CopySlices ...), checked against the oracle case by case."""
from __future__ import annotations

import warnings

import pytest

import learntorch as lt


def _names(tensors) -> list:
    return [None if t.grad_fn is None else t.grad_fn.name() for t in tensors]


def _flat(result) -> list:
    out, hidden = result
    return [out, *(hidden if isinstance(hidden, tuple) else (hidden,))]


def _layer_names(T, mode, dtype=None, unbatched=False, with_hx=False, **kwargs) -> list:
    T.manual_seed(0)
    layer = getattr(T.nn, mode)(3, 4, **kwargs)
    x = T.randn(5, 3) if unbatched else T.randn(5, 2, 3)
    hx = None
    if with_hx:
        layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
        shape = (layers, 4) if unbatched else (layers, 5 if kwargs.get("batch_first") else 2, 4)
        hx = T.randn(*shape, requires_grad=True)
        hx = (hx, T.randn(*shape)) if mode == "LSTM" else hx
    if dtype is not None:
        layer, x = layer.to(getattr(T, dtype)), x.to(getattr(T, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch: "LSTM with projections is not supported with oneDNN"
        return _names(_flat(layer(x, hx)))


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True}, {"bidirectional": True},
                                    {"num_layers": 2, "dropout": 0.5}, {"batch_first": True, "bidirectional": True}],
                         ids=["time-major", "batch-first", "bidir", "2-layers-dropout", "batch-first-bidir"])
def test_layer_output_and_state_names(torch_oracle, mode, kwargs):
    assert _layer_names(lt, mode, **kwargs) == _layer_names(torch_oracle, mode, **kwargs)


@pytest.mark.parametrize("case", [
    dict(mode="LSTM", dtype="float64"), dict(mode="LSTM", dtype="float64", batch_first=True),
    dict(mode="LSTM", proj_size=2), dict(mode="LSTM", proj_size=2, batch_first=True),
    dict(mode="GRU", unbatched=True), dict(mode="LSTM", unbatched=True, with_hx=True),
    dict(mode="RNN", with_hx=True, batch_first=True), dict(mode="LSTM", with_hx=True)],
    ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_layer_names_in_other_settings(torch_oracle, case):
    """oneDNN's one-node layer only for float32 LSTMs without projection; a stack otherwise."""
    assert _layer_names(lt, **case) == _layer_names(torch_oracle, **case)


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_layer_names(torch_oracle, mode, enforce_sorted):
    def run(T):
        T.manual_seed(0)
        layer = getattr(T.nn, mode)(3, 4)
        lengths = [4, 3, 2] if enforce_sorted else [2, 4, 3]
        packed = T.nn.utils.rnn.pack_padded_sequence(T.randn(4, 3, 3), lengths, enforce_sorted=enforce_sorted)
        out, hidden = layer(packed)
        return _names([out.data, *(hidden if isinstance(hidden, tuple) else (hidden,))])
    assert run(lt) == run(torch_oracle)


@pytest.mark.parametrize("cell", ["RNNCell", "GRUCell", "LSTMCell"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_cell_names(torch_oracle, cell, batched, bias):
    def run(T):
        T.manual_seed(0)
        result = getattr(T.nn, cell)(3, 4, bias=bias)(T.randn(2, 3) if batched else T.randn(3))
        return _names(result if isinstance(result, tuple) else (result,))
    assert run(lt) == run(torch_oracle)


def test_lstm_cell_gradients_and_double_backward_as_the_fused_step():
    """nn.LSTMCell (its h' a separate mul) gives the fused step's gradients to the last bit,
    and its second derivatives by finite differences."""
    from learntorch.ops.rnn_cells import lstm_cell, lstm_cell_state

    def parts(T_seed):
        lt.manual_seed(T_seed)
        return [lt.randn(3, 8, dtype=lt.float64, requires_grad=True) for _ in range(2)] + \
               [lt.randn(3, 2, dtype=lt.float64, requires_grad=True)]

    def split(gi, gh, c):
        c_new, o, tanh_c = lstm_cell_state(gi, gh, c)
        return o * tanh_c, c_new

    for use in ((1.0, 1.0), (1.0, 0.0), (0.0, 1.0)):
        grads = []
        for fn in (lstm_cell, split):
            inputs = parts(1)
            h, c = fn(*inputs)
            (use[0] * (h * h).sum() + use[1] * (c * c.exp()).sum()).backward()
            grads.append([t.grad for t in inputs])
        for a, b in zip(*grads):
            assert lt.equal(a, b)
    assert lt.autograd.gradgradcheck(split, tuple(parts(2)))


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("total_length", [None, 6])
def test_pad_packed_names(torch_oracle, batch_first, enforce_sorted, total_length):
    def run(T):
        T.manual_seed(0)
        x = T.randn(3, 4, 2, requires_grad=True)
        lengths = [4, 3, 2] if enforce_sorted else [2, 4, 3]
        packed = T.nn.utils.rnn.pack_padded_sequence(x if batch_first else x.transpose(0, 1), lengths,
                                                     batch_first=batch_first, enforce_sorted=enforce_sorted)
        out, _ = T.nn.utils.rnn.pad_packed_sequence(packed, batch_first=batch_first, total_length=total_length)
        return out.grad_fn.name(), out.is_contiguous() if enforce_sorted else None  # (a transpose: a view)
    assert run(lt) == run(torch_oracle)


def test_in_place_transpose_node_prints_its_name(torch_oracle):
    def run(T):
        x = T.randn(2, 3, requires_grad=True) * 1
        return repr(x.transpose_(0, 1).grad_fn).split(" object")[0], x.grad_fn.name()
    assert run(lt) == run(torch_oracle) == ("<TransposeBackward1", "TransposeBackward1")


def test_write_through_a_view_leaves_no_reference_cycle():
    """``p[1] = x`` rewrites ``p``'s history (CopySlices); the node must not hold ``p`` (marked
    dirty) after forward, or ``p -> node -> p`` keeps the graph alive until the collector runs."""
    import gc

    def program():
        x = lt.randn(3, 4, requires_grad=True)
        p = lt.zeros(4, 3)
        p[1] = x[0, :3]
        q = x * 1
        q[0].add_(1)
        packed = lt.nn.utils.rnn.pack_padded_sequence(x.view(3, 2, 2), [3, 2])
        out, _ = lt.nn.utils.rnn.pad_packed_sequence(packed)
        (p.sum() + q.sum() + out.sum()).backward()

    program()  # (first-call imports out of the way)
    # Only learntorch's objects count: under pytest-xdist a worker's I/O thread may leave cyclic
    # garbage of its own at any moment, so "the collector found nothing" would be flaky.
    was_enabled, flags = gc.isenabled(), gc.get_debug()
    gc.disable()
    try:
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)  # the collected objects go to gc.garbage, to be looked at
        gc.garbage.clear()
        program()
        gc.collect()
        leaked = [type(o).__name__ for o in gc.garbage if type(o).__module__.startswith("learntorch")]
        assert leaked == []
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
