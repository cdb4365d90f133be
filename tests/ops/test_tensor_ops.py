"""Chapter 01 (tensors): every operation against real PyTorch 2.13 (the oracle).

Each case is a function ``fn(T)`` of the module (``learntorch`` or ``torch``):
the two results must agree in shape, dtype (type promotion included), values,
``requires_grad`` and ``grad_fn`` name (see ``conftest.assert_same``).  Error
cases must raise the same built-in exception type as PyTorch, with the message
fragment PyTorch uses where learntorch copies it.  Gradients of these operations
are in ``test_autograd.py``.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, raises_both, to_numpy

pytestmark = pytest.mark.torch

rng = np.random.default_rng(1234)
A = rng.standard_normal((2, 3)).astype(np.float32)          # a matrix
B = rng.standard_normal((3,)).astype(np.float32)            # broadcasts against A's rows
C = rng.standard_normal((4, 1, 3)).astype(np.float32)       # broadcasts against A to (4, 2, 3)
D = rng.standard_normal((3, 4)).astype(np.float32)          # A @ D
E = rng.standard_normal((2, 3, 4)).astype(np.float32)       # 3-D
P = (rng.random((2, 3)) + 0.5).astype(np.float32)           # positive, for log/sqrt/pow
I = np.array([[1, -2, 3], [4, 5, -6]], dtype=np.int64)      # integers
V = rng.standard_normal((5,)).astype(np.float32)
W = rng.standard_normal((5,)).astype(np.float32)
TIES = np.array([3, 1, 2, 1, 3, 1], dtype=np.int64)


def cases(*pairs):
    """``pytest.param(fn, id=name)`` for (name, fn) pairs."""
    return [pytest.param(fn, id=name) for name, fn in pairs]


# ============================================================================ creation
CREATION = cases(
    ("tensor-int-list", lambda T: T.tensor([1, 2, 3])),
    ("tensor-float-list", lambda T: T.tensor([1.0, 2, 3])),
    ("tensor-mixed-nested", lambda T: T.tensor([[1, 2.5], [3, 4]])),
    ("tensor-bool", lambda T: T.tensor([True, False])),
    ("tensor-0dim-float", lambda T: T.tensor(3.5)),
    ("tensor-0dim-int", lambda T: T.tensor(7)),
    ("tensor-0dim-bool", lambda T: T.tensor(True)),
    ("tensor-empty", lambda T: T.tensor([])),
    ("tensor-dtype-float64", lambda T: T.tensor([[1, 2], [3, 4]], dtype=T.float64)),
    ("tensor-dtype-int32", lambda T: T.tensor([1.7, -2.7], dtype=T.int32)),
    ("tensor-numpy-float64", lambda T: T.tensor(np.arange(4.0))),
    ("tensor-numpy-int32", lambda T: T.tensor(np.arange(4, dtype=np.int32))),
    ("tensor-numpy-scalar", lambda T: T.tensor(np.float64(2.5))),
    ("tensor-requires-grad", lambda T: T.tensor([1.0, 2.0], requires_grad=True)),
    ("zeros-varargs", lambda T: T.zeros(2, 3)),
    ("zeros-tuple", lambda T: T.zeros((2, 3))),
    ("zeros-list", lambda T: T.zeros([2, 3])),
    ("zeros-0dim", lambda T: T.zeros(())),
    ("zeros-int64", lambda T: T.zeros(2, 3, dtype=T.int64)),
    ("zeros-requires-grad", lambda T: T.zeros(2, requires_grad=True)),
    ("ones", lambda T: T.ones(4)),
    ("ones-bool", lambda T: T.ones(2, 1, dtype=T.bool)),
    ("empty-shape", lambda T: (T.empty(2, 3).shape, T.empty(2, 3).dtype)),
    ("empty-zero-size", lambda T: (T.empty(0).shape, T.empty(0, 3).numel())),
    ("arange-end", lambda T: T.arange(5)),
    ("arange-start-end", lambda T: T.arange(2, 8)),
    ("arange-step", lambda T: T.arange(1, 10, 3)),
    ("arange-negative-step", lambda T: T.arange(10, 0, -3)),
    ("arange-float-step", lambda T: T.arange(0, 1, 0.1)),
    ("arange-float-step-uneven", lambda T: T.arange(0, 1, 0.3)),
    ("arange-float-bounds", lambda T: T.arange(1.0, 2.5, 0.5)),
    ("arange-float-start-int-step", lambda T: T.arange(0.5, 3)),
    ("arange-negative-float", lambda T: T.arange(-1.0, 1.0, 0.25)),
    ("arange-dtype", lambda T: T.arange(5, dtype=T.float32)),
    ("arange-float64", lambda T: T.arange(0, 2, 0.5, dtype=T.float64)),
    ("linspace", lambda T: T.linspace(0, 1, 5)),
    ("linspace-negative", lambda T: T.linspace(-1, 1, 7)),
    ("linspace-one-step", lambda T: T.linspace(0, 10, 1)),
    ("linspace-float64", lambda T: T.linspace(0, 1, 4, dtype=T.float64)),
    ("eye", lambda T: T.eye(3)),
    ("eye-rect", lambda T: T.eye(2, 4)),
    ("eye-int", lambda T: T.eye(3, dtype=T.int64)),
    ("full-int", lambda T: T.full((2, 3), 7)),
    ("full-float", lambda T: T.full((2,), 1.5)),
    ("full-bool", lambda T: T.full((2,), True)),
    ("full-dtype", lambda T: T.full((2, 2), 3, dtype=T.float64)),
    ("zeros_like-int", lambda T: T.zeros_like(T.tensor(I))),
    ("zeros_like-keeps-no-grad", lambda T: T.zeros_like(T.tensor(A, requires_grad=True))),
    ("ones_like-dtype", lambda T: T.ones_like(T.tensor(A), dtype=T.int64)),
    ("full_like", lambda T: T.full_like(T.tensor(A), 2.5)),
    ("empty_like-shape", lambda T: T.empty_like(T.tensor(I)).shape),
    ("tensor-range", lambda T: T.tensor(range(4))),
    ("tensor-nested-ranges", lambda T: T.tensor([range(2), (5, 6)])),
    ("tensor-uint8-minus-one-wraps", lambda T: T.tensor([-1, 255], dtype=T.uint8)),
    ("full-uint8-minus-one-wraps", lambda T: T.full((2,), -1, dtype=T.uint8)),
    ("as_tensor-list", lambda T: T.as_tensor([1, 2, 3])),
    ("as_tensor-numpy-dtype", lambda T: T.as_tensor(np.arange(3.0), dtype=T.float32)),
    ("from_numpy-float64", lambda T: T.from_numpy(np.arange(6.0).reshape(2, 3))),
    ("from_numpy-int32", lambda T: T.from_numpy(np.arange(3, dtype=np.int32))),
    ("from_numpy-bool", lambda T: T.from_numpy(np.array([True, False]))),
    ("default-dtype", lambda T: T.get_default_dtype()),
    ("requires-grad-default", lambda T: T.tensor([1.0]).requires_grad),
    ("numel-dim-size", lambda T: (T.tensor(E).numel(), T.tensor(E).dim(), T.tensor(E).size(), T.tensor(E).size(1),
                                  T.tensor(E).size(-1), T.tensor(E).ndim, len(T.tensor(E)))),
)


@pytest.mark.parametrize("fn", CREATION)
def test_creation(torch_oracle, fn):
    check_both(fn, torch_oracle)


def test_from_numpy_shares_memory_both_ways(torch_oracle):
    for T in (lt, torch_oracle):
        a = np.arange(3.0)
        t = T.from_numpy(a)
        a[0] = 9.0               # change the array: the tensor sees it
        assert t[0].item() == 9.0
        t[1] = 7.0               # change the tensor: the array sees it
        assert a[1] == 7.0
        t.add_(1)                # in-place ops too
        np.testing.assert_array_equal(a, [10.0, 8.0, 3.0])
        assert t.numpy() is a or np.shares_memory(t.numpy(), a)


def test_tensor_copies_as_tensor_shares(torch_oracle):
    for T in (lt, torch_oracle):
        a = np.arange(3.0)
        copied, shared, converted = T.tensor(a), T.as_tensor(a), T.as_tensor(a, dtype=T.float32)
        a[0] = 5.0
        assert copied[0].item() == 0.0
        assert shared[0].item() == 5.0
        assert converted[0].item() == 0.0
        t = T.ones(2)
        assert T.as_tensor(t) is t


def test_numpy_shares_memory_with_tensor(torch_oracle):
    for T in (lt, torch_oracle):
        t = T.zeros(3)
        n = t.numpy()
        n[1] = 4.0
        assert t[1].item() == 4.0
        t.mul_(2)
        assert n[1] == 8.0


CREATION_ERRORS = [
    pytest.param(lambda T: T.zeros(-1), "negative", id="zeros-negative"),
    pytest.param(lambda T: T.empty(2, -1), "Trying to create tensor with negative dimension -1: \\[2, -1\\]",
                 id="empty-negative"),
    pytest.param(lambda T: T.tensor([[1, 2], [3]]), None, id="tensor-ragged"),
    pytest.param(lambda T: T.arange(0, 10, 0), "step must be nonzero", id="arange-zero-step"),
    pytest.param(lambda T: T.arange(10, 0, 1), "upper bound and lower bound inconsistent with step sign",
                 id="arange-wrong-sign"),
    pytest.param(lambda T: T.tensor([1, 2], requires_grad=True),
                 "^Only Tensors of floating point and complex dtype can require gradients", id="int-requires-grad"),
    pytest.param(lambda T: T.zeros(2, dtype=T.int64, requires_grad=True),
                 "^Only Tensors of floating point and complex dtype can require gradients", id="zeros-int-requires-grad"),
    pytest.param(lambda T: T.arange(3, requires_grad=True),
                 "^Only Tensors of floating point and complex dtype can require gradients", id="arange-int-requires-grad"),
    pytest.param(lambda T: T.tensor([1, 2]).requires_grad_(), "^only Tensors of floating point dtype can require",
                 id="requires_grad_-int"),
    pytest.param(lambda T: T.Tensor(2.0), None, id="legacy-Tensor-number"),
    pytest.param(lambda T: T.Tensor([2.0], requires_grad=True), None, id="legacy-Tensor-requires_grad"),
    pytest.param(lambda T: T.from_numpy([1, 2]), None, id="from_numpy-list"),
    pytest.param(lambda T: T.from_numpy(np.float64(1.0)), r"expected np.ndarray \(got numpy.float64\)",
                 id="from_numpy-numpy-scalar"),
    pytest.param(lambda T: T.from_numpy(np.array(["a"])), "can't convert np.ndarray of type numpy.str_",
                 id="from_numpy-strings"),
    pytest.param(lambda T: T.randn(2, dtype=T.int64), "\"normal_kernel_cpu\" not implemented for 'Long'",
                 id="randn-int"),
    # a list of tensors of many elements (torch.stack's job): an integer one reads as an index
    pytest.param(lambda T: T.tensor([T.tensor([1, 2]), T.tensor([3, 4])]),
                 "only integer tensors of a single element can be converted to an index", id="tensor-of-int-tensors"),
    pytest.param(lambda T: T.tensor([T.tensor([1.0, 2.0])]), "only one element tensors", id="tensor-of-float-tensors"),
    pytest.param(lambda T: T.tensor(["a"]), "too many dimensions 'str'", id="tensor-strings"),
    pytest.param(lambda T: T.tensor([1, "a"]), "invalid data type 'str'", id="tensor-number-then-string"),
    pytest.param(lambda T: T.tensor([1, [2]]), "'list' object cannot be interpreted as an integer",
                 id="tensor-number-then-list"),
    pytest.param(lambda T: T.tensor([1.5, [2]]), "must be real number, not list", id="tensor-float-then-list"),
    pytest.param(lambda T: T.tensor([[1], 2]), "not a sequence", id="tensor-list-then-number"),
    # numbers out of an integer dtype's range: PyTorch's overflow error, not a wrap-around
    pytest.param(lambda T: T.tensor([300], dtype=T.uint8), "without overflow", id="tensor-uint8-overflow"),
    pytest.param(lambda T: T.tensor([float("nan")], dtype=T.int64), "without overflow", id="tensor-nan-int64"),
    pytest.param(lambda T: T.tensor([1e30], dtype=T.int32), "without overflow", id="tensor-huge-float-int32"),
    pytest.param(lambda T: T.full((2,), -129.0, dtype=T.uint8), "without overflow", id="full-uint8-negative-float"),
    pytest.param(lambda T: T.full((2,), float("inf"), dtype=T.int64), "int64_t without overflow",
                 id="full-inf-int64"),
    pytest.param(lambda T: T.full((2,), 2 ** 64, dtype=T.bool), "int too big to convert", id="full-beyond-uint64"),
    pytest.param(lambda T: T.arange(5, dtype=T.bool), "\"arange_cpu\" not implemented for 'Bool'", id="arange-bool"),
    pytest.param(lambda T: T.zeros(4).index_copy(0, T.tensor([[0]]), T.ones(1)),
                 "index_copy_\\(\\): Index should have dimension 1 or 0", id="index_copy-2d-index"),
]


def test_tensor_of_tensors_that_require_grad_warns(torch_oracle):
    """``torch.tensor([loss_a, loss_b])`` makes numbers of them (``torch.stack`` keeps the graph):
    PyTorch warns, as for ``float(loss)`` (once per process; every time under set_warn_always)."""
    for T in (lt, torch_oracle):
        T.set_warn_always(True)
        try:
            w = T.tensor([1.0, 2.0], requires_grad=True)
            with pytest.warns(UserWarning, match="Converting a tensor with requires_grad=True to a scalar"):
                t = T.tensor([w[0], w[1] * 2])
            assert not t.requires_grad
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with T.no_grad():
                    T.tensor([w[0]])
        finally:
            T.set_warn_always(False)


@pytest.mark.parametrize("fn, match", CREATION_ERRORS)
def test_creation_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


ARANGE_POINTS = [(-1, 1, 0.2), (0, 1, 0.1), (0.5, 20, 0.35), (-5, 5, 0.7), (0, 3, 0.1), (1, 2, 0.01),
                 (8.8, -68.0, -1.1)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("start, end, step", ARANGE_POINTS)
def test_arange_points_are_pytorchs_bit_for_bit(torch_oracle, start, end, step, dtype):
    """A float ``arange`` rounds each point once (``arange(-1, 1, 0.2)[5]`` is 5.55e-17, which prints
    every point in scientific notation) and counts inside vectors from each vector's first point.
    Vectors are AVX2's in learntorch: a longer range is compared only where PyTorch's are too."""
    n = len(np.arange(start, end, step))
    if n >= 16 and torch_oracle.backends.cpu.get_cpu_capability() != "AVX2":
        pytest.skip("PyTorch's vectors here are not AVX2's: their last bits differ")
    got = lt.arange(start, end, step, dtype=getattr(lt, dtype))
    want = torch_oracle.arange(start, end, step, dtype=getattr(torch_oracle, dtype))
    np.testing.assert_array_equal(to_numpy(got), want.numpy())
    assert str(got) == str(want)


# ============================================================================ dtypes and promotion
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("a", DTYPES)
def test_promotion_table(torch_oracle, a):
    """``promote_types`` and the dtype of ``x + y`` for every pair (tensor ⊕ tensor, and ⊕ 0-dim)."""
    for b in DTYPES:
        T = torch_oracle
        expected = (T.promote_types(getattr(T, a), getattr(T, b)),
                    (T.ones(2, dtype=getattr(T, a)) * T.ones(2, dtype=getattr(T, b))).dtype,
                    (T.ones(2, dtype=getattr(T, a)) * T.ones((), dtype=getattr(T, b))).dtype,
                    (T.ones((), dtype=getattr(T, a)) * T.ones((), dtype=getattr(T, b))).dtype)
        actual = (lt.promote_types(getattr(lt, a), getattr(lt, b)),
                  (lt.ones(2, dtype=getattr(lt, a)) * lt.ones(2, dtype=getattr(lt, b))).dtype,
                  (lt.ones(2, dtype=getattr(lt, a)) * lt.ones((), dtype=getattr(lt, b))).dtype,
                  (lt.ones((), dtype=getattr(lt, a)) * lt.ones((), dtype=getattr(lt, b))).dtype)
        assert [repr(d) for d in actual] == [str(d) for d in expected], (a, b)


@pytest.mark.parametrize("a", DTYPES)
def test_promotion_with_python_scalars(torch_oracle, a):
    for scalar in (True, 2, 2.5):
        t_dtypes = [str((torch_oracle.ones(2, dtype=getattr(torch_oracle, a)) * scalar).dtype),
                    str((scalar * torch_oracle.ones(2, dtype=getattr(torch_oracle, a))).dtype),
                    str((torch_oracle.ones(2, dtype=getattr(torch_oracle, a)) + scalar).dtype)]
        l_dtypes = [repr((lt.ones(2, dtype=getattr(lt, a)) * scalar).dtype),
                    repr((scalar * lt.ones(2, dtype=getattr(lt, a))).dtype),
                    repr((lt.ones(2, dtype=getattr(lt, a)) + scalar).dtype)]
        assert l_dtypes == t_dtypes, (a, scalar)


DTYPE_CASES = cases(
    ("int-times-float-scalar", lambda T: T.tensor(I) * 2.5),
    ("int-div-int", lambda T: T.tensor(I) / T.tensor([[2, 2, 2], [3, 3, 3]])),
    ("int-div-scalar", lambda T: T.tensor(I) / 2),
    ("scalar-div-int", lambda T: 6 / T.tensor([1, 2, 3])),
    ("int-plus-float32", lambda T: T.tensor(I) + T.tensor(A)),
    ("int-plus-float64-0dim", lambda T: T.tensor(I) + T.tensor(1.5, dtype=T.float64)),
    ("float32-times-float64-0dim", lambda T: T.tensor(A) * T.tensor(2.0, dtype=T.float64)),
    ("float32-times-float64", lambda T: T.tensor(A) * T.tensor(A, dtype=T.float64)),
    ("int32-plus-int64-0dim", lambda T: T.tensor([1, 2], dtype=T.int32) + T.tensor(3)),
    ("int32-plus-python-int", lambda T: T.tensor([1, 2], dtype=T.int32) + 3),
    ("uint8-plus-int8", lambda T: T.tensor([1, 2], dtype=T.uint8) + T.tensor([1, 2], dtype=T.int8)),
    ("bool-plus-bool", lambda T: T.tensor([True, True]) + T.tensor([True, False])),
    ("bool-times-int", lambda T: T.tensor([True, False]) * 3),
    ("bool-plus-float", lambda T: T.tensor([True, False]) + 0.5),
    ("bool-tensor-times-float-tensor", lambda T: T.tensor([True, False]) * T.tensor([2.0, 3.0])),
    ("float16-times-float", lambda T: T.tensor([1.0, 2.0], dtype=T.float16) * 2.5),
    ("int-pow-float", lambda T: T.tensor([1, 2, 4]) ** 0.5),
    ("int-0dim-plus-float-scalar", lambda T: T.tensor(3) + 0.5),
    ("float64-tensor-sum-dtype", lambda T: T.tensor(A, dtype=T.float64).sum()),
    ("to-float64", lambda T: T.tensor(A).to(T.float64)),
    ("to-dtype-kw", lambda T: T.tensor(A).to(dtype=T.float16)),
    ("double", lambda T: T.tensor(I).double()),
    ("float", lambda T: T.tensor(I).float()),
    ("long-truncates", lambda T: T.tensor([-1.7, 1.7, 2.5]).long()),
    ("int", lambda T: T.tensor([-1.7, 1.7]).int()),
    ("bool", lambda T: T.tensor([0.0, -2.0, 0.5]).bool()),
    ("half", lambda T: T.tensor([1.0, 2.5]).half()),
    ("to-other-tensor", lambda T: T.tensor(I).to(T.tensor(A, dtype=T.float64))),
    ("to-cpu-string", lambda T: T.tensor(A).to("cpu")),
    ("to-device-and-dtype", lambda T: T.tensor(A).to("cpu", T.float64)),
    ("type-string", lambda T: (T.tensor(A).type(), T.tensor(I).type(), T.tensor([True]).type())),
    ("type-convert", lambda T: T.tensor(A).type(T.int64)),
    ("to-device-and-python-type", lambda T: T.tensor(A).to("cpu", float)),
    ("to-flags-positional", lambda T: (T.tensor(A).to(T.float64, True), T.tensor(A).to("cpu", T.int32, False, True))),
    ("to-device-none", lambda T: (T.tensor(A).to(device=None), T.tensor(A).to(None, T.float64))),
    ("type_as", lambda T: T.tensor(A).type_as(T.tensor(I))),
    ("is_floating_point", lambda T: (T.tensor(A).is_floating_point(), T.tensor(I).is_floating_point())),
    ("dtype-attributes", lambda T: (T.float32.is_floating_point, T.int64.is_floating_point, T.float64.itemsize,
                                    T.tensor(I).element_size(), T.float == T.float32, T.long == T.int64,
                                    T.double == T.float64)),
)


@pytest.mark.parametrize("fn", DTYPE_CASES)
def test_dtypes(torch_oracle, fn):
    check_both(fn, torch_oracle)


def test_to_returns_self_when_nothing_changes(torch_oracle):
    for T in (lt, torch_oracle):
        x = T.tensor(A)
        assert x.to(T.float32) is x
        assert x.to("cpu") is x
        assert x.cpu() is x
        assert x.to(T.float32, False, True) is not x  # (the flags non_blocking, copy: given positionally)
        assert x.to("cpu", T.float32, False, True) is not x
        assert x.float() is x
        assert x.to(T.float32, copy=True) is not x


# ============================================================================ arithmetic
ARITH = cases(
    ("add", lambda T: T.tensor(A) + T.tensor(A)),
    ("add-broadcast-row", lambda T: T.tensor(A) + T.tensor(B)),
    ("add-broadcast-3d", lambda T: T.tensor(C) + T.tensor(A)),
    ("sub-broadcast", lambda T: T.tensor(A) - T.tensor(B)),
    ("mul-broadcast", lambda T: T.tensor(B) * T.tensor(A)),
    ("div-broadcast", lambda T: T.tensor(A) / T.tensor(P)),
    ("add-scalar-right", lambda T: T.tensor(A) + 2),
    ("add-scalar-left", lambda T: 2 + T.tensor(A)),
    ("sub-scalar-right", lambda T: T.tensor(A) - 2.5),
    ("sub-scalar-left", lambda T: 2.5 - T.tensor(A)),
    ("mul-scalar-left", lambda T: 3 * T.tensor(A)),
    ("div-scalar-right", lambda T: T.tensor(A) / 2),
    ("div-scalar-left", lambda T: 2 / T.tensor(P)),
    ("pow-scalar", lambda T: T.tensor(A) ** 2),
    ("pow-half", lambda T: T.tensor(P) ** 0.5),
    ("pow-negative", lambda T: T.tensor(P) ** -1.5),
    ("rpow", lambda T: 2 ** T.tensor(A)),
    ("pow-tensor", lambda T: T.tensor(P) ** T.tensor(A)),
    ("pow-0dim-tensor", lambda T: T.tensor(P) ** T.tensor(2.0)),
    ("add-alpha", lambda T: T.add(T.tensor(A), T.tensor(B), alpha=2)),
    ("sub-alpha", lambda T: T.sub(T.tensor(A), T.tensor(B), alpha=0.5)),
    ("functions", lambda T: (T.mul(T.tensor(A), 2), T.div(T.tensor(A), T.tensor(P)), T.pow(T.tensor(P), 3),
                             T.neg(T.tensor(A)), T.multiply(T.tensor(A), T.tensor(B)),
                             T.subtract(T.tensor(A), 1), T.divide(T.tensor(A), 4))),
    ("methods", lambda T: (T.tensor(A).add(1), T.tensor(A).sub(T.tensor(B)), T.tensor(A).mul(T.tensor(A)),
                           T.tensor(A).div(3), T.tensor(P).pow(2))),
    ("div-rounding-floor", lambda T: T.div(T.tensor([-7.0, 7.0]), 2, rounding_mode="floor")),
    ("div-rounding-trunc", lambda T: T.div(T.tensor([-7.0, 7.0]), 2, rounding_mode="trunc")),
    ("int-add", lambda T: T.tensor(I) + T.tensor(I)),
    ("int-mul-scalar", lambda T: T.tensor(I) * 3),
    ("int-floordiv", lambda T: T.tensor(I) // 2),
    ("int-floordiv-negative", lambda T: T.tensor([-7, 7]) // T.tensor([2, -2])),
    ("int-remainder", lambda T: T.tensor([-7, 7]) % 3),
    # round(decimals=): in float32 for float16 (1000.5 * 100 would overflow); 10**d divides when d < 0
    ("round-decimals-float16", lambda T: T.tensor([1000.5, 0.125, -2.675], dtype=T.float16).round(decimals=2)),
    ("round-negative-decimals", lambda T: T.tensor([1234.5, -1250.0, 15.0]).round(decimals=-2)),
    ("round-decimals-zero-node", lambda T: T.round(T.tensor([1.5, 2.5], requires_grad=True), decimals=0)),
    ("float-remainder", lambda T: T.tensor([-7.0, 7.5]) % 3),
    ("int-pow", lambda T: T.tensor(I) ** 2),
    ("int-rpow", lambda T: 2 ** T.tensor([1, 2, 3])),
    ("int-neg", lambda T: -T.tensor(I)),
    ("0dim-arith", lambda T: T.tensor(2.0) * T.tensor(3.0) + 1),
    ("0dim-with-matrix", lambda T: T.tensor(A) * T.tensor(2.0)),
    ("division-by-zero", lambda T: T.tensor([1.0, -1.0, 0.0]) / 0),
    ("pos", lambda T: +T.tensor(A)),
)


@pytest.mark.parametrize("fn", ARITH)
def test_arithmetic(torch_oracle, fn):
    check_both(fn, torch_oracle)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_remainder_zero_is_signed_like_the_dividend(torch_oracle, dtype):
    """PyTorch's float ``%`` is ``fmod`` moved by the divisor: ``9. % -3`` is ``0.``, ``-9. % 3``
    is ``-0.`` (NumPy's ``%`` signs a zero like the divisor)."""
    a = np.array([9.0, -9.0, 0.0, -0.0, 5.0, -7.0, 7.5, -7.5, 1e-20], dtype=np.float32)
    for b in (3.0, -3.0):
        got = lt.tensor(a).to(getattr(lt, dtype)) % b
        want = torch_oracle.tensor(a).to(getattr(torch_oracle, dtype)) % b
        np.testing.assert_array_equal(to_numpy(got.float()), want.float().numpy())
        np.testing.assert_array_equal(np.signbit(to_numpy(got.float())), np.signbit(want.float().numpy()))
        assert str(got) == str(want)


def test_elementwise_star_is_not_dot(torch_oracle):
    """Correction 5: ``*`` is element-wise; ``dot`` is the inner product of 1-D tensors."""
    check_both(lambda T: (T.tensor(V) * T.tensor(W), T.dot(T.tensor(V), T.tensor(W))), torch_oracle)


# ============================================================================ unary functions
UNARY = ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "neg", "reciprocal", "rsqrt",
         "square", "sign", "floor", "ceil", "round", "trunc", "log1p", "expm1", "log2", "log10", "exp2"]
POSITIVE_ONLY = {"log", "sqrt", "rsqrt", "log2", "log10", "log1p"}


@pytest.mark.parametrize("name", UNARY)
def test_unary(torch_oracle, name):
    data = P if name in POSITIVE_ONLY else A * 2
    check_both(lambda T: (getattr(T, name)(T.tensor(data)), getattr(T.tensor(data), name)()), torch_oracle)


@pytest.mark.parametrize("name", ["exp", "sqrt", "sin", "sigmoid", "tanh", "abs", "neg", "relu", "sign"])
def test_unary_on_integers(torch_oracle, name):
    """Integer input: float functions give float32, abs/neg/relu/sign keep int64."""
    check_both(lambda T: getattr(T, name)(T.tensor([1, 4, 9])), torch_oracle)


def test_unary_special_values(torch_oracle):
    """inf and nan come back silently, as in PyTorch (no NumPy RuntimeWarning in a learner's notebook)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_both(lambda T: (T.tensor([1.0, -1.0, 0.0]) / 0, 1 / T.tensor([0.0]), T.reciprocal(T.tensor([0.0]))),
                   torch_oracle)
        _special_values(torch_oracle)


def _special_values(torch_oracle):
    check_both(lambda T: (T.sqrt(T.tensor([-1.0, 0.0])), T.log(T.tensor([0.0, -1.0])),
                          T.sigmoid(T.tensor([-100.0, 100.0])), T.exp(T.tensor([100.0])),
                          T.round(T.tensor([0.5, 1.5, 2.5, -0.5])),
                          T.isnan(T.tensor([float("nan"), 1.0])), T.isinf(T.tensor([float("inf"), 1.0])),
                          T.isfinite(T.tensor([float("inf"), float("nan"), 1.0]))), torch_oracle)


CLAMP = cases(
    ("min", lambda T: T.clamp(T.tensor(A), min=-0.5)),
    ("max", lambda T: T.clamp(T.tensor(A), max=0.5)),
    ("both-positional", lambda T: T.clamp(T.tensor(A), -0.5, 0.5)),
    ("method", lambda T: T.tensor(A).clamp(min=0)),
    ("clip-alias", lambda T: T.clip(T.tensor(A), -0.1, 0.1)),
    ("int", lambda T: T.tensor(I).clamp(min=0, max=4)),
    ("int-float-bound", lambda T: T.tensor([1, 2]).clamp(min=1.5)),
    ("0dim", lambda T: T.tensor(5.0).clamp(max=1)),
)


@pytest.mark.parametrize("fn", CLAMP)
def test_clamp(torch_oracle, fn):
    check_both(fn, torch_oracle)


def test_clamp_without_bounds_raises(torch_oracle):
    raises_both(lambda T: T.clamp(T.tensor(A)), torch_oracle, "At least one of 'min' or 'max' must not be None")


@pytest.mark.parametrize("fn, match", [
    pytest.param(lambda T: T.clamp(T.tensor(A), min=T.tensor([1.0, 2.0])), "must match the size of tensor",
                 id="clamp-bound-does-not-broadcast"),
    pytest.param(lambda T: T.clamp(T.tensor(A), "a"), "clamp\\(\\) received an invalid combination of arguments",
                 id="clamp-string-bound"),
    pytest.param(lambda T: T.where(T.tensor(A) > 0, "a", 1), "where\\(\\) received an invalid combination",
                 id="where-string-value"),
])
def test_clamp_and_where_argument_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


# ============================================================================ comparisons and logic
COMPARE = cases(
    ("gt-scalar", lambda T: T.tensor(A) > 0),
    ("lt-reflected", lambda T: 0 < T.tensor(A)),
    ("eq-broadcast", lambda T: T.tensor(A) == T.tensor(B)),
    ("le-broadcast", lambda T: T.tensor(A) <= T.tensor(B)),
    ("ge", lambda T: T.tensor(A) >= T.tensor(A)),
    ("ne", lambda T: T.tensor(A) != T.tensor(A)),
    ("int-eq", lambda T: T.tensor(I) == 3),
    ("int-vs-float", lambda T: T.tensor([1, 2, 3]) < T.tensor([1.5, 2.0, 3.5])),
    ("methods", lambda T: (T.tensor(A).gt(0), T.tensor(A).lt(T.tensor(B)), T.tensor(I).eq(3), T.tensor(I).ne(3),
                           T.tensor(A).ge(0.5), T.tensor(A).le(0.5))),
    ("functions", lambda T: (T.maximum(T.tensor(A), T.tensor(B)), T.minimum(T.tensor(A), T.tensor(B)))),
    ("where", lambda T: T.where(T.tensor(A) > 0, T.tensor(A), T.tensor(B))),
    ("where-scalar", lambda T: T.where(T.tensor(A) > 0, T.tensor(A), 0.0)),
    ("equal-allclose", lambda T: (T.equal(T.tensor(A), T.tensor(A)), T.equal(T.tensor(A), T.tensor(A) + 1),
                                  T.allclose(T.tensor(A), T.tensor(A) + 1e-9), T.tensor(A).allclose(T.tensor(P)))),
    ("isclose", lambda T: T.isclose(T.tensor([1.0, 2.0]), T.tensor([1.0 + 1e-7, 2.1]))),
    ("and", lambda T: (T.tensor(A) > 0) & (T.tensor(B) < 0)),
    ("or", lambda T: (T.tensor(A) > 0) | (T.tensor(B) < 0)),
    ("xor", lambda T: (T.tensor(A) > 0) ^ (T.tensor(B) < 0)),
    ("invert-mask", lambda T: ~(T.tensor(A) > 0)),
    ("logical_not", lambda T: T.logical_not(T.tensor([0.0, 1.5, -2.0]))),
    ("bitwise-int", lambda T: (T.tensor(I) & 3, T.tensor(I) | 8, T.tensor(I) ^ 1, ~T.tensor(I))),
    ("bool-and-python-bool", lambda T: T.tensor([True, False]) & True),
)


@pytest.mark.parametrize("fn", COMPARE)
def test_comparisons_and_logic(torch_oracle, fn):
    check_both(fn, torch_oracle)


LOGIC_ERRORS = [
    pytest.param(lambda T: T.tensor([15, 7]).round(decimals=1), "\"round_cpu\" not implemented for 'Long'",
                 id="round-decimals-int"),
    pytest.param(lambda T: T.round(T.tensor([15, 7]), decimals=0), "\"round_vml_cpu\" not implemented for 'Long'",
                 id="round-decimals-zero-int"),
    pytest.param(lambda T: T.tensor(A) & T.tensor(A), None, id="float-and"),
    pytest.param(lambda T: ~T.tensor(A), None, id="float-invert"),
    pytest.param(lambda T: -T.tensor([True, False]), "Negation, the `-` operator, on a bool tensor is not supported",
                 id="neg-bool"),
    pytest.param(lambda T: T.tensor([True]) - T.tensor([False]), "Subtraction, the `-` operator, with two bool",
                 id="sub-bools"),
    pytest.param(lambda T: T.where(T.tensor([1, 0]), T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])), None,
                 id="where-int-condition"),
    pytest.param(lambda T: bool(T.tensor(A) > 0), "Boolean value of Tensor with more than one value is ambiguous",
                 id="bool-of-many"),
    pytest.param(lambda T: T.tensor(A) + T.ones(3, 2), None, id="broadcast-mismatch"),
]


@pytest.mark.parametrize("fn, match", LOGIC_ERRORS)
def test_arithmetic_and_logic_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


# ============================================================================ reductions
REDUCE = cases(
    ("sum", lambda T: T.tensor(E).sum()),
    ("sum-dim0", lambda T: T.tensor(A).sum(0)),
    ("sum-dim1", lambda T: T.tensor(A).sum(dim=1)),
    ("sum-dim-neg", lambda T: T.tensor(E).sum(-1)),
    ("sum-keepdim", lambda T: T.tensor(E).sum(1, keepdim=True)),
    ("sum-tuple", lambda T: T.tensor(E).sum((0, 2))),
    ("sum-tuple-neg-keepdim", lambda T: T.tensor(E).sum((-1, -3), keepdim=True)),
    ("sum-function", lambda T: T.sum(T.tensor(A), 0)),
    ("sum-int", lambda T: T.tensor(I).sum(1)),
    ("sum-bool", lambda T: (T.tensor(A) > 0).sum()),
    ("sum-int32", lambda T: T.tensor([1, 2], dtype=T.int32).sum()),
    ("sum-dtype", lambda T: T.tensor(I).sum(dtype=T.float32)),
    ("sum-0dim", lambda T: T.tensor(2.5).sum()),
    ("sum-empty", lambda T: T.zeros(0).sum()),
    ("mean", lambda T: T.tensor(E).mean()),
    ("mean-dim0", lambda T: T.mean(T.tensor(A), 0)),
    ("mean-dim-keepdim", lambda T: T.tensor(E).mean(-2, keepdim=True)),
    ("mean-tuple", lambda T: T.tensor(E).mean((0, 1))),
    ("mean-dtype", lambda T: T.tensor(I).mean(dtype=T.float64)),
    ("max", lambda T: T.tensor(A).max()),
    ("max-dim", lambda T: T.tensor(A).max(1)),
    ("max-dim-keepdim", lambda T: T.max(T.tensor(E), dim=-1, keepdim=True)),
    ("max-binary", lambda T: T.max(T.tensor(A), T.tensor(B))),
    ("max-int", lambda T: T.tensor(I).max(0)),
    ("min", lambda T: T.tensor(A).min()),
    ("min-dim", lambda T: T.min(T.tensor(A), 0)),
    ("amax", lambda T: T.amax(T.tensor(E), 1)),
    ("amax-tuple", lambda T: T.tensor(E).amax((0, -1), keepdim=True)),
    ("amax-all", lambda T: T.amax(T.tensor(E))),
    ("amin", lambda T: T.amin(T.tensor(E), (1, 2))),
    ("argmax", lambda T: T.tensor(A).argmax()),
    ("argmax-dim", lambda T: T.argmax(T.tensor(E), dim=1)),
    ("argmax-keepdim", lambda T: T.tensor(E).argmax(-1, keepdim=True)),
    ("argmax-ties-first", lambda T: T.tensor([1, 3, 3, 0]).argmax()),
    ("argmin", lambda T: T.tensor(A).argmin(0)),
    ("prod", lambda T: T.tensor(A).prod()),
    ("prod-dim", lambda T: T.tensor(A).prod(1)),
    ("prod-keepdim", lambda T: T.prod(T.tensor(E), -1, keepdim=True)),
    ("prod-int", lambda T: T.tensor(I).prod()),
    ("var", lambda T: T.tensor(E).var()),
    ("var-dim", lambda T: T.tensor(E).var(1)),
    ("var-unbiased-false", lambda T: T.var(T.tensor(E), 0, unbiased=False)),
    ("var-correction0-keepdim", lambda T: T.tensor(E).var((0, 2), correction=0, keepdim=True)),
    ("var-positional-unbiased", lambda T: T.tensor(E).var(False)),
    ("std", lambda T: T.tensor(E).std()),
    ("std-dim", lambda T: T.std(T.tensor(E), -1, keepdim=True)),
    ("logsumexp", lambda T: T.logsumexp(T.tensor(E), 1)),
    ("logsumexp-tuple-keepdim", lambda T: T.tensor(E).logsumexp((0, 2), keepdim=True)),
    ("logsumexp-large", lambda T: T.logsumexp(T.tensor([1000.0, 1000.0]), 0)),
    ("norm", lambda T: T.tensor(E).norm()),
    ("norm-function", lambda T: T.norm(T.tensor(A))),
    ("norm-p1-dim", lambda T: T.tensor(A).norm(p=1, dim=1)),
    ("norm-inf", lambda T: T.tensor(A).norm(float("inf"))),
    ("norm-p3-keepdim", lambda T: T.tensor(E).norm(3, dim=-1, keepdim=True)),
    ("norm-dim-tuple", lambda T: T.tensor(E).norm(dim=(1, 2))),
    ("all-any", lambda T: (T.tensor(A).gt(-10).all(), (T.tensor(A) > 0).any(1), T.tensor(I).all(),
                           T.any(T.tensor(I) > 4, 0, keepdim=True))),
    ("cumsum", lambda T: T.tensor(A).cumsum(1)),
    ("cumsum-int", lambda T: T.cumsum(T.tensor(I), 0)),
    ("count_nonzero", lambda T: T.count_nonzero(T.tensor([[0, 1], [2, 0]]))),
    ("dim-meaning", lambda T: (T.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(0), T.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(1))),
)


@pytest.mark.parametrize("fn", REDUCE)
def test_reductions(torch_oracle, fn):
    check_both(fn, torch_oracle)


def test_max_dim_named_fields(torch_oracle):
    for T in (lt, torch_oracle):
        out = T.tensor(A).max(dim=1)
        values, indices = out
        assert out.values is values or T.equal(out.values, values)
        assert out.indices.dtype == T.int64
    check_both(lambda T: (T.tensor(A).max(dim=1).values, T.tensor(A).min(dim=0).indices), torch_oracle)


REDUCE_ERRORS = [
    pytest.param(lambda T: T.tensor(A).sum(2), "Dimension out of range", id="sum-dim-out-of-range"),
    pytest.param(lambda T: T.tensor(A).sum(-3), "Dimension out of range", id="sum-negative-out-of-range"),
    pytest.param(lambda T: T.tensor(A).sum((0, 0)), "appears multiple times", id="sum-repeated-dim"),
    pytest.param(lambda T: T.tensor(I).mean(), "mean\\(\\): could not infer output dtype", id="mean-int"),
    pytest.param(lambda T: T.zeros(0).max(), None, id="max-empty"),
    pytest.param(lambda T: T.tensor(A).max(5), "Dimension out of range", id="max-dim-out-of-range"),
    pytest.param(lambda T: T.tensor(A).argmax(2), "Dimension out of range", id="argmax-out-of-range"),
]


@pytest.mark.parametrize("fn, match", REDUCE_ERRORS)
def test_reduction_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


# ============================================================================ shape operations
SHAPE = cases(
    ("view", lambda T: T.tensor(A).view(3, 2)),
    ("view-tuple", lambda T: T.tensor(A).view((3, 2))),
    ("view-minus-one", lambda T: T.tensor(E).view(-1)),
    ("view-minus-one-middle", lambda T: T.tensor(E).view(2, -1, 2)),
    ("view-0dim", lambda T: T.tensor([5.0]).view(())),
    ("view_as", lambda T: T.tensor(A).view_as(T.tensor(D[:, :2]))),
    ("reshape", lambda T: T.tensor(E).reshape(4, 6)),
    ("reshape-minus-one", lambda T: T.reshape(T.tensor(E), (-1, 3))),
    ("reshape-noncontiguous", lambda T: T.tensor(A).t().reshape(-1)),
    ("t", lambda T: T.tensor(A).t()),
    ("t-function", lambda T: T.t(T.tensor(A))),
    ("t-1d", lambda T: T.tensor(B).t()),
    ("T-property", lambda T: T.tensor(E).permute(2, 1, 0)),
    ("mT", lambda T: T.tensor(E).mT),
    ("transpose", lambda T: T.tensor(A).transpose(0, 1)),
    ("transpose-function-3d", lambda T: T.transpose(T.tensor(E), 0, 2)),
    ("transpose-negative", lambda T: T.tensor(E).transpose(-1, -2)),
    ("swapaxes", lambda T: T.swapaxes(T.tensor(E), 0, 1)),
    ("permute", lambda T: T.tensor(E).permute(2, 0, 1)),
    ("permute-tuple-negative", lambda T: T.permute(T.tensor(E), (-1, 0, 1))),
    ("movedim", lambda T: T.movedim(T.tensor(E), 0, -1)),
    ("squeeze-all", lambda T: T.tensor(C).reshape(4, 1, 3, 1).squeeze()),
    ("squeeze-dim", lambda T: T.squeeze(T.tensor(C), 1)),
    ("squeeze-dim-not-one", lambda T: T.tensor(C).squeeze(0)),
    ("squeeze-negative", lambda T: T.tensor(C).unsqueeze(-1).squeeze(-1)),
    ("squeeze-tuple", lambda T: T.tensor(C).reshape(1, 4, 1, 3).squeeze((0, 2))),
    ("squeeze-0dim", lambda T: T.tensor(2.0).squeeze()),
    ("unsqueeze-0", lambda T: T.tensor(A).unsqueeze(0)),
    ("unsqueeze-end", lambda T: T.unsqueeze(T.tensor(A), 2)),
    ("unsqueeze-negative", lambda T: T.tensor(A).unsqueeze(-1)),
    ("unsqueeze-middle-neg", lambda T: T.tensor(A).unsqueeze(-2)),
    ("unsqueeze-0dim", lambda T: T.tensor(2.0).unsqueeze(0)),
    ("expand", lambda T: T.tensor(C).expand(4, 2, 3)),
    ("expand-minus-one", lambda T: T.tensor(B).expand(2, -1)),
    ("expand-new-dims", lambda T: T.tensor(A).expand(5, 2, 3)),
    ("expand_as", lambda T: T.tensor(B).expand_as(T.tensor(A))),
    ("broadcast_to", lambda T: T.broadcast_to(T.tensor(B), (2, 3))),
    ("cat-dim0", lambda T: T.cat([T.tensor(A), T.tensor(A) * 2])),
    ("cat-dim1", lambda T: T.cat((T.tensor(A), T.tensor(D).t()[:2]), dim=1)),
    ("cat-dim-neg", lambda T: T.cat([T.tensor(E), T.tensor(E)], -1)),
    ("cat-three", lambda T: T.cat([T.tensor(B), T.tensor(V), T.tensor(B)])),
    ("cat-promotes", lambda T: T.cat([T.tensor(I), T.tensor(A)])),
    ("cat-legacy-empty", lambda T: T.cat([T.tensor(A), T.tensor([])])),
    ("concat", lambda T: T.concat([T.tensor(A), T.tensor(A)], dim=1)),
    ("concatenate", lambda T: T.concatenate([T.tensor(A), T.tensor(A)], 0)),
    ("stack-dim0", lambda T: T.stack([T.tensor(A), T.tensor(A) + 1])),
    ("stack-dim1", lambda T: T.stack([T.tensor(A), T.tensor(A)], dim=1)),
    ("stack-dim-neg", lambda T: T.stack((T.tensor(B), T.tensor(B)), -1)),
    ("stack-0dim", lambda T: T.stack([T.tensor(1.0), T.tensor(2.0)])),
    ("split-size", lambda T: T.tensor(E).split(1)),
    ("split-size-uneven", lambda T: T.split(T.tensor(V), 2)),
    ("split-sections", lambda T: T.tensor(A).split([1, 2], dim=1)),
    ("chunk", lambda T: T.tensor(V).chunk(2)),
    ("chunk-dim", lambda T: T.chunk(T.tensor(E), 3, dim=-1)),
    ("chunk-more-than-size", lambda T: T.tensor(B).chunk(5)),
    ("unbind", lambda T: T.tensor(A).unbind()),
    ("unbind-dim", lambda T: T.unbind(T.tensor(E), 2)),
    ("iterate", lambda T: list(T.tensor(A))),
    ("flatten", lambda T: T.tensor(E).flatten()),
    ("flatten-start", lambda T: T.flatten(T.tensor(E), 1)),
    ("flatten-range", lambda T: T.tensor(E).flatten(0, 1)),
    ("flatten-0dim", lambda T: T.tensor(3.0).flatten()),
    ("unflatten", lambda T: T.tensor(E).unflatten(2, (2, 2))),
    ("narrow", lambda T: T.tensor(E).narrow(2, 1, 2)),
    ("narrow-function", lambda T: T.narrow(T.tensor(A), 0, 1, 1)),
    ("flip", lambda T: T.tensor(A).flip(0)),
    ("flip-dims", lambda T: T.flip(T.tensor(E), (0, 2))),
    ("repeat", lambda T: T.tensor(A).repeat(2, 1)),
    ("repeat-more-dims", lambda T: T.tensor(B).repeat(2, 1, 2)),
    ("vstack-1d", lambda T: T.vstack([T.tensor(B), T.tensor(B) * 2])),
    ("vstack-2d", lambda T: T.vstack((T.tensor(A), T.tensor(B).unsqueeze(0)))),
    ("hstack", lambda T: T.hstack([T.tensor(A), T.tensor(A)])),
    ("contiguous", lambda T: (T.tensor(A).t().is_contiguous(), T.tensor(A).t().contiguous().is_contiguous(),
                              T.tensor(A).t().contiguous())),
    ("shape-is-Size", lambda T: (T.tensor(E).shape, T.tensor(E).shape[1:], T.tensor(E).shape.numel())),
    ("stride", lambda T: (T.tensor(E).stride(), T.tensor(E).transpose(0, 2).stride(), T.tensor(E).stride(1))),
)


@pytest.mark.parametrize("fn", SHAPE)
def test_shape_ops(torch_oracle, fn):
    check_both(fn, torch_oracle)


def test_squeeze_removes_and_unsqueeze_adds(torch_oracle):
    """Correction 1: the notes say ``squeeze`` adds a dimension; it removes one."""
    check_both(lambda T: (T.squeeze(T.zeros(2, 1, 3), 1).shape, T.unsqueeze(T.zeros(2, 3), 1).shape), torch_oracle)


VIEW_SHARING = cases(
    ("view", lambda T, x: x.view(-1)),
    ("transpose", lambda T, x: x.t()),
    ("permute", lambda T, x: x.permute(1, 0)),
    ("unsqueeze", lambda T, x: x.unsqueeze(0)[0]),
    ("squeeze", lambda T, x: x.unsqueeze(1).squeeze(1)),
    ("basic-index", lambda T, x: x[1]),
    ("slice", lambda T, x: x[:, 1:]),
    ("narrow", lambda T, x: x.narrow(1, 0, 2)),
    ("split", lambda T, x: x.split(1)[1]),
    ("unbind", lambda T, x: x.unbind(1)[2]),
    ("detach", lambda T, x: x.detach()),
    ("reshape-contiguous", lambda T, x: x.reshape(3, 2)),
)


@pytest.mark.parametrize("fn", VIEW_SHARING)
def test_views_share_memory(torch_oracle, fn):
    """A change through a view is seen in the base (and the version counter is shared)."""
    def run(T):
        x = T.tensor(A)
        v = fn(T, x)
        before = x._version
        v.mul_(10)
        return x, x._version - before, v._version == x._version
    check_both(run, torch_oracle)


def test_copies_do_not_share_memory(torch_oracle):
    def run(T):
        x = T.tensor(A)
        for y in (x.clone(), x[[0, 1]], x[x > 0], x.flip(0), x.repeat(1, 1), x.t().reshape(-1), x.to(T.float64),
                  T.cat([x]), T.stack([x])):
            y.zero_()
        return x
    check_both(run, torch_oracle)


SHAPE_ERRORS = [
    pytest.param(lambda T: T.tensor(A).t().view(-1), "view size is not compatible with input tensor's size and stride",
                 id="view-incompatible"),
    pytest.param(lambda T: T.tensor(A).view(4, 2), "is invalid for input of size 6", id="view-wrong-numel"),
    pytest.param(lambda T: T.tensor(A).view(-1, -1), "only one dimension can be inferred", id="view-two-minus-one"),
    pytest.param(lambda T: T.tensor(A).reshape(4, -1), "is invalid for input of size 6", id="reshape-wrong"),
    pytest.param(lambda T: T.cat([T.tensor(A), T.tensor(D)]), "Sizes of tensors must match except in dimension 0",
                 id="cat-size-mismatch"),
    pytest.param(lambda T: T.cat([T.tensor(A), T.tensor(D)], dim=1), "Sizes of tensors must match except in dimension 1",
                 id="cat-size-mismatch-dim1"),
    pytest.param(lambda T: T.cat([T.tensor(A), T.tensor(E)]), "Tensors must have same number of dimensions",
                 id="cat-ndim-mismatch"),
    pytest.param(lambda T: T.cat([T.tensor(1.0), T.tensor(2.0)]), "zero-dimensional tensor", id="cat-0dim"),
    pytest.param(lambda T: T.cat([]), None, id="cat-empty-list"),
    pytest.param(lambda T: T.cat([T.tensor(A), T.tensor(A)], dim=2), "Dimension out of range", id="cat-bad-dim"),
    pytest.param(lambda T: T.stack([T.tensor(A), T.tensor(B)]), "stack expects each tensor to be equal size",
                 id="stack-unequal"),
    pytest.param(lambda T: T.tensor(E).t(), "t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D",
                 id="t-3d"),
    pytest.param(lambda T: T.tensor(E).transpose(0, 3), "Dimension out of range", id="transpose-bad-dim"),
    pytest.param(lambda T: T.tensor(E).permute(0, 1), "number of dimensions in the tensor input does not match",
                 id="permute-too-few"),
    pytest.param(lambda T: T.tensor(E).permute(0, 1, 1), None, id="permute-duplicate"),
    pytest.param(lambda T: T.tensor(A).squeeze(2), "Dimension out of range", id="squeeze-bad-dim"),
    pytest.param(lambda T: T.tensor(A).unsqueeze(3), "Dimension out of range", id="unsqueeze-bad-dim"),
    pytest.param(lambda T: T.tensor(A).expand(3, 3), "The expanded size of the tensor \\(3\\) must match the existing "
                 "size \\(2\\) at non-singleton dimension 0", id="expand-incompatible"),
    pytest.param(lambda T: T.tensor(A).expand(3), "the number of sizes provided \\(1\\) must be greater or equal",
                 id="expand-too-few"),
    pytest.param(lambda T: T.tensor(V).split([2, 2]), "split_with_sizes expects split_sizes to sum exactly to 5",
                 id="split-sections-wrong-sum"),
    pytest.param(lambda T: T.tensor(A).repeat(2), "Number of dimensions of repeat dims can not be smaller",
                 id="repeat-too-few"),
    pytest.param(lambda T: T.tensor(E).flatten(2, 1), "start_dim cannot come after end_dim", id="flatten-bad-range"),
    pytest.param(lambda T: T.tensor(V).chunk(0), "chunk expects `chunks` to be greater than 0", id="chunk-zero"),
    pytest.param(lambda T: len(T.tensor(1.0)), "len\\(\\) of a 0-d tensor", id="len-0dim"),
    pytest.param(lambda T: iter(T.tensor(1.0)), "iteration over a 0-d tensor", id="iter-0dim"),
]


@pytest.mark.parametrize("fn, match", SHAPE_ERRORS)
def test_shape_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


# ============================================================================ indexing
X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5

INDEX = cases(
    ("int", lambda T: T.tensor(X)[1]),
    ("negative-int", lambda T: T.tensor(X)[-1]),
    ("two-ints", lambda T: T.tensor(X)[1, 2]),
    ("two-ints-negative", lambda T: T.tensor(X)[-1, -4]),
    ("chained", lambda T: T.tensor(X)[1][2]),
    ("column", lambda T: T.tensor(X)[:, 1]),
    ("slice", lambda T: T.tensor(X)[0:2]),
    ("slice-step", lambda T: T.tensor(X)[::2, 1::2]),
    ("slice-negative", lambda T: T.tensor(X)[-2:, :-1]),
    ("slice-out-of-range", lambda T: T.tensor(X)[5:10]),
    ("none", lambda T: T.tensor(X)[None]),
    ("none-middle", lambda T: T.tensor(X)[:, None, :]),
    ("ellipsis", lambda T: T.tensor(E)[..., 0]),
    ("ellipsis-middle", lambda T: T.tensor(E)[1, ..., 2]),
    ("list", lambda T: T.tensor(X)[[0, 2, 2]]),
    ("list-negative", lambda T: T.tensor(X)[[-1, 0]]),
    ("two-lists", lambda T: T.tensor(X)[[0, 1], [2, 0]]),
    ("list-and-slice", lambda T: T.tensor(X)[1:, [0, 2]]),
    ("int-tensor", lambda T: T.tensor(X)[T.tensor([1, 0])]),
    ("int32-tensor", lambda T: T.tensor(X)[T.tensor([2, 0], dtype=T.int32)]),
    ("int-tensor-2d", lambda T: T.tensor(X)[T.tensor([[0, 1], [2, 0]])]),
    ("int-tensor-0dim", lambda T: T.tensor(X)[T.tensor(1)]),
    ("int-tensors-two-dims", lambda T: T.tensor(X)[T.tensor([0, 2]), T.tensor([3, 1])]),
    ("int-tensor-column", lambda T: T.tensor(X)[:, T.tensor([3, 0])]),
    ("bool-mask", lambda T: T.tensor(X)[T.tensor(X) > 0]),
    ("bool-mask-rows", lambda T: T.tensor(X)[T.tensor([True, False, True])]),
    ("bool-list-columns", lambda T: T.tensor(X)[:, [True, False, True, False]]),
    ("bool-mask-empty", lambda T: T.tensor(X)[T.tensor(X) > 100]),
    ("python-bool", lambda T: T.tensor(X)[True]),
    ("int-of-1d", lambda T: T.tensor(V)[3]),
    ("index-0dim-result", lambda T: T.tensor(V)[3].item()),
    ("numpy-int", lambda T: T.tensor(X)[np.int64(2)]),
    ("rows-selection", lambda T: T.tensor(X)[[2, 0]][:, [1]]),
    # ints are applied first (select) in PyTorch; NumPy would move the list's dimension to the front
    ("int-slice-list", lambda T: T.tensor(E)[0, :, [1, 2]]),
    ("int-none-list", lambda T: T.tensor(X)[0, None, [0, 0, 3]]),
    ("list-slice-int", lambda T: T.tensor(E)[[1, 0], :, 3]),
    ("int-tensor0d-slice-tensor", lambda T: T.tensor(E)[T.tensor(1), 1:, T.tensor([0, 3])]),
    ("int-slice-mask", lambda T: T.tensor(E)[1, :, T.tensor([True, False, True, False])]),
    ("ellipsis-int-list", lambda T: T.tensor(E)[..., 1, [0, 1]]),
    ("list-ellipsis-int", lambda T: T.tensor(E)[[0], ..., 2]),
    ("int-list-adjacent", lambda T: T.tensor(E)[:, 0, [1, 2]]),
)


@pytest.mark.parametrize("fn", INDEX)
def test_indexing(torch_oracle, fn):
    check_both(fn, torch_oracle)


INDEX_ERRORS = [
    pytest.param(lambda T: T.tensor(X)[3], "index 3 is out of bounds for dimension 0 with size 3", id="int-too-big"),
    pytest.param(lambda T: T.tensor(X)[-4], "index -4 is out of bounds for dimension 0 with size 3",
                 id="int-too-negative"),
    pytest.param(lambda T: T.tensor(X)[:, 7], "index 7 is out of bounds for dimension 1 with size 4",
                 id="column-too-big"),
    pytest.param(lambda T: T.tensor(X)[1, 2, 3], "too many indices for tensor of dimension 2", id="too-many"),
    pytest.param(lambda T: T.tensor(X)[[0, 5]], "index 5 is out of bounds for dimension 0 with size 3",
                 id="list-out-of-range"),
    pytest.param(lambda T: T.tensor(X)[T.tensor([0, 5])], "index 5 is out of bounds for dimension 0 with size 3",
                 id="tensor-out-of-range"),
    pytest.param(lambda T: T.tensor(X)[T.tensor([0.0, 1.0])],
                 "tensors used as indices must be long, int, byte or bool tensors", id="float-index-tensor"),
    pytest.param(lambda T: T.tensor(X)[T.tensor(1.0)],
                 "tensors used as indices must be long, int, byte or bool tensors", id="float-0dim-index"),
    pytest.param(lambda T: T.tensor(X)[1.5], None, id="float-index"),
    pytest.param(lambda T: T.tensor(X)[T.tensor([0, 1], dtype=T.int8)],
                 "tensors used as indices must be long, int, byte or bool tensors", id="int8-index-tensor"),
    pytest.param(lambda T: T.tensor(X)[:, T.tensor([1], dtype=T.int16)],
                 "tensors used as indices must be long, int, byte or bool tensors", id="int16-index-tensor"),
    pytest.param(lambda T: T.tensor(X).index_put((T.tensor([0], dtype=T.int8),), T.tensor(1.0)),
                 "tensors used as indices must be long, int, byte or bool tensors", id="index_put-int8"),
    pytest.param(lambda T: T.tensor(X)[T.tensor([True, False])], None, id="mask-wrong-length"),
    pytest.param(lambda T: T.tensor(X)[::-1], "step must be greater than zero", id="negative-step"),
    pytest.param(lambda T: T.tensor(V)[0][0], None, id="index-0dim"),
]


@pytest.mark.parametrize("fn, match", INDEX_ERRORS)
def test_indexing_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


def _assign(key, value):
    def run(T):
        x = T.tensor(X)
        v = value(T) if callable(value) else value
        k = key(T) if callable(key) else key
        x[k] = v
        return x
    return run


SETITEM = cases(
    ("int-scalar", _assign(0, 5.0)),
    ("negative-int", _assign(-1, 1)),
    ("element", _assign((1, 2), 100.0)),
    ("column-tensor", _assign((slice(None), 1), lambda T: T.tensor([7.0, 8.0, 9.0]))),
    ("row-broadcast", _assign(1, lambda T: T.tensor(2.0))),
    ("rows-broadcast-row", _assign(slice(0, 2), lambda T: T.tensor([1.0, 2.0, 3.0, 4.0]))),
    ("mask-scalar", _assign(lambda T: T.tensor(X) > 0, 0.0)),
    ("mask-tensor", _assign(lambda T: T.tensor(X) < -3, lambda T: T.tensor([-1.0, -2.0, -3.0]))),
    ("list", _assign([0, 2], -1.0)),
    ("two-lists", _assign(([0, 1], [1, 2]), lambda T: T.tensor([10.0, 20.0]))),
    ("int-tensor", _assign(lambda T: T.tensor([2, 0]), lambda T: T.zeros(2, 4))),
    ("ellipsis", _assign((Ellipsis, 0), 3.0)),
    ("int-value-into-float", _assign(0, lambda T: T.tensor([1, 2, 3, 4]))),
    ("float64-value", _assign(0, lambda T: T.tensor([1.5, 2, 3, 4], dtype=T.float64))),
    ("numpy-float64-scalar", _assign(0, np.float64(2.5))),
    ("int-slice-list", lambda T: _assign_3d(T, (0, slice(None), [1, 3]), T.tensor([[1.0], [2.0], [3.0]]))),
    ("int-slice-list-scalar", lambda T: _assign_3d(T, (1, slice(1, None), [0, 0, 2]), 9.0)),
    ("int-none-list", _assign((1, None, [0, 2]), lambda T: T.tensor([[5.0, 6.0]]))),
    ("chained-view", lambda T: _chained(T)),
)


def _assign_3d(T, key, value):
    x = T.tensor(E)
    x[key] = value
    return x


def _chained(T):
    x = T.tensor(X)
    x[1][[0, 2]] = -1.0
    x[:, 1][1:] = T.tensor([7.0, 8.0])
    return x


@pytest.mark.parametrize("fn", SETITEM)
def test_setitem(torch_oracle, fn):
    check_both(fn, torch_oracle)


SETITEM_ERRORS = [
    pytest.param(_assign(0, np.arange(4.0)), "can't assign a numpy.ndarray to a torch.FloatTensor", id="numpy-array"),
    pytest.param(_assign(1, [1.0, 2.0, 3.0, 4.0]), "can't assign a list to a torch.FloatTensor", id="list"),
    pytest.param(_assign(1, np.float32(1.0)), "can't assign a numpy.float32 to a torch.FloatTensor",
                 id="numpy-float32"),
    pytest.param(_assign(5, 1.0), "index 5 is out of bounds for dimension 0 with size 3", id="out-of-range"),
    pytest.param(_assign([0, 5], 1.0), "index 5 is out of bounds for dimension 0 with size 3",
                 id="list-out-of-range"),
    pytest.param(_assign((slice(None), 9), 1.0), "index 9 is out of bounds for dimension 1 with size 4",
                 id="column-out-of-range"),
    pytest.param(_assign(0, lambda T: T.ones(3)), "The expanded size of the tensor", id="shape-mismatch"),
    pytest.param(_assign(0, 2 ** 63), "Overflow when unpacking long long", id="int-beyond-int64"),
]


def _assign_int(dtype, key, value):
    def run(T):
        x = T.zeros(3, dtype=getattr(T, dtype))
        x[key(T) if callable(key) else key] = value
        return x
    return run


SETITEM_INTEGER_SCALARS = [  # a Python number into an integer tensor: PyTorch checks its range
    pytest.param(_assign_int("uint8", 0, -1), None, id="uint8-minus-one-wraps"),
    pytest.param(_assign_int("uint8", lambda T: T.tensor([True, False, True]), -1), None, id="uint8-mask-wraps"),
    pytest.param(_assign_int("int8", 1, -129.0), "without overflow", id="int8-below"),
    pytest.param(_assign_int("uint8", 0, 300), "uint8_t without overflow", id="uint8-above"),
    pytest.param(_assign_int("int32", 0, 2 ** 40), "without overflow", id="int32-above"),
    pytest.param(_assign_int("int64", 0, float("nan")), "int64_t without overflow", id="int64-nan"),
    pytest.param(_assign_int("int64", lambda T: T.tensor([True, False, True]), float("inf")),
                 "int64_t without overflow", id="int64-mask-inf"),
    pytest.param(_assign_int("int32", 0, 2.5), None, id="int32-float-truncates"),
    pytest.param(_assign_int("bool", 0, float("nan")), None, id="bool-nan-is-true"),
]


@pytest.mark.parametrize("fn, match", SETITEM_INTEGER_SCALARS)
def test_setitem_integer_scalars(torch_oracle, fn, match):
    if match is None:
        check_both(fn, torch_oracle)
    else:
        raises_both(fn, torch_oracle, match)


@pytest.mark.parametrize("fn, match", SETITEM_ERRORS)
def test_setitem_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


def test_setitem_into_int_tensor_casts(torch_oracle):
    def run(T):
        x = T.tensor(I)
        x[0] = 2.7
        x[1, 1] = T.tensor(-3.9)
        return x
    check_both(run, torch_oracle)


def test_setitem_bumps_version(torch_oracle):
    def run(T):
        x = T.tensor(X)
        v0 = x._version
        x[0] = 1.0
        x[x > 0] = 0.0
        return x._version - v0
    check_both(run, torch_oracle)


GATHER = cases(
    ("gather-dim1", lambda T: T.gather(T.tensor(X), 1, T.tensor([[0, 0], [1, 3], [2, 1]]))),
    ("gather-dim0", lambda T: T.tensor(X).gather(0, T.tensor([[2, 1, 0, 0]]))),
    ("gather-int32-index", lambda T: T.gather(T.tensor(X), 1, T.tensor([[3], [0], [1]], dtype=T.int32))),
    ("gather-neg-dim", lambda T: T.tensor(E).gather(-1, T.tensor(np.zeros((2, 3, 1), dtype=np.int64)))),
    ("take_along_dim", lambda T: T.take_along_dim(T.tensor(X), T.tensor([[1], [0], [3]]), 1)),
    ("index_select-0", lambda T: T.index_select(T.tensor(X), 0, T.tensor([2, 0, 2]))),
    ("index_select-1", lambda T: T.tensor(X).index_select(1, T.tensor([3, 1]))),
    ("index_select-neg", lambda T: T.tensor(E).index_select(-1, T.tensor([0]))),
    ("masked_fill", lambda T: T.tensor(X).masked_fill(T.tensor(X) > 0, 0.0)),
    ("masked_fill-broadcast", lambda T: T.masked_fill(T.tensor(X), T.tensor([True, False, False, True]), -1)),
    ("masked_fill-tensor-value", lambda T: T.tensor(X).masked_fill(T.tensor(X) < 0, T.tensor(9.0))),
    ("masked_fill-int", lambda T: T.tensor(I).masked_fill(T.tensor(I) < 0, 0)),
    ("masked_fill-inf", lambda T: T.tensor(X).masked_fill(T.tensor(X) < 0, float("-inf"))),
    ("masked_select", lambda T: T.masked_select(T.tensor(X), T.tensor(X) > 2)),
    ("nonzero", lambda T: (T.nonzero(T.tensor(I) > 2), T.tensor(I).nonzero(as_tuple=True))),
    ("where-one-arg", lambda T: T.where(T.tensor(I) > 2)),
)


@pytest.mark.parametrize("fn", GATHER)
def test_gather_index_select_masked_fill(torch_oracle, fn):
    check_both(fn, torch_oracle)


GATHER_ERRORS = [
    pytest.param(lambda T: T.tensor(X).gather(1, T.tensor([[0.0]])), "Expected dtype int32/int64 for index",
                 id="gather-float-index"),
    pytest.param(lambda T: T.tensor(X).gather(1, T.tensor([[4]])), None, id="gather-out-of-range"),
    pytest.param(lambda T: T.tensor(X).index_select(0, T.tensor([[0]])), "Index is supposed to be a vector",
                 id="index_select-2d"),
    pytest.param(lambda T: T.tensor(X).index_select(0, T.tensor([0.0])), "Expected dtype int32 or int64 for index",
                 id="index_select-float"),
    pytest.param(lambda T: T.tensor(X).masked_fill(T.tensor(X) > 0 * 1.0, 1.0).masked_fill(T.ones(3, 4), 0.0),
                 "only supports boolean masks", id="masked_fill-float-mask"),
    # scatter's index may not be larger than self (but along dim) nor than src (anywhere)
    pytest.param(lambda T: T.zeros(2, 4).scatter(1, T.tensor([[0, 1, 2, 3, 0]]), T.ones(2, 3)),
                 r"Expected index \[1, 5\] to be no larger than self \[2, 4\] apart from dimension 1 and to be no "
                 r"larger size than src \[2, 3\]", id="scatter-index-beyond-src"),
    pytest.param(lambda T: T.zeros(2, 4).scatter(1, T.tensor([[0], [1], [2]]), 1.0),
                 r"Expected index \[3, 1\] to be no larger than self \[2, 4\] apart from dimension 1$",
                 id="scatter-value-index-beyond-self"),
    pytest.param(lambda T: T.zeros(2, 4).scatter_add(0, T.tensor([[0, 1, 0, 1]]), T.ones(1, 3)),
                 "no larger size than src", id="scatter_add-index-beyond-src"),
    pytest.param(lambda T: T.zeros(2, 4).scatter_reduce(1, T.tensor([[0], [0], [0]]), T.ones(3, 1), "sum"),
                 "to be no larger than self", id="scatter_reduce-index-beyond-self"),
]


@pytest.mark.parametrize("fn, match", GATHER_ERRORS)
def test_gather_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


# ============================================================================ sorting
S = np.array([[3.0, -1.0, 2.5, 0.0], [1.0, 4.0, -2.0, 4.5], [0.5, 0.25, 9.0, -7.0]], dtype=np.float32)

SORT = cases(
    ("sort", lambda T: T.sort(T.tensor(S))),
    ("sort-dim1-descending", lambda T: T.sort(T.tensor(S), dim=1, descending=True)),
    ("sort-dim0", lambda T: T.tensor(S).sort(0)),
    ("sort-neg-dim-descending", lambda T: T.tensor(S).sort(-2, descending=True)),
    ("sort-ties-stable", lambda T: T.sort(T.tensor(TIES), stable=True)),
    ("sort-ties-stable-descending", lambda T: T.sort(T.tensor(TIES), descending=True, stable=True)),
    ("sort-0dim", lambda T: T.tensor(2.0).sort()),
    ("argsort", lambda T: T.argsort(T.tensor(S))),
    ("argsort-descending", lambda T: T.tensor(S).argsort(dim=0, descending=True)),
    ("argsort-ties", lambda T: T.argsort(T.tensor(TIES), stable=True)),
    ("argsort-ties-descending", lambda T: T.argsort(T.tensor(TIES), descending=True, stable=True)),
    ("topk", lambda T: T.topk(T.tensor(S), 2)),
    ("topk-smallest", lambda T: T.tensor(S).topk(2, largest=False)),
    ("topk-dim0", lambda T: T.topk(T.tensor(S), 1, dim=0)),
    ("topk-k0", lambda T: T.tensor(V).topk(0)),
    ("sort-values-indices", lambda T: (T.tensor(S).sort(dim=1, descending=True).values,
                                       T.tensor(S).sort(dim=1, descending=True).indices)),
)


@pytest.mark.parametrize("fn", SORT)
def test_sorting(torch_oracle, fn):
    check_both(fn, torch_oracle)


def test_topk_too_large_raises(torch_oracle):
    raises_both(lambda T: T.tensor(V).topk(6), torch_oracle, "selected index k out of range")


# ============================================================================ matrix products
MATMUL = cases(
    ("1d-1d", lambda T: T.matmul(T.tensor(V), T.tensor(W))),
    ("2d-1d", lambda T: T.matmul(T.tensor(A), T.tensor(B))),
    ("1d-2d", lambda T: T.matmul(T.tensor(B), T.tensor(D))),
    ("2d-2d", lambda T: T.tensor(A) @ T.tensor(D)),
    ("3d-2d", lambda T: T.tensor(E) @ T.tensor(D).t()),
    ("2d-3d", lambda T: T.tensor(D).t() @ T.tensor(E)),
    ("1d-3d", lambda T: T.tensor(B) @ T.tensor(E)),
    ("3d-1d", lambda T: T.tensor(E) @ T.tensor(V[:4])),
    ("batched", lambda T: T.tensor(E) @ T.tensor(E).transpose(1, 2)),
    ("batched-broadcast", lambda T: T.matmul(T.ones(2, 1, 3, 4), T.tensor(np.arange(40, dtype=np.float32)
                                                                          .reshape(5, 4, 2)))),
    ("int", lambda T: T.tensor(I) @ T.tensor(I).t()),
    ("int-1d", lambda T: T.tensor([1, 2, 3]) @ T.tensor([4, 5, 6])),
    ("method", lambda T: T.tensor(A).matmul(T.tensor(D))),
    ("mm", lambda T: T.mm(T.tensor(A), T.tensor(D))),
    ("mm-method", lambda T: T.tensor(A).mm(T.tensor(D))),
    ("bmm", lambda T: T.bmm(T.tensor(E), T.tensor(E).transpose(1, 2))),
    ("dot", lambda T: T.dot(T.tensor(V), T.tensor(W))),
    ("dot-method-int", lambda T: T.tensor([1, 2]).dot(T.tensor([3, 4]))),
    ("mv", lambda T: T.mv(T.tensor(A), T.tensor(B))),
    ("outer", lambda T: T.outer(T.tensor(B), T.tensor(V))),
    ("float64", lambda T: T.tensor(A, dtype=T.float64) @ T.tensor(D, dtype=T.float64)),
)


@pytest.mark.parametrize("fn", MATMUL)
def test_matmul(torch_oracle, fn):
    check_both(fn, torch_oracle)


MATMUL_ERRORS = [
    pytest.param(lambda T: T.tensor(A) @ T.tensor(A), "mat1 and mat2 shapes cannot be multiplied \\(2x3 and 2x3\\)",
                 id="matmul-2d-mismatch"),
    pytest.param(lambda T: T.matmul(T.tensor(V), T.tensor(B)), "inconsistent tensor size", id="matmul-1d-mismatch"),
    pytest.param(lambda T: T.matmul(T.tensor(A), T.tensor(V)), None, id="matmul-2d-1d-mismatch"),
    pytest.param(lambda T: T.matmul(T.tensor(2.0), T.tensor(A)), "both arguments to matmul need to be at least 1D",
                 id="matmul-0dim"),
    pytest.param(lambda T: T.tensor(E) @ T.tensor(E), None, id="matmul-batched-mismatch"),
    pytest.param(lambda T: T.tensor(A) @ T.tensor(D, dtype=T.float64), "expected m1 and m2 to have the same dtype, "
                 "but got: float != double", id="matmul-dtype-mismatch"),
    pytest.param(lambda T: T.tensor(I) @ T.tensor(D), "expected m1 and m2 to have the same dtype, "
                 "but got: long int != float", id="matmul-int-float"),
    pytest.param(lambda T: T.tensor(V) @ T.tensor(W, dtype=T.float64), "expected both vectors to have same dtype",
                 id="matmul-1d-dtype-mismatch"),
    pytest.param(lambda T: T.mm(T.tensor(B), T.tensor(D)), "self must be a matrix", id="mm-1d"),
    pytest.param(lambda T: T.mm(T.tensor(A), T.tensor(B)), "mat2 must be a matrix", id="mm-second-1d"),
    pytest.param(lambda T: T.mm(T.tensor(E), T.tensor(D)), "self must be a matrix", id="mm-3d"),
    pytest.param(lambda T: T.mm(T.tensor(A), T.tensor(A)), "mat1 and mat2 shapes cannot be multiplied \\(2x3 and 2x3\\)",
                 id="mm-shape"),
    pytest.param(lambda T: T.mm(T.tensor(A), T.tensor(D, dtype=T.float64)),
                 "expected m1 and m2 to have the same dtype", id="mm-dtype"),
    pytest.param(lambda T: T.bmm(T.tensor(A), T.tensor(D)), "batch1 must be a 3D tensor", id="bmm-2d"),
    pytest.param(lambda T: T.bmm(T.tensor(E), T.tensor(E)), None, id="bmm-shape"),
    pytest.param(lambda T: T.dot(T.tensor(A), T.tensor(A)), "1D tensors expected, but got 2D and 2D tensors",
                 id="dot-2d"),
    pytest.param(lambda T: T.dot(T.tensor(V), T.tensor(B)), "inconsistent tensor size, expected tensor \\[5\\] and "
                 "src \\[3\\] to have the same number of elements", id="dot-size"),
    pytest.param(lambda T: T.dot(T.tensor(V), T.tensor(W, dtype=T.float64)),
                 "dot : expected both vectors to have same dtype", id="dot-dtype"),
]


@pytest.mark.parametrize("fn, match", MATMUL_ERRORS)
def test_matmul_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


# ============================================================================ nn helpers of chapter 01
NN = cases(
    ("normalize", lambda T: T.nn.functional.normalize(T.tensor(A))),
    ("normalize-dim0", lambda T: T.nn.functional.normalize(T.tensor(A), dim=0)),
    ("normalize-p1", lambda T: T.nn.functional.normalize(T.tensor(E), p=1, dim=-1)),
    ("normalize-zero-row", lambda T: T.nn.functional.normalize(T.tensor([[0.0, 0.0], [3.0, 4.0]]), p=2, dim=1)),
    ("normalize-1d", lambda T: T.nn.functional.normalize(T.tensor(V), dim=0)),
    ("pad_sequence", lambda T: T.nn.utils.rnn.pad_sequence([T.ones(3), T.ones(1) * 2, T.ones(2) * 3])),
    ("pad_sequence-batch-first", lambda T: T.nn.utils.rnn.pad_sequence(
        [T.tensor([1, 2, 3]), T.tensor([4]), T.tensor([5, 6])], batch_first=True)),
    ("pad_sequence-padding-value", lambda T: T.nn.utils.rnn.pad_sequence(
        [T.tensor(A), T.tensor(E[0, :1, :3])], batch_first=True, padding_value=-1.0)),
    ("pad_sequence-features", lambda T: T.nn.utils.rnn.pad_sequence([T.tensor(D.T), T.tensor(A)], padding_value=9)),
)


@pytest.mark.parametrize("fn", NN)
def test_nn_helpers(torch_oracle, fn):
    check_both(fn, torch_oracle)


# ============================================================================ conversion and printing
CONVERT = cases(
    ("item-float", lambda T: T.tensor([2.5]).item()),
    ("item-int", lambda T: T.tensor(I)[0, 1].item()),
    ("item-bool", lambda T: T.tensor(True).item()),
    ("item-float64", lambda T: T.tensor(0.1, dtype=T.float64).item()),
    ("item-float32-rounding", lambda T: T.tensor(0.1).item()),
    ("tolist", lambda T: T.tensor(I).tolist()),
    ("tolist-float", lambda T: T.tensor([[0.5, 1.0]]).tolist()),
    ("tolist-0dim", lambda T: T.tensor(3).tolist()),
    ("tolist-bool", lambda T: T.tensor([True, False]).tolist()),
    ("float-int-conversions", lambda T: (float(T.tensor(2.5)), int(T.tensor(3.9)), int(T.tensor([7])),
                                         bool(T.tensor([0.0])))),
    ("index-protocol", lambda T: [10, 20, 30][T.tensor(1)]),
    ("numpy-values", lambda T: T.tensor(A).numpy().tolist()),
    ("detach-cpu-numpy", lambda T: T.tensor(A, requires_grad=True).detach().cpu().numpy().dtype.name),
    ("is_tensor", lambda T: (T.is_tensor(T.ones(1)), T.is_tensor([1]))),
    ("device", lambda T: (T.tensor(A).device, T.tensor(A).is_cuda, T.device("cpu"), T.device("cuda:1"),
                          T.device("cuda", 0), T.device("cuda:1").index, T.device("cuda").type)),
    ("numel-function", lambda T: T.numel(T.tensor(E))),
)


@pytest.mark.parametrize("fn", CONVERT)
def test_conversions(torch_oracle, fn):
    check_both(fn, torch_oracle)


CONVERT_ERRORS = [
    pytest.param(lambda T: T.tensor(A).item(), "a Tensor with 6 elements cannot be converted to Scalar",
                 id="item-many"),
    pytest.param(lambda T: T.tensor(A, requires_grad=True).numpy(), "Can't call numpy\\(\\) on Tensor that requires grad",
                 id="numpy-requires-grad"),
    pytest.param(lambda T: [1, 2][T.tensor(1.0)], None, id="index-float-tensor"),
    pytest.param(lambda T: T.device("gpu"), None, id="device-bad-string"),
    pytest.param(lambda T: T.device("cuda:-1"), None, id="device-negative"),
    # ``to``'s three forms: (dtype, flags), (device, dtype, flags), (tensor, flags)
    pytest.param(lambda T: T.ones(2).to(T.float64, "cpu"), "invalid combination of arguments", id="to-dtype-device"),
    pytest.param(lambda T: T.ones(2).to(T.float64, T.float32), "invalid combination", id="to-two-dtypes"),
    pytest.param(lambda T: T.ones(2).to(T.ones(1), T.int64), "invalid combination", id="to-tensor-dtype"),
    pytest.param(lambda T: T.ones(2).to(T.int8, device="cpu"), "invalid combination", id="to-dtype-device-kw"),
    pytest.param(lambda T: T.ones(2).to("cpu", device="cpu"), "invalid combination", id="to-device-twice"),
    pytest.param(lambda T: T.ones(2).to("cpu", False), "invalid combination", id="to-device-flag"),
    pytest.param(lambda T: T.ones(2).type(float), "invalid type: 'float'", id="type-python-float"),
    pytest.param(lambda T: T.ones(2).type(np.int32), "invalid type: 'numpy.int32'", id="type-numpy-type"),
    pytest.param(lambda T: T.ones(2).type(3), "dtype must be a type, str, or dtype object", id="type-number"),
]


@pytest.mark.parametrize("fn, match", CONVERT_ERRORS)
def test_conversion_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match)


REPRS = cases(
    ("float", lambda T: T.tensor([1.0, 2.5, -3.0])),
    ("int", lambda T: T.tensor(I)),
    ("bool", lambda T: T.tensor([True, False])),
    ("0dim", lambda T: T.tensor(3.25)),
    ("float64", lambda T: T.tensor([1.5, 2.0], dtype=T.float64)),
    ("requires-grad", lambda T: T.tensor([1.0, 2.0], requires_grad=True)),
    ("grad-fn", lambda T: T.tensor([1.0, 2.0], requires_grad=True) * 2),
    ("sum-grad-fn", lambda T: T.tensor([1.0, 2.0], requires_grad=True).sum()),
    ("empty", lambda T: T.zeros(0, 3)),
    ("matrix", lambda T: T.tensor(A)),
    ("size", lambda T: T.tensor(E).shape),
    ("dtype", lambda T: T.float64),
    ("device", lambda T: T.device("cuda:1")),
)


@pytest.mark.parametrize("fn", REPRS)
def test_repr(torch_oracle, fn):
    assert repr(fn(lt)) == repr(fn(torch_oracle))
    assert str(fn(lt)) == str(fn(torch_oracle))


def test_values_round_trip_through_numpy(torch_oracle):
    """The conftest helpers: learntorch → torch → learntorch keeps dtype and values."""
    from conftest import lt_to_torch, torch_to_lt
    for data in (A, I, np.array([True, False]), np.float64(2.5) * np.ones((2, 2))):
        x = lt.tensor(data)
        back = torch_to_lt(lt_to_torch(x, torch_oracle))
        assert back.dtype is x.dtype
        np.testing.assert_array_equal(to_numpy(back), data)
