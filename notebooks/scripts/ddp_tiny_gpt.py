"""Chapter 09: a few training steps of the tiny GPT with DistributedDataParallel (分布式数据并行) on MPI processes.

Chapter 08's ``ddp_iris.py``, now with the chapter's transformer. Every process (rank) runs this file:

    mpiexec -n 2 python ddp_tiny_gpt.py weights.pt
    python -m learntorch.distributed.run -n 2 ddp_tiny_gpt.py weights.pt

Each rank takes its share of every batch (``x.chunk(world_size)[rank]``); DDP averages the gradients, so
every rank takes the step of the whole batch. Rank 0 saves the weights to the path given. The notebook
runs ``train_steps`` in one process on the same batches and compares the weights.
"""
from __future__ import annotations

import sys

import learntorch as torch

from tiny_gpt import CORPUS, GPT, CharTokenizer, GPTConfig, get_batch

STEPS, BATCH_SIZE, LR = 4, 8, 0.5


def make_model(vocab_size: int, seed: int = 0) -> GPT:
    """The chapter's GPT (4 blocks of width 64, context 64), untrained, from ``seed``."""
    torch.manual_seed(seed)
    return GPT(GPTConfig(vocab_size=vocab_size))


def make_batches():
    """The tokenizer and ``STEPS`` batches of ``BATCH_SIZE`` windows, the same in every process."""
    text = CORPUS.read_text(encoding="utf-8")
    tok = CharTokenizer(text)
    data = torch.tensor(tok.encode(text), dtype=torch.long)
    g = torch.Generator().manual_seed(2024)
    return tok, [get_batch(data, BATCH_SIZE, GPTConfig.block_size, g) for _ in range(STEPS)]


def train_steps(model, batches, rank: int = 0, world_size: int = 1) -> float:
    """SGD steps (with momentum) on the batches; rank ``r`` of ``world_size`` uses the r-th share of each.
    Returns the last loss. (Not Adam: it would turn the rounding noise in the key bias's gradient, which is zero in
    exact arithmetic, into steps, and the weights could not be compared one by one; see the chapter, section 6.)"""
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    for x, y in batches:
        _, loss = model(x.chunk(world_size)[rank], y.chunk(world_size)[rank])
        opt.zero_grad()
        loss.backward()       # under DDP, hooks all-reduce (and average) the gradients during this call
        opt.step()
    return loss.item()


def main(out: str) -> None:
    import learntorch.distributed as dist
    from learntorch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    tok, batches = make_batches()
    model = DDP(make_model(tok.vocab_size, seed=rank))   # different seeds: DDP broadcasts rank 0's weights
    train_steps(model, batches, rank, world)
    if rank == 0:
        print(f"{world} ranks, {STEPS} SGD steps, {BATCH_SIZE // world} of the {BATCH_SIZE} sequences of "
              f"every batch on each rank; rank 0 saves the weights")
        torch.save(model.module.state_dict(), out)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
