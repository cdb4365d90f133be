"""Attach the operations of ``learntorch.ops`` to ``Tensor`` as methods and operators.

``x.sum(0)`` is ``ops.reduction.sum(x, 0)``; ``a * b`` is ``ops.pointwise.mul(a, b)``.
Keeping this table in one place means each operation is written once and
the Tensor class stays short enough to read.

In-place methods (``add_``, ``mul_``, ``x += y`` …) follow one rule,
:func:`ops.inplace.inplace`: check PyTorch's leaf rules *before* touching memory, compute
the result, write it into the tensor's own memory, bump the version counter,
and make the result's node the tensor's new ``grad_fn``.  ``add_``/``sub_`` with grad
mode off (an optimizer's step) take a shortcut, :func:`_update_arrays`, with the same result.
"""
from __future__ import annotations

import inspect
import warnings
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from . import warn_always
from . import creation, dtypes, random
from . import linalg as linalg_api
from .autograd import engine, grad_mode
from .ops import (arrange, indexing, linalg_decomp, matmul, pointwise, reduction, scatter, shape, softmax, sorting,
                  statistics)
from .ops.activations import hardshrink as _hardshrink
from .ops import pointwise_extra, tensor_info  # (their own sections of the table: pointwise_extra.METHODS …)
from .ops import special_ops  # (igamma, igammac, mvlgamma and their in-place forms)
from . import storage
from .ops import bucketing, index_writes, linalg_lu, linalg_products, reshaping, scans
from .ops import index_reduce, python_map, strided, view_scatter
from .ops.common import Number, binary_operands, infer_size, new_result
from .cuda import cupy_or_none
from .ops.inplace import inplace
from .tensor_arguments import CHECKED_FIRST, require_tensor, sizes_by_keyword, tensor_checked
from .tensor import (Tensor, _count_device_memory, check_memory_format, contiguous_format, format_strides,
                     laid_out, preserve_format)

_CAT = {0: "Bool", 1: "Long", 2: "Float"}
# NumPy's overflow warnings in the in-place fast path: PyTorch gives inf silently (as ops/__init__.py)
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"learntorch\._tensor_methods")


def _binary_inplace(op: Callable, array_op: Optional[Callable] = None) -> Callable:
    takes_alpha = array_op in (np.add, np.subtract)  # mul_/div_ have no alpha: the general rule says so
    name = op.__name__ + "_"

    def method(self: Tensor, other: Any, *alpha_other: Any, **kwargs: Any) -> Tensor:
        if alpha_other:  # ``x.add_(alpha, other)``: PyTorch's deprecated order, with a number first
            if not takes_alpha:
                raise TypeError(f"{name}() takes 1 positional argument but {1 + len(alpha_other)} were given")
            other, kwargs["alpha"] = pointwise.alpha_first(name, other, alpha_other, True, kwargs.get("alpha", 1))
        if (array_op is not None and (takes_alpha or not kwargs)
                and _update_arrays(self, other, array_op, **kwargs)):
            return self
        return inplace(self, op, other, **kwargs)
    method.__name__ = name
    return method


def _update_arrays(self: Tensor, other: Any, array_op: Callable, alpha: Any = 1, **unknown: Any) -> bool:
    """The fast path of ``add_``, ``sub_``, ``mul_``, ``div_`` with grad mode off: the result
    written straight into ``self``'s memory.  Returns False to leave the call to :func:`inplace`.

    Why it exists: an optimizer's ``p.add_(g, alpha=-lr)``, Adam's ``v.mul_(beta2)`` and a
    manual ``w -= lr * w.grad`` run once per parameter per step, under ``no_grad``.
    Nothing can be recorded then, so the general rule's temporary result and its
    copy back into ``self`` only cost time (a whole extra pass over the weights,
    and a Function call).  It is taken only where the general rule would do the
    same thing: NumPy arrays of one floating dtype and one shape (or a Python
    number, without ``alpha``), a writable, non-expanded ``self`` that is not an
    inference tensor, a Python-number ``alpha``.  The numbers are the same
    (``self + other·alpha``, in that order; a number meets float32 as float32, as in
    PyTorch), and the version counter is bumped as for any in-place change."""
    if grad_mode._state.enabled or unknown or type(alpha) not in (int, float) or self._inference:
        return False  # (an unknown keyword: the general rule raises PyTorch's error)
    if (self._base if self._base is not None else self).__dict__.get("_live_views"):
        return False  # views that record gradients: the general rule refreshes their history
    a = self._data
    if (type(a) is not np.ndarray or not self._dtype.is_floating_point or not a.flags.writeable
            or 0 in a.strides or self._dtype.name == "bfloat16"):
        return False  # (bfloat16: the general rule computes in float32 and rounds alpha as PyTorch does)
    if type(other) in (int, float):
        if alpha != 1:
            return False
        b = other
    elif isinstance(other, Tensor):
        b = other._data
        if type(b) is not np.ndarray or self._dtype is not other._dtype or a.shape != b.shape:
            return False
        if alpha != 1:
            b = b * alpha
    else:
        return False
    if array_op is np.true_divide:
        with np.errstate(divide="ignore", invalid="ignore"):  # x / 0 is inf or nan, silently, as in PyTorch
            array_op(a, b, out=a)
    else:
        array_op(a, b, out=a)  # (an overflow's warning is filtered below, as in ops/)
    self._version_counter[0] += 1
    return True


def _unary_inplace(op: Callable) -> Callable:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace(self, op, *args, **kwargs)
    method.__name__ = op.__name__ + "_"
    return method


def _zero_(self: Tensor) -> Tensor:
    """Set every element to 0 in place (``w.grad.zero_()``)."""
    return _fill_(self, 0, _node=pointwise.Zero)


def _fill_(self: Tensor, value: Any, *, _node: Any = pointwise.Fill) -> Tensor:
    """Set every element to ``value`` in place; the old values get no gradient."""
    if isinstance(value, Tensor):
        value = value.item()
    if not self._dtype.is_floating_point:  # fill_(300) on int8: PyTorch's overflow error, not a wrap-around
        value = dtypes.check_scalar_fits(value, self._dtype)
    if grad_mode._state.enabled and self.grad_fn is not None:
        return inplace(self, _node.apply, value)
    self._check_inplace()
    self._data[...] = value
    self._version_counter[0] += 1
    return self


def _copy_(self: Tensor, src: Union[Tensor, float], non_blocking: bool = False) -> Tensor:
    """Copy ``src``'s values (broadcast, cast, moved) into this tensor's memory.  A Python number
    is taken as a 0-dim tensor (``x.copy_(2.5)`` fills ``x``, as in PyTorch)."""
    if isinstance(src, (bool, int, float)):
        src = creation.tensor(src, device=self._device)
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    if non_blocking is not False and type(non_blocking) is not bool:  # (x.copy_(y, z) would take z for a flag)
        raise TypeError(f"copy_(): argument 'non_blocking' must be bool, not {type(non_blocking).__name__}")
    if src._data.shape != self._data.shape:
        _check_copy_broadcasts(tuple(self.shape), tuple(src.shape))
    return inplace(self, pointwise.CopyFrom.apply, src)


def _check_copy_broadcasts(out: tuple, src: tuple) -> None:
    """PyTorch's errors when ``src`` does not broadcast to the shape of the tensor written (the
    array library's would be NumPy's ValueError): sizes that clash, or a ``src`` that would make
    the result larger than the tensor it is copied into."""
    broadcast = infer_size(out, src)
    if broadcast != out:
        raise RuntimeError(f"output with shape {list(out)} doesn't match the broadcast shape {list(broadcast)}")


# ---------------------------------------------------------------------------- memory formats
# ``clone``, ``contiguous`` and ``to`` take ``memory_format=`` (tensor.py: memory_format).  The
# ops themselves know nothing of layouts: these wrappers make the copy as usual, then give the
# copy's array the layout asked for.  Without ``memory_format`` they only add one call.
def _in_layout(copy: Tensor, array: Any) -> Tensor:
    """``copy`` (a fresh result of clone/to, with its own memory) holding ``array`` instead:
    the same values, in another layout."""
    copy._data = array
    if copy.is_cuda:
        _count_device_memory(array, copy._device)
    return copy


def clone(input: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
    """A copy with its own memory that stays in the graph (``CloneBackward0``).  By default it
    keeps ``input``'s layout, as PyTorch's ``preserve_format`` does (NumPy copies in the same
    order); ``memory_format=torch.channels_last`` or ``contiguous_format`` chooses one."""
    out = pointwise.clone(input)
    if memory_format is None or memory_format is preserve_format:
        if not _dense_without_overlap(input):  # a dense copy in the input's order of dimensions
            return _in_layout(out, _dense_in_order(input, out._data))
        return out
    check_memory_format(memory_format, "clone")
    return _in_layout(out, laid_out(out, memory_format))


def _dense_without_overlap(t: Tensor) -> bool:
    """Whether ``t``'s elements fill a block of memory exactly once in some order of its
    dimensions (a transpose, a permute): then ``preserve_format`` copies keep the strides.  An
    expanded tensor (stride 0) or a strided slice is not: see :func:`_dense_in_order`."""
    expected = 1
    for size, stride in sorted(((n, st) for n, st in zip(t.shape, t.stride()) if n != 1), key=lambda p: p[1]):
        if stride != expected:
            return False
        expected *= size
    return True


def _dense_in_order(t: Tensor, array: Any) -> Any:
    """``array`` (``t``'s values) copied densely, its dimensions ordered in memory as ``t``'s
    strides order them -- PyTorch's rule for a ``preserve_format`` copy of a tensor that is not
    dense (``x.transpose(1, 2)[:, ::2]`` clones to strides (6, 1, 2)).  A stride 0 (an
    ``expand``) leaves the order undecided, so an expanded tensor clones row-major (NumPy's own
    copy would give it odd strides such as (6, 1, 2))."""
    sizes, strides = tuple(t.shape), t.stride()

    def should_swap(d0: int, d1: int) -> int:
        if strides[d0] == 0 or strides[d1] == 0:
            return 0
        if strides[d0] != strides[d1]:
            return -1 if strides[d0] < strides[d1] else 1
        return 1 if sizes[d0] > sizes[d1] else 0

    perm = list(range(len(sizes)))[::-1]  # innermost first; an insertion sort that skips ties
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            order = should_swap(perm[d0], perm[d1])
            if order > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif order < 0:
                break
    outer_first = perm[::-1]
    lib = np if t._backend.is_numpy else cupy_or_none()
    if lib is None or not isinstance(array, lib.ndarray):
        return array  # the array-API stand-in for CUDA has no strides to arrange
    dense = lib.ascontiguousarray(array.transpose(outer_first))
    return dense.transpose(tuple(outer_first.index(d) for d in range(len(outer_first))))


def _contiguous(self: Tensor, memory_format: Any = contiguous_format) -> Tensor:
    """``self`` if already stored in ``memory_format`` (row-major by default; NHWC for
    ``torch.channels_last``), else a copy that is."""
    if memory_format is contiguous_format:
        return shape.contiguous(self)
    check_memory_format(memory_format, "contiguous")
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if self.is_contiguous(memory_format=memory_format):
        return self
    array = laid_out(self, memory_format)  # (first: a tensor of the wrong rank is an error before any copy)
    return _in_layout(pointwise.clone(self), array)


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``Tensor.to`` (ops/pointwise.py), plus ``memory_format=``: a tensor whose strides are already
    exactly those of that layout (and on the right device, of the right dtype) is returned as it
    is, as PyTorch does; otherwise a copy in that layout."""
    if "memory_format" not in kwargs:
        return pointwise.to(self, *args, **kwargs)
    memory_format = kwargs.pop("memory_format")
    out = pointwise.to(self, *args, **kwargs)
    if memory_format is None or memory_format is preserve_format:
        return out
    check_memory_format(memory_format, "to")
    if out.stride() == format_strides(out.shape, memory_format):
        return out
    array = laid_out(out, memory_format)
    if out is self:  # nothing else changed: PyTorch still copies (ToCopyBackward0)
        out = pointwise.to_copy(self, self._device, self._dtype)
    return _in_layout(out, array)


def _new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None,
                requires_grad: bool = False) -> Tensor:
    return creation.tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


def _new_filled(fill: Any, name: str) -> Callable:
    def method(self: Tensor, *sizes: Any, size: Any = None, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
        if size is not None:  # ``x.new_zeros(size=(2, 3))``
            sizes = sizes_by_keyword(sizes, size, name, "size")
        if not sizes:  # (``x.new_zeros(())`` is the 0-d tensor; no size at all is a mistake, as in PyTorch)
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        value = fill if fill is not None else 0
        return creation.full(shape._shape_arg(sizes), value, dtype=dtype or self.dtype, device=device or self.device,
                    requires_grad=requires_grad)
    return method


def _new_full(self: Tensor, size: Sequence[int], fill_value: Number, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    return creation.full(tuple(size), fill_value, dtype=dtype or self.dtype, device=device or self.device,
                requires_grad=requires_grad)


def _uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with U(a, b) numbers from the same stream as PyTorch's CPU generator, in the
    order of the tensor's memory (``random.fill_in_memory_order``: a transposed tensor
    takes them as PyTorch's loop does)."""
    if type(a) is not float or type(b) is not float:  # (PyTorch's parser: numbers, or 0-d tensors)
        a, b = creation.float_argument("uniform_", "from", 1, a), creation.float_argument("uniform_", "to", 2, b)
    gen = generator or random.default_generator
    return random.fill_in_memory_order(self, lambda shape: gen.uniform(shape, self._dtype._np, a, b))


def _normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with N(mean, std²) numbers, in memory order.  A tensor that is not contiguous gets
    them one element at a time (ATen's vectorised blocks of 16 need contiguous memory), so
    ``x.t().normal_()`` is not ``x.normal_()`` transposed even for the same numbers."""
    if type(mean) is not float or type(std) is not float:  # (PyTorch's parser: numbers, or 0-d tensors)
        mean = creation.float_argument("normal_", "mean", 1, mean)
        std = creation.float_argument("normal_", "std", 2, std)
    gen = generator or random.default_generator
    elementwise = not self.is_contiguous()
    return random.fill_in_memory_order(
        self, lambda shape: gen.normal(shape, self._dtype._np, mean, std, elementwise=elementwise))


def _shaped_as(op: Callable, name: str) -> Callable:
    """``x.view_as(other)`` is ``x.view(other.shape)`` (``reshape_as``, ``expand_as`` alike).  An
    ``other`` with no shape (``x.view_as([2, 3])``) is PyTorch's TypeError, found only once the
    call failed: a wrapper (tensor_arguments.py) would cost these hot methods a call."""
    def method(self: Tensor, other: Any) -> Tensor:
        try:
            size = other.shape
        except AttributeError:
            require_tensor(name, "other", other)
            raise
        return op(self, tuple(size))
    method.__name__ = name
    return method


def _split(self: Tensor, split_size: Any, dim: int = 0) -> tuple:
    """``x.split(2)``: the method's parameter is ``split_size`` (``x.split(split_size=2)``), the
    function's ``split_size_or_sections``, as in PyTorch."""
    return shape.split(self, split_size, dim)


def _softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return softmax.softmax(self, dim, dtype=dtype)


def _log_softmax(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return softmax.log_softmax(self, dim, dtype=dtype)


def _compare(op: str) -> Callable:
    def method(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, int, float, np.generic, np.ndarray)):
            return NotImplemented
        return pointwise.compare(op, self, other)
    method.__name__ = op
    return method


def _compare_method(op: str) -> Callable:
    """``x.eq(other)`` and ``torch.eq(x, other)``: the operator's rule, except that what the operator
    answers ``NotImplemented`` to (so that Python can fall back: ``x == [1.0]`` is False) is
    PyTorch's TypeError here, where nothing falls back and the caller would get NotImplemented."""
    operator_form = _compare(op)

    def method(self: Tensor, other: Any) -> Any:
        result = operator_form(self, other)
        if result is NotImplemented:
            raise TypeError(f"{op}() received an invalid combination of arguments - got ({type(other).__name__}), "
                            f"but expected one of: (Tensor other) or (Number other)")
        return result
    method.__name__ = op
    return method


def _logical(op: str, reflected: bool = False) -> Callable:
    def method(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, int, bool)):
            return NotImplemented
        return pointwise.logical(op, self, other)
    return method


def _reflected(op: Callable) -> Callable:
    """``number <op> tensor`` (``-7 // x``, ``7 % x``, ``1 << x``): Python asks the tensor,
    which computes ``op(number, tensor)``.

    As in PyTorch, the number becomes a zero-dim tensor of the dtype that promotion gives
    the pair (so ``1000 // int8_tensor`` stays int8); anything else is ``NotImplemented``,
    and Python raises its own TypeError."""
    def method(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (int, float)):
            return NotImplemented
        _, number, dt = binary_operands(self, other)
        return op(Tensor._make(self._backend.asarray(number, dt), self._device), self)
    method.__name__ = op.__name__
    return method


def _rmatmul(self: Tensor, other: Any) -> Any:
    """``other @ tensor`` where ``other`` is not a tensor (a list …): Python's TypeError, as in PyTorch."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul.matmul(other, self)


_T_DEPRECATED = {
    "0-D": "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
    "not 2-D": "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
               "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
               "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
}
_T_WARNED: set = set()  # PyTorch gives each of these warnings once per process (TORCH_WARN_ONCE)


def _T(self: Tensor) -> Tensor:
    """All dimensions reversed.  Meant for matrices: on any other number of dimensions PyTorch
    warns (once) that it is deprecated."""
    if self.ndim != 2:
        key = "0-D" if self.ndim == 0 else "not 2-D"
        if key not in _T_WARNED:
            _T_WARNED.add(key)
            warn_always.warn(_T_DEPRECATED[key], UserWarning, stacklevel=2)
    return shape.permute(self, tuple(reversed(range(self.ndim))))


def _mT(self: Tensor) -> Tensor:
    if self.ndim == 0:  # PyTorch's deprecated identity, with a warning once per process
        warn_always.warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these "
                              "cases.", UserWarning)
        return self
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return shape.transpose(self, -2, -1)


def _type_as(self: Tensor, other: Tensor) -> Tensor:
    return self.to(other.dtype)


def _equal(self: Tensor, other: Tensor) -> bool:
    return tuple(self.shape) == tuple(other.shape) and bool(reduction.all(pointwise.compare("eq", self, other)))


def _allclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(reduction.all(_isclose(self, other, rtol, atol, equal_nan)))


def _isclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> Tensor:
    require_tensor("isclose", "other", other, 2)  # (a number is PyTorch's TypeError here)
    if other._dtype is not self._dtype:  # PyTorch compares like with like
        raise RuntimeError(f"{dtypes.SCALAR_NAMES[self._dtype.name]} did not match "
                           f"{dtypes.SCALAR_NAMES[other._dtype.name]}")
    xp = self._backend.xp
    a, b, _ = binary_operands(self, other)
    if self._dtype is dtypes.bool:  # two bools are close when equal (NumPy cannot subtract bools)
        return new_result(a == b, self)
    close = xp.abs(a - b) <= atol + rtol * xp.abs(b)
    close = close | (a == b)
    if equal_nan:
        close = close | (xp.isnan(a) & xp.isnan(b))
    return new_result(close, self)


# PyTorch names the nodes of the in-place forms apart from the out-of-place ones
_INPLACE_NODE_NAMES = {"UnsqueezeBackward0": "UnsqueezeBackward1", "TransposeBackward0": "TransposeBackward1",
                       "TBackward0": "TBackward1", "SqueezeBackward0": "SqueezeBackward3",
                       "SqueezeBackward1": "SqueezeBackward4", "SqueezeBackward2": "SqueezeBackward4"}


_INPLACE_NODE_CLASSES: dict = {}


def _inplace_node_class(cls: type) -> type:
    """The node class of an in-place shape change: the out-of-place node's class under PyTorch's
    in-place name, so that both ``name()`` and the repr say it (``<TransposeBackward1 object ...>``)."""
    sub = _INPLACE_NODE_CLASSES.get(cls)
    if sub is None:
        name = _INPLACE_NODE_NAMES.get(cls._name, cls._name)
        sub = cls if name == cls._name else type(name, (cls,), {"_name": name, "__module__": cls.__module__})
        _INPLACE_NODE_CLASSES[cls] = sub
    return sub


def _shape_inplace(op: Callable) -> Callable:
    """``unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``: change this tensor's *shape* in place.

    No element is written: the tensor simply becomes the view that ``op`` returns (same memory,
    new shape) and takes that view's history, so autograd sees ``x.unsqueeze_(0)`` as
    ``x = x.unsqueeze(0)``.  The leaf rule is PyTorch's: a leaf that requires grad refuses."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        self._check_inplace()
        result = op(self, *args, **kwargs)
        self._data = result._data
        if result.grad_fn is not None and grad_mode._state.enabled:
            node = result.grad_fn
            node.__class__ = _inplace_node_class(type(node))
            self._set_history(node, result._output_nr)
        if self._view_fn is not None:  # a view: replaying it from its base must give the new shape
            parent = self._view_fn
            self._view_fn = lambda base: op(parent(base), *args, **kwargs)
        return self
    method.__name__ = op.__name__ + "_"
    return method


def _sizes_method(fn: Callable) -> Callable:
    """The method form of a function that takes a tuple of sizes or dims: ``x.tile(2)``,
    ``x.tile(2, 3)`` and ``x.tile((2, 3))`` alike, as PyTorch's methods take them (its functions
    want the tuple); given by keyword (``x.flip(dims=(0, 1))``), the tuple goes to the function."""
    def method(self: Tensor, *sizes: Any, **kwargs: Any) -> Tensor:
        if kwargs or not sizes:
            return fn(self, *sizes, **kwargs)  # (the function's own checks and errors)
        return fn(self, shape._shape_arg(sizes))
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _resize_(self: Tensor, *sizes: Any) -> Tensor:
    """Give the tensor a new shape in place; with more elements than before the new ones are
    uninitialised in PyTorch (zeros here).  Prefer ``reshape``/``view``; this is a low-level tool."""
    if not sizes:
        raise TypeError('resize_() missing 1 required positional arguments: "size"')
    size = shape._shape_arg(sizes)
    negative = [s for s in size if s < 0]
    if negative:  # (PyTorch's words are "numel: integer multiplication overflow"; these are torch.empty's)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {list(size)}")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    xp = self._backend.xp
    n = 1
    for s in size:
        n *= s
    if n == self.numel():
        self._data = xp.reshape(self._data, size)
    else:
        flat = xp.zeros((n,), dtype=self._data.dtype)
        k = min(n, self.numel())
        flat[:k] = xp.reshape(self._data, (-1,))[:k]
        self._data = xp.reshape(flat, size)
    self._version_counter[0] += 1
    return self


def _resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``resize_`` to ``the_template``'s shape."""
    return _resize_(self, tuple(the_template.shape))


def _new_empty_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], *, dtype: Any = None,
                       device: Any = None, requires_grad: bool = False, **unused: Any) -> Tensor:
    return creation.empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                                  requires_grad=requires_grad)


def _one_table(*sections: Any) -> dict:
    """Merge the sections of the method table; a name given twice is an error at import.

    Inside one section a repeated name is already a SyntaxError (each section is a
    ``dict(name=...)`` call); across sections it is caught here.  Why so strict: the
    old tables were applied one after the other with "the first one wins", and
    ``fmod`` silently became ``remainder``."""
    table: dict = {}
    for section in sections:
        for name, fn in (section.items() if isinstance(section, dict) else section):
            if name in table:
                raise RuntimeError(f"Tensor method {name!r} is defined twice in learntorch's method table")
            table[name] = fn
    return table


# Methods that take only numbers, yet have their numbers checked once a call failed, as the methods
# that take a tensor do (``tensor_arguments.py``): ``x.cummax(2.5)`` and ``x.topk(x)`` are PyTorch's
# TypeError, not the IndexError or RuntimeError met further in.  None is on a model's hot path (the
# wrapper costs a call); ``view``, ``softmax``, ``unsqueeze``, ``mean`` ... keep their own checks.
_NUMBERS_CHECKED = frozenset("""
cummax cummin logcumsumexp diagonal median nanmedian mode kthvalue topk quantile nanquantile std var select unbind
fill_diagonal_ hardshrink pinverse new_full new_empty_strided
movedim moveaxis tensor_split nanmean
""".split())


def _install(cls: type, table: dict) -> None:
    """Attach every method of ``table`` to ``cls``: the one place where methods are set.

    A name the class body already defines is an error too (the class holds what
    is not an operation: ``item``, ``detach``, ``register_hook`` ...).  A method that takes
    another tensor (``x.gather(0, idx)``) raises PyTorch's TypeError when that is not one
    (``tensor_arguments.py``); operators keep Python's own protocol (``NotImplemented``)."""
    for name, fn in table.items():
        if name in cls.__dict__:
            raise RuntimeError(f"Tensor method {name!r} is defined both in the Tensor class and in the method table")
        if inspect.isfunction(fn) and not name.startswith("__"):
            # (an in-place form is checked as its function is: ``x.tril_(2.5)`` as ``x.tril(2.5)``)
            first = name in CHECKED_FIRST or (name.endswith("_") and name[:-1] in CHECKED_FIRST)
            fn = tensor_checked(fn, name, method=True, first=first, numbers=name in _NUMBERS_CHECKED)
        setattr(cls, name, fn)


_ARITHMETIC = dict(
    add=pointwise.add_method, sub=pointwise.sub_method, subtract=pointwise.subtract_method, mul=pointwise.mul,
    multiply=pointwise.mul, div=pointwise.div, divide=pointwise.div, true_divide=pointwise.div,
    pow=pointwise.pow, neg=pointwise.neg, negative=pointwise.neg, exp=pointwise.exp,
    log=pointwise.log, sqrt=pointwise.sqrt, abs=pointwise.abs, sin=pointwise.sin,
    cos=pointwise.cos, tanh=pointwise.tanh, sigmoid=pointwise.sigmoid, relu=pointwise.relu,
    clamp=pointwise.clamp, clip=pointwise.clamp, reciprocal=pointwise.reciprocal,
    rsqrt=pointwise.rsqrt, square=pointwise.square, sign=pointwise.sign, floor=pointwise.floor,
    ceil=pointwise.ceil, round=pointwise.round, trunc=pointwise.trunc, log1p=pointwise.log1p,
    expm1=pointwise.expm1, log2=pointwise.log2, log10=pointwise.log10, exp2=pointwise.exp2,
    maximum=pointwise.maximum, minimum=pointwise.minimum, clone=clone,
    isnan=pointwise.isnan, isinf=pointwise.isinf, isfinite=pointwise.isfinite,
    logical_not=pointwise.logical_not, floor_divide=pointwise.floor_divide,
    remainder=pointwise.remainder,
    eq=_compare_method("eq"), ne=_compare_method("ne"), lt=_compare_method("lt"), le=_compare_method("le"),
    gt=_compare_method("gt"), ge=_compare_method("ge"), equal=_equal, allclose=_allclose, isclose=_isclose,
)

_OPERATIONS = dict(
    # reductions
    sum=reduction.sum, mean=reduction.mean, max=reduction.max, min=reduction.min,
    amax=reduction.amax, amin=reduction.amin, argmax=reduction.argmax, argmin=reduction.argmin,
    prod=reduction.prod, var=reduction.var, std=reduction.std, logsumexp=reduction.logsumexp,
    norm=linalg_api.legacy_norm, all=reduction.all, any=reduction.any, cumsum=reduction.cumsum,
    count_nonzero=reduction.count_nonzero,
    softmax=_softmax, log_softmax=_log_softmax,
    hardshrink=_hardshrink,
    # shape
    view=shape.view, reshape=shape.reshape, flatten=shape.flatten, unflatten=shape.unflatten,
    transpose=shape.transpose, swapaxes=shape.swapaxes, t=shape.t, permute=shape.permute,
    squeeze=shape.squeeze, unsqueeze=shape.unsqueeze, expand=shape.expand, split=_split,
    chunk=shape.chunk, unbind=shape.unbind, narrow=shape.narrow, flip=_sizes_method(shape.flip),
    repeat=shape.repeat, contiguous=_contiguous, movedim=shape.movedim,
    broadcast_to=_sizes_method(shape.broadcast_to), tile=_sizes_method(arrange.tile), sum_to_size=shape.sum_to_size,
    swapdims=shape.transpose, tensor_split=shape.tensor_split, ravel=lambda self: shape.flatten(self),
    view_as=_shaped_as(shape.view, "view_as"), reshape_as=_shaped_as(shape.reshape, "reshape_as"),
    expand_as=_shaped_as(shape.expand, "expand_as"),
    type_as=_type_as,
    # products, sorting, indexing
    matmul=matmul.matmul, mm=matmul.mm, bmm=matmul.bmm, dot=matmul.dot, mv=matmul.mv,
    outer=matmul.outer, sort=sorting.sort, argsort=sorting.argsort, topk=sorting.topk,
    index_select=indexing.index_select, gather=indexing.gather, masked_fill=indexing.masked_fill,
    masked_select=indexing.masked_select, nonzero=indexing.nonzero,
    take_along_dim=indexing.take_along_dim, argwhere=indexing.argwhere, msort=sorting.msort,
    aminmax=reduction.aminmax, addmv=matmul.addmv, baddbmm=matmul.baddbmm, addbmm=matmul.addbmm,
    inner=matmul.inner, kron=matmul.kron, dist=matmul.dist, tensordot=matmul.tensordot,
    inverse=linalg_decomp.inv, det=linalg_decomp.det, cholesky=linalg_api.legacy_cholesky,
    pinverse=linalg_api.pinverse,
    logdet=linalg_api.logdet, slogdet=linalg_decomp.torch_slogdet,
    matrix_power=linalg_api.matrix_power,
    cross=linalg_api.legacy_cross,
    matrix_exp=linalg_api.matrix_exp, lu=linalg_api.legacy_lu, lu_solve=linalg_api.legacy_lu_solve,
    svd=linalg_api.legacy_svd, qr=linalg_api.legacy_qr,
    triangular_solve=linalg_api.triangular_solve, orgqr=linalg_api.householder_product,
    cholesky_solve=linalg_lu.cholesky_solve, cholesky_inverse=linalg_lu.cholesky_inverse,
    geqrf=linalg_products.geqrf,
)

# what the Tensor class sits below: moving between devices and dtypes, and backward
_CLASS_LEVEL = dict(to=_to, backward=engine.tensor_backward, untyped_storage=storage.untyped_storage,
                    storage=storage.typed_storage)

_NEW_TENSORS = dict(
    new_tensor=_new_tensor, new_zeros=_new_filled(0, "new_zeros"), new_ones=_new_filled(1, "new_ones"),
    new_empty=_new_filled(None, "new_empty"), new_full=_new_full,
)

_IN_PLACE = dict(
    add_=_binary_inplace(pointwise.add, np.add), sub_=_binary_inplace(pointwise.sub, np.subtract),
    mul_=_binary_inplace(pointwise.mul, np.multiply), div_=_binary_inplace(pointwise.div, np.true_divide),
    pow_=_binary_inplace(pointwise.pow), clamp_=_unary_inplace(pointwise.clamp),
    clip_=_unary_inplace(pointwise.clamp), neg_=_unary_inplace(pointwise.neg),
    exp_=_unary_inplace(pointwise.exp), log_=_unary_inplace(pointwise.log),
    sqrt_=_unary_inplace(pointwise.sqrt), abs_=_unary_inplace(pointwise.abs),
    relu_=_unary_inplace(pointwise.relu), sigmoid_=_unary_inplace(pointwise.sigmoid),
    tanh_=_unary_inplace(pointwise.tanh), masked_fill_=_unary_inplace(indexing.masked_fill),
    unsqueeze_=_shape_inplace(shape.unsqueeze), squeeze_=_shape_inplace(shape.squeeze),
    t_=_shape_inplace(shape.t), transpose_=_shape_inplace(shape.transpose),
    swapaxes_=_shape_inplace(shape.swapaxes), swapdims_=_shape_inplace(shape.transpose),
    resize_=_resize_,
    zero_=_zero_, fill_=_fill_, copy_=_copy_, uniform_=_uniform_, normal_=_normal_,
)

def _contains(self: Tensor, element: Any) -> bool:
    """``element in t``: does any entry equal ``element`` (a number or a tensor, broadcast)?  Anything
    else is PyTorch's RuntimeError, where Python's fallback (iterating) would quietly say False."""
    import numbers
    if not isinstance(element, (Tensor, numbers.Number)):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element)}.")
    return bool((element == self).any().item())


def _not_after_an_array(op: Callable) -> Callable:
    """A reflected operator (``array + tensor``: NumPy defers to the tensor's ``__radd__``) that
    answers ``NotImplemented`` to a NumPy array, so that Python raises its TypeError as PyTorch
    does -- PyTorch computes only ``tensor + array`` (and ``array / tensor``, ``array == tensor``).
    A program that mixes them must put the tensor first or convert the array (``torch.from_numpy``)."""
    def method(self: Tensor, other: Any) -> Any:
        if type(other) is np.ndarray:
            return NotImplemented
        return op(self, other)
    method.__name__ = op.__name__
    return method


_OPERATORS = dict(
    __contains__=_contains,
    __add__=pointwise.add, __radd__=_not_after_an_array(pointwise.add), __iadd__=_binary_inplace(pointwise.add, np.add),
    __sub__=pointwise.sub, __rsub__=_not_after_an_array(pointwise.rsub),
    __isub__=_binary_inplace(pointwise.sub, np.subtract),
    __mul__=pointwise.mul, __rmul__=_not_after_an_array(pointwise.mul),
    __imul__=_binary_inplace(pointwise.mul, np.multiply),
    __truediv__=pointwise.div, __rtruediv__=pointwise.rdiv, __itruediv__=_binary_inplace(pointwise.div, np.true_divide),
    __floordiv__=pointwise.floor_divide, __mod__=pointwise.remainder,
    __rfloordiv__=_reflected(pointwise.floor_divide), __rmod__=_reflected(pointwise.remainder),
    __pow__=pointwise.pow, __rpow__=_not_after_an_array(pointwise.rpow), __ipow__=_binary_inplace(pointwise.pow),
    __matmul__=matmul.matmul, __rmatmul__=_rmatmul,
    __neg__=pointwise.neg, __pos__=lambda self: self, __abs__=pointwise.abs,
    __eq__=_compare("eq"), __ne__=_compare("ne"), __lt__=_compare("lt"), __le__=_compare("le"),
    __gt__=_compare("gt"), __ge__=_compare("ge"),
    __and__=_logical("and"), __or__=_logical("or"), __xor__=_logical("xor"),
    __rand__=_logical("and"), __ror__=_logical("or"), __rxor__=_logical("xor"),
    __invert__=pointwise.invert,
    __getitem__=indexing.getitem, __setitem__=indexing.setitem,
)


# Operations whose method is the function itself (x.tril(), x.atan2(y), x.scatter_(...)).
_SAME_AS_FUNCTION = [
    *(getattr(pointwise, n) for n in ("tan", "asin", "acos", "atan", "sinh", "cosh", "atan2", "lerp", "frac",
                                      "fmod", "hypot", "clamp_min", "clamp_max", "bitwise_not", "bitwise_and",
                                      "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")),
    *(getattr(arrange, n) for n in ("tril", "triu", "diag", "diagonal", "trace", "roll",
                                    "repeat_interleave", "diff", "cumprod", "unique", "isin", "erf", "logical_and",
                                    "logical_or", "logical_xor", "fliplr", "flipud", "moveaxis")),
    *(getattr(statistics, n) for n in statistics.__all__),
    scatter.scatter, scatter.scatter_add, scatter.index_add,
]
_MORE = dict(
    scatter_=scatter._inplace_method(scatter.scatter), scatter_add_=scatter._inplace_method(scatter.scatter_add),
    index_add_=scatter._inplace_method(scatter.index_add),
    where=lambda self, condition, other: pointwise.where(condition, self, other),  # x where condition, else other
    # in-place random fills (creation.py: the same draws as PyTorch's CPU kernels)
    bernoulli_=creation._bernoulli_, exponential_=creation._exponential_, random_=creation._random_,
    bernoulli=lambda self, p=None, *, generator=None: creation.bernoulli(self, p, generator=generator),
    multinomial=creation.multinomial_method,
    __lshift__=pointwise.bitwise_left_shift, __rshift__=pointwise.bitwise_right_shift,
    __rlshift__=_reflected(pointwise.bitwise_left_shift), __rrshift__=_reflected(pointwise.bitwise_right_shift),
    T=property(_T), mT=property(_mT),
)

# scans, counting, index writes and more shape ops (ops/scans.py, bucketing.py, index_writes.py,
# reshaping.py); mode, nanmedian and nanquantile come with statistics.__all__ above
_SCANS_BUCKETS_INDEX_WRITES = dict(
    cummax=scans.cummax, cummin=scans.cummin, logcumsumexp=scans.logcumsumexp, renorm=scans.renorm,
    renorm_=scatter._inplace_method(scans.renorm), bincount=bucketing.bincount, histc=bucketing.histc,
    histogram=bucketing.histogram, unique_consecutive=bucketing.unique_consecutive,
    index_fill=index_writes.index_fill, index_fill_=scatter._inplace_method(index_writes.index_fill),
    index_copy=index_writes.index_copy, index_copy_=scatter._inplace_method(index_writes.index_copy),
    index_put=index_writes.index_put, index_put_=scatter._inplace_method(index_writes.index_put),
    masked_scatter=index_writes.masked_scatter,
    masked_scatter_=scatter._inplace_method(index_writes.masked_scatter),
    scatter_reduce=index_writes.scatter_reduce,
    scatter_reduce_=scatter._inplace_method(index_writes.scatter_reduce),
    put=index_writes.put, put_=scatter._inplace_method(index_writes.put),
    rot90=reshaping.rot90, diag_embed=reshaping.diag_embed, diagflat=reshaping.diagflat, vsplit=reshaping.vsplit,
    hsplit=reshaping.hsplit, dsplit=reshaping.dsplit, split_with_sizes=reshaping.split_with_sizes,
    unsafe_chunk=reshaping.unsafe_chunk, unsafe_split=reshaping.unsafe_split,
    unsafe_split_with_sizes=reshaping.unsafe_split_with_sizes, unfold=reshaping.unfold,
    fill_diagonal_=reshaping.fill_diagonal_,
)

# views by strides, the scatter inverses of views, index_reduce, Python callables, vdot/ger
_STRIDED_AND_SCATTERS = dict(
    as_strided=strided.as_strided, new_empty_strided=_new_empty_strided, resize_as_=_resize_as_,
    slice_scatter=view_scatter.slice_scatter, select_scatter=view_scatter.select_scatter,
    diagonal_scatter=view_scatter.diagonal_scatter, index_reduce=index_reduce.index_reduce,
    index_reduce_=index_reduce.index_reduce_, apply_=python_map.apply_, map_=python_map.map_,
    vdot=matmul.vdot, ger=matmul.outer,
)

METHODS: dict[str, Any] = _one_table(_ARITHMETIC, _OPERATIONS, _CLASS_LEVEL, _NEW_TENSORS, _IN_PLACE, _OPERATORS,
                                     [(fn.__name__, fn) for fn in _SAME_AS_FUNCTION], _MORE,
                                     pointwise_extra.METHODS, tensor_info.METHODS, _SCANS_BUCKETS_INDEX_WRITES,
                                     _STRIDED_AND_SCATTERS, special_ops.METHODS)
_install(Tensor, METHODS)

