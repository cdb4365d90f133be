"""Chapter 09: a tiny GPT (生成式预训练Transformer), nanoGPT style, and how to train it.

The model is the part the chapter reads line by line: token and position
embeddings, blocks of LayerNorm -> causal self-attention -> residual ->
LayerNorm -> MLP -> residual, a final LayerNorm and an output layer that shares
its weight with the token embedding (weight tying). About 100 lines, written
only with PyTorch's public API: the file runs unchanged under PyTorch (see
``under``).

    python tiny_gpt.py corpus     # rewrite data/course_prose.txt from notebooks/0[1-8]_*.ipynb
    python tiny_gpt.py train      # 1500 steps on the CPU (minutes) -> data/tiny_gpt.pt
    python tiny_gpt.py train --steps 20 --resume   # go on from the last full checkpoint

The chapter's notebook imports this file (as chapter 08's imports ddp_iris.py),
so do ``ddp_tiny_gpt.py`` (the same model on MPI processes) and
``benchmarks/run.py`` (:func:`benchmark_block`).
"""
from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import learntorch as torch          # `import torch` instead: this file runs unchanged under PyTorch
import learntorch.nn.functional as F
from learntorch import nn

ROOT = Path(__file__).resolve().parents[2]            # the repository
CORPUS = ROOT / "data" / "course_prose.txt"
CHECKPOINT = ROOT / "data" / "tiny_gpt.pt"


# ----------------------------------------------------------------------------- the model


@dataclass
class GPTConfig:
    vocab_size: int = 128
    block_size: int = 64      # the longest context the model sees
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 64


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.n_head, self.n_embd = config.n_head, config.n_embd
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)   # query, key, value of all heads at once
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.softmax = nn.Softmax(dim=-1)                           # a module, so that a forward hook sees the maps
        T = config.block_size
        self.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T), persistent=False)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)   # (B, nh, T, hs)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))   # (B, nh, T, T)
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = self.softmax(att)
        y = att @ v                                                        # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)                   # heads side by side again
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.gelu = nn.GELU(approximate="tanh")                   # GPT-2's GELU
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))    # pre-LayerNorm, then a residual connection
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)    # token embedding
        self.wpe = nn.Embedding(config.block_size, config.n_embd)    # position embedding
        self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.wte.weight = self.lm_head.weight                         # weight tying: one matrix, two uses
        self.apply(self._init_weights)
        for name, p in self.named_parameters():                       # GPT-2: scale the residual projections
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        B, T = idx.size()
        assert T <= self.config.block_size, f"sequence of {T} tokens, block_size is {self.config.block_size}"
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)                             # (B, T, C) + (T, C)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))                           # (B, T, vocab_size)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, generator=None):
        for _ in range(max_new_tokens):
            context = idx[:, -self.config.block_size:]                # crop to the last block_size tokens
            logits, _ = self(context)
            logits = logits[:, -1, :] / temperature                   # the last position predicts the next
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits = logits.masked_fill(logits < v[:, [-1]], float("-inf"))
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1, generator=generator)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


# ----------------------------------------------------------------------------- the data


def course_prose(notebooks=None) -> str:
    """The markdown cells of chapters 01-08 (notebooks/0[1-8]_*.ipynb), in order, one blank line apart.
    (Not chapter 09's own: the model learns the chapters that come before it.)"""
    import json
    paths = notebooks or sorted((ROOT / "notebooks").glob("0[1-8]_*.ipynb"))
    cells = []
    for path in paths:
        for cell in json.loads(Path(path).read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                source = cell["source"]
                cells.append(("".join(source) if isinstance(source, list) else source).strip())
    return "\n\n".join(cells) + "\n"


class CharTokenizer:
    """Character-level tokenizer (分词器): every distinct character of the text is one token."""

    def __init__(self, text: str):
        self.chars = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.chars)}

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, s: str) -> list[int]:
        return [self.stoi[c] for c in s]

    def decode(self, ids) -> str:
        return "".join(self.chars[i] for i in ids)


def get_batch(data, batch_size, block_size, generator=None):
    """``batch_size`` random windows of the token tensor ``data``: inputs and the same shifted by one."""
    ix = torch.randint(len(data) - block_size, (batch_size,), generator=generator)
    x = torch.stack([data[i:i + block_size] for i in ix.tolist()])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix.tolist()])
    return x, y


# ----------------------------------------------------------------------------- training


@dataclass
class TrainConfig:
    steps: int = 1500           # optimizer steps
    batch_size: int = 16        # sequences per micro-batch
    accum_steps: int = 2        # micro-batches per step: 32 sequences of block_size tokens per step
    lr: float = 3e-3
    min_lr: float = 3e-4
    warmup: int = 100
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    eval_every: int = 100
    seed: int = 1337


def lr_factor(step: int, tc: TrainConfig) -> float:
    """Linear warm-up (预热) for ``warmup`` steps, then a cosine from ``lr`` down to ``min_lr``."""
    if step < tc.warmup:
        return (step + 1) / tc.warmup
    progress = min(1.0, (step - tc.warmup) / max(1, tc.steps - tc.warmup))
    return (tc.min_lr + 0.5 * (tc.lr - tc.min_lr) * (1 + math.cos(math.pi * progress))) / tc.lr


def make_optimizer(model, tc: TrainConfig):
    """AdamW; weight decay on the matrices only (not on biases, LayerNorm weights), as nanoGPT does."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": tc.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=tc.lr, betas=(0.9, 0.95))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: lr_factor(step, tc))
    return opt, sched


@torch.no_grad()
def estimate_loss(model, data, tc: TrainConfig, batches: int = 8, seed: int = 0) -> float:
    """Mean loss over a fixed set of ``batches`` batches (the same windows every call)."""
    model.eval()
    g = torch.Generator().manual_seed(seed)
    losses = [model(*get_batch(data, tc.batch_size, model.config.block_size, g))[1].item() for _ in range(batches)]
    model.train()
    return sum(losses) / len(losses)


def train(model, train_data, val_data, tc: TrainConfig, checkpoint=None, resume=False, stop_after=None, log=print):
    """Train ``model`` for ``tc.steps`` steps: AdamW, warm-up + cosine learning rate, gradient
    accumulation (梯度累加) over ``tc.accum_steps`` micro-batches, ``clip_grad_norm_``.

    ``checkpoint``: a file that receives everything needed to go on (model, optimizer, scheduler,
    the batch generator's state, the step and the loss history) every ``eval_every`` steps and at the
    end; with ``resume=True`` training starts from it. ``stop_after``: stop after that many steps in
    all, as if the machine had gone down (the schedule still runs over ``tc.steps``). Returns the
    history dict."""
    opt, sched = make_optimizer(model, tc)
    g = torch.Generator().manual_seed(tc.seed)
    history = {"step": [], "train": [], "val": []}
    start = 0
    if resume:
        state = torch.load(checkpoint)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        g.set_state(state["generator"])
        history, start = state["history"], state["step"]
    model.train()
    for step in range(start, tc.steps):
        total = 0.0
        for _ in range(tc.accum_steps):
            x, y = get_batch(train_data, tc.batch_size, model.config.block_size, g)
            _, loss = model(x, y)
            (loss / tc.accum_steps).backward()      # gradients add up over the micro-batches
            total += loss.item() / tc.accum_steps
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), tc.grad_clip)
        opt.step()
        opt.zero_grad(set_to_none=True)
        sched.step()
        done = step + 1
        if done % tc.eval_every == 0 or done == tc.steps or done == stop_after:
            history["step"].append(done)
            history["train"].append(total)
            history["val"].append(estimate_loss(model, val_data, tc))
            log(f"step {done:5d}  lr {sched.get_last_lr()[0]:.2e}  loss {total:.3f}  "
                f"val {history['val'][-1]:.3f}  |grad| {float(norm):.2f}")
            if checkpoint is not None:
                torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                            "scheduler": sched.state_dict(), "generator": g.get_state(),
                            "step": done, "history": history}, checkpoint)
        if done == stop_after:
            break
    return history


# ----------------------------------------------------------------------------- the same file under PyTorch


def under(library: str = "torch"):
    """This file as a new module that runs on ``library`` ("torch" or "learntorch"): its three import
    lines with ``learntorch`` replaced, nothing else. The notebook uses it to run the same model
    under PyTorch; benchmarks/run.py to time both."""
    import types
    source = Path(__file__).read_text(encoding="utf-8")
    for line in ("import learntorch as torch", "import learntorch.nn.functional as F", "from learntorch import nn"):
        assert line in source
        source = source.replace(line, line.replace("learntorch", library), 1)
    module = types.ModuleType(f"tiny_gpt_{library}")
    module.__file__ = __file__
    sys.modules[module.__name__] = module            # dataclasses look their module up there
    exec(compile(source, __file__, "exec"), module.__dict__)
    return module


def benchmark_block(library: str = "learntorch", d: int = 64, n_head: int = 4, T: int = 32, batch: int = 8,
                    seed: int = 0):
    """The chapter's transformer block (pre-LayerNorm attention + MLP) and an input ``(batch, T, d)``,
    built with ``library`` ("learntorch" or "torch") from the same seed: the same weights and the same
    input under both. For benchmarks/run.py::

        block, x = benchmark_block("learntorch")
        block(x).sum().backward()
    """
    lib = sys.modules[__name__] if library == "learntorch" else under(library)
    lib.torch.manual_seed(seed)
    block = lib.Block(lib.GPTConfig(block_size=T, n_head=n_head, n_embd=d))
    x = lib.torch.randn(batch, T, d, requires_grad=True)
    return block, x


# ----------------------------------------------------------------------------- command line


def load_trained(path=CHECKPOINT):
    """The shipped model: (model, tokenizer, saved dict with the config and the loss history)."""
    saved = torch.load(path)
    model = GPT(GPTConfig(**saved["config"]))
    model.load_state_dict(saved["model"])
    model.eval()
    return model, CharTokenizer("".join(saved["chars"])), saved


def split_data(text: str, tokenizer: CharTokenizer):
    data = torch.tensor(tokenizer.encode(text), dtype=torch.long)
    n = int(0.9 * len(data))
    return data[:n], data[n:]


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["corpus", "train"])
    parser.add_argument("--steps", type=int, default=TrainConfig.steps)
    parser.add_argument("--resume", action="store_true", help="go on from --state")
    parser.add_argument("--state", default=str(ROOT / "build" / "tiny_gpt_state.pt"),
                        help="the full checkpoint (model + optimizer + ...), written while training")
    parser.add_argument("--out", default=str(CHECKPOINT), help="the small checkpoint (weights) for the notebook")
    args = parser.parse_args(argv)
    if args.command == "corpus":
        CORPUS.write_text(course_prose(), encoding="utf-8")
        print(f"wrote {CORPUS} ({len(CORPUS.read_text(encoding='utf-8'))} characters)")
        return 0
    text = CORPUS.read_text(encoding="utf-8")
    tok = CharTokenizer(text)
    train_data, val_data = split_data(text, tok)
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=tok.vocab_size))
    tc = TrainConfig(steps=args.steps)
    Path(args.state).parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    history = train(model, train_data, val_data, tc, checkpoint=args.state, resume=args.resume)
    seconds = time.perf_counter() - start
    torch.save({"model": model.state_dict(), "config": asdict(model.config), "chars": tok.chars,
                "train_config": asdict(tc), "history": history, "seconds": seconds}, args.out)
    print(f"trained {tc.steps} steps in {seconds:.0f} s; weights in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
