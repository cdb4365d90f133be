"""Step 3 of DataParallel: run replica *i* on input *i*, one thread per device.

Threads, not processes: the replicas share the original parameters' graph, and
the heavy work happens inside NumPy / CuPy kernels, which release Python's GIL,
so on GPUs the devices really work at the same time.  Each thread first takes
the caller's grad mode (grad mode is per thread) and makes its device current
(``with cuda.device(i)``), so that ``'cuda'`` inside the replica means its device.

An exception in a thread cannot cross into the caller by itself: it is caught,
kept with its traceback as text, and raised again in the caller, of the same
type, with a message that says which replica failed ("Caught ValueError in
replica 1 on device 1.").
"""
from __future__ import annotations

import sys
import threading
import traceback
from typing import Any, Optional, Sequence

from ... import cuda
from ...autograd import grad_mode
from ...tensor import Tensor
from ..modules.module import Module
from . import comm

__all__ = ["get_a_var", "parallel_apply", "ExceptionWrapper"]


class ExceptionWrapper:
    """An exception caught in a worker thread, to be raised again in the caller."""

    def __init__(self, where: str, exc_info: Optional[tuple] = None) -> None:
        exc_type, exc, tb = exc_info if exc_info is not None else sys.exc_info()
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = where

    def reraise(self) -> None:
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        try:
            exception = self.exc_type(message)
        except Exception:  # an exception class that wants other arguments
            raise RuntimeError(message) from None
        raise exception


def get_a_var(obj: Any) -> Optional[Tensor]:
    """The first tensor found inside ``obj`` (to know a replica's device when none is given)."""
    if isinstance(obj, Tensor):
        return obj
    items = obj.items() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else ()
    for item in items:
        found = get_a_var(item)
        if found is not None:
            return found
    return None


def parallel_apply(modules: Sequence[Module], inputs: Sequence[Any], kwargs_tup: Optional[Sequence[dict]] = None,
                   devices: Optional[Sequence[Any]] = None) -> list:
    """``[modules[i](*inputs[i], **kwargs_tup[i]) for each i]``, each call in its own thread."""
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs "
                             f"{len(inputs)}")
    kwargs_tup = list(kwargs_tup) if kwargs_tup is not None else [{} for _ in modules]
    devices = [None if d is None else comm.device_index(d) for d in devices] if devices is not None \
        else [None] * len(modules)
    results: dict[int, Any] = {}
    lock = threading.Lock()
    grad_enabled = grad_mode.is_grad_enabled()

    def worker(i: int, module: Module, input: Any, kwargs: dict, device: Optional[int]) -> None:
        grad_mode._state.enabled = grad_enabled
        if device is None:
            t = get_a_var(input)
            if t is None:
                error = RuntimeError("no tensor input was found")
                with lock:
                    results[i] = ExceptionWrapper(f"in replica {i}, no device was provided and no tensor input "
                                                  "was found; device cannot be resolved",
                                                  (RuntimeError, error, None))
                return
            device = t.get_device()
        try:
            with cuda.device(device):
                if not isinstance(input, (list, tuple)):
                    input = (input,)  # a single tensor is one argument, not to be unpacked
                output = module(*input, **kwargs)
            with lock:
                results[i] = output
        except Exception:
            with lock:
                results[i] = ExceptionWrapper(f"in replica {i} on device {device}")

    if len(modules) > 1:
        threads = [threading.Thread(target=worker, args=(i, m, x, kw, d))
                   for i, (m, x, kw, d) in enumerate(zip(modules, inputs, kwargs_tup, devices))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        worker(0, modules[0], inputs[0], kwargs_tup[0], devices[0])

    outputs = []
    for i in range(len(inputs)):
        output = results[i]
        if isinstance(output, ExceptionWrapper):
            output.reraise()
        outputs.append(output)
    return outputs
