"""Recurrent layers: ``nn.RNN``, ``nn.GRU``, ``nn.LSTM`` and their one-step cells.

A recurrent layer (循环层) reads a sequence one time step at a time and carries
a hidden state ``h`` from each step to the next.  What happens inside one step
is the *cell*; everything else — several layers stacked, a second direction
reading the sequence backwards, dropout between layers, packed batches of
sequences of different lengths — is the same machinery for all three, in
:class:`RNNBase`.

The cells, with PyTorch's equations (``W_i*`` act on the input ``x``, ``W_h*``
on the previous hidden state ``h``; each weight matrix stacks its gates):

* RNN: ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` (or ``relu``);
* GRU (gates stacked r, z, n)::

      r = σ(W_ir x + b_ir + W_hr h + b_hr)          reset gate   (重置门)
      z = σ(W_iz x + b_iz + W_hz h + b_hz)          update gate  (更新门)
      n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))  candidate
      h' = (1 − z) ⊙ n + z ⊙ h                      computed as (h − n) ⊙ z + n

* LSTM (gates stacked i, f, g, o)::

      i, f, o = σ(…), g = tanh(…)    c' = f ⊙ c + i ⊙ g    h' = o ⊙ tanh(c')

Step by step (``_run_direction``), everything is composed from Tensor operations,
so autograd differentiates it (backpropagation through time).  One trick for
speed: the input part ``W_ih x + b_ih`` does not depend on ``h``, so it is computed
for *all* time steps with one matrix product per layer and direction; only
``W_hh h`` runs inside the loop over time.  A GRU or LSTM layer on the CPU goes
further, as PyTorch's kernels do: each direction of a layer is one operation
whose backward is BPTT written out (``ops/rnn_layer.py``, ``_run_layer``).

Packed input
------------
A padded batch is handled as a packed one whose ``batch_sizes`` are all N.
At time step t the layer runs on the first ``batch_sizes[t]`` rows (sequences
are sorted longest first), so a sequence's hidden state stops changing after
its last real element: ``h_n`` holds each sequence's own last state, not the
state after the padding.  The backward direction starts each sequence at its
own last element.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional

from ... import warn_always
from ... import autocast_state, creation, dtypes
from ...autograd.grad_mode import no_grad
from ...ops.autocast import lower_precision, without_autocast
from ...ops.matmul import addmm
from ...ops.rnn_cells import gru_cell, lstm_cell, lstm_cell_state, lstm_layer_output
from ...ops.rnn_layer import recurrent_layer
from ...ops.shape import cat, stack
from ...tensor import Tensor
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module
from ..functional import dropout

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


# ----------------------------------------------------------------------------- the cells
# A cell works on ``gi``, the input projection W_ih x + b_ih of one time step, already cut
# into the column blocks the cell wants (``columns``), and on a state tuple: (h,) or (h, c).
class _RNNCellMath:
    """``h' = act(W_hh h + b_hh + gi)``."""

    def __init__(self, nonlinearity: str) -> None:
        self.nonlinearity = nonlinearity

    @staticmethod
    def columns(proj: Tensor, hidden_size: int) -> tuple:
        return (proj,)

    def step(self, gi: tuple, state: tuple, w_hh_t: Tensor, b_hh: Optional[Tensor],
             w_hr_t: Optional[Tensor]) -> tuple:
        pre = state[0].matmul(w_hh_t)
        if b_hh is not None:
            pre = pre + b_hh
        pre = pre + gi[0]
        return (pre.tanh() if self.nonlinearity == "tanh" else pre.relu(),)


class _GRUCellMath:
    """PyTorch's GRU step (``aten/src/ATen/native/RNN.cpp``, GRUCell): the hidden part
    ``W_hh h + b_hh`` here, the gates in one fused operation (``ops/rnn_cells.py``)."""

    @staticmethod
    def columns(proj: Tensor, hidden_size: int) -> tuple:
        return (proj,)  # the gates take the input part whole (blocks r, z, n)

    @staticmethod
    def step(gi: tuple, state: tuple, w_hh_t: Tensor, b_hh: Optional[Tensor], w_hr_t: Optional[Tensor]) -> tuple:
        h = state[0]
        gh = h.matmul(w_hh_t) if b_hh is None else addmm(b_hh, h, w_hh_t)  # W_hh h + b_hh
        return (gru_cell(gi[0], gh, h),)      # h' = (1 - z) * n + z * h


class _LSTMCellMath:
    """PyTorch's LSTM step, with the optional projection ``h' = W_hr h'`` (``proj_size``).

    ``h_from_mul``: ``nn.LSTMCell`` returns its ``(h', c')`` to the user, who sees their
    ``grad_fn``: there ``h' = o * tanh(c')`` is its own ``mul`` (MulBackward0, as in PyTorch's
    CPU cell).  Inside ``nn.LSTM`` no one sees a step's nodes, and the fully fused step saves
    one node per step."""

    def __init__(self, h_from_mul: bool = False) -> None:
        self.h_from_mul = h_from_mul

    @staticmethod
    def columns(proj: Tensor, hidden_size: int) -> tuple:
        return (proj,)

    def step(self, gi: tuple, state: tuple, w_hh_t: Tensor, b_hh: Optional[Tensor],
             w_hr_t: Optional[Tensor]) -> tuple:
        h, c = state
        gh = h.matmul(w_hh_t) if b_hh is None else addmm(b_hh, h, w_hh_t)  # W_hh h + b_hh
        if self.h_from_mul:
            c, o, tanh_c = lstm_cell_state(gi[0], gh, c)  # c' = f * c + i * g
            h = o * tanh_c                                # h' = o * tanh(c')
        else:
            h, c = lstm_cell(gi[0], gh, c)            # c' = f * c + i * g,  h' = o * tanh(c')
        if w_hr_t is not None:
            h = h.matmul(w_hr_t)
        return (h, c)


_CELLS = {"RNN_TANH": _RNNCellMath("tanh"), "RNN_RELU": _RNNCellMath("relu"), "GRU": _GRUCellMath(),
          "LSTM": _LSTMCellMath(), "LSTMCell": _LSTMCellMath(h_from_mul=True)}
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


def _split_state(state: tuple, rows: int) -> tuple[tuple, tuple]:
    """(the first ``rows`` rows, the rest) of every tensor of a state."""
    pieces = [s.split([rows, s.shape[0] - rows], 0) for s in state]
    return tuple(p[0] for p in pieces), tuple(p[1] for p in pieces)


def _cat_states(states: list) -> tuple:
    if len(states) == 1:
        return states[0]
    return tuple(cat([s[k] for s in states], 0) for k in range(len(states[0])))


def _run_direction(cell: Any, x: Tensor, sizes: list, state0: tuple, weights: dict, hidden_size: int,
                   reverse: bool) -> tuple[list, tuple]:
    """One layer, one direction, over a packed 2-D input ``x`` (rows laid out time step by
    time step, ``sizes[t]`` rows at step t, non-increasing).  Returns the output of every
    time step, in time order (the caller joins them), and the final state of every sequence."""
    proj = x.matmul(weights["weight_ih"].t())          # all time steps at once
    if weights.get("bias_ih") is not None:
        proj = proj + weights["bias_ih"]
    blocks = [b.split(sizes, 0) for b in cell.columns(proj, hidden_size)]
    steps = list(zip(*blocks))                         # steps[t]: the column blocks of step t
    w_hh_t = weights["weight_hh"].t()
    b_hh = weights.get("bias_hh")
    w_hr = weights.get("weight_hr")
    w_hr_t = w_hr.t() if w_hr is not None else None
    outs = []
    if not reverse:
        state, finished = state0, []
        for t, gi in enumerate(steps):
            if sizes[t] < state[0].shape[0]:           # some sequences ended: keep their last state
                state, done = _split_state(state, sizes[t])
                finished.append(done)
            state = cell.step(gi, state, w_hh_t, b_hh, w_hr_t)
            outs.append(state[0])
        finished.append(state)
        final = _cat_states(finished[::-1])
    else:
        state = _split_state(state0, sizes[-1])[0] if sizes[-1] < state0[0].shape[0] else state0
        for t in range(len(steps) - 1, -1, -1):
            have = state[0].shape[0]
            if sizes[t] > have:                        # longer sequences start here (at their end)
                start = tuple(s[have:sizes[t]] for s in state0)
                state = _cat_states([state, start])
            state = cell.step(steps[t], state, w_hh_t, b_hh, w_hr_t)
            outs.append(state[0])
        outs.reverse()
        final = state
    return outs, final


def _run_layer(x: Tensor, sizes: list, state0: tuple, weights: dict, reverse: bool, padded: bool) -> tuple:
    """:func:`_run_direction` for a GRU or LSTM, as one operation over all the steps
    (``ops/rnn_layer.py``): the input part for every step at once, then the recurrence.
    Returns the direction's whole output (packed rows, or (L, N, H) when ``padded``) and
    its final state."""
    proj = x.matmul(weights["weight_ih"].t())
    if weights.get("bias_ih") is not None:
        proj = proj + weights["bias_ih"]
    c0 = state0[1] if len(state0) == 2 else None
    out, *final = recurrent_layer(proj, state0[0], c0, weights["weight_hh"], weights.get("bias_hh"), sizes,
                                  reverse, padded)
    return out, tuple(final)


def _dropout(x: Tensor, p: float) -> Tensor:
    """Dropout between layers (training mode only), on the whole layer output: the mask is
    drawn as PyTorch draws it, so ``manual_seed`` gives PyTorch's mask."""
    return dropout(x, p, training=True)


# ----------------------------------------------------------------------------- the layers
class RNNBase(Module):
    """What RNN, GRU and LSTM share: parameters, initialisation, layers, directions, packing.

    Parameters are named as in PyTorch: ``weight_ih_l{k}``, ``weight_hh_l{k}``,
    ``bias_ih_l{k}``, ``bias_hh_l{k}`` (and ``weight_hr_l{k}`` for an LSTM with
    ``proj_size``), with the suffix ``_reverse`` for the backward direction.  Every
    parameter starts as U(-1/√hidden_size, 1/√hidden_size), drawn in registration order,
    so with the same seed they are PyTorch's numbers."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warn_always.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                             f"expects num_layers greater than 1, but got dropout={dropout} and "
                             f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                shapes = [("weight_ih", (gate_size, layer_input_size)), ("weight_hh", (gate_size, real_hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(creation.empty(*shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        with no_grad():
            for weight in self.parameters():
                weight.uniform_(-stdv, stdv)

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) if hasattr(self, name) else None for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters grouped per layer and direction: ``[[w_ih, w_hh, b_ih, b_hh], …]``."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """In PyTorch this packs the weights into one cuDNN buffer; there is nothing to do here."""

    # ------------------------------------------------------------------ checks (PyTorch's messages)
    def check_input(self, input: Tensor, batch_sizes: Optional[Tensor]) -> None:
        w_dtype = self._flat_weights[0].dtype
        if input.dtype != w_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w_dtype}). Convert "
                             f"input: input.to({w_dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Optional[Tensor]) -> tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Optional[Tensor]) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Any, permutation: Optional[Tensor]) -> Any:
        """Reorder the batch dimension of ``hx`` (packed input sorted by length)."""
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ------------------------------------------------------------------ the computation
    def _run(self, x: Tensor, sizes: list, states: list, padded: bool, weights: list) -> tuple[Tensor, list]:
        """All layers and directions on packed 2-D rows ``x``; ``states[k]`` is the initial state
        tuple of layer k // dirs, direction k % dirs.  Returns the last layer's output and the
        final state of every layer and direction (PyTorch's ``h_n`` order).

        The output is joined as PyTorch's CPU kernels join it, so that ``output.grad_fn`` is
        PyTorch's: packed rows stay 2-D rows (each direction's steps ``cat``-ed); a padded batch
        becomes (L, N, H) with each direction's steps ``stack``-ed (StackBackward0) and the two
        directions ``cat``-ed on the last dimension (CatBackward0).  ``weights[k]``: layer k // dirs,
        direction k % dirs's parameters by name (``weight_ih``, ``bias_hh`` ...)."""
        cell = _CELLS[self.mode]
        num_directions = 2 if self.bidirectional else 1
        # GRU and LSTM layers on NumPy in float32/float64 run each direction as one operation
        # (ops/rnn_layer.py, as PyTorch's CPU kernels do); the others step by step, below.
        whole_layer = (self.mode in ("GRU", "LSTM") and self.proj_size == 0 and x._backend.is_numpy
                       and x.dtype in (dtypes.float32, dtypes.float64))
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                if whole_layer:
                    out, final = _run_layer(x, sizes, states[k], weights[k], reverse=direction == 1, padded=padded)
                else:
                    steps, final = _run_direction(cell, x, sizes, states[k], weights[k], self.hidden_size,
                                                  reverse=direction == 1)
                    out = self._join_steps(steps, padded)
                outs.append(out)
                finals.append(final)
            y = cat(outs, outs[0].dim() - 1) if num_directions == 2 else outs[0]
            if self.dropout != 0 and self.training and layer < self.num_layers - 1:
                y = _dropout(y, self.dropout)
            x = y.reshape(-1, y.shape[-1]) if padded else y  # the next layer reads 2-D rows (a view)
        return y, finals

    @staticmethod
    def _check_run_args(x2d: Tensor, sizes: list, hx: Any, is_lstm: bool) -> None:
        """The checks of PyTorch's C++ kernels, after the Python ones of ``check_forward_args``: two
        states for an LSTM, at least one time step, and states of the input's dtype (a float64
        ``h_0`` for a float32 model is an error there, not a silent float64 result)."""
        if is_lstm and len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        if not sizes:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        for state in (hx if is_lstm else (hx,)):
            if state.dtype != x2d.dtype:
                names = dtypes.SCALAR_NAMES
                raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                                   f"{names.get(state.dtype.name, state.dtype.name)} and "
                                   f"{names.get(x2d.dtype.name, x2d.dtype.name)}")

    def _join_steps(self, steps: list, padded: bool) -> Tensor:
        """One direction's outputs, one per time step, as one tensor (see :meth:`_run`)."""
        if not padded:
            return cat(steps, 0) if len(steps) > 1 else steps[0]
        first = steps[0]
        if (self.mode == "LSTM" and self.proj_size == 0 and first.device.type == "cpu"
                and first.dtype in (dtypes.float32, dtypes.bfloat16)):
            return lstm_layer_output(steps)  # PyTorch: one oneDNN node for the layer
        return stack(steps, 0)

    def _zeros_state(self, input: Tensor, batch: int) -> Any:
        num_directions = 2 if self.bidirectional else 1
        real = self.proj_size if self.proj_size > 0 else self.hidden_size
        h = creation.zeros(self.num_layers * num_directions, batch, real, dtype=input.dtype, device=input.device)
        if self.mode != "LSTM":
            return h
        c = creation.zeros(self.num_layers * num_directions, batch, self.hidden_size, dtype=input.dtype,
                           device=input.device)
        return (h, c)

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, Any]:
        is_lstm = self.mode == "LSTM"
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        packed = isinstance(input, PackedSequence)
        if packed:
            data, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._zeros_state(data, int(batch_sizes[0]))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(data, hx, batch_sizes)
            sizes = [int(b) for b in batch_sizes.tolist()]
            x2d = data
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                tail = " tensor instead" if name == "RNN" else " instead"
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tail}")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if hx is not None:
                dims = (hx[0].dim(), hx[1].dim()) if is_lstm else (hx.dim(),)
                want = 3 if is_batched else 2
                if any(d != want for d in dims):
                    kind = "batched 3-D" if is_batched else "unbatched 2-D"
                    if is_lstm:
                        raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                                           f"({dims[0]}-D, {dims[1]}-D) tensors")
                    raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {dims[0]}-D tensor")
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1)) if is_lstm else hx.unsqueeze(1)
            if hx is None:
                hx = self._zeros_state(input, input.size(0) if self.batch_first else input.size(1))
            self.check_forward_args(input, hx, None)
            x = input.transpose(0, 1) if self.batch_first else input
            steps, batch = x.shape[0], x.shape[1]
            x2d = x.reshape(steps * batch, x.shape[2])
            sizes = [batch] * steps
        self._check_run_args(x2d, sizes, hx, is_lstm)
        states = list(zip(hx[0].unbind(0), hx[1].unbind(0))) if is_lstm else [(h,) for h in hx.unbind(0)]
        weights = [{name.split("_l")[0]: getattr(self, name) for name in names} for names in self._all_weights]
        if autocast_state.ACTIVE[0]:  # PyTorch's CPU autocast runs LSTM and RNN layers in bfloat16, GRU as it is
            run = without_autocast if self.mode == "GRU" else lower_precision
            output, finals = run(self._run, x2d, sizes, states, not packed, weights)
        else:
            output, finals = self._run(x2d, sizes, states, not packed, weights)
        hidden = stack([f[0] for f in finals], 0)
        if is_lstm:
            hidden = (hidden, stack([f[1] for f in finals], 0))
        if packed:
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if self.batch_first:
            # PyTorch's RNN and GRU kernels turn their fresh output in place (TransposeBackward1),
            # its LSTM kernels out of place (TransposeBackward0).
            output = output.transpose(0, 1) if is_lstm else output.transpose_(0, 1)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1)) if is_lstm else hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh)`` (``nonlinearity='relu'``
    for ReLU).  ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``; returns ``(output, h_n)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit.  ``GRU(input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``.

    Input (L, N, H_in) (``batch_first``: (N, L, H_in)), unbatched (L, H_in), or a
    :class:`PackedSequence`; ``h_0`` (num_layers·num_directions, N, H_out), zeros if omitted.
    Returns ``(output, h_n)``: output (L, N, num_directions·H_out) — both directions side by
    side in the last dimension — and ``h_n`` ordered layer 0 forward, layer 0 backward, layer 1 …"""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory.  ``LSTM(input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, proj_size=0)``; the state is a pair
    ``(h, c)`` and the result ``(output, (h_n, c_n))``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Optional[Tensor]) -> tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Optional[Tensor]) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: Any, permutation: Optional[Tensor]) -> Any:
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)


# ----------------------------------------------------------------------------- one-step cells
class RNNCellBase(Module):
    """One time step: ``weight_ih`` (chunks·hidden, input), ``weight_hh`` (chunks·hidden, hidden),
    ``bias_ih``, ``bias_hh``; all U(-1/√hidden, 1/√hidden) like the layers."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(creation.empty(num_chunks * hidden_size, input_size, device=device, dtype=dtype))
        self.weight_hh = Parameter(creation.empty(num_chunks * hidden_size, hidden_size, device=device,
                                                  dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        with no_grad():
            for weight in self.parameters():
                weight.uniform_(-stdv, stdv)

    def _step(self, mode: str, input: Tensor, state: tuple) -> tuple:
        weights = (self.weight_ih, self.bias_ih, self.weight_hh, self.bias_hh)
        if autocast_state.ACTIVE[0]:  # PyTorch's CPU autocast: an RNNCell in bfloat16, GRU/LSTM cells as they are
            run = lower_precision if mode.startswith("RNN") else without_autocast
            return run(self._cell_step, mode, input, state, weights)
        return self._cell_step(mode, input, state, weights)

    def _cell_step(self, mode: str, input: Tensor, state: tuple, weights: tuple) -> tuple:
        cell = _CELLS[mode]
        weight_ih, bias_ih, weight_hh, bias_hh = weights
        proj = input.matmul(weight_ih.t())
        if bias_ih is not None:
            proj = proj + bias_ih
        return cell.step(cell.columns(proj, self.hidden_size), state, weight_hh.t(), bias_hh, None)

    def _batch(self, name: str, input: Tensor, hx: Optional[Tensor]) -> tuple[Tensor, Optional[Tensor], bool]:
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        self._check_step(input, (hx,))
        return input, hx, is_batched

    def _check_step(self, input: Tensor, state: tuple) -> None:
        """PyTorch's checks of one step's sizes (``input`` and each state already batched), so a
        wrong input or hidden size is named as such instead of surfacing as a shape error of an
        inner matrix product or broadcast."""
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}")
        for index, hx in enumerate(state):
            if input.size(0) != hx.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{index} batch size "
                                   f"{hx.size(0)}")
            if hx.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{index} has inconsistent hidden_size: got {hx.size(1)}, expected "
                                   f"{self.hidden_size}")


class RNNCell(RNNCellBase):
    """``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` for one step (or ``nonlinearity='relu'``)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        input, hx, is_batched = self._batch("RNNCell", input, hx)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        (ret,) = self._step("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", input, (hx,))
        return ret if is_batched else ret.squeeze(0)


class GRUCell(RNNCellBase):
    """One GRU step (the equations of :class:`GRU`); returns ``h'``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        input, hx, is_batched = self._batch("GRUCell", input, hx)
        (ret,) = self._step("GRU", input, (hx,))
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; ``hx`` is ``(h, c)`` and so is the result."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Optional[tuple] = None) -> tuple[Tensor, Tensor]:
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        elif isinstance(hx, Tensor):
            raise TypeError("lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor")
        if len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        self._check_step(input, tuple(hx))
        h, c = self._step("LSTMCell", input, tuple(hx))
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))
