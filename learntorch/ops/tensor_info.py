"""Small Tensor properties and methods PyTorch programs use: ``x.H``, ``x.mH``, ``x.adjoint()``,
``x.nbytes``, ``x.itemsize``, ``x.output_nr``, ``x.is_complex()``, ``x.is_signed()``,
``x.is_nonzero()``, ``x.is_same_size(y)``, ``x.storage_offset()`` and the legacy ``x.new(...)``.

None of them computes anything new: each answers a question about the tensor (its size in
bytes, where a view starts in its base's memory) or is another name for a shape operation
(``mH`` is ``transpose(-2, -1)``: learntorch has no complex dtypes, so the conjugate is the
tensor itself).  :data:`METHODS` is this module's section of the Tensor method table.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import warn_always
from .. import cuda, dtypes
from ..device import device as torch_device
from ..size import Size
from ..tensor import Tensor, channels_last, contiguous_format
from ..tensor_arguments import require_tensor
from . import shape

__all__ = ["METHODS", "conj", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "real", "imag", "isreal"]


def _conj_0d(self: Tensor) -> Tensor:
    """What ``H``, ``mH`` and ``adjoint()`` give for a 0-d tensor: the tensor itself (its conjugate
    when complex), as in PyTorch."""
    return conj(self) if self.is_complex() else self


def _H(self: Tensor) -> Tensor:
    """The conjugate transpose of a matrix (for real tensors, the transpose)."""
    if self.ndim == 0:  # (PyTorch warns once per process: TORCH_WARN_ONCE)
        warn_always.warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning)
        return _conj_0d(self)
    if self.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.")
    return shape.transpose(self, 0, 1)


def _mH(self: Tensor) -> Tensor:
    """The conjugate transpose of the last two dimensions (a batch of matrices)."""
    if self.ndim == 0:  # PyTorch's deprecated identity (the conjugate), with a warning once per process
        warn_always.warn_once("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().", UserWarning)
        return _conj_0d(self)
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self.ndim}-D "
                           "tensor.")
    return shape.transpose(self, -2, -1)


def adjoint(self: Tensor) -> Tensor:
    """``x.mH`` as a method (the adjoint of a real matrix is its transpose)."""
    if self.ndim == 0:  # PyTorch's deprecated identity (the conjugate), with a warning once per process
        warn_always.warn_once("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", UserWarning)
        return _conj_0d(self)
    if self.ndim < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
                           f"{self.ndim}-D tensor.")
    return shape.transpose(self, -2, -1)


def is_complex(self: Tensor) -> bool:
    """False: learntorch has no complex dtypes."""
    return False


def is_signed(self: Tensor) -> bool:
    """Can the dtype hold negative numbers?  Not uint8, not bool."""
    return self._dtype not in (dtypes.uint8, dtypes.bool)


def is_nonzero(self: Tensor) -> bool:
    """The truth value of a one-element tensor; an error for any other size (PyTorch's words)."""
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def is_same_size(self: Tensor, other: Tensor) -> bool:
    return tuple(self.shape) == tuple(other.shape)


def storage_offset(self: Tensor) -> int:
    """Where this tensor starts in its storage, counted in elements: 0 unless it is a view
    that starts later (``x[1:]`` of a contiguous (n, m) tensor starts at m)."""
    base = self._base
    if base is None:
        return 0
    return (self.data_ptr() - base.data_ptr()) // self._dtype.itemsize


def new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The legacy constructor (before ``new_tensor``/``new_empty``): same dtype and device as
    ``self``.  ``x.new()`` is empty, ``x.new(2, 3)`` or ``x.new(torch.Size([2, 3]))`` has that
    shape (uninitialised in PyTorch, zeros here), ``x.new([1, 2])`` holds the data given.
    New code should say what it means with ``new_tensor``, ``new_zeros`` or ``new_empty``."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        return _new_from_tensor(self, args[0], kwargs)
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)) and not isinstance(args[0], Size):
        return self.new_tensor(args[0], **kwargs)
    if len(args) == 1 and isinstance(args[0], float):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    size = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
    return self.new_zeros(size if size else (0,), **kwargs)


# the C++ type names PyTorch's TensorOptions print
_OPTION_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                 "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
                 "complex128": "c10::complex<double>"}


def _options(t: Tensor) -> str:
    return (f"TensorOptions(dtype={_OPTION_NAMES.get(t.dtype.name, t.dtype.name)}, device={t.device}, "
            "layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _new_from_tensor(self: Tensor, other: Tensor, kwargs: dict) -> Tensor:
    """``x.new(other)``: ``other`` itself, seen through a new view (PyTorch's ``alias``, whose node is
    ``AliasBackward0``); it must already have ``x``'s dtype and device, nothing is converted."""
    if "device" in kwargs:
        raise RuntimeError("Legacy tensor new of the form tensor.new(tensor, device=device) is not supported.  Use "
                           "torch.as_tensor(...) instead.")
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got (Tensor, "
                        f"{', '.join(f'{k}={type(v).__name__}' for k, v in kwargs.items())}), but expected one of: "
                        "(Tensor other)")
    if other.dtype is not self.dtype or other.device != self.device:
        raise TypeError(f"expected {_options(self)} (got {_options(other)})")
    return other[...]


def _imag(self: Tensor) -> Tensor:
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _itself(self: Tensor) -> Tensor:
    """``conj()``, ``resolve_conj()``, ``resolve_neg()``, ``real``: learntorch has no complex
    dtypes and no lazy conjugate/negative bits, so each is the tensor itself (as in PyTorch for
    a real tensor)."""
    return self


def _no(self: Tensor) -> bool:
    return False


# the same answers as functions (``torch.conj(x)``, ``torch.real(x)`` …): for a real tensor,
# the tensor itself, or "no"; ``imag`` is PyTorch's error.  The argument is checked first:
# these would otherwise hand a list back as it came.
def _as_function(name: str, method: Any) -> Any:
    """``torch.<name>(input)``: the method's answer, once ``input`` is known to be a tensor."""
    def function(input: Tensor) -> Any:
        require_tensor(name, "input", input)
        return method(input)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    return function


conj, resolve_conj, resolve_neg, real = (_as_function(n, _itself) for n in ("conj", "resolve_conj", "resolve_neg",
                                                                             "real"))
is_conj, is_neg = _as_function("is_conj", _no), _as_function("is_neg", _no)
imag = _imag


def isreal(input: Tensor) -> Tensor:
    """Which elements have no imaginary part: every element of a real tensor (a bool tensor)."""
    xp = input._backend.xp
    return Tensor._make(xp.ones(tuple(input.shape), dtype=xp.bool, device=input._backend.native_device),
                        input._device)


def _pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """A copy in page-locked host memory, which a GPU can copy from asynchronously.  That needs a
    GPU: without one PyTorch refuses, and so does learntorch.  With one, the copy is a CPU tensor
    marked pinned (NumPy memory is ordinary memory: the mark is what :func:`_is_pinned` reports)."""
    _check_pin_device("pin_memory", device)
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if self._device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    if self.__dict__.get("_pinned"):
        return self
    out = self.clone()
    out._pinned = True
    return out


def _is_pinned(self: Tensor, device: Any = None) -> bool:
    _check_pin_device("is_pinned", device)
    return bool(self.__dict__.get("_pinned", False))


def _check_pin_device(name: str, device: Any) -> None:
    """``device`` of ``pin_memory``/``is_pinned`` (deprecated in PyTorch), refused as PyTorch refuses
    it: a device or a device's name is taken; an accelerator's index needs an accelerator; anything
    else (``x.pin_memory(2.5)``) is PyTorch's TypeError."""
    if device is None or isinstance(device, (str, torch_device)):
        return
    if type(device) is not int:
        raise TypeError(f"{name}(): argument 'device' (position 1) must be torch.device, not {type(device).__name__}")
    if device < 0:
        raise RuntimeError("Device index must not be negative")
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def _to_dense(self: Tensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    """Every learntorch tensor is already dense (strided): itself (or cast to ``dtype``)."""
    if dtype is not None and not isinstance(dtype, dtypes.dtype):  # (``to`` would take a device there)
        raise TypeError(f"to_dense(): argument 'dtype' (position 1) must be torch.dtype, not {type(dtype).__name__}")
    return self if dtype is None else self.to(dtype)


def _should_swap(t: Tensor, a: int, b: int) -> int:
    """Is dimension ``a`` laid out outside ``b`` (1), inside it (-1), or can't tell (0)?"""
    sa, sb = t.stride(a), t.stride(b)
    if sa == 0 or sb == 0:
        return 0
    if sa != sb:
        return -1 if sa < sb else 1
    return 1 if t.shape[a] > t.shape[b] else 0


def _dim_order(self: Tensor, *, ambiguity_check: Any = False) -> tuple:
    """The dimensions from outermost to innermost in memory (``(0, 2, 3, 1)`` for NHWC).  Dimensions
    whose order the strides do not decide keep their own order; ``ambiguity_check`` (True, or a list
    of memory formats) asks that exactly one memory format describe the tensor."""
    if ambiguity_check is not False:
        formats = [contiguous_format, channels_last] if ambiguity_check is True else list(ambiguity_check)
        matches = sum(1 for f in formats if (f is contiguous_format or self.ndim == 4)
                      and self.is_contiguous(memory_format=f))
        if matches != 1:
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                               "memory formats.")
    perm = list(reversed(range(self.ndim)))  # innermost first, sorted by insertion
    for i in range(1, self.ndim):
        j = i
        for k in reversed(range(i)):
            order = _should_swap(self, perm[k], perm[j])
            if order > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif order < 0:
                break
    return tuple(reversed(perm))


# The questions about storage kinds learntorch does not have (sparse, quantized, meta, nested,
# MKL-DNN, a lazy conjugate or negative): always "no", as for a dense CPU tensor (pinned: see _pin_memory).
_FLAGS: dict[str, Any] = dict(
    is_sparse=property(_no), is_sparse_csr=property(_no), is_quantized=property(_no), is_meta=property(_no),
    is_nested=property(_no), is_mkldnn=property(_no), is_conj=_no, is_neg=_no, is_pinned=_is_pinned,
    pin_memory=_pin_memory, to_dense=_to_dense, dim_order=_dim_order, isreal=isreal,
    conj=_itself, resolve_conj=_itself, resolve_neg=_itself, real=property(_itself), imag=property(_imag),
)


METHODS: dict[str, Any] = dict(**_FLAGS,
    H=property(_H), mH=property(_mH), adjoint=adjoint,
    nbytes=property(lambda self: self.numel() * self._dtype.itemsize),
    itemsize=property(lambda self: self._dtype.itemsize),
    output_nr=property(lambda self: self._output_nr),
    is_complex=is_complex, is_signed=is_signed, is_nonzero=is_nonzero, is_same_size=is_same_size,
    storage_offset=storage_offset, new=new,
)
