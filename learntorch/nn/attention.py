"""Attention: ``F.scaled_dot_product_attention`` and the functional form of ``nn.MultiheadAttention``.

Attention is three matrix products and a softmax::

    scores  = q @ kᵀ · scale            (L × S: how well each query matches each key)
    weights = softmax(scores + bias)    (each query's weights over the keys sum to 1)
    out     = weights @ v               (each query gets a weighted mean of the values)

``bias`` carries the masks: ``-inf`` where a query may not look (a causal mask
hides the future; a padding mask hides padded keys), 0 or any float elsewhere.

Everything here is built from differentiable operations (``matmul``,
``masked_fill``, ``softmax``, ``dropout``), so backward -- and double backward
-- come for free.  PyTorch runs fused kernels on the CPU (flash attention,
``grad_fn`` ``ScaledDotProductFlashAttentionForCpuBackward0``); their values agree
with this composition to float32 rounding, but the ``grad_fn`` names differ.

Two conventions for boolean masks meet here and are easy to confuse:

* ``scaled_dot_product_attention``: ``True`` means *take part* (attend);
* ``nn.MultiheadAttention`` / ``nn.Transformer*``: ``True`` means *masked out*
  (PyTorch's older convention); they turn boolean masks into float masks of
  ``-inf``/0 (:func:`canonical_mask`) before calling attention.
"""
from __future__ import annotations

import math
from typing import Any, Optional

from .. import warn_always
from .. import dtypes
from ..autograd import grad_mode
from ..autograd.bfloat16_compute import computes_in_float32
from ..creation import ones, zeros, zeros_like
from ..ops.dropout import dropout
from ..ops.matmul import linear
from ..ops.padding import pad
from ..ops.shape import cat
from ..ops.softmax import softmax
from ..tensor import Tensor

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward", "canonical_mask"]


def _causal_keep(L: int, S: int, like: Tensor) -> Tensor:
    """``(L, S)`` boolean: query ``i`` may look at keys ``0..i`` (lower triangle)."""
    return ones(L, S, dtype=dtypes.bool, device=like.device).tril()


def _check_attention_inputs(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor],
                            dropout_p: float, is_causal: bool) -> None:
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at least 2 dimensions "
                           "(..., sequence length, embedding dimension)")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead.")
    if not query.is_floating_point():
        raise RuntimeError(f"scaled_dot_product_attention: query, key and value must be floating point, "
                           f"got {query.dtype}")
    if attn_mask is not None and attn_mask.dtype != dtypes.bool and attn_mask.dtype != query.dtype \
            and not attn_mask.is_floating_point():
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {attn_mask.dtype} and  query.dtype: {query.dtype} instead.")
    if attn_mask is not None and is_causal:
        # PyTorch documents this as an error and its math kernel (CUDA, dropout) raises; its CPU flash
        # kernel silently combines the two.  learntorch keeps to the documented rule.
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                           "is_causal=True (fold the causal mask into attn_mask, or pass is_causal=True alone)")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")


@computes_in_float32
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor] = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: Optional[float] = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(q kᵀ · scale + mask) v`` over the last two dimensions of ``(..., L, E)`` queries,
    ``(..., S, E)`` keys and ``(..., S, Ev)`` values.

    * ``attn_mask``: boolean (``True`` = may attend) or float (added to the scores),
      broadcastable to ``(..., L, S)``; not together with ``is_causal``;
    * ``is_causal``: query ``i`` sees keys ``0..i`` only;
    * ``scale``: defaults to ``1/√E``;
    * ``dropout_p``: dropout on the attention weights -- applied whenever ``dropout_p > 0``
      (there is no ``training`` flag: pass ``dropout_p=0`` in evaluation, as
      ``nn.MultiheadAttention`` does);
    * ``enable_gqa``: grouped-query attention, ``key``/``value`` have fewer heads (dim -3)
      than ``query``; each is repeated to serve ``Hq/Hk`` query heads.

    A query that may attend to no key at all (a fully masked row) gets zeros, and
    zero gradients, as in PyTorch -- not the NaN of a softmax over ``-inf`` only.
    """
    _check_attention_inputs(query, key, value, attn_mask, dropout_p, is_causal)
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    if enable_gqa and query.dim() >= 3 and key.dim() >= 3:
        hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
        if hq % hk or hq % hv:
            raise RuntimeError(f"scaled_dot_product_attention with enable_gqa=True: the number of query heads "
                               f"({hq}) must be a multiple of the key ({hk}) and value ({hv}) heads")
        key = key.repeat_interleave(hq // hk, dim=-3)
        value = value.repeat_interleave(hq // hv, dim=-3)
    scores = query.matmul(key.transpose(-2, -1)) * scale_factor
    keep = None  # boolean: where attention is allowed (None: everywhere)
    if is_causal:
        keep = _causal_keep(L, S, query)
    elif attn_mask is not None and attn_mask.dtype == dtypes.bool:
        keep = attn_mask
    elif attn_mask is not None:
        scores = scores + attn_mask
    if keep is not None:
        scores = scores.masked_fill(keep.logical_not(), float("-inf"))
    weights = _safe_softmax(scores, softmax)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return weights.matmul(value)


def _safe_softmax(scores: Tensor, softmax: Any) -> Tensor:
    """Softmax over the last dimension; rows that are ``-inf`` throughout give zeros (and no
    NaN gradient), as PyTorch's attention kernels do."""
    with grad_mode.no_grad():
        dead = (scores == float("-inf")).all(dim=-1, keepdim=True)
        any_dead = bool(dead.any())
    if not any_dead:
        return softmax(scores, dim=-1)
    scores = scores.masked_fill(dead, 0.0)  # a finite row, so softmax and its gradient stay finite
    return softmax(scores, dim=-1).masked_fill(dead, 0.0)


def canonical_mask(mask: Optional[Tensor], mask_name: str, other_type: Any = None, other_name: str = "",
                   target_type: Any = None, check_other: bool = True) -> Optional[Tensor]:
    """A float mask for ``nn.MultiheadAttention``: boolean ``True`` (= masked out) becomes
    ``-inf``, ``False`` 0; a float mask is returned as it is."""
    if mask is None:
        return None
    if mask.dtype != dtypes.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warn_always.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                         f"instead.", UserWarning, stacklevel=3)
    if mask.dtype == dtypes.bool:
        dtype = target_type if target_type is not None else dtypes.float32
        return zeros_like(mask, dtype=dtype).masked_fill(mask, float("-inf"))
    return mask


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w: Any, b: Any, embed_dim: int) -> tuple:
    """The three input projections, from the packed ``(3E, E)`` weight or from three weights."""
    if isinstance(w, Tensor):  # packed
        w_q, w_k, w_v = w.chunk(3)
    else:
        w_q, w_k, w_v = w
    b_q, b_k, b_v = b.chunk(3) if b is not None else (None, None, None)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor],
                                 bias_k: Optional[Tensor], bias_v: Optional[Tensor], add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Optional[Tensor],
                                 training: bool = True, key_padding_mask: Optional[Tensor] = None,
                                 need_weights: bool = True, attn_mask: Optional[Tensor] = None,
                                 use_separate_proj_weight: bool = False, q_proj_weight: Optional[Tensor] = None,
                                 k_proj_weight: Optional[Tensor] = None, v_proj_weight: Optional[Tensor] = None,
                                 static_k: Optional[Tensor] = None, static_v: Optional[Tensor] = None,
                                 average_attn_weights: bool = True, is_causal: bool = False) -> tuple:
    """Multi-head attention on sequence-first inputs ``(L, N, E)`` (or unbatched ``(L, E)``).

    Returns ``(output (L, N, E), weights)``; ``weights`` are ``(N, L, S)`` averaged over the
    heads, ``(N, H, L, S)`` per head (``average_attn_weights=False``), or None
    (``need_weights=False``, which takes the fused ``scaled_dot_product_attention`` path)."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("learntorch's multi_head_attention_forward does not support static_k/static_v; "
                                  "project the keys and values yourself and call F.scaled_dot_product_attention")
    is_batched = _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                      None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint suffices: scaled_dot_product_attention applies the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", target_type=query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:  # (their embedding sizes, kdim and vdim, may differ)
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight, k_proj_weight or "
                                 "v_proj_weight is None")
        q, k, v = _in_projection(query, key, value, (q_proj_weight, k_proj_weight, v_proj_weight), in_proj_bias,
                                 embed_dim)
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, embed_dim)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given, or neither")

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        k = cat([k, zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(bsz * num_heads, 1, head_dim, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    if not training:
        dropout_p = 0.0

    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(head_dim))
        scores = q_scaled.bmm(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _check_mha_shapes(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor],
                      attn_mask: Optional[Tensor], num_heads: int) -> bool:
    """Batched (3-D) or unbatched (2-D) inputs, with masks of matching ranks; True when batched."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                                 f"but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != (num_heads, query.shape[0], key.shape[0]):
                raise AssertionError(f"Expected `attn_mask` shape to be {(num_heads, query.shape[0], key.shape[0])}"
                                     f" but got {tuple(attn_mask.shape)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         f"tensor")
