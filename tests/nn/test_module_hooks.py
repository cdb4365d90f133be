"""Module hooks and tensor hooks, against real PyTorch.

Hooks are observed by recording *events* — which hook ran, on which module,
with which values — in both libraries and comparing the two logs: the order of
the calls is part of the behaviour (chapter 04 draws it).  Covered: forward pre
hooks (replacing inputs, ``with_kwargs``, a single non-tuple return), forward
hooks (replacing the output, ``with_kwargs``), full backward pre hooks
(replacing ``grad_output``), full backward hooks (values, replacing
``grad_input``, inputs that need no gradient), handles, ``prepend=True``, the
deprecated ``register_backward_hook``, the order across a ``Sequential`` and
for a module called twice, and the notes' tensor-hook example.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import learntorch as lt

from conftest import TORCH_REASON, Close


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason=TORCH_REASON)


def v(x: Any) -> Any:
    """Values of tensors (nested in tuples/lists/dicts): float values as :class:`conftest.Close`
    (equal within ``torch.testing.assert_close``'s tolerances; -0.0 and 0.0 kept apart)."""
    if x is None:
        return None
    if isinstance(x, (tuple, list)):
        return type(x)(v(i) for i in x)
    if isinstance(x, dict):
        return {k: v(i) for k, i in x.items()}
    if hasattr(x, "detach"):
        arr = np.array(x.detach().cpu().numpy(), copy=True)
        values = Close(arr, signed_zeros=True) if arr.dtype.kind == "f" else arr.tolist()
        return (tuple(arr.shape), values, x.requires_grad)
    return x


def run(fn: Callable[[Any], Any], torch: Any) -> Any:
    """``fn(T)`` in both libraries, with warnings recorded; records must be equal."""
    def one(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = v(fn(T))
            except Exception as e:  # noqa: BLE001
                result = ("raises", next(c for c in type(e).__mro__ if c.__module__ == "builtins").__name__,
                          str(e))
        kinds = [(w.category.__name__, str(w.message)[:70]) for w in caught
                 if "reference cycle" not in str(w.message)]
        return result, kinds
    expected = one(torch)
    actual = one(lt)
    assert actual == expected, f"\nlearntorch: {actual}\ntorch:      {expected}"
    return actual


class _Lib:
    """Small modules, built for either library."""

    @staticmethod
    def add(T):
        class Add(T.nn.Module):
            def forward(self, a, b, c=0):
                return a + b * 2 + c
        return Add()

    @staticmethod
    def plus_one(T):
        class PlusOne(T.nn.Module):
            def forward(self, x):
                return x + 1
        return PlusOne()

    @staticmethod
    def two_outputs(T):
        class Two(T.nn.Module):
            def forward(self, x):
                return x * 2, x.exp()
        return Two()


# ============================================================================ forward hooks
def test_hooks_receive_positional_args_only_unless_with_kwargs(torch):
    """Correction 4: for forward(1, 2, c=3) a hook gets args (1, 2); keywords only with with_kwargs=True."""
    def fn(T):
        m, log = _Lib.add(T), []
        m.register_forward_pre_hook(lambda mod, args: log.append(("pre", args)))
        m.register_forward_pre_hook(lambda mod, args, kw: log.append(("pre_kw", args, dict(kw))), with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: log.append(("fwd", args, out)))
        m.register_forward_hook(lambda mod, args, kw, out: log.append(("fwd_kw", args, dict(kw), out)),
                                with_kwargs=True)
        return m(1, 2, c=3), log
    run(fn, torch)


@pytest.mark.parametrize("hook, with_kwargs", [
    (lambda T: lambda mod, args: (args[0] * 10, args[1]), False),          # a tuple replaces the args
    (lambda T: lambda mod, args: T.tensor(5.0), False),                     # a single value is wrapped
    (lambda T: lambda mod, args: None, False),                              # None keeps them
    (lambda T: lambda mod, args, kw: ((args[0], args[1]), {"c": T.tensor(100.0)}), True),
    (lambda T: lambda mod, args, kw: None, True),
    (lambda T: lambda mod, args, kw: 3, True),                              # must be (args, kwargs)
], ids=["tuple", "single", "none", "kwargs", "kwargs-none", "kwargs-bad"])
def test_forward_pre_hook_replaces_inputs(hook, with_kwargs, torch):
    def fn(T):
        m = _Lib.add(T)
        m.register_forward_pre_hook(hook(T), with_kwargs=with_kwargs)
        out = [m(T.tensor(1.0), T.tensor(2.0))]
        if not with_kwargs:  # the same hook on a one-argument module
            one = _Lib.plus_one(T)
            one.register_forward_pre_hook(hook(T))
            out.append(one(T.tensor(1.0)))
        return out
    run(fn, torch)


@pytest.mark.parametrize("kind", ["replace", "keep", "with_kwargs", "sees-replaced-input"])
def test_forward_hook_replaces_output(kind, torch):
    def fn(T):
        m = _Lib.plus_one(T)
        if kind == "replace":
            m.register_forward_hook(lambda mod, args, out: out * 100)
        elif kind == "keep":
            m.register_forward_hook(lambda mod, args, out: None)
        elif kind == "with_kwargs":
            m.register_forward_hook(lambda mod, args, kw, out: (out, sorted(kw)), with_kwargs=True)
        else:
            m.register_forward_pre_hook(lambda mod, args: (args[0] * 3,))
            m.register_forward_hook(lambda mod, args, out: (args, out))
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = m(x)
        first = y[0] if isinstance(y, tuple) else y
        if kind in ("replace", "keep"):
            first.sum().backward()
            return y, x.grad, first.grad_fn.name()
        return y
    run(fn, torch)


def test_prepend_orders_every_kind_of_hook(torch):
    def fn(T):
        m, order = _Lib.plus_one(T), []
        m.register_forward_pre_hook(lambda mod, a: order.append("pre-a"))
        m.register_forward_pre_hook(lambda mod, a: order.append("pre-b"), prepend=True)
        m.register_forward_pre_hook(lambda mod, a, k: order.append("pre-kw"), with_kwargs=True, prepend=True)
        m.register_forward_hook(lambda mod, a, o: order.append("fwd-a"))
        m.register_forward_hook(lambda mod, a, o: order.append("fwd-b"), prepend=True)
        m.register_full_backward_pre_hook(lambda mod, go: order.append("bpre-a"))
        m.register_full_backward_pre_hook(lambda mod, go: order.append("bpre-b"), prepend=True)
        m.register_full_backward_hook(lambda mod, gi, go: order.append("bwd-a"))
        m.register_full_backward_hook(lambda mod, gi, go: order.append("bwd-b"), prepend=True)
        x = T.tensor(1.0, requires_grad=True)
        m(x).backward()
        return order
    run(fn, torch)


def test_removing_hooks_with_handles(torch):
    def fn(T):
        m, log = _Lib.plus_one(T), []
        handles = [m.register_forward_pre_hook(lambda mod, a: log.append("pre")),
                   m.register_forward_hook(lambda mod, a, o: log.append("fwd")),
                   m.register_full_backward_pre_hook(lambda mod, go: log.append("bpre")),
                   m.register_full_backward_hook(lambda mod, gi, go: log.append("bwd"))]
        x = T.tensor(1.0, requires_grad=True)
        m(x).backward()
        out = [list(log)]
        for h in handles[::2]:
            h.remove()
        log.clear()
        m(x).backward()
        out.append(list(log))
        for h in handles:
            h.remove()  # removing twice is harmless
        log.clear()
        m(x).backward()
        out.append(list(log))
        with m.register_forward_hook(lambda mod, a, o: log.append("ctx")):  # a handle is a context manager
            m(x)
        m(x)
        out.append(list(log))
        return out, type(handles[0]).__name__
    run(fn, torch)


# ============================================================================ backward hooks
def test_full_backward_hooks_values_on_linear(torch):
    def fn(T):
        T.manual_seed(0)
        lin, log = T.nn.Linear(3, 2), []
        lin.register_full_backward_pre_hook(lambda m, go: log.append(("bpre", go)))
        lin.register_full_backward_hook(lambda m, gi, go: log.append(("bwd", gi, go)))
        x = T.randn(4, 3, requires_grad=True)
        (lin(x) * T.arange(8.0).reshape(4, 2)).sum().backward()
        return log, x.grad, lin.weight.grad, lin.bias.grad
    run(fn, torch)


@pytest.mark.parametrize("what", ["grad_output", "grad_input", "both", "removed"])
def test_backward_hooks_replace_gradients(what, torch):
    def fn(T):
        T.manual_seed(0)
        lin = T.nn.Linear(3, 2)
        x = T.randn(4, 3, requires_grad=True)
        handles = []
        if what in ("grad_output", "both", "removed"):
            handles.append(lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,)))
        if what in ("grad_input", "both", "removed"):
            handles.append(lin.register_full_backward_hook(lambda m, gi, go: (gi[0] + 1,)))
        if what == "removed":
            for h in handles:
                h.remove()
        lin(x).sum().backward()
        return x.grad, lin.weight.grad, lin.bias.grad
    run(fn, torch)


@pytest.mark.parametrize("inputs", ["first-requires", "second-requires", "number", "kwarg"])
def test_grad_input_with_several_inputs(inputs, torch):
    def fn(T):
        m, seen = _Lib.add(T), []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([3.0, 4.0])
        w = T.tensor([1.0, 5.0])
        if inputs == "first-requires":
            out = m(a, b)
        elif inputs == "second-requires":
            out = m(b, a)
        elif inputs == "number":
            out = m(a, 3.0)
        else:
            out = m(b, b, c=a)  # keyword inputs are not in grad_input
        (out * w).sum().backward()
        return seen, a.grad
    run(fn, torch)


def test_inputs_that_need_no_grad_get_grad_input_none(torch):
    """The hook still runs (with a warning): grad_input is (None,)."""
    def fn(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.Tanh())
        seen = []
        for name, m in model.named_modules():
            m.register_full_backward_hook(lambda mod, gi, go, name=name: seen.append((name, gi, go)))
        model(T.randn(2, 3)).sum().backward()
        return seen
    run(fn, torch)


def test_backward_hook_errors(torch):
    def fn(T):
        out = []
        lin = T.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        try:
            lin(T.ones(1, 2, requires_grad=True)).sum().backward()
        except RuntimeError as e:
            out.append(str(e))
        lin = T.nn.Linear(2, 2)
        lin.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
        try:
            lin(T.ones(1, 2, requires_grad=True)).sum().backward()
        except RuntimeError as e:
            out.append(str(e))
        lin = T.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda m, gi, go: (T.ones(1, 2),))
        try:
            lin(T.ones(1, 2)).sum().backward()
        except RuntimeError as e:
            out.append(str(e))
        return out
    run(fn, torch)


def test_module_with_two_outputs(torch):
    def fn(T):
        m, log = _Lib.two_outputs(T), []
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", go)))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", gi, go)))
        x = T.tensor([0.5, 1.0], requires_grad=True)
        a, b = m(x)
        (a * 3 + b).sum().backward()
        return log, x.grad
    run(fn, torch)


def test_deprecated_register_backward_hook_sees_the_last_operation(torch):
    """Correction 8: it warns (when the module is called) and its grad_input is the last node's."""
    def fn(T):
        T.manual_seed(0)
        lin, seen = T.nn.Linear(3, 2), []
        lin.register_backward_hook(lambda m, gi, go: seen.append(("lin", gi, go)))
        lin(T.randn(4, 3, requires_grad=True)).sum().backward()

        class Two(T.nn.Module):
            def forward(self, x):
                return (x * 2).sum(1)
        two = Two()
        two.register_backward_hook(lambda m, gi, go: seen.append(("two", gi, go)))
        two(T.ones(2, 3, requires_grad=True)).sum().backward()
        try:
            two.register_full_backward_hook(lambda *a: None)
        except RuntimeError as e:
            seen.append(str(e))
        return seen
    run(fn, torch)


# ============================================================================ call order
def _sequential_with_all_hooks(T, log):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
    for name, m in model.named_modules():
        name = name or "root"
        m.register_forward_pre_hook(lambda mod, a, n=name: log.append(("pre", n, [tuple(t.shape) for t in a])))
        m.register_forward_hook(lambda mod, a, o, n=name: log.append(("fwd", n, tuple(o.shape))))
        m.register_full_backward_pre_hook(lambda mod, go, n=name: log.append(("bpre", n, go)))
        m.register_full_backward_hook(lambda mod, gi, go, n=name: log.append(("bwd", n, gi, go)))
    return model


@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_hook_call_order_across_a_sequential(input_requires_grad, torch):
    def fn(T):
        log = []
        model = _sequential_with_all_hooks(T, log)
        x = T.randn(2, 3, requires_grad=input_requires_grad)
        y = model(x)
        y.register_hook(lambda g: log.append(("tensor-hook-on-output", g)))
        log.append("backward")
        y.sum().backward()
        return log, x.grad, [p.grad for p in model.parameters()]
    run(fn, torch)


def test_module_called_twice_in_one_forward(torch):
    """Weight sharing: the hooks fire for each call, and backward visits the calls in reverse."""
    def fn(T):
        T.manual_seed(0)
        lin, log = T.nn.Linear(2, 2), []
        lin.register_forward_pre_hook(lambda m, a: log.append(("pre", a)))
        lin.register_forward_hook(lambda m, a, o: log.append(("fwd", o)))
        lin.register_full_backward_pre_hook(lambda m, go: log.append(("bpre", go)))
        lin.register_full_backward_hook(lambda m, gi, go: log.append(("bwd", gi, go)))
        x = T.randn(1, 2, requires_grad=True)
        out = lin(T.tanh(lin(x)))
        log.append("backward")
        out.sum().backward()
        return log, x.grad, lin.weight.grad, lin.bias.grad
    run(fn, torch)


def test_hooks_on_a_custom_model_with_shared_submodule(torch):
    def fn(T):
        nn = T.nn

        class DynamicNet(nn.Module):  # the syllabus' weight-sharing net, with fixed control flow
            def __init__(self):
                super().__init__()
                self.inp = nn.Linear(2, 3)
                self.middle = nn.Linear(3, 3)
                self.out = nn.Linear(3, 1)

            def forward(self, x):
                h = self.inp(x).clamp(min=0)
                for _ in range(2):
                    h = self.middle(h).clamp(min=0)
                return self.out(h)

        T.manual_seed(1)
        net, log = DynamicNet(), []
        for name, m in net.named_modules():
            m.register_forward_hook(lambda mod, a, o, n=name: log.append(("fwd", n)))
            m.register_full_backward_hook(lambda mod, gi, go, n=name: log.append(("bwd", n, gi)))
        x = T.randn(4, 2, requires_grad=True)
        net(x).pow(2).mean().backward()
        return log, [p.grad for p in net.parameters()]
    run(fn, torch)


# ============================================================================ tensor hooks (the notes' example)
@pytest.mark.parametrize("retain_first", [True, False], ids=["retain_grad-before-hooks", "retain_grad-after-hooks"])
def test_notes_tensor_hook_example(retain_first, torch):
    """a=2, b=3, c=a*b, d=4, e=c*d with hooks on c, d, e.  Correction 11: where retain_grad()
    is called does not matter in PyTorch 2 — .grad of a retained tensor is the value
    after all of its hooks, in both orders."""
    def fn(T):
        log = []
        a = T.tensor(2.0, requires_grad=True)
        b = T.tensor(3.0, requires_grad=True)
        c = a * b
        d = T.tensor(4.0, requires_grad=True)
        e = c * d

        def c_hook(grad):
            log.append(("c_hook", grad.item()))
            return grad + 2

        if retain_first:
            c.retain_grad()
            e.retain_grad()
        c.register_hook(c_hook)
        c.register_hook(lambda grad: log.append(("c_print", grad.item())))
        if not retain_first:
            c.retain_grad()
        d.register_hook(lambda grad: grad + 100)
        if not retain_first:
            e.retain_grad()
        e.register_hook(lambda grad: grad * 2)
        e.backward()
        return log, a.grad.item(), b.grad.item(), c.grad.item(), d.grad.item(), e.grad.item()
    (log, *grads), _ = run(fn, torch)
    assert grads == [30.0, 20.0, 10.0, 112.0, 2.0]


def test_notes_example_after_removing_the_hook(torch):
    def fn(T):
        a = T.tensor(2.0, requires_grad=True)
        b = T.tensor(3.0, requires_grad=True)
        c = a * b
        c.retain_grad()
        h = c.register_hook(lambda grad: grad + 2)
        h.remove()
        (c * 4).backward()
        return a.grad.item(), b.grad.item(), c.grad.item()
    run(fn, torch)


def test_leaf_hooks_and_retain_grad_on_a_leaf(torch):
    def fn(T):
        a = T.tensor(2.0, requires_grad=True)
        a.retain_grad()  # a no-op on a leaf
        a.register_hook(lambda g: g * 3)
        (a * 5).backward()
        return a.grad.item(), a.retains_grad, a.is_leaf
    run(fn, torch)


@pytest.mark.parametrize("how", ["plain", "no_grad-result", "retain_grad"])
def test_hooks_need_requires_grad(how, torch):
    def fn(T):
        if how == "plain":
            return T.tensor(1.0).register_hook(lambda g: g)
        if how == "retain_grad":
            return T.tensor(1.0).retain_grad()
        x = T.tensor(1.0, requires_grad=True)
        with T.no_grad():
            y = x * 2
        return y.register_hook(lambda g: g)
    result, _ = run(fn, torch)
    assert result[:2] == ("raises", "RuntimeError")


@pytest.mark.parametrize("fails", ["forward", "a-later-hook", "nothing"])
def test_always_call_forward_hooks_run_when_forward_raises(fails, torch):
    def fn(T):
        class M(T.nn.Module):
            def forward(self, x):
                if fails == "forward":
                    raise ValueError("boom")
                return x + 1

        m, log = M(), []
        m.register_forward_hook(lambda mod, a, o: log.append(("always", o)), always_call=True)
        m.register_forward_hook(lambda mod, a, kw, o: log.append(("always_kw", o)), always_call=True,
                                with_kwargs=True)
        if fails == "a-later-hook":
            m.register_forward_hook(lambda mod, a, o: 1 / 0)
        m.register_forward_hook(lambda mod, a, o: log.append(("normal", o)))
        try:
            m(T.ones(1))
        except Exception as e:  # noqa: BLE001
            log.append((type(e).__name__, str(e)))
        return log
    run(fn, torch)
