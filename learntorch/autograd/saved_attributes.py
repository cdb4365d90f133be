"""``grad_fn._saved_self``, ``_saved_other``, ``_raw_saved_self`` ...: what a node kept, by PyTorch's names.

PyTorch's generated nodes expose every value their backward formula uses as
``_saved_<name>`` (the tensor as backward would read it, through any saved-tensor
hooks) and each saved tensor as ``_raw_saved_<name>`` (the ``SavedTensor`` itself,
whose ``register_hooks(pack, unpack)`` sets hooks on that one tensor).  The names
are those of the ATen signature: ``self``, ``other``, ``mat1``, ``mat2``,
``exponent``, ``result`` (the node's own output), and sizes as ``self_sym_sizes``.

learntorch's Functions save their tensors in their own order; the table below
says which position holds which name for the nodes covered (Mul, Div, Pow,
Mm, Addmm, Exp and the other unary functions that save their result or input,
Sum).  A tensor that was not saved because no gradient needed it (in ``x * c``
with a constant ``c``, ``x`` itself: only ``c`` is needed, for ``x``'s gradient)
reads as None, as in PyTorch.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..device import CPU
from ..tensor import Tensor
from .node import _FREED_MESSAGE

__all__ = ["saved_attribute", "attribute_names"]


def _tensor(index: int) -> tuple:
    return ("tensor", index)


def _value(fn: Callable[[Any], Any]) -> tuple:
    return ("value", fn)


def _saved_scalar() -> tuple:
    """A Python number operand: PyTorch saves it as a (wrapped-number) tensor, so it is freed
    with the node's other saved tensors by a backward without ``retain_graph``."""
    return ("saved value", _scalar_tensor)


def _scalar_tensor(ctx: Any) -> Any:
    """A Python number operand, as PyTorch shows it: a 0-d tensor (of the type
    ``torch.tensor(number)`` gives; built here, as autograd sits below ``creation``)."""
    value = ctx.scalar
    dt = dtypes.bool if isinstance(value, bool) else dtypes.int64 if isinstance(value, int) \
        else dtypes.get_default_dtype()
    return Tensor._make(np.asarray(value, dtype=dt.name), CPU)


def _mul_other(ctx: Any) -> tuple:
    return _tensor(0) if ctx.metas[1] is not None else _saved_scalar()


_UNARY_RESULT = ("ExpBackward0", "SqrtBackward0", "TanhBackward0", "SigmoidBackward0")
_UNARY_SELF = ("LogBackward0", "SinBackward0", "CosBackward0")

_TABLE: dict[str, dict[str, Any]] = {
    "MulBackward0": {"self": lambda ctx: _tensor(1) if ctx.metas[1] is not None else _value(lambda c: None),
                     "other": _mul_other},
    "DivBackward0": {"self": lambda ctx: _tensor(0) if ctx.metas[1] is not None else _value(lambda c: None),
                     "other": lambda ctx: _tensor(1) if ctx.metas[1] is not None else _saved_scalar()},
    "PowBackward0": {"self": _tensor(0), "exponent": _value(lambda ctx: ctx.exponent)},
    "PowBackward1": {"self": _tensor(0), "exponent": _tensor(1), "result": _tensor(2)},
    "MmBackward0": {"self": _tensor(1), "mat2": _tensor(0)},
    "AddmmBackward0": {"mat1": _tensor(1), "mat2": _tensor(0), "alpha": _value(lambda ctx: 1),
                       "beta": _value(lambda ctx: 1)},
    "SumBackward0": {"self_sym_sizes": _value(lambda ctx: ctx.args[0])},
    "SumBackward1": {"self_sym_sizes": _value(lambda ctx: ctx.args[0]), "dim": _value(lambda ctx: ctx.args[1]),
                     "keepdim": _value(lambda ctx: ctx.args[2])},
}
_TABLE.update({name: {"result": _tensor(0)} for name in _UNARY_RESULT})
_TABLE.update({name: {"self": _tensor(0)} for name in _UNARY_SELF})


def attribute_names(node_name: str) -> list[str]:
    """The ``_saved_*`` and ``_raw_saved_*`` names a node of this name may expose (each is
    installed as a property on its class by ``Function``'s metaclass)."""
    names = _TABLE.get(node_name, {})
    return [f"_saved_{n}" for n in names] + [f"_raw_saved_{n}" for n in names]


def saved_attribute(node: Any, attr: str) -> Any:
    """The value of ``node._saved_<name>`` or ``node._raw_saved_<name>``."""
    raw = attr.startswith("_raw_saved_")
    name = attr[len("_raw_saved_"):] if raw else attr[len("_saved_"):]
    spec = _TABLE.get(node.name(), {}).get(name)
    if callable(spec):
        spec = spec(node)
    if spec is None or (raw and spec[0] != "tensor"):
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{attr}'")
    if spec[0] == "value":
        return spec[1](node)
    if node._freed:
        raise RuntimeError(_FREED_MESSAGE)
    if spec[0] == "saved value":
        return spec[1](node)
    saved = node._saved[spec[1]] if node._saved is not None and spec[1] < len(node._saved) else None
    if saved is None or raw:
        return saved
    return saved.unpack()
