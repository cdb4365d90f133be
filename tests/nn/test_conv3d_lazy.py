"""``conv3d``, ``conv_transpose3d``, ``nn.Conv3d``/``ConvTranspose3d`` and the lazy convolutions
``nn.LazyConv1d/2d/3d``, ``nn.LazyConvTranspose1d/2d/3d`` against PyTorch: values, gradients,
``grad_fn`` names (first and second order), ``gradcheck``/``gradgradcheck`` in float64, reprs,
initialisation with the same seed, and errors.  Tensors are tiny: the whole file runs in a few
seconds.  The differential tests need real PyTorch (the ``torch_oracle`` fixture skips them,
saying so, where it is not installed); the gradchecks run on learntorch alone."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, check_both, grads_both, leaves, raises_both, to_numpy

RNG = np.random.default_rng(303)


def _r(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


# name, keyword arguments, input shape, weight shape
CONV3D = [
    ("plain", {}, (2, 3, 4, 5, 4), (4, 3, 2, 3, 2)),
    ("stride_pad_dil", {"stride": (1, 2, 2), "padding": (1, 0, 2), "dilation": (2, 1, 2)}, (1, 2, 5, 6, 6),
     (3, 2, 2, 2, 3)),
    ("groups", {"groups": 2, "padding": 1}, (1, 4, 3, 4, 3), (6, 2, 3, 3, 3)),
    ("same_odd", {"padding": "same"}, (1, 2, 4, 5, 3), (3, 2, 3, 1, 3)),
    ("same_even", {"padding": "same", "dilation": (1, 2, 1)}, (1, 2, 4, 5, 4), (3, 2, 2, 2, 3)),
    ("valid", {"padding": "valid"}, (1, 2, 4, 4, 4), (3, 2, 2, 2, 2)),
    ("unbatched", {"stride": 2, "padding": 1}, (3, 4, 4, 5), (2, 3, 3, 3, 3)),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("kw,xs,ws", [c[1:] for c in CONV3D], ids=[c[0] for c in CONV3D])
@pytest.mark.parametrize("bias", [True, False])
def test_conv3d(torch_oracle: Any, kw: dict, xs: tuple, ws: tuple, bias: bool) -> None:
    arrays = (_r(*xs), _r(*ws)) + ((_r(ws[0]),) if bias else ())
    grads_both(lambda T, x, w, *b: T.nn.functional.conv3d(x, w, *b, **kw), torch_oracle, *arrays,
               rtol=1e-4, atol=1e-5)


TRANSPOSED3D = [
    ("plain", {}, (2, 3, 3, 2, 3), (3, 2, 2, 3, 2)),
    ("stride_pad_outpad", {"stride": (2, 1, 3), "padding": (1, 0, 1), "output_padding": (1, 0, 2)},
     (1, 2, 3, 3, 2), (2, 3, 3, 2, 3)),
    ("dilation", {"dilation": 2, "stride": 2, "output_padding": 1}, (1, 2, 2, 3, 2), (2, 2, 2, 2, 2)),
    ("groups", {"groups": 2, "stride": 2, "padding": 1}, (1, 4, 2, 3, 2), (4, 2, 3, 3, 3)),
    ("unbatched", {"stride": 2}, (2, 2, 2, 3), (2, 3, 2, 2, 2)),
]


@pytest.mark.parametrize("kw,xs,ws", [c[1:] for c in TRANSPOSED3D], ids=[c[0] for c in TRANSPOSED3D])
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose3d(torch_oracle: Any, kw: dict, xs: tuple, ws: tuple, bias: bool) -> None:
    arrays = (_r(*xs), _r(*ws)) + ((_r(ws[1] * kw.get("groups", 1)),) if bias else ())
    grads_both(lambda T, x, w, *b: T.nn.functional.conv_transpose3d(x, w, *b, **kw), torch_oracle, *arrays,
               rtol=1e-4, atol=1e-5)


SECOND_ORDER = [
    ("conv3d", lambda F, x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1, dilation=(2, 1, 1), groups=2),
     (1, 2, 4, 3, 3), (2, 1, 2, 2, 2)),
    ("conv_transpose3d", lambda F, x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1),
     (1, 2, 2, 2, 2), (2, 2, 3, 2, 2)),
    # output_padding ≥ stride (allowed since it is < dilation): the adjoint convolution is cropped
    ("conv_transpose3d_dilated", lambda F, x, w, b: F.conv_transpose3d(x, w, b, dilation=2, output_padding=1),
     (1, 1, 2, 2, 2), (1, 2, 2, 1, 2)),
]


def _float64_arrays(name: str, xs: tuple, ws: tuple) -> tuple:
    out_channels = ws[1] if "transpose" in name else ws[0]
    return _r(*xs, dtype=np.float64), _r(*ws, dtype=np.float64), _r(out_channels, dtype=np.float64)


@pytest.mark.parametrize("name,fn,xs,ws", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_gradcheck_and_gradgradcheck(name: str, fn: Any, xs: tuple, ws: tuple) -> None:
    x, w, b = (lt.tensor(a, requires_grad=True) for a in _float64_arrays(name, xs, ws))
    assert lt.autograd.gradcheck(lambda x, w, b: fn(lt.nn.functional, x, w, b), (x, w, b))
    assert lt.autograd.gradgradcheck(lambda x, w, b: fn(lt.nn.functional, x, w, b), (x, w, b))


@pytest.mark.parametrize("name,fn,xs,ws", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_gradient_penalty_matches_torch(torch_oracle: Any, name: str, fn: Any, xs: tuple, ws: tuple) -> None:
    """∂out/∂x and ∂out/∂w taken with ``create_graph=True`` (``ConvolutionBackwardBackward0``),
    then differentiated again: every value and gradient equals PyTorch's."""
    def run(T: Any, x: Any, w: Any, b: Any) -> list:
        out = fn(T.nn.functional, x, w, b)
        gx, gw = T.autograd.grad(out.pow(2).sum(), (x, w), create_graph=True)
        penalty = gx.pow(2).sum() + gw.pow(2).sum()
        penalty.backward()
        return [out, gx, gw, penalty, x.grad, w.grad, b.grad]
    ours, theirs = leaves(torch_oracle, *_float64_arrays(name, xs, ws))
    assert_same(run(lt, *ours), run(torch_oracle, *theirs), rtol=1e-9, atol=1e-9)


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("kw", [
    {"padding": (1, 0, 1), "padding_mode": "zeros"}, {"padding": 1, "padding_mode": "reflect"},
    {"padding": (0, 1, 2), "padding_mode": "replicate", "stride": 2},
    {"padding": 1, "padding_mode": "circular", "groups": 2}, {"padding": "same", "padding_mode": "reflect"},
    {"padding": "same", "dilation": (1, 1, 2), "bias": False}, {"padding": "valid", "stride": (1, 2, 1)},
], ids=["zeros", "reflect", "replicate", "circular", "same_reflect", "same_even", "valid"])
def test_conv3d_module(torch_oracle: Any, kw: dict) -> None:
    """Same seed → same weights; same repr; same output and gradients."""
    x = _r(2, 2, 4, 5, 4)

    def run(T: Any) -> list:
        T.manual_seed(7)
        layer = T.nn.Conv3d(2, 4, (2, 3, 3), **kw)
        inp = T.tensor(x, requires_grad=True)
        out = layer(inp)
        out.sum().backward()
        return [repr(layer), layer.weight, layer.bias, out, inp.grad, layer.weight.grad]
    check_both(run, torch_oracle, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw,out_size", [
    ({"stride": 2, "padding": 1, "output_padding": 1}, None),
    ({"stride": (2, 1, 2), "groups": 2, "dilation": (1, 2, 1), "bias": False}, None),
    ({"stride": 2, "padding": 1}, (4, 5, 4)),
], ids=["output_padding", "groups_dilation", "output_size"])
def test_conv_transpose3d_module(torch_oracle: Any, kw: dict, out_size: Any) -> None:
    x = _r(1, 2, 2, 3, 2)

    def run(T: Any) -> list:
        T.manual_seed(3)
        layer = T.nn.ConvTranspose3d(2, 4, 3, **kw)
        inp = T.tensor(x, requires_grad=True)
        out = layer(inp, out_size)
        out.sum().backward()
        return [repr(layer), layer.weight, layer.bias, out, inp.grad, layer.weight.grad]
    check_both(run, torch_oracle, rtol=1e-4, atol=1e-5)


def test_reprs_in_a_model(torch_oracle: Any) -> None:
    """``print(model)`` of a small 3-D network, lazy layers before and after their first call."""
    def run(T: Any) -> list:
        nn = T.nn
        T.manual_seed(0)
        model = nn.Sequential(nn.Conv3d(1, 4, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), dilation=2, groups=1),
                              nn.LazyConv3d(6, 3, padding="same", padding_mode="circular", groups=2),
                              nn.LazyConvTranspose3d(2, 2, stride=2, output_padding=1, dilation=2, bias=False),
                              nn.ConvTranspose3d(2, 2, 3, padding=1, groups=2))
        before = repr(model)
        out = model(T.ones(1, 1, 3, 6, 6))
        return [before, repr(model), type(model[1]).__name__, type(model[2]).__name__, out]
    check_both(run, torch_oracle, rtol=1e-4, atol=1e-5)


LAZY = [
    ("LazyConv1d", {"kernel_size": 3, "padding": 1}, (2, 3, 7)),
    ("LazyConv1d", {"kernel_size": 2, "padding": "same", "groups": 3}, (3, 6)),
    ("LazyConv2d", {"kernel_size": (2, 3), "stride": 2, "padding_mode": "reflect", "padding": 1}, (2, 3, 5, 6)),
    ("LazyConv2d", {"kernel_size": 3, "bias": False, "groups": 2}, (4, 5, 5)),
    ("LazyConv3d", {"kernel_size": 2, "dilation": (1, 2, 1)}, (1, 2, 3, 4, 3)),
    ("LazyConvTranspose1d", {"kernel_size": 3, "stride": 2, "output_padding": 1}, (2, 3, 4)),
    ("LazyConvTranspose2d", {"kernel_size": 2, "stride": 2, "groups": 3}, (1, 3, 3, 2)),
    ("LazyConvTranspose3d", {"kernel_size": (1, 2, 2), "stride": (1, 2, 2), "bias": False}, (2, 2, 2, 3)),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("name,kw,xs", LAZY, ids=[f"{c[0]}-{i}" for i, c in enumerate(LAZY)])
def test_lazy_convolutions(torch_oracle: Any, name: str, kw: dict, xs: tuple) -> None:
    """Before the first call: ``in_channels`` 0, placeholder parameters, no draws from the
    generator; after it: the eager class, with the weights the eager layer draws for the same seed."""
    x = _r(*xs)

    def run(T: Any) -> list:
        T.manual_seed(11)
        layer = getattr(T.nn, name)(6, **kw)
        before = [repr(layer), layer.in_channels, str(layer.weight), type(layer.weight).__name__]
        out = layer(T.tensor(x))
        out.sum().backward()
        T.manual_seed(11)
        eager = getattr(T.nn, name[len("Lazy"):])(layer.in_channels, 6, **kw)
        return before + [repr(layer), type(layer).__name__, type(layer.weight).__name__, layer.in_channels,
                         layer.weight, layer.bias, out, layer.weight.grad, eager.weight, eager.bias,
                         T.rand(2), sorted(layer.state_dict())]
    check_both(run, torch_oracle, rtol=1e-4, atol=1e-5)


def test_lazy_convolution_loads_a_checkpoint_before_its_first_call(torch_oracle: Any) -> None:
    def run(T: Any) -> list:
        T.manual_seed(0)
        state = T.nn.Conv2d(3, 4, 3).state_dict()
        lazy = T.nn.LazyConv2d(4, 3)
        lazy.load_state_dict(state)
        return [lazy.weight, lazy.bias, lazy(T.ones(1, 3, 4, 4))]
    check_both(run, torch_oracle, rtol=1e-4, atol=1e-5)


def test_lazy_convolution_in_float64_and_errors(torch_oracle: Any) -> None:
    def run(T: Any) -> list:
        T.manual_seed(0)
        layer = T.nn.LazyConv3d(2, 2).double()
        return [layer(T.ones(1, 1, 2, 2, 2, dtype=T.float64)), layer.weight]
    check_both(run, torch_oracle, rtol=1e-9, atol=1e-9)
    raises_both(lambda T: T.nn.LazyConv3d(4, 2)(T.ones(3, 4, 4)), torch_oracle,
                match=r"Expected 4D \(unbatched\) or 5D \(batched\) input to LazyConv3d")
    raises_both(lambda T: T.nn.LazyConv2d(4, 2, groups=2)(T.ones(1, 3, 4, 4)), torch_oracle,
                match="in_channels must be divisible by groups")
    raises_both(lambda T: T.nn.LazyConvTranspose2d(4, 2, padding_mode="reflect"), torch_oracle,
                match='Only "zeros" padding mode is supported for LazyConvTranspose2d')



@pytest.mark.parametrize("use", [
    lambda T: sum(p.numel() for p in T.nn.Sequential(T.nn.LazyConv2d(4, 3), T.nn.LazyLinear(2)).parameters()),
    lambda T: T.nn.LazyLinear(2).weight.nelement(), lambda T: T.nn.LazyLinear(2).bias.dim(),
    lambda T: T.nn.LazyBatchNorm2d().running_mean.numel(), lambda T: T.nn.LazyLinear(2).weight.data_ptr(),
], ids=["count-parameters", "nelement", "dim", "buffer-numel", "data_ptr"])
def test_placeholders_refuse_to_be_counted_before_the_first_call(torch_oracle: Any, use: Any) -> None:
    """Counting a lazy model's parameters before its dry run is PyTorch's ValueError, which names
    the placeholder's class, not a silent 0."""
    l_exc, t_exc = raises_both(use, torch_oracle, match="Attempted to use an uninitialized parameter in")
    assert str(l_exc) == str(t_exc)

ERRORS = [
    ("rank", lambda T: T.nn.functional.conv3d(T.ones(1, 2, 3, 4, 4, 4), T.ones(4, 3, 2, 2, 2)),
     r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv3d, but got input of size: \[1, 2, 3, 4, 4, 4\]"),
    ("module_rank", lambda T: T.nn.Conv3d(3, 4, 2)(T.ones(3, 4, 4)), "input to conv3d"),
    ("channels", lambda T: T.nn.functional.conv3d(T.ones(2, 5, 4, 4, 4), T.ones(4, 3, 2, 2, 2)),
     r"expected input\[2, 5, 4, 4, 4\] to have 3 channels, but got 5 channels instead"),
    ("unbatched_channels", lambda T: T.nn.functional.conv3d(T.ones(2, 3, 4, 4), T.ones(4, 3, 2, 2, 2)),
     r"expected input\[1, 2, 3, 4, 4\] to have 3 channels"),
    ("groups", lambda T: T.nn.functional.conv3d(T.ones(1, 3, 4, 4, 4), T.ones(4, 3, 2, 2, 2), groups=2),
     "to have 6 channels"),
    ("kernel_too_big", lambda T: T.nn.functional.conv3d(T.ones(2, 3, 1, 4, 4), T.ones(4, 3, 2, 2, 2)),
     r"Calculated padded input size per channel: \(1 x 4 x 4\). Kernel size: \(2 x 2 x 2\). Kernel size can't"),
    ("dilated_kernel_too_big", lambda T: T.nn.functional.conv3d(T.ones(1, 3, 4, 4, 4), T.ones(4, 3, 2, 2, 2),
                                                                padding=(1, 0, 0), stride=2, dilation=(1, 5, 1)),
     r"\(6 x 4 x 4\). Kernel size: \(2 x 6 x 2\)"),
    ("dtype", lambda T: T.nn.functional.conv3d(T.ones(1, 3, 2, 2, 2, dtype=T.float64), T.ones(4, 3, 2, 2, 2)),
     "expected scalar type Double but found Float"),
    ("bias_dtype", lambda T: T.nn.Conv3d(3, 4, 2)(T.ones(1, 3, 2, 2, 2, dtype=T.float64)),
     r"Input type \(double\) and bias type \(float\) should be the same"),
    ("stride_length", lambda T: T.nn.functional.conv3d(T.ones(1, 3, 4, 4, 4), T.ones(4, 3, 2, 2, 2),
                                                       stride=(1, 2)), "expected stride to be a single integer"),
    ("same_strided", lambda T: T.nn.functional.conv3d(T.ones(1, 3, 4, 4, 4), T.ones(4, 3, 2, 2, 2), stride=2,
                                                      padding="same"), "not supported for strided convolutions"),
    ("same_strided_module", lambda T: T.nn.Conv3d(3, 4, 2, stride=2, padding="same"),
     "not supported for strided convolutions"),
    ("padding_string", lambda T: T.nn.functional.conv3d(T.ones(1, 3, 4, 4, 4), T.ones(4, 3, 2, 2, 2),
                                                        padding="full"), "Invalid padding string"),
    ("padding_mode", lambda T: T.nn.Conv3d(3, 4, 2, padding_mode="mirror"), "padding_mode must be one of"),
    ("groups_divide", lambda T: T.nn.Conv3d(3, 4, 2, groups=2), "in_channels must be divisible by groups"),
    ("transposed_rank", lambda T: T.nn.ConvTranspose3d(3, 4, 2)(T.ones(3, 4, 4)),
     r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv_transpose3d"),
    ("transposed2d_rank", lambda T: T.nn.ConvTranspose2d(3, 4, 2)(T.ones(4, 4)),
     r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv_transpose2d"),
    ("transposed_channels", lambda T: T.nn.functional.conv_transpose3d(T.ones(2, 5, 4, 4, 4), T.ones(3, 4, 2, 2, 2)),
     r"Given transposed=1, weight of size \[3, 4, 2, 2, 2\], expected input\[2, 5, 4, 4, 4\] to have 3 channels"),
    ("transposed_dtype", lambda T: T.nn.functional.conv_transpose3d(T.ones(1, 3, 2, 2, 2, dtype=T.float64),
                                                                    T.ones(3, 4, 2, 2, 2)), None),
    ("transposed_too_small", lambda T: T.nn.functional.conv_transpose3d(T.ones(1, 3, 1, 1, 1),
                                                                        T.ones(3, 4, 2, 2, 2), padding=2), None),
    ("output_padding", lambda T: T.nn.functional.conv_transpose3d(T.ones(1, 3, 2, 2, 2), T.ones(3, 4, 2, 2, 2),
                                                                  stride=2, output_padding=2),
     "output padding must be smaller than either stride or dilation"),
    ("output_size", lambda T: T.nn.ConvTranspose3d(3, 4, 2)(T.ones(1, 3, 4, 4, 4), output_size=(9, 9, 9)),
     r"requested an output size of \(9, 9, 9\), but valid sizes range from \[5, 5, 5\] to \[5, 5, 5\]"),
]


@pytest.mark.parametrize("fn,match", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_errors(torch_oracle: Any, fn: Any, match: Any) -> None:
    raises_both(fn, torch_oracle, match=match)


def test_same_padding_with_an_even_kernel_warns() -> None:
    """PyTorch's warning (its C++ side warns once per process, so it is not compared here)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lt.nn.functional.conv3d(lt.ones(1, 1, 3, 3, 3), lt.ones(1, 1, 2, 1, 1), padding="same")
    assert [w.category for w in caught] == [UserWarning]
    assert "Using padding='same' with even kernel lengths" in str(caught[0].message)


def test_conv3d_equals_a_sum_of_conv2d_over_the_depth_offsets() -> None:
    """What a 3-D convolution is: for every depth offset ``i``, the 2-D convolution of the
    input's depth slices with the kernel's slice ``i``, added up (learntorch alone)."""
    x, w = lt.tensor(_r(1, 2, 4, 5, 5)), lt.tensor(_r(3, 2, 2, 3, 3))
    out = lt.nn.functional.conv3d(x, w, padding=(0, 1, 1))
    for d in range(out.shape[2]):
        by_slices = sum(lt.nn.functional.conv2d(x[:, :, d + i], w[:, :, i], padding=1) for i in range(2))
        np.testing.assert_allclose(to_numpy(out[:, :, d]), to_numpy(by_slices), rtol=1e-5, atol=1e-5)
