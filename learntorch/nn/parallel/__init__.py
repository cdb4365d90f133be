"""``learntorch.nn.parallel``: data parallelism (chapter 08).

* ``DataParallel`` (one process, several devices, threads): ``data_parallel.py``,
  built from the four steps, each in its own file, named as in PyTorch:
  ``scatter_gather.py`` (split the batch, collect the outputs),
  ``replicate.py`` (copy the module onto each device), ``parallel_apply.py``
  (run the copies in threads); the autograd Functions that make these steps
  differentiable are in ``_functions.py`` and the plain copies in ``comm.py``.
* ``DistributedDataParallel`` (several processes): ``distributed.py``.
"""
from .data_parallel import DataParallel, data_parallel
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel", "DataParallel"]

# DistributedDataParallel (learntorch/nn/parallel/distributed.py) is added below by its author.
from .distributed import DistributedDataParallel  # noqa: E402

__all__ += ["DistributedDataParallel"]
