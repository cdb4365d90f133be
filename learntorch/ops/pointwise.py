"""Element-wise operations: arithmetic, functions of one tensor, comparisons, casts.

Each differentiable operation is an ``autograd.Function``: ``forward`` computes
on the backend arrays, ``backward`` states the derivative with tensor
operations (so that ``create_graph=True`` can differentiate it again).  When
inputs were broadcast in forward, backward sums the gradient back to each
input's shape (``sum_to``), and casts it back to the input's dtype.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import warn_always
from .. import dtypes
from ..autograd import grad_mode
from ..autograd.bfloat16_compute import computes_in_float32
from ..autograd.function import Function
from ..device import device
from ..arrays import for_device, transfer
from ..tensor import Tensor, _parse_to
from ..tensor_arguments import require_tensor
from .common import binary_operands, check_kernel_dtype, infer_size, new_result, number_operand, sum_to

__all__ = ["add", "sub", "rsub", "mul", "div", "rdiv", "neg", "pow", "rpow", "exp", "log", "sqrt", "abs",
           "sin", "cos", "tanh", "sigmoid", "relu", "clamp", "reciprocal", "maximum", "minimum", "where",
           "to_copy", "clone", "compare", "logical", "sign", "square", "rsqrt", "log1p", "floor_divide",
           "remainder", "isnan", "isinf", "isfinite", "logical_not", "bitwise_not", "floor", "ceil", "round",
           "trunc", "expm1", "log2", "log10", "exp2"]


def _meta(x: Any) -> Optional[tuple]:
    """What backward needs to shape an input's gradient: its shape and dtype (None for numbers)."""
    return (x._data.shape, x._dtype) if isinstance(x, Tensor) else None


def _grad_for(grad: Tensor, meta: Optional[tuple]) -> Optional[Tensor]:
    """Sum a broadcast gradient back to the input's shape and cast it to the input's dtype."""
    if meta is None:
        return None
    shape, dt = meta
    if grad._data.shape == shape and grad._dtype is dt:  # no broadcast, no promotion: the usual case
        return grad
    g = sum_to(grad, shape)
    return g if g._dtype is dt else g.to(dt)


# A backward that records nothing (``loss.backward()``, the common case) computes on the
# arrays; under ``create_graph=True`` (grad mode on during backward) the same formula runs as
# tensor operations, so that it can be differentiated again.  The helpers below pick.
def _scaled(grad: Tensor, k: Any) -> Tensor:
    """``grad * k`` for a Python number ``k``."""
    if grad_mode._state.enabled:
        return grad * k
    return new_result(grad._data * (number_operand(grad, k) if type(k) is float else k), grad)


def _times(grad: Tensor, t: Tensor) -> Tensor:
    """``grad * t`` for a tensor ``t`` (broadcast, with PyTorch's type promotion)."""
    if grad_mode._state.enabled:
        return grad * t
    xa, xb, _ = binary_operands(grad, t)
    return new_result(xa * xb, grad)


def _negated(grad: Tensor) -> Tensor:
    if grad_mode._state.enabled:
        return -grad
    return new_result(-grad._data, grad)


# ----------------------------------------------------------------------------- binary
class Add(Function):
    _backward_name = "AddBackward0"
    _scalar_edges = True

    @staticmethod
    def forward(ctx, a: Tensor, b: Any, alpha: Any = 1) -> Tensor:
        xa, xb, _ = binary_operands(a, b)
        ctx.metas, ctx.alpha = (_meta(a), _meta(b)), alpha
        if alpha == 1:
            return new_result(xa + (number_operand(a, xb) if type(xb) is float else xb), a)
        return new_result(xa + xb * alpha, a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        ma, mb = ctx.metas
        gb = grad if ctx.alpha == 1 else _scaled(grad, ctx.alpha)
        return (_grad_for(grad, ma) if ctx.needs_input_grad[0] else None,
                _grad_for(gb, mb) if ctx.needs_input_grad[1] else None)


def check_bool_subtraction(a: Any, b: Any) -> None:
    """PyTorch refuses ``-`` when a bool tensor takes part: ``1 - mask`` is usually meant to invert
    the mask (``~mask``), and ``mask_a - mask_b`` to tell the masks apart (``^``)."""
    a_bool = type(a) is bool or getattr(a, "_dtype", None) is dtypes.bool
    b_bool = type(b) is bool or getattr(b, "_dtype", None) is dtypes.bool
    if not (a_bool or b_bool):
        return
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                           "the `^` or `logical_xor()` operator instead.")
    raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                       "invert a mask, use the `~` or `logical_not()` operator instead.")


class Sub(Function):
    _backward_name = "SubBackward0"
    _scalar_edges = True

    @staticmethod
    def forward(ctx, a: Tensor, b: Any, alpha: Any = 1) -> Tensor:
        check_bool_subtraction(a, b)
        xa, xb, _ = binary_operands(a, b)
        ctx.metas, ctx.alpha = (_meta(a), _meta(b)), alpha
        if alpha == 1:
            return new_result(xa - (number_operand(a, xb) if type(xb) is float else xb), a)
        return new_result(xa - xb * alpha, a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        ma, mb = ctx.metas
        if not ctx.needs_input_grad[1]:
            return _grad_for(grad, ma), None
        # PyTorch's formula: -grad, times alpha only when alpha is not 1
        gb = _negated(grad) if ctx.alpha == 1 else _scaled(grad, -ctx.alpha)
        return (_grad_for(grad, ma) if ctx.needs_input_grad[0] else None), _grad_for(gb, mb)


class AddScalar(Add):
    """``tensor + number`` as PyTorch's own functions compute it inside (``rms_norm``'s ``+ eps``):
    the same maths as :class:`Add`, shown as ``AddBackward1`` with the one edge of the tensor
    (from Python, ``x + 1`` is ``AddBackward0``: the number becomes a tensor, an edge to nothing)."""
    _backward_name = "AddBackward1"
    _scalar_edges = False


class Rsub(Function):
    """``number - tensor``."""
    _backward_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a: Tensor, b: Any) -> Tensor:
        check_bool_subtraction(b, a)
        xa, xb, _ = binary_operands(a, b)
        ctx.meta = _meta(a)
        return new_result(xb - xa, a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return _grad_for(_negated(grad), ctx.meta), None


class Mul(Function):
    _backward_name = "MulBackward0"
    _scalar_edges = True

    @staticmethod
    def forward(ctx, a: Tensor, b: Any) -> Tensor:
        xa, xb, _ = binary_operands(a, b)
        if isinstance(b, Tensor):  # save only what the needed gradients use, as PyTorch does
            ctx.metas = (_meta(a), _meta(b))
            ctx.save_for_backward(b if ctx.needs_input_grad[0] else None,
                                  a if ctx.needs_input_grad[1] else None)
        else:  # a Python number: nothing to save but the number
            ctx.metas = (_meta(a), None)
            ctx.scalar = b
            ctx._saved = ()  # PyTorch saves the number as a tensor: freed by backward, a second one is refused
            if type(xb) is float:
                xb = number_operand(a, xb)
        return new_result(xa * xb, a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        ma, mb = ctx.metas
        if mb is None:
            return _grad_for(_scaled(grad, ctx.scalar), ma), None
        b, a = ctx.saved_tensors
        return (_grad_for(_times(grad, b), ma) if ctx.needs_input_grad[0] else None,
                _grad_for(_times(grad, a), mb) if ctx.needs_input_grad[1] else None)


class MulScalar(Mul):
    """``tensor * number`` as PyTorch's own functions compute it inside (label smoothing's
    weights): :class:`Mul`'s maths, shown as ``MulBackward1`` with the one edge of the tensor."""
    _backward_name = "MulBackward1"
    _scalar_edges = False


class Div(Function):
    _backward_name = "DivBackward0"
    _scalar_edges = True

    @staticmethod
    def forward(ctx, a: Tensor, b: Any) -> Tensor:
        xa, xb, dt = binary_operands(a, b)
        if not dt.is_floating_point:  # true division of integers gives the default float dtype
            fd = dtypes.get_default_dtype()
            xa = a._backend.xp.astype(xa, a._backend.dtype(fd))
            xb = a._backend.xp.astype(xb, a._backend.dtype(fd)) if isinstance(b, Tensor) else float(xb)
        ctx.metas = (_meta(a), _meta(b))
        if isinstance(b, Tensor):
            ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        else:
            ctx.save_for_backward()
            ctx.scalar = b
        with np.errstate(divide="ignore", invalid="ignore"):  # x / 0 is inf or nan, silently, as in PyTorch
            return new_result(xa / xb, a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        ma, mb = ctx.metas
        if mb is None:
            return _grad_for(grad / ctx.scalar, ma), None
        a, b = ctx.saved_tensors
        return (_grad_for(grad / b, ma) if ctx.needs_input_grad[0] else None,
                _grad_for(-grad * a / (b * b), mb) if ctx.needs_input_grad[1] else None)


class DivScalar(Div):
    """``tensor / number`` as PyTorch's own functions compute it inside (``at::div(t, scalar)``): the
    same maths as :class:`Div`, shown as ``DivBackward1`` with the one edge of the tensor."""
    _backward_name = "DivBackward1"
    _scalar_edges = False


class Pow(Function):
    """``tensor ** number``."""
    _backward_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a: Tensor, exponent: Any) -> Tensor:
        if type(exponent) is int and exponent < 0 and not a._dtype.is_floating_point:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        xa, e, _ = binary_operands(a, exponent)
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        if type(e) is float and not e.is_integer():  # (-8) ** (1/3) is nan, 0 ** -0.5 inf, silently, as in PyTorch
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                return new_result(xa ** e, a)
        return new_result(xa ** e, a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (a,) = ctx.saved_tensors
        e = ctx.exponent
        if e == 0:
            return grad * 0, None
        return _grad_for(grad * e * a ** (e - 1), _meta(a)), None


class PowTensor(Function):
    """``tensor ** tensor``."""
    _backward_name = "PowBackward1"

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor) -> Tensor:
        xa, xb, dt = binary_operands(a, b)
        out = new_result(_power(a._backend.xp, xa, xb, dt), a)
        ctx.metas = (_meta(a), _meta(b))
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        a, b, out = ctx.saved_tensors
        ma, mb = ctx.metas
        ga = _grad_for(grad * b * a ** (b - 1), ma) if ctx.needs_input_grad[0] else None
        gb = _grad_for(grad * out * a.log(), mb) if ctx.needs_input_grad[1] else None
        return ga, gb


class Rpow(Function):
    """``number ** tensor``."""
    _backward_name = "PowBackward2"

    @staticmethod
    def forward(ctx, a: Tensor, base: Any) -> Tensor:
        xa, xb, dt = binary_operands(a, base)
        out = new_result(_power(a._backend.xp, xb, xa, dt), a)
        ctx.base = base
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        import math
        (out,) = ctx.saved_tensors
        return grad * out * math.log(ctx.base), None


def _power(xp: Any, base: Any, exponent: Any, dt: dtypes.dtype) -> Any:
    """``base ** exponent`` where the exponent is an array, with PyTorch's answers where NumPy's differ.

    Floats: a negative base to a fractional power is nan, an overflow inf, both silently.
    Integers: a negative exponent gives 0 (1 for a base of 1, ±1 for a base of -1: the
    integer part of ``1 / base**|e|``), where NumPy raises a ValueError."""
    if dt.is_floating_point:
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            return base ** exponent
    negative = exponent < 0
    if not negative.any():
        return base ** exponent
    result = base ** xp.where(negative, 0, exponent)
    odd = exponent % 2 != 0
    reciprocal = xp.where(base == 1, 1, xp.where(base == -1, xp.where(odd, -1, 1), 0))
    return xp.astype(xp.where(negative, reciprocal, result), result.dtype)


class Maximum(Function):
    _backward_name = "MaximumBackward0"

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor) -> Tensor:
        xa, xb, _ = binary_operands(a, b)
        ctx.save_for_backward(a, b)
        return new_result(a._backend.xp.maximum(xa, xb), a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return _min_max_backward(ctx, grad, greater=True)


class Minimum(Function):
    _backward_name = "MinimumBackward0"

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor) -> Tensor:
        xa, xb, _ = binary_operands(a, b)
        ctx.save_for_backward(a, b)
        return new_result(a._backend.xp.minimum(xa, xb), a)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return _min_max_backward(ctx, grad, greater=False)


def _min_max_backward(ctx: Any, grad: Tensor, greater: bool) -> tuple:
    """Where the two inputs tie, PyTorch splits the gradient in half between them."""
    a, b = ctx.saved_tensors
    wins = (a > b) if greater else (a < b)
    half = (a == b).to(grad.dtype) * 0.5
    wa = wins.to(grad.dtype) + half
    ga = _grad_for(grad * wa, _meta(a)) if ctx.needs_input_grad[0] else None
    gb = _grad_for(grad * (1 - wa), _meta(b)) if ctx.needs_input_grad[1] else None
    return ga, gb


class Where(Function):
    _backward_name = "WhereBackward0"
    _scalar_edges = True  # where(c, x, 0.0): PyTorch makes the number a tensor, an input with edge (None, 0)

    @staticmethod
    def forward(ctx, a: Any, b: Any, condition: Tensor = None) -> Tensor:
        like = a if isinstance(a, Tensor) else b
        xa, xb, _ = binary_operands(like, b if like is a else a)
        if like is not a:
            xa, xb = xb, xa
        ctx.save_for_backward(condition)
        ctx.metas = (_meta(a), _meta(b))
        xp = like._backend.xp
        return new_result(xp.where(condition._data, xa, xb), like)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (cond,) = ctx.saved_tensors
        ma, mb = ctx.metas
        zero = grad * 0
        ga = _grad_for(where(cond, grad, zero), ma) if ctx.needs_input_grad[0] else None
        gb = _grad_for(where(cond, zero, grad), mb) if ctx.needs_input_grad[1] else None
        return ga, gb


# ---------------------------------------------------------------------------- alpha, and its old places
def is_number(value: Any) -> bool:
    """A ``Number`` to PyTorch's argument parser: a Python or NumPy number, or a 0-d tensor that
    needs no gradient (``torch.tensor(2.0)`` goes where a number goes)."""
    if isinstance(value, Tensor):
        return value.ndim == 0 and not value._requires_grad
    return isinstance(value, (int, float, complex, np.number, np.bool_))


def check_alpha(alpha: Any, input: Any, other: Any) -> Any:
    """``alpha`` as a Python number, with PyTorch's refusals: a float ``alpha`` for a result of
    integers (``xb * 2.5`` would quietly make it a float), a bool one for anything but bools.  Only
    asked when ``alpha`` is not the plain 1."""
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    result = dtypes.result_type(input, other)
    if result is dtypes.bool and isinstance(alpha, (int, np.integer)):
        return bool(alpha)  # bools stay bools: ``a + 2·b`` is ``a or b``
    if isinstance(alpha, (bool, np.bool_)):
        if result is not dtypes.bool:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, (complex, np.complexfloating)):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    elif isinstance(alpha, (float, np.floating)) and not result.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return alpha


_ALPHA_FIRST_WARNED = [False]  # PyTorch warns of its deprecated overloads once per process, all together


def alpha_first(name: str, alpha: Any, rest: tuple, method: bool, keyword: Any = 1) -> tuple[Any, Any]:
    """``torch.add(x, alpha, other)`` / ``x.add(alpha, other)``: the deprecated overload of ``add`` and
    ``sub`` (and ``add_``, ``sub_``) that PyTorch still takes, with a warning, when the middle
    argument is a number (a 0-d tensor counts): ``x + alpha * other``.  Returns ``(other, alpha)``.
    Anything else with three positional arguments (or with an ``alpha=`` keyword too, here one that
    is not 1) is the TypeError of a function that takes two."""
    taken = 1 if method else 2
    if (len(rest) != 1 or not is_number(alpha) or not (isinstance(rest[0], Tensor) or is_number(rest[0]))
            or type(keyword) is not int or keyword != 1):
        raise TypeError(f"{name}() takes {taken} positional argument{'s' if taken > 1 else ''} but "
                        f"{taken + len(rest)} were given")
    if not _ALPHA_FIRST_WARNED[0] or warn_always.is_warn_always_enabled():
        _ALPHA_FIRST_WARNED[0] = True
        old, new = (("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1") if method else
                    ("Tensor input, Number alpha, Tensor other, *, Tensor out = None",
                     "Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None"))
        warn_always.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one of the "
                         f"following signatures instead:\n\t{name}({new})", UserWarning, stacklevel=3)
    return rest[0], alpha.item() if isinstance(alpha, Tensor) else alpha


def number_alpha(name: str, args: tuple, method: bool) -> None:
    """``torch.subtract(x, 2, 3)``, ``torch.rsub(x, 2, 3)``: the overload ``(Tensor input, Number
    other, Number alpha=1)``, whose ``alpha`` may come third.  Refuses (PyTorch's TypeError) a third
    argument when ``other`` (or that argument) is not a number."""
    other, rest = args[0], args[1:]
    if len(rest) == 1 and is_number(other) and is_number(rest[0]):
        return
    got = ", ".join(["Tensor"] * (not method) + [type(a).__name__ for a in args])
    shown = "" if method else "Tensor input, "
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    f" * ({shown}Tensor other, *, Number alpha = 1{'' if method else ', Tensor out = None'})\n"
                    f" * ({shown}Number other, Number alpha = 1)\n")


def add(input: Tensor, other: Any, *alpha_other: Any, alpha: Any = 1) -> Tensor:
    """``input + alpha * other`` with broadcasting.  (``add(input, alpha, other)``, with a number in
    the middle, is PyTorch's deprecated order of the same: see :func:`alpha_first`.)"""
    if alpha_other:
        other, alpha = alpha_first("add", other, alpha_other, False, alpha)
    if type(alpha) is not int or alpha != 1:
        alpha = check_alpha(alpha, input, other)
    if not isinstance(input, Tensor):
        return Add.apply(other, input, alpha=alpha) if alpha == 1 else add(other * alpha, input)
    return Add.apply(input, other, alpha=alpha)


def sub(input: Tensor, other: Any, *alpha_other: Any, alpha: Any = 1) -> Tensor:
    """``input - alpha * other``.  (``sub(input, alpha, other)``: see :func:`alpha_first`.)"""
    if alpha_other:
        other, alpha = alpha_first("sub", other, alpha_other, False, alpha)
    if type(alpha) is not int or alpha != 1:
        alpha = check_alpha(alpha, input, other)
    if not isinstance(input, Tensor):
        return rsub(other, input)
    return Sub.apply(input, other, alpha=alpha)


def subtract(input: Tensor, other: Any, *number_alpha_: Any, alpha: Any = 1) -> Tensor:
    """``sub`` under its NumPy name; its third positional argument is ``alpha``, when ``other`` is a
    number (PyTorch's ``subtract(Tensor input, Number other, Number alpha=1)``)."""
    if number_alpha_:
        number_alpha("subtract", (other,) + number_alpha_, method=False)
        alpha = number_alpha_[0]
    return sub(input, other, alpha=alpha)


def _alpha_method(name: str, fn: Any) -> Any:
    """``x.add(other, alpha=a)`` and ``x.sub``: the function, with the method's reading of a second
    positional argument (``x.add(alpha, other)``, PyTorch's deprecated order)."""
    def method(self: Tensor, other: Any, *alpha_other: Any, alpha: Any = 1) -> Tensor:
        if alpha_other:
            other, alpha = alpha_first(name, other, alpha_other, True, alpha)
        return fn(self, other, alpha=alpha)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    return method


def _subtract_method(self: Tensor, other: Any, *number_alpha_: Any, alpha: Any = 1) -> Tensor:
    """``x.subtract(other, alpha)``: ``alpha`` may come second when ``other`` is a number."""
    if number_alpha_:
        number_alpha("subtract", (other,) + number_alpha_, method=True)
        alpha = number_alpha_[0]
    return sub(self, other, alpha=alpha)


add_method, sub_method = _alpha_method("add", add), _alpha_method("sub", sub)
_subtract_method.__name__ = _subtract_method.__qualname__ = "subtract"
subtract_method = _subtract_method


def rsub(input: Tensor, other: Any) -> Tensor:
    """``other - input`` for a number ``other``."""
    if isinstance(other, Tensor):
        return Sub.apply(other, input)
    return Rsub.apply(input, other)


def mul(input: Any, other: Any) -> Tensor:
    """Element-wise product (the ``*`` operator) — not the dot product."""
    if not isinstance(input, Tensor):
        input, other = other, input
    return Mul.apply(input, other)


def div(input: Any, other: Any, *, rounding_mode: Optional[str] = None) -> Tensor:
    if rounding_mode is not None:
        dt = dtypes.result_type(input, other)
        if not dt.is_floating_point:  # integers stay integers (PyTorch): divide exactly in float64, cast back
            if rounding_mode in ("floor", "trunc"):
                _check_integer_division(f"div_{rounding_mode}", dt, getattr(input, "_data", None),
                                        getattr(other, "_data", other))
            wide = [x.double() if isinstance(x, Tensor) else x for x in (input, other)]
            return div(*wide, rounding_mode=rounding_mode).to(dt)
        q = div(input, other)
        if rounding_mode == "floor":
            return q.floor()
        if rounding_mode == "trunc":
            return q.trunc()
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    if not isinstance(input, Tensor):
        return rdiv(other, input)
    return Div.apply(input, other)


def rdiv(input: Tensor, other: Any) -> Tensor:
    """``other / input`` for a number: PyTorch computes ``reciprocal(input) * other``."""
    return mul(reciprocal(input if input.is_floating_point() else input.to(dtypes.get_default_dtype())), other)


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001
    if not isinstance(input, Tensor):
        return Rpow.apply(exponent, input)
    if isinstance(exponent, Tensor):
        return PowTensor.apply(input, exponent)
    return Pow.apply(input, exponent)


def rpow(input: Tensor, base: Any) -> Tensor:
    return Rpow.apply(input, base)


def square(input: Tensor) -> Tensor:
    return pow(input, 2)


def maximum(input: Tensor, other: Tensor) -> Tensor:
    require_tensor("maximum", "other", other, 2)  # (a number is PyTorch's TypeError: clamp_min takes one)
    return Maximum.apply(input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    require_tensor("minimum", "other", other, 2)  # (clamp_max takes a number)
    return Minimum.apply(input, other)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    """Pick from ``input`` where ``condition`` holds, else from ``other``.
    With only a condition, the indices where it holds (as ``nonzero(as_tuple=True)``)."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)  # (the method: indexing.nonzero, above this module)
    if input is None or other is None:  # where(c, x): PyTorch has no such form
        given = "Tensor, Tensor" if input is not None else "Tensor, other=Tensor"
        raise TypeError(f"where() received an invalid combination of arguments - got ({given}), but expected one "
                        "of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, *, Tensor out "
                        "= None)\n * (Tensor condition, Number self, Tensor other)\n * (Tensor condition, Tensor "
                        "input, Number other)\n * (Tensor condition, Number self, Number other)\n")
    odd = [v for v in (input, other) if not isinstance(v, (Tensor, int, float, np.number, np.bool_))]
    if odd:  # ``where(c, "a", 1)``: no form takes it
        given = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in (condition, input, other))
        raise TypeError(f"where() received an invalid combination of arguments - got ({given}), but expected one "
                        "of: (Tensor condition, Tensor input, Tensor other) or a Number in place of either")
    if isinstance(condition, Tensor) and condition._dtype is dtypes.uint8:  # the old mask type: still taken
        warn_always.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in "
                         "a future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=2)
        condition = condition != 0
    if not isinstance(condition, Tensor) or condition._dtype is not dtypes.bool:
        kind = dtypes.type_name(condition._dtype) if isinstance(condition, Tensor) else type(condition).__name__
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {kind}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):  # where(c, 1., 0.): two numbers
        input = Tensor._make(condition._backend.asarray(input, dtypes._scalar_dtype(input)), condition._device)
    elif isinstance(other, int) and isinstance(input, Tensor) and not input._dtype.is_floating_point:
        dtypes.check_scalar_fits(other, input._dtype)  # where(c, int8_tensor, 300): PyTorch's overflow error
    elif isinstance(input, int) and isinstance(other, Tensor) and not other._dtype.is_floating_point:
        dtypes.check_scalar_fits(input, other._dtype)
    for t in (input, other):  # the condition broadcasts too: PyTorch's error, not NumPy's ValueError
        if isinstance(t, Tensor) and t._data.shape != condition._data.shape:
            infer_size(condition._data.shape, t._data.shape)
    return Where.apply(input, other, condition=condition)


# ----------------------------------------------------------------------------- unary
class _OnTensors:
    """The functions that the derivatives below use, as differentiable tensor operations
    (the array library has the same names: ``xp.cos``, ``xp.exp`` …)."""

    cos = staticmethod(lambda x: cos(x))
    sin = staticmethod(lambda x: sin(x))
    sign = staticmethod(lambda x: sign(x))
    exp = staticmethod(lambda x: exp(x))
    sqrt = staticmethod(lambda x: sqrt(x))


_ON_TENSORS = _OnTensors()


def _unary(name: str, backward_name: str, forward_fn: Any, derivative: Any, save: str,
           second: Any = None, double_name: str = "") -> type:
    """Build a Function for ``y = f(x)`` with ``dy/dx`` given by ``derivative(m, v)``.

    ``save`` says which of input and result the derivative needs ("input",
    "result") — saving only that one is why ``exp`` survives an in-place change
    of its input but ``log`` does not, exactly as in PyTorch.

    The derivative is written once, with Python's operators and the few functions
    of ``m``: on the arrays (``m`` is the array library) when the backward records
    nothing, on tensors (``m`` is :data:`_ON_TENSORS`) under ``create_graph=True``.
    Where PyTorch has a node of its own for that backward (``SigmoidBackwardBackward0``),
    ``double_name`` names it and ``second`` is the derivative's own derivative (see
    :func:`_backward_op`).
    """
    double = _backward_op(double_name, derivative, second) if double_name else None
    quiet = name in ("Tanh", "Sigmoid", "Abs")  # (sigmoid_kernel silences its one overflow itself)

    def forward(ctx, x: Tensor) -> Tensor:
        data = x._data
        if not x._dtype.is_floating_point:
            if name == "Abs":  # (PyTorch has no abs kernel for bool)
                check_kernel_dtype("abs_cpu", x, ints=True)
            if name not in ("Abs", "Neg", "Relu", "Sign"):
                data = x._backend.xp.astype(data, x._backend.dtype(dtypes.get_default_dtype()))
        if quiet:  # tanh and abs cannot raise a floating-point warning, sigmoid silences its own: no guard (1-2 µs)
            out = new_result(forward_fn(x._backend.xp, data), x)
        else:
            with np.errstate(all="ignore"):  # log(0), sqrt(-1), exp(1000): inf/nan without NumPy's warning
                out = new_result(forward_fn(x._backend.xp, data), x)
        ctx.save_for_backward(x if save == "input" else out if save == "result" else None)
        return out

    def backward(ctx, grad: Tensor) -> Tensor:
        (saved,) = ctx.saved_tensors
        if grad_mode._state.enabled:  # create_graph: differentiable
            if double is not None:
                return double.apply(grad, saved)
            return grad * derivative(_ON_TENSORS, saved)
        if quiet:
            return new_result(grad._data * derivative(saved._backend.xp, saved._data), grad)
        with np.errstate(all="ignore"):  # 1/x at 0, as in the forward
            return new_result(grad._data * derivative(saved._backend.xp, saved._data), grad)

    return type(name, (Function,), {"_backward_name": backward_name, "forward": staticmethod(forward),
                                    "backward": staticmethod(backward), "__module__": __name__})


def _backward_op(name: str, derivative: Any, second: Any) -> type:
    """The backward ``(grad, v) ↦ grad · derivative(v)`` as an operation of its own (for
    ``create_graph=True``), so that the gradient's node is PyTorch's (``TanhBackwardBackward0``).
    It is linear in ``grad`` (its derivative there is itself again) and its derivative with
    respect to the saved ``v`` is ``h · grad · second(v)``."""
    def forward(ctx, grad: Tensor, saved: Tensor) -> Tensor:
        ctx.save_for_backward(grad, saved)
        return new_result(grad._data * derivative(saved._backend.xp, saved._data), grad)

    def backward(ctx, h: Tensor) -> tuple:
        grad, saved = ctx.saved_tensors
        d_grad = op.apply(h, saved) if ctx.needs_input_grad[0] else None
        if not ctx.needs_input_grad[1]:
            return d_grad, None
        if grad_mode._state.enabled:
            return d_grad, h * grad * second(_ON_TENSORS, saved)
        return d_grad, new_result(h._data * grad._data * second(saved._backend.xp, saved._data), saved)

    op = type(name.replace("Backward0", ""), (Function,), {"_backward_name": name, "forward": staticmethod(forward),
                                                            "backward": staticmethod(backward),
                                                            "__module__": __name__})
    return op


Exp = _unary("Exp", "ExpBackward0", lambda xp, a: xp.exp(a), lambda m, y: y, "result")
Log = _unary("Log", "LogBackward0", lambda xp, a: xp.log(a), lambda m, x: 1 / x, "input")
Sqrt = _unary("Sqrt", "SqrtBackward0", lambda xp, a: xp.sqrt(a), lambda m, y: 0.5 / y, "result")
Sin = _unary("Sin", "SinBackward0", lambda xp, a: xp.sin(a), lambda m, x: m.cos(x), "input")
Cos = _unary("Cos", "CosBackward0", lambda xp, a: xp.cos(a), lambda m, x: -m.sin(x), "input")
Tanh = _unary("Tanh", "TanhBackward0", lambda xp, a: xp.tanh(a), lambda m, y: 1 - y * y, "result",
              lambda m, y: -2 * y, "TanhBackwardBackward0")  # d/dy (1 - y²)
def sigmoid_kernel(xp: Any, a: Any) -> Any:
    """σ(a) = 1 / (1 + e⁻ᵃ), PyTorch's own formula, so also its numbers (bit for bit on most
    inputs).  For a < -88 (float32) e⁻ᵃ overflows to inf and 1 / (1 + inf) is the right 0,
    as in PyTorch: the overflow is expected, so NumPy is told not to warn about it.
    (Also the gates of the fused GRU and LSTM cells, ``formula.ArrayMath.sigmoid``.)"""
    with np.errstate(over="ignore"):
        e = xp.exp(-a)
    e += 1
    return 1 / e


Sigmoid = _unary("Sigmoid", "SigmoidBackward0", sigmoid_kernel, lambda m, y: y * (1 - y), "result",
                 lambda m, y: 1 - 2 * y, "SigmoidBackwardBackward0")  # d/dy y(1 - y)
Reciprocal = _unary("Reciprocal", "ReciprocalBackward0", lambda xp, a: 1 / a, lambda m, y: -y * y, "result")
Rsqrt = _unary("Rsqrt", "RsqrtBackward0", lambda xp, a: 1 / xp.sqrt(a), lambda m, y: -0.5 * y * y * y, "result")
Log1p = _unary("Log1p", "Log1PBackward0", lambda xp, a: xp.log1p(a), lambda m, x: 1 / (1 + x), "input")
Expm1 = _unary("Expm1", "Expm1Backward0", lambda xp, a: xp.expm1(a), lambda m, y: y + 1, "result")
Log2 = _unary("Log2", "Log2Backward0", lambda xp, a: xp.log2(a), lambda m, x: 1 / (x * 0.6931471805599453), "input")
Log10 = _unary("Log10", "Log10Backward0", lambda xp, a: xp.log10(a), lambda m, x: 1 / (x * 2.302585092994046),
               "input")
Exp2 = _unary("Exp2", "Exp2Backward0", lambda xp, a: xp.pow(2.0, a) if hasattr(xp, "pow") else 2.0 ** a,
              lambda m, y: y * 0.6931471805599453, "result")
Abs = _unary("Abs", "AbsBackward0", lambda xp, a: xp.abs(a), lambda m, x: m.sign(x), "input")
_SMALL_SELECT = 1024  # elements: below this, ``np.where`` is the faster select (measured on NumPy 2.4)
_SAME_SIZE_INT = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def _zero_where(cond: Any, values: Any, backend: Any) -> Any:
    """``cond ? 0 : values``, element by element: PyTorch's *select*, which relu and its
    backward are.  A selected value passes through untouched (NaN, inf and -0 included),
    and what is not selected is +0.

    On NumPy, ``np.where`` with a mask that follows the data (half the signs of a
    layer's output) is five to ten times slower than a pass of arithmetic, and
    ``values * keep`` is not a select (``inf * 0`` is NaN).  So the select is done on
    the bits: an integer mask with every bit set where ``values`` is kept and none
    where it is not, and'ed with ``values``' bits.  Two passes, like ``maximum``.

    Below about a thousand elements the three calls of the bit trick cost more than the
    select itself, and ``np.where`` (one call) is the faster of the two."""
    if backend.is_numpy and values.size <= _SMALL_SELECT and values.dtype.kind != "b":
        return np.where(cond, 0, values)  # (a Python 0 takes ``values``' dtype: +0 of that dtype)
    if backend.is_numpy and values.dtype.kind in "fiu":
        ints = _SAME_SIZE_INT[values.dtype.itemsize]
        mask = np.subtract(cond, 1, dtype=ints)  # True -> 0 (drop), False -> -1 (all bits set: keep)
        np.bitwise_and(values.view(ints), mask, out=mask)
        return mask.view(values.dtype)
    xp = backend.xp
    return xp.where(cond, xp.zeros_like(values), values)


def _threshold_backward(grad: Tensor, y: Tensor) -> Tensor:
    """PyTorch's ``threshold_backward(grad, y, 0)``: ``y <= 0 ? 0 : grad``, on the arrays.
    (Where relu's output is NaN, the gradient passes, as in PyTorch.)"""
    return new_result(_zero_where(y._data <= 0, grad._data, grad._backend), grad)


class ThresholdBackward(Function):
    """ReLU's backward as an operation of its own (PyTorch's ``threshold_backward``): the gradient
    where the output is not ``<= 0``, +0 elsewhere.  Recorded, so ``create_graph=True`` can
    differentiate relu twice (the second derivative is 0)."""

    _backward_name = "ThresholdBackwardBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(y)
        return _threshold_backward(grad, y)

    @staticmethod
    def backward(ctx, gg: Tensor) -> tuple:
        (y,) = ctx.saved_tensors
        return ThresholdBackward.apply(gg, y), Tensor._zeros(y.shape, y._dtype, y._device)


class Relu(Function):
    """``max(x, 0)``, computed as PyTorch does, ``x < 0 ? 0 : x`` (so ``relu(-0.0)`` is -0 and
    NaN stays NaN).  Backward: the gradient where the output is not ``<= 0``, 0 elsewhere, as
    an operation of its own (:class:`ThresholdBackward`), so that it can be differentiated again.

    Written out rather than made by ``_unary``: its forward skips ``_unary``'s ``errstate``
    guard, which costs more than the select itself on small batches (a select has no
    warning to silence), and its backward is not ``grad * derivative`` but the threshold
    operation above."""

    _backward_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        if x._dtype is dtypes.bool:
            raise RuntimeError("Boolean inputs not supported for relu")
        a = x._data
        out = new_result(_zero_where(a < 0, a, x._backend), x)  # PyTorch's ``x < 0 ? 0 : x``: -0 and NaN stay
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        if not grad_mode._state.enabled:  # a plain backward records nothing: no operation needed
            return _threshold_backward(grad, y)
        return ThresholdBackward.apply(grad, y)


class Neg(Function):
    _backward_name = "NegBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        if x._dtype is dtypes.bool:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                               "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        return new_result(-x._data, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return _negated(grad)


class Clamp(Function):
    _backward_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        xp, data = x._backend.xp, x._data
        dt = dtypes.result_type(x, *(b for b in (min, max) if b is not None))
        if dt is not x._dtype:  # an integer tensor clamped to a float bound becomes float, as in PyTorch
            data = xp.astype(data, x._backend.dtype(dt))
        elif not dt.is_floating_point:  # clamp(int8_tensor, max=300): PyTorch's overflow error
            min, max = (dtypes.check_scalar_fits(bound, dt) for bound in (min, max))  # noqa: A001
        if min is not None:
            data = xp.maximum(data, xp.asarray(min, dtype=data.dtype, device=x._backend.native_device)
                              if not x._backend.is_numpy else data.dtype.type(min))
        if max is not None:
            data = xp.minimum(data, xp.asarray(max, dtype=data.dtype, device=x._backend.native_device)
                              if not x._backend.is_numpy else data.dtype.type(max))
        ctx.save_for_backward(x)
        ctx.bounds = (min, max)
        return new_result(data, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        lo, hi = ctx.bounds
        keep = None
        if lo is not None:
            keep = x >= lo
        if hi is not None:
            keep = (x <= hi) if keep is None else keep & (x <= hi)
        return grad * keep.to(grad.dtype), None, None


def _make_unary_function(cls: type) -> Any:
    def fn(input: Tensor) -> Tensor:
        return cls.apply(input)
    fn.__name__ = cls.__name__.lower()
    return fn


exp = _make_unary_function(Exp)
log = _make_unary_function(Log)
sqrt = _make_unary_function(Sqrt)
sin = _make_unary_function(Sin)
cos = _make_unary_function(Cos)
tanh = _make_unary_function(Tanh)
sigmoid = _make_unary_function(Sigmoid)
reciprocal = _make_unary_function(Reciprocal)
rsqrt = _make_unary_function(Rsqrt)
log1p = _make_unary_function(Log1p)
expm1 = _make_unary_function(Expm1)
log2 = _make_unary_function(Log2)
log10 = _make_unary_function(Log10)
exp2 = _make_unary_function(Exp2)
abs = _make_unary_function(Abs)  # noqa: A001
relu = _make_unary_function(Relu)
neg = _make_unary_function(Neg)


class ClampMin(Clamp):
    _backward_name = "ClampMinBackward0"


class ClampMax(Clamp):
    _backward_name = "ClampMaxBackward0"


class ClampTensor(Function):
    """``clamp`` with tensor bounds (one may be None): ``min(max(x, lo), hi)`` element by element.

    Backward: ``x`` gets the gradient where it is the result (``lo <= x <= hi``); a bound gets it
    where *it* is the result: ``lo`` where ``x < lo`` (and ``lo < hi``, else ``hi`` wins), ``hi``
    where ``x > hi`` or where ``hi < lo``.  Each gradient is summed back to its own shape."""

    _backward_name = "ClampBackward0"
    _none_edges = True  # a bound not given: still an input of the node, ``(None, 0)`` as in PyTorch

    @staticmethod
    def forward(ctx, x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        dt = dtypes.result_type(x, *(b for b in (min, max) if b is not None))
        xp, be = x._backend.xp, x._backend
        data = xp.astype(x._data, be.dtype(dt)) if dt is not x._dtype else x._data
        if min is not None:
            data = xp.maximum(data, xp.astype(min._data, be.dtype(dt)))
        if max is not None:
            data = xp.minimum(data, xp.astype(max._data, be.dtype(dt)))
        ctx.save_for_backward(x, min, max)
        return new_result(data, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, lo, hi = ctx.saved_tensors
        zero = grad.new_zeros(())
        keep = None if lo is None else x >= lo
        if hi is not None:
            keep = (x <= hi) if keep is None else keep & (x <= hi)
        gx = sum_to(where(keep, grad, zero), tuple(x.shape))
        g_lo = g_hi = None
        if lo is not None and ctx.needs_input_grad[1]:
            lo_wins = x < lo if hi is None else (x < lo) & (lo < hi)
            g_lo = sum_to(where(lo_wins, grad, zero), tuple(lo.shape))
        if hi is not None and ctx.needs_input_grad[2]:
            hi_wins = x > hi if lo is None else (x > hi) | (hi < lo)
            g_hi = sum_to(where(hi_wins, grad, zero), tuple(hi.shape))
        return gx, g_lo, g_hi


class ClampMinTensor(ClampTensor):
    _backward_name = "ClampMinBackward1"
    _none_edges = False  # PyTorch's clamp_min has no max input: the None passed for it is no edge


class ClampMaxTensor(ClampTensor):
    _backward_name = "ClampMaxBackward1"
    _none_edges = False  # (and clamp_max no min input)


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Limit values to ``[min, max]``; the gradient is zero where a bound was active.  Tensor
    bounds get their own gradient (:class:`ClampTensor`)."""
    tensors = [isinstance(b, Tensor) for b in (min, max)]
    for b, is_tensor in zip((min, max), tensors):
        if is_tensor:  # (PyTorch's error for bounds that do not broadcast, not NumPy's ValueError)
            infer_size(input.shape, b.shape)
        elif b is not None and not isinstance(b, (int, float, np.number, np.bool_)):
            raise TypeError(f"clamp() received an invalid combination of arguments - got (Tensor, "
                            f"{type(b).__name__}), but expected one of: (Tensor input, Tensor min = None, Tensor "
                            f"max = None) or (Tensor input, Number min = None, Number max = None)")
    if any(tensors):
        if all(t or b is None for t, b in zip(tensors, (min, max))):
            if all(tensors):  # (PyTorch's kernel for two tensor bounds has no bools; one bound's has)
                check_kernel_dtype("clamp_cpu", input, ints=True)
            return ClampTensor.apply(input, min, max)
        # a tensor beside a number: PyTorch reads the (one-element) tensor as a number too
        min, max = (b.item() if isinstance(b, Tensor) else b for b in (min, max))  # noqa: A001
    return Clamp.apply(input, min=min, max=max)


# ----------------------------------------------------------------------------- no gradient
def _nondiff(x: Tensor, data: Any, dt: Optional[dtypes.dtype] = None) -> Tensor:
    """A result without gradient; with ``dt``, in that dtype (NumPy hands back float32 for a
    bfloat16 array and a Python number: computed in float32, rounded here, as PyTorch does)."""
    if dt is not None and dtypes.from_any(data.dtype) is not dt:
        data = x._backend.xp.astype(data, x._backend.dtype(dt))
    return new_result(data, x)


class _Step(Function):
    """A piecewise-constant function (sign, floor, round …).  Its derivative is zero,
    but, as in PyTorch, it is still recorded: the result requires grad and has a
    ``grad_fn`` (``FloorBackward0``), and backward passes zeros through it."""

    @staticmethod
    def forward(ctx, x: Tensor, fn: Any) -> Tensor:
        return new_result(fn(x._backend.xp, x._data), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return Tensor._zeros(grad.shape, grad._dtype, grad._device), None


def _step(backward_name: str) -> type:
    return type(backward_name.replace("Backward", "Step"), (_Step,), {"_backward_name": backward_name,
                                                                     "__module__": __name__})


_Sign, _Floor, _Ceil, _Round, _RoundDecimals, _Trunc = (_step(n) for n in (
    "SignBackward0", "FloorBackward0", "CeilBackward0", "RoundBackward0", "RoundBackward1", "TruncBackward0"))


class Fill(Function):
    """``x.fill_(v)`` on a tensor in the graph: the old values get a zero gradient."""
    _backward_name = "FillBackward2"

    @staticmethod
    def forward(ctx, x: Tensor, value: Any) -> Tensor:
        be = x._backend
        return new_result(be.xp.full(x._data.shape, value, dtype=x._data.dtype, device=be.native_device), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return Tensor._zeros(grad.shape, grad._dtype, grad._device), None


class Zero(Fill):
    _backward_name = "ZeroBackward0"


class CopyFrom(Function):
    """``x.copy_(src)``: ``src``'s values (cast, moved, broadcast) replace ``x``'s; the
    gradient goes to ``src`` (summed back over broadcasting), none to the old ``x``."""
    _backward_name = "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, x: Tensor, src: Tensor) -> Tensor:
        be = x._backend
        data = transfer(src._data, src._device, x._device)
        if src._dtype is not x._dtype:
            data = be.xp.astype(data, be.dtype(x._dtype))
        ctx.src_meta = (tuple(src.shape), src._dtype, src._device)
        return new_result(be.xp.asarray(be.xp.broadcast_to(data, x._data.shape), copy=True), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        shape, dt, dev = ctx.src_meta
        g = sum_to(grad, shape)
        if g._dtype is not dt or g._device != dev:
            g = g.to(device=dev, dtype=dt)
        return Tensor._zeros(grad.shape, grad._dtype, grad._device), g


def _sign_kernel(xp: Any, a: Any) -> Any:
    """-1, 0 or 1; as in PyTorch, the sign of nan is 0 (NumPy's is nan) and a bool stays itself."""
    if a.dtype == bool:
        return xp.asarray(a, copy=True)
    out = xp.sign(a)
    nan = out != out  # (False everywhere for integers)
    return xp.where(nan, xp.zeros_like(out), out)


def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1; its derivative is zero everywhere."""
    return _Sign.apply(input, _sign_kernel)


def floor(input: Tensor) -> Tensor:
    check_kernel_dtype("floor_vml_cpu", input, ints=True)
    return _Floor.apply(input, lambda xp, a: xp.floor(a))


def ceil(input: Tensor) -> Tensor:
    check_kernel_dtype("ceil_vml_cpu", input, ints=True)
    return _Ceil.apply(input, lambda xp, a: xp.ceil(a))


def round(input: Tensor, *, decimals: Optional[int] = None) -> Tensor:  # noqa: A001
    """To the nearest integer (ties to even).  Given ``decimals`` (even 0), PyTorch takes its other
    overload: :func:`round_decimals`."""
    if decimals is not None:
        return round_decimals(input, decimals)
    check_kernel_dtype("round_vml_cpu", input, ints=True)
    return _Round.apply(input, lambda xp, a: xp.round(a))


def round_decimals(input: Tensor, decimals: int = 0) -> Tensor:
    """``round`` to ``decimals`` places, PyTorch's ``decimals`` overload (``RoundBackward1`` even
    for 0, as ``torch.special.round`` calls it): for floats only, unlike the plain ``round``."""
    check_kernel_dtype("round_cpu" if decimals else "round_vml_cpu", input)
    if decimals:
        return _RoundDecimals.apply(input, lambda xp, a: _round_decimals_kernel(xp, a, decimals))
    return _RoundDecimals.apply(input, lambda xp, a: xp.round(a))


def _round_decimals_kernel(xp: Any, a: Any, decimals: int) -> Any:
    """PyTorch's ``round(decimals=d)``: in float32 for the 16-bit floats (``1000.5 * 100`` would
    overflow float16), by ``10**|d|`` rounded to that type -- multiplied then divided for
    ``d > 0``, divided then multiplied for ``d < 0`` (not multiplied by ``10**d``, inexact)."""
    half = getattr(a.dtype, "kind", "") == "f" and a.dtype.itemsize == 2  # (the array-API stand-in has none)
    work = xp.astype(a, xp.float32) if half else a
    ten = 10.0 ** (decimals if decimals > 0 else -decimals)  # (a Python number: rounded to work's dtype)
    out = xp.round(work / ten) * ten if decimals < 0 else xp.round(work * ten) / ten
    return xp.astype(out, a.dtype) if half else out


def trunc(input: Tensor) -> Tensor:
    check_kernel_dtype("trunc_vml_cpu", input, ints=True)
    return _Trunc.apply(input, lambda xp, a: xp.trunc(a))


def floor_divide(input: Tensor, other: Any) -> Tensor:
    """``input // other``: the quotient rounded down."""
    xa, xb, dt = binary_operands(input, other)
    if not dt.is_floating_point:
        _check_integer_division("div_floor", dt, xa, xb)
        return _nondiff(input, xa // xb, dt)
    with np.errstate(divide="ignore", invalid="ignore"):  # x // 0 is ±inf or nan, silently, as in PyTorch
        return _nondiff(input, xa // xb, dt)


def _check_integer_division(name: str, dt: dtypes.dtype, xa: Any, xb: Any) -> None:
    """Integer ``//``, ``%``, ``fmod``, ``div(rounding_mode=…)`` by zero have no answer: PyTorch
    raises ``RuntimeError: ZeroDivisionError`` where NumPy gives 0 with a RuntimeWarning.  Bool
    tensors have no division at all.  Called for integer dtypes only (floats give inf/nan)."""
    if dt is dtypes.bool:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
    zero = xb == 0
    if hasattr(xb, "shape"):  # an array: the stand-in's have no .any() method, only their namespace's any()
        namespace = getattr(zero, "__array_namespace__", None)
        zero = namespace().any(zero) if namespace is not None else zero.any()
    if getattr(xa, "size", 1) and bool(zero):
        raise RuntimeError("ZeroDivisionError")  # (an empty result divides nothing: no error)


def remainder(input: Tensor, other: Any) -> Tensor:
    """Python's ``%``: ``a - floor(a / b)·b``, the sign following the divisor (``fmod``'s follows the dividend).

    ``input`` may be a number when ``other`` is a tensor (``torch.remainder(-1.5, t)``, as PyTorch
    allows; it is then a 0-d tensor of the number's default dtype, which promotes the same way)."""
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        input = Tensor._make(other._backend.asarray(input, dtypes._scalar_dtype(input)), other._device)
    return (Remainder if isinstance(other, Tensor) else RemainderScalar).apply(input, other)


_COMPARE = {"eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__", "ge": "__ge__"}


def compare(op: str, input: Tensor, other: Any) -> Tensor:
    """``==``, ``<`` … element-wise; the result is a bool tensor (never requires grad)."""
    xa, xb, _ = binary_operands(input, other)
    return _nondiff(input, getattr(xa, _COMPARE[op])(xb))


def logical(op: str, input: Tensor, other: Any) -> Tensor:
    """``&``, ``|``, ``^`` on bool or integer tensors."""
    xa, xb, dt = binary_operands(input, other)
    if dt.is_floating_point:
        kind = dtypes.type_name(dt)
        raise NotImplementedError(f'"bitwise_{op}_cpu" not implemented for \'{kind}\'')
    return _nondiff(input, {"and": xa.__and__, "or": xa.__or__, "xor": xa.__xor__}[op](xb))


def logical_not(input: Tensor) -> Tensor:
    xp = input._backend.xp  # (the array API's logical_not takes bools only: test for non-zero first)
    data = input._data if input._dtype is dtypes.bool else input._data != 0
    return _nondiff(input, xp.logical_not(data))


def bitwise_not(input: Tensor) -> Tensor:
    if input._dtype.is_floating_point:  # (an integer kernel)
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{dtypes.type_name(input._dtype)}'")
    return _nondiff(input, ~input._data)


def invert(input: Tensor) -> Tensor:
    """``~x``: ``bitwise_not``, but Python's operator refuses a float tensor with a TypeError where
    the function's kernel raises a NotImplementedError (both as PyTorch does)."""
    if input._dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _nondiff(input, ~input._data)


def isnan(input: Tensor) -> Tensor:
    return _nondiff(input, input._backend.xp.isnan(input._data))


def isinf(input: Tensor) -> Tensor:
    return _nondiff(input, input._backend.xp.isinf(input._data))


def isfinite(input: Tensor) -> Tensor:
    return _nondiff(input, input._backend.xp.isfinite(input._data))


# ----------------------------------------------------------------------------- copies and casts
class ToCopy(Function):
    """A copy in another dtype and/or on another device (``.to``, ``.float()``, ``.cpu()``)."""
    _backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dev: device = None, dt: dtypes.dtype = None) -> Tensor:
        data = transfer(x._data, x._device, dev)
        be = for_device(dev)
        if dt is not x._dtype and x._dtype.is_floating_point and not (
                dt.is_floating_point and dt.itemsize >= x._dtype.itemsize):
            with np.errstate(over="ignore", invalid="ignore"):  # 7e4 -> float16 is inf, nan -> int64 some
                data = be.xp.astype(data, be.dtype(dt))       # integer: silently, as in PyTorch
        elif dt is not x._dtype:
            data = be.xp.astype(data, be.dtype(dt))
        elif data is x._data:
            data = be.xp.asarray(data, copy=True)
        ctx.source = (x._device, x._dtype)
        return Tensor._make(data, dev)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        dev, dt = ctx.source
        return to_copy(grad, dev, dt), None, None


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``x.to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(other)``; returns
    ``self`` when nothing changes, a differentiable copy (``ToCopyBackward0``) otherwise."""
    dev, dt, copy = _parse_to(self, args, kwargs)
    if dev == self._device and dt is self._dtype and not copy:
        return self
    return to_copy(self, dev, dt)


def to_copy(x: Tensor, dev: device, dt: dtypes.dtype) -> Tensor:
    if x._requires_grad and not dt.is_floating_point:
        with_grad = ToCopy.apply(x.detach(), dev=dev, dt=dt)
        return with_grad
    return ToCopy.apply(x, dev=dev, dt=dt)


class Clone(Function):
    _backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        return new_result(x._backend.xp.asarray(x._data, copy=True), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return grad


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy with its own memory that stays in the graph (unlike ``detach``)."""
    return Clone.apply(input)


# ---------------------------------------------------------------------------- more trigonometry
# d tan = 1 + tan², d asin = 1/√(1-x²), d acos = -1/√(1-x²), d atan = 1/(1+x²),
# d sinh = cosh, d cosh = sinh (written with exp, which is already differentiable).
Tan = _unary("Tan", "TanBackward0", lambda xp, a: xp.tan(a), lambda m, y: 1 + y * y, "result")
Asin = _unary("Asin", "AsinBackward0", lambda xp, a: xp.arcsin(a), lambda m, x: 1 / m.sqrt(1 - x * x), "input")
Acos = _unary("Acos", "AcosBackward0", lambda xp, a: xp.arccos(a), lambda m, x: -1 / m.sqrt(1 - x * x), "input")
Atan = _unary("Atan", "AtanBackward0", lambda xp, a: xp.arctan(a), lambda m, x: 1 / (1 + x * x), "input")
Sinh = _unary("Sinh", "SinhBackward0", lambda xp, a: xp.sinh(a), lambda m, x: (m.exp(x) + m.exp(-x)) / 2, "input")
Cosh = _unary("Cosh", "CoshBackward0", lambda xp, a: xp.cosh(a), lambda m, x: (m.exp(x) - m.exp(-x)) / 2, "input")
tan, asin, acos, atan, sinh, cosh = (_make_unary_function(c) for c in (Tan, Asin, Acos, Atan, Sinh, Cosh))
arcsin, arccos, arctan = asin, acos, atan
__all__ += ["tan", "asin", "acos", "atan", "sinh", "cosh"]


# ---------------------------------------------------------------------------- atan2, lerp, frac, fmod
class Atan2(Function):
    """The angle of the point (x, y): ``atan2(y, x)``; ∂/∂y = x/(x²+y²), ∂/∂x = -y/(x²+y²)."""

    _backward_name = "Atan2Backward0"

    @staticmethod
    def forward(ctx, y: Tensor, x: Tensor) -> Tensor:
        a, b, _ = binary_operands(y, x)
        ctx.save_for_backward(y, x)
        return new_result(y._backend.xp.atan2(a, b), y)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        y, x = ctx.saved_tensors
        r2 = x * x + y * y
        return sum_to(grad * x / r2, tuple(y.shape)), sum_to(-grad * y / r2, tuple(x.shape))


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of (other, input); both must be tensors, and integer tensors give the default
    float dtype, as in PyTorch."""
    _require_tensors("atan2", input, other)
    if not input._dtype.is_floating_point and not other._dtype.is_floating_point:
        input = input.to(dtypes.get_default_dtype())
    return Atan2.apply(input, other)


def _require_tensors(name: str, input: Any, other: Any) -> None:
    """PyTorch's TypeError for an operation whose operands must both be tensors (``atan2``, ``hypot``)."""
    for arg, position, value in (("input", 1, input), ("other", 2, other)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")


@computes_in_float32
def _lerp_kernel(xp: Any, start: Any, end: Any, weight: Any) -> Any:
    """PyTorch's two-sided formula: from ``start`` for small weights, from ``end`` for large ones,
    so that ``weight == 1`` gives ``end`` exactly (``start + 1·(end - start)`` may not)."""
    diff = end - start
    return xp.where(xp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


class Lerp(Function):
    """``lerp(start, end, weight)`` with a number ``weight``: ∂/∂start = 1 - w, ∂/∂end = w."""
    _backward_name = "LerpBackward0"

    @staticmethod
    def forward(ctx, start: Tensor, end: Tensor, weight: Any = 0.5) -> Tensor:
        xp = start._backend.xp
        np_dt = start._backend.dtype(start._dtype)
        w = weight._data if isinstance(weight, Tensor) else xp.asarray(weight, dtype=np_dt)
        with np.errstate(all="ignore"):
            out = xp.astype(xp.asarray(_lerp_kernel(xp, start._data, end._data, w)), np_dt)
        ctx.metas = (_meta(start), _meta(end), _meta(weight))
        ctx.weight = weight
        if isinstance(weight, Tensor):
            ctx.save_for_backward(start, end, weight)
        return new_result(out, start)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        ms, me, mw = ctx.metas
        w = ctx.weight
        g_w = None
        if isinstance(w, Tensor):
            start, end, w = ctx.saved_tensors
            if ctx.needs_input_grad[2]:
                g_w = _grad_for(grad * (end - start), mw)
        g_start = _grad_for(grad * (1 - w), ms) if ctx.needs_input_grad[0] else None
        g_end = _grad_for(grad * w, me) if ctx.needs_input_grad[1] else None
        return (g_start, g_end, g_w) if isinstance(ctx.weight, Tensor) else (g_start, g_end)


class LerpTensorWeight(Lerp):
    """``lerp`` with a tensor ``weight`` (also differentiated: ∂/∂w = end - start)."""
    _backward_name = "LerpBackward1"


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight·(end - input)``: linear interpolation (as PyTorch computes it, see
    :func:`_lerp_kernel`).  ``end`` and a tensor ``weight`` must have ``input``'s dtype."""
    check_kernel_dtype("lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar", input)
    for name, other in (("end", end), ("weight", weight)):
        if isinstance(other, Tensor) and other._dtype is not input._dtype:
            raise RuntimeError(f"expected dtype {dtypes.c_type_name(input._dtype)} for `{name}` but got dtype "
                               f"{dtypes.c_type_name(other._dtype)}")
    if isinstance(weight, Tensor):
        infer_size(infer_size(input.shape, end.shape), weight.shape)  # (PyTorch's error if they do not broadcast)
        return LerpTensorWeight.apply(input, end, weight)
    infer_size(input.shape, end.shape)
    return Lerp.apply(input, end, weight=weight)


def frac(input: Tensor) -> Tensor:
    """The fractional part, with the sign of the input: ``x - trunc(x)``."""
    check_kernel_dtype("frac_cpu", input)  # (integers have no fraction to take: refused too)
    return input - trunc(input)


def _division_remainder(ctx, a: Tensor, b: Any, kernel: Any, name: str = "remainder") -> Tensor:
    """The forward that ``fmod`` and ``remainder`` share: ``kernel(xp, a, b)``, with what the backward needs."""
    xa, xb, dt = binary_operands(a, b)
    if not dt.is_floating_point:
        _check_integer_division(name, dt, xa, xb)
    ctx.metas = (_meta(a), _meta(b))
    if isinstance(b, Tensor) and ctx.needs_input_grad[1]:
        ctx.save_for_backward(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return new_result(kernel(a._backend.xp, xa, xb), a)


def _division_remainder_grads(ctx, grad: Tensor, rounded: Any) -> tuple:
    """``a - q·b`` with the quotient ``q = rounded(a / b)``: ∂/∂a = 1, ∂/∂b = -q (PyTorch's formula;
    the jumps have no derivative)."""
    ma, mb = ctx.metas
    gb = None
    if mb is not None and ctx.needs_input_grad[1]:
        a, b = ctx.saved_tensors
        gb = _grad_for(-grad * rounded(a / b), mb)
    return (_grad_for(grad, ma) if ctx.needs_input_grad[0] else None), gb


class Fmod(Function):
    """C's ``fmod``: ``a - trunc(a / b)·b``, computed exactly by the array library."""

    _backward_name = "FmodBackward1"
    _scalar_edges = True

    @staticmethod
    def forward(ctx, a: Tensor, b: Any) -> Tensor:
        return _division_remainder(ctx, a, b, lambda xp, xa, xb: xp.fmod(xa, xb) if hasattr(xp, "fmod")
                                   else xa - xp.trunc(xa / xb) * xb, name="fmod")

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return _division_remainder_grads(ctx, grad, trunc)


class FmodScalar(Fmod):
    """``fmod`` by a Python number: PyTorch names this node ``FmodBackward0``, and the number is
    no input of it (no ``(None, 0)`` edge)."""

    _backward_name = "FmodBackward0"
    _scalar_edges = False


def fmod(input: Tensor, other: Any) -> Tensor:
    """C's remainder: the sign follows the dividend (``remainder`` follows the divisor)."""
    return (Fmod if isinstance(other, Tensor) else FmodScalar).apply(input, other)


class Remainder(Function):
    """``a - floor(a / b)·b`` (Python's ``%``): the quotient rounded down, not towards zero."""

    _backward_name = "RemainderBackward1"
    _scalar_edges = True

    @staticmethod
    def forward(ctx, a: Tensor, b: Any) -> Tensor:
        return _division_remainder(ctx, a, b, _remainder_kernel)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return _division_remainder_grads(ctx, grad, floor)


def _remainder_kernel(xp: Any, xa: Any, xb: Any) -> Any:
    """PyTorch's float remainder: ``fmod``, moved by ``b`` when its sign differs from ``b``'s.  NumPy's
    ``%`` gives the same numbers but signs a zero like the divisor (``9. % -3`` is ``-0.``), where
    PyTorch's zero is ``fmod``'s, signed like the dividend (``0.``).  Integers: ``%`` is exact."""
    floating = xp.isdtype(xa.dtype, "real floating") if hasattr(xp, "isdtype") else xa.dtype.kind == "f"
    if not floating:  # (NumPy and the array API have isdtype; CuPy's dtypes are NumPy's)
        return xa % xb
    r = xp.fmod(xa, xb) if hasattr(xp, "fmod") else xa - xp.trunc(xa / xb) * xb
    return xp.where((r != 0) & ((r < 0) != (xb < 0)), r + xb, r)


class RemainderScalar(Remainder):
    """``remainder`` (``x % 2``) by a Python number: PyTorch names this node ``RemainderBackward0``,
    and the number is no input of it (no ``(None, 0)`` edge)."""

    _backward_name = "RemainderBackward0"
    _scalar_edges = False


class Hypot(Function):
    """``sqrt(a² + b²)`` without overflow; ∂/∂a = a / hypot, ∂/∂b = b / hypot."""

    _backward_name = "HypotBackward0"

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor) -> Tensor:
        xa, xb, dt = binary_operands(a, b)
        if not dt.is_floating_point:
            raise NotImplementedError(f"\"hypot_cpu\" not implemented for '{dtypes.type_name(dt)}'")
        out = new_result(a._backend.xp.hypot(xa, xb), a)
        ctx.metas = (_meta(a), _meta(b))
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        a, b, out = ctx.saved_tensors
        ma, mb = ctx.metas
        return (_grad_for(grad * a / out, ma) if ctx.needs_input_grad[0] else None,
                _grad_for(grad * b / out, mb) if ctx.needs_input_grad[1] else None)


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """The hypotenuse ``sqrt(input² + other²)``, element-wise; both must be tensors, as in PyTorch."""
    _require_tensors("hypot", input, other)
    return Hypot.apply(input, other)


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    return ClampMinTensor.apply(input, min, None) if isinstance(min, Tensor) else ClampMin.apply(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    return ClampMaxTensor.apply(input, None, max) if isinstance(max, Tensor) else ClampMax.apply(input, max=max)


__all__ += ["atan2", "lerp", "frac", "fmod", "hypot", "clamp_min", "clamp_max"]


# ---------------------------------------------------------------------------- bitwise operations by name
def bitwise_and(input: Tensor, other: Any) -> Tensor:
    """``input & other`` on bool or integer tensors (bit by bit for integers)."""
    return logical("and", input, other)


def bitwise_or(input: Tensor, other: Any) -> Tensor:
    return logical("or", input, other)


def bitwise_xor(input: Tensor, other: Any) -> Tensor:
    return logical("xor", input, other)


def _shift(name: str, input: Tensor, other: Any) -> Tensor:
    xa, xb, dt = binary_operands(input, other)
    if dt.is_floating_point or dt is dtypes.bool:
        kind = dtypes.type_name(dt)
        kernel = "lshift" if name == "bitwise_left_shift" else "rshift"  # PyTorch's kernel names
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{kind}\'')
    return _nondiff(input, getattr(input._backend.xp, name)(xa, xb))


def bitwise_left_shift(input: Tensor, other: Any) -> Tensor:
    """``input << other``: multiply integers by 2**other."""
    return _shift("bitwise_left_shift", input, other)


def bitwise_right_shift(input: Tensor, other: Any) -> Tensor:
    """``input >> other``: integer division by 2**other, rounding down."""
    return _shift("bitwise_right_shift", input, other)


__all__ += ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
