"""Numerical calculus on sampled values: ``trapezoid`` (alias ``trapz``), ``cumulative_trapezoid``
and ``gradient``.

Each is written with the ordinary tensor operations (slices, sums, ``cumsum``, ``cat``), as
PyTorch composes them too, so autograd needs nothing new and the result's ``grad_fn`` is the
last operation's node (``MulBackward1``, ``DivBackward1``, ``CumsumBackward0``, ``CatBackward0``).

* trapezoid rule: ``∫ y dx ≈ Σ (x[i+1] - x[i]) · (y[i] + y[i+1]) / 2``; with even spacing
  ``dx`` it is ``(Σ y - (y[0] + y[-1]) / 2) · dx``;
* ``gradient``: central differences inside (second-order accurate, also for uneven sample
  coordinates), one-sided differences of order ``edge_order`` at the two ends.
"""
from __future__ import annotations

from typing import Any, Optional

from .. import dtypes
from ..tensor import Tensor, _wrap_dim
from .pointwise import DivScalar, MulScalar
from .shape import cat

__all__ = ["trapezoid", "trapz", "cumulative_trapezoid", "gradient"]


def _as_float(y: Tensor) -> Tensor:
    """Integer samples are integrated in the default float dtype, as in PyTorch."""
    return y if y._dtype.is_floating_point else y.to(dtypes.get_default_dtype())


def _spacings(y: Tensor, x: Tensor, dim: int) -> Tensor:
    """``x``'s differences along ``dim``, shaped to broadcast with ``y``'s slices."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[dim] = x.shape[0]
        x = x.reshape(shape)
        return x.narrow(dim, 1, x.shape[dim] - 1) - x.narrow(dim, 0, x.shape[dim] - 1)
    xd = _wrap_dim(dim - y.ndim, x.ndim) if dim - y.ndim >= -x.ndim else None
    if xd is None or x.shape[xd] != y.shape[dim]:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
    return x.narrow(xd, 1, x.shape[xd] - 1) - x.narrow(xd, 0, x.shape[xd] - 1)


def _pairs(y: Tensor, dim: int) -> Tensor:
    """``y[i] + y[i+1]`` along ``dim``."""
    n = y.shape[dim]
    return y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)


def _check_samples(name: str, y: Tensor, x: Any) -> None:
    """``x`` is a tensor of sample coordinates: an even spacing is given by name
    (``trapezoid(y, dx=0.1)``), and ``trapezoid(y, 0.1)`` is PyTorch's TypeError.  Bool samples
    are refused, as PyTorch refuses them."""
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'x' (position 2) must be Tensor, not {type(x).__name__}; for evenly "
                        f"spaced samples give the spacing by name: {name}(y, dx={x!r})")
    if y._dtype is dtypes.bool or (x is not None and x._dtype is dtypes.bool):
        what = "`y`" if x is None else "`x` or `y`"
        raise RuntimeError(f"{name}: received a bool input for {what}, but bool is not supported")


def _dim_of(y: Tensor, dim: int) -> int:
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, y.ndim)


def trapezoid(y: Tensor, x: Optional[Tensor] = None, *, dx: Optional[float] = None, dim: int = -1) -> Tensor:
    """The trapezoid rule along ``dim``: samples ``y`` at coordinates ``x`` (a tensor), or evenly
    spaced ``dx`` apart (default 1)."""
    _check_samples("trapezoid", y, x)
    d = _dim_of(y, dim)
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments - got both x and dx")
    if y.shape[d] == 0:
        return _as_float(y).sum(d)
    if x is None:
        y = _as_float(y)
        n = y.shape[d]
        ends = y.narrow(d, 0, 1).squeeze(d) + y.narrow(d, n - 1, 1).squeeze(d)
        return MulScalar.apply(y.sum(d) - MulScalar.apply(ends, 0.5), 1.0 if dx is None else dx)
    return DivScalar.apply((_spacings(y, x, d) * _pairs(y, d)).sum(d), 2.0)


trapz = trapezoid


def cumulative_trapezoid(y: Tensor, x: Optional[Tensor] = None, *, dx: Optional[float] = None, dim: int = -1) -> Tensor:
    """The running trapezoid integral along ``dim`` (one value fewer than ``y`` has samples)."""
    _check_samples("cumulative_trapezoid", y, x)
    d = _dim_of(y, dim)
    if y.shape[d] == 0:
        return _as_float(y)
    if x is None:
        return MulScalar.apply(_pairs(_as_float(y), d), (1.0 if dx is None else dx) / 2.0).cumsum(d)
    return DivScalar.apply((_spacings(y, x, d) * _pairs(y, d)).cumsum(d), 2.0)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:
    """The derivative of sampled values along each of ``dim`` (all dimensions by default), as a
    tuple.  ``spacing``: one number for all dimensions, one per dimension, or one 1-D tensor of
    sample coordinates per dimension."""
    if input.dtype is dtypes.bool:  # (the differences subtract bools)
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    if isinstance(spacing, Tensor):
        raise TypeError("gradient() received an invalid combination of arguments - got (Tensor, spacing=Tensor), "
                        "but expected one of:\n * (Tensor input, *, tuple of ints dim, int edge_order = 1)")
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [_wrap_dim(d, input.ndim) for d in dims]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            where = (f"'self.dim() = {input.ndim}', since dim argument was not given" if dim is None
                     else f"'dim' argument, of length {len(dims)}")
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                               f"equal to {where}, but got a list of length {len(spacing)}")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = _as_float(input)
    return tuple(_derivative(f, d, h, edge_order) for d, h in zip(dims, spacings))


def _derivative(f: Tensor, d: int, h: Any, edge_order: int) -> Tensor:
    n = f.shape[d]

    def at(start: int, length: int) -> Tensor:
        return f.narrow(d, start, length)

    if not isinstance(h, Tensor):  # evenly spaced samples, h apart
        inner = (at(2, n - 2) - at(0, n - 2)) / (2.0 * h)
        if edge_order == 1:
            first, last = (at(1, 1) - at(0, 1)) / h, (at(n - 1, 1) - at(n - 2, 1)) / h
        else:
            first = (at(0, 1) * -1.5 + at(1, 1) * 2.0 - at(2, 1) * 0.5) / h
            last = (at(n - 3, 1) * 0.5 - at(n - 2, 1) * 2.0 + at(n - 1, 1) * 1.5) / h
        return cat([first, inner, last], d)
    shape = [1] * f.ndim
    shape[d] = n - 1
    dx = (h.narrow(0, 1, n - 1) - h.narrow(0, 0, n - 1)).reshape(shape)  # the coordinates' steps

    def step(start: int, length: int) -> Tensor:
        return dx.narrow(d, start, length)

    a, b = step(0, n - 2), step(1, n - 2)  # the steps before and after each inner point
    inner = (at(0, n - 2) * (-b / (a * (a + b))) + at(1, n - 2) * ((b - a) / (a * b))
             + at(2, n - 2) * (a / (b * (a + b))))
    if edge_order == 1:
        first = (at(1, 1) - at(0, 1)) / step(0, 1)
        last = (at(n - 1, 1) - at(n - 2, 1)) / step(n - 2, 1)
    else:
        a, b = step(0, 1), step(1, 1)
        first = (at(0, 1) * (-(2 * a + b) / (a * (a + b))) + at(1, 1) * ((a + b) / (a * b))
                 + at(2, 1) * (-a / (b * (a + b))))
        a, b = step(n - 3, 1), step(n - 2, 1)
        last = (at(n - 3, 1) * (b / (a * (a + b))) + at(n - 2, 1) * (-(a + b) / (a * b))
                + at(n - 1, 1) * ((2 * b + a) / (b * (a + b))))
    return cat([first, inner, last], d)
