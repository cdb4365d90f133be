"""``nn.Parameter``: a tensor that a Module registers as a learnable weight;
``nn.Buffer``: one that it registers as state that is not learned.

Assigning a Parameter to a Module attribute (``self.weight = Parameter(...)``)
is what makes it appear in ``module.parameters()`` — the list an optimizer
updates.  A Parameter is an ordinary leaf tensor that requires grad.

Assigning a Buffer (``self.running_mean = Buffer(torch.zeros(3))``) registers it in
``module.buffers()``, as ``self.register_buffer("running_mean", ...)`` does: it moves with
``.to()`` and is saved in ``state_dict`` (unless ``persistent=False``), but no optimizer sees it.
"""
from __future__ import annotations

from typing import Any, Optional

from .. import creation
from ..tensor import Tensor

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A leaf tensor marked as a module parameter (``requires_grad=True`` by default)."""

    def __new__(cls, data: Optional[Tensor] = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        if type(requires_grad) is not bool:  # (PyTorch's message names its C++ helper)
            raise TypeError(f"_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                            f"{type(requires_grad).__name__}")
        if requires_grad and not data.dtype.is_floating_point:  # (the words of PyTorch's _make_subclass)
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        param = object.__new__(cls)
        param._init(data._data, data._device)
        param._version_counter = data._version_counter  # shares storage with data, as in PyTorch
        if requires_grad:
            param.requires_grad_(True)
        return param

    def __init__(self, data: Optional[Tensor] = None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__ (Tensor.__init__ is the legacy constructor)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def _rewrap(self, plain: Tensor) -> "Parameter":
        return Parameter(plain, self.requires_grad)

    def __deepcopy__(self, memo: dict) -> "Parameter":
        """A copy of the values and ``requires_grad``, without ``.grad`` (as PyTorch copies a
        parameter: ``copy.deepcopy(model)`` starts with no gradients)."""
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(Tensor._make(self._backend.xp.asarray(self._data, copy=True), self._device),
                        self.requires_grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol: int) -> Any:
        return (Parameter, (Tensor.__reduce_ex__(self, protocol)[0](*Tensor.__reduce_ex__(self, protocol)[1]),
                            self.requires_grad))


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` asks the tensor's mark, not its class (see :class:`Buffer`)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """``nn.Buffer(data, persistent=True)``: ``data`` marked as a module buffer.

    As in PyTorch, what you get back is a plain ``Tensor`` (sharing ``data``'s memory, with its
    ``requires_grad``) that carries two attributes: ``persistent`` and the mark ``_is_buffer``,
    which makes ``isinstance(t, nn.Buffer)`` true.  Why not a subclass, like Parameter?  A
    buffer is just state: once registered it should behave exactly like any tensor (``type(t)
    is Tensor``); only the moment of assignment, ``Module.__setattr__``, needs to know."""

    def __new__(cls, data: Optional[Tensor] = None, *, persistent: bool = True) -> Tensor:  # type: ignore[misc]
        if data is None:
            data = creation.empty(0)
        buffer = data.detach().requires_grad_(data.requires_grad)
        buffer.persistent = persistent
        buffer._is_buffer = True
        return buffer


def register_affine(module: Any, shape: Any, affine: bool, bias: bool, device: Any = None, dtype: Any = None) -> None:
    """Give a normalisation layer its learned scale and shift, as PyTorch's layers do.

    With ``affine``: ``weight`` (and ``bias`` unless ``bias=False``) of ``shape``, left
    uninitialised for the layer's ``reset_parameters`` (ones and zeros); otherwise both are
    registered as ``None``, so that ``state_dict`` and ``repr`` show they are absent.
    BatchNorm, LayerNorm and GroupNorm share this."""
    if affine:
        module.weight = Parameter(creation.empty(shape, device=device, dtype=dtype))
        if bias:
            module.bias = Parameter(creation.empty(shape, device=device, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)
