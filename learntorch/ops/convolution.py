"""2-D convolution and max pooling: the maths behind ``nn.Conv2d`` and ``nn.MaxPool2d``.

A convolution slides a small ``(out, in, kh, kw)`` filter bank over an image
``(N, C, H, W)``.  Written as loops it is slow; written as one matrix product it
is the ``Linear`` layer again:

1. **im2col** — for every kernel offset ``(i, j)`` take the strided slice of the
   (zero-padded) input that this offset sees at every output position.  Stacked,
   the slices form ``cols`` of shape ``(N, C, kh, kw, H_out, W_out)``; there are only
   ``kh·kw`` slices, so the Python loop is short and the work happens in NumPy/CuPy.
2. **product** — ``out[n, o, y, x] = Σ_{c,i,j} cols[n, c, i, j, y, x] · w[o, c, i, j]``,
   one ``tensordot``.

The backward follows from the product rule of a matrix product, as for ``Linear``:
``grad_w = Σ_{n,y,x} grad · cols`` and ``grad_cols = grad · w``, whose slices are
added back (col2im) onto the positions of the input they came from -- added, because
overlapping windows read the same pixel several times.

Max pooling stacks the same windows and keeps each one's maximum; its gradient goes
only to the position that won (the first one, on ties, as in PyTorch).

The code uses NumPy's API (``pad``, ``tensordot``), which CuPy shares: it runs on the
CPU and on a real GPU, not on the array-API stand-in for CUDA.

Results agree with PyTorch to float32 rounding: PyTorch's kernels (oneDNN) add the
products in another order.  A plain backward works on the arrays; under
``create_graph=True`` the backwards are Functions themselves (the adjoint of each
linear map is the other one), so convolution and pooling can be differentiated twice.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union

from .. import autocast_state, dtypes
from .autocast import lower_precision
from ..autograd.function import Function
from .common import check_same_device, new_result
from .formula import differentiable_backward
from ..tensor import Tensor
from .shape import stack

__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "pair"]

IntOrPair = Union[int, Sequence[int]]


def pair(value: IntOrPair) -> tuple[int, int]:
    """``3`` → ``(3, 3)``; ``(3, 5)`` stays."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"expected an int or a pair of ints, got {value}")
        return int(value[0]), int(value[1])
    return int(value), int(value)


def _out_size(size: int, k: int, stride: int, pad: int, dil: int, ceil_mode: bool = False) -> int:
    span = size + 2 * pad - dil * (k - 1) - 1
    if not ceil_mode:
        return span // stride + 1
    out = math.ceil(span / stride) + 1
    if (out - 1) * stride >= size + pad:  # the last window must start inside the input or the left padding
        out -= 1
    return out


def _windows(xp: Any, xpad: Any, kernel: tuple, stride: tuple, dil: tuple, out_hw: tuple) -> Any:
    """im2col: ``(N, C, kh, kw, H_out, W_out)``, the input each kernel offset sees."""
    (kh, kw), (sh, sw), (dh, dw), (ho, wo) = kernel, stride, dil, out_hw
    rows = []
    for i in range(kh):
        row = [xpad[:, :, i * dh: i * dh + sh * (ho - 1) + 1: sh, j * dw: j * dw + sw * (wo - 1) + 1: sw]
               for j in range(kw)]
        rows.append(xp.stack(row, axis=2))
    return xp.stack(rows, axis=2)


def _add_windows(xp: Any, cols: Any, padded_shape: tuple, kernel: tuple, stride: tuple, dil: tuple) -> Any:
    """col2im: the adjoint of :func:`_windows`; overlapping windows add up."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dil
    ho, wo = cols.shape[-2:]
    out = xp.zeros(padded_shape, dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
            out[:, :, rows, j * dw: j * dw + sw * (wo - 1) + 1: sw] += cols[:, :, i, j]
    return out


def _pad(xp: Any, x: Any, pad: tuple, value: float = 0.0, extra: tuple = (0, 0)) -> Any:
    (ph, pw), (eh, ew) = pad, extra
    if ph == pw == eh == ew == 0:
        return x
    return xp.pad(x, ((0, 0), (0, 0), (ph, ph + eh), (pw, pw + ew)), constant_values=value)


def _conv_arrays(xp: Any, x: Any, w: Any, stride: tuple, padding: tuple, dilation: tuple, groups: int) -> tuple:
    """The convolution on arrays: ``(out (N, out, H_out, W_out), cols, padded input shape)``."""
    kernel = tuple(w.shape[2:])
    out_hw = tuple(_out_size(s, k, st, p, d) for s, k, st, p, d in zip(x.shape[2:], kernel, stride, padding,
                                                                       dilation))
    xpad = _pad(xp, x, padding)
    cols = _windows(xp, xpad, kernel, stride, dilation, out_hw)
    c_in, c_out = x.shape[1] // groups, w.shape[0] // groups
    outs = [xp.tensordot(cols[:, g * c_in:(g + 1) * c_in], w[g * c_out:(g + 1) * c_out],
                         axes=([1, 2, 3], [1, 2, 3])) for g in range(groups)]
    out = xp.concatenate(outs, axis=-1) if groups > 1 else outs[0]  # (N, H_out, W_out, out)
    return xp.ascontiguousarray(xp.transpose(out, (0, 3, 1, 2))), cols, xpad.shape


def _grad_input_arrays(xp: Any, g: Any, w: Any, x_shape: tuple, stride: tuple, padding: tuple, dilation: tuple,
                       groups: int) -> Any:
    """∂L/∂x from ∂L/∂out: each output's gradient times the filter, added back onto the
    input positions its window read (col2im) -- a transposed convolution."""
    kernel = tuple(w.shape[2:])
    c_out = w.shape[0] // groups
    parts = [xp.tensordot(g[:, k * c_out:(k + 1) * c_out], w[k * c_out:(k + 1) * c_out], axes=([1], [0]))
             for k in range(groups)]  # each (N, H_out, W_out, c_in, kh, kw)
    gcols = xp.transpose(xp.concatenate(parts, axis=3) if groups > 1 else parts[0], (0, 3, 4, 5, 1, 2))
    (ph, pw), (h, wd) = padding, x_shape[2:]
    padded_shape = tuple(x_shape[:2]) + (h + 2 * ph, wd + 2 * pw)
    full = _add_windows(xp, gcols, padded_shape, kernel, stride, dilation)
    return xp.ascontiguousarray(full[:, :, ph:ph + h, pw:pw + wd])


def _grad_weight_arrays(xp: Any, g: Any, cols: Any, groups: int) -> Any:
    """∂L/∂w from ∂L/∂out and the input's windows: Σ over batch and positions of grad · window."""
    c_in, c_out = cols.shape[1] // groups, g.shape[1] // groups
    parts = [xp.tensordot(g[:, k * c_out:(k + 1) * c_out], cols[:, k * c_in:(k + 1) * c_in],
                          axes=([0, 2, 3], [0, 4, 5])) for k in range(groups)]
    return xp.concatenate(parts, axis=0) if groups > 1 else parts[0]


def _windows_of(xp: Any, x: Any, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                out_hw: tuple) -> Any:
    return _windows(xp, _pad(xp, x, padding), kernel, stride, dilation, out_hw)


class Convolution(Function):
    """``conv2d`` as im2col + tensordot; ``groups`` split the channels into independent convolutions.

    Backward: a plain backward works on the arrays (reusing forward's im2col windows);
    under ``create_graph=True`` it calls the two adjoint operations below, which are
    Functions themselves, so a convolution can be differentiated twice (WGAN-GP)."""

    _backward_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: tuple = (1, 1),
                padding: tuple = (0, 0), dilation: tuple = (1, 1), groups: int = 1) -> Tensor:
        xp = x._backend.xp
        out, cols, _ = _conv_arrays(xp, x._data, weight._data, stride, padding, dilation, groups)
        if bias is not None:
            out = out + bias._data.reshape(1, -1, 1, 1)
        ctx.cols, ctx.weight, ctx.x_shape = cols, weight, tuple(x.shape)
        ctx.save_for_backward(x, weight)
        ctx.args = (stride, padding, dilation, groups)
        return new_result(out.astype(x._data.dtype, copy=False), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        stride, padding, dilation, groups = ctx.args
        needs = ctx.needs_input_grad
        gx = gw = gb = None
        if differentiable_backward():
            x, w = ctx.saved_tensors
            if needs[0]:
                gx = ConvolutionBackwardInput.apply(grad, w, tuple(x.shape), ctx.args)
            if needs[1]:
                gw = ConvolutionBackwardWeight.apply(grad, x, tuple(w.shape), ctx.args)
            if len(needs) > 2 and needs[2]:
                gb = grad.sum((0, 2, 3))
            return gx, gw, gb
        xp = grad._backend.xp
        g, w = grad._data, ctx.weight._data
        if needs[0]:
            gx = new_result(_grad_input_arrays(xp, g, w, ctx.x_shape, stride, padding, dilation, groups), grad)
        if needs[1]:
            gw = new_result(_grad_weight_arrays(xp, g, ctx.cols, groups), grad)
        if len(needs) > 2 and needs[2]:
            gb = new_result(g.sum(axis=(0, 2, 3)), grad)
        return gx, gw, gb


class ConvolutionBackwardInput(Function):
    """``(grad, w) ↦ ∂L/∂x``, a transposed convolution; linear in each argument.  Its own
    backward: ∂/∂grad is the convolution of the incoming ``h`` with ``w``, ∂/∂w is the
    weight gradient of that convolution (``<Dx(g, w), h> = <g, conv(h, w)>``)."""

    _backward_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, w: Tensor, x_shape: tuple, args: tuple) -> Tensor:
        ctx.save_for_backward(grad, w)
        ctx.args = args
        return new_result(_grad_input_arrays(grad._backend.xp, grad._data, w._data, x_shape, *args), grad)

    @staticmethod
    def backward(ctx, h: Tensor) -> tuple:
        grad, w = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.args
        gg = Convolution.apply(h, w, stride=stride, padding=padding, dilation=dilation, groups=groups) \
            if ctx.needs_input_grad[0] else None
        gw = ConvolutionBackwardWeight.apply(grad, h, tuple(w.shape), ctx.args) if ctx.needs_input_grad[1] else None
        return gg, gw, None, None


class ConvolutionBackwardWeight(Function):
    """``(grad, x) ↦ ∂L/∂w``; linear in each argument.  Its backward: ∂/∂grad is the
    convolution of ``x`` with the incoming ``k``, ∂/∂x the input gradient of that one."""

    _backward_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, x: Tensor, w_shape: tuple, args: tuple) -> Tensor:
        stride, padding, dilation, groups = args
        ctx.save_for_backward(grad, x)
        ctx.args = args
        xp = grad._backend.xp
        cols = _windows_of(xp, x._data, tuple(w_shape[2:]), stride, padding, dilation, tuple(grad.shape[2:]))
        return new_result(_grad_weight_arrays(xp, grad._data, cols, groups), grad)

    @staticmethod
    def backward(ctx, k: Tensor) -> tuple:
        grad, x = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.args
        gg = Convolution.apply(x, k, stride=stride, padding=padding, dilation=dilation, groups=groups) \
            if ctx.needs_input_grad[0] else None
        gx = ConvolutionBackwardInput.apply(grad, k, tuple(x.shape), ctx.args) if ctx.needs_input_grad[1] else None
        return gg, gx, None, None


def _same_padding(kernel: tuple, dilation: tuple, stride: tuple) -> tuple[int, int]:
    if stride != (1, 1):
        raise ValueError("padding='same' is not supported for strided convolutions")
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    if any(t % 2 for t in totals):
        raise NotImplementedError("learntorch: padding='same' needs an odd kernel span (dilation·(k-1) even), "
                                  "since it pads both sides equally; pad the input with F.pad-like slicing yourself")
    return totals[0] // 2, totals[1] // 2


# The C++ type names PyTorch's convolution prints when the input and the bias disagree.
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                 "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}


def check_conv_dtypes(input: Tensor, weight: Tensor, bias: Optional[Tensor]) -> None:
    """PyTorch's (CPU) convolution checks, in its order and words: the bias against the input
    first (``Input type (double) and bias type (float) should be the same``: a float32 layer fed
    float64 data), then the weight (``expected scalar type Double but found Float``)."""
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({_C_TYPE_NAMES[input.dtype.name]}) and bias type "
                           f"({_C_TYPE_NAMES[bias.dtype.name]}) should be the same")
    if weight.dtype != input.dtype:
        names = dtypes.SCALAR_NAMES
        raise RuntimeError(f"expected scalar type {names.get(input.dtype.name, 'BFloat16')} but found "
                           f"{names.get(weight.dtype.name, 'BFloat16')}")


def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrPair = 1,
           padding: Union[IntOrPair, str] = 0, dilation: IntOrPair = 1, groups: int = 1) -> Tensor:
    """2-D convolution (really cross-correlation, as in every deep-learning library) of
    ``input`` ``(N, C, H, W)`` -- or ``(C, H, W)`` -- with ``weight`` ``(out, C/groups, kh, kw)``."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(conv2d, input, weight, bias, stride, padding, dilation, groups)
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{list(input.shape)}")
    if input.dim() == 3:
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    check_same_device(input, weight)
    stride, dilation = pair(stride), pair(dilation)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of ['valid', 'same']")
        padding = (0, 0) if padding == "valid" else _same_padding(tuple(weight.shape[2:]), dilation, stride)
    padding = pair(padding)
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got "
                           f"{input.shape[1]} channels instead")
    check_conv_dtypes(input, weight, bias)
    for size, k, p, d in zip(input.shape[2:], weight.shape[2:], padding, dilation):
        if size + 2 * p < d * (k - 1) + 1:
            raise RuntimeError(f"Calculated padded input size per channel: ({input.shape[2] + 2 * padding[0]} x "
                               f"{input.shape[3] + 2 * padding[1]}). Kernel size: ({weight.shape[2]} x "
                               f"{weight.shape[3]}). Kernel size can't be greater than actual input size")
    args = (input, weight) if bias is None else (input, weight, bias)
    return Convolution.apply(*args, stride=stride, padding=padding, dilation=dilation, groups=groups)


class MaxPool2DWithIndices(Function):
    """The maximum of each window; the gradient goes back to the winning position only."""

    _backward_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, kernel: tuple = (2, 2), stride: tuple = (2, 2), padding: tuple = (0, 0),
                dilation: tuple = (1, 1), ceil_mode: bool = False) -> tuple:
        xp = x._backend.xp
        h, w = x.shape[2:]
        out_hw = tuple(_out_size(s, k, st, p, d, ceil_mode) for s, k, st, p, d in zip((h, w), kernel, stride,
                                                                                   padding, dilation))
        # a ceil_mode window may run past the padding on the right: pad that much more with -inf
        extra = tuple(max(0, (o - 1) * st + d * (k - 1) + 1 - (s + 2 * p))
                      for o, st, d, k, s, p in zip(out_hw, stride, dilation, kernel, (h, w), padding))
        xpad = _pad(xp, x._data, padding, -xp.inf, extra)
        win = _windows(xp, xpad, kernel, stride, dilation, out_hw)
        n, c = x.shape[:2]
        flat = win.reshape(n, c, kernel[0] * kernel[1], *out_hw)
        arg = xp.argmax(flat, axis=2)  # first maximum, as PyTorch picks
        out = xp.take_along_axis(flat, arg[:, :, None], axis=2)[:, :, 0]
        # the flat index (into H·W of the unpadded input) of each winner: PyTorch's `indices`
        ki, kj = arg // kernel[1], arg % kernel[1]
        oy = xp.arange(out_hw[0]).reshape(1, 1, -1, 1)
        ox = xp.arange(out_hw[1]).reshape(1, 1, 1, -1)
        rows = oy * stride[0] + ki * dilation[0] - padding[0]
        cols = ox * stride[1] + kj * dilation[1] - padding[1]
        indices = (rows * w + cols).astype("int64")
        ctx.indices, ctx.x_shape = indices, tuple(x.shape)
        idx = new_result(indices, x)
        ctx.mark_non_differentiable(idx)
        return new_result(xp.ascontiguousarray(out), x), idx

    @staticmethod
    def backward(ctx, grad: Tensor, _grad_indices: Any = None) -> Tensor:
        if differentiable_backward():
            return MaxPool2DBackward.apply(grad, ctx.indices, ctx.x_shape)
        return new_result(_scatter_to_winners(grad._backend, grad._data, ctx.indices, ctx.x_shape), grad)


def _scatter_to_winners(be: Any, g: Any, indices: Any, x_shape: tuple) -> Any:
    """Each window's gradient, added at the input position that won (windows may overlap)."""
    xp = be.xp
    n, c, h, w = x_shape
    out = xp.zeros((n * c, h * w), dtype=g.dtype)
    idx = indices.reshape(n * c, -1)
    rows = xp.repeat(xp.arange(n * c), idx.shape[1])
    out = be.scatter_add(out, (rows, idx.reshape(-1)), g.reshape(-1))
    return out.reshape(n, c, h, w)


class MaxPool2DBackward(Function):
    """Max pooling's backward as an operation (for ``create_graph=True``): scatter the
    gradient to the winners.  It is linear in the gradient; its own backward gathers
    the incoming gradient at the same winners (and gives the input nothing, as in PyTorch)."""

    _backward_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, indices: Any, x_shape: tuple) -> Tensor:
        ctx.indices, ctx.grad_shape = indices, tuple(grad.shape)
        return new_result(_scatter_to_winners(grad._backend, grad._data, indices, x_shape), grad)

    @staticmethod
    def backward(ctx, h: Tensor) -> tuple:
        return MaxPool2DGather.apply(h, ctx.indices, ctx.grad_shape, tuple(h.shape)), None, None


class MaxPool2DGather(Function):
    """The adjoint of :class:`MaxPool2DBackward`: read ``h`` at each window's winner."""

    _backward_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, h: Tensor, indices: Any, out_shape: tuple, x_shape: tuple) -> Tensor:
        xp = h._backend.xp
        n, c = out_shape[:2]
        idx = indices.reshape(n * c, -1)
        picked = xp.take_along_axis(h._data.reshape(n * c, -1), idx, axis=1)
        ctx.indices, ctx.x_shape = indices, x_shape
        return new_result(xp.ascontiguousarray(picked.reshape(out_shape)), h)

    @staticmethod
    def backward(ctx, g: Tensor) -> tuple:
        return MaxPool2DBackward.apply(g, ctx.indices, ctx.x_shape), None, None, None


def max_pool2d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
               dilation: IntOrPair = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum over each ``kernel_size`` window (``stride`` defaults to the kernel size)."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, but got {list(input.shape)}")
    if input.dim() == 3:
        out = max_pool2d(input.unsqueeze(0), kernel_size, stride, padding, dilation, ceil_mode, True)
        out = (out[0].squeeze(0), out[1].squeeze(0))
        return out if return_indices else out[0]
    kernel = pair(kernel_size)
    stride = kernel if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else pair(stride)
    padding, dilation = pair(padding), pair(dilation)
    if any(p > k // 2 for p, k in zip(padding, kernel)):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={padding[0]}, "
                           f"kernel_size={kernel[0]} and dilation={dilation[0]}")
    out, indices = MaxPool2DWithIndices.apply(input, kernel=kernel, stride=stride, padding=padding,
                                              dilation=dilation, ceil_mode=ceil_mode)
    return (out, indices) if return_indices else out


# ---------------------------------------------------------------------------- average pooling
class AvgPool2D(Function):
    """The mean of each window (zero padding counted, unless ``count_include_pad=False``);
    backward spreads each output gradient evenly over its window."""

    _backward_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, kernel: tuple = (2, 2), stride: tuple = (2, 2), padding: tuple = (0, 0),
                count_include_pad: bool = True, divisor_override: Optional[int] = None) -> Tensor:
        xp = x._backend.xp
        out_hw = tuple(_out_size(s, k, st, p, 1) for s, k, st, p in zip(x.shape[2:], kernel, stride, padding))
        xpad = _pad(xp, x._data, padding)
        win = _windows(xp, xpad, kernel, stride, (1, 1), out_hw)
        if divisor_override:
            divisor = xp.full(out_hw, float(divisor_override))
        elif count_include_pad:
            divisor = xp.full(out_hw, float(kernel[0] * kernel[1]))
        else:  # count the real (unpadded) cells of each window
            ones = _pad(xp, xp.ones((1, 1) + tuple(x.shape[2:]), dtype=x._data.dtype), padding)
            divisor = _windows(xp, ones, kernel, stride, (1, 1), out_hw).sum(axis=(2, 3))[0, 0]
        divisor = divisor.astype(x._data.dtype)
        ctx.args = (kernel, stride, padding, xpad.shape, tuple(x.shape), divisor)
        ctx.options = dict(kernel=kernel, stride=stride, padding=padding, count_include_pad=count_include_pad,
                           divisor_override=divisor_override)
        return new_result(xp.ascontiguousarray(win.sum(axis=(2, 3)) / divisor), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        if differentiable_backward():
            return AvgPool2DBackward.apply(grad, ctx.args, ctx.options)
        return new_result(_spread_over_windows(grad._backend.xp, grad._data, *ctx.args), grad)


def _spread_over_windows(xp: Any, g: Any, kernel: tuple, stride: tuple, padding: tuple, padded_shape: tuple,
                         x_shape: tuple, divisor: Any) -> Any:
    """Average pooling's backward on arrays: each cell of a window gets ``grad / divisor``."""
    share = g / divisor
    cols = xp.broadcast_to(share[:, :, None, None], share.shape[:2] + kernel + share.shape[2:])
    full = _add_windows(xp, cols, padded_shape, kernel, stride, (1, 1))
    (ph, pw), (h, w) = padding, x_shape[2:]
    return xp.ascontiguousarray(full[:, :, ph:ph + h, pw:pw + w])


class AvgPool2DBackward(Function):
    """Average pooling's backward as an operation (for ``create_graph=True``).  It is
    linear, and its adjoint is average pooling itself with the same options."""

    _backward_name = "AvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad: Tensor, args: tuple, options: dict) -> Tensor:
        ctx.options = options
        return new_result(_spread_over_windows(grad._backend.xp, grad._data, *args), grad)

    @staticmethod
    def backward(ctx, h: Tensor) -> tuple:
        return AvgPool2D.apply(h, **ctx.options), None, None


def avg_pool2d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    """The mean over each ``kernel_size`` window (``stride`` defaults to the kernel size)."""
    if input.dim() == 3:
        return avg_pool2d(input.unsqueeze(0), kernel_size, stride, padding, ceil_mode, count_include_pad,
                          divisor_override).squeeze(0)
    if input.dim() != 4:
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, but got {list(input.shape)}")
    if ceil_mode:
        raise NotImplementedError("learntorch's avg_pool2d does not implement ceil_mode=True")
    kernel = pair(kernel_size)
    stride = kernel if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else pair(stride)
    padding = pair(padding)
    if any(p > k // 2 for p, k in zip(padding, kernel)):
        raise RuntimeError("pad should be at most half of effective kernel size, but got pad="
                           f"{padding[0]}, kernel_size={kernel[0]} and dilation=1")
    return AvgPool2D.apply(input, kernel=kernel, stride=stride, padding=padding,
                           count_include_pad=count_include_pad, divisor_override=divisor_override)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average into a fixed ``output_size`` grid whatever the input size: cell ``i`` covers rows
    ``floor(i·H/out)`` to ``ceil((i+1)·H/out)`` (PyTorch's rule; cells may overlap)."""
    size = output_size if isinstance(output_size, (tuple, list)) else (output_size, output_size)
    h, w = input.shape[-2:]
    oh, ow = (h if size[0] is None else size[0]), (w if size[1] is None else size[1])
    if h % oh == 0 and w % ow == 0:  # equal, non-overlapping windows: an ordinary average pool
        return avg_pool2d(input, (h // oh, w // ow))
    rows = [(i * h // oh, -(-(i + 1) * h // oh)) for i in range(oh)]
    cols = [(j * w // ow, -(-(j + 1) * w // ow)) for j in range(ow)]
    cells = [stack([input[..., r0:r1, c0:c1].mean(dim=(-2, -1)) for c0, c1 in cols], -1) for r0, r1 in rows]
    return stack(cells, -2)
