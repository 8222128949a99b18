"""A small float64 numpy reference of flashc's forward pass, independent of the C library.

    O = softmax( mask( softcap( scale * (Q dq)(K dk)^T ) + bias + alibi ) ) (V dv)

Masks are flash-attn's, bottom-right aligned: query i of s_q attends key j of s_k iff
j <= i + s_k - s_q + right and j >= i + s_k - s_q - left (-1: unbounded; causal: right = 0).
A row with no key outputs zeros and LSE = -inf.
"""
import math

import numpy as np


def attention_one(q, k, v, scale=None, causal=False, window=(-1, -1), softcap=0.0, bias=None,
                  alibi=None):
    """One sequence. q [s_q, h_q, d], k/v [s_k, h_kv, d] (float64), bias [h_q|1, s_q, s_k] or
    None, alibi [h_q] or None. Returns out [s_q, h_q, d] and lse [h_q, s_q]."""
    s_q, h_q, d = q.shape
    s_k, h_kv = k.shape[0], k.shape[1]
    group = h_q // h_kv
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    kk = np.repeat(k, group, axis=1)
    vv = np.repeat(v, group, axis=1)
    s = np.einsum("qhd,khd->hqk", q, kk) * scale
    if softcap:
        s = softcap * np.tanh(s / softcap)
    if bias is not None:
        s = s + bias
    i = np.arange(s_q)[:, None]
    j = np.arange(s_k)[None, :]
    diag = i + s_k - s_q
    if alibi is not None:
        s = s - np.asarray(alibi, dtype=np.float64)[:, None, None] * np.abs(diag - j)[None]
    left, right = window
    if causal:
        right = 0
    keep = np.ones((s_q, s_k), dtype=bool)
    if right >= 0:
        keep &= j <= diag + right
    if left >= 0:
        keep &= j >= diag - left
    s = np.where(keep[None], s, -np.inf)
    m = s.max(axis=-1, keepdims=True) if s_k else np.full((h_q, s_q, 1), -np.inf)
    empty = ~np.isfinite(m)
    m_safe = np.where(empty, 0.0, m)
    p = np.exp(s - m_safe)
    l = p.sum(axis=-1, keepdims=True)
    out = np.einsum("hqk,khd->qhd", p / np.where(empty, 1.0, l), vv)
    out = np.where(np.transpose(empty, (1, 0, 2)), 0.0, out)
    lse = np.where(empty[..., 0], -np.inf, (m_safe + np.log(np.where(empty, 1.0, l)))[..., 0])
    return out, lse


def dequant(x, descale, h_axis):
    """x (any dtype) as float64, times descale [b, h_kv] broadcast over heads.
    x is [b, s, h, d]; a query head h reads the descale of its KV head h // (h_q / h_kv)."""
    x = np.asarray(x).astype(np.float64)
    if descale is None:
        return x
    ds = np.asarray(descale, dtype=np.float64)
    h = x.shape[h_axis]
    h_kv = ds.shape[1]
    per_head = np.repeat(ds, h // h_kv, axis=1)  # [b, h]
    return x * per_head[:, None, :, None]


def attention_batched(q, k, v, seqused_k=None, bias=None, alibi=None, **kw):
    """q [b, s_q, h_q, d], k/v [b, s_k, h_kv, d] float64; bias [b|1, h|1, s_q, s_k];
    alibi [h_q] or [b, h_q]. Returns out [b, s_q, h_q, d], lse [b, h_q, s_q]."""
    b = q.shape[0]
    outs, lses = [], []
    for bi in range(b):
        s_k = k.shape[1] if seqused_k is None else int(seqused_k[bi])
        bias_i = None if bias is None else bias[min(bi, bias.shape[0] - 1)][:, :, :s_k]
        alibi_i = None if alibi is None else (alibi if np.ndim(alibi) == 1 else alibi[bi])
        o, l = attention_one(q[bi], k[bi, :s_k], v[bi, :s_k], bias=bias_i, alibi=alibi_i, **kw)
        outs.append(o)
        lses.append(l)
    return np.stack(outs), np.stack(lses)


def attention_varlen(q, k, v, cu_q, cu_k, seqused_k=None, bias=None, **kw):
    """q [total_q, h_q, d], k/v [total_k, h_kv, d]; returns out [total_q, h_q, d], lse [h_q, total_q].
    bias [b|1, h|1, max_s_q, max_s_k] is indexed within each sequence."""
    out = np.zeros(q.shape)
    lse = np.full((q.shape[1], q.shape[0]), -np.inf)
    for bi in range(len(cu_q) - 1):
        q0, q1 = cu_q[bi], cu_q[bi + 1]
        k0, k1 = cu_k[bi], cu_k[bi + 1]
        if seqused_k is not None:
            k1 = k0 + int(seqused_k[bi])
        bias_i = None if bias is None else bias[min(bi, bias.shape[0] - 1)][:, : q1 - q0, : k1 - k0]
        o, l = attention_one(q[q0:q1], k[k0:k1], v[k0:k1], bias=bias_i, **kw)
        out[q0:q1] = o
        lse[:, q0:q1] = l
    return out, lse


def gather_pages(cache, page_table, seqlens):
    """[num_pages, page_size, h, d] + page_table [b, pages] -> list of [seqlen_b, h, d]."""
    page_size = cache.shape[1]
    seqs = []
    for bi, n in enumerate(seqlens):
        n = int(n)
        pages = page_table[bi][: (n + page_size - 1) // page_size]
        rows = np.concatenate([cache[p] for p in pages], axis=0) if len(pages) else cache[:0, 0]
        seqs.append(rows[:n])
    return seqs
