"""The gates of one GRU or LSTM step, fused into one operation each.

Why fused: a recurrent layer runs its cell once per time step, per layer and per
direction: 80 times for a 2-layer bidirectional GRU over 20 steps.  Written with
tensor operations, a GRU step's gates are about ten small operations, each with
its own node in the graph and its own Python overhead, which on small batches
costs more than the arithmetic.  As one ``Function`` the gates cost one node:
the forward computes them on the arrays, keeps what the backward needs, and the
backward applies the chain rule by hand.  PyTorch has the same two kernels
(``_thnn_fused_gru_cell``, ``_thnn_fused_lstm_cell``), but runs them on CUDA only;
on the CPU its cells are composites of small operations, and a user sees the node
of the *last* one: ``AddBackward0`` on a GRU's ``h'`` and an LSTM's ``c'``,
``MulBackward0`` on an LSTM's ``h'``.  So the fused GRU node carries the name
``AddBackward0``; the LSTM, whose two results come from different operations in
PyTorch, is fused up to ``c'`` (:class:`LstmCellState`) and multiplies
``h' = o·tanh(c')`` as an ordinary ``mul`` for ``nn.LSTMCell``; inside ``nn.LSTM``,
whose steps PyTorch hides in one node per layer, the fully fused
:class:`LstmCell` keeps its one node per step.

The matrix products ``W_hh h`` (and, for the whole sequence at once, ``W_ih x``)
stay outside, in ``nn/modules/rnn.py``: they are ``addmm``-style operations that
have their own backward.

Both backwards can be differentiated again (``create_graph=True``): each formula
is written once against a namespace ``m`` (``ops/formula.py``), and under grad mode
the gates are recomputed from the saved inputs as tensor operations, so that the
second derivative sees how they depend on the inputs.
"""
from __future__ import annotations

from typing import Any

from ..autograd import grad_mode
from ..autograd.function import Function
from ..tensor import Tensor
from .common import new_result
from .formula import TensorMath, array_math
from .shape import Stack

__all__ = ["gru_cell", "lstm_cell", "lstm_cell_state", "lstm_layer_output", "GruCell", "LstmCell",
           "LstmCellState", "LstmLayerOutput"]


def _gru_gates(m: Any, gi: Any, gh: Any, h: Any) -> tuple:
    """r, z, n and the hidden part of n, from the input part ``gi`` and the hidden part ``gh``
    (each (N, 3H), column blocks r, z, n) and the state ``h`` (arrays or tensors alike)."""
    H = h.shape[-1]
    rz = m.sigmoid(gi[:, :2 * H] + gh[:, :2 * H])  # both sigmoid gates in one call (on small batches
    r, z = rz[:, :H], rz[:, H:]                     # a call costs more than its arithmetic):
    # r the reset gate (重置门), z the update gate (更新门)
    gh_n = gh[:, 2 * H:]
    n = m.tanh(gi[:, 2 * H:] + gh_n * r)             # candidate
    return r, z, n, gh_n


def _gru_gate_grads(m: Any, gates: tuple, g: Any, h: Any) -> tuple:
    """The gradients of the input part, of the hidden part and (the direct path only) of ``h``,
    from ``g``, the gradient of ``h'`` (formulas in :class:`GruCell`)."""
    r, z, n, gh_n = gates
    dn_pre = g * (1 - z) * (1 - n * n)
    dz_pre = g * (h - n) * z * (1 - z)
    dr_pre = dn_pre * gh_n * r * (1 - r)
    return m.concat([dr_pre, dz_pre, dn_pre], 1), m.concat([dr_pre, dz_pre, dn_pre * r], 1), g * z


class GruCell(Function):
    """``h' = (h - n)·z + n`` with the gates of :func:`_gru_gates` (= (1 - z)·n + z·h).

    Backward, with ``g`` the gradient of ``h'``:
    ``∂h = g·z``, ``∂n = g·(1 - z)``, ``∂z = g·(h - n)``; through tanh and σ:
    ``∂n_pre = ∂n·(1 - n²)``, ``∂z_pre = ∂z·z(1 - z)``, ``∂r_pre = ∂n_pre·gh_n·r(1 - r)``.
    The input part receives ``[∂r_pre, ∂z_pre, ∂n_pre]``; the hidden part the same
    but ``∂n_pre·r`` in the n block (r multiplies it in the forward)."""

    # PyTorch's CPU GRU cell ends with ``.add_(n)``: its h' shows AddBackward0 (CUDA's fused
    # kernel would show ThnnFusedGruCellBackward0).
    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, gi: Tensor, gh: Tensor, h: Tensor) -> Tensor:
        m = array_math(h._backend.xp)
        r, z, n, gh_n = _gru_gates(m, gi._data, gh._data, h._data)
        ctx.save_for_backward(gi, gh, h)
        ctx.gates = (r, z, n, gh_n)
        return new_result((h._data - n) * z + n, h)

    @staticmethod
    def backward(ctx, g: Tensor) -> tuple:
        gi, gh, h = ctx.saved_tensors
        if grad_mode._state.enabled:  # create_graph: the gates again, as operations of the inputs
            m = TensorMath(g)
            r, z, n, gh_n = _gru_gates(m, gi, gh, h)
            hv = h
        else:
            m = array_math(g._backend.xp)
            r, z, n, gh_n = ctx.gates
            g, hv = g._data, h._data
        d_gi, d_gh, d_h = _gru_gate_grads(m, (r, z, n, gh_n), g, hv)
        if not grad_mode._state.enabled:
            d_gi, d_gh, d_h = new_result(d_gi, h), new_result(d_gh, h), new_result(d_h, h)
        return d_gi, d_gh, d_h


def _lstm_gates(m: Any, gates: Any, c: Any) -> tuple:
    """i, f, g, o and tanh(c') from the summed gate inputs (N, 4H: blocks i, f, g, o) and ``c``."""
    H = c.shape[-1]
    # One sigmoid over all four blocks, though the candidate's block is then unused: on small
    # batches one call over 4H columns costs less than three calls over H.
    s = m.sigmoid(gates)
    i = s[:, :H]                           # input gate  (输入门)
    f = s[:, H:2 * H]                      # forget gate (遗忘门)
    g = m.tanh(gates[:, 2 * H:3 * H])      # candidate
    o = s[:, 3 * H:]                       # output gate (输出门)
    c_new = f * c + i * g
    return i, f, g, o, c_new, m.tanh(c_new)


def _lstm_gate_grads(m: Any, gates: tuple, cv: Any, dc: Any, d_o: Any) -> tuple:
    """The gradients of the summed gate inputs and of ``c`` from ``dc`` (the whole gradient of
    ``c'``) and ``d_o`` (the gradient of the output gate ``o``, after its sigmoid)."""
    i, f, g, o = gates
    d_gates = m.concat([dc * g * i * (1 - i), dc * cv * f * (1 - f), dc * i * (1 - g * g), d_o * o * (1 - o)], 1)
    return d_gates, dc * f


def _lstm_forward(ctx: Any, gi: Tensor, gh: Tensor, c: Tensor) -> tuple:
    """The gates on the arrays, and what both LSTM Functions' backwards need kept on ``ctx``;
    returns ``(o, c', tanh c')`` as arrays."""
    i, f, g, o, c_new, tc = _lstm_gates(array_math(c._backend.xp), gi._data + gh._data, c._data)
    ctx.save_for_backward(gi, gh, c)
    ctx.gates = (i, f, g, o, tc)
    return o, c_new, tc


class LstmCell(Function):
    """``c' = f·c + i·g``, ``h' = o·tanh(c')`` with the gates of ``gi + gh`` (the input and the
    hidden part, each (N, 4H)); returns ``(h', c')``.

    Backward, with ``gh``, ``gc`` the gradients of ``h'`` and ``c'``:
    ``∂c' = gc + gh·o·(1 - tanh²c')``, ``∂o = gh·tanh c'``, ``∂i = ∂c'·g``, ``∂f = ∂c'·c``,
    ``∂g = ∂c'·i``, ``∂c = ∂c'·f``; then through σ (``s(1 - s)``) and tanh (``1 - t²``)."""

    _backward_name = "ThnnFusedLstmCellBackward0"

    @staticmethod
    def forward(ctx, gi: Tensor, gh: Tensor, c: Tensor) -> tuple:
        o, c_new, tc = _lstm_forward(ctx, gi, gh, c)
        return new_result(o * tc, c), new_result(c_new, c)

    @staticmethod
    def backward(ctx, gh: Tensor, gc: Tensor) -> tuple:
        gi, gh_in, c = ctx.saved_tensors
        if grad_mode._state.enabled:  # create_graph: the gates again, as operations of the inputs
            m = TensorMath(gh)
            i, f, g, o, _, tc = _lstm_gates(m, gi + gh_in, c)
            cv = c
        else:
            m = array_math(gh._backend.xp)
            i, f, g, o, tc = ctx.gates
            gh, gc, cv = gh._data, gc._data, c._data
        d_gates, d_c = _lstm_gate_grads(m, (i, f, g, o), cv, gc + gh * o * (1 - tc * tc), gh * tc)
        if not grad_mode._state.enabled:
            d_gates, d_c = new_result(d_gates, c), new_result(d_c, c)
        return d_gates, d_gates, d_c  # gates = gi + gh: both parts get the same gradient


class LstmCellState(Function):
    """The LSTM gates up to ``c' = f·c + i·g``, for ``nn.LSTMCell``: returns ``(c', o, tanh c')``,
    and the caller forms ``h' = o·tanh(c')`` with an ordinary ``mul``, as PyTorch's CPU cell does,
    so that ``h'`` shows ``MulBackward0`` and ``c'`` shows ``AddBackward0`` (the name of PyTorch's
    last operation on it).  The gradients are :class:`LstmCell`'s to the last bit: ``mul``'s
    backward hands back ``gh·o`` and ``gh·tanh c'``, the very products :class:`LstmCell` starts from."""

    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, gi: Tensor, gh: Tensor, c: Tensor) -> tuple:
        o, c_new, tc = _lstm_forward(ctx, gi, gh, c)
        return new_result(c_new, c), new_result(o, c), new_result(tc, c)

    @staticmethod
    def backward(ctx, gc: Tensor, g_o: Tensor, g_tc: Tensor) -> tuple:
        gi, gh_in, c = ctx.saved_tensors
        if grad_mode._state.enabled:  # create_graph: the gates again, as operations of the inputs
            m = TensorMath(gc)
            i, f, g, o, _, tc = _lstm_gates(m, gi + gh_in, c)
            cv = c
        else:
            m = array_math(gc._backend.xp)
            i, f, g, o, tc = ctx.gates
            gc, g_o, g_tc, cv = gc._data, g_o._data, g_tc._data, c._data
        d_gates, d_c = _lstm_gate_grads(m, (i, f, g, o), cv, gc + g_tc * (1 - tc * tc), g_o)
        if not grad_mode._state.enabled:
            d_gates, d_c = new_result(d_gates, c), new_result(d_c, c)
        return d_gates, d_gates, d_c


class LstmLayerOutput(Stack):
    """The time steps of one LSTM layer joined into (L, N, H): a ``stack``, under PyTorch's CPU name.
    PyTorch runs a whole float32 (or bfloat16) LSTM layer on the CPU as one oneDNN kernel, so the
    layer's output hangs off one ``MkldnnRnnLayerBackward0`` node; here the layer is its steps, and
    the node a user sees on the output is the one that joins them."""

    _backward_name = "MkldnnRnnLayerBackward0"


def gru_cell(gi: Tensor, gh: Tensor, h: Tensor) -> Tensor:
    """One GRU step's gates: the new hidden state from the input part, the hidden part and ``h``."""
    return GruCell.apply(gi, gh, h)


def lstm_cell(gi: Tensor, gh: Tensor, c: Tensor) -> tuple:
    """One LSTM step's gates: ``(h', c')`` from the input part, the hidden part and the cell state ``c``."""
    return LstmCell.apply(gi, gh, c)


def lstm_cell_state(gi: Tensor, gh: Tensor, c: Tensor) -> tuple:
    """``(c', o, tanh c')`` of one LSTM step (``h' = o * tanh c'`` is left to the caller)."""
    return LstmCellState.apply(gi, gh, c)


def lstm_layer_output(steps: list) -> Tensor:
    """One LSTM layer's per-step outputs stacked on a new first dimension (see :class:`LstmLayerOutput`)."""
    return LstmLayerOutput.apply(*steps, dim=0)
