"""``learntorch.utils``: mirrors ``torch.utils`` (``data``, ``checkpoint`` and ``hooks``)."""
from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
