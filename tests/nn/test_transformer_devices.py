"""The attention and normalisation layers of issue 15 on learntorch's logical CUDA device (the
CuPy-like strict array stand-in): same numbers as on the CPU, forward and backward.  The
convolutions are not included: their im2col kernels need NumPy/CuPy's own API (see
nn/convolution.py)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import learntorch as lt


def _run(model: Any, device: str, arrays: list, **masks: Any) -> tuple:
    model = model.to(device)
    xs = [lt.tensor(a, device=device, requires_grad=True) for a in arrays]
    out = model(*xs, **{k: v.to(device) for k, v in masks.items()})
    out = out[0] if isinstance(out, tuple) else out
    (out ** 2).sum().backward()
    host = lambda t: np.asarray(t.detach().cpu().numpy())  # noqa: E731
    return host(out), [host(x.grad) for x in xs], [host(p.grad) for p in model.parameters()]


@pytest.mark.parametrize("make,shapes,masks", [
    (lambda: lt.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0), [(5, 2, 8), (4, 2, 8)],
     {"tgt_mask": lt.nn.Transformer.generate_square_subsequent_mask(4),
      "src_key_padding_mask": lt.tensor([[False] * 5, [False] * 3 + [True] * 2])}),
    (lambda: lt.nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True), [(4, 2, 8)] * 3, {}),
    (lambda: lt.nn.GroupNorm(2, 4), [(2, 4, 3)], {}),
    (lambda: lt.nn.InstanceNorm1d(4, affine=True, track_running_stats=True), [(2, 4, 3)], {}),
], ids=["transformer", "mha", "group_norm", "instance_norm"])
@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # PyTorch's warning too (test_transformer.py)
def test_same_numbers_on_cuda(any_cuda: Any, make: Any, shapes: list, masks: dict) -> None:
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    lt.manual_seed(0)
    cpu_model = make()
    gpu_model = make()
    gpu_model.load_state_dict(cpu_model.state_dict())
    expected = _run(cpu_model, "cpu", arrays, **masks)
    actual = _run(gpu_model, "cuda", arrays, **masks)
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-5, atol=1e-6)
    for a, e in zip(actual[1] + actual[2], expected[1] + expected[2]):
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-5)
