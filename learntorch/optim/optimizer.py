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
"""
from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any, Callable, Iterable, Iterator, Optional

from .. import warn_always
from ..autograd import grad_mode
from ..tensor import Tensor


class _RequiredParameter:
    """Marks an option that has no default value and must be given."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of all optimizers: subclasses write ``step()``."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
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
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(param).__name__)
            if not param.is_leaf:
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

    # ------------------------------------------------------------------ saving
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{options..., "params": [indices]}]}``."""
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
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()``: the groups must match this optimizer's in number and sizes."""
        state_dict = copy.copy(state_dict)
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
            new_groups.append(s)
        self.param_groups = new_groups

    @staticmethod
    def _cast_state(param: Tensor, key: str, value: Any) -> Any:
        """A copy of one saved state entry, on the parameter's device (``step`` keeps its own dtype)."""
        if not isinstance(value, Tensor):
            return copy.deepcopy(value)
        if key == "step":
            return value.detach().clone()
        return value.detach().to(dtype=param.dtype, device=param.device).clone()


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
