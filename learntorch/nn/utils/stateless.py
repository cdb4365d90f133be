"""``torch.nn.utils.stateless``: call a module with other tensors in place of its parameters.

A module *holds* its parameters; the transforms of ``torch.func`` want *functions
of* the parameters (``grad`` of the loss with respect to a dict of weights,
``vmap`` over a stack of weights).  :func:`functional_call` bridges the two: for
the duration of one call it puts the given tensors into the module's
``_parameters`` / ``_buffers`` tables, runs ``module(*args, **kwargs)``, and puts
the module's own tensors back, also when the call raises.

Swapping the entries of the tables directly (not through ``setattr``) is what lets
a plain tensor, even one with a batch of gradients' history, stand where a
``Parameter`` stood.  A module that updates a buffer in place during the call
(BatchNorm's running statistics) updates the tensor you gave, and a new value it
assigns is written back into your dict, as in PyTorch.

``torch.func.functional_call`` is the current name; this module's
``functional_call`` is the deprecated one and warns (``FutureWarning``) as
PyTorch 2.13's does.
"""
from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Iterator, Optional

from ... import warn_always
from ...tensor import Tensor

if TYPE_CHECKING:
    from ..modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()  # "the module had no such attribute": the swap adds one, the restore removes it


def _untie(module: "Module", values: dict[str, Any]) -> dict[str, Any]:
    """``values`` plus an entry for every name tied to a given one.

    A module whose two layers share one weight (``decoder.weight = encoder.weight``)
    lists it under both names; a value given for one of them must replace both, or
    the call would use the new weight in one place and the old one in the other."""
    named: dict[str, Any] = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    groups: dict[int, set[str]] = {}
    for name, tensor in named.items():
        groups.setdefault(id(tensor), set()).add(name)
    tied = {name: group for group in groups.values() if len(group) > 1 for name in group}
    untied = dict(values)
    for name in [n for n in values if n in tied]:
        group = tied[name]
        given = [values[n] for n in group if n in values]
        if len({id(v) for v in given}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, which are tied. "
                             "Consider using tie_weights=False")
        for other in group:
            untied[other] = values[name]
    return untied


def _check_keys(module: "Module", values: dict[str, Any]) -> None:
    """``strict=True``: every parameter and buffer given, nothing else (PyTorch's RuntimeError)."""
    valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing, unexpected = sorted(valid - set(values)), sorted(set(values) - valid)
    messages = []
    if unexpected:
        messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if messages:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(messages))


def _owner(module: "Module", name: str) -> tuple["Module", str]:
    """``("layer1.conv.weight")`` -> ``(module.layer1.conv, "weight")``."""
    *path, attr = name.split(".")
    owner = module
    for part in path:
        child = owner._modules.get(part) if part in owner._modules else getattr(owner, part, None)
        if child is None:
            raise AttributeError(f"{owner._get_name()} has no attribute `{part}`")
        owner = child
    return owner, attr


def _swap(owner: "Module", attr: str, value: Any) -> Any:
    """Put ``value`` where ``owner.attr`` is found; return what was there (or ``_MISSING``)."""
    for table in (owner._parameters, owner._buffers):
        if attr in table:
            old, table[attr] = table[attr], value
            return old
    # a plain attribute (or none yet: a name the module lacks is added for the call, then removed)
    old = owner.__dict__.get(attr, _MISSING)
    if value is _MISSING:
        owner.__dict__.pop(attr, None)
    else:
        owner.__dict__[attr] = value
    return old


def _current(owner: "Module", attr: str) -> Any:
    for table in (owner._parameters, owner._buffers):
        if attr in table:
            return table[attr]
    return owner.__dict__.get(attr, _MISSING)


@contextlib.contextmanager
def _reparametrize_module(module: "Module", parameters_and_buffers: dict[str, Any], tie_weights: bool = False,
                          strict: bool = False) -> Iterator[None]:
    """Inside the ``with`` block the module computes with ``parameters_and_buffers``."""
    values = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        _check_keys(module, values)
    swapped: list[tuple[str, "Module", str, Any]] = []
    try:
        for name, value in values.items():
            owner, attr = _owner(module, name)
            swapped.append((name, owner, attr, _swap(owner, attr, value)))
        yield
    finally:
        after = {}
        for name, owner, attr, old in reversed(swapped):  # last in, first out: tied names restore cleanly
            after[name] = _current(owner, attr)
            _swap(owner, attr, old)
        # what the module assigned during the call (a new buffer value) goes back to the caller's dict
        parameters_and_buffers.update({k: v for k, v in after.items()
                                       if k in parameters_and_buffers and v is not _MISSING})


def _functional_call(module: "Module", parameters_and_buffers: dict[str, Any], args: Any = None,
                     kwargs: Optional[dict] = None, *, tie_weights: bool = True, strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` computed with ``parameters_and_buffers`` (see the module docstring)."""
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **(kwargs or {}))


def functional_call(module: "Module", parameters_and_buffers: dict[str, Tensor], args: Any = None,
                    kwargs: Optional[dict] = None, *, tie_weights: bool = True, strict: bool = False) -> Any:
    """Deprecated since PyTorch 2.0 (warns as PyTorch does): use ``torch.func.functional_call``,
    which computes the same thing and also accepts a tuple of dicts."""
    warn_always.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
                     "removed in a future version of PyTorch. Please use `torch.func.functional_call` instead which "
                     "is a drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
