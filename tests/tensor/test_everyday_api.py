"""Everyday PyTorch calls that beginner programs make, each against PyTorch (values, dtypes,
shapes, gradients, error types): creation, comparisons and bitwise ops, reductions (with
NumPy's ``axis=``/``keepdims=`` spellings), shape ops (including the in-place ``unsqueeze_``
family), type conversion, ``numpy()`` and the RNG state.  Found by a differential probe of
~330 calls; the ones that used to differ are here, with neighbours that already agreed."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import check_both, grads_both, raises_both

pytestmark = pytest.mark.torch

RNG = np.random.default_rng(3)
A = RNG.standard_normal((3, 3)).astype(np.float32)
R = RNG.standard_normal((2, 3, 4)).astype(np.float32)
I = np.array([[3, 1, 2], [0, 5, 4]], np.int64)
BOOL = np.array([[True, False, True], [False, False, True]])


def t(T: Any, a: np.ndarray, **kw: Any) -> Any:
    return T.tensor(a.copy(), **kw)


# ----------------------------------------------------------------------------- values agree
SAME = {
    # creation
    "arange_float_step": lambda T: T.arange(1, 2.5, 0.3),
    "arange_dtype": lambda T: T.arange(0, 5, 0.5, dtype=T.float64),
    "linspace_int": lambda T: T.linspace(0, 10, 5, dtype=T.int64),
    "logspace_base": lambda T: T.logspace(0, 3, 4, base=2.0),
    "full_bool": lambda T: T.full((2,), True),
    "full_int": lambda T: T.full((2, 3), 7),
    "eye_nm": lambda T: T.eye(2, 3, dtype=T.int32),
    "zeros_like_dtype": lambda T: T.zeros_like(t(T, A), dtype=T.int64),
    "ones_like_rg": lambda T: T.ones_like(t(T, A), requires_grad=True),
    "tensor_mixed": lambda T: T.tensor([1, 2.5, True]),
    "tensor_int_bool": lambda T: T.tensor([[1, 2], [True, False]]),
    "tensor_np_int32": lambda T: T.tensor(np.array([1, 2], np.int32)),
    "as_tensor_dtype": lambda T: T.as_tensor([1, 2, 3], dtype=T.float32),
    "from_numpy_f64": lambda T: T.from_numpy(np.array([1., 2.])),
    # comparison, logical, bitwise
    "isclose_nan": lambda T: T.isclose(T.tensor([float("nan"), 1.]), T.tensor([float("nan"), 1.]), equal_nan=True),
    "equal_shapes": lambda T: (T.equal(T.ones(2), T.ones(3)), T.equal(t(T, A), t(T, A))),
    "any_all_dims": lambda T: (t(T, BOOL).any(dim=1), t(T, BOOL).all(dim=0, keepdim=True), T.tensor([]).all()),
    "logical_xor": lambda T: T.logical_xor(t(T, A), t(T, A) > 0),
    "bitwise_and": lambda T: T.bitwise_and(t(T, I), 3),
    "bitwise_or": lambda T: T.bitwise_or(t(T, I), t(T, I[::-1])),
    "bitwise_xor_method": lambda T: t(T, I).bitwise_xor(T.tensor(6)),
    "bitwise_not": lambda T: (T.bitwise_not(t(T, I)), T.bitwise_not(t(T, BOOL))),
    "shifts": lambda T: (t(T, I) << 2, t(T, I) >> 1, T.bitwise_left_shift(t(T, I), 1),
                         T.bitwise_right_shift(t(T, I), T.tensor(1))),
    "bool_bitwise": lambda T: T.bitwise_and(t(T, BOOL), True),
    # reductions, with NumPy's keyword names
    "sum_axis": lambda T: (T.sum(t(T, R), axis=1), t(T, R).sum(axis=(0, 2), keepdims=True)),
    "mean_axis": lambda T: (t(T, R).mean(axis=0), T.mean(t(T, R), 1, keepdims=True)),
    "max_axis": lambda T: tuple(T.max(t(T, R), axis=1, keepdims=True)),
    "amax_amin_axis": lambda T: (t(T, R).amax(axis=1), T.amin(t(T, R), axis=(0, 1), keepdims=True)),
    "argmax_axis": lambda T: (t(T, R).argmax(axis=1), t(T, R).argmin(axis=2, keepdims=True)),
    "std_var_axis": lambda T: (t(T, R).std(axis=1), T.var(t(T, R), axis=2, keepdims=True, correction=0)),
    "prod_all_any_axis": lambda T: (t(T, R).prod(axis=1), t(T, BOOL).all(axis=1), T.any(t(T, BOOL), axis=0)),
    "logsumexp_axis": lambda T: T.logsumexp(t(T, R), axis=-1, keepdims=True),
    "cumsum_axis": lambda T: (T.cumsum(t(T, R), axis=1), T.count_nonzero(t(T, I), axis=0)),
    "median_axis": lambda T: tuple(t(T, A).median(axis=0, keepdims=True)),
    "sort_axis": lambda T: (tuple(T.sort(t(T, R), axis=1)), T.argsort(t(T, R), axis=0),
                            tuple(T.topk(t(T, R), 2, axis=1))),
    "squeeze_cat_axis": lambda T: (T.cat([t(T, A), t(T, A)], axis=1), T.stack([t(T, A)], axis=2),
                                   t(T, A).unsqueeze(axis=0), T.ones(1, 3).squeeze(axis=0)),
    "aminmax": lambda T: (tuple(T.aminmax(t(T, A))), tuple(T.aminmax(t(T, R), dim=1, keepdim=True))),
    "prod_cumsum_dtype": lambda T: (T.prod(t(T, I), dtype=T.float64), t(T, I).cumsum(0, dtype=T.float32)),
    "std_correction": lambda T: T.std(t(T, R), dim=1, correction=0),
    "var_unbiased": lambda T: t(T, R).var(1, unbiased=False),
    "norm_p": lambda T: (t(T, R).norm(p=1, dim=1), T.norm(t(T, R[0, 0]), p=float("inf"))),
    # shape ops
    "tensor_split": lambda T: (T.tensor_split(t(T, R), 3, dim=2), t(T, R).tensor_split([1, 3], dim=2),
                               T.tensor_split(T.arange(7), 3), T.tensor_split(T.arange(5), [-2, 9])),
    "swapdims_ravel": lambda T: (T.swapdims(t(T, R), 0, 2), t(T, R).swapdims(0, 1), t(T, R).ravel()),
    "take_along_dim": lambda T: t(T, A).take_along_dim(T.tensor([[0], [2], [1]]), dim=1),
    "argwhere_msort": lambda T: (T.argwhere(t(T, I)), t(T, I).argwhere(), T.msort(t(T, A))),
    "atleast": lambda T: (T.atleast_1d(T.tensor(1.)), T.atleast_2d(T.ones(3)), T.atleast_3d(T.ones(2, 3)),
                          T.atleast_3d(T.ones(2)), T.atleast_2d(T.ones(2), T.tensor(1.))),
    "dstack": lambda T: (T.dstack([T.ones(2), T.zeros(2)]), T.dstack([t(T, A), t(T, A)])),
    "narrow_tensor_start": lambda T: T.arange(6).narrow(0, T.tensor(2), 2),
    "where_two_numbers": lambda T: (T.where(t(T, BOOL), 1., 0.), T.where(t(T, BOOL), 1, 0)),
    "where_int_float": lambda T: T.where(t(T, BOOL), t(T, I), 1.5),
    "clamp_tensor_bounds": lambda T: T.clamp(t(T, A), min=T.tensor([-1., 0., 1.]), max=T.tensor(1.5)),
    "sort_stable_desc": lambda T: (tuple(T.sort(t(T, I), stable=True)), tuple(t(T, A).sort(0, descending=True))),
    "kthvalue": lambda T: tuple(T.kthvalue(t(T, A), 2, 0)),
    # type conversion
    "type_names": lambda T: (t(T, A).type(), t(T, I).type("torch.DoubleTensor"), t(T, A).type("torch.IntTensor")),
    "result_type": lambda T: (T.result_type(t(T, I), 1.0), T.result_type(t(T, I), T.tensor(1.)),
                              T.result_type(t(T, A), T.tensor(1., dtype=T.float64))),
    "can_cast": lambda T: (T.can_cast(T.float32, T.int32), T.can_cast(T.int64, T.float32),
                           T.can_cast(T.float64, T.float16), T.can_cast(T.bool, T.uint8),
                           T.can_cast(T.int32, T.bool), T.can_cast(float, T.int64), T.can_cast(T.float32, float),
                           T.can_cast(bool, int), T.promote_types(T.float16, float), T.promote_types(int, T.uint8)),
    "half": lambda T: (t(T, A).half() + 1, T.ones(3).half().sum()),
    "item_tolist": lambda T: (t(T, I)[0, 0].item(), t(T, BOOL).tolist(), T.tensor(1.5).half().item()),
    # products and statistics
    "addmv_baddbmm": lambda T: (T.addmv(t(T, A[0]), t(T, A), t(T, A[1])),
                                T.baddbmm(t(T, R[:, :, :3]), t(T, R[:, :, :3]), t(T, R[:, :3, :3]), beta=0.5),
                                T.addbmm(t(T, A), t(T, R[:, :, :3]), t(T, R[:, :3, :3]), alpha=2.)),
    "cov_corrcoef": lambda T: (T.cov(t(T, R[0])), T.cov(t(T, R[0]), correction=0), T.corrcoef(t(T, R[0])),
                               T.cov(t(T, R[0, 0])), t(T, R[0]).cov()),
}


@pytest.mark.parametrize("name", sorted(SAME))
def test_same_as_torch(torch_oracle: Any, name: str) -> None:
    check_both(SAME[name], torch_oracle, rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------- the same error type
RAISES = {
    "linspace_negative_steps": (lambda T: T.linspace(0, 1, -1), "non-negative"),
    "eye_negative": (lambda T: T.eye(-1), "greater or equal to 0"),
    "tensor_of_none": (lambda T: T.tensor([1, None]), "Could not infer dtype of NoneType"),
    "tensor_of_object": (lambda T: T.tensor(object()), "Could not infer dtype of object"),
    "tensor_of_str": (lambda T: T.tensor("a"), "invalid data type 'str'"),
    "amax_empty": (lambda T: T.tensor([]).amax(), "Specify the reduction dim"),
    "std_of_ints": (lambda T: T.tensor([1, 2]).std(), "floating point"),
    "var_of_ints": (lambda T: T.tensor([1, 2]).var(dim=0), "floating point"),
    "norm_of_ints": (lambda T: T.tensor([1, 2]).norm(), "floating point"),
    "narrow_too_long": (lambda T: T.arange(6).narrow(0, 5, 2), "exceeds dimension size"),
    "narrow_bad_start": (lambda T: T.arange(6).narrow(0, 7, 0), "start out of range"),
    "bitwise_float": (lambda T: T.bitwise_and(T.ones(2), T.ones(2)), None),
    "shift_float": (lambda T: T.ones(2) << 1, None),
    "type_bad_name": (lambda T: T.ones(2).type("torch.FooTensor"), "invalid type"),
    "leaf_unsqueeze_": (lambda T: T.ones(3, requires_grad=True).unsqueeze_(0), "leaf Variable"),
    "leaf_t_": (lambda T: T.ones(2, 3, requires_grad=True).t_(), "leaf Variable"),
    "tensor_split_zero": (lambda T: T.arange(4).tensor_split(0), None),
    "axis_and_dim": (lambda T: T.ones(2).sum(dim=0, axis=0), None),
}


@pytest.mark.parametrize("name", sorted(RAISES))
def test_same_error_type(torch_oracle: Any, name: str) -> None:
    fn, match = RAISES[name]
    raises_both(fn, torch_oracle, match=match)


# ----------------------------------------------------------------------------- gradients
@pytest.mark.parametrize("call", [
    lambda T, x: x.sum(axis=1, keepdims=True),
    lambda T, x: T.mean(x, axis=(0, 2)),
    lambda T, x: x.std(axis=-1),
    lambda T, x: T.amax(x, axis=1),
    lambda T, x: x.tensor_split(3, dim=2)[1],
    lambda T, x: x.swapdims(0, 2),
    lambda T, x: x.ravel(),
    lambda T, x: T.dstack([x[0], x[1]]),
    lambda T, x: T.atleast_3d(x[0]),
    lambda T, x: T.cov(x[0]),
    lambda T, x: T.corrcoef(x[1]),
    lambda T, x: T.baddbmm(x[:, :, :3], x[:, :, :3], x[:, :3, :3], alpha=0.5),
    lambda T, x: T.addmv(x[0, 0, :3], x[0, :, :3], x[1, 0, :3]),
    lambda T, x: x.prod(axis=1),
    lambda T, x: T.aminmax(x, dim=2).max,
])
def test_grads(torch_oracle: Any, call: Any) -> None:
    grads_both(call, torch_oracle, R, rtol=1e-4, atol=1e-5, check_grad_fn=False)


# ----------------------------------------------------------------------------- in-place shape methods
def test_inplace_shape_methods_values(torch_oracle: Any) -> None:
    def run(T: Any) -> tuple:
        a, b, c, d, e = T.ones(3), T.ones(1, 3), T.arange(6.).reshape(2, 3), t(T, R), T.arange(9.)
        ra = a.unsqueeze_(0)
        b.squeeze_(0)
        c.t_()
        d.transpose_(0, 2)
        e.resize_(3, 3)
        return ra is a, a, b, c, c.stride(), d, e, T.ones(1, 2, 1).squeeze_(), T.ones(2, 1).squeeze_(1)
    check_both(run, torch_oracle)


def test_inplace_shape_methods_keep_memory_and_history(torch_oracle: Any) -> None:
    def shares(T: Any) -> tuple:
        base = T.zeros(6)
        v = base.view(2, 3)
        v.t_()
        v[0, 1] = 5.                  # still base's memory, through the new shape
        return base, v.shape, v.is_contiguous()
    check_both(shares, torch_oracle)

    def grad_through(T: Any, x: Any) -> Any:
        y = x * 2
        y.unsqueeze_(0)
        y.transpose_(0, 1)
        return y
    grads_both(grad_through, torch_oracle, A)
    for method, args in (("unsqueeze_", (0,)), ("squeeze_", ()), ("squeeze_", (0,)), ("t_", ()),
                         ("swapdims_", (0, 1))):  # also the nodes' names (UnsqueezeBackward1 …)
        grads_both(lambda T, x: getattr(x * 1, method)(*args), torch_oracle, A[:1])


def test_resize_changes_the_element_count() -> None:
    x = lt.arange(6.)
    x.resize_(2, 2)
    assert x.tolist() == [[0., 1.], [2., 3.]]
    x.resize_(5)
    assert tuple(x.shape) == (5,) and x[:4].tolist() == [0., 1., 2., 3.]  # (PyTorch: x[4] is uninitialised)
    with pytest.raises(RuntimeError, match="require grad"):
        lt.ones(2, requires_grad=True).resize_(4)


# ----------------------------------------------------------------------------- numpy() and the RNG state
def test_numpy_hands_out_a_new_view_each_time(torch_oracle: Any) -> None:
    def identity(T: Any) -> tuple:
        x = T.arange(6.)
        a, b = x.numpy(), x.numpy()
        a.shape = (2, 3)             # reshaping the array must not reshape the tensor
        b[0] = 7.
        return a is b, np.shares_memory(a, b), tuple(x.shape), x[0].item(), a[0, 0]
    ours, theirs = identity(lt), identity(torch_oracle)
    assert ours == theirs == (False, True, (6,), 7.0, 7.0)


def test_get_rng_state_is_a_byte_tensor(torch_oracle: Any) -> None:
    def state(T: Any) -> tuple:
        T.manual_seed(11)
        s = T.get_rng_state()
        first = T.rand(3)
        T.set_rng_state(s)
        return s, s.dtype, s.shape, first, T.rand(3)
    check_both(state, torch_oracle)
    # the two libraries' states are interchangeable
    torch_oracle.manual_seed(4)
    lt.set_rng_state(lt.tensor(torch_oracle.get_rng_state().numpy()))
    assert np.array_equal(lt.rand(5).numpy(), torch_oracle.rand(5).numpy())


def test_bfloat16_tensors_can_be_made() -> None:
    """NumPy has no bfloat16; ml_dtypes adds it, and learntorch stores bfloat16 tensors in it on the CPU
    (tests/tensor/test_bfloat16.py compares them with PyTorch's)."""
    x = lt.zeros(2, dtype=lt.bfloat16)
    assert x.dtype is lt.bfloat16 and x.element_size() == 2
    assert not hasattr(lt, "no_such_name")
