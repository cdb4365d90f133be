"""Chapter 08: the iris MLP trained with DistributedDataParallel (分布式数据并行) on MPI processes.

Start it with a launcher (启动器); every process (a rank, 进程编号) runs this same file:

    mpiexec -n 2 python ddp_iris.py weights.pt
    python -m learntorch.distributed.run -n 2 ddp_iris.py weights.pt

Rank 0 prints every rank's time and last loss, in rank order, and saves the
trained weights to the path given. The chapter's notebook imports ``load_data``,
``make_model`` and ``train`` from this file, so that its single-device and
DataParallel runs use exactly the same data, initial weights and batches as the
processes here.
"""
from __future__ import annotations

import sys
import time

import learntorch as torch
import learntorch.nn.functional as F
from learntorch import nn
from learntorch.datasets import load_iris

EPOCHS, BATCH_SIZE, LR, SEED = 20, 40, 0.1, 0


def load_data() -> tuple[torch.Tensor, torch.Tensor]:
    """The 150 iris flowers, features standardised (mean 0, std 1 per column)."""
    X, y = load_iris()
    return (X - X.mean(0)) / X.std(0), y


def make_model(seed: int = SEED) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))


def batches(n: int, epoch: int) -> tuple[torch.Tensor, ...]:
    """Shuffled batches of indices. The order depends only on the epoch, so every rank
    and every run cuts the data the same way (what DistributedSampler arranges in PyTorch)."""
    order = torch.randperm(n, generator=torch.Generator().manual_seed(1000 + epoch))
    return order.split(BATCH_SIZE)


def train(model: nn.Module, X: torch.Tensor, y: torch.Tensor, rank: int = 0, world_size: int = 1,
          device: str = "cpu", epochs: int = EPOCHS) -> float:
    """Plain SGD on the cross-entropy; returns the last loss.

    Rank ``r`` of ``world_size`` trains on the r-th part of every batch (all of it when
    ``world_size`` is 1); the batch goes to ``device`` (DataParallel wants it on its first device).
    """
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    for epoch in range(epochs):
        for idx in batches(len(X), epoch):
            mine = idx.chunk(world_size)[rank]
            xb, yb = X[mine].to(device), y[mine].to(device)
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()      # under DDP, hooks all-reduce the gradients during this call
            opt.step()
    return loss.item()


def main(out: str) -> None:
    import learntorch.distributed as dist
    from learntorch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    X, y = load_data()
    # A different seed on each rank, on purpose: DDP broadcasts rank 0's weights when it wraps the model.
    model = DDP(make_model(SEED + rank))
    start = time.perf_counter()
    loss = train(model, X, y, rank, world)
    seconds = time.perf_counter() - start
    # Rank 0 reports for everyone, in rank order: ranks printing for themselves would write
    # at the same time, and their lines would come out interleaved, in any order.
    mine = torch.tensor([seconds, loss], dtype=torch.float64)
    everyone = [torch.zeros(2, dtype=torch.float64) for _ in range(world)] if rank == 0 else None
    dist.gather(mine, everyone, dst=0)
    if rank == 0:
        for r, (secs, last) in enumerate(t.tolist() for t in everyone):
            print(f"rank {r} of {world}: {EPOCHS} epochs in {secs:.3f} s, last loss on my share {last:.4f}")
        torch.save(model.module.state_dict(), out)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
