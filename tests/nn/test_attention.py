"""``F.scaled_dot_product_attention`` and ``nn.MultiheadAttention`` against PyTorch.

PyTorch runs fused attention kernels on the CPU; learntorch composes matmul,
masked_fill and softmax, so values and gradients are compared (to float32
rounding) but not ``grad_fn`` names.  Dropout cannot match bit for bit (PyTorch's
fused kernel draws its own random numbers), so it is tested by its statistics.
"""
from __future__ import annotations

import re

from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, grads_both, raises_both, to_numpy, torch_to_lt

RNG = np.random.default_rng(15)


def _r(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


Q, K, V = _r(2, 3, 4, 5), _r(2, 3, 6, 5), _r(2, 3, 6, 7)
BOOL_MASK = RNG.random((4, 6)) > 0.4
BOOL_MASK[:, 0] = True
DEAD_ROW_MASK = BOOL_MASK.copy()
DEAD_ROW_MASK[2] = False  # query 2 may attend to nothing
FLOAT_MASK = _r(2, 1, 4, 6)
FLOAT_DEAD = np.zeros((4, 6), np.float32)
FLOAT_DEAD[1] = -np.inf

SDPA_CASES = [
    ("plain", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v), (Q, K, V)),
    ("causal", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True), (Q, K, V)),
    ("causal_square", lambda T, q: T.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True), (Q,)),
    ("scale", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, scale=0.25), (Q, K, V)),
    ("bool_mask", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=T.tensor(BOOL_MASK)), (Q, K, V)),
    ("float_mask", lambda T, q, k, v, m: T.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m),
     (Q, K, V, FLOAT_MASK)),
    ("dead_row_bool", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=T.tensor(DEAD_ROW_MASK)), (Q, K, V)),
    ("dead_row_float", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=T.tensor(FLOAT_DEAD)), (Q, K, V)),
    ("unbatched", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
     (Q[0, 0], K[0, 0], V[0, 0])),
    ("gqa", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True),
     (_r(2, 4, 3, 5), _r(2, 2, 6, 5), _r(2, 2, 6, 3))),
    ("dropout_zero", lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.0),
     (Q, K, V)),
]


@pytest.mark.parametrize("fn,arrays", [(f, a) for _, f, a in SDPA_CASES], ids=[n for n, _, _ in SDPA_CASES])
def test_sdpa_values_and_grads(torch_oracle: Any, fn: Any, arrays: tuple) -> None:
    grads_both(fn, torch_oracle, *arrays, check_grad_fn=False, rtol=1e-4, atol=1e-5)


def test_sdpa_double_backward(torch_oracle: Any) -> None:
    """Built from differentiable ops, attention has a second derivative (PyTorch's math kernel, float64)."""
    torch = torch_oracle
    q, k, v = (a.astype(np.float64) for a in (Q, K, V))
    results = []
    for T in (lt, torch):
        ts = [T.tensor(a, requires_grad=True) for a in (q, k, v)]
        out = T.nn.functional.scaled_dot_product_attention(*ts, attn_mask=T.tensor(BOOL_MASK))
        gq, = T.autograd.grad((out ** 2).sum(), ts[0], create_graph=True)
        gq.pow(2).sum().backward()
        results.append([gq] + [t.grad for t in ts])
    for a, e in zip(*results):
        np.testing.assert_allclose(to_numpy(a), to_numpy(e), rtol=1e-7, atol=1e-9)


def test_sdpa_errors(torch_oracle: Any) -> None:
    # PyTorch's documented rule (its math kernel, chosen here by dropout_p > 0; its CPU flash kernel
    # silently combines the two masks instead): learntorch always raises
    raises_both(lambda T: T.nn.functional.scaled_dot_product_attention(
        T.tensor(Q), T.tensor(Q), T.tensor(Q), attn_mask=T.ones(4, 4, dtype=T.bool), is_causal=True,
        dropout_p=0.3),
        torch_oracle, match="Explicit attn_mask should not be set when is_causal=True")
    raises_both(lambda T: T.nn.functional.scaled_dot_product_attention(
        T.tensor(Q), T.tensor(Q), T.tensor(Q), attn_mask=T.ones(4, 4, dtype=T.int64)),
        torch_oracle, match="Expected attn_mask dtype to be bool or float")
    raises_both(lambda T: T.nn.functional.scaled_dot_product_attention(
        T.tensor(Q), T.tensor(Q[..., :3]), T.tensor(Q)), torch_oracle)


def test_sdpa_dropout_statistics(torch_oracle: Any) -> None:
    """Uniform weights 1/S and values 1: each output is (kept keys)·2/S, a multiple of 2/S with mean 1."""
    torch = torch_oracle
    S = 8
    for T in (lt, torch):
        T.manual_seed(0)
        q = T.zeros(64, 16, 4, 3)
        k = T.zeros(64, 16, S, 3)
        v = T.ones(64, 16, S, 3)
        out = to_numpy(T.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.5))
        assert out.shape == (64, 16, 4, 3)
        steps = out * S / 2
        np.testing.assert_allclose(steps, np.round(steps), atol=1e-5)
        assert abs(out.mean() - 1.0) < 0.03


# ----------------------------------------------------------------------------- nn.MultiheadAttention
def _pair(torch: Any, *args: Any, **kwargs: Any) -> tuple:
    """The same MultiheadAttention in both libraries: torch's weights loaded into learntorch."""
    torch.manual_seed(1)
    tm = torch.nn.MultiheadAttention(*args, **kwargs)
    lm = lt.nn.MultiheadAttention(*args, **kwargs)
    if tm.bias_k is not None:  # xavier_normal_ of a (1, 1, E) tensor; make them visible in the test
        with torch.no_grad():
            tm.bias_k.normal_()
            tm.bias_v.normal_()
    lm.load_state_dict({k: torch_to_lt(v) for k, v in tm.state_dict().items()})
    return lm, tm


def _compare_mha(torch: Any, lm: Any, tm: Any, arrays: tuple, masks: dict, **kw: Any) -> None:
    lts = [lt.tensor(a, requires_grad=True) for a in arrays]
    tts = [torch.tensor(a, requires_grad=True) for a in arrays]
    lmask = {k: lt.tensor(v) for k, v in masks.items()}
    tmask = {k: torch.tensor(v) for k, v in masks.items()}
    out_l, w_l = lm(*lts, **lmask, **kw)
    out_t, w_t = tm(*tts, **tmask, **kw)
    assert_same(out_l, out_t, rtol=1e-4, atol=1e-5, check_grad_fn=False)
    assert_same(w_l, w_t, rtol=1e-4, atol=1e-5, check_grad_fn=False)
    g = RNG.standard_normal(tuple(out_t.shape)).astype(np.float32)
    loss_l, loss_t = (out_l * lt.tensor(g)).sum(), (out_t * torch.tensor(g)).sum()
    if w_t is not None:
        gw = RNG.standard_normal(tuple(w_t.shape)).astype(np.float32)
        loss_l, loss_t = loss_l + (w_l * lt.tensor(gw)).sum(), loss_t + (w_t * torch.tensor(gw)).sum()
    loss_l.backward()
    loss_t.backward()
    for i, (a, e) in enumerate(zip(lts, tts)):
        np.testing.assert_allclose(to_numpy(a.grad), to_numpy(e.grad), rtol=1e-4, atol=1e-5, err_msg=f"input {i}")
    for (name, p), (_, pt) in zip(lm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(to_numpy(p.grad), to_numpy(pt.grad), rtol=1e-4, atol=1e-5, err_msg=name)


L, N, S, E = 4, 3, 5, 8
KPM = np.zeros((N, S), bool)
KPM[1, 3:] = True
MHA_CASES = [
    ("plain", {}, {}, {}),
    ("per_head_weights", {}, {}, {"average_attn_weights": False}),
    ("no_weights", {}, {}, {"need_weights": False}),
    ("bool_attn_mask", {}, {"attn_mask": ~np.tril(np.ones((L, S), bool))}, {}),
    ("float_attn_mask_no_weights", {}, {"attn_mask": _r(L, S)}, {"need_weights": False}),
    ("mask_3d", {}, {"attn_mask": _r(N * 2, L, S)}, {}),
    ("key_padding", {}, {"key_padding_mask": KPM}, {}),
    ("key_padding_no_weights", {}, {"key_padding_mask": KPM}, {"need_weights": False}),
    ("both_masks", {}, {"key_padding_mask": KPM, "attn_mask": _r(L, S)}, {"need_weights": False}),
    ("no_bias", {"bias": False}, {}, {}),
    ("bias_kv", {"add_bias_kv": True}, {"key_padding_mask": KPM, "attn_mask": _r(L, S)}, {}),
    ("zero_attn", {"add_zero_attn": True}, {"key_padding_mask": KPM}, {"need_weights": False}),
    ("kdim_vdim", {"kdim": 6, "vdim": 3}, {}, {}),
    ("dropout_in_eval", {"dropout": 0.5}, {}, {}),
]


@pytest.mark.filterwarnings("ignore:Support for mismatched")
@pytest.mark.parametrize("ctor,masks,kw", [c[1:] for c in MHA_CASES], ids=[c[0] for c in MHA_CASES])
@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_matches_torch(torch_oracle: Any, ctor: dict, masks: dict, kw: dict, batch_first: bool) -> None:
    lm, tm = _pair(torch_oracle, E, 2, batch_first=batch_first, **ctor)
    lm.eval()
    tm.eval()
    kdim, vdim = ctor.get("kdim", E), ctor.get("vdim", E)
    shapes = [(L, N, E), (S, N, kdim), (S, N, vdim)]
    if batch_first:
        shapes = [(b, a, c) for a, b, c in shapes]
    _compare_mha(torch_oracle, lm, tm, tuple(_r(*s) for s in shapes), masks, **kw)


def test_mha_self_attention_causal_hint(torch_oracle: Any) -> None:
    lm, tm = _pair(torch_oracle, E, 4)
    x = _r(L, N, E)
    causal = np.triu(np.full((L, L), -np.inf, np.float32), 1)
    for kw in ({"need_weights": False}, {"need_weights": True}):
        _compare_mha(torch_oracle, lm, tm, (x, x, x), {"attn_mask": causal}, is_causal=True, **kw)


def test_mha_unbatched(torch_oracle: Any) -> None:
    lm, tm = _pair(torch_oracle, E, 2)
    _compare_mha(torch_oracle, lm, tm, (_r(L, E), _r(S, E), _r(S, E)), {"key_padding_mask": KPM[1]})
    _compare_mha(torch_oracle, lm, tm, (_r(L, E), _r(S, E), _r(S, E)), {"attn_mask": _r(2, L, S)},
                 need_weights=False)


@pytest.mark.parametrize("ctor", [{}, {"bias": False}, {"add_bias_kv": True}, {"kdim": 5, "vdim": 3}])
def test_mha_same_seed_same_weights_and_names(torch_oracle: Any, ctor: dict) -> None:
    torch = torch_oracle
    torch.manual_seed(3)
    tm = torch.nn.MultiheadAttention(E, 2, **ctor)
    lt.manual_seed(3)
    lm = lt.nn.MultiheadAttention(E, 2, **ctor)
    ts, ls = tm.state_dict(), lm.state_dict()
    assert list(ls) == list(ts)
    for k in ts:
        np.testing.assert_array_equal(to_numpy(ls[k]), to_numpy(ts[k]), err_msg=k)
    assert type(lm.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(lm.out_proj, lt.nn.Linear)
    assert repr(lm) == repr(tm)


def test_mha_state_dict_loads_into_torch(torch_oracle: Any) -> None:
    torch = torch_oracle
    lt.manual_seed(4)
    lm = lt.nn.MultiheadAttention(E, 4, add_bias_kv=True)
    tm = torch.nn.MultiheadAttention(E, 4, add_bias_kv=True)
    tm.load_state_dict({k: torch.from_numpy(to_numpy(v)) for k, v in lm.state_dict().items()})
    _compare_mha(torch, lm, tm, (_r(L, N, E), _r(S, N, E), _r(S, N, E)), {"key_padding_mask": KPM})


def test_mha_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.nn.MultiheadAttention(10, 3), torch_oracle, match="divisible by num_heads")
    raises_both(lambda T: T.nn.MultiheadAttention(0, 3), torch_oracle)
    raises_both(lambda T: T.nn.MultiheadAttention(E, 2)(T.ones(L, N, E), T.ones(S, N, E), T.ones(S, N, E),
                                                        is_causal=True), torch_oracle,
                match="Need attn_mask if specifying the is_causal hint")
    raises_both(lambda T: T.nn.MultiheadAttention(E, 2)(T.ones(L, N, E), T.ones(S, N, E), T.ones(S, N, E),
                                                        attn_mask=T.ones(L, L)), torch_oracle,
                match="The shape of the 2D attn_mask")
    raises_both(lambda T: T.nn.MultiheadAttention(E, 2)(T.ones(L, N, 6), T.ones(S, N, 6), T.ones(S, N, 6)),
                torch_oracle, match="was expecting embedding dimension of 8")
    mha = lambda T, **kw: T.nn.MultiheadAttention(E, 2, **kw)  # noqa: E731
    raises_both(lambda T: mha(T)(T.ones(L, N, E), T.ones(S, N, E), T.ones(S + 1, N, E)), torch_oracle,
                match=re.escape(f"key shape torch.Size([{S}, {N}, {E}]) does not match value shape"))
    raises_both(lambda T: mha(T, kdim=3, vdim=5)(T.ones(L, N, E), T.ones(S, N, 3), T.ones(S + 1, N, 5)),
                torch_oracle, match=re.escape(f"key's sequence and batch dims torch.Size([{S}, {N}]) do not match"))
    for kpm_shape, which in [((N + 1, S), 0), ((N, S + 1), 1)]:
        raises_both(lambda T: mha(T)(T.ones(L, N, E), T.ones(S, N, E), T.ones(S, N, E),
                                     key_padding_mask=T.zeros(kpm_shape, dtype=T.bool)), torch_oracle,
                    match=re.escape(f"Expected key_padded_mask.shape[{which}] to be"))


def test_mha_dropout_in_training_changes_weights(torch_oracle: Any) -> None:
    """Training with dropout: the returned weights are dropped out (0 or scaled by 1/(1-p))."""
    lt.manual_seed(0)
    m = lt.nn.MultiheadAttention(E, 2, dropout=0.5)
    x = lt.randn(L, N, E)
    _, w = m(x, x, x, average_attn_weights=False)
    m.eval()
    _, w_eval = m(x, x, x, average_attn_weights=False)
    a, b = to_numpy(w), to_numpy(w_eval)
    kept = a != 0
    assert 0.2 < kept.mean() < 0.8
    np.testing.assert_allclose(a[kept], 2 * b[kept], rtol=1e-5)


def test_nanogpt_attention_idioms(torch_oracle: Any) -> None:
    """The causal self-attention of nanoGPT written out by hand: tril buffer, masked_fill, softmax, GELU(tanh)."""
    x = _r(2, 6, 8)

    def fn(T: Any, x: Any) -> Any:
        F = T.nn.functional
        B, Tn, C = x.shape
        bias = T.tril(T.ones(Tn, Tn)).view(1, 1, Tn, Tn)
        q = x.view(B, Tn, 2, C // 2).transpose(1, 2)
        att = (q @ q.transpose(-2, -1)) * (1.0 / (C // 2) ** 0.5)
        att = att.masked_fill(bias[:, :, :Tn, :Tn] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ q).transpose(1, 2).contiguous().view(B, Tn, C)
        y2 = F.scaled_dot_product_attention(q, q, q, is_causal=True).transpose(1, 2).contiguous().view(B, Tn, C)
        return T.nn.GELU(approximate="tanh")(y) + F.gelu(y2, approximate="tanh")

    grads_both(fn, torch_oracle, x, check_grad_fn=False, rtol=1e-4, atol=1e-5)


def test_mha_mismatched_mask_types_warn(torch_oracle: Any) -> None:
    """A boolean key_padding_mask with a float attn_mask still works, with PyTorch's deprecation warning."""
    for T in (lt, torch_oracle):
        m = T.nn.MultiheadAttention(E, 2)
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
            m(T.ones(L, N, E), T.ones(S, N, E), T.ones(S, N, E), key_padding_mask=T.tensor(KPM),
              attn_mask=T.zeros(L, S))
    raises_both(lambda T: T.nn.MultiheadAttention(E, 2)(T.ones(L, N, E), T.ones(S, N, E), T.ones(S, N, E),
                                                        key_padding_mask=T.zeros(N, S, dtype=T.int64)),
                torch_oracle, match="only bool and floating types of key_padding_mask are supported")


_DEAD_KPM = np.array([[True] * 3, [False, False, True], [False] * 3])  # batch element 0: every key hidden
_DEAD_MASK = np.array([[True] * 3, [False, True, False], [False] * 3])  # query 0: every key hidden


@pytest.mark.parametrize("ctor", [dict(num_heads=2, batch_first=True), dict(num_heads=1, batch_first=True),
                                  dict(num_heads=2), dict(num_heads=2, batch_first=True, bias=False)],
                         ids=["fast", "odd_heads", "seq_first", "no_bias"])
@pytest.mark.parametrize("masks", [dict(key_padding_mask=_DEAD_KPM), dict(attn_mask=_DEAD_MASK),
                                   dict(key_padding_mask=np.where(_DEAD_KPM, -np.inf, 0).astype(np.float32))],
                         ids=["kpm", "attn_mask", "float_kpm"])
@pytest.mark.parametrize("grad", [False, True])
def test_mha_fully_masked_queries_in_eval(torch_oracle: Any, ctor: dict, masks: dict, grad: bool) -> None:
    """PyTorch's inference fast path (self-attention, eval, no autograd, batch first, even heads,
    biases, boolean masks) gives nan where every key is hidden; its ordinary path, with
    ``need_weights=False``, gives 0 there.  learntorch takes the same branch."""
    x = _r(3, 3, 4)

    def run(T: Any) -> Any:
        T.manual_seed(0)
        m = T.nn.MultiheadAttention(4, **ctor).eval()
        xt = T.tensor(x)
        with T.set_grad_enabled(grad):
            return m(xt, xt, xt, need_weights=False, **{k: T.tensor(v) for k, v in masks.items()})[0]
    assert_same(run(lt), run(torch_oracle), rtol=1e-4, atol=1e-5, check_grad_fn=False, check_requires_grad=False)


def test_mha_fastpath_switch(torch_oracle: Any) -> None:
    assert lt.backends.mha.get_fastpath_enabled() is torch_oracle.backends.mha.get_fastpath_enabled() is True
    x = lt.tensor(_r(3, 3, 4))
    m = lt.nn.MultiheadAttention(4, 2, batch_first=True).eval()
    with lt.no_grad():
        assert bool(m(x, x, x, need_weights=False, key_padding_mask=lt.tensor(_DEAD_KPM))[0].isnan().any())
        lt.backends.mha.set_fastpath_enabled(False)
        try:
            assert not bool(m(x, x, x, need_weights=False, key_padding_mask=lt.tensor(_DEAD_KPM))[0].isnan().any())
        finally:
            lt.backends.mha.set_fastpath_enabled(True)
