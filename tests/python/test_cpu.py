"""The Python package on host memory: numpy inputs run the CPU reference backend of libflashc,
checked against the float64 numpy reference in flashc_reference.py (independent of the C code).

Every test draws fresh random inputs (never zeros) and passes a NaN-poisoned `out`, so an
element the library does not write fails the comparison (NaN never passes).
"""
import math
import zlib

import numpy as np
import pytest

import flashc
from flashc import FlashcError, NotSupportedError
from flashc_reference import attention_batched, attention_one, attention_varlen, dequant, gather_pages

try:
    import ml_dtypes
except ImportError:  # bf16 / fp8 numpy tests skip without it
    ml_dtypes = None

needs_ml_dtypes = pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes not installed")

# Tolerances against the float64 reference: the CPU backend accumulates in fp64, so the only
# error is the rounding of the inputs (already applied on both sides) and of the output.
TOL = {"float32": 2e-5, "float16": 2e-3, "bfloat16": 1.6e-2}


@pytest.fixture
def rng(request):
    # A distinct, reproducible stream per test (crc32: str hashes are salted per process).
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))


def randn(rng, shape, dtype=np.float16, scale=1.0):
    x = rng.standard_normal(shape) * scale
    x[x == 0] = 0.5  # never zeros
    return x.astype(dtype)


def poisoned(shape, dtype):
    """A NaN-filled output buffer (float dtypes), so unwritten elements are caught."""
    return np.full(shape, np.nan, dtype=np.float32).astype(dtype)


def f64(x):
    return np.asarray(x).astype(np.float64)


def assert_close(got, want, tol, what="out"):
    got = f64(got)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    assert not np.isnan(got).any(), "%s has NaN (an element was not written?)" % what
    finite = np.isfinite(want)
    assert np.array_equal(np.isfinite(got), finite), "%s: infinities differ" % what
    assert np.array_equal(got[~finite], want[~finite]), "%s: infinities differ" % what
    err = np.abs(got[finite] - want[finite])
    bound = tol * (1.0 + np.abs(want[finite]))
    worst = int(np.argmax(err - bound)) if err.size else 0
    assert (err <= bound).all(), "%s: max error %.3g (at flat %d, want %.6g got %.6g), tol %.3g" % (
        what, err.max(), worst, want[finite].flat[worst], got[finite].flat[worst], tol)


def run_batched(rng, b=2, s_q=37, s_k=53, h_q=4, h_kv=2, d=64, out_dtype="float32", lse=True, **kw):
    q = randn(rng, (b, s_q, h_q, d))
    k = randn(rng, (b, s_k, h_kv, d))
    v = randn(rng, (b, s_k, h_kv, d))
    out = poisoned(q.shape, np.float32 if out_dtype == "float32" else np.float16)
    res = flashc.flash_attn_func(q, k, v, out=out, return_attn_probs=lse, **kw)
    got, got_lse = res if lse else (res, None)
    assert got is out
    ref_kw = {name: kw[name] for name in ("causal", "softcap", "attn_bias", "alibi_slopes",
                                          "softmax_scale", "window_size") if name in kw}
    bias = ref_kw.pop("attn_bias", None)
    if bias is not None:
        bias = f64(bias)
        while bias.ndim < 4:
            bias = bias[None]
    want, want_lse = attention_batched(f64(q), f64(k), f64(v), bias=bias,
                                       alibi=ref_kw.pop("alibi_slopes", None),
                                       scale=ref_kw.pop("softmax_scale", None),
                                       window=ref_kw.pop("window_size", (-1, -1)), **ref_kw)
    assert_close(got, want, TOL[out_dtype])
    if lse:
        assert got_lse.shape == (b, h_q, s_q) and got_lse.dtype == np.float32
        assert_close(got_lse, want_lse, 2e-5, "lse")
    return got


# ---- Plain attention and every mask ------------------------------------------------------

def test_library_loads():
    assert flashc.library_version() // 100 == 1  # 0.1.x
    assert flashc.library_path()


@pytest.mark.parametrize("d", [32, 64, 128])
def test_plain(rng, d):
    run_batched(rng, d=d)


def test_plain_f16_output(rng):
    run_batched(rng, out_dtype="float16")


def test_default_allocation_and_dtype(rng):
    q = randn(rng, (1, 5, 2, 32))
    k = randn(rng, (1, 9, 2, 32))
    v = randn(rng, (1, 9, 2, 32))
    out = flashc.flash_attn_func(q, k, v)
    assert isinstance(out, np.ndarray) and out.dtype == np.float16 and out.shape == q.shape
    want, _ = attention_batched(f64(q), f64(k), f64(v))
    assert_close(out, want, TOL["float16"])
    out32 = flashc.flash_attn_func(q, k, v, out_dtype=np.float32)
    assert out32.dtype == np.float32
    assert_close(out32, want, TOL["float32"])


@pytest.mark.parametrize("s_q,s_k", [(37, 53), (53, 37), (1, 64), (64, 64)])
def test_causal(rng, s_q, s_k):
    # s_q > s_k leaves the first rows with no key: zeros and lse = -inf.
    run_batched(rng, s_q=s_q, s_k=s_k, causal=True)


@pytest.mark.parametrize("window", [(8, 0), (5, 3), (-1, 4), (10, -1), (0, 0)])
def test_window(rng, window):
    run_batched(rng, window_size=window)


def test_window_causal(rng):
    run_batched(rng, causal=True, window_size=(6, 0))


def test_softcap(rng):
    run_batched(rng, softcap=2.5, softmax_scale=0.3)


def test_softmax_scale(rng):
    run_batched(rng, softmax_scale=0.05)


@pytest.mark.parametrize("h_q,h_kv", [(6, 2), (4, 1), (3, 3)])
def test_gqa(rng, h_q, h_kv):
    run_batched(rng, h_q=h_q, h_kv=h_kv, causal=True)


def test_alibi_per_head(rng):
    slopes = (rng.random(4) + 0.05).astype(np.float32)
    run_batched(rng, alibi_slopes=slopes, causal=True)


def test_alibi_per_batch(rng):
    slopes = (rng.random((2, 4)) + 0.05).astype(np.float32)
    run_batched(rng, alibi_slopes=slopes)


def test_bias_full(rng):
    run_batched(rng, attn_bias=randn(rng, (2, 4, 37, 53), np.float32))


def test_bias_broadcast_heads_f16(rng):
    run_batched(rng, attn_bias=randn(rng, (2, 1, 37, 53), np.float16), causal=True)


def test_bias_2d(rng):
    # Fewer than 4 dimensions broadcast over the leading ones.
    run_batched(rng, attn_bias=randn(rng, (37, 53), np.float32))


def test_bias_stride_zero(rng):
    bias = np.broadcast_to(randn(rng, (1, 1, 37, 53), np.float32), (2, 4, 37, 53))
    assert bias.strides[0] == 0
    run_batched(rng, attn_bias=bias, softcap=3.0)


@needs_ml_dtypes
def test_bias_bf16(rng):
    run_batched(rng, attn_bias=randn(rng, (1, 4, 37, 53), ml_dtypes.bfloat16))


def test_everything_at_once(rng):
    run_batched(rng, h_q=6, h_kv=3, causal=True, window_size=(12, 0), softcap=4.0,
                alibi_slopes=(rng.random(6) + 0.1).astype(np.float32),
                attn_bias=randn(rng, (1, 6, 37, 53), np.float32), out_dtype="float16")


def test_strided_views(rng):
    """Non-contiguous q/k/v (heads sliced out of a packed qkv buffer) are read through their
    strides, without copies."""
    b, s, h, d = 2, 19, 3, 64
    qkv = randn(rng, (b, s, 3 * h, d))
    q, k, v = qkv[:, :, :h], qkv[:, :, h:2 * h], qkv[:, :, 2 * h:]
    assert not q.flags.c_contiguous
    out = poisoned(q.shape, np.float32)
    flashc.flash_attn_func(q, k, v, out=out, causal=True)
    want, _ = attention_batched(f64(q), f64(k), f64(v), causal=True)
    assert_close(out, want, TOL["float32"])


# ---- dtypes ------------------------------------------------------------------------------

@needs_ml_dtypes
def test_bf16_inputs(rng):
    bf16 = ml_dtypes.bfloat16
    q, k, v = (randn(rng, (2, 17, 2, 64), bf16) for _ in range(3))
    out = flashc.flash_attn_func(q, k, v, causal=True)
    assert out.dtype == bf16
    want, _ = attention_batched(f64(q), f64(k), f64(v), causal=True)
    assert_close(out, want, TOL["bfloat16"])


def _int8(rng, shape):
    x = rng.integers(-127, 128, size=shape).astype(np.int8)
    x[x == 0] = 3
    return x


@pytest.mark.parametrize("descale_form", ["array", "broadcast", "scalar", "none"])
def test_int8_descales(rng, descale_form):
    b, s_q, s_k, h_q, h_kv, d = 2, 21, 33, 4, 2, 64
    q, k, v = _int8(rng, (b, s_q, h_q, d)), _int8(rng, (b, s_k, h_kv, d)), _int8(rng, (b, s_k, h_kv, d))
    if descale_form == "array":
        ds = [(rng.random((b, h_kv)) * 0.02 + 0.005).astype(np.float32) for _ in range(3)]
        ref_ds = ds
    elif descale_form == "broadcast":
        ds = [np.array([[0.011]], np.float32), np.array([0.013, 0.007], np.float32),
              np.array([[0.02], [0.01]], np.float32)]
        ref_ds = [np.broadcast_to(x.reshape((1, -1) if x.ndim == 1 else x.shape), (b, h_kv)) for x in ds]
    elif descale_form == "scalar":
        ds = [0.01, 0.012, 0.009]
        ref_ds = [np.full((b, h_kv), x) for x in ds]
    else:
        ds = [None, None, None]
        ref_ds = ds
    out = poisoned(q.shape, np.float32)
    # Unit descales (none) make int8 logits large: a small scale keeps the softmax soft.
    scale = 1e-3 if descale_form == "none" else None
    got, lse = flashc.flash_attn_func(q, k, v, q_descale=ds[0], k_descale=ds[1], v_descale=ds[2],
                                      causal=True, out=out, return_attn_probs=True,
                                      softmax_scale=scale)
    want, want_lse = attention_batched(dequant(q, ref_ds[0], 2), dequant(k, ref_ds[1], 2),
                                       dequant(v, ref_ds[2], 2), causal=True, scale=scale)
    assert_close(got, want, TOL["float32"])
    assert_close(lse, want_lse, 2e-5, "lse")


@needs_ml_dtypes
def test_int8_default_output_is_bf16(rng):
    q, k, v = _int8(rng, (1, 8, 2, 32)), _int8(rng, (1, 8, 2, 32)), _int8(rng, (1, 8, 2, 32))
    ds = np.full((1, 2), 0.01, np.float32)
    out = flashc.flash_attn_func(q, k, v, q_descale=ds, k_descale=ds, v_descale=ds)
    assert out.dtype == ml_dtypes.bfloat16
    want, _ = attention_batched(dequant(q, ds, 2), dequant(k, ds, 2), dequant(v, ds, 2))
    assert_close(out, want, TOL["bfloat16"])


@needs_ml_dtypes
@pytest.mark.parametrize("v_transposed", [False, True])
def test_fp8(rng, v_transposed):
    e4m3 = ml_dtypes.float8_e4m3fn
    b, s_q, s_k, h_q, h_kv, d = 2, 13, 40, 4, 2, 64
    q, k, v = randn(rng, (b, s_q, h_q, d), e4m3), randn(rng, (b, s_k, h_kv, d), e4m3), \
        randn(rng, (b, s_k, h_kv, d), e4m3)
    ds = [(rng.random((b, h_kv)) + 0.5).astype(np.float32) for _ in range(3)]
    v_arg = np.ascontiguousarray(v.transpose(0, 2, 3, 1)) if v_transposed else v  # [b, h_kv, d, s_k]
    out = poisoned(q.shape, np.float32)
    flashc.flash_attn_func(q, k, v_arg, q_descale=ds[0], k_descale=ds[1], v_descale=ds[2],
                           window_size=(9, 2), out=out, v_transposed=v_transposed)
    want, _ = attention_batched(dequant(q, ds[0], 2), dequant(k, ds[1], 2), dequant(v, ds[2], 2),
                                window=(9, 2))
    assert_close(out, want, TOL["float32"])


# ---- varlen ------------------------------------------------------------------------------

def _varlen_inputs(rng, lens_q, lens_k, h_q=4, h_kv=2, d=64):
    cu_q = np.concatenate([[0], np.cumsum(lens_q)]).astype(np.int32)
    cu_k = np.concatenate([[0], np.cumsum(lens_k)]).astype(np.int32)
    q = randn(rng, (int(cu_q[-1]), h_q, d))
    k = randn(rng, (int(cu_k[-1]), h_kv, d))
    v = randn(rng, (int(cu_k[-1]), h_kv, d))
    return q, k, v, cu_q, cu_k


@pytest.mark.parametrize("causal", [False, True])
def test_varlen(rng, causal):
    lens_q, lens_k = [5, 17, 0, 30], [9, 17, 4, 12]
    q, k, v, cu_q, cu_k = _varlen_inputs(rng, lens_q, lens_k)
    out = poisoned(q.shape, np.float32)
    got, lse = flashc.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lens_q), max(lens_k),
                                             causal=causal, out=out, return_attn_probs=True)
    assert lse.shape == (4, q.shape[0])
    want, want_lse = attention_varlen(f64(q), f64(k), f64(v), cu_q, cu_k, causal=causal)
    assert_close(got, want, TOL["float32"])
    assert_close(lse, want_lse, 2e-5, "lse")


def test_varlen_max_seqlen_from_host_arrays(rng):
    q, k, v, cu_q, cu_k = _varlen_inputs(rng, [3, 8], [8, 3])
    got = flashc.flash_attn_varlen_func(q, k, v, list(cu_q), list(cu_k), None, None,
                                        window_size=(2, 1), out_dtype="float32")
    want, _ = attention_varlen(f64(q), f64(k), f64(v), cu_q, cu_k, window=(2, 1))
    assert_close(got, want, TOL["float32"])


def test_varlen_seqused_k(rng):
    lens_q, lens_k = [6, 11, 7], [20, 11, 16]
    q, k, v, cu_q, cu_k = _varlen_inputs(rng, lens_q, lens_k, h_q=2, h_kv=1)
    used = np.array([13, 0, 16], np.int32)
    out = poisoned(q.shape, np.float32)
    flashc.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 11, 20, seqused_k=used, causal=True, out=out)
    want, _ = attention_varlen(f64(q), f64(k), f64(v), cu_q, cu_k, seqused_k=used, causal=True)
    assert_close(out, want, TOL["float32"])


def test_varlen_bias_alibi_softcap(rng):
    lens_q, lens_k = [7, 12], [15, 12]
    q, k, v, cu_q, cu_k = _varlen_inputs(rng, lens_q, lens_k)
    bias = randn(rng, (2, 4, 12, 15), np.float32)
    slopes = (rng.random(4) + 0.1).astype(np.float32)
    out = poisoned(q.shape, np.float32)
    flashc.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 12, 15, softcap=3.0, attn_bias=bias,
                                  alibi_slopes=slopes, out=out)
    want, _ = attention_varlen(f64(q), f64(k), f64(v), cu_q, cu_k, bias=f64(bias), softcap=3.0,
                               alibi=slopes)
    assert_close(out, want, TOL["float32"])


def test_varlen_k_batched_q(rng):
    """cu_seqlens_q=None: q batched [b, s_q, h, d] over varlen keys."""
    lens_k = [10, 25]
    _, k, v, _, cu_k = _varlen_inputs(rng, [1, 1], lens_k)
    q = randn(rng, (2, 6, 4, 64))
    got = flashc.flash_attn_varlen_func(q, k, v, None, cu_k, None, 25, causal=True, out_dtype="float32")
    for bi in range(2):
        ks = slice(int(cu_k[bi]), int(cu_k[bi + 1]))
        want, _ = attention_one(f64(q[bi]), f64(k[ks]), f64(v[ks]), causal=True)
        assert_close(got[bi], want, TOL["float32"])


# ---- KV cache ----------------------------------------------------------------------------

def test_kvcache_batched(rng):
    b, s_cache, h_q, h_kv, d = 3, 40, 4, 2, 64
    q = randn(rng, (b, 2, h_q, d))
    kc, vc = randn(rng, (b, s_cache, h_kv, d)), randn(rng, (b, s_cache, h_kv, d))
    seqlens = np.array([40, 7, 23], np.int32)
    out = poisoned(q.shape, np.float32)
    got, lse = flashc.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=seqlens, causal=True, out=out,
                                              return_softmax_lse=True)
    want, want_lse = attention_batched(f64(q), f64(kc), f64(vc), seqused_k=seqlens, causal=True)
    assert_close(got, want, TOL["float32"])
    assert_close(lse, want_lse, 2e-5, "lse")


def test_kvcache_int_seqlens_and_full_cache(rng):
    q = randn(rng, (2, 1, 2, 32))
    kc, vc = randn(rng, (2, 30, 2, 32)), randn(rng, (2, 30, 2, 32))
    got = flashc.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=19, out_dtype="float32")
    want, _ = attention_batched(f64(q), f64(kc), f64(vc), seqused_k=[19, 19])
    assert_close(got, want, TOL["float32"])
    got = flashc.flash_attn_with_kvcache(q, kc, vc, out_dtype="float32")
    want, _ = attention_batched(f64(q), f64(kc), f64(vc))
    assert_close(got, want, TOL["float32"])


@pytest.mark.parametrize("page_size,s_q", [(16, 1), (5, 3), (64, 4)])
def test_kvcache_paged(rng, page_size, s_q):
    b, h_q, h_kv, d = 3, 4, 2, 64
    seqlens = np.array([37, 1, 20], np.int32)
    max_pages = int(math.ceil(seqlens.max() / page_size)) + 1
    num_pages = b * max_pages + 2
    kc, vc = randn(rng, (num_pages, page_size, h_kv, d)), randn(rng, (num_pages, page_size, h_kv, d))
    page_table = rng.permutation(num_pages)[: b * max_pages].reshape(b, max_pages).astype(np.int32)
    q = randn(rng, (b, s_q, h_q, d))
    out = poisoned(q.shape, np.float32)
    got, lse = flashc.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=seqlens, page_table=page_table,
                                              causal=True, out=out, return_softmax_lse=True)
    ks, vs = gather_pages(kc, page_table, seqlens), gather_pages(vc, page_table, seqlens)
    for bi in range(b):
        want, want_lse = attention_one(f64(q[bi]), f64(ks[bi]), f64(vs[bi]), causal=True)
        assert_close(got[bi], want, TOL["float32"])
        assert_close(lse[bi], want_lse, 2e-5, "lse")


def test_kvcache_paged_varlen_q(rng):
    page_size, h_q, h_kv, d = 8, 2, 2, 32
    seqlens = np.array([12, 30], np.int32)
    page_table = np.array([[3, 0, -1, -1], [1, 4, 2, 5]], np.int32)  # -1: never read
    kc, vc = randn(rng, (6, page_size, h_kv, d)), randn(rng, (6, page_size, h_kv, d))
    cu_q = np.array([0, 2, 7], np.int32)
    q = randn(rng, (7, h_q, d))
    got = flashc.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=seqlens, page_table=page_table,
                                         cu_seqlens_q=cu_q, max_seqlen_q=5, causal=True,
                                         out_dtype="float32")
    ks, vs = gather_pages(kc, page_table, seqlens), gather_pages(vc, page_table, seqlens)
    for bi in range(2):
        rows = slice(int(cu_q[bi]), int(cu_q[bi + 1]))
        want, _ = attention_one(f64(q[rows]), f64(ks[bi]), f64(vs[bi]), causal=True)
        assert_close(got[rows], want, TOL["float32"])


@pytest.mark.parametrize("arg", ["k", "v", "rotary_cos", "rotary_sin", "cache_batch_idx",
                                 "cache_leftpad", "qv"])
def test_kvcache_append_not_implemented(rng, arg):
    q = randn(rng, (1, 1, 2, 32))
    kc, vc = randn(rng, (1, 8, 2, 32)), randn(rng, (1, 8, 2, 32))
    with pytest.raises(NotImplementedError, match=arg):
        flashc.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=4, **{arg: q})


# ---- Inputs other than numpy arrays --------------------------------------------------------

class _ArrayInterfaceOnly:
    def __init__(self, a):
        self._a = a
        self.__array_interface__ = a.__array_interface__


class _DLPackOnly:
    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


@pytest.mark.parametrize("wrap", [_ArrayInterfaceOnly, _DLPackOnly])
def test_other_array_protocols(rng, wrap):
    q, k, v = (randn(rng, (1, 9, 2, 64)) for _ in range(3))
    got = flashc.flash_attn_func(wrap(q), wrap(k), wrap(v), causal=True, out_dtype="float32")
    want, _ = attention_batched(f64(q), f64(k), f64(v), causal=True)
    assert_close(got, want, TOL["float32"])


def test_torch_cpu_tensors(rng):
    torch = pytest.importorskip("torch")
    q, k, v = (torch.from_numpy(randn(rng, (2, 11, 2, 64))) for _ in range(3))
    out, lse = flashc.flash_attn_func(q, k, v, causal=True, return_attn_probs=True)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float16 and out.device.type == "cpu"
    want, want_lse = attention_batched(f64(q.numpy()), f64(k.numpy()), f64(v.numpy()), causal=True)
    assert_close(out.numpy(), want, TOL["float16"])
    assert_close(lse.numpy(), want_lse, 2e-5, "lse")
    bf = [t.to(torch.bfloat16) for t in (q, k, v)]
    out = flashc.flash_attn_func(*bf, out_dtype=torch.float32)
    want, _ = attention_batched(*(f64(t.float().numpy()) for t in bf))
    assert_close(out.numpy(), want, TOL["float32"])


# ---- Backend selection and errors --------------------------------------------------------

def test_select_backend_host_is_cpu(rng):
    q, k, v = (randn(rng, (1, 4, 1, 32)) for _ in range(3))
    assert flashc.select_backend(q, k, v) == "cpu"
    assert flashc.select_backend(q, k, v, backend="cpu") == "cpu"


def _qkv(rng, b=1, s_q=4, s_k=4, h_q=2, h_kv=2, d=32, dtype=np.float16):
    return randn(rng, (b, s_q, h_q, d), dtype), randn(rng, (b, s_k, h_kv, d), dtype), \
        randn(rng, (b, s_k, h_kv, d), dtype)


def test_error_head_dim_mismatch(rng):
    q, k, v = _qkv(rng)
    k = randn(rng, (1, 4, 2, 64))
    with pytest.raises(FlashcError) as e:
        flashc.flash_attn_func(q, k, v)
    assert e.value.status_name == "FLASHC_STATUS_INVALID_ARGUMENT"
    assert "k.shape" in e.value.message and "k.shape" in str(e.value)
    assert isinstance(e.value, RuntimeError)


def test_error_heads_not_divisible(rng):
    q, k, v = _qkv(rng, h_q=3, h_kv=2)
    with pytest.raises(FlashcError, match="h_kv"):
        flashc.flash_attn_func(q, k, v)


def test_error_unsupported_head_dim_is_not_supported(rng):
    q, k, v = _qkv(rng, d=40)
    with pytest.raises(NotSupportedError, match="head dim") as e:
        flashc.flash_attn_func(q, k, v)
    assert e.value.status == 4 and e.value.status_name == "FLASHC_STATUS_NOT_SUPPORTED"
    assert flashc.NotSupported is NotSupportedError


def test_error_dtype(rng):
    q, k, v = _qkv(rng, dtype=np.float32)
    with pytest.raises(FlashcError, match="q.dtype") as e:
        flashc.flash_attn_func(q, k, v)
    assert e.value.status_name == "FLASHC_STATUS_DTYPE_MISMATCH"
    q, k, v = _qkv(rng)
    with pytest.raises(FlashcError, match="k.dtype"):
        flashc.flash_attn_func(q, k.astype(np.float32), v)


def test_error_out_shape(rng):
    q, k, v = _qkv(rng)
    with pytest.raises(FlashcError, match="out"):
        flashc.flash_attn_func(q, k, v, out=np.zeros((1, 4, 2, 16), np.float32))


def test_error_bad_q_rank(rng):
    q, k, v = _qkv(rng)
    with pytest.raises(FlashcError, match=r"q must be \[b, s_q, h_q, d\]"):
        flashc.flash_attn_func(q[0], k, v)


def test_error_innermost_not_contiguous(rng):
    q, k, v = _qkv(rng, d=64)
    with pytest.raises(FlashcError, match="innermost"):
        flashc.flash_attn_func(q[..., ::2], k[..., ::2], v[..., ::2])


def test_error_cu_seqlens_length(rng):
    q, k, v, cu_q, cu_k = _varlen_inputs(rng, [4, 5], [4, 5])
    with pytest.raises(FlashcError, match="cu_seqlens_k"):
        flashc.flash_attn_varlen_func(q, k, v, cu_q, cu_k[:2], 5, 5)
    with pytest.raises(FlashcError, match="int32"):
        flashc.flash_attn_varlen_func(q, k, v, cu_q.astype(np.int64), cu_k, 5, 5)


def test_error_cu_seqlens_content(rng):
    q, k, v, cu_q, cu_k = _varlen_inputs(rng, [4, 5], [4, 5])
    bad = np.array([0, 6, 5], np.int32)
    with pytest.raises(FlashcError, match="cu_seqlens_k"):
        flashc.flash_attn_varlen_func(q, k, v, cu_q, bad, 5, 6)


def test_error_window(rng):
    q, k, v = _qkv(rng)
    with pytest.raises(FlashcError, match="window_left"):
        flashc.flash_attn_func(q, k, v, window_size=(-2, 0))


def test_error_descale_shape(rng):
    q, k, v = (_int8(rng, (2, 4, 2, 32)) for _ in range(3))
    with pytest.raises(FlashcError, match="k_descale"):
        flashc.flash_attn_func(q, k, v, k_descale=np.ones((3, 2), np.float32), out_dtype="float32")


def test_error_paged_needs_seqlens(rng):
    q = randn(rng, (1, 1, 2, 32))
    kc, vc = randn(rng, (2, 4, 2, 32)), randn(rng, (2, 4, 2, 32))
    with pytest.raises(ValueError, match="cache_seqlens"):
        flashc.flash_attn_with_kvcache(q, kc, vc, page_table=np.array([[0, 1]], np.int32))


def test_error_bad_backend(rng):
    q, k, v = _qkv(rng)
    with pytest.raises(ValueError, match="backend"):
        flashc.flash_attn_func(q, k, v, backend="tpu")


def test_error_gpu_backend_on_host_memory(rng):
    """Host numpy arrays with a GPU backend forced: a clear FlashcError (no device here, or
    pageable host memory refused), never a crash."""
    q, k, v = _qkv(rng)
    with pytest.raises(FlashcError):
        flashc.flash_attn_func(q, k, v, backend="sm80")


def test_error_not_an_array():
    with pytest.raises(TypeError, match="q"):
        flashc.flash_attn_func("q", "k", "v")


def test_unsupported_fa3_arguments(rng):
    q, k, v = _qkv(rng)
    with pytest.raises(NotImplementedError, match="qv"):
        flashc.flash_attn_func(q, k, v, qv=q)
    with pytest.raises(NotImplementedError, match="attention_chunk"):
        flashc.flash_attn_func(q, k, v, attention_chunk=16)
    # Performance hints of flash-attn 3 are accepted and ignored.
    flashc.flash_attn_func(q, k, v, num_splits=4, pack_gqa=True, deterministic=True, sm_margin=2)


def test_error_carries_last_error_text(rng):
    """The message is flashc_last_error() of the failing call, and a later success clears it."""
    from flashc import _lib
    q, k, v = _qkv(rng)
    with pytest.raises(FlashcError) as e:
        flashc.flash_attn_func(q, k, v, softcap=-1.0)
    assert "softcap" in e.value.message
    assert _lib.last_error() == e.value.message
    flashc.flash_attn_func(q, k, v)
    assert _lib.last_error() == ""


# ---- The raw entry point -----------------------------------------------------------------

def test_attention_every_field(rng):
    """flashc.attention takes flashc_attention_params' fields by name (paged + bias + ALiBi +
    softcap + window + lse here); the stream argument is ignored on the CPU backend."""
    page_size, b, s_q, h_q, h_kv, d = 4, 2, 3, 4, 2, 32
    seqlens = np.array([9, 14], np.int32)
    page_table = np.array([[5, 1, 0, 7], [2, 3, 4, 6]], np.int32)
    kc, vc = randn(rng, (8, page_size, h_kv, d)), randn(rng, (8, page_size, h_kv, d))
    q = randn(rng, (b, s_q, h_q, d))
    bias = randn(rng, (b, 1, s_q, 16), np.float32)
    slopes = (rng.random((b, h_q)) + 0.1).astype(np.float32)
    out, lse = flashc.attention(q, kc, vc, page_table=page_table, seqused_k=seqlens, attn_bias=bias,
                                alibi_slopes=slopes, softcap=2.0, window_size=(5, 1), out_dtype="float32",
                                return_lse=True, stream=0, backend="cpu")
    ks, vs = gather_pages(kc, page_table, seqlens), gather_pages(vc, page_table, seqlens)
    for bi in range(b):
        n = int(seqlens[bi])
        want, want_lse = attention_one(f64(q[bi]), f64(ks[bi]), f64(vs[bi]), softcap=2.0, window=(5, 1),
                                       bias=f64(bias[bi][:, :, :n]), alibi=slopes[bi])
        assert_close(out[bi], want, TOL["float32"])
        assert_close(lse[bi], want_lse, 2e-5, "lse")


def test_out_dtype_conflict(rng):
    q, k, v = _qkv(rng)
    with pytest.raises(FlashcError, match="out_dtype"):
        flashc.flash_attn_func(q, k, v, out=np.zeros(q.shape, np.float32), out_dtype="float16")


def test_release_caches_is_harmless(rng):
    flashc.release_caches()
    q, k, v = _qkv(rng)
    flashc.flash_attn_func(q, k, v)


@pytest.mark.parametrize("layout", ["b s 3 h d", "b s (hq + 2 hkv) d"])
def test_qkvpacked(rng, layout):
    b, s, d = 2, 23, 64
    if layout == "b s 3 h d":
        qkv = randn(rng, (b, s, 3, 4, d))
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
        kw = {}
    else:
        qkv = randn(rng, (b, s, 6 + 2 * 2, d))
        q, k, v = qkv[:, :, :6], qkv[:, :, 6:8], qkv[:, :, 8:]
        kw = {"num_heads_q": 6}
    out, lse = flashc.flash_attn_qkvpacked_func(qkv, causal=True, return_attn_probs=True,
                                                out_dtype="float32", **kw)
    want, want_lse = attention_batched(f64(q), f64(k), f64(v), causal=True)
    assert_close(out, want, TOL["float32"])
    assert_close(lse, want_lse, 2e-5, "lse")
    with pytest.raises(FlashcError, match="num_heads_q"):
        flashc.flash_attn_qkvpacked_func(randn(rng, (1, 4, 7, d)), num_heads_q=2)
