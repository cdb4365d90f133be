"""``conv1d``, ``conv_transpose1d``/``2d`` and their modules against PyTorch: values, gradients,
``grad_fn`` names, initialisation with the same seed, ``state_dict`` keys, and errors."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, check_both, grads_both, raises_both, to_numpy, torch_to_lt

RNG = np.random.default_rng(151)


def _r(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


CONV1D = [
    ("plain", {}, (2, 3, 9), (4, 3, 3)),
    ("stride_pad_dil", {"stride": 2, "padding": 2, "dilation": 2}, (2, 3, 12), (4, 3, 3)),
    ("groups", {"groups": 3, "padding": 1}, (2, 6, 8), (9, 2, 3)),
    ("same_odd", {"padding": "same"}, (2, 3, 9), (4, 3, 5)),
    ("same_even", {"padding": "same", "dilation": 1}, (2, 3, 9), (4, 3, 4)),
    ("valid", {"padding": "valid"}, (2, 3, 9), (4, 3, 4)),
    ("unbatched", {"padding": 1}, (3, 9), (4, 3, 3)),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("kw,xs,ws", [c[1:] for c in CONV1D], ids=[c[0] for c in CONV1D])
@pytest.mark.parametrize("bias", [True, False])
def test_conv1d(torch_oracle: Any, kw: dict, xs: tuple, ws: tuple, bias: bool) -> None:
    arrays = (_r(*xs), _r(*ws)) + ((_r(ws[0]),) if bias else ())
    grads_both(lambda T, x, w, *b: T.nn.functional.conv1d(x, w, *b, **kw), torch_oracle, *arrays,
               rtol=1e-4, atol=1e-5)


TRANSPOSED = [
    ("plain", {}, (2, 3, 5, 4), (3, 4, 3, 3)),
    ("stride", {"stride": 2}, (2, 3, 5, 4), (3, 4, 3, 3)),
    ("stride_pad_outpad", {"stride": (2, 3), "padding": (1, 2), "output_padding": (1, 2)}, (2, 3, 5, 4),
     (3, 4, 3, 4)),
    ("dilation", {"dilation": 2, "padding": 1, "stride": 2, "output_padding": 1}, (1, 2, 4, 4), (2, 3, 3, 2)),
    ("groups", {"groups": 2, "stride": 2, "padding": 1}, (2, 4, 3, 3), (4, 3, 3, 3)),
    ("big_padding", {"padding": 3, "stride": 3}, (1, 2, 6, 6), (2, 2, 4, 4)),
    ("unbatched", {"stride": 2}, (3, 4, 4), (3, 2, 2, 2)),
]


@pytest.mark.parametrize("kw,xs,ws", [c[1:] for c in TRANSPOSED], ids=[c[0] for c in TRANSPOSED])
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose2d(torch_oracle: Any, kw: dict, xs: tuple, ws: tuple, bias: bool) -> None:
    arrays = (_r(*xs), _r(*ws)) + ((_r(ws[1] * kw.get("groups", 1)),) if bias else ())
    grads_both(lambda T, x, w, *b: T.nn.functional.conv_transpose2d(x, w, *b, **kw), torch_oracle, *arrays,
               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw,xs,ws", [c[1:] for c in TRANSPOSED], ids=[c[0] for c in TRANSPOSED])
def test_conv_transpose1d(torch_oracle: Any, kw: dict, xs: tuple, ws: tuple) -> None:
    kw1 = {k: (v[0] if isinstance(v, tuple) else v) for k, v in kw.items()}
    xs1, ws1 = xs[:-1], ws[:-1]
    arrays = (_r(*xs1), _r(*ws1), _r(ws1[1] * kw.get("groups", 1)))
    grads_both(lambda T, x, w, b: T.nn.functional.conv_transpose1d(x, w, b, **kw1), torch_oracle, *arrays,
               rtol=1e-4, atol=1e-5)


def test_conv_transpose_is_the_input_gradient_of_conv(torch_oracle: Any) -> None:
    """The defining identity: conv_transpose2d(g, w) is d<conv2d(x, w), g>/dx."""
    x = lt.tensor(_r(2, 3, 9, 9), requires_grad=True)
    w = lt.tensor(_r(4, 3, 3, 3))
    y = lt.nn.functional.conv2d(x, w, stride=2, padding=1)
    g = lt.tensor(_r(*y.shape))
    (y * g).sum().backward()
    np.testing.assert_allclose(to_numpy(lt.nn.functional.conv_transpose2d(g, w, stride=2, padding=1)),
                               to_numpy(x.grad), rtol=1e-4, atol=1e-5)


MODULES = [
    ("Conv1d", lambda T: T.nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 10)),
    ("Conv1d_nobias", lambda T: T.nn.Conv1d(4, 6, 5, bias=False, dilation=2), (2, 4, 12)),
    ("ConvTranspose1d", lambda T: T.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1), (2, 4, 7)),
    ("ConvTranspose2d", lambda T: T.nn.ConvTranspose2d(4, 6, (3, 2), stride=2, groups=2), (2, 4, 5, 5)),
    ("ConvTranspose2d_dcgan", lambda T: T.nn.ConvTranspose2d(8, 4, 4, 2, 1, bias=False), (2, 8, 4, 4)),
]


@pytest.mark.parametrize("make,shape", [m[1:] for m in MODULES], ids=[m[0] for m in MODULES])
def test_modules_match_torch(torch_oracle: Any, make: Any, shape: tuple) -> None:
    torch = torch_oracle
    torch.manual_seed(5)
    tm = make(torch)
    lt.manual_seed(5)
    lm = make(lt)
    ts, ls = tm.state_dict(), lm.state_dict()
    assert list(ls) == list(ts)
    for k in ts:  # same seed, same weights
        np.testing.assert_array_equal(to_numpy(ls[k]), to_numpy(ts[k]), err_msg=k)
    assert repr(lm) == repr(tm)
    x = _r(*shape)
    xl, xt = lt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out_l, out_t = lm(xl), tm(xt)
    assert_same(out_l, out_t, rtol=1e-4, atol=1e-5)
    g = _r(*out_t.shape)
    (out_l * lt.tensor(g)).sum().backward()
    (out_t * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(to_numpy(xl.grad), to_numpy(xt.grad), rtol=1e-4, atol=1e-5)
    for (n, p), (_, pt) in zip(lm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(to_numpy(p.grad), to_numpy(pt.grad), rtol=1e-4, atol=1e-5, err_msg=n)
    lm.load_state_dict({k: torch_to_lt(v) for k, v in ts.items()})  # both directions
    tm.load_state_dict({k: torch.from_numpy(to_numpy(v)) for k, v in lm.state_dict().items()})


def test_conv_transpose_output_size(torch_oracle: Any) -> None:
    def fn(T: Any) -> Any:
        T.manual_seed(0)
        m = T.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
        return m(T.ones(1, 2, 4, 4), output_size=[8, 8]), m(T.ones(1, 2, 4, 4), output_size=(1, 3, 7, 8))

    a, b = fn(lt), fn(torch_oracle)
    assert_same(a, b, rtol=1e-5, atol=1e-6)
    raises_both(lambda T: T.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)(T.ones(1, 2, 4, 4), output_size=[10, 10]),
                torch_oracle, match="requested an output size of")


def test_conv_variant_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.nn.functional.conv1d(T.ones(2, 3, 8), T.ones(4, 2, 3)), torch_oracle,
                match="expected input")
    raises_both(lambda T: T.nn.functional.conv1d(T.ones(2, 3, 2), T.ones(4, 3, 3)), torch_oracle,
                match="Kernel size can't be greater than actual input size")
    raises_both(lambda T: T.nn.functional.conv_transpose2d(T.ones(1, 3, 4, 4), T.ones(2, 2, 3, 3)), torch_oracle,
                match="Given transposed=1")
    raises_both(lambda T: T.nn.functional.conv_transpose2d(T.ones(1, 2, 4, 4), T.ones(2, 2, 3, 3),
                                                           output_padding=1), torch_oracle,
                match="output padding must be smaller than either stride or dilation")
    raises_both(lambda T: T.nn.Conv1d(3, 4, 3, groups=2), torch_oracle, match="in_channels must be divisible")
    raises_both(lambda T: T.nn.Conv1d(3, 4, 3, stride=2, padding="same"), torch_oracle,
                match="padding='same' is not supported for strided convolutions")
    for stride in (2, (1, 2)):  # Conv2d too refuses it when built, not at its first call
        raises_both(lambda T: T.nn.Conv2d(3, 4, 3, stride=stride, padding="same"), torch_oracle,
                    match="padding='same' is not supported for strided convolutions")
    raises_both(lambda T: T.nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"), torch_oracle,
                match='Only "zeros" padding mode is supported')


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("layer", ["Conv1d", "Conv2d"])
def test_padding_modes(torch_oracle, mode, layer):
    """``padding_mode`` other than zeros: the input is padded by ``F.pad(mode=...)`` first (with
    ``padding='same'`` too), so values and gradients are PyTorch's; the repr names the mode."""
    rng = np.random.default_rng(7)
    shape = (2, 2, 7) if layer == "Conv1d" else (2, 2, 7, 6)
    x = rng.standard_normal(shape).astype(np.float32)

    def run(T):
        T.manual_seed(0)
        out = []
        for padding, dilation in ((1, 1), (2, 1), ("same", 2), ("valid", 1)):
            conv = getattr(T.nn, layer)(2, 3, 3, padding=padding, dilation=dilation, padding_mode=mode)
            xt = T.tensor(x, requires_grad=True)
            y = conv(xt)
            (y * y).sum().backward()
            out += [repr(conv), y, xt.grad, conv.weight.grad]
        return out
    check_both(run, torch_oracle, rtol=1e-4, atol=1e-5)


def test_bad_padding_mode(torch_oracle):
    raises_both(lambda T: T.nn.Conv2d(2, 3, 3, padding_mode="mirror"), torch_oracle, match="padding_mode must be one of")


CONV2D_SAME = [
    ("even_h", {}, (2, 3, 7, 6), (4, 3, 4, 3)),
    ("even_both", {}, (1, 2, 6, 6), (3, 2, 2, 4)),
    ("even_dilated_odd", {"dilation": (1, 3)}, (1, 2, 8, 9), (3, 2, 2, 2)),
    ("odd", {"dilation": 2}, (1, 2, 8, 9), (3, 2, 3, 3)),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("kw,xs,ws", [c[1:] for c in CONV2D_SAME], ids=[c[0] for c in CONV2D_SAME])
def test_conv2d_same_padding(torch_oracle: Any, kw: dict, xs: tuple, ws: tuple) -> None:
    """``padding='same'`` with an even kernel span pads the extra zero on the right (bottom), as PyTorch:
    values, gradients, and the graph (``ConvolutionBackward0`` over ``ConstantPadNdBackward0``)."""
    arrays = (_r(*xs), _r(*ws), _r(ws[0]))
    grads_both(lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, padding="same", **kw), torch_oracle, *arrays,
               rtol=1e-4, atol=1e-5)
    names = []
    for T in (lt, torch_oracle):
        x = T.tensor(arrays[0], requires_grad=True)
        y = T.nn.functional.conv2d(x, T.tensor(arrays[1]), padding="same", **kw)
        names.append([type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions])
    assert names[0] == names[1]


def test_conv_same_warns_as_pytorch() -> None:
    with pytest.warns(UserWarning, match="even kernel lengths and odd dilation"):
        lt.nn.functional.conv2d(lt.ones(1, 1, 5, 5), lt.ones(1, 1, 2, 3), padding="same")


@pytest.mark.parametrize("conv,dims", [("conv1d", 1), ("conv2d", 2), ("conv3d", 3)])
def test_functional_padding_string_errors(torch_oracle: Any, conv: str, dims: int) -> None:
    """The functional forms raise RuntimeError (the modules, ValueError), in PyTorch's words."""
    x_shape, w_shape = (1, 2) + (6,) * dims, (3, 2) + (3,) * dims
    raises_both(lambda T: getattr(T.nn.functional, conv)(T.ones(*x_shape), T.ones(*w_shape), padding="full"),
                torch_oracle, match="Invalid padding string: 'full'")
    raises_both(lambda T: getattr(T.nn.functional, conv)(T.ones(*x_shape), T.ones(*w_shape), padding="same",
                                                         stride=2),
                torch_oracle, match="padding='same' is not supported for strided convolutions")


CONV_WEIGHT_ERRORS = [
    lambda T: T.nn.functional.conv2d(T.ones(1, 4, 6, 6), T.ones(2, 4, 3, 3), padding=-1),
    lambda T: T.nn.functional.conv1d(T.ones(1, 4, 6), T.ones(2, 4, 3), padding=-1),
    lambda T: T.nn.functional.conv3d(T.ones(1, 4, 6, 6, 6), T.ones(2, 4, 3, 3, 3), padding=-1),
    lambda T: T.nn.functional.conv_transpose2d(T.ones(1, 4, 6, 6), T.ones(4, 2, 3, 3), padding=-1),
    lambda T: T.nn.Conv2d(4, 2, 3, padding=-1)(T.ones(1, 4, 6, 6)),
    lambda T: T.nn.functional.conv2d(T.ones(1, 4, 6, 6), T.ones(2, 4, 0, 3)),
    lambda T: T.nn.functional.conv_transpose2d(T.ones(1, 4, 6, 6), T.ones(4, 2, 0, 0)),
    lambda T: T.nn.functional.conv2d(T.ones(1, 4, 6, 6), T.ones(0, 4, 3, 3)),  # (Conv2d(4, 0, 3))
    lambda T: T.nn.functional.conv2d(T.ones(1, 4, 6, 6), T.ones(0, 2, 3, 3), groups=2),
    lambda T: T.nn.functional.conv2d(T.ones(1, 4, 6, 6), T.ones(3, 2, 3, 3), groups=2),
]


@pytest.mark.parametrize("i", range(len(CONV_WEIGHT_ERRORS)))
def test_negative_padding_empty_kernels_and_filters_that_groups_do_not_divide(torch_oracle: Any, i: int) -> None:
    """Refused with PyTorch's RuntimeError and words, where NumPy would fail on a negative index or an
    empty stack, or a convolution would quietly compute with 0 or 3 filters in 2 groups."""
    l_exc, t_exc = raises_both(CONV_WEIGHT_ERRORS[i], torch_oracle)
    assert str(l_exc) == str(t_exc)
