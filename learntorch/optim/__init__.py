"""``learntorch.optim``: optimizers (SGD, Adam, AdamW, Adagrad, RMSprop, Adadelta, Adamax, NAdam, RAdam,
ASGD, LBFGS) and learning-rate schedulers.

Each optimizer follows PyTorch's single-tensor (``foreach=False``) algorithm with
the same order of floating-point operations, so a training run gives PyTorch's
numbers step for step.
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD
from .rprop import Rprop
from .adafactor import Adafactor
from .sparse_adam import SparseAdam
from . import swa_utils  # AveragedModel, SWALR, update_bn: weight averaging

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD",
           "LBFGS", "lr_scheduler"]
__all__ += ["Rprop", "Adafactor"]
__all__ += ["SparseAdam", "swa_utils"]
