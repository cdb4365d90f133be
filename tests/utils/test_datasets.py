"""learntorch.datasets (a learntorch addition, not part of PyTorch): the shipped Iris data."""
from importlib import resources

import numpy as np

import learntorch as torch
from learntorch.datasets import IRIS_CLASSES, IRIS_FEATURES, load_iris


def test_shapes_and_dtypes():
    X, y = load_iris()
    assert tuple(X.shape) == (150, 4) and X.dtype == torch.float32
    assert tuple(y.shape) == (150,) and y.dtype == torch.int64
    assert IRIS_FEATURES == ("sepal_length", "sepal_width", "petal_length", "petal_width")
    assert IRIS_CLASSES == ("setosa", "versicolor", "virginica")


def test_fifty_of_each_class():
    _, y = load_iris()
    assert np.bincount(y.numpy()).tolist() == [50, 50, 50]


def test_known_rows():
    X, y = load_iris()
    np.testing.assert_array_equal(X[0].numpy(), np.array([5.1, 3.5, 1.4, 0.2], dtype=np.float32))
    assert IRIS_CLASSES[y[0].item()] == "setosa"
    np.testing.assert_array_equal(X[-1].numpy(), np.array([5.9, 3.0, 5.1, 1.8], dtype=np.float32))
    assert IRIS_CLASSES[y[-1].item()] == "virginica"


def test_values_finite_and_plausible():
    X, _ = load_iris()
    values = X.numpy()
    assert np.isfinite(values).all()
    assert values.min() == np.float32(0.1) and values.max() == np.float32(7.9)   # cm; Fisher's table


def test_file_is_package_data():
    path = resources.files("learntorch.datasets").joinpath("iris.csv")
    assert path.is_file()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "sepal_length,sepal_width,petal_length,petal_width,species"
    assert len(lines) == 151
    assert resources.files("learntorch.datasets").joinpath("README.md").is_file()
