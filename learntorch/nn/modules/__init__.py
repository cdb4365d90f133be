"""The layers of ``learntorch.nn``, one file per family."""
from .activation import GELU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .activation import __all__ as _activation_all
from .activation import *  # noqa: F401,F403  (the larger family: LeakyReLU, ELU, SiLU ...)
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, Sequential
from .conv import AdaptiveAvgPool2d, AvgPool2d, Conv2d, Flatten, MaxPool2d, Unflatten
from .conv_variants import Conv1d, ConvTranspose1d, ConvTranspose2d
from .distance import CosineSimilarity, PairwiseDistance
from .loss_margin import *  # noqa: F401,F403  (MarginRankingLoss, TripletMarginLoss, PoissonNLLLoss ...)
from .loss_margin import __all__ as _loss_margin_all
from .parameter_containers import ParameterDict, ParameterList
from .dropout import Dropout, Dropout2d
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss
from .module import Module
from .multihead_attention import MultiheadAttention
from .normalization import LayerNorm
from .groupnorm import GroupNorm
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .dropout import AlphaDropout, Dropout1d, Dropout3d, FeatureAlphaDropout
from .linear import Bilinear, LazyLinear
from .normalization import RMSNorm
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                          TransformerEncoderLayer)
from .pooling import AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, MaxPool1d
from .padding import (CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d,
                      ReflectionPad2d, ReplicationPad1d, ReplicationPad2d, ZeroPad1d, ZeroPad2d)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .fold import Fold, Unfold

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Linear", "Identity", "ReLU", "Sigmoid", "Tanh",
           "GELU", "Softmax", "LogSoftmax", "Dropout", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Embedding",
           "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss"]
__all__ += ["Conv2d", "MaxPool2d", "Flatten", "AvgPool2d", "AdaptiveAvgPool2d", "Unflatten", "Dropout2d",
            "CosineSimilarity", "ParameterList", "ParameterDict", "SmoothL1Loss", "HuberLoss", "KLDivLoss"]
__all__ += [n for n in _activation_all if n not in __all__]
__all__ += ["RNNBase", "RNN", "GRU", "LSTM", "RNNCellBase", "RNNCell", "GRUCell", "LSTMCell"]
__all__ += ["MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
            "TransformerEncoderLayer", "TransformerDecoderLayer"]
__all__ += ["Conv1d", "ConvTranspose1d", "ConvTranspose2d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d"]
__all__ += ["PairwiseDistance"] + _loss_margin_all
__all__ += ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "ZeroPad1d",
            "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d",
            "ReplicationPad2d", "CircularPad1d", "CircularPad2d", "Upsample", "UpsamplingNearest2d",
            "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle", "Fold", "Unfold"]
__all__ += ["EmbeddingBag", "AlphaDropout", "Dropout1d", "Dropout3d", "FeatureAlphaDropout", "Bilinear", "LazyLinear",
            "RMSNorm"]

# 3-D pooling / normalisation / padding, un-pooling, LP pooling, LRN, channel shuffle, lazy norms
from .pooling import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, LPPool1d, LPPool2d,  # noqa: E402
                      LPPool3d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)
from .padding import CircularPad3d, ConstantPad3d, ReflectionPad3d, ReplicationPad3d, ZeroPad3d  # noqa: E402
from .batchnorm import BatchNorm3d, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, SyncBatchNorm  # noqa: E402
from .instancenorm import (InstanceNorm3d, LazyInstanceNorm1d, LazyInstanceNorm2d,  # noqa: E402
                           LazyInstanceNorm3d)
from .normalization import LocalResponseNorm  # noqa: E402
from .channelshuffle import ChannelShuffle  # noqa: E402

__all__ += ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
            "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d", "ZeroPad3d", "ConstantPad3d", "ReflectionPad3d",
            "ReplicationPad3d", "CircularPad3d", "BatchNorm3d", "InstanceNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
            "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LocalResponseNorm",
            "ChannelShuffle", "SyncBatchNorm"]

# 3-D convolutions and the lazy convolutions (in_channels from the first input)
from .conv_variants import Conv3d, ConvTranspose3d  # noqa: E402
from .conv_lazy import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,  # noqa: E402
                        LazyConvTranspose3d)

__all__ += ["Conv3d", "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
            "LazyConvTranspose2d", "LazyConvTranspose3d"]

# a softmax over a large vocabulary, by frequency clusters
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss"]
