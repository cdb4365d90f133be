"""``nn.Module`` and the first layers, against real PyTorch.

Each test builds the same thing with ``learntorch`` and with ``torch`` (one
function ``fn(T)`` taking the library as argument) and compares a plain-Python
*record* of what happened: names, orders, flags, reprs, error types and
messages, and tensors as (type, dtype, shape, values, requires_grad).  Float
values (tensors' and Python floats) are recorded as :class:`conftest.Close`, equal
when they agree to ``torch.testing.assert_close``'s tolerances for their dtype, never
rounded: 1.00031 and 1.0003 are the same number on two CPUs.  Covered: registration
(assignment, ``add_module``, ``register_buffer``, ``register_parameter`` with
``None``), its errors, iteration with dotted names and de-duplication,
``train``/``eval``, ``zero_grad``, ``to``, ``apply``, ``requires_grad_``,
``state_dict``/``load_state_dict`` (exact messages), reprs, the containers, and
``Linear``'s initialisation with the same seed.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

import numpy as np
import pytest

import learntorch as lt

from conftest import TORCH_REASON, Close


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason=TORCH_REASON)


def _builtin(exc: BaseException) -> str:
    return next(c for c in type(exc).__mro__ if c.__module__ == "builtins").__name__


def record(x: Any) -> Any:
    """A comparable plain-Python picture of ``x`` (for either library)."""
    if hasattr(x, "detach") and hasattr(x, "requires_grad"):  # a tensor of either library
        arr = np.array(x.detach().cpu().numpy(), copy=True)
        values = Close(arr) if arr.dtype.kind == "f" else arr.tolist()
        return (type(x).__name__, str(x.dtype), tuple(x.shape), values, x.requires_grad, x.is_leaf)
    if isinstance(x, (float, np.floating)):
        return Close(float(x))
    if isinstance(x, OrderedDict):
        return ("OrderedDict", [(k, record(v)) for k, v in x.items()])
    if isinstance(x, dict):
        return {k: record(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # named tuples (_IncompatibleKeys)
        return (type(x).__name__, repr(x), tuple(record(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(record(v) for v in x)
    if type(x).__name__ in ("dtype", "device", "Size"):
        return str(x)
    if hasattr(x, "named_parameters"):  # a module
        return ("module", repr(x))
    return x


def outcome(fn: Callable[[], Any]) -> Any:
    """``fn()``'s record, or ``("raises", builtin type, message)``."""
    try:
        return record(fn())
    except Exception as e:  # noqa: BLE001 - the point is to compare the exception
        return ("raises", _builtin(e), str(e))


def same(fn: Callable[[Any], Any], torch: Any) -> Any:
    """``fn(learntorch)`` and ``fn(torch)`` must give equal records."""
    expected = outcome(lambda: fn(torch))
    actual = outcome(lambda: fn(lt))
    assert actual == expected, f"\nlearntorch: {actual}\ntorch:      {expected}"
    return actual


# ============================================================================ models used below
def make_net(T: Any) -> Any:
    """A model with everything: nested containers, a shared module, a tied parameter,
    persistent / non-persistent / None buffers, a None parameter."""
    nn = T.nn
    T.manual_seed(0)
    shared = nn.Linear(2, 2)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), shared)
            self.dec = shared
            self.blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.Tanh()])
            self.heads = nn.ModuleDict({"a": nn.Sigmoid(), "b": nn.Linear(2, 1, bias=False)})
            self.register_buffer("running", T.zeros(2))
            self.register_buffer("tmp", T.ones(1), persistent=False)
            self.register_buffer("nothing", None)
            self.register_parameter("absent", None)
            self.scale = nn.Parameter(T.ones(1))
            self.tied = self.enc[0].weight

        def forward(self, x):
            h = self.enc(x)
            for block in self.blocks:
                h = block(h)
            return self.dec(h) * self.scale + self.running

    return Net()


def make_mlp(T: Any, seed: int = 0) -> Any:
    T.manual_seed(seed)
    return T.nn.Sequential(T.nn.Linear(3, 5), T.nn.ReLU(), T.nn.Linear(5, 2))


# ============================================================================ registration
def test_registration_by_assignment(torch):
    def fn(T):
        nn = T.nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(T.ones(2))
                self.lin = nn.Linear(2, 2)
                self.plain = T.zeros(3)       # a plain tensor attribute is NOT registered
                self.number = 3
                self.register_buffer("buf", T.arange(3))
                self.add_module("extra", nn.ReLU())

        m = M()
        out = [list(m._parameters), list(m._modules), list(m._buffers),
               sorted(k for k in ("w", "lin", "buf", "extra", "plain", "number") if k in m.__dict__),
               [n for n, _ in m.named_parameters()], list(m.state_dict())]
        m.w = None                            # a parameter slot may hold None
        m.buf = T.ones(3)                     # assigning a tensor to a buffer name replaces the buffer
        m.lin = nn.Tanh()                     # a module replaces a module
        m.plain = nn.Parameter(T.ones(1))     # a Parameter over a plain attribute registers it
        m.extra = None
        out += [list(m._parameters.items())[0], list(m._buffers.values()), repr(m), "plain" in m.__dict__,
                [n for n, _ in m.named_parameters()], list(m.state_dict()), m.extra]
        del m.plain
        del m.buf
        del m.lin
        out += [list(m._parameters), list(m._buffers), list(m._modules), hasattr(m, "plain")]
        return out
    same(fn, torch)


def test_none_parameters_and_buffers_and_non_persistent_buffers(torch):
    def fn(T):
        nn = T.nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_parameter("p", None)
                self.register_buffer("none", None)
                self.register_buffer("temp", T.ones(2), persistent=False)
                self.register_buffer("kept", T.zeros(1))
                self.child = None

        m = M()
        out = [m.p, m.none, m.child, list(m.state_dict()), [n for n, _ in m.named_buffers()],
               list(m.parameters()), list(m.children()), repr(m), m.load_state_dict({"kept": T.ones(1)})]
        m.register_buffer("temp", T.zeros(2))  # re-registering as persistent
        out.append(list(m.state_dict()))
        m.register_buffer("kept", T.ones(1), persistent=False)
        out.append(list(m.state_dict()))
        return out
    same(fn, torch)


def test_linear_without_bias_registers_none(torch):
    same(lambda T: (lambda l: [l.bias, list(l._parameters), list(l.state_dict()), repr(l),
                               [n for n, _ in l.named_parameters()]])(T.nn.Linear(3, 2, bias=False)), torch)


class _Early:
    """Modules that touch registration before ``super().__init__()``."""

    @staticmethod
    def build(T: Any, what: str) -> Any:
        nn = T.nn

        class Early(nn.Module):
            def __init__(self):
                if what == "param":
                    self.w = nn.Parameter(T.ones(1))
                elif what == "module":
                    self.m = nn.Linear(1, 1)
                elif what == "buffer":
                    self.register_buffer("b", T.ones(1))
                elif what == "register_parameter":
                    self.register_parameter("w", None)
                elif what == "tensor":
                    self.t = T.ones(1)  # a plain attribute: allowed even before __init__
                super().__init__()

        return Early()


@pytest.mark.parametrize("what", ["param", "module", "buffer", "register_parameter", "tensor"])
def test_assigning_before_module_init(what, torch):
    same(lambda T: type(_Early.build(T, what)).__name__, torch)


def test_add_module_before_init_is_an_attribute_error(torch):
    """PyTorch's message here is an accident (``no attribute '_modules'``); only the type is compared."""
    def fn(T):
        class Early(T.nn.Module):
            def __init__(self):
                self.add_module("m", None)
                super().__init__()
        return Early()
    with pytest.raises(AttributeError):
        fn(torch)
    with pytest.raises(AttributeError, match="before Module.__init__"):
        fn(lt)


REGISTRATION_ERRORS = {
    "param name with dot": lambda T, m: m.register_parameter("a.b", None),
    "param empty name": lambda T, m: m.register_parameter("", None),
    "param name not str": lambda T, m: m.register_parameter(3, None),
    "buffer name with dot": lambda T, m: m.register_buffer("a.b", None),
    "buffer empty name": lambda T, m: m.register_buffer("", None),
    "buffer name not str": lambda T, m: m.register_buffer(3, None),
    "module name with dot": lambda T, m: m.add_module("a.b", None),
    "module empty name": lambda T, m: m.add_module("", None),
    "module name not str": lambda T, m: m.add_module(3, None),
    "add_module not a module": lambda T, m: m.add_module("x", 3),
    "param over attribute": lambda T, m: m.register_parameter("x", None),
    "buffer over attribute": lambda T, m: m.register_buffer("x", None),
    "module over attribute": lambda T, m: m.add_module("x", None),
    "buffer over training": lambda T, m: m.register_buffer("training", None),
    "param over method": lambda T, m: m.register_parameter("forward", None),
    "register tensor as param": lambda T, m: m.register_parameter("y", T.ones(1)),
    "register int as buffer": lambda T, m: m.register_buffer("y", 3),
    "assign tensor to param": lambda T, m: setattr(m, "p", T.ones(2)),
    "assign double tensor to param": lambda T, m: setattr(m, "p", T.ones(2, dtype=T.float64)),
    "assign int to param": lambda T, m: setattr(m, "p", 3),
    "assign int to child": lambda T, m: setattr(m, "c", 3),
    "assign tensor to child": lambda T, m: setattr(m, "c", T.ones(1, dtype=T.int64)),
    "assign int to buffer": lambda T, m: setattr(m, "b", 3),
    "train with non-bool": lambda T, m: m.train("yes"),
    "missing attribute": lambda T, m: m.nothing,
    "delete missing": lambda T, m: m.__delattr__("zz"),
    "forward missing": lambda T, m: m(T.ones(1)),
    "get_submodule missing": lambda T, m: m.get_submodule("a.b"),
    "get_submodule not a module": lambda T, m: m.get_submodule("x"),
    "get_parameter missing": lambda T, m: m.get_parameter("zz"),
    "get_parameter not a parameter": lambda T, m: m.get_parameter("b"),
    "Module with argument": lambda T, m: T.nn.Module(3),
    "Module with keyword": lambda T, m: T.nn.Module(k=3),
    "load_state_dict list": lambda T, m: m.load_state_dict([1]),
}


@pytest.mark.parametrize("name", list(REGISTRATION_ERRORS))
def test_registration_errors_have_pytorchs_type_and_message(name, torch):
    def fn(T):
        m = T.nn.Module()
        m.x = 5
        m.register_parameter("p", None)
        m.add_module("c", None)
        m.register_buffer("b", T.ones(1))
        return REGISTRATION_ERRORS[name](T, m)
    result = same(fn, torch)
    assert result[0] == "raises"


def test_get_submodule_and_get_parameter(torch):
    same(lambda T: (lambda net: [net.get_submodule("enc.0").__class__.__name__, net.get_submodule("") is net,
                                 net.get_parameter("enc.2.bias"), net.get_parameter("scale")])(make_net(T)), torch)


# ============================================================================ iteration
@pytest.mark.parametrize("what", [
    lambda net: [n for n, _ in net.named_parameters()],
    lambda net: [n for n, _ in net.named_parameters(remove_duplicate=False)],
    lambda net: [n for n, _ in net.named_parameters(prefix="model")],
    lambda net: [n for n, _ in net.named_parameters(recurse=False)],
    lambda net: [n for n, _ in net.named_buffers()],
    lambda net: [n for n, _ in net.named_buffers(prefix="b", recurse=False)],
    lambda net: [n for n, _ in net.named_modules()],
    lambda net: [n for n, _ in net.named_modules(remove_duplicate=False)],
    lambda net: [n for n, _ in net.named_modules(prefix="root")],
    lambda net: [n for n, _ in net.named_children()],
    lambda net: [type(m).__name__ for m in net.children()],
    lambda net: [type(m).__name__ for m in net.modules()],
    lambda net: [tuple(p.shape) for p in net.parameters()],
    lambda net: [tuple(p.shape) for p in net.parameters(recurse=False)],
    lambda net: [tuple(b.shape) for b in net.buffers()],
    lambda net: [n for n, p in net.named_parameters() if p.requires_grad],
    lambda net: [n for n, _ in net.enc.named_parameters()],
    lambda net: [n for n, _ in net.blocks.named_modules()],
], ids=["named_parameters", "no-dedup", "prefix", "no-recurse", "named_buffers", "buffers-prefix",
        "named_modules", "modules-no-dedup", "modules-prefix", "named_children", "children", "modules",
        "parameters", "parameters-no-recurse", "buffers", "requires_grad-filter", "sub-sequential", "sub-list"])
def test_iteration_names_order_and_deduplication(what, torch):
    same(lambda T: what(make_net(T)), torch)


def test_shared_parameters_are_the_same_objects(torch):
    def fn(T):
        net = make_net(T)
        params = dict(net.named_parameters(remove_duplicate=False))
        return [params["tied"] is params["enc.0.weight"], params["dec.weight"] is params["enc.2.weight"],
                len(list(net.parameters())), len(set(map(id, net.parameters())))]
    same(fn, torch)


def test_dir_lists_registered_names(torch):
    same(lambda T: [k in dir(make_net(T)) for k in ("enc", "running", "scale", "absent", "forward", "0")], torch)
    same(lambda T: ["0" in dir(T.nn.Sequential(T.nn.ReLU())), "append" in dir(T.nn.ModuleList())], torch)


# ============================================================================ modes, grads, dtypes
def test_train_eval_flags_are_recursive(torch):
    def fn(T):
        net = make_net(T)
        out = [[m.training for m in net.modules()]]
        out.append(net.eval() is net)
        out.append([m.training for m in net.modules()])
        net.enc.train()
        out.append([m.training for _, m in net.named_modules(remove_duplicate=False)])
        out.append(net.train(False) is net)
        out.append(net.dec.training)
        net.train()
        out.append(all(m.training for m in net.modules()))
        return out
    same(fn, torch)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_zero_grad(torch):
    def fn(T):
        net = make_mlp(T)
        x = T.randn(4, 3)
        net(x).pow(2).sum().backward()
        grads = [p.grad for p in net.parameters()]
        out = [[g is not None for g in grads]]
        net.zero_grad(set_to_none=False)  # zeroed in place: the same tensors, now zeros
        out.append([p.grad is g for p, g in zip(net.parameters(), grads)])
        out.append([p.grad for p in net.parameters()])
        net(x).pow(2).sum().backward()   # accumulates into the zeroed tensors
        out.append([p.grad is g for p, g in zip(net.parameters(), grads)])
        net.zero_grad()                  # default: set_to_none=True
        out.append([p.grad for p in net.parameters()])
        # a .grad with history (create_graph=True) is detached when zeroed in place
        net(x).pow(2).sum().backward(create_graph=True)
        out.append([p.grad.requires_grad for p in net.parameters()])
        net.zero_grad(set_to_none=False)
        out.append([(p.grad.requires_grad, p.grad.grad_fn is None, float(p.grad.abs().sum())) for p in net.parameters()])
        return out
    same(fn, torch)


def test_requires_grad_and_apply(torch):
    def fn(T):
        net = make_net(T)
        out = [net.requires_grad_(False) is net, [p.requires_grad for p in net.parameters()]]
        net.enc.requires_grad_()
        out.append([n for n, p in net.named_parameters() if p.requires_grad])
        calls = []
        out.append(net.apply(lambda m: calls.append(type(m).__name__)) is net)
        out.append(calls)

        def init(m):
            if isinstance(m, T.nn.Linear):
                with T.no_grad():
                    m.weight.fill_(0.5)
        net.apply(init)
        out.append([float(p.detach().sum()) for n, p in net.named_parameters() if n.endswith("weight") or n == "tied"])
        return out
    same(fn, torch)


@pytest.mark.parametrize("convert", [
    lambda m, T: m.to(T.float64), lambda m, T: m.double(), lambda m, T: m.to(dtype=T.float64),
    lambda m, T: m.to("cpu", T.float64), lambda m, T: m.to(device="cpu", dtype=T.float64),
    lambda m, T: m.to(T.zeros(1, dtype=T.float64)), lambda m, T: m.double().float(), lambda m, T: m.half(),
    lambda m, T: m.to("cpu"), lambda m, T: m.cpu(),
], ids=["to-dtype", "double", "dtype-kw", "device-dtype", "kws", "to-tensor", "double-float", "half", "to-cpu",
        "cpu"])
def test_to_keeps_parameter_and_grad_identity(convert, torch):
    def fn(T):
        m = make_mlp(T)
        m.register_buffer("count", T.tensor(3))
        m.register_buffer("scale", T.ones(2))
        m(T.randn(2, 3)).sum().backward()
        params = list(m.parameters())
        grads = [p.grad for p in params]
        out = [convert(m, T) is m]
        out.append([p is q for p, q in zip(m.parameters(), params)])
        out.append([p.grad is g for p, g in zip(params, grads)])
        out.append([(type(p).__name__, str(p.dtype), str(p.grad.dtype), p.requires_grad, p.is_leaf) for p in params])
        out.append([str(b.dtype) for b in m.buffers()])
        return out
    same(fn, torch)


def test_double_model_gives_double_outputs_and_grads(torch):
    def fn(T):
        m = make_mlp(T).double()
        x = T.randn(4, 3, dtype=T.float64, requires_grad=True)
        y = m(x)
        y.sum().backward()
        return [y, x.grad] + [p.grad for p in m.parameters()]
    same(fn, torch)


# ============================================================================ state dicts
def test_state_dict_keys_values_order(torch):
    def fn(T):
        net = make_net(T)
        sd = net.state_dict()
        kv = net.state_dict(keep_vars=True)
        return [type(sd).__name__, list(sd), sd, [type(v).__name__ for v in kv.values()],
                [v.requires_grad for v in kv.values()], list(net.state_dict(prefix="model."))[:3],
                list(net.enc.state_dict()), all(not v.requires_grad for v in sd.values())]
    same(fn, torch)


def test_state_dict_shares_storage_with_the_model(torch):
    def fn(T):
        net = make_mlp(T)
        sd = net.state_dict()
        sd["0.bias"].zero_()  # the state dict holds detached views of the same memory
        return [net[0].bias, sd["0.weight"].data_ptr() == net[0].weight.data_ptr()]
    same(fn, torch)


def test_load_state_dict_into_fresh_model_gives_identical_outputs(torch):
    def fn(T):
        src, dst = make_mlp(T, seed=0), make_mlp(T, seed=1)
        x = T.randn(4, 3)
        before = T.equal(src(x), dst(x))
        w = dst[0].weight
        result = dst.load_state_dict(src.state_dict())
        return [before, repr(result), str(result), result.missing_keys, result.unexpected_keys,
                dst[0].weight is w, dst[0].weight.requires_grad, dst[0].weight.is_leaf, T.equal(src(x), dst(x)),
                dst(x)]
    same(fn, torch)


def _bad_state(T, change):
    src = make_mlp(T, seed=0)
    src.register_buffer("steps", T.tensor(7))
    sd = OrderedDict(src.state_dict())
    change(T, sd)
    dst = make_mlp(T, seed=1)
    dst.register_buffer("steps", T.tensor(0))
    return src, sd, dst


STATE_CHANGES = {
    "missing": lambda T, sd: sd.pop("0.bias"),
    "unexpected": lambda T, sd: sd.update({"extra": T.ones(1), "2.foo": T.ones(1), "zz.y": T.ones(1),
                                           "1.x": T.ones(1)}),
    "missing+unexpected": lambda T, sd: (sd.pop("steps"), sd.pop("2.weight"), sd.update({"q": T.ones(1)})),
    "size mismatch": lambda T, sd: sd.update({"0.weight": T.ones(5, 2), "2.bias": T.ones(7)}),
    "all three": lambda T, sd: (sd.update({"0.weight": T.ones(5, 2)}), sd.pop("steps"),
                                sd.update({"q": T.ones(1)})),
    "not a tensor": lambda T, sd: sd.update({"0.bias": [1.0, 2.0, 3.0, 4.0, 5.0]}),
    "other dtype": lambda T, sd: sd.update({k: v.double() for k, v in sd.items() if v.is_floating_point()}),
    "nothing changed": lambda T, sd: None,
}


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("change", list(STATE_CHANGES))
def test_load_state_dict_errors_and_partial_loading(change, strict, torch):
    """Exact messages; and, as in PyTorch, what fits is copied even when an error is raised."""
    def fn(T):
        src, sd, dst = _bad_state(T, STATE_CHANGES[change])
        result = outcome(lambda: dst.load_state_dict(sd, strict=strict))
        return [result, dst.state_dict()]
    same(fn, torch)


def test_load_state_dict_with_assign(torch):
    def fn(T):
        src, dst = make_mlp(T, seed=0), make_mlp(T, seed=1)
        sd = src.state_dict()
        dst[0].weight.requires_grad_(False)
        result = dst.load_state_dict(sd, assign=True)
        return [repr(result), dst[0].weight.data_ptr() == sd["0.weight"].data_ptr(), type(dst[0].weight).__name__,
                [p.requires_grad for p in dst.parameters()], dst.state_dict()]
    same(fn, torch)


def test_load_state_dict_of_shared_module_and_none_children(torch):
    def fn(T):
        net = make_net(T)
        sd = net.state_dict()
        fresh = make_net(T)
        with T.no_grad():
            for p in fresh.parameters():
                p.zero_()
        return [repr(fresh.load_state_dict(sd)), fresh.state_dict()]
    same(fn, torch)


# ============================================================================ printing
def test_repr_of_nested_models(torch):
    def fn(T):
        nn = T.nn

        class WithExtra(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(nn.Linear(2, 2), nn.ReLU(inplace=True))

            def extra_repr(self):
                return "size=2,\nmode='fast'"

        class OneLine(nn.Module):
            def extra_repr(self):
                return "k=1"

        return [repr(make_net(T)), repr(WithExtra()), repr(OneLine()), repr(nn.Module()),
                repr(nn.Sequential()), repr(nn.ModuleList()), repr(nn.ModuleDict()),
                repr(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Linear(1, 2), nn.Linear(1, 2), nn.Linear(1, 2),
                                    nn.Tanh(), nn.ReLU()])),
                repr(nn.ModuleList([nn.Sequential(nn.Linear(1, 1)), nn.Sequential(nn.Linear(1, 1))])),
                repr(nn.Sequential(OrderedDict([("first", nn.Linear(1, 2)), ("act", nn.Sigmoid())]))),
                str(nn.Linear(3, 4)), repr(nn.Linear(3, 4, bias=False)), repr(nn.ReLU()), repr(nn.Tanh())]
    same(fn, torch)


# ============================================================================ containers
SEQUENTIAL_OPS = {
    "index": lambda T, s: [s[0], s[-1], s[2], len(s), [type(m).__name__ for m in s]],
    "slice": lambda T, s: [s[1:], s[::2], s[:-1], s[5:], type(s[1:]).__name__, list(s[1:]._modules)],
    "out of range": lambda T, s: s[4],
    "negative out of range": lambda T, s: s[-5],
    "del int": lambda T, s: (s.__delitem__(1), s, list(s._modules)),
    "del negative": lambda T, s: (s.__delitem__(-1), s),
    "del slice": lambda T, s: (s.__delitem__(slice(0, 2)), s, list(s._modules)),
    "del out of range": lambda T, s: s.__delitem__(9),
    "append": lambda T, s: [s.append(T.nn.Tanh()) is s, s, len(s)],
    "append not a module": lambda T, s: s.append(3),
    "insert": lambda T, s: [s.insert(1, T.nn.Tanh()) is s, s, s.insert(-1, T.nn.ReLU()), s],
    "insert out of range": lambda T, s: s.insert(9, T.nn.Tanh()),
    "extend": lambda T, s: [s.extend([T.nn.Tanh(), T.nn.ReLU()]) is s, s],
    "pop": lambda T, s: [s.pop(1), s, s.pop(-1), s],
    "setitem": lambda T, s: [s.__setitem__(1, T.nn.Tanh()), s, s.__setitem__(-1, T.nn.ReLU()), s],
    "add": lambda T, s: [s + T.nn.Sequential(T.nn.Tanh()), s],
    "iadd": lambda T, s: (s.__iadd__(T.nn.Sequential(T.nn.Tanh())), s),
    "add list": lambda T, s: s + [T.nn.Tanh()],
    "forward": lambda T, s: s(T.randn(2, 3)),
    "contains": lambda T, s: [s[0] in s, T.nn.Tanh() in s, list(reversed(s))[0]],
}


@pytest.mark.parametrize("op", list(SEQUENTIAL_OPS))
def test_sequential(op, torch):
    def fn(T):
        T.manual_seed(0)
        s = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2), T.nn.Sigmoid())
        return SEQUENTIAL_OPS[op](T, s)
    same(fn, torch)


def test_sequential_with_names_keeps_them_in_slices_and_renumbers_on_delete(torch):
    def fn(T):
        nn = T.nn
        s = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh()), ("c", nn.Sigmoid())]))
        out = [list(s[1:]._modules), s.b is s[1], [n for n, _ in s.named_children()]]
        del s[0]
        out.append(list(s._modules))
        return out
    same(fn, torch)


MODULELIST_OPS = {
    "index": lambda T, ml: [ml[0], ml[-1], len(ml), [type(m).__name__ for m in ml]],
    "slice": lambda T, ml: [ml[1:], type(ml[1:]).__name__, list(ml[1:]._modules)],
    "out of range": lambda T, ml: ml[3],
    "del": lambda T, ml: (ml.__delitem__(0), ml, list(ml._modules)),
    "del slice": lambda T, ml: (ml.__delitem__(slice(1, None)), ml),
    "del out of range": lambda T, ml: ml.__delitem__(5),
    "insert": lambda T, ml: (ml.insert(1, T.nn.ReLU()), ml),
    "append extend": lambda T, ml: [ml.append(T.nn.Tanh()) is ml, ml.extend([T.nn.ReLU()]) is ml, ml],
    "extend not iterable": lambda T, ml: ml.extend(3),
    "iadd": lambda T, ml: (ml.__iadd__([T.nn.Tanh(), T.nn.Tanh()]), ml),
    "add": lambda T, ml: [ml + [T.nn.Tanh()], type(ml + [T.nn.Tanh()]).__name__, len(ml)],
    "pop": lambda T, ml: [ml.pop(0), ml],
    "setitem": lambda T, ml: (ml.__setitem__(-1, T.nn.Tanh()), ml),
    "not a module": lambda T, ml: ml.append("relu"),
    "in a model": lambda T, ml: [n for n, _ in T.nn.Sequential(ml).named_modules()],
}


@pytest.mark.parametrize("op", list(MODULELIST_OPS))
def test_module_list(op, torch):
    same(lambda T: MODULELIST_OPS[op](T, T.nn.ModuleList([T.nn.ReLU(), T.nn.Tanh(), T.nn.Sigmoid()])), torch)


MODULEDICT_OPS = {
    "access": lambda T, md: [md["x"], list(md), list(md.keys()), [type(v).__name__ for v in md.values()],
                             [k for k, _ in md.items()], "x" in md, "q" in md, len(md)],
    "missing": lambda T, md: md["q"],
    "setitem": lambda T, md: (md.__setitem__("z", T.nn.Sigmoid()), md),
    "setitem over": lambda T, md: (md.__setitem__("x", T.nn.Sigmoid()), md),
    "delitem": lambda T, md: (md.__delitem__("x"), md),
    "pop": lambda T, md: [md.pop("x"), md],
    "update dict": lambda T, md: (md.update({"w": T.nn.ReLU()}), list(md)),
    "update pairs": lambda T, md: (md.update([("a", T.nn.ReLU()), ("b", T.nn.Tanh())]), list(md)),
    "clear": lambda T, md: (md.clear(), md),
    "bad key": lambda T, md: md.__setitem__("a.b", T.nn.ReLU()),
    "named": lambda T, md: [n for n, _ in T.nn.Sequential(md).named_modules()],
}


@pytest.mark.parametrize("op", list(MODULEDICT_OPS))
def test_module_dict(op, torch):
    same(lambda T: MODULEDICT_OPS[op](T, T.nn.ModuleDict([("x", T.nn.ReLU()), ("y", T.nn.Tanh())])), torch)


# ============================================================================ Linear
@pytest.mark.parametrize("shape", [(3, 4), (1, 1), (10, 7), (64, 32)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_init_is_identical_with_the_same_seed(shape, bias, torch):
    """Same numbers as PyTorch, and the random stream is left in the same place."""
    def fn(T):
        T.manual_seed(42)
        layer = T.nn.Linear(*shape, bias=bias)
        return [layer.weight, layer.bias, T.randn(3)]
    same(fn, torch)


def test_linear_float64_and_device_arguments(torch):
    def fn(T):
        T.manual_seed(3)
        layer = T.nn.Linear(2, 3, dtype=T.float64, device="cpu")
        return [layer.weight, layer.bias, str(layer.weight.device)]
    same(fn, torch)


@pytest.mark.parametrize("in_shape", [(4, 3), (2, 4, 3), (0, 3)])
def test_linear_forward_backward_and_graph(in_shape, torch):
    def fn(T):
        T.manual_seed(0)
        layer = T.nn.Linear(3, 2)
        x = T.randn(*in_shape, requires_grad=True)
        y = layer(x)
        (y * y).sum().backward()
        return [y, y.grad_fn.name(), [n.name() if n else None for n, _ in y.grad_fn.next_functions], x.grad,
                layer.weight.grad, layer.bias.grad]
    same(fn, torch)


def test_two_layer_net_with_custom_forward(torch):
    """The syllabus' TwoLayerNet: a subclass with its own forward, trained one step by hand."""
    def fn(T):
        nn = T.nn

        class TwoLayerNet(nn.Module):
            def __init__(self, d_in, h, d_out):
                super().__init__()
                self.linear1 = nn.Linear(d_in, h)
                self.linear2 = nn.Linear(h, d_out)

            def forward(self, x):
                return self.linear2(self.linear1(x).clamp(min=0))

        T.manual_seed(0)
        model = TwoLayerNet(4, 8, 2)
        x, y = T.randn(5, 4), T.randn(5, 2)
        losses = []
        for _ in range(3):
            loss = (model(x) - y).pow(2).sum()
            losses.append(loss.item())
            model.zero_grad()
            loss.backward()
            with T.no_grad():
                for p in model.parameters():
                    p -= 1e-2 * p.grad
        return [losses, repr(model), model.state_dict()]
    same(fn, torch)
