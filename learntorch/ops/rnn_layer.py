"""One direction of one GRU or LSTM layer, all of its time steps, as one operation.

Why: step by step, a recurrent layer records about three nodes per time step (the
hidden part ``addmm``, the fused cell of ``ops/rnn_cells.py``, a ``split`` or ``cat``
where sequences of a packed batch end or start), so a 2-layer bidirectional LSTM over
20 steps builds some 250 nodes, and each costs its Python overhead twice, forward and
backward, for arithmetic on (16, 256) arrays that takes less time than the overhead.
PyTorch's CPU build does what this module does: a float32 LSTM layer is one oneDNN
kernel (one ``MkldnnRnnLayerBackward0`` node per layer and direction).

* The forward loops over the time steps on the arrays and keeps, per step, what the
  backward needs (the state that entered the step and its gates: the *tape*).
* The backward is backpropagation through time (随时间反向传播) written out: one loop
  back over the steps, carrying ``∂h`` (and ``∂c``) from each step to the one before,
  then the weight gradient of every step at once as one matrix product,
  ``Σₜ ∂gatesₜᵀ hₜ₋₁ = Dᵀ H`` with the steps' rows stacked in ``D`` and ``H``.
* Both loops are written once against a namespace ``m`` (``ops/formula.py``): on the
  arrays for a plain ``backward()``; under ``create_graph=True`` the forward is replayed
  as tensor operations from the saved inputs and the same backward loop runs on
  tensors, so its result can be differentiated again.

The rows are a packed batch (``nn.utils.rnn``): step ``t`` has ``sizes[t]`` rows,
non-increasing, and a sequence's final state is taken at its own last step.  The
gates are those of ``ops/rnn_cells.py`` (the same formulas, so the same numbers).
"""
from __future__ import annotations

from typing import Any, Optional

from ..autograd import grad_mode
from ..autograd.function import Function
from ..tensor import Tensor
from .common import new_result
from .formula import TensorMath, array_math
from .rnn_cells import _gru_gate_grads, _gru_gates, _lstm_gate_grads, _lstm_gates

__all__ = ["recurrent_layer", "RecurrentLayer"]


def _offsets(sizes: list) -> list:
    """Where each step's rows start in the packed rows."""
    starts, at = [], 0
    for n in sizes:
        starts.append(at)
        at += n
    return starts


def _cell(m: Any, lstm: bool, gi: Any, gh: Any, h: Any, c: Any) -> tuple:
    """One step: ``(h', c', gates)`` (``c'`` None for a GRU)."""
    if lstm:
        i, f, g, o, c_new, tc = _lstm_gates(m, gi + gh, c)
        return o * tc, c_new, (i, f, g, o, tc)
    r, z, n, gh_n = _gru_gates(m, gi, gh, h)
    return (h - n) * z + n, None, (r, z, n, gh_n)


def _run(m: Any, proj: Any, h0: Any, c0: Any, w_hh: Any, b_hh: Any, sizes: list, reverse: bool) -> tuple:
    """The forward over every step: ``(outputs per step in time order, h_n, c_n, tape)``."""
    lstm = c0 is not None
    starts = _offsets(sizes)
    w_t = w_hh.T
    steps = range(len(sizes) - 1, -1, -1) if reverse else range(len(sizes))
    h, c = (h0[:sizes[-1]], c0[:sizes[-1]] if lstm else None) if reverse else (h0, c0)
    ended_h, ended_c = [], []  # forward direction: the states of sequences that have ended
    outs: list = [None] * len(sizes)
    tape: list = [None] * len(sizes)
    for t in steps:
        rows, have = sizes[t], h.shape[0]
        if rows < have:    # (forward) sequences rows..have ended at the step before: keep their state
            ended_h.append(h[rows:])
            h = h[:rows]
            if lstm:
                ended_c.append(c[rows:])
                c = c[:rows]
        elif rows > have:  # (reverse) longer sequences start here, from their initial state
            h = m.concat([h, h0[have:rows]], 0)
            if lstm:
                c = m.concat([c, c0[have:rows]], 0)
        gh = h @ w_t if b_hh is None else h @ w_t + b_hh
        h_new, c_new, gates = _cell(m, lstm, proj[starts[t]:starts[t] + rows], gh, h, c)
        tape[t] = (h, c, gates)
        h, c = h_new, c_new
        outs[t] = h
    if ended_h:  # rows in order: the state still running first, then those that ended, latest first
        h = m.concat([h, *ended_h[::-1]], 0)
        c = m.concat([c, *ended_c[::-1]], 0) if lstm else None
    return outs, h, c, tape


def _step_grads(m: Any, lstm: bool, tape_entry: tuple, dh: Any, dc: Any, w_hh: Any) -> tuple:
    """Back through one step: ``(∂gi, ∂gh, ∂h_prev, ∂c_prev)`` from the gradients of its ``h'``, ``c'``."""
    h, c, gates = tape_entry
    if lstm:
        i, f, g, o, tc = gates
        d_gates, dc_prev = _lstm_gate_grads(m, (i, f, g, o), c, dc + dh * o * (1 - tc * tc), dh * tc)
        return d_gates, d_gates, d_gates @ w_hh, dc_prev
    d_gi, d_gh, dh_direct = _gru_gate_grads(m, gates, dh, h)
    return d_gi, d_gh, dh_direct + d_gh @ w_hh, None


def _bptt(m: Any, tape: list, g_out: Any, g_h: Any, g_c: Any, w_hh: Any, sizes: list, reverse: bool) -> tuple:
    """Backpropagation through time: ``(∂proj, ∂h0, ∂c0, ∂W_hh, ∂b_hh)``.

    ``g_out``: the gradient of the output rows; ``g_h``, ``g_c``: of the final states."""
    lstm = g_c is not None
    starts = _offsets(sizes)
    d_gi: list = [None] * len(sizes)
    d_gh: list = [None] * len(sizes)
    dh0_parts, dc0_parts = [], []  # (reverse) the initial states' gradients, latest rows first
    if reverse:  # the forward ran t = T-1 .. 0: go back from t = 0, where every sequence ended
        dh, dc = g_h, g_c
        for t in range(len(sizes)):
            rows = sizes[t]
            d_gi[t], d_gh[t], dh, dc = _step_grads(m, lstm, tape[t], dh + g_out[starts[t]:starts[t] + rows], dc,
                                                   w_hh)
            began = sizes[t + 1] if t + 1 < len(sizes) else 0  # rows began..rows started at step t
            if began < rows:
                dh0_parts.append(dh[began:])
                dh = dh[:began]
                if lstm:
                    dc0_parts.append(dc[began:])
                    dc = dc[:began]
        dh0 = m.concat(dh0_parts[::-1], 0)
        dc0 = m.concat(dc0_parts[::-1], 0) if lstm else None
    else:        # the forward ran t = 0 .. T-1: go back from the last step
        dh = dc = None
        for t in range(len(sizes) - 1, -1, -1):
            rows = sizes[t]
            have = 0 if dh is None else dh.shape[0]
            if have < rows:  # rows have..rows ended at step t: their gradient is the final state's
                dh = g_h[:rows] if dh is None else m.concat([dh, g_h[have:rows]], 0)
                if lstm:
                    dc = g_c[:rows] if dc is None else m.concat([dc, g_c[have:rows]], 0)
            d_gi[t], d_gh[t], dh, dc = _step_grads(m, lstm, tape[t], dh + g_out[starts[t]:starts[t] + rows], dc,
                                                   w_hh)
        dh0, dc0 = dh, dc
    d_gates = m.concat(d_gh, 0)
    h_prev = m.concat([entry[0] for entry in tape], 0)
    return m.concat(d_gi, 0), dh0, dc0, d_gates.T @ h_prev, d_gates.sum(0)


class RecurrentLayer(Function):
    """``recurrent_layer``'s operation (see the module docstring).  Its node carries the name
    of what PyTorch shows on a layer's output: ``StackBackward0`` for a padded batch (the
    steps stacked), ``CatBackward0`` for packed rows, ``MkldnnRnnLayerBackward0`` for a
    float32 LSTM on a padded batch (the subclasses below)."""

    _backward_name = "StackBackward0"

    @staticmethod
    def forward(ctx, proj: Tensor, h0: Tensor, c0: Optional[Tensor], w_hh: Tensor, b_hh: Optional[Tensor],
                sizes: list, reverse: bool, padded: bool) -> tuple:
        ctx.save_for_backward(proj, h0, c0, w_hh, b_hh)
        ctx.sizes, ctx.reverse = sizes, reverse
        m = array_math(h0._backend.xp)
        outs, h, c, ctx.tape = _run(m, proj._data, h0._data, None if c0 is None else c0._data, w_hh._data,
                                    None if b_hh is None else b_hh._data, sizes, reverse)
        out = m.concat(outs, 0)
        if padded:
            out = out.reshape(len(sizes), sizes[0], out.shape[-1])
        if c0 is None:
            return new_result(out, h0), new_result(h, h0)
        return new_result(out, h0), new_result(h, h0), new_result(c, h0)

    @staticmethod
    def backward(ctx, g_out: Tensor, g_h: Tensor, g_c: Optional[Tensor] = None) -> tuple:
        proj, h0, c0, w_hh, b_hh = ctx.saved_tensors
        g_out = g_out.reshape(-1, g_out.shape[-1])
        if grad_mode._state.enabled:  # create_graph: replay the forward as tensor operations
            m = TensorMath(g_out)
            tape = _run(m, proj, h0, c0, w_hh, b_hh, ctx.sizes, ctx.reverse)[3]
            w = w_hh
        else:
            m = array_math(g_out._backend.xp)
            tape, w = ctx.tape, w_hh._data
            g_out, g_h = g_out._data, g_h._data
            g_c = None if g_c is None else g_c._data
        d_proj, dh0, dc0, d_w, d_b = _bptt(m, tape, g_out, g_h, g_c, w, ctx.sizes, ctx.reverse)
        if not grad_mode._state.enabled:
            d_proj, dh0, d_w, d_b = (new_result(a, h0) for a in (d_proj, dh0, d_w, d_b))
            dc0 = None if dc0 is None else new_result(dc0, h0)
        return d_proj, dh0, dc0, d_w, (d_b if b_hh is not None else None), None, None, None


class _PackedRecurrentLayer(RecurrentLayer):
    _backward_name = "CatBackward0"


class _OneDnnRecurrentLayer(RecurrentLayer):
    _backward_name = "MkldnnRnnLayerBackward0"


def recurrent_layer(proj: Tensor, h0: Tensor, c0: Optional[Tensor], w_hh: Tensor, b_hh: Optional[Tensor],
                    sizes: list, reverse: bool, padded: bool) -> tuple:
    """One direction of a GRU (``c0`` None) or LSTM layer over every step: ``(output, h_n[, c_n])``.

    ``proj``: the input part ``W_ih x + b_ih`` of every step, packed rows (R, G·H); ``h0``,
    ``c0``: the initial state, ``sizes[0]`` rows; ``output``: the steps' ``h``, as packed
    rows, or (L, N, H) when ``padded``."""
    if not padded:
        cls = _PackedRecurrentLayer
    elif c0 is not None and h0.dtype.name == "float32":
        cls = _OneDnnRecurrentLayer
    else:
        cls = RecurrentLayer
    return cls.apply(proj, h0, c0, w_hh, b_hh, sizes, reverse, padded)
