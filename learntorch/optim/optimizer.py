"""``Optimizer``: the base class every optimizer (SGD, Adam, ...) builds on.

An optimizer holds

* ``param_groups`` — a list of dicts.  Each dict has a ``"params"`` list and
  that group's options (``lr``, ``momentum`` ...); options not given for a
  group come from ``defaults``.  One model can train its parts with different
  learning rates this way;
* ``state`` — a ``defaultdict(dict)`` keyed by the parameter tensor itself,
  holding what the algorithm remembers between steps (momentum buffers,
  Adam's running averages, the step count).

``step()`` changes the parameters *in place* under ``no_grad``: the update
itself must not become part of any autograd graph.  ``zero_grad()`` clears
the ``.grad`` fields, since backward *accumulates* (梯度累加) into them.

``state_dict()`` replaces each parameter by its index (its position counted
across all groups) so the state can be saved and loaded into a fresh
optimizer built over a fresh model — exactly PyTorch's format.

Hooks (钩子), as on tensors and modules: ``register_step_pre_hook`` /
``register_step_post_hook`` run around every ``step()`` (and the global
``register_optimizer_step_pre_hook`` / ``..._post_hook`` around every optimizer's);
``register_state_dict_pre_hook`` / ``..._post_hook`` and
``register_load_state_dict_pre_hook`` / ``..._post_hook`` around saving and loading.
Each returns a handle whose ``remove()`` takes the hook out.
"""
from __future__ import annotations

import copy
import functools
from collections import defaultdict
from itertools import chain
from typing import Any, Callable, Iterable, Iterator, Optional

from .. import warn_always
from ..autograd import grad_mode
from ..autograd.node import RemovableHandle, _HookDict
from ..tensor import Tensor

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

# hooks run around the step of every optimizer (before, and after, each one's own)
_global_step_pre_hooks: _HookDict = _HookDict()
_global_step_post_hooks: _HookDict = _HookDict()
_HOOK_TABLES = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                "_optimizer_load_state_dict_post_hooks")


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` before the ``step()`` of every optimizer, before its own
    pre hooks (see :meth:`Optimizer.register_step_pre_hook`)."""
    return _add(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` after the ``step()`` of every optimizer, after its own post hooks."""
    return _add(_global_step_post_hooks, hook)


def _add(table: _HookDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
    handle = RemovableHandle(table)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


def _with_step_hooks(step: Callable) -> Callable:
    """``step`` run between the step hooks, as PyTorch wraps the ``step`` of each optimizer class.

    ``args`` is what ``step`` was called with, the optimizer first (``(opt,)`` for ``opt.step()``);
    a pre hook may return ``(new_args, new_kwargs)`` to call ``step`` with those instead."""
    @functools.wraps(step)
    def hooked_step(*args: Any, **kwargs: Any) -> Any:
        optimizer = args[0]
        if _global_step_pre_hooks or optimizer._optimizer_step_pre_hooks:  # (most steps have no hook: one test)
            for hook in chain(_global_step_pre_hooks.values(), optimizer._optimizer_step_pre_hooks.values()):
                result = hook(optimizer, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but "
                                           f"got {result}.")
                    args, kwargs = result
        out = step(*args, **kwargs)
        if optimizer._optimizer_step_post_hooks or _global_step_post_hooks:
            for hook in chain(optimizer._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()):
                hook(optimizer, args, kwargs)
        return out
    hooked_step.hooked = True  # type: ignore[attr-defined]
    return hooked_step


class _RequiredParameter:
    """Marks an option that has no default value and must be given."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of all optimizers: subclasses write ``step()``."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        for table in _HOOK_TABLES:
            setattr(self, table, _HookDict())
        cls = type(self)
        if not getattr(cls.step, "hooked", False):  # the step this class runs, wrapped once (as PyTorch does)
            cls.step = _with_step_hooks(cls.step)  # type: ignore[method-assign]
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + params.type())  # e.g. torch.FloatTensor, as PyTorch names it
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        if defaults.get("fused"):  # (after the groups, as PyTorch checks it)
            if defaults.get("differentiable"):
                raise RuntimeError("`fused` does not support `differentiable`")
            if defaults.get("foreach"):
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __getstate__(self) -> dict[str, Any]:
        """Pickled and deep-copied without its hooks (a hook is often a lambda or a closure)."""
        return {k: v for k, v in self.__dict__.items() if k not in _HOOK_TABLES}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for table in _HOOK_TABLES:
            self.__dict__.setdefault(table, _HookDict())

    def __repr__(self) -> str:
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")  # PyTorch separates groups with a blank line
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group: its own ``params`` and options; missing options come from ``defaults``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        _split_names(param_group)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(param).__name__)
            if not (param.is_leaf or param.retains_grad or self.defaults.get("differentiable")):
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in param_group["params"]}) != len(param_group["params"]):
            warn_always.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                             "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                             UserWarning, stacklevel=3)
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter "
                                 f"{name}")
            param_group.setdefault(name, default)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):  # names for all groups, or none
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. cannot add param "
                                 f"group {which} to the optimizer")
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ gradients
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad``: drop it (``None``, the default) or fill it with zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def _run_closure(self, closure: Optional[Callable[[], Any]]) -> Any:
        """Evaluate ``closure`` (re-computes the loss and calls backward) with grad enabled."""
        if closure is None:
            return None
        with grad_mode.enable_grad():
            return closure()

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss.

        The part every optimizer shares is here, once: ``closure`` (if given) runs with
        grad enabled, since it recomputes the loss and calls ``backward``; then each
        group is updated under ``no_grad``, so the update itself is not recorded.  An
        optimizer writes only :meth:`_update`, its rule for one group."""
        loss = self._run_closure(closure)
        with grad_mode.no_grad():
            for group in self.param_groups:
                self._update(group)
        return loss

    def _update(self, group: dict[str, Any]) -> None:
        """Update the parameters of one group (each optimizer's own rule)."""
        raise NotImplementedError

    @staticmethod
    def _params_with_grad(group: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
        """``(p, grad)`` for each parameter of ``group`` that has a gradient (a parameter
        without one is skipped, as PyTorch does); ``grad`` is negated when the group
        maximizes."""
        maximize = group.get("maximize", False)
        for p in group["params"]:
            if p.grad is not None:
                yield p, (-p.grad if maximize else p.grad)

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before each ``step()``; it may return ``(new_args, new_kwargs)``."""
        return _add(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after each ``step()``."""
        return _add(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict()`` builds the dict (``prepend``: before the others)."""
        return _add(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` after ``state_dict()``; a dict it returns is returned instead."""
        return _add(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` before ``load_state_dict()``; a dict it returns is loaded instead."""
        return _add(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` after ``load_state_dict()``."""
        return _add(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ saving
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{options..., "params": [indices]}]}``."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index_of: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            ids = []
            for p in group["params"]:
                index_of.setdefault(id(p), len(index_of))
                ids.append(index_of[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {index_of[id(p)]: s for p, s in self.state.items() if id(p) in index_of}
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()``: the groups must match this optimizer's in number and sizes."""
        state_dict = copy.copy(state_dict)
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        param_of = {}
        for g, s in zip(groups, saved_groups):
            for p, i in zip(g["params"], s["params"]):
                param_of[i] = p
        self.state = defaultdict(dict)
        for index, value in state_dict["state"].items():
            if index in param_of:
                p = param_of[index]
                self.state[p] = {k: self._cast_state(p, k, v) for k, v in value.items()}
        new_groups = []
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:  # saved names win; else this optimizer's stay
                s["param_names"] = g["param_names"]
            new_groups.append(s)
        self.param_groups = new_groups
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    @staticmethod
    def _cast_state(param: Tensor, key: str, value: Any) -> Any:
        """A copy of one saved state entry, on the parameter's device (``step`` keeps its own dtype)."""
        if not isinstance(value, Tensor):
            return copy.deepcopy(value)
        if key == "step":
            return value.detach().clone()
        return value.detach().to(dtype=param.dtype, device=param.device).clone()


def _split_names(param_group: dict[str, Any]) -> None:
    """``optimizer(model.named_parameters())``: ``(name, tensor)`` pairs become the group's
    ``params`` and, in the same order, its ``param_names`` (kept in ``state_dict()``, so that a
    checkpoint says which parameter each state belongs to).  Names for some and not others is
    PyTorch's ValueError."""
    names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
    if not names:
        return
    if len(names) != len(param_group["params"]):
        raise ValueError("all optimizer params should be with/without names. Some param names are missing")
    param_group["params"] = [p[1] for p in param_group["params"]]
    param_group["param_names"] = names


def _one_element_lr(lr: Any) -> Any:
    """``lr`` for the optimizers' range check; a tensor ``lr`` must hold one number (PyTorch's ValueError)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    return lr


def _how_options(**options: Any) -> dict[str, Any]:
    """PyTorch's switches for *how* an update runs: ``foreach`` (one call over a list of
    tensors), ``fused`` (one kernel), ``capturable`` (CUDA graphs), ``differentiable``
    (a step autograd can see through).  learntorch always runs the plain loop over the
    parameters, so they change no number here; they are accepted and kept in ``defaults``
    so that programs passing them run and ``print(optimizer)`` lists PyTorch's options."""
    return dict(options)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)
