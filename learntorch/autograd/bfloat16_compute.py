"""How a built-in operation computes on bfloat16 tensors: in float32, rounded once.

bfloat16 has 8 significant bits.  Adding a thousand ones *in* bfloat16 stops at
256 (256 + 1 rounds back to 256), and a softmax whose exponentials and sum were
each rounded is off by several units in the last place.  PyTorch's CPU kernels
therefore load bfloat16 numbers as float32, compute, and round each result to
bfloat16 once.  learntorch does the same for every built-in operation (an
``autograd.Function`` with a ``_backward_name``), here, in one place, so that
no operation has to know about bfloat16:

1. :func:`stand_ins` decides whether the call computes in float32: some input is
   a bfloat16 tensor and PyTorch's result dtype of the tensor inputs is
   bfloat16 (``bf16 + int`` yes; ``bf16 + float32`` is float32 anyway; an
   explicit ``dtype=`` argument, as in ``x.to(torch.float32)``, is obeyed as it
   is).  Each bfloat16 input is then replaced by a float32 copy, its *stand-in*
   (exact: every bfloat16 number is a float32 number).  It also raises
   PyTorch's error for what PyTorch cannot do in bfloat16 (``_NOT_IN_BFLOAT16``)
   and rounds the Python numbers that PyTorch rounds (``_ROUNDS_NUMBERS``);
2. ``forward`` runs on the stand-ins, in float32 (should it raise, it runs
   again on the bfloat16 tensors, so that the error names their dtype);
3. :func:`finish` rounds the float results to bfloat16 (round to nearest, ties
   to even), and puts the *original* tensors back where ``forward`` saved the
   stand-ins for backward, so that in-place checks and double backward see the
   tensors the learner made;
4. the gradients that ``backward`` returns for bfloat16 inputs are rounded to
   bfloat16 too (``BackwardFunction.apply``), as PyTorch's are.

An operation that only moves numbers (a view such as ``reshape``, an in-place
write such as ``x[0] = 1``) must act on the original storage, not on a copy:
:func:`only_moved_data` notices it, and ``Function.apply`` runs it again on the
bfloat16 tensors themselves (moving numbers is exact in any dtype).

A user's own ``Function`` (no ``_backward_name``) gets its tensors as they are,
as in PyTorch.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np

from .. import dtypes
from .. import dtype_bfloat16
from ..dtype_bfloat16 import bfloat16
from . import node

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["has_bfloat16", "stand_ins", "only_moved_data", "finish", "round_gradients", "computes_in_float32"]

_NP_BFLOAT16 = bfloat16._np

# Python numbers meet bfloat16 in two ways in PyTorch's CPU kernels.  ``x * 0.1`` and ``x / 3``
# compute with the number as it is (in float32); ``x + 0.1``, ``x - 0.1``, ``0.1 - x`` and
# ``x ** 1.7`` and ``x % 0.3`` first round the number to bfloat16 (0.1 becomes 0.10009765625), as if it were a
# bfloat16 tensor.  These are the operations of the second kind (by their backward's name):
_ROUNDS_NUMBERS = frozenset({"AddBackward0", "SubBackward0", "RsubBackward1", "PowBackward0", "RemainderBackward0"})


# What PyTorch cannot compute in bfloat16 at all: LAPACK's matrix decompositions have no 16-bit
# types.  learntorch raises PyTorch's errors (by the backward's name of the operation refused).
_NOT_IN_BFLOAT16 = {
    "LinalgInvExBackward0": (RuntimeError, "linalg.inv: Low precision dtypes not supported. Got BFloat16"),
    "LinalgSlogdetBackward0": (RuntimeError, "linalg.slogdet: Low precision dtypes not supported. Got BFloat16"),
    "LinalgDetBackward0": (NotImplementedError, "\"lu_cpu\" not implemented for 'BFloat16'"),
    "LinalgSolveExBackward0": (NotImplementedError, "\"lu_cpu\" not implemented for 'BFloat16'"),
    "LinalgCholeskyExBackward0": (NotImplementedError, "\"cholesky_cpu\" not implemented for 'BFloat16'"),
    "LinalgEighBackward0": (NotImplementedError, "\"linalg_eigh_cpu\" not implemented for 'BFloat16'"),
    "LinalgSvdBackward0": (NotImplementedError, "\"linalg_svd_cpu\" not implemented for 'BFloat16'"),
    "LinalgQrBackward0": (NotImplementedError, "\"geqrf_cpu\" not implemented for 'BFloat16'"),
    "LinalgPinvBackward0": (RuntimeError, "linalg.pinv: expected a tensor of float, double, cfloat or cdouble "
                                          "types, got BFloat16 (convert it with .float() first)"),
}


def has_bfloat16(args: tuple, kwargs: dict) -> bool:
    """Whether a bfloat16 tensor is among the arguments (the cheap first test, asked for every
    built-in call: nothing else here runs for float32 programs; before the first bfloat16
    tensor is made, not even the search)."""
    if not dtype_bfloat16.made:
        return False
    for a in args:
        if getattr(a, "_dtype", None) is bfloat16:
            return True
    for a in kwargs.values():
        if getattr(a, "_dtype", None) is bfloat16:
            return True
    return False


# Operations whose result has the input's dtype whatever the dtype of their parameters: batch
# norm of a bfloat16 batch with float32 weight and running statistics is bfloat16 in PyTorch.
_RESULT_IN_INPUT_DTYPE = {"NativeBatchNormBackward0"}


def stand_ins(cls_name: str, args: tuple, kwargs: dict, Tensor: type) -> Optional[tuple[tuple, dict, dict]]:
    """``(args, kwargs, originals)`` for the operation whose backward is named ``cls_name``, with
    every bfloat16 tensor replaced by a float32 stand-in (``originals`` maps a stand-in's ``id`` to
    the tensor it stands for) and, for the operations in ``_ROUNDS_NUMBERS``, every Python number
    rounded to bfloat16; or None when the call should run on the tensors as they are (see the
    module docstring, step 1)."""
    refused = _NOT_IN_BFLOAT16.get(cls_name)
    if refused is not None:
        raise refused[0](refused[1])
    tensors = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            if a._device.type != "cpu":
                return None
            tensors.append(a)
        elif isinstance(a, dtypes.dtype):
            return None  # an explicit dtype: the operation decides its result dtype itself
        elif isinstance(a, (list, tuple)) and any(isinstance(x, Tensor) for x in a):
            return None  # tensors inside a list (cat, stack): moving numbers, exact as it is
    decider = tensors[:1] if cls_name in _RESULT_IN_INPUT_DTYPE else tensors
    if node._saved_hooks_stack or not decider or dtypes.result_type(*decider) is not bfloat16:
        return None
    originals: dict[int, tuple[Tensor, Tensor]] = {}

    rounds_numbers = cls_name in _ROUNDS_NUMBERS

    def swap(a: Any) -> Any:
        if rounds_numbers and type(a) in (int, float):
            return float(np.asarray(a, dtype=np.float32).astype(_NP_BFLOAT16))
        if not (isinstance(a, Tensor) and a._dtype is bfloat16):
            return a
        s = Tensor._make(a._data.astype(np.float32), a._device)
        s._version_counter = a._version_counter  # an in-place change of the original shows on it
        s._requires_grad = a._requires_grad
        if a._inference:
            s._inference = True
        originals[id(s)] = (s, a)
        return s

    return tuple([swap(a) for a in args]), {k: swap(v) for k, v in kwargs.items()}, originals


def only_moved_data(ctx: Any, outputs: Any, originals: dict) -> bool:
    """Whether ``forward`` returned a stand-in itself, a view of one, or wrote into one:
    an operation on storage, which must run on the original tensors instead."""
    standin_arrays = [s._data for s, _ in originals.values()]
    for t in getattr(ctx, "_dirty", ()):
        if id(t) in originals:
            return True
    for out in outputs if isinstance(outputs, tuple) else (outputs,):
        data = getattr(out, "_data", None)
        if data is None:
            continue
        if id(out) in originals or (out._base is not None and id(out._base) in originals):
            return True
        if any(np.may_share_memory(data, a) for a in standin_arrays):
            return True
    return False


def finish(ctx: Any, outputs: Any, args: tuple, kwargs: dict, originals: dict) -> Any:
    """Round the float outputs to bfloat16, give backward the original tensors, and note
    which arguments were bfloat16 (their gradients are rounded too)."""
    for out in outputs if isinstance(outputs, tuple) else (outputs,):
        dt = getattr(out, "_dtype", None)
        if dt is not None and dt.is_floating_point and dt is not bfloat16:
            out._data = out._data.astype(_NP_BFLOAT16)
            out._dtype = bfloat16
    for saved in getattr(ctx, "_saved", None) or ():
        if saved is not None and id(saved.tensor) in originals:
            original = originals[id(saved.tensor)][1]
            saved.tensor = original
            if original.grad_fn is not None:  # a saved input is named by its own grad_fn in errors
                saved.saver = None
    ctx._bfloat16_args = tuple([getattr(a, "_dtype", None) is bfloat16 for a in args])
    return outputs


def round_gradients(grads: tuple, was_bfloat16: tuple) -> tuple:
    """``backward``'s gradients, those of bfloat16 inputs rounded to bfloat16 (differentiably:
    ``.to`` is recorded when backward builds a graph)."""
    out = []
    for i, g in enumerate(grads):
        if i < len(was_bfloat16) and was_bfloat16[i] and g is not None and g._dtype is not bfloat16 \
                and g._dtype.is_floating_point:
            g = g.to(bfloat16)
        out.append(g)
    return tuple(out)


def computes_in_float32(fn: Callable) -> Callable:
    """For an operation that learntorch writes with other operations (lerp, attention) where
    PyTorch runs one kernel: with bfloat16 tensors among the arguments (and a bfloat16 result),
    run it on float32 copies (``.float()``, which autograd records) and round its results once
    (``.to(torch.bfloat16)``), instead of rounding every intermediate result."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not has_bfloat16(args, kwargs):
            return fn(*args, **kwargs)
        tensors = [a for a in (*args, *kwargs.values()) if hasattr(a, "_dtype")]
        if any(t._device.type != "cpu" for t in tensors) or dtypes.result_type(*tensors) is not bfloat16:
            return fn(*args, **kwargs)
        up = [a.float() if getattr(a, "_dtype", None) is bfloat16 else a for a in args]
        kw = {k: v.float() if getattr(v, "_dtype", None) is bfloat16 else v for k, v in kwargs.items()}
        out = fn(*up, **kw)
        if isinstance(out, tuple):
            return type(out)(*[_round(o) for o in out]) if hasattr(out, "_fields") else tuple(map(_round, out))
        return _round(out)
    return wrapper


def _round(t: Any) -> Any:
    dt = getattr(t, "_dtype", None)
    return t.to(bfloat16) if dt is not None and dt.is_floating_point and dt is not bfloat16 else t
