"""The layers of ``learntorch.nn``, one file per family."""
from .activation import ReLU, Sigmoid, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .linear import Identity, Linear
from .module import Module

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Linear", "Identity", "ReLU", "Sigmoid", "Tanh"]
