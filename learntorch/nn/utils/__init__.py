"""``learntorch.nn.utils``: helpers around modules and sequences."""
from . import rnn

__all__ = ["rnn"]
