"""``torch.backends``: switches for the libraries PyTorch calls (cuDNN on NVIDIA GPUs, MPS on Macs).

learntorch calls neither, so these are plain flags that programs may set or read --
the reproducibility recipe ::

    torch.manual_seed(0)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False

runs unchanged.  learntorch is deterministic anyway: the same seed gives the same numbers.
"""
from __future__ import annotations

from types import SimpleNamespace

from .matmul_precision import CudaMatmul

__all__ = ["cudnn", "mps", "cuda", "mha"]

cudnn = SimpleNamespace(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
                        is_available=lambda: False, version=lambda: None)
mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
# torch.backends.cuda.matmul.allow_tf32 = True: read and written by training scripts, no effect here
cuda = SimpleNamespace(matmul=CudaMatmul(), is_built=lambda: False)


# torch.backends.mha: whether nn.MultiheadAttention may take PyTorch's inference "fast path" (see
# nn/modules/multihead_attention.py for the one difference a learner can see: nan for fully masked rows)
_mha_fastpath = [True]


def _set_fastpath_enabled(value: bool) -> None:
    _mha_fastpath[0] = bool(value)


mha = SimpleNamespace(get_fastpath_enabled=lambda: _mha_fastpath[0], set_fastpath_enabled=_set_fastpath_enabled)
