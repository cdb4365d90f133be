"""``torch.func``: transforms that turn a function into another function.

* :func:`grad`, :func:`grad_and_value` — the gradient of a scalar function, *returned*
  (nothing lands in ``.grad``);
* :func:`vjp`, :func:`jvp`, :func:`linearize` — products with the Jacobian;
* :func:`jacrev`, :func:`jacfwd`, :func:`hessian` — whole derivative matrices;
* :func:`vmap` — a function of one sample, run on a batch;
* :func:`functional_call`, :func:`stack_module_state` — a module as a function of its
  weights (per-sample gradients, model ensembles).

They compose: ``vmap(grad(loss))`` gives one gradient per sample, ``jacrev(jacrev(f))``
the second derivatives.  learntorch builds all of them on its reverse-mode engine
(``eager_transforms.py`` says how) and runs ``vmap`` as a loop over the batch
(``vmap.py`` says what that changes); the numbers are PyTorch's.

The package sits with ``nn`` (docs/architecture.md's *models* layer), because
``functional_call`` swaps a module's parameters.
"""
from __future__ import annotations

from .eager_transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from .module_state import functional_call, replace_all_batch_norm_modules_, stack_module_state
from .vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]
