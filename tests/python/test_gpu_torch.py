"""The Python package on CUDA torch tensors (skipped without torch or a CUDA device).

References are computed in float32/float64 by torch on the same (upcast, dequantized) inputs:
torch.nn.functional.scaled_dot_product_attention for plain and masked attention, and an explicit
softmax where SDPA has no counterpart (softcap, ALiBi, LSE). Outputs are NaN-poisoned first.

A GPU path that reports FLASHC_STATUS_NOT_SUPPORTED for a combination skips that case (with the
library's message as the reason), except the fp16/bf16 baseline with backend='auto', which
must run.
"""
import itertools
import math
import zlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import flashc  # noqa: E402
from flashc import FlashcError, NotSupportedError  # noqa: E402

DEV = torch.device("cuda")
# 8-bit paths may round P to 8 bits as well (as flash-attn 3 does): a coarser bound.
TOL = {torch.float16: 4e-3, torch.bfloat16: 2.5e-2, torch.float8_e4m3fn: 0.1, torch.int8: 0.1}
CC = torch.cuda.get_device_capability()
BACKENDS = ["auto", "sm80"] + (["sm90"] if CC == (9, 0) else [])


@pytest.fixture(autouse=True)
def seed(request):
    torch.manual_seed(zlib.crc32(request.node.name.encode()))


def call(fn, *args, must_run=False, **kw):
    """fn(*args, **kw); a NotSupported GPU combination skips unless must_run."""
    try:
        res = fn(*args, **kw)
    except NotSupportedError as e:
        if must_run:
            raise
        pytest.skip("not supported by this build/device: %s" % e.message)
    torch.cuda.synchronize()
    return res


def nan_like(shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device=DEV)


def keep_mask(s_q, s_k, causal=False, window=(-1, -1)):
    """flash-attn's bottom-right aligned mask, True = attend, [s_q, s_k]."""
    i = torch.arange(s_q, device=DEV)[:, None]
    j = torch.arange(s_k, device=DEV)[None, :]
    diag = i + s_k - s_q
    left, right = window
    if causal:
        right = 0
    keep = torch.ones(s_q, s_k, dtype=torch.bool, device=DEV)
    if right >= 0:
        keep &= j <= diag + right
    if left >= 0:
        keep &= j >= diag - left
    return keep


def reference(q, k, v, scale=None, causal=False, window=(-1, -1), softcap=0.0, bias=None,
              alibi=None):
    """q [b, s_q, h_q, d], k/v [b, s_k, h_kv, d], any float dtype. Explicit float64 softmax.
    Returns out [b, s_q, h_q, d] float32 and lse [b, h_q, s_q] float32."""
    q, k, v = q.double(), k.double(), v.double()
    b, s_q, h_q, d = q.shape
    s_k, h_kv = k.shape[1], k.shape[2]
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    k = k.repeat_interleave(h_q // h_kv, dim=2)
    v = v.repeat_interleave(h_q // h_kv, dim=2)
    s = torch.einsum("bqhd,bkhd->bhqk", q, k) * scale
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    if bias is not None:
        s = s + bias.double()
    if alibi is not None:
        i = torch.arange(s_q, device=DEV)[:, None]
        j = torch.arange(s_k, device=DEV)[None, :]
        dist = (i + s_k - s_q - j).abs().double()
        slopes = alibi.double().reshape(-1 if alibi.dim() == 1 else b, h_q)
        s = s - slopes.reshape(slopes.shape[0], h_q, 1, 1) * dist
    keep = keep_mask(s_q, s_k, causal, window)
    s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)  # rows with no key: zeros
    out = torch.einsum("bhqk,bkhd->bqhd", p, v)
    return out.float(), lse.float()


def sdpa_reference(q, k, v, causal=False, window=(-1, -1)):
    """The same through torch's SDPA in float32 on upcast inputs (GQA by repeating heads)."""
    b, s_q, h_q, d = q.shape
    s_k, h_kv = k.shape[1], k.shape[2]
    qt = q.float().transpose(1, 2)
    kt = k.float().repeat_interleave(h_q // h_kv, dim=2).transpose(1, 2)
    vt = v.float().repeat_interleave(h_q // h_kv, dim=2).transpose(1, 2)
    keep = keep_mask(s_q, s_k, causal, window)
    try:  # the math backend: plain fp32 matmuls (no TF32), the most exact reference
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.MATH):
            out = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=keep)
    except ImportError:
        out = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=keep)
    out = torch.where(keep.any(dim=-1)[None, None, :, None], out, torch.zeros_like(out))
    return out.transpose(1, 2)


def assert_close(got, want, tol, what="out"):
    got = got.float()
    assert not torch.isnan(got).any(), "%s has NaN (unwritten elements?)" % what
    finite = torch.isfinite(want)
    assert torch.equal(torch.isfinite(got), finite), "%s: infinities differ" % what
    torch.testing.assert_close(got[finite], want[finite], atol=tol, rtol=tol, msg=lambda m: what + ": " + m)


def rand(shape, dtype):
    return torch.randn(shape, device=DEV).to(dtype)


# ---- Baseline against SDPA -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_matches_sdpa(dtype, d, causal):
    b, s_q, s_k, h_q, h_kv = 2, 197, 333, 8, 2
    q, k, v = rand((b, s_q, h_q, d), dtype), rand((b, s_k, h_kv, d), dtype), rand((b, s_k, h_kv, d), dtype)
    out = nan_like(q.shape, dtype)
    res = call(flashc.flash_attn_func, q, k, v, causal=causal, out=out, must_run=True)
    assert res is out
    assert_close(out, sdpa_reference(q, k, v, causal=causal), TOL[dtype])


def test_default_allocation_matches_input_dtype():
    q, k, v = (rand((1, 64, 2, 64), torch.bfloat16) for _ in range(3))
    out, lse = call(flashc.flash_attn_func, q, k, v, return_attn_probs=True, must_run=True)
    assert out.dtype == torch.bfloat16 and out.device == q.device and out.shape == q.shape
    assert lse.dtype == torch.float32 and lse.shape == (1, 2, 64)
    want, want_lse = reference(q, k, v)
    assert_close(out, want, TOL[torch.bfloat16])
    assert_close(lse, want_lse, 1e-3, "lse")


# ---- Features, per backend -----------------------------------------------------------------

FEATURES = {
    "plain": {},
    "causal": {"causal": True},
    "window": {"window_size": (48, 16)},
    "softcap": {"softcap": 5.0},
    "scale": {"softmax_scale": 0.05},
    "alibi": {"alibi_slopes": "per_head", "causal": True},
    "bias": {"attn_bias": "heads"},
}


SM90_FEATURES = {"plain", "causal", "window", "scale", "softcap", "alibi"}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("feature", sorted(FEATURES))
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_features(backend, feature, dtype):
    b, s_q, s_k, h_q, h_kv, d = 2, 129, 200, 6, 2, 128
    q, k, v = rand((b, s_q, h_q, d), dtype), rand((b, s_k, h_kv, d), dtype), rand((b, s_k, h_kv, d), dtype)
    kw = dict(FEATURES[feature])
    if kw.get("alibi_slopes") == "per_head":
        kw["alibi_slopes"] = torch.rand(h_q, device=DEV) * 0.5 + 0.05
    if kw.get("attn_bias") == "heads":
        kw["attn_bias"] = torch.randn(1, h_q, s_q, s_k, device=DEV)
    out = nan_like(q.shape, dtype)
    # the Hopper path has no softcap, ALiBi or bias kernels yet (NOT_SUPPORTED: skipped there)
    must_run = backend != "sm90" or feature in SM90_FEATURES
    _, lse = call(flashc.flash_attn_func, q, k, v, out=out, return_attn_probs=True, backend=backend,
                  must_run=must_run, **kw)
    want, want_lse = reference(q, k, v, scale=kw.get("softmax_scale"), causal=kw.get("causal", False),
                               window=kw.get("window_size", (-1, -1)), softcap=kw.get("softcap", 0.0),
                               bias=kw.get("attn_bias"), alibi=kw.get("alibi_slopes"))
    assert_close(out, want, TOL[dtype])
    assert_close(lse, want_lse, 1e-2, "lse")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.int8])
@pytest.mark.parametrize("v_transposed", [False, True])
def test_8bit(backend, dtype, v_transposed):
    b, s_q, s_k, h_q, h_kv, d = 2, 100, 260, 4, 2, 128
    if dtype == torch.int8:
        q, k, v = (torch.randint(-127, 128, s, device=DEV, dtype=torch.int8)
                   for s in ((b, s_q, h_q, d), (b, s_k, h_kv, d), (b, s_k, h_kv, d)))
        ds = [torch.rand(b, h_kv, device=DEV) * 0.01 + 0.005 for _ in range(3)]
    else:
        q, k, v = rand((b, s_q, h_q, d), dtype), rand((b, s_k, h_kv, d), dtype), rand((b, s_k, h_kv, d), dtype)
        ds = [torch.rand(b, h_kv, device=DEV) + 0.5 for _ in range(3)]
    v_arg = v
    if v_transposed:
        # V sequence-innermost [b, h_kv, d, s_k]. GPU paths need 16-byte row strides, so the rows
        # are padded to a multiple of 16 keys; the padding is left unwritten and must not be read.
        s_pad = (s_k + 15) // 16 * 16
        v_arg = torch.empty((b, h_kv, d, s_pad), device=DEV, dtype=v.dtype)[..., :s_k]
        v_arg.copy_(v.permute(0, 2, 3, 1))
    out = nan_like(q.shape, torch.bfloat16)
    # both V layouts run on the portable path (fp8 from sm_89); sm90 runs fp8 in both (V in K's
    # layout is transposed in the kernel), int8 on neither
    on_sm90 = dtype == torch.float8_e4m3fn
    call(flashc.flash_attn_func, q, k, v_arg, q_descale=ds[0], k_descale=ds[1], v_descale=ds[2],
         causal=True, out=out, v_transposed=v_transposed, backend=backend,
         must_run=(backend != "sm90" or on_sm90) and (dtype == torch.int8 or CC >= (8, 9)))

    def deq(x, s):
        return x.float() * s.repeat_interleave(x.shape[2] // h_kv, dim=1)[:, None, :, None]

    want, _ = reference(deq(q, ds[0]), deq(k, ds[1]), deq(v, ds[2]), causal=True)
    assert_close(out, want, TOL[dtype] * max(1.0, want.abs().max().item()))


def test_8bit_default_output_is_bf16():
    q, k, v = (rand((1, 64, 2, 64), torch.float8_e4m3fn) for _ in range(3))
    out = call(flashc.flash_attn_func, q, k, v)
    assert out.dtype == torch.bfloat16


def test_qkvpacked_equals_unpacked():
    qkv = rand((2, 150, 3, 4, 128), torch.bfloat16)
    packed = call(flashc.flash_attn_qkvpacked_func, qkv, causal=True, must_run=True)
    q, k, v = qkv.unbind(dim=2)
    assert isinstance(packed, torch.Tensor) and packed.shape == q.shape
    assert torch.equal(packed, flashc.flash_attn_func(q, k, v, causal=True))


# ---- varlen and KV cache -------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_varlen(backend, dtype):
    lens_q, lens_k = [17, 0, 128, 65], [40, 9, 128, 300]
    h_q, h_kv, d = 4, 4, 64
    cu_q = torch.tensor([0] + list(itertools.accumulate(lens_q)), dtype=torch.int32, device=DEV)
    cu_k = torch.tensor([0] + list(itertools.accumulate(lens_k)), dtype=torch.int32, device=DEV)
    q = rand((sum(lens_q), h_q, d), dtype)
    k, v = rand((sum(lens_k), h_kv, d), dtype), rand((sum(lens_k), h_kv, d), dtype)
    out = nan_like(q.shape, dtype)
    _, lse = call(flashc.flash_attn_varlen_func, q, k, v, cu_q, cu_k, max(lens_q), max(lens_k),
                  causal=True, out=out, return_attn_probs=True, backend=backend, must_run=True)
    assert lse.shape == (h_q, sum(lens_q))
    for bi in range(len(lens_q)):
        rq = slice(int(cu_q[bi]), int(cu_q[bi + 1]))
        rk = slice(int(cu_k[bi]), int(cu_k[bi + 1]))
        want, want_lse = reference(q[None, rq], k[None, rk], v[None, rk], causal=True)
        assert_close(out[rq], want[0], TOL[dtype])
        assert_close(lse[:, rq], want_lse[0], 1e-2, "lse")


@pytest.mark.parametrize("page_size", [16, 64, 256])
def test_kvcache_paged(page_size):
    dtype, b, s_q, h_q, h_kv, d = torch.bfloat16, 3, 4, 8, 2, 128
    seqlens = torch.tensor([700, 1, 257], dtype=torch.int32, device=DEV)
    max_pages = (700 + page_size - 1) // page_size + 1
    num_pages = b * max_pages + 3
    kc, vc = rand((num_pages, page_size, h_kv, d), dtype), rand((num_pages, page_size, h_kv, d), dtype)
    page_table = torch.randperm(num_pages, device=DEV)[: b * max_pages].reshape(b, max_pages).to(torch.int32)
    q = rand((b, s_q, h_q, d), dtype)
    out = nan_like(q.shape, dtype)
    call(flashc.flash_attn_with_kvcache, q, kc, vc, cache_seqlens=seqlens, page_table=page_table,
         causal=True, out=out)
    for bi in range(b):
        n = int(seqlens[bi])
        rows = page_table[bi].long()
        ks = kc[rows].reshape(-1, h_kv, d)[:n]
        vs = vc[rows].reshape(-1, h_kv, d)[:n]
        want, _ = reference(q[bi:bi + 1], ks[None], vs[None], causal=True)
        assert_close(out[bi], want[0], TOL[dtype])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("page_size", [16, 256])
def test_kvcache_paged_prefill(backend, page_size):
    # chunked prefill over a paged cache; the slots and pages no sequence uses hold NaN, as an
    # engine's unwritten cache may: they must not reach the output (both GPU paths take it)
    dtype, b, s_q, h_q, h_kv, d = torch.bfloat16, 3, 200, 8, 2, 128
    seqlens = torch.tensor([700, 1, 257], dtype=torch.int32, device=DEV)
    max_pages = (700 + page_size - 1) // page_size + 1
    num_pages = b * max_pages + 3
    kc = torch.full((num_pages, page_size, h_kv, d), float("nan"), dtype=dtype, device=DEV)
    vc = torch.full_like(kc, float("nan"))
    page_table = torch.randperm(num_pages, device=DEV)[: b * max_pages].reshape(b, max_pages).to(torch.int32)
    ks, vs = [], []
    for bi in range(b):
        n = int(seqlens[bi])
        k_seq, v_seq = rand((n, h_kv, d), dtype), rand((n, h_kv, d), dtype)
        for j in range(0, n, page_size):
            page = int(page_table[bi, j // page_size])
            kc[page, : min(page_size, n - j)] = k_seq[j:j + page_size]
            vc[page, : min(page_size, n - j)] = v_seq[j:j + page_size]
        ks.append(k_seq)
        vs.append(v_seq)
    q = rand((b, s_q, h_q, d), dtype)
    out = nan_like(q.shape, dtype)
    call(flashc.flash_attn_with_kvcache, q, kc, vc, cache_seqlens=seqlens, page_table=page_table,
         causal=True, out=out, backend=backend, must_run=True)
    for bi in range(b):
        want, _ = reference(q[bi:bi + 1], ks[bi][None], vs[bi][None], causal=True)
        assert_close(out[bi], want[0], TOL[dtype])


@pytest.mark.parametrize("page_size", [16, 64, 256])
def test_kvcache_paged_fp8(page_size):
    # an fp8 paged cache as inference engines keep it: V in K's layout, per-(b, h_kv) descales
    if CC < (8, 9):
        pytest.skip("fp8 e4m3 needs sm_89+")
    b, s_q, h_q, h_kv, d = 3, 2, 8, 2, 128
    seqlens = torch.tensor([700, 1, 257], dtype=torch.int32, device=DEV)
    max_pages = (700 + page_size - 1) // page_size + 1
    num_pages = b * max_pages + 3
    f8 = torch.float8_e4m3fn
    kc, vc = rand((num_pages, page_size, h_kv, d), f8), rand((num_pages, page_size, h_kv, d), f8)
    page_table = torch.randperm(num_pages, device=DEV)[: b * max_pages].reshape(b, max_pages).to(torch.int32)
    q = rand((b, s_q, h_q, d), f8)
    ds = [torch.rand(b, h_kv, device=DEV) + 0.5 for _ in range(3)]
    out = nan_like(q.shape, torch.bfloat16)
    call(flashc.flash_attn_with_kvcache, q, kc, vc, cache_seqlens=seqlens, page_table=page_table,
         q_descale=ds[0], k_descale=ds[1], v_descale=ds[2], causal=True, out=out, must_run=True)
    for bi in range(b):
        n = int(seqlens[bi])
        rows = page_table[bi].long()
        ks = kc[rows].reshape(-1, h_kv, d)[:n].float() * ds[1][bi][None, :, None]
        vs = vc[rows].reshape(-1, h_kv, d)[:n].float() * ds[2][bi][None, :, None]
        qs = q[bi].float() * ds[0][bi].repeat_interleave(h_q // h_kv)[None, :, None]
        want, _ = reference(qs[None], ks[None], vs[None], causal=True)
        assert_close(out[bi], want[0], TOL[f8] * max(1.0, want.abs().max().item()))


def test_kvcache_batched_int_seqlens():
    q = rand((2, 1, 4, 64), torch.float16)
    kc, vc = rand((2, 512, 4, 64), torch.float16), rand((2, 512, 4, 64), torch.float16)
    out = call(flashc.flash_attn_with_kvcache, q, kc, vc, cache_seqlens=300)
    want, _ = reference(q, kc[:, :300], vc[:, :300])
    assert_close(out, want, TOL[torch.float16])


# ---- Streams, graphs, synchronisation ------------------------------------------------------

def test_runs_on_current_stream():
    """Inputs are produced on a side stream after a long sleep; flashc must be queued behind
    them on that (current) stream, or it reads the NaNs they replace."""
    dtype, shape = torch.float16, (1, 256, 4, 64)
    real = [rand(shape, dtype) for _ in range(3)]
    bufs = [nan_like(shape, dtype) for _ in range(3)]
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)  # ~tens of ms: anything on another stream runs first
        for buf, src in zip(bufs, real):
            buf.copy_(src)
        out = call(flashc.flash_attn_func, *bufs, causal=True, must_run=True)
    side.synchronize()
    assert_close(out, reference(*real, causal=True)[0], TOL[dtype])


def test_no_host_synchronisation():
    q, k, v = (rand((2, 128, 4, 64), torch.float16) for _ in range(3))
    flashc.flash_attn_func(q, k, v)  # first call: library load, device query
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        flashc.flash_attn_func(q, k, v, causal=True, return_attn_probs=True)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    torch.cuda.synchronize()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_cuda_graph_capture_and_replay(dtype):
    b, s, h, d = 2, 300, 4, 128
    static = [rand((b, s, h, d), dtype) for _ in range(3)]
    call(flashc.flash_attn_func, *static, causal=True, must_run=True)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up on a side stream, as torch recommends before capture
        for _ in range(2):
            flashc.flash_attn_func(*static, causal=True)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        g_out, g_lse = flashc.flash_attn_func(*static, causal=True, return_attn_probs=True)
    for _ in range(3):
        fresh = [rand((b, s, h, d), dtype) for _ in range(3)]
        for dst, src in zip(static, fresh):
            dst.copy_(src)
        g_out.fill_(float("nan"))
        graph.replay()
        eager, eager_lse = flashc.flash_attn_func(*fresh, causal=True, return_attn_probs=True)
        torch.cuda.synchronize()
        assert torch.equal(g_out, eager), "replay differs from eager"
        assert torch.equal(g_lse, eager_lse)
        assert_close(g_out, reference(*fresh, causal=True)[0], TOL[dtype])


def test_graph_capture_varlen_paged():
    """Index arrays on the device: capture needs no host read of them."""
    dtype, page_size = torch.float16, 64
    seqlens = torch.tensor([100, 333], dtype=torch.int32, device=DEV)
    page_table = torch.arange(12, dtype=torch.int32, device=DEV).reshape(2, 6)
    kc, vc = rand((12, page_size, 2, 64), dtype), rand((12, page_size, 2, 64), dtype)
    q = rand((2, 3, 2, 64), dtype)
    call(flashc.flash_attn_with_kvcache, q, kc, vc, cache_seqlens=seqlens, page_table=page_table)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        g_out = flashc.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=seqlens, page_table=page_table)
    seqlens.copy_(torch.tensor([5, 384], dtype=torch.int32))
    graph.replay()
    eager = flashc.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=seqlens, page_table=page_table)
    torch.cuda.synchronize()
    assert torch.equal(g_out, eager)


# ---- Other array protocols and errors ------------------------------------------------------

class _CudaArrayOnly:
    def __init__(self, t):
        self._t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


class _DLPackOnly:
    def __init__(self, t):
        self._t = t

    def __dlpack__(self, **kw):
        return self._t.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


@pytest.mark.parametrize("wrap", [_CudaArrayOnly, _DLPackOnly])
def test_other_array_protocols(wrap):
    q, k, v = (rand((1, 77, 2, 64), torch.float16) for _ in range(3))
    out = call(flashc.flash_attn_func, wrap(q), wrap(k), wrap(v), causal=True)
    assert isinstance(out, torch.Tensor)
    assert_close(out, reference(q, k, v, causal=True)[0], TOL[torch.float16])


def test_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    q, k, v = (rand((1, 77, 2, 64), torch.float16) for _ in range(3))
    cq, ck, cv = (cupy.asarray(t) for t in (q, k, v))
    out = call(flashc.flash_attn_func, cq, ck, cv, causal=True)
    assert isinstance(out, cupy.ndarray)
    assert_close(torch.as_tensor(out, device=DEV), reference(q, k, v, causal=True)[0], TOL[torch.float16])


def test_error_misaligned():
    buf = rand((1, 64, 2, 72), torch.float16)
    q = buf[..., 1:65]  # innermost contiguous, base 2 bytes off 16-byte alignment
    k, v = rand((1, 64, 2, 64), torch.float16), rand((1, 64, 2, 64), torch.float16)
    with pytest.raises(FlashcError) as e:
        flashc.flash_attn_func(q, k, v)
    assert e.value.status_name == "FLASHC_STATUS_MISALIGNED" and "q" in e.value.message


def test_error_f32_output_on_gpu():
    q, k, v = (rand((1, 64, 2, 64), torch.float16) for _ in range(3))
    with pytest.raises(FlashcError, match="f32"):
        flashc.flash_attn_func(q, k, v, out_dtype=torch.float32)


def test_error_host_index_array_with_device_tensors():
    q, k, v = (rand((7, 2, 64), torch.float16) for _ in range(3))
    cu = torch.tensor([0, 3, 7], dtype=torch.int32)  # host memory: the GPU cannot read it
    with pytest.raises(FlashcError, match="cu_seqlens"):
        flashc.flash_attn_varlen_func(q, k, v, cu, cu, 4, 4)


def test_select_backend_is_gpu():
    q, k, v = (rand((1, 64, 2, 64), torch.float16) for _ in range(3))
    assert flashc.select_backend(q, k, v) in ("sm80", "sm90")
