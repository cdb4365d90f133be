"""Global module hooks (``nn.modules.module.register_module_*_hook``) against PyTorch.

A global hook runs for every module of every model, *before* that module's own
hooks of the same kind.  Each test registers the same hooks in both libraries,
runs the same forward/backward, and compares the event log (which hook saw which
module, in which order) and the numbers (values in the log as :class:`conftest.Close`,
equal within ``torch.testing.assert_close``'s tolerances).  Every test removes its
global hooks (``finally``), so they never leak into other tests; the "full or not"
flag of the global backward hooks, which PyTorch never resets, is restored by
``monkeypatch``.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import learntorch as lt

from conftest import Close, assert_same, raises_both, to_numpy


def _fresh_flag(monkeypatch: pytest.MonkeyPatch, *libs: Any) -> None:
    for T in libs:
        monkeypatch.setattr(T.nn.modules.module, "_global_is_full_backward_hook", None)


def _run(T: Any, body: Callable[[Any, list], Any]) -> tuple[list, Any]:
    """``body(T, log)`` with ``T.manual_seed(0)``; global handles it returns in ``log[0]`` are removed."""
    T.manual_seed(0)
    log: list = [[]]
    try:
        result = body(T, log)
    finally:
        for h in log[0]:
            h.remove()
    return log[1:], result


def _both(torch: Any, body: Callable[[Any, list], Any]) -> tuple[Any, Any]:
    log_t, res_t = _run(torch, body)
    log_l, res_l = _run(lt, body)
    assert log_l == log_t, f"hook order differs:\n learntorch {log_l}\n torch      {log_t}"
    return res_l, res_t


def test_global_hooks_run_before_each_modules_own(torch_oracle: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_flag(monkeypatch, torch_oracle, lt)

    def body(T: Any, log: list) -> Any:
        mm = T.nn.modules.module
        model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
        name = lambda m: type(m).__name__  # noqa: E731
        log[0] += [mm.register_module_forward_pre_hook(lambda m, a: log.append(("g-pre", name(m)))),
                   mm.register_module_forward_hook(lambda m, a, o: log.append(("g-fwd", name(m), tuple(o.shape)))),
                   mm.register_module_full_backward_pre_hook(lambda m, go: log.append(("g-bpre", name(m)))),
                   mm.register_module_full_backward_hook(
                       lambda m, gi, go: log.append(("g-bwd", name(m), len(gi))))]
        model[0].register_forward_pre_hook(lambda m, a: log.append(("own-pre", name(m))))
        model[0].register_forward_hook(lambda m, a, o: log.append(("own-fwd", name(m))))
        model[2].register_full_backward_pre_hook(lambda m, go: log.append(("own-bpre", name(m))))
        model[2].register_full_backward_hook(lambda m, gi, go: log.append(("own-bwd", name(m))))
        x = T.randn(5, 3, requires_grad=True)
        out = model(x)
        out.sum().backward()
        return out, x.grad

    (out_l, g_l), (out_t, g_t) = _both(torch_oracle, body)
    assert_same(out_l, out_t, check_grad_fn=False)  # BackwardHookFunctionBackward wraps the output
    assert_same(g_l, g_t)


def test_global_forward_hooks_replace_inputs_and_outputs(torch_oracle: Any) -> None:
    def body(T: Any, log: list) -> Any:
        mm = T.nn.modules.module
        lin = T.nn.Linear(2, 2)
        log[0] += [mm.register_module_forward_pre_hook(lambda m, a: (a[0] * 2,)),
                   mm.register_module_forward_hook(lambda m, a, o: o + 1)]
        lin.register_forward_hook(lambda m, a, o: log.append(("own sees", Close(to_numpy(o)))) or o * 10)
        return lin(T.ones(1, 2))

    out_l, out_t = _both(torch_oracle, body)
    assert_same(out_l, out_t)


def test_global_forward_hook_with_kwargs(torch_oracle: Any) -> None:
    def body(T: Any, log: list) -> Any:
        class Scale(T.nn.Module):
            def forward(self, x, factor=1.0):
                return x * factor

        log[0].append(T.nn.modules.module.register_module_forward_hook(
            lambda m, a, kw, o: log.append(("kw", sorted(kw), len(a))), with_kwargs=True))
        return Scale()(T.ones(2), factor=3.0)

    out_l, out_t = _both(torch_oracle, body)
    assert_same(out_l, out_t)


def test_global_full_backward_hook_can_replace_grad_input(torch_oracle: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_flag(monkeypatch, torch_oracle, lt)

    def body(T: Any, log: list) -> Any:
        lin = T.nn.Linear(3, 3)
        log[0].append(T.nn.modules.module.register_module_full_backward_hook(
            lambda m, gi, go: tuple(None if g is None else g * 0.5 for g in gi)))
        lin.register_full_backward_hook(lambda m, gi, go: log.append(("own sees", Close(to_numpy(gi[0])))))
        x = T.randn(2, 3, requires_grad=True)
        lin(x).pow(2).sum().backward()
        return x.grad, lin.weight.grad

    (xg_l, wg_l), (xg_t, wg_t) = _both(torch_oracle, body)
    assert_same(xg_l, xg_t)
    assert_same(wg_l, wg_t)


def test_removed_global_hooks_stop_running(torch_oracle: Any) -> None:
    def body(T: Any, log: list) -> Any:
        h = T.nn.modules.module.register_module_forward_hook(lambda m, a, o: log.append("seen"))
        lin = T.nn.Linear(1, 1)
        lin(T.ones(1, 1))
        h.remove()
        lin(T.ones(1, 1))
        return len(log)

    n_l, n_t = _both(torch_oracle, body)
    assert n_l == n_t == 2  # log[0] (the handles) plus one "seen"


def test_always_called_global_hook_runs_when_forward_raises(torch_oracle: Any) -> None:
    def body(T: Any, log: list) -> Any:
        class Broken(T.nn.Module):
            def forward(self, x):
                raise ValueError("broken forward")

        log[0].append(T.nn.modules.module.register_module_forward_hook(
            lambda m, a, o: log.append(("always", o)), always_call=True))
        with pytest.raises(ValueError, match="broken forward"):
            Broken()(T.ones(1))

    _both(torch_oracle, body)


def test_full_and_non_full_global_backward_hooks_do_not_mix(torch_oracle: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_flag(monkeypatch, torch_oracle, lt)
    handles = []
    try:
        for T in (torch_oracle, lt):
            handles.append(T.nn.modules.module.register_module_full_backward_hook(lambda m, gi, go: None))
        raises_both(lambda T: T.nn.modules.module.register_module_backward_hook(lambda m, gi, go: None),
                    torch_oracle, match="Cannot use both regular backward hooks and full backward hooks")
    finally:
        for h in handles:
            h.remove()


def test_global_non_full_backward_hook(torch_oracle: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_flag(monkeypatch, torch_oracle, lt)

    def body(T: Any, log: list) -> Any:
        log[0].append(T.nn.modules.module.register_module_backward_hook(
            lambda m, gi, go: log.append(("old", type(m).__name__, len(go)))))
        lin = T.nn.Linear(2, 1)
        lin(T.ones(3, 2)).sum().backward()
        return lin.weight.grad

    with pytest.warns(FutureWarning):  # both libraries: a deprecated, partial view of the gradients
        g_l, g_t = _both(torch_oracle, body)
    assert_same(g_l, g_t)


def test_global_hooks_cost_nothing_when_absent() -> None:
    """No global hook registered: calling a module takes the direct path (no hook machinery)."""
    from learntorch.nn.modules import module as mm
    assert not mm._has_global_hooks()
    lin = lt.nn.Linear(2, 2)
    out = lin(lt.ones(1, 2))
    assert out.grad_fn.name() == "AddmmBackward0"
    h = mm.register_module_forward_hook(lambda m, a, o: None)
    try:
        assert mm._has_global_hooks()
    finally:
        h.remove()
    assert not mm._has_global_hooks()
    np.testing.assert_allclose(to_numpy(lin(lt.ones(1, 2))), to_numpy(out))
