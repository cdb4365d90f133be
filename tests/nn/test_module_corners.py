"""Corners of nn.Module, Parameter, Function and the optimizer that a probe of real programs
found different from PyTorch 2.13 (each compared with torch here)."""
from __future__ import annotations

import collections
import copy
import warnings
from typing import Any

import pytest

import learntorch as lt
from learntorch.autograd import engine
from conftest import check_both, raises_both


@pytest.mark.parametrize("how", ["dtype", "keyword", "device and dtype", "tensor"])
def test_module_to_refuses_an_integer_dtype(torch_oracle: Any, how: str) -> None:
    def run(T: Any) -> Any:
        m = T.nn.Linear(2, 2)
        {"dtype": lambda: m.to(T.int32), "keyword": lambda: m.to(dtype=T.int64),
         "device and dtype": lambda: m.to("cpu", T.int32), "tensor": lambda: m.to(T.ones(1, dtype=T.int64))}[how]()
    raises_both(run, torch_oracle, match="nn.Module.to only accepts floating point or complex dtypes")


def test_parameter_dict_from_a_plain_dict_is_sorted(torch_oracle: Any) -> None:
    """From a plain dict PyTorch sorts the keys; an OrderedDict or a list of pairs keeps its order."""
    def run(T: Any) -> Any:
        P = T.nn.Parameter
        plain = T.nn.ParameterDict({"w": P(T.ones(1)), "b": P(T.ones(2))})
        ordered = T.nn.ParameterDict(collections.OrderedDict([("w", P(T.ones(1))), ("b", P(T.ones(2)))]))
        pairs = T.nn.ParameterDict([("w", P(T.ones(1))), ("b", P(T.ones(2)))])
        return list(plain.keys()), list(ordered.keys()), list(pairs.keys()), repr(plain)
    check_both(run, torch_oracle)


def test_deepcopy_of_a_model_drops_the_gradients(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        m = T.nn.Linear(2, 2)
        m(T.ones(1, 2)).sum().backward()
        t = T.ones(2, requires_grad=True)
        t.sum().backward()
        clone = copy.deepcopy(m)
        return (clone.weight.grad, copy.deepcopy(m.weight).grad, copy.deepcopy(t).grad,
                type(clone.weight).__name__, clone.weight.requires_grad, T.equal(clone.weight, m.weight))
    check_both(run, torch_oracle)


def test_an_inference_tensor_cannot_require_grad_outside_inference_mode(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        with T.inference_mode():
            t = T.ones(2)
        t.requires_grad_()
    raises_both(run, torch_oracle, match="Setting requires_grad=True on inference tensor outside InferenceMode")


def _function_class(T: Any) -> Any:
    class Identity(T.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x
    return Identity


def test_instantiating_a_function_warns_and_calling_it_raises(torch_oracle: Any) -> None:
    for T in (lt, torch_oracle):
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            f = _function_class(T)()
        with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward method"):
            f(T.ones(1))


def test_duplicate_parameters_in_an_optimizer_warn(torch_oracle: Any) -> None:
    for T in (lt, torch_oracle):
        w = T.nn.Parameter(T.ones(1))
        with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate parameters"):
            T.optim.SGD([w, w], lr=0.1)


def test_backward_with_create_graph_warns_once(monkeypatch: Any) -> None:
    """PyTorch warns once per process (TORCH_WARN_ONCE), so it is checked on learntorch alone."""
    monkeypatch.setattr(engine, "_warned_create_graph", [False])
    x = lt.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (x * x).sum().backward(create_graph=True)
        (x * x).sum().backward(create_graph=True)
        lt.autograd.grad((x * x).sum(), x, create_graph=True)
    assert len(caught) == 1
    assert str(caught[0].message).startswith("Using backward() with create_graph=True will create a reference cycle")
    assert caught[0].filename == __file__
