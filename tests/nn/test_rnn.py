"""Recurrent layers and packed sequences against real PyTorch (the oracle).

``nn.RNN`` / ``nn.GRU`` / ``nn.LSTM`` (and the one-step cells) must be PyTorch's
layers number for number: the same parameter names and shapes, the same initial
values for the same ``manual_seed``, the same outputs, final states and
gradients (float32, rtol 1e-5, atol 1e-6) for every combination of layers,
directions, ``batch_first``, given or default ``h_0``, and padded or packed
input (sorted or not).  ``nn.utils.rnn``'s packing functions must produce the
same PackedSequence fields and raise PyTorch's errors.  Last, the notes'
``EncoderRNN`` runs unchanged.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import learntorch as lt
from learntorch.nn.utils import rnn as lt_rnn

from conftest import assert_draws_same, assert_same, raises_both, to_numpy

MODES = ["RNN", "GRU", "LSTM"]
IN, HID, STEPS, BATCH = 3, 4, 5, 3
LENGTHS = {"sorted": [5, 3, 2], "unsorted": [3, 5, 2]}


def _utils(T):
    return T.nn.utils.rnn


def _seeded(T, cls_name, *args, **kwargs):
    T.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (dropout with one layer warns, in both)
        return getattr(T.nn, cls_name)(*args, **kwargs)


def _weights_for(shapes, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def _forward_backward(T, mode, layers, bidir, batch_first, x, hs, kind, **kw):
    """Build the layer (seed 0), run it on ``x`` (padded or packed), backpropagate a fixed
    random weighting of every output, and return (outputs, [grads of x, h0…, params…])."""
    m = _seeded(T, mode, IN, HID, num_layers=layers, bidirectional=bidir, batch_first=batch_first, **kw)
    X = T.tensor(x, requires_grad=True)
    H = [T.tensor(h, requires_grad=True) for h in hs]
    hx = None if not H else (tuple(H) if mode == "LSTM" else H[0])
    inp = X if kind == "padded" else _utils(T).pack_padded_sequence(
        X, LENGTHS[kind], batch_first=batch_first, enforce_sorted=kind == "sorted")
    out, hn = m(inp, hx)
    outs = [out] + (list(hn) if mode == "LSTM" else [hn])
    tensors = [o.data if kind != "padded" and i == 0 else o for i, o in enumerate(outs)]
    weights = _weights_for([tuple(t.shape) for t in tensors])
    loss = sum((t * T.tensor(w)).sum() for t, w in zip(tensors, weights))
    loss.backward()
    return outs, [X.grad] + [h.grad for h in H] + [p.grad for p in m.parameters()]


def _inputs(layers, bidir, batch_first, mode, h0, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, STEPS, IN) if batch_first else (STEPS, BATCH, IN)).astype(np.float32)
    nd = 2 if bidir else 1
    hs = [rng.standard_normal((layers * nd, BATCH, HID)).astype(np.float32)
          for _ in range(2 if mode == "LSTM" else 1)] if h0 else []
    return x, hs


# ----------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kwargs", [dict(), dict(num_layers=2, bidirectional=True), dict(bias=False, num_layers=2),
                                    dict(num_layers=3, batch_first=True, dropout=0.2)])
def test_parameters_names_shapes_and_init_identical(torch_oracle, draws_bit_exact, mode, kwargs):
    """Same names, shapes and — with the same seed — the very same numbers as PyTorch (bit for bit
    on the torch build learntorch emulates, to float rounding elsewhere: uniform_(-k, k) is an FMA)."""
    a = _seeded(lt, mode, 10, 20, **kwargs)
    b = _seeded(torch_oracle, mode, 10, 20, **kwargs)
    names_a = [n for n, _ in a.named_parameters()]
    names_b = [n for n, _ in b.named_parameters()]
    assert names_a == names_b
    assert a._flat_weights_names == b._flat_weights_names
    assert a._all_weights == b._all_weights
    for (name, pa), (_, pb) in zip(a.named_parameters(), b.named_parameters()):
        assert tuple(pa.shape) == tuple(pb.shape), name
        assert_draws_same(pa, pb, draws_bit_exact, err_msg=name)
    assert list(a.state_dict()) == list(b.state_dict())
    assert repr(a) == repr(b)
    assert [[tuple(w.shape) for w in ws] for ws in a.all_weights] == \
        [[tuple(w.shape) for w in ws] for ws in b.all_weights]


def test_lstm_projection_parameters_identical(torch_oracle, draws_bit_exact):
    a = _seeded(lt, "LSTM", 6, 5, num_layers=2, bidirectional=True, proj_size=3)
    b = _seeded(torch_oracle, "LSTM", 6, 5, num_layers=2, bidirectional=True, proj_size=3)
    for (na, pa), (nb, pb) in zip(a.named_parameters(), b.named_parameters()):
        assert na == nb and tuple(pa.shape) == tuple(pb.shape)
        assert_draws_same(pa, pb, draws_bit_exact, err_msg=na)


@pytest.mark.parametrize("make", [
    lambda T: T.nn.GRU(10, 20, num_layers=2, bidirectional=True),
    lambda T: T.nn.GRU(10, 20),
    lambda T: T.nn.RNN(3, 4, nonlinearity="relu", batch_first=True),
    lambda T: T.nn.LSTM(3, 4, 2, proj_size=2, bias=False, dropout=0.5),
    lambda T: T.nn.GRUCell(3, 4),
    lambda T: T.nn.RNNCell(3, 4, bias=False, nonlinearity="relu"),
    lambda T: T.nn.LSTMCell(3, 4),
])
def test_repr(torch_oracle, make):
    assert repr(make(lt)) == repr(make(torch_oracle))


# ----------------------------------------------------------------------------- the big matrix
@pytest.mark.parametrize("kind", ["padded", "sorted", "unsorted"])
@pytest.mark.parametrize("h0", [False, True], ids=["no_h0", "h0"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_first", "batch_first"])
@pytest.mark.parametrize("bidir", [False, True], ids=["uni", "bi"])
@pytest.mark.parametrize("layers", [1, 2])
@pytest.mark.parametrize("mode", MODES)
def test_forward_backward_matches_torch(torch_oracle, mode, layers, bidir, batch_first, h0, kind):
    """Outputs, final states, and the gradients of the input, h_0 and every parameter."""
    x, hs = _inputs(layers, bidir, batch_first, mode, h0)
    outs_l, grads_l = _forward_backward(lt, mode, layers, bidir, batch_first, x, hs, kind)
    outs_t, grads_t = _forward_backward(torch_oracle, mode, layers, bidir, batch_first, x, hs, kind)
    assert_same(outs_l, outs_t, check_grad_fn=False)
    assert len(grads_l) == len(grads_t)
    for i, (a, e) in enumerate(zip(grads_l, grads_t)):
        assert_same(a, e, check_grad_fn=False, path=f"grad {i}")
    if kind != "padded":  # the padding was never read: its gradient is exactly zero
        g = to_numpy(grads_l[0])
        for b, n in enumerate(LENGTHS[kind]):
            pad = g[b, n:] if batch_first else g[n:, b]
            assert not pad.any()


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
@pytest.mark.parametrize("kind", ["padded", "unsorted"])
@pytest.mark.parametrize("make", [
    ("RNN", dict(nonlinearity="relu", num_layers=2, bidirectional=True)),
    ("GRU", dict(bias=False, num_layers=2, bidirectional=True)),
    ("LSTM", dict(proj_size=2, num_layers=2, bidirectional=True)),
    ("LSTM", dict(bias=False)),
], ids=["rnn_relu", "gru_nobias", "lstm_proj", "lstm_nobias"])
def test_variants_match_torch(torch_oracle, make, kind):
    mode, kw = make
    kw = dict(kw)
    layers, bidir = kw.pop("num_layers", 1), kw.pop("bidirectional", False)
    x, _ = _inputs(layers, bidir, False, mode, False)
    outs_l, grads_l = _forward_backward(lt, mode, layers, bidir, False, x, [], kind, **kw)
    outs_t, grads_t = _forward_backward(torch_oracle, mode, layers, bidir, False, x, [], kind, **kw)
    assert_same(outs_l, outs_t, check_grad_fn=False)
    assert len(grads_l) == len(grads_t)
    for i, (a, e) in enumerate(zip(grads_l, grads_t)):
        assert_same(a, e, check_grad_fn=False, path=f"grad {i}")


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("h0", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_unbatched_input(torch_oracle, mode, h0, batch_first):
    """(L, H_in) input without a batch dimension; h_0 then (layers·dirs, H)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((STEPS, IN)).astype(np.float32)
    hs = [rng.standard_normal((4, HID)).astype(np.float32) for _ in range(2 if mode == "LSTM" else 1)]

    def run(T):
        m = _seeded(T, mode, IN, HID, num_layers=2, bidirectional=True, batch_first=batch_first)
        hx = None if not h0 else (tuple(T.tensor(h) for h in hs) if mode == "LSTM" else T.tensor(hs[0]))
        out, hn = m(T.tensor(x, requires_grad=True), hx)
        return out, hn
    assert_same(run(lt), run(torch_oracle), check_grad_fn=False)


def test_packed_equals_each_sequence_alone():
    """Packing must not let a sequence see the padding: the packed batch's output and h_n for
    each sequence equal running that sequence on its own."""
    lt.manual_seed(0)
    gru = lt.nn.GRU(IN, HID, num_layers=2, bidirectional=True)
    seqs = [lt.randn(n, IN) for n in (2, 5, 3)]
    packed = lt_rnn.pack_sequence(seqs, enforce_sorted=False)
    out, hn = gru(packed)
    padded, lengths = lt_rnn.pad_packed_sequence(out)
    assert lengths.tolist() == [2, 5, 3]
    for b, s in enumerate(seqs):
        o, h = gru(s)
        np.testing.assert_allclose(to_numpy(padded[:len(s), b]), to_numpy(o), rtol=1e-5, atol=1e-6)
        assert not to_numpy(padded[len(s):, b]).any()
        np.testing.assert_allclose(to_numpy(hn[:, b]), to_numpy(h), rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- dropout
@pytest.mark.parametrize("mode", MODES)
def test_dropout_in_eval_mode_is_no_dropout(mode):
    x = lt.tensor(_inputs(1, False, False, mode, False)[0])
    a = _seeded(lt, mode, IN, HID, num_layers=3, dropout=0.5, bidirectional=True).eval()
    b = _seeded(lt, mode, IN, HID, num_layers=3, dropout=0.0, bidirectional=True)
    oa, ha = a(x)
    ob, hb = b(x)
    np.testing.assert_array_equal(to_numpy(oa), to_numpy(ob))
    np.testing.assert_array_equal(to_numpy(ha[0] if mode == "LSTM" else ha), to_numpy(hb[0] if mode == "LSTM" else hb))
    assert not np.array_equal(to_numpy(a.train()(x)[0]), to_numpy(ob))  # and in training mode it drops


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_dropout_in_training_matches_torch(torch_oracle, mode, packed):
    """Training mode: the dropout masks come from the same generator stream as PyTorch's."""
    x = _inputs(1, False, False, mode, False)[0]

    def run(T):
        m = _seeded(T, mode, IN, HID, num_layers=3, dropout=0.4, bidirectional=True)
        inp = T.tensor(x)
        if packed:
            inp = _utils(T).pack_padded_sequence(inp, LENGTHS["sorted"])
        out, hn = m(inp)
        return out.data if packed else out
    assert_same(run(lt), run(torch_oracle), check_grad_fn=False)


# ----------------------------------------------------------------------------- cells
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_hx", [False, True])
@pytest.mark.parametrize("cell", ["RNNCell", "GRUCell", "LSTMCell"])
def test_cells_match_torch(torch_oracle, cell, with_hx, batched):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((BATCH, IN) if batched else (IN,)).astype(np.float32)
    hs = [rng.standard_normal((BATCH, HID) if batched else (HID,)).astype(np.float32) for _ in range(2)]

    def run(T):
        m = _seeded(T, cell, IN, HID)
        X = T.tensor(x, requires_grad=True)
        H = [T.tensor(h, requires_grad=True) for h in hs]
        hx = None if not with_hx else (tuple(H) if cell == "LSTMCell" else H[0])
        out = m(X, hx)
        outs = list(out) if cell == "LSTMCell" else [out]
        sum((o * T.tensor(w)).sum() for o, w in zip(outs, _weights_for([tuple(o.shape) for o in outs]))).backward()
        return outs, [X.grad] + [p.grad for p in m.parameters()]
    assert_same(run(lt), run(torch_oracle), check_grad_fn=False)


# ----------------------------------------------------------------------------- packing
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [[5, 3, 2], [3, 5, 2], [2, 2, 5, 1]])
def test_pack_pad_round_trip_matches_torch(torch_oracle, lengths, batch_first):
    rng = np.random.default_rng(2)
    n = len(lengths)
    x = rng.standard_normal((n, 5, 2) if batch_first else (5, n, 2)).astype(np.float32)
    enforce = lengths == sorted(lengths, reverse=True)

    def run(T):
        X = T.tensor(x, requires_grad=True)
        p = _utils(T).pack_padded_sequence(X, T.tensor(lengths), batch_first=batch_first, enforce_sorted=enforce)
        padded, lens = _utils(T).pad_packed_sequence(p, batch_first=batch_first, padding_value=-7.0, total_length=6)
        padded.backward(T.tensor(_weights_for([tuple(padded.shape)])[0]))
        return p, padded, lens, X.grad
    (p_l, pad_l, len_l, g_l), (p_t, pad_t, len_t, g_t) = run(lt), run(torch_oracle)
    assert type(p_l).__name__ == "PackedSequence" and p_l._fields == p_t._fields
    assert_same(tuple(p_l), tuple(p_t), check_grad_fn=False)
    assert p_l.data.grad_fn.name() == p_t.data.grad_fn.name() == "PackPaddedSequenceBackward0"
    assert_same([pad_l, len_l, g_l], [pad_t, len_t, g_t], check_grad_fn=False)


def test_pack_sequence_and_unpack(torch_oracle):
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((n, 2)).astype(np.float32) for n in (2, 4, 1)]
    p_l = lt_rnn.pack_sequence([lt.tensor(a) for a in arrays], enforce_sorted=False)
    p_t = _utils(torch_oracle).pack_sequence([torch_oracle.tensor(a) for a in arrays], enforce_sorted=False)
    assert_same(tuple(p_l), tuple(p_t))
    back = lt_rnn.unpack_sequence(p_l)  # the original sequences, in the original order
    assert [tuple(s.shape) for s in back] == [a.shape for a in arrays]
    for s, a in zip(back, arrays):
        np.testing.assert_array_equal(to_numpy(s), a)
    sorted_arrays = sorted(arrays, key=len, reverse=True)
    assert_same(tuple(lt_rnn.pack_sequence([lt.tensor(a) for a in sorted_arrays])),
                tuple(_utils(torch_oracle).pack_sequence([torch_oracle.tensor(a) for a in sorted_arrays])))


@pytest.mark.parametrize("make, kwargs", [
    (lambda T: [T.tensor([1, 2]), T.tensor([1.5])], {}),  # the first sequence's dtype: 1.5 is cast to 1
    (lambda T: [T.tensor([1.5]), T.tensor([1, 2])], {"batch_first": True}),
    (lambda T: [T.ones(2, 3), T.full((1, 1), 2.0)], {"padding_side": "left"}),  # broadcast into (., 3)
    (lambda T: [T.tensor([True, False]), T.tensor([True])], {}),
    (lambda T: [T.tensor([1, 2]), T.tensor([3])], {"padding_value": 0.7}),
    (lambda T: T.arange(6.0).reshape(3, 2), {"batch_first": True}),  # a tensor: its rows
    (lambda T: [T.tensor([1.0, 2.0], requires_grad=True), T.tensor([3.0])], {}),  # grad_fn CopySlices
])
def test_pad_sequence_takes_dtype_and_shape_from_the_first(torch_oracle, make, kwargs):
    expected = _utils(torch_oracle).pad_sequence(make(torch_oracle), **kwargs)
    assert_same(lt_rnn.pad_sequence(make(lt), **kwargs), expected)


@pytest.mark.parametrize("case, match", [
    (lambda T: T.nn.utils.rnn.pad_sequence([T.ones(2, 3), T.ones(1, 4)]), "must match the size of tensor b"),
    (lambda T: T.nn.utils.rnn.pad_sequence([T.ones(2, 1), T.ones(1, 3)]), "doesn't match the broadcast shape"),
    (lambda T: T.nn.utils.rnn.pad_sequence([T.ones(2)], padding_side="middle"), "one of left or right"),
    (lambda T: T.nn.utils.rnn.pad_sequence([T.tensor(1.0)]), "invalid slice"),
    (lambda T: T.nn.utils.rnn.pad_sequence([]), "received an empty list of sequences"),
])
def test_pad_sequence_errors(torch_oracle, case, match):
    raises_both(case, torch_oracle, match=match)


def test_pad_packed_defaults_and_lengths_dtype(torch_oracle):
    def run(T):
        x = T.arange(12.0).reshape(4, 3, 1)
        out, lens = _utils(T).pad_packed_sequence(_utils(T).pack_padded_sequence(x, [4, 2, 1]))
        return out, lens
    assert_same(run(lt), run(torch_oracle))


def test_packed_sequence_to_and_fields(torch_oracle):
    p = lt_rnn.pack_sequence([lt.ones(3, 2), lt.ones(1, 2)])
    assert p.to(lt.float32) is p
    q = p.to(lt.float64)
    assert q.data.dtype == lt.float64 and q.batch_sizes is p.batch_sizes and q.batch_sizes.dtype == lt.int64
    assert p.double().data.dtype == lt.float64 and p.long().data.dtype == lt.int64
    assert p.sorted_indices is None and p.unsorted_indices is None and not p.is_cuda
    data, batch_sizes, sorted_indices, unsorted_indices = p  # a named tuple
    assert batch_sizes.tolist() == [2, 1, 1]
    u = lt_rnn.pack_sequence([lt.ones(1, 2), lt.ones(3, 2)], enforce_sorted=False)
    assert u.sorted_indices.tolist() == [1, 0] and u.unsorted_indices.tolist() == [1, 0]
    assert repr(p).startswith("PackedSequence(data=tensor(")


# ----------------------------------------------------------------------------- packing errors
SORT_MESSAGE = ("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability.")


@pytest.mark.parametrize("case, match", [
    (lambda T: _utils(T).pack_padded_sequence(T.zeros(4, 3, 2), [2, 4, 1]), re.escape(SORT_MESSAGE)),
    (lambda T: _utils(T).pack_sequence([T.ones(1), T.ones(2)]), re.escape(SORT_MESSAGE)),
    (lambda T: _utils(T).pack_padded_sequence(T.zeros(4, 3, 2), [4, 2, 0]),
     "Length of all samples has to be greater than 0"),
    (lambda T: _utils(T).pack_padded_sequence(T.zeros(4, 3, 2), [4, 0, 2], enforce_sorted=False),
     "Length of all samples has to be greater than 0"),
    (lambda T: _utils(T).pack_padded_sequence(T.zeros(4, 3, 2), [4, 2]),
     re.escape("Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)")),
    (lambda T: _utils(T).pack_padded_sequence(T.zeros(0, 3, 2), [4, 2, 1]), "Cannot pack empty tensors."),
    (lambda T: _utils(T).pack_padded_sequence(T.zeros(4, 3, 2), T.tensor([[4, 2, 1]])),
     re.escape("'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor")),
    (lambda T: _utils(T).pad_packed_sequence(_utils(T).pack_sequence([T.ones(3), T.ones(2)]), total_length=2),
     "Expected total_length to be at least the length of the longest sequence in input, but got total_length=2 "
     "and max sequence length being 3"),
])
def test_packing_errors(torch_oracle, case, match):
    raises_both(case, torch_oracle, match=match)


def test_sort_error_is_pytorchs_runtime_error():
    with pytest.raises(RuntimeError) as info:
        lt_rnn.pack_padded_sequence(lt.zeros(4, 3, 2), lt.tensor([2, 4, 1]))
    assert str(info.value) == SORT_MESSAGE


def test_lengths_on_cuda_is_pytorchs_error(any_cuda):
    x = lt.zeros(4, 3, 2, device="cuda")
    with pytest.raises(RuntimeError) as info:
        lt_rnn.pack_padded_sequence(x, lt.tensor([4, 2, 1], device="cuda"))
    assert str(info.value) == ("'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor")
    with pytest.raises(ValueError, match="batch_sizes should always be on CPU"):
        lt_rnn.PackedSequence(x, lt.tensor([3, 2], device="cuda"))


def test_gru_packed_on_cuda_equals_cpu(any_cuda):
    lt.manual_seed(0)
    gru = lt.nn.GRU(IN, HID, num_layers=2, bidirectional=True)
    x = lt.randn(STEPS, BATCH, IN)
    out_cpu, h_cpu = gru(lt_rnn.pack_padded_sequence(x, LENGTHS["unsorted"], enforce_sorted=False))
    gru.cuda()
    xc = x.cuda().requires_grad_()
    out, h = gru(lt_rnn.pack_padded_sequence(xc, LENGTHS["unsorted"], enforce_sorted=False))
    padded, lengths = lt_rnn.pad_packed_sequence(out)
    assert padded.device.type == "cuda" and lengths.device.type == "cpu" and out.batch_sizes.device.type == "cpu"
    np.testing.assert_allclose(to_numpy(out.data), to_numpy(out_cpu.data), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(h), to_numpy(h_cpu), rtol=1e-5, atol=1e-6)
    (padded.sum() + h.sum()).backward()
    assert xc.grad.device.type == "cuda" and gru.weight_hh_l1_reverse.grad.device.type == "cuda"


# ----------------------------------------------------------------------------- layer errors
@pytest.mark.parametrize("case, match", [
    (lambda T: T.nn.GRU(3, 4)(T.zeros(2, 2, 2, 3)), "GRU: Expected input to be 2D or 3D, got 4D instead"),
    (lambda T: T.nn.RNN(3, 4)(T.zeros(3)), "RNN: Expected input to be 2D or 3D, got 1D tensor instead"),
    (lambda T: T.nn.GRU(3, 4)(T.zeros(5, 2, 6)),
     re.escape("input.size(-1) must be equal to input_size. Expected 3, got 6")),
    (lambda T: T.nn.GRU(3, 4, 2)(T.zeros(5, 2, 3), T.zeros(1, 2, 4)),
     re.escape("Expected hidden size (2, 2, 4), got [1, 2, 4]")),
    (lambda T: T.nn.GRU(3, 4)(T.zeros(5, 2, 3), T.zeros(2, 4)),
     "For batched 3-D input, hx should also be 3-D but got 2-D tensor"),
    (lambda T: T.nn.GRU(3, 4)(T.zeros(5, 3), T.zeros(1, 1, 4)),
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda T: T.nn.LSTM(3, 4)(T.zeros(5, 2, 3), (T.zeros(1, 2, 4), T.zeros(2, 4))),
     re.escape("For batched 3-D input, hx and cx should also be 3-D but got (3-D, 2-D) tensors")),
    (lambda T: T.nn.LSTM(3, 4)(T.zeros(5, 2, 3), (T.zeros(1, 2, 4), T.zeros(1, 3, 4))),
     re.escape("Expected hidden[1] size (1, 2, 4), got [1, 3, 4]")),
    (lambda T: T.nn.GRU(3, 4)(T.zeros(5, 2, 3, dtype=T.float64)),
     re.escape("RNN input dtype (torch.float64) does not match weight dtype (torch.float32)")),
    (lambda T: T.nn.GRU(3, 4, dropout=1.5), "dropout should be a number in range"),
    (lambda T: T.nn.GRU(3, 4, proj_size=2), "proj_size argument is only supported for LSTM"),
    (lambda T: T.nn.LSTM(3, 4, proj_size=4), "proj_size has to be smaller than hidden_size"),
    (lambda T: T.nn.RNN(3, 4, nonlinearity="sigmoid"), "Unknown nonlinearity 'sigmoid'"),
    (lambda T: T.nn.GRU(3, 0), "hidden_size must be greater than zero"),
    (lambda T: T.nn.GRU(3, 4, num_layers=0), "num_layers must be greater than zero"),
    (lambda T: T.nn.GRUCell(3, 4)(T.zeros(1, 2, 3)), "GRUCell: Expected input to be 1D or 2D, got 3D instead"),
    (lambda T: T.nn.GRU(3, 4)(T.zeros(5, 2, 3), T.zeros(1, 2, 4, dtype=T.float64)),
     "mat1 and mat2 must have the same dtype, but got Double and Float"),
    (lambda T: T.nn.RNN(3, 4, 2, bidirectional=True)(T.zeros(5, 2, 3), T.zeros(4, 2, 4, dtype=T.float16)),
     "mat1 and mat2 must have the same dtype"),
    (lambda T: T.nn.LSTM(3, 4)(T.zeros(5, 2, 3), (T.zeros(1, 2, 4), T.zeros(1, 2, 4), T.zeros(1, 2, 4))),
     "lstm expects two hidden states"),
    (lambda T: T.nn.LSTM(3, 4)(T.zeros(0, 2, 3)), "Expected sequence length to be larger than 0 in RNN"),
    (lambda T: T.nn.GRU(3, 4, batch_first=True)(T.zeros(2, 0, 3)), "Expected sequence length to be larger than 0"),
    (lambda T: T.nn.RNNCell(3, 4)(T.zeros(2, 5)), "input has inconsistent input_size: got 5 expected 3"),
    (lambda T: T.nn.LSTMCell(3, 4)(T.zeros(5)), "input has inconsistent input_size: got 5 expected 3"),
    (lambda T: T.nn.GRUCell(3, 4)(T.zeros(2, 3), T.zeros(3, 4)),
     "Input batch size 2 doesn't match hidden0 batch size 3"),
    (lambda T: T.nn.RNNCell(3, 4)(T.zeros(3), T.zeros(5)), "hidden0 has inconsistent hidden_size: got 5, expected 4"),
    (lambda T: T.nn.LSTMCell(3, 4)(T.zeros(2, 3), (T.zeros(2, 4), T.zeros(3, 4))),
     "Input batch size 2 doesn't match hidden1 batch size 3"),
    (lambda T: T.nn.LSTMCell(3, 4)(T.zeros(2, 3), (T.zeros(2, 4),)), "lstm_cell expects two hidden states"),
    (lambda T: T.nn.LSTMCell(3, 4)(T.zeros(2, 3), T.zeros(2, 4)), "argument 'hx' .* must be tuple of Tensors"),
])
def test_layer_errors(torch_oracle, case, match):
    raises_both(case, torch_oracle, match=match)


def test_dropout_with_one_layer_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        lt.nn.GRU(3, 4, dropout=0.2)


# ----------------------------------------------------------------------------- the notes' EncoderRNN
def _make_encoder(torch):
    """The notes' EncoderRNN, verbatim (``torch`` and ``nn`` are whichever library is passed)."""
    nn = torch.nn

    class EncoderRNN(nn.Module):
        def __init__(self, hidden_size, embedding, n_layers=1, dropout=0):
            super(EncoderRNN, self).__init__()
            self.n_layers = n_layers
            self.hidden_size = hidden_size
            self.embedding = embedding
            # Initialize GRU; the input_size and hidden_size params are both set to 'hidden_size'
            # because our input size is a word embedding with number of features == hidden_size
            self.gru = nn.GRU(hidden_size, hidden_size, n_layers,
                              dropout=(0 if n_layers == 1 else dropout), bidirectional=True)

        def forward(self, input_seq, input_lengths, hidden=None):
            # Convert word indexes to embeddings
            embedded = self.embedding(input_seq)
            # Pack padded batch of sequences for RNN module
            packed = torch.nn.utils.rnn.pack_padded_sequence(embedded, input_lengths)
            # Forward pass through GRU
            outputs, hidden = self.gru(packed, hidden)
            # Unpack padding
            outputs, _ = torch.nn.utils.rnn.pad_packed_sequence(outputs)
            # Sum bidirectional GRU outputs
            outputs = outputs[:, :, :self.hidden_size] + outputs[:, :, self.hidden_size:]
            # Return output and final hidden state
            return outputs, hidden
    return EncoderRNN


def test_notes_encoder_rnn_runs_unchanged(torch_oracle):
    """Embedding + bidirectional 2-layer GRU (dropout 0.1, training mode) + packing + unpacking
    + summing the directions: outputs, hidden and every gradient as in PyTorch."""
    voc, hidden = 12, 6
    seqs = np.array([[3, 5, 7, 2, 9], [4, 1, 8, 2, 0], [6, 2, 0, 0, 0]]).T  # (max_len, batch), padded with 0
    lengths = [5, 4, 2]

    def run(T):
        T.manual_seed(0)
        embedding = T.nn.Embedding(voc, hidden)
        encoder = _make_encoder(T)(hidden, embedding, n_layers=2, dropout=0.1)
        outputs, h = encoder(T.tensor(seqs), T.tensor(lengths))
        w_out, w_h = _weights_for([tuple(outputs.shape), tuple(h.shape)])
        ((outputs * T.tensor(w_out)).sum() + (h * T.tensor(w_h)).sum()).backward()
        return [outputs, h] + [p.grad for p in encoder.parameters()]
    got, want = run(lt), run(torch_oracle)
    assert tuple(got[0].shape) == (5, 3, hidden) and tuple(got[1].shape) == (4, 3, hidden)
    assert_same(got, want, check_grad_fn=False)
