"""Ragged sequences: padding, and packing for the recurrent layers.

Sentences have different lengths, but a batch must be one rectangular tensor:
``pad_sequence`` pads the short ones with ``padding_value`` up to the longest.
The result is (longest, batch, *) by default — time first, as the RNN layers
expect — or (batch, longest, *) with ``batch_first=True``.

Padding wastes work and, worse, lets an RNN read the padding: the last hidden
state of a short sentence would have run over the zeros after it.  *Packing*
(打包) fixes that.  ``pack_padded_sequence`` sorts the sequences longest first
and lays the batch out time step by time step, keeping only the real entries:

    lengths 3, 2, 1          padded (time × batch)      packed data   batch_sizes
    a1 a2 a3                 a1 b1 c1                   a1 b1 c1      3
    b1 b2                    a2 b2 .                    a2 b2         2
    c1                       a3 .  .                    a3            1

At time step t an RNN then runs on the first ``batch_sizes[t]`` rows only, so
every sequence stops at its own end (``nn.GRU`` & co. accept a
:class:`PackedSequence` directly).  ``pad_packed_sequence`` undoes the packing
and also returns the lengths.  With ``enforce_sorted=False`` the batch may come
in any order: the packing records the permutation (``sorted_indices``) and its
inverse (``unsorted_indices``), and unpacking puts the sequences back.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence, Union

import numpy as np

from ... import dtypes
from ...autograd.grad_mode import is_grad_enabled
from ...creation import as_tensor, tensor
from ...ops.indexing import Index, getitem
from ...ops.shape import cat, stack
from ...ops.sorting import argsort, sort
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack tensors of shape (L_i, *) into (max L, B, *) (or (B, max L, *)), padding the gaps.

    As in PyTorch, the first sequence sets the dtype and the trailing shape ``*``: the result
    starts as ``padding_value`` everywhere and each sequence is copied into its slot (so it is
    cast to that dtype, and broadcast to that shape), and the result's ``grad_fn`` is the copy's."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    elif not hasattr(sequences, "__iter__"):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if sequences[0].dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    longest = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    first = sequences[0]
    out_shape = (len(sequences), longest) + trailing if batch_first else (longest, len(sequences)) + trailing
    out = first.new_full(out_shape, padding_value)
    # Sequences of out's dtype and device that need no gradient (a collate function's) are written
    # into its array directly, a third faster than through copy_; the others go through copy_, which
    # casts, moves, checks the shapes and records CopySlices for autograd.
    direct = not (is_grad_enabled() and any(s.requires_grad for s in sequences))
    for i, s in enumerate(sequences):
        length = s.size(0)
        start = 0 if padding_side == "right" else longest - length
        if direct and s._dtype is out._dtype and s._device == out._device and s._data.shape[1:] == trailing:
            rows = slice(start, start + length)
            out._data[(i, rows) if batch_first else (rows, i)] = s._data
            continue
        slot = out.select(0, i).narrow(0, start, length) if batch_first else out.narrow(0, start, length).select(1, i)
        slot.copy_(s)
    return out


# ----------------------------------------------------------------------------- PackedSequence
class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


class PackedSequence(PackedSequence_):
    """A packed batch of sequences: a named tuple ``(data, batch_sizes, sorted_indices, unsorted_indices)``.

    * ``data``: the real entries, time step after time step, shape (sum of lengths, *);
    * ``batch_sizes``: how many sequences are still running at each time step (int64, on the CPU);
    * ``sorted_indices``: ``sorted_indices[i]`` is the original position of the i-th longest
      sequence (``None`` when the batch came sorted, ``enforce_sorted=True``);
    * ``unsorted_indices``: the inverse permutation, used to put the sequences back.

    Make one with :func:`pack_padded_sequence` or :func:`pack_sequence`, not by hand."""

    def __new__(cls, data: Any, batch_sizes: Optional[Tensor] = None, sorted_indices: Optional[Tensor] = None,
                unsorted_indices: Optional[Tensor] = None) -> "PackedSequence":
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                    "manually. They should be instantiated by functions like pack_sequence and "
                    "pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise AssertionError("Expected data to be a list or tuple of length 2")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """Move/cast ``data`` like ``Tensor.to``; the index permutations follow data's device,
        ``batch_sizes`` stays on the CPU.  Returns ``self`` when nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def move(t: Optional[Tensor]) -> Optional[Tensor]:
            return None if t is None else t.to(data.device)
        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cuda(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        if not args and "device" not in kwargs:
            kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self) -> "PackedSequence":
        return self.to(dtype=dtypes.float64)

    def float(self) -> "PackedSequence":
        return self.to(dtype=dtypes.float32)

    def half(self) -> "PackedSequence":
        return self.to(dtype=dtypes.float16)

    def long(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int64)

    def int(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int32)

    def short(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int16)

    def char(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int8)

    def byte(self) -> "PackedSequence":
        return self.to(dtype=dtypes.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        """Whether ``data`` is in pinned memory (what a DataLoader with ``pin_memory=True`` asks)."""
        return self.data.is_pinned()


def invert_permutation(permutation: Optional[Tensor]) -> Optional[Tensor]:
    """The inverse permutation (``out[permutation[i]] = i``), or None for None.
    Sorting a permutation's values gives exactly that: ``argsort``."""
    if permutation is None:
        return None
    return argsort(permutation)


# ----------------------------------------------------------------------------- packing
_SCALAR_NAMES = dtypes.SCALAR_NAMES


def _check_long_cpu(t: Tensor) -> None:
    if t.ndim != 1 or t.device.type != "cpu" or t.dtype is not dtypes.int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {t.ndim}D {t.device} "
                           f"{_SCALAR_NAMES.get(t.dtype.name, t.dtype.name)} tensor")


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


class _PackPadded(Index):
    """The gather that packs a padded batch (one advanced index; backward scatters back)."""
    _backward_name = "PackPaddedSequenceBackward0"


def _pack_padded(input: Tensor, lengths: Tensor, batch_first: bool,
                 order: Optional[np.ndarray]) -> tuple[Tensor, Tensor]:
    """PyTorch's ``_pack_padded_sequence`` with its checks, on sorted ``lengths``.
    ``order`` (the sort permutation, or None) is folded into the gather, so that sorting
    the batch and packing it is one indexing operation."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    _check_long_cpu(lengths)
    steps, batch = (input.shape[1], input.shape[0]) if batch_first else (input.shape[0], input.shape[1])
    lens = _host(lengths)
    if lens.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lens.shape[0]} "
                           f"(batch_size={batch})")
    if lens[batch - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if np.any(lens[1:] > lens[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if lens[0] > steps:  # (PyTorch silently builds a broken PackedSequence here)
        raise RuntimeError(f"a length ({int(lens[0])}) is larger than the padded input's number of time steps "
                           f"({steps})")
    batch_sizes = (lens[None, :] > np.arange(lens[0])[:, None]).sum(1).astype(np.int64)
    t_idx = np.repeat(np.arange(lens[0]), batch_sizes)
    s_idx = np.concatenate([np.arange(b) for b in batch_sizes])
    b_idx = s_idx if order is None else order[s_idx]
    key = (tensor(b_idx), tensor(t_idx)) if batch_first else (tensor(t_idx), tensor(b_idx))
    data = getitem(input, key, _PackPadded)
    return data, tensor(batch_sizes)


def pack_padded_sequence(input: Tensor, lengths: Union[Tensor, Sequence[int]], batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) of sequences of the
    given ``lengths`` (a list, or a 1-D int64 CPU tensor).

    With ``enforce_sorted=True`` (the default) the lengths must already be in decreasing
    order; ``enforce_sorted=False`` sorts them and remembers how (``sorted_indices``)."""
    if not isinstance(lengths, Tensor):
        lengths = as_tensor(lengths, dtype=dtypes.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=dtypes.int64)
    order = None
    sorted_indices = None
    if not enforce_sorted:
        _check_long_cpu(lengths)
        lengths, sorted_indices = sort(lengths, descending=True)
        order = _host(sorted_indices)
        sorted_indices = sorted_indices.to(input.device)
    data, batch_sizes = _pack_padded(input, lengths, batch_first, order)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> tuple[Tensor, Tensor]:
    """Undo packing: ``(padded, lengths)``, padded (T, B, *) (or (B, T, *)) in the batch's original
    order, ``lengths`` an int64 CPU tensor.  ``total_length`` pads to that many time steps
    (useful when the padded length must match the input's, e.g. under ``DataParallel``).

    Built in PyTorch's three steps, so that ``padded.grad_fn`` is PyTorch's: the rows are copied
    into a time-major block of padding through a view of it (``CopySlices``), which is turned to
    batch-first if asked (``TransposeBackward0``: a view, not contiguous, as in PyTorch) and put
    back in the batch's original order if the packing sorted it (``IndexSelectBackward0``)."""
    data, batch_sizes = sequence.data, sequence.batch_sizes
    max_seq_length = batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    _check_long_cpu(batch_sizes)
    bs = _host(batch_sizes)
    batch = int(bs[0])
    sorted_lengths = (bs[None, :] > np.arange(batch)[:, None]).sum(1).astype(np.int64)
    # packed row k is (time step t, sequence j), t repeated batch_sizes[t] times
    t_idx = np.repeat(np.arange(len(bs)), bs)
    s_idx = np.concatenate([np.arange(b) for b in bs])
    padded = data.new_full((max_seq_length, batch) + tuple(data.shape[1:]), padding_value)
    # PyTorch copies each run of equal batch sizes into a slice of the block, so its result's
    # grad_fn is CopySlices (a write through a view).  One index_put_ through a view of the whole
    # block gives the same node for one write instead of one per run (an RNN step's cost).
    padded[:].index_put_((tensor(t_idx, device=data.device), tensor(s_idx, device=data.device)), data)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is None:
        return padded, tensor(sorted_lengths)
    unsorted = sequence.unsorted_indices
    return padded.index_select(0 if batch_first else 1, unsorted), tensor(sorted_lengths[_host(unsorted)])


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of tensors of shape (L_i, *) (longest first, unless ``enforce_sorted=False``)."""
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """The list of sequences inside a padded batch, each cut to its length.
    (PyTorch transposes ``padded_sequences`` in place when ``batch_first=False``; this does not.)"""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(length)] for seq, length in zip(padded_sequences, lengths)]


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences inside a PackedSequence (in the original order)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
