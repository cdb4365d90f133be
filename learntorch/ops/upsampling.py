"""``F.interpolate``: resize the spatial dimensions of ``(N, C, L)``, ``(N, C, H, W)`` or
``(N, C, D, H, W)`` input.

Every mode implemented here is *separable*: resizing an image is resizing its rows,
then its columns.  Along one dimension each output cell reads one input cell
(``'nearest'``, ``'nearest-exact'``), mixes two neighbours (``'linear'``,
``'bilinear'``, ``'trilinear'``) or four (``'bicubic'``); ``ops/resampling.py`` builds
those maps and applies them, with their transposes as the backward.  ``'area'`` is
adaptive average pooling.

The size rule is PyTorch's: ``size`` gives the output directly; ``scale_factor`` gives
``floor(in · scale)``, and the kernel then uses ``1/scale`` (not ``in/out``) to place
the source cells, unless ``recompute_scale_factor=True``.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union

from .. import warn_always
from .. import dtypes
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
from .resampling import cubic_map, linear_map, nearest_map, resample
from ..tensor import Tensor

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}  # the input dims each mode needs
_OP_NAMES = {"nearest": "UpsampleNearest", "nearest-exact": "UpsampleNearestExact"}
_LINEAR_OP_NAMES = {"linear": "UpsampleLinear1D", "bilinear": "UpsampleBilinear2D",
                    "trilinear": "UpsampleTrilinear3D", "bicubic": "UpsampleBicubic2D"}


def _spatial(value: Any, k: int) -> Optional[list]:
    """``size``/``scale_factor`` as a list of ``k`` values (a single number stands for all)."""
    if value is None:
        return None
    return list(value) if isinstance(value, (tuple, list)) else [value] * k


def _output_size(input: Tensor, size: Any, scale_factor: Any) -> tuple[list, Optional[list]]:
    """The output's spatial sizes and the scales the kernel may use (PyTorch's checks, in its order)."""
    k = input.dim() - 2
    in_sizes = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (tuple, list)) and len(size) != k:
            raise ValueError("Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {in_sizes} and output size of {size}. Please provide input tensor "
                             "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        return [int(s) for s in _spatial(size, k)], None
    if scale_factor is not None:
        if isinstance(scale_factor, (tuple, list)) and len(scale_factor) != k:
            raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {in_sizes} and scale_factor of shape {scale_factor}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                             "...,sK) format.")
        scales = [float(s) for s in _spatial(scale_factor, k)]
        return [math.floor(float(n) * s) for n, s in zip(in_sizes, scales)], scales
    raise ValueError("either size or scale_factor should be defined")


def interpolate(input: Tensor, size: Union[int, Sequence[int], None] = None,
                scale_factor: Union[float, Sequence[float], None] = None, mode: str = "nearest",
                align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dimensions (all but the first two) to ``size``, or by ``scale_factor``.

    Modes: ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-D input), ``'bilinear'`` and
    ``'bicubic'`` (4-D), ``'trilinear'`` (5-D), ``'area'``.  ``align_corners`` (interpolating
    modes only): ``True`` lines up the corner cells' centres, ``False`` (the default) their
    outer edges.  Bicubic overshoots: its values may leave the input's range."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    known = mode in ("nearest", "nearest-exact", "area", "lanczos", *_LINEAR)
    if input.dim() not in (3, 4, 5) or not known or (mode == "bicubic" and input.dim() != 4):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.dim()}D) for the modes: {_MODES} (got {mode})")
    if mode == "lanczos":
        raise NotImplementedError(f"learntorch's interpolate does not implement mode={mode!r}")
    if antialias:
        raise NotImplementedError("learntorch's interpolate does not implement antialias=True")
    out_sizes, scales = _output_size(input, size, scale_factor)
    if recompute_scale_factor:
        scales = None  # the kernel places the source cells with in/out, as if `size` had been given
    if mode in _LINEAR and input.dim() != _LINEAR[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_LINEAR[mode]}D input")
    k = input.dim() - 2
    in_sizes = list(input.shape[2:])
    scales = scales or [None] * k
    if mode == "area":
        if k == 1:
            return adaptive_avg_pool1d(input, out_sizes[0])
        if k == 2:
            return adaptive_avg_pool2d(input, tuple(out_sizes))
        return adaptive_avg_pool3d(input, tuple(out_sizes))
    if mode in _LINEAR:
        axis_map = cubic_map if mode == "bicubic" else linear_map
        maps = [axis_map(n, o, s, bool(align_corners), double=input.dtype == dtypes.float64)
                for n, o, s in zip(in_sizes, out_sizes, scales)]
        return resample(input, maps, _LINEAR_OP_NAMES[mode])
    maps = [nearest_map(n, o, s, exact=mode == "nearest-exact") for n, o, s in zip(in_sizes, out_sizes, scales)]
    return resample(input, maps, f"{_OP_NAMES[mode]}{k}D")


def upsample(input: Tensor, size: Union[int, Sequence[int], None] = None,
             scale_factor: Union[float, Sequence[float], None] = None, mode: str = "nearest",
             align_corners: Optional[bool] = None) -> Tensor:
    """The old name of :func:`interpolate` (deprecated, as in PyTorch)."""
    warn_always.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                     stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Union[int, Sequence[int], None] = None,
                     scale_factor: Union[float, Sequence[float], None] = None) -> Tensor:
    """``interpolate(mode='nearest')`` (deprecated, as in PyTorch)."""
    warn_always.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                     stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Union[int, Sequence[int], None] = None,
                      scale_factor: Union[float, Sequence[float], None] = None) -> Tensor:
    """``interpolate(mode='bilinear', align_corners=True)`` (deprecated, as in PyTorch)."""
    warn_always.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                     stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
