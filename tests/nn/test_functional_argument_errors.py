"""``torch.nn.functional`` (and the nn-like ``torch.*`` functions) given a bad argument raise
the exception type PyTorch raises, and still take what PyTorch takes:

* a float where a size is needed (``kernel_size=k / 2``, ``padding=1.5``, a float in
  ``normalized_shape`` or ``size``) is PyTorch's TypeError, where ``int()`` would truncate it;
  one int for ``normalized_shape`` is a TypeError too (``F.layer_norm(x, 4)``);
* ``interpolate``'s checks come in PyTorch's order: the sizes (ValueError) before the input's
  rank (NotImplementedError), an output size of 0 is a RuntimeError, an integer input a
  NotImplementedError;
* losses, activations and dropouts given integers fail as PyTorch's kernels do;
* a convolution's bias of the wrong shape, a stride of 0, the window options of ``unfold`` /
  ``fold`` are PyTorch's RuntimeError; ``gelu``'s ``approximate`` is keyword-only.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
import learntorch.nn.functional as LF

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - the differential tests say why they skip
    torch = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")

_RNG = np.random.default_rng(0)
_ARRAYS = {
    "x": _RNG.standard_normal((3, 4)).astype(np.float32),
    "x3": _RNG.standard_normal((2, 3, 5)).astype(np.float32),
    "x4": _RNG.standard_normal((2, 3, 4, 4)).astype(np.float32),
    "x5": _RNG.standard_normal((1, 2, 3, 4, 4)).astype(np.float32),
    "xi": np.arange(12).reshape(3, 4),
    "th": _RNG.standard_normal((2, 2, 3)).astype(np.float32),
    "w": _RNG.standard_normal((2, 3, 3, 3)).astype(np.float32),
    "cols": _RNG.standard_normal((1, 12, 9)).astype(np.float32),
    "tgt": np.array([0, 1, 3]),
}


def _outcome(lib, functional, expr: str) -> object:
    """``(shape, dtype)`` of what ``expr`` gives (the first tensor of a tuple), or its error's type."""
    env = {"torch": lib, "F": functional, **{k: lib.tensor(v) for k, v in _ARRAYS.items()}}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = eval(expr, env)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__
    if isinstance(result, tuple):
        result = result[0]
    return tuple(result.shape), str(result.dtype).split(".")[-1]


# each a realistic slip, and next to it the right call (which must keep working)
CASES = [
    # normalized_shape: a list or tuple of ints, never one int
    "F.layer_norm(x, 4)", "F.layer_norm(x, 3)", "F.layer_norm(x, (4.0,))", "F.layer_norm(x, [4])",
    "F.layer_norm(x, torch.Size([4]))", "torch.layer_norm(x, 4)", "torch.layer_norm(x, (4,))",
    "F.rms_norm(x, 4)", "F.rms_norm(x, (4.0,))", "F.rms_norm(x, [4])", "torch.rms_norm(x, 4)",
    # pools: float kernel sizes, strides, paddings, output sizes
    "F.max_pool2d(x4, 2.0)", "F.max_pool2d(x4, 2, 1.5)", "F.max_pool2d(x4, 2, padding=0.5)",
    "F.max_pool2d(x4, (2, 2.0))", "F.max_pool2d(x4, 2, dilation=1.0)", "F.max_pool2d(x4, 2)",
    "F.avg_pool2d(x4, 2.0)", "F.avg_pool2d(x4, 2, divisor_override=1.5)", "F.avg_pool2d(x4, 2, divisor_override=2)",
    "F.avg_pool1d(x3, 2.0)", "F.avg_pool1d(x3, 2, 1.0)", "F.max_pool1d(x3, 2.0)", "F.max_pool1d(x3, 2)",
    "F.max_pool3d(x5, 2.0)", "F.avg_pool3d(x5, 2.0)", "F.max_pool2d_with_indices(x4, 2.0)",
    "F.adaptive_avg_pool1d(x3, 2.0)", "F.adaptive_max_pool1d(x3, 2.0)", "F.adaptive_avg_pool2d(x4, 2.0)",
    "F.adaptive_avg_pool2d(x4, (2, 2.0))", "F.adaptive_max_pool3d(x5, 2.0)", "F.adaptive_avg_pool2d(x4, (2, None))",
    "F.lp_pool2d(x4, 2, 2.0)", "torch.max_pool2d(x4, 2.0)", "torch.avg_pool1d(x3, 2.0)",
    "torch.adaptive_avg_pool1d(x3, 2.0)", "torch.adaptive_max_pool1d(x3, 2.0)",
    # a pool given too few dimensions; global average pooling of a matrix
    "F.avg_pool2d(x, 1)", "F.adaptive_avg_pool2d(x, 1)", "F.adaptive_avg_pool2d(x[0], 1)",
    "F.adaptive_avg_pool3d(x, 1)", "F.adaptive_avg_pool1d(xi.reshape(1, 3, 4), 1)",
    # max_pool1d checks its options before the dtype (without indices: its own kernel's words)
    "F.max_pool1d(x3.long(), 0)", "F.max_pool1d(x3.long(), 2, 0)", "F.max_pool1d(x3.long(), 2, padding=5)",
    "F.max_pool1d(x3.long(), 2)", "F.max_pool1d(x3.bool(), 0, return_indices=True)",
    "F.max_pool1d(x3.long(), 2, return_indices=True)", "torch.max_pool1d(x3.long(), 0)",
    # un-pooling, pixel shuffling, padding, affine grids
    "F.max_unpool2d(*F.max_pool2d(x4, 2, return_indices=True), 2.0)",
    "F.max_unpool2d(*F.max_pool2d(x4, 2, return_indices=True), 2, output_size=(4, 4.0))",
    "F.max_unpool2d(*F.max_pool2d(x4, 2, return_indices=True), 2, output_size=(4, 4))",
    "F.pixel_unshuffle(x4, 2.0)", "F.pixel_shuffle(x4.reshape(2, 12, 2, 2), 2.0)", "F.pixel_unshuffle(x4, 2)",
    "F.pad(x, (1, 1.5))", "F.pad(x, (1, 1))", "F.affine_grid(th, (2, 3, 4, 4.0), align_corners=False)",
    "F.affine_grid(th, (2, 3, 4, 4), align_corners=False)",
    # convolutions: float options, a bias of the wrong shape, a stride or dilation of 0, a weight of the wrong rank
    "F.conv2d(x4, w, padding=1.5)", "F.conv2d(x4, w, stride=1.0)", "F.conv1d(x3, w[:, :, 0], padding=1.5)",
    "F.conv2d(x4, w, padding=1)", "F.conv2d(x4, w, torch.zeros(3))", "F.conv2d(x4, w, torch.zeros(2, 1))",
    "F.conv2d(x4, w, torch.zeros(2))", "F.conv1d(x3, w[:, :, 0], torch.zeros(3))",
    "F.conv_transpose2d(x4, w.transpose(0, 1), torch.zeros(3))", "F.conv2d(x4, w, stride=0)",
    "F.conv2d(x4, w, dilation=0)", "F.conv1d(x3, w[:, :, 0], stride=0)",
    "F.conv3d(x5, torch.ones(4, 2, 3, 3, 3), stride=0)",
    "F.conv_transpose2d(x4, w.transpose(0, 1), stride=0)", "F.conv2d(x4, w[:, :, 0])", "F.conv2d(x4, w[:, 0])",
    # unfold and fold: window options, lengths and dtypes
    "F.unfold(x4, 2.0)", "F.unfold(x4, 2, padding=1.0)", "F.unfold(x4, 0)", "F.unfold(x4, 2, stride=0)",
    "F.unfold(x4, 2, dilation=0)", "F.unfold(x4, 2, padding=-1)", "F.unfold(x4, (2, 2, 2))", "F.unfold(x4.long(), 2)",
    "F.unfold(x4.bool(), 2)", "F.unfold(x4, 2)", "F.fold(cols, 4.0, 2)", "F.fold(cols, (4, 4, 4), 2)",
    "F.fold(cols, (4, 4), 0)", "F.fold(cols, (4, 4), 2, stride=0)", "F.fold(cols.long(), (4, 4), 2)",
    "F.fold(cols, (4, 4), 2)",
    # interpolate and the upsample functions
    "F.interpolate(x4, 0)", "F.interpolate(x3, 0)", "F.interpolate(x5, 0)", "F.interpolate(x4, scale_factor=0.1)",
    "F.interpolate(x4, 2.5)", "F.interpolate(x4, size=(8, 8.0))", "F.interpolate(x4, size=8, scale_factor=2)",
    "F.interpolate(x4)", "F.interpolate(x)", "F.interpolate(x, 2.5)", "F.interpolate(x3, 2.5, mode='bilinear')",
    "F.interpolate(x4.long(), 8)", "F.interpolate(x3.long(), 8)", "F.interpolate(x4.bool(), 8)",
    "F.interpolate(x4.to(torch.uint8), 8)", "F.interpolate(x3.to(torch.uint8), 8, mode='linear')",
    "F.interpolate(x4.long(), 8, mode='bicubic')", "F.interpolate(x4, size=0, mode='area')",
    "F.interpolate(x4, size=8, recompute_scale_factor=True)", "F.interpolate(x4, size=8, antialias=True)",
    "F.interpolate(x4, 8)", "F.interpolate(x4, scale_factor=2, mode='bilinear')", "F.upsample(x4, 0)",
    "F.upsample_nearest(x4, 2.5)", "F.upsample_bilinear(x4, 0)", "F.upsample_bilinear(x4, 8)",
    # activations
    "F.gelu(x, 'tanh')", "F.gelu(x, approximate=None)", "F.gelu(x, approximate='bad')", "F.gelu(x, approximate='tanh')",
    "F.celu(x, alpha=0)", "torch.celu(x, 0.5)",
    # dropouts: p outside [0, 1] (a ValueError in F, a RuntimeError in the native torch.*), integer inputs
    "F.dropout(x, 1.5)", "F.dropout(x, -0.1)", "F.dropout2d(x4, 1.5)", "F.dropout2d(x4.long())",
    "F.dropout2d(x4.bool())", "F.dropout2d(x4.long(), training=False)", "F.dropout2d(x4.long(), 1.0)",
    "F.dropout2d(x4, 1.0)", "F.alpha_dropout(x, 1.5, True)", "torch.dropout(x, 1.5, True)",
    "F.dropout(3, 0.5, False)", "F.dropout([1.0], 0.0)", "torch.nn.Dropout(0.1).eval()(2.5)",
    "torch.dropout_(x.clone(), 1.5, True)", "torch.alpha_dropout(x, 1.5, True)",
    "torch.feature_alpha_dropout(x4, 1.5, True)", "torch.feature_alpha_dropout_(x4.clone(), -1.0, True)",
    "torch.dropout(x, 0.5, False)",
    # embedding, norms
    "F.embedding(tgt, x, padding_idx=1.0)", "F.embedding(tgt, x, padding_idx=1)", "F.embedding(tgt.float(), x)",
    "F.group_norm(x4.long(), 1)", "F.group_norm(x4.bool(), 1)", "F.group_norm(x4, 0)", "F.group_norm(x4, 2)",
    "F.group_norm(x4, 3)", "F.group_norm(x4, -1)", "torch.group_norm(x4, 0)",
    "torch.group_norm(x[0], 1)",
    # losses
    "F.huber_loss(x, x, delta=0)", "F.huber_loss(x, x, delta=-1)", "F.huber_loss(x, x, delta=0.5)",
    "F.hinge_embedding_loss(xi, xi)", "F.hinge_embedding_loss(x, xi)", "F.soft_margin_loss(xi, xi)",
    "F.soft_margin_loss(xi, x)", "F.soft_margin_loss(x, xi)", "F.multi_margin_loss(x, tgt, p=1.5)",
    "F.multi_margin_loss(x, tgt, p=2.0)", "F.multi_margin_loss(x, tgt, p=3)", "F.multi_margin_loss(xi, tgt)",
    "F.multi_margin_loss(x, tgt)", "F.multi_margin_loss(x, tgt.int())",
    "F.multilabel_margin_loss(xi.bool(), xi.int())", "F.multilabel_margin_loss(x, xi.int())",
    "F.multilabel_margin_loss(x, (xi % 4).int())", "F.mse_loss(x, xi)", "F.l1_loss(xi, xi)", "F.kl_div(x, x, reduction='batchmean')",
    # a tensor given as a flag: PyTorch's Python code tests it (``if inplace:``) and fails with the truth-value
    # RuntimeError, except where the flag goes on to its parser (dropout's ``training``: TypeError)
    "F.relu(x, x)", "F.hardtanh(x, x)", "F.leaky_relu(x, 0.1, x)", "F.mse_loss(x, x, x)", "F.dropout(x, x)",
    "F.dropout(x, 0.5, x)", "F.dropout(x, 0.5, True, x)", "F.elu(x, 1.0, x)", "F.relu(x, True)",
]


@needs_torch
@pytest.mark.parametrize("expr", CASES)
def test_a_bad_argument_is_refused_with_pytorchs_type_and_a_good_one_taken(expr: str) -> None:
    assert _outcome(lt, LF, expr) == _outcome(torch, TF, expr), expr


# ---------------------------------------------------------------------------- learntorch alone: the messages
def test_an_int_normalized_shape_is_a_type_error_naming_the_argument() -> None:
    x = lt.ones(3, 4)
    with pytest.raises(TypeError, match=r"layer_norm\(\): argument 'normalized_shape' \(position 2\) must be tuple "
                                        r"of ints, not int"):
        LF.layer_norm(x, 4)
    with pytest.raises(TypeError, match="found element of type float at pos 0"):
        LF.rms_norm(x, (4.0,))
    assert LF.layer_norm(x, (4,)).shape == (3, 4) and lt.nn.LayerNorm(4)(x).shape == (3, 4)


@pytest.mark.parametrize("call, message", [
    (lambda x: LF.max_pool2d(x, 2.0), r"max_pool2d\(\): argument 'kernel_size' \(position 2\) must be tuple of ints, "
                                      "not float"),
    (lambda x: LF.avg_pool2d(x, 2, 1.5), r"avg_pool2d\(\): argument 'stride' \(position 3\) must be tuple of ints"),
    (lambda x: LF.unfold(x, 2, 1, 1.0), r"unfold\(\): argument 'padding' \(position 4\) must be tuple of ints"),
    (lambda x: LF.pixel_unshuffle(x, 2.0), r"argument 'downscale_factor' \(position 2\) must be int, not float"),
    (lambda x: LF.interpolate(x, size=(8, 8.0)), "expected size to be one of int or Tuple"),
    (lambda x: LF.gelu(x, "tanh"), "positional argument"),
])
def test_a_float_size_is_a_type_error_that_says_which_argument(call, message) -> None:
    with pytest.raises(TypeError, match=message):
        call(lt.ones(2, 3, 4, 4))


def test_interpolate_checks_the_sizes_before_the_input_and_refuses_an_empty_output() -> None:
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        LF.interpolate(lt.ones(3, 4))
    with pytest.raises(RuntimeError, match=r"but got input \(H: 4, W: 4\) output \(H: 0, W: 0\)"):
        LF.interpolate(lt.ones(1, 1, 4, 4), 0)
    with pytest.raises(NotImplementedError, match="\"upsample_nearest2d_channels_last\" not implemented for 'Long'"):
        LF.interpolate(lt.ones(1, 1, 4, 4, dtype=lt.int64), 8)


def test_convolution_options_are_checked_before_the_arithmetic() -> None:
    x, w = lt.ones(1, 3, 5, 5), lt.ones(2, 3, 3, 3)
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 2 elements, but got bias of size "
                                           r"\[3\] instead"):
        LF.conv2d(x, w, lt.zeros(3))
    with pytest.raises(RuntimeError, match="non-positive stride is not supported"):
        LF.conv2d(x, w, stride=0)
    with pytest.raises(RuntimeError, match="stride should be greater than zero, but got stride_height: 0"):
        LF.unfold(x, 2, stride=0)


def test_the_native_dropouts_raise_a_runtime_error_for_a_bad_p() -> None:
    x = lt.ones(3, 4)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        lt.dropout(x, 1.5, True)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        LF.dropout(x, 1.5)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        LF.dropout2d(lt.ones(2, 3, 4, 4, dtype=lt.int64))
