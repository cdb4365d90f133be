"""``learntorch.nn``: neural-network building blocks.

Chapter 01 uses ``nn.functional.normalize`` and ``nn.utils.rnn.pad_sequence``;
modules, layers and losses arrive with chapter 05.
"""
from . import functional, utils

__all__ = ["functional", "utils"]
