"""The layers of ``learntorch.nn``, one file per family."""
from .activation import GELU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, Sequential
from .dropout import Dropout
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .normalization import LayerNorm
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Linear", "Identity", "ReLU", "Sigmoid", "Tanh",
           "GELU", "Softmax", "LogSoftmax", "Dropout", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Embedding",
           "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss"]
__all__ += ["RNNBase", "RNN", "GRU", "LSTM", "RNNCellBase", "RNNCell", "GRUCell", "LSTMCell"]
