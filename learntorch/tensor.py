"""The ``Tensor`` class: an array of one backend, plus what autograd needs.

A tensor holds

* ``_data``: one array of its device's backend (NumPy on ``cpu``, CuPy on
  ``cuda:N``); all maths is done by that library;
* ``requires_grad``, ``grad``, ``grad_fn``: the autograd state.  A tensor with
  no ``grad_fn`` is a *leaf*; only leaves keep ``.grad`` unless
  ``retain_grad()`` was called;
* ``_version_counter``: bumped by every in-place change, shared with views, so
  that the engine can refuse a saved tensor that was modified after saving.

The operations themselves live in ``learntorch.ops``; the table at the end of
this file attaches them as methods (``x.sum()`` is ``ops.reduction.sum(x)``).
"""
from __future__ import annotations

import operator
import re
import weakref
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy as np

from . import warn_always
from . import device_memory, dtype_bfloat16, dtypes
from .autograd import grad_mode
from .autograd.node import AccumulateGrad, Node, RemovableHandle, add_hook
from .arrays import Backend, for_device, to_numpy, transfer
from .cuda import cupy_or_none
from .device import CPU, DeviceLike, as_device, device
from .printing import format_tensor
from .size import Size

_BFLOAT16 = dtype_bfloat16.bfloat16

__all__ = ["Tensor", "memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
           "format_strides", "laid_out", "check_memory_format"]


# ---------------------------------------------------------------------------- memory formats
class _NamedConstant:
    """A PyTorch constant that is one of a few named instances (``torch.channels_last``,
    ``torch.strided``): it prints as its name, cannot be made by calling the class, and is
    pickled (and deep-copied) by name, so that a copy is the same object."""

    __slots__ = ("_name",)

    def __new__(cls, *args: Any, **kwargs: Any) -> "_NamedConstant":
        raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")

    @classmethod
    def _named(cls, name: str) -> Any:
        constant = object.__new__(cls)
        object.__setattr__(constant, "_name", name)
        return constant

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


class memory_format(_NamedConstant):
    """How a tensor's elements are laid out in memory: ``torch.contiguous_format`` (row-major,
    the last dimension fastest), ``torch.channels_last`` (a 4-D ``(N, C, H, W)`` image stored as
    NHWC: the channels of one pixel side by side, which GPU convolution kernels prefer),
    ``torch.channels_last_3d`` (the same for 5-D ``(N, C, D, H, W)``), and
    ``torch.preserve_format`` (keep the layout of the tensor one copies).

    A layout changes ``stride()`` and ``is_contiguous(memory_format=...)``, never a value:
    ``x`` and ``x.contiguous(memory_format=torch.channels_last)`` are equal element by element,
    and every operation gives the same numbers for both.  learntorch really builds the NHWC
    array (a NumPy transpose, copied, seen back in NCHW order), so the strides are PyTorch's;
    its kernels gain no speed from it.  Like PyTorch's, the four objects are the only
    instances (``torch.memory_format()`` is an error), and they print as their names."""

    __slots__ = ()


contiguous_format = memory_format._named("contiguous_format")
channels_last = memory_format._named("channels_last")
channels_last_3d = memory_format._named("channels_last_3d")
preserve_format = memory_format._named("preserve_format")


class layout(_NamedConstant):
    """What kind of storage a tensor has: ``torch.strided`` (a dense block of memory read with
    strides), the only kind learntorch has; PyTorch also has sparse ones (``torch.sparse_coo``
    …), named here so that programs can compare against them."""

    __slots__ = ()


strided = layout._named("strided")
sparse_coo = layout._named("sparse_coo")
sparse_csr = layout._named("sparse_csr")

# the dimensions of a channels-last layout from slowest to fastest: the channels come last
_DIMENSION_ORDER = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}


def check_memory_format(fmt: Any, where: str) -> None:
    """PyTorch's TypeError for a ``memory_format=`` that is not one (a string, ``None``)."""
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{where}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{_argument_type_name(fmt)}")


def _argument_type_name(value: Any) -> str:
    """How PyTorch's argument errors name a type: ``int``, ``NoneType``, ``Tensor``, ``numpy.bool``."""
    cls = type(value)
    if isinstance(value, Tensor) or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__.split('.')[0]}.{cls.__name__}"


def _layout_order(ndim: int, fmt: memory_format) -> tuple:
    """The dimensions of layout ``fmt`` from slowest to fastest (row-major: in order).  PyTorch's
    rule for the rank: 4 dimensions for ``channels_last``, 5 for ``channels_last_3d``."""
    order = _DIMENSION_ORDER.get(fmt)
    if order is None:
        return tuple(range(ndim))
    if ndim != len(order):
        raise RuntimeError(f"required rank {len(order)} tensor to use {fmt._name} format")
    return order


def format_strides(shape: Sequence[int], fmt: memory_format) -> tuple:
    """The strides a fresh tensor of ``shape`` gets in layout ``fmt``: each dimension steps over
    all the faster ones (a dimension of size 1 too, as in PyTorch)."""
    order = _layout_order(len(shape), fmt)
    strides, step = [0] * len(shape), 1
    for d in reversed(order):
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def channels_last_of(*tensors: "Tensor") -> Optional[memory_format]:
    """The channels-last layout that a convolution hands on to its output, as PyTorch's do: that
    of the first argument stored channels-last (and not also row-major, as a 1-channel image
    can be), else None, the usual case, answered from the arrays' flags."""
    for t in tensors:
        if t is None or t._data.ndim not in (4, 5) or getattr(t._data, "flags", None) is None \
                or t._data.flags.c_contiguous:
            continue
        fmt = channels_last if t._data.ndim == 4 else channels_last_3d
        if t.is_contiguous(memory_format=fmt):
            return fmt
    return None


def laid_out(t: "Tensor", fmt: memory_format) -> Any:
    """``t``'s array copied into the layout ``fmt`` (``contiguous_format`` or a channels-last one).

    Channels last: an empty ``(N, H, W, C)`` array, filled from ``t`` transposed that way,
    and seen back in ``(N, C, H, W)`` order -- the values and the shape are ``t``'s, the
    strides NHWC's (those of :func:`format_strides`)."""
    order = _layout_order(t.ndim, fmt)
    lib = np if t._backend.is_numpy else cupy_or_none()
    if lib is None or not isinstance(t._data, lib.ndarray):
        return t._data  # the array-API stand-in for CUDA has no strides to arrange
    dense = lib.empty(tuple(t._data.shape[d] for d in order), dtype=t._data.dtype)
    dense[...] = t._data.transpose(order)
    return dense.transpose(tuple(int(i) for i in np.argsort(order)))


def _is_laid_out(shape: Sequence[int], strides: Sequence[int], order: Sequence[int]) -> bool:
    """Are these strides those of a dense layout whose dimensions, slowest to fastest, are
    ``order``?  Dimensions of size 1 are skipped (any stride will do for them), as in PyTorch."""
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


# ---------------------------------------------------------------------------- shared memory
# The storages (the arrays that own the memory) that ``share_memory_()`` marked: by id, with a
# weak reference, so that an entry goes when its array goes and a reused id is not mistaken.
_SHARED_STORAGES: dict[int, weakref.ref] = {}


def _storage_of(array: Any) -> Any:
    """The array that owns ``array``'s memory (a view's ``base``; itself for an owner)."""
    while isinstance(getattr(array, "base", None), np.ndarray):
        array = array.base
    return array


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    # What every tensor sets is a slot; what only some tensors set (views, leaves that
    # accumulate, hooked tensors) is a class-level default, overridden on the instance when
    # set: every operation makes a tensor, so each store _init skips is saved many times.
    __slots__ = ("_data", "_device", "_dtype", "_requires_grad", "grad_fn", "_output_nr",
                 "_version_counter", "__weakref__", "__dict__")
    _grad: Optional["Tensor"] = None
    _base: Optional["Tensor"] = None  # the tensor whose storage a view shares
    _view_fn: Optional[Callable] = None  # for a view: how to make it again from its base (see Function.apply)
    # How a view was made, when that forbids changing it in place with grad mode on (PyTorch's
    # CreationMeta): "no_grad" / "inference" (made with grad mode off), "multi_output" (one of
    # split's or unbind's views), "custom" (returned by a learner's Function); None: no rule.
    _creation: Optional[str] = None
    # Such a view made with grad mode off requires grad only because its base does: it has no
    # history and gets no gradient (``_gradient_edge``) unless ``requires_grad_()`` is called on it.
    _base_requires_grad = False
    _hooks: Any = None  # register_hook's table
    _grad_accumulator: Any = None  # a leaf's AccumulateGrad, held weakly
    _inference = False  # set on the instance for a tensor made inside inference_mode()
    _post_accumulate_grad_hooks = None  # register_post_accumulate_grad_hook's table, on the instance
    # NumPy defers to a tensor in ``np.float32(2) * t`` and ``np.ones(2) + t`` (it would otherwise
    # turn the tensor into an array and return an array): the tensor's reflected operator runs.
    __array_priority__ = 1000

    # ------------------------------------------------------------------ construction
    def __init__(self, *args: Any, device: DeviceLike = None, **kwargs: Any) -> None:
        """The legacy constructor ``torch.Tensor(data)`` / ``torch.Tensor(2, 3)``.

        Prefer ``learntorch.tensor(data)``.  As in PyTorch, ``Tensor(2.0)`` is an
        error (a number is not a sequence), and so is ``requires_grad=`` here:
        the notes' ``torch.Tensor(2.0, requires_grad=True)`` fails for both reasons.
        """
        if kwargs:
            kinds = ", ".join(type(a).__name__ for a in args)
            keys = ", ".join(f"{k}={type(v).__name__}" for k, v in kwargs.items())
            raise TypeError(f"new() received an invalid combination of arguments - got ({kinds}, {keys})")
        dev = as_device(device)
        if len(args) == 1 and not isinstance(args[0], (int, Size)):
            data = args[0]
            if isinstance(data, (float, bool, complex)):
                raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
            array = np.array(to_numpy(data._data) if isinstance(data, Tensor) else data,
                             dtype=dtypes.get_default_dtype()._np)
        else:
            shape = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], int) else args
            if not all(isinstance(s, int) for s in shape):
                raise TypeError(f"new(): argument 'size' must be tuple of ints, but found element of "
                                f"type {type(next(s for s in shape if not isinstance(s, int))).__name__}")
            array = np.empty(shape, dtype=dtypes.get_default_dtype()._np)
        Tensor._init(self, transfer(array, CPU, dev), dev)

    def _init(self, data: Any, dev: device, requires_grad: bool = False) -> None:
        """Fill the slots of a new tensor (used by every constructor)."""
        self._data = data
        self._device = dev
        on_cpu = dev.type == "cpu"  # (then ``data`` is a NumPy array: no need to ask what its dtype is)
        if not on_cpu:
            _count_device_memory(data, dev)
        dt = data.dtype  # a NumPy dtype (NumPy, CuPy) or an array-api-strict one (the stand-in)
        self._dtype = (dtypes._BY_NP.get(dt) if on_cpu or isinstance(dt, np.dtype) else None) or dtypes.from_any(dt)
        if self._dtype is _BFLOAT16:
            dtype_bfloat16.made = True
        self._requires_grad = requires_grad
        self.grad_fn = None
        self._output_nr = 0
        self._version_counter = [0]
        if grad_mode.used and grad_mode._state.inference:  # made inside inference_mode(): an inference tensor
            self._inference = True

    @classmethod
    def _make(cls, data: Any, dev: device, requires_grad: bool = False) -> "Tensor":
        """Wrap a backend array (no copy).  NumPy may hand back a scalar where an
        array is meant (``np.float32``): it is turned into a 0-d array here, once."""
        if type(data) is not np.ndarray and dev.type == "cpu":
            data = np.asarray(data)
        t = object.__new__(Tensor)
        t._init(data, dev, requires_grad)
        return t

    @staticmethod
    def _remade(data: Any, dev: device, dtype: dtypes.dtype, counter: list, node: Any, output_nr: int) -> "Tensor":
        """A tensor made again from fields already known (a node's saved result, see
        ``SavedTensor.forget_output``): nothing to look up or check, as ``_make`` would."""
        t = object.__new__(Tensor)
        t._data, t._device, t._dtype, t._version_counter = data, dev, dtype, counter
        t._requires_grad, t.grad_fn, t._output_nr = node is not None, node, output_nr
        return t

    @staticmethod
    def _zeros(shape: Sequence[int], dtype: dtypes.dtype, dev: device) -> "Tensor":
        be = for_device(dev)
        return Tensor._make(be.xp.zeros(tuple(shape), dtype=be.dtype(dtype), device=be.native_device), dev)

    def _filled_like(self, value: float, requires_grad: bool = False) -> "Tensor":
        """A new tensor of this one's shape, dtype and device, every element ``value`` (no history).
        autograd uses it for seed and zero gradients, so that it needs nothing from ``creation``."""
        be = self._backend
        data = be.xp.full(tuple(self._data.shape), value, dtype=be.dtype(self._dtype), device=be.native_device)
        return Tensor._make(data, self._device, requires_grad)

    def _view_of(self, data: Any) -> "Tensor":
        """A new tensor that shares this one's storage and version counter (a view)."""
        t = Tensor._make(data, self._device)
        t._version_counter = self._version_counter
        if t._inference and not self._inference:  # inside inference_mode, a view of a normal tensor is normal
            t._inference = False
        base = t._base = self if self._base is None else self._base
        if self._creation is not None:  # a view of such a view inherits its rule (as in PyTorch)
            t._creation = self._creation
        if base.grad_fn is not None:  # remembered, weakly, so that an in-place change of the base can
            views = base.__dict__.get("_live_views")  # refresh the view's history (ops/inplace.py)
            if views is None:
                base._live_views = [weakref.ref(t)]
            else:
                views.append(weakref.ref(t))
                if not len(views) % 64:  # now and then, forget the views that are gone
                    views[:] = [ref for ref in views if ref() is not None]
        return t

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (PyTorch's ``Tensor._is_view``)."""
        return self._base is not None

    def _alias(self) -> "Tensor":
        return self._view_of(self._data)

    # ------------------------------------------------------------------ basic properties
    @property
    def _backend(self) -> Backend:
        return for_device(self._device)

    @property
    def dtype(self) -> dtypes.dtype:
        return self._dtype

    @property
    def device(self) -> device:
        return self._device

    @property
    def shape(self) -> Size:
        return Size._of(self._data.shape)

    def size(self, dim: Optional[int] = None) -> Any:
        if dim is None:
            return Size._of(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self.ndim)]

    @property
    def ndim(self) -> int:
        return len(self._data.shape)

    def dim(self) -> int:
        return len(self._data.shape)

    ndimension = dim

    def numel(self) -> int:
        n = 1
        for s in self._data.shape:
            n *= s
        return n

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def layout(self) -> layout:
        """``torch.strided``: every learntorch tensor is a dense block read with strides."""
        return strided

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    @property
    def is_mps(self) -> bool:
        """False: learntorch has no Apple GPU device (programs ask, to choose one)."""
        return False

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def get_device(self) -> int:
        return -1 if self._device.type == "cpu" else self._device.index

    @property
    def is_leaf(self) -> bool:
        """True for tensors the user created (or that do not require grad)."""
        return self.grad_fn is None

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's memory has seen (autograd checks it).  A tensor
        made in ``inference_mode()`` keeps no such count in PyTorch, and asking is an error."""
        if getattr(self, "_inference", False):
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter[0]

    def stride(self, dim: Optional[int] = None) -> Any:
        strides = tuple(s // self._dtype.itemsize for s in getattr(self._data, "strides", ()))
        if self.ndim and not any(strides) and (not strides or self._data.size == 0):
            # the strict stand-in has no strides, and NumPy gives a new empty array strides of 0:
            # report contiguous ones, as PyTorch does (``torch.zeros(0, 3).stride()`` is (3, 1))
            strides = _contiguous_strides(self.shape)
        return strides if dim is None else strides[_wrap_dim(dim, self.ndim)]

    def is_contiguous(self, memory_format: "memory_format" = contiguous_format) -> bool:
        """Are the elements stored densely in row-major order (or in the layout ``memory_format``
        names: ``torch.channels_last`` asks whether the tensor is stored as NHWC)?"""
        if memory_format is not contiguous_format:
            order = _DIMENSION_ORDER.get(memory_format)
            if order is not None:
                return self.ndim == len(order) and _is_laid_out(self._data.shape, self.stride(), order)
            check_memory_format(memory_format, "is_contiguous")  # (preserve_format: the plain question, as PyTorch)
        flags = getattr(self._data, "flags", None)  # NumPy and CuPy arrays; the stand-in wraps a NumPy array
        if flags is None:
            flags = getattr(getattr(self._data, "_array", None), "flags", None)
        return True if flags is None else bool(flags.c_contiguous)

    # ------------------------------------------------------------------ shared memory
    def share_memory_(self) -> "Tensor":
        """Mark this tensor's storage as shared between processes; returns ``self``.

        In PyTorch this moves a CPU storage into shared memory, so that worker processes
        (``torch.multiprocessing``, Hogwild training with ``model.share_memory()``) see each
        other's updates.  learntorch runs in one process and has no such workers: there is
        nobody to share with, so the memory stays where it is and only the mark is kept,
        for :meth:`is_shared` to report as PyTorch does (views and ``detach()`` share it,
        a ``clone()`` does not).  A CUDA tensor is shared already."""
        if self._device.type == "cpu":
            storage = _storage_of(self._data)
            key = id(storage)
            _SHARED_STORAGES[key] = weakref.ref(storage, lambda _ref, key=key: _SHARED_STORAGES.pop(key, None))
        return self

    def is_shared(self) -> bool:
        """Is the storage marked by :meth:`share_memory_`?  Always True for CUDA tensors, as in PyTorch."""
        if self._device.type != "cpu":
            return True
        storage = _storage_of(self._data)
        ref = _SHARED_STORAGES.get(id(storage))
        return ref is not None and ref() is storage

    def data_ptr(self) -> int:
        """Address of the first element (CPU: NumPy's pointer), to show shared memory."""
        if self._backend.is_numpy:
            return int(self._data.__array_interface__["data"][0])
        return int(getattr(self._data, "data").ptr) if hasattr(self._data, "data") else id(self._data)

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if type(value) is not bool:  # 1, a NumPy bool, a tensor: PyTorch refuses them all
            raise RuntimeError("requires_grad must be a bool")
        if value and self.grad_fn is None and not self._dtype.is_floating_point:  # PyTorch's wording differs
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True, /, **by_name: Any) -> "Tensor":
        """Switch gradient tracking on or off for a leaf (PyTorch forbids it on non-leaves).

        ``requires_grad`` must be a real ``bool``: ``requires_grad_(1)`` is PyTorch's TypeError,
        not a silent True.  (The argument is positional-only plus ``**by_name`` only so that the
        message can say, as PyTorch's does, whether it was passed by position or by name.)"""
        if by_name:
            requires_grad = _bool_by_name("requires_grad_", "requires_grad", by_name)
        elif type(requires_grad) is not bool:
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                            f"{_argument_type_name(requires_grad)}")
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to "
                               "use a computed variable in a subgraph that doesn't require differentiation "
                               "use var_no_grad = var.detach().")
        if requires_grad and not self._dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not grad_mode._state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        if self._base_requires_grad:  # (a view made under no_grad, now a leaf of its own choosing)
            self._base_requires_grad = False
        return self

    @property
    def grad(self) -> Optional["Tensor"]:
        if self.grad_fn is not None and not self.retains_grad and self._grad is None:
            warn_always.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
                "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
                "instead.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Optional["Tensor"]) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                                   f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are "
                                   "the same size")
            if value.dtype is not self.dtype:
                # PyTorch 2.13's words (C++ type name, then scalar-type name); learntorch has no
                # ``grad_dtype`` attribute to change: a gradient always has its tensor's dtype
                raise RuntimeError(f"attempting to assign a gradient with dtype "
                                   f"'{dtypes.c_type_name(value.dtype)}' to a tensor with grad_dtype "
                                   f"'{dtypes.type_name(self.dtype)}'. The gradient must "
                                   "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                                   "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                                   "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                                   "gradient may break downstream systems that assume they match.")
            if value.device != self.device:
                raise RuntimeError("assigned grad has data located on a different device")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        """``del x.grad``: the same as ``x.grad = None`` (as in PyTorch)."""
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        node = self.grad_fn
        return bool(node is not None and node._retains_grad and self._output_nr in node._retains_grad)

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf.  Recorded after the tensor's other hooks,
        wherever ``retain_grad`` was called (PyTorch 2 behaviour); a no-op on leaves."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return
        node = self.grad_fn
        if node._retains_grad is None:
            node._retains_grad = {}
        node._retains_grad[self._output_nr] = weakref.ref(self)

    def _retain(self, grad: "Tensor") -> None:
        """Called by the engine with the gradient after this tensor's hooks ran."""
        if self._grad is None:
            self._grad = grad.detach().clone() if not grad.requires_grad else grad.clone()
        else:
            self._grad = self._grad + grad

    def register_hook(self, hook: Callable[["Tensor"], Optional["Tensor"]]) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned
        tensor replaces the gradient, ``None`` keeps it.  Hooks run in registration order."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            self._hooks, handle = add_hook(self._hooks, hook)
            return handle
        return self.grad_fn.add_tensor_pre_hook(self._output_nr, hook)

    @property
    def _backward_hooks(self) -> Optional[dict]:
        """PyTorch's name for this tensor's ``register_hook`` table (None until a hook is
        registered); learners print it to check that a hook was added or removed."""
        if self.grad_fn is None:
            return self._hooks
        return self.grad_fn._tensor_pre_hooks.get(self._output_nr) if self.grad_fn._tensor_pre_hooks else None

    def _gradient_edge(self) -> tuple[Optional[Node], int]:
        """Where this tensor's gradient goes: its grad_fn, or its leaf's AccumulateGrad."""
        if self.grad_fn is not None:
            return self.grad_fn, self._output_nr
        if not self._requires_grad or self._base_requires_grad:
            return None, 0
        acc = self._grad_accumulator() if self._grad_accumulator is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._grad_accumulator = weakref.ref(acc)
        return acc, 0

    def _set_history(self, node: Node, output_nr: int) -> None:
        """Make ``node`` this tensor's ``grad_fn`` (a new result, or an in-place op's rebase).

        A ``retain_grad()`` record moves with the tensor, as in PyTorch: after
        ``z.retain_grad(); z.mul_(3)`` (or a change through a view of ``z``), ``z.grad`` is
        the gradient of ``z``'s *current* value, not of the value it had before the change.
        (Hooks from ``register_hook`` stay on the old node, PyTorch's rule too.)"""
        old = self.grad_fn
        if old is not None and old is not node and old._retains_grad:
            ref = old._retains_grad.get(self._output_nr)
            if ref is not None and ref() is self:
                del old._retains_grad[self._output_nr]
                if node._retains_grad is None:
                    node._retains_grad = {}
                node._retains_grad[output_nr] = ref
        self.grad_fn = node
        self._output_nr = output_nr
        self._requires_grad = True

    def _check_inplace(self) -> None:
        """PyTorch's rules for in-place changes under grad mode, checked before the change."""
        if self._inference and not grad_mode._state.inference:
            raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
                               "a clone to get a normal tensor before doing inplace update.See "
                               "https://github.com/pytorch/rfcs/pull/17 for more details.")
        if not grad_mode._state.enabled:
            return
        if self._creation is not None and self._requires_grad:
            _refuse_view_inplace(self)
        if self.grad_fn is None and self._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        base = self._base
        if base is not None and base.grad_fn is None and base._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                               "operation.")

    def _bump_version(self) -> None:
        self._version_counter[0] += 1

    def _accumulate_(self, other: "Tensor") -> None:
        """``self += other`` on the raw arrays, for gradient accumulation into ``.grad``."""
        if self._backend.is_numpy:
            np.add(self._data, other._data, out=self._data)
        else:
            self._data = self._data + other._data
            _count_device_memory(self._data, self._device)
        self._version_counter[0] += 1

    def _dense_strides(self) -> Optional[tuple]:
        """This tensor's strides (in elements) when it is stored densely without overlap -- a
        permuted, transposed or channels-last tensor, say -- so that a result made "like" it can
        copy them (``*_like``, a leaf's ``.grad``); None for a slice with gaps or an expanded
        tensor (those results are row-major, as in PyTorch)."""
        strides = self.stride()
        dims = sorted((d for d in range(self.ndim) if self.shape[d] != 1), key=lambda d: strides[d])
        expected = 1
        for d in dims:
            if strides[d] != expected:
                return None
            expected *= self.shape[d]
        return tuple(strides)

    def _kept_as_grad(self) -> "Tensor":
        """This gradient, nobody else's (``GraphTask.may_keep``), kept as a leaf's ``.grad``
        without a copy: the tensor itself when it is a plain result (no history, not a view,
        no hooks), else a detached tensor on the same memory."""
        if (type(self) is Tensor and self.grad_fn is None and self._base is None and not self._requires_grad
                and self._hooks is None):
            return self
        return self.detach()

    def detach(self) -> "Tensor":
        """A tensor on the same storage that is cut from the graph (never requires grad).

        It shares memory *and* the version counter with the original: changing it
        in place changes both, and autograd notices."""
        t = Tensor._make(self._data, self._device)
        t._version_counter = self._version_counter
        return t

    def detach_(self) -> "Tensor":
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view "
                               "is set as True, gradients are views of DDP buckets, and hence detach_() "
                               "cannot be called on these gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> "Tensor":
        """The same storage without autograd history (the old ``Variable.data``).

        Prefer ``detach()``: changes through ``.data`` are invisible to autograd's
        version check, so they can make gradients silently wrong."""
        return Tensor._make(self._data, self._device)

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data
        self._device = value._device
        self._dtype = value._dtype

    # ------------------------------------------------------------------ conversion
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array behind a CPU tensor — the same memory, not a copy.

        As in PyTorch, each call hands out a *new* array object viewing that memory
        (``x.numpy() is x.numpy()`` is False, ``np.shares_memory`` is True): reshaping
        the returned array then cannot change the tensor's own shape."""
        if self._dtype.name == "bfloat16":  # NumPy has no bfloat16 of its own; PyTorch refuses (x.float().numpy())
            raise TypeError("Got unsupported ScalarType BFloat16")
        if force:
            return to_numpy(self._data).copy() if self._device.type != "cpu" else self._data
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if self._device.type != "cpu":
            raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to "
                            "copy the tensor to host memory first.")
        return self._data.view() if type(self._data) is np.ndarray else self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __array_wrap__(self, array: np.ndarray, context: Any = None, return_scalar: bool = False) -> "Tensor":
        """What a NumPy function of a tensor returns (``np.exp(t)``): a tensor on the result's memory,
        as PyTorch returns.  A bool result comes back as uint8, as PyTorch's does."""
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return Tensor._make(np.asarray(array), CPU)

    def item(self) -> Any:
        """The single value of a one-element tensor as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        value = to_numpy(self._data).reshape(()).item()
        return value

    def tolist(self) -> Any:
        return to_numpy(self._data).tolist()

    def cpu(self) -> "Tensor":
        return self.to(CPU)

    def cuda(self, device: DeviceLike = None, non_blocking: bool = False) -> "Tensor":
        if device is None or isinstance(device, int):
            device = "cuda" if device is None else f"cuda:{device}"
        return self.to(as_device(device))

    def type(self, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
        """The type's name (``"torch.FloatTensor"``), or a copy in ``dtype``.  ``non_blocking`` (and the
        deprecated ``async``) only matter for copies between a GPU and pinned memory: accepted, as in
        PyTorch."""
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return f"{prefix}{dtypes.type_name(self._dtype)}Tensor"
        if isinstance(dtype, str):  # the legacy names: x.type("torch.DoubleTensor")
            return _to_legacy_type_name(self, dtype)
        if isinstance(dtype, type) and isinstance(getattr(dtype, "_dtype", None), dtypes.dtype):
            return self.to(dtype._dtype)  # a legacy class: x.type(torch.IntTensor) (legacy.py)
        if isinstance(dtype, type):  # not even ``float``: PyTorch takes only its tensor types here
            name = dtype.__name__ if dtype.__module__ == "builtins" else f"{dtype.__module__}.{dtype.__name__}"
            raise ValueError(f"invalid type: '{name}'")
        if not isinstance(dtype, dtypes.dtype):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self.to(dtype)

    def float(self) -> "Tensor":
        return self.to(dtypes.float32)

    def double(self) -> "Tensor":
        return self.to(dtypes.float64)

    def half(self) -> "Tensor":
        return self.to(dtypes.float16)

    def bfloat16(self) -> "Tensor":
        return self.to(dtypes.bfloat16)  # registered by dtype_bfloat16.py, which backend.py imports

    def long(self) -> "Tensor":
        return self.to(dtypes.int64)

    def int(self) -> "Tensor":
        return self.to(dtypes.int32)

    def bool(self) -> "Tensor":
        return self.to(dtypes.bool)

    def byte(self) -> "Tensor":
        return self.to(dtypes.uint8)

    def char(self) -> "Tensor":
        return self.to(dtypes.int8)

    def short(self) -> "Tensor":
        return self.to(dtypes.int16)

    # ------------------------------------------------------------------ Python protocol
    def __repr__(self) -> str:
        return format_tensor(
            to_numpy(self._data), dtype_name=self._dtype.name,
            is_default_dtype=self._dtype is dtypes.get_default_dtype(),
            device=None if self._device.type == "cpu" else str(self._device),
            requires_grad=self._requires_grad and self.grad_fn is None,
            grad_fn_name=type(self.grad_fn).__name__ if self.grad_fn is not None else None)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self.ndim == 0 and type(self) is Tensor:  # as PyTorch: f"{t}" of a 0-d tensor is its number
            return self.detach().item().__format__(spec)
        return object.__format__(self, spec)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            how_many = "no values" if self.numel() == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {how_many} is ambiguous")
        return bool(self.item())

    def _python_scalar(self) -> Any:
        """The value for ``int(x)``, ``float(x)``, ``complex(x)``: PyTorch's ValueError (not ``item``'s
        RuntimeError) when there is not exactly one element."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self) -> float:
        if self._requires_grad and grad_mode._state.enabled:  # (``complex(x)`` comes here too)
            # the number leaves the graph: PyTorch says so, once per process
            warn_always.warn_once("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                                  "behavior.\nConsider using tensor.detach() first.", UserWarning, stacklevel=2)
        return float(self._python_scalar())

    def __int__(self) -> int:
        return int(self._python_scalar())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol: int) -> Any:
        return (_rebuild, (to_numpy(self._data), str(self._device), self._requires_grad))

    def __deepcopy__(self, memo: dict) -> "Tensor":
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                               "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        out = Tensor._make(self._backend.xp.asarray(self._data, copy=True), self._device, self._requires_grad)
        if type(self) is not Tensor:
            out = self._rewrap(out)
        if self._grad is not None:
            out._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = out
        return out

    def _rewrap(self, plain: "Tensor") -> "Tensor":
        """Subclasses (``nn.Parameter``) turn a plain copy back into their own type."""
        return plain


_VIEW_RULE_ENDINGS = {
    "multi_output": " This view is the output of a function that returns multiple views. Such functions do not "
                    "allow the output views to be modified inplace. You should replace the inplace operation by an "
                    "out-of-place one.",
    "no_grad": " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
               "by moving both the view and the inplace either both inside the no_grad block (if you don't want "
               "the inplace to be tracked) or both outside (if you want the inplace to be tracked).",
    "inference": " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                 "code by moving both the view and the inplace either both inside the inference_mode block (if "
                 "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
                 "tracked).",
    "custom": " This view was created inside a custom Function (or because an input was returned as-is) and the "
              "autograd logic to handle view+inplace would override the custom backward associated with the "
              "custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by "
              "cloning the output of the custom Function.",
}


def _refuse_view_inplace(view: Tensor) -> None:
    """PyTorch's error for an in-place change, with grad mode on, of a view whose history cannot
    be rewritten safely (``Tensor._creation`` says how it was made).  Named after its node without
    the ``Backward0`` ending, as PyTorch names it (``Output 0 of Split``)."""
    node, creation = view.grad_fn, view._creation
    name = re.sub(r"Backward\d*$", "", type(node).__name__) if node is not None else ""
    if creation in ("no_grad", "inference") or node is None:
        prefix = (f"Output {view._output_nr} of {name} is a view of a view which was created in" if node is not None
                  else "A view was created in")
        start = (f"{prefix} inference mode and is being modified inplace in normal mode." if creation == "inference"
                 else f"{prefix} no_grad mode and is being modified inplace with grad mode enabled.")
    else:
        start = f"Output {view._output_nr} of {name} is a view and is being modified inplace."
    raise RuntimeError(start + _VIEW_RULE_ENDINGS[creation])


def _to_legacy_type_name(t: Tensor, name: str) -> Tensor:
    """``"torch.FloatTensor"``, ``"torch.cuda.LongTensor"`` … → that dtype (and device)."""
    kinds = {kind: dtypes._BY_NAME[name] for name, kind in dtypes.SCALAR_NAMES.items()}
    parts = name.split(".")
    kind = parts[-1][:-len("Tensor")] if parts[-1].endswith("Tensor") else None
    if parts[0] != "torch" or kind not in kinds or len(parts) > 3 or (len(parts) == 3 and parts[1] != "cuda"):
        raise ValueError(f"invalid type: '{name}'")
    return t.to("cuda" if len(parts) == 3 else "cpu", kinds[kind])


def _count_device_memory(data: Any, dev: device) -> None:
    """Let the device's memory counters see a new storage (``learntorch.cuda.memory_allocated``)."""
    cp = cupy_or_none()
    if cp is not None:
        device_memory.note_cupy_peak(cp, dev.index or 0)
    else:
        device_memory.track(data, dev.index or 0)


def _rebuild(array: np.ndarray, dev: str, requires_grad: bool) -> Tensor:
    d = as_device(dev)
    return Tensor._make(transfer(array.copy(), CPU, d), d, requires_grad)


def _bool_by_name(function: str, name: str, by_name: dict) -> bool:
    """The one keyword argument ``name`` of ``function``, which must be a ``bool`` (PyTorch's errors)."""
    for key in by_name:
        if key != name:
            raise TypeError(f"{function}() got an unexpected keyword argument '{key}'")
    value = by_name[name]
    if type(value) is not bool:
        raise TypeError(f"{function}(): argument '{name}' must be bool, not {_argument_type_name(value)}")
    return value


def _contiguous_strides(shape: Sequence[int]) -> tuple:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def _wrap_dim(dim: int, ndim: int) -> int:
    """A possibly negative ``dim`` as an index, with PyTorch's IndexError when out of range.

    A ``dim`` that is no int at all (``x.softmax(2.5)``, a tensor of many numbers) is PyTorch's
    TypeError instead.  That is looked at only once the range test has failed, so the right
    call pays nothing for it (the ``try`` costs no instruction until something is raised)."""
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    try:
        if lo <= dim <= hi:
            return dim + ndim if dim < 0 else dim
    except RuntimeError:  # (a tensor of many numbers has no one truth value)
        pass
    try:
        operator.index(dim)
    except TypeError:
        raise TypeError(f"dim must be an int, not {type(dim).__name__}") from None
    raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")


def _first_as_dtype(args: tuple) -> tuple:
    """The first argument of ``to`` as PyTorch's parser reads it: a Python type is a dtype
    (``x.to(float)`` is float64, ``int`` int64); a number that is no int is the tensor to match,
    made a tensor (``x.to(2.5)`` is float64, ``x.to(True)`` bool: not the flag ``non_blocking``);
    ``None`` is no device."""
    if not args:
        return args
    first = args[0]
    if first is float or first is int or first is bool:
        return (dtypes.from_argument(first),) + args[1:]
    if isinstance(first, (bool, np.bool_, float, np.floating)) and all(isinstance(b, bool) for b in args[1:]):
        # (a NumPy number is a Python float there; only the flags may follow the tensor to match)
        return (dtypes.bool if isinstance(first, bool) else dtypes.float64,) + args[1:]
    return args[1:] if first is None else args


def _check_to_form(args: tuple, named: list) -> tuple:
    """PyTorch's TypeError for positional arguments that fit none of ``to``'s three forms:
    ``to(dtype, ...)``, ``to(device, dtype, ...)``, ``to(other, ...)`` -- each followed only by the
    flags ``non_blocking`` and ``copy`` (``x.to(torch.float64, "cpu")`` has them the wrong way round),
    and naming neither the device nor the dtype again.  Returns ``args``, a Python type given as the
    device form's dtype (``x.to("cpu", float)``) made a dtype."""
    first = args[0]
    rest = list(args[1:])
    if rest and (rest[0] is float or rest[0] is int or rest[0] is bool):
        rest[0] = dtypes.from_argument(rest[0])
        args = (first, *rest)
    if isinstance(first, (str, device, int)) and not isinstance(first, bool) and rest and \
            isinstance(rest[0], dtypes.dtype):
        rest.pop(0)
        clash = bool(named)
    elif isinstance(first, (str, device, int)) and not isinstance(first, bool):
        clash = bool(rest) or "device" in named  # (its flags come after the dtype)
    else:
        clash = bool(named)
    if clash or len(rest) > 2 or not all(isinstance(a, bool) for a in rest):
        got = ", ".join(type(a).__name__ if not isinstance(a, dtypes.dtype) else "torch.dtype" for a in args)
        raise TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of: "
                        "(torch.dtype dtype, bool non_blocking, bool copy), (torch.device device, torch.dtype "
                        "dtype, bool non_blocking, bool copy), (Tensor other, bool non_blocking, bool copy)")
    return args


def _parse_to(t: Tensor, args: tuple, kwargs: dict) -> tuple[device, dtypes.dtype, bool]:
    dev, dt = t._device, t._dtype
    named = [k for k in ("device", "dtype") if k in kwargs]  # (read before they are taken out below)
    copy = bool(kwargs.pop("copy", False))
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs.get("device") is not None:
        dev = as_device(kwargs["device"])
    if kwargs.get("dtype") is not None:
        dt = dtypes.from_argument(kwargs["dtype"])
    kwargs.pop("device", None)
    kwargs.pop("dtype", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected "
                        f"{', '.join(kwargs)}")
    if args and not isinstance(args[0], (Tensor, dtypes.dtype, str, device)):  # (the usual forms skip this call)
        args = _first_as_dtype(args)
    if len(args) > 1 or (args and named):
        args = _check_to_form(args, named)
    flags = 0
    for a in args:
        if isinstance(a, Tensor):
            dev, dt = a._device, a._dtype
        elif isinstance(a, dtypes.dtype):
            dt = a
        elif isinstance(a, (str, device, int)) and not isinstance(a, bool):
            dev = as_device(a)
        elif isinstance(a, bool):  # non_blocking, then copy, given positionally
            flags += 1
            copy = copy or (flags == 2 and a)
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    return dev, dt, copy

