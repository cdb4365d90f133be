"""``learntorch.nn``: neural-network building blocks (chapter 05).

``Module`` and ``Parameter`` are the core; layers and losses live in
``nn.modules`` (one file per family) and their function forms in
``nn.functional``; ``nn.utils.rnn`` handles ragged sequences.
"""
from . import functional, init, utils
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter
from . import parallel  # noqa: E402  (chapter 08: DataParallel, DistributedDataParallel)
from .parallel import DataParallel
from .uninitialized import UninitializedBuffer, UninitializedParameter  # noqa: E402  (lazy layers' placeholders)

__all__ = ["functional", "init", "utils", "parallel", "Parameter", "Buffer", "DataParallel"] + list(_modules_all)
__all__ += ["UninitializedParameter", "UninitializedBuffer"]
