"""Whole programs, run once with ``torch`` bound to learntorch and once with real PyTorch.

The course's promise is that a program from the notes (``/work/shared/seeds``,
the syllabus) -- or a typical beginner program beyond them -- runs *unchanged*
after ``import learntorch as torch``.  Each file in ``fixtures/notes_programs/``
is such a program, written with ``import torch``.  This test executes it twice
in this process:

* as is, with real PyTorch 2.13 (the oracle);
* with every ``import torch...`` redirected to ``learntorch...`` by a small
  ``__import__`` wrapper placed in the program's builtins (nothing is patched
  globally, so real torch keeps working beside it).

and compares what a learner would see:

* the printed output: the text must be equal once numbers are taken out, and the
  numbers must agree to the file's tolerance (``# compare: rtol=... atol=...``,
  default rtol=1e-5, atol=1e-6) plus one unit in the last printed digit: two values
  within rounding of each other can print as 1.0003 and 1.0004 (a tensor's repr
  keeps four decimals), so a printed number is never compared beyond its digits;
* how the program ended: both finish, or both raise an exception of the same
  built-in type (a file that reproduces a mistake in the notes says
  ``# expect-error: TypeError`` and then *must* raise it in both);
* the tensors left in its global variables: same shape, dtype and values;
* with ``# compare-warnings``, the categories of the warnings raised.

Before each run Python's ``random``, NumPy's legacy generator and the library's
generator are all reseeded (the library with PyTorch's own start-up seed,
67280421310721), and print options and the default dtype are reset, so a program
that never calls ``manual_seed`` draws the numbers it would draw in a fresh process
and prints as it would there.  Programs that need a GPU or files are written
in their CPU / temporary-directory form; each file's docstring says why.
"""
from __future__ import annotations

import builtins
import contextlib
import io
import random
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import learntorch

from conftest import assert_same

FIXTURE_DIR = Path(__file__).parents[1] / "fixtures" / "notes_programs"
PROGRAMS = sorted(FIXTURE_DIR.glob("*.py"))
TORCH_START_SEED = 67280421310721  # c10's default_rng_seed_val: the seed of a fresh process
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


@dataclass
class Outcome:
    stdout: str
    error: BaseException | None
    namespace: dict = field(default_factory=dict)
    warning_categories: list = field(default_factory=list)


def _learntorch_import(real_import: Any) -> Any:
    """``__import__`` that reads ``torch`` as ``learntorch`` (``torch.nn`` as ``learntorch.nn``...)."""
    def imp(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            name = "learntorch" + name[len("torch"):]
        return real_import(name, globals, locals, fromlist, level)
    return imp


def run_program(source: str, path: Path, use_learntorch: bool, lib: Any) -> Outcome:
    """Execute ``source`` as a fresh ``__main__``-like module; capture stdout, the error, warnings."""
    env_builtins = dict(vars(builtins))
    if use_learntorch:
        env_builtins["__import__"] = _learntorch_import(builtins.__import__)
    namespace: dict = {"__name__": "notes_program", "__file__": str(path), "__builtins__": env_builtins}
    random.seed(0)
    np.random.seed(0)
    lib.manual_seed(TORCH_START_SEED)
    lib.set_grad_enabled(True)
    # what a fresh process starts with (an earlier program may have changed them and not restored them)
    lib.set_printoptions(profile="default", sci_mode=None)
    lib.set_default_dtype(lib.float32)
    out = io.StringIO()
    error = None
    threads = lib.get_num_threads() if lib is not learntorch else None
    if threads is not None:
        lib.set_num_threads(1)  # torch's thread pool only slows these tiny programs down
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        try:
            exec(compile(source, str(path), "exec"), namespace)
        except Exception as e:  # noqa: BLE001 - the program's own error is what we compare
            error = e
    lib.set_grad_enabled(True)
    if threads is not None:
        lib.set_num_threads(threads)
    categories = sorted({w.category.__name__ for w in caught})
    return Outcome(out.getvalue(), error, namespace, categories)


def _header(source: str, key: str) -> str | None:
    m = re.search(rf"^# {key}:?(.*)$", source, re.MULTILINE)
    return None if m is None else m.group(1).strip()


def _tolerance(source: str) -> tuple[float, float]:
    spec = _header(source, "compare") or ""
    kw = dict(re.findall(r"(rtol|atol)=([0-9.e-]+)", spec))
    return float(kw.get("rtol", 1e-5)), float(kw.get("atol", 1e-6))


def _builtin_base(exc_type: type) -> type:
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


DECIMALS = re.compile(r"[-+]?\d*\.(\d+)(?:[eE]([-+]?\d+))?")


def last_digit_unit(token: str) -> float:
    """One unit in the last printed digit of a number: ``1.0003`` -> 1e-4, ``2.50e-03`` -> 1e-5;
    0 for integers and numbers without decimals (``7``, ``3.``), which are printed exactly."""
    m = DECIMALS.fullmatch(token)
    return 0.0 if m is None else 10.0 ** (int(m.group(2) or 0) - len(m.group(1)))


def compare_output(actual: str, expected: str, rtol: float, atol: float) -> None:
    """Equal text around the numbers, numbers within tolerance plus one unit in the last
    printed digit (line by line, for a readable diff)."""
    a_lines, e_lines = actual.splitlines(), expected.splitlines()
    assert len(a_lines) == len(e_lines), (f"learntorch printed {len(a_lines)} lines, torch {len(e_lines)}:\n"
                                          f"--- learntorch\n{actual[:2000]}\n--- torch\n{expected[:2000]}")
    for n, (a, e) in enumerate(zip(a_lines, e_lines), 1):
        a, e = ADDRESS.sub(" at 0x…", a), ADDRESS.sub(" at 0x…", e)  # <… object at 0x7f…>: memory addresses
        a_text, e_text = NUMBER.sub("#", a), NUMBER.sub("#", e)
        a_text, e_text = re.sub(r"\s+", " ", a_text), re.sub(r"\s+", " ", e_text)
        assert a_text == e_text, f"line {n} differs:\n  learntorch: {a}\n  torch:      {e}"
        a_tokens, e_tokens = NUMBER.findall(a), NUMBER.findall(e)
        a_nums = np.array([float(x) for x in a_tokens])
        e_nums = np.array([float(x) for x in e_tokens])
        printed = np.array([max(last_digit_unit(x), last_digit_unit(y)) for x, y in zip(a_tokens, e_tokens)])
        with np.errstate(invalid="ignore"):
            close = (np.abs(a_nums - e_nums) <= atol + printed + rtol * np.abs(e_nums)) | (a_nums == e_nums) \
                | (np.isnan(a_nums) & np.isnan(e_nums))
        assert close.all(), (f"line {n}: numbers differ beyond rtol={rtol}, atol={atol} and the printed digits "
                             f"(at positions {np.flatnonzero(~close).tolist()}):\n  learntorch: {a}\n  torch:      {e}")


def _is_torch_tensor(x: Any, torch: Any) -> bool:
    return isinstance(x, torch.Tensor)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_runs_the_same(path: Path, torch_oracle: Any) -> None:
    torch = torch_oracle
    source = path.read_text(encoding="utf-8")
    rtol, atol = _tolerance(source)
    expected = run_program(source, path, use_learntorch=False, lib=torch)
    actual = run_program(source, path, use_learntorch=True, lib=learntorch)

    expect_error = _header(source, "expect-error")
    if expect_error:
        assert expected.error is not None and type(expected.error).__name__ == expect_error, \
            f"the fixture says torch raises {expect_error}; torch ended with {expected.error!r}"
    if expected.error is None:
        assert actual.error is None, f"learntorch raised {actual.error!r}; torch ran to the end"
    else:
        assert actual.error is not None, f"torch raised {expected.error!r}; learntorch ran to the end"
        # ``except <torch's built-in type>`` in a learner's program must catch learntorch's error too
        assert isinstance(actual.error, _builtin_base(type(expected.error))), \
            f"learntorch raised {actual.error!r} where torch raises {expected.error!r}"

    compare_output(actual.stdout, expected.stdout, rtol, atol)

    for name, value in expected.namespace.items():
        if name.startswith("_") or not _is_torch_tensor(value, torch):
            continue
        got = actual.namespace.get(name)
        assert isinstance(got, learntorch.Tensor), f"global {name!r}: learntorch left {type(got).__name__}"
        assert_same(got, value, rtol=rtol, atol=atol, check_grad_fn=True, path=f"global {name!r}")

    if _header(source, "compare-warnings") is not None:
        assert actual.warning_categories == expected.warning_categories, \
            f"warnings: learntorch {actual.warning_categories}, torch {expected.warning_categories}"


def test_the_harness_catches_a_difference(torch_oracle: Any, tmp_path: Path) -> None:
    """The comparison must be able to fail: a program whose output depends on the library does."""
    path = tmp_path / "differs.py"
    source = "import torch\nprint(torch.__name__)\n"
    a = run_program(source, path, True, learntorch)
    e = run_program(source, path, False, torch_oracle)
    assert a.stdout.strip() == "learntorch" and e.stdout.strip() == "torch"
    with pytest.raises(AssertionError):
        compare_output(a.stdout, e.stdout, 1e-5, 1e-6)
    with pytest.raises(AssertionError):  # (1.0 and 1.1 may be 1.04999 and 1.05: a printed digit can flip)
        compare_output("loss 1.0\n", "loss 1.2\n", 1e-5, 1e-6)
    with pytest.raises(AssertionError):
        compare_output("loss 1.0000001\n", "loss 1.0000301\n", 1e-5, 1e-6)
    compare_output("tensor([1.0000, 2.0000])\n", "tensor([1.0000,  2.0000])\n", 1e-5, 1e-6)
    # one unit in the last printed digit: the same value to rounding, printed on either side of a digit
    compare_output("tensor([1.0004, 2.50e-03])\n", "tensor([1.0003, 2.51e-03])\n", 1e-5, 1e-6)
    with pytest.raises(AssertionError):
        compare_output("tensor([1.0005])\n", "tensor([1.0003])\n", 1e-5, 1e-6)
    with pytest.raises(AssertionError):
        compare_output("step 3\n", "step 4\n", 1e-5, 1e-6)  # integers are printed exactly
    with pytest.raises(AssertionError):
        compare_output("loss nan\n", "loss 1.0\n", 1e-5, 1e-6)
