"""``out=``: write a torch-level function's result into a tensor the caller already has.

PyTorch gives most of its functions an ``out=`` keyword (``torch.matmul(a, b, out=c)``,
``torch.mul(x, x, out=z)``, the tensors tutorial uses both).  Rather than teach every
op about it, :func:`with_out` wraps the functions where ``learntorch/__init__.py``
exports them: the op computes its result as usual and the wrapper then writes it into
``out``, with PyTorch's rules:

* ``out`` itself is returned (the same object), its version counter bumped;
* a result of another shape resizes ``out`` (with PyTorch's deprecation ``UserWarning``
  when ``out`` had elements);
* the result is cast to ``out``'s dtype where PyTorch allows it; which casts are allowed
  depends on the op family (:data:`POLICY`), and a refused one raises PyTorch's error;
* ``out=`` is not differentiable: with grad mode on, an input (or ``out``) that requires
  grad raises PyTorch's ``RuntimeError`` before anything is computed.

Functions returning several tensors (``torch.max(x, dim)``, ``sort``, ``topk``) take a
tuple of tensors and return the same named tuple type the op returns, holding them.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .. import warn_always
from ..autograd import grad_mode
from ..dtypes import can_cast, type_name
from ..tensor import Tensor

# C++ type names, as PyTorch's "Expected out tensor to have dtype float" message prints them
_CPP_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char", "bool": "bool"}

# how each family treats an ``out`` of another dtype (everything else: "cast")
POLICY: dict[str, str] = {}
for _names, _policy in (
        ("matmul mm bmm mv addmm addmv baddbmm addbmm tril triu gather norm argmax argmin", "exact"),
        ("clamp clip clamp_min clamp_max neg negative abs", "found"),
        ("where", "where"), ("dot vdot", "dot"), ("index_select", "index_select"), ("amax amin", "amax"),
        ("any all", "bool"), ("cat concat concatenate stack hstack vstack dstack column_stack", "cat"),
        ("sum prod cumsum cumprod nansum", "dtype"),
        ("zeros ones full arange linspace logspace randn rand randint randperm eye", "creation")):
    for _name in _names.split():
        POLICY[_name] = _policy


def _dtype_error(name: str, policy: str, result: Tensor, out: Tensor) -> Exception | None:
    """PyTorch's error for writing ``result`` into ``out``'s dtype, or None when allowed."""
    want, got = result._dtype, out._dtype
    if policy in ("dtype", "creation"):
        return None
    if policy == "cast":
        if can_cast(want, got):
            return None
        return RuntimeError(f"result type {type_name(want)} can't be cast to the desired output type "
                            f"{type_name(got)}")
    if policy == "cat":
        if can_cast(want, got):
            return None
        return TypeError(f"torch.cat(): input types can't be cast to the desired output type {type_name(got)}")
    if want is got:
        return None
    messages = {
        "exact": f"Expected out tensor to have dtype {_CPP_NAMES[want.name]}, but got {_CPP_NAMES[got.name]} instead",
        "found": f"Found dtype {type_name(got)} but expected {type_name(want)}",
        "where": f"Expected out type to be {type_name(want)} but got {type_name(got)}",
        "dot": f"result dtype {type_name(got)} does not match input dtype {type_name(want)}",
        "index_select": "index_select(): self and result must have the same scalar type",
        "amax": f"Expected the dtype for input and out to match, but got {type_name(want)} for input's dtype and "
                f"{type_name(got)} for out's dtype.",
        "bool": f"{name} only supports bool tensor for result, got: {type_name(got)}",
    }
    return RuntimeError(messages[policy] + f" (pass an out tensor of dtype {want}, or drop out= and use "
                                           f"the returned tensor)")


def _requires_grad(value: Any) -> bool:
    if isinstance(value, Tensor):
        return value.requires_grad
    if isinstance(value, (list, tuple)):
        return any(_requires_grad(v) for v in value)
    return False


def _write(out: Any, result: Tensor, name: str, policy: str) -> Tensor:
    """Copy ``result`` into ``out``'s memory (resized and cast as PyTorch does)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    error = _dtype_error(name, policy, result, out)
    if error is not None:
        raise error
    if out.device != result.device:
        raise RuntimeError(f"{name}(): the out tensor is on {out.device} but the result is on {result.device}; "
                           f"pass an out tensor on {result.device}")
    out._check_inplace()
    if any(st == 0 and n > 1 for st, n in zip(out.stride(), out.shape)):  # an expand()ed out
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    shape = tuple(result.shape)
    xp = out._backend.xp
    if tuple(out.shape) != shape:
        if out.numel() > 0 and policy != "creation":  # the factories resize silently
            warn_always.warn(f"An output with one or more elements was resized since it had shape "
                             f"[{', '.join(map(str, out.shape))}], which does not match the required output shape "
                             f"[{', '.join(map(str, shape))}]. This behavior is deprecated, and in a future PyTorch "
                             f"release outputs will not be resized unless they have zero elements. You can explicitly "
                             f"reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                             UserWarning, stacklevel=4)
        out._data = xp.zeros(shape, dtype=out._data.dtype)
    out._data[...] = xp.astype(result._data, out._data.dtype)
    out._version_counter[0] += 1
    return out


def with_out(fn: Callable, name: str | None = None) -> Callable:
    """``fn`` with PyTorch's keyword-only ``out=`` added (a call without it is unchanged)."""
    name = name or fn.__name__
    policy = POLICY.get(name, POLICY.get(fn.__name__, "cast"))

    @functools.wraps(fn)
    def function(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        if grad_mode._state.enabled and (_requires_grad(args) or _requires_grad(tuple(kwargs.values()))
                                         or _requires_grad(out)):
            raise RuntimeError(f"{fn.__name__}(): functions with out=... arguments don't support automatic "
                               f"differentiation, but one of the arguments requires grad.")
        if policy in ("dtype", "creation") and isinstance(out, Tensor) and kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        if policy == "creation" and isinstance(out, Tensor) and kwargs.get("device") is None:
            kwargs["device"] = out.device
        result = fn(*args, **kwargs)
        if isinstance(result, Tensor):
            return _write(out, result, name, policy)
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): out= expects a tuple of {len(result)} tensors here, "
                            f"got {type(out).__name__}")
        written = [_write(o, r, name, "exact") for o, r in zip(out, result)]
        return type(result)(*written) if hasattr(result, "_fields") else tuple(written)
    warn_always.pass_through(function.__code__)  # a warning inside fn points past this frame (one code for all)
    return function
