"""``x.untyped_storage()`` and ``x.storage()``: the memory views share, as PyTorch shows it; and the
small device-selection names programs use beside it (``torch.cpu``, ``x.is_mps``, ``torch.GradScaler``,
the deprecated ``torch.qr``)."""
from __future__ import annotations

import warnings

import pytest

import learntorch as lt

try:
    import torch
except ImportError:  # pragma: no cover - the differential tests say why they skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")

# each a question about memory a learner asks, answered without an address
SHARING = [
    "x[1:].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()",
    "x.view(2, 3).untyped_storage().data_ptr() == x.untyped_storage().data_ptr()",
    "x.view(2, 3).t().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()",
    "x.detach().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()",
    "x.clone().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()",
    "x.contiguous().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()",
    "x.view(2, 3).t().contiguous().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()",
    "x[1:].data_ptr() - x[1:].untyped_storage().data_ptr()",
    "x[2:].untyped_storage().nbytes()", "len(x.untyped_storage())", "x.untyped_storage().size()",
    "x.untyped_storage().element_size()", "str(x.untyped_storage().device)", "x.untyped_storage().is_cuda",
    "x.untyped_storage()[3]", "x.untyped_storage().tolist()", "repr(x.untyped_storage())",
    "x.storage().size()", "len(x[1:].storage())", "x.storage().dtype", "x.storage().element_size()",
    "x.storage()[2]", "x.storage().tolist()", "repr(x.storage())", "repr(lib.ones(2, dtype=lib.bool).storage())",
    "repr(lib.tensor([1, 2]).storage())", "x.storage().nbytes()", "x.storage().data_ptr() == x.data_ptr()",
    "lib.is_storage(x.untyped_storage())", "lib.is_storage(x.storage())", "lib.is_storage(x)",
    "isinstance(x.untyped_storage(), lib.UntypedStorage)", "isinstance(x.storage(), lib.TypedStorage)",
    "lib.cpu.is_available()", "lib.cpu.device_count()", "lib.cpu.current_device()", "lib.cpu.synchronize()",
    "x.is_mps", "lib.GradScaler is lib.amp.GradScaler",
    "lib.allclose(lib.qr(lib.tensor([[2., 1.], [1., 3.]]))[1], lib.linalg.qr(lib.tensor([[2., 1.], [1., 3.]])).R)",
    "lib.allclose(lib.tensor([[2., 1.], [1., 3.]]).qr().Q, lib.linalg.qr(lib.tensor([[2., 1.], [1., 3.]])).Q)",
    "type(lib.qr(lib.eye(2))).__name__",
    "lib.qr(lib.ones(3, 2), some=False).Q.shape",
]


def _run(lib, expr: str) -> object:
    x = lib.arange(6.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = eval(expr, {"lib": lib, "x": x})
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return type(e).__name__
    if hasattr(value, "tolist") and not isinstance(value, (int, float)):
        return value.tolist() if not hasattr(value, "shape") else (tuple(value.shape), value.tolist())
    return str(value).replace("torch.", "")


@needs_torch
@pytest.mark.parametrize("expr", SHARING)
def test_storage_answers_as_pytorch_s(expr):
    assert _run(lt, expr) == _run(torch, expr)


def test_views_share_a_storage_and_a_clone_does_not():
    x = lt.arange(6.0)
    s = x.untyped_storage()
    assert x[1:].untyped_storage().data_ptr() == s.data_ptr() != x.clone().untyped_storage().data_ptr()
    assert s.nbytes() == 24 and x[3:].storage_offset() == 3


def test_typed_storage_is_deprecated_with_pytorch_s_warning():
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        lt.ones(2).storage()
