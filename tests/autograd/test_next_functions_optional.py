"""``grad_fn.next_functions`` for optional tensor inputs, against PyTorch.

A PyTorch backward node has one input slot per tensor argument of its operation, given or
not: ``F.conv2d(x, w)`` without a bias makes a ``ConvolutionBackward0`` with three edges,
the last ``(None, 0)``; so do ``layer_norm``/``batch_norm``/``group_norm`` without weight or
bias, ``clamp`` with one tensor bound, ``where`` with a number, ``embedding_bag`` without
``per_sample_weights``.  Tensors that only steer the operation (``gather``'s index,
``masked_fill``'s mask, a margin loss's target) are *not* inputs of the node, and neither is
the number of the Scalar overloads (``fmod(x, 1.5)``, ``scatter(..., 1.0)``).  ``prelu`` is
one node of two inputs (``PreluKernelBackward0``), ``(None, 0)`` for constant slopes.  The autograd chapter prints
``next_functions``, so the structure -- node names, ``None`` edges and output numbers, two
levels deep -- must be PyTorch's, and the gradients must stay PyTorch's too.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import learntorch as lt
from conftest import TORCH_REASON, assert_same

torch = pytest.importorskip("torch", reason=TORCH_REASON)


def structure(node: Any, depth: int = 2) -> Any:
    """``(node class name, [(child name or None, input_nr, child's structure), ...])``."""
    if node is None:
        return None
    edges = []
    for child, nr in node.next_functions:
        name = None if child is None else type(child).__name__
        deeper = structure(child, depth - 1) if child is not None and depth > 1 else None
        edges.append((name, nr, deeper))
    return type(node).__name__, edges


def _array(shape: tuple, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


class Inputs:
    """The same inputs in one library: ``f(shape, seed)`` a float leaf that requires grad,
    ``c(shape, seed)`` a float constant, ``i(values)`` an int64 tensor.  Remembers the
    leaves, so their gradients can be compared afterwards."""

    def __init__(self, lib: Any) -> None:
        self.lib, self.leaves = lib, []

    def f(self, shape: tuple, seed: int) -> Any:
        t = self.lib.tensor(_array(shape, seed)).requires_grad_(True)
        self.leaves.append(t)
        return t

    def c(self, shape: tuple, seed: int) -> Any:
        return self.lib.tensor(_array(shape, seed))

    def i(self, values: Any) -> Any:
        return self.lib.tensor(np.asarray(values, dtype=np.int64))


CASES: dict[str, Callable[[Any, Inputs], Any]] = {
    # convolutions: the bias is the third input, given or not
    "conv1d_no_bias": lambda T, a: T.nn.functional.conv1d(a.f((1, 2, 5), 0), a.f((3, 2, 3), 1)),
    "conv2d_no_bias": lambda T, a: T.nn.functional.conv2d(a.f((1, 2, 5, 5), 0), a.f((3, 2, 3, 3), 1)),
    "conv2d_bias": lambda T, a: T.nn.functional.conv2d(a.f((1, 2, 5, 5), 0), a.f((3, 2, 3, 3), 1), a.f((3,), 2)),
    "conv2d_constant_input": lambda T, a: T.nn.functional.conv2d(a.c((1, 2, 5, 5), 0), a.f((3, 2, 3, 3), 1)),
    "conv2d_padded_strided": lambda T, a: T.nn.functional.conv2d(a.f((1, 2, 6, 6), 0), a.f((4, 1, 3, 3), 1),
                                                                 stride=2, padding=1, groups=2),
    "conv3d_no_bias": lambda T, a: T.nn.functional.conv3d(a.f((1, 2, 4, 4, 4), 0), a.f((3, 2, 2, 2, 2), 1)),
    "conv_transpose1d_no_bias": lambda T, a: T.nn.functional.conv_transpose1d(a.f((1, 2, 4), 0), a.f((2, 3, 3), 1)),
    "conv_transpose2d_no_bias": lambda T, a: T.nn.functional.conv_transpose2d(a.f((1, 2, 4, 4), 0),
                                                                              a.f((2, 3, 3, 3), 1), stride=2),
    "conv_transpose2d_bias": lambda T, a: T.nn.functional.conv_transpose2d(a.f((1, 2, 4, 4), 0),
                                                                           a.f((2, 3, 3, 3), 1), a.f((3,), 2)),
    "conv2d_module_no_bias": lambda T, a: _conv_module(T, a),
    # linear: mm / addmm, and the 1-D input's squeeze
    "linear_no_bias": lambda T, a: T.nn.functional.linear(a.f((2, 3), 0), a.f((4, 3), 1)),
    "linear_bias": lambda T, a: T.nn.functional.linear(a.f((2, 3), 0), a.f((4, 3), 1), a.f((4,), 2)),
    "linear_1d_no_bias": lambda T, a: T.nn.functional.linear(a.f((3,), 0), a.f((4, 3), 1)),
    "addmm_constant_bias": lambda T, a: T.addmm(a.c((2, 4), 0), a.f((2, 3), 1), a.f((3, 4), 2)),
    # normalisations: weight and bias are inputs two and three
    "layer_norm_no_affine": lambda T, a: T.nn.functional.layer_norm(a.f((2, 4), 0), (4,)),
    "layer_norm_weight_only": lambda T, a: T.nn.functional.layer_norm(a.f((2, 4), 0), (4,), a.f((4,), 1)),
    "layer_norm_affine": lambda T, a: T.nn.functional.layer_norm(a.f((2, 4), 0), (4,), a.f((4,), 1), a.f((4,), 2)),
    "batch_norm_train_no_affine": lambda T, a: T.nn.functional.batch_norm(a.f((4, 3), 0), None, None,
                                                                          training=True),
    "batch_norm_eval_no_affine": lambda T, a: T.nn.functional.batch_norm(a.f((4, 3), 0), T.zeros(3), T.ones(3)),
    "batch_norm_train_affine": lambda T, a: T.nn.functional.batch_norm(a.f((4, 3, 2), 0), T.zeros(3), T.ones(3),
                                                                       a.f((3,), 1), a.f((3,), 2), training=True),
    "batch_norm_bias_only": lambda T, a: T.nn.functional.batch_norm(a.f((4, 3), 0), None, None, None,
                                                                    a.f((3,), 2), training=True),
    "group_norm_no_affine": lambda T, a: T.nn.functional.group_norm(a.f((2, 4, 3), 0), 2),
    "group_norm_affine": lambda T, a: T.nn.functional.group_norm(a.f((2, 4, 3), 0), 2, a.f((4,), 1), a.f((4,), 2)),
    "instance_norm_no_affine": lambda T, a: T.nn.functional.instance_norm(a.f((2, 3, 5), 0)),
    "instance_norm_affine": lambda T, a: T.nn.functional.instance_norm(a.f((2, 3, 5), 0), weight=a.f((3,), 1),
                                                                       bias=a.f((3,), 2)),
    "rms_norm": lambda T, a: T.nn.functional.rms_norm(a.f((2, 4), 0), (4,), a.f((4,), 1)),
    "normalize": lambda T, a: T.nn.functional.normalize(a.f((2, 3), 0)),
    # embeddings and losses: indices and targets are not inputs of the node
    "embedding": lambda T, a: T.nn.functional.embedding(a.i([[0, 2], [1, 3]]), a.f((4, 3), 0)),
    "embedding_bag_no_weights": lambda T, a: T.nn.functional.embedding_bag(a.i([0, 2, 1, 3]), a.f((4, 3), 0),
                                                                           a.i([0, 2])),
    "embedding_bag_weights": lambda T, a: T.nn.functional.embedding_bag(a.i([0, 2, 1, 3]), a.f((4, 3), 0),
                                                                        a.i([0, 2]), mode="sum",
                                                                        per_sample_weights=a.f((4,), 1)),
    "nll_loss": lambda T, a: T.nn.functional.nll_loss(a.f((3, 4), 0), a.i([0, 3, 1])),
    "nll_loss_weight": lambda T, a: T.nn.functional.nll_loss(a.f((3, 4), 0), a.i([0, 3, 1]),
                                                             weight=T.tensor([1., 2., 3., 4.])),
    "cross_entropy": lambda T, a: T.nn.functional.cross_entropy(a.f((3, 4), 0), a.i([0, 3, 1])),
    "cross_entropy_weight": lambda T, a: T.nn.functional.cross_entropy(a.f((3, 4), 0), a.i([0, 3, 1]),
                                                                       weight=T.tensor([1., 2., 3., 4.])),
    "cross_entropy_label_smoothing": lambda T, a: T.nn.functional.cross_entropy(a.f((3, 4), 0), a.i([0, 3, 1]),
                                                                                label_smoothing=0.1),
    "bce_with_logits_pos_weight": lambda T, a: T.nn.functional.binary_cross_entropy_with_logits(
        a.f((2, 3), 0), a.c((2, 3), 1).sigmoid(), pos_weight=T.ones(3)),
    "multi_margin_loss": lambda T, a: T.nn.functional.multi_margin_loss(a.f((3, 4), 0), a.i([0, 3, 1])),
    "multi_margin_loss_weight": lambda T, a: T.nn.functional.multi_margin_loss(a.f((3, 4), 0), a.i([0, 3, 1]),
                                                                               weight=T.tensor([1., 2., 3., 4.])),
    "multilabel_margin_loss": lambda T, a: T.nn.functional.multilabel_margin_loss(
        a.f((2, 4), 0), a.i([[0, 3, -1, 1], [1, -1, 0, 0]])),
    "soft_margin_loss": lambda T, a: T.nn.functional.soft_margin_loss(a.f((2, 4), 0),
                                                                      T.tensor([[1., -1, 1, -1], [1, 1, -1, -1]])),
    # prelu: one node, its slopes viewed to broadcast over the channels
    "prelu_channels": lambda T, a: T.nn.functional.prelu(a.f((2, 3, 4), 0), a.f((3,), 1)),
    "prelu_one_slope": lambda T, a: T.nn.functional.prelu(a.f((2, 3), 0), a.f((1,), 1)),
    "prelu_1d_input": lambda T, a: T.nn.functional.prelu(a.f((3,), 0), a.f((1,), 1)),
    "prelu_constant_slopes": lambda T, a: T.nn.functional.prelu(a.f((2, 3), 0), T.full((3,), 0.25)),
    "prelu_constant_input": lambda T, a: T.nn.functional.prelu(a.c((2, 3), 0), a.f((3,), 1)),
    # clamp with tensor bounds: min and max are inputs two and three
    "clamp_tensor_min": lambda T, a: T.clamp(a.f((2, 3), 0), min=a.c((2, 3), 1)),
    "clamp_tensor_max": lambda T, a: T.clamp(a.f((2, 3), 0), max=a.f((2, 3), 1)),
    "clamp_tensor_both": lambda T, a: T.clamp(a.f((2, 3), 0), a.f((2, 3), 1), a.f((2, 3), 2) + 1),
    "clamp_min_tensor": lambda T, a: T.clamp_min(a.f((2, 3), 0), a.f((2, 3), 1)),
    "clamp_max_tensor": lambda T, a: T.clamp_max(a.f((2, 3), 0), a.f((2, 3), 1)),
    "clamp_number": lambda T, a: T.clamp(a.f((2, 3), 0), min=0.0),
    # where: a number is a wrapped tensor, an input without history
    "where_tensors": lambda T, a: T.where(a.c((2, 3), 5) > 0, a.f((2, 3), 0), a.f((2, 3), 1)),
    "where_number_other": lambda T, a: T.where(a.c((2, 3), 5) > 0, a.f((2, 3), 0), 0.0),
    "where_number_input": lambda T, a: T.where(a.c((2, 3), 5) > 0, 1, a.f((2, 3), 0)),
    "where_constant_other": lambda T, a: T.where(a.c((2, 3), 5) > 0, a.f((2, 3), 0), a.c((2, 3), 1)),
    # indexing: the index or mask is not an input of the node
    "gather": lambda T, a: T.gather(a.f((4, 3), 0), 1, a.i([[0], [2], [1], [0]])),
    "take_along_dim": lambda T, a: T.take_along_dim(a.f((2, 3), 0), a.i([[0], [1]]), 1),
    "masked_fill_number": lambda T, a: a.f((2, 3), 0).masked_fill(a.c((2, 3), 5) > 0, 1.0),
    "masked_fill_tensor": lambda T, a: a.f((2, 3), 0).masked_fill(a.c((2, 3), 5) > 0, a.f((), 1)),
    "masked_fill_constant_tensor": lambda T, a: a.f((2, 3), 0).masked_fill(a.c((2, 3), 5) > 0, T.tensor(2.0)),
    "masked_fill_broadcast_mask": lambda T, a: a.f((2, 3), 0).masked_fill(a.c((3,), 5) > 0, a.f((), 1)),
    "scatter_number": lambda T, a: T.scatter(a.f((4, 3), 0), 1, a.i([[0], [2], [1], [0]]), 1.0),
    "scatter_tensor": lambda T, a: T.scatter(a.f((4, 3), 0), 1, a.i([[0], [2], [1], [0]]), a.f((4, 1), 1)),
    "index_select": lambda T, a: T.index_select(a.f((4, 3), 0), 0, a.i([0, 2])),
    # binary operations: a number or a constant tensor is an edge to nothing
    "fmod_number": lambda T, a: T.fmod(a.f((2, 3), 0), 1.5),
    "fmod_constant": lambda T, a: T.fmod(a.f((2, 3), 0), a.c((2, 3), 1).abs() + 0.5),
    "remainder_number": lambda T, a: a.f((2, 3), 0) % 1.5,
    "remainder_constant": lambda T, a: T.remainder(a.f((2, 3), 0), a.c((2, 3), 1).abs() + 0.5),
    "mul_number": lambda T, a: a.f((2, 3), 0) * 2,
    "add_constant": lambda T, a: T.add(a.f((2, 3), 0), a.c((2, 3), 1), alpha=2),
    "matmul_constant": lambda T, a: a.f((2, 3), 0) @ a.c((3, 4), 1),
    "addcmul_constant": lambda T, a: T.addcmul(a.f((2, 3), 0), a.f((2, 3), 1), a.c((2, 3), 2)),
    "mse_loss_constant_target": lambda T, a: T.nn.functional.mse_loss(a.f((2, 3), 0), a.c((2, 3), 1)),
}


def _conv_module(T: Any, a: Inputs) -> Any:
    T.manual_seed(0)
    conv = T.nn.Conv2d(2, 3, 3, bias=False)
    with T.no_grad():
        conv.weight.copy_(T.tensor(_array((3, 2, 3, 3), 1)))
    return conv(a.f((1, 2, 5, 5), 0))


def _both(name: str) -> tuple[Any, Any, Inputs, Inputs]:
    a_lt, a_t = Inputs(lt), Inputs(torch)
    return CASES[name](lt, a_lt), CASES[name](torch, a_t), a_lt, a_t


@pytest.mark.parametrize("name", list(CASES))
def test_next_functions_structure(name: str) -> None:
    out_lt, out_t, _, _ = _both(name)
    assert structure(out_lt.grad_fn) == structure(out_t.grad_fn)


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_unchanged(name: str) -> None:
    out_lt, out_t, a_lt, a_t = _both(name)
    w = _array(tuple(out_t.shape), 99)
    (out_lt * lt.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    for i, (x_lt, x_t) in enumerate(zip(a_lt.leaves, a_t.leaves)):
        assert_same(x_lt.grad, x_t.grad, rtol=1e-4, atol=1e-5, path=f"{name}: leaf {i} .grad")


@pytest.mark.parametrize("name", ["conv2d_no_bias", "layer_norm_no_affine", "batch_norm_train_no_affine",
                                  "group_norm_no_affine", "clamp_tensor_max", "masked_fill_tensor",
                                  "prelu_channels"])
def test_second_derivative_unchanged(name: str) -> None:
    """A None edge changes nothing under ``create_graph=True`` either.  (Only the values: the
    nodes of a backward written with tensor operations are not PyTorch's fused double-backward
    nodes, ``NativeLayerNormBackwardBackward0`` and the like.)"""
    out_lt, out_t, a_lt, a_t = _both(name)
    g_lt = lt.autograd.grad((out_lt ** 2).sum(), a_lt.leaves[0], create_graph=True)[0]
    g_t = torch.autograd.grad((out_t ** 2).sum(), a_t.leaves[0], create_graph=True)[0]
    (g_lt.sin().sum()).backward()
    (g_t.sin().sum()).backward()
    for i, (x_lt, x_t) in enumerate(zip(a_lt.leaves, a_t.leaves)):
        assert_same(x_lt.grad, x_t.grad, rtol=1e-4, atol=1e-4, path=f"{name}: leaf {i} .grad")


def test_calling_a_node_with_a_none_edge_by_hand() -> None:
    """``grad_fn(grad)`` returns one gradient per edge, None for the missing bias, as in PyTorch."""
    grads = []
    for T in (lt, torch):
        x = T.tensor(_array((1, 2, 5, 5), 0), requires_grad=True)
        w = T.tensor(_array((3, 2, 3, 3), 1), requires_grad=True)
        y = T.nn.functional.conv2d(x, w)
        grads.append(y.grad_fn(T.ones_like(y)))
    (gx, gw, gb), (tx, tw, tb) = grads
    assert gb is None and tb is None
    assert_same(gx, tx, rtol=1e-4, atol=1e-5)
    assert_same(gw, tw, rtol=1e-4, atol=1e-5)


def test_a_custom_function_lists_no_edge_for_none() -> None:
    """A learner's own Function keeps PyTorch's rule for it: a None argument is no input."""
    nexts = []
    for T in (lt, torch):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, bias: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * 2, None

        x = T.ones(2, requires_grad=True)
        y = Double.apply(x, None)
        nexts.append([(type(n).__name__, nr) for n, nr in y.grad_fn.next_functions])
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
    assert nexts[0] == nexts[1] == [("AccumulateGrad", 0)]
