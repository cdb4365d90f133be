"""Wrong arguments to ``torch.*`` functions (and to the Tensor methods of the same names) raise
the exception type PyTorch raises, and what PyTorch refuses is refused:

* a float where an int is, an int or a tensor where a flag is (``torch.chunk(x, 2.5)``,
  ``torch.unique(x, 1)``): checked before the call (``tensor_arguments.CHECKED_FIRST``), since
  the call itself would go on and truncate the float or take the int's truth;
* ``torch.reshape(x, -1)`` and ``torch.permute(x, 1)`` take the shape as one tuple, where the
  methods also take the sizes one by one (``x.reshape(-1)``);
* a tensor where sizes go (``torch.split(x, t)``), three tensors to ``max``/``min``/``dot``, a
  number for ``trapezoid``'s ``x``, a non-bool mask, an ill-typed ``broadcast_shapes`` shape;
* bool and 0-d inputs that PyTorch's kernels refuse, and the order in which PyTorch checks an
  argument before the dtype (``histc``, ``kthvalue``).
"""
from __future__ import annotations

import warnings

import pytest

import learntorch as lt

try:
    import torch
except ImportError:  # pragma: no cover - the differential tests say why they skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")

INPUTS = dict(
    x=lambda lib: lib.tensor([[0.1, -0.2, 0.6, 0.1], [1.0, 2.0, -1.0, 0.5], [0.3, 0.4, 0.5, 0.6]]),
    v=lambda lib: lib.tensor([0.1, -0.2, 0.6]),
    s=lambda lib: lib.tensor(1.5),
    i=lambda lib: lib.arange(12).reshape(3, 4),
    b=lambda lib: lib.arange(12).reshape(3, 4) % 2 == 0,
    e=lambda lib: lib.zeros(0, 3),
    m=lambda lib: lib.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]]),
)


def _outcome(lib, expr: str) -> str:
    """The type of the error ``expr`` raises, or "ok"."""
    env = {"torch": lib, **{k: make(lib) for k, make in INPUTS.items()}}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(expr, env)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__
    return "ok"


# what PyTorch refuses and learntorch accepted (each is PyTorch's TypeError unless it says otherwise)
REFUSED = """torch.reshape(x, -1)
torch.reshape(x, 12)
torch.reshape(x)
torch.reshape(x, 2, 6)
torch.permute(x, 1)
torch.permute(x, 1, 0)
x.reshape()
x.t().reshape()
x.permute()
torch.chunk(x, 2.5)
x.chunk(2.5)
x.chunk(x)
torch.unsafe_chunk(e, 2.5)
torch.tril(x, 2.5)
x.triu(2.5)
x.tril(x)
torch.diag(v, 2.5)
v.diag(2.5)
torch.diag_embed(x, 2.5)
torch.diagflat(x, 2.5)
s.diagflat(s)
torch.unique(x, 1)
torch.unique(x, 0)
torch.unique(x, 2.5)
torch.unique(x, x)
x.unique(1)
torch.unique_consecutive(x, 1)
x.unique_consecutive(0)
torch.isclose(x, x, x)
x.isclose(x, x)
torch.allclose(x, x, x)
torch.nan_to_num(x, x)
x.nan_to_num(x)
torch.lu(m, 1)
torch.lu(m, 0)
m.lu(1)
torch.svd(x, 1)
torch.svd(v, 1)
x.svd(1)
torch.sort(x, 2.5)
x.sort(x)
x.argsort(2.5)
torch.mvlgamma(x, 2.5)
x.rot90(2.5)
x.kthvalue(2.5)
x.matrix_power(2.5)
x.histc(x)
torch.logit(x, x)
torch.split(x, x)
x.split(x)
x.split(x, x)
torch.dot(v, v, v)
v.dot(v, v)
torch.max(x, x, x)
torch.min(x, x, x)
x.max(x, x)
torch.movedim(x, x, x)
x.movedim(x, x)
torch.moveaxis(x, x, x)
torch.full_like(x, x)
torch.column_stack(x)
torch.tensor_split(s, 2.5)
x.tensor_split(x, x)
torch.vsplit(x, x)
torch.hsplit(x, 2.5)
torch.dsplit(x, 2.5)
torch.trapz(x, 1)
torch.trapezoid(x, 2.5)
torch.trapezoid(s, 1)
torch.cumulative_trapezoid(x, 1)
torch.as_tensor(x, torch.float64)
torch.inner(s, 1)
torch.scalar_tensor(x)
torch.tile(e, e)
torch.empty_strided(e, e)
torch.lu_unpack(s, s, s)
torch.triangular_solve(s, s, s)
torch.nanmean(i, 2.5)
i.nanmean(2.5)
torch.std_mean(i, 2.5)
torch.var_mean(i, x)
torch.histogram(x, 2.5)
torch.range(5)
torch.result_type(x)
torch.result_type(x, x, x)
torch.no_grad(x, x)
torch.enable_grad(x, 1)
torch.is_autocast_enabled(x)
torch.get_autocast_dtype(x)
torch.split(e, -1)  # RuntimeError
torch.unsafe_split(e, -1)  # RuntimeError
torch.broadcast_shapes(e)  # RuntimeError
torch.flipud(s)  # RuntimeError
torch.tensor_split(x, x)  # RuntimeError
torch.masked_select(x, i)  # RuntimeError
torch.clamp(b, b, b)  # NotImplementedError
torch.trace(b[:3, :3])  # NotImplementedError
torch.isin(b, 1)  # RuntimeError
torch.cov(b)  # RuntimeError
torch.trapz(b)  # RuntimeError
torch.cumulative_trapezoid(b)  # RuntimeError
""".splitlines()

# both refuse, learntorch with another type
OTHER_TYPE = """torch.broadcast_shapes(x, 2.5)
torch.broadcast_shapes(v)
torch.broadcast_shapes((3,), -1)
torch.broadcast_shapes((1,), -1)
torch.einsum(x, x)
torch.einsum(v, v)
torch.einsum(s)
torch.tensor_split(s, 1)
s.tensor_split(1)
x.tensor_split(x)
torch.masked_select(x, x)
x.masked_select(x)
torch.split(s, 2.5)
torch.lu(m, 2.5)
torch.svd(s, s)
torch.fliplr(v)
torch.unsafe_chunk(s, 1)
torch.matrix_power(s, 1)
torch.combinations(v, -1)
torch.cross(s, s)
torch.linalg.cross(b[:, :3], b[:, :3])
torch.bitwise_not(x)
x.bitwise_not()
~x
torch.bincount(b)
torch.histc(i, 0)
torch.histogram(i, -1)
torch.histogram(x, x)
torch.kthvalue(b, 0)
torch.kthvalue(b, 1)
torch.searchsorted(s, s)
torch.searchsorted(b, b)
torch.mvlgamma(b, 1)
torch.gradient(b)
torch.searchsorted(b, 1)
torch.repeat_interleave(x)
torch.repeat_interleave(i)
torch.repeat_interleave(v, v)
torch.repeat_interleave(e, e)
torch.triangular_solve(i, i)
torch.norm(x, x)
torch.norm(i, x)
torch.norm(e, -1)
x.fill_(x, x)""".splitlines()

# right calls that must keep working (the forms next to the refused ones)
ACCEPTED = """torch.reshape(x, (-1,))
torch.reshape(x, [2, 6])
torch.reshape(x, shape=(12,))
torch.reshape(x, x.shape)
x.reshape(-1)
x.reshape(2, 6)
torch.permute(x, (1, 0))
torch.permute(x, dims=[1, 0])
x.permute(1, 0)
torch.chunk(x, 2)
torch.chunk(x, torch.tensor(2))
x.chunk(2, 1)
torch.tril(x, 1)
torch.tril(x, torch.tensor(1))
torch.unique(x, True)
torch.unique(x, sorted=False, return_counts=True)
x.unique(dim=0)
torch.unique_consecutive(x, return_inverse=True)
torch.isclose(x, x, 1e-3, 1)
torch.isclose(x, x, torch.tensor(0.1))
torch.allclose(x, x)
torch.nan_to_num(x, 0.0)
torch.nan_to_num(x, torch.tensor(1.0))
torch.lu(m, True)
torch.svd(x, True)
torch.sort(x, 0, True)
torch.split(x, 2)
torch.split(x, [1, 2])
torch.split(x, torch.tensor(2))
x.split([1, 2], 0)
torch.dot(v, v)
torch.max(x, x)
torch.max(x, 1, True)
x.min(x)
torch.movedim(x, 0, 1)
torch.movedim(x, (0, 1), (1, 0))
torch.full_like(x, 2.5)
torch.full_like(x, torch.tensor(2.0))
torch.column_stack([v, v])
torch.tensor_split(x, 2)
torch.tensor_split(x, torch.tensor([1, 2]))
torch.tensor_split(x, torch.tensor(2))
torch.hsplit(x, 2)
torch.vsplit(x, [1])
torch.trapz(x, dx=2.0)
torch.trapz(x, dim=0)
torch.trapezoid(x, torch.arange(4.0))
torch.cumulative_trapezoid(x, dx=0.5)
torch.as_tensor(x, dtype=torch.float64)
torch.inner(s, s)
torch.scalar_tensor(2)
torch.masked_select(x, b)
torch.broadcast_shapes((3, 1), (4,), 1)
torch.broadcast_shapes()
torch.einsum('ij,kj->ik', x, x)
torch.einsum(x, [0, 1], [1, 0])
torch.clamp(b, 0, 1)
b.clamp(min=b)
torch.clamp(x, x, x)
torch.cross(m, m)
~b
torch.bitwise_not(i)
torch.histc(x, 3)
torch.histogram(x, 3)
torch.kthvalue(x, 1)
torch.searchsorted(v.sort()[0], s)
torch.isin(i, 1)
torch.cov(x)
torch.range(0, 5)
torch.result_type(x, 2)
torch.no_grad(x)
torch.is_autocast_enabled()
torch.nanmean(x, 1)
torch.std_mean(x, (0, 1))
torch.repeat_interleave(torch.tensor([1, 2]))
torch.repeat_interleave(x, torch.tensor([1, 2, 0]), 0)
torch.norm(x, torch.tensor(2.0))
torch.norm(e, 0)
x.norm(1)
x.fill_(2)""".splitlines()


def _expected(line: str) -> tuple[str, str]:
    expr, _, error = line.partition("#")
    return expr.strip(), error.strip() or "TypeError"


@needs_torch
@pytest.mark.parametrize("expr", [_expected(line)[0] for line in REFUSED + OTHER_TYPE + ACCEPTED])
def test_the_outcome_is_pytorch_s(expr: str) -> None:
    assert _outcome(lt, expr) == _outcome(torch, expr), expr


@pytest.mark.parametrize("line", REFUSED)
def test_what_pytorch_refuses_is_refused(line: str) -> None:
    expr, error = _expected(line)
    assert _outcome(lt, expr) == error, expr


@pytest.mark.parametrize("expr", ACCEPTED)
def test_the_right_forms_keep_working(expr: str) -> None:
    assert _outcome(lt, expr) == "ok", expr


def test_the_messages_say_what_was_wrong() -> None:
    x = lt.ones(3, 4)
    with pytest.raises(TypeError, match=r"reshape\(\): argument 'shape' \(position 2\) must be tuple of ints, not int"):
        lt.reshape(x, -1)
    with pytest.raises(TypeError, match=r"unique\(\): argument 'sorted' \(position 2\) must be bool, not int"):
        lt.unique(x, 1)
    with pytest.raises(TypeError, match=r"chunk\(\): argument 'chunks' \(position 1\) must be int, not float"):
        x.chunk(2.5)
    with pytest.raises(TypeError, match=r"lu\(\): argument 'pivot'"):  # (not the package's name, legacy_lu)
        lt.lu(lt.eye(2), 1)
    with pytest.raises(TypeError, match=r"dx=1"):  # the fix: the spacing by name
        lt.trapezoid(x, 1)
    with pytest.raises(TypeError, match=r"torch.max\(torch.max\(a, b\), c\)"):
        x.max(x, x)
    with pytest.raises(RuntimeError, match="equation string comes first"):
        lt.einsum(x, x)
