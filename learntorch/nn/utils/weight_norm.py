"""Weight normalization (权重归一化, Salimans & Kingma 2016), the older hook-based form.

Weight norm writes each weight as a *length* times a *direction*::

    w = g * v / ||v||

``g`` (``weight_g``) holds one length per output unit and ``v`` (``weight_v``) the
direction.  Gradient descent on ``g`` and ``v`` separately is better conditioned than
on ``w``: the length no longer has to be learned through every entry of ``v``.

:func:`weight_norm` replaces ``module.weight`` by the two parameters ``weight_g`` and
``weight_v`` and registers a *forward pre hook* that recomputes ``module.weight``
(a plain attribute, not a parameter) before every call.  PyTorch marks this API
deprecated (a ``FutureWarning``) in favour of
:func:`learntorch.nn.utils.parametrizations.weight_norm`, which recomputes the weight on
every access instead and stores ``g, v`` as ``parametrizations.weight.original0/1``.

The two helpers :func:`norm_except_dim` and :func:`_weight_norm` are the arithmetic
both forms share (PyTorch's ``torch.norm_except_dim`` and ``torch._weight_norm``).
"""
from __future__ import annotations

from typing import Any, TypeVar

from ... import warn_always
from ... import dtypes
from ...autograd.function import Function
from ...tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


# ---------------------------------------------------------------------------- the arithmetic
def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dimension *except* ``dim``, shaped to broadcast
    against ``v`` (size 1 everywhere but ``dim``).  ``dim=-1`` means "no dimension is
    kept": the norm of the whole tensor, a 0-dim tensor (PyTorch's convention, which is why
    ``weight_norm(..., dim=None)`` turns None into -1)."""
    if dim == -1:
        return v.norm(pow)
    dim = dim % v.dim() if v.dim() else 0
    others = [d for d in range(v.dim()) if d != dim]
    if not others:  # a 1-D tensor: each "slice" is one number, whose norm is its size
        return v.abs()
    return v.norm(pow, dim=others, keepdim=True)


class _WeightNormInterface(Function):
    """``w = v * (g / ||v||)`` as one graph node, ``WeightNormInterfaceBackward0`` as in
    PyTorch, which fuses the computation when the kept dimension is the first or the last.

    The gradients, with ``n = ||v||`` over the reduced dimensions and
    ``s = sum(grad * v)`` over the same dimensions::

        dL/dg = s / n
        dL/dv = (g / n) * (grad - v * s / n**2)

    (the second term removes the part of ``grad`` along ``v``: changing ``v``'s length
    does not change ``w``).  They are written with tensor operations, so that they
    can be differentiated again (``create_graph=True``)."""

    _backward_name = "WeightNormInterfaceBackward0"

    @staticmethod
    def forward(ctx: Any, v: Tensor, g: Tensor, dim: int) -> Tensor:
        ctx.save_for_backward(v, g)
        ctx.dim = dim
        return v * (g / norm_except_dim(v, 2, dim))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        v, g = ctx.saved_tensors
        norm = norm_except_dim(v, 2, ctx.dim)  # recomputed from v: differentiable under create_graph
        others = [d for d in range(v.dim()) if d != ctx.dim]
        s = (grad * v).sum(dim=others, keepdim=True) if others else grad * v
        grad_v = (g / norm) * (grad - v * (s / (norm * norm))) if ctx.needs_input_grad[0] else None
        grad_g = s / norm if ctx.needs_input_grad[1] else None
        return grad_v, grad_g, None


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / norm_except_dim(v, 2, dim))``: the weight from direction ``v`` and length ``g``.

    As in PyTorch, keeping the first or the last dimension (and no float16) gives one
    fused node, ``WeightNormInterfaceBackward0``; other cases are plain ``Mul``/``Div``
    operations (``dim=-1``, the whole-tensor norm, ends in ``MulBackward0``)."""
    if v.device != g.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{v.device} and {g.device}!")
    half = dtypes.float16 in (v.dtype, g.dtype)
    if not half and dim in (0, v.dim() - 1):
        return _WeightNormInterface.apply(v, g, dim)
    return v * (g / norm_except_dim(v, 2, dim))


# ---------------------------------------------------------------------------- the hook
class WeightNorm:
    """The forward pre hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``.

    It is an object rather than a function so that :func:`remove_weight_norm` can find
    it among the module's hooks (and read which tensor it is for)."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> "WeightNorm":
        """Split ``module.<name>`` into ``<name>_g`` and ``<name>_v`` and register the hook."""
        warn_always.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                         "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in (module._forward_pre_hooks or {}).values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        # g starts as the current lengths and v as the weight itself, so w is unchanged
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))  # usable before the first call
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Put back one Parameter ``<name>`` holding the current weight."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


T_module = TypeVar("T_module", bound=Module)


def weight_norm(module: T_module, name: str = "weight", dim: int = 0) -> T_module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (deprecated: FutureWarning).

    ``dim`` is the dimension that keeps one length per slice (0: one per output unit
    of a Linear or Conv); ``dim=None`` uses one length for the whole tensor.  Adds the
    parameters ``<name>_g`` and ``<name>_v``; ``<name>`` is recomputed before each forward.
    Returns ``module``."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo :func:`weight_norm`: ``<name>`` is a Parameter again (with the current value)."""
    hooks = module._forward_pre_hooks or {}
    for key, hook in hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
