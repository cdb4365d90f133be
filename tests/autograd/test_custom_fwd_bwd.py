"""``torch.amp.custom_fwd`` / ``custom_bwd``: a custom Function under autocast, as PyTorch runs it (its
forward in the surrounding autocast state, or with ``cast_inputs`` in full precision with autocast off,
and its backward in the state its forward ran in).  One story, told in both libraries and compared."""
from __future__ import annotations

import pytest

import learntorch

try:
    import torch
except ImportError:  # pragma: no cover - the differential test says why it skips
    torch = None


def story(torch):
    out = []
    class MyMM(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            out.append(("fwd", str(a.dtype), torch.is_autocast_enabled("cpu")))
            return a.mm(b)
        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            out.append(("bwd", str(g.dtype), torch.is_autocast_enabled("cpu")))
            return g.mm(b.t()), a.t().mm(g)
    class F32(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
        def forward(ctx, a, b):
            out.append(("f32 fwd", str(a.dtype), str(b.dtype), torch.is_autocast_enabled("cpu")))
            return a * b
        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            out.append(("f32 bwd", str(g.dtype), torch.is_autocast_enabled("cpu")))
            return g, g
    a = torch.ones(2, 2, requires_grad=True); b = torch.ones(2, 2, requires_grad=True)
    with torch.autocast("cpu"):
        y = MyMM.apply(a.mm(b), b)
        z = F32.apply(a.mm(b), b)
        out.append(("y", str(y.dtype), "z", str(z.dtype)))
    (y.float().sum() + z.sum()).backward()
    y2 = MyMM.apply(a, b); y2.sum().backward()
    out.append(("grad", a.grad.dtype == torch.float32, float(a.grad.sum())))
    try:
        torch.amp.custom_fwd(device_type=1)
    except Exception as e:
        out.append(type(e).__name__)
    return out


@pytest.mark.skipif(torch is None, reason="differential test: PyTorch (the oracle) is not installed")
def test_custom_fwd_and_bwd_run_as_pytorch_s():
    assert story(learntorch) == story(torch)


def test_cast_inputs_runs_forward_in_full_precision_without_autocast():
    events = story(learntorch)
    assert ("f32 fwd", "torch.float32", "torch.float32", False) in events
    assert ("bwd", "torch.bfloat16", True) in events and events[-1] == "ValueError"
