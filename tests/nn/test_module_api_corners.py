"""API corners of nn.Module and the containers that real programs use (set_submodule,
extra state, to_empty, Sequential arithmetic, insert/pop, ParameterDict's dict methods,
load_state_dict's reports...), each compared with PyTorch 2.13.  Whole programs using
them are in ``fixtures/notes_programs/mo*.py``; these tests pin the single behaviours."""
from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

import pytest

import learntorch as lt
from conftest import check_both, raises_both


# ---------------------------------------------------------------------------- paths and registration
def test_set_submodule_replaces_and_adds_by_dotted_path(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        net = T.nn.Sequential(T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU()), T.nn.Linear(2, 1))
        net.set_submodule("0.1", T.nn.Tanh())
        net.set_submodule("0.extra", T.nn.Identity())
        return repr(net), [n for n, _ in net.named_modules()]
    check_both(run, torch_oracle)


@pytest.mark.parametrize("target, module, strict, match", [
    ("", "relu", False, "without a target name"),
    ("0", 3, False, "is not an nn.Module, found"),
    ("nothing.here", "relu", False, "has no attribute `nothing`"),
    ("0.weight", "relu", False, "`weight` is not an nn.Module"),
    ("new", "relu", True, "has no attribute `new`"),
])
def test_set_submodule_errors(torch_oracle: Any, target: str, module: Any, strict: bool, match: str) -> None:
    def run(T: Any) -> Any:
        net = T.nn.Sequential(T.nn.Linear(1, 1))
        net.set_submodule(target, T.nn.ReLU() if module == "relu" else module, strict=strict)
    raises_both(run, torch_oracle, match=match)


@pytest.mark.parametrize("target, match", [("1.weight", "is not a buffer"), ("1.nothing", "has no attribute"),
                                           ("2.running_mean", "has no attribute `2`")])
def test_get_buffer(torch_oracle: Any, target: str, match: str) -> None:
    def make(T: Any) -> Any:
        return T.nn.Sequential(T.nn.Linear(2, 2), T.nn.BatchNorm1d(2))
    check_both(lambda T: make(T).get_buffer("1.running_var"), torch_oracle)
    raises_both(lambda T: make(T).get_buffer(target), torch_oracle, match=match)


@pytest.mark.parametrize("call, match", [
    (lambda m, T: m.register_buffer(3, T.ones(1)), "buffer name should be a string. Got int"),
    (lambda m, T: m.register_parameter("a.b", None), 'parameter name can.+t contain "."'),
    (lambda m, T: m.register_buffer("", None), "buffer name can.+t be empty string"),
    (lambda m, T: m.register_buffer("weight", T.ones(1)), "attribute 'weight' already exists"),
    (lambda m, T: m.register_parameter("plain", None), "attribute 'plain' already exists"),
    (lambda m, T: m.register_module("a.b", T.nn.ReLU()), 'module name can.+t contain ".", got: a.b'),
    (lambda m, T: m.register_module("x", 3), "int is not a Module subclass"),
    (lambda m, T: m.add_module(1, T.nn.ReLU()), "module name should be a string. Got int"),
    (lambda m, T: setattr(m, "weight", T.ones(2, 2)), r"cannot assign 'torch.FloatTensor' as parameter 'weight'"),
])
def test_registration_checks(torch_oracle: Any, call: Any, match: str) -> None:
    def run(T: Any) -> Any:
        m = T.nn.Linear(2, 2)
        m.plain = 1
        call(m, T)
    raises_both(run, torch_oracle, match=match)


def test_typename_in_messages_is_the_class_path(torch_oracle: Any) -> None:
    """A module where a parameter belongs is named by its full class path, as torch.typename does."""
    def run(T: Any) -> Any:
        setattr(T.nn.Linear(1, 1), "bias", T.nn.ReLU())
    l_exc, t_exc = raises_both(run, torch_oracle)
    assert str(l_exc) == str(t_exc).replace("'torch.nn.modules.", "'learntorch.nn.modules.")


def test_parameter_onto_a_non_persistent_buffer_name(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        m = T.nn.Module()
        m.register_buffer("x", T.zeros(1), persistent=False)
        m.x = T.nn.Parameter(T.ones(1))
        return list(m.state_dict()), sorted(m._non_persistent_buffers_set), list(m._buffers)
    check_both(run, torch_oracle)


def test_tables_are_plain_dicts(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        lin = T.nn.Linear(1, 1)
        return [type(t).__name__ for t in (lin._parameters, lin._buffers, lin._modules)], repr(lin._buffers)
    check_both(run, torch_oracle)


# ---------------------------------------------------------------------------- extra state
class _Vocab:
    """Mixin: a module whose vocabulary travels in its state_dict."""

    def get_extra_state(self) -> Any:
        return {"vocab": self.vocab}

    def set_extra_state(self, state: Any) -> None:
        self.vocab = state["vocab"]


def _vocab_model(T: Any, vocab: str) -> Any:
    cls = type("Tok", (_Vocab, T.nn.Linear), {})
    m = cls(1, 1)
    m.vocab = vocab
    return T.nn.Sequential(m)


def test_extra_state_is_saved_and_loaded(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        sd = _vocab_model(T, "abc").state_dict()
        m2 = _vocab_model(T, "xyz")
        result = m2.load_state_dict(sd)
        return list(sd), sd["0._extra_state"], repr(result), m2[0].vocab
    check_both(run, torch_oracle)


def test_extra_state_missing_and_unexpected(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        sd = dict(_vocab_model(T, "abc").state_dict())
        del sd["0._extra_state"]
        missing = _vocab_model(T, "x").load_state_dict(sd, strict=False)
        unexpected = T.nn.Linear(1, 1).load_state_dict({"weight": T.ones(1, 1), "bias": T.ones(1),
                                                        "_extra_state": 3}, strict=False)
        return repr(missing), repr(unexpected)
    check_both(run, torch_oracle)
    raises_both(lambda T: T.nn.Linear(1, 1).get_extra_state(), torch_oracle, match="should never be called")


# ---------------------------------------------------------------------------- state dicts
def test_state_dict_metadata_and_positional_warning(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        m = T.nn.Sequential(T.nn.Linear(1, 1), T.nn.BatchNorm1d(1))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dest = OrderedDict()
            m.state_dict(dest, "p.")
        return dict(m.state_dict()._metadata), list(dest), [w.category.__name__ for w in caught]
    check_both(run, torch_oracle)


def test_load_state_dict_report_and_errors(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        m = T.nn.Linear(2, 1)
        keys = m.load_state_dict({"weight": T.ones(1, 2), "extra": T.ones(1)}, strict=False)
        return repr(keys), keys.missing_keys, keys.unexpected_keys, str(keys)
    check_both(run, torch_oracle)

    def strict(T: Any) -> Any:
        T.nn.Linear(2, 1).load_state_dict({"weight": T.ones(3, 2), "extra": T.ones(1)})
    l_exc, t_exc = raises_both(strict, torch_oracle, match="Error\\(s\\) in loading state_dict for Linear")
    assert str(l_exc) == str(t_exc)


def test_load_state_dict_scalar_from_one_element_and_assign(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        m = T.nn.Module()
        m.t = T.nn.Parameter(T.tensor(1.0))
        m.load_state_dict({"t": T.tensor([2.0])})
        value = m.t.item()
        src = T.tensor(3.0)
        m.t.requires_grad_(False)
        m.load_state_dict({"t": src}, assign=True)
        return value, type(m.t).__name__, m.t.requires_grad, m.t.data_ptr() == src.data_ptr()
    check_both(run, torch_oracle)


def test_load_post_hook_must_not_return(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        m = T.nn.Linear(1, 1)
        m.register_load_state_dict_post_hook(lambda mod, keys: keys)
        m.load_state_dict(m.state_dict())
    raises_both(run, torch_oracle, match="not expected to return new values")


def _versioned_model(T: Any) -> Any:
    """A module that renamed its parameter in version 2 and converts older checkpoints in its own
    ``_load_from_state_dict`` (the PyTorch pattern); its ``_save_to_state_dict`` adds a scale."""
    class Scaled(T.nn.Module):
        _version = 2

        def __init__(self) -> None:
            super().__init__()
            self.w = T.nn.Parameter(T.ones(2))
            self.log: list = []

        def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "scale"] = T.tensor(2.0)

        def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: dict, strict: bool,
                                  missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
            self.log.append((prefix, local_metadata.get("version"), strict))
            if local_metadata.get("version", 1) < 2 and prefix + "weight" in state_dict:
                state_dict[prefix + "w"] = state_dict.pop(prefix + "weight")
            state_dict.pop(prefix + "scale", None)
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)

    return T.nn.Sequential(T.nn.Linear(1, 1), Scaled())


def test_overridden_load_from_and_save_to_state_dict(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        m = _versioned_model(T)
        sd = m.state_dict()
        old = OrderedDict([("0.weight", T.ones(1, 1)), ("0.bias", T.zeros(1)), ("1.weight", T.full((2,), 3.0))])
        result = m.load_state_dict(old)  # no metadata: version None, converted
        m.load_state_dict(sd)            # its own checkpoint: version 2, "scale" dropped
        return list(sd), dict(sd._metadata), repr(result), m[1].w.tolist(), m[1].log
    check_both(run, torch_oracle)


# ---------------------------------------------------------------------------- dtypes and moves
def test_type_and_floating_casts(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        m = T.nn.BatchNorm1d(2)
        out = [str(m.half().running_mean.dtype), str(m.num_batches_tracked.dtype)]
        out.append(str(m.type(T.float64).num_batches_tracked.dtype))  # type() casts integer buffers too
        out.append(m.type(T.float32) is m)
        return out
    check_both(run, torch_oracle)
    raises_both(lambda T: T.nn.Linear(1, 1).type(T.int32), torch_oracle, match="must be floating point")


def test_to_empty_keeps_parameters_shapes_and_flags(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        m = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3))
        w = m[0].weight
        m[0].bias.requires_grad_(False)
        assert m.to_empty(device="cpu") is m
        return ([(n, tuple(t.shape), str(t.dtype), getattr(t, "requires_grad", None)) for n, t in
                 [*m.named_parameters(), *m.named_buffers()]], m[0].weight is w)
    check_both(run, torch_oracle)
    raises_both(lambda T: T.nn.Linear(1, 1).to_empty("cpu"), torch_oracle, match="positional argument")


def test_requires_grad_checks_its_argument(torch_oracle: Any) -> None:
    raises_both(lambda T: T.nn.Linear(1, 1).requires_grad_(1), torch_oracle, match="must be bool, not int")
    check_both(lambda T: T.nn.ReLU().requires_grad_("anything") is not None, torch_oracle)  # no parameter: no check


def test_share_memory_and_compile_return_as_pytorch() -> None:
    """Both are accepted and change nothing in learntorch (see their docstrings)."""
    m = lt.nn.Linear(2, 2)
    w = m.weight
    assert m.share_memory() is m and m.weight is w
    assert m.compile() is None and m(lt.ones(1, 2)).shape == (1, 2)
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        m.compile(mode="fastest")


# ---------------------------------------------------------------------------- containers
def test_sequential_arithmetic(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        block = T.nn.Sequential(T.nn.Linear(1, 1), T.nn.ReLU())
        twice, thrice = block * 2, 3 * block
        s = T.nn.Sequential(T.nn.Tanh())
        alias = s
        s *= 2
        s += T.nn.Sequential(T.nn.ReLU())
        return (len(twice), twice[0] is twice[2], len(thrice), s is alias, list(s._modules),
                list((block + block)._modules))
    check_both(run, torch_oracle)
    for bad in (0, -1, 1.5):
        raises_both(lambda T: T.nn.Sequential(T.nn.ReLU()) * bad, torch_oracle,
                    match="multiplication factor|unsupported operand")
    raises_both(lambda T: T.nn.Sequential() + [T.nn.ReLU()], torch_oracle,
                match="add operator supports only objects of Sequential class")


def test_sequential_list_methods(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        s = T.nn.Sequential(OrderedDict(a=T.nn.ReLU(), b=T.nn.Tanh(), c=T.nn.Sigmoid()))
        part = s[1:]
        s.insert(3, T.nn.Identity())
        names = list(s._modules)
        popped = type(s.pop(0)).__name__
        del s[0:1]
        return type(part).__name__, list(part._modules), names, popped, list(s._modules)
    check_both(run, torch_oracle)
    raises_both(lambda T: T.nn.Sequential(T.nn.ReLU())["0"], torch_oracle, match="cannot be interpreted")
    raises_both(lambda T: T.nn.Sequential().insert(2, T.nn.ReLU()), torch_oracle, match="Index out of range")


def test_modulelist_insert_add_pop(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        ml = T.nn.ModuleList([T.nn.ReLU(), T.nn.Tanh()])
        both = ml + [T.nn.Sigmoid()]
        ml.insert(0, T.nn.Identity())
        ml.insert(7, T.nn.Softplus())  # kept under the name "7", as in PyTorch
        names = list(ml._modules)
        popped = type(both.pop(-1)).__name__
        return type(both).__name__, len(both), both[0] is ml[1], names, popped
    check_both(run, torch_oracle)
    raises_both(lambda T: T.nn.ModuleList([T.nn.ReLU()]).insert(-1, T.nn.Tanh()), torch_oracle)  # KeyError '-1'


def test_moduledict_update_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.nn.ModuleDict().update(3), torch_oracle, match="should be called with an iterable")
    raises_both(lambda T: T.nn.ModuleDict([T.nn.ReLU()]), torch_oracle, match="element #0 should be Iterable")
    raises_both(lambda T: T.nn.ModuleDict([("a", T.nn.ReLU(), 1)]), torch_oracle, match="has length 3")
    check_both(lambda T: [type(v).__name__ for v in (T.nn.ModuleDict({"a": T.nn.ReLU()}).keys(),)], torch_oracle)


def test_parameterdict_dict_methods(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        pd = T.nn.ParameterDict({"b": T.ones(1), "a": T.ones(2)})
        pd.setdefault("c", T.zeros(3))
        key, _ = pd.popitem()
        merged = pd | T.nn.ParameterDict({"z": T.ones(1)})
        pd |= T.nn.ParameterDict({"w": T.ones(1)})
        copy = pd.copy()
        fk = pd.fromkeys(["x", "y"])
        return (key, list(merged), list(pd), list(reversed(pd)), copy["a"] is pd["a"], repr(fk),
                [n for n, _ in pd.named_parameters()])
    check_both(run, torch_oracle)
    raises_both(lambda T: T.nn.ParameterDict().popitem(), torch_oracle, match="dictionary is empty")
    raises_both(lambda T: T.nn.ParameterDict()[0], torch_oracle, match="not a string")
    raises_both(lambda T: T.nn.ParameterDict({"a": T.ones(1)})(T.ones(1)), torch_oracle, match="should not be called")
    raises_both(lambda T: T.nn.ParameterDict()(), torch_oracle, match="missing 1 required positional argument")


def test_parameterlist_calls_and_indices(torch_oracle: Any) -> None:
    raises_both(lambda T: T.nn.ParameterList([T.ones(1)])(), torch_oracle, match="should not be called")
    raises_both(lambda T: T.nn.ParameterList([T.ones(1)])["0"], torch_oracle, match="cannot be interpreted")
    raises_both(lambda T: T.nn.ParameterList().extend(T.ones(2)), torch_oracle, match="with an iterable")


def test_dir_hides_numbered_children(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        s = T.nn.Sequential(OrderedDict(fc=T.nn.Linear(1, 1)))
        s.append(T.nn.ReLU())
        d = dir(s)
        return "fc" in d, "1" in d, "append" in d, d == sorted(d)
    check_both(run, torch_oracle)


@pytest.mark.parametrize("make", [
    lambda T: T.nn.Parameter(T.ones(2).long()), lambda T: T.nn.Parameter(T.ones(2, dtype=T.bool)),
    lambda T: T.ones(2).long().requires_grad_(),
], ids=["parameter-long", "parameter-bool", "requires_grad_"])
def test_an_integer_parameter_is_refused_in_pytorchs_words(torch_oracle: Any, make: Any) -> None:
    l_exc, t_exc = raises_both(make, torch_oracle, match="can require gradients")
    assert str(l_exc) == str(t_exc)
    check_both(lambda T: T.nn.Parameter(T.ones(2).long(), requires_grad=False).dtype, torch_oracle)


@pytest.mark.parametrize("size, match", [
    (5, "must be a tuple of ints, but found type int"),
    ((2.0, 2), "found element of type float at pos 0"),
    ((("C", 2), ("H", 2)), "found element of type tuple at pos 0"),
])
def test_unflatten_checks_its_size_when_built(torch_oracle: Any, size: Any, match: str) -> None:
    l_exc, t_exc = raises_both(lambda T: T.nn.Unflatten(1, size), torch_oracle, match=match)
    assert str(l_exc) == str(t_exc)
    check_both(lambda T: [repr(T.nn.Unflatten(1, s)) for s in ((2, 2), [2, -1], T.Size([2, 2]))], torch_oracle)


@pytest.mark.parametrize("dim, size", [(1, (3, -1)), (-1, (3, 2)), (1, (5,)), (1, (0, -1))])
def test_unflatten_names_the_split_that_does_not_fit(torch_oracle: Any, dim: int, size: Any) -> None:
    l_exc, t_exc = raises_both(lambda T: T.nn.Unflatten(dim, size)(T.ones(3, 4)), torch_oracle,
                               match="don't multiply up to the size of dim 1")
    assert str(l_exc) == str(t_exc)
    check_both(lambda T: T.ones(3, 4).unflatten(dim, (2, -1)).shape, torch_oracle)
