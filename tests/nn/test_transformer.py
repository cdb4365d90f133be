"""``nn.Transformer`` and its encoder/decoder layers and stacks against PyTorch.

The modules are built in both libraries, torch's ``state_dict`` is loaded into
learntorch's (same keys, in the same order), and outputs and every gradient are
compared in evaluation mode (dropout off) with the usual masks.  The same seed
also gives the same initial weights.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, raises_both, to_numpy, torch_to_lt

# Warnings both libraries give for these models (asserted in test_encoder_nested_tensor_flag_and_warning and
# the masks' tests), and torch's own notice that its nested tensors are a prototype.
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True",
                                        "ignore:Support for mismatched",
                                        "ignore:The PyTorch API of nested tensors is in prototype stage")

RNG = np.random.default_rng(150)
D, H, FF = 8, 2, 16
S_LEN, T_LEN, B = 5, 4, 3


def _r(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


SRC_KPM = np.zeros((B, S_LEN), bool)
SRC_KPM[1, 3:] = True
TGT_KPM = np.zeros((B, T_LEN), bool)
TGT_KPM[2, 3:] = True
CAUSAL = np.triu(np.full((T_LEN, T_LEN), -np.inf, np.float32), 1)


def _build(torch: Any, make: Any) -> tuple:
    """``make(T)`` in both libraries, torch's weights copied into learntorch; both in eval mode."""
    torch.manual_seed(0)
    tm = make(torch)
    lm = make(lt)
    assert list(lm.state_dict()) == list(tm.state_dict())
    lm.load_state_dict({k: torch_to_lt(v) for k, v in tm.state_dict().items()})
    return lm.eval(), tm.eval()


def _compare(torch: Any, lm: Any, tm: Any, arrays: tuple, masks: dict, **kw: Any) -> None:
    lts = [lt.tensor(a, requires_grad=True) for a in arrays]
    tts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out_l = lm(*lts, **{k: lt.tensor(v) for k, v in masks.items()}, **kw)
    out_t = tm(*tts, **{k: torch.tensor(v) for k, v in masks.items()}, **kw)
    assert_same(out_l, out_t, rtol=1e-4, atol=2e-5, check_grad_fn=False)
    g = RNG.standard_normal(tuple(out_t.shape)).astype(np.float32)
    (out_l * lt.tensor(g)).sum().backward()
    (out_t * torch.tensor(g)).sum().backward()
    for i, (a, e) in enumerate(zip(lts, tts)):
        np.testing.assert_allclose(to_numpy(a.grad), to_numpy(e.grad), rtol=1e-4, atol=2e-5, err_msg=f"input {i}")
    for (name, p), (_, pt) in zip(lm.named_parameters(), tm.named_parameters()):
        if pt.grad is None:
            assert p.grad is None, name
            continue
        np.testing.assert_allclose(to_numpy(p.grad), to_numpy(pt.grad), rtol=1e-4, atol=2e-5, err_msg=name)


def _seq(batch_first: bool, length: int) -> np.ndarray:
    return _r(B, length, D) if batch_first else _r(length, B, D)


LAYER_OPTIONS = [
    ("post_norm_relu", {}),
    ("pre_norm_gelu", {"norm_first": True, "activation": "gelu"}),
    ("batch_first", {"batch_first": True}),
    ("no_bias", {"bias": False}),
    ("eps", {"layer_norm_eps": 1e-3}),
]
ENCODER_MASKS = [
    ("none", {}),
    ("padding", {"src_key_padding_mask": SRC_KPM}),
    ("float_mask", {"src_mask": _r(S_LEN, S_LEN)}),
    ("bool_mask_and_padding", {"src_mask": np.triu(np.ones((S_LEN, S_LEN), bool), 1),
                               "src_key_padding_mask": SRC_KPM}),
]


@pytest.mark.parametrize("opts", [o for _, o in LAYER_OPTIONS], ids=[n for n, _ in LAYER_OPTIONS])
@pytest.mark.parametrize("masks", [m for _, m in ENCODER_MASKS], ids=[n for n, _ in ENCODER_MASKS])
def test_encoder_layer(torch_oracle: Any, opts: dict, masks: dict) -> None:
    lm, tm = _build(torch_oracle, lambda T: T.nn.TransformerEncoderLayer(D, H, FF, **opts))
    _compare(torch_oracle, lm, tm, (_seq(opts.get("batch_first", False), S_LEN),), masks)


def test_encoder_layer_causal_hint_and_callable_activation(torch_oracle: Any) -> None:
    lm, tm = _build(torch_oracle, lambda T: T.nn.TransformerEncoderLayer(D, H, FF, activation=T.nn.functional.silu))
    causal = np.triu(np.full((S_LEN, S_LEN), -np.inf, np.float32), 1)
    _compare(torch_oracle, lm, tm, (_seq(False, S_LEN),), {"src_mask": causal}, is_causal=True)
    lm, tm = _build(torch_oracle, lambda T: T.nn.TransformerEncoderLayer(D, H, FF, activation=T.nn.GELU()))
    assert list(lm.state_dict()) == list(tm.state_dict())
    _compare(torch_oracle, lm, tm, (_seq(False, S_LEN),), {})


def test_encoder_layer_unbatched(torch_oracle: Any) -> None:
    lm, tm = _build(torch_oracle, lambda T: T.nn.TransformerEncoderLayer(D, H, FF))
    _compare(torch_oracle, lm, tm, (_r(S_LEN, D),), {"src_key_padding_mask": SRC_KPM[1]})


DECODER_MASKS = [
    ("none", {}),
    ("causal", {"tgt_mask": CAUSAL}),
    ("all", {"tgt_mask": CAUSAL, "memory_mask": _r(T_LEN, S_LEN), "tgt_key_padding_mask": TGT_KPM,
             "memory_key_padding_mask": SRC_KPM}),
]


@pytest.mark.parametrize("opts", [o for _, o in LAYER_OPTIONS[:3]], ids=[n for n, _ in LAYER_OPTIONS[:3]])
@pytest.mark.parametrize("masks", [m for _, m in DECODER_MASKS], ids=[n for n, _ in DECODER_MASKS])
def test_decoder_layer(torch_oracle: Any, opts: dict, masks: dict) -> None:
    lm, tm = _build(torch_oracle, lambda T: T.nn.TransformerDecoderLayer(D, H, FF, **opts))
    bf = opts.get("batch_first", False)
    _compare(torch_oracle, lm, tm, (_seq(bf, T_LEN), _seq(bf, S_LEN)), masks)


def test_decoder_layer_causal_hint(torch_oracle: Any) -> None:
    lm, tm = _build(torch_oracle, lambda T: T.nn.TransformerDecoderLayer(D, H, FF, norm_first=True))
    _compare(torch_oracle, lm, tm, (_seq(False, T_LEN), _seq(False, S_LEN)), {"tgt_mask": CAUSAL},
             tgt_is_causal=True)


@pytest.mark.parametrize("masks", [{}, {"mask": np.triu(np.full((S_LEN, S_LEN), -np.inf, np.float32), 1)},
                                   {"mask": np.triu(np.ones((S_LEN, S_LEN), bool), 1),
                                    "src_key_padding_mask": SRC_KPM}],
                         ids=["none", "causal_detected", "bool_causal_and_padding"])
def test_encoder_stack(torch_oracle: Any, masks: dict) -> None:
    def make(T: Any) -> Any:
        layer = T.nn.TransformerEncoderLayer(D, H, FF, dropout=0.2)
        return T.nn.TransformerEncoder(layer, 3, norm=T.nn.LayerNorm(D), enable_nested_tensor=False)

    lm, tm = _build(torch_oracle, make)
    _compare(torch_oracle, lm, tm, (_seq(False, S_LEN),), masks)


def test_decoder_stack(torch_oracle: Any) -> None:
    def make(T: Any) -> Any:
        return T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(D, H, FF, batch_first=True), 2)

    lm, tm = _build(torch_oracle, make)
    _compare(torch_oracle, lm, tm, (_seq(True, T_LEN), _seq(True, S_LEN)),
             {"tgt_mask": CAUSAL, "memory_key_padding_mask": SRC_KPM})


@pytest.mark.parametrize("opts", [{}, {"batch_first": True, "norm_first": True, "activation": "gelu"}])
def test_transformer(torch_oracle: Any, opts: dict) -> None:
    lm, tm = _build(torch_oracle, lambda T: T.nn.Transformer(D, H, 2, 2, FF, **opts))
    bf = opts.get("batch_first", False)
    masks = {"tgt_mask": CAUSAL, "src_key_padding_mask": SRC_KPM, "tgt_key_padding_mask": TGT_KPM,
             "memory_key_padding_mask": SRC_KPM, "memory_mask": _r(T_LEN, S_LEN)}
    _compare(torch_oracle, lm, tm, (_seq(bf, S_LEN), _seq(bf, T_LEN)), masks)


def test_transformer_same_seed_same_weights(torch_oracle: Any) -> None:
    torch = torch_oracle
    torch.manual_seed(7)
    tm = torch.nn.Transformer(D, H, 2, 1, FF)
    lt.manual_seed(7)
    lm = lt.nn.Transformer(D, H, 2, 1, FF)
    ts, ls = tm.state_dict(), lm.state_dict()
    assert list(ls) == list(ts)
    for k in ts:
        np.testing.assert_array_equal(to_numpy(ls[k]), to_numpy(ts[k]), err_msg=k)
    tm.load_state_dict({k: torch.from_numpy(to_numpy(v)) for k, v in lm.state_dict().items()})


def test_generate_square_subsequent_mask(torch_oracle: Any) -> None:
    assert_same(lt.nn.Transformer.generate_square_subsequent_mask(5),
                torch_oracle.nn.Transformer.generate_square_subsequent_mask(5), exact=True)
    assert_same(lt.nn.Transformer.generate_square_subsequent_mask(3, dtype=lt.float64),
                torch_oracle.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch_oracle.float64),
                exact=True)


def test_transformer_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.nn.TransformerEncoderLayer(D, H, activation="tanh"), torch_oracle,
                match="activation should be relu/gelu, not tanh")
    raises_both(lambda T: T.nn.Transformer(D, H, 1, 1, FF)(T.ones(S_LEN, 2, D), T.ones(T_LEN, 3, D)), torch_oracle,
                match="the batch number of src and tgt must be equal")
    raises_both(lambda T: T.nn.Transformer(D, H, 1, 1, FF)(T.ones(S_LEN, 2, 6), T.ones(T_LEN, 2, 6)),
                torch_oracle, match="the feature number of src and tgt must be equal to d_model")


def test_training_mode_dropout_runs(torch_oracle: Any) -> None:
    """Training mode: dropout is active (outputs differ between two calls) and backward runs."""
    lt.manual_seed(0)
    m = lt.nn.Transformer(D, H, 1, 1, FF, dropout=0.5)
    src, tgt = lt.randn(S_LEN, B, D), lt.randn(T_LEN, B, D)
    a, b = m(src, tgt), m(src, tgt)
    assert not np.allclose(to_numpy(a), to_numpy(b))
    a.sum().backward()
    assert all(p.grad is not None for p in m.parameters())


@pytest.mark.filterwarnings("default")
def test_encoder_nested_tensor_flag_and_warning(torch_oracle: Any) -> None:
    """``use_nested_tensor`` and the warning when ``enable_nested_tensor`` cannot be honoured, as in PyTorch."""
    import warnings as _w

    cases = [dict(), dict(batch_first=True), dict(batch_first=True, norm_first=True),
             dict(batch_first=True, activation=lambda x: x), dict(batch_first=True, layer_norm_eps=1e-3)]
    for opts in cases:
        got = []
        for T in (lt, torch_oracle):
            with _w.catch_warnings(record=True) as caught:
                _w.simplefilter("always")
                enc = T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(D, H, FF, **opts), 1)
            msgs = [str(w.message) for w in caught if "enable_nested_tensor" in str(w.message)]
            got.append((enc.use_nested_tensor, enc.layers[0].activation_relu_or_gelu, msgs))
        assert got[0] == got[1], opts
    assert lt.nn.TransformerEncoderLayer(D, H, activation="gelu").activation_relu_or_gelu == 2


@pytest.mark.parametrize("kpm", [SRC_KPM, np.array([[False] * 5, [False, True, False, False, True], [False] * 4 + [True]])],
                         ids=["left_aligned", "not_left_aligned"])
def test_encoder_eval_no_grad_zeroes_padded_positions(torch_oracle: Any, kpm: np.ndarray) -> None:
    """PyTorch's inference path runs on nested tensors: padded positions of the output are zero
    (then the final norm), when the mask is left aligned; learntorch gives the same values."""
    torch = torch_oracle

    def make(T: Any) -> Any:
        layer = T.nn.TransformerEncoderLayer(D, H, FF, batch_first=True)
        return T.nn.TransformerEncoder(layer, 2, norm=T.nn.LayerNorm(D))

    lm, tm = _build(torch, make)
    x = _seq(True, S_LEN)
    with lt.no_grad():
        out_l = lm(lt.tensor(x), src_key_padding_mask=lt.tensor(kpm))
    with torch.no_grad():
        out_t = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
    assert_same(out_l, out_t, rtol=1e-4, atol=2e-5, check_grad_fn=False)
    # with autograd (or in training mode, or with a mask as well) both take the ordinary path
    _compare(torch, lm, tm, (x,), {"src_key_padding_mask": SRC_KPM})


_DEAD_KPM = np.array([[True] * 4, [False, False, True, True], [False] * 4, [False] * 3 + [True]])  # 0: all padding


@pytest.mark.parametrize("make", [
    lambda T: T.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True),
    lambda T: T.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True, norm_first=True),
    lambda T: T.nn.TransformerEncoderLayer(4, 2, 8, 0.0),  # not batch first: the ordinary path, zeros
    lambda T: T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True), 2,
                                      enable_nested_tensor=False),
    lambda T: T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True), 2),
], ids=["layer", "norm_first", "seq_first", "stack", "stack_nested"])
def test_fully_padded_sequence_in_eval(torch_oracle: Any, make: Any) -> None:
    """In evaluation without autograd PyTorch's fused encoder layer gives nan for a sequence that
    is all padding (its ordinary path 0, the nested-tensor stack 0 then the norm); learntorch too."""
    lm, tm = _build(torch_oracle, make)
    x = _r(4, 4, 4)  # (square: batch first or not, the mask fits)
    with lt.no_grad():
        out_l = lm(lt.tensor(x), src_key_padding_mask=lt.tensor(_DEAD_KPM))
    with torch_oracle.no_grad():
        out_t = tm(torch_oracle.tensor(x), src_key_padding_mask=torch_oracle.tensor(_DEAD_KPM))
    assert_same(out_l, out_t, rtol=1e-4, atol=2e-5, check_grad_fn=False)


def test_nested_tensor_path_warns_once_as_pytorch(torch_oracle: Any) -> None:
    import warnings as _w
    kpm = np.array([[False, True, True, True], [False] * 4])
    for T in (lt, torch_oracle):
        enc = T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True), 1).eval()
        with _w.catch_warnings(record=True) as caught, T.no_grad():
            _w.simplefilter("always")
            enc(T.tensor(_r(2, 4, 4)), src_key_padding_mask=T.tensor(kpm))
        # (once per process, as PyTorch's C++ TORCH_WARN_ONCE: another test may have seen it first)
        assert all("nested tensors is in prototype stage" in str(w.message) for w in caught), T.__name__
