"""Helpers shared by the operations: operand preparation, dims, undoing broadcasting."""
from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import dtypes
from ..autograd import grad_mode
from ..arrays import transfer
from ..device import CPU
from ..tensor import Tensor, _wrap_dim, channels_last_of, laid_out

__all__ = ["infer_size", "binary_operands", "check_same_device", "wrap_dims", "wrap_dim", "sum_to", "as_index_tensor",
           "new_result", "check_kernel_dtype"]

Number = Union[int, float, bool]


def check_same_device(*tensors: Tensor) -> None:
    """PyTorch's error for an operation whose tensors live on different devices.

    As PyTorch's TensorIterator does, the first tensor that is not on the CPU
    names the common device, and the message names it first:
    ``cuda:1 + cuda:0`` reports "cuda:1 and cuda:0", ``cpu * cuda:0`` "cuda:0 and cpu"."""
    common = next((t._device for t in tensors if t._device.type != "cpu"), tensors[0]._device)
    for t in tensors:
        if t._device != common:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two "
                               f"devices, {common} and {t._device}!")


def infer_size(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The broadcast shape of ``a`` and ``b``, with PyTorch's error when they do not broadcast.

    Align the shapes on the right; in each dimension the sizes must be equal or
    one of them 1 (missing dimensions count as 1).  Checked here rather than left
    to the array library, whose error (NumPy's ValueError) is not PyTorch's."""
    n = max(len(a), len(b))
    out = []
    for i in range(n - 1, -1, -1):
        da, db = i - n + len(a), i - n + len(b)
        sa = a[da] if da >= 0 else 1
        sb = b[db] if db >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                               f"non-singleton dimension {i}")
        out.append(sb if sa == 1 else sa)
    return tuple(reversed(out))


def binary_operands(a: Tensor, b: Any, broadcast: bool = True) -> tuple[Any, Any, dtypes.dtype]:
    """The two operands as backend values in the result dtype (PyTorch's promotion).

    ``b`` may be a tensor or a Python number; a number stays a number (the
    array library broadcasts it).  A zero-dim CPU tensor may meet a CUDA tensor,
    as in PyTorch: it is a scalar, not an array on another device.  Two tensors
    must broadcast (``infer_size``) unless ``broadcast=False`` (matmul's own rules).
    """
    if isinstance(b, Tensor):
        if broadcast and a._data.shape != b._data.shape:
            infer_size(a._data.shape, b._data.shape)
        if a._device != b._device:
            if b.ndim == 0 and b._device.type == "cpu":
                b = Tensor._make(transfer(b._data, b._device, a._device), a._device)
            elif a.ndim == 0 and a._device.type == "cpu":
                a = Tensor._make(transfer(a._data, a._device, b._device), b._device)
            else:
                check_same_device(a, b)
        dt = a._dtype if a._dtype is b._dtype else dtypes.result_type(a, b)
        xa = a._data if a._dtype is dt else a._backend.xp.astype(a._data, a._backend.dtype(dt))
        xb = b._data if b._dtype is dt else b._backend.xp.astype(b._data, b._backend.dtype(dt))
        return xa, xb, dt
    if not isinstance(b, (int, float)):
        if isinstance(b, np.ndarray):  # ``t * np.ones(2)``: PyTorch reads a NumPy array as a (CPU) tensor
            return binary_operands(a, Tensor._make(b, CPU), broadcast)
        b = _numpy_scalar(b)
    if a._dtype.is_floating_point and type(b) is not bool:  # the common case: float tensor, Python number
        return a._data, float(b), a._dtype
    dt = dtypes.result_type(a, b)
    xa = a._data if a._dtype is dt else a._backend.xp.astype(a._data, a._backend.dtype(dt))
    if dt.is_floating_point:
        return xa, float(b), dt
    if type(b) is not bool and dt is not dtypes.bool:
        b = wrapped_int(b, dt)
    return xa, b, dt


# Python floats that met float32 or float64 NumPy arrays, kept as 0-d arrays of that dtype
_NUMBER_ARRAYS: dict = {dtypes.float32: {}, dtypes.float64: {}}


def number_operand(t: Tensor, b: float) -> Any:
    """``b``, a Python float about to meet ``t``'s array in arithmetic, in the form that
    makes the operation fastest.

    NumPy 2 treats a Python float as a "weak" scalar (NEP 50) and works out, on every call,
    what it becomes next to the array: ``a * 1.01`` on a small array costs twice ``a * a``.
    The number cast once to the array's dtype and kept as a 0-d array gives the same values
    (NEP 50 casts it to float32 for a float32 array first, and so do PyTorch's CPU kernels)
    at the speed of ``a * a``.  Kept: the finite, non-zero constants of a program (a few
    hundred at most); 0.0 is not kept, since it equals -0.0, a different operand."""
    table = _NUMBER_ARRAYS.get(t._dtype)
    if table is None or type(t._data) is not np.ndarray:
        return b
    arr = table.get(b)
    if arr is None:
        if not b or not math.isfinite(b) or len(table) >= 256:
            return b
        with np.errstate(over="ignore"):
            arr = np.array(b, dtype=t._dtype._np)
        if not math.isfinite(arr):
            return b  # (beyond float32's range: let the operation overflow, and warn, as it would)
        arr.flags.writeable = False
        table[b] = arr
    return arr


def _numpy_scalar(b: Any) -> Number:
    """A NumPy scalar operand as the Python number PyTorch reads it (``t * np.float32(2)``,
    ``t + np.int64(1)``): an integer stays an integer, a float a float, and ``np.bool_``, which
    PyTorch's argument parser reads as a double, a float.  Anything else is a TypeError."""
    if isinstance(b, np.integer):
        return int(b)
    if isinstance(b, (np.floating, np.bool_)):
        return float(b)
    raise TypeError(f"unsupported operand type for a tensor operation: '{type(b).__name__}'")


def return_type(name: str, fields: Union[str, Sequence[str]]) -> type:
    """A ``torch.return_types.<name>`` named tuple, printed as PyTorch prints its structseqs:
    ``torch.return_types.aminmax(\nmin=tensor(0.),\nmax=tensor(1.))``."""
    cls = namedtuple(name, fields)
    cls.__module__ = "torch.return_types"
    cls.__repr__ = lambda self: f"torch.return_types.{name}(\n" + ",\n".join(
        f"{field}={value!r}" for field, value in zip(self._fields, self)) + ")"
    return cls


def wrapped_int(value: int, dt: dtypes.dtype) -> int:
    """A Python int as the integer dtype ``dt`` holds it: out of range, it wraps around as in C.

    PyTorch converts the number to the tensor's dtype the way C casts, so ``int8_tensor + 1000``
    adds ``-24`` (1000 - 4·256) and ``uint8_tensor - 1`` adds 255.  NumPy would raise an
    OverflowError instead.  Only a number no 64-bit integer can hold is PyTorch's OverflowError."""
    bits = 8 * dt.itemsize
    low = -(1 << (bits - 1)) if dt.is_signed else 0
    if low <= value < low + (1 << bits):
        return value
    if not -(1 << 63) <= value < (1 << 64):
        raise OverflowError("int too big to convert")
    return (value - low) % (1 << bits) + low


def new_result(data: Any, like: Tensor) -> Tensor:
    """Wrap an operation's array as a new tensor on ``like``'s device."""
    return Tensor._make(data, like._device)


def in_strides_of(out: Any, like: Any) -> Any:
    """An elementwise result ``out`` stored in the order of its input ``like``'s dimensions (a
    channels-last feature map stays channels-last through an activation, as through PyTorch's
    TensorIterator), where a helper of the array API built it row-major.  Row-major input (the
    usual case) costs one flag test."""
    if type(like) is np.ndarray and not like.flags.c_contiguous and type(out) is np.ndarray \
            and out.flags.c_contiguous and out.shape == like.shape and out.ndim > 1:
        kept = np.empty_like(like, dtype=out.dtype)
        kept[...] = out
        return kept
    return out


def in_layout_of(data: Any, x: Tensor, ranks: tuple = (4,)) -> Tensor:
    """``data`` as a result on ``x``'s device, laid out channels-last when ``x`` is (and has one of
    the ``ranks``): PyTorch's pooling, resizing and padding kernels keep an image batch's layout,
    so a channels-last model stays channels-last between its convolutions (and ``.view`` of its
    feature maps fails as it does there).  Row-major input (the usual case) costs one flag test."""
    out = new_result(data, x)
    flags = getattr(x._data, "flags", None)
    if flags is not None and not flags.c_contiguous and x._data.ndim in ranks:
        fmt = channels_last_of(x)
        if fmt is not None:
            return new_result(laid_out(out, fmt), x)
    return out


def check_kernel_dtype(kernel: str, x: Tensor, ints: bool = False) -> None:
    """Many of PyTorch's kernels are written for floating-point numbers only (with ``ints``: for
    integers too, but not for bools): another dtype is PyTorch's NotImplementedError naming the
    kernel, where NumPy would compute ``silu`` of an int64 tensor in integers, or ``floor`` of a
    bool."""
    if not x._dtype.is_floating_point and not (ints and x._dtype is not dtypes.bool):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.type_name(x._dtype)}'")


def row_major(xp: Any, data: Any) -> Any:
    """``data`` stored row-major: a copy only when it is not.  For the operations whose PyTorch
    kernels write a fresh contiguous result whatever the input's layout (softmax, layer_norm,
    masked_fill), where NumPy would keep a transposed input's layout; what follows them (a
    dropout mask, drawn in memory order) then meets the layout it meets in PyTorch."""
    flags = getattr(data, "flags", None)  # (the array-API stand-in has no layout)
    return data if flags is None or flags.c_contiguous else xp.ascontiguousarray(data)


def wrap_dims(dim: Union[int, Sequence[int], None], ndim: int) -> Optional[tuple[int, ...]]:
    """Normalise ``dim`` (int, tuple, or None for all) to sorted non-negative axes.

    A 0-d tensor accepts ``dim`` 0 and -1, as in PyTorch (``loss.sum(0)`` is ``loss``), and
    has no axis to reduce: its axes are ``()``, which NumPy reads as "reduce nothing"."""
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer, Tensor)):  # (np.int64 from NumPy code is an int to PyTorch)
        axes = (wrap_dim(dim, ndim),)
    else:
        if not isinstance(dim, (tuple, list)) or not all(_is_int(d) for d in dim):
            raise TypeError(f"dim must be an int or a tuple of ints, not {type(dim).__name__}"
                            + (f" holding {', '.join(sorted({type(d).__name__ for d in dim}))}"
                               if isinstance(dim, (tuple, list)) else ""))
        axes = tuple(wrap_dim(d, ndim) for d in dim)
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
    return tuple(sorted(axes)) if ndim else ()


def wrap_dim(dim: Any, ndim: int) -> int:
    """One ``dim`` as a non-negative axis, with PyTorch's errors: an int (a NumPy integer, or an
    integer tensor of one element, as PyTorch takes), in range.  For a 0-d tensor, 0 and -1 are
    both 0: the axis of its one element once it is seen as a vector of one."""
    if not _is_int(dim):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    return _wrap_dim(dim.__index__(), ndim) % max(ndim, 1)


def _is_int(value: Any) -> bool:
    """An int to PyTorch's argument parser: not a bool, not a float, not a tensor of floats or of
    more than one element."""
    if isinstance(value, Tensor):
        return not value._dtype.is_floating_point and value._dtype is not dtypes.bool and value.numel() == 1
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def sum_to(grad: Tensor, shape: Sequence[int]) -> Tensor:
    """Undo broadcasting in backward: sum ``grad`` down to ``shape``.

    If ``x`` of shape (3, 1) was broadcast to (2, 3, 4) in forward, each of its
    elements was used 2·4 times, so its gradient is the sum over those copies.
    Written with tensor operations so that it is itself differentiable; in a plain
    backward, which records nothing, the same sum runs on the array.
    """
    shape = tuple(shape)
    if grad._data.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and grad.shape[lead + i] != 1)
    if not grad_mode._state.enabled:
        xp, g = grad._backend.xp, grad._data
        if axes and grad._dtype in (dtypes.bfloat16, dtypes.float16):  # added up in float32, rounded once (PyTorch)
            return new_result(xp.reshape(xp.astype(xp.sum(g, axis=axes, keepdims=True, dtype=xp.float32), g.dtype),
                                         shape), grad)
        return new_result(xp.reshape(xp.sum(g, axis=axes, keepdims=True) if axes else g, shape), grad)
    out = grad.sum(dim=axes, keepdim=True) if axes else grad
    if lead:
        out = out.reshape(shape)
    return out


def as_index_tensor(index: Any, like: Tensor) -> Any:
    """A backend integer array from an index given as a tensor, list or int (for gather & co)."""
    if isinstance(index, Tensor):
        if index._dtype.is_floating_point or index._dtype is dtypes.bool:
            raise RuntimeError("gather(): Expected dtype int64 for index")
        check_same_device(like, index)
        return index._data
    return like._backend.asarray(index, dtypes.int64)


def numpy_aliases(fn: Any) -> Any:
    """Accept NumPy's keyword names as PyTorch does: ``axis=`` for ``dim=`` and ``keepdims=``
    for ``keepdim=`` (``x.sum(axis=0)``, ``x.mean(1, keepdims=True)``), so code written with
    NumPy habits keeps working.  Positional arguments are untouched."""
    import functools

    @functools.wraps(fn)
    def accept_numpy_names(*args: Any, **kwargs: Any) -> Any:
        if "axis" in kwargs:
            if "dim" in kwargs:
                raise TypeError(f"{fn.__name__}() got both 'dim' and its alias 'axis'")
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs:
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)
    return accept_numpy_names
