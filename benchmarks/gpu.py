"""learntorch on a GPU (CuPy) against PyTorch on the same GPU: training steps, as ratios.

Not a test, and not part of ``make bench``: it needs an NVIDIA GPU with CuPy and a CUDA
build of PyTorch in the same Python.  Both libraries run the same step functions as
``run.py`` (the MLP of ``mlp_model.py`` and chapter 09's transformer block), from the same
weights, checked to give the same first loss before anything is timed.  Each step ends
with ``loss.item()``, which waits for the GPU, so a step's wall time is its GPU time plus
the Python that launched it.

    python benchmarks/gpu.py            # about a minute
    python benchmarks/gpu.py --quick
    python benchmarks/gpu.py --profile 2     # cProfile of learntorch's step in case 2 (0-based)

What to expect: at small sizes the GPU waits for Python, and learntorch launches several
kernels (and Python calls) per operation where PyTorch launches one; at large sizes both
wait for the same cuBLAS products and the ratio tends to 1.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)
import learntorch  # noqa: E402
import torch  # noqa: E402
from mlp_model import init_weights, make_model  # noqa: E402
from run import block_step, copy_state, make_block, mlp_step  # noqa: E402


def median_seconds(step: Callable[[], Any], repeats: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        step()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()  # ends with loss.item(): the GPU has finished
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def mlp_steps(batch: int) -> dict[str, Callable[[], float]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    steps = {}
    for lib in (learntorch, torch):
        model, opt, loss_fn = make_model(lib, init_weights())
        model.to("cuda")
        args = (model, opt, loss_fn, lib.tensor(x, device="cuda"), lib.tensor(y, device="cuda"))
        steps[lib.__name__] = lambda args=args: mlp_step(*args)
    return steps


def block_steps(batch: int, t: int, d: int, heads: int) -> dict[str, Callable[[], float]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, t, d)).astype(np.float32)
    target = rng.standard_normal((batch, t, d)).astype(np.float32)
    learntorch.manual_seed(0)
    blocks = {"learntorch": make_block(learntorch, d, heads, t)}
    blocks["torch"] = make_block(torch, d, heads, t)
    copy_state(blocks["learntorch"], blocks["torch"], torch)
    steps = {}
    for lib in (learntorch, torch):
        block = blocks[lib.__name__].to("cuda")
        opt = lib.optim.AdamW(block.parameters(), lr=1e-3, weight_decay=0.01)
        args = (lib, block, opt, lib.tensor(x, device="cuda"), lib.tensor(target, device="cuda"))
        steps[lib.__name__] = lambda args=args: block_step(*args)
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--profile", type=int, metavar="CASE", help="cProfile learntorch's step in this case")
    args = parser.parse_args()
    if not (learntorch.cuda.is_available() and torch.cuda.is_available()):
        print("gpu.py needs a GPU that both CuPy (learntorch) and PyTorch can use", file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False  # CuPy's float32 products do not use TF32 either
    torch.backends.cudnn.allow_tf32 = False
    repeats = 5 if args.quick else 21
    cases = [(f"MLP 784-512-256-10 SGD step, batch {b}", lambda b=b: mlp_steps(b)) for b in (256, 4096, 65536)]
    cases += [(f"transformer block AdamW step, B={b} T={t} d={d} h={h}", lambda c=(b, t, d, h): block_steps(*c))
              for b, t, d, h in ((8, 32, 64, 4), (32, 256, 512, 8))]
    print(f"{learntorch.cuda.get_device_name()}; torch {torch.__version__}; "
          f"CuPy {learntorch.cuda.cupy_or_none().__version__}; median of {repeats} steps each")
    if args.profile is not None:
        import cProfile
        import pstats
        name, make = cases[args.profile]
        step = make()["learntorch"]
        step()
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [step() for _ in range(repeats)])
        print(f"learntorch, {name}, {repeats} steps:")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return 0
    print(f"{'case':58} {'learntorch ms':>14} {'torch ms':>10} {'ratio':>7}")
    for name, make in cases:
        steps = make()
        first = {lib: step() for lib, step in steps.items()}
        if not np.isclose(first["learntorch"], first["torch"], rtol=1e-4, atol=1e-5):
            raise AssertionError(f"{name}: first losses differ: {first}")
        ms = {lib: 1e3 * median_seconds(step, repeats) for lib, step in steps.items()}
        print(f"{name:58} {ms['learntorch']:14.3f} {ms['torch']:10.3f} {ms['learntorch'] / ms['torch']:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
