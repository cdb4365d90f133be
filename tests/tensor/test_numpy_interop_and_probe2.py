"""Differential tests for the second program probe's findings: NumPy scalars and arrays meeting
tensors (``t * np.float32(2)``, ``x[np.random.permutation(n)]``, ``torch.tensor([np.float32(..)])``),
the ``torch.return_types`` reprs of aminmax/frexp/linalg, argmax/topk of bool tensors,
``torch.cat(tensor)``, randint's bool/half dtypes and its missing size, ``torch.random.fork_rng``,
the dense-tensor flags (``is_sparse``, ``conj()``...) and conv2d's dtype errors.
Each test runs the same code on learntorch and on PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, raises_both

NUMPY_SCALARS = {
    "f32": lambda: np.float32(2.5), "f64": lambda: np.float64(2.5), "f16": lambda: np.float16(2.0),
    "i64": lambda: np.int64(3), "i32": lambda: np.int32(3), "u8": lambda: np.uint8(3), "bool": lambda: np.bool_(True),
}
DTYPES = ["float32", "float16", "int32", "int64"]


@pytest.mark.parametrize("scalar", NUMPY_SCALARS)
@pytest.mark.parametrize("dt", DTYPES)
def test_tensor_op_numpy_scalar(torch_oracle, scalar, dt):
    """A NumPy scalar on the right of a tensor operation is a Python number to PyTorch (the dtype
    follows the tensor: ``int32 * np.int64(3)`` stays int32, ``int32 * np.float32(2.5)`` is float32)."""
    def fn(T):
        t = T.tensor([1, 2, 4], dtype=getattr(T, dt))
        s = NUMPY_SCALARS[scalar]()
        return t * s, t + s, t - s, t / s, T.add(t, s), T.mul(t, s), T.where(t > 1, t, s)
    check_both(fn, torch_oracle)


def test_numpy_scalar_in_place_pow_and_clamp(torch_oracle):
    check_both(lambda T: (T.ones(3).mul_(np.float32(2)), T.arange(3.0) ** np.float32(2),
                          T.arange(3.0).clamp(np.float32(0.5), np.float64(1.5)),
                          T.tensor([7, 8]) // np.int64(2), T.tensor([7, 8]).sub_(np.int64(1))), torch_oracle)


INDEX_KEYS = {
    "int array": lambda: np.array([2, 0]),
    "int32 array": lambda: np.array([0, 2], dtype=np.int32),
    "bool array": lambda: np.array([True, False, True]),
    "float array (truncated)": lambda: np.array([0.0, 1.9]),
    "0-d array": lambda: np.array(1),
    "empty": lambda: np.array([], dtype=np.int64),
    "two arrays": lambda: (np.array([0, 1]), np.array([2, 3])),
    "array and slice": lambda: (np.array([2, 0]), slice(1, None)),
    "int and array": lambda: (1, np.array([0, 3])),
    "2-d mask": lambda: np.arange(12).reshape(3, 4) > 8,
    "np.int64": lambda: np.int64(2),
    "permutation": lambda: np.random.RandomState(0).permutation(3),
}


@pytest.mark.parametrize("key", INDEX_KEYS)
def test_index_with_numpy_arrays(torch_oracle, key):
    """``X[np.random.permutation(n)]``: PyTorch reads a NumPy index as a tensor of its data
    (long unless bool), as it reads a list."""
    check_both(lambda T: T.arange(12.0).view(3, 4)[INDEX_KEYS[key]()], torch_oracle)


def test_index_with_numpy_array_backward_and_assign(torch_oracle):
    def fn(T):
        g = T.arange(5.0, requires_grad=True)
        g[np.array([0, 0, 3])].sum().backward()
        y = T.arange(12.0).view(3, 4).clone()
        y[np.array([0, 2])] = 0.0
        y[np.array([True, False, True]), 0] = T.tensor(-1.0)
        y[1, 1] = np.int64(7)
        return g.grad, y
    check_both(fn, torch_oracle)


def test_assign_numpy_float_scalar_is_a_type_error(torch_oracle):
    def fn(T):
        y = T.zeros(3)
        y[0] = np.float32(1.0)
    raises_both(fn, torch_oracle, match="can't assign a numpy.float32")


NESTED = {
    "np.float32": lambda T: [np.float32(0.5), np.float32(1.5)],
    "np.float64": lambda T: [np.float64(0.5)],
    "np.int32": lambda T: [np.int32(1), np.int32(2)],
    "np.int8": lambda T: [np.int8(1)],
    "np.float16": lambda T: [np.float16(1.5)],
    "np.bool_": lambda T: [np.bool_(True), np.bool_(False)],
    "np.uint8": lambda T: [np.uint8(3)],
    "float32 and int64": lambda T: [np.float32(1.5), np.int64(2)],
    "int64 and float": lambda T: [np.int64(1), 2.5],
    "nested float64": lambda T: [[np.float64(1.0)], [np.float64(2.0)]],
    "float64 arrays": lambda T: [np.array([1.5, 2.5])],
    "float64 tensor and int": lambda T: [T.tensor(1.5, dtype=T.float64), 1],
    "int32 tensor and int": lambda T: [T.tensor(1, dtype=T.int32), 2],
    "half tensor and int": lambda T: [T.tensor(1.5, dtype=T.float16), 2],
    "half tensor and float": lambda T: [T.tensor(1.5, dtype=T.float16), 2.0],
    "bool and int": lambda T: [True, 1],
    "bool tensors": lambda T: [T.tensor(True), T.tensor(False)],
    "empty lists": lambda T: [[], []],
}


@pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy.ndarrays")  # (torch's, once)
@pytest.mark.parametrize("data", NESTED)
def test_tensor_infers_dtype_by_promotion(torch_oracle, data):
    """``torch.tensor(list_of_np_float32)`` is float32 (it was int64 here, truncating 0.5 to 0):
    each element has a dtype and the list has their promotion."""
    check_both(lambda T: T.tensor(NESTED[data](T)), torch_oracle)


def test_factories_take_numpy_scalars(torch_oracle):
    check_both(lambda T: (T.full((2,), np.int64(3)), T.full((2,), np.float32(1.5)), T.arange(np.float32(0.5), 2),
                          T.arange(0, 1, np.float32(0.25)), T.arange(np.int64(3)), T.zeros(np.int64(2), 3)), torch_oracle)


def test_dims_and_chunks_as_numpy_ints(torch_oracle):
    x = np.arange(12.0).reshape(3, 4)
    check_both(lambda T: (T.tensor(x).sum(dim=np.int64(1)), T.tensor(x).mean(np.int64(0)),
                          T.tensor(x).chunk(np.int64(2))), torch_oracle)


# ----------------------------------------------------------------------------- return types
def test_return_type_reprs(torch_oracle):
    x = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, 6.0]])

    def fn(T):
        t = T.tensor(x)
        return (repr(T.aminmax(t)), repr(t.aminmax(dim=1)), repr(T.frexp(T.tensor([8.0, 0.75]))),
                repr(T.linalg.slogdet(T.tensor([[2.0, 0.0], [0.0, 3.0]]))),
                repr(T.linalg.eigh(T.tensor([[2.0, 0.0], [0.0, 1.0]]))), repr(T.linalg.qr(T.eye(2))),
                type(T.aminmax(t)).__module__, T.aminmax(t).max)
    check_both(fn, torch_oracle)


@pytest.mark.parametrize("op", ["argmax", "argmin", "argmax_dim", "topk"])
def test_bool_tensors_refused(torch_oracle, op):
    calls = {"argmax": lambda b: b.argmax(), "argmin": lambda b: b.argmin(), "argmax_dim": lambda b: b.argmax(0),
             "topk": lambda b: b.topk(1)}
    raises_both(lambda T: calls[op](T.tensor([False, True])), torch_oracle, match="bool")


@pytest.mark.parametrize("name", ["cat", "stack", "hstack", "vstack", "dstack"])
def test_joining_a_single_tensor_is_a_type_error(torch_oracle, name):
    raises_both(lambda T: getattr(T, name)(T.ones(2, 3)), torch_oracle,
                match=rf"{name}\(\): argument 'tensors' \(position 1\) must be tuple of Tensors, not Tensor")


def test_cat_keeps_numpy_axis_alias(torch_oracle):
    check_both(lambda T: T.cat([T.ones(2, 1), T.zeros(2, 1)], axis=1), torch_oracle)


# ----------------------------------------------------------------------------- random
@pytest.mark.parametrize("dt", ["bool", "float16", "bfloat16", "float32", "uint8"])
def test_randint_dtypes_draw_like_int64(torch_oracle, dt):
    def fn(T):
        T.manual_seed(4)
        return T.randint(0, 2, (12,), dtype=getattr(T, dt)), T.randint(1, 2, (3,), dtype=getattr(T, dt))
    check_both(fn, torch_oracle)


@pytest.mark.parametrize("bounds", [(0, 3), (-1, 1)])
def test_randint_bool_bounds(torch_oracle, bounds):
    raises_both(lambda T: T.randint(*bounds, (2,), dtype=T.bool), torch_oracle, match="out of bounds for bool")


def test_randint_without_size(torch_oracle):
    raises_both(lambda T: T.randint(0, 10), torch_oracle,
                match=r"randint\(\): argument 'size' \(position 2\) must be tuple of ints, not int")
    raises_both(lambda T: T.randint(10, size=3), torch_oracle, match="argument 'size' must be tuple of ints")


def test_fork_rng(torch_oracle):
    def fn(T):
        T.manual_seed(11)
        with T.random.fork_rng():
            T.manual_seed(0)
            inner = T.randn(3)
        after = T.rand(2)
        with T.random.fork_rng(enabled=False):
            T.rand(1)
        return inner, after, T.rand(1)
    check_both(fn, torch_oracle)


# ----------------------------------------------------------------------------- flags
def test_dense_tensor_flags(torch_oracle):
    def fn(T):
        x = T.tensor([1.5, -2.0], requires_grad=True)
        return (x.is_sparse, x.is_quantized, x.is_meta, x.is_nested, x.is_mkldnn, x.is_sparse_csr, x.is_conj(),
                x.is_neg(), x.is_pinned(), x.conj() is x, x.resolve_conj() is x, x.resolve_neg() is x, x.real is x)
    check_both(fn, torch_oracle)
    raises_both(lambda T: T.ones(2).imag, torch_oracle, match="imag is not implemented for tensors with non-complex")


# ----------------------------------------------------------------------------- conv2d dtypes
CONV_CASES = {
    "double input, float layer": ("float64", "float32", "float32"),
    "double input, no bias": ("float64", "float32", None),
    "float input, double layer": ("float32", "float64", "float64"),
    "long input": ("int64", "float32", "float32"),
    "half input": ("float16", "float32", "float32"),
    "uint8 input": ("uint8", "float32", "float32"),
    "int32 input, no bias": ("int32", "float32", None),
    "bias alone differs": ("float64", "float64", "float32"),
    "weight alone differs": ("float32", "float64", "float32"),
}


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_dtype_errors(torch_oracle, case):
    """PyTorch checks the bias against the input first (``Input type (double) and bias type (float)
    should be the same``), then the weight (``expected scalar type Double but found Float``)."""
    xi, wi, bi = CONV_CASES[case]

    def fn(T):
        bias = None if bi is None else T.ones(1, dtype=getattr(T, bi))
        T.nn.functional.conv2d(T.ones(1, 1, 3, 3, dtype=getattr(T, xi)), T.ones(1, 1, 1, 1, dtype=getattr(T, wi)), bias)
    l_exc, t_exc = raises_both(fn, torch_oracle)
    assert str(l_exc) == str(t_exc).splitlines()[0]


def test_conv2d_same_dtypes_still_work(torch_oracle):
    check_both(lambda T: T.nn.functional.conv2d(T.ones(1, 1, 3, 3, dtype=T.float64), T.ones(1, 1, 2, 2, dtype=T.float64),
                                                T.ones(1, dtype=T.float64)), torch_oracle)
    assert lt.nn.functional.conv2d(lt.ones(1, 1, 3, 3), lt.ones(1, 1, 2, 2)).shape == (1, 1, 2, 2)


# ----------------------------------------------------------------------------- shape and factory errors
SAME_ERROR = {
    "expand reports the last dimension first": lambda T: T.ones(3, 4).expand(2, 3),
    "expand -1 in a new leading dimension": lambda T: T.ones(3, 4).expand(-1, 3, 4),
    "gather with fewer index dims": lambda T: T.ones(3, 4).gather(1, T.tensor([0, 1])),
    "gather index larger than input": lambda T: T.ones(3, 4).gather(1, T.zeros(4, 1, dtype=T.long)),
    "gather index larger, dim 0": lambda T: T.ones(3, 4).gather(0, T.zeros(2, 5, dtype=T.long)),
    "masked_fill mask does not broadcast": lambda T: T.ones(3, 4).masked_fill(T.ones(2, dtype=T.bool), 0.0),
    "masked_fill float mask": lambda T: T.ones(3, 4).masked_fill(T.ones(3, 4), 0.0),
    "masked_fill long mask": lambda T: T.ones(3, 4).masked_fill(T.ones(3, 4, dtype=T.long), 0.0),
    "masked_fill 1-d value": lambda T: T.ones(3, 4).masked_fill(T.ones(3, 4) > 0, T.tensor([1.0, 2.0])),
    "view negative size": lambda T: T.ones(12).view(-1, -2),
    "reshape negative size": lambda T: T.ones(6).reshape(2, -4),
    "repeat_interleave negative int": lambda T: T.tensor([1, 2]).repeat_interleave(-1),
    "repeat_interleave negative counts": lambda T: T.tensor([1, 2]).repeat_interleave(T.tensor([1, -1])),
    "repeat_interleave wrong counts": lambda T: T.tensor([1, 2]).repeat_interleave(T.tensor([1, 2, 3])),
    "view as double, odd last dim": lambda T: T.arange(3.0).view(T.float64),
    "view as short, strided": lambda T: T.arange(4.0).view(2, 2).t().view(T.int16),
    "view 0-d as another size": lambda T: T.tensor(1.0).view(T.float64),
    "arange to inf": lambda T: T.arange(0, float("inf")),
    "arange from -inf": lambda T: T.arange(float("-inf"), 0.5),
    "arange to nan": lambda T: T.arange(0.5, float("nan")),
    "rand long": lambda T: T.rand(2, dtype=T.long),
    "randn bool": lambda T: T.randn(2, dtype=T.bool),
    "bernoulli p above 1": lambda T: T.bernoulli(T.tensor([1.5])),
    "zeros negative": lambda T: T.zeros(2, -3),
    "ones negative": lambda T: T.ones(-1),
    "ones float size": lambda T: T.ones(2.5),
    "zeros float in sizes": lambda T: T.zeros(2, 2.5),
    "zeros float in tuple": lambda T: T.zeros((2, 2.5)),
    "empty str size": lambda T: T.empty("a"),
    "rand float size": lambda T: T.rand(2.5),
    "full int size": lambda T: T.full(3, 1.0),
    "full float in size": lambda T: T.full((2.5,), 1.0),
}


@pytest.mark.parametrize("case", SAME_ERROR)
def test_same_error_and_message(torch_oracle, case):
    l_exc, t_exc = raises_both(SAME_ERROR[case], torch_oracle)
    assert type(l_exc).__name__ == type(t_exc).__name__
    assert str(l_exc) == str(t_exc)


def test_view_dtype_reinterprets_bytes(torch_oracle):
    def fn(T):
        x = T.arange(4.0)
        y = x.view(T.int32)
        y[0] = 1  # the same memory
        a = T.arange(4.0, requires_grad=True)
        return (x, y, x.view(T.int16), x.view(T.float64), T.tensor([True, False]).view(T.uint8),
                T.ones(2, dtype=T.bfloat16).view(T.int16), a.view(T.float32).requires_grad, a.view(T.int32))
    check_both(fn, torch_oracle, check_grad_fn=False)


def test_factories_still_take_sizes(torch_oracle):
    check_both(lambda T: (T.full(T.Size([2]), 1.0), T.full([2, T.tensor(2)], 1), T.zeros(T.Size([2, 1])), T.zeros(()),
                          T.zeros([]), T.ones(T.tensor(3)), T.empty(0, 2), T.arange(0.5, 2.0),
                          T.tensor([1, 2]).repeat_interleave(T.tensor([3])), T.tensor([1, 2]).repeat_interleave(2),
                          T.ones(3, 1).expand(-1, 4), T.ones(1).expand(2, 3, -1)), torch_oracle)


def test_gather_with_a_smaller_index_reads_its_corner(torch_oracle):
    """``gather`` does not broadcast: an index smaller than the input (outside ``dim``) reads the
    corner it covers, and the gradient goes back there; ``take_along_dim`` is the one that broadcasts."""
    def fn(T):
        x = T.arange(12.0, requires_grad=True)
        y = x.view(3, 4).gather(1, T.tensor([[1, 1], [3, 0]]))
        y.sum().backward()
        m = T.arange(12.0).view(3, 4)
        return (y, x.grad, m.gather(0, T.tensor([[2]])), T.take_along_dim(m, T.tensor([[0, 1]]), 1),
                T.take_along_dim(m, T.tensor([5, 0])), T.take_along_dim(T.ones(1, 4), T.zeros(3, 2, dtype=T.long), 1),
                m.take_along_dim(m.argsort(dim=1, descending=True), 1))
    check_both(fn, torch_oracle)
    raises_both(lambda T: T.take_along_dim(T.ones(3, 4), T.tensor([0]), 1), torch_oracle,
                match="input and indices should have the same number of dimensions")


# ----------------------------------------------------------------------------- NumPy on the left
@pytest.mark.parametrize("expr", [
    "np.float32(2) * t", "t * np.float32(2)", "t * np.ones(2)", "np.ones(2) / t", "t > np.float32(1)",
    "t == np.array([1.0, 3.0])", "np.float32(1.5) < t", "i + np.array([1, 2])", "t ** np.array([2.0, 2.0])",
    "np.int64(3) + i", "np.exp(t)", "(t > 1) & np.array([True, False])", "np.float64(2) * t",
])
def test_numpy_operands_give_tensors_like_torch(torch_oracle, expr):
    def run(T):
        t, i = T.tensor([1.0, 2.0]), T.tensor([1, 2])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # (torch's own __array_wrap__ under NumPy 2)
            r = eval(expr, {"np": np, "t": t, "i": i})
        return type(r).__name__, str(r.dtype).split(".")[-1], np.asarray(r).tolist()
    assert run(lt) == run(torch_oracle)
