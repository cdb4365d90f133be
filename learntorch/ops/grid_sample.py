"""``F.affine_grid`` and ``F.grid_sample``: the two halves of a spatial transformer.

``affine_grid(theta, size)`` says *where to look*: for every pixel of the output it gives
a point of the input, ``theta @ [x, y, 1]``, in normalised coordinates (-1 is the left
or top edge of the input, +1 the right or bottom edge).  ``grid_sample(input, grid)``
then *looks there*: it reads ``input`` at each of those points, which fall between pixels,
so it interpolates (``'nearest'``: the closest pixel; ``'bilinear'``: the four around
it; ``'bicubic'``: sixteen).  A point outside the input reads zeros (``'zeros'``), the
nearest edge pixel (``'border'``) or the image mirrored at its edges (``'reflection'``).

``align_corners`` says what -1 and +1 mean: the *centres* of the corner pixels (True), or
their outer *edges* (False, the default since PyTorch 1.3), so that resizing does not
depend on the resolution.

Both are differentiable, also with respect to the grid (that is what lets a network learn
``theta``): the output is ``Σ_taps weight(point) · input[pixel]``, linear in ``input``; the
weights are polynomials of the point's position between pixels.  Both backwards are
written with tensor operations, so they can be differentiated again.  Inputs are 4-D
(``N, C, H, W``, a grid ``N, H_out, W_out, 2``) or 5-D (``N, C, D, H, W``, a grid
``N, D_out, H_out, W_out, 3``; no ``'bicubic'``).  Grid component 0 is ``x`` (the width
axis), 1 is ``y`` (height), 2 is ``z`` (depth).
"""
from __future__ import annotations

import itertools
import operator
from typing import Any, Optional, Sequence

import numpy as np

from .. import warn_always
from .. import dtypes
from ..autograd.function import Function
from ..tensor import Tensor
from .resampling import CUBIC_A
from .shape import cat, stack

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


# ----------------------------------------------------------------------------- affine_grid
def _axis_points(n: int, align_corners: bool, dtype: Any) -> np.ndarray:
    """The normalised coordinates of ``n`` pixel centres: from -1 to 1 (the corner centres,
    ``align_corners``) or shrunk by ``(n-1)/n`` (-1 and 1 are then the outer edges).

    Rounded as PyTorch's float kernels round, so that a grid point meant to sit on a pixel
    centre sits on the same side of it in both libraries (bilinear interpolation has a kink
    there, and its gradient jumps): each half of the range is counted from its own end, one
    multiply-add rounded once, then scaled in the grid's dtype."""
    if n <= 1:
        return np.zeros(max(n, 0), dtype=dtype)
    exact = np.longdouble if np.dtype(dtype) == np.float64 else np.float64  # (one rounding, as a fused multiply-add)
    step = exact(dtype(2) / dtype(n - 1))
    i = np.arange(n)
    points = np.where(i < n // 2, -1 + step * i, 1 - step * (n - 1 - i)).astype(dtype)
    if not align_corners:
        points = (points * dtype(n - 1)).astype(dtype) / dtype(n)
    return points.astype(dtype)


def _base_grid(spatial: Sequence[int], align_corners: bool, dtype: Any) -> np.ndarray:
    """``[x, y, (z,) 1]`` for every output pixel, x varying fastest: shape (pixels, k + 1)."""
    axes = [_axis_points(n, align_corners, dtype) for n in spatial]  # (depth,) height, width
    mesh = np.meshgrid(*axes, indexing="ij")
    columns = [m.reshape(-1) for m in reversed(mesh)]  # x (width) first
    return np.stack(columns + [np.ones_like(columns[0])], axis=-1)


class AffineGridGenerator(Function):
    """``grid = base @ thetaᵀ`` per batch element.  Backward: ``gθ = gridᵀ-shaped g @ base``."""
    _backward_name = "AffineGridGeneratorBackward0"

    @staticmethod
    def forward(ctx: Any, theta: Tensor, size: tuple, align_corners: bool) -> Tensor:
        be = theta._backend
        np_dtype = np.float64 if theta.dtype.name == "float64" else np.float32
        base = Tensor._make(be.asarray(_base_grid(size[2:], align_corners, np_dtype), theta.dtype), theta._device)
        ctx.base = base
        grid = base @ theta.transpose(-2, -1)  # (N, pixels, k)
        return grid.reshape(size[0], *size[2:], theta.shape[-2])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        g = grad.reshape(grad.shape[0], -1, grad.shape[-1])  # (N, pixels, k)
        return g.transpose(-2, -1) @ ctx.base, None, None


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: Optional[bool] = None) -> Tensor:
    """The sampling grid of the affine maps ``theta`` (N × 2 × 3, or N × 3 × 4 in 3-D) for an
    output of ``size`` (N, C, H, W) or (N, C, D, H, W): hand it to :func:`grid_sample`."""
    if align_corners is None:
        warn_always.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(operator.index(s) for s in size)  # (a float is PyTorch's TypeError)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warn_always.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                         "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                         "of affine_grid for details.", UserWarning, stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if size[0] != theta.shape[0]:
        raise RuntimeError(f"affine_grid: theta holds {theta.shape[0]} affine matrices but size asks for a batch "
                           f"of {size[0]}")
    return AffineGridGenerator.apply(theta, size, align_corners)


# ----------------------------------------------------------------------------- coordinates
def _reflect(x: Tensor, twice_low: int, twice_high: int) -> tuple[Tensor, Tensor]:
    """``x`` mirrored into ``[low, high]`` as often as needed, and ``dx'/dx`` (±1).

    Halves are passed doubled so that both conventions stay integers: pixel centres
    ``[0, size-1]`` (``align_corners``) or pixel edges ``[-0.5, size-0.5]``."""
    if twice_low == twice_high:  # a single pixel: everything reflects onto it
        return x * 0, x.detach() * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    d = x - low
    side = (d.detach() >= 0).to(x.dtype) * 2 - 1  # |d| = side · d
    distance = d * side
    flips = (distance.detach() / span).floor()
    extra = distance - flips * span  # how far into the current copy
    even = (flips.remainder(2) == 0).to(x.dtype) * 2 - 1  # +1: an unmirrored copy
    return (extra * even + (span * (1 - even) / 2) + low), side * even


def _padded(x: Tensor, slope: Tensor, size: int, padding_mode: str, align_corners: bool) -> tuple[Tensor, Tensor]:
    """The pixel coordinate after the padding rule, and its derivative so far (``slope``)."""
    if padding_mode == "reflection":
        x, s = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        slope = slope * s
        if align_corners:
            return x, slope
    if padding_mode in ("border", "reflection"):  # clip into [0, size-1]; flat (slope 0) outside
        inside = ((x.detach() > 0) & (x.detach() < size - 1)).to(x.dtype)
        return x.clamp(0, size - 1), slope * inside
    return x, slope


def _cubic_weights(t: Tensor) -> tuple[list, list]:
    """The four cubic-convolution weights for the pixels at offsets -1, 0, 1, 2 from the one
    below the point, ``t`` in [0, 1) past it; and their derivatives in ``t``."""
    A = CUBIC_A

    def near(u: Tensor) -> Tensor:  # |u| <= 1
        return ((A + 2) * u - (A + 3)) * u * u + 1

    def far(u: Tensor) -> Tensor:  # 1 < |u| < 2
        return ((A * u - 5 * A) * u + 8 * A) * u - 4 * A

    def d_near(u: Tensor) -> Tensor:
        return (3 * (A + 2) * u - 2 * (A + 3)) * u

    def d_far(u: Tensor) -> Tensor:
        return (3 * A * u - 10 * A) * u + 8 * A

    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    slopes = [d_far(t + 1), d_near(t), -d_near(1 - t), -d_far(2 - t)]
    return weights, slopes


def _axis_taps(g: Tensor, size: int, mode: str, padding_mode: str, align_corners: bool) -> list:
    """The pixels read along one axis for normalised coordinates ``g`` (N × points): a list of
    ``(index, weight, d weight / d g)``, with pixels outside the input given weight 0 (and a
    valid index, so that reading them is safe)."""
    scale = (size - 1) / 2 if align_corners else size / 2
    # pixel coordinates (0 = the first centre), in PyTorch's order of operations (the same rounding)
    x = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
    slope = g.detach() * 0 + scale
    taps = []
    if mode == "bicubic":  # the padding rule moves each of the 16 pixels, not the point
        below = x.detach().floor()
        weights, slopes = _cubic_weights(x - below)
        for offset, w, dw in zip(range(-1, 3), weights, slopes):
            where_, _ = _padded(below + offset, slope, size, padding_mode, align_corners)
            taps.append((where_.detach(), w, dw * slope))
    else:
        x, slope = _padded(x, slope, size, padding_mode, align_corners)
        if mode == "nearest":  # (ties to even, as PyTorch's nearbyint)
            taps.append((x.detach().round(), g.detach() * 0 + 1, g.detach() * 0))
        else:
            below = x.detach().floor()
            t = x - below
            taps += [(below, 1 - t, -slope), (below + 1, t, slope)]
    out = []
    for where_, w, dw in taps:
        valid = ((where_ >= 0) & (where_ <= size - 1)).to(g.dtype)
        out.append((where_.clamp(0, size - 1).long(), w * valid, dw * valid))
    return out


def _taps(grid: Tensor, spatial: Sequence[int], mode: str, padding_mode: str, align_corners: bool) -> list:
    """Every pixel read for every output point: ``(flat index, weight, [d weight / d grid_k])``,
    the products over the axes of :func:`_axis_taps` (4 for bilinear in 2-D, 16 for bicubic)."""
    n, k = grid.shape[0], grid.shape[-1]
    g = grid.reshape(n, -1, k)
    strides = [1]
    for s in reversed(spatial[1:]):
        strides.insert(0, strides[0] * s)
    # axis j of the grid is spatial dimension -1 - j (x: width)
    per_axis = [_axis_taps(g[..., j], spatial[-1 - j], mode, padding_mode, align_corners) for j in range(k)]
    taps = []
    for combo in itertools.product(*per_axis):
        index = sum(idx * strides[-1 - j] for j, (idx, _, _) in enumerate(combo))
        weights = [w for _, w, _ in combo]
        weight = weights[0]
        for w in weights[1:]:
            weight = weight * w
        slopes = []
        for j, (_, _, dw) in enumerate(combo):
            s = dw
            for i, w in enumerate(weights):
                if i != j:
                    s = s * w
            slopes.append(s)
        taps.append((index, weight, slopes))
    return taps


def _read(flat: Tensor, index: Tensor) -> Tensor:
    """``flat[n, c, index[n, p]]`` for every channel: (N, C, points)."""
    return flat.gather(2, index.unsqueeze(1).expand(flat.shape[0], flat.shape[1], index.shape[1]))


# ----------------------------------------------------------------------------- grid_sample
class GridSampler2D(Function):
    """``out[n, c, p] = Σ_taps weight · input[n, c, pixel]``.

    Backward: the input's gradient puts ``weight · g`` back on each pixel read (a scatter-add,
    the transpose of the gather); the grid's is ``Σ_c Σ_taps g · input[pixel] · d weight/d grid``."""
    _backward_name = "GridSampler2DBackward0"

    @staticmethod
    def forward(ctx: Any, input: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners: bool) -> Tensor:
        n, c, *spatial = input.shape
        flat = input.reshape(n, c, -1)
        out = None
        for index, weight, _ in _taps(grid, spatial, mode, padding_mode, align_corners):
            term = weight.unsqueeze(1) * _read(flat, index)
            out = term if out is None else out + term
        ctx.options = (mode, padding_mode, align_corners)
        ctx.save_for_backward(input, grid)
        return out.reshape(n, c, *grid.shape[1:-1])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        input, grid = ctx.saved_tensors
        mode, padding_mode, align_corners = ctx.options
        n, c, *spatial = input.shape
        taps = _taps(grid, spatial, mode, padding_mode, align_corners)
        g = grad.reshape(n, c, -1)
        g_input = g_grid = None
        if ctx.needs_input_grad[0]:
            points = g.shape[2]
            index = cat([i.unsqueeze(1).expand(n, c, points) for i, _, _ in taps], dim=2)
            values = cat([w.unsqueeze(1) * g for _, w, _ in taps], dim=2)
            zeros = Tensor._zeros((n, c, int(np.prod(spatial))), g.dtype, g.device)
            g_input = zeros.scatter_add(2, index, values).reshape(input.shape)
        if ctx.needs_input_grad[1]:
            if mode == "nearest":  # piecewise constant in the grid
                g_grid = Tensor._zeros(tuple(grid.shape), grid.dtype, grid.device)
            else:
                flat = input.reshape(n, c, -1)
                parts = [None] * grid.shape[-1]
                for index, _, slopes in taps:
                    seen = (g * _read(flat, index)).sum(1)  # Σ_c g · input[pixel]: (N, points)
                    for j, s in enumerate(slopes):
                        parts[j] = seen * s if parts[j] is None else parts[j] + seen * s
                g_grid = stack(parts, dim=-1).reshape(grid.shape)
        return g_input, g_grid, None, None, None


class GridSampler3D(GridSampler2D):
    """The same for volumes (N, C, D, H, W)."""
    _backward_name = "GridSampler3DBackward0"


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: Optional[bool] = None) -> Tensor:
    """``input`` read at the points of ``grid`` (normalised coordinates in [-1, 1]), with
    interpolation ``mode`` and ``padding_mode`` for points outside; the result has the
    grid's spatial shape: (N, C, H_out, W_out) for a grid (N, H_out, W_out, 2)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warn_always.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    where = "grid_sampler(): "
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"{where}expected grid to have size {input.ndim - 2} in last dimension, but got grid with "
                           f"sizes {_sizes(grid)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"{where}expected grid and input to have same batch size, but got input with sizes "
                           f"{_sizes(input)} and grid with sizes {_sizes(grid)}")
    for d in range(2, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(f"{where}expected input to have non-empty spatial dimensions, but input has sizes "
                               f"{_sizes(input)} with dimension {d} being empty")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"{where}expected {input.ndim}D input and grid with same number of dimensions, but got "
                           f"input with sizes {_sizes(input)} and grid with sizes {_sizes(grid)}"
                           if input.ndim in (4, 5) else
                           f"{where}expected 4D or 5D input and grid with same number of dimensions, but got input "
                           f"with sizes {_sizes(input)} and grid with sizes {_sizes(grid)}")
    if mode == "bicubic" and input.ndim == 5:
        raise RuntimeError(f"{where}bicubic interpolation only supports 4D input")
    if not input.dtype.is_floating_point:
        name = dtypes.SCALAR_NAMES.get(input.dtype.name, input.dtype.name)
        raise NotImplementedError(f'"grid_sampler_{input.ndim - 2}d_cpu_kernel_impl" not implemented for \'{name}\'')
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.type_name(input.dtype)} but found "
                           f"{dtypes.type_name(grid.dtype)}")
    sampler = GridSampler2D if input.ndim == 4 else GridSampler3D
    return sampler.apply(input, grid, mode, padding_mode, align_corners)
