"""``F.affine_grid`` and ``F.grid_sample`` against PyTorch: every mode × padding mode ×
``align_corners`` in 2-D, bilinear/nearest in 3-D, values, ``grad_fn`` names, gradients with
respect to the input *and* the grid (and ``theta``), second derivatives, the warning given
when ``align_corners`` is left out, and the error types.

Grid points reach past [-1, 1] (±1.3) so that every padding rule is exercised."""
from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt
from learntorch.autograd import gradcheck, gradgradcheck

from conftest import check_both, grads_both, raises_both

pytestmark = pytest.mark.torch

RNG = np.random.default_rng(5)
IMAGE = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
GRID = RNG.uniform(-1.3, 1.3, (2, 3, 6, 2)).astype(np.float32)
VOLUME = RNG.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
GRID3 = RNG.uniform(-1.3, 1.3, (1, 2, 3, 4, 3)).astype(np.float32)
THETA = (np.array([[1., 0., 0.], [0., 1., 0.]]) + 0.3 * RNG.standard_normal((2, 2, 3))).astype(np.float32)
TOL = dict(rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode, padding_mode, align_corners",
                         list(itertools.product(["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"],
                                                [False, True])))
def test_grid_sample_2d(torch_oracle: Any, mode: str, padding_mode: str, align_corners: bool) -> None:
    grads_both(lambda T, x, g: T.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                                           align_corners=align_corners),
               torch_oracle, IMAGE, GRID, **TOL)


@pytest.mark.parametrize("mode, padding_mode, align_corners",
                         list(itertools.product(["bilinear", "nearest"], ["zeros", "border", "reflection"],
                                                [False, True])))
def test_grid_sample_3d(torch_oracle: Any, mode: str, padding_mode: str, align_corners: bool) -> None:
    grads_both(lambda T, x, g: T.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                                           align_corners=align_corners),
               torch_oracle, VOLUME, GRID3, **TOL)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_and_a_spatial_transformer(torch_oracle: Any, align_corners: bool) -> None:
    F = lambda T: T.nn.functional  # noqa: E731
    grads_both(lambda T, th: F(T).affine_grid(th, (2, 3, 4, 5), align_corners=align_corners), torch_oracle, THETA)
    theta3 = np.concatenate([np.eye(3, 4)[None] + 0.2 * RNG.standard_normal((1, 3, 4))]).astype(np.float32)
    grads_both(lambda T, th: F(T).affine_grid(th, [1, 2, 2, 3, 4], align_corners=align_corners), torch_oracle,
               theta3)
    # the spatial transformer: theta → grid → resampled image, differentiated all the way back to theta
    grads_both(lambda T, x, th: F(T).grid_sample(x, F(T).affine_grid(th, x.shape, align_corners=align_corners),
                                                 align_corners=align_corners),
               torch_oracle, IMAGE, THETA, signature=True, **TOL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a unit-size grid with align_corners=True warns: see below)
        check_both(lambda T: F(T).affine_grid(T.eye(2, 3)[None], (1, 1, 1, 3), align_corners=align_corners),
                   torch_oracle)


def test_second_derivatives_match_torch(torch_oracle: Any) -> None:
    def second(T: Any, mode: str) -> tuple:
        x = T.tensor(IMAGE[:1, :2].astype(np.float64), requires_grad=True)
        g = T.tensor(GRID[:1].astype(np.float64), requires_grad=True)
        out = T.nn.functional.grid_sample(x, g, mode=mode, padding_mode="border", align_corners=False)
        w = T.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        gx, gg = T.autograd.grad((out * w).sum(), (x, g), create_graph=True)
        (gx.pow(2).sum() + (gg * gg.detach()).sum()).backward()
        return x.grad, g.grad
    for mode in ("bilinear", "bicubic"):
        check_both(lambda T: second(T, mode), torch_oracle, rtol=1e-6, atol=1e-8)


def test_gradcheck_float64() -> None:
    x = lt.tensor(IMAGE[:1, :1, :3, :3].astype(np.float64), requires_grad=True)
    g = lt.tensor(GRID[:1, :1, :3].astype(np.float64), requires_grad=True)
    th = lt.tensor(THETA[:1].astype(np.float64), requires_grad=True)
    F = lt.nn.functional
    for mode, padding_mode in (("bilinear", "reflection"), ("bicubic", "zeros"), ("nearest", "border")):
        fn = lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=True)  # noqa: E731
        assert gradcheck(fn, (x, g)) and gradgradcheck(fn, (x, g))
    fn = lambda th: F.affine_grid(th, (1, 1, 2, 3), align_corners=False)  # noqa: E731
    assert gradcheck(fn, (th,)) and gradgradcheck(fn, (th,))


def test_align_corners_none_warns_like_torch(torch_oracle: Any) -> None:
    def warned(T: Any) -> list:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grid = T.nn.functional.affine_grid(T.tensor(THETA), (2, 3, 4, 5))
            T.nn.functional.grid_sample(T.tensor(IMAGE), grid)
            T.nn.functional.affine_grid(T.tensor(THETA), (2, 3, 1, 5), align_corners=True)  # a unit-size grid
        return [(w.category.__name__, str(w.message), w.filename == __file__) for w in caught]
    assert warned(lt) == warned(torch_oracle)
    assert len(warned(lt)) == 3
    # and align_corners=None means False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_both(lambda T: T.nn.functional.grid_sample(T.tensor(IMAGE), T.tensor(GRID)), torch_oracle, **TOL)


def test_errors(torch_oracle: Any) -> None:
    gs = lambda T, x, g, **kw: T.nn.functional.grid_sample(x, g, align_corners=False, **kw)  # noqa: E731
    ag = lambda T, th, size: T.nn.functional.affine_grid(th, size, align_corners=False)  # noqa: E731
    x, g = (lambda T: T.tensor(IMAGE)), (lambda T: T.tensor(GRID))
    raises_both(lambda T: gs(T, x(T), g(T), mode="area"), torch_oracle, match="expected mode")
    raises_both(lambda T: gs(T, x(T), g(T), padding_mode="circular"), torch_oracle, match="expected padding_mode")
    raises_both(lambda T: gs(T, x(T), g(T)[:1]), torch_oracle, match="same batch size")
    raises_both(lambda T: gs(T, x(T), T.zeros(2, 3, 6, 3)), torch_oracle, match="size 2 in last dimension")
    raises_both(lambda T: gs(T, x(T), T.zeros(2, 6, 2)), torch_oracle, match="4D input and grid")
    raises_both(lambda T: gs(T, x(T), g(T).double()), torch_oracle, match="expected scalar type Float")
    raises_both(lambda T: gs(T, T.zeros(2, 3, 0, 5), g(T)), torch_oracle, match="non-empty spatial")
    raises_both(lambda T: gs(T, T.tensor(VOLUME), T.tensor(GRID3), mode="bicubic"), torch_oracle,
                match="bicubic interpolation only supports 4D")
    raises_both(lambda T: gs(T, x(T).long(), g(T).long()), torch_oracle, match="not implemented for 'Long'")
    raises_both(lambda T: ag(T, T.zeros(2, 2, 3, dtype=T.long), (2, 3, 4, 5)), torch_oracle, match="floating point")
    raises_both(lambda T: ag(T, T.zeros(2, 3, 3), (2, 3, 4, 5)), torch_oracle, match="Nx2x3")
    raises_both(lambda T: ag(T, T.zeros(2, 2, 3), (2, 3, 4, 5, 6)), torch_oracle, match="Nx3x4")
    raises_both(lambda T: ag(T, T.zeros(2, 2, 3), (2, 3, 4)), torch_oracle, match="only supports 4D and 5D")
    raises_both(lambda T: ag(T, T.zeros(2, 2, 3), (2, 3, 0, 5)), torch_oracle, match="positive output size")
    raises_both(lambda T: ag(T, T.zeros(2, 2, 3), (3, 3, 4, 5)), torch_oracle)
