"""One derivative formula, two ways to run it: on raw arrays, or on differentiable tensors.

Why: a first-order backward wants speed (no graph, no Tensor objects: plain NumPy);
a backward under ``create_graph=True`` must itself be differentiable, i.e. built
from tensor operations.  Writing each formula twice would let the two drift apart
(the course once had silently wrong second derivatives for exactly that reason).
So a kernel writes its derivative *once*, as ``derivative(m, x, ...)``, against a
small namespace ``m`` of element-wise operations:

* :class:`ArrayMath` runs them on the backend's arrays (NumPy / CuPy);
* :class:`TensorMath` runs them as learntorch operations, which record a graph.

The kernel's backward picks one with :func:`math_for`: tensors when grad mode is on
during backward (that is ``create_graph=True``), arrays otherwise.
"""
from __future__ import annotations

from typing import Any

from ..autograd import grad_mode
from ..autograd.function import Function
from ..tensor import Tensor
from . import pointwise
from .shape import cat

__all__ = ["ArrayMath", "TensorMath", "array_math", "math_for", "differentiable_backward"]


class ArrayMath:
    """The formula's operations on the backend's arrays (``xp`` is NumPy or CuPy)."""

    def __init__(self, xp: Any) -> None:
        self.xp = xp
        self.exp, self.expm1, self.log1p, self.tanh, self.abs = xp.exp, xp.expm1, xp.log1p, xp.tanh, xp.abs
        self.where = xp.where

    def minimum(self, a: Any, bound: float) -> Any:
        return self.xp.minimum(a, bound)

    def concat(self, arrays: list, axis: int) -> Any:
        return self.xp.concat(arrays, axis=axis)

    def clip(self, a: Any, lo: float, hi: float) -> Any:
        return self.xp.clip(a, lo, hi)

    def mask(self, condition: Any, like: Any) -> Any:
        """1 where ``condition`` holds, else 0, in ``like``'s dtype (a constant: no gradient)."""
        return condition.astype(like.dtype)

    def sigmoid(self, a: Any) -> Any:
        return pointwise.sigmoid_kernel(self.xp, a)


class TensorMath:
    """The same operations as learntorch operations on tensors (differentiable)."""

    exp, expm1, log1p, tanh, abs = (staticmethod(pointwise.exp), staticmethod(pointwise.expm1),
                                    staticmethod(pointwise.log1p), staticmethod(pointwise.tanh),
                                    staticmethod(pointwise.abs))
    sigmoid = staticmethod(pointwise.sigmoid)

    def __init__(self, like: Tensor) -> None:
        self.like = like  # gives constants their dtype and device

    def _constant(self, data: Any) -> Tensor:
        """A piecewise-constant value of ``like`` (a mask, a slope): zero derivative, but still
        connected to ``like`` in the graph, as PyTorch's backward nodes are (a parameter
        reached only through it gets a zero gradient, not ``None``)."""
        be = self.like._backend
        return _PiecewiseConstant.apply(self.like, be.xp.astype(be.xp.asarray(data), be.dtype(self.like._dtype)))

    def where(self, condition: Tensor, a: Any, b: Any) -> Tensor:
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):  # both numbers: a constant
            return self._constant(self.like._backend.xp.where(condition._data, a, b))
        return pointwise.where(condition, a, b)

    def minimum(self, a: Tensor, bound: float) -> Tensor:
        return pointwise.clamp(a, max=bound)

    @staticmethod
    def concat(tensors: list, axis: int) -> Tensor:
        return cat(tensors, axis)

    def clip(self, a: Tensor, lo: float, hi: float) -> Tensor:
        return pointwise.clamp(a, lo, hi)

    def mask(self, condition: Tensor, like: Tensor) -> Tensor:
        return self._constant(condition._data)


class _PiecewiseConstant(Function):
    """``x ↦ data``: a value that depends on ``x`` only through comparisons; derivative zero."""

    _backward_name = "PiecewiseConstantBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, data: Any) -> Tensor:
        ctx.meta = (tuple(x.shape), x._dtype, x._device)
        return Tensor._make(data, x._device)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return Tensor._zeros(*ctx.meta), None


_ARRAY_MATH: dict = {}


def array_math(xp: Any) -> ArrayMath:
    """The (cached) array namespace of one array library."""
    m = _ARRAY_MATH.get(id(xp))
    if m is None:
        m = _ARRAY_MATH[id(xp)] = ArrayMath(xp)
    return m


def math_for(x: Tensor) -> Any:
    """The namespace a backward should use now: tensors under ``create_graph=True``, else arrays."""
    return TensorMath(x) if grad_mode._state.enabled else array_math(x._backend.xp)


def differentiable_backward() -> bool:
    """True while a backward runs with ``create_graph=True`` (grad mode is then on):
    its results must be built from tensor operations so that they can be differentiated again."""
    return grad_mode._state.enabled
