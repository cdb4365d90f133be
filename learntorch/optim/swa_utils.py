"""``torch.optim.swa_utils``: average the weights a model passes through while it trains.

SGD late in training bounces around a wide valley of the loss instead of settling at its
bottom.  The *average* of the weights it visits sits nearer the middle of the valley, and such
a flat spot usually generalises better than any single visited point (Izmailov et al., 2018,
"Averaging Weights Leads to Wider Optima and Better Generalization").  Two ways to average:

* **SWA**, stochastic weight averaging: the plain mean of the snapshots, each counted once
  (usually one per epoch, taken while :class:`SWALR` holds the rate constant and high enough
  to keep exploring);
* **EMA**, an exponential moving average: ``ema = decay * ema + (1 - decay) * current`` after
  every step, so recent weights count most.

:class:`AveragedModel` keeps the running average in a copy of the model.  Averaged weights never
went through the network together, so BatchNorm's running statistics (collected for the
*trained* weights) do not fit them: :func:`update_bn` recomputes them with one pass over the
data.

The averages use the same tensor operations as PyTorch's, in the same order (on the CPU: the
one-tensor formula; on a GPU: the ``lerp`` form of the multi-tensor one), so the averaged
weights and the printed learning rates are PyTorch's numbers.
"""
from __future__ import annotations

import copy
import itertools
import math
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from .. import creation, dtypes
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..tensor import Tensor
from . import _ops
from .lr_scheduler import LRScheduler, _format_param
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]

Count = Union[Tensor, int]
# avg_fn(averaged, current, num_averaged) -> the new average of one tensor
AvgFn = Callable[[Tensor, Tensor, Count], Tensor]
# multi_avg_fn(averaged_list, current_list, num_averaged): updates the averaged tensors in place
MultiAvgFn = Callable[[Sequence[Tensor], Sequence[Tensor], Count], None]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _float_like(t: Tensor) -> bool:
    """Floating tensors are averaged with ``lerp_``, which only exists for them."""
    return t.dtype.is_floating_point or t.is_complex()


# ---------------------------------------------------------------------------- averaging rules
def get_ema_multi_avg_fn(decay: float = 0.999) -> MultiAvgFn:
    """The exponential moving average, on lists of tensors, in place:
    ``ema <- decay * ema + (1 - decay) * current``, written as a step of ``1 - decay`` from ``ema``
    towards ``current`` (``lerp_``).  Integer tensors (BatchNorm's batch counter, with
    ``use_buffers=True``) have no ``lerp_``: they get the formula itself, truncated back to
    integers."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_tensors: Sequence[Tensor], current_tensors: Sequence[Tensor], num_averaged: Count) -> None:
        if _float_like(ema_tensors[0]):  # all of one dtype: AveragedModel groups them by dtype
            for ema, current in zip(ema_tensors, current_tensors):
                _ops.lerp_(ema, current, 1 - decay)
        else:
            for ema, current in zip(ema_tensors, current_tensors):
                ema.copy_(ema * decay + current * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> MultiAvgFn:
    """The running mean, on lists of tensors, in place: with ``n`` snapshots already averaged,
    the new one counts ``1 / (n + 1)``: ``avg <- avg + (current - avg) / (n + 1)``.

    Floating tensors take it as a ``lerp_`` of weight ``1 / (n + 1)``.  Integer tensors take it
    as an ``addcdiv_`` (or an ``add_`` with that ``alpha`` when ``n`` is a Python int), which
    refuses integers with PyTorch's own error: a mean of integer counters is not an integer."""

    @no_grad()
    def swa_update(averaged_tensors: Sequence[Tensor], current_tensors: Sequence[Tensor],
                   num_averaged: Count) -> None:
        if _float_like(averaged_tensors[0]):
            weight = 1 / (num_averaged + 1)  # a float32 0-d tensor when num_averaged is a tensor
            for averaged, current in zip(averaged_tensors, current_tensors):
                _ops.lerp_(averaged, current, float(weight))
            return
        differences = [current - averaged for averaged, current in zip(averaged_tensors, current_tensors)]
        for averaged, difference in zip(averaged_tensors, differences):
            if isinstance(num_averaged, Tensor):
                averaged.addcdiv_(difference, num_averaged + 1)
            else:
                averaged.add_(difference, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> AvgFn:
    """The exponential moving average of one tensor: returns ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema: Tensor, current: Tensor, num_averaged: Count) -> Tensor:
        return decay * ema + (1 - decay) * current

    return ema_update


def get_swa_avg_fn() -> AvgFn:
    """The running mean of one tensor: returns ``averaged + (current - averaged) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged: Tensor, current: Tensor, num_averaged: Count) -> Tensor:
        return averaged + (current - averaged) / (num_averaged + 1)

    return swa_update


def _grouped(averaged: list[Tensor], current: list[Tensor]) -> dict[tuple[str, Any], tuple[list, list]]:
    """The pairs ``(averaged, current)`` sorted into lists by device and dtype (first seen first):
    a multi-tensor rule gets tensors of one kind per call, as PyTorch's do."""
    groups: dict[tuple[str, Any], tuple[list, list]] = {}
    for a, c in zip(averaged, current):
        pair = groups.setdefault((str(a.device), a.dtype), ([], []))
        pair[0].append(a)
        pair[1].append(c)
    return groups


# ---------------------------------------------------------------------------- the averaged model
class AveragedModel(Module):
    """A copy of ``model`` (``copy.deepcopy``, moved to ``device`` if given) whose parameters
    hold a running average of ``model``'s, updated by :meth:`update_parameters`.

    * ``avg_fn(averaged, current, n)`` returns the new average of one tensor;
      ``multi_avg_fn(averaged_list, current_list, n)`` updates lists in place.  Give at most one;
      with neither it is the plain mean (SWA).  ``get_ema_multi_avg_fn(decay)`` makes an EMA.
    * ``use_buffers=True`` averages the buffers too (BatchNorm's running statistics);
      otherwise the buffers are copied from ``model`` at each update.
    * ``n_averaged`` (a buffer, int64, saved in the ``state_dict``) counts the snapshots taken.
      The first update copies ``model``'s values; the averaging starts with the second.

    Calling it runs the copy (``forward`` delegates to ``self.module``).  The averaging
    functions are not saved in the ``state_dict``."""

    def __init__(self, model: Module, device: Any = None, avg_fn: Optional[AvgFn] = None,
                 multi_avg_fn: Optional[MultiAvgFn] = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)  # a copy: the trained model goes on changing
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", creation.tensor(0, dtype=dtypes.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def _averaged_tensors(self, model: Module) -> tuple[list[Tensor], list[Tensor]]:
        """This copy's tensors to average and ``model``'s matching ones (detached, moved here)."""
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        pairs = [(a.detach(), c.detach().to(a.device)) for a, c in zip(mine, theirs)]
        return [a for a, _ in pairs], [c for _, c in pairs]

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average (the first call copies them)."""
        averaged, current = self._averaged_tensors(model)
        if int(self.n_averaged) == 0:
            for a, c in zip(averaged, current):
                a.copy_(c)
        else:
            self._average(averaged, current)
        if not self.use_buffers:  # the buffers are not averaged: keep them equal to model's
            for mine, theirs in zip(self.module.buffers(), model.buffers(), strict=True):
                mine.detach().copy_(theirs.detach().to(mine.device))
        self.n_averaged.add_(1)

    def _average(self, averaged: list[Tensor], current: list[Tensor]) -> None:
        if self.avg_fn is not None:  # a rule for one tensor: apply it to each
            for a, c in zip(averaged, current):
                a.copy_(self.avg_fn(a, c, self.n_averaged.to(a.device)))
            return
        for (device, _), (a_list, c_list) in _grouped(averaged, current).items():
            n = self.n_averaged.to(device)
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(a_list, c_list, n)
            elif device == "cpu":
                # PyTorch has no multi-tensor kernels on the CPU: it applies the one-tensor mean
                # (whose rounding differs slightly from the lerp form)
                mean = get_swa_avg_fn()
                for a, c in zip(a_list, c_list):
                    a.copy_(mean(a, c, n))
            else:
                get_swa_multi_avg_fn()(a_list, c_list, n)


@no_grad()
def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of every BatchNorm layer of ``model`` with one pass over
    ``loader``.

    The statistics are reset, and each layer's ``momentum`` is set to ``None`` for the pass, which
    makes the running values the plain average over all batches (not an average weighted towards
    the last ones); afterwards the momenta and the model's train/eval mode are put back.  A batch
    may be a tensor or a list/tuple whose first element is the input; ``device`` moves it there.
    A model without BatchNorm is left untouched, without a pass over the data."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        inputs = batch[0] if isinstance(batch, (list, tuple)) else batch
        if device is not None:
            inputs = inputs.to(device)
        model(inputs)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


# ---------------------------------------------------------------------------- the SWA schedule
class SWALR(LRScheduler):
    """Bring each group's learning rate to ``swa_lr`` (one value, or one per group) over
    ``anneal_epochs`` epochs, then hold it there: SWA wants a constant rate, large enough to keep
    moving around the valley whose weights it averages.

    At fraction ``t`` of the annealing (``t = epoch / anneal_epochs``, at most 1) the rate is
    ``swa_lr * a + start * (1 - a)``, with ``a = t`` (``anneal_strategy="linear"``) or
    ``a = (1 - cos(pi * t)) / 2`` (``"cos"``, the default: slow at both ends).  ``start`` is the
    rate the annealing began from; it is worked out again each step from the current
    ``group["lr"]`` (the schedule is *recursive*, as PyTorch's), so SWALR can take over from
    another scheduler at any epoch.  ``anneal_epochs=0`` jumps to ``swa_lr`` at the first step."""

    def __init__(self, optimizer: Optimizer, swa_lr: Union[float, Sequence[float]], anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        for group, lr in zip(optimizer.param_groups, _format_param("swa_lr", optimizer, swa_lr)):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._use_strategy(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear(t: float) -> float:
        return t

    @staticmethod
    def _cosine(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    def _use_strategy(self, strategy: str) -> None:
        self._anneal_strategy = strategy
        self.anneal_func = self._cosine if strategy == "cos" else self._linear

    def _fraction_done(self, step: int) -> float:
        """How far the annealing is after ``step`` steps: from 0 to 1, then 1 for ever."""
        return max(0, min(1, step / max(1, self.anneal_epochs)))

    @staticmethod
    def _start_rate(lr: float, swa_lr: float, alpha: float) -> float:
        """The rate the annealing started from, solved from ``lr = swa_lr * alpha + start * (1 - alpha)``
        (once the annealing is over, ``alpha = 1`` and any start gives ``swa_lr``)."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        self._warn_if_called_outside_step()
        step = self._step_count - 1  # 0 for the constructor's own step
        if self.anneal_epochs == 0:
            step = max(1, step)
        alpha_before = self.anneal_func(self._fraction_done(step - 1))
        alpha = self.anneal_func(self._fraction_done(step))
        rates = []
        for group in self.optimizer.param_groups:
            start = self._start_rate(group["lr"], group["swa_lr"], alpha_before)
            rates.append(group["swa_lr"] * alpha + start * (1 - alpha))
        return rates

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer and the annealing function (rebuilt from its name)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._use_strategy(self._anneal_strategy)

