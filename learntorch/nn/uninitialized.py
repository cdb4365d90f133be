"""``nn.UninitializedParameter`` and ``nn.UninitializedBuffer``: the placeholders of lazy layers.

A lazy layer (``nn.LazyLinear``, ``nn.LazyBatchNorm2d`` ...) does not know the size of its
input until it sees one, so it cannot create its weights in ``__init__``.  It holds these
empty placeholders instead, and its first ``forward`` calls :meth:`materialize` with the
shape it has just learned: the placeholder *becomes* an ordinary ``Parameter`` (or buffer
tensor) in place -- the same object, so the module's tables still hold it -- and the layer
initialises it as its eager twin would.

Create the optimizer after that first call (a dry run on an example batch): before it,
``model.parameters()`` holds the empty placeholders.
"""
from __future__ import annotations

from typing import Any, Sequence

from .. import creation
from ..tensor import Tensor
from .parameter import Parameter

__all__ = ["UninitializedParameter", "UninitializedBuffer", "has_uninitialized_params", "materialize_from_checkpoint"]


def _materialize(t: Tensor, shape: Sequence[int], device: Any, dtype: Any) -> None:
    """Give the placeholder ``t`` fresh (uninitialised) memory of ``shape`` and turn it into its
    ``cls_to_become``, keeping its ``requires_grad`` and, unless given, its device and dtype."""
    fresh = creation.empty(tuple(shape), device=t.device if device is None else device,
                           dtype=t.dtype if dtype is None else dtype)
    t._init(fresh._data, fresh._device, t.requires_grad)
    t.__class__ = type(t).cls_to_become


def _used_before_forward(what: str, kind: str = "UninitializedBuffer") -> ValueError:
    """PyTorch's error for a placeholder used as a tensor (copied, counted) before the first forward."""
    return ValueError(f"Attempted to use an uninitialized parameter in {what}. This error happens when you are "
                      f"using a `LazyModule` or explicitly manipulating `torch.nn.parameter.{kind}` "
                      "objects. When using LazyModules Call `forward` with a dummy batch to initialize the "
                      "parameters before calling torch functions")


class _Refusing:
    """What a placeholder refuses, as PyTorch's do: counting its elements (the usual
    ``sum(p.numel() for p in model.parameters())`` before the dry run), its rank, its memory."""

    def numel(self) -> int:
        raise _used_before_forward("<method 'numel' of 'torch._C.TensorBase' objects>", type(self).__name__)

    nelement = numel

    def dim(self) -> int:
        raise _used_before_forward("<method 'dim' of 'torch._C.TensorBase' objects>", type(self).__name__)

    def data_ptr(self) -> int:
        raise _used_before_forward("<method 'data_ptr' of 'torch._C.TensorBase' objects>", type(self).__name__)


class UninitializedParameter(_Refusing, Parameter):
    """A parameter whose shape is not known yet (a lazy layer's, before its first call)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> "UninitializedParameter":
        param = Parameter.__new__(cls, creation.empty(0, device=device, dtype=dtype), requires_grad)
        return param  # type: ignore[return-value]

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass

    def materialize(self, shape: Sequence[int], device: Any = None, dtype: Any = None) -> None:
        """Become a ``Parameter`` of ``shape`` (its values are not set: the layer initialises them)."""
        _materialize(self, shape, device, dtype)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> "UninitializedParameter":
        raise _used_before_forward("Tensor.__deepcopy__", "UninitializedParameter")

    def detach(self) -> "UninitializedParameter":
        """The placeholder itself (it holds no graph): ``state_dict()`` lists it, as PyTorch's lazy modules do."""
        return self


class UninitializedBuffer(_Refusing, Tensor):
    """A buffer whose shape is not known yet (a lazy BatchNorm's ``running_mean``, say)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                persistent: bool = True) -> "UninitializedBuffer":
        empty = creation.empty(0, device=device, dtype=dtype)
        buffer = object.__new__(cls)
        buffer._init(empty._data, empty._device, requires_grad)
        buffer.persistent, buffer._is_buffer = persistent, True  # (what nn.Buffer marks a tensor with)
        return buffer

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                 persistent: bool = True) -> None:
        pass  # everything happens in __new__ (Tensor.__init__ is the legacy constructor)

    def materialize(self, shape: Sequence[int], device: Any = None, dtype: Any = None) -> None:
        """Become a plain tensor of ``shape`` (its values are not set: the layer fills them)."""
        _materialize(self, shape, device, dtype)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Still a placeholder, on the new device or with the new dtype (``model.double()`` before
        the first call: the buffers are later made in float64)."""
        moved = Tensor.to(self, *args, **kwargs)
        if moved is self:
            return self
        return UninitializedBuffer(self.requires_grad, moved.device, moved.dtype, self.persistent)

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> "UninitializedBuffer":
        raise _used_before_forward("Tensor.__deepcopy__")

    def detach(self) -> "UninitializedBuffer":
        """The placeholder itself (it holds no graph): ``state_dict()`` lists it, as PyTorch's lazy modules do."""
        return self


def has_uninitialized_params(module: Any) -> bool:
    """Does ``module`` (itself, not its children) still hold a placeholder parameter or buffer?"""
    held = list(module._parameters.values()) + list(module._buffers.values())
    return any(isinstance(t, (UninitializedParameter, UninitializedBuffer)) for t in held)



def materialize_from_checkpoint(module: Any, local: dict, prefix: str) -> None:
    """``load_state_dict`` into a lazy layer before its first call: each placeholder takes the
    shape of its entry in the checkpoint, so that the values can be copied in (as PyTorch's
    lazy modules do).  The layer's own sizes (``num_features`` ...) stay as they were."""
    for name, t in [*module._parameters.items(), *module._buffers.items()]:
        value = local.get(prefix + name)
        if isinstance(t, (UninitializedParameter, UninitializedBuffer)) and isinstance(value, Tensor):
            t.materialize(tuple(value.shape))
