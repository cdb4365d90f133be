"""torch.normal (four overloads), torch.poisson, randint_like and the in-place samplers
cauchy_, log_normal_, geometric_: the same numbers as torch 2.13 on the CPU after the
same seed (two calls in a row, so the generator's position after the first is checked
too), plus shapes, dtypes, autograd and errors."""
from __future__ import annotations

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, raises_both

DRAWS = {
    "normal_tensor_tensor": lambda T: T.normal(T.arange(20.), T.arange(20.) / 3),
    "normal_tensor_tensor_broadcast": lambda T: T.normal(T.zeros(4, 1), T.ones(5)),
    "normal_tensor_float": lambda T: T.normal(T.arange(5.), 2.0),
    "normal_tensor_default_std": lambda T: T.normal(T.arange(18.)),
    "normal_float_tensor": lambda T: T.normal(3.0, T.arange(40.)),
    "normal_float_float_size": lambda T: T.normal(3.0, 2.0, (4, 5)),
    "normal_float64": lambda T: T.normal(3.0, 2.0, size=(3,), dtype=T.float64),
    "normal_generator": lambda T: T.normal(0.0, 1.0, (17,), generator=T.Generator().manual_seed(5)),
    "normal_out": lambda T: T.normal(T.zeros(6), 1.0, out=T.empty(6)),
    "poisson_small_rates": lambda T: T.poisson(T.rand(50) * 10),
    "poisson_large_rates": lambda T: T.poisson(T.rand(200) * 1000 + 10),
    "poisson_float64_zero": lambda T: T.poisson(T.tensor([0.0, 30.0, 2.5], dtype=T.float64)),
    "poisson_generator": lambda T: T.poisson(T.full((9,), 4.0), generator=T.Generator().manual_seed(1)),
    "randint_like_high": lambda T: T.randint_like(T.zeros(3, 4), 10),
    "randint_like_low_high": lambda T: T.randint_like(T.zeros(3, 4), 3, 10),
    "randint_like_keyword": lambda T: T.randint_like(T.zeros(5), high=7, dtype=T.int32),
    "randint_like_low_keyword": lambda T: T.randint_like(T.zeros(5, dtype=T.int64), low=2, high=9),
    "cauchy": lambda T: T.zeros(37).cauchy_(),
    "cauchy_float64": lambda T: T.zeros(3, 7, dtype=T.float64).cauchy_(1.0, 2.0),
    "log_normal": lambda T: T.zeros(37).log_normal_(),
    "log_normal_small_float64": lambda T: T.zeros(3, dtype=T.float64).log_normal_(0, 0.5),
    "geometric": lambda T: T.zeros(37).geometric_(0.2),
    "geometric_int64": lambda T: T.zeros(37, dtype=T.int64).geometric_(0.7),
    "geometric_generator": lambda T: T.zeros(8).geometric_(0.5, generator=T.Generator().manual_seed(3)),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_same_numbers_as_torch(torch_oracle, name):
    out = []
    for T in (torch_oracle, lt):
        T.manual_seed(0)
        first = DRAWS[name](T)
        out.append((first, DRAWS[name](T), T.rand(3)))  # the generator is left where torch leaves it
    assert_same(out[1], out[0], exact=True)


def test_normal_autograd(torch_oracle):
    def run(T):
        m = T.zeros(3, requires_grad=True)
        s = T.ones(3, requires_grad=True)
        outs = [T.normal(m, 1.0), T.normal(0.0, s), T.normal(m, s)]
        sum(o.sum() for o in outs).backward()
        return [o.grad_fn.name() for o in outs], m.grad, s.grad
    got, want = run(lt), run(torch_oracle)
    assert got[0] == want[0] == ["NormalBackward1", "NormalBackward2", "NormalBackward3"]
    assert_same(got[1:], want[1:])


def test_poisson_autograd(torch_oracle):
    def run(T):
        r = T.tensor([1.0, 20.0], requires_grad=True)
        y = T.poisson(r)
        y.sum().backward()
        return y.grad_fn.name(), r.grad
    got, want = run(lt), run(torch_oracle)
    assert got[0] == want[0] == "PoissonBackward0"
    assert_same(got[1], want[1])


def test_normal_requires_grad_and_dtype_options(torch_oracle):
    def fn(T):
        a = T.normal(0.0, 1.0, size=(2,), requires_grad=True)
        return a.requires_grad, a.dtype, T.normal(T.zeros(3, dtype=T.float64), T.ones(3)).dtype
    assert fn(lt)[0] is True
    assert_same(list(fn(lt)), list(fn(torch_oracle)))


ERRORS = [
    (lambda T: T.normal(T.zeros(2), T.ones(3)), "must match the size"),
    (lambda T: T.normal(T.zeros(3), -T.ones(3)), "normal expects all elements of std >= 0.0"),
    (lambda T: T.normal(T.zeros(3), -1.0), "normal expects std >= 0.0"),
    (lambda T: T.normal(0.0, -1.0, (3,)), "normal expects std >= 0.0"),
    (lambda T: T.normal(T.zeros(3, dtype=T.int64), 1.0), "not implemented for 'Long'"),
    (lambda T: T.normal(0.0, 1.0), "invalid combination of arguments"),
    (lambda T: T.poisson(T.tensor([1.0, -1.0])), "invalid Poisson rate"),
    (lambda T: T.poisson(T.tensor([1, 2])), "not implemented for 'Long'"),
    (lambda T: T.zeros(3).geometric_(0), "geometric_ expects p to be in"),
    (lambda T: T.zeros(3).geometric_(1.5), "geometric_ expects p to be in"),
    (lambda T: T.zeros(3).log_normal_(0, -1), "log_normal_ expects std > 0.0"),
    (lambda T: T.zeros(3).log_normal_(0, 0), "log_normal_ expects std > 0.0"),
    (lambda T: T.zeros(3, dtype=T.int64).log_normal_(), "not implemented for 'Long'"),
    (lambda T: T.zeros(3).cauchy_(0, -1), "cauchy_ expects sigma > 0.0"),
    (lambda T: T.zeros(3, dtype=T.int64).cauchy_(), "dtype must be a floating point"),
    (lambda T: T.zeros(3, requires_grad=True).cauchy_(), "leaf Variable that requires grad"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(torch_oracle, i):
    fn, match = ERRORS[i]
    raises_both(fn, torch_oracle, match=match)


def test_random_sampling_names_exist(torch_oracle):
    """The functions of torch's "Random sampling" section and Tensor's in-place samplers."""
    names = ["seed", "manual_seed", "initial_seed", "get_rng_state", "set_rng_state", "default_generator",
             "bernoulli", "multinomial", "normal", "poisson", "rand", "rand_like", "randint", "randint_like",
             "randn", "randn_like", "randperm", "Generator"]
    for n in names:
        assert hasattr(torch_oracle, n) and hasattr(lt, n), n
    for n in ["bernoulli_", "cauchy_", "exponential_", "geometric_", "log_normal_", "normal_", "random_",
              "uniform_"]:
        assert hasattr(torch_oracle.Tensor, n) and hasattr(lt.Tensor, n), n
    assert lt.manual_seed(3) is lt.default_generator


def test_poisson_distribution():
    lt.manual_seed(1)
    x = lt.poisson(lt.full((4000,), 25.0)).numpy()
    assert abs(x.mean() - 25) < 0.5 and abs(x.var() - 25) < 2.5 and (x == np.round(x)).all()
