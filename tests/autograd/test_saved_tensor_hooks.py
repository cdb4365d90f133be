"""PyTorch 2's autograd hooks and features against torch: register_post_accumulate_grad_hook,
autograd.graph.saved_tensors_hooks / save_on_cpu, grad_fn._saved_* / _raw_saved_*,
and inference tensors (is_inference, refused for backward and in-place changes)."""
from __future__ import annotations

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, raises_both

rng = np.random.default_rng(9)
A = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((2, 3)).astype(np.float32)


def _ab(T):
    return T.tensor(A, requires_grad=True), T.tensor(B, requires_grad=True)


# ----------------------------------------------------------------------------- post-accumulate-grad hooks
def test_post_accumulate_grad_hook_order_and_argument(torch_oracle):
    def run(T):
        w = T.ones(2, requires_grad=True)
        order = []
        w.register_hook(lambda g: order.append(("hook", g.tolist())))
        h = w.register_post_accumulate_grad_hook(lambda p: order.append(("post", p is w, p.grad.tolist())))
        w.register_post_accumulate_grad_hook(lambda p: order.append("post2"))
        (w * 3).sum().backward()
        (w * 2).sum().backward()  # accumulates: the hook sees the sum
        T.autograd.grad((w * 3).sum(), w)  # accumulates nothing: no post hook
        h.remove()
        (w * 1).sum().backward()
        return order
    assert run(lt) == run(torch_oracle)


def test_post_accumulate_grad_hook_steps_an_optimizer_in_backward(torch_oracle):
    def run(T):
        T.manual_seed(0)
        model = T.nn.Linear(3, 2)
        opts = {p: T.optim.SGD([p], lr=0.1) for p in model.parameters()}

        def step(p):
            opts[p].step()
            opts[p].zero_grad()
        for p in model.parameters():
            p.register_post_accumulate_grad_hook(step)
        model(T.tensor(A)).pow(2).sum().backward()
        return [p.detach().clone() for p in model.parameters()]
    assert_same(run(lt), run(torch_oracle))


@pytest.mark.parametrize("fn, match", [
    (lambda T: (T.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda p: None),
     "post accumulate grad hooks cannot be registered on non-leaf tensors"),
    (lambda T: T.ones(2).register_post_accumulate_grad_hook(lambda p: None),
     "cannot register a hook on a tensor that doesn't require gradient"),
])
def test_post_accumulate_grad_hook_errors(torch_oracle, fn, match):
    raises_both(fn, torch_oracle, match=match)


def test_post_accumulate_grad_hook_must_return_none(torch_oracle):
    def fn(T):
        w = T.ones(2, requires_grad=True)
        w.register_post_accumulate_grad_hook(lambda p: 5)
        (w * 3).sum().backward()
    raises_both(fn, torch_oracle, match="hook returned 'int'")


# ----------------------------------------------------------------------------- saved tensor hooks
def test_saved_tensors_hooks_see_builtin_and_custom_saves(torch_oracle):
    def run(T):
        class Square(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        a, b = _ab(T)
        log = []

        def pack(x):
            log.append(("pack", tuple(x.shape)))
            return x * 2  # what is kept is what the hooks make of it

        def unpack(x):
            log.append(("unpack", tuple(x.shape)))
            return x / 2
        with T.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = Square.apply((a * b).exp()).sum()
        z = (a * b).sum()  # outside: no hooks
        (y + z).backward()
        return log, a.grad, b.grad
    got, want = run(lt), run(torch_oracle)
    assert got[0] == want[0] and len(got[0]) == 8  # a, b (mul), exp's result, Square's x; packed and unpacked
    assert_same(got[1:], want[1:])


def test_innermost_hooks_apply(torch_oracle):
    def run(T):
        a, b = _ab(T)
        log = []
        with T.autograd.graph.saved_tensors_hooks(lambda x: log.append("outer") or x, lambda x: x):
            with T.autograd.graph.saved_tensors_hooks(lambda x: log.append("inner") or x, lambda x: x):
                y = a * b
            z = a.exp()
        (y.sum() + z.sum()).backward()
        return log
    assert run(lt) == run(torch_oracle)


def test_save_on_cpu_gives_the_same_gradients(torch_oracle):
    def run(T):
        a, b = _ab(T)
        with T.autograd.graph.save_on_cpu(pin_memory=False):
            y = (a * b).exp().sum()
        y.backward()
        return a.grad, b.grad
    assert_same(run(lt), run(torch_oracle))


def test_disable_saved_tensors_hooks(torch_oracle):
    def fn(T):
        with T.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with T.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
    raises_both(fn, torch_oracle, match="no hooks here")


# ----------------------------------------------------------------------------- _saved_* attributes
SAVED = {
    "mul": (lambda T, a, b: a * b, ["_saved_self", "_saved_other"]),
    "mul_constant": (lambda T, a, b: a * b.detach(), ["_saved_self", "_saved_other"]),
    "mul_number": (lambda T, a, b: a * 2, ["_saved_self", "_saved_other"]),
    "div": (lambda T, a, b: a / b, ["_saved_self", "_saved_other"]),
    "pow_number": (lambda T, a, b: a ** 2, ["_saved_self", "_saved_exponent"]),
    "pow_tensor": (lambda T, a, b: a.abs() ** b, ["_saved_self", "_saved_exponent", "_saved_result"]),
    "mm": (lambda T, a, b: a.mm(b.t()), ["_saved_self", "_saved_mat2"]),
    "addmm": (lambda T, a, b: T.addmm(T.zeros(2), a, b.t()), ["_saved_mat1", "_saved_mat2", "_saved_alpha",
                                                              "_saved_beta"]),
    "exp": (lambda T, a, b: a.exp(), ["_saved_result"]),
    "sum": (lambda T, a, b: a.sum(), ["_saved_self_sym_sizes"]),
    "sum_dim": (lambda T, a, b: a.sum(1, keepdim=True), ["_saved_self_sym_sizes", "_saved_dim",
                                                         "_saved_keepdim"]),
}


@pytest.mark.parametrize("name", sorted(SAVED))
def test_saved_attributes(torch_oracle, name):
    fn, attrs = SAVED[name]

    def run(T):
        a, b = _ab(T)
        out = fn(T, a, b)
        values = [getattr(out.grad_fn, n) for n in attrs]
        return [tuple(v) if type(v).__name__ == "Size" or isinstance(v, tuple) else v for v in values]
    assert_same(run(lt), run(torch_oracle), check_grad_fn=False)


def test_saved_inputs_are_the_inputs_themselves(torch_oracle):
    for T in (torch_oracle, lt):
        a, b = _ab(T)
        g = (a * b).grad_fn
        assert g._saved_self is a and g._saved_other is b


@pytest.mark.parametrize("fn, attr", [
    (lambda T, a, b: a * b, "_saved_self"),
    (lambda T, a, b: a * 2, "_saved_other"),  # a number operand is saved as a tensor: freed too
    (lambda T, a, b: a / 3.0, "_saved_other"),
], ids=["mul-self", "mul-number", "div-number"])
def test_saved_values_are_freed_after_backward(torch_oracle, fn, attr):
    def run(T):
        a, b = _ab(T)
        y = fn(T, a, b)
        y.sum().backward()
        return getattr(y.grad_fn, attr)
    raises_both(run, torch_oracle, match="Trying to backward through the graph a second time")


def test_pack_hook_may_not_change_its_input_in_place(torch_oracle):
    def run(T):
        a, b = _ab(T)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t.mul_(2), lambda t: t):
            c = a * 1
            return c * b
    raises_both(run, torch_oracle, match="^A saved tensor pack hook is modifying its input in place. Tensors "
                                         "provided as input to pack hook cannot be modified")


def test_gradient_edge_as_an_input_of_autograd_grad(torch_oracle):
    """``get_gradient_edge(y)``: the gradient flowing into ``y``'s node, asked for by edge."""
    def run(T):
        a, b = _ab(T)
        y = a * b
        z = y.sin().sum()
        edge = T.autograd.graph.get_gradient_edge(y)
        leaf_edge = T.autograd.graph.get_gradient_edge(a)
        return (type(edge).__name__, edge.node.name(), edge.output_nr, leaf_edge.node.name(),
                T.autograd.grad(z, [edge, a]))
    assert_same(run(lt), run(torch_oracle))
    raises_both(lambda T: T.autograd.graph.get_gradient_edge(T.ones(2)), torch_oracle,
                match="does not require gradients")


def test_raw_saved_tensor_register_hooks(torch_oracle):
    def run(T):
        a, b = _ab(T)
        y = a * b
        y.grad_fn._raw_saved_self.register_hooks(lambda x: x * 10, lambda x: x)
        seen = y.grad_fn._saved_self.detach()
        y.sum().backward()
        return seen, b.grad, a.grad
    assert_same(run(lt), run(torch_oracle), check_grad_fn=False)

    def twice(T):
        a, b = _ab(T)
        raw = (a * b).grad_fn._raw_saved_self
        raw.register_hooks(lambda x: x, lambda x: x)
        raw.register_hooks(lambda x: x, lambda x: x)
    raises_both(twice, torch_oracle, match="whose hooks have already been set")
    raises_both(lambda T: (lambda a, b: a * b)(*_ab(T)).grad_fn._raw_saved_other.register_hooks(lambda x: x, 3),
                torch_oracle,
                match="register_hooks\\(\\): incompatible function arguments")


def test_unknown_saved_name_is_an_attribute_error(torch_oracle):
    raises_both(lambda T: (_ab(T)[0] * 2).grad_fn._saved_nothing, torch_oracle, match="_saved_nothing")


# ----------------------------------------------------------------------------- inference tensors
def test_inference_tensors(torch_oracle):
    def run(T):
        a, _ = _ab(T)
        with T.inference_mode():
            t = T.ones(3)
            inside = [T.is_inference_mode_enabled(), (a * 2).requires_grad, (a * 2).is_inference()]
            with T.inference_mode(False):
                inside += [T.is_inference_mode_enabled(), T.ones(1).is_inference()]
        with T.no_grad():
            n = T.ones(1)
        return inside + [t.is_inference(), a.is_inference(), n.is_inference(), t.clone().is_inference(),
                         T.is_inference_mode_enabled()]
    assert run(lt) == run(torch_oracle) == [True, False, True, False, False, True, False, False, False, False]


def test_inference_tensor_cannot_be_saved_for_backward(torch_oracle):
    def fn(T):
        a, _ = _ab(T)
        with T.inference_mode():
            t = T.ones(2, 3)
        return a * t
    raises_both(fn, torch_oracle, match="Inference tensors cannot be saved for backward.*make a clone")

    def clone_works(T):
        a, _ = _ab(T)
        with T.inference_mode():
            t = T.full((2, 3), 2.0)
        (a * t.clone()).sum().backward()
        return a.grad
    assert_same(clone_works(lt), clone_works(torch_oracle))


def test_inference_tensor_in_place_outside_inference_mode(torch_oracle):
    def fn(T):
        with T.inference_mode():
            t = T.ones(2)
        t.add_(1)
    raises_both(fn, torch_oracle, match="Inplace update to inference tensor outside InferenceMode")

    def inside(T):
        with T.inference_mode():
            t = T.ones(2)
            t.add_(1)
        return t
    assert_same(inside(lt), inside(torch_oracle))
