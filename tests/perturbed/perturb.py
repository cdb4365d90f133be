"""Perturbed arithmetic: a stand-in for another CPU's BLAS and libm (tests only).

A learner's laptop computes ``x @ w``, ``x.sum()`` or ``x.exp()`` with other
kernels than the machine that recorded the notebooks: another BLAS blocks the
sums in another order, another libm rounds ``exp`` differently, another thread
count splits a reduction elsewhere.  The results differ in the last bits, and a
stored output that shows those bits fails on the learner's machine.

This module makes the difference happen here.  :func:`install` wraps the one
place every built-in operation passes through (``Function.apply`` for the
forward, the backward node's ``apply`` for the gradients) and, for the op
families whose result depends on the machine -- matrix products, reductions,
transcendental functions and the layers built on them -- nudges each float
result by a few ulps (units in the last place), drawn from a seeded generator.
Ops that IEEE 754 rounds exactly everywhere (``+``, ``*``, ``/``, ``sqrt``,
copies, indexing) are left alone, as another CPU leaves them.

``make test`` runs every notebook once more under nbval with this switched on
(``LEARNTORCH_PERTURB_SEED`` set and this folder on ``PYTHONPATH``, so that
``sitecustomize`` installs it in each kernel).  An output that survives is one
any machine reproduces.  It never ships in the package: learntorch knows
nothing of it.
"""
from __future__ import annotations

import functools
import re
from typing import Any

import numpy as np

__all__ = ["install", "uninstall", "is_installed", "PERTURBED", "MAX_ULPS"]

MAX_ULPS = 3  # each result moves by -3 … +3 ulps, element by element

# The backward-node names (PyTorch's) of the families whose result depends on the
# machine: BLAS products, reductions (summation order), libm functions, and the
# layers built on them.
PERTURBED = re.compile(r"^(?:"
                       r"Addmm|Bmm|Matmul|Mm|Mv|Dot|Einsum|Cdist|Dist|Convolution|"  # BLAS
                       r"Sum|Mean|Var|Std|Prod|Cumsum|Cumprod|Logsumexp|LinalgVectorNorm|"  # reductions
                       r"Softmax|LogSoftmax|NativeBatchNorm|NativeLayerNorm|AvgPool2D|"
                       r"NllLoss|NllLoss2D|MseLoss|BinaryCrossEntropy|BinaryCrossEntropyWithLogits|"
                       r"HuberLoss|SmoothL1Loss|_RobustLoss|"
                       r"Exp|Exp2|Expm1|Log|Log10|Log1P|Log2|Rsqrt|Pow|"  # libm
                       r"Sin|Cos|Tan|Sinh|Cosh|Tanh|Asin|Acos|Atan|Atan2|Erf|"
                       r"Sigmoid|LogSigmoid|Softplus|Gelu|Silu|Mish|Elu|Celu"
                       r")Backward\d*$")

_state: dict[str, Any] = {"seed": 0, "saved": None, "calls": 0}


def is_installed() -> bool:
    return _state["saved"] is not None


def _is_short(array: np.ndarray) -> np.ndarray:
    """Elements whose significand uses at most half its bits (6.0, 2.5, 0.375, 1.0).

    Such a value is what an exact computation gives -- a sum of small integers,
    ``exp(0)``, a product of halves -- and every machine gets it exactly, in any
    summation order.  A rounded result has all its bits in use but for a chance
    of 2**-12 (float32)."""
    half = np.finfo(array.dtype).nmant // 2 + 1
    mantissa, _ = np.frexp(array)
    scaled = mantissa * float(2 ** half)
    return scaled == np.floor(scaled)


def _steps(array: np.ndarray, seed: int) -> np.ndarray:
    """How many ulps each element moves (-MAX_ULPS … MAX_ULPS): a hash of its bits and the seed.

    A function of the value, not a random stream: like a real machine's libm or
    BLAS, the same inputs give the same result every time (two identical runs
    agree), while the seed picks which other machine is stood in for."""
    bits = array.view(np.uint32 if array.dtype.itemsize == 4 else np.uint64).astype(np.uint64)
    if array.dtype.itemsize == 8:
        bits = (bits ^ (bits >> np.uint64(32))) & np.uint64(0xFFFFFFFF)
    h = (bits * np.uint64(0x9E3779B1) + np.uint64(seed * 0x85EBCA77 + 1)) & np.uint64(0xFFFFFFFF)
    h ^= h >> np.uint64(15)
    h = (h * np.uint64(0x2C1B3C6D)) & np.uint64(0xFFFFFFFF)
    h ^= h >> np.uint64(12)
    return (h % np.uint64(2 * MAX_ULPS + 1)).astype(np.int64) - MAX_ULPS


def _nudge(array: np.ndarray) -> np.ndarray:
    """``array`` moved by a few ulps per finite, rounded element (a new array).

    inf, nan and values that are exact everywhere (:func:`_is_short`, zero among
    them) stay what they are."""
    _state["calls"] += 1
    steps = _steps(np.ascontiguousarray(array), _state["seed"]).reshape(array.shape).astype(array.dtype)
    with np.errstate(all="ignore"):
        moved = array + steps * np.spacing(np.abs(array))
        keep = ~np.isfinite(array) | _is_short(array)
    return np.where(keep, array, moved).astype(array.dtype, copy=False)


def _is_float_ndarray(a: Any) -> bool:
    return type(a) is np.ndarray and a.dtype.kind == "f" and a.size > 0


def install(seed: int = 0) -> None:
    """Switch perturbed arithmetic on for learntorch in this process."""
    if is_installed():
        uninstall()
    from learntorch.autograd import function as fn
    from learntorch.tensor import Tensor

    perturbed_classes: dict[type, bool] = {}

    def wanted(node_cls: type) -> bool:
        hit = perturbed_classes.get(node_cls)
        if hit is None:
            hit = perturbed_classes[node_cls] = bool(PERTURBED.match(node_cls.__name__))
        return hit

    original_apply = fn.Function.apply.__func__
    original_node_apply = fn.BackwardFunction.apply

    @functools.wraps(original_apply)
    def apply(cls: type, *args: Any, **kwargs: Any) -> Any:
        outputs = original_apply(cls, *args, **kwargs)
        if wanted(cls._backward_cls):
            for out in outputs if isinstance(outputs, tuple) else (outputs,):
                data = getattr(out, "_data", None)
                # Only a fresh result is nudged, in place, so that what forward saved
                # for backward (exp saves its result) sees the same numbers.
                if _is_float_ndarray(data) and data.flags.owndata and data.flags.writeable:
                    data[...] = _nudge(data)
        return outputs

    @functools.wraps(original_node_apply)
    def node_apply(self: Any, grad_outputs: list) -> list:
        grads = original_node_apply(self, grad_outputs)
        if not wanted(type(self)):
            return grads
        out = []
        for g in grads:
            # A fresh array is an arithmetic result: nudge it (into a new tensor, as the old one may
            # be shared). A view (sum()'s expanded gradient) came from no arithmetic: keep it.
            if isinstance(g, Tensor) and not g.requires_grad and _is_float_ndarray(g._data) \
                    and g._data.flags.owndata:
                g = Tensor._make(_nudge(g._data), g.device)
            out.append(g)
        return out

    _state["seed"] = int(seed)
    _state["saved"] = (original_apply, original_node_apply)
    _state["calls"] = 0
    fn.Function.apply = classmethod(apply)
    fn.BackwardFunction.apply = node_apply


def uninstall() -> None:
    """Switch perturbed arithmetic off again."""
    if not is_installed():
        return
    from learntorch.autograd import function as fn
    original_apply, original_node_apply = _state["saved"]
    fn.Function.apply = classmethod(original_apply)
    fn.BackwardFunction.apply = original_node_apply
    _state["saved"] = None
