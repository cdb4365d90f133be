"""learntorch: PyTorch's core, rebuilt in plain Python on NumPy (CPU) and CuPy (GPU).

The course's idiom is ``import learntorch as torch``: a PyTorch program that
stays within what the course covers keeps working, with the same numbers.

Where things live (one chapter, one part):

* ``tensor.py``, ``creation.py``, ``dtypes.py``, ``device.py``, ``arrays.py``,
  ``ops/`` — chapter 01, tensors and the array backends;
* ``autograd/`` (``node.py``, ``engine.py``, ``grad_mode.py``) and ``viz.py`` —
  chapter 02, the graph, the backward engine and its pictures;
* ``autograd/function.py``, ``autograd/gradcheck.py`` — chapter 03, custom Functions.
"""
from __future__ import annotations

import math as _math

from . import dtypes as _dtypes
from .version import __version__  # noqa: F401
# autograd before tensor: tensor.py takes grad mode and the graph's Node from autograd's lower
# modules, and autograd's engine takes Tensor (docs/architecture.md: the two autograd floors).
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd import is_inference_mode_enabled
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .cuda import CudaUnavailableError
from .device_memory import OutOfMemoryError
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like, linspace, ones,
                       ones_like, rand, rand_like, randint, randint_like, randn, randn_like, randperm,
                       scalar_tensor, tensor, zeros, zeros_like)
from .device import device
from .dtypes import (bool, double, dtype, float, float16, float32, float64, get_default_dtype, half, int, int8,
                     int16, int32, int64, long, promote_types, set_default_dtype, short, uint8)
from .legacy import BoolTensor, DoubleTensor, FloatTensor, IntTensor, LongTensor
from .ops.indexing import gather, index_select, masked_fill, masked_select, nonzero, take_along_dim
from .ops.matmul import addmm, bmm, dot, matmul, mm, mv, outer
from .ops.matmul import addbmm, addmv, baddbmm, cdist, dist, inner, kron, tensordot, vdot
from .ops.linalg_decomp import det
from .ops.linalg_lu import cholesky_inverse, cholesky_solve
from .linalg import pca_lowrank, svd_lowrank
from .ops.linalg_products import geqrf
from .ops.linalg_decomp import torch_slogdet as slogdet
from .linalg import inverse, legacy_cross as cross, legacy_qr as qr, legacy_svd as svd, logdet, matrix_power, pinverse
from .linalg import (householder_product as orgqr, legacy_cholesky as cholesky, legacy_lu as lu,
                     legacy_lu_solve as lu_solve, legacy_vander as vander, lu_unpack, matrix_exp, triangular_solve)
from .ops.pointwise import (bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift,
                            bitwise_xor)
from .ops.shape import atleast_1d, atleast_2d, atleast_3d, dstack, tensor_split
from .ops.indexing import argwhere
from .ops.reduction import aminmax
from .ops.sorting import msort
from .dtypes import can_cast
from .ops.pointwise import (abs, add, ceil, clamp, cos, div, exp, exp2, expm1, floor, floor_divide, isfinite,
                            isinf, isnan, log, log1p, log2, log10, logical_not, maximum, minimum, mul, neg, pow,
                            reciprocal, relu, remainder, round, rsqrt, sigmoid, sign, sin, sqrt, square, sub, tanh,
                            trunc, where)
from .ops.reduction import (all, amax, amin, any, argmax, argmin, count_nonzero, cumsum, logsumexp, max, mean, min,
                            prod, std, sum, var)
from .linalg import legacy_norm as norm
from .ops.shape import (broadcast_to, cat, chunk, flatten, flip, hstack, movedim, narrow, split,
                        squeeze, stack, swapaxes, t, transpose, unbind, unflatten, unsqueeze, vstack)
from .ops.one_shape import permute, reshape  # (the shape as one tuple; the methods take the sizes one by one too)
from .ops.sorting import argsort, sort, topk
# beyond the notes: more of torch's functions that PyTorch programs call (also Tensor methods)
from .creation import bernoulli, logspace, multinomial
from .ops.arrange import (broadcast_tensors, column_stack, cumprod, diag, diagonal, diff, einsum, erf, fliplr, flipud,
                          isin, logical_and, logical_or, logical_xor, meshgrid, moveaxis, repeat_interleave, roll,
                          tile, trace, tril, triu, unique)
from .ops.arrange import block_diag, cartesian_prod, combinations, tril_indices, triu_indices  # noqa: E402
from .ops.pointwise import (acos, arccos, arcsin, arctan, asin, atan, atan2, clamp_max, clamp_min, cosh, fmod, frac, hypot,
                            lerp, sinh, tan)
from .ops.scatter import index_add, scatter, scatter_add
from .ops.pointwise_extra import (absolute, acosh, addcdiv, addcmul, addr, arccosh, arcsinh, arctan2, arctanh, asinh,
                                 atanh, copysign, deg2rad, digamma, erfc, erfinv, fix, float_power, fmax, fmin, frexp,
                                 gcd, heaviside, i0, isneginf, isposinf, lcm, ldexp, lgamma, logaddexp, logaddexp2,
                                 logit, nextafter, polygamma, positive, rad2deg, sgn, signbit, sinc, xlogy)
from .ops.statistics import (corrcoef, cov, kthvalue, median, nan_to_num, nanmean, nansum, quantile, select,
                             std_mean, take, var_mean)
from .ops.statistics import mode, nanmedian, nanquantile
from .ops.scans import cummax, cummin, logcumsumexp, renorm
from .ops.bucketing import bincount, bucketize, histc, histogram, searchsorted, unique_consecutive
from .ops.index_writes import index_copy, index_fill, index_put, index_put_, masked_scatter, put, scatter_reduce
from .ops.reshaping import (diag_embed, diagflat, dsplit, hsplit, rot90, split_with_sizes, unsafe_chunk, unsafe_split,
                            unsafe_split_with_sizes, vsplit)
from .ops.matmul import chain_matmul
# views by strides, scatter inverses of views, index_reduce, integration, and the rest of the added API
from .creation import empty_strided, frombuffer  # noqa: E402
from .device import get_default_device, set_default_device  # noqa: E402
from .legacy import set_default_tensor_type  # noqa: E402
from .warn_always import is_warn_always_enabled, set_warn_always  # noqa: E402
from .ops.strided import as_strided  # noqa: E402
from .ops.view_scatter import diagonal_scatter, select_scatter, slice_scatter  # noqa: E402
from .ops.index_reduce import index_reduce  # noqa: E402
from .ops.integration import cumulative_trapezoid, gradient, trapezoid, trapz  # noqa: E402
from .ops.flat_index import unravel_index  # noqa: E402
from .ops.rsub import rsub  # noqa: E402
from .ops.tensor_info import conj, imag, is_conj, is_neg, isreal, real, resolve_conj, resolve_neg  # noqa: E402
from .creation import asarray
from .storage import TypedStorage, UntypedStorage, is_storage  # noqa: E402
from . import cpu  # noqa: E402  (torch.cpu: the device module of the CPU)
from . import futures  # noqa: E402  (torch.futures.Future: DDP's communication hooks return one)
from .amp import GradScaler  # noqa: E402  (torch.GradScaler is torch.amp.GradScaler)
from .random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .random_sampling import normal, poisson
from .serialization import load, save
from .printing import set_printoptions  # noqa: F401  (precision, threshold, linewidth, sci_mode, profile)
from .size import Size
from .tensor import Tensor
from .tensor import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from .tensor import layout, sparse_coo, sparse_csr, strided  # noqa: E402
from . import _tensor_methods  # noqa: E402,F401  (the one place that attaches Tensor's methods)
from ._tensor_methods import clone  # noqa: E402  (with memory_format=)
from .type_info import finfo, iinfo
from . import autograd, cuda, nn, optim, testing, utils  # noqa: E402
from . import linalg  # noqa: E402
from . import backends  # noqa: E402
from . import accelerator  # noqa: E402
from .dtype_bfloat16 import bfloat16  # noqa: E402
from . import tensor_autograd_extras  # noqa: E402,F401  (Tensor.register_post_accumulate_grad_hook, is_inference)
from .autograd import graph as _autograd_graph  # noqa: E402,F401  (torch.autograd.graph)
from .autograd import functional as _autograd_functional  # noqa: E402,F401  (jacobian, hessian: built on the ops)
from . import amp  # noqa: E402
from .amp import autocast  # noqa: E402
from .compile import compile  # noqa: E402
from . import jit  # noqa: E402  (TorchScript's names, accepted: nothing is compiled)
from .matmul_precision import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: E402
from .amp import is_autocast_enabled, get_autocast_dtype  # noqa: E402
from . import special  # noqa: E402
from .ops.special_ops import igamma, igammac, mvlgamma  # noqa: E402  (torch.special's gammainc, multigammaln)
from .ops.windows import (bartlett_window, blackman_window, hamming_window, hann_window,  # noqa: E402
                          kaiser_window)
from . import distributions  # noqa: E402  (torch.distributions: Normal, Categorical, kl_divergence ...)
from . import func  # noqa: E402  (torch.func: grad, vmap, jacrev ... built on the engine; torch.vmap too)
from .func import vmap  # noqa: E402
from . import multiprocessing  # noqa: E402  (torch.multiprocessing: Python's, plus spawn over MPI)
from .creation import range_ as range  # noqa: E402,A001  (deprecated torch.range; warns as PyTorch does)
from .size import broadcast_shapes  # noqa: E402
# torch.conv2d, torch.layer_norm, torch.selu_ ...: nn.functional's ops under their native signatures
from .nn.top_level import (adaptive_avg_pool1d, adaptive_max_pool1d, alpha_dropout, alpha_dropout_,  # noqa: E402
                           avg_pool1d, batch_norm, bilinear, celu, celu_, conv1d, conv2d, conv_transpose1d,
                           conv_transpose2d, cosine_similarity, dropout, dropout_, embedding, feature_alpha_dropout,
                           feature_alpha_dropout_, group_norm, hardshrink, instance_norm, layer_norm, max_pool1d,
                           max_pool2d, pairwise_distance, pdist, pixel_shuffle, pixel_unshuffle, prelu, rms_norm,
                           rrelu, rrelu_, selu, selu_, threshold, threshold_)
from .nn.top_level import METHOD_FORMS as _METHOD_FORMS, method_form as _method_form  # noqa: E402

concat = concatenate = cat
clip = clamp
divide = true_divide = div
multiply = mul
from .ops.pointwise import subtract  # noqa: E402  (its third argument is alpha: not quite sub)
negative = neg
swapdims = transpose
ger = outer
row_stack = vstack

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
newaxis = None  # x[:, torch.newaxis] adds a dimension, as with None


for _name in _METHOD_FORMS:  # torch.exp_(t), torch.detach(t) ...: the Tensor method
    globals()[_name] = _method_form(_name)


def is_tensor(obj: object) -> _dtypes.builtins.bool:
    """True if ``obj`` is a learntorch tensor."""
    return isinstance(obj, Tensor)


def typename(obj: object) -> str:
    """A readable type name: a tensor's legacy type (``'torch.FloatTensor'``), otherwise the
    object's module and class (``'int'`` for built-ins)."""
    if isinstance(obj, Tensor):
        return obj.type()
    named = obj if isinstance(obj, type) or callable(obj) and hasattr(obj, "__qualname__") else type(obj)
    module = getattr(named, "__module__", "") or ""
    qualname = getattr(named, "__qualname__", type(named).__name__)
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def softmax(input: Tensor, dim: _dtypes.builtins.int, dtype: object = None) -> Tensor:
    """``torch.softmax``: see ``nn.functional.softmax``."""
    return nn.functional.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: _dtypes.builtins.int, dtype: object = None) -> Tensor:
    """``torch.log_softmax``: see ``nn.functional.log_softmax``."""
    return nn.functional.log_softmax(input, dim, dtype=dtype)


def numel(input: Tensor) -> _dtypes.builtins.int:
    return input.numel()


def allclose(input: Tensor, other: Tensor, rtol: _dtypes.builtins.float = 1e-05,
             atol: _dtypes.builtins.float = 1e-08, equal_nan: _dtypes.builtins.bool = False) -> _dtypes.builtins.bool:
    return input.allclose(other, rtol, atol, equal_nan)


def isclose(input: Tensor, other: Tensor, rtol: _dtypes.builtins.float = 1e-05, atol: _dtypes.builtins.float = 1e-08,
            equal_nan: _dtypes.builtins.bool = False) -> Tensor:
    return input.isclose(other, rtol, atol, equal_nan)


def result_type(tensor: object, other: object) -> _dtypes.dtype:
    """The dtype of an elementwise operation on two operands (tensors or numbers).  (The package's
    own ``dtypes.result_type`` takes any number of them; PyTorch's function takes two.)"""
    return _dtypes.result_type(tensor, other)


def equal(input: Tensor, other: Tensor) -> _dtypes.builtins.bool:
    return input.equal(other)


def _comparison(name: str):
    def compare(input: Tensor, other: object) -> Tensor:
        return getattr(Tensor, name)(input, other)
    compare.__name__ = name
    compare.__doc__ = f"Element-wise ``{name}`` of two tensors (or a tensor and a number); a bool tensor."
    return compare


eq, ne, lt, le, gt, ge = (_comparison(n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))
greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne


_num_threads = [1]


def get_num_threads() -> _dtypes.builtins.int:
    """The thread count set by :func:`set_num_threads` (learntorch's own Python code is single-threaded;
    NumPy's BLAS manages its threads itself)."""
    return _num_threads[0]


def set_num_threads(num: _dtypes.builtins.int) -> None:
    """Accepted for compatibility with PyTorch programs; it changes no computation here."""
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _num_threads[0] = _dtypes.builtins.int(num)


_deterministic = [False]


def use_deterministic_algorithms(mode: _dtypes.builtins.bool, *, warn_only: _dtypes.builtins.bool = False) -> None:
    """Accepted for compatibility: every learntorch operation is deterministic already."""
    _deterministic[0] = _dtypes.builtins.bool(mode)


def are_deterministic_algorithms_enabled() -> _dtypes.builtins.bool:
    return _deterministic[0]


def is_floating_point(input: Tensor) -> _dtypes.builtins.bool:
    return input.is_floating_point()


def is_nonzero(input: Tensor) -> _dtypes.builtins.bool:
    """The truth value of a one-element tensor (an error for any other size)."""
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous" if input.numel()
                           else "Boolean value of Tensor with no values is ambiguous")
    return _dtypes.builtins.bool(input.item())


def __getattr__(name: str) -> object:
    """Say *why* a PyTorch name is missing where the reason is known."""
    if name == "quasirandom":
        raise AttributeError("learntorch has no torch.quasirandom (SobolEngine): draw pseudo-random numbers with "
                             "torch.rand instead, or use scipy.stats.qmc.Sobol and torch.from_numpy")
    raise AttributeError(f"module 'learntorch' has no attribute '{name}'")


# ``out=`` on the torch-level functions that PyTorch gives it (ops/out_argument.py): wrapped here,
# where they are exported, so the ops and the Tensor methods stay as they are.
from .ops.out_argument import with_out as _with_out  # noqa: E402

_OUT_NAMES = """
abs acos arccos arcsin arctan asin atan atan2 add sub subtract mul multiply div divide true_divide floor_divide
remainder fmod pow exp exp2 expm1 log log1p log2 log10 sqrt rsqrt square reciprocal neg negative sign sin cos tan
sinh cosh tanh sigmoid ceil floor round trunc frac clamp clip clamp_min clamp_max maximum minimum hypot lerp erf
isin logical_not logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor bitwise_not
bitwise_left_shift bitwise_right_shift nan_to_num where eq ne lt le gt ge greater less greater_equal less_equal
not_equal
matmul mm bmm mv dot vdot outer ger addmm addmv addbmm baddbmm inner kron tensordot cross
sum mean prod std var max min amax amin argmax argmin all any logsumexp norm cumsum cumprod nansum nanmean
median kthvalue quantile aminmax sort topk msort
cat concat concatenate stack hstack vstack dstack column_stack tril triu diag
gather index_select masked_select take index_add
zeros ones full arange linspace logspace randn rand randint randperm eye multinomial
""".split()
for _name in _OUT_NAMES:
    globals()[_name] = _with_out(globals()[_name], _name)
del _name

# PyTorch's TypeError for a non-tensor where a tensor is needed (``torch.exp([1.0])``), or a float
# where an int is (``torch.softmax(x, 1.0)``), on every function of this namespace; a function that
# is not the one pickle would find is renamed so it is.
from .tensor_arguments import CHECKED_FIRST as _CHECKED_FIRST, check_namespace as _check_namespace  # noqa: E402

_check_namespace(globals(), __name__, [_n for _n in list(globals()) if not _n.startswith("_")],
                 attribute_errors="norm split stft tensordot unravel_index",  # (PyTorch's own Python)
                 checked_first=_CHECKED_FIRST)  # (they would truncate a float, or take an int for a flag)
