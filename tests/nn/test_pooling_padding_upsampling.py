"""1-D and adaptive pooling, padding layers and ``F.pad``'s modes, ``F.interpolate`` and the
``Upsample`` layers, pixel (un)shuffle and fold/unfold, against PyTorch: outputs,
``grad_fn`` names, gradients, module reprs, errors, and double backward."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import check_both, grads_both, raises_both

RNG = np.random.default_rng(0)
X3 = RNG.standard_normal((2, 3, 9)).astype(np.float32)
X4 = RNG.standard_normal((2, 3, 6, 7)).astype(np.float32)


def F(T: Any) -> Any:
    return T.nn.functional


# ---------------------------------------------------------------------------- 1-D and adaptive pooling
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, dilation=2),
                                dict(kernel_size=(3,), stride=(1,))])
def test_max_pool1d(torch_oracle: Any, kw: dict) -> None:
    grads_both(lambda T, x: F(T).max_pool1d(x, **kw), torch_oracle, X3)
    check_both(lambda T: F(T).max_pool1d(T.tensor(X3), return_indices=True, **kw), torch_oracle)
    grads_both(lambda T, x: T.nn.MaxPool1d(**kw)(x), torch_oracle, X3[0])  # unbatched (C, L)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=1, padding=1, count_include_pad=False)])
def test_avg_pool1d(torch_oracle: Any, kw: dict) -> None:
    grads_both(lambda T, x: F(T).avg_pool1d(x, **kw), torch_oracle, X3)
    grads_both(lambda T, x: T.nn.AvgPool1d(**kw)(x), torch_oracle, X3[0])


@pytest.mark.parametrize("size", [1, 3, 4, 9, (5,)])
def test_adaptive_pool1d(torch_oracle: Any, size: Any) -> None:
    grads_both(lambda T, x: F(T).adaptive_avg_pool1d(x, size), torch_oracle, X3)
    grads_both(lambda T, x: F(T).adaptive_max_pool1d(x, size), torch_oracle, X3)
    check_both(lambda T: T.nn.AdaptiveMaxPool1d(size, return_indices=True)(T.tensor(X3)), torch_oracle)


@pytest.mark.parametrize("size", [1, 3, (4, 5), (None, 2), (6, 7), (8, 9)])
def test_adaptive_max_pool2d(torch_oracle: Any, size: Any) -> None:
    grads_both(lambda T, x: F(T).adaptive_max_pool2d(x, size), torch_oracle, X4)
    check_both(lambda T: F(T).adaptive_max_pool2d(T.tensor(X4), size, return_indices=True)[1], torch_oracle)
    grads_both(lambda T, x: T.nn.AdaptiveMaxPool2d(size)(x), torch_oracle, X4[0])  # unbatched


def test_adaptive_max_pool_gives_overlapping_cells_all_their_gradient(torch_oracle: Any) -> None:
    ties = np.ones((1, 1, 5, 5), dtype=np.float32)  # every cell a tie: the first one wins
    grads_both(lambda T, x: F(T).adaptive_max_pool2d(x, 3), torch_oracle, ties)


# ---------------------------------------------------------------------------- padding
PAD_CASES = [
    ("ZeroPad1d", (2,)), ("ZeroPad1d", ((1, 3),)), ("ZeroPad2d", (1,)), ("ZeroPad2d", ((1, 2, 0, 3),)),
    ("ConstantPad1d", (2, 3.5)), ("ConstantPad2d", ((1, 0, 2, 1), -1.0)),
    ("ReflectionPad1d", (2,)), ("ReflectionPad1d", ((3, 1),)), ("ReflectionPad2d", (2,)),
    ("ReflectionPad2d", ((1, 2, 3, 0),)), ("ReplicationPad1d", ((4, 1),)), ("ReplicationPad2d", (3,)),
    ("ReplicationPad2d", ((0, 2, 1, 4),)), ("CircularPad1d", ((2, 3),)), ("CircularPad2d", (1,)),
    ("CircularPad2d", ((2, 0, 1, 3),)),
]


@pytest.mark.parametrize("name, args", PAD_CASES)
def test_padding_layers(torch_oracle: Any, name: str, args: tuple) -> None:
    x = X4 if name.endswith("2d") else X3
    # PyTorch pads with constants in one kernel (ConstantPadNdBackward0) and wraps around with
    # slice copies (CopySlices); learntorch with cat: the same numbers and gradients
    names_differ = name.startswith(("Zero", "Constant", "Circular"))
    grads_both(lambda T, x: getattr(T.nn, name)(*args)(x), torch_oracle, x, check_grad_fn=not names_differ)
    grads_both(lambda T, x: getattr(T.nn, name)(*args)(x), torch_oracle, x[0], check_grad_fn=not names_differ)
    assert repr(getattr(lt.nn, name)(*args)) == repr(getattr(torch_oracle.nn, name)(*args))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(-1, 2), (2, -2, 1, 1), (1, 2, 0, 1, 2, 1)])
def test_f_pad_modes_crop_and_three_dims(torch_oracle: Any, mode: str, pad: tuple) -> None:
    x = RNG.standard_normal((2, 3, 4, 5, 6)).astype(np.float32)[..., :]
    x = x if len(pad) == 6 else x[0, 0] if len(pad) == 2 else x[0]
    grads_both(lambda T, x: F(T).pad(x, pad, mode=mode), torch_oracle, x, check_grad_fn=mode != "circular")


def test_padding_errors(torch_oracle: Any) -> None:
    x3 = lambda T: T.ones(2, 3, 8)  # noqa: E731
    raises_both(lambda T: F(T).pad(x3(T), (8, 1), mode="reflect"), torch_oracle,
                match="Padding size should be less than the corresponding input dimension")
    raises_both(lambda T: F(T).pad(T.ones(2, 3, 4, 4), (1, 1), mode="reflect"), torch_oracle,
                match="Padding size 2 is not supported for 4D input tensor")
    raises_both(lambda T: F(T).pad(x3(T), (9, 1), mode="circular"), torch_oracle, match="wrapping around")
    raises_both(lambda T: F(T).pad(x3(T), (1, 1), mode="foo"), torch_oracle, match="Unrecognised padding mode foo")
    raises_both(lambda T: F(T).pad(x3(T), (1, 1), mode="reflect", value=1.0), torch_oracle,
                match="doesn't take in value argument")
    raises_both(lambda T: T.nn.ReflectionPad2d(1)(T.ones(4)), torch_oracle)
    for shape, amounts in [((1, 4, 6, 6), (6, 6, 6, 6)), ((1, 1, 3, 3, 3), (3,) * 6),
                           ((1, 1, 3, 3, 5), (1, 1, 3, 3, 3, 3))]:
        # (the width is checked first, then the height, then the depth: the message names the first too small)
        l_exc, t_exc = raises_both(lambda T: F(T).pad(T.ones(*shape), amounts, mode="reflect"), torch_oracle)
        assert str(l_exc) == str(t_exc)


# ---------------------------------------------------------------------------- interpolate and Upsample
INTERP_3D = [dict(scale_factor=2), dict(size=13), dict(size=4), dict(scale_factor=1.7), dict(scale_factor=0.6),
             dict(scale_factor=2.5, recompute_scale_factor=True), dict(size=9)]
INTERP_4D = [dict(scale_factor=2), dict(size=(11, 5)), dict(scale_factor=(1.5, 0.5)), dict(size=3),
             dict(scale_factor=3.2)]


@pytest.mark.parametrize("kw", INTERP_3D)
@pytest.mark.parametrize("mode, align", [("nearest", None), ("nearest-exact", None), ("linear", False),
                                         ("linear", True)])
def test_interpolate_3d(torch_oracle: Any, kw: dict, mode: str, align: Any) -> None:
    grads_both(lambda T, x: F(T).interpolate(x, mode=mode, align_corners=align, **kw), torch_oracle, X3)


@pytest.mark.parametrize("kw", INTERP_4D)
@pytest.mark.parametrize("mode, align", [("nearest", None), ("nearest-exact", None), ("bilinear", False),
                                         ("bilinear", True), ("bicubic", False), ("bicubic", True)])
def test_interpolate_4d(torch_oracle: Any, kw: dict, mode: str, align: Any) -> None:
    # (bicubic's weights, ((a·t - 5a)·t + 8a)·t - 4a, cancel: PyTorch's compiled kernel rounds them otherwise
    # in the last bits, which the cancellation scales up to about 1e-6 in float32)
    tol = dict(rtol=1e-5, atol=1e-5) if mode == "bicubic" else {}
    grads_both(lambda T, x: F(T).interpolate(x, mode=mode, align_corners=align, **kw), torch_oracle, X4, **tol)


def test_interpolate_5d_and_area(torch_oracle: Any) -> None:
    x5 = RNG.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    grads_both(lambda T, x: F(T).interpolate(x, scale_factor=2), torch_oracle, x5)
    grads_both(lambda T, x: F(T).interpolate(x, size=(4, 3, 7), mode="trilinear"), torch_oracle, x5)
    # 'area' is adaptive average pooling (PyTorch's kernel has another grad_fn name)
    grads_both(lambda T, x: F(T).interpolate(x, size=(4, 3), mode="area"), torch_oracle, X4, check_grad_fn=False)
    grads_both(lambda T, x: F(T).interpolate(x, size=4, mode="area"), torch_oracle, X3)


def test_interpolate_float64(torch_oracle: Any) -> None:
    grads_both(lambda T, x: F(T).interpolate(x, scale_factor=1.3, mode="bilinear"), torch_oracle,
               X4.astype(np.float64), rtol=1e-12, atol=1e-12)
    grads_both(lambda T, x: F(T).interpolate(x, size=(7, 3), mode="bicubic"), torch_oracle,
               X4.astype(np.float64), rtol=1e-12, atol=1e-12)


# (in_size, size or scale_factor): downsampling (where antialias widens the filter), upsampling, mixed, one
# dimension unchanged (a uint8 pass PyTorch skips).  (An output width of 1 is left out: there PyTorch's float
# and generic uint8 antialias kernels repeat the first output row down the column, a bug of theirs.)
RESIZES = [((13, 9), dict(size=(4, 3))), ((6, 6), dict(scale_factor=0.5)), ((10, 11), dict(scale_factor=(0.3, 1.7))),
           ((5, 7), dict(size=(8, 4))), ((7, 5), dict(size=(7, 9))), ((16, 16), dict(size=5)),
           ((3, 4), dict(scale_factor=2.5))]


@pytest.mark.parametrize("hw, kw", RESIZES)
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_interpolate_uint8_images(torch_oracle: Any, hw: tuple, kw: dict, mode: str) -> None:
    # uint8 images (what a data pipeline resizes) are computed in fixed point, one pass per dimension, each
    # rounded back to uint8: the same integers as PyTorch's, for 3 channels (its vectorised kernel) and 5 (its
    # generic one), both layouts, with and without antialias and align_corners
    rng = np.random.default_rng(sum(hw))
    for channels in (3, 5):
        img = rng.integers(0, 256, (2, channels, *hw)).astype(np.uint8)
        for align in (False, True):
            for antialias in (False, True):
                def resize(T: Any, last: bool = False) -> Any:
                    x = T.from_numpy(img.copy())
                    x = x.contiguous(memory_format=T.channels_last) if last else x
                    return F(T).interpolate(x, mode=mode, align_corners=align, antialias=antialias, **kw)
                check_both(resize, torch_oracle)
        check_both(lambda T: resize(T, last=True), torch_oracle)


@pytest.mark.parametrize("hw, kw", RESIZES)
@pytest.mark.parametrize("mode, align", [("bilinear", False), ("bilinear", True), ("bicubic", False),
                                         ("bicubic", True)])
def test_interpolate_antialias(torch_oracle: Any, hw: tuple, kw: dict, mode: str, align: bool) -> None:
    # antialias=True (torchvision's Resize default): downsampling averages every input cell under the
    # stretched filter; its grad_fn is UpsampleBilinear2DAaBackward0 / UpsampleBicubic2DAaBackward0
    x = np.random.default_rng(sum(hw)).standard_normal((2, 3, *hw)).astype(np.float32)
    grads_both(lambda T, x: F(T).interpolate(x, mode=mode, align_corners=align, antialias=True, **kw),
               torch_oracle, x, rtol=1e-5, atol=1e-5)
    check_both(lambda T: F(T).interpolate(T.from_numpy(x.astype(np.float64)), mode=mode, align_corners=align,
                                          antialias=True, **kw), torch_oracle, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_interpolate_integer_images_name_pytorchs_kernel(torch_oracle: Any, mode: str, dtype: str) -> None:
    excs = raises_both(lambda T: F(T).interpolate(T.ones(1, 3, 4, 4, dtype=getattr(T, dtype)), size=2, mode=mode),
                       torch_oracle)
    assert str(excs[0]) == str(excs[1])


def test_interpolate_antialias_dtype_errors(torch_oracle: Any) -> None:
    for dtype in ("int64", "float16", "bfloat16"):
        raises_both(lambda T: F(T).interpolate(T.ones(1, 1, 4, 4, dtype=getattr(T, dtype)), size=2,
                                               mode="bilinear", antialias=True), torch_oracle,
                    match="\"compute_index_ranges_weights\" not implemented for")


UPSAMPLE_CASES = [
    ("Upsample", dict(scale_factor=2)), ("Upsample", dict(size=(4, 5))), ("Upsample", dict(size=9)),
    ("Upsample", dict(scale_factor=(2, 3), mode="nearest")),
    ("Upsample", dict(scale_factor=1.5, mode="bilinear", align_corners=True)),
    ("Upsample", dict(size=5, mode="bilinear")), ("UpsamplingNearest2d", dict(scale_factor=2)),
    ("UpsamplingBilinear2d", dict(size=(9, 4))), ("UpsamplingBilinear2d", dict(scale_factor=2)),
    ("Upsample", dict(scale_factor=2, mode="bicubic")), ("Upsample", dict(size=(3, 7), mode="bicubic",
                                                                           align_corners=True)),
]


@pytest.mark.parametrize("name, kw", UPSAMPLE_CASES)
def test_upsample_layers(torch_oracle: Any, name: str, kw: dict) -> None:
    tol = dict(rtol=1e-5, atol=1e-5) if kw.get("mode") == "bicubic" else {}  # (see test_interpolate_4d)
    grads_both(lambda T, x: getattr(T.nn, name)(**kw)(x), torch_oracle, X4, **tol)
    assert repr(getattr(lt.nn, name)(**kw)) == repr(getattr(torch_oracle.nn, name)(**kw))


def test_interpolate_errors(torch_oracle: Any) -> None:
    x = lambda T: T.ones(2, 3, 8)  # noqa: E731
    raises_both(lambda T: F(T).interpolate(x(T)), torch_oracle, match="either size or scale_factor")
    raises_both(lambda T: F(T).interpolate(x(T), size=3, scale_factor=2), torch_oracle, match="only one of")
    raises_both(lambda T: F(T).interpolate(x(T), size=3, mode="bilinear"), torch_oracle,
                match="Got 3D input, but bilinear mode needs 4D input")
    raises_both(lambda T: F(T).interpolate(T.ones(1, 1, 4, 4), size=3, mode="linear"), torch_oracle,
                match="but linear mode needs 3D input")
    raises_both(lambda T: F(T).interpolate(x(T), size=3, mode="bicubic"), torch_oracle,
                match=r"Input Error: Only 3D, 4D and 5D input Tensors supported \(got 3D\)")
    raises_both(lambda T: F(T).interpolate(x(T), size=3, mode="foo"), torch_oracle, match="Input Error")
    raises_both(lambda T: F(T).interpolate(T.ones(3, 4), size=3), torch_oracle, match="Input Error")
    raises_both(lambda T: F(T).interpolate(x(T), size=3, align_corners=True), torch_oracle,
                match="align_corners option can only be set")
    raises_both(lambda T: F(T).interpolate(x(T), size=(3, 3)), torch_oracle,
                match="same number of spatial dimensions")
    raises_both(lambda T: F(T).interpolate(x(T), scale_factor=(3, 3)), torch_oracle,
                match="same number of spatial dimensions")


# ---------------------------------------------------------------------------- pixel shuffle, fold/unfold
def test_pixel_shuffle_and_unshuffle(torch_oracle: Any) -> None:
    x = RNG.standard_normal((2, 8, 3, 2)).astype(np.float32)
    grads_both(lambda T, x: F(T).pixel_shuffle(x, 2), torch_oracle, x)
    grads_both(lambda T, x: T.nn.PixelShuffle(2)(x), torch_oracle, x[0])  # (C, H, W)
    grads_both(lambda T, x: F(T).pixel_unshuffle(x, 3), torch_oracle, RNG.standard_normal((2, 2, 6, 3)))
    grads_both(lambda T, x: T.nn.PixelUnshuffle(2)(x), torch_oracle, RNG.standard_normal((2, 1, 2, 4, 6)))
    check_both(lambda T: F(T).pixel_unshuffle(F(T).pixel_shuffle(T.tensor(x), 2), 2), torch_oracle)
    assert repr(lt.nn.PixelShuffle(3)) == repr(torch_oracle.nn.PixelShuffle(3))
    assert repr(lt.nn.PixelUnshuffle(2)) == repr(torch_oracle.nn.PixelUnshuffle(2))
    raises_both(lambda T: F(T).pixel_shuffle(T.ones(3, 4), 2), torch_oracle, match="at least 3 dimensions")
    raises_both(lambda T: F(T).pixel_shuffle(T.ones(1, 3, 4, 4), 2), torch_oracle, match="divisible by the square")
    raises_both(lambda T: F(T).pixel_unshuffle(T.ones(1, 3, 5, 4), 2), torch_oracle,
                match="height to be divisible")
    raises_both(lambda T: F(T).pixel_unshuffle(T.ones(1, 3, 4, 5), 2), torch_oracle, match="width to be divisible")


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=2, padding=1, stride=2),
                                dict(kernel_size=3, stride=(1, 2), padding=(1, 0))])
def test_unfold_and_fold(torch_oracle: Any, kw: dict) -> None:
    grads_both(lambda T, x: F(T).unfold(x, **kw), torch_oracle, X4)
    grads_both(lambda T, x: T.nn.Unfold(**kw)(x), torch_oracle, X4[0])
    cols = F(lt).unfold(lt.tensor(X4), **kw)
    grads_both(lambda T, c: F(T).fold(c, (6, 7), **kw), torch_oracle, cols.numpy())
    grads_both(lambda T, c: T.nn.Fold((6, 7), **kw)(c), torch_oracle, cols.numpy()[0])
    assert repr(lt.nn.Unfold(**kw)) == repr(torch_oracle.nn.Unfold(**kw))
    assert repr(lt.nn.Fold(5, **kw)) == repr(torch_oracle.nn.Fold(5, **kw))


def test_fold_unfold_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: F(T).unfold(T.ones(1, 3, 8, 8), 9), torch_oracle, match="must be at least one")
    raises_both(lambda T: F(T).unfold(T.ones(3, 4), 2), torch_oracle)
    raises_both(lambda T: F(T).fold(T.ones(1, 12, 5), (3, 3), 2), torch_oracle,
                match="match the calculated number of sliding blocks")
    raises_both(lambda T: F(T).fold(T.ones(1, 10, 4), (3, 3), 2), torch_oracle,
                match="divisible by the product of kernel_size")
    raises_both(lambda T: F(T).fold(T.ones(1, 1, 12, 4), (3, 3), 2), torch_oracle, match="Expected 2D or 3D")


# ---------------------------------------------------------------------------- reprs and errors of the pools
POOL_MODULES = [("MaxPool1d", (3,)), ("MaxPool1d", (3, 2, 1, 2, True, True)), ("AvgPool1d", (3,)),
                ("AvgPool1d", (3, 2, 1, True, False)), ("AdaptiveAvgPool1d", (3,)), ("AdaptiveMaxPool1d", (3, True)),
                ("AdaptiveMaxPool2d", ((3, None),)), ("AdaptiveMaxPool2d", (3,))]


@pytest.mark.parametrize("name, args", POOL_MODULES)
def test_pool_reprs(torch_oracle: Any, name: str, args: tuple) -> None:
    assert repr(getattr(lt.nn, name)(*args)) == repr(getattr(torch_oracle.nn, name)(*args))


def test_pool_errors(torch_oracle: Any) -> None:
    x4 = lambda T: T.ones(2, 3, 8, 8)  # noqa: E731
    raises_both(lambda T: F(T).max_pool1d(x4(T), 2), torch_oracle, match="Expected 2D or 3D")
    raises_both(lambda T: F(T).max_pool1d(T.ones(2, 3, 8), 2, padding=2), torch_oracle,
                match="padding should be at most half of kernel size")
    raises_both(lambda T: F(T).max_pool1d(T.ones(2, 3, 8), 10), torch_oracle, match="Invalid computed output size")
    raises_both(lambda T: F(T).avg_pool1d(x4(T), 2), torch_oracle, match="Expected 2 to 3 dimensions")
    raises_both(lambda T: F(T).avg_pool1d(T.ones(2, 3, 8), 2, padding=2), torch_oracle,
                match="pad should be at most half")
    raises_both(lambda T: F(T).adaptive_avg_pool1d(T.ones(2, 3, 8), (2, 2)), torch_oracle,
                match="should contain one int")
    raises_both(lambda T: F(T).adaptive_max_pool1d(x4(T), 2), torch_oracle, match="Expected 2 to 3 dimensions")
    raises_both(lambda T: F(T).adaptive_max_pool2d(T.ones(3, 4), 2), torch_oracle, match="Expected 3D or 4D")


# ---------------------------------------------------------------------------- double backward
@pytest.mark.parametrize("fn", [
    lambda x: lt.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear"),
    lambda x: lt.nn.functional.interpolate(x, size=(3, 5)),
    lambda x: lt.nn.functional.interpolate(x, size=(5, 3), mode="bicubic"),
    lambda x: lt.nn.functional.pad(x, (1, 2, 2, 0), mode="reflect"),
    lambda x: lt.nn.functional.pad(x, (1, 2, 2, 1), mode="replicate"),
    lambda x: lt.nn.functional.adaptive_max_pool2d(x, 2),
    lambda x: lt.nn.functional.max_pool1d(x.flatten(2), 3),
    lambda x: lt.nn.functional.pixel_shuffle(x, 2),
    lambda x: lt.nn.functional.fold(lt.nn.functional.unfold(x, 2), (3, 4), 2),
], ids=["bilinear", "nearest", "bicubic", "reflect", "replicate", "adaptive_max", "max1d", "pixel_shuffle", "fold"])
def test_double_backward(fn: Any) -> None:
    x = lt.tensor(RNG.standard_normal((1, 4, 3, 4)), requires_grad=True)  # float64
    assert lt.autograd.gradcheck(fn, (x,))
    assert lt.autograd.gradgradcheck(fn, (x,))


# ---------------------------------------------------------------------------- on the CUDA stand-in
def test_resampling_runs_on_a_logical_cuda_device(logical: Any) -> None:
    """The index maps are written against the array API: the same numbers and gradients
    on learntorch's CUDA stand-in as on the CPU."""
    logical(1)
    ops = [lambda x: lt.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear"),
           lambda x: lt.nn.functional.interpolate(x, scale_factor=1.5, mode="bicubic"),
           lambda x: lt.nn.functional.interpolate(x, size=(3, 7)),
           lambda x: lt.nn.functional.pad(x, (1, 2, 2, 1), mode="reflect"),
           lambda x: lt.nn.functional.pad(x, (1, 2, 2, 1), mode="replicate"),
           lambda x: lt.nn.functional.pixel_shuffle(x, 2),
           lambda x: lt.nn.functional.interpolate(x, size=(4, 3), mode="bilinear", antialias=True)]
    for fn in ops:
        results = []
        for device in ("cpu", "cuda"):
            x = lt.tensor(X4[:, :, :4, :6].reshape(1, 4, 6, 6), requires_grad=True)
            y = fn(x.to(device))
            (y * y).sum().backward()
            assert str(y.device).startswith(device)
            results.append((y.detach().cpu().numpy(), x.grad.numpy()))
        np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6, atol=1e-6)
