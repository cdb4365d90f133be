"""``learntorch.utils.data``: datasets, samplers and the DataLoader, as in ``torch.utils.data``.

Batches load in the main process (``num_workers=0``) or in worker processes
(``num_workers > 0``, ``worker.py``).  Shuffling draws from
learntorch's PyTorch-exact CPU generator in the same order PyTorch does, so with
the same ``manual_seed`` a shuffled DataLoader and ``random_split`` give PyTorch's
own indices."""
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from .distributed import DistributedSampler

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "RandomSampler", "Sampler",
           "SequentialSampler", "Subset", "TensorDataset", "default_collate", "default_convert", "random_split",
           "SubsetRandomSampler", "WeightedRandomSampler", "IterableDataset", "StackDataset", "get_worker_info",
           "DistributedSampler"]
