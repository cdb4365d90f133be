"""``nn.Module``: the base class of every layer and model.

A Module keeps three ordered tables, filled by plain attribute assignment in
``__init__`` (``__setattr__`` below does the sorting):

* ``_parameters`` — :class:`Parameter` objects: what ``parameters()`` yields
  and an optimizer updates;
* ``_buffers`` — tensors that are state but not learned (BatchNorm's running
  mean), saved in ``state_dict`` unless registered ``persistent=False``;
* ``_modules`` — sub-modules, whose parameters are reached recursively with
  dotted names (``"encoder.gru.weight_ih_l0"``).

A module may also carry state that is not a tensor (a vocabulary, a config):
overriding ``get_extra_state`` / ``set_extra_state`` puts it in ``state_dict``
under ``<prefix>_extra_state``.

Calling a module (``model(x)``) runs ``__call__``: forward pre hooks, then
``forward``, then forward hooks, with backward hooks wired around the call.

*Global* hooks (``register_module_forward_hook`` & co. below) run for every
module of every model, before each module's own hooks: handy to trace or time
a whole network without touching its code.
"""
from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any, Callable, Iterator, Optional

from ... import warn_always
from ...autograd.node import RemovableHandle, _HookDict, add_hook
from ...compile import compile as compile_model
from ...creation import empty_like
from ...device import as_device
from ...tensor import Tensor, _parse_to
from ..backward_hooks import BackwardHook
from ..parameter import Buffer, Parameter
from ... import dtypes
from ...autograd.grad_mode import no_grad

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook"]

# ---------------------------------------------------------------------------- global hooks (钩子)
# Hooks for *every* module, stored once here; ``Module.__call__`` runs them before the
# module's own hooks of the same kind, as PyTorch does.
_global_forward_pre_hooks: _HookDict = _HookDict()
_global_forward_hooks: _HookDict = _HookDict()
_global_forward_hooks_with_kwargs: set = set()
_global_forward_hooks_always_called: set = set()
_global_backward_pre_hooks: _HookDict = _HookDict()
_global_backward_hooks: _HookDict = _HookDict()
_global_is_full_backward_hook: Optional[bool] = None  # None until the first global backward hook


def _add_global(hooks: _HookDict, hook: Callable) -> RemovableHandle:
    return add_hook(hooks, hook)[1]


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, args)`` before the forward of every module (before its own pre hooks)."""
    return _add_global(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """``hook(module, args, output)`` after the forward of every module (before its own hooks)."""
    handle = _add_global(_global_forward_hooks, hook)
    if with_kwargs:
        _global_forward_hooks_with_kwargs.add(handle.id)
    if always_call:
        _global_forward_hooks_always_called.add(handle.id)
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_output)`` for every module, before its own backward pre hooks."""
    return _add_global(_global_backward_pre_hooks, hook)


def _set_global_full(full: bool) -> None:
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module "
                           "hook. Please use only one of them.")
    _global_is_full_backward_hook = full


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` for every module, before its own backward hooks."""
    _set_global_full(True)
    return _add_global(_global_backward_hooks, hook)


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    """Deprecated (sees only the last node of each forward): use
    :func:`register_module_full_backward_hook`."""
    _set_global_full(False)
    return _add_global(_global_backward_hooks, hook)


# ``hook(module, name, value)`` whenever any module registers a parameter / buffer / child
# module (by assignment too); a returned value is registered instead.  Libraries use them to
# see every layer as it is built (e.g. to put parameters on a device or wrap submodules).
_global_parameter_registration_hooks: _HookDict = _HookDict()
_global_buffer_registration_hooks: _HookDict = _HookDict()
_global_module_registration_hooks: _HookDict = _HookDict()


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, param)`` each time a module registers a parameter."""
    return _add_global(_global_parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, buffer)`` each time a module registers a buffer."""
    return _add_global(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, submodule)`` each time a module registers a child module."""
    return _add_global(_global_module_registration_hooks, hook)


def _after_registration_hooks(hooks: _HookDict, module: Any, name: str, value: Any) -> Any:
    """Run the global registration hooks of one kind; the last value returned wins."""
    for hook in list(hooks.values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def _has_global_hooks() -> bool:
    return bool(_global_forward_pre_hooks or _global_forward_hooks or _global_backward_pre_hooks
                or _global_backward_hooks)

_STATE_DICT_HOOK_TABLES = ("_state_dict_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
                           "_load_state_dict_post_hooks")


class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; prints ``<All keys matched successfully>`` when both are empty."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _typename(value: Any) -> str:
    """``torch.typename``: ``'torch.FloatTensor'`` for a tensor, ``'int'`` for a built-in
    value, the dotted path of the class otherwise (``'learntorch.nn.modules.activation.ReLU'``):
    error messages name what was passed precisely enough to find it."""
    if isinstance(value, Tensor):
        return value.type()
    cls = type(value)
    return cls.__qualname__ if cls.__module__ in ("", "builtins") else f"{cls.__module__}.{cls.__qualname__}"


def _addindent(text: str, spaces: int, keep_blank_lines: bool = False) -> str:
    """Indent every line but the first by ``spaces`` (a child's repr nested in its parent's).
    Lines that hold only spaces become empty, as in PyTorch's module repr (ModuleList's
    repr keeps them: ``keep_blank_lines=True``)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    rest = [" " * spaces + line if keep_blank_lines or line.strip() else "" for line in lines[1:]]
    return lines[0] + "\n" + "\n".join(rest)


_EXTRA_STATE_KEY = "_extra_state"  # state_dict key suffix of what get_extra_state() returns


class Module:
    """Base class for all neural-network modules.  Subclasses define ``forward``."""

    training: bool
    _version = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} "
                            "were given")
        sset = object.__setattr__
        sset(self, "training", True)
        # plain dicts (ordered since Python 3.7), as in PyTorch: ``print(model._modules)`` shows ``{...}``
        sset(self, "_parameters", {})
        sset(self, "_buffers", {})
        sset(self, "_non_persistent_buffers_set", set())
        sset(self, "_modules", {})
        # hook tables start empty (not None), as in PyTorch: ``print(model._forward_hooks)``, a
        # common way to check that a hook was registered or removed, shows ``OrderedDict()``
        sset(self, "_forward_pre_hooks", _HookDict())
        sset(self, "_forward_pre_hooks_with_kwargs", set())
        sset(self, "_forward_hooks", _HookDict())
        sset(self, "_forward_hooks_with_kwargs", set())
        sset(self, "_forward_hooks_always_called", set())
        sset(self, "_backward_pre_hooks", _HookDict())
        sset(self, "_backward_hooks", _HookDict())
        sset(self, "_non_full_backward_hooks", _HookDict())
        for table in _STATE_DICT_HOOK_TABLES:
            sset(self, table, _HookDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ------------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        """``self.fc = nn.Linear(...)`` files the value in the right table.

        A Parameter or a Module takes the name over from whatever held it before (a
        plain attribute, a buffer...).  A name that already holds a parameter (or a
        child module) accepts only another one, or ``None``: ``lin.weight = torch.ones(..)``
        is a TypeError, because a plain tensor there would silently stop being trained."""
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if self.__dict__.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._buffers,
                              self._non_persistent_buffers_set)
            if _global_module_registration_hooks:
                value = _after_registration_hooks(_global_module_registration_hooks, self, name, value)
            self._modules[name] = value
        elif self.__dict__.get("_modules") is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            if _global_module_registration_hooks:
                value = _after_registration_hooks(_global_module_registration_hooks, self, name, value)
            self._modules[name] = value
        elif isinstance(value, Buffer):  # self.running_mean = nn.Buffer(...): register_buffer by assignment
            self.register_buffer(name, value, value.persistent)
        elif self.__dict__.get("_buffers") is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if _global_buffer_registration_hooks:
                value = _after_registration_hooks(_global_buffer_registration_hooks, self, name, value)
            self._buffers[name] = value  # stays persistent or not, as it was registered
        else:
            object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name: str, *tables: Any) -> None:
        for table in tables:
            if name in table:
                if isinstance(table, set):
                    table.discard(name)
                else:
                    del table[name]

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: look in the three tables.
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            entries = d.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def _check_name(self, name: Any, kind: str) -> None:
        """The checks every registered name goes through, in PyTorch's order: a string,
        without dots (a dot separates the levels of ``state_dict`` keys), not empty, and
        not already the name of a different kind of attribute."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        table = {"parameter": "_parameters", "buffer": "_buffers"}[kind]
        if hasattr(self, name) and name not in self.__dict__[table]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        """Add a parameter (or ``None``, a declared but absent one, like ``bias=False``)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             "created explicitly. To express '{name}' as a function of another Tensor, compute "
                             "the value in the forward() method.")
        if _global_parameter_registration_hooks and param is not None:
            param = _after_registration_hooks(_global_parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool = True) -> None:
        """Add state that is not learned (saved in ``state_dict`` unless ``persistent=False``)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if _global_buffer_registration_hooks:
            tensor = _after_registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        """Add a child module by name (what attribute assignment does)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if "_modules" not in self.__dict__:  # (PyTorch: "object has no attribute '_modules'")
            raise AttributeError("cannot assign module before Module.__init__() call")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        if _global_module_registration_hooks:
            module = _after_registration_hooks(_global_module_registration_hooks, self, name, module)
        self._modules[name] = module

    def register_module(self, name: str, module: Optional["Module"]) -> None:
        """Another name for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """The module at the dotted path ``target`` (``"encoder.layers.0"``; ``""`` is self)."""
        mod = self
        for item in target.split(".") if target else []:
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Put ``module`` at the dotted path ``target``: replace a layer deep inside a model
        (``model.set_submodule("features.3", nn.Identity())``) without walking down to its
        parent yourself.  The parent must exist; the last name may be new unless ``strict``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")  # would overwrite a parameter, a method...
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (``"encoder.0.weight"``)."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if not isinstance(getattr(mod, name), Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return getattr(mod, name)

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target`` (``"bn.running_mean"``)."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    def get_extra_state(self) -> Any:
        """Override it (with :meth:`set_extra_state`) to save non-tensor state with the weights:
        ``state_dict`` then holds its result under ``<prefix>_extra_state``.  This default
        is never called: a module that does not override it has no extra state."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called: "
                           "override get_extra_state in your module to save extra state.")

    def set_extra_state(self, state: Any) -> None:
        """Override it to take back what your :meth:`get_extra_state` returned, when
        ``load_state_dict`` finds it under ``<prefix>_extra_state``."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called: "
                           "override set_extra_state in your module to load extra state.")

    def _has_own(self, method: str) -> bool:
        """Whether this module's class overrides ``method`` of Module (extra state is saved
        and loaded only for modules that define it)."""
        return getattr(type(self), method, None) is not getattr(Module, method)

    # ------------------------------------------------------------------ iteration
    def named_modules(self, memo: Optional[set] = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        """This module and all below it, depth first, with dotted names (``""`` for self)."""
        if memo is None:
            memo = set()
        if remove_duplicate and self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator["Module"]:
        """This module and all below it, depth first (a shared one once, unless
        ``remove_duplicate=False``)."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, table: str, prefix: str, recurse: bool,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or (remove_duplicate and id(value) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; a shared parameter appears once."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    # ------------------------------------------------------------------ modes and moves
    def train(self, mode: bool = True) -> "Module":
        """Training mode (Dropout drops, BatchNorm uses batch statistics); returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        """Evaluation mode: ``train(False)``.  It does not turn off gradients: use ``no_grad`` too."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Freeze (``False``) or unfreeze every parameter, e.g. a pretrained backbone; returns self."""
        for p in self.parameters():
            if not isinstance(requires_grad, bool):  # checked per tensor in PyTorch: only when there is one
                raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                                f"{type(requires_grad).__name__}")
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget accumulated gradients (``.grad = None``, or zero them in place)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:  # zeroed in place: the grad tensor itself stays, cut from any graph
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Call ``fn`` on every submodule (children first), then on self — e.g. custom init."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> "Module":
        """Replace every parameter's and buffer's data by ``fn(data)`` (children first, then
        this module's own), keeping the Parameter objects: an optimizer built before
        ``.to()`` still holds the right ones.  What ``to``, ``double``, ``to_empty``... share."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for name, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                new = fn(param.detach())
            if new is not param:
                if param.requires_grad and not (new.dtype.is_floating_point or new.dtype.is_complex):
                    # an integer tensor cannot have gradients: the parameter would stop learning
                    raise RuntimeError("data set to a tensor that requires gradients must be floating point or "
                                       "complex dtype")
                param._data, param._device, param._dtype = new._data, new._device, new._dtype
            if param._grad is not None:  # the same .grad object, with the new data (as PyTorch)
                with no_grad():
                    g = fn(param._grad)
                param._grad._data, param._grad._device, param._grad._dtype = g._data, g._device, g._dtype
        for name, buf in self._buffers.items():
            if buf is not None:
                self._buffers[name] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """Move parameters and buffers to a device and/or floating dtype (in place; returns self).
        Integer tensors (BatchNorm's ``num_batches_tracked``) keep their dtype."""
        probe = Tensor._zeros((), dtypes.get_default_dtype(), as_device("cpu"))
        dev, dt, _ = _parse_to(probe, args, dict(kwargs))
        dt_given = any(isinstance(a, (dtypes.dtype, Tensor)) for a in args) or kwargs.get("dtype") is not None
        if dt_given and not (dt.is_floating_point or dt.is_complex):  # an integer model would break every layer
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dt}")
        if dt_given and dt.is_complex:
            warn_always.warn("Complex modules are a new feature under active development whose design may change, "
                             "and some modules might not work as expected when using complex tensors as parameters "
                             "or buffers.", stacklevel=2)
        dev_given = dev != probe.device or any(isinstance(a, (str, int, Tensor)) or type(a).__name__ == "device"
                                               for a in args) or kwargs.get("device") is not None

        # memory_format=torch.channels_last: the 4-D and 5-D tensors (convolution weights), as in PyTorch
        layout = {"memory_format": kwargs["memory_format"]} if kwargs.get("memory_format") is not None else {}

        def convert(t: Tensor) -> Tensor:
            keeps_dtype = not dt_given or not (t.dtype.is_floating_point or t.dtype.is_complex)
            return t.to(dev if dev_given else t.device, t.dtype if keeps_dtype else dt,
                        **(layout if t.dim() in (4, 5) else {}))
        return self._apply(convert)

    def to_empty(self, *, device: Any, recurse: bool = True) -> "Module":
        """Give every parameter and buffer new, *uninitialised* storage on ``device`` (same
        shapes and dtypes; the values are whatever is there, so re-initialise afterwards,
        e.g. with ``reset_parameters``).  ``to()`` would copy the values instead."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cpu(self) -> "Module":
        return self.to("cpu")

    def cuda(self, device: Any = None) -> "Module":
        return self.to("cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))

    def type(self, dst_type: Any) -> "Module":
        """Cast *every* parameter and buffer (integer ones too) with ``Tensor.type(dst_type)``:
        a dtype or a legacy name like ``"torch.DoubleTensor"``; returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def _cast_floating(self, dtype: dtypes.dtype) -> "Module":
        return self._apply(lambda t: t.to(dtype) if t.dtype.is_floating_point else t)

    def float(self) -> "Module":
        """Floating-point parameters and buffers to float32 (integer ones unchanged); returns self."""
        return self._cast_floating(dtypes.float32)

    def double(self) -> "Module":
        """Floating-point parameters and buffers to float64 (integer ones unchanged); returns self."""
        return self._cast_floating(dtypes.float64)

    def half(self) -> "Module":
        """Floating-point parameters and buffers to float16 (integer ones unchanged); returns self."""
        return self._cast_floating(dtypes.float16)

    def bfloat16(self) -> "Module":
        """Floating-point parameters and buffers to bfloat16 (integer ones unchanged); returns self."""
        return self._cast_floating(dtypes.bfloat16)

    def share_memory(self) -> "Module":
        """For ``torch.multiprocessing``: PyTorch moves every tensor into shared memory so that
        worker processes update the same weights.  learntorch's tensors are NumPy arrays of
        this process, so there is nothing to move; the module is returned unchanged."""
        self._apply(lambda t: t.share_memory_() if hasattr(t, "share_memory_") else t)
        return self

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """``model.compile()``: PyTorch compiles the module's call in place.  learntorch
        compiles nothing (see ``learntorch.compile``); the arguments are still checked."""
        compile_model(self, *args, **kwargs)

    # ------------------------------------------------------------------ state dict
    def state_dict(self, *args: Any, destination: Optional[dict] = None, prefix: str = "",
                   keep_vars: bool = False) -> "OrderedDict[str, Any]":
        """Every parameter and persistent buffer by dotted name (detached, sharing storage),
        plus ``<prefix>_extra_state`` for modules that define :meth:`get_extra_state`.

        The returned OrderedDict carries ``_metadata``: each module's ``{"version": ...}``
        by prefix, so that ``load_state_dict`` can tell checkpoints of older layouts apart."""
        if args:
            warn_always.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                             "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict "
                             "for details.", FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": getattr(self, "_version", 1)}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list((self.__dict__.get("_state_dict_pre_hooks") or {}).values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        returning = self.__dict__.get("_state_dict_hooks_returning", ())
        for hook_id, hook in list((self.__dict__.get("_state_dict_hooks") or {}).items()):
            result = hook(self, destination, prefix, local_metadata)
            if hook_id in returning:  # the older private API: a returned dict replaces the result
                if result is not None:
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """This module's own entries (not its children's) into ``destination``: PyTorch's step
        that a module overrides to save something else (or in another form) than its tensors."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if self._has_own("get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY] = self.get_extra_state()

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` before this module's entries are collected."""
        return self._add("_state_dict_pre_hooks", hook, False)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after this module's entries (and its
        children's) are in ``state_dict``; it may change the dictionary in place."""
        return self._add("_state_dict_hooks", hook, False)

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """The private (pre-2.0) form of :meth:`register_state_dict_post_hook`, still used by many
        programs: same call, but the hook may also *return* a new dictionary, which then
        replaces the result (respected only for the module ``state_dict`` was called on, as in
        PyTorch, because a parent ignores what its children's ``state_dict`` returns)."""
        handle = self._add("_state_dict_hooks", hook, False)
        returning = self.__dict__.get("_state_dict_hooks_returning")
        if returning is None:
            returning = set()
            object.__setattr__(self, "_state_dict_hooks_returning", returning)
        returning.add(handle.id)
        return handle

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        """The private (pre-2.0) form of :meth:`register_load_state_dict_pre_hook`: the hook is
        called *without* the module (``hook(state_dict, prefix, local_metadata, strict,
        missing_keys, unexpected_keys, error_msgs)``) unless ``with_module=True``."""
        if with_module:
            return self.register_load_state_dict_pre_hook(hook)
        return self.register_load_state_dict_pre_hook(lambda module, *args: hook(*args))

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` before this module takes its entries: it may rename or convert them."""
        return self._add("_load_state_dict_pre_hooks", hook, False)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` after this module and its children are loaded; it may
        change ``missing_keys`` / ``unexpected_keys`` in place before ``strict`` judges them."""
        return self._add("_load_state_dict_post_hooks", hook, False)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy values from ``state_dict`` into this module's parameters and buffers (in place:
        the Parameter objects stay the same, so an optimizer built earlier still holds them).
        With ``assign=True`` the module takes the checkpoint's tensors themselves instead
        (wrapped as Parameters that keep the model's ``requires_grad``).

        As in PyTorch, each module takes the keys under its prefix; every entry
        that fits is copied, and all problems are reported together afterwards:
        shape mismatches always, missing and unexpected keys when ``strict``
        (the default).  The result lists the missing and unexpected keys."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list = []
        unexpected: list = []
        errors: list = []
        metadata = getattr(state_dict, "_metadata", None)

        def load(module: "Module", local: dict, prefix: str) -> None:
            local_metadata = dict(metadata.get(prefix[:-1], {})) if metadata is not None else {}
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            # strict=True, as PyTorch passes: keys are always collected, ``strict`` only decides at the
            # end whether they are an error
            module._load_from_state_dict(local, prefix, local_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)}, child_prefix)
            for hook in list((module.__dict__.get("_load_state_dict_post_hooks") or {}).values()):
                if hook(module, _IncompatibleKeys(missing, unexpected)) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be "
                                         "modified, it should be done inplace.")

        load(self, dict(state_dict), "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        """This module's own part of ``load_state_dict`` (its children come after), with PyTorch's
        signature: a module overrides it to rename or convert the entries of an older checkpoint
        (``local_metadata["version"]`` is the saved module's ``_version``) and then calls
        ``super()._load_from_state_dict(...)``.  Runs the load pre-hooks, completes what an older
        checkpoint lacks, copies the entries; problems go to the three lists."""
        for hook in list((self.__dict__.get("_load_state_dict_pre_hooks") or {}).values()):
            hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        self._complete_old_checkpoint(state_dict, prefix)
        self._load_own_entries(state_dict, prefix, bool(local_metadata.get("assign_to_params_buffers", False)),
                               missing_keys, unexpected_keys, error_msgs)

    def _load_own_entries(self, local: dict, prefix: str, assign: bool, missing: list, unexpected: list,
                          errors: list) -> None:
        """This module's part of ``load_state_dict``: its parameters, persistent buffers and
        extra state from ``local`` (the entries under ``prefix``); problems go to the lists."""
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        own = {k: v for k, v in [*self._parameters.items(), *persistent.items()] if v is not None}
        for name, target in own.items():
            key = prefix + name
            if key not in local:
                missing.append(key)
                continue
            value = local[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                              f"Tensor-like object from checkpoint but received {type(value)}")
                continue
            if target.dim() == 0 and tuple(value.shape) == (1,):  # a scalar saved as shape [1] still fits
                value = value[0]
            if tuple(value.shape) != tuple(target.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                              f"checkpoint, the shape in current model is {target.shape}.")
            elif assign:  # take the checkpoint's tensor itself instead of copying into ours
                if isinstance(target, Parameter):
                    value = value.requires_grad_(target.requires_grad) if isinstance(value, Parameter) \
                        else Parameter(value, target.requires_grad)
                setattr(self, name, value)
            else:
                try:
                    with no_grad():
                        target.copy_(value)
                except Exception as e:  # noqa: BLE001 - reported with the other problems
                    errors.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{target.size()} and whose dimensions in the checkpoint are {value.size()}, "
                                  f"an exception occurred : {e.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY
        if self._has_own("set_extra_state"):
            if extra_key in local:
                self.set_extra_state(local[extra_key])
            else:
                missing.append(extra_key)
        elif extra_key in local:
            unexpected.append(extra_key)
        for key in local:  # keys under this prefix that name neither an entry nor a child
            if key == extra_key:
                continue
            first, *rest = key[len(prefix):].split(".", 1)
            if (rest and first not in self._modules) or (not rest and first not in own):
                unexpected.append(key)

    def _complete_old_checkpoint(self, local: dict, prefix: str) -> None:
        """Fill in entries that checkpoints from older versions of this module lack (none here).

        ``load_state_dict`` calls it on each module before looking for missing keys;
        BatchNorm overrides it (its ``num_batches_tracked`` came later)."""

    # ------------------------------------------------------------------ hooks
    def _add(self, table: str, hook: Callable, prepend: bool) -> RemovableHandle:
        hooks, handle = add_hook(self.__dict__.get(table), hook)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        object.__setattr__(self, table, hooks)
        return handle

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` before forward (``hook(module, args, kwargs)`` with
        ``with_kwargs=True``); a returned value replaces the inputs."""
        handle = self._add("_forward_pre_hooks", hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` after forward (``hook(module, args, kwargs, output)``
        with ``with_kwargs=True``); a returned value replaces the output."""
        handle = self._add("_forward_hooks", hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` when the gradients of the outputs are known; may replace them."""
        return self._add("_backward_pre_hooks", hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` once the gradients of the inputs are known;
        a returned tuple replaces ``grad_input``."""
        if self._non_full_backward_hooks:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                               "Module. Please use only one of them.")
        return self._add("_backward_hooks", hook, prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated: sees only the last operation of forward, so ``grad_input`` may be
        the wrong thing.  Use :meth:`register_full_backward_hook`.  As in PyTorch, the
        FutureWarning comes when the module is called and forward has several nodes."""
        if self._backward_hooks:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                               "Module. Please use only one of them.")
        return self._add("_non_full_backward_hooks", hook, False)

    # ------------------------------------------------------------------ calling
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or self._non_full_backward_hooks or _has_global_hooks()):
            return self.forward(*args, **kwargs)
        if not (self._forward_hooks_always_called or _global_forward_hooks_always_called):
            return self._call_with_hooks(args, kwargs)
        called: set = set()
        try:
            return self._call_with_hooks(args, kwargs, called)
        except Exception:
            self._run_always_called_hooks(args, kwargs, called)
            raise

    def _run_always_called_hooks(self, args: tuple, kwargs: dict, called: set) -> None:
        """``register_forward_hook(..., always_call=True)``: when forward raised, such hooks still
        run (with output None) before the error goes on; an error of theirs is only a warning."""
        result = None
        for hook_id, hook in [*_global_forward_hooks.items(), *(self._forward_hooks or {}).items()]:
            always = hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called
            if not always or hook_id in called:
                continue
            try:
                with_kwargs = hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs
                out = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
                result = result if out is None else out
            except Exception as e:  # noqa: BLE001 - the forward error is the one to raise
                warn_always.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                 f"silenced as another error was raised in forward: {e}")

    def _call_with_hooks(self, args: tuple, kwargs: dict, called: Optional[set] = None) -> Any:
        """The hook protocol, in PyTorch's order: global hooks first, then the module's own."""
        # which backward hooks this call wires is decided before any pre hook runs
        full = _global_is_full_backward_hook is True
        backward_hooks = [*(_global_backward_hooks.values() if full else ()),
                          *(self._backward_hooks or {}).values()]
        backward_pre_hooks = [*_global_backward_pre_hooks.values(), *(self._backward_pre_hooks or {}).values()]
        non_full_hooks = [*(_global_backward_hooks.values() if _global_is_full_backward_hook is False else ()),
                          *(self._non_full_backward_hooks or {}).values()]
        for hook_id, hook in [*_global_forward_pre_hooks.items(), *(self._forward_pre_hooks or {}).items()]:
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        bw_hook = None
        if backward_hooks or backward_pre_hooks:
            bw_hook = BackwardHook(self, backward_hooks, backward_pre_hooks)
            args = bw_hook.setup_input_hook(args)
        output = self.forward(*args, **kwargs)
        for hook_id, hook in [*_global_forward_hooks.items(), *(self._forward_hooks or {}).items()]:
            if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if called is not None:
                called.add(hook_id)
            if result is not None:
                output = result
        if bw_hook is not None:
            if not isinstance(output, (Tensor, tuple)):
                warn_always.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                                 f"Tensors but received {type(output)}")
            else:
                output = bw_hook.setup_output_hook(output)
        if non_full_hooks:
            var = output
            while not isinstance(var, Tensor):
                var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
            if var.grad_fn is not None:
                for hook in non_full_hooks:
                    var.grad_fn.register_hook(lambda gi, go, hook=hook: hook(self, gi, go))
                self._maybe_warn_non_full_backward_hook(args, output, var.grad_fn)
        return output

    @staticmethod
    def _maybe_warn_non_full_backward_hook(inputs: tuple, result: Any, grad_fn: Any) -> None:
        """PyTorch's FutureWarning when a non-full hook cannot see the module's real gradients."""
        tail = " is deprecated and will be removed in future versions. This hook will be missing some"
        use_full = " Please use register_full_backward_hook to get the documented behavior."
        results = (result,) if isinstance(result, Tensor) else result
        if not (isinstance(results, tuple) and all(isinstance(r, Tensor) for r in results)):
            message = ("Using non-full backward hooks on a Module that does not return a single Tensor or a "
                       "tuple of Tensors" + tail + " of the grad_output." + use_full)
        elif not all(isinstance(i, Tensor) for i in inputs):
            message = ("Using non-full backward hooks on a Module that does not take as input a single Tensor "
                       "or a tuple of Tensors" + tail + " of the grad_input." + use_full)
        else:
            out_fns = {r.grad_fn for r in results if r.grad_fn is not None}
            if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
                message = "Using a non-full backward hook when outputs are nested in python data structure" \
                          + tail + " grad_output."
            elif len(out_fns) > 1:
                message = ("Using a non-full backward hook when outputs are generated by different autograd "
                           "Nodes" + tail + " grad_output." + use_full)
            elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {n for n, _ in grad_fn.next_functions}:
                message = ("Using a non-full backward hook when the forward contains multiple autograd Nodes"
                           + tail + " grad_input." + use_full)
            else:
                return
        warn_always.warn(message, FutureWarning, stacklevel=4)  # points at the line that called the module

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr (layers override it)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({name}): {_addindent(repr(module), 2)}" for name, module in self._modules.items()]
        lines += children
        text = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not children:
                text += lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def __dir__(self) -> list:
        """What ``dir(model)`` and tab completion list: the class's attributes, the instance's,
        and the parameters, children and buffers that live in the tables (names starting
        with a digit, the children of a Sequential, are left out)."""
        keys = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers]
        return sorted(k for k in keys if not k[0].isdigit())

    def __getstate__(self) -> dict:
        return self.__dict__.copy()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
