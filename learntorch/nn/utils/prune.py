"""``nn.utils.prune``: zero out part of a weight with a mask (剪枝).

Pruning removes the weights that matter least (the smallest ones, or whole rows
or channels) to get a smaller or sparser network.  It is done with a *mask*, so
that the pruned entries stay zero during further training:

* the parameter ``weight`` is renamed ``weight_orig`` (still learned, still in
  ``named_parameters``);
* a buffer ``weight_mask`` of 0s and 1s is added (so it is saved in ``state_dict``);
* ``module.weight`` becomes a plain attribute ``weight_orig * weight_mask``,
  recomputed by a forward pre hook before every call: the gradient of a masked
  entry is zero, so it never comes back.

Pruning the same tensor again combines the masks (a :class:`PruningContainer`): the
new method only sees the entries (or channels) still alive.  :func:`remove` makes
the pruning permanent: ``weight`` is a Parameter again, holding the masked values,
and the mask and the hook are gone.

Which entries each method removes is the same as in PyTorch, including the random
ones (``torch.rand`` draws in the same order), so a seeded program prunes the same
weights.  The functions: :func:`identity`, :func:`random_unstructured`,
:func:`l1_unstructured`, :func:`random_structured`, :func:`ln_structured`,
:func:`global_unstructured`, :func:`custom_from_mask`, :func:`remove`,
:func:`is_pruned`.

``amount`` is everywhere either a fraction in [0, 1] (rounded to a count) or a
number of entries (an int).
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, Optional

from ...creation import ones_like, rand, rand_like, zeros_like
from ...ops.sorting import topk
from ...ops.statistics import kthvalue
from ...tensor import Tensor
from ..modules.module import Module
from .clip_grad import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


def _pre_hooks(module: Module) -> dict:
    """The module's forward pre hooks (learntorch creates the table on the first hook)."""
    return module._forward_pre_hooks or {}


class BasePruningMethod(ABC):
    """A way of choosing a mask.  Subclasses write :meth:`compute_mask`; ``PRUNING_TYPE`` says
    how a later method combines with earlier ones: ``"unstructured"`` (entries),
    ``"structured"`` (slices along ``self.dim``) or ``"global"`` (the whole tensor).

    An instance is also the forward pre hook that recomputes ``module.<name>``."""

    _tensor_name: str
    PRUNING_TYPE: str

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask for ``t``, starting from ``default_mask`` (entries already pruned)."""

    def apply_mask(self, module: Module) -> Tensor:
        """``<name>_orig * <name>_mask``: the pruned tensor, part of the autograd graph."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Optional[Tensor] = None,
              **kwargs: Any) -> "BasePruningMethod":
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``, combining it with an
        earlier pruning of the same tensor if there is one.  ``importance_scores`` (same
        shape as the tensor) rank the entries instead of the tensor's own values."""
        method = _combined_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of "
                                     f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        first_time = not isinstance(method, PruningContainer)
        if first_time:  # move the parameter aside; nothing is pruned yet
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:  # leave the module as it was
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t: Tensor, default_mask: Optional[Tensor] = None,
              importance_scores: Optional[Tensor] = None) -> Tensor:
        """The pruned version of a tensor ``t`` (no module involved)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(f"importance_scores should have the same shape as tensor t, got "
                                     f"{importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: the ``<name>_orig`` Parameter object gets the masked
        values and takes back the name ``<name>`` (so an optimizer holding it still works)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _combined_method(cls: type, module: Module, name: str, *args: Any, **kwargs: Any) -> BasePruningMethod:
    """The new method alone, or, if ``name`` was pruned before, the earlier method(s) and the
    new one in a :class:`PruningContainer` (whose hook replaces the old hook)."""
    hooks = _pre_hooks(module)
    old_keys = [k for k, hook in hooks.items() if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(old_keys) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                             "Use a PruningContainer.")
    old_method = hooks[old_keys[0]] if old_keys else None
    for k in old_keys:
        del hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old_method is None:
        return method
    if isinstance(old_method, PruningContainer):
        old_method.add_pruning_method(method)
        return old_method
    container = PruningContainer(old_method)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """Several pruning methods applied one after the other to the same tensor.  Only the
    last one computes anything: the earlier ones' result is already in the mask it starts
    from; it is applied to the part of the tensor that is still alive."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """Run the newest method on what the current mask leaves alive, and write its answer
        into a copy of the mask:

        * unstructured: on the entries whose mask is 1 (as a 1-D tensor);
        * structured: on the slices along ``dim`` that still have a nonzero mask entry;
        * global: on the whole tensor."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            alive: Any = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                                     "`dim` defined.")
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            alive = tuple(keep_channel if d == dim else slice(None) for d in range(n_dims))
        elif method.PRUNING_TYPE == "global":
            alive = tuple(slice(None) for _ in range(t.dim()))
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial_mask = method.compute_mask(t[alive], default_mask=default_mask[alive])
        new_mask[alive] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: a mask of ones (useful to give a module the pruning layout)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> "Identity":  # type: ignore[override]
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Zero ``amount`` entries chosen at random: those with the largest ``rand_like`` draws."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        count = _count_to_prune(self.amount, t.nelement())
        return _zero_entries(default_mask, lambda: rand_like(t), count, largest=True)

    @classmethod
    def apply(cls, module: Module, name: str, amount: float) -> "RandomUnstructured":  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Zero the ``amount`` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        count = _count_to_prune(self.amount, t.nelement())
        return _zero_entries(default_mask, t.abs, count, largest=False)

    @classmethod
    def apply(cls, module: Module, name: str, amount: float,  # type: ignore[override]
              importance_scores: Optional[Tensor] = None) -> "L1Unstructured":
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Zero ``amount`` whole slices along ``dim``, chosen at random (one ``rand`` per slice;
    the slices whose draw is above the ``amount``-th smallest are kept)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: float, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        slices = t.shape[self.dim]
        count = _count_to_prune(self.amount, slices)
        if count == 0:
            return default_mask
        prob = rand(slices)
        threshold = kthvalue(prob, k=count).values
        mask = _mask_of_slices(t, self.dim, prob > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: float,  # type: ignore[override]
              dim: int = -1) -> "RandomStructured":
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Zero the ``amount`` slices along ``dim`` of smallest ``n``-norm (``n=2``: L2 norm of
    each row / filter; ``n=1``, ``float('inf')``, ``'fro'`` also work)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: float, n: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        slices = t.shape[self.dim]
        count = _count_to_prune(self.amount, slices)
        largest = topk(_slice_norms(t, self.n, self.dim), k=slices - count, largest=True)
        if count == 0:
            return default_mask
        mask = _mask_of_slices(t, self.dim, largest.indices)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: float, n: Any, dim: int,  # type: ignore[override]
              importance_scores: Optional[Tensor] = None) -> "LnStructured":
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune with a mask given by the caller (multiplied into the existing mask)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> "CustomFromMask":  # type: ignore[override]
        return super().apply(module, name, mask=mask)


# ---------------------------------------------------------------------------- the functions
def identity(module: Module, name: str) -> Module:
    """Give ``module.<name>`` the pruning layout (``_orig``, ``_mask`` of ones, hook) without
    pruning anything.  Returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: float) -> Module:
    """Prune ``amount`` entries of ``module.<name>`` chosen at random.  Returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: float, importance_scores: Optional[Tensor] = None) -> Module:
    """Prune the ``amount`` entries of smallest magnitude (of ``importance_scores`` if given)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: float, dim: int) -> Module:
    """Prune ``amount`` random slices along ``dim`` (whole output units for ``dim=0``)."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: float, n: Any, dim: int,
                  importance_scores: Optional[Tensor] = None) -> Module:
    """Prune the ``amount`` slices along ``dim`` with the smallest ``n``-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Iterable, pruning_method: type, importance_scores: Optional[dict] = None,
                        **kwargs: Any) -> None:
    """Prune across several tensors at once, ranking all their entries together: with
    ``L1Unstructured`` and ``amount=0.2``, the 20 % smallest weights *of the whole network*
    go, so a layer of small weights loses more than a layer of large ones.

    ``parameters`` is a sequence of ``(module, name)`` pairs; the combined mask is handed
    to each tensor with :func:`custom_from_mask`."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = parameters_to_vector([importance_scores.get((module, name), getattr(module, name))
                                   for module, name in parameters])
    default_mask = parameters_to_vector([getattr(module, name + "_mask", ones_like(getattr(module, name)))
                                         for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"  # one long vector, named only to satisfy the container's check
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num_param].view_as(param))
        pointer += num_param


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune ``module.<name>`` with the 0/1 tensor ``mask`` (same shape).  Returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent (see :meth:`BasePruningMethod.remove`)."""
    hooks = _pre_hooks(module)
    for key, hook in hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or any module inside it has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in _pre_hooks(sub).values())


# ---------------------------------------------------------------------------- helpers
def _mask_of_slices(t: Tensor, dim: int, keep: Tensor) -> Tensor:
    """Zeros shaped like ``t`` with ones on the slices ``keep`` (indices or a bool mask) along ``dim``."""
    mask = zeros_like(t)
    mask[tuple(keep if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask


def _zero_entries(default_mask: Tensor, scores: Any, count: int, largest: bool) -> Tensor:
    """``default_mask`` with 0 at the ``count`` entries of largest (or smallest) ``scores()``
    (computed only when something is pruned: the random draw must not happen for nothing)."""
    mask = default_mask.clone()
    if count != 0:
        chosen = topk(scores().view(-1), k=count, largest=largest)
        mask.view(-1)[chosen.indices] = 0
    return mask


def _check_amount(amount: Any) -> None:
    """An int (a count) must be >= 0; a float (a fraction) must lie in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount: Any, size: int) -> int:
    """How many of ``size`` entries (or slices) to prune: a count as given, which cannot exceed
    ``size``, or the fraction times the size, rounded half to even (Python's round)."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
        return amount
    return round(amount * size)


def _check_structured(t: Tensor, dim: int) -> None:
    """Structured pruning removes slices: ``t`` needs two dimensions at least, and ``dim`` must exist."""
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {shape} with {len(shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _slice_norms(t: Tensor, n: Any, dim: int) -> Tensor:
    """The ``n``-norm of each slice of ``t`` along ``dim`` (a vector of length ``t.shape[dim]``)."""
    dims = list(range(t.dim()))
    dims.remove(dims[dim])
    return t.norm(p=n, dim=dims)
