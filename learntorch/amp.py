"""``torch.autocast`` / ``torch.amp``: mixed precision, the part training scripts write.

Mixed precision runs some operations in a 16-bit float to save time and memory
on a GPU, and scales the loss (``GradScaler``) so that small float16 gradients
do not underflow to zero.

``autocast`` is a context manager (and decorator) that validates its arguments, answers
``is_autocast_enabled`` / ``get_autocast_dtype`` as PyTorch does, and disables itself
with PyTorch's warnings where PyTorch would (CUDA unavailable, a dtype CPU autocast does
not support).  Inside it, the operations PyTorch lists cast their arguments: matrix
products and convolutions down to bfloat16 (float16 on a GPU), losses up to float32
(``ops/autocast.py`` has the lists; the switches are ``autocast_state.py``).

``GradScaler`` is PyTorch's algorithm, whole: ``scale`` multiplies by the scale
(65536 to start), ``unscale_`` divides the gradients and looks for inf/NaN,
``step`` skips the optimizer step when it found some, ``update`` halves the
scale after such a step and doubles it after ``growth_interval`` good ones.
Disabled (``enabled=False``, or ``device='cuda'`` without CUDA, with PyTorch's
warning) every method is PyTorch's no-op: ``scale`` returns the loss itself,
``step`` just calls ``optimizer.step()``.
"""
from __future__ import annotations

import functools
from collections import defaultdict
from typing import Any, Callable, Optional

from . import warn_always
from . import autocast_state, cpu, cuda, dtypes
from .tensor import Tensor
from .dtype_bfloat16 import bfloat16
from .creation import tensor
from .autograd.grad_mode import no_grad

__all__ = ["autocast", "GradScaler", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype",
           "custom_fwd", "custom_bwd"]

_TORCH_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
                       "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_state = autocast_state.STATE  # per device type: [enabled, dtype (None: default), cache_enabled]


def _default_dtype(device_type: str) -> dtypes.dtype:
    return bfloat16 if device_type == "cpu" else dtypes.float16


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast knows ``device_type`` (cpu and cuda here)."""
    return device_type in ("cpu", "cuda")


def _check_device_type(name: str, device_type: Any) -> None:
    """A device type is a string (``"cuda"``, ``"cpu"``), as PyTorch's parser checks."""
    if device_type is not None and not isinstance(device_type, str):
        raise TypeError(f"{name}(): argument 'device_type' (position 1) must be str, not {type(device_type).__name__}")


def is_autocast_enabled(device_type: Optional[str] = None) -> bool:
    """Whether an ``autocast`` block for ``device_type`` (default: cuda, as PyTorch) is active."""
    _check_device_type("is_autocast_enabled", device_type)
    return bool(_state.get(device_type or "cuda", [False])[0])


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    """The dtype autocast would use on ``device_type`` (bfloat16 for cpu, float16 for cuda by default)."""
    _check_device_type("get_autocast_dtype", device_type)
    if device_type not in _state:
        raise RuntimeError(f"unsupported device type for autocast: {device_type}")
    return _state[device_type][1] or _default_dtype(device_type)


class autocast:
    """``with torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None):``."""

    def __init__(self, device_type: str, dtype: Optional[dtypes.dtype] = None, enabled: bool = True,
                 cache_enabled: Optional[bool] = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type.split(":")[0] not in _TORCH_DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TORCH_DEVICE_TYPES)} device type at start of device "
                               f"string: {device_type}")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else (
            _default_dtype(device_type) if device_type in _state else dtypes.float16)
        self._enabled = bool(enabled)
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        if not self._enabled:
            return
        if device_type == "cuda" and not cuda.is_available():
            warn_always.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", UserWarning,
                             stacklevel=2)
            self._enabled = False
        elif device_type == "cpu" and self.fast_dtype.name not in ("bfloat16", "float16"):
            warn_always.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                             "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                             UserWarning, stacklevel=2)
            self._enabled = False
        elif device_type == "cuda" and self.fast_dtype.name not in ("bfloat16", "float16"):
            warn_always.warn("In CUDA autocast, but the target dtype is not supported. Disabling autocast.\n"
                             "CUDA Autocast only supports dtypes of torch.float16 and torch.bfloat16 currently.",
                             UserWarning, stacklevel=2)
            self._enabled = False
        elif device_type not in _state:
            warn_always.warn(f"learntorch's autocast knows only 'cpu' and 'cuda', not {device_type!r}: disabled",
                             UserWarning, stacklevel=2)
            self._enabled = False

    def __enter__(self) -> "autocast":
        self._prev = list(_state[self.device]) if self.device in _state else None
        if self._prev is not None:
            _state[self.device] = [self._enabled, self.fast_dtype, self._cache_enabled]  # (as PyTorch: the
            # dtype is set even when this region is disabled)
        autocast_state.DEPTH[0] += 1
        autocast_state.refresh()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._prev is not None:
            _state[self.device] = self._prev
        autocast_state.DEPTH[0] -= 1
        if autocast_state.DEPTH[0] == 0:  # the outermost region ends: its casts of the weights go
            autocast_state.CACHE.clear()
        autocast_state.refresh()

    def __call__(self, func: Callable) -> Callable:
        """As a decorator: ``func`` runs inside this autocast."""
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)
        return wrapper


# ----------------------------------------------------------------------------- custom Functions
def custom_fwd(fwd: Optional[Callable] = None, *, device_type: str, cast_inputs: Optional[dtypes.dtype] = None) -> Any:
    """Decorate a custom ``Function``'s ``forward`` for autocast (``@torch.amp.custom_fwd(device_type="cuda")``).

    autocast casts the inputs of PyTorch's own operations; a custom Function's ``forward`` sees
    whatever it is given.  Without ``cast_inputs`` it runs in the surrounding autocast state,
    which :func:`custom_bwd` then restores for ``backward`` (a backward must run in the state its
    forward ran in).  With ``cast_inputs=torch.float32`` (say) inside an autocast region, its
    floating-point tensor inputs are cast to that dtype and it runs with autocast off: for an
    operation that needs full precision."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx, enabled = args[0], is_autocast_enabled(device_type)
        ctx._dtype = get_autocast_dtype(device_type)
        ctx._fwd_used_autocast = enabled and cast_inputs is None
        if cast_inputs is None or not enabled:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd: Optional[Callable] = None, *, device_type: str) -> Any:
    """Decorate a custom ``Function``'s ``backward``: it runs in the autocast state its forward ran in
    (see :func:`custom_fwd`, which records it on ``ctx``)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


def _cast(value: Any, device_type: str, dtype: dtypes.dtype) -> Any:
    """``value`` with each floating-point tensor on ``device_type`` cast to ``dtype``, looking into
    lists, tuples and dicts (other values pass as they are)."""
    if isinstance(value, Tensor):
        if value.is_floating_point() and value.device.type == device_type and value.dtype is not dtype:
            return value.to(dtype)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, device_type, dtype) for k, v in value.items()}
    return value


# ----------------------------------------------------------------------------- GradScaler
_READY, _UNSCALED, _STEPPED = 0, 1, 2


def _fresh_state() -> dict:
    return {"stage": _READY, "found_inf": None}


class GradScaler:
    """``torch.amp.GradScaler(device='cuda', init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)``: dynamic loss scaling (see the module docstring)."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not cuda.is_available():
            warn_always.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                             UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_scale = float(init_scale)
            self._scale: Optional[Tensor] = None
            self._growth_factor = float(growth_factor)
            self._backoff_factor = float(backoff_factor)
            self._growth_interval = int(growth_interval)
            self._init_growth_tracker = 0
            self._growth_tracker: Optional[int] = None
            self._per_optimizer_states: dict = defaultdict(_fresh_state)

    # -- the four calls of a training step --------------------------------------------------
    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or lists/tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale_on(outputs.device)
        if isinstance(outputs, (list, tuple)):
            scaled = [self.scale(o) for o in outputs]
            return type(outputs)(scaled) if isinstance(outputs, tuple) else scaled
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _scale_on(self, device: Any) -> Tensor:
        if self._scale is None:
            self._scale = tensor(self._init_scale, dtype=dtypes.float32, device=device)
            self._growth_tracker = self._init_growth_tracker
        return self._scale.to(device)

    def _check_scale(self, funcname: str) -> None:
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        assert self._scale is not None, f"Attempted {funcname} but _scale is None.  {fix}"

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place, noting any inf/NaN."""
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = 1.0 / float(self._scale.item())
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype is dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    p.grad.mul_(inv_scale)
                    if not bool(p.grad.isfinite().all()):
                        found_inf = True
        state["found_inf"] = found_inf
        state["stage"] = _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``optimizer.step()`` unless the (unscaled) gradients hold inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        assert state["found_inf"] is not None, "No inf checks were recorded for this optimizer."
        retval = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return retval

    def update(self, new_scale: Any = None) -> None:
        """Adjust the scale for the next iteration (or set it to ``new_scale``)."""
        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                         "torch.FloatTensor with requires_grad=False.")
                new_scale = float(new_scale.item())
            self._scale.fill_(float(new_scale))
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            assert len(found) > 0, "No inf checks were recorded prior to update."
            if any(found):
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker = 0
            else:
                successful = self._growth_tracker + 1
                if successful == self._growth_interval:
                    grown = float(self._scale.item()) * self._growth_factor
                    if grown != float("inf"):
                        self._scale.fill_(grown)
                    successful = 0
                self._growth_tracker = successful
        self._per_optimizer_states = defaultdict(_fresh_state)

    # -- settings and state -------------------------------------------------------------------
    def is_enabled(self) -> bool:
        return self._enabled

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def state_dict(self) -> dict:
        """``{}`` when disabled; else scale, factors, interval and the count of good steps."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker = self._init_growth_tracker


# ----------------------------------------------------------------------------- torch.cuda.amp (deprecated)
class _DeprecatedAmp:
    """``torch.cuda.amp`` and ``torch.cpu.amp``: the deprecated spellings of ``torch.amp``'s
    ``GradScaler`` and ``autocast`` for one device (and its default dtype), with PyTorch's FutureWarnings."""

    def __init__(self, device_type: str, default_dtype: dtypes.dtype) -> None:
        self._device_type, self._default_dtype = device_type, default_dtype

    def GradScaler(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                   growth_interval: int = 2000, enabled: bool = True) -> GradScaler:
        d = self._device_type
        warn_always.warn(f"`torch.{d}.amp.GradScaler(args...)` is deprecated. Please use "
                         f"`torch.amp.GradScaler('{d}', args...)` instead.", FutureWarning, stacklevel=2)
        return GradScaler(d, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    def autocast(self, enabled: bool = True, dtype: Optional[dtypes.dtype] = None,
                 cache_enabled: bool = True) -> autocast:
        d = self._device_type
        warn_always.warn(f"`torch.{d}.amp.autocast(args...)` is deprecated. Please use "
                         f"`torch.amp.autocast('{d}', args...)` instead.", FutureWarning, stacklevel=2)
        return autocast(d, dtype=self._default_dtype if dtype is None else dtype, enabled=enabled,
                        cache_enabled=cache_enabled)


cuda.amp = _DeprecatedAmp("cuda", dtypes.float16)  # type: ignore[attr-defined]
cpu.amp = _DeprecatedAmp("cpu", dtypes.bfloat16)  # type: ignore[attr-defined]
cuda.is_bf16_supported = lambda including_emulation=True: False  # type: ignore[attr-defined]  # no bfloat16 here
