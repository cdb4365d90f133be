"""Chapter 09's GPT (notebooks/scripts/tiny_gpt.py): its data, the shipped checkpoint, and the block the
benchmarks build, under learntorch and (where installed) real PyTorch.

The notebook itself runs under nbval; these are the promises other code relies on: data/ holds the
text and a small checkpoint that loads into the file's model, ``benchmark_block`` gives the same block
and input under both libraries, and the file runs unchanged under PyTorch.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "notebooks" / "scripts"))

import tiny_gpt  # noqa: E402

import learntorch  # noqa: E402

TORCH_REASON = "torch (the differential-test oracle, torch==2.13.0 CPU) is not installed"


def test_data_files_are_documented_and_small():
    readme = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    for name in ("course_prose.txt", "tiny_gpt.pt"):
        assert f"`{name}`" in readme, f"data/README.md does not describe {name}"
    assert tiny_gpt.CHECKPOINT.stat().st_size < 2_000_000, "the shipped checkpoint must stay small (< 2 MB)"


def test_checkpoint_loads_and_fits_the_corpus():
    model, tok, saved = tiny_gpt.load_trained()
    text = tiny_gpt.CORPUS.read_text(encoding="utf-8")
    assert tok.chars == sorted(set(text)), "the checkpoint's vocabulary is not the corpus's: retrain (tiny_gpt.py train)"
    assert model.lm_head.weight is model.wte.weight            # weight tying survives save/load
    assert saved["history"]["val"][-1] < 2.5
    _, val = tiny_gpt.split_data(text, tok)
    assert tiny_gpt.estimate_loss(model, val, tiny_gpt.TrainConfig(), batches=2) < 2.5


def test_resume_from_a_checkpoint_equals_an_uninterrupted_run(tmp_path):
    text = tiny_gpt.CORPUS.read_text(encoding="utf-8")[:20_000]
    tok = tiny_gpt.CharTokenizer(text)
    train, val = tiny_gpt.split_data(text, tok)
    cfg = tiny_gpt.GPTConfig(vocab_size=tok.vocab_size, block_size=8, n_layer=1, n_head=2, n_embd=8)
    tc = tiny_gpt.TrainConfig(steps=4, batch_size=2, accum_steps=2, warmup=1, eval_every=2)
    quiet = lambda line: None  # noqa: E731
    learntorch.manual_seed(0)
    straight = tiny_gpt.GPT(cfg)
    tiny_gpt.train(straight, train, val, tc, log=quiet)
    learntorch.manual_seed(0)
    tiny_gpt.train(tiny_gpt.GPT(cfg), train, val, tc, checkpoint=tmp_path / "s.pt", stop_after=2, log=quiet)
    learntorch.manual_seed(1)
    resumed = tiny_gpt.GPT(cfg)
    tiny_gpt.train(resumed, train, val, tc, checkpoint=tmp_path / "s.pt", resume=True, log=quiet)
    for a, b in zip(straight.parameters(), resumed.parameters()):
        assert learntorch.equal(a, b)


def test_benchmark_block_learntorch():
    block, x = tiny_gpt.benchmark_block("learntorch")
    assert tuple(x.shape) == (8, 32, 64) and x.requires_grad
    assert block.attn.n_head == 4
    y = block(x)
    assert tuple(y.shape) == (8, 32, 64)
    y.sum().backward()
    assert x.grad is not None and all(p.grad is not None for p in block.parameters())


def test_benchmark_block_and_the_model_agree_with_pytorch():
    torch = pytest.importorskip("torch", reason=TORCH_REASON)
    (ours, x), (theirs, x_pt) = tiny_gpt.benchmark_block("learntorch"), tiny_gpt.benchmark_block("torch")
    assert isinstance(x_pt, torch.Tensor)
    np.testing.assert_array_equal(x.detach().numpy(), x_pt.detach().numpy())
    for (name, p), p_pt in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), p_pt.detach().numpy(), err_msg=name)
    y, y_pt = ours(x), theirs(x_pt)
    np.testing.assert_allclose(y.detach().numpy(), y_pt.detach().numpy(), rtol=1.3e-6, atol=1e-5)
    y.sum().backward()
    y_pt.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x_pt.grad.numpy(), rtol=1.3e-6, atol=1e-5)

    pt = tiny_gpt.under("torch")                       # the whole GPT, and generate, under PyTorch
    cfg = dict(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=16)
    learntorch.manual_seed(3)
    model = tiny_gpt.GPT(tiny_gpt.GPTConfig(**cfg))
    torch.manual_seed(3)
    model_pt = pt.GPT(pt.GPTConfig(**cfg))
    idx = np.array([[1, 2, 3, 4, 5, 6]])
    targets = np.array([[2, 3, 4, 5, 6, -1]])
    logits, loss = model(learntorch.tensor(idx), learntorch.tensor(targets))
    logits_pt, loss_pt = model_pt(torch.tensor(idx), torch.tensor(targets))
    np.testing.assert_allclose(logits.detach().numpy(), logits_pt.detach().numpy(), rtol=1.3e-6, atol=1e-5)
    assert abs(loss.item() - loss_pt.item()) < 1e-5
    out = model.generate(learntorch.tensor(idx), 5, top_k=3, generator=learntorch.Generator().manual_seed(0))
    out_pt = model_pt.generate(torch.tensor(idx), 5, top_k=3, generator=torch.Generator().manual_seed(0))
    assert out.tolist() == out_pt.tolist()
