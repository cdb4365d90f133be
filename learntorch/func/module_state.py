"""Modules as functions of their weights: ``functional_call`` and ``stack_module_state``.

The transforms take functions of tensors; a module is a function of its input
that *holds* its weights.  ``functional_call(model, params, x)`` turns it into a
function of ``(params, x)``: ``grad`` of a loss with respect to ``params`` (a
dict), ``vmap`` over a stack of them (an ensemble of models run as one call).
``stack_module_state`` builds such a stack from a list of same-shaped models.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from ..nn.modules.batchnorm import _BatchNorm
from ..nn.utils.stateless import _functional_call
from ..ops.shape import stack
from ..tensor import Tensor

if TYPE_CHECKING:
    from ..nn.modules.module import Module

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]


def functional_call(module: "Module", parameter_and_buffer_dicts: Union[dict[str, Tensor], Sequence[dict]],
                    args: Any = None, kwargs: Optional[dict] = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` computed with the given tensors in place of the module's
    parameters and buffers, named as in ``state_dict`` (``"0.weight"``, ``"fc.bias"``).

    The module's own tensors are put back afterwards, also when the call raises.
    Names not given keep the module's values (``strict=True`` makes a missing or
    unknown name a RuntimeError).  ``parameter_and_buffer_dicts`` may be a tuple of
    dicts (``(params, buffers)``), whose keys must not repeat.  ``args`` that is not a
    tuple is the single positional argument.  With ``tie_weights`` a value given for
    one of several names of a shared tensor is used for all of them."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        seen: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                seen[k] = seen.get(k, 0) + 1
        repeated = [k for k, n in seen.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                             "ambiguous")
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, values, args, kwargs, tie_weights=tie_weights, strict=strict)


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    """The models' tensors stacked along a new first dimension, as a new leaf: it requires
    grad when the originals do, so an optimizer can train the whole ensemble."""
    requires = [t.requires_grad for t in tensors]
    if any(requires) and not all(requires):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors, 0)
    return result.detach().requires_grad_() if all(requires) else result


def stack_module_state(models: Sequence["Module"]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """``(params, buffers)``: each model's parameters and buffers stacked, name by name.

    ``params["0.weight"][i]`` is model ``i``'s weight.  With ``vmap(fmodel, in_dims=(0, 0,
    None))(params, buffers, x)`` (``fmodel`` a :func:`functional_call` of one of the
    models) every model runs on the same ``x`` in one call: an ensemble.  The stacks
    are new leaves, unrelated to the models' own parameters."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root: "Module") -> "Module":
    """Make every BatchNorm in ``root`` stop tracking running statistics (in place).

    A BatchNorm updates its running mean in place on every training call, a side
    effect that PyTorch's batched ``vmap`` cannot perform once per sample; without
    running statistics it always normalises with the batch's own statistics."""
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
