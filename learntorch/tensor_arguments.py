"""PyTorch's ``TypeError`` for an argument of the wrong type: a list where a tensor is needed,
a float where an int is, a tensor of many elements where one number or a flag is.

``torch.relu([1.0])`` raises ``TypeError: relu(): argument 'input' (position 1) must be
Tensor, not list``, and ``torch.softmax(x, 1.0)`` raises ``TypeError: softmax(): argument
'dim' (position 2) must be int, not float``: PyTorch's argument parser checks each argument's
type before any kernel runs.  learntorch's functions are plain Python.  Given a list, they
fail further in, with an ``AttributeError: 'list' object has no attribute '_data'`` that
names neither the argument nor the fix, and is of another type than the one a PyTorch
program (or a grader's test) catches; given a tensor for a flag, with the RuntimeError of
``if keepdim:`` ("Boolean value of Tensor ... is ambiguous").

Checking every argument up front would cost every call, and most calls are right.  So the
check runs only *after* a call has failed: :func:`tensor_checked` wraps a function in a
``try``, which costs nothing until something is raised (Python 3.11's "zero-cost"
exceptions: entering a ``try`` block runs no instruction).  When the call raises, the
arguments are looked at: one that the function's signature declares a ``Tensor`` (or
``Optional[Tensor]``, ``Sequence[Tensor]``, ``*tensors: Tensor``) but that is not one, or one
declared an ``int``, ``float``, ``bool`` or a tuple of ints that plainly is not, becomes
PyTorch's ``TypeError``; otherwise the original error goes on unchanged.  A function
annotates ``Any`` where PyTorch also takes a number (``add``'s ``other``, ``where``'s
``input``), so a number there is never blamed.

The wrapped functions are those of the ``torch`` and ``torch.nn.functional`` namespaces and
the ``Tensor`` methods that take a second tensor (``x.gather(0, idx)``); the ``ops`` modules
call each other unwrapped.
"""
from __future__ import annotations

import functools
import inspect
import sys
from typing import Any, Callable, Optional

import numpy as np

from . import dtypes, warn_always
from .tensor import Tensor

__all__ = ["tensor_checked", "check_namespace", "require_tensor", "require_sizes", "sizes_by_keyword"]

# how a parameter's annotation (a string: the package uses ``from __future__ import annotations``)
# says what it takes: tensors, or the numbers, flags and sizes that PyTorch's parser also checks
_KINDS = {
    "Tensor": "tensor", "'Tensor'": "tensor",
    "Optional[Tensor]": "optional", "Tensor | None": "optional", "Optional['Tensor']": "optional",
    "Sequence[Tensor]": "sequence", "list[Tensor]": "sequence", "tuple[Tensor, ...]": "sequence",
    "Sequence['Tensor']": "sequence",
    **dict.fromkeys(("int", "_dtypes.builtins.int"), "int"),
    **dict.fromkeys(("Optional[int]", "int | None"), "optional int"),
    **dict.fromkeys(("float", "_dtypes.builtins.float"), "float"),
    **dict.fromkeys(("Optional[float]", "float | None"), "optional float"),
    **dict.fromkeys(("bool", "_dtypes.builtins.bool"), "bool"),
    **dict.fromkeys(("Optional[bool]", "bool | None"), "optional bool"),
    "Number": "number", "Optional[Number]": "optional number", "dtype": "dtype",
    **dict.fromkeys(("Sequence[int]", "Union[int, Sequence[int]]", "IntOrSeq", "IntOrPair", "IntOrOne",
                     "IntOrTriple"), "ints"),
    "tuple[int, ...]": "shape",  # a list or tuple of ints, never one int (``normalized_shape``), as in PyTorch
    **dict.fromkeys(("Dim", "Union[int, Sequence[int], None]", "Optional[Sequence[int]]", "Optional[IntOrOne]",
                     "Optional[IntOrTriple]", "Optional[IntOrPair]"), "optional ints"),
}
_TENSOR_KINDS = ("tensor", "optional", "sequence", "tensors")
_EXPECTED = {"int": "int", "float": "float", "bool": "bool", "ints": "tuple of ints", "number": "Number",
             "dtype": "torch.dtype", "shape": "tuple of ints"}
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)

# The functions (and the methods of the same names) whose numbers are checked before the call, because
# given a wrong one they would not fail but go on: truncate a float (``torch.linspace(0, 1, 2.5)``,
# ``x.chunk(2.5)``, ``torch.tril(x, 2.5)``), take an int or a tensor for a flag (``torch.unique(x, 1)``,
# meant as a dim, sorts), compare with a tensor of tolerances (``torch.isclose(a, b, tol)``).  PyTorch's
# parser refuses each; its flags take only ``True``/``False``.  None of them is on a model's hot path.
CHECKED_FIRST = frozenset("""
eye linspace logspace tril_indices triu_indices
chunk unsafe_chunk tril triu diag diag_embed diagflat rot90 roll kthvalue mvlgamma matrix_power histc logit
isclose allclose nan_to_num unique unique_consecutive lu svd sort argsort split_with_sizes unsafe_split_with_sizes
tile as_strided empty_strided scalar_tensor lu_unpack triangular_solve
""".split())


def tensor_slots(fn: Callable) -> tuple[tuple[str, Optional[int], str], ...]:
    """``(name, position or None, kind)`` of each parameter of ``fn`` whose type is checked:
    those that take tensors (``*tensors: Tensor`` too, kind "tensors"), and those annotated an
    int, a float, a ``Number``, a bool, a tuple of ints or a dtype."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: nothing to check
        return ()
    slots = []
    for i, p in enumerate(params):
        kind = _KINDS.get(p.annotation) if isinstance(p.annotation, str) else None
        if kind == "tensor" and p.kind is inspect.Parameter.VAR_POSITIONAL:
            kind = "tensors"
        if kind is None:
            continue
        slots.append((p.name, i if p.kind in _POSITIONAL or kind == "tensors" else None, kind))
    return tuple(slots)


def wrong_argument(name: str, slots: tuple, args: tuple, kwargs: dict, skip: int = 0,
                   error: type = TypeError, strict: bool = False) -> Optional[Exception]:
    """PyTorch's TypeError for the first argument in ``slots`` that is not what it should be,
    or None when every one is.  ``skip`` leading positions are not counted in the message
    (1 for a method: PyTorch numbers ``x.gather(0, idx)``'s ``index`` 2, not 3).  ``error`` is
    the exception's type (for a tensor argument; a wrong number is always a TypeError).
    ``strict``: a flag must be ``True`` or ``False`` (see :func:`_fits`)."""
    for arg_name, position, kind in slots:
        if kind == "tensors":  # ``*tensors``: each of the remaining positional arguments
            for i, item in enumerate(args[position:]):
                if not isinstance(item, Tensor):
                    return error(f"expected Tensor as element {i} in argument 0, but got {type(item).__name__}")
            continue
        if position is not None and position < len(args):
            value, where = args[position], f" (position {position + 1 - skip})"
        elif arg_name in kwargs:
            value, where = kwargs[arg_name], ""
        else:
            continue
        if kind not in _TENSOR_KINDS:
            if _fits(kind, value, strict):
                continue
            expected = _EXPECTED[kind.split()[-1]]
            if kind.endswith(("ints", "shape")) and isinstance(value, (list, tuple)):
                i = next(i for i, v in enumerate(value) if not _fits("int", v))
                return TypeError(f"{name}(): argument '{arg_name}'{where} must be {expected}, but found element of "
                                 f"type {type(value[i]).__name__} at pos {i}")
            return TypeError(f"{name}(): argument '{arg_name}'{where} must be {expected}, not {type(value).__name__}")
        if isinstance(value, Tensor) or (value is None and kind == "optional"):
            continue
        if kind != "sequence":
            return error(f"{name}(): argument '{arg_name}'{where} must be Tensor, not {type(value).__name__}")
        if not isinstance(value, (list, tuple)):
            return error(f"{name}(): argument '{arg_name}'{where} must be tuple of Tensors, not "
                         f"{type(value).__name__}")
        for i, item in enumerate(value):
            if not isinstance(item, Tensor):
                index = position - skip if position is not None else 0
                return error(f"expected Tensor as element {i} in argument {index}, but got "
                             f"{type(item).__name__}")
    return None


def _fits(kind: str, value: Any, strict: bool = False) -> bool:
    """Whether PyTorch's parser would take ``value`` for a parameter of this kind.  Lenient where
    unsure (a bool or an int where a flag is wanted, a one-element tensor where a number is):
    only a value of a plainly wrong type is blamed.  ``strict`` (the functions of ``CHECKED_FIRST``,
    whose flags PyTorch's parser reads): a flag is a Python bool and nothing else."""
    if value is None:
        return kind.startswith("optional")
    kind = kind.split()[-1]
    if strict and kind == "bool":
        return isinstance(value, bool)
    if kind == "shape":
        return isinstance(value, (list, tuple)) and all(_fits("int", v) for v in value)
    if kind == "dtype":  # (PyTorch's parser takes the Python types float, int and bool for dtypes)
        return isinstance(value, dtypes.dtype) or value is float or value is int or value is bool
    if kind == "ints" and isinstance(value, (list, tuple)):
        return all(_fits("int", v) for v in value)
    if isinstance(value, Tensor):
        if value.numel() != 1:
            return False  # (many numbers are not one number)
        return kind not in ("int", "ints") or not (value.is_floating_point() or value.is_complex())
    if kind in ("int", "ints", "bool"):
        return isinstance(value, (int, np.integer, np.bool_))
    return isinstance(value, (int, float, np.number, np.bool_))  # a float


def tensor_checked(fn: Callable, name: Optional[str] = None, method: bool = False,
                   error: type = TypeError, first: bool = False, numbers: bool = False,
                   python_flags: bool = False) -> Callable:
    """``fn``, raising PyTorch's TypeError (or ``error``) when a call fails and a tensor argument was
    not a tensor, or a number, flag or size was not one.  Returns ``fn`` itself when it has no
    argument to check.  A method is wrapped only when it takes a tensor besides ``self``: the
    methods that take only numbers (``x.sum(1)``, ``x.view(2, 3)``) are the hot path of every
    model, and keep their own checks of those numbers.

    With ``first`` the numbers are checked before the call, and a flag must be a bool: for the
    functions of ``CHECKED_FIRST``, which would otherwise accept a float and truncate it
    (``torch.linspace(0, 1, 2.5)``), where PyTorch refuses it; a method so named is wrapped too.

    With ``numbers`` a method that takes only numbers is wrapped all the same: for the methods
    off the hot path (``x.cummax(2.5)``, ``x.topk(2.5)``), whose own errors would be an
    IndexError or a RuntimeError where PyTorch's parser raises a TypeError.

    With ``python_flags`` (the functions PyTorch writes in Python, ``nn.functional``'s) a tensor
    of many numbers given as a flag or a number keeps the RuntimeError its ``if inplace:`` raised
    ("Boolean value of Tensor with more than one value is ambiguous"): PyTorch's own Python code
    tests that flag and fails there with that very error, before any parser sees it."""
    slots = tensor_slots(fn)
    if method:
        slots = tuple(s for s in slots if s[1] != 0)  # ``self`` is a tensor: Python bound it
        if not (numbers or first) and not any(kind in _TENSOR_KINDS for _, _, kind in slots):
            slots = ()
    if not slots or getattr(fn, "_checks_tensors", False):
        return fn
    name = name or fn.__name__
    skip = 1 if method else 0
    numbers = tuple(s for s in slots if s[2] not in _TENSOR_KINDS)

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if first:
            wrong = wrong_argument(name, numbers, args, kwargs, skip, strict=True)
            if wrong is not None:
                raise wrong
        try:
            return fn(*args, **kwargs)
        except TypeError:
            # already the type PyTorch raises (often its very message); a wrong number's message is clearer
            wrong = wrong_argument(name, numbers, args, kwargs, skip, strict=first)
            if wrong is None:
                raise
            raise wrong from None
        except Exception as exc:
            if python_flags and isinstance(exc, RuntimeError) and str(exc).startswith("Boolean value of Tensor"):
                raise
            wrong = wrong_argument(name, slots, args, kwargs, skip, error, strict=first)
            if wrong is None:
                raise
            raise wrong from None  # (the AttributeError deep inside says nothing useful)
    checked._checks_tensors = True  # type: ignore[attr-defined]
    warn_always.pass_through(checked.__code__)  # a warning inside fn points past this frame (one code for all)
    return checked


def require_tensor(name: str, argument: str, value: Any, position: int = 1) -> None:
    """PyTorch's TypeError unless ``value`` is a tensor, checked up front: for the few functions
    that would not fail on their own (``conj`` of a real tensor returns it as it is, so
    ``torch.conj([1.0])`` would quietly return the list)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def require_sizes(name: str, argument: str, value: Any, position: int = 2) -> None:
    """PyTorch's TypeError unless ``value`` is a tuple or a list (of sizes), checked up front: for
    the functions that take their sizes as one argument (``torch.reshape(x, (2, 6))``) where the
    method of the same name takes them one by one too (``x.reshape(2, 6)``), so that the shared
    code would take ``torch.reshape(x, -1)`` for ``x.reshape(-1)``."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be tuple of ints, not "
                        f"{type(value).__name__}")


def sizes_by_keyword(given: tuple, value: Any, name: str, argument: str) -> tuple:
    """The sizes of ``x.view(size=(2, 3))``, ``torch.zeros(size=(2, 3))``: PyTorch's parser takes a
    size list by its keyword too, where Python's ``*sizes`` cannot.  Given both ways it is its TypeError."""
    if given:
        raise TypeError(f"{name}() got multiple values for argument '{argument}'")
    return (value,)


def check_namespace(namespace: dict, module: str, names: list[str], attribute_errors: str = "",
                    checked_first: frozenset = frozenset(), python_flags: bool = False) -> None:
    """Wrap the plain functions ``names`` of a public namespace (``torch``, ``nn.functional``)
    with :func:`tensor_checked`; two names of one function object share one wrapper.

    ``attribute_errors`` names the functions that PyTorch writes in Python and that ask their
    argument for an attribute first (``F.mse_loss`` calls ``target.size()``): given a list,
    PyTorch's own error is an AttributeError.  Those raise an AttributeError here too, so that
    a program (or a test) that catches PyTorch's error catches learntorch's; the message is
    the clearer one above.  ``checked_first`` names the functions whose numbers are checked
    before the call, and ``python_flags`` says that the namespace's functions are Python code in
    PyTorch (see :func:`tensor_checked`).

    A wrapper (this one, or ``out=``'s) that pickle would look for under the wrapped function's
    name is renamed after the namespace, so that pickle finds it there: ``torch.save`` of a
    module that holds ``torch.add`` as an attribute works, as it does in PyTorch."""
    made: dict[int, Callable] = {}
    attribute_error_names, first_names, public = set(attribute_errors.split()), checked_first, set(names)
    for n in names:
        fn = namespace.get(n)
        if not inspect.isfunction(fn) or not fn.__module__.startswith("learntorch"):
            continue
        wrapped = made.get(id(fn))
        if wrapped is None:
            error = AttributeError if n in attribute_error_names else TypeError
            name = fn.__name__ if fn.__name__ in public else n  # (``legacy_lu`` is ``torch.lu``)
            wrapped = made[id(fn)] = tensor_checked(fn, name, error=error, first=n in first_names,
                                                    python_flags=python_flags)
            if not _found_by_pickle(wrapped):
                wrapped.__module__, wrapped.__qualname__ = module, n
        namespace[n] = wrapped


def _found_by_pickle(fn: Callable) -> bool:
    """Whether pickle, which saves a function as "module + qualified name", finds ``fn`` itself there."""
    found: Any = sys.modules.get(fn.__module__)
    for part in fn.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is fn
