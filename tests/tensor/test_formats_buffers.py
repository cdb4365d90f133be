"""Memory formats, ``nn.Buffer``, ``share_memory_``/``is_shared`` and ``requires_grad_``'s
argument check, against PyTorch.

* Memory formats: ``torch.channels_last`` & co. are accepted wherever PyTorch takes them and
  give the *same strides* as PyTorch (learntorch really lays the NumPy array out as NHWC);
  the values never change with the layout.
* ``nn.Buffer``: assigning one to a module attribute registers a buffer (persistent or not).
* ``share_memory_``: a no-op mark in learntorch's single process; ``is_shared`` reports it
  for the storage (views and ``detach`` too), as PyTorch does.
* ``requires_grad_(1)``: PyTorch's TypeError, not a silent ``True``.
"""
from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, raises_both

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


# ---------------------------------------------------------------------------- memory formats
def test_memory_format_objects_print_and_copy_like_torch(torch_oracle: Any) -> None:
    for name in FORMATS:
        fmt, t_fmt = getattr(lt, name), getattr(torch_oracle, name)
        assert repr(fmt) == repr(t_fmt) == str(fmt) == f"torch.{name}"
        assert isinstance(fmt, lt.memory_format)
        assert copy.deepcopy(fmt) is fmt and pickle.loads(pickle.dumps(fmt)) is fmt
    raises_both(lambda T: T.memory_format(), torch_oracle, match="cannot create")


SHAPES = [("nchw", (2, 3, 4, 5)), ("one_channel", (2, 1, 3, 3)), ("one_pixel", (2, 3, 1, 1))]


@pytest.mark.parametrize("shape", [s for _, s in SHAPES], ids=[n for n, _ in SHAPES])
def test_channels_last_strides_and_flags_match_torch(torch_oracle: Any, shape: tuple) -> None:
    def run(T: Any) -> list:
        x = T.arange(float(np.prod(shape))).reshape(shape)
        y = x.contiguous(memory_format=T.channels_last)
        out = [y, y.stride(), y.is_contiguous(), y.is_contiguous(memory_format=T.channels_last),
               y.contiguous(memory_format=T.channels_last) is y, y.contiguous().stride(),
               y.clone().stride(), y.clone(memory_format=T.contiguous_format).stride(),
               T.clone(x, memory_format=T.channels_last).stride(), (y * 2 + 1).stride(),
               x.to(memory_format=T.channels_last).stride(), y.to(memory_format=T.channels_last) is y,
               x.to(T.float64, memory_format=T.channels_last).stride(),
               y.to(memory_format=T.contiguous_format).stride(), y.reshape(shape[0], -1).stride(),
               y.permute(0, 2, 3, 1).is_contiguous(), y[:, :1].clone().stride()]
        return out
    check_both(run, torch_oracle, exact=True)


def test_channels_last_values_and_gradients_are_unchanged(torch_oracle: Any) -> None:
    def run(T: Any) -> list:
        x = (T.arange(120.0).reshape(2, 3, 4, 5) / 10).requires_grad_()
        y = x.contiguous(memory_format=T.channels_last)
        c = x.clone(memory_format=T.channels_last)
        t = x.to(memory_format=T.channels_last)
        (y.sin().sum() + (c * t).sum()).backward()
        return [y, c, t, x.grad, bool((y == x).all()), y.sum((1, 2))]
    check_both(run, torch_oracle)


def test_channels_last_3d(torch_oracle: Any) -> None:
    def run(T: Any) -> list:
        z = T.arange(72.0).reshape(2, 3, 2, 2, 3).contiguous(memory_format=T.channels_last_3d)
        return [z, z.stride(), z.is_contiguous(memory_format=T.channels_last_3d),
                z.is_contiguous(memory_format=T.channels_last), T.ones(2, 3, 4, 5).is_contiguous(
                    memory_format=T.channels_last_3d)]
    check_both(run, torch_oracle, exact=True)


def test_memory_format_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.ones(2, 3).contiguous(memory_format=T.channels_last), torch_oracle,
                match="required rank 4 tensor to use channels_last format")
    raises_both(lambda T: T.ones(2, 3, 4, 5).clone(memory_format=T.channels_last_3d), torch_oracle,
                match="required rank 5 tensor to use channels_last_3d format")
    raises_both(lambda T: T.ones(2, 3).to(memory_format=T.channels_last), torch_oracle, match="required rank 4")
    raises_both(lambda T: T.ones(2, 3).t().contiguous(memory_format=T.preserve_format), torch_oracle,
                match="preserve memory format is unsupported by the contiguous operator")
    raises_both(lambda T: T.ones(2, 3).contiguous(memory_format="channels_last"), torch_oracle,
                match=r"contiguous\(\): argument 'memory_format' must be torch.memory_format, not str")
    raises_both(lambda T: T.ones(2, 3).is_contiguous(memory_format=None), torch_oracle,
                match="must be torch.memory_format, not NoneType")
    check_both(lambda T: [T.ones(2, 3).is_contiguous(memory_format=T.channels_last),
                          T.ones(2, 3).t().is_contiguous(memory_format=T.preserve_format),
                          T.ones(2, 3).clone(memory_format=None).stride()], torch_oracle)


def test_like_functions_accept_memory_format(torch_oracle: Any) -> None:
    """``zeros_like(..., memory_format=...)`` is accepted and the values are PyTorch's.  (Their
    strides stay row-major in learntorch: the factories do not arrange layouts.)"""
    def run(T: Any) -> list:
        x = T.ones(2, 3, 4, 4)
        fmt = T.channels_last
        return [T.zeros_like(x, memory_format=fmt), T.ones_like(x, memory_format=fmt),
                T.full_like(x, 2.0, memory_format=fmt), T.empty_like(x, memory_format=fmt).shape]
    check_both(run, torch_oracle)


def test_module_to_channels_last(torch_oracle: Any) -> None:
    """``model.to(memory_format=torch.channels_last)``: the 4-D weights become NHWC, the rest stay."""
    x = np.random.default_rng(3).standard_normal((2, 3, 6, 6)).astype(np.float32)

    def run(T: Any) -> list:
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Conv2d(3, 4, 3), T.nn.ReLU(), T.nn.Flatten(), T.nn.Linear(64, 2))
        assert model.to(memory_format=T.channels_last) is model
        conv, linear = model[0], model[3]
        out = model(T.tensor(x).contiguous(memory_format=T.channels_last))
        return [conv.weight.stride(), conv.weight.is_contiguous(memory_format=T.channels_last),
                conv.bias.stride(), linear.weight.stride(), out]
    check_both(run, torch_oracle, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------- nn.Buffer
def test_buffer_is_a_marked_tensor(torch_oracle: Any) -> None:
    def run(T: Any) -> list:
        src = T.ones(3)
        b = T.nn.Buffer(src, persistent=False)
        b.add_(1)  # shares src's memory (a detached alias)
        g = T.nn.Buffer(T.ones(2, requires_grad=True))
        return [type(b).__name__, b.persistent, isinstance(b, T.nn.Buffer), isinstance(src * 1, T.nn.Buffer),
                src, g.requires_grad, g.is_leaf, T.nn.Buffer().shape, repr(b)]
    check_both(run, torch_oracle)


def test_assigning_a_buffer_registers_it(torch_oracle: Any) -> None:
    def run(T: Any) -> list:
        class Norm(T.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.scale = T.nn.Parameter(T.ones(2))
                self.running = T.nn.Buffer(T.zeros(2))
                self.scratch = T.nn.Buffer(T.ones(2), persistent=False)

            def forward(self, x: Any) -> Any:
                return (x - self.running) * self.scale
        m = Norm()
        out = [list(m.state_dict()), [n for n, _ in m.named_buffers()], [n for n, _ in m.named_parameters()],
               type(m.running).__name__]
        m.running = T.full((2,), 0.5)  # a plain tensor onto a buffer: stays a buffer
        m.scratch = T.nn.Buffer(T.ones(2))  # a Buffer again: now persistent
        m.to(T.float64)
        out += [list(m.state_dict()), m.running.dtype, m(T.ones(2, dtype=T.float64))]
        return out
    check_both(run, torch_oracle)


def test_buffer_assignment_errors(torch_oracle: Any) -> None:
    class Early:
        def __init__(self, T: Any) -> None:
            class M(T.nn.Module):
                def __init__(self) -> None:
                    self.b = T.nn.Buffer(T.ones(1))
            M()

    def onto_parameter(T: Any) -> None:
        lin = T.nn.Linear(2, 2)
        lin.weight = T.nn.Buffer(T.ones(2, 2))

    def onto_attribute(T: Any) -> None:
        m = T.nn.Module()
        m.x = 5
        m.x = T.nn.Buffer(T.ones(1))
    raises_both(Early, torch_oracle, match="cannot assign buffer before Module.__init__")
    raises_both(onto_parameter, torch_oracle, match="as parameter 'weight'")
    raises_both(onto_attribute, torch_oracle, match="attribute 'x' already exists")
    raises_both(lambda T: T.nn.Buffer([1.0, 2.0]), torch_oracle, match="has no attribute 'detach'")


# ---------------------------------------------------------------------------- shared memory
def test_share_memory_marks_the_storage(torch_oracle: Any) -> None:
    def run(T: Any) -> list:
        a = T.ones(3)
        early_view = a[1:]
        out = [a.is_shared(), a.share_memory_() is a, a.is_shared(), early_view.is_shared(), a[:2].is_shared(),
               a.detach().is_shared(), a.clone().is_shared(), a.add_(1).is_shared()]
        a.data = T.zeros(3)  # new storage: not shared
        out.append(a.is_shared())
        model = T.nn.Linear(2, 2)
        out += [model.share_memory() is model, all(p.is_shared() for p in model.parameters()),
                T.nn.Linear(2, 2).weight.is_shared(), T.ones(2, 3).t().share_memory_().is_shared()]
        return out
    check_both(run, torch_oracle)


# ---------------------------------------------------------------------------- requires_grad_'s argument
@pytest.mark.parametrize("value", [1, 0, "yes", None, np.bool_(True), 1.0], ids=repr)
def test_requires_grad_needs_a_bool(torch_oracle: Any, value: Any) -> None:
    kind = type(value).__name__ if type(value).__module__ == "builtins" else "numpy.bool"
    raises_both(lambda T: T.ones(2).requires_grad_(value), torch_oracle,
                match=rf"^requires_grad_\(\): argument 'requires_grad' \(position 1\) must be bool, not {kind}$")
    raises_both(lambda T: T.ones(2).requires_grad_(requires_grad=value), torch_oracle,
                match=rf"^requires_grad_\(\): argument 'requires_grad' must be bool, not {kind}$")

    def setter(T: Any) -> None:
        T.ones(2).requires_grad = value
    raises_both(setter, torch_oracle, match="^requires_grad must be a bool$")
    raises_both(lambda T: T.nn.Linear(2, 2).requires_grad_(value), torch_oracle, match="must be bool")
    raises_both(lambda T: T.nn.Parameter(T.ones(1), requires_grad=value), torch_oracle, match="must be bool")


def test_requires_grad_bool_forms_still_work(torch_oracle: Any) -> None:
    def run(T: Any) -> list:
        a, b = T.ones(2).requires_grad_(), T.ones(2).requires_grad_(requires_grad=True)
        c = T.ones(2, requires_grad=True).requires_grad_(False)
        d = T.ones(2)
        d.requires_grad = True
        return [a, b, c, d, (a * 2).requires_grad_(True)]
    check_both(run, torch_oracle)
    raises_both(lambda T: T.ones(2).requires_grad_(True, True), torch_oracle, match="positional argument")
    raises_both(lambda T: T.ones(2).requires_grad_(foo=True), torch_oracle,
                match="got an unexpected keyword argument 'foo'")
    raises_both(lambda T: T.ones(2).requires_grad_(T.tensor(True)), torch_oracle, match="must be bool, not Tensor")
