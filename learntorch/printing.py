"""How a tensor prints: ``repr(t)``, ``str(t)`` and ``print(t)``.

Why this matters
----------------
The first thing a learner does with a tensor is look at it.  The course asks
you to compare your learntorch output with PyTorch's, and its stored notebook
outputs are meant to read exactly like PyTorch's.  So "roughly the same
numbers" is not enough: ``tensor([1., 2.])`` and ``tensor([1.0, 2.0])`` look
like different objects to a reader, and a stray ``dtype=torch.float64``
suggests a bug that is not there.  This module reproduces PyTorch's printing
rules (``torch/_tensor_str.py``) character for character, working on a plain
NumPy array so it needs nothing from the rest of the package.

The rules, in words
-------------------
1. **One format for the whole tensor.**  Every element is printed the same
   way and right-aligned to the widest one, so columns line up.  The format
   is chosen by looking at the elements that will actually be shown (after
   summarising, rule 5), and for floating tensors only at the *finite,
   non-zero* ones:

   * integer and bool tensors print Python's ``str`` of each value
     (``-3``, ``True``); the width is the longest of those strings, so a bool
     tensor prints ``tensor([ True, False])``;
   * **int mode**: if every such float is a whole number, each prints with no
     decimals and a trailing dot (``1.``, ``-0.``) so that you can still see
     that the tensor is floating; ``nan`` and ``inf`` get no dot;
   * **scientific mode** (``1.2346e+05``): chosen when the largest magnitude
     is more than 1000 times the smallest, or is above ``1e8``, or the
     smallest is below ``1e-4``.  ``set_printoptions(sci_mode=True/False)``
     forces it on or off;
   * otherwise **fixed point** with ``precision`` (4) decimals: ``0.1235``;
   * if there is no finite non-zero element at all (only zeros, nans, infs),
     the tensor prints in int mode: ``tensor([0., nan])``, even when
     ``sci_mode=True`` was asked for.

   Because the width comes from the finite non-zero values only, a ``nan``
   may be wider than its column: ``tensor([nan, 1.])``.
2. **Nesting.**  A tensor of *n* dimensions prints as nested brackets; the
   rows of a matrix are separated by ``,`` and one newline, the matrices of a
   3-d tensor by a blank line (``n - 1`` newlines between slices of an
   *n*-d tensor), each new line indented to sit under the opening bracket.
3. **Line wrapping.**  A row holds as many elements as fit in
   ``linewidth`` (80) characters after its indentation, counting each element
   as its width plus 2 for ``", "``; the rest continue on the next line.
4. **0-d and empty tensors.**  A 0-d tensor prints its single value:
   ``tensor(3.)``.  An empty tensor prints ``[]`` followed by its shape unless
   it is 1-d (``tensor([], size=(0, 3))``).
5. **Summarising.**  A tensor with more than ``threshold`` (1000) elements
   shows only the first and last ``edgeitems`` (3) entries along every
   dimension, with ``...`` in between.
6. **Suffixes**, in this order, after the values:
   ``device='cuda:0'`` (not for the CPU); ``size=(...)`` (empty tensors that
   are not 1-d, or every tensor when ``edgeitems`` is 0); ``dtype=torch.X``
   when the dtype is not the default one (float32 for floating tensors unless
   ``set_default_dtype`` changed it; int64 and bool count as defaults, *except*
   in an empty tensor, which has no values to reveal its type and so shows any
   dtype other than the default floating one); then ``grad_fn=<MulBackward0>``
   for a tensor made by a recorded operation, or ``requires_grad=True`` for a
   leaf that requires grad.  Each suffix follows ``", "`` on the same line if
   it fits in ``linewidth``, else goes on a new line under the first value.

``repr`` and ``str`` are the same for tensors.  An ``nn.Parameter`` prints
``Parameter containing:`` on a line of its own, then its tensor repr
(:func:`format_parameter`).
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "PrintOptions", "PRINT_OPTS", "set_printoptions", "get_printoptions",
    "printoptions", "format_tensor", "format_parameter",
]


@dataclasses.dataclass
class PrintOptions:
    """The knobs of tensor printing (the same names and defaults as PyTorch).

    precision: decimals after the point (fixed) or in the mantissa (scientific).
    threshold: more elements than this and the tensor is summarised.
    edgeitems: how many entries a summary keeps at each end of every dimension.
    linewidth: the line width used to wrap rows and place suffixes.
    sci_mode:  True/False force scientific notation on/off; None lets the
               values decide.
    """

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


#: The options in force; changed by :func:`set_printoptions`.
PRINT_OPTS = PrintOptions()

_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change how tensors print, like ``torch.set_printoptions``.

    ``profile`` ('default', 'short' or 'full') first sets precision, threshold,
    edgeitems and linewidth together; the other arguments then override it.
    Arguments left as None keep their current value, except ``sci_mode``,
    which is always set (so leaving it out goes back to automatic choice,
    as in PyTorch).  Unlike PyTorch, an unknown profile raises ValueError
    instead of being silently ignored.
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"profile must be one of {sorted(_PROFILES)}, got {profile!r}")
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments for :func:`set_printoptions`."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Use other print options inside a ``with`` block, then restore them."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _ElementFormatter:
    """Chooses one format and one width for all elements of a tensor (rule 1).

    ``shown`` holds the values that will be printed (the summary, if any).
    """

    def __init__(self, shown: np.ndarray, opts: PrintOptions) -> None:
        self.precision = opts.precision
        self.is_floating = shown.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1

        if not self.is_floating:  # integers and bools: plain str()
            for value in np.unique(shown).tolist():
                self.width = max(self.width, len(str(value)))
            return

        candidates = shown[np.isfinite(shown) & (shown != 0)]
        if candidates.size == 0:  # only zeros, nans and infs: int mode, width 1
            return
        # Decide in float64, whatever the tensor's dtype (float16 overflows at 65504).
        magnitudes = np.abs(candidates.astype(np.float64))
        largest, smallest = float(magnitudes.max()), float(magnitudes.min())
        self.int_mode = bool(np.all(candidates == np.ceil(candidates)))
        if opts.sci_mode is None:
            self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8
                                 or smallest < 1.0e-4)
        else:
            self.sci_mode = opts.sci_mode

        for value in np.unique(candidates).tolist():  # Python floats, exact
            if self.sci_mode:
                text = f"{value:.{self.precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}."
            else:
                text = f"{value:.{self.precision}f}"
            self.width = max(self.width, len(text))

    def format(self, value: float | int | bool) -> str:
        """One element, right-aligned to the common width."""
        if not self.is_floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{self.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{self.precision}f}"
        return text.rjust(self.width)


def _shown_values(values: np.ndarray, edgeitems: int) -> np.ndarray:
    """The elements a summary displays, flattened (rule 5), for the formatter.

    Mirrors PyTorch's choice, including an oddity of ``edgeitems=0``: a
    1-d tensor then keeps ``x[:0]`` and ``x[-0:]``, i.e. *all* its values,
    while a higher-dimensional one keeps none.  (Only the size suffix is
    shown in that case, so the oddity never reaches the screen.)
    """
    if values.ndim == 0:
        return values.reshape(1)
    n = values.shape[0]
    if values.ndim == 1:
        if n > 2 * edgeitems:
            return np.concatenate((values[:edgeitems], values[-edgeitems:]))
        return values
    if not edgeitems:
        return values.reshape(-1)[:0]
    rows = (list(range(edgeitems)) + list(range(n - edgeitems, n))
            if n > 2 * edgeitems else range(n))
    return np.concatenate([_shown_values(values[i], edgeitems) for i in rows])


def _format_vector(values: np.ndarray, indent: int, summarize: bool,
                   fmt: _ElementFormatter, opts: PrintOptions) -> str:
    """A 1-d tensor: elements joined by ", ", wrapped to the line width (rule 3)."""
    per_line = max(1, math.floor((opts.linewidth - indent) / (fmt.width + 2)))
    edge = opts.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        items = ([fmt.format(v) for v in values[:edge].tolist()] + [" ..."]
                 + [fmt.format(v) for v in values[-edge:].tolist()])
    else:
        items = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _format_nested(values: np.ndarray, indent: int, summarize: bool,
                   fmt: _ElementFormatter, opts: PrintOptions) -> str:
    """Any tensor: brackets inside brackets, one level per dimension (rule 2).

    ``indent`` is the column of this tensor's opening bracket.
    """
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _format_vector(values, indent, summarize, fmt, opts)
    n, edge = values.shape[0], opts.edgeitems
    if summarize and n > 2 * edge:
        slices = ([_format_nested(values[i], indent + 1, summarize, fmt, opts)
                   for i in range(edge)] + ["..."]
                  + [_format_nested(values[i], indent + 1, summarize, fmt, opts)
                     for i in range(n - edge, n)])
    else:
        slices = [_format_nested(values[i], indent + 1, summarize, fmt, opts)
                  for i in range(n)]
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(slices) + "]"


def _append_suffixes(text: str, suffixes: list[str], indent: int, linewidth: int) -> str:
    """Add ``, suffix`` after the values, or ``,\\n<indent>suffix`` if it won't fit.

    PyTorch measures the last line as 2 characters longer than it really is
    (``len(s) - s.rfind("\\n") + 1``); the measure is kept as is, so that the
    breaks fall where PyTorch puts them.
    """
    parts = [text]
    line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_length += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(
    values: np.ndarray,
    *,
    dtype_name: str,
    is_default_dtype: bool,
    device: str | None,
    requires_grad: bool,
    grad_fn_name: str | None,
    prefix: str = "tensor(",
) -> str:
    """The repr of a tensor, exactly as PyTorch would print it.

    values:           the data, on the host, with its real NumPy dtype
                      (float16/32/64, bfloat16, int8/16/32/64, uint8 or bool).
    dtype_name:       the learntorch dtype's name, e.g. "float64"; printed as
                      ``dtype=torch.float64`` when the dtype must be shown.
    is_default_dtype: for floating tensors, whether the dtype is the default
                      one (float32 unless ``set_default_dtype`` changed it),
                      which is then not printed.  Ignored for integer and bool
                      tensors: the default dtype is always floating, and
                      int64/bool are left out by their own rule.
    device:           None for the CPU, else e.g. "cuda:0".
    requires_grad:    prints ``requires_grad=True`` for a leaf (no grad_fn).
    grad_fn_name:     e.g. "MulBackward0", printed as ``grad_fn=<MulBackward0>``.
    prefix:           what opens the repr; continuation lines are indented by
                      its length.
    """
    values = np.asarray(values)
    if values.dtype.name == "bfloat16":  # ml_dtypes' type (kind "V"): print its values, exact in float32
        values = values.astype(np.float32)
    if values.dtype.kind not in "fiub":
        raise TypeError(f"can't print a tensor of NumPy dtype {values.dtype}")
    opts = PRINT_OPTS
    indent = len(prefix)
    is_floating = values.dtype.kind == "f"
    dtype_suffix = f"dtype=torch.{dtype_name}"

    suffixes: list[str] = []
    if device is not None:
        suffixes.append(f"device='{device}'")

    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if not (is_floating and is_default_dtype):
            suffixes.append(dtype_suffix)
        body = "[]"
    else:
        if not opts.edgeitems:
            suffixes.append(f"size={tuple(values.shape)}")
        if is_floating:
            dtype_is_implied = is_default_dtype
        else:
            dtype_is_implied = values.dtype in (np.dtype(np.int64), np.dtype(np.bool_))
        if not dtype_is_implied:
            suffixes.append(dtype_suffix)
        summarize = values.size > opts.threshold
        shown = _shown_values(values, opts.edgeitems) if summarize else values
        formatter = _ElementFormatter(shown, opts)
        body = _format_nested(values, indent, summarize, formatter, opts)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    return _append_suffixes(prefix + body, suffixes, indent, opts.linewidth)


def format_parameter(
    values: np.ndarray,
    *,
    dtype_name: str,
    is_default_dtype: bool,
    device: str | None,
    requires_grad: bool = True,
) -> str:
    """The repr of an ``nn.Parameter``: a header line, then the tensor's repr.

    A parameter is a leaf, so it never has a grad_fn; it normally requires
    grad and therefore ends with ``requires_grad=True``.
    """
    return "Parameter containing:\n" + format_tensor(
        values, dtype_name=dtype_name, is_default_dtype=is_default_dtype,
        device=device, requires_grad=requires_grad, grad_fn_name=None)
