"""learntorch's speed against PyTorch and against hand-written NumPy, measured in one run.

Not a test: it prints figures and ratios measured here and now, each beside the
target it is held to, so that an optimisation can be judged by a before/after
pair of runs (``--json``, ``--compare``).

    python benchmarks/run.py                      # every case (about a minute)
    python benchmarks/run.py --quick              # fewer, shorter repetitions (seconds)
    python benchmarks/run.py --case mlp-32 --case gru
    python benchmarks/run.py --json after.json --compare before.json
    python benchmarks/run.py --profile small-op   # cProfile of learntorch on one case

Fairness
--------
* One process imports NumPy, PyTorch and learntorch; every case runs each of them
  in turn, interleaved (A B C, B C A, C A B, ...), and reports the median of the
  repetitions (``--stat min``: the fastest).  Each timed block repeats its call
  enough times to last about ``--block-ms`` (calibrated per library), so the
  clock's overhead is negligible.
* One thread for all (``--threads``, default 1): OPENBLAS/OMP/MKL_NUM_THREADS are
  set before NumPy and PyTorch are loaded, and ``torch.set_num_threads``.
* Garbage: after the imports and after each case's setup, ``gc.collect()`` and
  ``gc.freeze()`` move every object that exists out of the cyclic collector's
  sight (importing torch alone leaves ~145,000 of them, which a full collection
  would otherwise walk at learntorch's expense), so no library pays for another's
  objects.  A library that leaves reference cycles pays for collecting them in its
  own blocks; the table's notes say which leave any (objects per call).
* The same program: the model code is written once and called with the module
  (``learntorch`` or ``torch``) as an argument; both start from the same weights
  and are checked to compute the same numbers (loss, gradients, updated
  parameters, with assert_close-style tolerances) before anything is timed.
* ``--cpu-time`` times the process's CPU time instead of the wall clock: steadier
  on a machine shared with other work (with one thread, the two agree when idle).

Cases (``--case NAME``; ``--list`` prints them)
-----------------------------------------------
``small-op``        a chain of 100 element-wise ops on an (8, 8) float32 tensor
                    (``y = tanh(y*1.01 + 0.5) - y*0.5``, 5 ops, 20 times), then
                    ``sum()`` and backward; reported per op.  NumPy: the same ufuncs
                    and a hand-written backward.  Target: learntorch <= 1.5x PyTorch.
``small-op-nograd`` the same chain's forward under ``no_grad``.  Target <= 1.5x PyTorch.
``mlp-32``, ``mlp-256``, ``mlp-2048``
                    one SGD training step of an MLP 784-512-256-10 (ReLU, softmax
                    cross-entropy) at batch 32, 256, 2048; NumPy is a careful
                    hand-written forward, backward and update.  Targets: learntorch
                    <= 1.2x NumPy at batch 32, <= 1.05x NumPy at 256 and 2048.
``gru``, ``lstm``   forward + backward of ``nn.GRU`` / ``nn.LSTM`` (input 32, hidden
                    64, 2 layers, bidirectional) on a packed batch
                    (``pack_padded_sequence``, ``enforce_sorted=False``, L=20, N=16,
                    lengths from 1 to 20), loss on the padded output and final states.
                    Target: learntorch <= 1.3x PyTorch.
``transformer``     one AdamW training step of a pre-LayerNorm transformer block
                    (d=64, 4 heads, causal ``F.scaled_dot_product_attention``, MLP 4x
                    with GELU) on (B=8, T=32, d=64) with an MSE loss.  Target <= 1.5x PyTorch.

Without PyTorch (or with ``--no-torch``) the PyTorch columns say ``absent`` and the
rest still runs.
"""
from __future__ import annotations

import argparse
from pathlib import Path
import os
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repetitions (about 10 s)")
    parser.add_argument("--smoke", action="store_true",
                        help="each case once, one call per block: checks that everything runs (a few seconds)")
    parser.add_argument("--case", action="append", metavar="NAME",
                        help="run only this case (repeatable; default: all; see --list)")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--repeats", type=int, help="interleaved repetitions per case (default 21, --quick 5)")
    parser.add_argument("--block-ms", type=float,
                        help="length of one timed block, calibrated per library (default 50, --quick 10)")
    parser.add_argument("--threads", type=int, default=int(os.environ.get("BENCH_THREADS", 1)),
                        help="threads for every library, set before NumPy loads (default: BENCH_THREADS or 1)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time the process's CPU time, not the wall clock (steadier on a shared machine)")
    parser.add_argument("--stat", choices=("median", "min"), default="median",
                        help="the figure of each library's repetitions (default median; min is the least "
                             "disturbed by other work on the machine)")
    parser.add_argument("--no-torch", action="store_true", help="run as if PyTorch were not installed")
    parser.add_argument("--json", metavar="PATH", help="also write the results (and every sample) as JSON")
    parser.add_argument("--compare", metavar="PATH", help="a JSON file of an earlier run: print before -> after")
    parser.add_argument("--profile", metavar="CASE",
                        help="instead of timing, run cProfile on learntorch for this case and print the top "
                             "lines by tottime")
    parser.add_argument("--profile-lines", type=int, default=25, help="lines of --profile output (default 25)")
    return parser


if __name__ == "__main__":
    ARGS = build_parser().parse_args()
    # The thread pools read these once, when their library loads: before the imports below.
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                 "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ[_var] = str(ARGS.threads)
else:  # imported (e.g. by a test): the process's threads are what they are
    ARGS = build_parser().parse_args([])

import cProfile  # noqa: E402
import ctypes  # noqa: E402
import dataclasses  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import pstats  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from typing import Any, Callable, Optional  # noqa: E402

import numpy as np  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)
import learntorch  # noqa: E402
from mlp_model import LR, SIZES, init_weights, make_model  # noqa: E402  (benchmarks/mlp_model.py)

torch: Any = None
if not ARGS.no_torch:
    try:
        import torch
    except ImportError:  # the oracle is optional
        torch = None

LIBS = ("numpy", "torch", "learntorch")


# ----------------------------------------------------------------------------- checks
def to_numpy(t: Any) -> np.ndarray:
    """A learntorch or torch tensor (or an array, or a number) as a NumPy array."""
    if hasattr(t, "detach"):
        t = t.detach()
        if hasattr(t, "cpu"):
            t = t.cpu()
        return np.asarray(t.numpy())
    return np.asarray(t)


def assert_close(actual: Any, expected: Any, what: str, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    """``torch.testing.assert_close``'s check (shape, dtype, ``|a - e| <= atol + rtol |e|``), on NumPy arrays."""
    a, e = to_numpy(actual), to_numpy(expected)
    assert a.shape == e.shape, f"{what}: shape {a.shape} != {e.shape}"
    assert a.dtype == e.dtype, f"{what}: dtype {a.dtype} != {e.dtype}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=what)


def assert_same_params(lt_model: Any, t_model: Any, what: str, grads: bool, **tol: float) -> None:
    lt_params = dict(lt_model.named_parameters())
    t_params = dict(t_model.named_parameters())
    assert list(lt_params) == list(t_params), (list(lt_params), list(t_params))
    for name, p in lt_params.items():
        if grads:
            assert_close(p.grad, t_params[name].grad, f"{what}: {name}.grad", **tol)
        else:
            assert_close(p, t_params[name], f"{what}: {name}", **tol)


def copy_state(src: Any, dst: Any, dst_lib: Any) -> None:
    """``dst`` gets ``src``'s parameters and buffers (across libraries, through NumPy)."""
    dst.load_state_dict({k: dst_lib.tensor(to_numpy(v).copy()) for k, v in src.state_dict().items()})


# ----------------------------------------------------------------------------- cases
@dataclasses.dataclass
class Case:
    name: str
    work: str                      # the table's first column, unit included
    unit: str                      # "µs/op" or "ms"
    per_call: float                # seconds per call -> unit: multiply by this
    funcs: dict[str, Callable[[], Any]]
    target: tuple[str, float]      # ("torch" or "numpy", the largest learntorch ratio allowed)


CASES: dict[str, tuple[Callable[..., Case], dict[str, Any], str]] = {}


def case(name: str, summary: str, **kwargs: Any):
    def register(builder: Callable[..., Case]) -> Callable[..., Case]:
        CASES[name] = (builder, kwargs, summary)
        return builder
    return register


# --- small ops ---------------------------------------------------------------
CHAIN_BLOCKS = 20     # 5 element-wise ops each
CHAIN_OPS = 5 * CHAIN_BLOCKS
SMALL_SHAPE = (8, 8)


def chain(x: Any) -> Any:
    """100 element-wise ops; the same code for learntorch and torch tensors."""
    y = x
    for _ in range(CHAIN_BLOCKS):
        y = (y * 1.01 + 0.5).tanh() - y * 0.5
    return y


def chain_numpy(x: np.ndarray) -> np.ndarray:
    y = x
    for _ in range(CHAIN_BLOCKS):
        y = np.subtract(np.tanh(np.add(np.multiply(y, 1.01), 0.5)), np.multiply(y, 0.5))
    return y


def chain_numpy_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
    """The chain, its sum, and the gradient of the sum by hand (what an autograd engine computes)."""
    saved = []
    y = x
    for _ in range(CHAIN_BLOCKS):
        t = np.tanh(np.add(np.multiply(y, 1.01), 0.5))
        saved.append(t)
        y = np.subtract(t, np.multiply(y, 0.5))
    loss = float(np.add.reduce(y, axis=None))
    g = np.ones_like(y)
    for t in reversed(saved):  # y' = tanh(1.01 y + 0.5) - 0.5 y
        g_a = np.multiply(g, np.subtract(1.0, np.multiply(t, t)))
        g = np.add(np.multiply(g_a, 1.01), np.multiply(g, -0.5))
    return loss, g


@case("small-op", "one small op forward + backward, in a chain of 100 on (8, 8)")
def small_op_case(grad: bool = True) -> Case:
    x_np = np.random.default_rng(0).standard_normal(SMALL_SHAPE).astype(np.float32)
    mode = "fwd+bwd" if grad else "fwd, no_grad"
    work = f"small op {mode} (chain of {CHAIN_OPS}, 8x8), µs/op"
    funcs: dict[str, Callable[[], Any]] = {}
    if grad:
        def fwd_bwd(lib: Any) -> Callable[[], Any]:
            x = lib.tensor(x_np, requires_grad=True)

            def run() -> Any:
                x.grad = None
                loss = chain(x).sum()
                loss.backward()
                return loss, x.grad
            return run
        funcs["numpy"] = lambda: chain_numpy_grad(x_np)
        ref_loss, ref_grad = chain_numpy_grad(x_np)
        for name, lib in (("torch", torch), ("learntorch", learntorch)):
            if lib is not None:
                funcs[name] = fwd_bwd(lib)
                loss, g = funcs[name]()
                assert_close(loss, np.float32(ref_loss), f"small-op loss, {name} vs numpy", rtol=1e-5)
                assert_close(g, ref_grad, f"small-op x.grad, {name} vs numpy")
    else:
        def fwd(lib: Any) -> Callable[[], Any]:
            x = lib.tensor(x_np)

            def run() -> Any:
                with lib.no_grad():
                    return chain(x)
            return run
        funcs["numpy"] = lambda: chain_numpy(x_np)
        ref = chain_numpy(x_np)
        for name, lib in (("torch", torch), ("learntorch", learntorch)):
            if lib is not None:
                funcs[name] = fwd(lib)
                assert_close(funcs[name](), ref, f"small-op no_grad, {name} vs numpy")
                assert not funcs[name]().requires_grad
    return Case("small-op" if grad else "small-op-nograd", work, "µs/op", 1e6 / CHAIN_OPS, funcs, ("torch", 1.5))


@case("small-op-nograd", "one small op forward under no_grad, in a chain of 100 on (8, 8)", grad=False)
def small_op_nograd_case(grad: bool = False) -> Case:
    return small_op_case(grad=grad)


# --- MLP training step ---------------------------------------------------------
class NumpyMLP:
    """The training step written by hand, with care: in-place where it is free, no needless copies."""

    def __init__(self, weights: list[np.ndarray]) -> None:
        self.p = [w.copy() for w in weights]

    def step(self, x: np.ndarray, y: np.ndarray) -> float:
        w1, b1, w2, b2, w3, b3 = self.p
        n = x.shape[0]
        rows = np.arange(n)
        h1 = x @ w1.T
        h1 += b1
        np.maximum(h1, 0, out=h1)
        h2 = h1 @ w2.T
        h2 += b2
        np.maximum(h2, 0, out=h2)
        z = h2 @ w3.T
        z += b3
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.log(s).mean() - z[rows, y].mean())
        g = e
        g /= s                      # softmax
        g[rows, y] -= 1
        g *= 1 / n
        gw3, gb3 = g.T @ h2, g.sum(0)
        g2 = g @ w3
        g2 *= h2 > 0
        gw2, gb2 = g2.T @ h1, g2.sum(0)
        g1 = g2 @ w2
        g1 *= h1 > 0
        gw1, gb1 = g1.T @ x, g1.sum(0)
        for p, gp in zip(self.p, (gw1, gb1, gw2, gb2, gw3, gb3)):
            gp *= LR
            p -= gp
        return loss


def mlp_step(model: Any, opt: Any, loss_fn: Any, x: Any, y: Any) -> float:
    """One training step; the same code for learntorch and torch."""
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


def mlp_case(batch: int) -> Case:
    weights = init_weights()
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((batch, SIZES[0])).astype(np.float32)
    y_np = rng.integers(0, SIZES[-1], batch)
    np_model = NumpyMLP(weights)
    funcs: dict[str, Callable[[], Any]] = {"numpy": lambda: np_model.step(x_np, y_np)}
    ref_loss = np_model.step(x_np, y_np)
    assert all(p.dtype == np.float32 for p in np_model.p), "the NumPy step must stay float32"
    for name, lib in (("torch", torch), ("learntorch", learntorch)):
        if lib is None:
            continue
        parts = make_model(lib, weights)
        x, y = lib.tensor(x_np), lib.tensor(y_np)
        funcs[name] = lambda parts=parts, x=x, y=y: mlp_step(*parts, x, y)
        loss = funcs[name]()
        assert_close(np.float32(loss), np.float32(ref_loss), f"MLP batch {batch}: first loss, {name} vs numpy")
        for i, p in enumerate(parts[0].parameters()):  # after one SGD step
            assert_close(p, np_model.p[i], f"MLP batch {batch}: parameter {i} after a step, {name} vs numpy")
    target = 1.2 if batch <= 32 else 1.05
    return Case(f"mlp-{batch}", f"MLP 784-512-256-10 SGD step, batch {batch}, ms", "ms", 1e3, funcs,
                ("numpy", target))


for _batch in (32, 256, 2048):
    case(f"mlp-{_batch}", f"MLP 784-512-256-10 training step (SGD) at batch {_batch}", batch=_batch)(mlp_case)


# --- recurrent networks --------------------------------------------------------
RNN_L, RNN_N, RNN_IN, RNN_HIDDEN = 20, 16, 32, 64


def rnn_step(lib: Any, rnn: Any, x: Any, lengths: list[int], proj: Any, proj_h: Any) -> Any:
    """Forward + backward of a packed batch; the same code for learntorch and torch."""
    rnn.zero_grad()
    x.grad = None
    packed = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=False)
    out, state = rnn(packed)
    padded, _ = lib.nn.utils.rnn.pad_packed_sequence(out, total_length=x.shape[0])
    loss = (padded * proj).sum()
    for s in state if isinstance(state, tuple) else (state,):  # LSTM: (h, c)
        loss = loss + (s * proj_h).sum()
    loss.backward()
    return loss


def rnn_case(kind: str) -> Case:
    rng = np.random.default_rng(0)
    lengths = [int(n) for n in rng.integers(1, RNN_L + 1, RNN_N)]
    lengths[3] = RNN_L
    x_np = rng.standard_normal((RNN_L, RNN_N, RNN_IN)).astype(np.float32)
    for j, n in enumerate(lengths):
        x_np[n:, j] = 0  # padding
    proj_np = rng.standard_normal((RNN_L, RNN_N, 2 * RNN_HIDDEN)).astype(np.float32)
    proj_h_np = rng.standard_normal((4, RNN_N, RNN_HIDDEN)).astype(np.float32)
    cls = "GRU" if kind == "gru" else "LSTM"
    funcs: dict[str, Callable[[], Any]] = {}
    models = {}
    for name, lib in (("learntorch", learntorch), ("torch", torch)):
        if lib is None:
            continue
        lib.manual_seed(0)
        rnn = getattr(lib.nn, cls)(RNN_IN, RNN_HIDDEN, num_layers=2, bidirectional=True)
        if name == "torch":
            copy_state(models["learntorch"][0], rnn, lib)
        x = lib.tensor(x_np, requires_grad=True)
        args = (lib, rnn, x, lengths, lib.tensor(proj_np), lib.tensor(proj_h_np))
        models[name] = (rnn, x)
        funcs[name] = lambda args=args: rnn_step(*args)
    if torch is not None:
        lt_loss, t_loss = funcs["learntorch"](), funcs["torch"]()
        assert_close(lt_loss, t_loss, f"{cls}: loss, learntorch vs torch", rtol=1e-5)
        assert_close(models["learntorch"][1].grad, models["torch"][1].grad, f"{cls}: x.grad")
        assert_same_params(models["learntorch"][0], models["torch"][0], cls, grads=True)
    work = f"{cls} fwd+bwd, 2 layers bidir, packed L={RNN_L} N={RNN_N} {RNN_IN}->{RNN_HIDDEN}, ms"
    return Case(kind, work, "ms", 1e3, funcs, ("torch", 1.3))


case("gru", "GRU forward + backward (2 layers, bidirectional) on a packed batch", kind="gru")(rnn_case)
case("lstm", "LSTM forward + backward (2 layers, bidirectional) on a packed batch", kind="lstm")(rnn_case)


# --- transformer block -----------------------------------------------------------
TF_B, TF_T, TF_D, TF_HEADS = 8, 32, 64, 4


def make_block(lib: Any, d: int = TF_D, heads: int = TF_HEADS, t: int = TF_T) -> Any:
    """Chapter 09's pre-LayerNorm transformer block (``notebooks/scripts/tiny_gpt.py``: attention with
    ``F.scaled_dot_product_attention(is_causal=True)``, a 4x MLP with GELU, two residuals), the same
    source run on ``lib`` (``tiny_gpt.under`` swaps its imports)."""
    scripts = str(Path(__file__).resolve().parents[1] / "notebooks" / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    import tiny_gpt
    module = tiny_gpt if lib is learntorch else tiny_gpt.under(lib.__name__)
    return module.Block(module.GPTConfig(block_size=t, n_head=heads, n_embd=d))


def block_step(lib: Any, block: Any, opt: Any, x: Any, target: Any) -> float:
    """One AdamW training step; the same code for learntorch and torch."""
    opt.zero_grad()
    loss = lib.nn.functional.mse_loss(block(x), target)
    loss.backward()
    opt.step()
    return loss.item()


@case("transformer", "chapter 09's transformer block, training step (AdamW), d=64, 4 heads, T=32, batch 8")
def transformer_case() -> Case:
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((TF_B, TF_T, TF_D)).astype(np.float32)
    target_np = rng.standard_normal((TF_B, TF_T, TF_D)).astype(np.float32)
    funcs: dict[str, Callable[[], Any]] = {}
    blocks = {}
    for name, lib in (("learntorch", learntorch), ("torch", torch)):
        if lib is None:
            continue
        lib.manual_seed(0)
        block = make_block(lib)
        if name == "torch":
            copy_state(blocks["learntorch"], block, lib)
        opt = lib.optim.AdamW(block.parameters(), lr=1e-3, weight_decay=0.01)
        blocks[name] = block
        args = (lib, block, opt, lib.tensor(x_np), lib.tensor(target_np))
        funcs[name] = lambda args=args: block_step(*args)
    if torch is not None:
        lt_loss, t_loss = funcs["learntorch"](), funcs["torch"]()
        assert_close(np.float32(lt_loss), np.float32(t_loss), "transformer: first loss", rtol=1e-5)
        assert_same_params(blocks["learntorch"], blocks["torch"], "transformer", grads=True)
        assert_same_params(blocks["learntorch"], blocks["torch"], "transformer (after AdamW)", grads=False)
        lt_loss, t_loss = funcs["learntorch"](), funcs["torch"]()
        assert_close(np.float32(lt_loss), np.float32(t_loss), "transformer: second loss", rtol=1e-5)
    work = f"transformer block AdamW step d={TF_D} h={TF_HEADS} T={TF_T} B={TF_B}, ms"
    return Case("transformer", work, "ms", 1e3, funcs, ("torch", 1.5))


# ----------------------------------------------------------------------------- timing
def clock_fn() -> Callable[[], float]:
    return time.process_time if ARGS.cpu_time else time.perf_counter


def calibrate(f: Callable[[], Any], block_s: float, clock: Callable[[], float]) -> int:
    """How many calls make a timed block of about ``block_s`` (at least 1)."""
    if block_s <= 0:
        return 1
    best = math.inf
    for _ in range(3):
        t0 = clock()
        f()
        best = min(best, clock() - t0)
    return max(1, round(block_s / max(best, 1e-9)))


def measure(c: Case, repeats: int, block_s: float, warmup: int) -> dict[str, dict[str, Any]]:
    """Median per call of each library, interleaved, the order rotating each repetition."""
    clock = clock_fn()
    names = [n for n in LIBS if n in c.funcs]
    for n in names:
        for _ in range(warmup):
            c.funcs[n]()
    inner = {n: calibrate(c.funcs[n], block_s, clock) for n in names}
    gc.collect()
    gc.freeze()  # the case's models and data: out of the collector's sight
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(repeats):
        for n in names[r % len(names):] + names[:r % len(names)]:
            f, k = c.funcs[n], inner[n]
            t0 = clock()
            for _ in range(k):
                f()
            samples[n].append((clock() - t0) / k * c.per_call)
    out = {}
    for n in names:
        s = samples[n]
        q = statistics.quantiles(s, n=4) if len(s) >= 2 else [s[0]] * 3
        out[n] = {"median": statistics.median(s), "iqr": q[2] - q[0], "min": min(s), "inner": inner[n],
                  "cycles_per_call": garbage_cycles(c.funcs[n]), "samples": s}
    return out


def garbage_cycles(f: Callable[[], Any]) -> int:
    """Objects one call leaves in reference cycles: garbage that only the cyclic collector frees.

    Their cost is in the timings (the collector runs when it runs, in the library's own
    block); the count says where it comes from."""
    gc.collect()
    gc.disable()
    try:
        f()
        return gc.collect()
    finally:
        gc.enable()


# ----------------------------------------------------------------------------- report
def fmt(v: Optional[float]) -> str:
    if v is None:
        return "-"
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return None if a is None or b is None else a / b


def row(c: Case, res: dict[str, dict[str, Any]]) -> dict[str, Any]:
    med = {n: res[n][ARGS.stat] if n in res else None for n in LIBS}
    r_torch, r_numpy = ratio(med["learntorch"], med["torch"]), ratio(med["learntorch"], med["numpy"])
    vs, limit = c.target
    measured = r_torch if vs == "torch" else r_numpy
    return {"case": c.name, "work": c.work, "unit": c.unit, **med, "lt/torch": r_torch, "lt/numpy": r_numpy,
            "target": {"vs": vs, "max": limit}, "met": None if measured is None else measured <= limit,
            "samples": res}


def print_table(rows: list[dict[str, Any]]) -> None:
    head = ["work", "NumPy", "PyTorch", "learntorch", "lt÷torch", "lt÷numpy", "target", "met?"]
    lines = []
    for r in rows:
        vs = r["target"]["vs"]
        if r["met"] is None:
            met = f"n/a (no {vs})"
        else:
            met = "yes" if r["met"] else "NO"
        torch_col = fmt(r["torch"]) if torch is not None else "absent"
        lt_torch = f"{r['lt/torch']:.2f}x" if r["lt/torch"] is not None else ("absent" if torch is None else "-")
        lt_numpy = f"{r['lt/numpy']:.2f}x" if r["lt/numpy"] is not None else "-"
        lines.append([r["work"], fmt(r["numpy"]), torch_col, fmt(r["learntorch"]), lt_torch, lt_numpy,
                      f"lt÷{vs} ≤ {r['target']['max']:g}", met])
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]
    align = ["<", ">", ">", ">", ">", ">", "<", "<"]

    def render(cells: list[str]) -> str:
        return " | ".join(f"{c:{a}{w}}" for c, a, w in zip(cells, align, widths)).rstrip()

    print(render(head))
    print("-+-".join("-" * w for w in widths))
    for x in lines:
        print(render(x))


def openblas_threads() -> str:
    """The thread count NumPy's OpenBLAS reports (best effort, without threadpoolctl)."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "openblas" in line.lower() and line.split()[-1].startswith("/")}
        for lib in libs:
            handle = ctypes.CDLL(lib)
            for sym in ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
                        "openblas_get_num_threads64_", "openblas_get_num_threads"):
                if hasattr(handle, sym):
                    return str(getattr(handle, sym)())
    except OSError:
        pass
    return "?"


def git_commit() -> str:
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return rev + ("+changes" if dirty else "") if rev else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def machine_info() -> dict[str, Any]:
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # noqa: BLE001 - only a label
        blas = "unknown BLAS"
    return {
        "machine": platform.machine(), "processor": platform.processor(), "cores": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()], "python": platform.python_version(),
        "numpy": np.__version__, "blas": blas, "openblas_threads": openblas_threads(),
        "torch": torch.__version__ if torch is not None else None,
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "learntorch": os.path.dirname(learntorch.__file__), "commit": git_commit(), "threads": ARGS.threads,
        "clock": "process CPU time" if ARGS.cpu_time else "wall clock",
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
    }


def machine_line(info: dict[str, Any]) -> str:
    torch_part = (f"torch {info['torch']} ({info['torch_threads']} thread(s))" if info["torch"]
                  else "torch absent" + (" (--no-torch)" if ARGS.no_torch else ""))
    return (f"{info['machine']}, {info['cores']} cores, load average {', '.join(map(str, info['load_average']))}; "
            f"numpy {info['numpy']} ({info['blas']}, {info['openblas_threads']} thread(s)); {torch_part}; "
            f"learntorch {info['learntorch']} at {info['commit']}; {info['clock']}")


def print_compare(rows: list[dict[str, Any]], path: str) -> None:
    with open(path) as f:
        before = {r["case"]: r for r in json.load(f)["results"]}
    print(f"\nlearntorch before ({path}) -> now:")
    for r in rows:
        b = before.get(r["case"])
        if b is None or not b.get("learntorch"):
            continue
        vs = r["target"]["vs"]
        rb, rn = b.get(f"lt/{vs}"), r.get(f"lt/{vs}")
        tail = f"; lt÷{vs} {rb:.2f}x -> {rn:.2f}x" if rb is not None and rn is not None else ""
        speedup = b["learntorch"] / r["learntorch"]
        change = f"{speedup:.2f}x faster" if speedup >= 1 else f"{1 / speedup:.2f}x slower"
        print(f"  {r['case']:16s} {fmt(b['learntorch'])} -> {fmt(r['learntorch'])} {r['unit']} ({change}){tail}")


# ----------------------------------------------------------------------------- profile
def short_path(path: str) -> str:
    if path.startswith(ROOT + os.sep):
        return os.path.relpath(path, ROOT)
    for marker in ("site-packages" + os.sep, "lib" + os.sep + "python"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


def profile(c: Case, lines: int, quick: bool) -> None:
    f = c.funcs["learntorch"]
    for _ in range(3):
        f()
    calls = calibrate(f, 0.2 if quick else 1.0, time.perf_counter)
    gc.collect()
    gc.freeze()
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for _ in range(calls):
        f()
    prof.disable()
    wall = time.perf_counter() - t0
    stats = pstats.Stats(prof)

    def short(key: tuple[str, int, str]) -> tuple[str, int, str]:
        return (short_path(key[0]), key[1], key[2])
    raw = stats.stats  # type: ignore[attr-defined]
    stats.stats = {short(k): (cc, nc, tt, ct, {short(ck): cv for ck, cv in callers.items()})  # type: ignore
                   for k, (cc, nc, tt, ct, callers) in raw.items()}
    print(f"cProfile of learntorch, case {c.name} ({c.work}): {calls} calls, "
          f"{wall / calls * c.per_call:.3g} {c.unit} under the profiler")
    stats.sort_stats("tottime").print_stats(lines)


# ----------------------------------------------------------------------------- main
def main() -> int:
    args = ARGS
    if args.list:
        for name, (_, _, summary) in CASES.items():
            print(f"{name:16s} {summary}")
        return 0
    names = args.case or list(CASES)
    if args.profile:
        names = [args.profile]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print(f"unknown case(s) {', '.join(unknown)}; the cases: {', '.join(CASES)}", file=sys.stderr)
        return 2
    if torch is not None:
        torch.set_num_threads(args.threads)
        try:
            torch.set_num_interop_threads(args.threads)
        except RuntimeError:  # (only before any inter-op work; harmless otherwise)
            pass
    learntorch.set_num_threads(args.threads)
    repeats = args.repeats or (1 if args.smoke else 5 if args.quick else 21)
    block_ms = args.block_ms if args.block_ms is not None else (0 if args.smoke else 10 if args.quick else 50)
    warmup = 1 if args.smoke else 3
    gc.collect()
    gc.freeze()  # what the imports left: out of the collector's sight
    info = machine_info()
    print(machine_line(info))
    if args.profile:
        builder, kwargs, _ = CASES[args.profile]
        profile(builder(**kwargs), args.profile_lines, args.quick or args.smoke)
        return 0
    print(f"{args.threads} thread(s) for all; {repeats} interleaved repetitions, blocks of ~{block_ms:g} ms, "
          f"{args.stat}s; gc.freeze() after imports and setup")
    if os.getloadavg()[0] > (os.cpu_count() or 1) - args.threads + 0.5:
        print(f"note: the machine is busy (load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores): "
              "the figures may be inflated and noisy; --cpu-time, --stat min or a quieter moment help")
    rows = []
    t_start = time.perf_counter()
    for name in names:
        t0 = time.perf_counter()
        builder, kwargs, _ = CASES[name]
        c = builder(**kwargs)
        rows.append(row(c, measure(c, repeats, block_ms / 1e3, warmup)))
        print(f"  {name}: {time.perf_counter() - t0:.1f} s", flush=True)
    print()
    print_table(rows)
    noisy = [f"{r['case']}:{n} {s['iqr'] / s['median']:.0%}" for r in rows for n, s in r["samples"].items()
             if s["median"] > 0 and len(s["samples"]) >= 4 and s["iqr"] / s["median"] > 0.1]
    print(f"\n{time.perf_counter() - t_start:.0f} s. Spread (IQR/median) over 10%: " + (", ".join(noisy) or "none"))
    cycles = [f"{r['case']}:{n} {s['cycles_per_call']}" for r in rows for n, s in r["samples"].items()
              if s["cycles_per_call"]]
    if cycles:
        print("Objects left in reference cycles per call (freed only by the cyclic collector): " + ", ".join(cycles))
    if args.compare:
        print_compare(rows, args.compare)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "settings": {"repeats": repeats, "block_ms": block_ms, "stat": args.stat,
                                                  "quick": args.quick, "smoke": args.smoke},
                       "results": rows}, f, indent=1)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
