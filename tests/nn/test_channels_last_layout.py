"""Layouts that PyTorch hands on: a convolution's output is channels-last when its input or weight
is, and a leaf's ``.grad`` has the leaf's own strides (PyTorch's gradient layout contract)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same

RNG = np.random.default_rng(33)


def _pair(T: Any, x_cl: bool, w_cl: bool) -> tuple:
    x = T.tensor(RNG_X).requires_grad_()
    w = T.tensor(RNG_W)
    if x_cl:
        x = x.detach().to(memory_format=T.channels_last).requires_grad_()
    if w_cl:
        w = w.to(memory_format=T.channels_last)
    return x, w.requires_grad_()


RNG_X = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
RNG_W = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)


@pytest.mark.parametrize("x_cl,w_cl", [(False, False), (False, True), (True, False), (True, True)])
def test_conv2d_output_and_grad_layouts(torch_oracle: Any, x_cl: bool, w_cl: bool) -> None:
    results = []
    for T in (lt, torch_oracle):
        x, w = _pair(T, x_cl, w_cl)
        y = T.nn.functional.conv2d(x, w, padding=1)
        y.backward(T.ones_like(y))
        results.append((y, x.grad, w.grad))
    for a, b in zip(*results):
        assert a.stride() == b.stride()
        assert_same(a, b, rtol=1e-4, atol=1e-5)


def test_conv_transpose_and_conv3d_keep_channels_last(torch_oracle: Any) -> None:
    for T in (lt, torch_oracle):
        x = T.ones(2, 3, 4, 4).to(memory_format=T.channels_last)
        assert T.nn.functional.conv_transpose2d(x, T.ones(3, 2, 3, 3)).is_contiguous(memory_format=T.channels_last)
        v = T.ones(2, 3, 4, 5, 6).to(memory_format=T.channels_last_3d)
        assert T.nn.functional.conv3d(v, T.ones(2, 3, 1, 1, 1)).is_contiguous(memory_format=T.channels_last_3d)
        assert T.nn.functional.conv2d(T.ones(1, 3, 4, 4), T.ones(2, 3, 1, 1)).is_contiguous()


def test_channels_last_model_step_matches(torch_oracle: Any) -> None:
    """The channels-last tutorial's pattern: model and input converted, one SGD step; the values
    are PyTorch's and every layout stays channels-last."""
    states = []
    for T in (lt, torch_oracle):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Conv2d(3, 4, 3), T.nn.ReLU(), T.nn.Conv2d(4, 2, 3))
        model = model.to(memory_format=T.channels_last)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        x = T.tensor(RNG_X).to(memory_format=T.channels_last)
        out = model(x)
        assert out.is_contiguous(memory_format=T.channels_last)
        out.square().mean().backward()
        assert model[0].weight.grad.is_contiguous(memory_format=T.channels_last)
        opt.step()
        states.append([p.detach() for p in model.parameters()])
    for a, b in zip(*states):
        assert a.stride() == b.stride()
        assert_same(a, b, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("make", ["transposed", "permuted", "strided_slice", "expanded_base"])
def test_leaf_grad_has_the_leaf_layout(torch_oracle: Any, make: str) -> None:
    """``.grad`` of a densely stored leaf has the leaf's strides; of any other leaf, row-major ones."""
    base = RNG.standard_normal((4, 6)).astype(np.float32)
    grads = []
    for T in (lt, torch_oracle):
        if make == "transposed":
            leaf = T.tensor(base).t().requires_grad_()
        elif make == "permuted":
            leaf = T.tensor(base.reshape(2, 3, 4)).permute(2, 0, 1).requires_grad_()
        elif make == "strided_slice":
            leaf = T.tensor(base)[:, ::2].detach().requires_grad_()
        else:
            leaf = T.tensor(base[:1]).expand(3, 6).detach().requires_grad_()
        (leaf * T.arange(float(leaf.shape[-1]))).sum().backward()
        grads.append(leaf.grad)
    assert grads[0].stride() == grads[1].stride()
    assert_same(grads[0], grads[1])


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "layer_norm", "masked_fill"])
def test_row_major_results_of_a_transposed_input(torch_oracle: Any, op: str) -> None:
    """softmax, log_softmax, layer_norm and masked_fill write a fresh row-major result whatever the
    input's layout, as PyTorch's kernels do; so a dropout after them draws its mask as in PyTorch."""
    base = RNG.standard_normal((5, 7)).astype(np.float32)
    outs = []
    for T in (lt, torch_oracle):
        x = T.tensor(base).t()
        F = T.nn.functional
        y = {"softmax": lambda: x.softmax(-1), "log_softmax": lambda: F.log_softmax(x, 0),
             "layer_norm": lambda: F.layer_norm(x, (5,)), "masked_fill": lambda: x.masked_fill(x > 0, 0.0)}[op]()
        T.manual_seed(3)
        outs.append((y, F.dropout(y, 0.5)))
    for a, b in zip(*outs):
        assert a.stride() == b.stride()
        assert_same(a, b, rtol=1e-5, atol=1e-6)


KEEP_LAYOUT = [  # (the op on x, a channels-last (2, 4, 6, 6) batch or a channels_last_3d (2, 4, 4, 6, 6) one)
    "F.max_pool2d(x, 2)", "F.max_pool2d(x, 3, 2, 1, return_indices=True)[1]", "F.avg_pool2d(x, 2)",
    "F.adaptive_avg_pool2d(x, (3, 2))", "F.adaptive_max_pool2d(x, 3)", "F.adaptive_max_pool2d(x, 3, True)[1]",
    "F.lp_pool2d(x, 2, 2)", "F.interpolate(x, scale_factor=2)", "F.interpolate(x, size=(4, 5), mode='bilinear')",
    "F.interpolate(x, size=(4, 5), mode='bicubic')", "F.interpolate(x, size=3, mode='area')",
    "F.interpolate(x, size=(4, 5), mode='bilinear', antialias=True)",
    "F.interpolate((x * 50 + 100).to(T.uint8), size=(4, 5), mode='bilinear')", "F.pad(x, (1, 1, 1, 1))",
    "F.pad(x, (0, 0, 0, 0, 1, 1))", "F.pad(x, (1, 2, 1, 0), mode='reflect')",
    "F.pad(x, (1, 1, 1, 1), mode='replicate')",
    "F.pad(x, (1, 1, 1, 1), mode='circular')", "F.hardtanh(x)", "F.relu6(x)", "F.hardswish(x)", "F.hardsigmoid(x)",
    "F.gelu(x)", "F.gelu(x, approximate='tanh')", "F.group_norm(x, 2, T.ones(4), T.zeros(4))", "F.group_norm(v, 2)",
    "F.max_pool3d(v, 2)", "F.avg_pool3d(v, 2)",
    "F.adaptive_avg_pool3d(v, 2)", "F.interpolate(v, scale_factor=2, mode='trilinear')", "F.pad(v, (1, 1, 1, 1, 1, 1))",
    "F.pad(v, (1, 1, 1, 1, 1, 1), mode='replicate')",
]


@pytest.mark.parametrize("expr", KEEP_LAYOUT)
def test_pools_resizes_pads_and_activations_keep_the_layout_pytorch_keeps(torch_oracle: Any, expr: str) -> None:
    """A channels-last model stays channels-last through its pools, resizes, pads and activations
    where PyTorch's kernels keep it (4-D; for 5-D input only max_pool3d, group_norm, resizing and
    non-circular padding do); the gradient of the input keeps its layout too."""
    base = RNG.standard_normal((2, 4, 4, 6, 6)).astype(np.float32)
    results = []
    for T in (lt, torch_oracle):
        x = T.tensor(base[:, :, 0]).to(memory_format=T.channels_last).requires_grad_()
        v = T.tensor(base).to(memory_format=T.channels_last_3d).requires_grad_()
        y = eval(expr, {"F": T.nn.functional, "T": T, "x": x, "v": v})
        grad = None
        if y.requires_grad:
            y.backward(T.ones_like(y))
            grad = (v if "(v" in expr else x).grad
        results.append((y, grad))
    (y, grad), (ty, tgrad) = results
    assert y.stride() == ty.stride()
    assert_same(y, ty, rtol=1e-5, atol=1e-5)
    if tgrad is not None:
        assert grad.stride() == tgrad.stride()
        assert_same(grad, tgrad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["hardtanh", "relu6", "hardswish", "hardsigmoid", "gelu"])
def test_activations_of_a_transposed_input_keep_its_strides(torch_oracle: Any, op: str) -> None:
    base = RNG.standard_normal((5, 7)).astype(np.float32)
    ys = [getattr(T.nn.functional, op)(T.tensor(base).t()) for T in (lt, torch_oracle)]
    assert ys[0].stride() == ys[1].stride()
    assert_same(ys[0], ys[1], rtol=1e-5, atol=1e-6)
