"""``learntorch.utils``: mirrors ``torch.utils`` (``data`` and ``checkpoint``)."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
