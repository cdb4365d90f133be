"""Convolution: the maths behind ``nn.Conv1d``/``2d``/``3d`` and the transposed convolutions.

A convolution slides a small ``(out, in, kh, kw)`` filter bank over an image
``(N, C, H, W)``.  Written as loops it is slow; written as one matrix product it
is the ``Linear`` layer again:

1. **im2col** — for every kernel offset ``(i, j)`` take the strided slice of the
   (zero-padded) input that this offset sees at every output position.  Stacked,
   the slices form ``cols`` of shape ``(N, C, kh, kw, H_out, W_out)``; there are only
   ``kh·kw`` slices, so the Python loop is short and the work happens in NumPy/CuPy.
2. **product** — ``out[n, o, y, x] = Σ_{c,i,j} cols[n, c, i, j, y, x] · w[o, c, i, j]``,
   one ``tensordot``.

Nothing here is special to two dimensions: a volume ``(N, C, D, H, W)`` with a
``(out, in, kd, kh, kw)`` kernel has offsets ``(i, j, l)`` and ``cols`` of shape
``(N, C, kd, kh, kw, D_out, H_out, W_out)``, so the helpers below take any number of
spatial dimensions (``conv3d``).  A 1-D signal is still computed as a one-pixel-high
image (see ``_image``), so that conv1d shares conv2d's tested path.

The backward follows from the product rule of a matrix product, as for ``Linear``:
``grad_w = Σ_{n,y,x} grad · cols`` and ``grad_cols = grad · w``, whose slices are
added back (col2im) onto the positions of the input they came from -- added, because
overlapping windows read the same pixel several times.

(Pooling slides windows the same way: ``ops/pooling.py`` and ``ops/pooling_nd.py``.)

The code uses NumPy's API (``pad``, ``tensordot``), which CuPy shares: it runs on the
CPU and on a real GPU, not on the array-API stand-in for CUDA.

Results agree with PyTorch to float32 rounding: PyTorch's kernels (oneDNN) add the
products in another order.  A plain backward works on the arrays; under
``create_graph=True`` the backwards are Functions themselves (the adjoint of each
linear map is the other one), so a convolution can be differentiated twice.
"""
from __future__ import annotations

import itertools
import math
import operator
from typing import Any, Optional, Sequence, Union

from .. import warn_always
from .. import autocast_state, dtypes
from .autocast import lower_precision
from ..autograd.function import Function
from .common import check_same_device, new_result
from .formula import differentiable_backward
from .padding import pad
from ..tensor import Tensor, channels_last_of, laid_out

__all__ = ["conv2d", "pair", "ntuple", "Convolution", "ConvolutionTranspose"]

IntOrPair = Union[int, Sequence[int]]


def pair(value: IntOrPair) -> tuple[int, int]:
    """``3`` → ``(3, 3)``; ``(3, 5)`` stays."""
    return ntuple(value, 2)


def ntuple(value: IntOrPair, n: int) -> tuple:
    """``3`` → ``(3,) * n``; a sequence of ``n`` ints stays (as a tuple): ``kernel_size=3`` of a
    ``Conv3d`` is ``(3, 3, 3)``.  A float (``padding=k / 2``) is PyTorch's TypeError:
    ``operator.index`` refuses it where ``int`` would truncate it."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
    if len(items) != n:
        raise ValueError(f"expected an int or a sequence of {n} ints, got {value}")
    try:
        return tuple(operator.index(v) for v in items)
    except TypeError:
        raise TypeError(f"expected an int or a sequence of {n} ints (a kernel size, stride, padding or dilation), "
                        f"got {value!r}: these count whole elements, so write k // 2, not k / 2") from None


def _out_size(size: int, k: int, stride: int, pad: int, dil: int, ceil_mode: bool = False) -> int:
    span = size + 2 * pad - dil * (k - 1) - 1
    if not ceil_mode:
        return span // stride + 1
    out = math.ceil(span / stride) + 1
    if (out - 1) * stride >= size + pad:  # the last window must start inside the input or the left padding
        out -= 1
    return out


_ALL = (slice(None), slice(None))  # every batch element and channel


def _window_indices(kernel: tuple, stride: tuple, dil: tuple, out_size: tuple) -> list:
    """For every kernel offset ``(i, j)`` (``(i, j, l)`` in 3-D; in the order of ``weight``'s last
    dimensions), the index of the (padded) input that this offset sees at every output position:
    per spatial dimension, every ``stride``-th element from ``offset·dilation``, ``out`` of them.

    The slices of each dimension are made once and combined with ``itertools.product``:
    this runs at every convolution, and for small inputs its Python cost is what one measures."""
    per_dim = [[slice(o * d, o * d + s * (n - 1) + 1, s) for o in range(k)]
               for k, d, s, n in zip(kernel, dil, stride, out_size)]
    return [_ALL + index for index in itertools.product(*per_dim)]


def _windows(xp: Any, xpad: Any, kernel: tuple, stride: tuple, dil: tuple, out_size: tuple) -> Any:
    """im2col: ``(N, C, *kernel, *out_size)``, the input each kernel offset sees.

    One strided slice per kernel offset (``kh·kw`` of them in 2-D, ``kd·kh·kw`` in 3-D), stacked
    once and reshaped: the loop is over the few kernel offsets, the work over the big slices."""
    slices = [xpad[index] for index in _window_indices(kernel, stride, dil, out_size)]
    return xp.stack(slices, axis=2).reshape(tuple(xpad.shape[:2]) + tuple(kernel) + tuple(out_size))


def _add_windows(xp: Any, cols: Any, padded_shape: tuple, kernel: tuple, stride: tuple, dil: tuple) -> Any:
    """col2im: the adjoint of :func:`_windows`; overlapping windows add up."""
    offsets = itertools.product(*map(range, kernel))  # (in _window_indices' order)
    out = xp.zeros(padded_shape, dtype=cols.dtype)
    for offset, index in zip(offsets, _window_indices(kernel, stride, dil, cols.shape[2 + len(kernel):])):
        out[index] += cols[_ALL + offset]
    return out


def _pad(xp: Any, x: Any, pad: tuple, value: float = 0.0) -> Any:
    """``x`` with ``pad[d]`` zeros (or ``value``) on both sides of spatial dimension ``d``."""
    if not any(pad):
        return x
    return xp.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in pad), constant_values=value)


def _spatial_axes(n: int, first: int) -> list:
    """The ``n`` axes from ``first`` on: where the spatial (or kernel) dimensions of an array sit."""
    return list(range(first, first + n))


def _conv_arrays(xp: Any, x: Any, w: Any, stride: tuple, padding: tuple, dilation: tuple, groups: int) -> tuple:
    """The convolution on arrays: ``(out (N, out, *out_size), cols, padded input shape)``."""
    kernel = tuple(w.shape[2:])
    n = len(kernel)
    out_size = tuple(_out_size(s, k, st, p, d) for s, k, st, p, d in zip(x.shape[2:], kernel, stride, padding,
                                                                         dilation))
    xpad = _pad(xp, x, padding)
    cols = _windows(xp, xpad, kernel, stride, dilation, out_size)
    c_in, c_out = x.shape[1] // groups, w.shape[0] // groups
    summed = _spatial_axes(n + 1, 1)  # the channel and the kernel offsets, in both arrays
    outs = [xp.tensordot(cols[:, g * c_in:(g + 1) * c_in], w[g * c_out:(g + 1) * c_out], axes=(summed, summed))
            for g in range(groups)]
    out = xp.concatenate(outs, axis=-1) if groups > 1 else outs[0]  # (N, *out_size, out)
    return xp.ascontiguousarray(xp.transpose(out, [0, n + 1] + _spatial_axes(n, 1))), cols, xpad.shape


def _grad_input_arrays(xp: Any, g: Any, w: Any, x_shape: tuple, stride: tuple, padding: tuple, dilation: tuple,
                       groups: int) -> Any:
    """∂L/∂x from ∂L/∂out: each output's gradient times the filter, added back onto the
    input positions its window read (col2im) -- a transposed convolution."""
    kernel = tuple(w.shape[2:])
    n = len(kernel)
    c_out = w.shape[0] // groups
    parts = [xp.tensordot(g[:, k * c_out:(k + 1) * c_out], w[k * c_out:(k + 1) * c_out], axes=([1], [0]))
             for k in range(groups)]  # each (N, *out_size, c_in, *kernel)
    gcols = xp.concatenate(parts, axis=n + 1) if groups > 1 else parts[0]
    gcols = xp.transpose(gcols, [0] + _spatial_axes(n + 1, n + 1) + _spatial_axes(n, 1))  # (N, C, *kernel, *out)
    spatial = x_shape[2:]
    padded_shape = tuple(x_shape[:2]) + tuple([s + 2 * p for s, p in zip(spatial, padding)])
    full = _add_windows(xp, gcols, padded_shape, kernel, stride, dilation)
    return xp.ascontiguousarray(full[_ALL + tuple([slice(p, p + s) for p, s in zip(padding, spatial)])])


def _grad_weight_arrays(xp: Any, g: Any, cols: Any, groups: int) -> Any:
    """∂L/∂w from ∂L/∂out and the input's windows: Σ over batch and positions of grad · window."""
    n = g.ndim - 2
    c_in, c_out = cols.shape[1] // groups, g.shape[1] // groups
    axes = ([0] + _spatial_axes(n, 2), [0] + _spatial_axes(n, n + 2))  # batch and output positions
    parts = [xp.tensordot(g[:, k * c_out:(k + 1) * c_out], cols[:, k * c_in:(k + 1) * c_in], axes=axes)
             for k in range(groups)]
    return xp.concatenate(parts, axis=0) if groups > 1 else parts[0]


def _windows_of(xp: Any, x: Any, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                out_hw: tuple) -> Any:
    return _windows(xp, _pad(xp, x, padding), kernel, stride, dilation, out_hw)


# A 1-D signal ``(N, C, L)`` is convolved as a one-pixel-high image ``(N, C, 1, L)`` (with
# stride, padding and dilation ``(1, s)``, ``(0, p)``, ``(1, d)``): the same Functions serve
# ``conv1d`` and ``conv2d``, so both have PyTorch's node names at every order of derivative.
def _image(a: Any) -> Any:
    """An array of a 1-D convolution ``(N, C, L)`` seen as ``(N, C, 1, L)``; 4-D arrays as they are."""
    return a[:, :, None, :] if a.ndim == 3 else a


def _image_shape(shape: tuple) -> tuple:
    """:func:`_image` for a shape."""
    return tuple(shape[:2]) + (1,) + tuple(shape[2:]) if len(shape) == 3 else tuple(shape)


def _signal(a: Any, ndim: int) -> Any:
    """Back from :func:`_image`: ``(N, C, 1, L)`` → ``(N, C, L)`` when the caller's tensors had 3 dimensions."""
    return a[:, :, 0, :] if ndim == 3 else a


def _bias_shape(out: Any) -> tuple:
    """``(1, C, 1, ...)``: the bias broadcast over the batch and every spatial position of ``out``."""
    return (1, -1) + (1,) * (out.ndim - 2)


def _leading(a: Any, size: tuple) -> Any:
    """The first ``size[d]`` positions of each spatial dimension ``d`` of the array ``a``."""
    return a[(Ellipsis,) + tuple(slice(0, s) for s in size)]


def _batch_and_space(t: Tensor) -> tuple:
    """The dimensions a bias gradient sums over: all but the channels."""
    return (0,) + tuple(range(2, t.dim()))


def _in_layout_of(out: Tensor, x: Tensor, weight: Tensor) -> Tensor:
    """``out``, laid out channels-last when the input or the weight is (PyTorch's convolutions keep
    a model converted with ``.to(memory_format=torch.channels_last)`` in that layout)."""
    fmt = channels_last_of(x, weight)
    return out if fmt is None else new_result(laid_out(out, fmt), x)


class Convolution(Function):
    """``conv2d`` as im2col + tensordot; ``groups`` split the channels into independent convolutions.

    Backward: a plain backward works on the arrays (reusing forward's im2col windows);
    under ``create_graph=True`` it calls the two adjoint operations below, which are
    Functions themselves, so a convolution can be differentiated twice (WGAN-GP)."""

    _backward_name = "ConvolutionBackward0"
    _none_edges = True  # no bias: still an input of the node, ``(None, 0)`` as in PyTorch

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: tuple = (1, 1),
                padding: tuple = (0, 0), dilation: tuple = (1, 1), groups: int = 1) -> Tensor:
        xp = x._backend.xp
        image = _image(x._data)
        out, cols, _ = _conv_arrays(xp, image, _image(weight._data), stride, padding, dilation, groups)
        if bias is not None:
            out = out + bias._data.reshape(_bias_shape(out))
        ctx.cols, ctx.weight, ctx.x_shape = cols, weight, image.shape
        ctx.save_for_backward(x, weight)
        ctx.args = (stride, padding, dilation, groups)
        return _in_layout_of(new_result(_signal(out, x.ndim).astype(x._data.dtype, copy=False), x), x, weight)

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
                gb = grad.sum(_batch_and_space(grad))
            return gx, gw, gb
        xp = grad._backend.xp
        g, w, ndim = _image(grad._data), _image(ctx.weight._data), grad.ndim
        if needs[0]:
            gx = _grad_input_arrays(xp, g, w, ctx.x_shape, stride, padding, dilation, groups)
            gx = new_result(xp.ascontiguousarray(_signal(gx, ndim)), grad)
        if needs[1]:
            gw = new_result(xp.ascontiguousarray(_signal(_grad_weight_arrays(xp, g, ctx.cols, groups), ndim)), grad)
        if len(needs) > 2 and needs[2]:
            gb = new_result(g.sum(axis=(0,) + tuple(range(2, g.ndim))), grad)
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
        gx = _grad_input_arrays(grad._backend.xp, _image(grad._data), _image(w._data), _image_shape(x_shape), *args)
        return new_result(_signal(gx, len(x_shape)), grad)

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
        g = _image(grad._data)
        cols = _windows_of(xp, _image(x._data), _image_shape(w_shape)[2:], stride, padding, dilation, g.shape[2:])
        return new_result(xp.ascontiguousarray(_signal(_grad_weight_arrays(xp, g, cols, groups), len(w_shape))), grad)

    @staticmethod
    def backward(ctx, k: Tensor) -> tuple:
        grad, x = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.args
        gg = _crop_to(Convolution.apply(x, k, stride=stride, padding=padding, dilation=dilation, groups=groups),
                      grad.shape) if ctx.needs_input_grad[0] else None
        gx = ConvolutionBackwardInput.apply(grad, k, tuple(x.shape), ctx.args) if ctx.needs_input_grad[1] else None
        return gg, gx, None, None


class ConvolutionOfGradient(Convolution):
    """A convolution computed *inside a backward* (of a transposed convolution): the same
    operation as :class:`Convolution`, under the node name PyTorch gives every derivative of
    a convolution, ``ConvolutionBackwardBackward0``.

    ``size``: the output positions to keep.  A transposed convolution with ``output_padding``
    ≥ ``stride`` (allowed when ``dilation`` is larger) has output positions that no input
    pixel reaches; convolving its gradient back gives one extra position per ``stride`` of
    them, which belongs to no input and is dropped (with its im2col windows, so that the
    inherited backward sees the kept ones only)."""

    _backward_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: tuple = (1, 1),
                padding: tuple = (0, 0), dilation: tuple = (1, 1), groups: int = 1,
                size: Optional[tuple] = None) -> Tensor:
        out = Convolution.forward(ctx, x, weight, bias, stride, padding, dilation, groups)
        if size is None or tuple(out.shape[2:]) == tuple(size):
            return out
        kept_size = _image_shape((0, 0) + tuple(size))[2:]
        ctx.cols = _leading(ctx.cols, kept_size)
        kept = _signal(_leading(_image(out._data), kept_size), x.ndim)
        return new_result(x._backend.xp.ascontiguousarray(kept), x)


class ConvolutionTranspose(Function):
    """``conv_transpose1d``/``2d``: a convolution run backwards.  Each input pixel spreads its
    value through the kernel onto a ``stride``-times larger output, which is exactly what the
    input gradient of a convolution does to an output gradient -- so the forward *is*
    :func:`_grad_input_arrays` (weight ``(C_in, C_out/groups, *k)`` read as the weight of a
    convolution from ``C_out`` to ``C_in`` channels), and ``out_size`` says which of the
    output sizes that fit (``output_padding``) is wanted.

    Backward follows from the adjoint identity ``<conv_transpose(x, w), h> = <x, conv(h, w)>``:
    ∂/∂x is the convolution of the incoming ``h`` with ``w``, ∂/∂w the weight gradient of that
    convolution.  Under ``create_graph=True`` both are Functions, so it has a second derivative."""

    _backward_name = "ConvolutionBackward0"
    _none_edges = True  # no bias: still an input of the node, ``(None, 0)`` as in PyTorch

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: tuple = (1, 1),
                padding: tuple = (0, 0), dilation: tuple = (1, 1), groups: int = 1,
                out_size: tuple = ()) -> Tensor:
        xp = x._backend.xp
        out_shape = _image_shape((x.shape[0], weight.shape[1] * groups) + tuple(out_size))
        out = _grad_input_arrays(xp, _image(x._data), _image(weight._data), out_shape, stride, padding, dilation,
                                 groups)
        if bias is not None:
            out = out + bias._data.reshape(_bias_shape(out))
        ctx.save_for_backward(x, weight)
        ctx.args = (stride, padding, dilation, groups)
        return _in_layout_of(new_result(xp.ascontiguousarray(_signal(out, x.ndim)).astype(x._data.dtype, copy=False),
                                        x), x, weight)

    @staticmethod
    def backward(ctx, h: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.args
        needs = ctx.needs_input_grad
        gx = gw = gb = None
        if differentiable_backward():
            if needs[0]:
                gx = ConvolutionOfGradient.apply(h, w, stride=stride, padding=padding, dilation=dilation,
                                                 groups=groups, size=tuple(x.shape[2:]))
            if needs[1]:
                gw = ConvolutionBackwardWeight.apply(x, h, tuple(w.shape), ctx.args)
        else:
            xp = h._backend.xp
            out, cols, _ = _conv_arrays(xp, _image(h._data), _image(w._data), stride, padding, dilation, groups)
            x_size = _image_shape(tuple(x.shape))[2:]  # (an output_padding ≥ stride gives more outputs)
            if needs[0]:
                gx = new_result(xp.ascontiguousarray(_signal(_leading(out, x_size), x.ndim)), h)
            if needs[1]:
                gw = _grad_weight_arrays(xp, _image(x._data), _leading(cols, x_size), groups)
                gw = new_result(xp.ascontiguousarray(_signal(gw, w.ndim)), h)
        if len(needs) > 2 and needs[2]:
            gb = h.sum(_batch_and_space(h))
        return gx, gw, gb


def _crop_to(t: Tensor, shape: tuple) -> Tensor:
    """The leading ``shape[2:]`` positions of ``t`` (see :class:`ConvolutionOfGradient`'s ``size``:
    the same extra positions, met one derivative further)."""
    for dim in range(2, t.dim()):
        if t.shape[dim] != shape[dim]:
            t = t.narrow(dim, 0, shape[dim])
    return t


def padding_from_string(input: Tensor, weight: Tensor, padding: str, stride: tuple,
                        dilation: tuple) -> tuple[Tensor, tuple]:
    """``padding='valid'`` (none) or ``'same'`` (the output as long as the input) as numbers,
    for ``conv1d``/``conv2d``/``conv3d``; returns the input to convolve and the padding per dimension.

    'same' needs ``dilation·(k-1)`` zeros per dimension, half on each side.  An odd total
    cannot be split evenly: as PyTorch does, the extra zero goes on the right, added here by
    ``F.pad`` (a ``ConstantPadNdBackward0`` in the graph, and PyTorch's warning that this copies
    the input); the rest is the convolution's own, symmetric padding."""
    if padding not in ("same", "valid"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    n = weight.dim() - 2
    if padding == "valid":
        return input, (0,) * n
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    totals = [d * (k - 1) for k, d in zip(weight.shape[2:], dilation)]
    if any(t % 2 for t in totals):
        warn_always.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                         "copy of the input be created", UserWarning, stacklevel=3)
        extra: list[int] = []
        for t in reversed(totals):  # F.pad lists the last dimension first
            extra += [0, t % 2]
        input = pad(input, extra)
    return input, tuple(t // 2 for t in totals)


def check_conv_dtypes(input: Tensor, weight: Tensor, bias: Optional[Tensor]) -> None:
    """PyTorch's (CPU) convolution checks, in its order and words: the bias against the input
    first (``Input type (double) and bias type (float) should be the same``: a float32 layer fed
    float64 data), then the weight (``expected scalar type Double but found Float``)."""
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({dtypes.c_type_name(input.dtype)}) and bias type "
                           f"({dtypes.c_type_name(bias.dtype)}) should be the same")
    if weight.dtype != input.dtype:
        names = dtypes.SCALAR_NAMES
        raise RuntimeError(f"expected scalar type {names.get(input.dtype.name, 'BFloat16')} but found "
                           f"{names.get(weight.dtype.name, 'BFloat16')}")


def check_conv_steps(stride: Sequence[int], dilation: Sequence[int]) -> None:
    """PyTorch's checks of a convolution's steps: a stride or dilation of 0 (or less) is an error
    there, where the arithmetic here would divide by zero, or quietly give an empty output."""
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("non-positive dilation is not supported")


def check_conv_weight(weight: Tensor, padding: Sequence[int], groups: int) -> None:
    """PyTorch's checks of the padding and of the weight's first dimension, before the channels:
    a negative padding (``F.pad`` crops; a convolution refuses), fewer filters than groups, or a
    number of filters that the groups do not divide (``Conv2d(4, 0, 3)``: no filters at all)."""
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    n = weight.shape[0]
    if n < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead")
    if n % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")  # (sic: PyTorch's double brackets)


def check_kernel_2d(weight: Tensor) -> None:
    """A 2-D kernel with a side of 0 (its windows would hold nothing): PyTorch's kernel refuses it."""
    kh, kw = weight.shape[2], weight.shape[3]
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}")


def check_conv_bias(weight: Tensor, bias: Optional[Tensor], transposed: bool = False, groups: int = 1) -> None:
    """PyTorch's check of the bias: one value per output channel (``weight.shape[0]``, or
    ``weight.shape[1] · groups`` for a transposed convolution), in a 1-D tensor."""
    if bias is None:
        return
    n = weight._data.shape[1] * groups if transposed else weight._data.shape[0]  # (the arrays' shapes: cheaper)
    if bias._data.shape != (n,):
        given = "Given transposed=1, weight" if transposed else "Given weight"
        raise RuntimeError(f"{given} of size {list(weight.shape)}, expected bias to be 1-dimensional with {n} "
                           f"elements, but got bias of size {list(bias.shape)} instead")


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
    if weight.dim() != 4:
        raise RuntimeError(f"Expected 4-dimensional weight for 4-dimensional input {list(input.shape)}, but got "
                           f"weight of size {list(weight.shape)} instead")
    check_same_device(input, weight)
    stride, dilation = pair(stride), pair(dilation)
    check_conv_steps(stride, dilation)
    if isinstance(padding, str):
        input, padding = padding_from_string(input, weight, padding, stride, dilation)
    padding = pair(padding)
    check_conv_weight(weight, padding, groups)
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got "
                           f"{input.shape[1]} channels instead")
    check_conv_bias(weight, bias)
    check_conv_dtypes(input, weight, bias)
    for size, k, p, d in zip(input.shape[2:], weight.shape[2:], padding, dilation):
        if size + 2 * p < d * (k - 1) + 1:
            raise RuntimeError(f"Calculated padded input size per channel: ({input.shape[2] + 2 * padding[0]} x "
                               f"{input.shape[3] + 2 * padding[1]}). Kernel size: ({weight.shape[2]} x "
                               f"{weight.shape[3]}). Kernel size can't be greater than actual input size")
    check_kernel_2d(weight)
    return Convolution.apply(input, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups)
