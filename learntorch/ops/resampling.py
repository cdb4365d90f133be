"""Resampling along dimensions: the maths behind non-constant ``F.pad`` and ``F.interpolate``.

Reflection and replication padding, nearest, (bi/tri)linear and bicubic upsampling all
have the same shape: along each resampled dimension, output cell ``o`` is a weighted sum
of a few input cells, its *taps*,

    y[o] = w_0[o] · x[i_0[o]] + w_1[o] · x[i_1[o]] + …

(padding and nearest pick one cell, weight 1; linear mixes two neighbours, cubic four).
An :class:`AxisMap` holds the taps' indices and weights of one dimension;
:class:`Resample` applies one map per trailing dimension, one dimension after the other
(a separable map: bilinear is linear along W, then along H).

Such a map is linear, so its backward is its *transpose*: each output gradient is
added back, times its weight, onto the input cells it read (several outputs may read
the same cell: hence adding, not assigning).  The transpose is written as a small
dense ``(out, in)`` matrix per dimension and a ``tensordot``.  Under
``create_graph=True`` the backward is a Function too (:class:`ResampleTranspose`),
whose own backward is the forward map again, so these ops differentiate twice.

Each operation is a subclass that only sets PyTorch's ``grad_fn`` name
(``ReflectionPad2DBackward0``, ``UpsampleBilinear2DBackward0`` ...).
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from ..autograd.function import Function
from .common import in_layout_of, new_result
from .formula import differentiable_backward
from ..tensor import Tensor

__all__ = ["AxisMap", "Resample", "resample", "contiguous_copy", "reflect_map", "replicate_map", "nearest_map",
           "linear_map", "cubic_map", "CUBIC_A", "filter_map", "resample_uint8"]


class AxisMap(NamedTuple):
    """How one dimension is resampled: ``y[o] = Σ_k weights[k][o] · x[index[k][o]]``.

    ``weights`` is ``None`` for a pure selection, one tap of weight 1 (``y[o] = x[index[0][o]]``).
    Indices and weights are NumPy arrays (host side); they are tiny: one entry per output cell."""

    index: tuple[np.ndarray, ...]
    in_size: int
    weights: Optional[tuple[np.ndarray, ...]] = None

    @property
    def out_size(self) -> int:
        return len(self.index[0])


# ---------------------------------------------------------------------------- building the maps
def reflect_map(size: int, before: int, after: int) -> AxisMap:
    """Reflection padding (the edge itself is not repeated): ``[a b c d]`` padded by 2 on the
    left reads ``[c b | a b c d]``.  Negative amounts crop."""
    src = np.arange(-before, size + after)
    src = np.abs(src)                                   # left side: -1 → 1, -2 → 2
    src = np.where(src >= size, 2 * (size - 1) - src, src)  # right side: size → size-2
    return AxisMap((src.astype(np.int64),), size)


def replicate_map(size: int, before: int, after: int) -> AxisMap:
    """Replication padding: the edge value is repeated, ``[a a | a b c d | d d]``."""
    return AxisMap((np.clip(np.arange(-before, size + after), 0, size - 1).astype(np.int64),), size)


def nearest_map(in_size: int, out_size: int, scale: Optional[float], exact: bool = False) -> AxisMap:
    """Nearest neighbour: output cell ``o`` reads ``floor(o · in/out)`` (``'nearest'``, PyTorch's
    historical rule, which shifts the picture by half a cell) or ``floor((o + ½) · in/out)``
    (``'nearest-exact'``, cell centres).  ``in/out`` is ``1/scale_factor`` when one was given.
    Computed in float32, as PyTorch's kernel does, so that the same cells are picked."""
    o = np.arange(out_size)
    ratio = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(in_size) / np.float32(out_size)
    if exact:
        src = np.floor((o + 0.5) * np.float64(ratio))
    elif out_size == in_size:
        src = o
    elif out_size == 2 * in_size:
        src = o // 2
    else:
        src = np.floor(o.astype(np.float32) * ratio)
    return AxisMap((np.minimum(src.astype(np.int64), in_size - 1),), in_size)


def linear_map(in_size: int, out_size: int, scale: Optional[float], align_corners: bool,
               double: bool = False) -> AxisMap:
    """Linear interpolation between the two input cells around each output cell's source
    coordinate.  ``align_corners=True`` maps the first and last cells' *centres* onto each
    other (``src = o·(in-1)/(out-1)``); ``False`` maps the *edges*
    (``src = (o + ½)·in/out - ½``, clamped at 0), as PyTorch does.  The coordinates are
    computed in float32 (``double``: float64, for float64 input), PyTorch's "opmath" type."""
    ct = np.float64 if double else np.float32
    src = np.maximum(_source(in_size, out_size, scale, align_corners, ct), ct(0))
    lo = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    w_hi = np.clip(src - lo.astype(ct), 0, 1).astype(ct)
    hi = lo + (lo < in_size - 1)
    return AxisMap((lo, hi), in_size, ((ct(1) - w_hi).astype(ct), w_hi))


CUBIC_A = -0.75  # the cubic convolution kernel's free parameter (Keys; PyTorch and OpenCV use -0.75)


def cubic_map(in_size: int, out_size: int, scale: Optional[float], align_corners: bool,
              double: bool = False) -> AxisMap:
    """Cubic convolution (Keys, ``a = -0.75``, as PyTorch and OpenCV): four taps, at offsets
    -1, 0, 1, 2 from the cell below the source coordinate, indices clamped into the input
    (its edge cells repeat).  The source coordinate is linear's, but not clamped at 0."""
    ct = np.float64 if double else np.float32
    src = _source(in_size, out_size, scale, align_corners, ct)
    below = np.floor(src)
    t = (src - below).astype(ct)
    a = ct(CUBIC_A)

    def near(x: np.ndarray) -> np.ndarray:  # |x| ≤ 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    rest = 1 - t  # (then ``rest + 1``, not ``2 - t``: PyTorch's roundings)
    weights = tuple(w.astype(ct) for w in (far(t + 1), near(t), near(rest), far(rest + 1)))
    index = tuple(np.clip(below.astype(np.int64) + k, 0, in_size - 1) for k in (-1, 0, 1, 2))
    return AxisMap(index, in_size, weights)


def filter_map(in_size: int, out_size: int, scale: Optional[float], align_corners: bool, cubic: bool,
               antialias: bool, double: bool = True) -> AxisMap:
    """Resampling as a *filter* (Pillow's way, which PyTorch follows for ``antialias=True`` and for
    uint8 images): output cell ``o`` is centred at ``c = s·(o + ½)`` in the input, ``s = in/out``;
    the filter (the triangle ``1 - |x|`` for bilinear, the cubic kernel for bicubic) is laid over
    the input cells around ``c`` and its weights are divided by their sum, so that a window cut
    by the image's edge still averages.

    Downsampling with ``antialias`` stretches the filter by ``s`` (it then covers every input cell
    that falls in the output cell, instead of sampling two or four of them: no aliasing), and uses
    ``a = -0.5`` for the cubic (Pillow's) instead of ``-0.75``.  ``align_corners=True`` without
    antialias centres the cells at ``s·o``.  Computed in float64 (``double``, PyTorch's type for
    uint8 images) or float32 (its type for float32 input)."""
    ct = np.float64 if double else np.float32
    taps = 4 if cubic else 2
    if align_corners:
        s = ct(in_size - 1) / ct(out_size - 1) if out_size > 1 else ct(0)
    else:
        s = ct(1.0 / scale) if scale is not None and scale > 0 else ct(in_size) / ct(out_size)
    stretch = antialias and s >= 1
    support = ct(taps * 0.5 * s) if stretch else ct(taps * 0.5)
    width = int(math.ceil(support)) * 2 + 1 if antialias else taps
    delta = 0.5 if align_corners and not antialias else 0.0
    inv = ct(1 / s) if stretch else ct(1)
    o = np.arange(out_size)
    centre = (np.float64(s) * (o + 0.5 - delta)).astype(ct)
    first = np.maximum(np.trunc(centre.astype(np.float64) - support + 0.5 + delta), 0).astype(np.int64)
    count = np.minimum(np.trunc(centre.astype(np.float64) + support + 0.5 + delta), in_size).astype(np.int64) - first
    j = np.arange(width)[:, None]
    x = ((j + first - centre.astype(np.float64) + 0.5 - delta) * inv).astype(ct)
    w = np.where(j < count, _cubic_filter(x, -0.5 if antialias else CUBIC_A) if cubic else _triangle(x), ct(0))
    total = np.zeros(out_size, dtype=ct)
    for k in range(width):  # summed in order, as PyTorch's loop does
        total = (total + w[k]).astype(ct)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(ct)
    index = np.minimum(j + first, in_size - 1)
    return AxisMap(tuple(index), in_size, tuple(w))


def _triangle(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < 1, 1 - x, 0).astype(x.dtype)


def _cubic_filter(x: np.ndarray, a: float) -> np.ndarray:
    x = np.abs(x)
    a = x.dtype.type(a)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0)).astype(x.dtype)


def _fixed_point(m: AxisMap) -> tuple[np.ndarray, int]:
    """A map as a dense ``(out, in)`` matrix of integers ``round(w · 2^p)``, with the largest
    precision ``p`` that keeps them under 2^15 (PyTorch's uint8 kernels add int16 weights).
    Two taps that read the same cell (a cubic's clamped edge) count as one weight, their sum."""
    a = _matrix(m)
    top = float(a.max())
    p = 0
    while p < 22 and int(0.5 + top * (1 << (p + 1))) < (1 << 15):
        p += 1
    return np.trunc(a * (1 << p) + np.where(a < 0, -0.5, 0.5)).astype(np.int64), p


def resample_uint8(be: Any, x: Any, maps: Sequence[AxisMap]) -> Any:
    """uint8 images resized in fixed point, as PyTorch's uint8 kernels do: the last dimension
    first, each pass rounded back to uint8 (``(2^(p-1) + Σ w·x) >> p``, clamped to 0..255), a
    dimension whose size does not change skipped."""
    xp = be.xp
    first = x.ndim - len(maps)
    for axis in reversed(range(len(maps))):
        m = maps[axis]
        if m.out_size == m.in_size:
            continue
        ints, p = _fixed_point(m)
        weights = be.asarray(ints.T)
        acc = xp.tensordot(xp.astype(x, weights.dtype), weights, axes=([first + axis], [0]))
        acc = xp.moveaxis(acc, -1, first + axis)
        x = xp.astype(xp.clip((acc + (1 << (p - 1))) // (1 << p), 0, 255), x.dtype)
    return contiguous_copy(xp, x)


def _source(in_size: int, out_size: int, scale: Optional[float], align_corners: bool, ct: type) -> np.ndarray:
    """Each output cell's coordinate in the input, in the float type ``ct``: ``align_corners=True``
    maps the first and last cells' centres onto each other (``o·(in-1)/(out-1)``), ``False``
    their edges (``(o + ½)·in/out - ½``, with ``1/scale`` for ``in/out`` when a scale was given)."""
    o = np.arange(out_size).astype(ct)
    if align_corners:
        ratio = ct(in_size - 1) / ct(out_size - 1) if out_size > 1 else ct(0)
        return ratio * o
    ratio = ct(1.0 / scale) if scale is not None and scale > 0 else ct(in_size) / ct(out_size)
    return ratio * (o + ct(0.5)) - ct(0.5)


# ---------------------------------------------------------------------------- applying them
# Written against the array API (``xp.take``, ``xp.reshape``, ``be.asarray``), so the same code runs
# on NumPy, CuPy and learntorch's CUDA stand-in; the small index and weight arrays are built on
# the host and sent to the input's device.
def contiguous_copy(xp: Any, a: Any) -> Any:
    """A C-ordered copy where the library has strides (NumPy, CuPy); the stand-in has none."""
    return xp.ascontiguousarray(a) if hasattr(xp, "ascontiguousarray") else a


def _weights(be: Any, w: np.ndarray, like: Any, axis: int) -> Any:
    """Host weights on ``like``'s device, in its dtype, shaped to broadcast along ``axis``."""
    shape = [1] * like.ndim
    shape[axis] = -1
    return be.xp.reshape(be.xp.astype(be.asarray(w), like.dtype), tuple(shape))


def _apply(be: Any, x: Any, m: AxisMap, axis: int) -> Any:
    """One dimension of the forward map: gather each tap's cells, add them up with their weights."""
    xp = be.xp
    taps = [xp.take(x, be.asarray(i), axis=axis) for i in m.index]
    if m.weights is None:
        return taps[0]
    out = _weights(be, m.weights[0], x, axis) * taps[0]
    for w, tap in zip(m.weights[1:], taps[1:]):
        out = out + _weights(be, w, x, axis) * tap
    return out


def _matrix(m: AxisMap) -> np.ndarray:
    """The map as a dense ``(out, in)`` matrix (two taps may read the same cell: added)."""
    a = np.zeros((m.out_size, m.in_size), dtype=np.float64)
    rows = np.arange(m.out_size)
    for k, i in enumerate(m.index):
        np.add.at(a, (rows, i), 1 if m.weights is None else m.weights[k])
    return a


def _apply_transpose(be: Any, g: Any, m: AxisMap, axis: int) -> Any:
    """One dimension of the backward: ``g`` (size ``out`` along ``axis``) times the matrix,
    giving size ``in``: every output's gradient added onto the cells it read."""
    xp = be.xp
    a = xp.astype(be.asarray(_matrix(m)), g.dtype)
    return xp.moveaxis(xp.tensordot(g, a, axes=([axis], [0])), -1, axis)


def _forward_arrays(be: Any, x: Any, maps: tuple) -> Any:
    first = x.ndim - len(maps)
    for i in reversed(range(len(maps))):  # the last dimension first, as PyTorch's kernels nest it
        x = _apply(be, x, maps[i], first + i)
    return contiguous_copy(be.xp, x)


def _transpose_arrays(be: Any, g: Any, maps: tuple) -> Any:
    first = g.ndim - len(maps)
    for i in range(len(maps)):
        g = _apply_transpose(be, g, maps[i], first + i)
    return contiguous_copy(be.xp, g)


class Resample(Function):
    """Apply one :class:`AxisMap` to each of the trailing ``len(maps)`` dimensions."""

    @staticmethod
    def forward(ctx, x: Tensor, maps: tuple = ()) -> Tensor:
        ctx.maps = maps
        return in_layout_of(_forward_arrays(x._backend, x._data, maps), x, (4, 5))

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        if differentiable_backward():
            forward_cls = type(ctx)._forward_cls
            return _TRANSPOSES[forward_cls].apply(grad, ctx.maps, forward_cls), None
        return new_result(_transpose_arrays(grad._backend, grad._data, ctx.maps), grad), None


class ResampleTranspose(Function):
    """The backward of :class:`Resample` as an operation (for ``create_graph=True``).  It
    is linear in the gradient; its own backward is the forward map again."""

    _backward_name = "ResampleBackwardBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, maps: tuple = (), forward_cls: Any = None) -> Tensor:
        ctx.maps, ctx.forward_cls = maps, forward_cls
        return new_result(_transpose_arrays(grad._backend, grad._data, maps), grad)

    @staticmethod
    def backward(ctx, h: Tensor) -> tuple:
        return ctx.forward_cls.apply(h, maps=ctx.maps), None, None


# One subclass per PyTorch operation: they differ only in the grad_fn name they print.
class ReflectionPad1D(Resample):
    _backward_name = "ReflectionPad1DBackward0"


class ReflectionPad2D(Resample):
    _backward_name = "ReflectionPad2DBackward0"


class ReflectionPad3D(Resample):
    _backward_name = "ReflectionPad3DBackward0"


class ReplicationPad1D(Resample):
    _backward_name = "ReplicationPad1DBackward0"


class ReplicationPad2D(Resample):
    _backward_name = "ReplicationPad2DBackward0"


class ReplicationPad3D(Resample):
    _backward_name = "ReplicationPad3DBackward0"


class UpsampleNearest1D(Resample):
    _backward_name = "UpsampleNearest1DBackward0"


class UpsampleNearest2D(Resample):
    _backward_name = "UpsampleNearest2DBackward0"


class UpsampleNearest3D(Resample):
    _backward_name = "UpsampleNearest3DBackward0"


class UpsampleNearestExact1D(Resample):
    _backward_name = "UpsampleNearestExact1DBackward0"


class UpsampleNearestExact2D(Resample):
    _backward_name = "UpsampleNearestExact2DBackward0"


class UpsampleNearestExact3D(Resample):
    _backward_name = "UpsampleNearestExact3DBackward0"


class UpsampleLinear1D(Resample):
    _backward_name = "UpsampleLinear1DBackward0"


class UpsampleBilinear2D(Resample):
    _backward_name = "UpsampleBilinear2DBackward0"


class UpsampleTrilinear3D(Resample):
    _backward_name = "UpsampleTrilinear3DBackward0"


class UpsampleBicubic2D(Resample):
    _backward_name = "UpsampleBicubic2DBackward0"


class UpsampleBilinear2DAa(Resample):
    _backward_name = "UpsampleBilinear2DAaBackward0"


class UpsampleBicubic2DAa(Resample):
    _backward_name = "UpsampleBicubic2DAaBackward0"


_OPS = {cls.__name__: cls for cls in (
    ReflectionPad1D, ReflectionPad2D, ReflectionPad3D, ReplicationPad1D, ReplicationPad2D, ReplicationPad3D,
    UpsampleNearest1D, UpsampleNearest2D, UpsampleNearest3D, UpsampleNearestExact1D, UpsampleNearestExact2D,
    UpsampleNearestExact3D, UpsampleLinear1D, UpsampleBilinear2D, UpsampleTrilinear3D, UpsampleBicubic2D,
    UpsampleBilinear2DAa, UpsampleBicubic2DAa)}


# The backward of each, as an operation of its own (for create_graph=True), under PyTorch's name
# for it: ReflectionPad2DBackward0's is ReflectionPad2DBackwardBackward0.
_TRANSPOSES = {cls: type(cls.__name__ + "Transpose", (ResampleTranspose,),
                         {"_backward_name": cls._backward_name.replace("Backward0", "BackwardBackward0"),
                          "__module__": __name__})
               for cls in _OPS.values()}


def resample(input: Tensor, maps: Sequence[AxisMap], op: str) -> Tensor:
    """Resample the trailing ``len(maps)`` dimensions of ``input``; ``op`` names the operation
    (``'ReflectionPad2D'``, ``'UpsampleBilinear2D'`` ...), which sets the grad_fn's name."""
    return _OPS[op].apply(input, maps=tuple(maps))
