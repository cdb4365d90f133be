"""Samplers: which indices, in which order (``torch/utils/data/sampler.py``)."""
from __future__ import annotations

from typing import Any, Iterable, Iterator, Sized

from ... import dtypes, random as _random
from ...creation import as_tensor, multinomial, randint, randperm


def _draw_seed(generator: Any = None) -> int:
    """``torch.empty((), dtype=torch.int64).random_(generator=g).item()``: one
    ``random64()`` (two 32-bit draws) reduced modulo 2**63."""
    gen = generator if generator is not None else _random.default_generator
    return int(gen._random64(1)[0]) % 2**63


class Sampler:
    """Base class: an iterable over dataset indices (or lists of indices)."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator:
        raise NotImplementedError


class _InfiniteConstantSampler(Sampler):
    """The "sampler" of an ``IterableDataset``: ``None`` forever.  It only counts — each
    ``None`` asks the stream for its next sample, and the stream ends the iteration."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A shuffled order (a fresh permutation per pass), or draws with replacement.

    Without ``generator`` each pass takes a seed from the default generator,
    exactly as PyTorch does, and shuffles with a new ``Generator`` seeded with it;
    so after ``manual_seed(s)`` the order equals PyTorch's.  With ``generator``
    the permutation comes straight from it."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: Any = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        if self.generator is None:
            generator = _random.Generator()
            generator.manual_seed(_draw_seed())
        else:
            generator = self.generator
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(0, n, (32,), generator=generator).tolist()
            yield from randint(0, n, (self.num_samples % 32,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``; the last,
    shorter list is kept unless ``drop_last``."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (a fresh permutation per pass), e.g. to split one
    dataset into training and validation parts without copying it."""

    def __init__(self, indices: Any, generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[Any]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (to
    over-sample rare classes); the draws are ``torch.multinomial``'s, so they equal PyTorch's."""

    def __init__(self, weights: Any, num_samples: int, replacement: bool = True, generator: Any = None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=dtypes.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights, self.num_samples = weights_tensor, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self) -> Iterator[int]:
        yield from iter(multinomial(self.weights, self.num_samples, self.replacement,
                                    generator=self.generator).tolist())

    def __len__(self) -> int:
        return self.num_samples
