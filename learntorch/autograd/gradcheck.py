"""``gradcheck``: is a backward right?  Compare it with finite differences.

For each input element ``x_i`` the numerical derivative is
``(f(x + eps·e_i) − f(x − eps·e_i)) / 2eps`` (central differences, error
O(eps²)); the analytical one comes from the backward pass, one output element
at a time (each row of the Jacobian is a vector-Jacobian product with a unit
vector).

Why float64: computing f rounds its value to a relative precision u (6e-8 in
float32, 1e-16 in float64), so the difference quotient carries an error of about
u·|f| / eps, which *grows* as eps shrinks.  With eps = 1e-6 that is about 0.1 in
float32, far beyond the tolerance, and 1e-10 in float64.  So, as PyTorch does,
gradcheck warns (``UserWarning``) about an input that requires grad and is not
float64, then checks anyway: a float32 check usually fails, or passes only with a
larger eps and tolerances.

The inputs themselves are never changed: the finite differences perturb detached
copies, so a non-leaf input (``x * 2``) is checked as well as a leaf.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence


import numpy as np

from .. import warn_always
from .. import dtypes
from ..arrays import to_numpy, transfer
from ..device import CPU
from ..tensor import Tensor
from .engine import grad
from .grad_mode import enable_grad, no_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when the two Jacobians differ (and ``raise_exception``)."""


def _as_outputs(value: Any) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def numerical_jacobian(fn: Callable, inputs: Sequence[Any], eps: float) -> list:
    """J[k][i, j] = d out_k[j] / d input_i — one matrix per (input, output) pair, by central differences."""
    # Perturb copies, not the caller's tensors: a copy is a fresh leaf (so a non-leaf input
    # works too) that still requires grad (gradgradcheck's function asks which inputs do).
    inputs = [x.detach().clone().requires_grad_(True) if isinstance(x, Tensor) and x.requires_grad else x
              for x in inputs]
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    with no_grad():
        outs = _as_outputs(fn(*inputs))
    jac = [[np.zeros((x.numel(), o.numel())) for o in outs] for x in diff]
    for xi, x in enumerate(diff):
        original = to_numpy(x._data).copy()  # perturbed on the host, written back to the device
        for i in range(x.numel()):
            results = []
            for step in (eps, -eps):
                moved = original.copy()
                moved.reshape(-1)[i] += step
                x._data[...] = transfer(moved, CPU, x.device)
                with no_grad():
                    results.append([_host(o) for o in _as_outputs(fn(*inputs))])
            x._data[...] = transfer(original, CPU, x.device)
            for k in range(len(outs)):
                jac[xi][k][i] = (results[0][k] - results[1][k]) / (2 * eps)
    return jac


def _host(t: Any) -> np.ndarray:
    """A tensor's values as a flat float64 NumPy array, from any device."""
    return to_numpy(t.detach()._data).astype(np.float64).reshape(-1)


def analytical_jacobian(fn: Callable, inputs: Sequence[Any]) -> list:
    """The same Jacobians from backward: row ``j`` of output ``k`` is ``grad(out_k, inputs, e_j)``."""
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    outs = _as_outputs(fn(*inputs))
    jac = [[np.zeros((x.numel(), o.numel())) for o in outs] for x in diff]
    for k, out in enumerate(outs):
        if not out.requires_grad:
            continue
        for j in range(out.numel()):
            unit = np.zeros(out.numel(), dtype=out.dtype._np)
            unit[j] = 1.0
            v = out._filled_like(0)
            v._data[...] = transfer(unit.reshape(tuple(out.shape)), CPU, out.device)
            grads = grad(out, diff, v, retain_graph=True, allow_unused=True)
            for xi, g in enumerate(grads):
                if g is not None:
                    jac[xi][k][:, j] = _host(g)
    return jac


def gradcheck(func: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, **_ignored: Any) -> bool:
    """True if ``func``'s backward agrees with finite differences on ``inputs``.

    Inputs that require grad should be float64 tensors, on any device: float32 is too coarse
    for a step of 1e-6 (see the module docstring), so, as PyTorch does, gradcheck warns
    about each such input and checks anyway -- expect a failure unless ``eps`` and the
    tolerances are raised.  Leaves and non-leaves alike may be checked."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")
    for index, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x.dtype.name not in ("float64", "complex128"):
            warn_always.warn(f"Input #{index} requires gradient and is not a double precision floating point or "
                             "complex. This check will likely fail if all the inputs are not of double precision "
                             "floating point or complex. ", UserWarning, stacklevel=2)
    numerical = numerical_jacobian(func, inputs, eps)
    analytical = analytical_jacobian(func, inputs)
    for xi in range(len(diff)):
        for k in range(len(numerical[xi])):
            n, a = numerical[xi][k], analytical[xi][k]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {xi},\n"
                    f"numerical:{_fmt(n, diff[xi])}\nanalytical:{_fmt(a, diff[xi])}\n")
    return True


def _fmt(m: np.ndarray, like: Tensor) -> str:
    """A Jacobian as PyTorch's message shows it: a tensor's repr, in the input's dtype."""
    return repr(Tensor._make(m.astype(like.dtype._np), CPU))


def _random_grad_output(out: Tensor, noncontiguous: bool) -> Tensor:
    """One output gradient for gradgradcheck, drawn like ``make_tensor(low=-1, high=1)``."""
    dtype = out.dtype if out.dtype.is_floating_point or out.dtype.is_complex else dtypes.float64
    shape = tuple(out.shape)
    noncontiguous = noncontiguous and int(np.prod(shape)) > 1
    if noncontiguous:
        shape = shape[:-1] + (2 * shape[-1],)
    v = Tensor._zeros(shape, dtype, out.device).uniform_(-1.0, 1.0)
    if noncontiguous:
        v = v[..., 1::2]
    return v.requires_grad_()


def gradgradcheck(func: Callable, inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  seed: int = 0, **_ignored: Any) -> bool:
    """Check second derivatives, as ``torch.autograd.gradgradcheck`` does.

    The function checked is ``(inputs, v) ↦ vᵀ·∂func/∂inputs``, the first backward
    with ``create_graph=True``, against finite differences -- with respect to the
    inputs *and* to the output gradients ``v``.  Differentiating with respect to
    ``v`` is what catches a backward computed on raw arrays: its result does not
    depend on ``v`` through the graph, so its Jacobian comes out zero.  ``v`` is
    random unless ``grad_outputs`` is given: uniform in [-1, 1), drawn from the
    *global* generator as PyTorch's ``torch.testing.make_tensor`` does, so a
    program's later random numbers come out as they would under PyTorch
    (``gen_non_contig_grad_outputs`` draws twice the last dimension and keeps
    every other column, as make_tensor's ``noncontiguous`` does).
    """
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    outs = _as_outputs(func(*inputs))
    if grad_outputs is None:
        grad_outputs = tuple(_random_grad_output(o, gen_non_contig_grad_outputs)
                             for o in outs if isinstance(o, Tensor) and o.requires_grad)
    grad_outputs = tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
    n_in = len(inputs)

    def first_grads(*args: Any) -> tuple:
        xs, vs = args[:n_in], args[n_in:]
        with enable_grad():  # the numerical Jacobian calls this under no_grad
            outputs = [o for o in _as_outputs(func(*xs)) if isinstance(o, Tensor) and o.requires_grad]
            diff = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
            grads = grad(outputs, diff, list(vs), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)
    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
