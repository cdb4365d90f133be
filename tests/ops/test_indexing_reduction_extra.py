"""Scans, order statistics, counting/bucketing, index writes and more shape ops, against PyTorch:
values, result dtypes, which index wins a tie, empty inputs, gradients and grad_fn names,
in-place semantics (the version counter) and error types.

The ops live in learntorch/ops/scans.py, statistics.py (mode, nanmedian, nanquantile),
bucketing.py, index_writes.py, reshaping.py, matmul.py (chain_matmul) and creation.py (asarray)."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import check_both, grads_both, raises_both

pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 5)).astype(np.float32)
NAN = float("nan")
TIES = np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [2.0, 2.0, 1.0, 1.0, 0.5], [NAN, 1.0, NAN, 5.0, 5.0]], np.float32)


# ----------------------------------------------------------------------------- scans
@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_cummin_values_ties_nan(torch_oracle: Any, name: str) -> None:
    def run(T: Any) -> tuple:
        fn = getattr(T, name)
        x = T.tensor(TIES)
        r = fn(x, 1)
        return (r, r.values, r.indices, fn(x, 0), getattr(x, name)(-1), fn(T.tensor([1, 1, 0, 2, 2]), 0),
                fn(T.tensor(2.0), 0), fn(T.zeros(0, 3), 0), type(r).__name__)
    check_both(run, torch_oracle)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_gradient(torch_oracle: Any, name: str) -> None:
    x = np.array([[1.0, 3.0, 3.0, 2.0, 4.0], [0.0, -1.0, 2.0, 2.0, -3.0]], np.float32)
    grads_both(lambda T, a: getattr(T, name)(a, 1), torch_oracle, x, select=lambda r: r.values)


def test_logcumsumexp(torch_oracle: Any) -> None:
    big = np.array([[1000.0, 1000.0, -1000.0], [0.5, -2.0, 3.0]], np.float32)
    check_both(lambda T: (T.logcumsumexp(T.tensor(big), 1), T.tensor(A).logcumsumexp(0),
                          T.logcumsumexp(T.tensor(2.0), 0), T.logcumsumexp(T.zeros(0), 0)), torch_oracle)
    grads_both(lambda T, a: T.logcumsumexp(a, 1), torch_oracle, A.astype(np.float64))
    raises_both(lambda T: T.logcumsumexp(T.tensor([1, 2]), 0), torch_oracle)


def test_renorm(torch_oracle: Any) -> None:
    x = np.array([[1.0, 2.0, 2.0], [0.1, 0.2, 0.0], [-3.0, 0.5, 4.0]], np.float32)
    for p in (2, 1, 3.0, float("inf")):
        grads_both(lambda T, a: T.renorm(a, p, 0, 1.5), torch_oracle, x.astype(np.float64))
    grads_both(lambda T, a: a.renorm(2, 1, 2.0), torch_oracle, x)

    def inplace(T: Any) -> tuple:
        y = T.tensor(x)
        v = y._version
        return y.renorm_(2, 0, 1.0), y._version - v
    check_both(inplace, torch_oracle)
    for bad in (lambda T: T.renorm(T.ones(3), 2, 0, 1.0), lambda T: T.renorm(T.ones(3, 2), -1, 0, 1.0),
                lambda T: T.renorm(T.ones(3, 2), 2, 0, -1.0), lambda T: T.renorm(T.ones(3, 2, dtype=T.long), 2, 0, 1.0)):
        raises_both(bad, torch_oracle)


# ----------------------------------------------------------------------------- order statistics
def test_mode(torch_oracle: Any) -> None:
    def run(T: Any) -> tuple:
        x = T.tensor(TIES)
        return (T.mode(x, 1), x.mode(0, keepdim=True), T.mode(T.tensor([3, 1, 1, 3])), T.mode(T.tensor(2.0)),
                T.mode(T.zeros(0, 2), 1), type(T.mode(x)).__name__)
    check_both(run, torch_oracle)
    grads_both(lambda T, a: T.mode(a, 1), torch_oracle, np.array([[1.0, 2, 2, 3, 2], [4, 4, 5, 5, 6]], np.float32),
               select=lambda r: r.values)
    raises_both(lambda T: T.mode(T.zeros(2, 0), 1), torch_oracle)


def test_nanmedian(torch_oracle: Any) -> None:
    x = np.array([[1.0, NAN, 3.0, 2.0], [4.0, 0.0, NAN, NAN], [5.0, 1.0, 2.0, 0.0]], np.float32)
    check_both(lambda T: (T.nanmedian(T.tensor(x)), T.nanmedian(T.tensor(x), 1), T.tensor(x).nanmedian(0),
                          T.nanmedian(T.tensor([NAN, NAN])), T.nanmedian(T.tensor(x), 1, keepdim=True)), torch_oracle)
    grads_both(lambda T, a: T.nanmedian(a, 1), torch_oracle, x, select=lambda r: r.values)
    # over all elements: the gradient is shared among the elements equal to the median
    grads_both(lambda T, a: T.nanmedian(a), torch_oracle, np.array([1.0, 2.0, NAN, 2.0, 3.0, 2.0], np.float32))


def test_quantile_and_nanquantile(torch_oracle: Any) -> None:
    x = np.array([[1.0, NAN, 3.0, 2.0, 7.0], [4.0, 0.0, 6.0, 5.0, 8.0], [NAN, NAN, NAN, NAN, NAN]], np.float32)

    def run(T: Any) -> list:
        t, out = T.tensor(x), []
        for fn in (T.quantile, T.nanquantile):
            for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
                out += [fn(t, 0.4, dim=1, interpolation=interp), fn(t, T.tensor([0.25, 0.5, 1.0]), dim=1,
                                                                    keepdim=True, interpolation=interp)]
            out += [fn(t[:2], 0.3), fn(t, T.tensor(0.5), dim=0), fn(t[1], 0.5, keepdim=True)]
        return out
    check_both(run, torch_oracle)
    clean = A.astype(np.float64)
    grads_both(lambda T, a: T.nanquantile(a, 0.3, dim=1), torch_oracle, clean)
    grads_both(lambda T, a: T.quantile(a, T.tensor([0.2, 0.9], dtype=T.float64), dim=0, keepdim=True), torch_oracle,
               clean)
    grads_both(lambda T, a: a.nanquantile(0.5), torch_oracle, clean)
    for bad in (lambda T: T.nanquantile(T.tensor([1, 2]), 0.5), lambda T: T.nanquantile(T.tensor([1.0, 2]), 1.5),
                lambda T: T.quantile(T.tensor([1.0, 2]), T.tensor([0.5], dtype=T.float64)),
                lambda T: T.quantile(T.tensor([1.0]), 0.5, interpolation="bad"),
                lambda T: T.nanquantile(T.tensor([]), 0.5)):
        raises_both(bad, torch_oracle)


# ----------------------------------------------------------------------------- counting and bucketing
def test_bincount(torch_oracle: Any) -> None:
    check_both(lambda T: (T.bincount(T.tensor([0, 2, 2, 5])), T.tensor([1, 1]).bincount(minlength=4),
                          T.bincount(T.tensor([0, 2, 2]), T.tensor([1.0, 2, 3])),
                          T.bincount(T.tensor([0, 2, 2]), T.tensor([1.0, 2, 3], dtype=T.float64)),
                          T.bincount(T.tensor([0, 2, 2]), T.tensor([1, 2, 3])),
                          T.bincount(T.tensor([], dtype=T.long))), torch_oracle)
    for bad in (lambda T: T.bincount(T.tensor([-1, 2])), lambda T: T.bincount(T.tensor([1.0, 2])),
                lambda T: T.bincount(T.tensor([[1, 2]])), lambda T: T.bincount(T.tensor([0, 1]), T.tensor([1.0])),
                lambda T: T.bincount(T.tensor([0, 1]), minlength=-1)):
        raises_both(bad, torch_oracle)


def test_histc_and_histogram(torch_oracle: Any) -> None:
    data = RNG.standard_normal(50).astype(np.float32)

    def run(T: Any) -> tuple:
        x = T.tensor(data)
        return (T.histc(x, bins=7), x.histc(5, min=-1, max=1), T.histc(T.tensor([2.0, 2.0]), 3),
                T.histc(T.tensor([]), 3), T.histogram(x, 6), T.histogram(x, 4, range=(-1.0, 2.0), density=True),
                T.histogram(x, T.tensor([-2.0, 0.0, 0.5, 3.0]), weight=T.ones(50) * 2),
                T.histogram(T.tensor([2.0, 2.0]), 3), T.histogram(T.tensor([]), 2), x.double().histogram(3),
                T.histogram(x, 3).hist, T.histogram(x, 3).bin_edges)
    check_both(run, torch_oracle)
    for bad in (lambda T: T.histc(T.tensor([1, 2])), lambda T: T.histc(T.tensor([1.0]), bins=3, min=3, max=1),
                lambda T: T.histc(T.tensor([1.0]), bins=0), lambda T: T.histogram(T.tensor([1, 2]), bins=3)):
        raises_both(bad, torch_oracle)


def test_searchsorted_and_bucketize(torch_oracle: Any) -> None:
    def run(T: Any) -> tuple:
        seq, vals = T.tensor([1, 3, 3, 5, 7]), T.tensor([[3, 6, 9], [0, 1, 7]])
        rows = T.tensor([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
        return (T.searchsorted(seq, vals), T.searchsorted(seq, vals, right=True), T.searchsorted(seq, vals, side="right"),
                T.searchsorted(seq, 3), T.searchsorted(seq, T.tensor(3)), T.searchsorted(rows, T.tensor([[3.0], [3.0]])),
                T.searchsorted(T.tensor([5, 1, 3]), T.tensor([2, 4]), sorter=T.tensor([1, 2, 0])),
                T.searchsorted(seq, vals, out_int32=True), T.searchsorted(T.tensor([1.0, 3.0]), T.tensor([2])),
                T.searchsorted(T.tensor([1.0, NAN]), T.tensor([NAN, 2.0])), T.searchsorted(seq, T.tensor([], dtype=T.long)),
                T.bucketize(vals, T.tensor([1, 3, 5])), T.bucketize(vals, T.tensor([1, 3, 5]), right=True),
                T.bucketize(3, T.tensor([1, 3, 5])), T.bucketize(T.tensor(3.0), T.tensor([1.0, 3.0]), out_int32=True))
    check_both(run, torch_oracle)
    for bad in (lambda T: T.searchsorted(T.tensor([1, 3]), T.tensor([2]), side="left", right=True),
                lambda T: T.searchsorted(T.tensor([[1, 3]]), T.tensor([2])),
                lambda T: T.searchsorted(T.tensor([1, 3]), T.tensor([2]), side="bad"),
                lambda T: T.searchsorted(T.tensor([[1, 3]]), 3),
                lambda T: T.bucketize(T.tensor([1]), T.tensor([[1, 3]]))):
        raises_both(bad, torch_oracle)


def test_unique_consecutive(torch_oracle: Any) -> None:
    def run(T: Any) -> tuple:
        x = T.tensor([1, 1, 2, 2, 3, 1, 1, 2])
        m = T.tensor([[1, 2, 2], [1, 3, 3]])
        return (T.unique_consecutive(x), x.unique_consecutive(return_inverse=True),
                T.unique_consecutive(x, return_counts=True), T.unique_consecutive(x, True, True),
                T.unique_consecutive(m, return_inverse=True), T.unique_consecutive(m, dim=1, return_inverse=True,
                                                                                   return_counts=True),
                T.unique_consecutive(T.tensor([[1, 1], [1, 1], [2, 3]]), dim=0, return_counts=True),
                T.unique_consecutive(T.tensor([1.0, NAN, NAN]), return_counts=True),
                T.unique_consecutive(T.tensor([], dtype=T.long), return_counts=True, return_inverse=True))
    check_both(run, torch_oracle)


# ----------------------------------------------------------------------------- index writes
def test_index_fill_and_copy(torch_oracle: Any) -> None:
    idx = np.array([0, 2, 0])
    check_both(lambda T: (T.index_fill(T.tensor(A), 1, T.tensor([0, -1]), 2.0), T.tensor(A).index_fill(0, T.tensor(1), -1),
                          T.tensor([1, 2, 3]).index_fill(0, T.tensor([1]), 7),
                          T.tensor(A).index_copy(1, T.tensor([4, 0]), T.ones(3, 2))), torch_oracle)
    grads_both(lambda T, a: a.index_fill(1, T.tensor(idx), 0.5), torch_oracle, A)
    grads_both(lambda T, a, v: a.index_fill(1, T.tensor(idx), v), torch_oracle, A, np.array(3.0, np.float32))
    grads_both(lambda T, a, s: T.index_copy(a, 1, T.tensor([3, 1]), s), torch_oracle, A, A[:, :2] * 2)
    for bad in (lambda T: T.zeros(3, 4).index_fill(1, T.tensor([0.0]), 1.0),
                lambda T: T.zeros(3, 4).index_fill(1, T.tensor([5]), 1.0),
                lambda T: T.zeros(3, 4).index_fill(1, T.tensor([[0]]), 1.0),
                lambda T: T.zeros(3, 4).index_fill(1, T.tensor([0]), T.tensor([1.0, 2])),
                lambda T: T.zeros(3, 4).index_copy(1, T.tensor([0]), T.ones(3, 2)),
                lambda T: T.zeros(3, 4).index_copy(1, T.tensor([0], dtype=T.int32), T.ones(3, 1)),
                lambda T: T.zeros(3, 4).index_copy(1, T.tensor([4]), T.ones(3, 1)),
                lambda T: T.zeros(3, 4).index_copy(1, T.tensor([0]), T.ones(3, 1, dtype=T.float64))):
        raises_both(bad, torch_oracle)


def test_index_put(torch_oracle: Any) -> None:
    rows, cols = np.array([0, 2, 0]), np.array([1, 1, 1])
    check_both(lambda T: (T.tensor(A).index_put((T.tensor(rows), T.tensor(cols)), T.tensor(5.0)),
                          T.index_put(T.tensor(A), (T.tensor(rows), T.tensor(cols)), T.ones(3), accumulate=True),
                          T.tensor(A).index_put([T.tensor(A) > 0], T.tensor(0.0)),
                          T.tensor(A).index_put((T.tensor([1]),), T.arange(5.0))), torch_oracle)
    grads_both(lambda T, a, v: a.index_put((T.tensor([0, 2]), T.tensor([1, 3])), v), torch_oracle, A,
               np.array([2.0, 3.0], np.float32))
    grads_both(lambda T, a, v: a.index_put((T.tensor(rows), T.tensor(cols)), v, accumulate=True), torch_oracle, A,
               np.array([2.0, 3.0, 4.0], np.float32))
    grads_both(lambda T, a, v: a.index_put((T.tensor([1]),), v), torch_oracle, A, np.ones(5, np.float32))
    for bad in (lambda T: T.zeros(3, 4).index_put((T.tensor([0]),), T.ones(5)),
                lambda T: T.zeros(3, 4).index_put([T.tensor([0])], T.ones(4, dtype=T.float64)),
                lambda T: T.zeros(3, 4).index_put((T.tensor([0.0]),), T.ones(4)),
                lambda T: T.zeros(3, 4).index_put((T.tensor([7]),), T.ones(4))):
        raises_both(bad, torch_oracle)


def test_masked_scatter(torch_oracle: Any) -> None:
    mask = A > 0
    check_both(lambda T: (T.tensor(A).masked_scatter(T.tensor(mask), T.arange(20.0)),
                          T.masked_scatter(T.zeros(3, 4), T.tensor([True, False, True, False]), T.arange(20.0).reshape(4, 5)),
                          T.zeros(2).masked_scatter(T.tensor([False, False]), T.ones(0))), torch_oracle)
    grads_both(lambda T, a, s: a.masked_scatter(T.tensor(mask), s), torch_oracle, A,
               RNG.standard_normal((4, 5)).astype(np.float32))
    for bad in (lambda T: T.zeros(3, 4).masked_scatter(T.ones(3, 4, dtype=T.bool), T.ones(3)),
                lambda T: T.zeros(3, 4).masked_scatter(T.ones(3, 4), T.arange(20.0))):
        raises_both(bad, torch_oracle)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce(torch_oracle: Any, reduce: str, include_self: bool) -> None:
    index = np.array([[0, 1, 0, 1, 3], [2, 2, 2, 0, 0], [4, 4, 1, 1, 1]])
    src = np.array([[1.0, 2.0, 0.0, 3.0, 2.0], [3.0, 3.0, -1.0, 0.5, 4.0], [2.0, 2.0, 1.0, 5.0, 5.0]], np.float32)
    x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 3.0, 3.0, 1.0, 2.0], [6.0, 2.0, 1.0, 0.0, 2.0]], np.float32)
    check_both(lambda T: (T.tensor(x).scatter_reduce(1, T.tensor(index), T.tensor(src), reduce, include_self=include_self),
                          T.scatter_reduce(T.tensor([1, 2, 3, 4]), 0, T.tensor([0, 0, 1, 1]), T.tensor([3, 4, 5, -6]),
                                           reduce, include_self=include_self)), torch_oracle)
    grads_both(lambda T, a, s: a.scatter_reduce(1, T.tensor(index), s, reduce, include_self=include_self),
               torch_oracle, x, src)


def test_scatter_reduce_errors(torch_oracle: Any) -> None:
    for bad in (lambda T: T.zeros(3).scatter_reduce(0, T.tensor([0]), T.tensor([1]), "sum"),
                lambda T: T.zeros(3).scatter_reduce(0, T.tensor([5]), T.ones(1), "sum"),
                lambda T: T.zeros(3).scatter_reduce(0, T.tensor([0]), T.ones(1), "median")):
        raises_both(bad, torch_oracle)


def test_put(torch_oracle: Any) -> None:
    check_both(lambda T: (T.tensor(A).put(T.tensor([1, -1, 7]), T.tensor([9.0, 8.0, 7.0])),
                          T.put(T.tensor(A), T.tensor([[1, 1]]), T.tensor([[1.0, 2.0]]), accumulate=True)), torch_oracle)
    grads_both(lambda T, a, s: a.put(T.tensor([0, 6, 14]), s), torch_oracle, A, np.array([1.0, 2.0, 3.0], np.float32))
    grads_both(lambda T, a, s: a.put(T.tensor([[0, 6], [6, 1]]), s, accumulate=True), torch_oracle, A,
               np.ones((2, 2), np.float32))
    for bad in (lambda T: T.zeros(3, 4).put(T.tensor([12]), T.ones(1)),
                lambda T: T.zeros(3, 4).put(T.tensor([1, 2]), T.ones(3)),
                lambda T: T.zeros(3, 4).put(T.tensor([1]), T.ones(1, dtype=T.int64))):
        raises_both(bad, torch_oracle)


@pytest.mark.parametrize("call", [
    lambda T, y: y.index_fill_(1, T.tensor([0, 2]), 5.0),
    lambda T, y: y.index_copy_(0, T.tensor([2]), T.ones(1, 5)),
    lambda T, y: y.index_put_((T.tensor([0]), T.tensor([1])), T.tensor(3.0), accumulate=True),
    lambda T, y: y.masked_scatter_(y > 0, T.arange(15.0)),
    lambda T, y: y.scatter_reduce_(1, T.tensor([[0, 0], [1, 1], [2, 2]]), T.ones(3, 2), "amax"),
    lambda T, y: y.put_(T.tensor([3]), T.tensor([1.0])),
    lambda T, y: y.fill_diagonal_(2.0),
], ids=["index_fill_", "index_copy_", "index_put_", "masked_scatter_", "scatter_reduce_", "put_", "fill_diagonal_"])
def test_inplace_forms(torch_oracle: Any, call: Any) -> None:
    """The in-place forms write into the tensor itself, bump its version counter once, record
    the op's node (gradients flow through it) and refuse a leaf that requires grad."""
    def run(T: Any) -> tuple:
        leaf = T.tensor(A, requires_grad=True)
        y = leaf * 2
        v = y._version
        out = call(T, y)
        (out * T.tensor(A)).sum().backward()
        return out is y, y._version - v, y, leaf.grad
    check_both(run, torch_oracle)
    raises_both(lambda T: call(T, T.tensor(A, requires_grad=True)), torch_oracle, match="leaf Variable")


# ----------------------------------------------------------------------------- shape
def test_rot90(torch_oracle: Any) -> None:
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    for k, dims in ((1, (0, 1)), (2, (0, 1)), (3, (1, 2)), (-1, (2, 0)), (0, (0, 1)), (5, (-1, -2))):
        grads_both(lambda T, a: T.rot90(a, k, dims), torch_oracle, x)
    for bad in (lambda T: T.ones(3).rot90(), lambda T: T.ones(2, 2).rot90(1, [0]), lambda T: T.ones(2, 2).rot90(1, [1, 1])):
        raises_both(bad, torch_oracle)


def test_diag_embed_and_diagflat(torch_oracle: Any) -> None:
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    for offset, d1, d2 in ((0, -2, -1), (1, 0, 2), (-2, 2, 0)):
        grads_both(lambda T, a: T.diag_embed(a, offset, d1, d2), torch_oracle, x)
    grads_both(lambda T, a: a.diagflat(), torch_oracle, x)
    grads_both(lambda T, a: T.diagflat(a, -1), torch_oracle, x[0])


def test_splits(torch_oracle: Any) -> None:
    x = RNG.standard_normal((4, 6, 2)).astype(np.float32)
    grads_both(lambda T, a: T.vsplit(a, 2)[1], torch_oracle, x)
    grads_both(lambda T, a: a.hsplit([1, 4])[2], torch_oracle, x)
    grads_both(lambda T, a: T.dsplit(a, 2)[0], torch_oracle, x)
    grads_both(lambda T, a: T.hsplit(a, 3)[0], torch_oracle, x[0, :, 0])
    grads_both(lambda T, a: T.cat(a.split_with_sizes([2, 4], 1), 1), torch_oracle, x, signature=True)
    grads_both(lambda T, a: T.stack(T.unsafe_chunk(a, 3, 1)), torch_oracle, x, signature=True)
    grads_both(lambda T, a: T.cat(a.unsafe_split(4, 1), 1), torch_oracle, x, signature=True)
    grads_both(lambda T, a: T.cat(T.unsafe_split_with_sizes(a, [1, 3], 0)), torch_oracle, x, signature=True)

    def unsafe_is_not_a_view(T: Any) -> tuple:
        base = T.arange(4.0)
        part = base.unsafe_split(2)[0]
        part[0] = 9.0  # shares memory, but autograd does not track it as a view
        return part._base is not None, base, part._version, base._version
    check_both(unsafe_is_not_a_view, torch_oracle)
    for bad in (lambda T: T.ones(3).vsplit(3), lambda T: T.ones(3, 4).vsplit(2), lambda T: T.ones(3, 4).dsplit(2),
                lambda T: T.ones(4).split_with_sizes([1, 2]), lambda T: T.ones(4).unsafe_split([1, 3])):
        raises_both(bad, torch_oracle)


def test_chain_matmul(torch_oracle: Any) -> None:
    mats = [RNG.standard_normal(s).astype(np.float32) for s in ((2, 3), (3, 4), (4, 2))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grads_both(lambda T, a, b, c: T.chain_matmul(a, b, c), torch_oracle, *mats)
        grads_both(lambda T, a, b: T.chain_matmul(a, b), torch_oracle, *mats[:2])
        grads_both(lambda T, a: T.chain_matmul(a), torch_oracle, mats[0])
        raises_both(lambda T: T.chain_matmul(), torch_oracle)
        raises_both(lambda T: T.chain_matmul(T.ones(2, 2), T.ones(2)), torch_oracle)
    with pytest.warns(UserWarning, match="deprecated"):
        lt.chain_matmul(lt.ones(2, 2), lt.ones(2, 2))


@pytest.mark.filterwarnings("ignore:torch.asarray")
def test_asarray(torch_oracle: Any) -> None:
    def run(T: Any) -> tuple:
        t = T.arange(3.0)
        n = np.arange(3.0)
        shared = T.asarray(n)
        n[0] = 9.0  # seen through the tensor: the memory is shared
        copied = T.asarray(t, copy=True)
        t[1] = 7.0
        r = T.asarray(t, requires_grad=True)
        return (T.asarray(t) is t, shared, copied, T.asarray(t, dtype=T.float64), T.asarray([1, 2.0]),
                T.asarray([1, 2]), T.asarray(3), T.asarray(np.float32(2.5)), T.asarray(True),
                T.asarray(np.arange(3)), r is t, t.requires_grad, T.asarray([1.0, 2.0], requires_grad=True))
    check_both(run, torch_oracle)
    raises_both(lambda T: T.asarray(T.arange(3.0), dtype=T.float64, copy=False), torch_oracle, match="can't alias")
    raises_both(lambda T: T.asarray([1, 2], copy=False), torch_oracle, match="can't alias")


def test_unfold(torch_oracle: Any) -> None:
    x = RNG.standard_normal((3, 7)).astype(np.float32)
    for dim, size, step in ((1, 3, 2), (1, 2, 1), (0, 2, 1), (-1, 7, 3), (1, 0, 1)):
        grads_both(lambda T, a: a.unfold(dim, size, step), torch_oracle, x)
    check_both(lambda T: (T.arange(7.0).unfold(0, 3, 2), T.tensor(5.0).unfold(0, 1, 1),
                          T.arange(6.0).unfold(0, 2, 2).stride()), torch_oracle)

    def is_a_view(T: Any) -> tuple:
        base = T.arange(6.0)
        w = base.unfold(0, 3, 1)
        v = base._version
        w[1, 0] = -1.0  # writes into base (and shows in every window that overlaps it)
        return w._base is base, base, w, base._version - v
    check_both(is_a_view, torch_oracle)
    # double backward: the backward of unfold is itself differentiable
    def second(T: Any) -> Any:
        a = T.tensor(x.astype(np.float64), requires_grad=True)
        (g,) = T.autograd.grad((a.unfold(1, 3, 2) ** 2).sum(), a, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), a)
        return g, gg
    check_both(second, torch_oracle, check_grad_fn=False)
    for bad in (lambda T: T.ones(3, 4).unfold(1, 5, 1), lambda T: T.ones(3, 4).unfold(1, 2, 0),
                lambda T: T.ones(3, 4).unfold(2, 2, 1)):
        raises_both(bad, torch_oracle)


def test_fill_diagonal(torch_oracle: Any) -> None:
    def run(T: Any) -> tuple:
        tall, wide, cube = T.zeros(7, 3), T.zeros(3, 5), T.zeros(3, 3, 3)
        v = tall._version
        tall2 = T.zeros(7, 3)
        return (tall.fill_diagonal_(1.0), tall._version - v, tall2.fill_diagonal_(2.0, wrap=True),
                wide.fill_diagonal_(3, wrap=True), cube.fill_diagonal_(T.tensor(4.0)),
                T.zeros(4, 3, dtype=T.long).fill_diagonal_(5, wrap=True))
    check_both(run, torch_oracle)
    grads_both(lambda T, a: (a * 1).fill_diagonal_(0.0), torch_oracle, A)
    for bad in (lambda T: T.zeros(3).fill_diagonal_(1.0), lambda T: T.zeros(3, 3, 2).fill_diagonal_(1.0)):
        raises_both(bad, torch_oracle)


def test_methods_and_functions_exist() -> None:
    """Each new name is where PyTorch has it: a ``torch.X`` function, a ``Tensor.X`` method."""
    import torch
    names = ("cummax cummin logcumsumexp mode nanmedian nanquantile renorm renorm_ bincount histc histogram "
             "bucketize searchsorted unique_consecutive index_fill index_fill_ index_copy index_copy_ index_put "
             "index_put_ masked_scatter masked_scatter_ scatter_reduce scatter_reduce_ put put_ rot90 diag_embed "
             "diagflat vsplit hsplit dsplit split_with_sizes unsafe_chunk unsafe_split unsafe_split_with_sizes "
             "chain_matmul asarray unfold fill_diagonal_ aminmax").split()
    missing = [n for n in names if hasattr(torch, n) != hasattr(lt, n) and hasattr(torch, n)]
    missing += [f"Tensor.{n}" for n in names if hasattr(torch.Tensor, n) and not hasattr(lt.Tensor, n)]
    assert not missing, missing
