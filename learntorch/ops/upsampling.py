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
import numbers
from typing import Any, Optional, Sequence, Union

from .. import warn_always
from .. import dtypes
from .common import in_layout_of
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
from .resampling import cubic_map, filter_map, linear_map, nearest_map, resample, resample_uint8
from ..tensor import Tensor

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}  # the input dims each mode needs
_OP_NAMES = {"nearest": "UpsampleNearest", "nearest-exact": "UpsampleNearestExact"}
_LINEAR_OP_NAMES = {"linear": "UpsampleLinear1D", "bilinear": "UpsampleBilinear2D",
                    "trilinear": "UpsampleTrilinear3D", "bicubic": "UpsampleBicubic2D"}
# ``size``: an int or a tuple of ints, checked here in PyTorch's order (the input's rank before a
# float size), not by the namespace's wrapper (tensor_arguments), which would blame it first.
SizeArg = Union[int, Sequence[int], None]
_WEIGHTS = {"nearest": "nearest", "nearest-exact": "nearest", "linear": "linear", "bilinear": "linear",
            "trilinear": "linear", "bicubic": "cubic"}  # the name of PyTorch's CPU kernel for each mode


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
        if isinstance(size, (tuple, list)):
            return _int_sizes(size), None
        return [size] * k, None  # (one number: checked by the kernel, after the input's rank and the mode)
    if scale_factor is not None:
        if isinstance(scale_factor, (tuple, list)) and len(scale_factor) != k:
            raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {in_sizes} and scale_factor of shape {scale_factor}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                             "...,sK) format.")
        scales = [float(s) for s in _spatial(scale_factor, k)]
        return [math.floor(float(n) * s) for n, s in zip(in_sizes, scales)], scales
    raise ValueError("either size or scale_factor should be defined")


def _int_sizes(sizes: Sequence[Any]) -> list[int]:
    """``size`` as ints: a float is PyTorch's TypeError, where ``int()`` would truncate it."""
    if not all(isinstance(s, numbers.Integral) for s in sizes):
        raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], "
                        f"but got size with types {[type(s) for s in sizes]}")
    return [int(s) for s in sizes]


def _check_sizes(input: Tensor, out_sizes: list, mode: str, antialias: bool = False) -> None:
    """PyTorch's errors of the resizing kernels: an output size of 0 or less (``size=0``, or a
    ``scale_factor`` that rounds it down to 0); an integer or bool input (uint8 images can be
    resized, except by the 1-D and 3-D linear modes); antialiasing a float16/bfloat16 input."""
    in_sizes = list(input.shape[2:])
    if min(out_sizes) <= 0:
        names = "DHW"[3 - len(in_sizes):]
        shown_in = ", ".join(f"{n}: {s}" for n, s in zip(names, in_sizes))
        shown_out = ", ".join(f"{n}: {s}" for n, s in zip(names, out_sizes))
        joint = " and" if len(in_sizes) == 1 else ""  # (sic: PyTorch's 1-D message says "and")
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({shown_in}){joint} "
                           f"output ({shown_out})")
    if antialias and input.dtype in (dtypes.float32, dtypes.float64, dtypes.uint8):
        return
    if not antialias and (input.is_floating_point()
                          or (input.dtype is dtypes.uint8 and mode not in ("linear", "trilinear"))):
        return
    weights = _WEIGHTS[mode]
    # (PyTorch's 4-D nearest and bilinear kernels name their channels-last variant, whatever the layout)
    kernel = ("compute_index_ranges_weights" if antialias
              else f"upsample_{mode.replace('-exact', '')}2d_channels_last"
              if input.dim() == 4 and mode in ("nearest", "nearest-exact", "bilinear")
              else f"compute_indices_weights_{weights}")
    name = dtypes.SCALAR_NAMES.get(input.dtype.name, input.dtype.name)
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def interpolate(input: Tensor, size: SizeArg = None,
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
    out_sizes, scales = _output_size(input, size, scale_factor)  # (before the input's rank, as in PyTorch)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if antialias and (mode not in ("bilinear", "bicubic") or input.dim() != 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    known = mode in ("nearest", "nearest-exact", "area", "lanczos", *_LINEAR)
    if input.dim() not in (3, 4, 5) or not known or (mode == "bicubic" and input.dim() != 4):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.dim()}D) for the modes: {_MODES} (got {mode})")
    if mode == "lanczos":
        raise NotImplementedError(f"learntorch's interpolate does not implement mode={mode!r}")
    if recompute_scale_factor:
        scales = None  # the kernel places the source cells with in/out, as if `size` had been given
    if mode in _LINEAR and input.dim() != _LINEAR[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_LINEAR[mode]}D input")
    out_sizes = _int_sizes(out_sizes)
    k = input.dim() - 2
    in_sizes = list(input.shape[2:])
    scales = scales or [None] * k
    if mode == "area":
        if k == 1:
            return adaptive_avg_pool1d(input, out_sizes[0])
        if k == 2:
            return adaptive_avg_pool2d(input, tuple(out_sizes))
        return adaptive_avg_pool3d(input, tuple(out_sizes))
    _check_sizes(input, out_sizes, mode, antialias)
    if mode in ("bilinear", "bicubic") and (antialias or input.dtype is dtypes.uint8):
        return _filtered(input, in_sizes, out_sizes, scales, mode, bool(align_corners), antialias)
    if mode in _LINEAR:
        axis_map = cubic_map if mode == "bicubic" else linear_map
        maps = [axis_map(n, o, s, bool(align_corners), double=input.dtype == dtypes.float64)
                for n, o, s in zip(in_sizes, out_sizes, scales)]
        return resample(input, maps, _LINEAR_OP_NAMES[mode])
    maps = [nearest_map(n, o, s, exact=mode == "nearest-exact") for n, o, s in zip(in_sizes, out_sizes, scales)]
    return resample(input, maps, f"{_OP_NAMES[mode]}{k}D")


def _filtered(input: Tensor, in_sizes: list, out_sizes: list, scales: list, mode: str, align_corners: bool,
              antialias: bool) -> Tensor:
    """Bilinear/bicubic resizing as a filter (``antialias=True``, and uint8 images but for plain
    bicubic): see :func:`filter_map`.  A uint8 image is computed in fixed point, as PyTorch does (no gradient
    flows into integers); a float one is an ordinary differentiable resampling."""
    cubic = mode == "bicubic"
    uint8 = input.dtype is dtypes.uint8
    double = uint8 or input.dtype == dtypes.float64
    if uint8 and cubic and not antialias:  # (PyTorch's plain bicubic taps, edge cells repeated, in fixed point)
        maps = [cubic_map(n, o, s, align_corners, double=True) for n, o, s in zip(in_sizes, out_sizes, scales)]
    else:
        maps = [filter_map(n, o, s, align_corners, cubic, antialias, double=double)
                for n, o, s in zip(in_sizes, out_sizes, scales)]
    if uint8:
        return in_layout_of(resample_uint8(input._backend, input._data, maps), input)
    return resample(input, maps, _LINEAR_OP_NAMES[mode] + ("Aa" if antialias else ""))


def upsample(input: Tensor, size: SizeArg = None,
             scale_factor: Union[float, Sequence[float], None] = None, mode: str = "nearest",
             align_corners: Optional[bool] = None) -> Tensor:
    """The old name of :func:`interpolate` (deprecated, as in PyTorch)."""
    warn_always.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                     stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: SizeArg = None,
                     scale_factor: Union[float, Sequence[float], None] = None) -> Tensor:
    """``interpolate(mode='nearest')`` (deprecated, as in PyTorch)."""
    warn_always.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                     stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: SizeArg = None,
                      scale_factor: Union[float, Sequence[float], None] = None) -> Tensor:
    """``interpolate(mode='bilinear', align_corners=True)`` (deprecated, as in PyTorch)."""
    warn_always.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                     stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
