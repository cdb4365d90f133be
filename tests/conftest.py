"""Shared fixtures and helpers for the differential tests (learntorch against real PyTorch).

Real PyTorch 2.13 (CPU) is the *oracle*: a test builds the same computation with
``learntorch`` and with ``torch`` (the two share their API, so one function
``fn(T)`` taking the module as argument serves both) and compares the results:
values, dtype, shape, ``requires_grad``, ``grad_fn`` names, gradients and the
types of the errors raised.  PyTorch is never a dependency of learntorch; where it
is not installed the differential tests skip with a reason.

Helpers:

* ``torch_oracle`` (fixture): the ``torch`` module, or a skip;
* :func:`to_numpy`, :func:`lt_to_torch`, :func:`torch_to_lt`: cross the border via NumPy;
* :func:`assert_same`: learntorch result vs torch result, recursively (tensors,
  tuples, named tuples, Python numbers, dtypes, devices, sizes);
* :func:`check_both`: run ``fn(learntorch)`` and ``fn(torch)`` and :func:`assert_same` them;
* :func:`raises_both`: both must raise; learntorch's exception must be of the
  same built-in type as torch's, and contain ``match`` where given;
* :func:`grads_both`: same inputs as leaves in both, forward, backward with the
  same random weights, compare outputs, ``grad_fn`` names and every ``.grad``;
* :func:`graph_signature`: the backward graph's node names, nested (``next_functions``);
* :data:`TORCH_TOLERANCES`, :func:`default_tolerances`: ``torch.testing.assert_close``'s
  default ``(rtol, atol)`` per dtype (float32: 1.3e-6, 1e-5);
* :class:`Close`: float values inside a plain-Python *record* (event logs, reprs of
  results) that compare equal (``==``) when close, the way ``assert_close`` compares;
* ``draws_bit_exact`` (fixture): whether torch runs the random kernels learntorch
  emulates bit for bit (see learntorch/random.py), so drawn floats may be compared exactly;
  :func:`assert_draws_same` compares draws by that policy.

Floats are compared with tolerances, never rounded and compared for equality: a value
that rounds to 1.0003 here rounds to 1.0004 on a CPU whose BLAS or libm differs in the
last bit.  Exact equality is kept where exactness holds by construction: integers,
copies, indexing, and values that every machine computes exactly.

Hypothesis runs under a profile registered here: ``ci`` (the default; derandomized, so
``make test`` draws the same examples every time) or ``explore`` (fresh random draws,
more examples), chosen with ``HYPOTHESIS_PROFILE=explore`` (``make test-explore``).
Per-test ``@settings`` take their example count from :func:`max_examples`, which
scales it with the profile.
"""
from __future__ import annotations

import importlib.util
import os
import platform
import re
import sys
from typing import Any, Callable

import numpy as np
import pytest

import learntorch as lt

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # (the test extra brings it; without it only the property tests fail to import)
    settings = None

# ----------------------------------------------------------------------------- Hypothesis profiles
# ``ci`` (the default): derandomized -- every run of ``make test`` draws the same examples,
# so a red test is red for everyone and a green one stays green; no example database.
# ``explore`` (``HYPOTHESIS_PROFILE=explore``, ``make test-explore``): fresh random draws
# (``--hypothesis-seed=N`` replays a run) and more examples, to find what ``ci`` cannot.
# A test's own ``@settings`` inherit everything they do not set from the profile loaded
# here (conftest is imported before the test modules); they set ``max_examples`` through
# :func:`max_examples` and leave ``derandomize`` to the profile (checked at collection).
CI_MAX_EXAMPLES = 50
EXPLORE_MAX_EXAMPLES = 200
if settings is not None:
    settings.register_profile("ci", derandomize=True, database=None, max_examples=CI_MAX_EXAMPLES,
                              deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("explore", derandomize=False, max_examples=EXPLORE_MAX_EXAMPLES,
                              deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def max_examples(n: int) -> int:
    """A test's example count under ``ci`` (``n``), scaled up as much as the loaded profile's
    default is (``explore``: 4 times as many)."""
    return max(1, round(n * settings().max_examples / CI_MAX_EXAMPLES))


TORCH_REASON = ("real PyTorch 2.13 (CPU) is the oracle for differential tests; install it with "
                "pip install torch==2.13.0")

RTOL, ATOL = 1e-5, 1e-6  # float32 comparisons

# torch.testing.assert_close's defaults: (rtol, atol) by dtype.  Comparing two dtypes, the
# looser of the two applies.  Python floats (``.item()``, mostly of float32 tensors) get
# float32's.
TORCH_TOLERANCES = {
    "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
    "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7),
}


def default_tolerances(*dtypes: Any) -> tuple[float, float]:
    """``(rtol, atol)`` of ``torch.testing.assert_close`` for values of these dtypes (NumPy,
    torch or learntorch dtypes, or their names); exact dtypes (integers, bool) give (0, 0)."""
    rtol = atol = 0.0
    for d in dtypes:
        try:
            name = np.dtype(d).name  # NumPy dtypes and scalar types, their names
        except TypeError:
            name = str(d).rsplit(".", 1)[-1]  # torch.float32, learntorch.float32
        r, a = TORCH_TOLERANCES.get(name, (0.0, 0.0))
        rtol, atol = max(rtol, r), max(atol, a)
    return rtol, atol


class Close:
    """Float values inside a plain-Python record, equal (``==``) to another ``Close`` when
    they agree like ``torch.testing.assert_close``: same shape, and elementwise
    ``|actual - expected| <= atol + rtol * |expected|`` (nan equals nan, inf equals inf of
    the same sign), with the looser tolerances of the two.  ``signed_zeros=True`` also
    tells ``-0.0`` from ``0.0`` where both values are zeros.

    Records compared with ``==`` (test_module's, the hook logs) hold these instead of
    rounded numbers."""

    __slots__ = ("values", "rtol", "atol", "signed_zeros")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, values: Any, dtype: Any = None, *, rtol: float | None = None, atol: float | None = None,
                 signed_zeros: bool = False) -> None:
        arr = np.asarray(values)
        if dtype is None:
            dtype = arr.dtype if arr.dtype.kind in "fc" and not isinstance(values, (float, list, tuple)) \
                else np.float32
        d_rtol, d_atol = default_tolerances(dtype)
        self.values = arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64)
        self.rtol = d_rtol if rtol is None else rtol
        self.atol = d_atol if atol is None else atol
        self.signed_zeros = signed_zeros

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Close):
            return NotImplemented
        a, e = self.values, other.values
        if a.shape != e.shape:
            return False
        ok = np.isclose(a, e, rtol=max(self.rtol, other.rtol), atol=max(self.atol, other.atol), equal_nan=True)
        if self.signed_zeros or other.signed_zeros:
            both_zero = (a == 0) & (e == 0)
            ok &= ~both_zero | (np.signbit(a.real) == np.signbit(e.real))
        return bool(ok.all())

    def __repr__(self) -> str:
        values = self.values.item() if self.values.ndim == 0 else self.values.tolist()
        return f"Close({values!r})"


@pytest.fixture(scope="session")
def draws_bit_exact(torch_oracle: Any) -> bool:
    """True where torch runs the random kernels that learntorch emulates bit for bit: the
    x86-64 build with AVX2 (AVX512 machines still dispatch ``normal_`` to AVX2).  There
    ``uniform_(a, b)`` (an FMA) and float32 ``normal_`` from 16 elements on must be
    identical; elsewhere torch computes them differently and they agree to float rounding.
    (``rand`` on [0, 1), integer draws, ``randperm`` and ``bernoulli`` are exact
    everywhere; draws that pass through NumPy's libm -- float64 ``normal_`` from 16
    elements, ``exponential_`` -- only to a few ulps.)  See learntorch/random.py."""
    return (platform.machine().lower() in ("x86_64", "amd64")
            and torch_oracle.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512"))


@pytest.fixture(scope="session")
def torch_oracle():
    """The real ``torch`` module (the oracle), or skip the test with a reason."""
    return pytest.importorskip("torch", reason=TORCH_REASON)


@pytest.fixture
def torch_validates_arguments() -> Any:
    """PyTorch's distribution-argument validation, on, as it is by default, for the oracle side of
    a test.  PyTorch switches it off for the whole process the first time ``torch._dynamo``
    patches itself (``TorchPatcher.patch`` calls ``Distribution.set_default_validate_args(False)``:
    ``torch.compile``, some ``torch.func`` paths), which another test on the same worker may have
    done.  The setting is restored afterwards.  Without torch installed, nothing to do."""
    torch = sys.modules.get("torch")
    if torch is None and importlib.util.find_spec("torch") is not None:
        import torch
    if torch is None:
        yield
        return
    dist = torch.distributions.Distribution
    before = dist._validate_args
    dist.set_default_validate_args(True)
    try:
        yield
    finally:
        dist.set_default_validate_args(before)


@pytest.fixture
def logical(monkeypatch: Any) -> Any:
    """``logical(n, total_memory=...)``: n logical CUDA devices for one test (learntorch's
    stand-in); skipped where a real GPU is present, since then learntorch uses the GPU."""
    cuda = lt.cuda
    monkeypatch.delenv("LEARNTORCH_FAKE_CUDA", raising=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    cuda.cupy_or_none.cache_clear()
    if cuda.cupy_or_none() is not None:
        pytest.skip("a real GPU is present: logical devices are only used where there is none")
    yield cuda.use_logical_devices
    cuda.use_logical_devices(None)


@pytest.fixture
def any_cuda(monkeypatch: Any) -> Any:
    """One CUDA device for a test that must pass on both kinds: the real GPU where CuPy finds
    one (the test then checks learntorch on CuPy: ``make test-gpu``), else one logical device
    (the strict stand-in).  Yields the backend's name, ``"cupy"`` or ``"strict"``, for the few
    lines that differ (the stand-in has no float16, say)."""
    from learntorch import arrays
    cuda = lt.cuda
    monkeypatch.delenv("LEARNTORCH_FAKE_CUDA", raising=False)
    cuda.cupy_or_none.cache_clear()
    if cuda.cupy_or_none() is not None:
        yield "cupy"
        return
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    cuda.use_logical_devices(1)
    arrays._cuda_backend.cache_clear()
    yield "strict"
    cuda.use_logical_devices(None)
    arrays._cuda_backend.cache_clear()


@pytest.fixture(autouse=True)
def _grad_mode_is_restored():
    """A test that fails inside ``no_grad`` (or a buggy grad-mode switch) must not leak
    a disabled grad mode into the next test: restore it in both libraries."""
    yield
    from learntorch.autograd import grad_mode
    grad_mode._state.enabled = True
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_grad_enabled(True)


def _is_torch_tensor(x: Any) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach") and hasattr(x, "numpy") \
        and not isinstance(x, lt.Tensor)


# ----------------------------------------------------------------------------- crossing the border
def to_numpy(x: Any) -> np.ndarray:
    """A NumPy copy of a learntorch or torch tensor (detached, on the host).  A bfloat16 tensor,
    which both refuse to hand to NumPy, comes as float32 (every bfloat16 is a float32: exact)."""
    if isinstance(x, lt.Tensor) or _is_torch_tensor(x):
        x = x.detach().cpu()
        if str(x.dtype) == "torch.bfloat16":
            x = x.float()
        return np.array(x.numpy(), copy=True)
    return np.asarray(x)


def same_on_cpu_and_cuda(fn: Callable, *arrays: np.ndarray, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Run ``fn`` on leaves made from ``arrays`` on the CPU and on ``cuda`` (with the same seed,
    so that dropout and the like draw the same numbers); the outputs (values, dtypes, node
    names) and the gradients of the leaves must agree.  Use it with the ``any_cuda`` fixture."""
    results = {}
    for dev in ("cpu", "cuda"):
        lt.manual_seed(0)
        xs = [lt.tensor(a, device=dev, requires_grad=np.issubdtype(a.dtype, np.floating)) for a in arrays]
        out = fn(*xs)
        outs = out if isinstance(out, tuple) else (out,)
        for o in outs:
            assert str(o.device) == ("cpu" if dev == "cpu" else "cuda:0")
        diff = [o for o in outs if o.requires_grad]
        if diff:
            w = lt.tensor(np.linspace(-1, 1, diff[0].numel()).reshape(tuple(diff[0].shape)).astype(
                to_numpy(diff[0]).dtype), device=dev)
            (diff[0] * w).sum().backward()
        results[dev] = ([(to_numpy(o), o.dtype, o.grad_fn.name() if o.grad_fn else None) for o in outs],
                        [None if x.grad is None else to_numpy(x.grad) for x in xs])
    (cpu_outs, cpu_grads), (gpu_outs, gpu_grads) = results["cpu"], results["cuda"]
    for (c, cd, cn), (g, gd, gn) in zip(cpu_outs, gpu_outs):
        assert cd is gd and cn == gn
        np.testing.assert_allclose(g, c, rtol=rtol, atol=atol)
    for c, g in zip(cpu_grads, gpu_grads):
        assert (c is None) == (g is None)
        if c is not None:
            np.testing.assert_allclose(g, c, rtol=rtol, atol=atol)


def lt_to_torch(x: lt.Tensor, torch: Any, requires_grad: bool | None = None) -> Any:
    """The same numbers as a torch tensor (a new leaf)."""
    out = torch.from_numpy(to_numpy(x))
    rg = x.requires_grad if requires_grad is None else requires_grad
    return out.requires_grad_(rg) if rg else out


def torch_to_lt(x: Any, requires_grad: bool | None = None) -> lt.Tensor:
    """The same numbers as a learntorch tensor (a new leaf)."""
    rg = x.requires_grad if requires_grad is None else requires_grad
    return lt.tensor(to_numpy(x), requires_grad=rg)


# ----------------------------------------------------------------------------- comparing
def dtype_name(d: Any) -> str:
    """``torch.float32`` for both libraries' dtypes."""
    return str(d) if not isinstance(d, lt.dtype) else repr(d)


def assert_same(actual: Any, expected: Any, *, rtol: float | None = RTOL, atol: float | None = ATOL,
                exact: bool = False,
                check_grad_fn: bool = True, check_requires_grad: bool = True, path: str = "result") -> None:
    """Assert that a learntorch value equals the torch value (recursively).

    Tensors: same shape, dtype, ``requires_grad``, ``is_leaf`` and ``grad_fn``
    name; values close (float) or equal (integers, bools, or ``exact=True``).
    ``rtol=None`` / ``atol=None``: ``torch.testing.assert_close``'s default for the
    dtype (:func:`default_tolerances`).
    """
    kw = dict(rtol=rtol, atol=atol, exact=exact, check_grad_fn=check_grad_fn,
              check_requires_grad=check_requires_grad)
    if _is_torch_tensor(expected):
        assert isinstance(actual, lt.Tensor), f"{path}: expected a Tensor, got {type(actual).__name__}"
        assert tuple(actual.shape) == tuple(expected.shape), \
            f"{path}: shape {tuple(actual.shape)} != torch's {tuple(expected.shape)}"
        assert dtype_name(actual.dtype) == dtype_name(expected.dtype), \
            f"{path}: dtype {actual.dtype} != torch's {expected.dtype}"
        if check_requires_grad:
            assert actual.requires_grad == expected.requires_grad, \
                f"{path}: requires_grad {actual.requires_grad} != torch's {expected.requires_grad}"
            assert actual.is_leaf == expected.is_leaf, f"{path}: is_leaf {actual.is_leaf} != {expected.is_leaf}"
        if check_grad_fn:
            a_name = actual.grad_fn.name() if actual.grad_fn is not None else None
            e_name = expected.grad_fn.name() if expected.grad_fn is not None else None
            assert a_name == e_name, f"{path}: grad_fn {a_name} != torch's {e_name}"
        a, e = to_numpy(actual), to_numpy(expected)
        if exact or not np.issubdtype(e.dtype, np.floating):
            np.testing.assert_array_equal(a, e, err_msg=path)
        else:
            d_rtol, d_atol = default_tolerances(actual.dtype, expected.dtype)  # (bfloat16 arrives as float32)
            np.testing.assert_allclose(a, e, rtol=d_rtol if rtol is None else rtol,
                                       atol=d_atol if atol is None else atol, equal_nan=True, err_msg=path)
        return
    if isinstance(expected, (tuple, list)) and not type(expected).__name__ == "Size":
        assert isinstance(actual, (tuple, list)), f"{path}: expected a sequence, got {type(actual).__name__}"
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != torch's {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, path=f"{path}[{i}]", **kw)
        return
    if type(expected).__name__ == "Size":
        assert tuple(actual) == tuple(expected), f"{path}: size {tuple(actual)} != torch's {tuple(expected)}"
        assert repr(actual) == repr(expected), f"{path}: {actual!r} != {expected!r}"
        return
    if type(expected).__name__ == "dtype":
        assert dtype_name(actual) == dtype_name(expected), f"{path}: {actual} != torch's {expected}"
        return
    if type(expected).__name__ == "device":
        assert str(actual) == str(expected), f"{path}: {actual} != torch's {expected}"
        return
    if isinstance(expected, (bool, int, float)):
        assert type(actual) is type(expected), \
            f"{path}: Python type {type(actual).__name__} != torch's {type(expected).__name__}"
        if isinstance(expected, float) and not exact:
            d_rtol, d_atol = default_tolerances("float32")
            np.testing.assert_allclose(actual, expected, rtol=d_rtol if rtol is None else rtol,
                                       atol=d_atol if atol is None else atol, err_msg=path)
        else:
            assert actual == expected, f"{path}: {actual!r} != torch's {expected!r}"
        return
    if expected is None:
        assert actual is None, f"{path}: expected None, got {actual!r}"
        return
    assert actual == expected, f"{path}: {actual!r} != torch's {expected!r}"


def assert_draws_same(actual: Any, expected: Any, bit_exact: bool, err_msg: str = "") -> None:
    """Random draws (learntorch's vs torch's, tensors or arrays): identical where ``bit_exact``
    (the ``draws_bit_exact`` fixture, for draws that are exact on the emulated build),
    else within ``torch.testing.assert_close``'s tolerances for their dtype."""
    a, e = to_numpy(actual), to_numpy(expected)
    assert a.dtype == e.dtype and a.shape == e.shape, f"{err_msg}: {a.dtype}{a.shape} != torch's {e.dtype}{e.shape}"
    if bit_exact or a.dtype.kind not in "fc":
        np.testing.assert_array_equal(a, e, err_msg=err_msg)
    else:
        rtol, atol = default_tolerances(a.dtype)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=err_msg)


def check_both(fn: Callable[[Any], Any], torch: Any, **kw: Any) -> tuple[Any, Any]:
    """``fn(learntorch)`` must equal ``fn(torch)``; returns both results."""
    expected = fn(torch)
    actual = fn(lt)
    assert_same(actual, expected, **kw)
    return actual, expected


def _builtin_base(exc_type: type) -> type:
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


def raises_both(fn: Callable[[Any], Any], torch: Any, match: str | None = None) -> tuple[BaseException,
                                                                                       BaseException]:
    """Both libraries must raise; learntorch the same built-in exception type as torch.

    ``match`` is a regular expression searched in learntorch's message (and in
    torch's, so that the test states a fragment PyTorch really uses)."""
    with pytest.raises(Exception) as t_info:
        fn(torch)
    with pytest.raises(Exception) as l_info:
        fn(lt)
    t_exc, l_exc = t_info.value, l_info.value
    t_base, l_base = _builtin_base(type(t_exc)), _builtin_base(type(l_exc))
    assert l_base is t_base, (f"learntorch raised {type(l_exc).__name__}({l_exc}) where torch raises "
                              f"{type(t_exc).__name__}({t_exc})")
    if match is not None:
        assert re.search(match, str(t_exc)), f"fragment {match!r} is not in torch's message: {t_exc}"
        assert re.search(match, str(l_exc)), f"fragment {match!r} is not in learntorch's message: {l_exc}"
    return l_exc, t_exc


def leaves(torch: Any, *arrays: np.ndarray, requires_grad: bool = True) -> tuple[list, list]:
    """The same NumPy arrays as leaves of both libraries (copies; dtype kept)."""
    lts = [lt.tensor(np.array(a), requires_grad=requires_grad and np.issubdtype(np.asarray(a).dtype, np.floating))
           for a in arrays]
    tts = [torch.tensor(np.array(a), requires_grad=requires_grad and np.issubdtype(np.asarray(a).dtype,
                                                                                   np.floating))
           for a in arrays]
    return lts, tts


def grads_both(fn: Callable[..., Any], torch: Any, *arrays: np.ndarray, seed: int = 0, rtol: float = RTOL,
               atol: float = ATOL, check_grad_fn: bool = True, signature: bool = False,
               select: Callable[[Any], Any] | None = None) -> tuple[list, list]:
    """``fn(T, *leaves)`` in both libraries on the same inputs, then backward with the
    same random weights: outputs, grad_fn names (and with ``signature`` the whole
    backward graph) and every leaf's ``.grad`` must agree.  ``select`` picks the
    differentiable tensor from a tuple result (``sort`` → values)."""
    lts, tts = leaves(torch, *arrays)
    out_l, out_t = fn(lt, *lts), fn(torch, *tts)
    assert_same(out_l, out_t, rtol=rtol, atol=atol, check_grad_fn=check_grad_fn)
    if select is not None:
        out_l, out_t = select(out_l), select(out_t)
    if signature:
        assert graph_signature(out_l.grad_fn) == graph_signature(out_t.grad_fn)
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(tuple(out_t.shape)).astype(to_numpy(out_t).dtype)
    (out_l * lt.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    for i, (a, e) in enumerate(zip(lts, tts)):
        if e.grad is None:
            assert a.grad is None, f"input {i}: torch has no grad, learntorch has {a.grad}"
            continue
        assert a.grad is not None, f"input {i}: learntorch has no grad, torch has {e.grad}"
        assert_same(a.grad, e.grad, rtol=rtol, atol=atol, path=f"input {i} .grad")
    return lts, tts


def graph_signature(node: Any, depth: int = 12) -> Any:
    """``(name, (children…))`` of a ``grad_fn`` and its ``next_functions``, or None."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return (node.name(), tuple(graph_signature(n, depth - 1) for n, _ in node.next_functions))


def _check_hypothesis_settings(items: list) -> None:
    """Every property test runs with the loaded profile's ``derandomize``: a test whose own
    ``@settings`` says otherwise (or that was built before the profile was loaded) would
    draw random examples in ``make test``, or the same ones in ``make test-explore``."""
    if settings is None:
        return
    want = settings().derandomize
    wrong = [item.nodeid for item in items
             if getattr(getattr(item, "obj", None), "is_hypothesis_test", False)
             and item.obj._hypothesis_internal_use_settings.derandomize != want]
    if wrong:
        raise pytest.UsageError(f"these property tests do not follow the Hypothesis profile's derandomize={want} "
                                f"(tests/conftest.py): {', '.join(wrong)}; leave derandomize to the profile")


def pytest_collection_modifyitems(config: Any, items: list) -> None:
    """Property tests follow the Hypothesis profile (:func:`_check_hypothesis_settings`);
    real-GPU tests (``@pytest.mark.gpu``) skip unless CuPy finds a GPU."""
    _check_hypothesis_settings(items)
    gpu_items = [item for item in items if item.get_closest_marker("gpu") is not None]
    if not gpu_items:
        return
    from learntorch.cuda import cupy_or_none
    if cupy_or_none() is not None:
        return
    skip = pytest.mark.skip(reason="needs a real CUDA GPU with CuPy (pip install -e '.[cuda]'); "
                                   "learntorch.cuda.cupy_or_none() found none")
    for item in gpu_items:
        item.add_marker(skip)
