"""learntorch benchmarks: speed against PyTorch and against hand-written NumPy, in one run.

Not a test: it prints ratios, measured here and now, so they can be compared
with the targets in the issues.  Every comparison is run interleaved (A, B, A,
B, …) with the same thread count for all libraries, and reports medians.

    python benchmarks/run.py            # all cases
    python benchmarks/run.py --quick    # fewer repeats

Cases
-----
* ``small-op chain``: 20 element-wise ops on a (16, 16) tensor plus backward —
  the per-op overhead of the Python autograd (target: ≤ 3× PyTorch per op).
* ``matmul-heavy``: forward + backward of a 3-layer MLP on (512, 1024) inputs —
  where BLAS does the work (target: ≤ 1.15× the same maths by hand in NumPy).
* ``GRU``: forward + backward of ``nn.GRU(32, 64, num_layers=2, bidirectional=True)`` on a
  padded batch (L=20, N=16) — a Python loop over time steps of small ops (ratio to PyTorch).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from typing import Callable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import learntorch  # noqa: E402

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None


def machine_line() -> str:
    """Cores, BLAS and threads: the context every figure needs."""
    try:
        from threadpoolctl import threadpool_info
        blas = ", ".join(f"{i['internal_api']} {i.get('version')} ({i['num_threads']} threads)"
                         for i in threadpool_info() if i.get("user_api") == "blas")
    except ImportError:
        blas = "threadpoolctl not installed"
    threads = torch.get_num_threads() if torch is not None else "n/a"
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; numpy {np.__version__} BLAS: "
            f"{blas}; torch {torch.__version__ if torch else 'absent'} threads={threads}")


def interleaved(funcs: dict[str, Callable[[], None]], repeats: int, inner: int) -> dict[str, float]:
    """Median seconds per call of each function, measured in alternation."""
    for f in funcs.values():  # warm-up
        f()
    samples: dict[str, list[float]] = {k: [] for k in funcs}
    for _ in range(repeats):
        for name, f in funcs.items():
            start = time.perf_counter()
            for _ in range(inner):
                f()
            samples[name].append((time.perf_counter() - start) / inner)
    return {k: statistics.median(v) for k, v in samples.items()}


# ----------------------------------------------------------------------------- small ops
N_OPS = 20


def chain(lib, x):
    y = x
    for _ in range(N_OPS // 4):
        y = (y * 1.01 + 0.5).tanh() - y * 0.5
    return y.sum()


def small_op_case(repeats: int) -> None:
    x_np = np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32)
    lx = learntorch.tensor(x_np, requires_grad=True)

    def run_lt():
        lx.grad = None
        chain(learntorch, lx).backward()

    funcs = {"learntorch": run_lt}
    if torch is not None:
        tx = torch.tensor(x_np, requires_grad=True)

        def run_t():
            tx.grad = None
            chain(torch, tx).backward()
        funcs["torch"] = run_t
        lt = chain(learntorch, lx).item()
        tt = chain(torch, tx).item()
        assert abs(lt - tt) <= 1e-3 * max(1.0, abs(tt)), (lt, tt)
    t = interleaved(funcs, repeats, 20)
    per_op = {k: v / N_OPS * 1e6 for k, v in t.items()}
    line = f"small-op chain ({N_OPS} ops + backward): learntorch {per_op['learntorch']:.1f} µs/op"
    if "torch" in per_op:
        line += f", torch {per_op['torch']:.1f} µs/op, ratio {per_op['learntorch'] / per_op['torch']:.2f}x (target <= 3x)"
    print(line)


# ----------------------------------------------------------------------------- matmul heavy
def mlp_case(repeats: int) -> None:
    rng = np.random.default_rng(0)
    B, D, H, O = 512, 1024, 1024, 256
    x = rng.standard_normal((B, D)).astype(np.float32)
    w1 = (rng.standard_normal((D, H)) * 0.03).astype(np.float32)
    w2 = (rng.standard_normal((H, H)) * 0.03).astype(np.float32)
    w3 = (rng.standard_normal((H, O)) * 0.03).astype(np.float32)

    def numpy_step():
        h1 = x @ w1
        a1 = np.maximum(h1, 0)
        h2 = a1 @ w2
        a2 = np.maximum(h2, 0)
        out = a2 @ w3
        loss = (out * out).sum()
        g_out = 2 * out
        g_w3 = a2.T @ g_out
        g_a2 = g_out @ w3.T
        g_h2 = g_a2 * (h2 > 0)
        g_w2 = a1.T @ g_h2
        g_a1 = g_h2 @ w2.T
        g_h1 = g_a1 * (h1 > 0)
        g_w1 = x.T @ g_h1
        return loss, g_w1, g_w2, g_w3

    lx = learntorch.from_numpy(x)
    lw = [learntorch.tensor(w, requires_grad=True) for w in (w1, w2, w3)]

    def lt_step():
        for w in lw:
            w.grad = None
        out = lx.mm(lw[0]).relu().mm(lw[1]).relu().mm(lw[2])
        loss = (out * out).sum()
        loss.backward()
        return loss

    funcs = {"numpy": numpy_step, "learntorch": lt_step}
    if torch is not None:
        tx = torch.from_numpy(x)
        tw = [torch.tensor(w, requires_grad=True) for w in (w1, w2, w3)]

        def t_step():
            for w in tw:
                w.grad = None
            out = tx.mm(tw[0]).relu().mm(tw[1]).relu().mm(tw[2])
            (out * out).sum().backward()
        funcs["torch"] = t_step
    ref = numpy_step()
    got = lt_step()
    np.testing.assert_allclose(got.item(), ref[0], rtol=1e-4)
    np.testing.assert_allclose(lw[0].grad.numpy(), ref[1], rtol=1e-3, atol=1e-3)
    t = interleaved(funcs, repeats, 1)
    line = (f"matmul-heavy MLP fwd+bwd (B={B}, {D}-{H}-{H}-{O}): numpy {t['numpy'] * 1e3:.1f} ms, learntorch "
            f"{t['learntorch'] * 1e3:.1f} ms, ratio {t['learntorch'] / t['numpy']:.3f}x (target <= 1.15x)")
    if "torch" in t:
        line += f", torch {t['torch'] * 1e3:.1f} ms ({t['learntorch'] / t['torch']:.2f}x torch)"
    print(line)


# ----------------------------------------------------------------------------- GRU
def gru_case(repeats: int) -> None:
    L, N, I, H = 20, 16, 32, 64
    x_np = np.random.default_rng(0).standard_normal((L, N, I)).astype(np.float32)
    learntorch.manual_seed(0)
    lgru = learntorch.nn.GRU(I, H, num_layers=2, bidirectional=True)
    lx = learntorch.tensor(x_np, requires_grad=True)

    def run_lt():
        lgru.zero_grad()
        lx.grad = None
        out, h = lgru(lx)
        (out.sum() + h.sum()).backward()
        return out

    funcs = {"learntorch": run_lt}
    if torch is not None:
        torch.manual_seed(0)
        tgru = torch.nn.GRU(I, H, num_layers=2, bidirectional=True)
        tx = torch.tensor(x_np, requires_grad=True)

        def run_t():
            tgru.zero_grad()
            tx.grad = None
            out, h = tgru(tx)
            (out.sum() + h.sum()).backward()
            return out
        funcs["torch"] = run_t
        np.testing.assert_allclose(run_lt().detach().numpy(), run_t().detach().numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    t = interleaved(funcs, repeats, 1)
    line = (f"GRU fwd+bwd ({I}->{H}, 2 layers, bidirectional, L={L}, N={N}, padded): learntorch "
            f"{t['learntorch'] * 1e3:.1f} ms")
    if "torch" in t:
        line += f", torch {t['torch'] * 1e3:.2f} ms, ratio {t['learntorch'] / t['torch']:.1f}x"
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    args = parser.parse_args()
    if torch is not None:
        torch.set_num_threads(int(os.environ.get("BENCH_THREADS", os.cpu_count() or 1)))
    repeats = 5 if args.quick else 21
    print(machine_line())
    small_op_case(repeats)
    mlp_case(max(3, repeats // 3))
    gru_case(repeats)


if __name__ == "__main__":
    main()
