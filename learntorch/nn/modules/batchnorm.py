"""``nn.BatchNorm1d`` / ``2d`` / ``3d``: normalise each channel over the batch; and their lazy
twins ``nn.LazyBatchNorm1d/2d/3d``, which read the number of channels from the first input.

Training mode uses the statistics of the current batch and keeps running
averages of them (``running_mean``, ``running_var``: buffers, saved in the
``state_dict`` but not learned); evaluation mode (``model.eval()``) uses those
running averages instead, so one sample's output no longer depends on the rest
of its batch.

The three layers are the same computation (``F.batch_norm`` takes any ``(N, C, *)``); they
differ only in the input rank they accept: ``(N, C)`` or ``(N, C, L)``, ``(N, C, H, W)``,
``(N, C, D, H, W)``.
"""
from __future__ import annotations

from typing import Any, Optional

from ... import creation, distributed as dist, dtypes
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import register_affine
from ..uninitialized import (UninitializedBuffer, UninitializedParameter, has_uninitialized_params,
                             materialize_from_checkpoint)
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "SyncBatchNorm"]


class _NormBase(Module):
    """Parameters and buffers shared by the batch-norm layers."""

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        register_affine(self, num_features, self.affine, bias, device, dtype)
        if self.track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype=dtypes.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def _complete_old_checkpoint(self, local: dict, prefix: str) -> None:
        """A state_dict without ``num_batches_tracked`` (saved before that buffer existed, or a
        plain dict written by hand) keeps the current count instead of reporting it missing:
        PyTorch does the same for dicts that carry no version metadata."""
        key = prefix + "num_batches_tracked"
        if self.track_running_stats and key not in local:
            local[key] = self.num_batches_tracked

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average: the plain mean of all batches so far
                exponential_average_factor = 1.0 / float(self.num_batches_tracked)
        # Batch statistics in training mode, and in eval mode when there are no running ones.
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        # Running statistics are updated only when tracked and training.
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_buffers else None,
                            self.running_var if use_buffers else None, self.weight, self.bias, bn_training,
                            exponential_average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs, per channel C:
    ``(x - mean) / √(var + eps) · weight + bias``.

    Training: mean and biased variance of the batch; the running statistics move
    by ``momentum`` towards the batch mean and *unbiased* variance
    (``running = (1 - momentum)·running + momentum·batch``; ``momentum=None``: the
    cumulative average over all batches).  Eval: the running statistics."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) images, per channel."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) volumes, per channel."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation whose batch statistics are meant to be pooled over all ranks of a
    ``DistributedDataParallel`` run (chapter 08), for inputs ``(N, C, *)``.

    As in PyTorch it is plain batch norm whenever there is nothing to synchronise: in eval
    mode, without an initialised process group, or with a group of one rank.  In training with
    a process group, PyTorch accepts only accelerator inputs (a CPU input is a ValueError,
    even with one rank); learntorch does the same, and does not pool statistics over several
    ranks (a ``NotImplementedError`` says so) -- use ``nn.BatchNorm*d`` there.

    ``SyncBatchNorm.convert_sync_batchnorm(model)`` swaps every batch-norm layer of ``model``
    for one of these, keeping its parameters, running statistics and train/eval mode."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group: Any = None, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() >= 2 and input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        if bn_training and self.training:
            if dist.is_available() and dist.is_initialized():
                if input.device.type != "cuda":
                    raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone")
                group = self.process_group if self.process_group else dist.group.WORLD
                if dist.get_world_size(group) > 1:
                    raise NotImplementedError("learntorch's SyncBatchNorm does not pool batch statistics over "
                                              "several ranks; use nn.BatchNorm1d/2d/3d (per-rank statistics)")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with each batch-norm layer in it (itself included) replaced by a
        SyncBatchNorm that takes over the same parameter and buffer objects."""
        output = module
        if isinstance(module, _BatchNorm):
            output = cls(module.num_features, module.eps, module.momentum, module.affine,
                         module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                output.weight = module.weight
                output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return output


# ---------------------------------------------------------------------------- lazy layers
class _LazyNormBase(_NormBase):
    """A norm layer whose ``num_features`` is the channel count of its first input.

    Until then it is ``num_features=0`` with placeholders (``nn/uninitialized.py``) where the
    weight, bias and running statistics will be; the first ``forward`` gives them the shape
    ``(C,)``, initialises them as the eager layer does, and the module *becomes* that eager
    layer (``cls_to_become``: its class changes, as in PyTorch)."""

    cls_to_become: type

    def __init__(self, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        # no weights or statistics yet: the base class registers them as None ...
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        # ... and the placeholders take their places
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.register_buffer("running_mean", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("running_var", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype=dtypes.int64, device=device))

    def has_uninitialized_params(self) -> bool:
        return has_uninitialized_params(self)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """``num_features = input.shape[1]``; shape the placeholders ``(num_features,)`` and initialise them."""
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        for name in ("weight", "bias", "running_mean", "running_var"):
            placeholder = getattr(self, name)
            if placeholder is not None:
                placeholder.materialize((self.num_features,))
        self.reset_parameters()

    def _complete_old_checkpoint(self, local: dict, prefix: str) -> None:
        materialize_from_checkpoint(self, local, prefix)
        super()._complete_old_checkpoint(local, prefix)

    def forward(self, input: Tensor) -> Tensor:
        self.initialize_parameters(input)
        self.__class__ = self.cls_to_become  # from now on the eager layer
        return self.forward(input)


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """``BatchNorm1d`` with ``num_features`` read from the first input's dimension 1."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """``BatchNorm2d`` with ``num_features`` read from the first input's dimension 1."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    """``BatchNorm3d`` with ``num_features`` read from the first input's dimension 1."""

    cls_to_become = BatchNorm3d
