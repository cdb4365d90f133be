"""Indexing: ``x[rows]``, ``x[mask]``, ``x[i] = v``, ``gather``, ``index_select``, ``masked_fill``.

Two kinds of index, as in NumPy and PyTorch:

* *basic* (ints, slices, ``None``, ``...``): the result is a view;
* *advanced* (lists, integer tensors, boolean masks): the result is a copy.

An index tensor must be integer (int64/int32) or bool, and on the CPU or on the
indexed tensor's device — a float index tensor is the classic "strange values"
pitfall of the notes, and here it is an IndexError that says so.  Backward of
an index scatters the gradient back, *adding* where an index repeats.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .. import warn_always
from .. import dtypes
from ..autograd import grad_mode
from ..autograd.function import Function
from ..arrays import to_numpy, transfer
from ..device import CPU
from ..tensor import Tensor, _wrap_dim
from .common import check_same_device, infer_size, new_result, row_major, sum_to
from .inplace import inplace, refresh_views
from .shape import expand

__all__ = ["getitem", "setitem", "index_select", "gather", "masked_fill", "nonzero", "scatter_into_zeros",
           "take_along_dim", "masked_select"]


# The dtypes an index tensor may have: PyTorch's indexing kernels take int64 and int32 positions
# and bool (or uint8, the old ByteTensor) masks; an int8 or int16 tensor is refused, not widened.
INDEX_DTYPES = frozenset({dtypes.int64, dtypes.int32, dtypes.uint8, dtypes.bool})


def _convert_key(x: Tensor, key: Any) -> tuple[Any, bool]:
    """Translate a PyTorch index into the backend's, and say whether it is advanced."""
    if _sequence_as_tuple(key):
        warn_always.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
                         "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted "
                         "as tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                         "result", UserWarning, stacklevel=3)
        key = tuple(key)
    if not isinstance(key, tuple):
        key = (key,)
    out, advanced = [], False
    be = x._backend
    dim = 0  # the dimension of x that k indexes (None once an Ellipsis makes it unknown)
    shape = list(x.shape)  # x's shape after the integer indices so far (PyTorch applies those first)
    for k in key:
        if isinstance(k, np.ndarray):
            k = _ndarray_index(k)
        if isinstance(k, Tensor):
            if k._dtype not in INDEX_DTYPES:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if k._dtype is dtypes.uint8:  # PyTorch still reads a uint8 index as a mask (the old ByteTensor)
                warn_always.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                                 "instead.", UserWarning, stacklevel=3)
                k = Tensor._make(k._backend.xp.astype(k._data, k._backend.xp.bool), k._device)
            if k._dtype is dtypes.bool and k.ndim and dim is not None:
                have = tuple(shape[dim:dim + k.ndim])
                for i, (m, s) in enumerate(zip(k.shape, have + (None,) * (k.ndim - len(have)))):
                    if m != s:
                        raise IndexError(f"The shape of the mask [{', '.join(map(str, k.shape))}] at index {i} "
                                         f"does not match the shape of the indexed tensor "
                                         f"[{', '.join(map(str, shape))}] at index {dim + i}")
            if dim is not None and (k.ndim or k._dtype is dtypes.bool):
                dim += k.ndim if k._dtype is dtypes.bool else 1
            elif dim is not None and dim < len(shape):
                del shape[dim]
            if k._device != x._device:
                if k._device.type == "cpu":
                    k = Tensor._make(transfer(k._data, k._device, x._device), x._device)
                else:
                    raise RuntimeError(f"indices should be either on cpu or on the same device as the indexed "
                                       f"tensor ({x._device})")
            if k.ndim == 0 and k._dtype is not dtypes.bool:
                out.append(int(k.item()))
                continue
            out.append(k._data)
            advanced = True
        elif isinstance(k, (list, tuple, range)):
            k = _int_lists(k)
            dim = None if dim is None else dim + 1
            # An empty list selects nothing: PyTorch reads it as an empty int64 index.
            arr = be.asarray(k, dtypes.int64) if len(k) == 0 else be.asarray(k)
            if getattr(arr.dtype, "kind", "") == "f":  # PyTorch reads a list of floats as int64, truncated
                arr = be.xp.astype(arr, be.dtype(dtypes.int64))
            out.append(arr)
            advanced = True
        elif isinstance(k, bool):
            out.append(be.asarray(k))
            advanced = True
        elif k is None or k is Ellipsis or isinstance(k, (int, slice)):
            if k is Ellipsis:
                dim = None
            elif isinstance(k, int) and dim is not None and dim < len(shape):
                del shape[dim]
            elif k is not None and dim is not None:
                dim += 1
            if isinstance(k, slice) and k.step is not None and k.step < 0:
                raise ValueError("step must be greater than zero")
            out.append(k)
        elif hasattr(k, "__index__"):
            out.append(k.__index__())
        elif isinstance(k, (str, bytes)):  # PyTorch reads it as a sequence of indices, and refuses its type
            raise TypeError(f"new(): invalid data type '{type(k).__name__}' (a string is not an index: use an "
                            "int, a slice, None, ..., or a tensor or list of indices)")
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             "are valid indices (got " + type(k).__name__ + ")")
    if not advanced and not be.is_numpy and not any(k is Ellipsis for k in out):
        out.append(Ellipsis)  # the array API (and the strict stand-in) wants every axis named: "..." does
    return tuple(out), advanced


def _ndarray_index(k: np.ndarray) -> Tensor:
    """A NumPy array used as an index, read as PyTorch reads it: a tensor of its data, long
    unless it is a bool (or uint8: the old mask) array -- floats truncated, as in a list."""
    dt = dtypes.from_numpy_dtype(k.dtype)  # TypeError for a dtype a tensor cannot hold
    if dt is not dtypes.bool and dt is not dtypes.uint8:
        k = k.astype(np.int64)
    return Tensor._make(np.array(k), CPU)


def _sequence_as_tuple(key: Any) -> bool:
    """PyTorch's (and old NumPy's) legacy rule: a list index holding a sequence, tensor, slice,
    ``...`` or None, such as ``x[[rows, cols]]``, means ``x[rows, cols]`` (deprecated, with a
    warning); a list of plain ints, or a ``range``, is one integer index."""
    if not isinstance(key, list) or len(key) >= 32:
        return False
    return any(k is None or k is Ellipsis or isinstance(k, (Tensor, list, tuple, range, slice)) for k in key)


def _int_lists(k: Any) -> Any:
    """A (nested) sequence index as nested lists: a ``range`` (``x[range(n), target]``, the
    hand-written NLL loss) and tuples count as sequences of ints, as in PyTorch."""
    if isinstance(k, (list, tuple, range)):
        return [_int_lists(v) for v in k]
    if isinstance(k, Tensor) and k.ndim == 0:
        return k.item()
    return k


def _check_bounds(x: Tensor, key: tuple) -> None:
    """PyTorch's IndexError for an integer out of range (NumPy's message differs)."""
    if sum(1 for k in key if k is not None and k is not Ellipsis) > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    dim = 0
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            dim = x.ndim - sum(1 for j in key if j is not None and j is not Ellipsis)
            continue
        if isinstance(k, int) and dim < x.ndim:
            size = x.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
        dim += 1


def _strict_take(be: Any, data: Any, key: tuple) -> Any:
    """``data[key]`` on the stand-in, whose indexing (the array API's) takes integer arrays only through
    ``take``: one integer array among full slices (``x[rows]``, ``x[:, cols]``) becomes ``take`` along
    that axis.  None where ``data[key]`` itself should be used (NumPy, CuPy, other keys)."""
    if be.name != "strict":
        return None
    xp = be.xp
    pos = [i for i, k in enumerate(key) if hasattr(k, "dtype") and k.dtype != xp.bool]
    if len(pos) != 1 or not all(isinstance(k, slice) and k == slice(None) for i, k in enumerate(key) if i != pos[0]):
        return None
    axis, idx = pos[0], key[pos[0]]
    idx = xp.where(idx < 0, idx + data.shape[axis], idx)  # negative positions count from the end
    flat = xp.take(data, xp.reshape(idx, (-1,)), axis=axis)
    return xp.reshape(flat, data.shape[:axis] + idx.shape + data.shape[axis + 1:])


class Index(Function):
    """``x[key]``; backward adds the gradient into zeros at the same positions."""

    _backward_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, key: tuple = (), advanced: bool = True) -> Tensor:
        ctx.key, ctx.shape, ctx.advanced = key, tuple(x.shape), advanced
        data = _strict_take(x._backend, x._data, key) if advanced else None
        if data is None and advanced:
            data = _strict_get(x._backend, x._data, key)  # any other advanced key on the stand-in
        if data is None:
            data = x._data[key]
        if advanced:
            return new_result(data, x)
        return x._view_of(data)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Any:
        return IndexBackwardFn.apply(grad, key=ctx.key, shape=ctx.shape, advanced=ctx.advanced)


class Select(Index):
    _backward_name = "SelectBackward0"


class Slice(Index):
    _backward_name = "SliceBackward0"


class UnsqueezeIndex(Index):
    _backward_name = "UnsqueezeBackward0"


class Alias(Index):
    _backward_name = "AliasBackward0"


class IndexSelect(Index):
    _backward_name = "IndexSelectBackward0"


class MaskedSelect(Index):
    _backward_name = "MaskedSelectBackward0"


def _basic_node(x: Tensor, key: tuple) -> type:
    """The node PyTorch records for a basic index: it applies the index entries left to
    right (``select`` for an int, ``slice``, ``unsqueeze`` for None, skipping slices that
    take a whole dimension), so the last one that did something names the result."""
    if len(key) == 1 and isinstance(key[0], slice):
        return Slice
    real = sum(1 for k in key if k is not None and k is not Ellipsis)
    dim, node = 0, Alias
    for k in key:
        if k is None:
            node = UnsqueezeIndex
        elif k is Ellipsis:
            dim += x.ndim - real
        elif isinstance(k, int):
            node, dim = Select, dim + 1
        else:
            if k.indices(x.shape[dim]) != (0, x.shape[dim], 1):
                node = Slice
            dim += 1
    return node


class IndexBackwardFn(Function):
    """Scatter-add a gradient into zeros of the input's shape (and its own derivative is indexing)."""

    _backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, key: tuple = (), shape: tuple = (), advanced: bool = True) -> Tensor:
        ctx.key, ctx.advanced = key, advanced
        be = grad._backend
        out = be.xp.zeros(shape, dtype=grad._data.dtype, device=be.native_device)
        if advanced:
            out = _index_add(be, out, key, grad._data)
        else:  # (the array API cannot assign through None: drop it, and the grad's size-1 axes with it)
            plain = tuple(k for k in key if k is not None)
            out[plain] = be.xp.reshape(grad._data, out[plain].shape) if len(plain) != len(key) else grad._data
        return new_result(out, grad)

    @staticmethod
    def backward(ctx, g: Tensor) -> Any:
        return Index.apply(g, key=ctx.key, advanced=ctx.advanced)


def _index_add(be: Any, out: Any, key: tuple, values: Any) -> Any:
    """``out[key] += values`` with repeated indices adding up."""
    if be.is_numpy or be.name == "cupy":
        return be.scatter_add(out, key, values)
    # The array API has no scatter-add: add the values in at their flat positions with a
    # one-hot matrix product (repeated positions add up).
    xp = be.xp
    pos = _host_positions(out.shape, key)
    onehot = be.asarray(pos.reshape(-1, 1) == np.arange(out.size if isinstance(out.size, int) else pos.size))
    flat = xp.reshape(xp.broadcast_to(values, pos.shape), (1, -1))
    return out + xp.reshape(flat @ xp.astype(onehot, out.dtype), out.shape)


def _is_advanced(key: tuple) -> bool:
    return any(not (k is None or k is Ellipsis or isinstance(k, (int, slice))) for k in key)


def _host_positions(shape: tuple, key: tuple) -> np.ndarray:
    """The flat positions that ``key`` picks from an array of ``shape``, laid out by NumPy's
    indexing rules (which CuPy shares).  Worked out on the host from the shape and the index
    arrays alone, never the data: the stand-in's array-API indexing cannot mix index arrays
    with slices or masks with other indices, and has no scatter."""
    host_key = tuple(to_numpy(k) if hasattr(k, "shape") and hasattr(k, "dtype") else k for k in key)
    n = 1
    for s in shape:
        n *= s
    return np.arange(n, dtype=np.int64).reshape(shape)[host_key]


def _strict_get(be: Any, data: Any, key: tuple) -> Any:
    """``data[key]`` for an advanced key on the stand-in: ``take`` at the flat positions."""
    if be.name != "strict":
        return None
    pos = _host_positions(data.shape, key)
    flat = be.xp.take(be.xp.reshape(data, (-1,)), be.asarray(pos.reshape(-1)), axis=0)
    return be.xp.reshape(flat, pos.shape)


def _strict_put(be: Any, data: Any, key: tuple, values: Any) -> bool:
    """``data[key] = values`` in place for an advanced key on the stand-in (False elsewhere).
    Where a position repeats, the last value wins, as in NumPy."""
    if be.name != "strict" or not _is_advanced(key):
        return False
    xp = be.xp
    pos = _host_positions(data.shape, key)
    flat_pos = pos.reshape(-1)
    last = np.zeros((flat_pos.size, data.size if isinstance(data.size, int) else flat_pos.size), dtype=bool)
    for i, p in enumerate(flat_pos):
        last[:, p] = False
        last[i, p] = True
    vals = xp.asarray(values, dtype=data.dtype, device=be.native_device) if not hasattr(values, "shape") else values
    vals = xp.reshape(xp.broadcast_to(vals, pos.shape), (-1, 1))
    numeric = xp.astype(vals, xp.float64 if data.dtype == xp.bool else data.dtype)
    spread = xp.sum(numeric * xp.astype(be.asarray(last), numeric.dtype), axis=0)
    hit = be.asarray(last.any(axis=0))
    data[...] = xp.reshape(xp.where(hit, xp.astype(spread, data.dtype), xp.reshape(data, (-1,))), data.shape)
    return True


def _ints_first(key: Any) -> Any:
    """PyTorch applies the integer entries of an index first (``select``), then the rest.
    NumPy counts an int beside a list/tensor index as advanced too, which moves the
    result's dimensions when a slice or None separates them (``x[0, :, [1, 2]]``).
    For such keys, return (the ints with ``:`` elsewhere, the key without the ints);
    otherwise None."""
    if not isinstance(key, tuple) or len(key) < 2:
        return None

    def is_int(k: Any) -> bool:
        if isinstance(k, Tensor):
            return k.ndim == 0 and k._dtype is not dtypes.bool and not k._dtype.is_floating_point
        return isinstance(k, int) and not isinstance(k, bool) or type(k).__module__ == "numpy" and \
            getattr(k, "ndim", 1) == 0 and getattr(getattr(k, "dtype", None), "kind", "") in "iu"

    def is_advanced(k: Any) -> bool:
        return isinstance(k, (list, tuple, bool)) or (isinstance(k, Tensor) and not is_int(k)) or \
            type(k).__name__ == "ndarray"
    if not any(is_int(k) for k in key) or not any(is_advanced(k) for k in key):
        return None
    first, rest = [], []
    for k in key:
        if is_int(k):
            first.append(k)
        elif k is None or isinstance(k, bool):
            rest.append(k)                      # adds a dimension: nothing to skip in the first step
        elif k is Ellipsis:
            first.append(k)
            rest.append(k)
        else:
            mask_dims = k.ndim if isinstance(k, Tensor) and k._dtype is dtypes.bool else 1
            first.extend([slice(None)] * mask_dims)
            rest.append(k)
    return tuple(first), tuple(rest)


def getitem(x: Tensor, key: Any, _node: type = Index) -> Tensor:
    split = _ints_first(key)
    if split is not None:
        return getitem(getitem(x, split[0]), split[1], _node)
    key, advanced = _convert_key(x, key)
    if not advanced:
        _check_bounds(x, key)
        return _basic_node(x, key).apply(x, key=key, advanced=False)
    try:
        return _node.apply(x, key=key, advanced=True)
    except IndexError as exc:
        raise IndexError(str(exc).replace("axis", "dimension")) from None


class IndexPut(Function):
    """``x[key] = value`` in place.  PyTorch calls the node ``CopySlices``: the
    gradient flows to ``value`` at ``key`` and to the old ``x`` everywhere else."""

    _backward_name = "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, x: Tensor, value: Any, key: tuple = ()) -> Tensor:
        data = value._data if isinstance(value, Tensor) else value
        if isinstance(value, Tensor) and value._dtype is not x._dtype:
            data = x._backend.xp.astype(data, x._backend.dtype(x._dtype))
        try:
            if not _strict_put(x._backend, x._data, key, data):
                x._data[key] = data
        except ValueError:  # the value does not broadcast to the selection: PyTorch's RuntimeError
            if _is_advanced(key):
                shapes = (tuple(value.shape), _host_positions(x._data.shape, key).shape)
                raise RuntimeError("shape mismatch: value tensor of shape [{}] cannot be broadcast to indexing "
                                   "result of shape [{}]".format(*(", ".join(map(str, s)) for s in shapes))) from None
            expand(value, tuple(x._data[key].shape))  # (basic indexing: expand's own message)
            raise
        except IndexError as exc:  # an advanced index out of range: PyTorch says "dimension"
            raise IndexError(str(exc).replace("axis", "dimension")) from None
        ctx.key = key
        ctx.value_shape = tuple(value.shape) if isinstance(value, Tensor) else None
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        keep = grad.clone()
        if not _strict_put(keep._backend, keep._data, ctx.key, 0):
            keep._data[ctx.key] = 0
        gv = None
        if ctx.value_shape is not None and ctx.needs_input_grad[1]:
            # ctx.key is already the backend's key (arrays, not tensors): index with it directly
            advanced = any(not (k is None or k is Ellipsis or isinstance(k, (int, slice))) for k in ctx.key)
            gv = sum_to(Index.apply(grad, key=ctx.key, advanced=advanced) if ctx.key != () else grad,
                        ctx.value_shape)
        return keep, gv


def setitem(x: Tensor, key: Any, value: Any) -> None:
    """``x[key] = value``: an in-place change (bumps the version counter)."""
    split = _ints_first(key)
    if split is not None:  # as PyTorch: select with the ints (a view), then assign into it
        return setitem(getitem(x, split[0]), split[1], value)
    whole = key is Ellipsis or (type(key) is tuple and len(key) == 1 and key[0] is Ellipsis)  # x[...] = v: into x, not a view
    key, advanced = _convert_key(x, key)
    if not advanced:
        _check_bounds(x, key)
    if isinstance(value, Tensor):
        check_same_device(x, value) if value.ndim else None
        if value._device != x._device:
            value = value.to(x._device)
    elif isinstance(value, np.integer):  # (an object with __index__, as PyTorch takes; np.float32 is not one)
        value = int(value)
    elif not isinstance(value, (int, float, bool)):  # PyTorch takes numbers and tensors only
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"can't assign a {name} to a {x.type()}")
    if not isinstance(value, Tensor):
        value = _scalar_to_write(value, x._dtype)
    if not advanced and not whole and x.grad_fn is None and x._requires_grad and grad_mode._state.enabled:
        # PyTorch assigns through a view (x[0] is x.select(0, 0)), so its error names the view
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    x._check_inplace()
    node = IndexPutAdvanced if advanced else IndexPut
    if x._base is not None and grad_mode._state.enabled and (
            x._base._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
        # Assigning into a view of a tensor in the graph changes its base: let the in-place
        # machinery rewrite the base's history (CopySlices), as for any in-place op on a view.
        def assigned(view: Tensor) -> Tensor:
            out = view.clone()
            node.apply(out, value, key=key)
            return out
        inplace(x, assigned)
        return
    node.apply(x, value, key=key)
    refresh_views(x._base if x._base is not None else x)  # views of x now read its new history


def _scalar_to_write(value: Any, dt: dtypes.dtype) -> Any:
    """A Python number assigned into a tensor of ``dt``, checked as PyTorch checks it: an int
    beyond int64 is its ValueError (whatever the dtype); for an integer dtype, a number out of
    its range (or nan) is its overflow error, and -1 into uint8 wraps to 255."""
    if type(value) is int and not -2 ** 63 <= value < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return value if dt.is_floating_point else dtypes.check_scalar_fits(value, dt)


class IndexPutAdvanced(IndexPut):
    """``x[mask] = v``, ``x[[0, 2]] = v``: PyTorch records these as ``IndexPutBackward0``
    (basic indices as ``CopySlices``)."""
    _backward_name = "IndexPutBackward0"


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """Rows (or slices along ``dim``) picked by a 1-D integer index."""
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    d = _wrap_dim(dim, input.ndim)
    try:
        check_index_range(index, input.shape[d] if input.ndim else 1)
    except IndexError:
        if d == 1:  # PyTorch's CPU kernel for dim 1 says it with its own words and type
            _raise_dim1_index_error(index, input.shape[d])
        raise
    return getitem(input, (slice(None),) * d + (index.reshape(-1),), IndexSelect)


def _raise_dim1_index_error(index: Tensor, size: int) -> None:
    """``index_select`` along dim 1: PyTorch's CPU kernel for it (``index_select_out_cpu_dim1_``)
    names the first index outside ``[0, size)`` in a RuntimeError; along any other dim the error
    is an IndexError.  (An RNN given an ``h_0`` of the wrong batch size for a packed batch meets
    it: the layer permutes ``h_0`` along dim 1.)"""
    data = to_numpy(index._data).reshape(-1)
    bad = (data < 0) | (data >= size)
    raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(data[bad.argmax()])} axis_dim={size}")


def check_index_range(index: Tensor, size: int) -> None:
    """PyTorch's IndexError for ``index_select``/``index_add`` indices outside ``[0, size)``
    (negative indices do not count from the end there, unlike Python's)."""
    data, xp = index._data, index._backend.xp
    if data.size and (int(xp.min(data)) < 0 or int(xp.max(data)) >= size):
        raise IndexError("index out of range in self")


def take_along_dim(input: Tensor, indices: Tensor, dim: Optional[int] = None) -> Tensor:
    """``gather`` after broadcasting ``input`` and ``indices`` against each other in every dimension
    but ``dim`` (as ``np.take_along_axis``); with ``dim=None``, of the flattened tensors."""
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if indices._dtype is not dtypes.int64:  # (with a dim, PyTorch takes int64 indices only)
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{dtypes.type_name(indices._dtype)}")
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = _wrap_dim(dim, input.ndim)
    a, b = list(input.shape), list(indices.shape)
    a[d] = b[d] = 1
    common = list(infer_size(a, b))
    input = input.expand(*common[:d], input.shape[d], *common[d + 1:])
    indices = indices.expand(*common[:d], indices.shape[d], *common[d + 1:])
    return gather(input, d, indices)


class Gather(Function):
    """``out = input[..., index, ...]`` along ``dim``.  The index goes to ``apply`` as a keyword:
    an integer tensor is no input of PyTorch's node, so it must not be an edge (``(None, 0)``)."""

    _backward_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, index: Tensor) -> Tensor:
        ctx.dim, ctx.shape = dim, tuple(x.shape)
        ctx.save_for_backward(index)
        xp, data, idx = x._backend.xp, x._data, index._data
        if data.ndim == 0 or idx.ndim == 0:  # PyTorch counts a 0-d tensor as 1-d of size 1 here
            taken = xp.take_along_axis(xp.reshape(data, data.shape or (1,)), xp.reshape(idx, idx.shape or (1,)),
                                       axis=dim)
            return new_result(xp.reshape(taken, idx.shape), x)
        if idx.size and int(xp.min(idx)) < 0:  # NumPy would count a negative index from the end; PyTorch refuses it
            raise RuntimeError(f"index {int(xp.min(idx))} is out of bounds for dimension {dim} with size "
                               f"{data.shape[dim]}")
        if any(i != dim and n < m for i, (n, m) in enumerate(zip(idx.shape, data.shape))):
            # a smaller index reads only the corner it covers (out[i][j] = x[i][index[i][j]] for i < its
            # size); NumPy would broadcast it over the whole input instead
            data = data[tuple(slice(None) if i == dim else slice(0, n) for i, n in enumerate(idx.shape))]
        try:
            return new_result(xp.take_along_axis(data, idx, axis=dim), x)
        except IndexError as exc:  # PyTorch raises RuntimeError for an index out of range here
            raise RuntimeError(str(exc).replace("axis", "dimension")) from None

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (index,) = ctx.saved_tensors
        return scatter_into_zeros(grad, ctx.shape, ctx.dim, index), None


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[i][index[i][j]]`` for ``dim=1``: pick one entry per row.  (``sparse_grad``
    asks PyTorch for a sparse gradient; learntorch has dense tensors only, so it is accepted and the
    gradient is dense, the same numbers.)"""
    if index._dtype not in (dtypes.int64, dtypes.int32):
        if index.numel():
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        index = index.to(dtypes.int64)  # (an empty index picks nothing: PyTorch checks no dtype then)
    check_same_device(input, index)
    d = _wrap_dim(dim, input.ndim)
    if index.numel():  # PyTorch's gather_shape_check (a 0-d tensor counts as one dimension of size 1)
        if max(input.ndim, 1) != max(index.ndim, 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        for i in range(max(input.ndim, 1)):
            if i != d and (index.shape[i] if index.ndim else 1) > (input.shape[i] if input.ndim else 1):
                raise RuntimeError(f"Size does not match at dimension {i} expected index {list(index.shape)} to "
                                   f"be no larger than self {list(input.shape)} apart from dimension {d}")
    return Gather.apply(input, d, index=index)


def scatter_into_zeros(grad: Tensor, shape: tuple, dim: int, index: Tensor) -> Tensor:
    """Zeros of ``shape`` with ``grad`` added at ``index`` along ``dim`` (the backward of
    gather, sort, topk, max(dim)).  An operation itself, so that ``create_graph=True`` can
    differentiate through it."""
    return ScatterIntoZeros.apply(grad, shape, dim, index)


class ScatterIntoZeros(Function):
    """Its own derivative is a gather at the same indices."""
    _backward_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, shape: tuple, dim: int, index: Tensor) -> Tensor:
        ctx.dim = dim
        ctx.save_for_backward(index)
        return _scatter_into_zeros(grad, shape, dim, index)

    @staticmethod
    def backward(ctx, g: Tensor) -> tuple:
        (index,) = ctx.saved_tensors
        return gather(g, ctx.dim, index), None, None, None


def _scatter_into_zeros(grad: Tensor, shape: tuple, dim: int, index: Tensor) -> Tensor:
    be = grad._backend
    xp = be.xp
    if not shape or index.ndim == 0:  # 0-d counts as 1-d of size 1 (gather's 0-d case)
        flat = _scatter_into_zeros(Tensor._make(xp.reshape(grad._data, tuple(index.shape) or (1,)), grad._device),
                                   tuple(shape) or (1,), dim,
                                   Tensor._make(xp.reshape(index._data, tuple(index.shape) or (1,)), index._device))
        return new_result(xp.reshape(flat._data, tuple(shape)), grad)
    out = xp.zeros(shape, dtype=grad._data.dtype, device=be.native_device)
    if be.is_numpy:
        import numpy as np
        idx = list(np.indices(index.shape, sparse=True))
        idx[dim] = index._data
        np.add.at(out, tuple(idx), grad._data)
    else:
        n = shape[dim]
        onehot = xp.astype(xp.expand_dims(index._data, axis=-1) == xp.arange(n, device=be.native_device),
                           grad._data.dtype)
        contrib = xp.sum(onehot * xp.expand_dims(grad._data, axis=-1), axis=dim)
        part = xp.moveaxis(contrib, -1, dim) if hasattr(xp, "moveaxis") else xp.permute_dims(
            contrib, tuple(range(dim)) + (len(shape) - 1,) + tuple(range(dim, len(shape) - 1)))
        if tuple(part.shape) == tuple(shape):
            out = out + part
        else:  # a smaller index (gather of a corner): its gradient lands in that corner
            out[tuple(slice(0, n) for n in part.shape)] = part
    return new_result(out, grad)


class MaskedFill(Function):
    """``value`` where ``mask`` holds, else ``x``.  The mask goes to ``apply`` as a keyword: a
    bool tensor is no input of PyTorch's node, so it must not be an edge.  A number ``value``
    is no input either (``MaskedFillBackward0``, one edge); a tensor one is
    (:class:`MaskedFillTensor`), and gets the gradient of the places it filled."""

    _backward_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, value: Any, mask: Tensor = None) -> Tensor:
        xp = x._backend.xp
        fill = value._data if isinstance(value, Tensor) else value
        ctx.save_for_backward(mask)
        data = xp.where(mask._data, xp.asarray(fill, dtype=x._data.dtype, device=x._backend.native_device)
                        if not x._backend.is_numpy else x._data.dtype.type(fill), x._data)
        return new_result(row_major(xp, data), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (mask,) = ctx.saved_tensors
        gx = grad.masked_fill(mask, 0.0) if ctx.needs_input_grad[0] else None
        gv = None
        if ctx.needs_input_grad[1]:  # a tensor value: the sum of the gradient where it was written
            gv = grad.masked_fill(mask.logical_not(), 0.0).sum()
        return gx, gv


class MaskedFillTensor(MaskedFill):
    _backward_name = "MaskedFillBackward1"


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """A copy with ``value`` wherever ``mask`` is True (``mask`` broadcasts)."""
    if mask._dtype is not dtypes.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{dtypes.c_type_name(mask._dtype)}")
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    if tuple(mask.shape) != tuple(input.shape):
        infer_size(mask.shape, input.shape)  # PyTorch's error for a mask that does not broadcast
    check_same_device(input, mask)
    if not input._dtype.is_floating_point:
        value = dtypes.check_scalar_fits(value, input._dtype)
    fill = MaskedFillTensor if isinstance(value, Tensor) else MaskedFill
    return fill.apply(input, value, mask=mask)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    if mask.dtype is not dtypes.bool:  # (indexing would take an integer tensor for indices)
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = tuple(_broadcast(input.shape, mask.shape))
    if tuple(input.shape) != shape:
        input = input.expand(shape)
    if tuple(mask.shape) != shape:
        mask = mask.expand(shape)
    return getitem(input, mask, MaskedSelect)


def _broadcast(a: Sequence[int], b: Sequence[int]) -> list:
    out = []
    for x, y in zip(reversed((1,) * (len(b) - len(a)) + tuple(a)), reversed((1,) * (len(a) - len(b)) + tuple(b))):
        out.append(max(x, y))
    return list(reversed(out))


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """Indices of the non-zero elements: an (n, ndim) int64 tensor, or one tensor per dim."""
    xp = input._backend.xp
    if not input.ndim:  # a 0-d tensor: one row of no coordinates if it is non-zero, none if not
        found = int(bool(input._data))
        if as_tuple:  # (PyTorch answers as for a vector of one)
            return (new_result(xp.zeros((found,), dtype=xp.int64), input),)
        return new_result(xp.zeros((found, 0), dtype=xp.int64), input)
    idx = xp.nonzero(input._data)
    cols = [new_result(xp.astype(i, xp.int64), input) for i in idx]
    if as_tuple:
        return tuple(cols)
    return new_result(xp.stack([c._data for c in cols], axis=1) if cols else
                      xp.zeros((0, input.ndim), dtype=xp.int64), input)


def argwhere(input: Tensor) -> Tensor:
    """The indices of the non-zero elements, one row each (``nonzero(input)``)."""
    return nonzero(input)
