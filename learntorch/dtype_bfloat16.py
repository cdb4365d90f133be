"""``torch.bfloat16``: float32's range in 16 bits, stored with ``ml_dtypes``.

*What it is.*  bfloat16 ("brain float") is float32 with the low 16 bits of the
mantissa cut off: 1 sign bit, float32's 8 exponent bits (so the same range, up to
≈3.4e38, and no overflow where float32 has none) and 7 mantissa bits (about 3
significant decimal digits: ``finfo(bfloat16).eps`` is 2**-7 = 0.0078125).
float16 makes the other trade: 10 mantissa bits but 5 exponent bits (65504 is
its largest number).  Training scripts choose bfloat16 because a gradient does
not underflow to zero in it, so no loss scaling is needed.

*Storage.*  NumPy, learntorch's CPU array library, has no bfloat16 type.  The
``ml_dtypes`` package (a dependency of learntorch) adds one to NumPy: an array
of ``ml_dtypes.bfloat16`` holds 2 bytes per element, and converting to it rounds
to the nearest bfloat16, ties to even, as PyTorch does (the same bits).

*Computing.*  PyTorch's CPU kernels load bfloat16 numbers as float32, compute,
and round each result to bfloat16 once: a sum of a thousand ones is 1000, where
adding them up *in* bfloat16 would stop at 256.  learntorch does the same, in
one place (``autograd/bfloat16_compute.py``): a built-in operation whose result
is bfloat16 runs on float32 copies of its bfloat16 inputs, and its results and
gradients are rounded to bfloat16.  So results match PyTorch's to within
bfloat16's rounding (a unit or two in the last place, what
``torch.testing.assert_close`` allows for bfloat16), most of them bit for bit.

*CPU only.*  CuPy (a real GPU) and its stand-in have no bfloat16 arrays:
putting a bfloat16 tensor on ``cuda`` raises a TypeError that says so
(:data:`BFLOAT16_CPU_ONLY`).  ``x.numpy()`` refuses bfloat16 with PyTorch's
TypeError, as ``torch.from_numpy`` refuses an ``ml_dtypes`` array: use
``x.float().numpy()``.
"""
from __future__ import annotations

import ml_dtypes

from . import dtypes

__all__ = ["bfloat16", "BFLOAT16_CPU_ONLY"]

BFLOAT16_CPU_ONLY = ("learntorch keeps torch.bfloat16 tensors on the CPU only: they are NumPy arrays of "
                     "ml_dtypes.bfloat16, and CuPy (the GPU) has no bfloat16 type. Use torch.float16 or "
                     "torch.float32 on a CUDA device.")

bfloat16 = dtypes.dtype("bfloat16", ml_dtypes.bfloat16, dtypes._FLOAT)

# Set by ``Tensor._init`` when the first bfloat16 tensor is made: until then every operation skips
# the search for bfloat16 arguments (autograd/bfloat16_compute.py), which float32 programs never need.
made = False
_NP_BFLOAT16 = bfloat16._np

# Where the rest of learntorch finds it: pickle (dtype.__reduce__), Tensor (an array's dtype → its
# dtype), error messages ("not implemented for 'BFloat16'"), x.type() ("torch.BFloat16Tensor").
dtypes.bfloat16 = bfloat16  # type: ignore[attr-defined]
dtypes._BY_NP[_NP_BFLOAT16] = bfloat16
dtypes._BY_NAME["bfloat16"] = bfloat16
dtypes.SCALAR_NAMES["bfloat16"] = "BFloat16"
