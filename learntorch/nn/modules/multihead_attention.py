"""``nn.MultiheadAttention``: ``num_heads`` attentions side by side, each on ``embed_dim/num_heads`` features.

The parameters are PyTorch's, under PyTorch's names, so a ``state_dict`` moves
between the two libraries in both directions:

* ``in_proj_weight`` ``(3E, E)``: the query, key and value projections stacked
  (or ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` when keys or values
  have other sizes, ``kdim``/``vdim``), ``in_proj_bias`` ``(3E)``;
* ``out_proj``: a ``Linear(E, E)`` that mixes the heads' outputs;
* ``bias_k``/``bias_v`` ``(1, 1, E)`` with ``add_bias_kv``: one learned key/value
  appended to every sequence.

Initialisation follows PyTorch step by step (``out_proj`` first, as a Linear; then
``xavier_uniform_`` on the projections, zeros for the biases, ``xavier_normal_``
for ``bias_k``/``bias_v``), so the same seed gives the same weights.

The maths is in ``nn/attention.py``; boolean masks here mean ``True`` = masked out.

PyTorch runs self-attention in evaluation without autograd on a fused kernel (its "fast path",
conditions in :meth:`MultiheadAttention._takes_fast_path`).  The values are the ordinary path's,
but for one case: a query that every key is hidden from (a fully padded sequence, a mask row of
``True``) gets nan there, where the ordinary path with ``need_weights=False`` (scaled dot-product
attention) gives 0.  learntorch keeps that: on PyTorch's fast path the explicit softmax is used.
"""
from __future__ import annotations

from typing import Any, Optional

from ... import backends, creation
from ...amp import is_autocast_enabled
from ...autograd.grad_mode import is_grad_enabled
from ...tensor import Tensor
from .. import attention, init
from ..parameter import Parameter
from .linear import Linear
from .module import Module

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]


class NonDynamicallyQuantizableLinear(Linear):
    """A plain ``Linear`` (PyTorch's name for ``out_proj``'s class, which quantisation treats specially)."""


class MultiheadAttention(Module):
    """``MultiHead(q, k, v) = Concat(head_1 … head_h) W_o`` with ``head_i = Attention(q W_qi, k W_ki, v W_vi)``.

    Inputs are ``(L, N, E)`` (or ``(N, L, E)`` with ``batch_first=True``, or unbatched
    ``(L, E)``); ``forward`` returns ``(attn_output, attn_weights)``."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Optional[int] = None,
                 vdim: Optional[int] = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(creation.empty(embed_dim, embed_dim, **kw))
            self.k_proj_weight = Parameter(creation.empty(embed_dim, self.kdim, **kw))
            self.v_proj_weight = Parameter(creation.empty(embed_dim, self.vdim, **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(creation.empty(3 * embed_dim, embed_dim, **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(creation.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(creation.empty(1, 1, embed_dim, **kw))
            self.bias_v = Parameter(creation.empty(1, 1, embed_dim, **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor] = None,
                need_weights: bool = True, attn_mask: Optional[Tensor] = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple:
        """``(attn_output, attn_weights)``; ``key_padding_mask`` ``(N, S)`` hides padded keys,
        ``attn_mask`` ``(L, S)`` or ``(N·num_heads, L, S)`` hides pairs (boolean ``True`` = hidden,
        or float, added); ``is_causal`` is a hint that ``attn_mask`` is the causal mask."""
        is_batched = query.dim() == 3
        if not need_weights and self._takes_fast_path(query, key, value, key_padding_mask, attn_mask):
            return self.forward(query, key, value, key_padding_mask, True, attn_mask, average_attn_weights,
                                is_causal)[0], None
        if self.batch_first and is_batched:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        args = dict(training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
                    attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal)
        if not self._qkv_same_embed_dim:
            out, weights = attention.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
                self.out_proj.bias, use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight,
                k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight, **args)
        else:
            out, weights = attention.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
                self.out_proj.bias, **args)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights

    def _takes_fast_path(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor],
                         attn_mask: Optional[Tensor]) -> bool:
        """Whether PyTorch's ``forward`` would call its fused kernel (``_native_multi_head_attention``):
        batched self-attention (one tensor for query, key and value) in evaluation, batch first, an
        even number of heads, biases and none of the extras, no float mask, no autocast, and no
        autograd (grad mode off, or nothing requiring grad)."""
        if (self.training or query.dim() != 3 or query is not key or key is not value or not self.batch_first
                or self.num_heads % 2 or self.bias_k is not None or self.bias_v is not None or self.add_zero_attn
                or not self._qkv_same_embed_dim or self.in_proj_bias is None
                or not backends.mha.get_fastpath_enabled() or is_autocast_enabled()):
            return False
        if any(m is not None and m.is_floating_point() for m in (attn_mask, key_padding_mask)):
            return False
        if query.dtype != self.in_proj_weight.dtype or query.dtype != self.in_proj_bias.dtype:
            return False
        params = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight, self.out_proj.bias)
        return not (is_grad_enabled() and any(t is not None and t.requires_grad for t in params))

    def extra_repr(self) -> str:  # PyTorch prints only the out_proj child
        return ""
