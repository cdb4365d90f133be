"""bfloat16 tensors against torch 2.13: storage, rounding, printing, promotion, arithmetic
(computed in float32 and rounded once, as PyTorch's CPU kernels do), autograd, modules,
optimizers, save/load -- and the clear error on the CUDA stand-in, where learntorch has none.

Values are compared with ``torch.testing.assert_close``'s bfloat16 tolerances (rtol 1.6e-2,
atol 1e-5: ``rtol=None, atol=None`` below) or, where PyTorch's numbers are reproducible
exactly (rounding, creation, random draws, sums of small integers), bit for bit.
"""
from __future__ import annotations

import pickle

import ml_dtypes
import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, check_both, raises_both

TOL = dict(rtol=None, atol=None)  # torch.testing.assert_close's tolerances for the dtypes compared


def _bits(t) -> np.ndarray:
    """The 16-bit patterns of a bfloat16 tensor of either library (via float32, which is exact)."""
    return t.detach().float().numpy().astype(ml_dtypes.bfloat16).view(np.uint16)


# ----------------------------------------------------------------------------- the dtype
def test_the_dtype_and_its_limits(torch_oracle):
    def run(T):
        d = T.bfloat16
        f = T.finfo(d)
        x = T.zeros(3, dtype=d)
        return (str(d), d.is_floating_point, d.itemsize, x.element_size(), x.is_floating_point(), x.dtype,
                x.type(), f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype, repr(f))
    check_both(run, torch_oracle, exact=True)
    assert pickle.loads(pickle.dumps(lt.bfloat16)) is lt.bfloat16


@pytest.mark.parametrize("other", ["float16", "float32", "float64", "int64", "int8", "uint8", "bool", "bfloat16"])
def test_promote_types(torch_oracle, other):
    check_both(lambda T: (T.promote_types(T.bfloat16, getattr(T, other)),
                          T.promote_types(getattr(T, other), T.bfloat16)), torch_oracle)


def test_result_dtypes_of_mixed_operands(torch_oracle):
    def run(T):
        b = T.tensor([1.5, -2.25], dtype=T.bfloat16)
        return [(b + T.ones(2)).dtype, (b + T.ones(2, dtype=T.float16)).dtype, (b + T.ones(2, dtype=T.float64)).dtype,
                (b + T.ones(2, dtype=T.int64)).dtype, (b + 1).dtype, (b * 0.1).dtype, (b * T.tensor(0.1)).dtype,
                (T.ones(2) + T.tensor(0.1, dtype=T.bfloat16)).dtype,
                (T.ones(2, dtype=T.int64) + T.tensor(0.1, dtype=T.bfloat16)).dtype, (b > 0).dtype,
                (b / 3).dtype, (T.arange(3) / b[0]).dtype]
    check_both(run, torch_oracle)


# ----------------------------------------------------------------------------- making and rounding
def test_creation_functions(torch_oracle):
    def run(T):
        d = T.bfloat16
        return [T.tensor([1.0, 2.5, 3.14159, 1e-3, 7e4, -0.0], dtype=d), T.zeros(2, 3, dtype=d),
                T.ones(2, dtype=d), T.full((2,), 0.1, dtype=d), T.empty(2, 3, dtype=d).shape,
                T.arange(5, dtype=d), T.arange(0, 300, 7, dtype=d),
                T.eye(2, dtype=d), T.zeros_like(T.ones(2, dtype=d)), T.ones(3).to(d), T.ones(2).bfloat16(),
                T.tensor(3.0, dtype=d), T.scalar_tensor(0.3, dtype=d), T.full((2,), 7, dtype=d)]
    check_both(run, torch_oracle, exact=True)
    # (PyTorch computes linspace's step in bfloat16 itself; learntorch in float64, then rounds)
    check_both(lambda T: T.linspace(0, 1, 7, dtype=T.bfloat16), torch_oracle, **TOL)


def test_rounding_is_to_nearest_even_as_torch(torch_oracle):
    """Every float32 → bfloat16 conversion rounds as PyTorch does: ties (the bit patterns ending in
    exactly 0x8000) to even, overflow to inf, NaN stays NaN.  Compared bit for bit."""
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32)
    ties = (raw & np.uint32(0xFFFF0000)) | np.uint32(0x8000)
    special = np.array([0.0, -0.0, 1.0, 65504.0, 3.3895314e38, 3.4e38, np.inf, -np.inf, 1e-40, 1e-45,
                        1.00390625, 1.01171875, 2.0 ** -133], dtype=np.float32)
    values = np.concatenate([raw.view(np.float32), ties.view(np.float32), special])
    values = values[~np.isnan(values)]
    t = torch_oracle.from_numpy(values).to(torch_oracle.bfloat16)
    ours = lt.from_numpy(values).to(lt.bfloat16)
    np.testing.assert_array_equal(_bits(ours), _bits(t))
    nan = lt.tensor([float("nan")]).bfloat16()
    assert nan.isnan().item() and nan.dtype is lt.bfloat16


def test_python_floats_round_through_float32_as_torch(torch_oracle):
    """``torch.tensor([x], dtype=bfloat16)`` rounds a Python float to float32 first: a value just
    above a bfloat16 tie lands on the tie and then rounds to even."""
    values = [1 + 2**-8 + 2**-30, 1 + 2**-8 - 2**-30, 0.1, 1 / 3, 1e38 * 3.3, 2.0 ** -130, -7.0000001]
    t = torch_oracle.tensor(values, dtype=torch_oracle.bfloat16)
    ours = lt.tensor(values, dtype=lt.bfloat16)
    np.testing.assert_array_equal(_bits(ours), _bits(t))
    np.testing.assert_array_equal(_bits(lt.full((1,), values[0], dtype=lt.bfloat16)),
                                  _bits(torch_oracle.full((1,), values[0], dtype=torch_oracle.bfloat16)))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("n", [1, 5, 16, 20, 48, 100])
def test_random_draws_are_torchs(torch_oracle, dtype, n):
    """randn/rand/uniform_/normal_ in a 16-bit float: ATen draws float32 numbers and rounds them
    (randn of a size that 16 does not divide pads its buffer to a multiple of 16)."""
    def run(T):
        d = getattr(T, dtype)
        T.manual_seed(7)
        return [T.randn(n, dtype=d), T.rand(n, dtype=d), T.empty(n, dtype=d).uniform_(-2, 3),
                T.empty(n, dtype=d).normal_(1.5, 0.5), T.randn(3)]  # the last: the stream stayed in step
    check_both(run, torch_oracle, exact=True)


def test_conversions(torch_oracle):
    def run(T):
        x = T.tensor([1.0, 2.5, 3.14159, 1e-3, 7e4, -1.5], dtype=T.bfloat16)
        return [x.half(), x.float(), x.double(), x.long(), x.int(), x.bool(), x.to(T.float32).dtype,
                x.tolist(), x[2].item(), float(x[1]), int(x[4]), x.type(T.float64)]
    actual, expected = check_both(run, torch_oracle, exact=True)
    assert type(actual[8]) is float


def test_numpy_refuses_bfloat16_as_torch(torch_oracle):
    raises_both(lambda T: T.ones(2, dtype=T.bfloat16).numpy(), torch_oracle, match="unsupported ScalarType BFloat16")
    raises_both(lambda T: np.asarray(T.ones(2, dtype=T.bfloat16)), torch_oracle, match="BFloat16")
    assert lt.ones(2, dtype=lt.bfloat16).float().numpy().dtype == np.float32


def test_from_numpy_refuses_an_ml_dtypes_array_as_torch(torch_oracle):
    array = np.ones(2, dtype=ml_dtypes.bfloat16)
    raises_both(lambda T: T.from_numpy(array), torch_oracle, match="can't convert np.ndarray of type ml_dtypes.bfloat16")
    raises_both(lambda T: T.tensor(array), torch_oracle, match="ml_dtypes.bfloat16")


# ----------------------------------------------------------------------------- printing
def test_printing(torch_oracle):
    def run(T):
        d = T.bfloat16
        w = T.tensor([0.5, -1.25], dtype=d, requires_grad=True)
        return [repr(T.tensor([1.0, 2.5], dtype=d)), repr(T.tensor([1.0, 2.5, 3.14159, 1e-3, 7e4], dtype=d)),
                repr(T.zeros(2, 3, dtype=d)), repr(T.tensor(3.0, dtype=d)), repr(T.tensor([], dtype=d)),
                repr(T.arange(2000, dtype=d)), repr(w), repr(w * 2), str(T.tensor([[0.1, 100.0]], dtype=d)),
                repr(T.tensor([float("nan"), float("inf"), 1.0], dtype=d)),
                repr(T.nn.Parameter(T.ones(2, dtype=d)))]
    check_both(run, torch_oracle)


# ----------------------------------------------------------------------------- arithmetic
def check_in_scale(run, torch):
    """Like ``check_both``, for results of many rounded steps (a training run, gradients summed from
    several terms): where they cancel, a result is small next to the numbers it came from, and one
    bfloat16 rounding of those numbers is large next to it.  So each tensor is compared to within
    bfloat16's tolerance *of its own scale* (1.6e-2 · its largest magnitude), not of each element."""
    expected, actual = run(torch), run(lt)

    def walk(a, e, path):
        if isinstance(e, (list, tuple)):
            for i, (x, y) in enumerate(zip(a, e)):
                walk(x, y, f"{path}[{i}]")
        elif hasattr(e, "dtype") and hasattr(e, "detach"):
            scale = float(e.detach().abs().max().float()) if e.numel() else 0.0
            assert_same(a, e, rtol=1.6e-2, atol=1.6e-2 * scale + 1e-5, path=path)
        else:
            assert_same(a, e, path=path)
    walk(actual, expected, "result")


def _data(T, *shape, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(np.float32)
    if positive:
        a = np.abs(a) + 0.1
    return T.from_numpy(a).to(T.bfloat16)


POINTWISE = {
    "add": lambda T, x, y: x + y, "sub": lambda T, x, y: x - y, "mul": lambda T, x, y: x * y,
    "div": lambda T, x, y: x / (y.abs() + 0.5), "scalar_mul": lambda T, x, y: x * 0.1 + 3,
    "scalar_div": lambda T, x, y: 1 / (x.abs() + 0.1), "rsub": lambda T, x, y: 2.5 - x,
    "pow2": lambda T, x, y: x ** 2, "pow_frac": lambda T, x, y: x.abs() ** 1.7, "exp": lambda T, x, y: x.exp(),
    "log": lambda T, x, y: (x.abs() + 0.01).log(), "sqrt": lambda T, x, y: x.abs().sqrt(),
    "rsqrt": lambda T, x, y: (x.abs() + 0.1).rsqrt(), "tanh": lambda T, x, y: x.tanh(),
    "sigmoid": lambda T, x, y: x.sigmoid(), "relu": lambda T, x, y: x.relu(), "sin": lambda T, x, y: x.sin(),
    "abs_neg": lambda T, x, y: -x.abs(), "clamp": lambda T, x, y: x.clamp(-0.5, 0.7),
    "maximum": lambda T, x, y: T.maximum(x, y), "where": lambda T, x, y: T.where(x > 0, x, 0.1),
    "where_t": lambda T, x, y: T.where(x > y, x, y), "gelu": lambda T, x, y: T.nn.functional.gelu(x),
    "silu": lambda T, x, y: T.nn.functional.silu(x), "softplus": lambda T, x, y: T.nn.functional.softplus(x),
    "leaky": lambda T, x, y: T.nn.functional.leaky_relu(x, 0.1), "erf": lambda T, x, y: T.erf(x),
    "floor": lambda T, x, y: (x * 3).floor(), "round": lambda T, x, y: (x * 3).round(),
    "floor_divide": lambda T, x, y: x // 0.3, "remainder": lambda T, x, y: x % 0.3,
    "with_int": lambda T, x, y: x + T.arange(x.shape[-1]), "with_0d_float32": lambda T, x, y: x * T.tensor(0.1),
    "lerp": lambda T, x, y: T.lerp(x, y, 0.3),
}


@pytest.mark.parametrize("name", sorted(POINTWISE))
def test_pointwise(torch_oracle, name):
    check_both(lambda T: POINTWISE[name](T, _data(T, 4, 33), _data(T, 4, 33, seed=1)), torch_oracle, **TOL)


def test_python_numbers_meet_bfloat16_as_in_torch(torch_oracle):
    """``x * 0.3`` and ``x / 0.3`` compute with 0.3 in float32; ``x + 0.3``, ``x - 0.3``, ``0.3 - x``,
    ``x ** 1.7`` and ``x % 0.3`` round the number to bfloat16 first.  Bit for bit."""
    def run(T):
        x = (_data(T, 2000) * 3).abs() + 0.01
        return [x * 0.3, x / 0.3, 0.3 * x, x + 0.3, x - 0.3, 2.3 - x, x + 3, x ** 1.7, x ** 2, x ** 0.5,
                x // 0.3, x % 0.3, 2.0 ** x, x.sqrt(), x * x]
    check_both(run, torch_oracle, exact=True)


REDUCTIONS = {
    "sum": lambda T, x: x.sum(), "sum_dim": lambda T, x: x.sum(1), "mean": lambda T, x: x.mean(0),
    "var": lambda T, x: x.var(1), "std": lambda T, x: x.std(), "prod": lambda T, x: (x[0, :6].abs() + 0.5).prod(),
    "cumsum": lambda T, x: x.cumsum(1), "max": lambda T, x: x.max(1), "amax": lambda T, x: x.amax(0),
    "argmax": lambda T, x: x.argmax(1), "norm": lambda T, x: x.norm(), "norm_dim": lambda T, x: x.norm(dim=1),
    "logsumexp": lambda T, x: x.logsumexp(1), "softmax": lambda T, x: x.softmax(1),
    "log_softmax": lambda T, x: x.log_softmax(1), "min": lambda T, x: x.min(),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(torch_oracle, name):
    check_both(lambda T: REDUCTIONS[name](T, _data(T, 5, 300) * 3), torch_oracle, **TOL)


def test_sorting(torch_oracle):
    """Distinct values: which of two equal bfloat16 numbers comes first is the sort's own affair."""
    def run(T):
        x = T.from_numpy(np.random.default_rng(4).permutation(256).reshape(4, 64).astype(np.float32) / 8)
        x = x.to(T.bfloat16)
        return [x.sort(1), x.sort(0, descending=True), x.topk(3, dim=1), x.argsort(1), x.kthvalue(5, 1), x.median()]
    check_both(run, torch_oracle, exact=True)


def test_sums_accumulate_in_float32_as_torch(torch_oracle):
    """In bfloat16 itself 1 + 1 + ... stops growing at 256; PyTorch (and learntorch) add in float32
    and round the result once: a thousand ones sum to exactly 1000."""
    def run(T):
        x = T.ones(1000, dtype=T.bfloat16)
        return [x.sum(), x.mean(), x.cumsum(0)[-5:], T.arange(1000, dtype=T.bfloat16).mean(), x.var(), x @ x]
    check_both(run, torch_oracle, exact=True)


def test_matmul_and_linear_layers(torch_oracle):
    def run(T):
        a, b = _data(T, 8, 64), _data(T, 64, 16, seed=1)
        w, bias = _data(T, 5, 64, seed=2), _data(T, 5, seed=3)
        return [a @ b, T.mm(a, b), T.matmul(a[0], b), T.bmm(a.reshape(2, 4, 64), b.reshape(1, 64, 16).expand(2, 64, 16)),
                T.nn.functional.linear(a, w, bias), T.einsum("ij,jk->ik", a, b) if hasattr(T, "einsum") else a @ b,
                T.outer(a[0], b[:, 0])]
    check_both(run, torch_oracle, **TOL)


def test_matmul_of_mixed_dtypes_is_refused_as_torch(torch_oracle):
    raises_both(lambda T: T.ones(2, 3, dtype=T.bfloat16) @ T.ones(3, 2), torch_oracle, match="same dtype")
    # (an error while computing in float32 comes again from the bfloat16 tensors, naming their dtype)
    raises_both(lambda T: T.ones(2, 3, dtype=T.bfloat16) @ T.ones(3, 2, dtype=T.int64), torch_oracle,
                match="c10::BFloat16 != long int")


FUNCTIONAL = {
    "layer_norm": lambda T, x, t: T.nn.functional.layer_norm(x, (x.shape[-1],)),
    "cross_entropy": lambda T, x, t: T.nn.functional.cross_entropy(x, t),
    "nll": lambda T, x, t: T.nn.functional.nll_loss(x.log_softmax(1), t),
    "mse": lambda T, x, t: T.nn.functional.mse_loss(x, x.flip(0)),
    "l1": lambda T, x, t: T.nn.functional.l1_loss(x, x.flip(0)),
    "bce_logits": lambda T, x, t: T.nn.functional.binary_cross_entropy_with_logits(x, (x.flip(0) > 0).to(x.dtype)),
    "dropout_eval": lambda T, x, t: T.nn.functional.dropout(x, 0.5, training=False),
    "embedding": lambda T, x, t: T.nn.functional.embedding(t, x),
    "conv1d": lambda T, x, t: T.nn.functional.conv1d(x.reshape(2, 4, 10), x[:4, :6].reshape(2, 4, 3)),
    "conv2d": lambda T, x, t: T.nn.functional.conv2d(x.reshape(1, 2, 4, 10), x[:4, :4].reshape(2, 2, 2, 2)),
    "max_pool": lambda T, x, t: T.nn.functional.max_pool2d(x.reshape(2, 4, 10), 2),
    "avg_pool": lambda T, x, t: T.nn.functional.avg_pool2d(x.reshape(2, 4, 10), 2),
    "normalize": lambda T, x, t: T.nn.functional.normalize(x, dim=1),
    "cosine": lambda T, x, t: T.nn.functional.cosine_similarity(x, x.flip(0)),
    "batch_norm": lambda T, x, t: T.nn.functional.batch_norm(x, None, None, training=True),
    "group_norm": lambda T, x, t: T.nn.functional.group_norm(x.reshape(2, 4, 10), 2),
    "attention": lambda T, x, t: T.nn.functional.scaled_dot_product_attention(
        x.reshape(2, 4, 10), x.flip(0).reshape(2, 4, 10), x.reshape(2, 4, 10)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional(torch_oracle, name):
    check_both(lambda T: FUNCTIONAL[name](T, _data(T, 8, 10) * 2, T.tensor([1, 0, 9, 3, 3, 2, 7, 5]) % 8),
               torch_oracle, **TOL)


def test_in_place_operations_and_views(torch_oracle):
    def run(T):
        x = _data(T, 3, 4)
        x.add_(1)
        x.mul_(0.1)
        x[0] = 2.5
        x[1, 1:3] = T.tensor([0.3, 0.7])
        v = x[2]
        v.sub_(T.ones(4, dtype=T.bfloat16) * 0.01)
        x.clamp_(max=1.0)
        y = x.t().reshape(-1)
        z = x.clone()
        z.copy_(T.full((3, 4), 0.1))
        return [x, y, z, x.view(2, 6)[1], x.unsqueeze(0).expand(2, 3, 4).sum(0)]
    check_both(run, torch_oracle, **TOL)


LAPACK = {
    "inv": (lambda T, a: T.linalg.inv(a), "Low precision dtypes not supported"),
    "slogdet": (lambda T, a: T.linalg.slogdet(a), "Low precision dtypes not supported"),
    "det": (lambda T, a: T.linalg.det(a), "not implemented for 'BFloat16'"),
    "solve": (lambda T, a: T.linalg.solve(a, a), "not implemented for 'BFloat16'"),
    "cholesky": (lambda T, a: T.linalg.cholesky(a), "not implemented for 'BFloat16'"),
    "eigh": (lambda T, a: T.linalg.eigh(a), "not implemented for 'BFloat16'"),
    "eigvalsh": (lambda T, a: T.linalg.eigvalsh(a), "not implemented for 'BFloat16'"),
    "svd": (lambda T, a: T.linalg.svd(a), "not implemented for 'BFloat16'"),
    "svdvals": (lambda T, a: T.linalg.svdvals(a), "not implemented for 'BFloat16'"),
    "qr": (lambda T, a: T.linalg.qr(a), "not implemented for 'BFloat16'"),
    "pinv": (lambda T, a: T.linalg.pinv(a), "float, double, cfloat"),
    "quantile": (lambda T, a: T.quantile(a, 0.5), "must be either float or double dtype"),
}


@pytest.mark.parametrize("name", sorted(LAPACK))
def test_what_torch_cannot_compute_in_bfloat16_is_refused_alike(torch_oracle, name):
    """PyTorch's matrix decompositions (LAPACK) have no bfloat16: the same error, by type and words."""
    fn, words = LAPACK[name]
    raises_both(lambda T: fn(T, (T.eye(3) * 2 + 0.1).to(T.bfloat16)), torch_oracle, match=words)


# ----------------------------------------------------------------------------- autograd
def test_gradients_of_bfloat16_leaves_are_bfloat16(torch_oracle):
    def run(T):
        x = _data(T, 6, 8).requires_grad_()
        w = _data(T, 8, 3, seed=1).requires_grad_()
        b = _data(T, 3, seed=2).requires_grad_()
        h = (x @ w + b).tanh()
        loss = T.nn.functional.cross_entropy(h * 2, T.tensor([0, 1, 2, 0, 1, 2])) + (x.exp() * 0.01).sum() \
            + h.softmax(1).pow(2).mean() + (x / (w.sum() + 5)).var()
        loss.backward()
        return [loss, x.grad, w.grad, b.grad, x.grad.dtype, h.grad_fn.name()]
    check_in_scale(run, torch_oracle)


def test_double_backward_through_bfloat16(torch_oracle):
    def run(T):
        x = _data(T, 5).requires_grad_()
        y = (x * x * x).sum() + x.sigmoid().sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        return [g, gg]
    check_both(run, torch_oracle, **TOL)


def test_an_in_place_change_of_a_saved_bfloat16_tensor_is_still_caught(torch_oracle):
    def run(T):
        x = _data(T, 3).requires_grad_()
        y = x * 2
        z = y.exp()  # saves its result
        z.add_(1)
        z.sum().backward()
    raises_both(run, torch_oracle, match="modified by an inplace operation")


# ----------------------------------------------------------------------------- modules and optimizers
def _mlp(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(6, 16), T.nn.LayerNorm(16), T.nn.GELU(), T.nn.Linear(16, 3))


@pytest.mark.parametrize("convert", ["to", "bfloat16"])
@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW"])
def test_training_a_bfloat16_model(torch_oracle, convert, optimizer):
    def run(T):
        model = _mlp(T)
        model = model.to(T.bfloat16) if convert == "to" else model.bfloat16()
        opt = getattr(T.optim, optimizer)(model.parameters(), lr=0.01, **({"momentum": 0.9} if optimizer == "SGD" else {}))
        x, target = _data(T, 10, 6), T.tensor([0, 1, 2, 1, 0, 2, 2, 1, 0, 0])
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = T.nn.functional.cross_entropy(model(x), target)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        params = list(model.parameters())
        return [losses, [p.dtype for p in params], [p.grad.dtype for p in params], params[0].detach(),
                model(x).detach()]
    check_in_scale(run, torch_oracle)


def test_modules_convert_and_back(torch_oracle):
    def run(T):
        model = _mlp(T).bfloat16()
        before = model[0].weight.detach().clone()
        model.float()
        return [model[0].weight.dtype, model[0].weight.detach(), before, model[1].bias.dtype]
    check_both(run, torch_oracle, exact=True)


def test_state_dict_round_trip(tmp_path, torch_oracle):
    model = _mlp(lt).to(lt.bfloat16)
    path = tmp_path / "model.pt"
    lt.save(model.state_dict(), path)
    loaded = lt.load(path)
    fresh = _mlp(lt).bfloat16()
    fresh.load_state_dict(loaded)
    for (name, a), b in zip(model.state_dict().items(), fresh.state_dict().values()):
        assert b.dtype is lt.bfloat16, name
        np.testing.assert_array_equal(_bits(a), _bits(b), err_msg=name)
    one = lt.tensor([1.5, -0.1, 3e38], dtype=lt.bfloat16).requires_grad_()
    lt.save({"t": one, "view": one[1:]}, path)
    back = lt.load(path)
    assert back["t"].dtype is lt.bfloat16 and back["t"].requires_grad
    np.testing.assert_array_equal(_bits(back["t"]), _bits(one))
    np.testing.assert_array_equal(_bits(back["view"]), _bits(one[1:]))
    lt.save(model, path)  # a whole module: pickled, as PyTorch does
    again = lt.load(path, weights_only=False)
    assert again[0].weight.dtype is lt.bfloat16
    np.testing.assert_array_equal(_bits(again[0].weight), _bits(model[0].weight))
    assert pickle.loads(pickle.dumps(one)).dtype is lt.bfloat16


def test_the_same_numbers_as_a_torch_state_dict(torch_oracle):
    """A torch bfloat16 model's weights, moved bit for bit, give learntorch's model torch's outputs."""
    t_model, l_model = _mlp(torch_oracle).bfloat16(), _mlp(lt).bfloat16()
    l_model.load_state_dict({k: lt.tensor(v.float().numpy()).bfloat16() for k, v in t_model.state_dict().items()})
    x = np.random.default_rng(3).standard_normal((7, 6)).astype(np.float32)
    expected = t_model(torch_oracle.from_numpy(x).bfloat16())
    actual = l_model(lt.from_numpy(x).bfloat16())
    assert_same(actual, expected, **TOL)


def test_layers_in_bfloat16_with_torchs_weights(torch_oracle):
    """A transformer layer, a small conv net and an LSTM, converted with ``.bfloat16()`` after loading
    torch's weights: outputs and gradients within bfloat16's tolerance of their scale."""
    def build(T):
        T.manual_seed(0)
        return [T.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True),
                T.nn.Sequential(T.nn.Conv2d(3, 4, 3, padding=1), T.nn.BatchNorm2d(4), T.nn.ReLU(),
                                T.nn.MaxPool2d(2), T.nn.Flatten(), T.nn.Linear(64, 5)),
                T.nn.LSTM(16, 8, batch_first=True)]
    t_layers, l_layers = build(torch_oracle), build(lt)
    for t_layer, l_layer in zip(t_layers, l_layers):
        l_layer.load_state_dict({k: lt.tensor(v.numpy()) for k, v in t_layer.state_dict().items()})

    def run(T):
        enc, conv, lstm = [m.bfloat16() for m in (t_layers if T is torch_oracle else l_layers)]
        x = _data(T, 2, 5, 16).requires_grad_()
        img, w = _data(T, 2, 3, 8, 8, seed=1), _data(T, 2, 5, 16, seed=2)
        outs = [enc(x), conv(img), lstm(x)[0]]
        loss = (outs[0] * w).sum() + outs[1].sum() + (outs[2] * w[..., :8]).sum()
        loss.backward()
        return outs + [x.grad, conv[0].weight.grad, enc.linear1.weight.grad, lstm.weight_hh_l0.grad,
                       [p.dtype for p in enc.parameters()]]
    check_in_scale(run, torch_oracle)


# ----------------------------------------------------------------------------- the GPU
def test_bfloat16_is_cpu_only_on_the_cuda_stand_in(monkeypatch):
    from learntorch import cuda
    monkeypatch.delenv("LEARNTORCH_FAKE_CUDA", raising=False)
    cuda.cupy_or_none.cache_clear()
    if cuda.cupy_or_none() is not None:
        pytest.skip("a real GPU: test_bfloat16_is_cpu_only_on_a_real_gpu covers it")
    cuda.use_logical_devices(1)
    try:
        x = lt.ones(2, dtype=lt.bfloat16)
        for make in (lambda: x.to("cuda"), lambda: x.cuda(), lambda: lt.zeros(2, dtype=lt.bfloat16, device="cuda"),
                     lambda: lt.ones(2, device="cuda").to(lt.bfloat16),
                     lambda: lt.tensor([1.0], dtype=lt.bfloat16, device="cuda")):
            with pytest.raises(TypeError, match="bfloat16 tensors on the CPU only"):
                make()
        assert lt.ones(2, device="cuda").float().cpu().bfloat16().dtype is lt.bfloat16
    finally:
        cuda.use_logical_devices(None)


@pytest.mark.gpu
def test_bfloat16_is_cpu_only_on_a_real_gpu():
    from learntorch import cuda
    if cuda.cupy_or_none() is None:
        pytest.skip("needs a real CUDA GPU with CuPy")
    with pytest.raises(TypeError, match="bfloat16 tensors on the CPU only"):
        lt.ones(2, dtype=lt.bfloat16).to("cuda")
    with pytest.raises(TypeError, match="bfloat16 tensors on the CPU only"):
        lt.zeros(2, dtype=lt.bfloat16, device="cuda")
