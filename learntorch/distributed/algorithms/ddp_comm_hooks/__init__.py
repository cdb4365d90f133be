"""DDP communication hooks: ``default_hooks.allreduce_hook`` and ``fp16_compress_hook``,
for ``DistributedDataParallel.register_comm_hook(state, hook)``."""
from . import default_hooks

__all__ = ["default_hooks"]
