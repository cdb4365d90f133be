"""Small real data sets shipped with learntorch, for the course's examples.

This module is a **learntorch addition**: PyTorch has no ``torch.datasets`` (real data sets come from
torchvision, torchaudio, … or your own code). The files are package data, read with
:mod:`importlib.resources`, so they load from an installed wheel as well as from the repository, with no
download. See ``README.md`` in this folder for the sources and the columns.
"""
from __future__ import annotations

import io
from importlib import resources

import numpy as np

from ..creation import from_numpy
from ..tensor import Tensor

__all__ = ["IRIS_CLASSES", "IRIS_FEATURES", "load_iris"]

#: The feature columns of ``iris.csv``, in order (all in cm).
IRIS_FEATURES: tuple[str, ...] = ("sepal_length", "sepal_width", "petal_length", "petal_width")
#: The species; a label ``k`` of :func:`load_iris` means ``IRIS_CLASSES[k]``.
IRIS_CLASSES: tuple[str, ...] = ("setosa", "versicolor", "virginica")


def load_iris() -> tuple[Tensor, Tensor]:
    """Fisher's Iris data (1936): 150 flowers, 50 of each of three species.

    Returns ``(features, labels)``: ``features`` float32 of shape (150, 4), the columns of
    :data:`IRIS_FEATURES` in cm; ``labels`` int64 of shape (150,), the index of each flower's species in
    :data:`IRIS_CLASSES`. Rows are in the file's order (setosa, then versicolor, then virginica), so shuffle
    before splitting into training and test sets.
    """
    text = resources.files(__name__).joinpath("iris.csv").read_text(encoding="utf-8")
    lines = text.splitlines()
    header = tuple(lines[0].split(","))
    if header != IRIS_FEATURES + ("species",):
        raise RuntimeError(f"iris.csv: unexpected header {header}")
    table = np.loadtxt(io.StringIO("\n".join(lines[1:])), delimiter=",", dtype=str)
    features = table[:, :4].astype(np.float32)
    labels = np.array([IRIS_CLASSES.index(name) for name in table[:, 4]], dtype=np.int64)
    return from_numpy(np.ascontiguousarray(features)), from_numpy(labels)
