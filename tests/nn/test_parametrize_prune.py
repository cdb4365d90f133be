"""``nn.utils``' weight reparametrizations and pruning, against real PyTorch.

Each test builds the same model in both libraries (``fn(T)`` with ``T`` the library)
and compares what a program can observe: values (seeded random initialisations,
including spectral norm's random ``u``/``v`` and the random pruning masks), gradients,
``grad_fn`` names, the names in ``named_parameters`` / ``named_buffers`` /
``state_dict``, class names (``ParametrizedLinear``), reprs, warnings and error
messages.  Covered:

* ``parametrize``: ``register_parametrization`` (``right_inverse``, chains, tuples ->
  ``original0/1``, buffers), assignment, ``cached``, ``remove_parametrizations``,
  ``is_parametrized``, ``type_before_parametrizations``,
  ``transfer_parametrizations_and_params``, deepcopy / pickling;
* ``parametrizations.weight_norm``, ``spectral_norm`` and ``orthogonal``;
* the hook-based ``weight_norm`` / ``spectral_norm`` and their ``remove_*``;
* ``prune``: every method, combined masks, ``global_unstructured``, ``remove``;
* ``fusion``: folding BatchNorm into Conv / Linear.
"""
from __future__ import annotations

import copy
import importlib
import pickle
import warnings
from typing import Any

import pytest

import learntorch as lt

from conftest import TORCH_REASON, check_both, raises_both


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason=TORCH_REASON)


def _utils(T: Any) -> tuple:
    """``(nn, parametrize, parametrizations, prune)`` of a library (prune is imported
    explicitly in PyTorch: ``torch.nn.utils`` does not import it)."""
    prune = importlib.import_module(T.__name__ + ".nn.utils.prune")
    return T.nn, T.nn.utils.parametrize, T.nn.utils.parametrizations, prune


def _names(module: Any) -> tuple:
    return ([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()],
            list(module.state_dict()))


def _layers(T: Any) -> dict:
    """Small parametrizations, the examples of PyTorch's documentation."""
    nn = T.nn

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).T

        def right_inverse(self, A):
            return A.triu()

    class Scale(nn.Module):
        def forward(self, X):
            return 2 * X

        def right_inverse(self, X):
            return X / 2

    class RankOne(nn.Module):
        def forward(self, x, y):
            return x.unsqueeze(-1) @ y.unsqueeze(-2)

        def right_inverse(self, Z):
            return Z[:, 0].clone(), Z[0, :].clone()

    class NoInverse(nn.Module):
        def forward(self, X):
            return X.tanh()

    return dict(Symmetric=Symmetric, Scale=Scale, RankOne=RankOne, NoInverse=NoInverse)


# ---------------------------------------------------------------------------- parametrize
def test_register_parametrization_swaps_the_class_and_stores_original(torch):
    def fn(T):
        nn, P, _, _ = _utils(T)
        T.manual_seed(0)
        m = nn.Linear(3, 3)
        before = m.weight
        P.register_parametrization(m, "weight", _layers(T)["Symmetric"]())
        out = m(T.ones(2, 3)).sum()
        out.backward()
        original = m.parametrizations.weight.original
        return (type(m).__name__, P.type_before_parametrizations(m).__name__, repr(m), _names(m),
                P.is_parametrized(m), P.is_parametrized(m, "weight"), P.is_parametrized(m, "bias"),
                P.is_parametrized(nn.Linear(1, 1)), original is before, m.weight, original, original.grad,
                isinstance(m, nn.Linear))
    check_both(fn, torch)


def test_assignment_chains_and_cache(torch):
    def fn(T):
        nn, P, _, _ = _utils(T)
        layers = _layers(T)
        T.manual_seed(0)
        m = nn.Linear(3, 3)
        P.register_parametrization(m, "weight", layers["Symmetric"]())
        A = T.rand(3, 3)
        A = A + A.T
        m.weight = A  # right_inverse runs backwards into `original`
        after_assign = (m.weight, m.parametrizations.weight.original)
        P.register_parametrization(m, "weight", layers["Scale"]())
        P.register_parametrization(m, "weight", layers["NoInverse"](), unsafe=True)
        chain = m.parametrizations.weight
        with P.cached():
            same_in_cache = m.weight is m.weight
            with P.cached():  # nested blocks share the outer cache
                nested = m.weight is m.weight
        outside = m.weight is m.weight
        m(T.ones(1, 3)).sum().backward()
        return (after_assign, repr(chain), len(chain), chain.unsafe, same_in_cache, nested, outside, m.weight,
                chain.original.grad)
    check_both(fn, torch)


def test_assigning_through_a_parametrization_without_right_inverse(torch):
    def fn(T):
        nn, P, _, _ = _utils(T)
        m = nn.Linear(2, 2)
        P.register_parametrization(m, "weight", _layers(T)["NoInverse"]())
        m.weight = T.zeros(2, 2)
    raises_both(fn, torch, match="does not implement right_inverse")


def test_tuple_right_inverse_gives_original0_original1(torch):
    def fn(T):
        nn, P, _, _ = _utils(T)
        T.manual_seed(0)
        lin = nn.Linear(4, 4)
        opt_params = list(lin.parameters())
        P.register_parametrization(lin, "weight", _layers(T)["RankOne"]())
        chain = lin.parametrizations.weight
        rank = T.linalg.matrix_rank(lin.weight.detach()).item()
        lin(T.ones(1, 4)).sum().backward()
        grads = (chain.original0.grad, chain.original1.grad)
        names = _names(lin)
        P.remove_parametrizations(lin, "weight")
        return (names, rank, grads, chain.is_tensor, chain.ntensors, _names(lin), type(lin).__name__,
                lin.weight, lin.weight is opt_params[0])
    check_both(fn, torch)


def test_remove_parametrizations_keeps_the_parameter_object(torch):
    def fn(T):
        nn, P, _, _ = _utils(T)
        layers = _layers(T)
        T.manual_seed(0)
        m = nn.Linear(3, 2)
        w = m.weight
        P.register_parametrization(m, "weight", layers["Scale"]())
        P.register_parametrization(m, "bias", layers["Scale"]())
        P.remove_parametrizations(m, "weight")  # keeps the computed value, in the same object
        kept = (m.weight is w, m.weight, type(m).__name__, _names(m))
        P.remove_parametrizations(m, "bias", leave_parametrized=False)
        return kept + (type(m).__name__, _names(m), "parametrizations" in m._modules, m.bias)
    check_both(fn, torch)


def test_parametrizing_a_buffer(torch):
    def fn(T):
        nn, P, _, _ = _utils(T)
        bn = nn.BatchNorm1d(3)
        bn.eval()
        P.register_parametrization(bn, "running_var", _layers(T)["Scale"]())
        out = bn(T.ones(2, 3))
        names = _names(bn)
        train_flag = bn.parametrizations.running_var[0].training
        P.remove_parametrizations(bn, "running_var", leave_parametrized=False)
        return names, out, train_flag, _names(bn), bn.running_var
    check_both(fn, torch)


@pytest.mark.parametrize("case", ["no such tensor", "changes shape", "chained changes dtype", "not parametrized",
                                  "tuple left unparametrized", "returns a list"])
def test_parametrize_errors(torch, case):
    def fn(T):
        nn, P, _, _ = _utils(T)
        layers = _layers(T)

        class First(nn.Module):
            def forward(self, X):
                return X[0]

        class ToDouble(nn.Module):
            def forward(self, X):
                return X.double()

        class ReturnsList(nn.Module):
            def forward(self, X):
                return [X]

        m = nn.Linear(2, 2)
        if case == "no such tensor":
            P.register_parametrization(m, "foo", layers["Scale"]())
        elif case == "changes shape":
            P.register_parametrization(m, "weight", First())
        elif case == "chained changes dtype":
            P.register_parametrization(m, "weight", layers["Scale"]())
            P.register_parametrization(m, "weight", ToDouble())
        elif case == "not parametrized":
            P.remove_parametrizations(m, "weight")
        elif case == "tuple left unparametrized":
            P.register_parametrization(m, "weight", layers["RankOne"]())
            P.remove_parametrizations(m, "weight", leave_parametrized=False)
        else:
            P.register_parametrization(m, "weight", ReturnsList())
    l_exc, t_exc = raises_both(fn, torch)
    assert str(l_exc) == str(t_exc)


def test_failed_registration_leaves_the_module_alone(torch):
    def fn(T):
        nn, P, _, _ = _utils(T)

        class First(nn.Module):
            def forward(self, X):
                return X[0]
        m = nn.Linear(2, 2)
        with pytest.raises(ValueError):
            P.register_parametrization(m, "weight", First())
        return type(m).__name__, _names(m), P.is_parametrized(m)
    check_both(fn, torch)


def test_deepcopy_pickle_and_transfer(torch):
    def fn(T):
        nn, P, _, _ = _utils(T)
        T.manual_seed(0)
        m = nn.Linear(3, 3)
        P.register_parametrization(m, "weight", _layers(T)["Symmetric"]())
        d = copy.deepcopy(m)
        copied = (type(d).__name__, type(d) is type(m), d.weight, d.parametrizations.weight.original is
                  m.parametrizations.weight.original)
        with pytest.raises(RuntimeError, match="Serialization of parametrized modules"):
            pickle.dumps(m)
        target = nn.Linear(3, 3)
        P.transfer_parametrizations_and_params(m, target)
        shared = target.parametrizations.weight.original is m.parametrizations.weight.original
        untouched = P.transfer_parametrizations_and_params(nn.Linear(1, 1), nn.Linear(1, 1))
        return copied, type(target).__name__, shared, target.weight, _names(target), type(untouched).__name__
    check_both(fn, torch)


# ---------------------------------------------------------------------------- parametrizations
@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_parametrization(torch, dim):
    def fn(T):
        nn, P, PZ, _ = _utils(T)
        T.manual_seed(0)
        m = PZ.weight_norm(nn.Linear(4, 3), dim=dim)
        chain = m.parametrizations.weight
        x = T.randn(5, 4)
        m(x).pow(2).sum().backward()
        return (repr(m), _names(m), m.weight, chain.original0, chain.original1, chain.original0.grad,
                chain.original1.grad)
    check_both(fn, torch)


def test_weight_norm_on_a_conv_and_double_backward(torch):
    def fn(T):
        nn, P, PZ, _ = _utils(T)
        T.manual_seed(0)
        m = PZ.weight_norm(nn.Conv2d(2, 3, 2), dim=3)  # the last dimension: the fused node
        x = T.randn(2, 2, 4, 4, requires_grad=True)
        gx, = T.autograd.grad(m(x).tanh().sum(), x, create_graph=True)
        gx.pow(2).sum().backward()
        chain = m.parametrizations.weight
        with T.no_grad():
            P.remove_parametrizations(m, "weight")
        return gx, chain.original0.grad, chain.original1.grad, _names(m), m.weight
    check_both(fn, torch, rtol=1e-4, atol=1e-5)


def test_weight_norm_loads_an_old_checkpoint(torch):
    def fn(T):
        nn, P, PZ, _ = _utils(T)
        T.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            old = nn.utils.weight_norm(nn.Linear(3, 2))
        new = PZ.weight_norm(nn.Linear(3, 2))
        result = new.load_state_dict(old.state_dict())
        return repr(result), list(old.state_dict()), new.weight, new.parametrizations.weight.original0
    check_both(fn, torch)


def test_spectral_norm_parametrization(torch):
    def fn(T):
        nn, P, PZ, _ = _utils(T)
        T.manual_seed(0)
        m = PZ.spectral_norm(nn.Linear(5, 4))
        sn = m.parametrizations.weight[0]
        start = (sn._u.clone(), sn._v.clone())
        x = T.randn(3, 5)
        y = m(x)  # training: one more power-iteration step
        y.pow(2).sum().backward()
        after = (sn._u.clone(), sn._v.clone())
        m.eval()
        y_eval = m(x)
        frozen = T.equal(sn._u, after[0])
        sigma = T.linalg.matrix_norm(m.weight.detach(), ord=2)
        return (repr(m), _names(m), start, y, after, m.parametrizations.weight.original.grad, y_eval, frozen,
                sigma)
    check_both(fn, torch, rtol=1e-4, atol=1e-5)


def test_spectral_norm_options(torch):
    def fn(T):
        nn, P, PZ, _ = _utils(T)
        T.manual_seed(1)
        conv = PZ.spectral_norm(nn.Conv2d(3, 4, 3), n_power_iterations=3, eps=1e-8, dim=1)
        tconv = PZ.spectral_norm(nn.ConvTranspose2d(2, 3, 2))  # dim 1 by default
        vec = PZ.spectral_norm(nn.Linear(4, 4), name="bias")  # a vector: just normalized
        x = T.randn(1, 3, 5, 5)
        out = conv(x).sum()
        cw, tw = conv.parametrizations.weight[0], tconv.parametrizations.weight[0]
        return (out, cw._u, cw._v, cw.dim, tw.dim, tw._u.shape, tw._v.shape, vec.bias, _names(vec))
    check_both(fn, torch, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", ["bad dim", "no tensor", "no iterations"])
def test_spectral_norm_errors(torch, case):
    def fn(T):
        nn, P, PZ, _ = _utils(T)
        if case == "bad dim":
            PZ.spectral_norm(nn.Linear(2, 2), dim=3)
        elif case == "no tensor":
            PZ.spectral_norm(nn.Linear(2, 2), "nope")
        else:
            PZ.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    l_exc, t_exc = raises_both(fn, torch)
    assert str(l_exc) == str(t_exc)


@pytest.mark.parametrize("shape, kw", [
    ((4, 4), {}), ((3, 5), {}), ((5, 3), {}), ((4, 4), {"orthogonal_map": "cayley"}),
    ((5, 3), {"orthogonal_map": "matrix_exp"}), ((4, 4), {"orthogonal_map": "householder"}),
    ((5, 3), {"orthogonal_map": "householder", "use_trivialization": False}),
    ((4, 4), {"use_trivialization": False})], ids=str)
def test_orthogonal(torch, shape, kw):
    def fn(T):
        nn, P, PZ, _ = _utils(T)
        T.manual_seed(0)
        m = PZ.orthogonal(nn.Linear(*shape), **kw)
        first = (m.weight, m.weight.grad_fn.name(), _names(m))
        x = T.randn(3, shape[0])  # (Linear(in, out) has an (out, in) weight)
        for _ in range(2):  # plain SGD steps (torch.optim's first use costs seconds of imports)
            m.zero_grad()
            (m(x) - 1).pow(2).mean().backward()
            with T.no_grad():
                for p in m.parameters():
                    p -= 0.05 * p.grad
        W = m.weight.detach()
        gram = W.T @ W if W.shape[0] >= W.shape[1] else W @ W.T
        orthogonal = bool((gram - T.eye(min(shape))).abs().max() < 1e-5)
        return first, m.parametrizations.weight.original.grad, W, orthogonal
    check_both(fn, torch, rtol=1e-4, atol=1e-5)


def test_orthogonal_assignment_and_errors(torch):
    def fn(T):
        nn, P, PZ, _ = _utils(T)
        T.manual_seed(0)
        rnn = nn.RNN(3, 3)
        PZ.orthogonal(rnn, "weight_hh_l0")
        rnn.weight_hh_l0 = T.eye(3) * 2  # not orthogonal: orthogonalised into `base`
        assigned = (rnn.weight_hh_l0, rnn.parametrizations.weight_hh_l0[0].base)
        errors = []
        for call in (lambda: PZ.orthogonal(nn.Linear(3, 3), orthogonal_map="qr"),
                     lambda: PZ.orthogonal(nn.Linear(3, 3), "bias"),
                     lambda: PZ.orthogonal(nn.Linear(3, 3), "nope")):
            try:
                call()
            except ValueError as e:
                errors.append(str(e))
        plain = PZ.orthogonal(nn.Linear(3, 3), use_trivialization=False)
        try:
            plain.weight = T.eye(3)
        except NotImplementedError as e:
            errors.append(str(e))
        return assigned, errors, _names(rnn)
    check_both(fn, torch)


# ---------------------------------------------------------------------------- hook-based forms
def test_old_weight_norm(torch):
    def fn(T):
        nn = T.nn
        T.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = nn.utils.weight_norm(nn.Linear(3, 2))
            m2 = nn.utils.weight_norm(nn.Conv2d(1, 2, 2), dim=None)
        warned = [(w.category.__name__, str(w.message)) for w in caught]
        x = T.randn(4, 3)
        m(x).sum().backward()
        names = _names(m)
        grads = (m.weight_g.grad, m.weight_v.grad)
        fn_name = m.weight.grad_fn.name()
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                nn.utils.weight_norm(m)
        nn.utils.remove_weight_norm(m)
        with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
            nn.utils.remove_weight_norm(m)
        return (warned, names, grads, fn_name, m2.weight_g, m2.weight.grad_fn.name(), _names(m), m.weight,
                type(m.weight).__name__)
    check_both(fn, torch)


def test_old_spectral_norm(torch):
    def fn(T):
        nn = T.nn
        T.manual_seed(0)
        m = nn.utils.spectral_norm(nn.Linear(4, 3))
        before_forward = (m.weight, m.weight_u, m.weight_v)
        x = T.randn(2, 4)
        y = m(x)
        y.sum().backward()
        m.eval()
        y_eval = m(x)
        saved = m.state_dict()
        other = nn.utils.spectral_norm(nn.Linear(4, 3))
        loaded = repr(other.load_state_dict(saved))
        other.eval()
        same = T.allclose(other(x), y_eval)
        names = _names(m)
        nn.utils.remove_spectral_norm(m)
        with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
            nn.utils.remove_spectral_norm(m)
        t = nn.utils.spectral_norm(nn.ConvTranspose1d(2, 3, 2))
        return (before_forward, y, m.weight_orig.grad if hasattr(m, "weight_orig") else None, y_eval, names,
                loaded, same, _names(m), m.weight, t.weight_u.shape, t.weight_v.shape)
    check_both(fn, torch, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------- prune
def test_prune_methods_combine_and_remove(torch):
    def fn(T):
        nn, _, _, prune = _utils(T)
        T.manual_seed(0)
        m = nn.Linear(6, 4)
        w = m.weight
        prune.l1_unstructured(m, "weight", amount=0.3)
        first = (_names(m), m.weight_mask, m.weight, m.weight_orig is w, prune.is_pruned(m))
        prune.random_unstructured(m, "weight", amount=2)
        hook = next(iter(m._forward_pre_hooks.values()))
        kinds = (type(hook).__name__, [type(h).__name__ for h in hook])
        prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
        prune.random_structured(m, "weight", amount=0.5, dim=1)
        mask = m.weight_mask.clone()
        m(T.ones(2, 6)).sum().backward()
        grad = m.weight_orig.grad
        prune.remove(m, "weight")
        return (first, kinds, mask, grad, _names(m), m.weight, m.weight is w, prune.is_pruned(m))
    check_both(fn, torch)


def test_prune_conv_structured_and_importance_scores(torch):
    def fn(T):
        nn, _, _, prune = _utils(T)
        T.manual_seed(0)
        c = nn.Conv2d(2, 4, 3)
        prune.ln_structured(c, "weight", amount=0.5, n=1, dim=0)
        per_filter = c.weight_mask.sum(dim=(1, 2, 3))
        prune.ln_structured(c, "weight", amount=1, n=float("inf"), dim=1,
                            importance_scores=c.weight_orig.detach().abs() + 1)
        per_channel = c.weight_mask.sum(dim=(0, 2, 3))
        prune.l1_unstructured(c, "bias", amount=0.25, importance_scores=T.tensor([4.0, 3.0, 2.0, 1.0]))
        prune.random_structured(c, "weight", amount=1, dim=-1)
        out = c(T.ones(1, 2, 3, 3))
        fresh = nn.Conv2d(2, 4, 3)
        prune.identity(fresh, "weight")
        prune.identity(fresh, "bias")
        loaded = repr(fresh.load_state_dict(c.state_dict()))
        return per_filter, per_channel, c.bias_mask, c.weight_mask, out, _names(c), loaded, fresh(T.ones(1, 2, 3, 3))
    check_both(fn, torch)


def test_global_unstructured_and_custom_masks(torch):
    def fn(T):
        nn, _, _, prune = _utils(T)
        T.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
        params = [(net[0], "weight"), (net[2], "weight"), (net[0], "bias")]
        prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.4)
        l1_masks = (net[0].weight_mask, net[2].weight_mask, net[0].bias_mask)
        prune.global_unstructured(params, pruning_method=prune.RandomUnstructured, amount=3)
        random_masks = (net[0].weight_mask, net[2].weight_mask, net[0].bias_mask)
        prune.custom_from_mask(net[2], "bias", mask=T.tensor([0, 1]))
        direct = prune.L1Unstructured(amount=2).prune(T.tensor([3.0, -1.0, 2.0, 0.5]))
        return l1_masks, random_masks, net[2].bias, _names(net), prune.is_pruned(net), direct
    check_both(fn, torch)


@pytest.mark.parametrize("case", ["amount too large", "amount negative", "fraction above one", "amount not a number",
                                  "structured on a vector", "dim out of range", "remove unpruned",
                                  "global structured"])
def test_prune_errors_leave_the_module_alone(torch, case):
    def fn(T):
        nn, _, _, prune = _utils(T)
        m = nn.Linear(3, 2)
        try:
            if case == "amount too large":
                prune.l1_unstructured(m, "weight", amount=7)
            elif case == "amount negative":
                prune.random_unstructured(m, "weight", amount=-1)
            elif case == "fraction above one":
                prune.l1_unstructured(m, "weight", amount=1.5)
            elif case == "amount not a number":
                prune.l1_unstructured(m, "weight", amount="half")
            elif case == "structured on a vector":
                prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
            elif case == "dim out of range":
                prune.random_structured(m, "weight", amount=1, dim=2)
            elif case == "remove unpruned":
                prune.remove(m, "weight")
            else:
                prune.global_unstructured([(m, "weight")], pruning_method=prune.LnStructured, amount=1, n=2, dim=0)
        except Exception as e:  # noqa: BLE001 - the type and message are what is compared
            return type(e).__name__, str(e).replace("learntorch.", "").replace("torch.", ""), _names(m)
        return None
    check_both(fn, torch)


# ---------------------------------------------------------------------------- fusion and the rest
def test_fuse_conv_and_linear_with_batchnorm(torch):
    def fn(T):
        nn = T.nn
        T.manual_seed(0)
        conv, bn = nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3)
        with T.no_grad():
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2)
            bn.weight.uniform_(0.5, 1.5)
        conv.eval()
        bn.eval()
        fused = nn.utils.fuse_conv_bn_eval(conv, bn)
        x = T.randn(1, 2, 5, 5)
        lin, bn1 = nn.Linear(3, 4, bias=False), nn.BatchNorm1d(4)
        lin.eval()
        bn1.eval()
        with T.no_grad():
            bn1.running_mean.fill_(0.5)
        fl = nn.utils.fuse_linear_bn_eval(lin, bn1)
        tconv = nn.ConvTranspose2d(2, 3, 2, bias=False)  # output channels are the weight's dim 1
        w, b = nn.utils.fuse_conv_bn_weights(tconv.weight, None, bn.running_mean, bn.running_var, bn.eps, None, None,
                                             transpose=True)
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1))
        return fused(x), bn(conv(x)), fused.weight, fused.bias, fl.weight, fl.bias, w, b
    check_both(fn, torch)


def test_nn_utils_exports(torch):
    names = ["parameters_to_vector", "vector_to_parameters", "clip_grad_value_", "clip_grad_norm_",
             "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
             "weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm", "parametrize",
             "parametrizations"]
    for name in names:
        assert hasattr(torch.nn.utils, name) and hasattr(lt.nn.utils, name), name
    assert callable(lt.nn.utils.weight_norm) and callable(lt.nn.utils.spectral_norm)
    for name in ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
                 "type_before_parametrizations", "transfer_parametrizations_and_params", "ParametrizationList"]:
        assert hasattr(lt.nn.utils.parametrize, name), name
    assert set(lt.nn.utils.parametrizations.__all__) <= set(torch.nn.utils.parametrizations.__all__)
