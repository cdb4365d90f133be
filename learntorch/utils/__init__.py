"""``learntorch.utils``: mirrors ``torch.utils`` (for now only ``data``)."""
from . import data

__all__ = ["data"]
