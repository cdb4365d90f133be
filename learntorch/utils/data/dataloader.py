"""``DataLoader`` and ``default_collate`` (``torch/utils/data/dataloader.py``,
``torch/utils/data/_utils/collate.py``).

``num_workers > 0`` loads in worker processes (``worker.py``); with 0 every batch
is loaded in the main process, where ``get_worker_info()`` is ``None``.  The options that
only tune worker processes are checked as PyTorch checks them (``prefetch_factor``
and ``persistent_workers=True`` need ``num_workers > 0``: a ``ValueError``), and
``pin_memory=True`` (page-locked host memory for faster copies to a GPU) is accepted
and changes nothing: learntorch's tensors are ordinary host memory, and with no
accelerator it gives PyTorch's warning that pinned memory won't be used."""
from __future__ import annotations

import collections.abc
import copy
import math
import re
from typing import Any, Callable, Iterator, Optional

import numpy as np

from ... import warn_always
from ... import cuda, dtypes
from ...creation import as_tensor, tensor
from ...ops.shape import stack
from ...tensor import Tensor
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _draw_seed, _InfiniteConstantSampler
from .worker import MultiProcessIter, get_worker_info  # noqa: F401  (torch.utils.data.get_worker_info)

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
        return _same_mapping(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        return _same_sequence(data, [default_convert(d) for d in data])
    return data


def _same_mapping(like: Any, items: dict) -> Any:
    """``items`` in a mapping of ``like``'s type (an ``OrderedDict`` stays one), as PyTorch does;
    a plain ``dict`` when that type cannot be rebuilt."""
    if isinstance(like, collections.abc.MutableMapping):
        clone = copy.copy(like)  # keeps extra state, e.g. a defaultdict's default factory
        clone.update(items)
        return clone
    try:
        return type(like)(items)
    except TypeError:
        return items


def _same_sequence(like: Any, items: list) -> Any:
    """``items`` in a sequence of ``like``'s (list-like) type, or a plain list."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def default_collate(batch: list) -> Any:
    """Merge a list of samples into a batch, as PyTorch's ``default_collate``:

    * tensors -> ``stack(batch, 0)`` (a new leading batch dimension);
    * NumPy arrays -> tensors, then stacked; NumPy scalars -> one tensor;
    * Python ``float`` -> a float64 tensor, ``int`` -> int64 (``bool`` -> bool);
    * ``str``/``bytes`` -> left as the list;
    * dicts -> a dict (of the samples' mapping type) of collated values;
      namedtuples -> the same namedtuple type;
    * tuples and lists -> a **list** of collated "columns" (PyTorch returns a list
      even for tuples); every sample must then have the same length.  A column of
      strings stays the tuple ``zip`` made of it, as in PyTorch."""
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
        return _same_mapping(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(column) for column in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = list(zip(*batch))  # transpose: one tuple per position in the samples
        if isinstance(elem, tuple):
            return [default_collate(column) for column in columns]
        return _same_sequence(elem, [default_collate(column) for column in columns])
    raise TypeError(_COLLATE_ERR.format(type(elem)))


class _SingleProcessDataLoaderIter:
    """What ``iter(loader)`` returns without workers (PyTorch's class name): the batches one by one,
    and, like PyTorch's, a length -- the number of batches the sampler will give."""

    def __init__(self, loader: "DataLoader", batches: Iterator[Any]) -> None:
        self._loader = loader
        self._batches = batches

    def __iter__(self) -> "_SingleProcessDataLoaderIter":
        return self

    def __next__(self) -> Any:
        return next(self._batches)

    def __len__(self) -> int:
        return len(self._loader._index_sampler)


class DataLoader:
    """Iterate over ``dataset`` in batches (``torch.utils.data.DataLoader``).

    Map-style datasets: ``batch_size`` samples are fetched with ``dataset[i]`` (or one
    ``dataset.__getitems__(indices)`` call where the dataset has it) and merged by
    ``collate_fn`` (``default_collate`` unless given); ``shuffle=True`` uses a
    ``RandomSampler`` (drawing from ``generator`` if given); ``sampler`` chooses the
    indices instead, ``batch_sampler`` whole batches of them; ``drop_last`` drops a last
    incomplete batch; ``batch_size=None`` turns batching off (then each sample goes
    through ``default_convert``).

    ``IterableDataset``: the samples are read from ``iter(dataset)`` in order and grouped
    ``batch_size`` at a time; it has no indices, so ``shuffle=True``, ``sampler`` and
    ``batch_sampler`` are errors (shuffle the stream inside the dataset instead).

    Each new iteration first draws one 64-bit seed from ``generator`` (or the default
    generator) as PyTorch does for its workers, so the random stream stays in step with
    PyTorch.  ``num_workers > 0`` loads in that many worker processes (``worker.py``), with
    the same batches in the same order."""

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None, sampler: Any = None,
                 batch_sampler: Any = None, num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, multiprocessing_context: Any = None, generator: Any = None,
                 *, prefetch_factor: Optional[int] = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
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
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            else:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
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
        if self.pin_memory:
            if not cuda.is_available():
                warn_always.warn("'pin_memory' argument is set as true but no accelerator is found, then device "
                                 "pinned memory won't be used.", stacklevel=2)
        if self.num_workers > 0:  # worker processes: worker.py
            if not self.persistent_workers:
                return MultiProcessIter(self)
            it = self.__dict__.get("_persistent_iter")
            if it is None:
                it = self._persistent_iter = MultiProcessIter(self)
            else:
                it._reset(self)
            return it
        indices = iter(self._index_sampler)
        _draw_seed(self.generator)  # PyTorch's per-iterator base seed (unused without workers)
        if self._iterable:
            return _SingleProcessDataLoaderIter(self, self._stream_batches(indices, iter(self.dataset)))
        return _SingleProcessDataLoaderIter(self, self._batches(indices))

    def _batches(self, indices: Iterator[Any]) -> Iterator[Any]:
        getitems = getattr(self.dataset, "__getitems__", None)
        for index in indices:
            if self._auto_collation:
                samples = getitems(index) if getitems else [self.dataset[i] for i in index]
                yield self.collate_fn(samples)
            else:
                yield self.collate_fn(self.dataset[index])

    def _stream_batches(self, indices: Iterator[Any], stream: Iterator[Any]) -> Iterator[Any]:
        """An ``IterableDataset``: each index (a ``None``, or a batch of them) asks the stream for
        that many samples; the stream running dry ends the iteration (a last short batch is
        kept unless ``drop_last``)."""
        for index in indices:
            if not self._auto_collation:
                try:
                    sample = next(stream)
                except StopIteration:
                    return
                yield self.collate_fn(sample)
                continue
            samples = []
            for _ in index:
                try:
                    samples.append(next(stream))
                except StopIteration:
                    break
            if len(samples) == 0 or (self.drop_last and len(samples) < len(index)):
                return
            yield self.collate_fn(samples)
            if len(samples) < len(index):
                return

    def __len__(self) -> int:
        """The number of batches.  For an ``IterableDataset`` it is computed from ``len(dataset)``
        (a ``TypeError`` if the dataset has no length): only an estimate, the stream decides."""
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)
