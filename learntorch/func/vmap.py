"""``torch.func.vmap``: run a function written for one sample on a whole batch.

``vmap(f)(xs)`` returns what ``stack([f(x) for x in xs])`` returns, and that is
exactly how learntorch computes it: a Python loop over the batch dimension, one
call of ``f`` per sample, then ``stack``.  PyTorch instead runs ``f`` once on
"batched tensors" whose operations each process the whole batch (which is why
PyTorch's vmap is fast).  For a function without side effects the two give the
same numbers, and that is the contract a course needs: ``vmap(grad(loss))`` for
per-sample gradients, ``vmap(jacrev(f))`` for a batch of Jacobians, ``vmap`` with
``functional_call`` for a model ensemble.

What the loop does differently, because ``f`` really runs once per sample:

* side effects (``print``, appending to a list, in-place changes of an unbatched
  tensor) happen once per sample; PyTorch runs them once, on the batch (and
  refuses the in-place update of a training BatchNorm's unbatched running stats,
  which here is updated once per sample: use ``replace_all_batch_norm_modules_``
  or ``eval()`` as with PyTorch);
* ``.item()`` and Python ``if`` on a tensor's value work here; PyTorch raises,
  because a batched tensor has no single value;
* ``out_dims=None`` (an output that does not depend on the sample): PyTorch knows
  whether an output is batched; here the per-sample outputs are compared, and
  different values raise PyTorch's ValueError;
* ``randomness="different"`` draws each sample's numbers one after the other.
  PyTorch draws the whole batch at once: for small draws (``rand``, ``randn`` of
  fewer than 16 numbers) the stream is the same, for larger ones the values
  differ (still independent draws).  ``"same"`` rewinds the generator before each
  sample, which gives PyTorch's numbers.  ``"error"`` watches the default
  generator's state: a function that draws from it raises PyTorch's RuntimeError
  (draws from a ``torch.Generator`` of your own are not watched);
* an output that needs grad is the ``stack`` of the samples' outputs, so it prints
  ``grad_fn=<StackBackward0>`` where PyTorch names the batched operation that made
  it (``MeanBackward1`` for a loss, say); the gradients through it are the same;
* ``chunk_size`` bounds PyTorch's memory; the loop already holds one sample at a
  time, so it is checked and otherwise ignored.
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator, Optional

from ..ops.shape import stack
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor
from ._pytree import TreeSpec, broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["vmap", "check_randomness_arg", "random_draws_guard"]

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
                 "'different' randomness flags on vmap or perform the randomness operation out of vmap")


# ----------------------------------------------------------------------------- randomness
def check_randomness_arg(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


class _GeneratorWatch:
    """The default generator's state when the watch starts: did anything draw since?"""

    def __init__(self) -> None:
        self.start = get_rng_state()

    def drew(self) -> bool:
        return not get_rng_state().equal(self.start)

    def rewind(self) -> None:
        set_rng_state(self.start)


@contextlib.contextmanager
def random_draws_guard(randomness: Optional[str]) -> Iterator[None]:
    """With ``randomness="error"``: raise PyTorch's RuntimeError if the body drew random
    numbers from the default generator (rewound first, as if the draw never happened)."""
    if randomness != "error":
        yield
        return
    watch = _GeneratorWatch()
    yield
    if watch.drew():
        watch.rewind()
        raise RuntimeError(_RANDOM_ERROR)


# ----------------------------------------------------------------------------- inputs
def _name(func: Callable[..., Any]) -> str:
    return getattr(func, "__name__", repr(func))


def _batched_inputs(in_dims: Any, args: tuple, func: Callable[..., Any]) -> tuple[int, list, list, TreeSpec]:
    """Check ``in_dims`` against ``args`` (PyTorch's ValueErrors, in PyTorch's order);
    return ``(batch size, in_dim per leaf, leaves, structure of args)``."""
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {spec}.")
    for i, (arg, dim) in enumerate(zip(flat_args, flat_dims)):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input but "
                             "in_dim must be either an integer dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input but "
                             f"the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please "
                             "use None as the respective in_dim")
        if not -arg.dim() <= dim < arg.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for some input, "
                             f"but that input is a Tensor of dimensionality {arg.dim()} so expected in_dim to "
                             f"satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
        flat_dims[i] = dim % arg.dim()
    sizes = [arg.shape[dim] for arg, dim in zip(flat_args, flat_dims) if dim is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args, spec


def _check_out_dims(out_dims: Any, func: Callable[..., Any]) -> None:
    if isinstance(out_dims, int):
        return
    for leaf in tree_flatten(out_dims)[0]:
        if leaf is not None and not isinstance(leaf, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             "python collection of ints representing where in the outputs the vmapped dimension "
                             "should appear.")


# ----------------------------------------------------------------------------- outputs
def _same_value(a: Any, b: Any) -> bool:
    """Is ``b`` the same output as ``a`` (for ``out_dims=None``)?"""
    if a is b:
        return True
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(a.equal(b))
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001  (a value whose == is not a truth value: not provably the same)
        return False


def _flat_out_dims(out_dims: Any, spec: TreeSpec, func: Callable[..., Any]) -> list:
    """One out_dim per output leaf, as PyTorch reads ``out_dims`` (a prefix of the outputs)."""
    if spec.is_leaf():  # a single tensor: 0, (0,) and None all fit
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        flat = None
    else:
        flat = broadcast_prefix(out_dims, spec)
    if flat is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                         f"with the structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but "
                         f"outputs has structure {spec}.")
    return flat


def _combine(results: list, out_dims: Any, func: Callable[..., Any], batch_size: int) -> Any:
    """The per-sample outputs stacked along each output's ``out_dim`` (structure kept)."""
    name = _name(func)
    flats = [tree_flatten(r) for r in results]
    spec = flats[0][1]
    if any(s != spec for _, s in flats):
        raise ValueError(f"vmap({name}, ...): `{name}` returned outputs of different structures for different "
                         "samples (learntorch runs it once per sample; PyTorch needs one structure too)")
    dims = _flat_out_dims(out_dims, spec, func)
    combined = []
    for j, dim in enumerate(dims):
        column = [leaves[j] for leaves, _ in flats]
        if dim is None:
            if not all(_same_value(column[0], c) for c in column[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            combined.append(column[0])
            continue
        for c in column:
            if not isinstance(c, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(c)}. Did "
                                 "you mean to set out_dims= to None for output?")
        if batch_size == 0:  # one placeholder run told us the shape of a sample's output
            one = column[0].unsqueeze(dim)  # (checks dim as stack would)
            shape = list(one.shape)
            shape[dim % one.dim()] = 0
            combined.append(column[0].new_zeros(shape))
        else:
            combined.append(stack(column, dim))
    return tree_unflatten(combined, spec)


# ----------------------------------------------------------------------------- vmap
def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: Optional[int] = None) -> Callable[..., Any]:
    """``vmap(func)`` is ``func`` mapped over a batch dimension of its inputs.

    * ``in_dims``: where the batch dimension is in each input: an int for all of
      them, or a tuple with one entry per positional argument, each an int, ``None``
      (not mapped: every sample sees the whole argument) or, for an argument that is
      a dict/list/tuple of tensors, a matching nested structure.  Keyword arguments
      are never mapped.
    * ``out_dims``: where the batch dimension goes in each output (an int, or a
      structure matching the outputs; ``None`` for an output that does not depend on
      the sample).
    * ``randomness``: ``"error"`` (a function that draws random numbers raises),
      ``"different"`` (each sample draws its own) or ``"same"`` (every sample sees
      the same draws).

    Computed as a loop over the samples followed by ``stack`` (see the module
    docstring for what that changes with respect to PyTorch's batched execution).
    Nested ``vmap`` and compositions with ``grad``/``jacrev`` work because each
    layer is again an ordinary function."""
    check_randomness_arg(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _check_out_dims(out_dims, func)
        batch_size, flat_dims, flat_args, spec = _batched_inputs(in_dims, args, func)

        def sample(i: int) -> Any:
            if batch_size == 0:  # nothing to select: zeros of a sample's shape, to learn the output's shape
                leaves = [a if d is None else a.new_zeros(a.shape[:d] + a.shape[d + 1:])
                          for a, d in zip(flat_args, flat_dims)]
            else:
                leaves = [a if d is None else a.select(d, i) for a, d in zip(flat_args, flat_dims)]
            return func(*tree_unflatten(leaves, spec), **kwargs)

        watch = _GeneratorWatch()
        if batch_size == 0:
            results = [sample(0)]
            drew = watch.drew()
            watch.rewind()  # no sample really ran: no draws either
            if drew and randomness == "error":
                raise RuntimeError(_RANDOM_ERROR)
            return _combine(results, out_dims, func, 0)
        results = [sample(0)]
        drew = watch.drew()
        if drew and randomness == "error":
            watch.rewind()
            raise RuntimeError(_RANDOM_ERROR)
        for i in range(1, batch_size):
            if drew and randomness == "same":
                watch.rewind()  # every sample sees the numbers the first one drew
            results.append(sample(i))
        if randomness == "error" and watch.drew():  # a draw that only a later sample made
            watch.rewind()
            raise RuntimeError(_RANDOM_ERROR)
        return _combine(results, out_dims, func, batch_size)

    return wrapped
