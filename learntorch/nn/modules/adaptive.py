"""``nn.AdaptiveLogSoftmaxWithLoss``: a softmax over a large vocabulary, cheaper (Grave et al., 2016).

Word frequencies are very uneven, so the classes are split by ``cutoffs`` into a *head* (the
``cutoffs[0]`` most frequent words) and *clusters* of rarer ones.  The head classifier scores
the frequent words and one extra class per cluster ("the word is in cluster i"); each cluster has
its own small classifier (a projection to ``in_features // div_value**(i+1)`` features, then to
the cluster's words).  ``log p(word) = log p_head(cluster) + log p_cluster(word)``, and a word of
the head is scored by the head alone.  For a batch only the rows whose targets fall in a cluster
run that cluster's classifier: most of the vocabulary is never touched.

Submodules and parameter names are PyTorch's (``head``, ``tail.i.0``, ``tail.i.1``), created in the
same order, so a seed gives the same weights and state dicts move between the libraries.
"""
from __future__ import annotations

from collections import namedtuple
from typing import Sequence

from ...ops.reduction import argmax
from ...tensor import Tensor
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """``forward(input, target)`` gives ``(output, loss)``: each row's log-probability of its
    target and their negated mean; ``log_prob(input)`` the full ``(N, n_classes)`` table and
    ``predict(input)`` the most likely class."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device: object = None, dtype: object = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        increasing = all(a < b for a, b in zip(cutoffs, cutoffs[1:]))
        if (not increasing or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        kw = dict(device=device, dtype=dtype)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            words = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **kw),
                                        Linear(hidden, words, bias=False, **kw)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for projection, classifier in self.tail:
            projection.reset_parameters()
            classifier.reset_parameters()

    def forward(self, input: Tensor, target: Tensor) -> _ASMoutput:
        batched = self._check_shapes(input, target)
        if not batched:
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        n = target.size(0)
        # the head class each row is scored with (its word, or its cluster's class), and the
        # log-probability of the word inside its cluster (0 for the head's words)
        head_class = target.new_empty(n)
        output = input.new_zeros(n)
        covered = 0
        bounds = [0] + self.cutoffs
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            in_range = (target >= low) & (target < high)
            rows = in_range.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            covered += rows.numel()
            if i == 0:
                head_class.index_copy_(0, rows, target[in_range])
                continue
            head_class.index_fill_(0, rows, self.shortlist_size + i - 1)
            cluster = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
            output.index_copy_(0, rows, cluster.gather(1, (target[in_range] - low).unsqueeze(1)).squeeze(1))
        if covered != n:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head = F.log_softmax(self.head(input), dim=1)
        output += head.gather(1, head_class.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    @staticmethod
    def _check_shapes(input: Tensor, target: Tensor) -> bool:
        """PyTorch's checks; whether the call is batched (a 1-D target)."""
        if target.dim() == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input.size()}")
            return True
        if target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input.size()}")
            return False
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """``(N, n_classes)``: the head's words as the head scores them, each cluster's words as
        the cluster scores them plus the head's log-probability of the cluster."""
        head = F.log_softmax(head_output, dim=1)
        out = input.new_empty((head_output.size(0), self.n_classes))
        out[:, :self.shortlist_size] = head[:, :self.shortlist_size]
        for i, (low, high) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            cluster = F.log_softmax(self.tail[i](input), dim=1)
            out[:, low:high] = cluster + head[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        """Log-probabilities of every class: ``(N, n_classes)`` (or ``(n_classes,)`` for one row)."""
        batched = input.dim() > 1
        rows = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(rows, self.head(rows))
        return out if batched else out.squeeze(0)

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row.  A row whose best head class is a word needs no
        cluster: a word's probability there beats every word of any cluster (each at most its
        cluster's probability, which is lower).  Only the other rows get the full table."""
        head_output = self.head(input)
        best = argmax(head_output, dim=1)
        in_cluster = best >= self.shortlist_size
        if not bool(in_cluster.any()):
            return best
        if bool(in_cluster.all()):
            return argmax(self._full_log_prob(input, head_output), dim=1)
        best[in_cluster] = argmax(self._full_log_prob(input[in_cluster], head_output[in_cluster]), dim=1)
        return best
