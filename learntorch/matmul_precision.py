"""``torch.set_float32_matmul_precision`` and ``torch.backends.cuda.matmul.allow_tf32``.

On NVIDIA GPUs since Ampere, PyTorch may run float32 matrix products in TF32
(10 mantissa bits) when the precision is "high" or "medium".  learntorch always
multiplies in full float32, so these are settings that a training script can
write and read back, linked as in PyTorch ("high" and "medium" mean TF32
allowed; allowing TF32 reads back as "high"), and that change no number.
"""
from __future__ import annotations

from . import warn_always

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision", "CudaMatmul"]

_PRECISIONS = ("highest", "high", "medium")
_state = {"precision": "highest"}


def get_float32_matmul_precision() -> str:
    """The current float32 matmul precision: "highest" (the default), "high" or "medium"."""
    return _state["precision"]


def set_float32_matmul_precision(precision: str) -> None:
    """Accepted as in PyTorch; learntorch computes float32 matmuls in full precision whatever it says."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _PRECISIONS:
        warn_always.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                         "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["precision"] = precision


class CudaMatmul:
    """``torch.backends.cuda.matmul``: the TF32 switch (tied to the precision) and the
    reduced-precision-reduction switches, plain flags here."""

    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self) -> bool:
        return _state["precision"] != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        _state["precision"] = "high" if value else "highest"
