"""Shape operations: view/reshape, transpose/permute, squeeze/unsqueeze, expand, cat/stack, split.

Most of these are *views*: the result shares memory (and the version counter)
with the input, so an in-place change through one is seen through the other,
exactly as in PyTorch.  Their backward only moves the gradient back into the
input's shape: a transpose's gradient is transposed back, an unsqueeze's is
squeezed, an expand's is summed over the expanded axes.
"""
from __future__ import annotations

import operator
from typing import Any, Sequence, Union

from .. import dtypes
from ..autograd import grad_mode
from ..autograd.function import Function
from ..tensor import Tensor, _wrap_dim
from ..tensor_arguments import require_sizes, sizes_by_keyword
from .common import check_same_device, new_result, numpy_aliases, sum_to, wrap_dim, wrap_dims

__all__ = ["reshape", "view", "flatten", "transpose", "t", "permute", "squeeze", "unsqueeze", "expand",
           "cat", "stack", "split", "chunk", "unbind", "narrow", "flip", "repeat", "contiguous", "sum_to",
           "movedim", "broadcast_to", "sum_to_size", "vstack", "hstack", "unflatten", "swapaxes"]


def _shape_arg(shape: tuple) -> tuple:
    """Accept ``f(2, 3)`` and ``f((2, 3))`` alike, as PyTorch does.  Each size is an integer (a
    Python int, a NumPy integer, a one-element integer tensor); anything else, a float or a
    string, is PyTorch's TypeError, where ``int()`` would quietly truncate ``2.5`` or read ``"3"``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple([s if type(s) is int else _size_of(s, i) for i, s in enumerate(shape)])


def _size_of(value: Any, position: int) -> int:
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"a size must be an int: the sizes must be a tuple of ints, but found element of type "
                        f"{type(value).__name__} at pos {position}")
    return operator.index(value)


def _infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one ``-1`` and check the element count, with PyTorch's messages."""
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape [{', '.join(map(str, shape))}]")
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


class View(Function):
    _backward_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, shape: tuple, must_view: bool) -> Tensor:
        shape = _infer_shape(shape, x.numel())
        ctx.input_shape = x._data.shape
        xp = x._backend.xp
        try:
            return x._view_of(xp.reshape(x._data, shape, copy=False))
        except (ValueError, AttributeError):  # (NumPy raises ValueError; CuPy and the stand-in AttributeError)
            if must_view:
                raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                                   "least one dimension spans across two contiguous subspaces). Use "
                                   ".reshape(...) instead.") from None
            return new_result(xp.reshape(x._data, shape), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return _reshaped_back(grad, ctx.input_shape), None, None


def _reshaped_back(grad: Tensor, shape: tuple) -> Tensor:
    """``grad.reshape(shape)``, the backward of every view that changes the shape.  In a plain
    backward (nothing recorded) of a row-major gradient -- the usual case -- it is made as the
    view it is, without reshape's checks and its Function call (attention's reshapes and
    ``nn.Linear`` on 3-D inputs come through here several times a step)."""
    flags = getattr(grad._data, "flags", None)
    if not grad_mode._state.enabled and flags is not None and flags.c_contiguous:
        return grad._view_of(grad._data.reshape(shape))
    return grad.reshape(shape)


class ReshapeAlias(View):
    """``reshape`` of a non-contiguous tensor whose strides allow the new shape: a view, under
    the name PyTorch gives it."""

    _backward_name = "ReshapeAliasBackward0"


class UnsafeView(View):
    """PyTorch's ``_unsafe_view``: a reshape of a tensor nobody else holds (a fresh product, a
    copy), so the result is a new tensor rather than a view: nothing to keep in step with."""

    _backward_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, shape: tuple, must_view: bool) -> Tensor:
        ctx.input_shape = x._data.shape
        return new_result(x._backend.xp.reshape(x._data, _infer_shape(shape, x.numel())), x)


def view(input: Tensor, *shape: Any, size: Any = None) -> Tensor:
    """The same memory seen with another shape; an error if that is impossible without a copy."""
    if size is not None:  # ``x.view(size=(2, 3))``
        shape = sizes_by_keyword(shape, size, "view", "size")
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        return _view_dtype(input, shape[0])
    try:
        return View.apply(input, _shape_arg(shape), True)
    except RuntimeError:
        if not shape:  # no size at all (PyTorch's parser refuses it; ``view(*())`` of one element is used within)
            raise TypeError('view() missing 1 required positional arguments: "size"') from None
        raise


def _view_dtype(input: Tensor, dt: dtypes.dtype) -> Tensor:
    """``x.view(torch.int32)``: the same bytes read as another dtype (no copy, not differentiable,
    as in PyTorch).  With a different element size the last dimension shrinks or grows, and it must
    be contiguous (PyTorch's checks and messages)."""
    old, new = input._dtype.itemsize, dt.itemsize
    if old != new:
        what = f"to view {dtypes.type_name(input._dtype)} as {dtypes.type_name(dt)} (different element sizes)"
        if input.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if input.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {input.stride(-1)}")
        if new > old:
            ratio = new // old
            if input.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {input.shape[-1]}")
            if input.storage_offset() % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got "
                                   f"{input.storage_offset()}")
            for i in range(input.ndim - 1):
                if input.stride(i) % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got "
                                       f"{input.stride(i)}")
    if not hasattr(input._data, "view"):  # (NumPy and CuPy arrays reinterpret; the array-API stand-in cannot)
        raise NotImplementedError(f"view(dtype) is not supported on {input.device} by this backend; use .to(dtype)")
    return Tensor._make(input._data.view(input._backend.dtype(dt)), input._device)


def reshape(input: Tensor, *sizes: Any, shape: Any = None) -> Tensor:
    """Like ``view``, but copies when the memory layout does not allow a view."""
    given = sizes if shape is None else sizes_by_keyword(sizes, shape, "reshape", "shape")  # (``shape=(2, 3)``)
    sizes = _shape_arg(given)
    try:
        if input.is_contiguous():
            return View.apply(input, sizes, False)
        if _viewable(input, sizes):  # non-contiguous, but its strides allow the shape
            return ReshapeAlias.apply(input, sizes, False)
        # as PyTorch: a row-major copy (CloneBackward0), then reshaped -- a view of the copy, no second copy
        return UnsafeView.apply(RowMajorClone.apply(input), sizes, False)
    except RuntimeError:
        if not given:  # no size at all (PyTorch's parser refuses it; ``reshape(*())`` of one element is used within)
            raise TypeError('reshape() missing 1 required positional arguments: "shape"') from None
        raise


class RowMajorClone(Function):
    """``clone(memory_format=torch.contiguous_format)``: a copy stored row-major whatever
    ``x``'s strides, in one pass -- what ``contiguous()`` and a ``reshape`` that cannot be a view
    make.  (A plain ``clone()`` keeps a transposed tensor transposed; copying that and then
    reshaping it would copy twice.)  PyTorch's node is the same ``CloneBackward0``."""

    _backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        xp, a = x._backend.xp, x._data
        if x.is_contiguous():
            return new_result(xp.asarray(a, copy=True), x)
        if hasattr(a, "flags"):  # NumPy, CuPy
            return new_result(xp.ascontiguousarray(a), x)
        return new_result(xp.reshape(xp.reshape(a, (-1,)), a.shape), x)  # (the array API's row-major copy)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        return grad


def _viewable(input: Tensor, shape: tuple) -> bool:
    """Can ``input``'s strides show it with ``shape`` (a non-contiguous tensor sometimes can)?"""
    try:
        input._backend.xp.reshape(input._data, _infer_shape(shape, input.numel()), copy=False)
        return True
    except (ValueError, AttributeError, RuntimeError):
        return False


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if input.ndim == 0:  # (its dims are 0 and -1 only, as in PyTorch: flatten(t, 1) is an IndexError)
        wrap_dim(start_dim, 0), wrap_dim(end_dim, 0)
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, input.ndim), _wrap_dim(end_dim, input.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = tuple(input.shape)
    return reshape(input, shape[:s] + (-1,) + shape[e + 1:]) if s != e else input


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    if not sizes:  # (checked first, as PyTorch's Tensor.unflatten does)
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = _wrap_dim(dim, input.ndim)
    shape = tuple(input.shape)
    _check_unflatten_sizes(sizes, shape[d], d)
    return reshape(input, shape[:d] + tuple(sizes) + shape[d + 1:])


def _check_unflatten_sizes(sizes: Sequence[int], length: int, dim: int) -> None:
    """Name the split that cannot work in unflatten's own words (reshape's message would show
    the whole new shape, which the caller never wrote).  Two or more ``-1`` are left to reshape."""
    inferred = sum(1 for s in sizes if s == -1)
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    bad = known != length if inferred == 0 else (
        inferred == 1 and (known == 0 and length != 0 or known != 0 and length % known != 0))
    if bad:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of "
                           f"dim {dim} ({length}) in the input tensor")


class Permute(Function):
    _backward_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dims: tuple) -> Tensor:
        ctx.dims = dims
        return x._view_of(x._backend.xp.permute_dims(x._data, dims))

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        inverse = [0] * len(ctx.dims)
        for i, d in enumerate(ctx.dims):
            inverse[d] = i
        if not grad_mode._state.enabled:
            # A plain backward records nothing: make the view as forward does, without the
            # checks and the Function call (every nn.Linear's W.t() comes through here each step).
            return grad._view_of(grad._backend.xp.permute_dims(grad._data, tuple(inverse))), None
        # recorded (create_graph): the same kind of view again, as PyTorch's formulas are
        # (t: grad.t(), transpose: grad.transpose(...), permute: grad.permute(inverse))
        return ctx._forward_cls.apply(grad, tuple(inverse)), None


class Transpose(Permute):
    _backward_name = "TransposeBackward0"


class T(Permute):
    _backward_name = "TBackward0"


def permute(input: Tensor, *order: Any, dims: Any = None) -> Tensor:
    dims = _shape_arg(order if dims is None else sizes_by_keyword(order, dims, "permute", "dims"))
    if len(dims) != input.ndim:
        if not dims:  # no dim at all (PyTorch's parser refuses it; ``permute(*())`` of a 0-d tensor is used within)
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = "
                           f"{input.ndim} is not equal to len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, input.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(input, dims)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions (a view)."""
    if input.ndim == 0:  # (its one dimension is 0 or -1, as in PyTorch: each is still checked)
        _wrap_dim(dim0, 0), _wrap_dim(dim1, 0)
        return view(input, ())
    a, b = _wrap_dim(dim0, input.ndim), _wrap_dim(dim1, input.ndim)
    dims = list(range(input.ndim))
    dims[a], dims[b] = dims[b], dims[a]
    return Transpose.apply(input, tuple(dims))


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """NumPy's name for :func:`transpose`, with NumPy's parameter names (``torch.swapaxes(x, axis0=0, axis1=1)``)."""
    return transpose(input, axis0, axis1)


def t(input: Tensor) -> Tensor:
    """Matrix transpose; PyTorch allows it only up to 2-D."""
    ndim = input._data.ndim  # (every nn.Linear call transposes its weight: read once, from the array)
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return T.apply(input, (1, 0) if ndim == 2 else tuple(range(ndim)))


def movedim(input: Tensor, source: Union[int, Sequence[int]], destination: Union[int, Sequence[int]]) -> Tensor:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [_wrap_dim(s, input.ndim) for s in src]
    dst = [_wrap_dim(d, input.ndim) for d in dst]
    if not input.ndim:  # (dims 0 and -1 of a 0-d tensor: nothing to move; an alias, as in PyTorch)
        return input[...]
    order = [d for d in range(input.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, tuple(order))


class Squeeze(Function):
    _backward_name = "SqueezeBackward1"

    @staticmethod
    def forward(ctx, x: Tensor, axes: tuple) -> Tensor:
        ctx.input_shape = x._data.shape
        return x._view_of(x._backend.xp.squeeze(x._data, axis=axes) if axes else x._data)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return _reshaped_back(grad, ctx.input_shape), None


class SqueezeAll(Squeeze):
    _backward_name = "SqueezeBackward0"


class SqueezeDims(Squeeze):
    _backward_name = "SqueezeBackward2"


@numpy_aliases
def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    """Remove dimensions of size 1 (all, or the given ``dim``).  A dim whose size is
    not 1 is left alone — no error.  (The notes call this "add a dimension": it removes one.)"""
    if dim is None:
        axes = tuple(i for i, s in enumerate(input.shape) if s == 1)
        return SqueezeAll.apply(input, axes)
    multiple = not isinstance(dim, int)
    dims = wrap_dims(dim, input.ndim)  # (a 0-d tensor takes dim 0 and -1 only, and has nothing to squeeze)
    axes = tuple(d for d in dims if input.shape[d] == 1)
    return (SqueezeDims if multiple else Squeeze).apply(input, axes)


class Unsqueeze(Function):
    _backward_name = "UnsqueezeBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        return x._view_of(x._backend.xp.expand_dims(x._data, axis=dim))

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return grad.squeeze(ctx.dim), None


@numpy_aliases
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dimension of size 1 at ``dim`` (which may be ``input.dim()``: the end)."""
    return Unsqueeze.apply(input, _wrap_dim(dim, input.ndim + 1))


class Expand(Function):
    _backward_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, shape: tuple) -> Tensor:
        ctx.input_shape = x._data.shape
        if x._data.shape == shape:  # nothing to repeat (matmul's batch dims often): a plain alias, without
            return x._view_of(x._data[...])  # broadcast_to's cost and its read-only flag
        return x._view_of(x._backend.xp.broadcast_to(x._data, shape))

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return sum_to(grad, ctx.input_shape), None


def expand(input: Tensor, *sizes: Any, size: Any = None) -> Tensor:
    """A view that repeats size-1 dimensions without copying (``-1`` keeps a size)."""
    if size is not None:  # ``x.expand(size=(3, 4))``
        sizes = sizes_by_keyword(sizes, size, "expand", "size")
    if not sizes and input.ndim:  # (the one test the right call pays; expand(*()) of a 0-d tensor is used within)
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    sizes = _shape_arg(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError(f"expand({input.type()}{{[{', '.join(map(str, input.shape))}]}}, "
                           f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided ({len(sizes)}) "
                           f"must be greater or equal to the number of dimensions in the tensor ({input.ndim})")
    lead = len(sizes) - input.ndim
    shape = list(sizes)
    for i in reversed(range(len(sizes))):  # from the last dimension, as PyTorch checks (and reports)
        want = sizes[i]
        if i < lead:  # a new leading dimension: -1 cannot keep a size it does not have
            if want == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            continue
        s = input.shape[i - lead]
        if want == -1:
            shape[i] = s
        elif s != want and s != 1:
            raise RuntimeError(f"The expanded size of the tensor ({want}) must match the existing size ({s}) at "
                               f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}]."
                               f"  Tensor sizes: [{', '.join(map(str, input.shape))}]")
    return Expand.apply(input, tuple(shape))


def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    return expand(input, tuple(size))


def sum_to_size(input: Tensor, *sizes: Any, size: Any = None) -> Tensor:
    """``Tensor.sum_to_size``: sum ``input`` down to ``size`` (which must broadcast to
    ``input``'s shape) -- undoing broadcasting, as a custom Function's backward needs."""
    size = sizes if size is None else sizes_by_keyword(sizes, size, "sum_to_size", "size")
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    size = _shape_arg(size)
    shape = tuple(input.shape)
    ok = len(size) <= len(shape) and all(s == d or s == 1 for s, d in zip(reversed(size), reversed(shape)))
    if not ok:
        raise RuntimeError(f"size {{[{', '.join(map(str, size))}]}} is not expandable to size "
                           f"{{[{', '.join(map(str, shape))}]}}.")
    return sum_to(input, size)


class Cat(Function):
    _backward_name = "CatBackward0"

    @staticmethod
    def forward(ctx, *tensors: Tensor, dim: int = 0) -> Tensor:
        first = tensors[0]
        xp = first._backend.xp
        dt = tensors[0]._dtype
        for t_ in tensors[1:]:
            dt = dtypes.promote_types(dt, t_._dtype)
        arrays = [t_._data if t_._dtype is dt else xp.astype(t_._data, first._backend.dtype(dt)) for t_ in tensors]
        ctx.sizes = [t_._data.shape[dim] for t_ in tensors]
        ctx.dim = dim
        ctx.dtypes = [t_._dtype for t_ in tensors]
        return new_result(xp.concat(arrays, axis=dim), first)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        pieces = grad.split(ctx.sizes, ctx.dim)
        return tuple(p if p._dtype is d else p.to(d) for p, d in zip(pieces, ctx.dtypes))


def _check_tensor_sequence(name: str, tensors: Any) -> None:
    """``torch.cat(x)`` of one tensor (not a list of them) is PyTorch's TypeError; iterating
    the tensor's rows, as ``list(x)`` would, is not what was meant."""
    if isinstance(tensors, Tensor):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")


@numpy_aliases
def cat(tensors: Sequence[Tensor], dim: int = 0, *, out: Any = None) -> Tensor:
    """Join tensors along an existing dimension (``dim=1``: side by side, column-wise)."""
    _check_tensor_sequence("cat", tensors)
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t_ in enumerate(tensors):
        if not isinstance(t_, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t_).__name__}")
    check_same_device(*tensors)
    # PyTorch still skips legacy empty 1-D tensors of shape (0,) in cat.
    real = [t_ for t_ in tensors if t_._data.shape != (0,)] or tensors[:1]
    ref = real[0]._data.shape  # (the arrays' shapes: an RNN step cats states, so this runs often)
    if not ref:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, len(ref))
    for i, t_ in enumerate(real):
        shape = t_._data.shape
        if len(shape) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {len(shape)}")
        if shape[:d] != ref[:d] or shape[d + 1:] != ref[d + 1:]:
            ax = next(ax for ax in range(len(ref)) if ax != d and shape[ax] != ref[ax])
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                               f"{ref[ax]} but got size {shape[ax]} for tensor number {i} in the list.")
    return Cat.apply(*real, dim=d)


class Stack(Function):
    _backward_name = "StackBackward0"

    @staticmethod
    def forward(ctx, *tensors: Tensor, dim: int = 0) -> Tensor:
        first = tensors[0]
        xp = first._backend.xp
        dt = first._dtype
        for t_ in tensors[1:]:
            dt = dtypes.promote_types(dt, t_._dtype)
        arrays = [t_._data if t_._dtype is dt else xp.astype(t_._data, first._backend.dtype(dt)) for t_ in tensors]
        ctx.dim = dim
        ctx.dtypes = [t_._dtype for t_ in tensors]
        return new_result(xp.stack(arrays, axis=dim), first)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        pieces = grad.unbind(ctx.dim)
        return tuple(p if p._dtype is d else p.to(d) for p, d in zip(pieces, ctx.dtypes))


@numpy_aliases
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join equal-shaped tensors along a *new* dimension."""
    _check_tensor_sequence("stack", tensors)
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    check_same_device(*tensors)
    for i, t_ in enumerate(tensors):
        if t_.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got [{', '.join(map(str, tensors[0].shape))}] "
                               f"at entry 0 and [{', '.join(map(str, t_.shape))}] at entry {i}")
    return Stack.apply(*tensors, dim=_wrap_dim(dim, tensors[0].ndim + 1))


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """NumPy's ``vstack``: rows on top of rows (1-D tensors become rows first)."""
    _check_tensor_sequence("vstack", tensors)
    return cat([t_.unsqueeze(0) if t_.ndim < 2 else t_ for t_ in tensors], 0)


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    _check_tensor_sequence("hstack", tensors)
    return cat(list(tensors), 0 if tensors[0].ndim == 1 else 1)


class Split(Function):
    _backward_name = "SplitBackward0"
    _view_creation = "multi_output"  # its views may not be changed in place (``Tensor._creation``)

    @staticmethod
    def forward(ctx, x: Tensor, sizes: tuple, dim: int) -> tuple:
        ctx.dim, ctx.input_shape = dim, x._data.shape
        outs, start = [], 0
        for s in sizes:
            key = (slice(None),) * dim + (slice(start, start + s), Ellipsis)
            outs.append(x._view_of(x._data[key]))
            start += s
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads: Tensor) -> tuple:
        return cat(list(grads), ctx.dim), None, None


class SplitWithSizes(Split):
    _backward_name = "SplitWithSizesBackward0"


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Cut into pieces of a given size (the last may be smaller), or of the listed sizes.  (The first
    parameter is ``tensor``, as in PyTorch: ``torch.split(tensor=x, split_size_or_sections=2)``.)"""
    input = tensor
    if not isinstance(split_size_or_sections, int):
        if isinstance(split_size_or_sections, Tensor) and not split_size_or_sections.ndim:
            split_size_or_sections = _size_of(split_size_or_sections, 0)  # one size, as a 0-d tensor
        else:  # the sizes: a tuple or a list (a tensor of sizes is PyTorch's TypeError)
            require_sizes("split_with_sizes", "split_sizes", split_size_or_sections)
    _at_least_1d("split", input)
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = tuple(min(step, n - i) for i in range(0, n, step)) if n else (0,)
        return Split.apply(input, sizes, d)
    sizes = tuple(split_size_or_sections)
    if builtin_sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {d}), but got split_sizes=[{', '.join(map(str, sizes))}]")
    return SplitWithSizes.apply(input, sizes, d)


def _at_least_1d(name: str, input: Tensor) -> None:
    if not input.ndim:
        raise RuntimeError(f"{name} expects at least a 1-dimensional tensor")


def builtin_sum(values: Sequence[int]) -> int:
    total = 0
    for v in values:
        total += v
    return total


@numpy_aliases
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    _at_least_1d("chunk", input)
    n = input.shape[_wrap_dim(dim, input.ndim)]
    step = -(-n // int(chunks)) if n else 1
    return split(input, step, dim)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Split into ``n`` nearly equal parts (the first ``size % n`` one element longer), or at the
    given indices: ``tensor_split(x, [1, 3])`` is ``x[:1], x[1:3], x[3:]``.  Unlike ``split``
    (sizes) and ``chunk`` (at most ``n`` parts), it always returns exactly ``n`` parts."""
    if not isinstance(indices_or_sections, (int, tuple, list, Tensor)):
        raise TypeError(f"tensor_split(): argument 'indices_or_sections' (position 2) must be an int, a tuple of "
                        f"ints or an integer tensor, not {type(indices_or_sections).__name__}")
    if not input.ndim:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {indices_or_sections.ndim} dims")
        if indices_or_sections.dtype is not dtypes.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{dtypes.SCALAR_NAMES[indices_or_sections.dtype.name]}")
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        parts = indices_or_sections
        if parts <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {parts}")
        small, extra = divmod(n, parts)
        bounds, start = [], 0
        for i in range(parts):
            stop = start + small + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        cuts = [0] + [max(0, min(int(i) if i >= 0 else n + int(i), n)) for i in indices_or_sections] + [n]
        bounds = [(a, max(a, b)) for a, b in zip(cuts[:-1], cuts[1:])]
    return tuple(narrow(input, d, a, b - a) for a, b in bounds)


class Unbind(Function):
    _backward_name = "UnbindBackward0"
    _view_creation = "multi_output"  # its views may not be changed in place (``Tensor._creation``)

    @staticmethod
    def forward(ctx, x: Tensor, dim: int) -> tuple:
        ctx.dim = dim
        return tuple(x._view_of(x._data[(slice(None),) * dim + (i, Ellipsis)]) for i in range(x.shape[dim]))

    @staticmethod
    def backward(ctx, *grads: Tensor) -> tuple:
        return stack(list(grads), ctx.dim), None


@numpy_aliases
def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices along ``dim`` as a tuple of views (iterating over a tensor uses this)."""
    return Unbind.apply(input, _wrap_dim(dim, input.ndim))


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    if not input.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    start = int(start)  # (a 0-dim tensor is accepted too)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    key = (slice(None),) * d + (slice(start, start + length),)
    return input[key]


class Flip(Function):
    _backward_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, axes: tuple) -> Tensor:
        ctx.axes = axes
        return new_result(x._backend.xp.asarray(x._backend.xp.flip(x._data, axis=axes), copy=True), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return grad.flip(ctx.axes), None


def flip(input: Tensor, dims: Sequence[int]) -> Tensor:
    """Reverse the order along ``dims`` (``torch.flip(x, (0, 1))``; the method also takes
    ``x.flip(0, 1)``); a copy, as in PyTorch."""
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    return Flip.apply(input, wrap_dims(tuple(dims), input.ndim))


class Repeat(Function):
    _backward_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, repeats: tuple) -> Tensor:
        lead = len(repeats) - x.ndim
        shape = (1,) * lead + tuple(x.shape)
        ctx.shape, ctx.repeats, ctx.input_shape = shape, repeats, x._data.shape
        xp = x._backend.xp
        return new_result(xp.tile(xp.reshape(x._data, shape), repeats), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        # Split every axis into (repeat, size) and sum over the repeats.
        split_shape = []
        for r, s in zip(ctx.repeats, ctx.shape):
            split_shape += [r, s]
        g = grad.reshape(split_shape).sum(tuple(range(0, len(split_shape), 2)))
        return g.reshape(ctx.input_shape), None


def repeat(input: Tensor, *counts: Any, repeats: Any = None) -> Tensor:
    repeats = counts if repeats is None else sizes_by_keyword(counts, repeats, "repeat", "repeats")
    if not repeats and input.ndim:  # (the one test the right call pays; a 0-d repeat(*()) is used within)
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = _shape_arg(repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                           "of tensor")
    try:
        return Repeat.apply(input, repeats)
    except ValueError:  # NumPy's "negative dimensions are not allowed": PyTorch's error names the size
        size = [r * s for r, s in zip(repeats, (1,) * (len(repeats) - input.ndim) + tuple(input.shape))]
        negative = [n for n in size if n < 0]
        if not negative:
            raise
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {size}") from None


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """``self`` if already laid out row-major in memory, else a copy that is."""
    if input.is_contiguous():
        return input
    return RowMajorClone.apply(input)


def _atleast(n: int, tensors: tuple) -> Any:
    """Add size-1 dimensions until each tensor has ``n``: a number becomes ``[[x]]``, a vector ``[v]``
    (a row), and for 3-D a matrix ``M`` becomes ``M[:, :, None]`` (NumPy's rule)."""
    def grow(t: Tensor) -> Tensor:
        if t.ndim >= n:
            return t
        if t.ndim == 0:
            return reshape(t, (1,) * n)
        if t.ndim == 1:
            t = unsqueeze(t, 0)
        return unsqueeze(t, -1) if n == 3 and t.ndim == 2 else t
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    items = tensors if not (len(tensors) == 1 and not single) else tuple(tensors[0])
    out = tuple(grow(t) for t in items)
    return out[0] if single else out


def atleast_1d(*tensors: Tensor) -> Any:
    return _atleast(1, tensors)


def atleast_2d(*tensors: Tensor) -> Any:
    return _atleast(2, tensors)


def atleast_3d(*tensors: Tensor) -> Any:
    return _atleast(3, tensors)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along the third dimension (depth), after making every tensor at least 3-D."""
    _check_tensor_sequence("dstack", tensors)
    return cat(list(atleast_3d(*tensors)) if len(tensors) > 1 else [atleast_3d(tensors[0])], 2)
