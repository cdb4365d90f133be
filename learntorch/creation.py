"""Creating tensors: ``tensor``, ``from_numpy``, ``zeros``, ``ones``, ``randn``, ``arange`` …

Two rules from PyTorch that learners meet on day one:

* ``tensor(data)`` always **copies**; ``from_numpy(array)`` **shares** the
  array's memory (change one, the other changes);
* a Python float becomes float32 (the default dtype), a Python int int64, a
  bool bool; a NumPy array keeps its own dtype (float64 stays float64).

Random tensors draw from ``learntorch.random``'s generator, which reproduces
PyTorch's CPU stream: after ``manual_seed(0)``, ``randn(3)`` gives PyTorch's numbers.
"""
from __future__ import annotations

import math
import numbers
import operator
import warnings
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import warn_always
from . import device_memory, dtypes, random
from .arrays import for_device, to_numpy, transfer
from .autograd import grad_mode
from .device import CPU, DeviceLike, as_device
from .tensor import (Tensor, check_memory_format, contiguous_format, laid_out, layout as _layout_type,
                     preserve_format, strided)
from .tensor_arguments import sizes_by_keyword

Number = Union[int, float, bool]  # PyTorch's "Number" (Scalar); a one-element tensor is taken too

# ``torch.tensor([1e40])`` is inf in float32, silently in PyTorch; NumPy's cast warns: filtered here (no cost per call)
warnings.filterwarnings("ignore", "overflow encountered in cast", RuntimeWarning, r"learntorch\.creation")

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
           "empty_like", "full_like", "arange", "linspace", "eye", "rand", "randn", "randint", "randperm",
           "rand_like", "randn_like", "randint_like", "scalar_tensor", "bernoulli", "multinomial", "logspace"]


def _sizes(sizes: tuple, size: Any, name: str) -> tuple:
    """The factory's sizes, given one by one (``zeros(2, 3)``), as one tuple (``zeros((2, 3))``) or by
    keyword (``zeros(size=(2, 3))``), as PyTorch's parser takes them."""
    return sizes if size is None else sizes_by_keyword(sizes, size, name, "size")


def _size(size: tuple, name: str = "zeros") -> tuple:
    """``zeros(2, 3)``, ``zeros((2, 3))`` and ``zeros([2, 3])`` are the same.  ``name`` is the
    factory named in PyTorch's messages for a size that is not one (``ones(2.5)``, ``zeros(2, 2.5)``,
    ``zeros(-1)``)."""
    if len(size) == 1 and (not isinstance(size[0], (tuple, list, int, np.integer, Tensor))
                           or (isinstance(size[0], Tensor) and size[0].numel() != 1)):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0]).__name__}")
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for pos, s in enumerate(size, 1):
        if isinstance(s, Tensor) and s.numel() == 1 and not s.is_floating_point():
            s = operator.index(s)  # (a one-element integer tensor is an int to PyTorch)
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {pos} with error "
                            f"\"type must be tuple of ints,but got {type(s).__name__}\"")
        if s < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, size))}]")
    return tuple(int(s) for s in size)


def _finish(host: np.ndarray, device: DeviceLike, requires_grad: bool) -> Tensor:
    """Put a host array on its device and wrap it (checking requires_grad's rule)."""
    dev = as_device(device)
    t = Tensor._make(transfer(host, CPU, dev), dev)
    if requires_grad:
        _require_grad(t)
    return t


def _require_grad(t: Tensor) -> None:
    """``requires_grad=True`` at creation (PyTorch words this error differently from ``requires_grad_()``)."""
    if not t.dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t.requires_grad_(True)


_NOTHING = object()


def _infer_dtype(data: Any) -> dtypes.dtype:
    """PyTorch's inference for nested Python data: each element has a type (a Python float the
    default float, an int int64, a bool bool; a NumPy scalar or array, or a tensor, its own
    dtype) and the sequence has the promotion of them all: ``[1, 2.5]`` is float32,
    ``[np.float32(1), np.float32(2)]`` float32, ``[np.float64(1)]`` float64, ``[]`` the default."""
    if isinstance(data, np.ndarray):
        return dtypes.from_numpy_dtype(data.dtype)
    if isinstance(data, np.generic):
        return dtypes.from_numpy_dtype(data.dtype)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    first = data
    while isinstance(first, _SEQUENCES) and first:
        first = first[0]
    if isinstance(first, str):  # PyTorch reads the shape from the first elements: a string there is a sequence
        raise ValueError("too many dimensions 'str'")
    flat = list(_flatten(data))
    if any(isinstance(v, str) for v in flat):  # (a string among numbers: PyTorch refuses the type)
        raise TypeError("new(): invalid data type 'str'")
    odd = next((v for v in flat if not isinstance(v, (numbers.Number, Tensor, np.ndarray, np.generic, str))),
               _NOTHING)
    if odd is not _NOTHING:  # None, an object …: PyTorch names the element's type
        raise RuntimeError(f"Could not infer dtype of {type(odd).__name__}")
    if any(isinstance(v, complex) for v in flat):
        raise TypeError("learntorch does not support complex tensors")
    found = None
    for v in flat:
        dt = _element_dtype(v)
        found = dt if found is None or found is dt else dtypes.promote_types(found, dt)
    return dtypes.get_default_dtype() if found is None else found


def _element_dtype(v: Any) -> dtypes.dtype:
    """The dtype PyTorch gives one element of nested data (see ``_infer_dtype``)."""
    if isinstance(v, (np.ndarray, np.generic)):  # (before float: np.float64 is a float)
        return dtypes.from_numpy_dtype(v.dtype)
    if isinstance(v, Tensor):
        return v.dtype
    if isinstance(v, bool):
        return dtypes.bool
    if isinstance(v, numbers.Integral):
        return dtypes.int64
    return dtypes.get_default_dtype()


# What PyTorch reads as a sequence of elements in nested data (``torch.tensor(range(3))`` too).
_SEQUENCES = (list, tuple, range)


def _flatten(data: Any):
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, _SEQUENCES):
            stack.extend(item)
        else:
            yield item


def _to_host(data: Any, arrays: Optional[list] = None, graded: Optional[list] = None) -> Any:
    """Nested data with any tensors inside turned into host values.

    A tensor inside a list stands for one number, as in PyTorch: ``tensor([t1, t2])`` of
    one-element tensors is ``tensor([t1.item(), t2.item()])``; a longer tensor is a ValueError
    (``torch.stack`` is the way to join tensors).  NumPy arrays met inside the lists are added
    to ``arrays`` (for PyTorch's warning that a list of arrays is slow); tensors that require grad,
    to ``graded`` (their number leaves the graph: PyTorch warns of that too)."""
    if isinstance(data, Tensor):
        if graded is not None and data._requires_grad:
            graded.append(data)
        if data.numel() != 1 and not data.is_floating_point():  # (PyTorch reads an integer one as an index)
            raise TypeError("only integer tensors of a single element can be converted to an index")
        if data.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return to_numpy(data._data).reshape(())
    if isinstance(data, _SEQUENCES):
        if arrays is not None and data and type(data[0]) is np.ndarray and data[0].ndim:
            arrays.append(data[0])
        return [_to_host(d, arrays, graded) for d in data]
    return data


def _refuse_negative_strides(array: np.ndarray) -> None:
    """PyTorch cannot describe a NumPy array that walks memory backwards (``a[::-1]``, ``np.flip``):
    ``from_numpy``, ``tensor`` and ``as_tensor`` all refuse it with this ValueError, and the
    learner copies first.  (A zero stride, from ``broadcast_to``, is fine.)"""
    if any(s < 0 for s in array.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")


def tensor(data: Any, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a **copy** of ``data`` (a number, nested lists, an array, a tensor)."""
    if isinstance(data, Tensor):
        warn_always.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                         "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                         "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
        dt = dtypes.from_argument(dtype) if dtype is not None else data.dtype
        return _finish(np.array(to_numpy(data._data), dtype=dt._np), device or data.device, requires_grad)
    if isinstance(data, np.ndarray):
        _refuse_negative_strides(data)
    dt = dtypes.from_argument(dtype) if dtype is not None else _infer_dtype(data)
    np_dtype = dt._np  # (bfloat16 has none: its own TypeError, before the one below)
    arrays: list = []
    graded: list = []
    values = _to_host(data, arrays, graded)
    if graded and grad_mode.is_grad_enabled():  # ``torch.tensor([loss_a, loss_b])``: torch.stack keeps the graph
        warn_always.warn_once("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                              "behavior.\nConsider using tensor.detach() first.", UserWarning, stacklevel=2)
    if arrays:  # (a Dataset that builds its batch from a list of images: np.stack them first)
        warn_always.warn_once("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
                              "converting the list to a single numpy.ndarray with numpy.array() before converting "
                              "to a tensor.", UserWarning, stacklevel=2)
    try:
        try:
            host = np.array(values, dtype=np_dtype)
        except (ValueError, OverflowError):  # maybe a number out of an integer dtype's range: PyTorch's error
            if dt.is_floating_point or dt is dtypes.bool or isinstance(data, np.ndarray):
                raise
            host = np.array(_fit_integers(values, dt), dtype=np_dtype)
    except ValueError as exc:
        raise ValueError(_ragged_message(data, dt) or f"expected sequence of equal length lists, got ragged data "
                         f"({exc})") from None
    except TypeError:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}") from None
    except OverflowError:  # an int beyond int64 (``torch.tensor(2**63)``): PyTorch's ValueError and words
        raise ValueError("Overflow when unpacking long long: the integer does not fit in 64 bits; give a float "
                         "dtype (dtype=torch.float64) to keep its magnitude") from None
    return _finish(host, device, requires_grad)


def _fit_integers(values: Any, dt: dtypes.dtype) -> Any:
    """Nested Python numbers for an integer ``dtype``, checked one by one as PyTorch checks them
    (only after NumPy refused the whole): an int beyond int64 is PyTorch's ValueError; one out of
    the dtype's range, or a float that is (nan too), its RuntimeError; -1 into uint8 wraps to 255."""
    if isinstance(values, (list, tuple)):
        return [_fit_integers(v, dt) for v in values]
    if type(values) is int and not -2 ** 63 <= values < 2 ** 63:
        raise OverflowError  # (the caller words it)
    try:
        return dtypes.check_scalar_fits(values, dt)
    except RuntimeError:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow") from None


def _ragged_message(data: Any, dt: dtypes.dtype) -> Optional[str]:
    """PyTorch's message for ragged nested lists: the shape is read from the first
    element at each depth, then every list is checked against it, depth first.  A list
    where that shape has a number, or a number where it has a list, is PyTorch's TypeError."""
    sizes, seq = [], data
    while isinstance(seq, _SEQUENCES):
        sizes.append(len(seq))
        if not seq:
            break
        seq = seq[0]
    stack = [(data, 0)]
    while stack:
        seq, dim = stack.pop()
        if dim >= len(sizes):
            if isinstance(seq, _SEQUENCES):  # ``[1, [2]]``: the number 1 made this depth one of numbers
                name = type(seq).__name__
                raise TypeError(f"must be real number, not {name}" if dt.is_floating_point
                                else f"'{name}' object cannot be interpreted as an integer")
            continue
        if isinstance(seq, numbers.Number):  # ``[[1], 2]``
            raise TypeError("not a sequence")
        if not isinstance(seq, _SEQUENCES):
            return None
        if len(seq) != sizes[dim]:
            return f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})"
        stack.extend((item, dim + 1) for item in reversed(seq))
    return None


def scalar_tensor(value: Number, *, dtype: Any = None, device: DeviceLike = None) -> Tensor:
    return tensor(value, dtype=dtype or dtypes.get_default_dtype(), device=device)


def as_tensor(data: Any, *, dtype: Any = None, device: DeviceLike = None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array or tensor when it can."""
    if isinstance(data, Tensor):
        return data.to(device=device or data.device, dtype=dtype or data.dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtypes.from_argument(dtype)._np == data.dtype) \
            and as_device(device).type == "cpu":
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


warn_always.pass_through(as_tensor.__code__)  # (tensor's warnings name the learner's line, not this one)
_UNSET: Any = object()


def asarray(obj: Any, *, dtype: Any = None, device: DeviceLike = None, copy: Optional[bool] = None,
            requires_grad: Any = _UNSET) -> Tensor:
    """``obj`` as a tensor, sharing its memory whenever dtype and device allow (the array-API
    ``asarray``).  ``copy=True`` always copies; ``copy=False`` never does (a ValueError where
    it would have to).  A tensor that already fits is returned *itself*."""
    if requires_grad is _UNSET:
        if isinstance(obj, Tensor) and obj.requires_grad:
            warn_always.warn("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead "
                             "of False. Pass requires_grad=False explicitly to get the old behavior and silence "
                             "this warning.", UserWarning, stacklevel=2)
        requires_grad = None
    want_dtype = dtypes.from_argument(dtype) if dtype is not None else None
    want_device = as_device(device) if device is not None else None
    if isinstance(obj, Tensor):
        dt, dev = want_dtype or obj.dtype, want_device or obj.device
        fits = dt is obj.dtype and dev == obj.device
        if copy is False and not fits:
            if dt is not obj.dtype:
                raise ValueError(f"can't alias tensor with dtype '{dtypes.SCALAR_NAMES[obj.dtype.name]}' into "
                                 f"dtype '{dtypes.SCALAR_NAMES[dt.name]}'.")
            raise ValueError(f"can't alias tensor from device '{obj.device}' to '{dev}'.")
        out = obj if fits and not copy else (obj.to(device=dev, dtype=dt) if not copy else
                                               obj.detach().to(device=dev, dtype=dt).clone())
    elif isinstance(obj, np.ndarray):
        dt = want_dtype or dtypes.from_numpy_dtype(obj.dtype)
        shares = dt._np == obj.dtype and (want_device is None or want_device.type == "cpu")
        if copy is False and not shares:
            raise ValueError("can't alias NumPy array into a tensor of another dtype or device.")
        out = from_numpy(obj) if shares and not copy else tensor(obj, dtype=dt, device=want_device)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = tensor(obj, dtype=want_dtype, device=want_device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A CPU tensor that **shares memory** with ``ndarray``: no copy is made."""
    if not isinstance(ndarray, np.ndarray):
        kind = type(ndarray)  # (PyTorch names a NumPy scalar's type with its module: numpy.float64)
        name = f"numpy.{kind.__name__}" if isinstance(ndarray, np.generic) else kind.__name__
        raise TypeError(f"expected np.ndarray (got {name})")
    dtypes.from_numpy_dtype(ndarray.dtype)  # TypeError for dtypes learntorch does not have
    _refuse_negative_strides(ndarray)
    if not ndarray.flags.writeable:
        warn_always.warn("The given NumPy array is not writable, and PyTorch does not support non-writable "
                         "tensors. This means writing to this tensor will result in undefined behavior. You may "
                         "want to copy the array to protect its data or make it writable before converting it to "
                         "a tensor. This type of warning will be suppressed for the rest of this program.",
                         UserWarning, stacklevel=2)
    return Tensor._make(ndarray, CPU)


def _filled(size: tuple, value: Any, dtype: Any, device: DeviceLike, requires_grad: bool,
            default: Optional[dtypes.dtype] = None, name: str = "zeros") -> Tensor:
    dt = dtypes.from_argument(dtype) if dtype is not None else (default or dtypes.get_default_dtype())
    dev = as_device(device)
    be = for_device(dev)
    shape = _size(size, name)
    xd = be.dtype(dt)
    if be.name == "strict":  # a logical device: refuse what cannot fit before filling host memory
        device_memory.check_room(dev.index or 0, math.prod(shape) * dt.itemsize)
    if value == 0:
        data = be.xp.zeros(shape, dtype=xd, device=be.native_device)
    elif value is None:
        data = be.xp.empty(shape, dtype=xd, device=be.native_device)
    else:
        if not dt.is_floating_point:  # full((2,), -1, dtype=uint8) is 255; 300 or nan an overflow error
            value = dtypes.check_scalar_fits(value, dt)
        try:
            data = be.xp.full(shape, value, dtype=xd, device=be.native_device)
        except OverflowError:  # ``torch.full((2,), 2**63)``: PyTorch's RuntimeError
            raise RuntimeError(f"value cannot be converted to type {dt} without overflow") from None
    t = Tensor._make(data, dev)
    if requires_grad:
        _require_grad(t)
    return t


def _check_layout(layout: Any, name: str) -> None:
    """``layout=torch.strided`` (or nothing) is what every learntorch tensor is; a value that is
    no layout is PyTorch's TypeError, and the sparse layouts are beyond this library."""
    if layout is None or layout is strided:
        return
    if not isinstance(layout, _layout_type):
        raise TypeError(f"{name}(): argument 'layout' must be torch.layout, not {type(layout).__name__}")
    raise NotImplementedError(f"{name}(): learntorch only has strided tensors, not layout={layout}")


def _in_format(t: Tensor, memory_format: Any, name: str) -> Tensor:
    """``t`` (fresh, with its own memory) stored in ``memory_format``: ``torch.channels_last`` gives
    NHWC strides, as ``torch.empty(..., memory_format=torch.channels_last)`` does."""
    if memory_format is None or memory_format is contiguous_format:
        return t
    check_memory_format(memory_format, name)
    if memory_format is preserve_format:
        return t
    t._data = laid_out(t, memory_format)
    return t


def zeros(*sizes: Any, size: Any = None, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False,
          out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    _check_layout(layout, "zeros")
    return _filled(_sizes(sizes, size, "zeros"), 0, dtype, device, requires_grad)


def ones(*sizes: Any, size: Any = None, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False,
         layout: Any = None, pin_memory: bool = False) -> Tensor:
    _check_layout(layout, "ones")
    return _filled(_sizes(sizes, size, "ones"), 1, dtype, device, requires_grad, name="ones")


def empty(*sizes: Any, size: Any = None, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False,
          pin_memory: bool = False, layout: Any = None, memory_format: Any = None) -> Tensor:
    """Uninitialised memory (learntorch fills it with zeros, so notebooks stay deterministic)."""
    _check_layout(layout, "empty")
    return _in_format(_filled(_sizes(sizes, size, "empty"), 0, dtype, device, requires_grad, name="empty"),
                      memory_format, "empty")


def full(size: Sequence[int], fill_value: Any, *, dtype: Any = None, device: DeviceLike = None,
         requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    _check_layout(layout, "full")
    default = dtypes.bool if isinstance(fill_value, bool) else \
        dtypes.int64 if isinstance(fill_value, (int, np.integer)) else None
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    bad = next((i for i, s in enumerate(size) if not isinstance(s, (int, np.integer, Tensor)) or isinstance(s, bool)),
               None)
    if bad is not None:
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, but found element of type "
                        f"{type(size[bad]).__name__} at pos {bad}")
    if not isinstance(fill_value, (numbers.Number, np.generic, Tensor)):  # (a one-element tensor is a number)
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not {type(fill_value).__name__}")
    return _filled((tuple(size),), fill_value, dtype, device, requires_grad, default, name="full")


def _like_layout(out: Tensor, input: Tensor, memory_format: Any, name: str) -> Tensor:
    """PyTorch's ``memory_format`` rule for ``*_like``: the default ``preserve_format`` keeps the
    strides of a densely stored ``input`` (``empty_like(x.permute(0, 2, 3, 1))`` is stored like
    ``x.permute(...)``, ``ones_like(m.t())`` like ``m.t()``), and gives any other input (a slice
    with gaps, an expanded tensor) dense strides in the same order -- which is exactly NumPy's
    ``empty_like`` rule (``order='K'``).  Other formats lay the result out as asked.  Only the
    strides change, never a value."""
    if memory_format is None or memory_format is preserve_format:
        if not input._backend.is_numpy or input.ndim < 2:
            return out
        like = np.empty_like(input._data, dtype=out._data.dtype)
        if like.strides != out._data.strides:
            like[...] = out._data
            out._data = like
        return out
    return _in_format(out, memory_format, name)


def _like(fn: Any, input: Tensor, dtype: Any, device: DeviceLike, requires_grad: bool, *args: Any,
          memory_format: Any = None, layout: Any = None, name: str = "zeros_like") -> Tensor:
    _check_layout(layout, name)
    out = fn(tuple(input.shape), *args, dtype=dtype or input.dtype, device=device or input.device)
    out = _like_layout(out, input, memory_format, name)
    if requires_grad:
        _require_grad(out)
    return out


def zeros_like(input: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False,
               memory_format: Any = None, layout: Any = None) -> Tensor:
    """Zeros with ``input``'s shape, dtype and device (not its data, not its graph), and by
    default its strides when it is densely stored (see :func:`_like_layout`)."""
    return _like(zeros, input, dtype, device, requires_grad, memory_format=memory_format, layout=layout)


def ones_like(input: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False,
              memory_format: Any = None, layout: Any = None) -> Tensor:
    return _like(ones, input, dtype, device, requires_grad, memory_format=memory_format, layout=layout,
                 name="ones_like")


def empty_like(input: Tensor, *, dtype: Any = None, device: DeviceLike = None, requires_grad: bool = False,
               memory_format: Any = None, layout: Any = None) -> Tensor:
    return _like(empty, input, dtype, device, requires_grad, memory_format=memory_format, layout=layout,
                 name="empty_like")


def full_like(input: Tensor, fill_value: Number, *, dtype: Any = None, device: DeviceLike = None,
              requires_grad: bool = False, memory_format: Any = None, layout: Any = None) -> Tensor:
    return _like(lambda size, *a, **kw: full(size, fill_value, **kw), input, dtype, device, requires_grad,
                 memory_format=memory_format, layout=layout, name="full_like")


def arange(start: Optional[Number] = None, end: Optional[Number] = None, step: Number = 1, *, dtype: Any = None,
           device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """``start, start+step, …`` up to but excluding ``end``; int64 unless a bound or step is a float.
    One number is the end (``arange(5)``, ``arange(end=5)``), as in PyTorch's two forms."""
    if end is None:
        if start is None:
            raise TypeError('arange() missing 1 required positional arguments: "end"')
        start, end = 0, start
    elif start is None:  # ``arange(end=5)``
        start = 0
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = values
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {_number(start)} -> {_number(end)}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dt = dtypes.get_default_dtype() if any(isinstance(v, (float, np.floating)) for v in values) else dtypes.int64
    else:
        dt = dtypes.from_argument(dtype)
    if dt is dtypes.bool:  # (NumPy counts up to two bools; PyTorch has no bool kernel at all)
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    n = math.ceil((end - start) / step)
    host = _arange_points(start, step, n, dt._np) if dt.is_floating_point \
        else np.arange(start, end, step, dtype=dt._np)
    return _finish(host, device, requires_grad)


# How many float32 values PyTorch's CPU kernels fill at once (AVX2's 256 bits; float64: half as many).
_VECTOR_FLOAT32S = 8


def _arange_points(start: float, step: float, n: int, np_dtype: Any) -> np.ndarray:
    """The points of a floating ``arange`` as PyTorch's CPU kernel produces them (found by experiment).

    Each point is ``start + step·i`` in float64, rounded once (a fused multiply-add) to the dtype --
    so ``arange(-1, 1, 0.2)[5]`` is 5.55e-17, not 0.  Except that the kernel fills vectors of
    8 float32s (4 float64s), two at a time: inside those, the vector's first point is rounded to
    the dtype and the others count from it (``first + step·j``, again fused).  The last
    ``n mod 16`` (8) points, that fill no pair of vectors, are single points again.  (Its threads
    split only tensors of more than 32768 points, and a host with AVX-512 has longer vectors:
    there the last bits can differ.)  float16 and bfloat16: computed in float64, rounded once."""
    i = np.arange(n, dtype=np.float64)
    exact = float(start).is_integer() and float(step).is_integer() and abs(start) + n * abs(step) < 2.0 ** 53
    if exact or np.dtype(np_dtype).itemsize < 4:  # (every product exact: no rounding to model)
        return (start + i * step).astype(np_dtype)
    step_v = np.full(n, float(step))
    with np.errstate(all="ignore"):
        points = _fused_multiply_add(step_v, i, float(start))
        width = _VECTOR_FLOAT32S * 4 // np.dtype(np_dtype).itemsize
        paired = n - n % (2 * width)
        j = i[:paired] % width
        firsts = _fused_multiply_add(step_v[:paired], i[:paired] - j, float(start)).astype(np_dtype)
        points[:paired] = _fused_multiply_add(step_v[:paired], j, firsts.astype(np.float64))
    return points.astype(np_dtype)


def _number(v: Any) -> str:
    """A bound as PyTorch's arange message prints it (``0``, ``inf``, ``-inf``, ``nan``, ``0.5``)."""
    return str(v) if not isinstance(v, float) or not v.is_integer() else str(int(v))


def range_(start: Number = 0, end: Optional[Number] = None, step: Number = 1, *, dtype: Any = None,
           device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """``torch.range`` (deprecated in PyTorch, which warns): like ``arange`` but *including*
    ``end``, and of the default float dtype unless ``dtype`` is given.  (Named ``range_`` here
    so that this module keeps Python's ``range``; exported as ``torch.range``.)"""
    warn_always.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                     "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
                     "in [start, end).", UserWarning, stacklevel=2)
    if end is None:  # (unlike ``arange(5)``: ``range(5)`` is PyTorch's TypeError)
        raise TypeError("range() missing 1 required positional arguments: \"end\"")
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    dt = dtypes.from_argument(dtype) if dtype is not None else dtypes.get_default_dtype()
    n = math.floor((end - start) / step) + 1  # end itself is included when a step lands on it
    host = (start + np.arange(n, dtype=np.float64) * step).astype(dt._np)
    return _finish(host, device, requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: DeviceLike = None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` points from ``start`` to ``end``, both included, evenly spaced.

    The points are PyTorch's, bit for bit (NumPy's ``np.linspace`` rounds differently in
    the last bit): see :func:`_linspace_points`."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    dt = dtypes.from_argument(dtype) if dtype is not None else dtypes.get_default_dtype()
    if dt is dtypes.bool:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    return _finish(_linspace_points(start, end, int(steps), dt._np), device, requires_grad)


def _linspace_points(start: float, end: float, steps: int, np_dtype: Any) -> np.ndarray:
    """The points of ``linspace`` as PyTorch's CPU kernel produces them (found by experiment).

    The step is ``(end - start) / (steps - 1)``, rounded to the dtype.  The first half of the
    points (``i < steps // 2``) count up from ``start``: ``start + step·i``; the second half
    count down from ``end``: ``end - step·(steps - 1 - i)``.  So both ends are exact and the
    points are symmetric.  Each point is rounded *once* (a fused multiply-add: the product
    is not rounded before the sum) -- which is why ``linspace(-1, 1, 7)[3]`` is -2.98e-8
    in float32, not 0.  Integer dtypes compute the same formula in float64 from the
    truncated ends, and truncate each point."""
    if steps == 0:
        return np.zeros(0, np_dtype)
    if steps == 1:
        return np.array([start], dtype=np.float64).astype(np_dtype)
    kind, size = np.dtype(np_dtype).kind, np.dtype(np_dtype).itemsize
    if kind == "f" and size >= 4:  # float32, float64: PyTorch's numbers exactly
        compute = np.dtype(np_dtype).type
    elif kind in "iu":  # integers: the ends are truncated first, the points computed in float64
        compute, start, end = np.float64, int(start), int(end)
    else:  # float16, bfloat16, complex: in float64 (complex128), rounded once at the end
        compute = np.complex128 if kind == "c" else np.float64
        return np.linspace(start, end, steps, dtype=compute).astype(np_dtype)
    first, last = compute(start), compute(end)
    with np.errstate(all="ignore"):
        step = (last - first) / compute(steps - 1)
        half = steps // 2
        up = _fused_multiply_add(np.full(half, step), np.arange(half, dtype=compute), first)
        from_end = np.arange(steps - 1 - half, -1, -1, dtype=compute)  # steps-1-i for i = half … steps-1
        down = _fused_multiply_add(np.full(steps - half, -step), from_end, last)
        points = np.concatenate([up, down])
    return points.astype(np_dtype)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple:
    """``a + b`` rounded, and its rounding error (exact: ``a + b == s + err``; Knuth)."""
    s = a + b
    b_part = s - a
    return s, (a - (s - b_part)) + (b - b_part)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple:
    """``a · b`` rounded, and its rounding error (exact; Dekker's product, with each factor
    split by Veltkamp into two halves whose products are all exact)."""
    bits = np.finfo(a.dtype).nmant + 1
    factor = a.dtype.type(2.0 ** ((bits + 1) // 2) + 1)

    def split(x: np.ndarray) -> tuple:
        c = factor * x
        high = c - (c - x)
        return high, x - high

    p = a * b
    a_hi, a_lo = split(a)
    b_hi, b_lo = split(b)
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def _fused_multiply_add(a: np.ndarray, b: np.ndarray, c: Any) -> np.ndarray:
    """``a·b + c`` rounded once, in ``a``'s dtype, as a hardware FMA computes it (NumPy has none).

    Boldo and Melquiond's emulation: the exact product and sum are split into a rounded
    part and an error; the errors are added with *rounding to odd* (an inexact result
    keeps an odd last bit), which makes the final rounding to nearest come out right."""
    product, product_err = _two_product(a, b)
    high, low = _two_sum(np.full_like(a, c), product)
    tail, tail_err = _two_sum(low, product_err)
    uint = np.uint32 if a.dtype.itemsize == 4 else np.uint64
    even = (tail.view(uint) & 1) == 0
    to_odd = (tail_err != 0) & even  # inexact, and rounded to an even last bit: step towards the error
    tail = np.where(to_odd, np.nextafter(tail, np.where(tail_err > 0, np.inf, -np.inf).astype(a.dtype)), tail)
    return high + tail


def eye(n: int, m: Optional[int] = None, *, dtype: Any = None, device: DeviceLike = None,
        requires_grad: bool = False) -> Tensor:
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"{'n' if n < 0 else 'm'} must be greater or equal to 0, got {n if n < 0 else m}")
    dt = dtypes.from_argument(dtype) if dtype is not None else dtypes.get_default_dtype()
    return _finish(np.eye(n, m, dtype=dt._np), device, requires_grad)


# ----------------------------------------------------------------------------- random
def _generator(generator: Any) -> Any:
    return generator if generator is not None else random.default_generator


def float_argument(name: str, argument: str, position: int, value: Any) -> Any:
    """A ``float`` argument as PyTorch's parser takes it: a Python or NumPy number, or a 0-d
    tensor that needs no gradient (``x.cauchy_(torch.tensor(1.5))``, its value); anything else
    (a tensor of many numbers, a string, None) is its TypeError, raised before any other check."""
    if isinstance(value, Tensor):
        if value.ndim == 0 and not value.requires_grad:
            return value.item()
    elif isinstance(value, (int, float, np.integer, np.floating, np.bool_)):
        return value
    raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be float, not "
                    f"{type(value).__name__}")


def int_argument(value: Any) -> Optional[int]:
    """An ``int`` argument as PyTorch's parser takes it, or None when it is none: a Python or NumPy
    integer (not a bool), or an integer tensor of one element."""
    if isinstance(value, Tensor):
        if value.numel() == 1 and value.dtype not in (dtypes.bool,) and not value.dtype.is_floating_point:
            return int(value.item())
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    return None


def _float_dtype(dtype: Any, kernel: str = "normal_kernel_cpu") -> dtypes.dtype:
    dt = dtypes.from_argument(dtype) if dtype is not None else dtypes.get_default_dtype()
    if not dt.is_floating_point:
        names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{names.get(dt.name, dt.name)}'")
    return dt


def rand(*sizes: Any, size: Any = None, generator: Any = None, dtype: Any = None, device: DeviceLike = None,
         requires_grad: bool = False) -> Tensor:
    """Uniform numbers in [0, 1), PyTorch's stream (see ``learntorch.random``)."""
    dt = _float_dtype(dtype, "check_uniform_bounds")
    return _finish(_generator(generator).uniform(_size(_sizes(sizes, size, "rand"), "rand"), dt._np), device,
                   requires_grad)


def randn(*sizes: Any, size: Any = None, generator: Any = None, dtype: Any = None, device: DeviceLike = None,
          requires_grad: bool = False) -> Tensor:
    """Standard normal numbers, PyTorch's stream (see ``learntorch.random``)."""
    dt = _float_dtype(dtype)
    return _finish(_generator(generator).normal(_size(_sizes(sizes, size, "randn"), "randn"), dt._np), device,
                   requires_grad)


def randint(low: int, high: Any = None, size: Any = None, *, generator: Any = None, dtype: Any = None,
            device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    only_bounds_given = high is not None and size is None
    if size is None:
        low, high, size = 0, low, high
    elif high is None:  # ``randint(10, size=(3,))``: the (high, size) form, its size given by keyword
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing 1 required positional arguments: \"size\"")
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):  # randint(0, 10): no size
        where = " (position 2)" if only_bounds_given else ""
        raise TypeError(f"randint(): argument 'size'{where} must be tuple of ints, not int")
    dt = dtypes.from_argument(dtype) if dtype is not None else dtypes.int64
    return _finish(_generator(generator).random_integers(low, high, _size((tuple(size),), "randint"), dt._np), device,
                   requires_grad)


def randperm(n: int, *, generator: Any = None, dtype: Any = None, device: DeviceLike = None,
             requires_grad: bool = False) -> Tensor:
    dt = dtypes.from_argument(dtype) if dtype is not None else dtypes.int64
    return _finish(_generator(generator).randperm(n, dt._np), device, requires_grad)


def rand_like(input: Tensor, *, generator: Any = None, dtype: Any = None, layout: Any = None,
              device: DeviceLike = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """``empty_like(input).uniform_()``, as PyTorch defines it: the result keeps the strides of a
    densely stored ``input`` and takes the numbers in that memory order, so ``rand_like(x.t())``
    holds the numbers of ``rand_like(x)`` transposed (see ``random.fill_in_memory_order``)."""
    dt = _float_dtype(dtype or input.dtype, "check_uniform_bounds")
    out = empty_like(input, dtype=dt, device=device, layout=layout, memory_format=memory_format)
    out.uniform_(generator=generator)
    return out.requires_grad_(True) if requires_grad else out


def randn_like(input: Tensor, *, generator: Any = None, dtype: Any = None, layout: Any = None,
               device: DeviceLike = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """``empty_like(input).normal_()``: ``input``'s strides when it is densely stored, the numbers
    in memory order, and one element at a time when that layout is not contiguous (as ``normal_``)."""
    dt = _float_dtype(dtype or input.dtype)
    out = empty_like(input, dtype=dt, device=device, layout=layout, memory_format=memory_format)
    out.normal_(generator=generator)
    return out.requires_grad_(True) if requires_grad else out


def randint_like(input: Tensor, low: Any = None, high: Any = None, *, dtype: Any = None,
                 device: DeviceLike = None, requires_grad: bool = False, generator: Any = None,
                 layout: Any = None, memory_format: Any = None) -> Tensor:
    """Integers in ``[low, high)`` shaped like ``input`` (its dtype by default, so floats for a float
    input); ``randint_like(x, high)`` and ``randint_like(x, high=h)`` mean ``low = 0``."""
    if high is None:
        if low is None:
            raise TypeError("randint_like() missing 1 required positional argument: 'high'")
        low, high = None, low
    if low is None:  # ``high`` alone: PyTorch has an overload that takes it as a 0-d tensor (of any dtype)
        low = 0
        if isinstance(high, Tensor):
            if high.ndim != 0:
                raise RuntimeError("high must be a scalar tensor and on CPU")
            high = int(high.item())  # (a float is truncated, as PyTorch's item<int64_t>() does)
    dt = dtypes.from_argument(dtype) if dtype is not None else input.dtype
    # ``empty_like(input).random_(low, high)``: input's dense strides kept, the numbers in memory order
    out = empty_like(input, dtype=dt, device=device if device is not None else input.device, layout=layout,
                     memory_format=memory_format)
    gen = _generator(generator)
    random.fill_in_memory_order(out, lambda shape: gen.random_integers(low, high, shape, dt._np))
    return out.requires_grad_(True) if requires_grad else out


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """0/1 draws: 1 with probability ``input`` (element-wise), or with the number ``p``.

    The same stream as PyTorch: with a tensor of probabilities each element takes one
    uniform of that tensor's dtype (``rand``'s numbers) and gives ``u < p``; with a number
    ``p`` it is ``Tensor.bernoulli_(p)`` (one double uniform per element, as dropout)."""
    if p is not None and not (isinstance(p, (int, float, np.number))
                              or (isinstance(p, Tensor) and p.ndim == 0 and not p.requires_grad)):
        raise TypeError(f"bernoulli() received an invalid combination of arguments - got (Tensor, "
                        f"{type(p).__name__}), but expected one of:\n * (Tensor input, *, torch.Generator generator = "
                        "None, Tensor out = None)\n * (Tensor input, float p, *, torch.Generator generator = None)\n")
    gen = _generator(generator)
    shape = tuple(input.shape)
    if p is not None:
        p = p.item() if isinstance(p, Tensor) else p
        return _finish(gen.bernoulli(float(p), shape, input.dtype._np), input.device, False)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{dtypes.type_name(input.dtype)}'")
    probs = np.asarray(input.detach().cpu().numpy())
    if ((probs < 0) | (probs > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    u = gen.uniform(shape, input.dtype._np)
    return _finish((u < probs).astype(input.dtype._np), input.device, False)


def _num_samples(value: Any, position: int) -> int:
    """``num_samples``, an int (PyTorch's parser: not a float, not a tensor of floats)."""
    n = int_argument(value)
    if n is None:
        raise TypeError(f"multinomial(): argument 'num_samples' (position {position}) must be int, not "
                        f"{type(value).__name__}")
    return n


def multinomial_method(self: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """``x.multinomial(n)``: as the function, with the method's numbering of the arguments."""
    return multinomial(self, _num_samples(num_samples, 1), replacement, generator=generator)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """Draw ``num_samples`` category indices per row of (unnormalised) probabilities ``input``.

    With replacement (PyTorch's algorithm, same draws): the normalised running sum of each row
    is searched for one double uniform per sample.  Without replacement: the Gumbel-max trick
    in its exponential form, the indices of the ``num_samples`` largest ``p / q`` with
    ``q ~ Exp(1)`` (PyTorch's ``exponential_``: ``-log(1 - u)``, u a double uniform)."""
    num_samples = _num_samples(num_samples, 2)
    gen = _generator(generator)
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{str(input.dtype).split('.')[-1].capitalize()}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    probs = np.atleast_2d(np.asarray(input.detach().cpu().numpy()))
    n_dist, n_cat = probs.shape
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if not np.isfinite(probs).all() or (probs < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (probs.sum(axis=1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    # one sample per row, even with replacement, takes torch's fast path: the Gumbel-max draw below
    if replacement and num_samples > 1:
        cum = np.cumsum(probs, axis=1, dtype=probs.dtype)
        cum = cum / cum[:, -1:]
        u = gen.uniform((n_dist, num_samples), np.float64)
        out = np.stack([np.searchsorted(cum[i], u[i], side="left") for i in range(n_dist)])
    else:
        u = gen.uniform((n_dist, n_cat), np.float64)
        q = (-np.log1p(-u)).astype(probs.dtype)
        ratio = probs / q
        out = np.argsort(-ratio, axis=1, kind="stable")[:, :num_samples]
    out = out.astype(np.int64)
    return _finish(out if input.dim() == 2 else out[0], input.device, False)


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None,
             device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """``base ** linspace(start, end, steps)``: points evenly spaced on a log scale."""
    exps = linspace(start, end, steps, dtype=dtypes.float64)
    dt = dtypes.from_argument(dtype) if dtype is not None else dtypes.get_default_dtype()
    host = np.power(float(base), exps.numpy()).astype(dt._np)
    return _finish(host, device, requires_grad)


# ---------------------------------------------------------------------------- in-place random fills
# ``t.bernoulli_(p)``, ``t.exponential_()``, ``t.random_(a, b)``: the same draws as PyTorch's CPU
# kernels, written into ``t`` (so ``manual_seed`` reproduces PyTorch's values).
# Each one draws in the order of ``t``'s memory, as PyTorch's loop does (``random.fill_in_memory_order``).
def _bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    if not isinstance(p, Tensor):
        p = float_argument("bernoulli_", "p", 1, p)
    if isinstance(p, Tensor):
        probs = p.expand(*self.shape).to(dtypes.float64 if self.dtype is dtypes.float64 else p.dtype)
        # ``bernoulli`` draws in index order: hand it the probabilities with the dimensions in memory order
        order = random.memory_order(tuple(self.shape), self.stride())
        return random.fill_in_memory_order(
            self, lambda shape: bernoulli(probs.permute(order), generator=generator).numpy().astype(self.dtype._np))
    gen = _generator(generator)
    return random.fill_in_memory_order(self, lambda shape: gen.bernoulli(float(p), shape, self.dtype._np))


def _exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Exp(λ) draws: ``-log(1 - u) / λ`` with one double uniform ``u`` per element."""
    lambd = float_argument("exponential_", "lambd", 1, lambd)
    if not self.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {dtypes.type_name(self.dtype)}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    gen = _generator(generator)
    return random.fill_in_memory_order(
        self, lambda shape: (-np.log1p(-gen.uniform(shape, np.float64)) / lambd).astype(self.dtype._np))


# ``random_()`` with no bounds: every integer the dtype holds exactly, from 0, drawn as
# ``uniform_int_distribution`` does: ``random64() % n`` for int64 and float64, ``random() % n``
# (32 bits) for the others, ``random() & 1`` for bool.  n is the dtype's largest value + 1, or
# 2**digits + 1 for the floats (PyTorch's own bounds: float32 holds every integer up to 2**24).
_FULL_RANGE = {"int64": (True, 2**63), "float64": (True, 2**53 + 1), "int32": (False, 2**31),
               "int16": (False, 2**15), "int8": (False, 2**7), "uint8": (False, 2**8), "bool": (False, 2),
               "float32": (False, 2**24 + 1), "float16": (False, 2**11 + 1), "bfloat16": (False, 2**8 + 1)}
# the largest integer ``random_(from, None)`` may draw ("to_inc"): the dtype's largest, or 2**digits
_TO_INCLUSIVE = {"int64": 2**63 - 1, "int32": 2**31 - 1, "int16": 2**15 - 1, "int8": 2**7 - 1, "uint8": 2**8 - 1,
                 "bool": 1, "float64": 2**53, "float32": 2**24, "float16": 2**11, "bfloat16": 2**8}


def _draws(gen: Any, n: int, modulus: int, base: int, wide: bool, dt: Any) -> np.ndarray:
    """``base + (draw % modulus)`` for n draws of 64 bits (``wide``) or 32, in unsigned 64-bit
    arithmetic that wraps, then read as int64 and cast to ``dt`` (ATen's ``uniform_int*``)."""
    v = gen._random64(n) if wide else gen._random(n)
    vals = (v % np.uint64(modulus)) + np.uint64(base % 2**64) if modulus else v + np.uint64(base % 2**64)
    return vals.view(np.int64).astype(dt)


_RANDOM_SIGNATURES = ("but expected one of:\n * (*, torch.Generator generator = None)\n * (int from, int to, *, "
                      "torch.Generator generator = None)\n * (int to, *, torch.Generator generator = None)\n")


def _random_bounds(args: tuple, named: dict) -> tuple[str, Optional[int], Optional[int]]:
    """PyTorch's three overloads of ``random_``: ``()``, ``(to)`` and ``(from, to)``, with ``to``
    possibly None in the last (up to the dtype's largest value).  Returns ``(form, from, to)``.
    A float, a bool or a tensor of floats for a bound is PyTorch's TypeError."""
    bounds = list(args)
    if set(named) - {"from", "to"} or len(bounds) > 2 or ("from" in named and bounds):
        bounds = None
    elif "from" in named:
        bounds = [named["from"], named.get("to")]
    elif "to" in named:  # ``random_(to=3)``, or ``random_(1, to=3)``
        bounds = bounds + [named["to"]]
    if bounds is not None:
        values = [int_argument(b) for b in bounds]
        if len(bounds) == 2 and values[0] is not None and (values[1] is not None or bounds[1] is None):
            return "from", values[0], values[1]
        if len(bounds) == 1 and values[0] is not None:
            return "to", 0, values[0]
        if not bounds:
            return "full", None, None
    got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in named.items()])
    raise TypeError(f"random_() received an invalid combination of arguments - got ({got}), {_RANDOM_SIGNATURES}")


def _random_(self: Tensor, *bounds: Any, generator: Any = None, **named: Any) -> Tensor:
    """Integers uniformly from ``[from, to)``; ``random_(to)`` means ``[0, to)``; ``random_(from, None)``
    up to the largest value of the dtype; with no bounds, every integer the dtype holds exactly,
    from 0 (``[0, 2**24]`` for float32, 0 or 1 for bool)."""
    form, low, high = _random_bounds(bounds, named)
    name = self.dtype.name
    gen = _generator(generator)
    if name not in _FULL_RANGE:
        raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{dtypes.type_name(self.dtype)}'")
    dt = self.dtype._np
    if form == "full":
        wide, modulus = _FULL_RANGE[name]
        return random.fill_in_memory_order(self, lambda shape: _draws(gen, math.prod(shape), modulus, 0, wide,
                                                                      dt).reshape(shape))
    if high is not None:
        return random.fill_in_memory_order(self, lambda shape: gen.random_integers(low, high, shape, dt))
    if low == -2**63:  # [int64's least, its largest]: all 2**64 values, one random64() each
        if name in ("bool", "float16"):
            raise NotImplementedError(f"\"random_full_64_bits_range_kernel_cpu\" not implemented for "
                                      f"'{dtypes.type_name(self.dtype)}'")
        if name not in ("int64", "float32", "float64", "bfloat16"):
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
        return random.fill_in_memory_order(self, lambda shape: _draws(gen, math.prod(shape), 0, 0, True,
                                                                      dt).reshape(shape))
    top = _TO_INCLUSIVE[name]
    if low > top:
        if not self.dtype.is_floating_point:
            raise RuntimeError(f"from is out of bounds for {random._C_NAMES.get(name, name)}")
        raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to "
                           f"dtype, but got from={low} > to_inc={top}")
    least = {"bool": 0, "float64": -2**53, "float32": -2**24, "float16": -2**11, "bfloat16": -2**8}.get(
        name, -top - 1 if name != "uint8" else 0)
    if low < least:
        if self.dtype.is_floating_point:  # (as in random_integers: PyTorch rounds such bounds; not reproduced)
            raise NotImplementedError(f"random_ from beyond -2**{int(math.log2(-least))} is inexact in {name}; "
                                      "torch rounds the bound there, learntorch does not")
        raise RuntimeError(f"from is out of bounds for {random._C_NAMES.get(name, name)}")
    modulus = top - low + 1
    return random.fill_in_memory_order(
        self, lambda shape: _draws(gen, math.prod(shape), modulus, low, modulus >= 2**28, dt).reshape(shape))


# ---------------------------------------------------------------------------- strided and borrowed memory
def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: Any = None, layout: Any = None,
                  device: DeviceLike = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor with exactly these strides (in elements): its own storage, just large enough
    for the last element the strides reach.  PyTorch leaves the values uninitialised; here they are
    zeros.  (For a tensor laid out like another one, ``empty_like`` is the usual tool.)"""
    size, stride = _size(tuple(size), "empty_strided"), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    _check_layout(layout, "empty_strided")
    dt = dtypes.from_argument(dtype) if dtype is not None else dtypes.get_default_dtype()
    dev = as_device(device)
    if dev.type != "cpu":  # the device's arrays are made by its library, in its own layout
        return empty(size, dtype=dt, device=dev, requires_grad=requires_grad)
    needed = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    storage = np.zeros(needed, dtype=dt._np)
    array = np.lib.stride_tricks.as_strided(storage, shape=size, strides=tuple(s * storage.itemsize for s in stride))
    return _finish(array, dev, requires_grad)


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-D tensor that *shares* the memory of an object with Python's buffer protocol (a
    ``bytearray``, an ``array.array``, a ``memoryview``): writes through either are seen by both,
    as with ``from_numpy``.  ``offset`` is in bytes, ``count`` in elements (-1: all that fit)."""
    try:
        raw = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length = raw.nbytes
    dt = dtypes.from_argument(dtype)
    itemsize = dt.itemsize
    if length == 0 and count in (0, -1):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % itemsize:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({itemsize})")
        count = (length - offset) // itemsize
    elif count * itemsize > length - offset:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({length} bytes)")
    if raw.readonly:
        _warn_read_only_buffer()
    array = np.frombuffer(buffer, dtype=dt._np, count=count, offset=offset)
    return _finish(array, CPU, requires_grad)


_READ_ONLY_WARNED = [False]


def _warn_read_only_buffer() -> None:
    if not _READ_ONLY_WARNED[0]:  # once per program, as PyTorch says it does
        _READ_ONLY_WARNED[0] = True
        warn_always.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors. "
                         "This means you can write to the underlying (supposedly non-writable) buffer using the "
                         "tensor. You may want to copy the buffer to protect its data or make it writable before "
                         "converting it to a tensor. This type of warning will be suppressed for the rest of this "
                         "program.", UserWarning, stacklevel=3)
