"""Training-step benchmark (issue: optim and gradient accumulation).

An MLP 784-512-256-10 with ReLU, cross-entropy and plain SGD, float32, trained
three ways in one run, interleaved, with the same thread count:

* learntorch (``import learntorch as torch``),
* the same step written by hand in NumPy,
* PyTorch on the CPU (when installed).

All three start from the same weights and must compute the same first-step
loss.  Then, memory: 300 steps must not grow peak RSS or traced memory after
warm-up, and one backward at batch 2048 is compared with 4 accumulated
micro-batches of 512 (learntorch against NumPy, peak traced memory).

    python benchmarks/train_mlp.py [--quick] [--threads N] [--cpu-time]

On a machine shared with other work, ``--threads 1 --cpu-time`` gives the
steadiest ratios: each step is timed by its thread's CPU time, which other
processes cannot inflate by taking the core away.

Threads.  NumPy and learntorch share NumPy's BLAS (OpenBLAS); PyTorch has its own
(MKL and OpenMP).  All get the same count: ``--threads`` (or ``BENCH_THREADS``,
default: all cores) is set for OpenBLAS, OpenMP and MKL *before* NumPy is
imported, and with ``torch.set_num_threads``.  With more than one thread, each
library's idle workers keep spinning for a while after a call (OpenBLAS's for up
to about 0.1 s): when the libraries take turns, one library's spinning workers
occupy the cores the next one needs, which made PyTorch look 2-5x slower than it
is at small batches.  So each timed block starts after a short pause
(``SETTLE_S``) in which the previous library's workers go to sleep: every
library is measured as if it ran alone.
"""
from __future__ import annotations

import argparse
import gc
import os
import platform
import resource
import statistics
import sys
import time
import tracemalloc


def _thread_count() -> int:
    """``--threads N`` or ``BENCH_THREADS`` (default: all cores), read before NumPy is imported."""
    argv = sys.argv[1:]
    for i, arg in enumerate(argv):
        if arg.startswith("--threads="):
            return int(arg.split("=", 1)[1])
        if arg == "--threads" and i + 1 < len(argv):
            return int(argv[i + 1])
    return int(os.environ.get("BENCH_THREADS", os.cpu_count() or 1))


THREADS = _thread_count()
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(THREADS)  # the BLAS pools read these once, when they load
SETTLE_S = 0.2 if THREADS > 1 else 0.0  # OpenBLAS's workers spin ~2**28 cycles before sleeping

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import learntorch  # noqa: E402
from mlp_model import LR, SIZES, init_weights, make_model  # noqa: E402  (benchmarks/mlp_model.py)

try:
    import torch
except ImportError:
    torch = None

def data(batch: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((batch, SIZES[0])).astype(np.float32), rng.integers(0, 10, batch)


class NumpyMLP:
    """The same training step, derived by hand: forward, softmax cross-entropy, backward, SGD."""

    def __init__(self, weights: list[np.ndarray]) -> None:
        self.p = [w.copy() for w in weights]

    def grads(self, x: np.ndarray, y: np.ndarray, scale: float = 1.0) -> tuple[float, list[np.ndarray]]:
        w1, b1, w2, b2, w3, b3 = self.p
        h1 = np.maximum(x @ w1.T + b1, 0)
        h2 = np.maximum(h1 @ w2.T + b2, 0)
        z = h2 @ w3.T + b3
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        n = len(y)
        loss = -logp[np.arange(n), y].mean()
        g = np.exp(logp)
        g[np.arange(n), y] -= 1
        g *= scale / n
        gw3, gb3 = g.T @ h2, g.sum(0)
        g2 = (g @ w3) * (h2 > 0)
        gw2, gb2 = g2.T @ h1, g2.sum(0)
        g1 = (g2 @ w2) * (h1 > 0)
        gw1, gb1 = g1.T @ x, g1.sum(0)
        return float(loss), [gw1, gb1, gw2, gb2, gw3, gb3]

    def step(self, x: np.ndarray, y: np.ndarray) -> float:
        loss, grads = self.grads(x, y)
        for p, g in zip(self.p, grads):
            p -= LR * g
        return loss


def lib_step(lib, model, opt, loss_fn, x, y) -> float:
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


def speed(batches: tuple[int, ...], repeats: int, clock=time.perf_counter) -> None:
    weights = init_weights()
    for batch in batches:
        xn, yn = data(batch)
        np_model = NumpyMLP(weights)
        lt = make_model(learntorch, weights)
        lx, ly = learntorch.from_numpy(xn), learntorch.from_numpy(yn)
        funcs = {"numpy": lambda: np_model.step(xn, yn),
                 "learntorch": lambda: lib_step(learntorch, *lt, lx, ly)}
        first = {"numpy": np_model.step(xn, yn), "learntorch": lib_step(learntorch, *lt, lx, ly)}
        if torch is not None:
            tt = make_model(torch, weights)
            tx, ty = torch.from_numpy(xn), torch.from_numpy(yn)
            funcs["torch"] = lambda: lib_step(torch, *tt, tx, ty)
            first["torch"] = lib_step(torch, *tt, tx, ty)
        ref = first["numpy"]
        assert all(p.dtype == np.float32 for p in np_model.p), "the NumPy reference must stay float32"
        assert all(abs(v - ref) <= 1e-4 * max(1, abs(ref)) for v in first.values()), first
        # Each timed block runs long enough (tens of ms) that waking the BLAS
        # workers after the pause is not what gets measured; one untimed call
        # after the pause wakes them.
        inner = max(2, 2048 // batch)
        samples = {k: [] for k in funcs}
        for _ in range(repeats):
            for name, f in funcs.items():
                if SETTLE_S:
                    time.sleep(SETTLE_S)  # let the other libraries' idle BLAS workers stop spinning
                    f()  # untimed: wakes this library's workers
                t0 = clock()
                for _ in range(inner):
                    f()
                samples[name].append((clock() - t0) / inner)
        med = {k: statistics.median(v) for k, v in samples.items()}
        line = (f"batch {batch:5d}: first-step loss {ref:.5f} (all agree); numpy {med['numpy'] * 1e3:7.2f} ms, "
                f"learntorch {med['learntorch'] * 1e3:7.2f} ms = {med['learntorch'] / med['numpy']:.2f}x numpy")
        if "torch" in med:
            line += (f", torch {med['torch'] * 1e3:7.2f} ms = {med['torch'] / med['numpy']:.2f}x numpy; "
                     f"learntorch/torch {med['learntorch'] / med['torch']:.2f}x")
        print(line)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def no_growth(steps: int) -> None:
    """The graph is freed after each backward: memory must not creep up."""
    weights = init_weights()
    model = make_model(learntorch, weights)
    xn, yn = data(256)
    x, y = learntorch.from_numpy(xn), learntorch.from_numpy(yn)
    for _ in range(20):  # warm-up
        lib_step(learntorch, *model, x, y)
    tracemalloc.start()
    rss0 = peak_rss_mb()
    lib_step(learntorch, *model, x, y)
    _, peak0 = tracemalloc.get_traced_memory()
    for _ in range(steps):
        lib_step(learntorch, *model, x, y)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss1 = peak_rss_mb()
    print(f"{steps} steps at batch 256: peak RSS {rss0:.1f} -> {rss1:.1f} MB; traced peak {peak0 / 2**20:.2f} -> "
          f"{peak / 2**20:.2f} MB, traced now {current / 2**20:.2f} MB")


def traced_peak(fn) -> float:
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def accumulation_memory() -> None:
    """One backward of 2048 against 4 accumulated micro-batches of 512."""
    weights = init_weights()
    xn, yn = data(2048)
    np_model = NumpyMLP(weights)

    def np_big():
        np_model.grads(xn, yn)

    def np_acc():
        total = None
        for i in range(4):
            _, g = np_model.grads(xn[i * 512:(i + 1) * 512], yn[i * 512:(i + 1) * 512], scale=0.25)
            total = g if total is None else [a + b for a, b in zip(total, g)]

    model, opt, loss_fn = make_model(learntorch, weights)
    x, y = learntorch.from_numpy(xn), learntorch.from_numpy(yn)

    def lt_big():
        opt.zero_grad()
        loss_fn(model(x), y).backward()

    def lt_acc():
        opt.zero_grad()
        for i in range(4):
            (loss_fn(model(x[i * 512:(i + 1) * 512]), y[i * 512:(i + 1) * 512]) / 4).backward()

    lt_big()  # allocate .grad once so both runs start alike
    res = {name: traced_peak(f) for name, f in (("numpy big", np_big), ("numpy acc", np_acc),
                                                ("learntorch big", lt_big), ("learntorch acc", lt_acc))}
    print(f"peak traced memory, batch 2048 vs 4 x 512: numpy {res['numpy big']:.1f} -> {res['numpy acc']:.1f} MB "
          f"({res['numpy big'] / res['numpy acc']:.2f}x less); learntorch {res['learntorch big']:.1f} -> "
          f"{res['learntorch acc']:.1f} MB ({res['learntorch big'] / res['learntorch acc']:.2f}x less)")


def machine_line() -> str:
    """Cores, BLAS, threads and load: the context every figure needs (the machine may be shared)."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # noqa: BLE001 - only a label
        blas = "unknown BLAS"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{platform.machine()}, {os.cpu_count()} cores, load average {load}; numpy {np.__version__} ({blas}); "
            f"torch {torch.__version__ if torch is not None else 'absent'}; {THREADS} thread(s) for all"
            + (f", {SETTLE_S} s pause before each timed block" if SETTLE_S else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=THREADS,
                        help="threads for every library (read before NumPy loads; default: BENCH_THREADS or all cores)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time the thread's CPU time, not the wall clock (with --threads 1): steadier on a "
                             "machine shared with other work, which then steals no time from the figures")
    args = parser.parse_args()
    if args.cpu_time and THREADS != 1:
        parser.error("--cpu-time measures one thread: use it with --threads 1")
    if torch is not None:
        torch.set_num_threads(THREADS)
    print(machine_line() + ("; CPU time of the one thread" if args.cpu_time else "; wall clock"))
    # Importing torch leaves ~145,000 objects that the cyclic garbage collector
    # would walk at every full collection, a cost that learntorch (which makes
    # Python objects per step) would pay here and not in a program without torch.
    # Freezing moves what exists now out of the collector's sight (Python >= 3.7).
    gc.collect()
    gc.freeze()
    speed((32, 256, 2048), 3 if args.quick else 11, time.thread_time if args.cpu_time else time.perf_counter)
    no_growth(50 if args.quick else 300)
    accumulation_memory()


if __name__ == "__main__":
    main()
