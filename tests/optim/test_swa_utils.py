"""``torch.optim.swa_utils`` against PyTorch's: ``AveragedModel`` with each averaging rule (and
``use_buffers``), ``SWALR``'s rates (compared as printed: they are Python floats computed in the
same order), ``update_bn``; and ``SparseAdam``, which learntorch has only to refuse dense
gradients as PyTorch does (learntorch has no sparse gradients).

The same program runs in both libraries: the models start from the same seed (learntorch's
initialisers draw PyTorch's numbers), and "training" moves the weights by seeded random steps
and BatchNorm's statistics by forward passes."""
from __future__ import annotations

import warnings

import pytest

import learntorch as lt
from conftest import assert_same, raises_both

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def _one_torch_thread(torch_oracle):
    """PyTorch's BatchNorm in training mode wakes its thread pool at every call, tens of
    milliseconds each on a small machine; on these tiny tensors one thread gives the same numbers."""
    threads = torch_oracle.get_num_threads()
    torch_oracle.set_num_threads(1)
    yield
    torch_oracle.set_num_threads(threads)


def _model(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(4, 3), T.nn.BatchNorm1d(3), T.nn.ReLU(), T.nn.Linear(3, 2))


def _train_a_little(T, model) -> None:
    """A stand-in for an epoch: a seeded step of every weight, a forward pass (BatchNorm's statistics)."""
    with T.no_grad():
        for p in model.parameters():
            p.mul_(0.9).add_(T.randn(p.shape) * 0.1)
    model(T.randn(8, 4))


def _averaging(T, rule: str, use_buffers: bool, updates: int = 4):
    swa = T.optim.swa_utils
    kw = {"ema_multi": dict(multi_avg_fn=swa.get_ema_multi_avg_fn(0.8)),
          "swa_multi": dict(multi_avg_fn=swa.get_swa_multi_avg_fn()),
          "ema": dict(avg_fn=swa.get_ema_avg_fn(0.8)), "swa": dict(avg_fn=swa.get_swa_avg_fn()),
          "custom": dict(avg_fn=lambda avg, cur, n: 0.5 * avg + 0.5 * cur), "default": {}}[rule]
    model = _model(T)
    averaged = swa.AveragedModel(model, use_buffers=use_buffers, **kw)
    counts = []
    for _ in range(updates):
        _train_a_little(T, model)
        averaged.update_parameters(model)
        counts.append(averaged.n_averaged.clone())
    averaged.eval()
    return dict(averaged.state_dict()), counts, averaged(T.ones(2, 4))


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("rule", ["default", "ema_multi", "swa", "ema", "custom"])
def test_averaged_model_matches_pytorch(torch_oracle, rule, use_buffers):
    """Parameters, buffers (averaged, or copied from the model), ``n_averaged``, the forward."""
    (mine, my_counts, my_out), (theirs, their_counts, their_out) = (_averaging(lt, rule, use_buffers),
                                                                    _averaging(torch_oracle, rule, use_buffers))
    assert list(mine) == list(theirs)  # n_averaged first, then module.*
    assert_same([mine[k] for k in mine], [theirs[k] for k in theirs], check_grad_fn=False)
    assert_same(my_counts, their_counts)
    assert_same(my_out, their_out, check_grad_fn=False)


def test_swa_multi_averages_floats_and_refuses_integer_buffers(torch_oracle):
    """The lerp form of the mean, on the parameters; on BatchNorm's int64 counter PyTorch's addcdiv refuses."""
    mine, theirs = _averaging(lt, "swa_multi", False), _averaging(torch_oracle, "swa_multi", False)
    assert_same([mine[0][k] for k in mine[0]], [theirs[0][k] for k in theirs[0]], check_grad_fn=False)
    raises_both(lambda T: _averaging(T, "swa_multi", True), torch_oracle, match="Integer division with addcdiv")


def test_averaged_model_copies_the_model_and_prints_like_pytorch(torch_oracle):
    def build(T):
        model = _model(T)
        averaged = T.optim.swa_utils.AveragedModel(model, device="cpu")
        with T.no_grad():
            model[0].weight.fill_(1.0)  # a deep copy: the average does not move with the model
        return repr(averaged), averaged.module[0].weight, averaged.n_averaged, averaged.module is not model
    assert_same(build(lt), build(torch_oracle), check_grad_fn=False)


def test_averaged_model_and_rule_errors(torch_oracle):
    def both_rules(T):
        swa = T.optim.swa_utils
        swa.AveragedModel(T.nn.Linear(2, 2), avg_fn=swa.get_swa_avg_fn(), multi_avg_fn=swa.get_swa_multi_avg_fn())
    raises_both(both_rules, torch_oracle, match="Only one of avg_fn and multi_avg_fn should be provided")
    for name in ("get_ema_avg_fn", "get_ema_multi_avg_fn"):
        for decay in (-0.1, 1.5):
            raises_both(lambda T: getattr(T.optim.swa_utils, name)(decay), torch_oracle,
                        match=rf"Invalid decay value {decay} provided. Please provide a value in \[0,1\] range.")
    assert lt.optim.swa_utils.__all__ == torch_oracle.optim.swa_utils.__all__


# ---------------------------------------------------------------------------- SWALR
def _rates(T, swa_lr, anneal_epochs, strategy, before: int = 0, epochs: int = 7) -> list[str]:
    """The printed rates: after construction, then per epoch; ``before`` epochs of cosine
    annealing first, so that SWALR takes over a rate some other scheduler left."""
    w = T.zeros(1, requires_grad=True)
    optimizer = T.optim.SGD([{"params": [w]}, {"params": [T.zeros(1, requires_grad=True)], "lr": 0.3}], lr=0.1)
    cosine = T.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    for _ in range(before):
        optimizer.step()
        cosine.step()
    scheduler = T.optim.swa_utils.SWALR(optimizer, swa_lr=swa_lr, anneal_epochs=anneal_epochs,
                                        anneal_strategy=strategy)
    printed = [repr(scheduler.get_last_lr())]
    for _ in range(epochs):
        optimizer.step()
        scheduler.step()
        printed.append(repr(scheduler.get_last_lr()))
    printed.append(repr(optimizer.param_groups[1]["swa_lr"]))
    return printed


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("swa_lr, anneal_epochs, before", [(0.05, 3, 0), ([0.05, 0.01], 5, 0), (0.02, 0, 0),
                                                           (0.05, 1, 0), (0.05, 4, 3)])
def test_swalr_prints_pytorchs_rates(torch_oracle, strategy, swa_lr, anneal_epochs, before):
    assert _rates(lt, swa_lr, anneal_epochs, strategy, before) == _rates(torch_oracle, swa_lr, anneal_epochs,
                                                                          strategy, before)


def test_swalr_state_dict_round_trip_and_errors(torch_oracle):
    def resumed(T):
        opt = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
        first = T.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=4, anneal_strategy="linear")
        opt.step()
        first.step()
        state = first.state_dict()
        second = T.optim.swa_utils.SWALR(opt, swa_lr=0.01)  # cos, until the state says linear
        second.load_state_dict(state)
        second.step()
        return sorted(state), second.get_last_lr(), second.anneal_func(0.5)
    assert resumed(lt) == resumed(torch_oracle)
    opt_of = lambda T: T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)  # noqa: E731
    raises_both(lambda T: T.optim.swa_utils.SWALR(opt_of(T), swa_lr=[0.1, 0.2]), torch_oracle,
                match="swa_lr must have the same length as optimizer.param_groups")
    raises_both(lambda T: T.optim.swa_utils.SWALR(opt_of(T), 0.1, anneal_strategy="step"), torch_oracle,
                match="anneal_strategy must be one of 'cos' or 'linear', instead got step")
    for bad in (-1, 2.5):
        raises_both(lambda T: T.optim.swa_utils.SWALR(opt_of(T), 0.1, anneal_epochs=bad), torch_oracle,
                    match=f"anneal_epochs must be equal or greater than 0, got {bad}")


def test_swalr_get_lr_outside_step_warns(torch_oracle):
    for T in (lt, torch_oracle):
        scheduler = T.optim.swa_utils.SWALR(T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1), 0.05)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            scheduler.get_lr()


# ---------------------------------------------------------------------------- update_bn
def _recomputed(T, batches_as: str):
    T.manual_seed(1)
    model = T.nn.Sequential(T.nn.Conv2d(2, 3, 3), T.nn.BatchNorm2d(3, momentum=0.3), T.nn.Flatten(),
                            T.nn.Linear(12, 4), T.nn.BatchNorm1d(4))
    data = T.randn(10, 2, 4, 4)
    model(data[:5])  # statistics of one batch, which update_bn throws away
    model.eval()
    if batches_as == "loader":
        loader = T.utils.data.DataLoader(T.utils.data.TensorDataset(data, T.zeros(10)), batch_size=4)
    else:
        loader = [data[:3], data[3:]]
    T.optim.swa_utils.update_bn(loader, model, device="cpu" if batches_as == "tensors" else None)
    bns = (model[1], model[4])
    return ([t for bn in bns for t in (bn.running_mean, bn.running_var, bn.num_batches_tracked)],
            [bn.momentum for bn in bns], model.training, model[1].weight.grad)


@pytest.mark.parametrize("batches_as", ["loader", "tensors"])
def test_update_bn_recomputes_the_statistics_as_pytorch(torch_oracle, batches_as):
    """A cumulative average over all batches; momenta and eval mode put back; no gradient."""
    assert_same(_recomputed(lt, batches_as), _recomputed(torch_oracle, batches_as), check_grad_fn=False)


def test_update_bn_without_batchnorm_does_not_read_the_loader(torch_oracle):
    def never():
        raise AssertionError("the loader was read")
        yield
    for T in (lt, torch_oracle):
        T.optim.swa_utils.update_bn(never(), T.nn.Linear(2, 2))


# ---------------------------------------------------------------------------- SparseAdam
def test_sparse_adam_refuses_dense_gradients_like_pytorch(torch_oracle):
    def stepped(T):
        p = T.zeros(2, requires_grad=True)
        optimizer = T.optim.SparseAdam([p], lr=0.01)
        assert optimizer.step(lambda: 3.0) == 3.0  # no gradient yet: nothing to refuse
        p.grad = T.ones(2)
        optimizer.step()
    raises_both(stepped, torch_oracle, match="SparseAdam does not support dense gradients, please consider Adam")
    assert repr(lt.optim.SparseAdam([lt.zeros(1, requires_grad=True)])) == \
        repr(torch_oracle.optim.SparseAdam([torch_oracle.zeros(1, requires_grad=True)]))


@pytest.mark.parametrize("kw, match", [(dict(lr=0.0), "Invalid learning rate: 0.0"),
                                       (dict(eps=0.0), "Invalid epsilon value: 0.0"),
                                       (dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
                                       (dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1")])
def test_sparse_adam_checks_its_options(torch_oracle, kw, match):
    raises_both(lambda T: T.optim.SparseAdam([T.zeros(1, requires_grad=True)], **kw), torch_oracle, match=match)


def test_the_names_are_where_pytorch_has_them(torch_oracle):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from learntorch.optim.swa_utils import SWALR, AveragedModel, update_bn  # noqa: F401
    assert {"SparseAdam", "swa_utils"} <= set(lt.optim.__all__) & set(torch_oracle.optim.__all__)
