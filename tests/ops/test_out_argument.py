"""``out=`` on torch-level functions (learntorch/ops/out_argument.py), against torch.

The tensors tutorial writes ``torch.matmul(tensor, tensor.T, out=y3)`` and
``torch.mul(tensor, tensor, out=z3)``: the result lands in ``out``, ``out`` is
returned (the same object), its version bumps, a wrong shape is resized (with
PyTorch's warning when ``out`` had elements), a refused cast and a grad-requiring
argument raise PyTorch's errors.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
from tests.conftest import assert_same, raises_both

rng = np.random.default_rng(0)
A = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((3, 2)).astype(np.float32)
I = np.array([[1, 2, 0], [0, 1, 2]], dtype=np.int64)

# name: a call of T's function with the given out (inputs are fresh tensors of A, B, I)
CALLS = {
    "matmul": lambda T, o: T.matmul(T.tensor(A), T.tensor(B), out=o),
    "mul": lambda T, o: T.mul(T.tensor(A), T.tensor(A), out=o),
    "mm": lambda T, o: T.mm(T.tensor(A), T.tensor(B), out=o),
    "bmm": lambda T, o: T.bmm(T.tensor(A)[None], T.tensor(B)[None], out=o),
    "mv": lambda T, o: T.mv(T.tensor(A), T.tensor(B)[:, 0], out=o),
    "dot": lambda T, o: T.dot(T.tensor(A)[0], T.tensor(A)[1], out=o),
    "addmm": lambda T, o: T.addmm(T.tensor(A)[:, :2], T.tensor(A), T.tensor(B), out=o),
    "outer": lambda T, o: T.outer(T.tensor(A)[0], T.tensor(A)[1], out=o),
    "add": lambda T, o: T.add(T.tensor(A), T.tensor(A), alpha=2, out=o),
    "sub": lambda T, o: T.sub(T.tensor(A), 1.5, out=o),
    "div": lambda T, o: T.div(T.tensor(A), 3, out=o),
    "pow": lambda T, o: T.pow(T.tensor(A), 2, out=o),
    "exp": lambda T, o: T.exp(T.tensor(A), out=o),
    "sqrt": lambda T, o: T.sqrt(T.tensor(A).abs(), out=o),
    "neg": lambda T, o: T.neg(T.tensor(A), out=o),
    "abs": lambda T, o: T.abs(T.tensor(A), out=o),
    "sigmoid": lambda T, o: T.sigmoid(T.tensor(A), out=o),
    "tanh": lambda T, o: T.tanh(T.tensor(A), out=o),
    "clamp": lambda T, o: T.clamp(T.tensor(A), -0.5, 0.5, out=o),
    "maximum": lambda T, o: T.maximum(T.tensor(A), T.tensor(A).flip(0), out=o),
    "where": lambda T, o: T.where(T.tensor(A) > 0, T.tensor(A), T.tensor(A) * 2, out=o),
    "gt": lambda T, o: T.gt(T.tensor(A), 0, out=o),
    "eq": lambda T, o: T.eq(T.tensor(I), 1, out=o),
    "logical_and": lambda T, o: T.logical_and(T.tensor(A) > 0, T.tensor(A) < 1, out=o),
    "sum_dim": lambda T, o: T.sum(T.tensor(A), 1, out=o),
    "sum_int": lambda T, o: T.sum(T.tensor(I), 0, keepdim=True, out=o),
    "mean": lambda T, o: T.mean(T.tensor(A), 0, out=o),
    "std": lambda T, o: T.std(T.tensor(A), 1, out=o),
    "prod": lambda T, o: T.prod(T.tensor(A), 1, out=o),
    "cumsum": lambda T, o: T.cumsum(T.tensor(A), 1, out=o),
    "amax": lambda T, o: T.amax(T.tensor(A), 1, out=o),
    "argmax": lambda T, o: T.argmax(T.tensor(A), 1, out=o),
    "logsumexp": lambda T, o: T.logsumexp(T.tensor(A), 1, out=o),
    "cat": lambda T, o: T.cat([T.tensor(A), T.tensor(A)], 1, out=o),
    "stack": lambda T, o: T.stack([T.tensor(A), T.tensor(A)], out=o),
    "tril": lambda T, o: T.tril(T.tensor(A), out=o),
    "gather": lambda T, o: T.gather(T.tensor(A), 1, T.tensor(I), out=o),
    "index_select": lambda T, o: T.index_select(T.tensor(A), 1, T.tensor([2, 0]), out=o),
    "zeros": lambda T, o: T.zeros(2, 3, out=o),
    "arange": lambda T, o: T.arange(5, out=o),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("start", ["empty", "same", "other"])
def test_values_identity_version_and_resize(torch_oracle, name, start):
    """The result is written into out (same values, dtype and shape as the plain call),
    out is returned, its version bumps; a non-empty out of another shape warns."""
    call = CALLS[name]
    results = {}
    for T in (torch_oracle, lt):
        plain = call(T, None)
        shape = {"empty": (0,), "same": tuple(plain.shape), "other": (7,)}[start]
        out = T.full(shape, 9, dtype=plain.dtype)
        before = out._version
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            returned = call(T, out)
        assert returned is out
        assert out._version > before
        resized = [w for w in caught if "was resized since it had shape" in str(w.message)]
        results[T] = (out, plain, [str(w.message).split(".")[0] for w in resized],
                      [w.category for w in resized])
    (l_out, l_plain, l_warn, l_cat), (t_out, t_plain, t_warn, t_cat) = results[lt], results[torch_oracle]
    assert_same(l_out, t_out)
    assert_same(l_out, t_plain)
    assert l_warn == t_warn and l_cat == t_cat


def test_tensors_tutorial_lines(torch_oracle):
    def program(T):
        T.manual_seed(0)
        tensor = T.rand(4, 4)
        y3 = T.rand_like(tensor)
        T.matmul(tensor, tensor.T, out=y3)
        z3 = T.rand_like(tensor)
        T.mul(tensor, tensor, out=z3)
        return y3, z3, tensor @ tensor.T, tensor * tensor
    l, t = program(lt), program(torch_oracle)
    assert_same(l, t)
    assert_same(l[0], t[2])


def test_cast_into_a_wider_out(torch_oracle):
    for name in ("add", "exp", "mean", "gt", "cat", "sum_dim", "sum_int", "cumsum", "zeros", "arange"):
        got = {}
        for T in (torch_oracle, lt):
            got[T] = CALLS[name](T, T.empty(0, dtype=T.float64))
        assert_same(got[lt], got[torch_oracle], rtol=1e-5, atol=1e-6)


def test_sum_into_an_integer_out_uses_that_dtype(torch_oracle):
    def f(T):
        return T.sum(T.tensor(A) * 3, 0, out=T.empty(0, dtype=T.int64))
    assert_same(f(lt), f(torch_oracle))


@pytest.mark.parametrize("name,dtype,match", [
    ("add", "int64", "result type Float can't be cast to the desired output type Long"),
    ("exp", "bool", "result type Float can't be cast to the desired output type Bool"),
    ("mean", "int32", "result type Float can't be cast to the desired output type Int"),
    ("matmul", "int64", "Expected out tensor to have dtype float, but got long int instead"),
    ("mm", "float64", "Expected out tensor to have dtype float, but got double instead"),
    ("argmax", "float32", "Expected out tensor to have dtype long int, but got float instead"),
    ("neg", "float64", "Found dtype Double but expected Float"),
    ("clamp", "int64", "Found dtype Long but expected Float"),
    ("where", "int64", "Expected out type to be Float but got Long"),
    ("dot", "float64", "result dtype Double does not match input dtype Float"),
    ("index_select", "int64", "self and result must have the same scalar type"),
    ("cat", "int64", "input types can't be cast to the desired output type Long"),
    ("stack", "bool", "input types can't be cast to the desired output type Bool"),
])
def test_refused_casts_raise_torchs_error(torch_oracle, name, dtype, match):
    raises_both(lambda T: CALLS[name](T, T.empty(0, dtype=getattr(T, dtype))), torch_oracle, match=match)


@pytest.mark.parametrize("call", [
    lambda T, x: T.add(x, x, out=T.empty(0)),
    lambda T, x: T.matmul(x, x.T, out=T.empty(0)),
    lambda T, x: T.exp(x, out=T.empty(0)),
    lambda T, x: T.cat([x, x.detach()], out=T.empty(0)),
    lambda T, x: T.where(x > 0, x, T.zeros(()), out=T.empty(0)),
    lambda T, x: T.max(x, 1, out=(T.empty(0), T.empty(0, dtype=T.int64))),
    lambda T, x: T.add(x.detach(), 1, out=T.empty(0, requires_grad=True)),
], ids=["add", "matmul", "exp", "cat", "where", "max_dim", "out_requires_grad"])
def test_out_is_not_differentiable(torch_oracle, call):
    def f(T):
        return call(T, T.tensor(A, requires_grad=True))
    raises_both(f, torch_oracle, match=r"functions with out=\.\.\. arguments don't support automatic "
                                       r"differentiation, but one of the arguments requires grad\.")


def test_under_no_grad_out_is_allowed(torch_oracle):
    def f(T):
        x = T.tensor(A, requires_grad=True)
        with T.no_grad():
            o = T.empty(0)
            r = T.mul(x, 2, out=o)
        return r, r.requires_grad
    assert_same(f(lt), f(torch_oracle))


def test_tuple_out_for_max_sort_topk(torch_oracle):
    for call in (lambda T, o: T.max(T.tensor(A), 1, out=o), lambda T, o: T.sort(T.tensor(A), 1, out=o),
                 lambda T, o: T.topk(T.tensor(A), 2, out=o)):
        got = {}
        for T in (torch_oracle, lt):
            o = (T.empty(0), T.empty(0, dtype=T.int64))
            r = call(T, o)
            assert r[0] is o[0] and r[1] is o[1] and r.values is o[0] and r.indices is o[1]
            got[T] = tuple(r)
        assert_same(got[lt], got[torch_oracle])
    raises_both(lambda T: T.max(T.tensor(A), 1, out=(T.empty(0, dtype=T.float64), T.empty(0, dtype=T.int64))),
                torch_oracle, match="Expected out tensor to have dtype float, but got double instead")


def test_out_may_be_an_input_or_a_view(torch_oracle):
    def f(T):
        a = T.tensor(A)
        T.add(a, a, out=a)
        base = T.zeros(2, 3)
        T.mul(a[0], 3, out=base[1])
        return a, base, a._version, base._version
    assert_same(f(lt), f(torch_oracle))


def test_an_expanded_out_is_refused(torch_oracle):
    raises_both(lambda T: T.add(T.ones(3), 1, out=T.zeros(3)[None].expand(2, 3)), torch_oracle,
                match="more than one element of the written-to tensor refers to a single memory location")


def test_without_out_nothing_changes():
    assert lt.add.__name__ == "add" and lt.matmul.__doc__ is not None
    assert lt.add(lt.ones(2), 1).tolist() == [2.0, 2.0]
