"""A sweep over the layers and losses of ``nn``: each module is built with the options a
program commonly passes, given PyTorch's weights (its ``state_dict``, loaded into learntorch's
module), run forward on the same inputs and then backward from the same weighted sum; the
outputs and every parameter's and input's gradient must agree with PyTorch's, or both libraries
must refuse the call with the same type of error.

Each line is ``constructor | inputs``: inputs separated by ``;``, each a shape (standard normal
floats that require grad), ``L(shape…, classes)`` class indices, ``P(shape)`` 0/1 targets (±1
for the margin losses), ``S(shape)`` probabilities in [0, 1)."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import assert_same

MODULES = """nn.Linear(4, 3)|(5, 4)
nn.Linear(4, 3, bias=False)|(2, 5, 4)
nn.Bilinear(4, 3, 2)|(5, 4);(5, 3)
nn.Conv1d(3, 4, 3, padding=1)|(2, 3, 7)
nn.Conv1d(3, 4, 3, stride=2, dilation=2, padding_mode='reflect', padding=2)|(2, 3, 9)
nn.Conv2d(3, 4, 3, padding='same', groups=1)|(2, 3, 6, 6)
nn.Conv2d(4, 4, (3, 2), stride=(2, 1), groups=2, bias=False)|(1, 4, 7, 5)
nn.Conv2d(3, 2, 3, padding=1, padding_mode='circular')|(1, 3, 5, 5)
nn.Conv3d(2, 2, 2)|(1, 2, 3, 4, 4)
nn.ConvTranspose1d(3, 2, 3, stride=2, output_padding=1)|(2, 3, 5)
nn.ConvTranspose2d(3, 2, 4, stride=2, padding=1)|(1, 3, 4, 4)
nn.MaxPool1d(2)|(2, 3, 8)
nn.MaxPool2d(3, stride=2, padding=1)|(1, 2, 7, 7)
nn.MaxPool2d(2, ceil_mode=True)|(1, 2, 5, 5)
nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)|(1, 2, 7, 7)
nn.AvgPool1d(3, ceil_mode=True)|(2, 3, 8)
nn.AdaptiveAvgPool2d((2, 3))|(1, 2, 7, 5)
nn.AdaptiveMaxPool1d(3)|(2, 3, 8)
nn.AdaptiveAvgPool2d(1)|(2, 3, 4, 4)
nn.LPPool2d(2, 2)|(1, 2, 4, 4)
nn.BatchNorm1d(4)|(6, 4)
nn.BatchNorm1d(3, affine=False)|(4, 3, 5)
nn.BatchNorm2d(3, momentum=0.5)|(4, 3, 2, 2)
nn.BatchNorm2d(3).eval()|(4, 3, 2, 2)
nn.LayerNorm(4)|(2, 3, 4)
nn.LayerNorm([3, 4], elementwise_affine=False)|(2, 3, 4)
nn.GroupNorm(2, 4)|(2, 4, 3)
nn.InstanceNorm1d(3, affine=True)|(2, 3, 5)
nn.LocalResponseNorm(2)|(1, 4, 3, 3)
nn.RMSNorm(4)|(2, 3, 4)
nn.Dropout(0.0)|(3, 4)
nn.Dropout(0.5).eval()|(3, 4)
nn.Embedding(10, 3)|L(2, 4, 10)
nn.Embedding(10, 3, padding_idx=0)|L(2, 4, 10)
nn.EmbeddingBag(10, 3, mode='mean')|L(2, 4, 10)
nn.ReLU()|(3, 4)
nn.ReLU6()|(3, 4)
nn.LeakyReLU(0.1)|(3, 4)
nn.PReLU()|(3, 4)
nn.PReLU(4)|(3, 4)
nn.ELU()|(3, 4)
nn.SELU()|(3, 4)
nn.CELU(0.5)|(3, 4)
nn.GELU()|(3, 4)
nn.GELU('tanh')|(3, 4)
nn.SiLU()|(3, 4)
nn.Mish()|(3, 4)
nn.Sigmoid()|(3, 4)
nn.Tanh()|(3, 4)
nn.Softplus(beta=2, threshold=5)|(3, 4)
nn.Softsign()|(3, 4)
nn.Hardtanh(-0.5, 0.5)|(3, 4)
nn.Hardswish()|(3, 4)
nn.Hardsigmoid()|(3, 4)
nn.Hardshrink(0.3)|(3, 4)
nn.Softshrink(0.3)|(3, 4)
nn.Tanhshrink()|(3, 4)
nn.Threshold(0.1, 20)|(3, 4)
nn.LogSigmoid()|(3, 4)
nn.Softmax(dim=1)|(3, 4)
nn.LogSoftmax(dim=-1)|(3, 4)
nn.Softmin(1)|(3, 4)
nn.Softmax2d()|(1, 3, 2, 2)
nn.GLU()|(3, 4)
nn.Flatten()|(2, 3, 4)
nn.Flatten(0, 1)|(2, 3, 4)
nn.Unflatten(1, (2, 2))|(3, 4)
nn.Identity()|(3, 4)
nn.Upsample(scale_factor=2)|(1, 2, 3, 3)
nn.Upsample(size=(5, 4), mode='bilinear', align_corners=True)|(1, 2, 3, 3)
nn.Upsample(scale_factor=2, mode='bicubic')|(1, 1, 3, 3)
nn.PixelShuffle(2)|(1, 4, 2, 2)
nn.PixelUnshuffle(2)|(1, 1, 4, 4)
nn.ZeroPad2d((1, 0, 2, 1))|(1, 1, 2, 2)
nn.ReflectionPad1d(2)|(1, 2, 4)
nn.ReplicationPad2d(1)|(1, 1, 3, 3)
nn.ConstantPad1d(2, 3.5)|(1, 2, 3)
nn.CircularPad2d(1)|(1, 1, 3, 3)
nn.Unfold(2)|(1, 2, 3, 3)
nn.Fold((3, 3), 2)|(1, 8, 4)
nn.ChannelShuffle(2)|(1, 4, 2, 2)
nn.CosineSimilarity(dim=1)|(3, 4);(3, 4)
nn.PairwiseDistance()|(3, 4);(3, 4)
nn.RNN(4, 3)|(5, 2, 4)
nn.RNN(4, 3, num_layers=2, nonlinearity='relu', batch_first=True)|(2, 5, 4)
nn.GRU(4, 3, bidirectional=True)|(5, 2, 4)
nn.LSTM(4, 3, num_layers=2, batch_first=True)|(2, 5, 4)
nn.LSTM(4, 3, proj_size=2)|(5, 2, 4)
nn.RNNCell(4, 3)|(2, 4)
nn.GRUCell(4, 3)|(2, 4)
nn.LSTMCell(4, 3)|(2, 4)
nn.MultiheadAttention(4, 2)|(5, 2, 4);(5, 2, 4);(5, 2, 4)
nn.MultiheadAttention(4, 2, batch_first=True, kdim=3, vdim=2)|(2, 5, 4);(2, 6, 3);(2, 6, 2)
nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0)|(5, 2, 4)
nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, batch_first=True, norm_first=True, activation='gelu')|(2, 5, 4)
nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.0)|(5, 2, 4);(3, 2, 4)
nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))|(5, 4)
nn.MSELoss()|(3, 4);(3, 4)
nn.L1Loss(reduction='sum')|(3, 4);(3, 4)
nn.SmoothL1Loss(beta=0.5)|(3, 4);(3, 4)
nn.HuberLoss(delta=2.0)|(3, 4);(3, 4)
nn.CrossEntropyLoss()|(3, 4);L(3, 4)
nn.CrossEntropyLoss(label_smoothing=0.2, reduction='sum')|(3, 4);L(3, 4)
nn.NLLLoss()|(3, 4);L(3, 4)
nn.BCEWithLogitsLoss()|(3, 4);P(3, 4)
nn.BCELoss()|S(3, 4);P(3, 4)
nn.KLDivLoss(reduction='batchmean')|(3, 4);P(3, 4)
nn.SoftMarginLoss()|(3, 4);(3, 4)
nn.MultiLabelSoftMarginLoss()|(3, 4);P(3, 4)
nn.MultiMarginLoss()|(3, 4);L(3, 4)
nn.GaussianNLLLoss()|(3, 4);(3, 4);P(3, 4)
nn.PoissonNLLLoss()|(3, 4);P(3, 4)
nn.CosineEmbeddingLoss()|(3, 4);(3, 4);P(3)
nn.MarginRankingLoss(0.1)|(3,);(3,);P(3)
nn.TripletMarginLoss()|(3, 4);(3, 4);(3, 4)
nn.HingeEmbeddingLoss()|(3, 4);P(3, 4)""".splitlines()


def _inputs(lib: Any, line: str, spec: str) -> list:
    g = np.random.default_rng(1)
    out = []
    for part in spec.split(";"):
        kind = part[0] if part[0] in "LPS" else ""
        shape = eval(part[len(kind):])
        if kind == "L":  # class indices: all dimensions but the last, below the last
            *dims, classes = shape
            out.append(lib.tensor(g.integers(0, classes, size=tuple(dims))))
        elif kind == "P":
            signed = any(name in line for name in ("Margin", "Hinge", "Cosine"))
            out.append(lib.tensor((g.random(shape) > 0.5).astype(np.float32) * 2 - (1 if signed else 0)))
        elif kind == "S":
            out.append(lib.tensor(g.random(shape).astype(np.float32)).requires_grad_())
        else:
            out.append(lib.tensor(g.standard_normal(shape).astype(np.float32)).requires_grad_())
    return out


def _tensors(value: Any) -> list:
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return [value] if value is not None and hasattr(value, "shape") else []


def _run(lib: Any, line: str, state: Any = None) -> tuple:
    """The module's outputs, then the gradients of its parameters and float inputs."""
    ctor, spec = line.split("|")
    lib.manual_seed(0)
    module = eval(ctor, {"nn": lib.nn})
    if state is not None:
        module.load_state_dict({k: lt.tensor(v.detach().numpy()) for k, v in state.items()})
    inputs = _inputs(lib, ctor, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = _tensors(module(*inputs))
    floats = [o for o in outs if o.dtype.is_floating_point]
    if floats and floats[0].requires_grad:
        total = sum((o * (1 + lib.arange(o.numel()).reshape(o.shape) / 10)).sum() for o in floats)
        total.backward()
    params = [p.grad for _, p in sorted(module.named_parameters())]
    return [o.detach() for o in outs], params + [i.grad for i in inputs if i.dtype.is_floating_point], module


@pytest.mark.parametrize("line", MODULES)
def test_a_module_gives_pytorch_s_outputs_and_gradients(torch_oracle: Any, line: str) -> None:
    try:
        expected_outs, expected_grads, module = _run(torch_oracle, line)
    except Exception as e:  # noqa: BLE001 - a call PyTorch refuses must be refused alike
        with pytest.raises(type(e)):
            _run(lt, line, None)
        return
    actual_outs, actual_grads, _ = _run(lt, line, module.state_dict())
    assert_same(actual_outs, expected_outs, rtol=1e-4, atol=1e-5, check_grad_fn=False, path="output")
    assert_same(actual_grads, expected_grads, rtol=1e-4, atol=1e-5, check_grad_fn=False, path="gradient")
