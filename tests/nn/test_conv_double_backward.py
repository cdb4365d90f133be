"""Second derivatives of ``conv1d``, ``conv_transpose1d`` and ``conv_transpose2d`` against PyTorch.

A gradient taken with ``create_graph=True`` must itself be differentiable (a WGAN-GP
gradient penalty, a Hessian-vector product): its ``grad_fn`` is PyTorch's
``ConvolutionBackwardBackward0``, ``gradgradcheck`` passes in float64, and the
second-order gradients equal PyTorch's.  (``conv3d``: ``test_conv3d_lazy.py``.)
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, leaves

RNG = np.random.default_rng(2024)

# name, function of (F, x, w, b), x shape, w shape
CASES = [
    ("conv1d", lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2), (2, 3, 9), (4, 3, 3)),
    ("conv1d_groups", lambda F, x, w, b: F.conv1d(x, w, b, padding=1, groups=2), (1, 4, 6), (6, 2, 3)),
    ("conv_transpose1d", lambda F, x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1),
     (2, 3, 5), (3, 4, 3)),
    ("conv_transpose2d", lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, groups=2),
     (1, 4, 3, 3), (4, 2, 3, 3)),
    # output_padding ≥ stride (allowed since it is < dilation): the adjoint convolution is cropped
    ("conv_transpose2d_dilated", lambda F, x, w, b: F.conv_transpose2d(x, w, b, dilation=2, output_padding=1),
     (1, 2, 3, 3), (2, 3, 2, 2)),
]


def _arrays(xs: tuple, ws: tuple, out_channels: int) -> tuple:
    return (RNG.standard_normal(xs), RNG.standard_normal(ws), RNG.standard_normal(out_channels))


def _out_channels(name: str, ws: tuple) -> int:
    groups = 2 if "groups" in name or name == "conv_transpose2d" else 1
    return ws[1] * groups if "transpose" in name else ws[0]


@pytest.mark.parametrize("name,fn,xs,ws", CASES, ids=[c[0] for c in CASES])
def test_gradient_penalty_matches_torch(torch_oracle: Any, name: str, fn: Any, xs: tuple, ws: tuple) -> None:
    """WGAN-GP's pattern: the norm of ∂out/∂x, itself differentiated with respect to x and w."""
    arrays = _arrays(xs, ws, _out_channels(name, ws))

    def run(T: Any, x: Any, w: Any, b: Any) -> list:
        out = fn(T.nn.functional, x, w, b)
        gx, gw = T.autograd.grad(out.pow(2).sum(), (x, w), create_graph=True)
        penalty = gx.pow(2).sum() + gw.pow(2).sum()
        penalty.backward()
        return [out, gx, gw, penalty, x.grad, w.grad, b.grad]
    ours, theirs = leaves(torch_oracle, *arrays)
    assert_same(run(lt, *ours), run(torch_oracle, *theirs), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name,fn,xs,ws", CASES, ids=[c[0] for c in CASES])
def test_gradgradcheck(name: str, fn: Any, xs: tuple, ws: tuple) -> None:
    x, w, b = (lt.tensor(a, requires_grad=True) for a in _arrays(xs, ws, _out_channels(name, ws)))
    assert lt.autograd.gradgradcheck(lambda x, w, b: fn(lt.nn.functional, x, w, b), (x, w, b))


def test_conv1d_input_gradient_is_differentiable_as_in_the_report(torch_oracle: Any) -> None:
    """The reported case: ``grad(conv1d(x, w).pow(2).sum(), x, create_graph=True)[0].grad_fn``."""
    def name(T: Any) -> str:
        x = T.ones(1, 2, 5, requires_grad=True)
        w = T.ones(3, 2, 2)
        g = T.autograd.grad(T.nn.functional.conv1d(x, w).pow(2).sum(), x, create_graph=True)[0]
        return g.grad_fn.name()
    assert name(lt) == name(torch_oracle) == "ConvolutionBackwardBackward0"
