"""Random numbers that are *the same numbers* PyTorch draws on the CPU.

Why reproduce PyTorch's stream instead of using ``np.random``?
---------------------------------------------------------------
The course's promise is that a learner can write ::

    import learntorch as torch
    torch.manual_seed(0)
    w = torch.randn(3, 4)

and see exactly the digits that the same lines print under real PyTorch.  That
makes every notebook cross-checkable: weights initialised here equal the
weights a learner's PyTorch initialises, so losses, gradients and trained
accuracies can be compared number for number, and a mismatch means a bug, not
"different random numbers".  NumPy's own generators (``np.random.default_rng``
is PCG64, its samplers use other transforms) would give statistically fine but
*different* numbers, so this module rebuilds PyTorch's CPU generator and the
exact transforms of its sampling kernels on top of NumPy.

How PyTorch draws on the CPU (ATen, torch 2.13)
-----------------------------------------------
* The engine is the 32-bit Mersenne Twister, mt19937
  (``aten/src/ATen/core/MT19937RNGEngine.h``), seeded with the classic
  ``init_genrand`` recurrence from the *low 32 bits* of the 64-bit seed
  (``CPUGeneratorImpl.cpp``).  ``random()`` is one 32-bit output;
  ``random64()`` is two outputs, the first as the high word.  NumPy's legacy
  ``RandomState`` seeds an identical mt19937, and its bit generator's
  ``random_raw`` hands out the raw 32-bit words, so the stream itself costs
  nothing to reproduce.
* ``torch.manual_seed`` accepts ``[-2**63, 2**64)`` and stores negative seeds
  as ``seed + 2**64``; ``initial_seed()`` returns the stored 64-bit value.

Which kernel each producer mirrors:

=====================  ======================================================
producer               ATen source it reproduces
=====================  ======================================================
``uniform``            ``native/cpu/DistributionTemplates.h`` (uniform_kernel)
                       + ``core/DistributionsHelper.h``
                       (uniform_real_distribution) +
                       ``core/TransformationHelper.h`` (uniform_real)
``normal``             ``native/cpu/DistributionTemplates.h`` (normal_kernel,
                       normal_fill, NormalFill16 and its AVX2 specialisation
                       built on ``native/cpu/avx_mathfun.h``) and, below 16
                       elements, ``core/DistributionsHelper.h``
                       (normal_distribution<double>, with its cached sample)
``random_integers``    ``native/DistributionTemplates.h``
                       (random_from_to_impl checks) +
                       ``native/cpu/DistributionTemplates.h``
                       (random_from_to_kernel) + ``TransformationHelper.h``
                       (uniform_int_from_to)
``randperm``           ``native/TensorFactories.cpp`` (randperm_cpu)
``bernoulli``          ``native/cpu/DistributionKernels.cpp``
                       (bernoulli_scalar_kernel) ->
                       ``native/cpu/DistributionTemplates.h``
                       (bernoulli_kernel, bernoulli_distribution<double>)
=====================  ======================================================

Which element gets which number
-------------------------------
The in-place fills visit a tensor in the order of its *memory* (ATen's element-wise
loop sorts the dimensions by stride), so a transposed, permuted or channels-last
tensor takes the numbers in another order than its indices; ``normal_`` on a tensor
that is not contiguous also draws one element at a time, never in blocks of 16.
:func:`fill_in_memory_order` (near the end of this module) does this for every fill.

What is bit-exact and what is not
---------------------------------
Bit-for-bit equal to torch 2.13 CPU on every platform: the raw stream,
``uniform`` on ``[0, 1)``, ``random_integers``, ``randperm``, ``bernoulli``,
the ``get_state`` bytes, and ``normal`` below 16 elements.

Bit-for-bit equal to the x86-64 (AVX2/AVX512 machine) torch build, within
float rounding elsewhere: ``uniform`` on other ``[low, high)`` (that build
fuses ``x * (high - low) + low`` into one FMA, which is emulated here) and
float32 ``normal`` from 16 elements up (NumPy re-enacts, instruction for
instruction, the AVX2 polynomial ``log``/``sincos`` of ``avx_mathfun.h`` with
the FMAs the compiler formed; torch on Apple silicon or a CPU without AVX2
runs other code, so there the match is to about 1e-6).

float64 ``normal`` from 16 elements up is equal in every case tested, but only
guaranteed to a few ulps: it calls NumPy's ``log``/``cos``/``sin``, which may
round the last bit differently from the C library that torch calls (NumPy's
AVX512 builds use their own SIMD versions).

``bernoulli`` note: older PyTorch releases routed ``bernoulli_(p)`` (and thus
dropout) through MKL's VSL on Intel CPUs.  The torch 2.13 x86-64 wheel this
course tests against no longer does (its compiled ``bernoulli_scalar_kernel``
calls no MKL or cpuinfo function): every CPU runs the portable ATen kernel,
which is what is reproduced here, so dropout masks match on Intel and AMD.
Likewise ``randint`` switches to 64-bit draws at a range of 2**28 in 2.13,
not at 2**32 as older releases did.
"""
from __future__ import annotations

import contextlib
import math
import operator
import os
from fractions import Fraction
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .arrays import transfer
from .dtypes import SCALAR_NAMES
from .device import CPU
from .tensor import Tensor

__all__ = [
    "Generator", "default_generator", "manual_seed", "seed", "initial_seed",
    "get_rng_state", "set_rng_state",
]

# The seed a fresh ``torch.Generator()`` starts from (c10 default_rng_seed_val).
_DEFAULT_RNG_SEED = 67280421310721
_MT_N = 624  # mt19937 state words
# Byte layout of torch's CPUGeneratorImplState (see ``get_state``).
_STATE_SIZE = 5056
_STATE_DTYPE = np.dtype([
    ("the_initial_seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"),
    ("next", "<u8"), ("state", "<u8", (_MT_N,)),
    ("normal_x", "<f8"), ("normal_y", "<f8"), ("normal_rho", "<f8"),
    ("normal_is_valid", "<i4"), ("_pad0", "V4"),
    ("next_float_normal_sample", "<f4"),
    ("is_next_float_normal_sample_valid", "u1"), ("_pad1", "V3"),
])
assert _STATE_DTYPE.itemsize == _STATE_SIZE
# randperm_cpu switches to a different algorithm from this n on.
_RANDPERM_SMALL_N = (2**32 - 1) // 20

# The 16-bit floats, which ATen's CPU random kernels draw as float32 and round.
_REDUCED_FLOATS = ("float16", "bfloat16")

# The C type names torch prints in its bounds-check messages.
_C_NAMES = {
    "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "uint8": "unsigned char", "float32": "float",
    "float64": "double",
}

# float32 constants of the AVX2 log/sincos (``avx_mathfun.h``, Cephes-derived).
_f32 = np.float32
_LOG_P = tuple(_f32(v) for v in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
    1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
    3.3333331174e-1))
_LOG_Q1, _LOG_Q2 = _f32(-2.12194440e-4), _f32(0.693359375)
_SQRTHF = _f32(0.707106781186547524)
_FOPI = _f32(1.27323954473516)  # 4 / pi
_DP1, _DP2, _DP3 = _f32(-0.78515625), _f32(-2.4187564849853515625e-4), _f32(-3.77489497744594108e-8)
_SINCOF = (_f32(-1.9515295891e-4), _f32(8.3321608736e-3), _f32(-1.6666654611e-1))
_COSCOF = (_f32(2.443315711809948e-005), _f32(-1.388731625493765e-003), _f32(4.166664568298827e-002))
_TWO_PI_F32 = _f32(2.0 * math.pi)


# ----------------------------------------------------------------- helpers ---

def _shape(shape: int | Sequence[int]) -> tuple[int, ...]:
    """Normalise ``3`` or ``(3, 4)`` to a tuple; reject negative sizes as torch does."""
    dims = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(
        operator.index(d) for d in shape)
    for d in dims:
        if d < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {d}: [{', '.join(map(str, dims))}]")
    return dims


def _np_dtype(dtype: Any) -> np.dtype:
    """Accept NumPy dtypes and also learntorch dtypes (which carry ``_np``)."""
    return np.dtype(getattr(dtype, "_np", dtype))


def _fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """float32 fused multiply-add, as the AVX2 kernels compute it.

    The product of two float32 values is exact in float64, so one float64 add
    and a final rounding to float32 reproduce ``vfmadd`` except in the
    vanishingly rare double-rounding tie."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64)
            + np.asarray(c, np.float64)).astype(np.float32)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp split of a float64 into two 26-bit halves (for exact products)."""
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


def _fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """float64 ``fma(a, b, c)`` (NumPy has none; GCC contracts torch's
    ``x * scale + shift`` into one).

    Error-free transforms: ``p + e == a*b`` exactly (Dekker), ``s + t == p + c``
    exactly (Knuth), then one final rounding of ``s + (t + e)``: correctly
    rounded except in rare near-tie cases."""
    if b == 1.0 and c == 0.0:
        return a + 0.0
    a = np.asarray(a, np.float64)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(np.float64(b))
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    v = s - p
    t = (p - (s - v)) + (c - v)
    return s + (t + e)


def _fma_scalar(a: float, b: float, c: float) -> float:
    """Correctly rounded float64 fma for single values (exact rationals)."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _avx2_log(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` for float32 ``x`` in (0, 1], step for step.

    Mirrors the instruction sequence of the torch 2.13 x86-64 wheel, where GCC
    fused the polynomial's multiply-adds into FMAs."""
    bits = x.view(np.int32)
    e = ((bits >> 23) - 127).astype(np.float32) + _f32(1.0)
    m = ((bits & ~0x7F800000) | 0x3F000000).view(np.float32)  # mantissa in [0.5, 1)
    small = m < _SQRTHF
    e = e - small.astype(np.float32)
    m = (m - _f32(1.0)) + np.where(small, m, _f32(0.0))
    z = m * m
    y = _fma32(_LOG_P[0], m, _LOG_P[1])
    for p in _LOG_P[2:]:
        y = _fma32(y, m, p)
    y = _fma32(y * m, z, e * _LOG_Q1)
    y = y - z * _f32(0.5)  # fused in the binary; z * 0.5 is exact, so identical
    return _fma32(e, _LOG_Q2, m + y)


def _avx2_sincos(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps`` for float32 ``theta >= 0`` (Cephes range reduction)."""
    j = (theta * _FOPI).astype(np.int32)  # cvttps2dq truncates
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    x = _fma32(y, _DP1, theta)
    x = _fma32(y, _DP2, x)
    x = _fma32(y, _DP3, x)
    z = x * x
    yc = _fma32(_COSCOF[0], z, _COSCOF[1])
    yc = _fma32(yc, z, _COSCOF[2])
    yc = _fma32(z, z * yc, -(z * _f32(0.5))) + _f32(1.0)
    ys = _fma32(_SINCOF[0], z, _SINCOF[1])
    ys = _fma32(ys, z, _SINCOF[2])
    ys = _fma32(x, z * ys, x)
    first = (j & 2) == 0  # which polynomial holds sin
    s = np.where(first, ys, yc)
    c = np.where(first, yc, ys)
    s = np.where((j & 4) != 0, -s, s)
    c = np.where((~(j - 2) & 4) != 0, -c, c)
    return s, c


def _box_muller16_f32(u: np.ndarray, mean: np.float32, std: np.float32) -> np.ndarray:
    """AVX2 ``NormalFill16<float>`` on blocks of 16 uniforms, shape (k, 16)."""
    u1 = _f32(1.0) - u[:, :8]
    radius = np.sqrt(_avx2_log(u1) * _f32(-2.0))
    s, c = _avx2_sincos(_TWO_PI_F32 * u[:, 8:])
    out = np.empty_like(u)
    out[:, :8] = _fma32(radius * c, std, mean)
    out[:, 8:] = _fma32(radius * s, std, mean)
    return out


def _box_muller16_f64(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """Scalar ``NormalFill16<double>`` on blocks of 16 uniforms, shape (k, 16)."""
    radius = np.sqrt(-2.0 * np.log(1.0 - u[:, :8]))
    theta = (2.0 * math.pi) * u[:, 8:]
    out = np.empty_like(u)
    out[:, :8] = _fma64(radius * np.cos(theta), std, mean)
    out[:, 8:] = _fma64(radius * np.sin(theta), std, mean)
    return out


# --------------------------------------------------------------- Generator ---

class Generator:
    """Mirrors ``torch.Generator`` on the CPU: an mt19937 engine plus the one
    cached normal sample of ATen's scalar Box-Muller.

    Every producer consumes the 32-bit stream exactly as the matching ATen CPU
    kernel does, so interleaving calls (``randn`` then ``rand`` then ``randn``)
    stays in step with PyTorch."""

    def __init__(self, device: str = "cpu") -> None:
        if str(device) != "cpu":
            raise RuntimeError(
                f"learntorch.Generator only reproduces PyTorch's CPU generator, got device {device!r}")
        self.device = "cpu"
        self._bitgen = np.random.MT19937()
        self._set_seed(_DEFAULT_RNG_SEED)

    def __repr__(self) -> str:
        return f"<learntorch.Generator device='cpu' initial_seed={self._initial_seed}>"

    # ---- seeding and state ---------------------------------------------------

    def _set_seed(self, seed: int) -> None:
        """Seed exactly like ``CPUGeneratorImpl::set_current_seed``: init_genrand
        on the low 32 bits, remember all 64, forget the cached normal sample."""
        self._initial_seed = seed
        _, key, pos, _, _ = np.random.RandomState(seed & 0xFFFFFFFF).get_state()
        self._bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._fresh = True  # torch reports next=0 (not 624) until the first draw
        self._next_double_normal: float | None = None
        self._next_float_normal: float | None = None

    def manual_seed(self, seed: int) -> "Generator":
        """Seed like ``torch.Generator.manual_seed`` and return ``self``.

        Accepts integers in ``[-2**63, 2**64)``; negatives wrap to
        ``seed + 2**64`` as in torch.  Like torch, floats and bools are
        refused (``torch.manual_seed`` the module function converts first)."""
        if isinstance(seed, bool) or not hasattr(type(seed), "__index__"):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = operator.index(seed)
        if not -(2**63) <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        self._set_seed(seed % 2**64)
        return self

    def seed(self) -> int:
        """Reseed from the OS entropy pool (like torch) and return the new seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self._set_seed(s)
        return s

    def initial_seed(self) -> int:
        """The 64-bit seed last set (``torch.initial_seed`` semantics)."""
        return self._initial_seed

    def get_state(self) -> Any:
        """The state as a ``torch.uint8`` tensor of 5056 bytes in torch's own byte layout, as
        ``torch.Generator.get_state()`` returns a ``ByteTensor`` (so a checkpoint can hold it).

        It is the 5056-byte ``CPUGeneratorImplState`` of ``CPUGeneratorImpl.cpp``
        (little-endian): initial seed (u64), left (i32), seeded (i32), next
        (u64), the 624 mt19937 words (each widened to u64), three legacy
        doubles of which ``normal_y`` holds the cached double normal sample,
        ``normal_is_valid`` (i32), then the cached float sample (f32) and its
        valid flag (u8), with C padding.  Using torch's layout means
        ``torch.set_rng_state(torch.from_numpy(g.get_state().numpy()))`` works too."""
        return Tensor._make(self._state_bytes(), CPU)

    def _state_bytes(self) -> np.ndarray:
        """``get_state`` as a NumPy ``uint8`` array."""
        st = self._bitgen.state["state"]
        pos = int(st["pos"])
        rec = np.zeros((), _STATE_DTYPE)
        rec["the_initial_seed"] = self._initial_seed
        rec["seeded"] = 1
        rec["state"] = np.asarray(st["key"], np.uint32).astype(np.uint64)
        if pos >= _MT_N:  # the next draw regenerates the block
            rec["left"], rec["next"] = 1, (0 if self._fresh else _MT_N)
        else:
            rec["left"], rec["next"] = _MT_N + 1 - pos, pos
        if self._next_double_normal is not None:
            rec["normal_is_valid"] = 1
            rec["normal_y"] = self._next_double_normal
        if self._next_float_normal is not None:
            rec["is_next_float_normal_sample_valid"] = 1
            rec["next_float_normal_sample"] = self._next_float_normal
        return np.frombuffer(rec.tobytes(), np.uint8).copy()

    def set_state(self, state: Any) -> "Generator":
        """Restore a state from ``get_state`` (or from ``torch.get_rng_state()``): a uint8 tensor,
        or its NumPy array."""
        if isinstance(state, Tensor):
            state = state.detach().cpu().numpy()
        arr = np.asarray(state)
        if arr.dtype != np.uint8:
            raise TypeError(f"expected a uint8 (torch.ByteTensor) RNG state, but got {arr.dtype}")
        if arr.size != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input "
                f"RNG state size to be {arr.size}")
        rec = np.frombuffer(np.ascontiguousarray(arr).tobytes(), _STATE_DTYPE)[0]
        left, nxt = int(rec["left"]), int(rec["next"])
        if not (rec["seeded"] == 1 and 0 < left <= _MT_N and nxt <= _MT_N):
            raise RuntimeError("Invalid mt19937 state")
        if left == 1:
            pos = _MT_N
        elif left + nxt == _MT_N + 1:
            pos = nxt
        else:  # torch would accept it, but no real generator produces it
            raise RuntimeError("Invalid mt19937 state (left and next disagree)")
        key = (np.asarray(rec["state"]) & 0xFFFFFFFF).astype(np.uint32)
        self._bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._initial_seed = int(rec["the_initial_seed"])
        self._fresh = left == 1 and nxt == 0
        self._next_double_normal = float(rec["normal_y"]) if rec["normal_is_valid"] else None
        self._next_float_normal = (float(rec["next_float_normal_sample"])
                                   if rec["is_next_float_normal_sample_valid"] else None)
        return self

    # ---- the raw stream ------------------------------------------------------

    def _random(self, n: int) -> np.ndarray:
        """n outputs of ``CPUGeneratorImpl::random()`` (32-bit, held in uint64)."""
        if n <= 0:
            return np.empty(0, np.uint64)
        self._fresh = False
        return self._bitgen.random_raw(n)

    def _random64(self, n: int) -> np.ndarray:
        """n outputs of ``random64()``: two draws, the first is the high word."""
        r = self._random(2 * n)
        return (r[0::2] << np.uint64(32)) | r[1::2]

    def _uniform01_f32(self, n: int) -> np.ndarray:
        """24 random bits times 2**-24: ATen's float uniform on [0, 1)."""
        return (self._random(n) & np.uint64(0xFFFFFF)).astype(np.float32) * _f32(2.0**-24)

    def _uniform01_f64(self, n: int) -> np.ndarray:
        """53 bits of ``random64()`` times 2**-53: ATen's double uniform on [0, 1)."""
        return (self._random64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0**-53

    # ---- producers -----------------------------------------------------------

    def uniform(self, shape: int | Sequence[int], dtype: Any = np.float32,
                low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """``torch.rand`` / ``Tensor.uniform_(low, high)``: one draw per float32
        element, two per float64, transformed as ``fma(x, high - low, low)``
        (GCC fuses ATen's ``x * (to - from) + from``)."""
        shape, dt = _shape(shape), _np_dtype(dtype)
        if dt.name in _REDUCED_FLOATS:
            # ATen draws float32 numbers and rounds them; one that rounds up to ``high`` becomes ``low``,
            # so that the result stays in [low, high).
            x = self.uniform(shape, np.float32, low, high).astype(dt)
            x[x == np.array(high).astype(dt)] = np.array(low).astype(dt)
            return x
        if dt not in (np.float32, np.float64):
            raise NotImplementedError(f'"check_uniform_bounds" not implemented for '
                                      f"'{SCALAR_NAMES.get(dt.name, dt.name)}'")
        low, high = float(low), float(high)
        info = np.finfo(dt)
        for name, v in (("from", low), ("to", high)):
            if not (float(info.min) <= v <= float(info.max)):
                raise RuntimeError(f"{name} is out of bounds for {_C_NAMES[dt.name]}")
        if not low <= high:
            raise RuntimeError(
                f"uniform_ expects to return a [from, to) range, but found from={low:g} > to={high:g}")
        if high - low > float(info.max):
            raise RuntimeError(
                f"uniform_ expects to-from <= std::numeric_limits<{'Float' if dt == np.float32 else 'Double'}>::max(), "
                f"but found to={high:g} and from={low:g} which result in to-from to exceed the limit")
        n = math.prod(shape)
        if dt == np.float32:
            f, t = _f32(low), _f32(high)
            x = self._uniform01_f32(n)
            if not (f == 0 and t == 1):
                x = _fma32(x, t - f, f)
        else:
            x = _fma64(self._uniform01_f64(n), high - low, low)
        return x.reshape(shape)

    def normal(self, shape: int | Sequence[int], dtype: Any = np.float32,
               mean: float = 0.0, std: float = 1.0, *, elementwise: bool = False) -> np.ndarray:
        """``torch.randn`` / ``Tensor.normal_(mean, std)``.

        Below 16 elements ATen samples one element at a time with
        ``normal_distribution<double>`` (two double uniforms per *pair*, the
        sine kept as a cached sample for the next call).  From 16 up it fills
        the tensor with uniforms, Box-Muller-transforms them in blocks of 16
        (element j pairs with j+8), and, when 16 does not divide the size,
        draws 16 fresh uniforms for the last 16 elements and transforms those.

        ``elementwise=True`` asks for the one-at-a-time way whatever the size:
        ATen takes it for every tensor that is not contiguous (a transposed or
        sliced one), since the blocks of 16 need the elements side by side."""
        shape, dt = _shape(shape), _np_dtype(dtype)
        if dt.name in _REDUCED_FLOATS:
            if elementwise:  # double samples, rounded to float32 and then to the 16-bit type, as C++ casts them
                return self.normal(shape, np.float32, mean, std, elementwise=True).astype(dt)
            return self._normal_reduced(shape, dt, mean, std)
        if dt not in (np.float32, np.float64):
            raise NotImplementedError(f'"normal_kernel_cpu" not implemented for '
                                      f"'{SCALAR_NAMES.get(dt.name, dt.name)}'")
        mean, std = float(mean), float(std)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        n = math.prod(shape)
        if n < 16 or elementwise:
            return self._normal_each(n, mean, std).astype(dt).reshape(shape)
        full = n // 16
        if dt == np.float32:
            m32, s32 = _f32(mean), _f32(std)
            out = _box_muller16_f32(self._uniform01_f32(n)[: full * 16].reshape(full, 16), m32, s32)
            out = out.reshape(-1)
            if n % 16:
                tail = _box_muller16_f32(self._uniform01_f32(16).reshape(1, 16), m32, s32)
        else:
            out = _box_muller16_f64(self._uniform01_f64(n)[: full * 16].reshape(full, 16), mean, std)
            out = out.reshape(-1)
            if n % 16:
                tail = _box_muller16_f64(self._uniform01_f64(16).reshape(1, 16), mean, std)
        if n % 16:
            out = np.concatenate([out[: n - 16], tail.reshape(-1)])
        return out.reshape(shape)

    def _normal_reduced(self, shape: tuple[int, ...], dt: np.dtype, mean: float, std: float) -> np.ndarray:
        """``randn`` in float16 or bfloat16: float32 numbers, rounded.  Below 16 elements, and for a
        multiple of 16, they are float32's own; otherwise ATen fills a float32 buffer padded to a
        multiple of 16 (fewer draws than float32's fresh 16 for the end), transforms every block,
        and the last 16 elements are the last block."""
        n = math.prod(shape)
        if n < 16 or n % 16 == 0:
            return self.normal(shape, np.float32, mean, std).astype(dt)
        if not float(std) >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
        blocks = -(-n // 16)
        out = _box_muller16_f32(self._uniform01_f32(blocks * 16).reshape(blocks, 16), _f32(mean), _f32(std))
        out = out.reshape(-1)
        return np.concatenate([out[: n - 16], out[-16:]]).astype(dt).reshape(shape)

    def _normal_each(self, n: int, mean: float, std: float) -> np.ndarray:
        """n float64 samples, as n successive calls of :meth:`_normal_scalar` give them,
        but with the uniforms drawn at once: a cached sample (if any) comes first, then
        each pair of uniforms gives ``r cos θ`` and ``r sin θ`` to consecutive elements,
        and an odd count leaves the last sine cached for the next call.  ``math``'s
        functions (the C library's, as ATen calls them) keep the digits of the scalar
        path; NumPy's SIMD ones may differ in the last bit."""
        z = np.empty(n, np.float64)
        start = 0
        if n and self._next_double_normal is not None:
            z[0], self._next_double_normal, start = self._next_double_normal, None, 1
        pairs = (n - start + 1) // 2
        if pairs:
            u = self._uniform01_f64(2 * pairs).tolist()
            radii = [math.sqrt(-2.0 * math.log1p(-u2)) for u2 in u[1::2]]
            angles = [2.0 * math.pi * u1 for u1 in u[0::2]]
            cosines = [r * math.cos(a) for r, a in zip(radii, angles)]
            sines = [r * math.sin(a) for r, a in zip(radii, angles)]
            z[start::2] = cosines
            z[start + 1::2] = sines[: (n - start) // 2]
            if (n - start) % 2:
                self._next_double_normal = sines[-1]
        return _fma64(z, std, mean)  # ``z * std + mean``, fused as in the binary (see _normal_scalar)

    def _normal_scalar(self, mean: float, std: float) -> float:
        """One ``normal_distribution<double>`` sample, using and refilling the
        generator's cached sample; ``val * std + mean`` is fused as in the binary."""
        if self._next_double_normal is not None:
            val, self._next_double_normal = self._next_double_normal, None
            return _fma_scalar(val, std, mean)
        u1, u2 = self._uniform01_f64(2)
        r = math.sqrt(-2.0 * math.log1p(-float(u2)))
        theta = 2.0 * math.pi * float(u1)
        self._next_double_normal = r * math.sin(theta)
        return _fma_scalar(r * math.cos(theta), std, mean)

    def random_integers(self, low: int, high: int, shape: int | Sequence[int],
                        dtype: Any = np.int64) -> np.ndarray:
        """``torch.randint(low, high, shape)``: ``random() % (high - low) + low``,
        switching to ``random64() % range`` once the range reaches 2**28, for
        every dtype (``uniform_int_from_to_distribution`` in torch 2.13; older
        releases and fbcode builds switched at 2**32 and only for 64-bit and
        floating dtypes).  Modulo, not rejection: the small bias is torch's."""
        shape, dt = _shape(shape), _np_dtype(dtype)
        low, high = operator.index(low), operator.index(high)
        for v in (low, high):
            if not -(2**63) <= v < 2**63:
                raise ValueError("Overflow when unpacking long long")
        if not low < high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        if dt.kind in "iu":
            info = np.iinfo(dt)
            if low < info.min:
                raise RuntimeError(f"from is out of bounds for {_C_NAMES[dt.name]}")
            if high - 1 > info.max:
                raise RuntimeError(f"to - 1 is out of bounds for {_C_NAMES[dt.name]}")
        elif dt == np.bool_:  # the same draws, cast to bool: only [0, 1] fits
            if low < 0:
                raise RuntimeError("from is out of bounds for bool")
            if high - 1 > 1:
                raise RuntimeError("to - 1 is out of bounds for bool")
        elif dt in (np.float16, np.float32, np.float64) or dt.name == "bfloat16":
            digits = 8 if dt.name == "bfloat16" else np.finfo(dt).nmant + 1
            if low < -(2**digits) or high - 1 > 2**digits:
                raise NotImplementedError(
                    f"randint beyond [-2**{digits}, 2**{digits}] is inexact in {dt.name}; "
                    "torch rounds the bounds there, learntorch does not")
        else:
            raise NotImplementedError(f'"random_from_to_kernel_cpu" not implemented for {dt}')
        n = math.prod(shape)
        rng = high - low
        v = self._random64(n) if rng >= 2**28 else self._random(n)
        # unsigned 64-bit arithmetic that wraps, then reinterpret as int64
        vals = (v % np.uint64(rng)) + np.uint64(low % 2**64)
        return vals.view(np.int64).astype(dt).reshape(shape)

    def randperm(self, n: int, dtype: Any = np.int64) -> np.ndarray:
        """``torch.randperm(n)``: start from 0..n-1 and, for i = 0..n-2, swap
        element i with element ``i + random() % (n - i)`` (``randperm_cpu``).

        The swaps are inherently sequential; the draws and modulos are
        vectorised and the swaps run over a Python list (~10 ms per 100k)."""
        n, dt = operator.index(n), _np_dtype(dtype)
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
        if n >= _RANDPERM_SMALL_N:
            raise NotImplementedError(
                f"randperm for n >= {_RANDPERM_SMALL_N} uses a different algorithm in torch; "
                "not reproduced")
        if dt.kind in "iu" and n > 0 and n - 1 > np.iinfo(dt).max:
            raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
        if n <= 1:
            return np.arange(n, dtype=dt)
        z = (self._random(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        perm = list(range(n))
        for i, k in enumerate(z):
            j = i + k
            perm[i], perm[j] = perm[j], perm[i]
        return np.array(perm, dtype=dt)

    def bernoulli(self, p: float, shape: int | Sequence[int], dtype: Any = np.float32) -> np.ndarray:
        """``Tensor.bernoulli_(p)`` with a scalar p (what dropout calls with
        ``1 - p_drop``): one double uniform (two draws) per element, 1 where
        ``u < p``.  Every element consumes draws, even when p is 0 or 1."""
        shape, dt = _shape(shape), _np_dtype(dtype)
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        u = self._uniform01_f64(math.prod(shape))
        return (u < p).astype(dt).reshape(shape)


# ------------------------------------------------ fills in memory order ---
#
# Why the order matters
# ---------------------
# ATen's CPU random fills (``uniform_``, ``normal_`` off the fast path, ``bernoulli_``,
# ``exponential_``, ``random_`` ...) run an element-wise loop over the tensor and take
# the next number from the generator at each element.  That loop (ATen's
# TensorIterator) walks the tensor's *memory*, not its index order: it sorts the
# dimensions by stride so that the innermost loop takes the smallest steps.  For a
# contiguous tensor both orders agree.  For ``x = torch.empty(4, 3).t()`` they do not:
# the k-th number drawn lands at the k-th element in memory, so ``x[0, 1]`` (the second
# element in memory) gets the second number, not ``x[1, 0]``.  Dropout on transposed
# activations (a ``batch_first`` Transformer) fills its mask this way too, through
# ``empty_like(input)``, which keeps the input's strides.  To give PyTorch's numbers,
# learntorch draws the numbers as one flat run for the dimensions in that memory order
# and then views the run back at the elements' logical positions.

_OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                    "memory location. Please clone() the tensor before performing the operation.")


def memory_order(shape: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """The dimensions of a tensor, outermost (slowest) first, in the order in which
    PyTorch's CPU element-wise loop visits its elements.

    The rule, for a tensor that is the loop's only operand: start with the last
    dimension innermost (index order) and insertion-sort the dimensions so that the
    smaller stride is inside.  Two dimensions are left as they are when either stride
    is 0; with equal strides (overlapping views, ``unfold``) the smaller dimension goes
    inside.  A contiguous tensor gives ``(0, 1, ..., ndim - 1)``.  Strides are taken by
    absolute value (PyTorch has no negative strides; a NumPy view might)."""
    ndim = len(shape)
    strides = [abs(int(s)) for s in strides]

    def goes_outside(a: int, b: int) -> int:
        """1: dimension ``a`` (now inside ``b``) must move outside it; -1: it must not; 0: no opinion."""
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] != strides[b]:
            return 1 if strides[a] > strides[b] else -1
        return 1 if shape[a] > shape[b] else 0

    inner_first = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        moving = i  # where the dimension being inserted now sits
        for j in range(i - 1, -1, -1):
            verdict = goes_outside(inner_first[j], inner_first[moving])
            if verdict > 0:
                inner_first[j], inner_first[moving] = inner_first[moving], inner_first[j]
                moving = j
            elif verdict < 0:
                break
    return tuple(reversed(inner_first))


def _surely_disjoint(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """No two elements share memory (a sufficient test: each stride, from the smallest, steps
    over everything the smaller ones span)."""
    span = 0
    for size, stride in sorted(((n, abs(s)) for n, s in zip(shape, strides) if n > 1), key=lambda p: p[1]):
        if stride <= span:
            return False
        span += stride * (size - 1)
    return True


def in_memory_order(shape: Sequence[int], strides: Sequence[int],
                    draw: Callable[[tuple[int, ...]], np.ndarray]) -> np.ndarray:
    """Numbers for a tensor of ``shape`` and ``strides`` (in elements), drawn in the
    order PyTorch's CPU fill visits its memory (see :func:`memory_order`) and returned
    at their logical positions, as an array of ``shape``.

    ``draw(s)`` takes the numbers from the generator for a contiguous tensor of shape
    ``s`` (the dimensions in memory order).  A contiguous target costs nothing extra:
    the order is the index order and ``draw``'s array comes back as it is.  Otherwise
    the result is a transposed view of it, which the write into the tensor lays out.

    Where elements share memory (an ``unfold`` view; PyTorch refuses a written-to
    tensor with a stride-0 dimension, ``expand()``'s, and so does this) the loop writes
    them one after the other and the last write stays: each such element here gets
    the number its memory location keeps."""
    shape, strides = tuple(int(n) for n in shape), tuple(int(s) for s in strides)
    if math.prod(shape) == 0:  # nothing to visit (NumPy gives such arrays zero strides)
        return np.asarray(draw(shape)).reshape(shape)
    if any(n > 1 and s == 0 for n, s in zip(shape, strides)):
        raise RuntimeError(_OVERLAP_MESSAGE)
    order = memory_order(shape, strides)
    if order == tuple(range(len(shape))):
        values = np.asarray(draw(shape)).reshape(shape)
        visited = shape
    else:
        visited = tuple(shape[d] for d in order)
        values = np.asarray(draw(visited)).reshape(visited)
    if not _surely_disjoint(shape, strides):
        values = _last_writes(values, visited, [strides[d] for d in order])
    if visited is shape:
        return values
    return values.transpose(tuple(int(d) for d in np.argsort(order)))


def _last_writes(values: np.ndarray, visited: tuple[int, ...], strides: Sequence[int]) -> np.ndarray:
    """``values`` (in visiting order) with each element replaced by the value written last
    to its memory location."""
    offsets = np.zeros(visited, np.int64)
    for axis, (n, s) in enumerate(zip(visited, strides)):
        offsets += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(visited) - axis - 1))
    flat = offsets.reshape(-1)
    places, first_from_end = np.unique(flat[::-1], return_index=True)
    last = flat.size - 1 - first_from_end
    return values.reshape(-1)[last[np.searchsorted(places, flat)]].reshape(visited)


def fill_from_host(tensor: Tensor, host: Any) -> Tensor:
    """Write host (NumPy) numbers into ``tensor``'s memory, on its device, as an in-place change:
    the random fills draw on the host generator, as PyTorch's CPU generator does, and land here."""
    tensor._check_inplace()
    tensor._data[...] = transfer(host, CPU, tensor._device)
    tensor._version_counter[0] += 1
    return tensor


def fill_in_memory_order(tensor: Tensor, draw: Callable[[tuple[int, ...]], np.ndarray]) -> Tensor:
    """Write ``draw``'s numbers into ``tensor`` in place, in PyTorch's memory order (see
    :func:`in_memory_order`): what every in-place random fill ends with.  PyTorch's
    in-place checks (a leaf that requires grad, an expanded tensor) come before any
    number is drawn, so a refused fill leaves the generator where it was."""
    tensor._check_inplace()
    return fill_from_host(tensor, in_memory_order(tuple(tensor.shape), tensor.stride(), draw))


# ----------------------------------------------------------- module level ---

default_generator: Generator = Generator()
default_generator.seed()  # like torch: a fresh process starts non-deterministically


def manual_seed(seed: int) -> Generator:
    """Seed the default generator and return it (``torch.manual_seed``).

    Like torch's module function this first converts with ``int(seed)``, so
    ``manual_seed(1.5)`` seeds with 1."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Reseed the default generator non-deterministically; return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The 64-bit seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    """The default generator's state as a ``torch.uint8`` tensor of 5056 bytes (torch's layout),
    as ``torch.get_rng_state()`` returns a ``ByteTensor``; ``set_rng_state`` takes it back."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default generator from ``get_rng_state()`` (a uint8 tensor, or its NumPy array)."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: Any = None) -> Iterator[None]:
    """``torch.random.fork_rng()``: run the block with the default generator's state saved,
    and put that state back afterwards, so draws inside do not move the stream outside.
    (Only the CPU generator is forked here; ``enabled=False`` forks nothing.)"""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
