"""Datasets and ``random_split`` (``torch/utils/data/dataset.py``).

Two kinds, as in PyTorch: *map-style* (``Dataset``: ``dataset[i]`` and ``len``; a sampler
chooses the indices, so it can be shuffled) and *iterable-style* (``IterableDataset``: a
stream read with ``iter``, for data that cannot be indexed — lines of a large file, a
generator; the stream itself decides the order, so ``DataLoader`` cannot shuffle it)."""
from __future__ import annotations

import abc
import bisect
import collections.abc
import itertools
import math
from typing import Any, Iterable, Iterator, Sequence

from ... import warn_always
from ...creation import randperm
from ...random import default_generator
from ...tensor import Tensor


class Dataset:
    """A map-style dataset: anything with ``__getitem__(idx)`` and ``__len__()``.

    Subclasses must override ``__getitem__``; ``__len__`` is what samplers and
    ``DataLoader`` use to know how many indices exist.  ``a + b`` concatenates."""

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset, collections.abc.Iterable):
    """An iterable-style dataset: subclasses write ``__iter__`` yielding samples.

    ``DataLoader`` reads it front to back and groups ``batch_size`` samples at a time;
    there are no indices, so ``shuffle``, ``sampler`` and ``batch_sampler`` are refused.
    ``__len__`` is optional (``len(loader)`` needs it).  ``a + b`` chains two streams.
    ``__iter__`` is an abstract method (the class is a ``collections.abc.Iterable``), so
    a subclass that forgets it cannot even be built — a ``TypeError``, as in PyTorch."""

    @abc.abstractmethod
    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError

    def __add__(self, other: "Dataset") -> "ChainDataset":  # type: ignore[override]
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several iterable datasets read one after another (the stream version of ``ConcatDataset``);
    the chaining happens lazily, during iteration."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)  # type: ignore[arg-type]
        return total


class StackDataset(Dataset):
    """Several map-style datasets of the same length side by side: sample ``i`` is
    ``(a[i], b[i], ...)`` for ``StackDataset(a, b)``, or ``{"x": a[i], "y": b[i]}`` for
    ``StackDataset(x=a, y=b)`` — e.g. images and labels kept in separate datasets."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                                 "input/output, but both types are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets: Any = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])
            if any(self._length != len(dataset) for dataset in tmp):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self) -> int:
        return self._length


class TensorDataset(Dataset):
    """Sample i is ``tuple(t[i] for t in tensors)``; every tensor must share dim 0."""

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after another; ``cumulative_sizes`` holds the running lengths."""

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        r, s = [], 0
        for e in sequence:
            s += len(e)
            r.append(s)
        return r

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


def random_split(dataset: Any, lengths: Sequence[int | float], generator: Any = default_generator) -> list[Subset]:
    """Split ``dataset`` into non-overlapping ``Subset``s of the given lengths.

    ``lengths`` are counts summing to ``len(dataset)``, or fractions summing to 1:
    each gets ``floor(frac * len(dataset))`` and the remainder is handed out one
    by one, round-robin from the first split (PyTorch's rule).  The indices are
    ``randperm(len(dataset), generator=generator)`` cut in order, so they equal
    PyTorch's for the same seed."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths: list[int] = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warn_always.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                                 stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length: offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
