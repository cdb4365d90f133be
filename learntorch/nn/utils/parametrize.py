"""``nn.utils.parametrize``: let a module's weight be *computed* from other tensors.

A parametrization (参数化) is a small module ``P`` whose ``forward`` turns an
unconstrained tensor into the weight a layer uses.  After ::

    register_parametrization(layer, "weight", Symmetric())

``layer.weight`` is no longer a stored Parameter: every time it is read it is
computed as ``Symmetric()(layer.parametrizations.weight.original)``.  The
optimizer updates ``original``, which can take any value, and the layer always
sees a symmetric matrix.  This is how constraints are imposed on weights
without projecting after each step (weight norm, spectral norm, orthogonality).

How it is wired (the same way PyTorch does it, so that programs and checkpoints
carry over):

* the module gets a child ``parametrizations`` (a :class:`ModuleDict`) holding one
  :class:`ParametrizationList` per parametrized tensor; the list holds the
  parametrizations (applied in order) and the stored tensor, ``original`` (or
  ``original0``, ``original1``... when ``right_inverse`` returns several tensors).
  So ``state_dict`` keys are ``parametrizations.weight.original``;
* ``weight`` itself becomes a Python ``property``.  A property has to live on the
  *class*, and we must not change ``nn.Linear`` for every other Linear, so the
  module's class is swapped for a fresh subclass, ``ParametrizedLinear``, made
  for this one module.  Removing the last parametrization swaps it back.
* assigning ``layer.weight = X`` runs the parametrizations' ``right_inverse``
  backwards and stores the result in ``original``.

:func:`cached` lets a forward that reads the weight many times (an RNN loop)
compute it only once.
"""
from __future__ import annotations

import collections.abc
import copy
from contextlib import contextmanager
from typing import Iterator, Optional, Sequence, Union

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

# ---------------------------------------------------------------------------- the cache
# While at least one ``cached()`` block is open, each parametrized tensor is computed
# once and kept here under (id(module), tensor name); leaving the outermost block
# forgets everything (the originals may change after the block: an optimizer step).
_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached() -> Iterator[None]:
    """Compute each parametrized tensor at most once inside the block.

    Without it, ``layer.weight`` runs the parametrization on every read: an RNN
    cell called 50 times per sequence would recompute (and backpropagate
    through) its weight 50 times.  Blocks may be nested; the cache is emptied
    when the outermost one ends."""
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_tensor(module: Module, name: str, value: Tensor) -> None:
    """A Parameter stays a parameter, anything else is stored as a buffer."""
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_data(dest: Tensor, src: Tensor) -> None:
    """Make ``dest`` hold ``src``'s values *without* replacing the object (PyTorch's
    ``dest.set_(src)``): an optimizer built earlier keeps pointing at ``dest``.  It
    counts as an in-place change, so the version counter moves."""
    dest.data = src
    dest._bump_version()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, plus the stored tensor(s).

    It is what ``module.parametrizations[tensor_name]`` is; ``register_parametrization``
    builds it, a program does not.  Calling it (no arguments) computes the
    parametrized tensor: ``self[0](original)``, then ``self[1]`` on that, and so on.

    ``original`` is found by running the ``right_inverse`` of the parametrizations,
    last to first, on the tensor being parametrized (a parametrization without
    ``right_inverse`` counts as the identity).  If the first one's ``right_inverse``
    returns a sequence, its items are stored as ``original0``, ``original1``...
    and its ``forward`` takes them as separate arguments.
    """

    original: Tensor
    unsafe: bool

    def __init__(self, modules: Sequence[Module], original: Union[Tensor, Parameter], unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype

        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass  # "no right inverse": the stored value stays as it is
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")

        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                                 f"original.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            # keep the very object the module held (an optimizer may already have it)
            with no_grad():
                _set_data(original, new)
            _register_tensor(self, "original", original)
        else:
            for i, item in enumerate(new):
                if not isinstance(item, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                     f"(list, tuple...). Got element {i} of the sequence with type "
                                     f"{type(item).__name__}.")
                # each piece is learned exactly when the original was
                if isinstance(original, Parameter):
                    item = Parameter(item, original.requires_grad)
                item.requires_grad_(original.requires_grad)
                _register_tensor(self, f"original{i}", item)

        if not self.unsafe:  # the parametrized tensor must look like the one it replaces
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 "`unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 "`unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {z.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Store the tensor(s) whose parametrized value is ``value`` (what ``module.weight = value``
        runs): every parametrization's ``right_inverse``, last to first, then into ``original``."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement "
                                       "right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _set_data(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or reference-type "
                                     f"opaques. Got element {i} of type {type(tensor).__name__}.")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                                     f"`original{i}` has dtype {original_i.dtype}")
                _set_data(original_i, tensor)

    def forward(self) -> Tensor:
        """The parametrized tensor: the first parametrization on the stored tensor(s), each
        following one on the result of the one before."""
        first, *rest = list(self)
        if self.is_tensor:
            x = first(self.original)
        else:
            x = first(*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in rest:
            x = module(x)
        return x


# ---------------------------------------------------------------------------- class surgery
def _deepcopy_parametrized(self: Module, memo: dict) -> Module:
    """``copy.deepcopy`` of a parametrized module: a new object of the same (per-module)
    class with a deep copy of its attributes.  Needed because pickling, the route
    deepcopy takes by default, is refused for these modules (see ``_refuse_pickle``)."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _refuse_pickle(self: Module) -> dict:
    """The class ``ParametrizedLinear`` exists only in this process (it was made by
    ``type()`` at registration), so a pickle of the module could never be loaded."""
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _swap_in_parametrized_class(module: Module) -> None:
    """Give ``module`` a class of its own, ``Parametrized<Name>``, a subclass of its class:
    the properties for the parametrized tensors will be set on it, touching no other module."""
    cls = module.__class__
    namespace: dict = {"__getstate__": _refuse_pickle}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy_parametrized
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _add_parametrized_property(module: Module, tensor_name: str) -> None:
    """Make ``module.<tensor_name>`` a property: reading computes the parametrization (or takes
    it from the cache inside :func:`cached`), assigning runs ``right_inverse``."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


# ---------------------------------------------------------------------------- public API
def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` be computed as ``parametrization(original)``.

    The first call on a tensor moves it to ``module.parametrizations.<tensor_name>.original``
    (after ``parametrization.right_inverse`` when there is one) and turns the name into a
    property; later calls chain more parametrizations after the first.  With
    ``unsafe=False`` the result is checked to keep the tensor's shape and dtype.  The
    parametrization takes the module's training mode.  Returns ``module``.

    If ``right_inverse`` returns several tensors, new Parameters are created: an optimizer
    built before this call does not know them (add them with ``add_param_group``)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:  # the new link must fit where it goes in the chain
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 "the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.dtype: {y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
            if x.shape != y.shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 "the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.shape: {y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {x.shape}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(z, Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                                         f"{type(z).__name__}")
                    if z.dtype != y.dtype:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"dtype as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.dtype: {y.dtype}\n"
                                         f"returned dtype: {z.dtype}")
                    if z.shape != y.shape:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"shape as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.shape: {y.shape}\n"
                                         f"returned shape: {z.shape}")
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # built before anything on the module changes: if it raises, the module is untouched
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _swap_in_parametrized_class(module)
            module.parametrizations = ModuleDict()
        _add_parametrized_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: Optional[str] = None) -> bool:
    """Whether ``module`` has a parametrization on ``tensor_name`` (on anything, if None)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo :func:`register_parametrization` for ``tensor_name`` (all its chained parametrizations).

    ``leave_parametrized=True`` keeps the current *computed* value as a plain Parameter
    (or buffer); ``False`` brings back the stored ``original`` (possible only when it is one
    tensor).  When it was a single tensor, the same Parameter object comes back, so an
    optimizer holding it keeps working.  The last removal restores the module's class."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _set_data(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                         "in terms of a sequence of tensors.")

    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_tensor(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class as it was before any parametrization (``nn.Linear``, not
    ``ParametrizedLinear``): use it instead of ``type(module)`` in code that dispatches on
    layer types."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: Optional[str] = None) -> Module:
    """Register on ``to_module`` the parametrizations of ``from_module`` (all of them, or the
    one on ``tensor_name``) and make it *share* their stored originals.  A tensor that
    ``to_module`` lacks is first created from ``from_module``'s current value.  Does
    nothing if ``from_module`` is not parametrized.  Returns ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module

