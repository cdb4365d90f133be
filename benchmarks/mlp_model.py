"""The MLP that both benchmarks train: 784-512-256-10, ReLU, softmax cross-entropy, SGD.

One definition for ``run.py`` (speed against PyTorch and NumPy) and ``train_mlp.py``
(memory and accumulation), so that the two measure the same model from the same
weights.  Each script imports NumPy itself first, after setting the BLAS thread
count, and then this module.
"""
from __future__ import annotations

from typing import Any

import numpy as np

SIZES = (784, 512, 256, 10)
LR = 0.01


def init_weights(seed: int = 0) -> list[np.ndarray]:
    """``nn.Linear``'s default initialisation (uniform in +-1/sqrt(fan_in)), as (out, in) weights and biases."""
    rng = np.random.default_rng(seed)
    out = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        out.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        out.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    return out


def make_model(lib: Any, weights: list[np.ndarray]) -> tuple[Any, Any, Any]:
    """The model in ``lib`` (learntorch or torch) with ``weights``, its SGD optimizer and its loss."""
    layers: list[Any] = []
    for i in range(3):
        lin = lib.nn.Linear(SIZES[i], SIZES[i + 1])
        with lib.no_grad():
            lin.weight.copy_(lib.from_numpy(weights[2 * i].copy()))
            lin.bias.copy_(lib.from_numpy(weights[2 * i + 1].copy()))
        layers += [lin, lib.nn.ReLU()] if i < 2 else [lin]
    model = lib.nn.Sequential(*layers)
    return model, lib.optim.SGD(model.parameters(), lr=LR), lib.nn.CrossEntropyLoss()
