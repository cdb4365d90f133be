"""How a Module's *full* backward hooks see the gradients of its inputs and outputs.

A module is not a node of the backward graph: its forward may create many
nodes.  To observe "the gradient with respect to the module's outputs" and
"… its inputs", PyTorch (and learntorch) wrap both ends of the forward in an
identity ``Function``, ``BackwardHookFunction``:

* the node on the **outputs** receives ``grad_output`` first: a *pre hook* on it
  stores it and runs the module's ``register_full_backward_pre_hook`` hooks;
* the node on the **inputs** runs last: a *post hook* on it holds ``grad_input``
  and runs the ``register_full_backward_hook`` hooks, which may replace it.

These are the chapter-04 tensor/node hooks at work, nothing new in the engine.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from .. import warn_always
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor

__all__ = ["BackwardHook", "BackwardHookFunction"]


class BackwardHookFunction(Function):
    """Identity on several tensors; its node is where module backward hooks attach."""

    _backward_name = "BackwardHookFunctionBackward"
    _python_in_torch = True  # a Python Function in PyTorch too: prints as torch.autograd.function.…

    @staticmethod
    def forward(ctx: Any, *tensors: Tensor) -> tuple:
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        return grads


class BackwardHook:
    """The state of one forward call's backward hooks (``grad_output`` waits here
    until ``grad_input`` is known)."""

    def __init__(self, module: Any, user_hooks: Sequence[Callable], user_pre_hooks: Sequence[Callable]) -> None:
        self.module = module
        self.user_hooks = list(user_hooks)
        self.user_pre_hooks = list(user_pre_hooks)
        self.grad_outputs: Optional[tuple] = None
        self.n_inputs = 0
        self.n_outputs = 0
        self.input_tensors_index: Optional[list] = None
        self.output_tensors_index: Optional[list] = None

    @staticmethod
    def _pack_with_none(indices: Sequence[int], values: Sequence[Any], size: int) -> tuple:
        res = [None] * size
        for i, v in zip(indices, values):
            res[i] = v
        return tuple(res)

    @staticmethod
    def _unpack_none(indices: Sequence[int], values: Sequence[Any]) -> tuple:
        return tuple(values[i] for i in indices)

    def _wrap(self, args: tuple, attach: Callable) -> tuple[tuple, Optional[list]]:
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not (is_grad_enabled() and any(args[i].requires_grad for i in index)):
            return args, None
        new = BackwardHookFunction.apply(*[args[i] for i in index])
        node = next(t.grad_fn for t in new if t.grad_fn is not None)
        attach(node)
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args: tuple) -> tuple:
        """Wrap the module's inputs; when their gradients are known, run the full backward hooks."""
        def attach(node: Any) -> None:
            def hook(grad_inputs: tuple, _grad_outputs: tuple) -> Optional[tuple]:
                if self.grad_outputs is None:
                    return None  # the gradient reached the inputs without passing the outputs
                res = self._pack_with_none(self.input_tensors_index, grad_inputs, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got "
                                           f"{len(out)}, but expected {len(res)}")
                    res = out
                self.grad_outputs = None
                return self._unpack_none(self.input_tensors_index, res)
            node.register_hook(hook)

        self.n_inputs = len(args)
        args, self.input_tensors_index = self._wrap(args, attach)
        return args

    def setup_output_hook(self, result: Any) -> Any:
        """Wrap the module's outputs; when their gradients arrive, run the backward pre hooks."""
        def attach(node: Any) -> None:
            def run_pre_hooks(grad_outputs: tuple) -> Optional[tuple]:
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_outputs, self.n_outputs)
                for pre_hook in self.user_pre_hooks:
                    new = pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                           f"{len(new)}, but expected {len(self.grad_outputs)}")
                    self.grad_outputs = new  # (as PyTorch: kept as returned, not made a tuple)
                local = self.grad_outputs
                if self.input_tensors_index is None:  # no input needs a gradient: call the hooks now
                    warn_always.warn("Full backward hook is firing when gradients are computed with respect to "
                                     "module outputs since no inputs require gradients. See https://docs.pytorch.org"
                                     "/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
                                     "register_full_backward_hook for more details.", stacklevel=5)
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None
                return tuple(local[i] for i in self.output_tensors_index)
            # A post hook of the identity node, as PyTorch registers it: the user's own pre hooks on
            # ``y.grad_fn`` (that same node) run first.  Its inputs' gradients are its outputs'.
            # (Named ``hook`` as PyTorch's is: the engine's "hook 'hook' has changed the size of value"
            # names it when a user's pre hook returns a wrongly shaped gradient.)
            def hook(grad_inputs: tuple, grad_outputs: tuple) -> Optional[tuple]:
                return run_pre_hooks(grad_outputs)
            node.register_hook(hook)

        single = isinstance(result, Tensor)
        outputs = (result,) if single else tuple(result)
        self.n_outputs = len(outputs)
        outputs, self.output_tensors_index = self._wrap(outputs, attach)
        return outputs[0] if single else outputs
