"""A non-tensor where a tensor is needed: PyTorch's error type, a message that names the
argument, warnings that still point at the caller, and functions that still pickle
(learntorch/tensor_arguments.py, warn_always.warn)."""
from __future__ import annotations

import inspect
import pickle
import warnings

import numpy as np
import pytest

import learntorch as lt
import learntorch.nn.functional as LF
from learntorch.tensor_arguments import tensor_slots

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - the differential tests say why they skip
    torch = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")

# Calls with a list, a number, None or a string where PyTorch wants a tensor (or a tuple of ints).
BAD_CALLS = """F.cross_entropy(x, [1,2,0])
F.cross_entropy([[1.0]], y)
F.nll_loss(x, None)
F.mse_loss(x, [1.0])
F.mse_loss([1.0], x)
F.l1_loss(x, 3)
F.binary_cross_entropy(x.sigmoid(), [1.0])
F.binary_cross_entropy_with_logits(x, 1.0)
F.linear([1.0], w)
F.linear(x, [[1.0]])
F.linear(x, w, [1.0])
F.relu([1.0])
F.softmax([1.0], 0)
F.log_softmax([1.0], 0)
F.gelu([1.0])
F.dropout([1.0])
F.layer_norm([1.0], (1,))
F.embedding([0], w)
F.embedding(y, [[1.0]])
F.conv1d([1.0], w)
F.pad([1.0], (1, 1))
F.one_hot([1, 2])
F.sigmoid([1.0])
F.tanh([1.0])
F.normalize([1.0])
F.cosine_similarity([1.0], x)
F.kl_div([1.0], x)
F.smooth_l1_loss(x, [1.0])
F.scaled_dot_product_attention([1.0], x, x)
torch.add(x, [1.0])
torch.add([1.0], x)
torch.mul(x, [1.0])
torch.matmul(x, [1.0])
torch.mm(x, [1.0])
torch.bmm(x, [1.0])
torch.sum([1.0])
torch.mean([1.0])
torch.exp([1.0])
torch.log(1.0)
torch.cat([x, [1.0]])
torch.cat(x)
torch.stack([x, 1.0])
torch.where(x > 0, x, [1.0])
torch.clamp([1.0], 0)
torch.max([1.0])
torch.argmax([1.0])
torch.softmax([1.0], 0)
torch.relu([1.0])
torch.sqrt([1.0])
torch.transpose([1.0], 0, 1)
torch.reshape([1.0], (1,))
torch.flatten([1.0])
torch.squeeze([1.0])
torch.unsqueeze([1.0], 0)
torch.dot(x, [1.0])
torch.outer(x, [1.0])
torch.equal(x, [1.0])
torch.gather(x, 0, [[0]])
torch.index_select(x, 0, [0])
torch.masked_fill(x, [True], 0)
torch.topk([1.0], 1)
torch.sort([1.0])
torch.norm([1.0])
torch.split([1.0], 1)
torch.tensordot([1.0], x)
torch.lerp(x, [1.0], 0.5)
torch.addmm(b, x, [1.0])
torch.zeros_like([1.0])
torch.randn_like([1.0])
torch.clone([1.0])
torch.chunk([1.0], 2)
torch.nn.Linear(4, 5)([1.0])
torch.nn.MSELoss()(x, [1.0])
x.add([1.0])
x.mul("a")
x.view("a")
x.view(2.5, 4)
x.reshape(3, 4.0)
x.expand("a")
x.permute(0, 1.0)
x.masked_fill([True], 0)
x.index_select(0, [0])
x.gather(0, [[0]])
x.scatter(0, [[0]], 1.0)
x.copy_([1.0])
x @ [1.0]
x + "a"
x.sum(dim="a")
x.sum(dim=(0, 1.0))
x.transpose("a", 0)
torch.eq(x, [1.0])
x.eq([1.0])
x == [1.0]
x.ne("a")
torch.logical_and(x, [1.0])
torch.logical_or(x, 1)
torch.conj([1.0])
torch.real([1.0])
torch.resolve_neg([1.0])
torch.is_conj([1.0])
F.alpha_dropout([1.0])
F.feature_alpha_dropout([1.0])
torch.einsum("ij->i", [1.0])
torch.einsum("ij,ij->", x, 2.0)
torch.tensor([1, "a"])
torch.tensor([[1.0], "a"])
torch.full((2,), "a")
torch.full((2,), None)
torch.full((2,), [1.0])
torch.zeros(2, dtype="float32")
torch.arange(3, dtype="int64")
torch.tensor([1, 2], dtype="float64")
x.sum(dtype="float64")
x.to(dtype="float32")
torch.nn.Linear(2, 2, dtype="float64")
torch.zeros(2, dtype=float)
x.to(dtype=int)
torch.maximum(x, 2.0)
x.minimum(2.0)
torch.isclose(x, 1.0)
torch.allclose(x, 1.0)
torch.dist(x, 1.0)
F.soft_margin_loss(2.0, x)
F.poisson_nll_loss(x, 2.0)
x.copy_(2.0)
torch.ones(2, requires_grad=True).copy_(2.0)
x["a"]
x[None, "a"]
x[1.5]""".splitlines()


def _raised(lib, functional, expr: str) -> str:
    x, y = lib.randn(3, 4), lib.tensor([1, 0, 2])
    w, b = lib.randn(5, 4), lib.randn(5)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(expr, {"torch": lib, "F": functional, "x": x, "y": y, "w": w, "b": b})
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__
    return "no error"


@needs_torch
@pytest.mark.parametrize("expr", BAD_CALLS)
def test_a_wrong_argument_raises_what_pytorch_raises(expr: str) -> None:
    assert _raised(lt, LF, expr) == _raised(torch, TF, expr)


def test_the_message_names_the_function_the_argument_and_what_it_got() -> None:
    with pytest.raises(TypeError, match=r"^exp\(\): argument 'input' \(position 1\) must be Tensor, not list$"):
        lt.exp([1.0])
    with pytest.raises(TypeError, match=r"^linear\(\): argument 'weight' \(position 2\) must be Tensor, not list"):
        LF.linear(lt.ones(2, 3), [[1.0]])
    with pytest.raises(TypeError, match=r"^cross_entropy\(\): argument 'target' must be Tensor, not NoneType"):
        LF.cross_entropy(lt.ones(2, 3), target=None)
    with pytest.raises(TypeError, match=r"expected Tensor as element 1 in argument 0, but got float"):
        lt.stack([lt.ones(2), 1.0])
    # a method counts its arguments without self, as PyTorch does
    with pytest.raises(TypeError, match=r"^gather\(\): argument 'index' \(position 2\) must be Tensor, not list"):
        lt.ones(2, 2).gather(0, [[0]])
    # PyTorch's F.mse_loss is Python and asks the list for .size(): its error is an AttributeError
    with pytest.raises(AttributeError, match=r"^mse_loss\(\): argument 'target' \(position 2\) must be Tensor"):
        LF.mse_loss(lt.ones(2), [1.0, 2.0])


def test_the_original_error_stays_when_every_tensor_is_a_tensor() -> None:
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        LF.linear(lt.ones(2, 3), lt.ones(4, 5))
    # a TypeError the function raised itself is left as it is (here, PyTorch's own message)
    with pytest.raises(TypeError, match="object is not iterable"):
        lt.ones(2, requires_grad=True).sum().backward(1.5)


def test_sizes_must_be_integers() -> None:
    x = lt.arange(12.0)
    assert x.view(np.int64(3), 4).shape == (3, 4)
    assert x.view(lt.tensor(3), 4).shape == (3, 4)  # a one-element integer tensor is an index
    assert x.reshape([2, 6]).shape == (2, 6)
    for bad in (2.5, "3", True, lt.tensor(3.0)):
        with pytest.raises(TypeError):
            x.view(bad, -1)
    with pytest.raises(TypeError, match="dim must be an int or a tuple of ints, not str"):
        x.sum(dim="a")


def test_warnings_still_point_at_the_caller() -> None:
    """The wrapper is one more frame between the caller and the warning; ``warn_always.warn``
    skips it, so ``stacklevel=2`` still names this file."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LF.softmax(lt.ones(2, 3))  # no dim: PyTorch's "Implicit dimension choice" warning
        lt.chain_matmul(lt.ones(2, 2), lt.ones(2, 2))  # deprecated
    assert [w.category for w in caught] == [UserWarning, UserWarning]
    assert all(w.filename == __file__ for w in caught), [w.filename for w in caught]


@pytest.mark.parametrize("name", ["add", "exp", "cat", "concat", "relu", "matmul", "sum"])
def test_the_namespace_functions_pickle(name: str) -> None:
    """``torch.save`` of a module that holds ``torch.add`` pickles the function by its name."""
    fn = getattr(lt, name)
    assert pickle.loads(pickle.dumps(fn)) is fn
    assert pickle.loads(pickle.dumps(LF.cross_entropy)) is LF.cross_entropy


def test_the_wrapper_keeps_the_signature_and_the_source() -> None:
    assert list(inspect.signature(LF.linear).parameters) == ["input", "weight", "bias"]
    assert "def linear(" in inspect.getsource(LF.linear)
    assert [s[0] for s in tensor_slots(LF.linear)] == ["input", "weight", "bias"]


def test_the_package_warns_through_warn_always() -> None:
    """``warnings.warn(..., stacklevel=2)`` called directly would count the argument-check wrapper
    as the caller; every warning of the package goes through ``warn_always.warn`` instead."""
    from pathlib import Path
    root = Path(lt.__file__).parent
    direct = [str(p.relative_to(root)) for p in root.rglob("*.py")
              if p.name != "warn_always.py" and "warnings.warn(" in p.read_text()]
    assert direct == []
