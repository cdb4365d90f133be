"""Corners found by calling every ``torch`` function that learntorch has with a few standard
inputs (a matrix, a 0-d tensor, ints, bools, an empty tensor) in both libraries:

* a 0-d tensor takes ``dim`` 0 and -1 (``loss.sum(0)`` is ``loss``), in every reduction and scan;
* the 0-d and empty corners of ``nonzero``, ``split``, ``narrow``, ``movedim`` and strides;
* bool and integer inputs to ``isclose``, ``logsumexp``, ``nansum``; ``histogram``'s default bins;
* an argument of the wrong type (a float dim, a tensor for a flag or a size, an int where a
  tensor or a dtype is needed) is PyTorch's TypeError (learntorch/tensor_arguments.py).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
import learntorch.nn.functional as LF

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - the differential tests say why they skip
    torch = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")


def _outcome(lib, functional, expr: str, **names) -> object:
    """What ``expr`` gives: its tensors as (shape, dtype name, values, grad_fn name), or the error's type."""
    env = {"torch": lib, "F": functional, **{k: v(lib) for k, v in names.items()}}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = eval(expr, env)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__
    return _describe(result)


def _describe(value: object) -> object:
    if isinstance(value, (tuple, list)):
        return [_describe(v) for v in value]
    if hasattr(value, "detach") and hasattr(value, "shape"):
        grad_fn = value.grad_fn.name() if value.grad_fn is not None else None
        return (tuple(value.shape), str(value.dtype).split(".")[-1],
                np.asarray(value.detach().numpy(), dtype=np.float64), grad_fn)
    return value


def _assert_same(a: object, b: object, expr: str) -> None:
    if isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), expr
        for u, v in zip(a, b):
            _assert_same(u, v, expr)
    elif isinstance(a, tuple) and isinstance(b, tuple):
        assert a[0] == b[0] and a[1] == b[1] and a[3] == b[3], f"{expr}: {a} vs {b}"
        np.testing.assert_allclose(a[2], b[2], rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=expr)
    else:
        assert a == b, f"{expr}: torch {b!r}, learntorch {a!r}"


ZERO_DIM = [f"s.{call}" for call in (
    "sum(0)", "sum(-1)", "sum((0,))", "sum(0, keepdim=True)", "mean(0)", "mean(-1, keepdim=True)", "prod(0)",
    "amax(0)", "amin(-1)", "max(0)", "min(-1, keepdim=True)", "argmax(0)", "argmin(-1)", "std(0)", "var(0)",
    "var(0, correction=0)", "all(0)", "any(-1)", "nansum(0)", "nanmean(0)", "count_nonzero(0)", "logsumexp(0)",
    "logsumexp(-1, keepdim=True)", "cumsum(0)", "cumsum(-1)", "cumprod(0)", "cummax(0)", "cummin(0)", "median(0)",
    "sort(0)", "argsort(0)", "topk(1, 0)", "norm(dim=0)", "detach().aminmax(dim=0)", "softmax(0)", "log_softmax(0)",
    "flip(0)", "movedim(0, 0)", "movedim(-1, 0)", "nonzero()", "argwhere()", "nonzero(as_tuple=True)",
    "chunk(1, 0)", "split(1, 0)", "narrow(0, 0, 1)", "sum(1)", "cumsum(1)", "sum(-2)",
)] + ["torch.sum(s, 0)", "torch.cumprod(s, -1)", "torch.logsumexp(s, 0)", "torch.nonzero(z)",
      "torch.argwhere(z)", "z.nonzero(as_tuple=True)"]


@needs_torch
@pytest.mark.parametrize("expr", ZERO_DIM)
def test_a_zero_dim_tensor_takes_dim_0_and_minus_1_as_pytorch_does(expr: str) -> None:
    names = dict(s=lambda lib: lib.tensor(1.5, requires_grad=True), z=lambda lib: lib.tensor(0.0))
    _assert_same(_outcome(lt, LF, expr, **names), _outcome(torch, TF, expr, **names), expr)


@needs_torch
@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "logsumexp", "cumsum", "cumprod", "norm", "nansum"])
def test_the_gradient_through_a_zero_dim_reduction_is_pytorch_s(op: str) -> None:
    grads = []
    for lib in (lt, torch):
        s = lib.tensor(1.5, requires_grad=True)
        y = s.norm(dim=0) if op == "norm" else getattr(s, op)(0)
        (g,) = lib.autograd.grad(y * 3, s)
        grads.append((tuple(y.shape), float(g)))
    assert grads[0] == grads[1]


def test_a_dim_is_an_int_or_an_integer_tensor_of_one_element() -> None:
    x = lt.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(x.sum(lt.tensor(1)).numpy(), [3.0, 12.0])  # (PyTorch takes it too)
    np.testing.assert_array_equal(x.sum(np.int64(0)).numpy(), [3.0, 5.0, 7.0])
    for bad in (1.0, True, lt.tensor(1.0), lt.tensor([0, 1]), "1"):
        with pytest.raises(TypeError):
            x.sum(bad)


@needs_torch
@pytest.mark.parametrize("expr", [
    "e.stride()", "torch.zeros(2, 0, 3).stride()", "torch.zeros(3, 4)[:, :0].stride()", "e.abs_()",
    "e.clamp_(0, 1)", "e.add_(1)", "e.mul_(2.0)", "e.is_contiguous()", "torch.empty(0).stride()",
])
def test_an_empty_tensor_has_contiguous_strides_and_takes_in_place_ops(expr: str) -> None:
    names = dict(e=lambda lib: lib.zeros(0, 3))
    _assert_same(_outcome(lt, LF, expr, **names), _outcome(torch, TF, expr, **names), expr)


@needs_torch
@pytest.mark.parametrize("expr", [
    "torch.isclose(b, b)", "torch.isclose(b, ~b)", "torch.allclose(b, b)", "torch.isclose(i, i + 1, atol=1)",
    "torch.logsumexp(b, 1)", "torch.logsumexp(i, 0)", "torch.nansum(b)", "torch.nansum(i, 1)", "i.nansum()",
    "torch.histogram(f).hist", "torch.histogram(f).bin_edges", "torch.nansum(f)",
])
def test_bools_and_integers_as_pytorch_takes_them(expr: str) -> None:
    names = dict(b=lambda lib: lib.tensor([[True, False], [False, True]]),
                 i=lambda lib: lib.tensor([[1, 2], [3, 4]]),
                 f=lambda lib: lib.tensor([1.0, 2.0, 2.5, float("nan"), 4.0])[[0, 1, 2, 4]])
    _assert_same(_outcome(lt, LF, expr, **names), _outcome(torch, TF, expr, **names), expr)


# Each raises PyTorch's TypeError: the argument parser refuses its type before anything runs.
WRONG_TYPES = """torch.softmax(x, 1.0)
torch.log_softmax(x, x)
torch.transpose(x, 0, 1.0)
torch.topk(x, 2.0)
torch.sort(x, 2.5)
torch.argsort(x, 2.5)
torch.cummin(x, 2.5)
torch.flatten(x, 2.5)
torch.unsqueeze(x, 2.5)
torch.select(x, x, 0)
torch.take_along_dim(x, i, x)
torch.nanmedian(x, x)
torch.unflatten(x, x, (2, 2))
torch.diagflat(x, x)
torch.rot90(x, x)
torch.combinations(v, 2.5)
torch.group_norm(x, 2.5)
torch.pixel_unshuffle(x, 2.5)
torch.dist(x, x, x)
torch.zeros(x)
torch.zeros(x, 2)
torch.ones(2, x)
torch.randn(x, 1)
torch.empty(2.5)
torch.eye(x)
torch.eye(3, 2.5)
torch.tril_indices(x, 3)
torch.triu_indices(3, 3, 1.5)
torch.linspace(0, 1, 2.5)
torch.logspace(0, 1, 2.5)
torch.arange(x)
torch.arange(0, x)
torch.range(x, 3)
torch.promote_types(x, torch.float32)
torch.can_cast(torch.float32, 1)
torch.atleast_1d(x, 0)
torch.atleast_2d(x, 2.5)
torch.atleast_3d(v, 1)
torch.meshgrid(v, 0)
torch.block_diag(x, 2.5)
torch.cartesian_prod(v, 1)
torch.broadcast_tensors(x, 1)
F.softmax(x, 1.0)
F.avg_pool1d(c, x)
F.adaptive_avg_pool1d(c, x)
F.dropout(x, 0.5, x)
torch.sum(x, 1.0)
torch.mean(x, 2.5)
torch.amax(x, 1.0)
torch.logsumexp(x, 1.0)""".splitlines()


@needs_torch
@pytest.mark.parametrize("expr", WRONG_TYPES)
def test_an_argument_of_the_wrong_type_is_pytorch_s_type_error(expr: str) -> None:
    names = dict(x=lambda lib: lib.randn(3, 4), v=lambda lib: lib.randn(3), c=lambda lib: lib.randn(1, 2, 8),
                 i=lambda lib: lib.tensor([[0, 1, 2, 0]]))
    assert _outcome(torch, TF, expr, **names) == "TypeError", f"the list is wrong: torch accepts {expr}"
    assert _outcome(lt, LF, expr, **names) == "TypeError"


def test_the_message_names_the_argument_and_what_it_should_be() -> None:
    x = lt.randn(3, 4)
    with pytest.raises(TypeError, match=r"^softmax\(\): argument 'dim' \(position 2\) must be int, not float$"):
        lt.softmax(x, 1.0)
    with pytest.raises(TypeError, match=r"^zeros\(\): argument 'size' \(position 1\) must be tuple of ints, not "):
        lt.zeros(x)
    with pytest.raises(TypeError, match=r"^eye\(\): argument 'm' \(position 2\) must be int, not float$"):
        lt.eye(3, 2.5)
    with pytest.raises(TypeError, match=r"^promote_types\(\): argument 'type1' \(position 1\) must be torch.dtype"):
        lt.promote_types(x, lt.float32)
    with pytest.raises(TypeError, match=r"^expected Tensor as element 1 in argument 0, but got int$"):
        lt.atleast_1d(x, 0)
    # a right type with a wrong value keeps its own error
    with pytest.raises(IndexError, match="Dimension out of range"):
        lt.softmax(x, 5)
    with pytest.raises(RuntimeError, match="non-negative"):
        lt.zeros(-1)


@needs_torch
@pytest.mark.parametrize("expr", ["v.tile(2)", "v.tile(2, 3)", "v.tile((2, 3))", "x.tile(2)", "v.broadcast_to(3)",
                                  "v.broadcast_to((2, 3))", "torch.tile(v, (2,))", "torch.tile(v, 2)",
                                  "torch.broadcast_to(v, 3)"])
def test_tile_and_broadcast_to_methods_take_sizes_as_pytorch_s_methods_do(expr: str) -> None:
    names = dict(v=lambda lib: lib.arange(3.0), x=lambda lib: lib.ones(2, 2))
    _assert_same(_outcome(lt, LF, expr, **names), _outcome(torch, TF, expr, **names), expr)


@needs_torch
@pytest.mark.parametrize("expr", ["x.flip(0)", "x.flip(0, 1)", "x.flip((0, 1))", "x.flip(dims=(0, 1))", "x.flip([])",
                                  "x.flip(dims=0)", "x.flip()", "torch.flip(x, (0,))", "torch.flip(x, dims=[1])",
                                  "torch.flip(x, 0)", "torch.flip(x)"])
def test_flip_takes_its_dims_as_pytorch_s_function_and_method_do(expr: str) -> None:
    names = dict(x=lambda lib: lib.arange(6.0).reshape(2, 3))
    _assert_same(_outcome(lt, LF, expr, **names), _outcome(torch, TF, expr, **names), expr)


@needs_torch
@pytest.mark.parametrize("expr", ["F.kl_div(x, t, reduction='sum')", "F.kl_div(x, -t, reduction='sum')",
                                  "F.kl_div(x, t * 0, reduction='sum')", "F.kl_div(x, t, reduction='none')"])
def test_kl_div_is_xlogy_of_the_target_minus_target_times_input(expr: str) -> None:
    """PyTorch's formula: 0 where the target is 0, nan where it is negative (not a silent 0)."""
    names = dict(x=lambda lib: lib.linspace(-1.0, 1.0, 6).reshape(2, 3).requires_grad_(),
                 t=lambda lib: lib.linspace(0.1, 0.9, 6).reshape(2, 3))
    _assert_same(_outcome(lt, LF, expr, **names), _outcome(torch, TF, expr, **names), expr)


def test_the_corners_run_on_a_logical_cuda_device(logical: object) -> None:
    """Written against the array API: the same answers on learntorch's CUDA stand-in as on the CPU."""
    logical(1)
    exprs = ["s.sum(0)", "s.mean(-1)", "s.cumsum(0)", "s.cumprod(0)", "s.logsumexp(0)", "s.nonzero()",
             "z.nonzero(as_tuple=True)", "torch.nansum(f)", "torch.nansum(f, 0)", "torch.isclose(b, b)",
             "e.stride()", "e.abs_()"]
    for expr in exprs:
        results = []
        for device in ("cpu", "cuda"):
            env = dict(torch=lt, s=lt.tensor(1.5, device=device), z=lt.tensor(0.0, device=device),
                       f=lt.tensor([1.0, float("nan"), 2.0], device=device),
                       b=lt.tensor([True, False], device=device), e=lt.zeros(0, 3, device=device))
            out = eval(expr, env)
            results.append(_describe(tuple(o.cpu() for o in out) if isinstance(out, tuple) and expr != "e.stride()"
                                     else out.cpu() if hasattr(out, "cpu") else out))
        _assert_same(results[1], results[0], expr)


# A dtype the PyTorch kernel has no code for: refused, with PyTorch's error type (NumPy would compute it).
WRONG_DTYPES = """b - 1
1 - b
b - 1.5
i - b
i - True
b - True
torch.sub(b, 1)
torch.rsub(b, 1)
F.leaky_relu(i)
F.elu(b)
F.selu(i)
F.celu(i)
F.silu(i)
F.mish(b)
F.softplus(i)
F.logsigmoid(i)
F.hardsigmoid(i)
F.hardswish(b)
F.hardshrink(i)
F.softshrink(i)
F.rrelu(i)
F.glu(i.reshape(1, 4))
F.hardtanh(b)
F.relu6(b)
F.threshold(b, 0.1, 0.2)
F.elu_(i.clone())
torch.nanmean(i)
i.nanmean()
torch.lerp(i, i, 0.5)
torch.lerp(b, b, 0.5)
i.frac()
torch.median(b)
torch.median(b, 0)
torch.nanmedian(b)
torch.kthvalue(b, 1)
torch.meshgrid(f.reshape(2, 2), f, indexing='ij')
torch.meshgrid(f, indexing='zz')
F.max_pool1d(i.reshape(1, 1, 4), 2)
torch.dist(i, i)
torch.cdist(i.reshape(1, 4), i.reshape(1, 4).float())""".splitlines()


@needs_torch
@pytest.mark.parametrize("expr", WRONG_DTYPES)
def test_a_dtype_the_kernel_does_not_take_is_refused_as_in_pytorch(expr: str) -> None:
    names = dict(b=lambda lib: lib.tensor([True, False, True, True]), i=lambda lib: lib.tensor([1, -2, 3, 4]),
                 f=lambda lib: lib.tensor([1.0, 2.0, 3.0, 4.0]))
    expected = _outcome(torch, TF, expr, **names)
    assert isinstance(expected, str), f"the list is wrong: torch accepts {expr}"
    assert _outcome(lt, LF, expr, **names) == expected


@needs_torch
@pytest.mark.parametrize("expr", ["i - 1", "1 - i", "i - i", "f - True", "i + True", "~b", "b ^ b", "F.hardtanh(i)",
                                  "F.threshold(i, 1, 0)", "F.relu(i)", "i.abs()", "i.floor()", "torch.median(i)",
                                  "torch.kthvalue(i, 2)", "i.float().nanmean()", "torch.lerp(f, f, 0.5)"])
def test_the_dtypes_the_kernels_do_take_still_work(expr: str) -> None:
    names = dict(b=lambda lib: lib.tensor([True, False, True, True]), i=lambda lib: lib.tensor([1, -2, 3, 4]),
                 f=lambda lib: lib.tensor([1.0, 2.0, 3.0, 4.0]))
    _assert_same(_outcome(lt, LF, expr, **names), _outcome(torch, TF, expr, **names), expr)
