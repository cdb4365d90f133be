"""``learntorch.optim``: optimizers (SGD, Adam, AdamW, Adagrad, RMSprop) and learning-rate schedulers.

Each optimizer follows PyTorch's single-tensor (``foreach=False``) algorithm with
the same order of floating-point operations, so a training run gives PyTorch's
numbers step for step.
"""
from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "lr_scheduler"]
