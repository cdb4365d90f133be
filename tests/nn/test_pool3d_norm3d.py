"""3-D pooling, normalisation and padding against PyTorch: ``F.max_pool3d`` (indices,
ceil_mode, dilation, padding), ``F.avg_pool3d`` (count_include_pad, divisor_override,
ceil_mode), the adaptive 3-D pools, ``avg_pool1d/2d(ceil_mode=True)`` (the N-d kernel of
``ops/pooling_nd.py``), ``BatchNorm3d``, ``InstanceNorm3d`` and the 3-D padding layers:
outputs, ``grad_fn`` names, gradients, reprs, errors, and second derivatives."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import assert_same, check_both, grads_both, raises_both

RNG = np.random.default_rng(3)
X5 = RNG.standard_normal((2, 3, 5, 6, 7)).astype(np.float32)
X4 = RNG.standard_normal((2, 3, 5, 7)).astype(np.float32)


def F(T: Any) -> Any:
    return T.nn.functional


# ---------------------------------------------------------------------------- max pooling
MAX_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
             dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), ceil_mode=True), dict(kernel_size=2, dilation=2),
             dict(kernel_size=3, stride=2, padding=1, dilation=(1, 2, 1), ceil_mode=True)]


@pytest.mark.parametrize("kw", MAX_CASES)
def test_max_pool3d(torch_oracle: Any, kw: dict) -> None:
    grads_both(lambda T, x: F(T).max_pool3d(x, **kw), torch_oracle, X5)
    check_both(lambda T: F(T).max_pool3d(T.tensor(X5), return_indices=True, **kw), torch_oracle)
    grads_both(lambda T, x: T.nn.MaxPool3d(**kw)(x), torch_oracle, X5[0])  # unbatched (C, D, H, W)


def test_max_pool3d_nan_ties_and_padding_never_win(torch_oracle: Any) -> None:
    nan = np.array([[[[[1.0, np.nan, 3.0], [np.nan, 2.0, 0.0]]]]], dtype=np.float32)
    check_both(lambda T: F(T).max_pool3d(T.tensor(nan), (1, 2, 3), return_indices=True), torch_oracle)
    minus_inf = np.full((1, 1, 3, 3, 3), -np.inf, dtype=np.float32)  # all windows tie with the padding
    check_both(lambda T: F(T).max_pool3d(T.tensor(minus_inf), 3, 2, 1, return_indices=True), torch_oracle)
    grads_both(lambda T, x: F(T).max_pool3d(x, 2, 1), torch_oracle, np.ones((1, 2, 3, 3, 3), np.float32))
    check_both(lambda T: F(T).max_pool3d(T.arange(8).view(1, 2, 2, 2), 2, return_indices=True), torch_oracle)


def test_with_indices_forms(torch_oracle: Any) -> None:
    x3 = X4[:, :, 0]
    check_both(lambda T: F(T).max_pool1d_with_indices(T.tensor(x3), 2), torch_oracle)
    check_both(lambda T: F(T).max_pool2d_with_indices(T.tensor(X4), 3, 2, 1), torch_oracle)
    check_both(lambda T: F(T).max_pool3d_with_indices(T.tensor(X5), 2), torch_oracle)
    check_both(lambda T: F(T).adaptive_max_pool1d_with_indices(T.tensor(x3), 3), torch_oracle)
    check_both(lambda T: F(T).adaptive_max_pool2d_with_indices(T.tensor(X4), (2, 3)), torch_oracle)
    check_both(lambda T: F(T).adaptive_max_pool3d_with_indices(T.tensor(X5), 2), torch_oracle)


# ---------------------------------------------------------------------------- average pooling
AVG_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
             dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
             dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), ceil_mode=True),
             dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
             dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
             dict(kernel_size=2, divisor_override=3)]


@pytest.mark.parametrize("kw", AVG_CASES)
def test_avg_pool3d(torch_oracle: Any, kw: dict) -> None:
    grads_both(lambda T, x: F(T).avg_pool3d(x, **kw), torch_oracle, X5)
    grads_both(lambda T, x: T.nn.AvgPool3d(**kw)(x), torch_oracle, X5[0])


@pytest.mark.parametrize("kw", [dict(kernel_size=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1,
                                                                         ceil_mode=True, count_include_pad=False)])
def test_avg_pool_1d_2d_ceil_mode(torch_oracle: Any, kw: dict) -> None:
    """ceil_mode runs the N-d kernel (ops/convolution.py's im2col has none): the same names."""
    grads_both(lambda T, x: F(T).avg_pool2d(x, **kw), torch_oracle, X4)
    grads_both(lambda T, x: T.nn.AvgPool2d(**kw)(x), torch_oracle, X4[0])
    grads_both(lambda T, x: F(T).avg_pool1d(x, **kw), torch_oracle, X4[:, :, 0])


def test_integer_avg_pool3d_divides_towards_zero(torch_oracle: Any) -> None:
    check_both(lambda T: F(T).avg_pool3d(T.arange(-8, 8).view(1, 2, 2, 4) * 3, 2, padding=1,
                                         count_include_pad=False), torch_oracle)


# ---------------------------------------------------------------------------- adaptive pooling
@pytest.mark.parametrize("size", [1, 2, (2, None, 4), (5, 6, 7), (7, 8, 9), (1, 1, 1), (3, 1, 2)])
def test_adaptive_pool3d(torch_oracle: Any, size: Any) -> None:
    grads_both(lambda T, x: F(T).adaptive_avg_pool3d(x, size), torch_oracle, X5)  # (1, 1, 1): MeanBackward1
    grads_both(lambda T, x: F(T).adaptive_max_pool3d(x, size), torch_oracle, X5)
    check_both(lambda T: T.nn.AdaptiveMaxPool3d(size, return_indices=True)(T.tensor(X5[0])), torch_oracle)
    grads_both(lambda T, x: T.nn.AdaptiveAvgPool3d(size)(x), torch_oracle, X5[0])


# ---------------------------------------------------------------------------- second derivatives
SECOND_ORDER = {
    "max_pool3d": lambda T, x: F(T).max_pool3d(x, 2, 1, ceil_mode=True),
    "avg_pool3d": lambda T, x: F(T).avg_pool3d(x, 2, 2, 1, ceil_mode=True, count_include_pad=False),
    "adaptive_avg_pool3d": lambda T, x: F(T).adaptive_avg_pool3d(x, (2, 3, 2)),
    "adaptive_max_pool3d": lambda T, x: F(T).adaptive_max_pool3d(x, (2, 2, 2)),
    "adaptive_max_pool2d": lambda T, x: F(T).adaptive_max_pool2d(x, (3, 2)),
    "avg_pool2d_ceil": lambda T, x: F(T).avg_pool2d(x, 2, ceil_mode=True),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_gradcheck_and_double_backward_names(torch_oracle: Any, name: str) -> None:
    fn = SECOND_ORDER[name]
    x = lt.tensor(RNG.permutation(2 * 3 * 4 * 3).reshape(2, 3, 4, 3).astype(np.float64) / 7, requires_grad=True)
    assert lt.autograd.gradcheck(lambda t: fn(lt, t), (x,))
    assert lt.autograd.gradgradcheck(lambda t: fn(lt, t), (x,))

    def first_grad_name(T: Any) -> str:  # the node of the gradient, under create_graph=True
        t = T.tensor(x.detach().numpy(), requires_grad=True)
        y = fn(T, t)
        (g,) = T.autograd.grad(y, t, T.ones_like(y, requires_grad=True), create_graph=True)
        return g.grad_fn.name()
    assert first_grad_name(lt) == first_grad_name(torch_oracle)


# ---------------------------------------------------------------------------- normalisation
def test_batch_norm3d_training_and_eval(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        bn = T.nn.BatchNorm3d(3, momentum=0.2)
        x = T.tensor(X5, requires_grad=True)
        y = bn(x)
        y.sum().backward()
        bn.eval()
        return repr(bn), y, x.grad, bn.running_mean, bn.running_var, bn.num_batches_tracked, bn(T.tensor(X5))
    l_out, t_out = run(lt), run(torch_oracle)
    assert l_out[0] == t_out[0]
    assert_same(l_out[1:], t_out[1:], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(), dict(affine=True), dict(track_running_stats=True, momentum=0.3)])
def test_instance_norm3d(torch_oracle: Any, kw: dict) -> None:
    grads_both(lambda T, x: T.nn.InstanceNorm3d(3, **kw)(x), torch_oracle, X5, rtol=1e-4, atol=1e-5)
    grads_both(lambda T, x: T.nn.InstanceNorm3d(3, **kw)(x), torch_oracle, X5[0], rtol=1e-4, atol=1e-5)
    assert repr(lt.nn.InstanceNorm3d(3, **kw)) == repr(torch_oracle.nn.InstanceNorm3d(3, **kw))


# ---------------------------------------------------------------------------- padding
PAD_CASES = [("ZeroPad3d", (1,)), ("ZeroPad3d", ((1, 0, 2, 1, 0, 3),)), ("ConstantPad3d", ((1, 2, 0, 1, 2, 0), 2.5)),
             ("ReflectionPad3d", (2,)), ("ReflectionPad3d", ((1, 2, 3, 0, 1, 4),)), ("ReplicationPad3d", (3,)),
             ("ReplicationPad3d", ((0, 2, 1, 4, 2, 1),)), ("CircularPad3d", (1,)),
             ("CircularPad3d", ((2, 0, 1, 3, 0, 2),))]


@pytest.mark.parametrize("name, args", PAD_CASES)
def test_padding3d_layers(torch_oracle: Any, name: str, args: tuple) -> None:
    # PyTorch pads with constants in one kernel (ConstantPadNdBackward0) and wraps around with
    # slice copies (CopySlices); learntorch with cat: the same numbers and gradients
    names_differ = name.startswith(("Zero", "Constant", "Circular"))
    grads_both(lambda T, x: getattr(T.nn, name)(*args)(x), torch_oracle, X5, check_grad_fn=not names_differ)
    grads_both(lambda T, x: getattr(T.nn, name)(*args)(x), torch_oracle, X5[0], check_grad_fn=not names_differ)
    assert repr(getattr(lt.nn, name)(*args)) == repr(getattr(torch_oracle.nn, name)(*args))


# ---------------------------------------------------------------------------- reprs and errors
def test_reprs(torch_oracle: Any) -> None:
    def build(T: Any) -> str:
        nn = T.nn
        return repr(nn.Sequential(
            nn.MaxPool3d(2), nn.MaxPool3d((1, 2, 2), 1, (0, 1, 1), 2, True, True), nn.AvgPool3d(2),
            nn.AvgPool3d(3, 1, 1, True, False, 5), nn.AdaptiveAvgPool3d((2, None, 3)), nn.AdaptiveMaxPool3d(1),
            nn.BatchNorm3d(4, affine=False), nn.InstanceNorm3d(4, affine=True), nn.ReflectionPad3d(1),
            nn.ReplicationPad3d((1, 2, 3, 4, 5, 6)), nn.ConstantPad3d(1, 2.0), nn.ZeroPad3d(2),
            nn.CircularPad3d(1)))
    assert build(lt) == build(torch_oracle)


X3D = np.zeros((3, 4, 4), np.float32)
ERRORS = [
    lambda T: F(T).max_pool3d(T.tensor(X3D), 2),
    lambda T: F(T).max_pool3d(T.tensor(X5), 2, padding=2),
    lambda T: F(T).max_pool3d(T.tensor(X5), 6),
    lambda T: F(T).max_pool3d(T.tensor(X5), (2, 2)),
    lambda T: F(T).max_pool3d(T.tensor(X5), 2, stride=0),
    lambda T: F(T).max_pool3d(T.tensor(X5), 2, dilation=0),
    lambda T: F(T).avg_pool3d(T.tensor(X3D), 2),
    lambda T: F(T).avg_pool3d(T.tensor(X5), 2, padding=2),
    lambda T: F(T).avg_pool3d(T.tensor(X5), 6),
    lambda T: F(T).avg_pool3d(T.tensor(X5), 2, divisor_override=0),
    lambda T: F(T).adaptive_avg_pool3d(T.tensor(X3D), 2),
    lambda T: F(T).adaptive_avg_pool3d(T.tensor(X5), (2, 2)),
    lambda T: F(T).adaptive_avg_pool3d(T.tensor(X5), -1),
    lambda T: F(T).adaptive_avg_pool3d(T.ones(1, 2, 2, 2, dtype=T.long), 2),
    lambda T: F(T).adaptive_max_pool3d(T.tensor(X3D), 2),
    lambda T: F(T).adaptive_max_pool3d(T.tensor(X5), (2, 2)),
    lambda T: F(T).adaptive_max_pool3d(T.tensor(X5), -1),
    lambda T: F(T).adaptive_max_pool2d(T.ones(1, 2, 2, dtype=T.long), 1),
    lambda T: T.nn.BatchNorm3d(3)(T.tensor(X4)),
    lambda T: T.nn.InstanceNorm3d(3)(T.tensor(X4[0])),
    lambda T: T.nn.InstanceNorm3d(5, affine=True)(T.tensor(X5)),
    lambda T: T.nn.ReflectionPad3d(1)(T.tensor(X3D)),
    lambda T: T.nn.ReflectionPad3d(5)(T.tensor(X5)),
    lambda T: T.nn.CircularPad3d((1, 1, 1, 1))(T.tensor(X5)),
    lambda T: F(T).avg_pool3d(T.tensor(X5).bfloat16(), 2),
    lambda T: F(T).max_pool2d(T.ones(1, 2, 2, dtype=T.bool), 2),
    lambda T: F(T).max_pool2d(T.tensor(X4), 3, padding=2, dilation=2),
]
MATCHES = [None, "pad should be at most half", "Output size is too small", "tuple of three ints",
           "stride should not be zero", "dilation should be greater than zero", "non-empty 4D or 5D",
           "pad should be at most half", "smaller than kernel size", "divisor must be not zero",
           "Expected 4D or 5D tensor", "output_size must be 3", "greater than or equal to 0",
           "not implemented for 'Long'", "Expected 4D or 5D tensor", "output_size.size\\(\\) must be 3",
           "negative dimension", "not implemented for 'Long'", "expected 5D input", "expected 4D or 5D input",
           "to match num_features", "Padding size 6 is not supported", "Argument #8", "Padding size 4",
           "not implemented for 'BFloat16'", "not implemented for 'Bool'", "smaller than or equal to half"]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(torch_oracle: Any, i: int) -> None:
    raises_both(ERRORS[i], torch_oracle, match=MATCHES[i])
