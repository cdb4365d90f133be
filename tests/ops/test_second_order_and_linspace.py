"""Second derivatives that used to be silently wrong or named differently, and linspace's bits.

* ``cumprod``'s backward is differentiable (it was NumPy-only: second derivatives were 0),
  with and without zeros in the input;
* ``linspace`` gives PyTorch's points bit for bit in float32 and float64 (NumPy's algorithm
  differs in the last bit);
* constant padding is one ``ConstantPadNdBackward0`` node (it was ``CatBackward0``),
  circular padding ``CopySlices``, and the double backward of reflect/replicate padding
  carries PyTorch's names;
* the double backward of the activations shows PyTorch's nodes (``LeakyReluBackwardBackward0``
  rather than ``MulBackward0``) and the right numbers.

Each compares against real PyTorch (the oracle; skipped without it), and checks the
derivatives themselves with ``gradcheck``/``gradgradcheck`` in float64.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np
import pytest

import learntorch as lt
from tests.conftest import assert_same, raises_both, to_numpy


def _node(t: Any) -> Any:
    return t.grad_fn.name() if t.grad_fn is not None else None


def _grad_and_second(T: Any, fn: Callable[[Any], Any], x: np.ndarray, w: np.ndarray) -> tuple:
    """``fn``'s gradient weighted by ``w`` (with ``create_graph``), and the gradient of that
    gradient weighted by fixed random numbers."""
    leaf = T.tensor(x, requires_grad=True)
    (g,) = T.autograd.grad((fn(leaf) * T.tensor(w)).sum(), leaf, create_graph=True)
    v = T.tensor(np.random.default_rng(99).standard_normal(x.shape))
    (h,) = T.autograd.grad((g * v).sum(), leaf) if g.requires_grad else (T.zeros_like(leaf),)
    return g, h


# ---------------------------------------------------------------------------- cumprod
CUMPROD_INPUTS = {
    "no_zeros": np.array([[0.5, -1.2, 2.0, 1.5], [1.1, 0.7, -0.3, 2.2], [-0.9, 1.3, 0.8, -1.7]]),
    "one_zero": np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 1.5, 2.0, -1.0], [1.0, 2.0, 3.0, 0.0]]),
    "two_zeros": np.array([[2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 2.0, 4.0], [1.5, -2.0, 0.0, 0.0]]),
}


@pytest.mark.parametrize("case", sorted(CUMPROD_INPUTS))
@pytest.mark.parametrize("dim", [0, 1])
def test_cumprod_first_and_second_derivatives_match_torch(torch_oracle: Any, case: str, dim: int) -> None:
    x = CUMPROD_INPUTS[case]
    w = np.random.default_rng(dim).standard_normal(x.shape)
    g_l, h_l = _grad_and_second(lt, lambda t: t.cumprod(dim), x, w)
    g_t, h_t = _grad_and_second(torch_oracle, lambda t: t.cumprod(dim), x, w)
    assert _node(g_l) == _node(g_t)  # DivBackward0 without zeros, CopySlices with them
    np.testing.assert_allclose(to_numpy(g_l), to_numpy(g_t), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(to_numpy(h_l), to_numpy(h_t), rtol=1e-12, atol=1e-12)
    # the plain backward (no graph) takes the array road: same numbers
    leaf = lt.tensor(x, requires_grad=True)
    (leaf.cumprod(dim) * lt.tensor(w)).sum().backward()
    np.testing.assert_allclose(to_numpy(leaf.grad), to_numpy(g_t), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", sorted(CUMPROD_INPUTS))
def test_cumprod_gradcheck_and_gradgradcheck(case: str) -> None:
    x = lt.tensor(CUMPROD_INPUTS[case][:2], requires_grad=True)
    for dim in (0, 1):
        assert lt.autograd.gradcheck(lambda t: t.cumprod(dim), (x,))
        assert lt.autograd.gradgradcheck(lambda t: t.cumprod(dim), (x,))


def test_cumprod_of_one_element_passes_the_gradient_through(torch_oracle: Any) -> None:
    for T in (lt, torch_oracle):
        x = T.tensor([[0.0, 3.0]], dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(x.cumprod(0).sum(), x, create_graph=True)
        assert g.tolist() == [[1.0, 1.0]]


# ---------------------------------------------------------------------------- linspace
_ENDS = [-1, 1, 0, 0.1, -3.7, 10, 1e-3, 123.456, -0.3, 1e30]
_STEPS = [0, 1, 2, 3, 7, 8, 11, 13, 14, 33, 100, 101, 1000]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_is_bit_identical_to_torch(torch_oracle: Any, dtype: str) -> None:
    rng = np.random.default_rng(0)
    cases = [(a, b, n) for a, b in itertools.product(_ENDS, _ENDS) for n in _STEPS]
    cases += [(float(a), float(b), int(n)) for a, b, n in zip(rng.standard_normal(50) * 100,
                                                              rng.standard_normal(50), rng.integers(2, 3000, 50))]
    cases += [(-1.0, 1.0, 100_001)]  # long enough for PyTorch to split the work between threads
    for start, end, steps in cases:
        ours = lt.linspace(start, end, steps, dtype=getattr(lt, dtype))
        theirs = torch_oracle.linspace(start, end, steps, dtype=getattr(torch_oracle, dtype))
        assert_same(ours, theirs, exact=True, path=f"linspace({start}, {end}, {steps})")
        a, e = to_numpy(ours), to_numpy(theirs)
        assert np.array_equal(a.view(np.uint8), e.view(np.uint8)), (start, end, steps)  # -0.0 and 0.0 too


def test_linspace_example_from_the_docs(torch_oracle: Any) -> None:
    # the middle point is counted down from the end, in one rounding: not 0 in float32
    assert lt.linspace(-1, 1, 7)[3].item() == torch_oracle.linspace(-1, 1, 7)[3].item() != 0


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8"])
def test_linspace_integers_match_torch(torch_oracle: Any, dtype: str) -> None:
    for start, end, steps in itertools.product([0, 3, 0.5, 9.7, 100], [0, 7, 9.7, 10, 60], [0, 1, 2, 4, 7, 33]):
        assert_same(lt.linspace(start, end, steps, dtype=getattr(lt, dtype)),
                    torch_oracle.linspace(start, end, steps, dtype=getattr(torch_oracle, dtype)))


def test_linspace_refuses_bool_and_negative_steps(torch_oracle: Any) -> None:
    raises_both(lambda T: T.linspace(0, 1, 3, dtype=T.bool), torch_oracle, match="linspace_cpu")
    raises_both(lambda T: T.linspace(0, 1, -1), torch_oracle, match="non-negative")


# ---------------------------------------------------------------------------- padding
def _pad_cases(T: Any) -> dict:
    F, nn = T.nn.functional, T.nn
    return {
        "F.pad": lambda x: F.pad(x, (1, 1)),
        "F.pad_crop": lambda x: F.pad(x, (-1, 2, 0, -2)),
        "F.pad_zero": lambda x: F.pad(x, (0, 0)),
        "F.pad_value": lambda x: F.pad(x, (2, 0, 1, 1), value=3.5),
        "ZeroPad2d": nn.ZeroPad2d((1, 0, 2, 1)),
        "ConstantPad1d": nn.ConstantPad1d(2, -1.0),
        "ConstantPad2d": nn.ConstantPad2d(1, 0.5),
        "ConstantPad3d": nn.ConstantPad3d((1, 0, 0, 1, 1, 1), 2.0),
        "CircularPad1d": nn.CircularPad1d((2, 1)),
        "CircularPad2d": nn.CircularPad2d((1, 2, 2, 1)),
        "F.pad_circular_crop": lambda x: F.pad(x, (-1, 2), mode="circular"),
        "ReflectionPad2d": nn.ReflectionPad2d(1),
        "ReplicationPad1d": nn.ReplicationPad1d((1, 3)),
        "ReplicationPad3d": nn.ReplicationPad3d(1),
    }


@pytest.mark.parametrize("name", sorted(_pad_cases(lt)))
def test_padding_nodes_gradients_and_double_backward_match_torch(torch_oracle: Any, name: str) -> None:
    x = np.random.default_rng(1).standard_normal((1, 2, 3, 4, 4) if name.endswith("3d") else (2, 3, 4))
    if name.endswith("2d") or name == "F.pad_crop":
        x = x.reshape(2, 3, 2, 2)[..., :2].repeat(2, -1)  # (2, 3, 2, 4): four dimensions
    fn_l, fn_t = _pad_cases(lt)[name], _pad_cases(torch_oracle)[name]
    y_l, y_t = fn_l(lt.tensor(x, requires_grad=True)), fn_t(torch_oracle.tensor(x, requires_grad=True))
    assert_same(y_l, y_t, exact=True)  # values, shape and the node's name
    w = np.random.default_rng(2).standard_normal(tuple(y_t.shape))
    square = (lambda T, f: (lambda t: f(t) ** 2))  # a non-linear use, so that the second derivative is not 0
    g_l, h_l = _grad_and_second(lt, square(lt, fn_l), x, w)
    g_t, h_t = _grad_and_second(torch_oracle, square(torch_oracle, fn_t), x, w)
    np.testing.assert_allclose(to_numpy(g_l), to_numpy(g_t), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(to_numpy(h_l), to_numpy(h_t), rtol=1e-12, atol=1e-12)
    # the gradient of the pad itself (linear): the double backward node is PyTorch's
    g_l, _ = _grad_and_second(lt, fn_l, x, w)
    g_t, _ = _grad_and_second(torch_oracle, fn_t, x, w)
    if name.startswith(("F.pad", "ZeroPad", "ConstantPad")) and "circular" not in name:
        w_l = lt.tensor(w, requires_grad=True)
        w_t = torch_oracle.tensor(w, requires_grad=True)
        leaf_l, leaf_t = lt.tensor(x, requires_grad=True), torch_oracle.tensor(x, requires_grad=True)
        (gg_l,) = lt.autograd.grad((fn_l(leaf_l) * w_l).sum(), leaf_l, create_graph=True)
        (gg_t,) = torch_oracle.autograd.grad((fn_t(leaf_t) * w_t).sum(), leaf_t, create_graph=True)
        assert _node(gg_l) == _node(gg_t) == "ConstantPadNdBackward0"
    if name.startswith(("Reflection", "Replication")):
        w_l = lt.tensor(w, requires_grad=True)
        w_t = torch_oracle.tensor(w, requires_grad=True)
        leaf_l, leaf_t = lt.tensor(x, requires_grad=True), torch_oracle.tensor(x, requires_grad=True)
        (gg_l,) = lt.autograd.grad((fn_l(leaf_l) * w_l).sum(), leaf_l, create_graph=True)
        (gg_t,) = torch_oracle.autograd.grad((fn_t(leaf_t) * w_t).sum(), leaf_t, create_graph=True)
        assert _node(gg_l) == _node(gg_t)  # ReflectionPad2DBackwardBackward0 ...


@pytest.mark.parametrize("mode", ["constant", "circular", "reflect", "replicate"])
def test_padding_gradcheck_and_gradgradcheck(mode: str) -> None:
    x = lt.tensor(np.random.default_rng(3).standard_normal((1, 2, 3, 4)), requires_grad=True)
    fn = (lambda t: lt.nn.functional.pad(t, (1, 2, 2, 1), mode=mode) ** 2)
    assert lt.autograd.gradcheck(fn, (x,))
    assert lt.autograd.gradgradcheck(fn, (x,))


def test_padding_errors_match_torch(torch_oracle: Any) -> None:
    x = np.zeros((2, 5))
    raises_both(lambda T: T.nn.functional.pad(T.tensor(x), (-3, -3)), torch_oracle, match="non-negative")
    raises_both(lambda T: T.nn.functional.pad(T.tensor(x), (1,)), torch_oracle)


# ---------------------------------------------------------------------------- activations' double backward
def _activations(T: Any) -> dict:
    F = T.nn.functional
    return {
        "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "elu": lambda x: F.elu(x, 0.7), "selu": F.selu,
        "celu": lambda x: F.celu(x, 0.5), "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "silu": F.silu, "mish": F.mish, "hardtanh": F.hardtanh, "relu6": F.relu6, "softplus": F.softplus,
        "softplus_beta": lambda x: F.softplus(x, beta=2.0, threshold=1.0), "sigmoid": T.sigmoid, "tanh": T.tanh,
        "logsigmoid": F.logsigmoid, "hardswish": F.hardswish, "threshold": lambda x: F.threshold(x, 0.1, 20.0),
        "hardshrink": F.hardshrink, "softshrink": F.softshrink,
    }


_ACT_X = np.array([-3.5, -2.0, -0.5, -0.05, 0.3, 0.9, 1.5, 2.5, 4.0])


@pytest.mark.parametrize("name", sorted(_activations(lt)))
def test_activation_double_backward_nodes_and_values_match_torch(torch_oracle: Any, name: str) -> None:
    w = np.random.default_rng(4).standard_normal(_ACT_X.shape)
    g_l, h_l = _grad_and_second(lt, _activations(lt)[name], _ACT_X, w)
    g_t, h_t = _grad_and_second(torch_oracle, _activations(torch_oracle)[name], _ACT_X, w)
    assert _node(g_l) == _node(g_t)  # LeakyReluBackwardBackward0, SigmoidBackwardBackward0 ...
    np.testing.assert_allclose(to_numpy(g_l), to_numpy(g_t), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(to_numpy(h_l), to_numpy(h_t), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["leaky_relu", "elu", "celu", "softplus_beta", "sigmoid", "tanh", "logsigmoid",
                                  "gelu", "hardswish", "hardtanh"])
def test_activation_gradgradcheck(name: str) -> None:
    x = lt.tensor(_ACT_X[[0, 2, 4, 6, 8]], requires_grad=True)  # (away from the kinks)
    fn = _activations(lt)[name]
    assert lt.autograd.gradcheck(fn, (x,))
    assert lt.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "elu", "softplus"])
def test_activation_third_derivative_matches_torch(torch_oracle: Any, name: str) -> None:
    def third(T: Any) -> Any:
        x = T.tensor(_ACT_X, requires_grad=True)
        (g,) = T.autograd.grad(_activations(T)[name](x).sum(), x, create_graph=True)
        (h,) = T.autograd.grad(g.sum(), x, create_graph=True)
        (k,) = T.autograd.grad(h.sum(), x)
        return h, k
    (h_l, k_l), (h_t, k_t) = third(lt), third(torch_oracle)
    if name in ("sigmoid", "tanh"):  # (softplus: PyTorch's MulBackward1, a product with a number, is ours MulBackward0)
        assert _node(h_l) == _node(h_t)
    np.testing.assert_allclose(to_numpy(k_l), to_numpy(k_t), rtol=1e-10, atol=1e-12)
