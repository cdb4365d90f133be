"""``DataLoader`` and ``default_collate`` (``torch/utils/data/dataloader.py``,
``torch/utils/data/_utils/collate.py``), single-process only.

``num_workers > 0`` raises ``NotImplementedError``: learntorch loads every batch
in the main process (no worker processes, no ``pin_memory``)."""
from __future__ import annotations

import collections.abc
import re
from typing import Any, Callable, Iterator

import numpy as np

from ... import dtypes
from ...creation import as_tensor, tensor
from ...ops.shape import stack
from ...tensor import Tensor
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _draw_seed

_NP_STR_OBJ = re.compile(r"[SaUO]")
_COLLATE_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_convert(data: Any) -> Any:
    """What ``DataLoader(batch_size=None)`` applies to each sample: NumPy arrays
    (and NumPy scalars) become tensors, containers are converted element-wise."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if _NP_STR_OBJ.search(data.dtype.str) else as_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return as_tensor(data)
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch: list) -> Any:
    """Merge a list of samples into a batch, as PyTorch's ``default_collate``:

    * tensors -> ``stack(batch, 0)`` (a new leading batch dimension);
    * NumPy arrays -> tensors, then stacked; NumPy scalars -> one tensor;
    * Python ``float`` -> a float64 tensor, ``int`` -> int64 (``bool`` -> bool);
    * ``str``/``bytes`` -> left as the list;
    * dicts -> a dict of collated values; namedtuples -> the same namedtuple type;
    * tuples and lists -> a **list** of collated "columns" (PyTorch returns a list
      even for tuples); every sample must then have the same length."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray) or (isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_))):
        if _NP_STR_OBJ.search(elem.dtype.str):
            raise TypeError(_COLLATE_ERR.format(elem.dtype))
        if isinstance(elem, np.ndarray) and elem.shape != ():
            return default_collate([as_tensor(b) for b in batch])
        return as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(s)) for s in zip(*batch)]
    raise TypeError(_COLLATE_ERR.format(type(elem)))


class DataLoader:
    """Iterate over ``dataset`` in batches (``torch.utils.data.DataLoader``).

    ``batch_size`` samples are fetched with ``dataset[i]`` and merged by
    ``collate_fn`` (``default_collate`` unless given); ``shuffle=True`` uses a
    ``RandomSampler`` (with ``generator`` if given); ``drop_last`` drops a last
    incomplete batch; ``batch_size=None`` turns batching off.  Each new iteration
    first draws one 64-bit seed from ``generator`` (or the default generator) as
    PyTorch does for its workers, so the random stream stays in step with PyTorch.

    ``num_workers`` must be 0: learntorch loads in the main process."""

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None, sampler: Any = None,
                 batch_sampler: Any = None, num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, *, generator: Any = None) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if num_workers > 0:
            raise NotImplementedError(
                f"num_workers={num_workers}: learntorch loads data in the main process only; use num_workers=0")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Iterator[Any]:
        indices = iter(self._index_sampler)
        _draw_seed(self.generator)  # PyTorch's per-iterator base seed (unused without workers)
        return self._batches(indices)

    def _batches(self, indices: Iterator[Any]) -> Iterator[Any]:
        for index in indices:
            if self._auto_collation:
                yield self.collate_fn([self.dataset[i] for i in index])
            else:
                yield self.collate_fn(self.dataset[index])

    def __len__(self) -> int:
        return len(self._index_sampler)
