"""Smaller pieces of PyTorch's API added for programs "beyond the notes", each against PyTorch:
bernoulli/multinomial (the same random stream), finfo/iinfo, gradient clipping,
the rearranging ops of ``ops/arrange.py`` (values and gradients) and more LR schedulers."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import Close, check_both, grads_both, raises_both

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 5)).astype(np.float32)
B = RNG.standard_normal((5, 3)).astype(np.float32)
V = RNG.standard_normal(4).astype(np.float32)


def test_bernoulli_same_draws(torch_oracle: Any) -> None:
    def draw(T: Any) -> tuple:
        T.manual_seed(5)
        p = T.rand(40)
        return T.bernoulli(p), T.bernoulli(p.double()), T.bernoulli(T.ones(30), 0.3), T.rand(3)
    check_both(draw, torch_oracle)


def test_multinomial_same_draws(torch_oracle: Any) -> None:
    def draw(T: Any) -> tuple:
        T.manual_seed(0)
        p = T.rand(3, 6)
        return (T.multinomial(p, 12, replacement=True), T.multinomial(p, 4), T.multinomial(p[0], 1),
                T.multinomial(T.tensor([0.1, 0.9]), 5, replacement=True))
    check_both(draw, torch_oracle)
    raises_both(lambda T: T.multinomial(T.ones(3), 4), torch_oracle, match="without replacement")
    raises_both(lambda T: T.multinomial(T.tensor([0.5, -0.1]), 1), torch_oracle)


def test_finfo_iinfo(torch_oracle: Any) -> None:
    for name in ("float32", "float64", "float16"):
        assert repr(lt.finfo(getattr(lt, name))) == repr(torch_oracle.finfo(getattr(torch_oracle, name)))
        assert lt.finfo(getattr(lt, name)).eps == torch_oracle.finfo(getattr(torch_oracle, name)).eps
    for name in ("int64", "int32", "uint8"):
        info, tinfo = lt.iinfo(getattr(lt, name)), torch_oracle.iinfo(getattr(torch_oracle, name))
        assert (info.min, info.max, info.bits, repr(info)) == (tinfo.min, tinfo.max, tinfo.bits, repr(tinfo))
    raises_both(lambda T: T.finfo(T.int64), torch_oracle, match="floating point")
    raises_both(lambda T: T.iinfo(T.float32), torch_oracle, match="integer")


def test_finfo_iinfo_compare_by_dtype(torch_oracle: Any) -> None:
    """Two calls give two objects, equal when about the same dtype (and unhashable), as in PyTorch."""
    def compare(T: Any) -> tuple:
        return (T.finfo(T.float32) == T.finfo(T.float32), T.finfo() == T.finfo(T.float32),
                T.finfo(T.float16) == T.finfo(T.bfloat16), T.finfo(T.float32) != T.finfo(T.float32),
                T.iinfo(T.int8) == T.iinfo(T.int8), T.iinfo(T.int8) == T.iinfo(T.uint8), T.finfo(T.float32) == 1)
    assert compare(lt) == compare(torch_oracle)
    raises_both(lambda T: hash(T.finfo(T.float32)), torch_oracle, match="unhashable")


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm(torch_oracle: Any, norm_type: float) -> None:
    def clip(T: Any) -> tuple:
        T.manual_seed(0)
        m = T.nn.Linear(4, 3)
        (m(T.randn(5, 4)) * 10).sum().backward()
        total = T.nn.utils.clip_grad_norm_(m.parameters(), 1.0, norm_type=norm_type)
        return total, m.weight.grad, m.bias.grad
    check_both(clip, torch_oracle)


def test_clip_grad_value_and_vectors(torch_oracle: Any) -> None:
    def clip(T: Any) -> tuple:
        T.manual_seed(0)
        m = T.nn.Linear(3, 2)
        m(T.randn(4, 3)).pow(2).sum().backward()
        T.nn.utils.clip_grad_value_(m.parameters(), 0.5)
        vec = T.nn.utils.parameters_to_vector(m.parameters())
        T.nn.utils.vector_to_parameters(vec * 2, m.parameters())
        return m.weight.grad, m.bias.grad, vec.detach(), m.weight.detach()
    check_both(clip, torch_oracle)
    raises_both(_nonfinite, torch_oracle, match="non-finite")


def _nonfinite(T: Any) -> None:
    p = T.nn.Parameter(T.ones(2))
    p.grad = T.tensor([float("inf"), 1.0])
    T.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


ARRANGE = [("tril", lambda T, a: T.tril(a), (A,)), ("triu", lambda T, a: T.triu(a, 1), (A,)),
           ("tril_method", lambda T, a: a.tril(-1), (A,)), ("diag_vector", lambda T, x: T.diag(x, 1), (V,)),
           ("diag_matrix", lambda T, a: T.diag(a, -1), (A,)), ("diagonal", lambda T, a: T.diagonal(a, 1), (A,)),
           ("trace", lambda T, a: T.trace(a), (A,)), ("roll", lambda T, a: T.roll(a, 2, 1), (A,)),
           ("roll_flat", lambda T, a: T.roll(a, -3), (A,)), ("roll_two", lambda T, a: a.roll((1, -2), (0, 1)), (A,)),
           ("tile", lambda T, a: T.tile(a, (2,)), (A,)),
           ("repeat_interleave", lambda T, a: T.repeat_interleave(a, 2, dim=0), (A,)),
           ("repeat_interleave_flat", lambda T, x: x.repeat_interleave(3), (V,)),
           ("diff", lambda T, a: T.diff(a), (A,)), ("diff_twice", lambda T, a: T.diff(a, n=2, dim=0), (A,)),
           ("cumprod", lambda T, a: T.cumprod(a, 1), (A,)),
           ("cumprod_zeros", lambda T, x: T.cumprod(x, 0), (np.array([2.0, 0.0, 3.0, 0.5], np.float32),)),
           ("einsum_mm", lambda T, a, b: T.einsum("ij,jk->ik", a, b), (A, B)),
           ("einsum_implicit", lambda T, a, b: T.einsum("ij,jk", a, b), (A, B)),
           ("einsum_sum", lambda T, a: T.einsum("ij->j", a), (A,)),
           ("einsum_outer", lambda T, x, y: T.einsum("i,j->ij", x, y), (V, V)),
           ("einsum_batched", lambda T, a, b: T.einsum("bij,bjk->bik", a, b),
            (RNG.standard_normal((2, 3, 4)).astype(np.float32), RNG.standard_normal((2, 4, 5)).astype(np.float32))),
           ("erf", lambda T, a: T.erf(a), (A,))]


@pytest.mark.parametrize("fn,arrays", [(f, a) for _, f, a in ARRANGE], ids=[n for n, _, _ in ARRANGE])
def test_arrange_ops(torch_oracle: Any, fn: Any, arrays: tuple) -> None:
    grads_both(fn, torch_oracle, *arrays, check_grad_fn=False)


def test_arrange_ops_without_grad(torch_oracle: Any) -> None:
    check_both(lambda T: T.meshgrid(T.arange(3), T.arange(2), indexing="ij"), torch_oracle)
    check_both(lambda T: T.meshgrid(T.arange(3), T.arange(2), T.arange(4), indexing="xy"), torch_oracle)
    check_both(lambda T: T.unique(T.tensor([3, 1, 2, 3, 1]), return_inverse=True, return_counts=True), torch_oracle)
    check_both(lambda T: T.isin(T.tensor([1, 2, 3]), T.tensor([2, 5])), torch_oracle)
    check_both(lambda T: (T.logical_and(T.tensor([1, 0, 2]), T.tensor([True, True, False])),
                          T.logical_or(T.tensor([0, 0]), T.tensor([0, 1])),
                          T.logical_xor(T.tensor([1.0, 0.0]), T.tensor([1.0, 1.0]))), torch_oracle)
    check_both(lambda T: (T.cumprod(T.tensor([1, 2, 3]), 0), T.tril(T.ones(3, 3, dtype=T.bool)),
                          T.diag(T.tensor([1, 2]))), torch_oracle)


def _schedule(T: Any, make: Any, steps: int = 8) -> list:
    opt = T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1)
    sched = make(T, opt)
    out = []
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr()[0])
    return out


@pytest.mark.parametrize("make", [
    lambda T, o: T.optim.lr_scheduler.ExponentialLR(o, 0.9),
    lambda T, o: T.optim.lr_scheduler.MultiStepLR(o, [2, 4, 4], 0.5),
    lambda T, o: T.optim.lr_scheduler.LambdaLR(o, lambda e: 0.95 ** e),
    lambda T, o: T.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9),
    lambda T, o: T.optim.lr_scheduler.LinearLR(o, 0.25, total_iters=4)],
    ids=["ExponentialLR", "MultiStepLR", "LambdaLR", "MultiplicativeLR", "LinearLR"])
def test_schedulers(torch_oracle: Any, make: Any) -> None:
    assert _schedule(lt, make) == _schedule(torch_oracle, make)


def test_reduce_lr_on_plateau(torch_oracle: Any) -> None:
    def run(T: Any) -> list:
        opt = T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1)
        sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5, cooldown=1)
        out = []
        for metric in [1.0, 0.9, 0.95, 0.96, 0.97, 0.98, 0.5, 0.6, 0.7, 0.8]:
            sched.step(metric)
            out.append((opt.param_groups[0]["lr"], sched.num_bad_epochs))
        return out
    assert run(lt) == run(torch_oracle)
    raises_both(lambda T: T.optim.lr_scheduler.ReduceLROnPlateau(T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1),
                                                                 factor=1.5), torch_oracle, match="Factor should be")


# ---------------------------------------------------------------------------- pooling, containers, more layers
X4 = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                dict(kernel_size=(2, 3), stride=1, divisor_override=4)])
def test_avg_pool2d(torch_oracle: Any, kw: dict) -> None:
    grads_both(lambda T, x: T.nn.functional.avg_pool2d(x, **kw), torch_oracle, X4)


@pytest.mark.parametrize("size", [(1, 1), 1, (3, 2), (4, 4), (7, 6), (2, None)])
def test_adaptive_avg_pool2d(torch_oracle: Any, size: Any) -> None:
    grads_both(lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, size), torch_oracle, X4, check_grad_fn=False)


def test_dropout2d_same_masks(torch_oracle: Any) -> None:
    def drop(T: Any) -> tuple:
        T.manual_seed(0)
        return (T.nn.functional.dropout2d(T.ones(2, 5, 2, 2), 0.4), T.nn.Dropout2d(0.3)(T.ones(3, 4, 1, 2)),
                T.rand(2))
    check_both(drop, torch_oracle)


@pytest.mark.parametrize("slopes", [[0.1, 0.2, 0.3], [0.25]])
def test_prelu(torch_oracle: Any, slopes: list) -> None:
    grads_both(lambda T, x, w: T.nn.functional.prelu(x, w), torch_oracle, X4, np.array(slopes, np.float32),
               check_grad_fn=False)


def test_parameter_containers_and_layer_reprs(torch_oracle: Any) -> None:
    def build(T: Any) -> tuple:
        m = T.nn.Module()
        m.pl = T.nn.ParameterList([T.nn.Parameter(T.ones(2, 3)), T.ones(1)])
        m.pl.append(T.nn.Parameter(T.zeros(4)))
        m.pd = T.nn.ParameterDict({"a": T.nn.Parameter(T.ones(2)), "b": T.zeros(3)})
        m.pd["c"] = T.nn.Parameter(T.ones(1))
        layers = T.nn.Sequential(T.nn.SmoothL1Loss(), T.nn.HuberLoss(delta=2.0), T.nn.KLDivLoss(reduction="batchmean"),
                                 T.nn.PReLU(3), T.nn.AdaptiveAvgPool2d((1, 1)), T.nn.AvgPool2d(2),
                                 T.nn.Unflatten(1, (2, 3)), T.nn.Dropout2d(0.2), T.nn.CosineSimilarity())
        return (repr(m), repr(layers), [n for n, _ in m.named_parameters()], len(m.pl), list(m.pd.keys()),
                type(m.pl[1]).__name__, tuple(m.pl[1:][0].shape), "b" in m.pd)
    assert build(lt) == build(torch_oracle)


def test_loss_modules(torch_oracle: Any) -> None:
    def losses(T: Any) -> tuple:
        x, y = T.tensor(A), T.tensor(A[::-1].copy())
        p = T.log_softmax(x, 1)
        q = T.softmax(y, 1)
        return (T.nn.SmoothL1Loss(beta=0.5)(x, y), T.nn.HuberLoss(reduction="sum", delta=2.0)(x, y),
                T.nn.KLDivLoss(reduction="batchmean")(p, q), T.nn.CosineSimilarity(dim=0)(x, y))
    check_both(losses, torch_oracle, check_grad_fn=False)


# ---------------------------------------------------------------------------- scatter, index_add, trigonometry
IDX = np.array([[1, 2], [3, 3], [0, 4]])
X35 = RNG.standard_normal((3, 5)).astype(np.float32)


def test_scatter_forms(torch_oracle: Any) -> None:
    check_both(lambda T: T.zeros(3, 4).scatter_(1, T.tensor([[1], [3], [0]]), 1.0), torch_oracle)  # one-hot
    check_both(lambda T: T.zeros(3, 5).scatter(1, T.tensor(IDX), T.arange(1.0, 10.0).reshape(3, 3)), torch_oracle)
    check_both(lambda T: T.zeros(3, 5).scatter_add(1, T.tensor(IDX), T.ones(3, 2)), torch_oracle)
    check_both(lambda T: T.ones(5, 3).index_add_(0, T.tensor([0, 4, 0]), T.arange(9.0).reshape(3, 3), alpha=2),
               torch_oracle)
    raises_both(lambda T: T.zeros(3).scatter(0, T.tensor([0.0]), 1.0), torch_oracle, match="int64")


def test_scatter_gradients(torch_oracle: Any) -> None:
    src = RNG.standard_normal((3, 2)).astype(np.float32)
    rows = RNG.standard_normal((2, 5)).astype(np.float32)
    grads_both(lambda T, x, s: T.scatter(x * 1, 1, T.tensor(IDX), s), torch_oracle, X35, src)
    grads_both(lambda T, x, s: T.scatter_add(x, 1, T.tensor(IDX), s), torch_oracle, X35, src)
    grads_both(lambda T, x, s: (x * 1).scatter_add_(1, T.tensor(IDX), s), torch_oracle, X35, src,
               check_grad_fn=False)
    grads_both(lambda T, x, s: T.index_add(x, 0, T.tensor([2, 0]), s, alpha=3), torch_oracle, X35, rows)


@pytest.mark.parametrize("name", ["tan", "asin", "acos", "atan", "sinh", "cosh"])
def test_trigonometry(torch_oracle: Any, name: str) -> None:
    x = RNG.uniform(-0.9, 0.9, (3, 4)).astype(np.float32)
    grads_both(lambda T, x: getattr(T, name)(x), torch_oracle, x)
    grads_both(lambda T, x: getattr(x, name)(), torch_oracle, x)


# ---------------------------------------------------------------------------- statistics, small math, samplers, flags
STATS = [("median", lambda T, a: T.median(a), None), ("median_dim", lambda T, a: T.median(a, dim=1), 0),
         ("median_even_keepdim", lambda T, a: a.median(0, keepdim=True), 0),
         ("kthvalue", lambda T, a: T.kthvalue(a, 2, dim=1), 0), ("quantile", lambda T, a: T.quantile(a, 0.3), None),
         ("quantile_dim", lambda T, a: T.quantile(a, T.tensor([0.25, 0.75]), dim=1), None),
         ("std_mean", lambda T, a: T.std_mean(a, 1), 0), ("var_mean", lambda T, a: T.var_mean(a), 0),
         ("take", lambda T, a: T.take(a, T.tensor([0, 7, 19])), None), ("select", lambda T, a: a.select(1, -1), None),
         ("atan2", lambda T, a: T.atan2(a, a.flip(0) + 0.1), None), ("lerp", lambda T, a: T.lerp(a, a * 2, 0.3), None),
         ("frac", lambda T, a: T.frac(a * 3), None), ("fmod", lambda T, a: T.fmod(a * 3, 1.5), None),
         ("clamp_min", lambda T, a: T.clamp_min(a, 0.2), None)]


@pytest.mark.parametrize("fn,part", [(f, p) for _, f, p in STATS], ids=[n for n, _, _ in STATS])
def test_statistics_and_small_math(torch_oracle: Any, fn: Any, part: Any) -> None:
    grads_both(fn, torch_oracle, A, check_grad_fn=False, select=None if part is None else (lambda r: r[part]))


def test_nan_aware_reductions(torch_oracle: Any) -> None:
    b = A.copy()
    b[0, 1], b[2, 2], b[3, 0] = np.nan, np.inf, -np.inf
    check_both(lambda T: (T.nansum(T.tensor(b[:, 1:2])), T.nanmean(T.tensor(b[:, 1:2]), 0), T.nan_to_num(T.tensor(b)),
                          T.tensor(b).nan_to_num(nan=1.0, posinf=2.0), T.tensor([1, 1, 2, 3]).median()), torch_oracle)


def test_small_shape_helpers(torch_oracle: Any) -> None:
    check_both(lambda T: (T.logspace(0, 2, 3), T.logspace(-1, 1, 4, base=2), T.column_stack([T.ones(2), T.zeros(2, 2)]),
                          T.fliplr(T.arange(4).reshape(2, 2)), T.flipud(T.arange(4).reshape(2, 2)),
                          T.moveaxis(T.ones(2, 3), 0, 1).shape,
                          [t.shape for t in T.broadcast_tensors(T.ones(2, 1), T.ones(3))],
                          T.ones(2).byte(), T.ones(2).char(), T.ones(2).short()), torch_oracle, check_grad_fn=False)


def test_samplers_draw_like_torch(torch_oracle: Any) -> None:
    def draw(T: Any) -> tuple:
        T.manual_seed(0)
        sub = list(T.utils.data.SubsetRandomSampler([10, 20, 30, 40]))
        weighted = list(T.utils.data.WeightedRandomSampler([0.1, 0.5, 0.4], 8))
        no_repl = list(T.utils.data.WeightedRandomSampler([0.1, 0.5, 0.4, 1.0], 3, replacement=False))
        ds = T.utils.data.TensorDataset(T.arange(6))
        batches = [b[0].tolist() for b in T.utils.data.DataLoader(
            ds, batch_size=2, sampler=T.utils.data.WeightedRandomSampler([1.0] * 6, 4))]
        return sub, weighted, no_repl, batches, T.rand(2).tolist()
    assert draw(lt) == draw(torch_oracle)
    raises_both(lambda T: T.utils.data.WeightedRandomSampler([0.5, 0.5], 0), torch_oracle, match="num_samples")


def test_reproducibility_flags(torch_oracle: Any) -> None:
    for T in (lt, torch_oracle):
        T.backends.cudnn.deterministic = True
        T.backends.cudnn.benchmark = False
        T.use_deterministic_algorithms(False)
        assert T.backends.mps.is_available() is False and not T.are_deterministic_algorithms_enabled()
        assert T.is_floating_point(T.ones(1)) and T.is_nonzero(T.tensor([2]))
    torch_oracle.backends.cudnn.deterministic = False
    raises_both(lambda T: T.is_nonzero(T.ones(2)), torch_oracle, match="more than one value")


def test_inplace_random_fills_same_draws(torch_oracle: Any) -> None:
    def draw(T: Any) -> list:
        T.manual_seed(3)
        out = [T.empty(20).bernoulli_(0.3), T.empty(5).exponential_(), T.empty(6).exponential_(2.0),
               T.empty(6).random_(0, 10), T.empty(4, dtype=T.int64).random_(5), T.empty(3).random_(),
               T.zeros(5).bernoulli_(T.full((5,), 0.5)), T.rand(3).multinomial(2),
               T.ones(3).where(T.tensor([True, False, True]), T.zeros(3))]
        return [t.tolist() for t in out] + [T.rand(2).tolist()]
    got, want = draw(lt), draw(torch_oracle)
    assert len(got) == len(want)
    for i, (a, e) in enumerate(zip(got, want)):
        if i in (1, 2):  # exponential_: -log(1 - u) / lambda, through libm's log: equal to float rounding
            assert Close(a) == Close(e), f"draw {i}: {a} != torch's {e}"
        else:            # integers, 0/1, indices, rand on [0, 1): exact on every machine
            assert a == e, f"draw {i}: {a} != torch's {e}"
    raises_both(lambda T: T.ones(2, requires_grad=True).bernoulli_(0.5), torch_oracle, match="leaf Variable")
