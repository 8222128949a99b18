#!/usr/bin/env python3
"""flashc beside PyTorch SDPA (cuDNN, flash, efficient) and cuDNN fp8 through JAX, one process.

    python3 bench/bench_sdpa.py [--quick] [--sets fa3,decode] [--dtypes bf16,fp8,int8] [--out DIR]

Every implementation of a row gets the same input tensors ([b, s, h, d], random, never zeros).
Measures the ceilings in the same run (bf16 GEMM 8192^3, fp8 torch._scaled_mm 8192^3, int8
torch._int_mm 8192^3, device-to-device copy) and prints, per (dtype, head dim, causal), a markdown
table with one column per seqlen and one row per implementation, each figure with its percentage
of the measured ceiling, plus flashc/cuDNN ratios. Writes <out>/<date>-<gpu>.json and a PNG
(bench/plot.py). Anything that fails (flashc NOT_SUPPORTED, a backend refusing a shape, JAX
missing) is recorded as "n/a" with its reason; the run goes on. See docs/bench.md.

flashc is the Python package in <repo>/python over libflashc: set FLASHC_LIBRARY to the built
libflashc.so (otherwise the package searches its usual places, build*/ included).
"""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time
import traceback
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# JAX must not grab 75% of the GPU at import: torch and flashc share the device with it.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

# ---- Shape sets (the same as bench/flashc_bench.c) ------------------------------------------
FA3_TOKENS = 16384          # batch * seqlen
FA3_HEAD_WIDTH = 2048       # heads * head dim
FA3_HDIMS = (64, 128, 256)
FA3_SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
QUICK_SEQLENS = (1024, 8192)
DECODE_D = 128
# (b, h_q, h_kv, s_k, in --quick); each with s_q = 1 and 4, no mask.
DECODE_ROWS = (
    (64, 32, 8, 4096, True), (64, 32, 8, 8192, False), (64, 32, 8, 16384, False),
    (64, 32, 8, 32768, True), (8, 64, 8, 4096, True), (8, 64, 8, 32768, False),
    (128, 32, 32, 4096, False), (128, 32, 32, 32768, True),
)
DECODE_SQ = (1, 4)

# ---- Timing ---------------------------------------------------------------------------------
GEMM_N = 8192
COPY_BYTES = 2 << 30
MIN_FLUSH_BYTES = 256 << 20
L2_FLUSH_FACTOR = 4
# The GPU spins this many cycles (~0.5 ms at 1.98 GHz) after the L2 flush and before the start
# event, so that Python's time to enqueue the timed call never shows up as idle GPU time.
ENQUEUE_SLACK_CYCLES = 1_000_000
INT8_DESCALE = 1.0 / 64.0
# Output agreement flashc vs. SDPA (relative Frobenius error): above this the row is flagged.
ERR_FLAG = {"float16": 2e-2, "bfloat16": 2e-2, "float8_e4m3fn": 8e-2, "int8": 8e-2}

IMPL_FLASHC = "flashc"
# The portable mma.sync path forced (backend="sm80"), 16-bit FA3 rows only: issue #5 compares it
# with FlashAttention-2 (sdpa-flash) in the same run.
IMPL_FLASHC_SM80 = "flashc-sm80"
# fp8 FA3 rows again with V pre-transposed ([b, h_kv, d, s_k]): what the Hopper path's fp8 kernels
# take (AUTO picks them for that layout); the "flashc" rows give V in K's layout, the API default.
IMPL_FLASHC_VT = "flashc-vt"
SDPA_IMPLS = ("sdpa-cudnn", "sdpa-flash", "sdpa-efficient")
IMPL_JAX_FP8 = "jax-cudnn-fp8"
DTYPE_NAMES = {"f16": "float16", "fp16": "float16", "bf16": "bfloat16", "fp8": "float8_e4m3fn",
               "int8": "int8"}
SHORT = {"float16": "f16", "bfloat16": "bf16", "float8_e4m3fn": "fp8", "int8": "int8"}


class ContextLost(Exception):
    """A sticky CUDA error: nothing run after it can be trusted, so the run stops there."""


def log(*a):
    print(*a, flush=True)


def short_error(e, limit=240):
    text = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    return text[:limit]


class Timer:
    """CUDA-event timing with an L2 flush and enqueue slack before every call; median of reps.

    flush "write" zeroes a buffer of 4x the L2 (Triton's do_bench, the anchors' method): it leaves
    the L2 full of dirty lines whose write-back lands in the timed call (~9 us on the H200, what
    bounds the 134 MB decode rows). flush "read" reduces the same buffer instead: the inputs are
    evicted just as well and the L2 is left clean (what a decode step meets after the weight-
    streaming GEMMs before it)."""

    def __init__(self, torch, warmup_ms, rep_ms, min_reps, max_reps, flush="write"):
        self.torch = torch
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 0) or (50 << 20)
        self.flush = torch.zeros(max(MIN_FLUSH_BYTES, L2_FLUSH_FACTOR * l2), dtype=torch.uint8, device="cuda")
        self.flush_mode = flush
        self.warmup_ms, self.rep_ms = warmup_ms, rep_ms
        self.min_reps, self.max_reps = min_reps, max_reps

    def flush_l2(self):
        if self.flush_mode == "read":
            self.flush.view(self.torch.int32).max()  # reads every line, writes one scalar
        else:
            self.flush.zero_()

    def __call__(self, fn):
        torch = self.torch
        fn()
        torch.cuda.synchronize()
        # Estimate one call (with the same flush and slack) to size warm-up and repeats.
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        self.flush_l2()
        s.record()
        for _ in range(3):
            fn()
        e.record()
        torch.cuda.synchronize()
        est = max(s.elapsed_time(e) / 3, 1e-3)
        for _ in range(max(1, int(self.warmup_ms / est))):
            fn()
        n = min(self.max_reps, max(self.min_reps, int(self.rep_ms / est)))
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        for i in range(n):
            self.flush_l2()
            torch.cuda._sleep(ENQUEUE_SLACK_CYCLES)
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        times = sorted(a.elapsed_time(b) for a, b in zip(starts, ends))
        mid = len(times) // 2
        return times[mid] if len(times) % 2 else 0.5 * (times[mid - 1] + times[mid])


def jax_time(fn, args, rep_ms, min_reps, max_reps):
    """JAX runs on its own stream, out of reach of torch's events: time back-to-back batches by
    wall clock and take the median per-call time of the difference between a batch of 2n and a
    batch of n calls (which cancels the fixed dispatch and synchronisation latency). No L2 flush."""
    out = fn(*args)
    out.block_until_ready()
    t0 = time.perf_counter()
    fn(*args).block_until_ready()
    est_ms = max((time.perf_counter() - t0) * 1e3, 1e-3)
    n = min(max_reps, max(min_reps, int(rep_ms / est_ms / 3)))

    def batch(count):
        t = time.perf_counter()
        for _ in range(count):
            last = fn(*args)  # earlier outputs are freed as they go; the stream keeps the order
        last.block_until_ready()
        return (time.perf_counter() - t) * 1e3

    samples = []
    for _ in range(5):
        a = batch(n)
        b = batch(2 * n)
        samples.append(max(b - a, 0.0) / n)
    samples.sort()
    return samples[len(samples) // 2]


# ---- FLOPs and bytes (docs/bench.md) --------------------------------------------------------

def scored_pairs(s_q, s_k, causal):
    """Query-key pairs left by the mask (bottom-right causal); s_q == s_k causal counts half."""
    if not causal:
        return s_q * s_k
    if s_q == s_k:
        return 0.5 * s_q * s_k
    return sum(min(max(i + s_k - s_q + 1, 0), s_k) for i in range(s_q))


def attn_flops(b, h, s_q, s_k, d, causal):
    return 4.0 * b * h * d * scored_pairs(s_q, s_k, causal)


# ---- The implementations ----------------------------------------------------------------------

class Impls:
    def __init__(self, torch, args):
        self.torch = torch
        self.args = args
        self.flashc = None
        self.flashc_error = None
        self.flashc_info = {}
        try:
            import flashc
            self.flashc_info = {"library": flashc.library_path(), "version": flashc.library_version()}
            self.flashc = flashc
        except Exception as e:  # noqa: BLE001 - recorded, the run goes on
            self.flashc_error = "flashc unavailable: " + short_error(e)
        self.jax = None
        self.jax_error = None
        self.jax_info = {}
        self._jax_fns = {}

    # -- flashc --
    def flashc_fn(self, q, k, v, causal, dtype, backend="auto", vt_only=False):
        """A no-argument callable running flashc on these tensors, or raise with the reason.
        vt_only: 8-bit V pre-transposed, without trying V in K's layout first."""
        if self.flashc is None:
            raise RuntimeError(self.flashc_error)
        torch, fc = self.torch, self.flashc
        kw = {"causal": causal, "backend": backend}
        if dtype == "int8":
            ds = torch.full((1,), INT8_DESCALE, dtype=torch.float32, device=q.device)
            kw.update(q_descale=ds, k_descale=ds, v_descale=ds)
        first = None
        if not vt_only:
            try:
                fc.flash_attn_func(q, k, v, **kw)
                return lambda: fc.flash_attn_func(q, k, v, **kw), ""
            except fc.NotSupportedError as e:
                if dtype not in ("float8_e4m3fn", "int8"):
                    raise
                first = e
        # 8-bit paths may want V sequence-innermost ([b, h_kv, d, s_k]); try that layout.
        vt = v.permute(0, 2, 3, 1).contiguous()
        try:
            fc.flash_attn_func(q, k, vt, v_transposed=True, **kw)
        except fc.NotSupportedError:
            if first is None:
                raise
            raise first from None
        return lambda: fc.flash_attn_func(q, k, vt, v_transposed=True, **kw), "vT"

    def flashc_backend(self, q, k, v, causal, vt=False):
        try:
            if vt:
                return self.flashc.select_backend(q, k, v.permute(0, 2, 3, 1).contiguous(), causal=causal,
                                                  v_transposed=True)
            return self.flashc.select_backend(q, k, v, causal=causal)
        except Exception:  # noqa: BLE001
            return "?"

    # -- PyTorch SDPA --
    def sdpa_fn(self, impl, q, k, v, causal):
        """[b, s, h, d] tensors viewed as [b, h, s, d] (no copy), as SDPA wants them."""
        torch = self.torch
        F = torch.nn.functional
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = {"sdpa-cudnn": SDPBackend.CUDNN_ATTENTION, "sdpa-flash": SDPBackend.FLASH_ATTENTION,
                   "sdpa-efficient": SDPBackend.EFFICIENT_ATTENTION}[impl]
        qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        gqa = q.shape[2] != k.shape[2]
        note = ""

        def call():
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, enable_gqa=gqa)

        try:
            call()
        except RuntimeError as e:
            if not gqa:
                raise
            # Backend without grouped-query support: give it K/V expanded to h_q heads (it then
            # reads group-size times more bytes; GB/s still counts the K/V a GQA kernel reads).
            rep = q.shape[2] // k.shape[2]
            kt = k.repeat_interleave(rep, dim=2).transpose(1, 2)
            vt = v.repeat_interleave(rep, dim=2).transpose(1, 2)
            gqa = False
            note = "K/V expanded (no GQA: %s)" % short_error(e, 80)
            call()
        return call, note

    # -- cuDNN fp8 through JAX --
    def _jax(self):
        if self.jax is None and self.jax_error is None:
            try:
                import jax
                import jax.numpy as jnp
                from jax._src.cudnn import fused_attention_stablehlo as fas
                self.jax = (jax, jnp, fas)
                import jaxlib
                self.jax_info = {"jax": jax.__version__, "jaxlib": getattr(jaxlib, "__version__", "?"),
                                 "cudnn": str(fas.check_cudnn_version())}
            except Exception as e:  # noqa: BLE001
                self.jax_error = "JAX cuDNN fp8 unavailable: " + short_error(e)
        if self.jax is None:
            raise RuntimeError(self.jax_error)
        return self.jax

    def jax_fp8_fn(self, q, k, v, causal):
        """(jitted fn, args) computing cuDNN fp8 attention on the same fp8 bytes as q, k, v."""
        jax, jnp, fas = self._jax()
        self.torch.cuda.synchronize()
        # torch fp8 -> uint8 through DLPack (no copy), then a bitcast to e4m3 inside JAX.
        to_fp8 = jax.jit(lambda x: jax.lax.bitcast_convert_type(x, jnp.float8_e4m3fn))
        arrs = [to_fp8(jax.dlpack.from_dlpack(t.view(self.torch.uint8))) for t in (q, k, v)]
        scale = 1.0 / math.sqrt(q.shape[-1])
        key = (tuple(q.shape), tuple(k.shape), causal)
        if key not in self._jax_fns:
            cudnn_version = fas.check_cudnn_version()
            layout = fas._normalize_layout("BTNH").value
            ones = {name: jnp.ones((1, 1, 1, 1), jnp.float32) for name in fas.fp8_params_keys}

            def attend(qq, kk, vv):
                return fas._dot_product_attention_fp8(qq, kk, vv, ones, scale, causal, layout,
                                                      cudnn_version)[0]
            self._jax_fns = {key: jax.jit(attend)}  # keep one compiled shape alive at a time
        return self._jax_fns[key], arrs


# ---- Ceilings ---------------------------------------------------------------------------------

def measure_ceilings(torch, timer):
    c = {}
    n = GEMM_N
    flops = 2.0 * n * n * n
    try:
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        c["bf16_gemm_tflops"] = flops / (timer(lambda: a @ b) * 1e-3) / 1e12
        del a, b
    except Exception as e:  # noqa: BLE001
        c["bf16_gemm_error"] = short_error(e)
    try:
        a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t()  # column-major, as cuBLASLt wants
        one = torch.ones((), device="cuda", dtype=torch.float32)
        ms = timer(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
        c["fp8_gemm_tflops"] = flops / (ms * 1e-3) / 1e12
        del a, b
    except Exception as e:  # noqa: BLE001
        c["fp8_gemm_error"] = short_error(e)
    try:
        a = torch.randint(-127, 128, (n, n), device="cuda", dtype=torch.int8)
        b = torch.randint(-127, 128, (n, n), device="cuda", dtype=torch.int8).t().contiguous().t()
        c["int8_gemm_tops"] = flops / (timer(lambda: torch._int_mm(a, b)) * 1e-3) / 1e12
        del a, b
    except Exception as e:  # noqa: BLE001
        c["int8_gemm_error"] = short_error(e)
    try:
        x = torch.randint(0, 255, (COPY_BYTES,), device="cuda", dtype=torch.uint8)
        y = torch.empty_like(x)
        c["copy_gbs"] = 2.0 * COPY_BYTES / (timer(lambda: y.copy_(x)) * 1e-3) / 1e9  # read + write
        del x, y
    except Exception as e:  # noqa: BLE001
        c["copy_error"] = short_error(e)
    torch.cuda.empty_cache()
    return c


def ceiling_for(ceil, dtype):
    if dtype == "int8":
        return ceil.get("int8_gemm_tops") or ceil.get("fp8_gemm_tflops")
    if dtype == "float8_e4m3fn":
        return ceil.get("fp8_gemm_tflops")
    return ceil.get("bf16_gemm_tflops")


# ---- Inputs -----------------------------------------------------------------------------------

def make_inputs(torch, dtype, b, s_q, s_k, h_q, h_kv, d, seed):
    """Random [b, s, h, d] q, k, v of `dtype`, never zero: normal values (8-bit: rounded from
    normal, int8 in [-127, 127] without 0)."""
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)

    def one(s, h):
        if dtype == "int8":
            x = torch.randint(1, 128, (b, s, h, d), device="cuda", dtype=torch.int8, generator=g)
            sign = torch.randint(0, 2, (b, s, h, d), device="cuda", dtype=torch.int8, generator=g)
            return x * (1 - 2 * sign)
        x = torch.randn((b, s, h, d), device="cuda", dtype=torch.bfloat16 if dtype == "float8_e4m3fn"
                        else getattr(torch, dtype), generator=g)
        return x.to(torch.float8_e4m3fn) if dtype == "float8_e4m3fn" else x
    return one(s_q, h_q), one(s_k, h_kv), one(s_k, h_kv)


def rel_error(torch, out, ref):
    o, r = out.float(), ref.float()
    if not torch.isfinite(o).all():
        return float("nan")
    return float((o - r).norm() / r.norm().clamp_min(1e-30))


# ---- One row: every implementation on the same inputs --------------------------------------

def run_row(torch, impls, timer, args, dtype, b, s_q, s_k, h_q, h_kv, d, causal, setname, ceil):
    results = []
    q, k, v = make_inputs(torch, dtype, b, s_q, s_k, h_q, h_kv, d, seed=b * 131 + s_k + d)
    base = {"set": setname, "dtype": SHORT[dtype], "b": b, "s_q": s_q, "s_k": s_k, "h_q": h_q,
            "h_kv": h_kv, "d": d, "causal": causal}
    flops = attn_flops(b, h_q, s_q, s_k, d, causal)
    kv_bytes = 2.0 * b * s_k * h_kv * d * q.element_size()
    decode = setname == "decode"
    peak = ceil.get("copy_gbs") if decode else ceiling_for(ceil, dtype)

    def record(impl, ms=None, note="", status="ok", extra=None):
        r = dict(base, impl=impl, status=status, note=note, ms=ms)
        if ms:
            r["tflops"] = flops / (ms * 1e-3) / 1e12
            if decode:
                r["gbs"] = kv_bytes / (ms * 1e-3) / 1e9
            rate = r["gbs"] if decode else r["tflops"]
            r["pct_peak"] = 100.0 * rate / peak if peak else None
        if extra:
            r.update(extra)
        results.append(r)

    names = [IMPL_FLASHC]
    if dtype in ("float16", "bfloat16") and not decode and IMPL_FLASHC_SM80 in args.impls:
        names.append(IMPL_FLASHC_SM80)
    if dtype == "float8_e4m3fn" and not decode and IMPL_FLASHC_VT in args.impls:
        names.append(IMPL_FLASHC_VT)
    if dtype in ("float16", "bfloat16"):
        names += [i for i in SDPA_IMPLS if i in args.impls]
    if dtype == "float8_e4m3fn" and IMPL_JAX_FP8 in args.impls:
        names.append(IMPL_JAX_FP8)
    if IMPL_FLASHC not in args.impls:
        names.remove(IMPL_FLASHC)

    flashc_out = None
    for impl in names:
        try:
            if impl == IMPL_FLASHC:
                fn, note = impls.flashc_fn(q, k, v, causal, dtype)
                flashc_out = fn()
                extra = {"backend": impls.flashc_backend(q, k, v, causal)}
                ms = timer(fn)
            elif impl == IMPL_FLASHC_SM80:
                fn, note = impls.flashc_fn(q, k, v, causal, dtype, backend="sm80")
                extra = {"backend": "sm80"}
                ms = timer(fn)
            elif impl == IMPL_FLASHC_VT:
                fn, note = impls.flashc_fn(q, k, v, causal, dtype, vt_only=True)
                extra = {"backend": impls.flashc_backend(q, k, v, causal, vt=True)}
                ms = timer(fn)
            elif impl == IMPL_JAX_FP8:
                fn, jargs = impls.jax_fp8_fn(q, k, v, causal)
                note, extra = "wall clock, no L2 flush, fp8 output", None
                ms = jax_time(fn, jargs, args.rep_ms, 3, 200)
            else:
                fn, note = impls.sdpa_fn(impl, q, k, v, causal)
                extra = None
                ms = timer(fn)
            record(impl, ms, note, extra=extra)
        except Exception as e:  # noqa: BLE001 - every refusal is a recorded n/a
            nse = getattr(impls.flashc, "NotSupportedError", ()) if impls.flashc else ()
            reason = ("not supported: " + str(e)) if nse and isinstance(e, nse) else short_error(e)
            record(impl, None, reason[:300], status="n/a")
            if args.verbose:
                traceback.print_exc()
            try:  # a sticky CUDA error ends the run: nothing after it can be trusted
                torch.cuda.synchronize()
            except Exception as e2:  # noqa: BLE001
                raise ContextLost("CUDA context lost after %s: %s" % (impl, short_error(e2))) from None

    # Does flashc compute what SDPA computes? (16-bit: against SDPA on the same tensors; 8-bit:
    # against SDPA on the inputs upcast exactly to bf16.)
    if flashc_out is not None and (not decode or args.check_decode):
        try:
            F = torch.nn.functional
            up = (lambda t: t.to(torch.bfloat16)) if dtype in ("float8_e4m3fn",) else (
                (lambda t: (t.float() * INT8_DESCALE).to(torch.bfloat16)) if dtype == "int8" else (lambda t: t))
            qq, kk, vv = (up(t).transpose(1, 2) for t in (q, k, v))
            ref = F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal, enable_gqa=h_q != h_kv,
                                                 scale=1.0 / math.sqrt(d))
            err = rel_error(torch, flashc_out.transpose(1, 2), ref)
            for r in results:
                if r["impl"] == IMPL_FLASHC:
                    r["rel_err_vs_sdpa"] = err
                    if not (err <= ERR_FLAG[dtype]):
                        r["note"] = (r["note"] + "; " if r["note"] else "") + "OUTPUT MISMATCH %.3g" % err
        except Exception as e:  # noqa: BLE001
            for r in results:
                if r["impl"] == IMPL_FLASHC:
                    r["rel_err_vs_sdpa"] = None
                    r["note"] = (r["note"] + "; " if r["note"] else "") + "check failed: " + short_error(e, 80)
    del q, k, v, flashc_out
    torch.cuda.empty_cache()
    return results


# ---- Tables -----------------------------------------------------------------------------------

def fmt_seq(s):
    return "%dk" % (s // 1024) if s >= 1024 and s % 1024 == 0 else str(s)


def cell(r):
    if r is None:
        return ""
    if r["status"] != "ok":
        return "n/a"
    rate = r.get("gbs") if r["set"] == "decode" else r["tflops"]
    pct = r.get("pct_peak")
    mark = " !" if "MISMATCH" in (r.get("note") or "") else ""
    return ("%.0f (%.0f%%)%s" % (rate, pct, mark)) if pct is not None else "%.0f%s" % (rate, mark)


def cudnn_name(dtype_short):
    return IMPL_JAX_FP8 if dtype_short == "fp8" else "sdpa-cudnn"


def fa3_tables(results, ceil):
    out = []
    rows = [r for r in results if r["set"] == "fa3"]
    keys = sorted({(r["dtype"], r["d"], r["causal"]) for r in rows},
                  key=lambda t: (["bf16", "f16", "fp8", "int8"].index(t[0]), t[1], t[2]))
    for dt, d, causal in keys:
        sel = [r for r in rows if (r["dtype"], r["d"], r["causal"]) == (dt, d, causal)]
        seqs = sorted({r["s_q"] for r in sel})
        impls = [i for i in [IMPL_FLASHC, IMPL_FLASHC_SM80, IMPL_FLASHC_VT, *SDPA_IMPLS, IMPL_JAX_FP8] if any(r["impl"] == i for r in sel)]
        full = {"bf16": "bfloat16", "f16": "float16", "fp8": "float8_e4m3fn", "int8": "int8"}[dt]
        unit = "TOPS" if dt == "int8" else "TFLOPS"
        out.append("\n### %s, d=%d, %s (%s; %% of the %s GEMM ceiling %.0f)" % (
            dt, d, "causal" if causal else "non-causal", unit, "int8" if dt == "int8" else
            ("fp8" if dt == "fp8" else "bf16"), ceiling_for(ceil, full) or float("nan")))
        out.append("| impl | " + " | ".join(fmt_seq(s) for s in seqs) + " |")
        out.append("|---|" + "---|" * len(seqs))
        by = {(r["impl"], r["s_q"]): r for r in sel}
        for i in impls:
            out.append("| %s | " % i + " | ".join(cell(by.get((i, s))) for s in seqs) + " |")
        ref = cudnn_name(dt)
        if IMPL_FLASHC in impls and ref in impls:
            ratios = []
            for s in seqs:
                a, b = by.get((IMPL_FLASHC, s)), by.get((ref, s))
                ok = a and b and a["status"] == "ok" and b["status"] == "ok"
                ratios.append("%.2f" % (b["ms"] / a["ms"]) if ok else "n/a")
            out.append("| flashc / cuDNN | " + " | ".join(ratios) + " |")
        if IMPL_FLASHC_SM80 in impls and "sdpa-flash" in impls:
            ratios = []
            for s in seqs:
                a, b = by.get((IMPL_FLASHC_SM80, s)), by.get(("sdpa-flash", s))
                ok = a and b and a["status"] == "ok" and b["status"] == "ok"
                ratios.append("%.2f" % (b["ms"] / a["ms"]) if ok else "n/a")
            out.append("| flashc-sm80 / FA2 | " + " | ".join(ratios) + " |")
    return out


def decode_tables(results, ceil):
    out = []
    rows = [r for r in results if r["set"] == "decode"]
    for dt in [x for x in ["bf16", "f16", "fp8", "int8"] if any(r["dtype"] == x for r in rows)]:
        sel = [r for r in rows if r["dtype"] == dt]
        impls = [i for i in [IMPL_FLASHC, IMPL_FLASHC_SM80, IMPL_FLASHC_VT, *SDPA_IMPLS, IMPL_JAX_FP8] if any(r["impl"] == i for r in sel)]
        out.append("\n### decode, %s (GB/s of K+V read; %% of the device copy rate %.0f GB/s)"
                   % (dt, ceil.get("copy_gbs") or float("nan")))
        ref = cudnn_name(dt)
        has_ratio = IMPL_FLASHC in impls and ref in impls
        out.append("| b | h_q | h_kv | s_k | s_q | " + " | ".join(impls) + (" | flashc / cuDNN |" if has_ratio else " |"))
        out.append("|---|---|---|---|---|" + "---|" * (len(impls) + has_ratio))
        shapes = []
        for r in sel:
            key = (r["b"], r["h_q"], r["h_kv"], r["s_k"], r["s_q"])
            if key not in shapes:
                shapes.append(key)
        by = {(r["impl"], r["b"], r["h_q"], r["h_kv"], r["s_k"], r["s_q"]): r for r in sel}
        for key in shapes:
            cells = [cell(by.get((i, *key))) for i in impls]
            if has_ratio:
                a, b = by.get((IMPL_FLASHC, *key)), by.get((ref, *key))
                ok = a and b and a["status"] == "ok" and b["status"] == "ok"
                cells.append("%.2f" % (b["ms"] / a["ms"]) if ok else "n/a")
            out.append("| %d | %d | %d | %s | %d | " % (key[0], key[1], key[2], fmt_seq(key[3]), key[4])
                       + " | ".join(cells) + " |")
    return out


def notes_list(results):
    seen, out = set(), []
    for r in results:
        if r["status"] != "ok" and r["note"]:
            key = (r["impl"], r["note"])
            if key not in seen:
                seen.add(key)
                out.append("- %s (%s, e.g. %s d=%d s=%d/%d): %s" % (r["impl"], r["dtype"], r["set"], r["d"],
                                                                   r["s_q"], r["s_k"], r["note"]))
    return out[:40]


# ---- Environment ------------------------------------------------------------------------------

def environment(torch):
    env = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "torch_cuda": torch.version.cuda, "cudnn": str(torch.backends.cudnn.version()),
           "python": platform.python_version()}
    props = torch.cuda.get_device_properties(0)
    env["sms"] = props.multi_processor_count
    env["l2_bytes"] = getattr(props, "L2_cache_size", None)
    try:
        env["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:  # noqa: BLE001
        env["driver"] = "?"
    try:
        import triton
        env["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        pass
    return env


# ---- Main -------------------------------------------------------------------------------------

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="seqlens 1k and 8k, fewer decode rows")
    p.add_argument("--sets", default="fa3,decode", help="fa3, decode (comma-separated)")
    p.add_argument("--dtypes", default="bf16,fp8,int8", help="bf16, f16, fp8, int8 (comma-separated)")
    p.add_argument("--hdims", default="", help="only these head dims (fa3), e.g. 128")
    p.add_argument("--seqlens", default="", help="only these seqlens (fa3 s; decode s_k)")
    p.add_argument("--impls", default=",".join([IMPL_FLASHC, IMPL_FLASHC_SM80, IMPL_FLASHC_VT, *SDPA_IMPLS, IMPL_JAX_FP8]),
                   help="which implementations to run")
    p.add_argument("--decode-dtypes", default="bf16",
                   help="dtypes of the decode set (default bf16, as the anchors)")
    p.add_argument("--out", default=os.path.join(REPO, "bench", "results"), help="JSON/PNG folder")
    p.add_argument("--tag", default="", help="file name stem (default <date>-<gpu>)")
    p.add_argument("--warmup-ms", type=float, default=20.0)
    p.add_argument("--rep-ms", type=float, default=60.0, help="timed time per figure (median)")
    p.add_argument("--flush", choices=("write", "read"), default="write",
                   help="L2 flush before each timed call: write (zero a 4x-L2 buffer, as Triton's do_bench; "
                   "default) or read (reduce it: the L2 is left clean)")
    p.add_argument("--budget-s", type=float, default=240.0,
                   help="stop starting new rows after this many seconds (recorded as skipped)")
    p.add_argument("--no-ceilings", action="store_true")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--check-decode", action="store_true", help="also compare decode outputs")
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args(argv)
    a.sets = [s for s in a.sets.split(",") if s]
    a.dtypes = [DTYPE_NAMES[x] for x in a.dtypes.split(",") if x]
    a.decode_dtypes = [DTYPE_NAMES[x] for x in a.decode_dtypes.split(",") if x]
    a.hdims = [int(x) for x in a.hdims.split(",") if x]
    a.seqlens = [int(x) for x in a.seqlens.split(",") if x]
    a.impls = [x for x in a.impls.split(",") if x]
    return a


def main(argv=None):
    args = parse_args(argv)
    t_start = time.time()
    warnings.filterwarnings("ignore")  # SDPA explains every refused backend at length
    try:
        import torch
    except ImportError as e:
        log("bench_sdpa: PyTorch is not installed (%s); nothing to time." % e)
        return 0
    if not torch.cuda.is_available():
        log("bench_sdpa: no CUDA device; nothing to time.")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    env = environment(torch)
    impls = Impls(torch, args)
    env["flashc"] = impls.flashc_info or {"error": impls.flashc_error}
    log("bench_sdpa on %s, torch %s (CUDA %s, cuDNN %s), driver %s; flashc: %s"
        % (env["gpu"], env["torch"], env["torch_cuda"], env["cudnn"], env["driver"],
           impls.flashc_info or impls.flashc_error))
    timer = Timer(torch, args.warmup_ms, args.rep_ms, min_reps=5, max_reps=500, flush=args.flush)

    ceil = {} if args.no_ceilings else measure_ceilings(torch, timer)
    if not ceil.get("bf16_gemm_tflops"):
        ceil.setdefault("bf16_gemm_tflops", 787.0)
        ceil["bf16_note"] = "not measured: anchor value"
    if not ceil.get("fp8_gemm_tflops"):
        ceil.setdefault("fp8_gemm_tflops", 1255.0)
        ceil["fp8_note"] = "not measured: anchor value"
    if not ceil.get("copy_gbs"):
        ceil.setdefault("copy_gbs", 4271.0)
        ceil["copy_note"] = "not measured: anchor value"
    log("ceilings: " + ", ".join("%s=%s" % (k, ("%.0f" % v) if isinstance(v, float) else v)
                                 for k, v in ceil.items()))

    # Every row to run, in order; the budget check skips (and records) what no longer fits.
    plan = []  # in the order --sets names the sets
    for setname in args.sets:
        if setname == "decode":
            for dtype in args.decode_dtypes:
                for (b, h_q, h_kv, s_k, in_quick) in DECODE_ROWS:
                    if (args.quick and not in_quick) or (args.seqlens and s_k not in args.seqlens):
                        continue
                    for s_q in DECODE_SQ:
                        plan.append(("decode", dtype, b, s_q, s_k, h_q, h_kv, DECODE_D, False))
        elif setname == "fa3":
            seqs = QUICK_SEQLENS if args.quick else FA3_SEQLENS
            for dtype in args.dtypes:
                for d in FA3_HDIMS:
                    if args.hdims and d not in args.hdims:
                        continue
                    for causal in (False, True):
                        for s in seqs:
                            if args.seqlens and s not in args.seqlens:
                                continue
                            h = FA3_HEAD_WIDTH // d
                            plan.append(("fa3", dtype, FA3_TOKENS // s, s, s, h, h, d, causal))
        else:
            log("bench_sdpa: unknown set %r (fa3, decode); ignored" % setname)

    os.makedirs(args.out, exist_ok=True)
    gpu_tag = env["gpu"].lower().replace("nvidia", "").strip().split()[0] if env["gpu"] else "gpu"
    stem = args.tag or "%s-%s" % (datetime.date.today().isoformat(), gpu_tag)
    json_path = os.path.join(args.out, stem + ".json")
    results = []

    def write_json():
        """The whole result document, rewritten after every row so a killed run keeps its rows."""
        env["jax"] = impls.jax_info or ({"error": impls.jax_error} if impls.jax_error else {})
        doc = {"environment": env, "ceilings": ceil,
               "method": {"timer": "CUDA events, L2 flush (%s, %d MiB) + %d-cycle GPU spin before each call, median"
                          % (timer.flush_mode, timer.flush.numel() >> 20, ENQUEUE_SLACK_CYCLES),
                          "jax_timer": "wall clock over back-to-back batches (2n minus n), median of 5, no flush",
                          "warmup_ms": args.warmup_ms, "rep_ms": args.rep_ms,
                          "flops": "4*b*h*s_q*s_k*d, causal s_q==s_k halved",
                          "decode_bytes": "K+V read once"},
               "args": {k: v for k, v in vars(args).items()}, "results": results,
               "elapsed_s": time.time() - t_start}
        with open(json_path, "w") as f:
            json.dump(doc, f, indent=1, default=str)
        return doc

    lost = None
    for i, (setname, dtype, b, s_q, s_k, h_q, h_kv, d, causal) in enumerate(plan):
        if lost or time.time() - t_start > args.budget_s:
            results.append({"set": setname, "dtype": SHORT[dtype], "b": b, "s_q": s_q, "s_k": s_k,
                            "h_q": h_q, "h_kv": h_kv, "d": d, "causal": causal, "impl": "all",
                            "status": "skipped", "note": lost or "time budget (--budget-s) spent",
                            "ms": None})
            continue
        t0 = time.time()
        try:
            rows = run_row(torch, impls, timer, args, dtype, b, s_q, s_k, h_q, h_kv, d, causal, setname, ceil)
        except (torch.cuda.OutOfMemoryError, ContextLost) as e:
            if isinstance(e, ContextLost):
                lost = str(e)
            else:
                torch.cuda.empty_cache()
            rows = [{"set": setname, "dtype": SHORT[dtype], "b": b, "s_q": s_q, "s_k": s_k, "h_q": h_q,
                     "h_kv": h_kv, "d": d, "causal": causal, "impl": "all", "status": "n/a",
                     "note": lost or "inputs: " + short_error(e, 120), "ms": None}]
        results += rows
        write_json()
        log("[%3d/%d %5.1fs] %-6s %-4s b=%d h=%d/%d s=%d/%d d=%d%s: %s" % (
            i + 1, len(plan), time.time() - t0, setname, SHORT[dtype], b, h_q, h_kv, s_q, s_k, d,
            " causal" if causal else "",
            "  ".join("%s %s" % (r["impl"], cell(r) or r["status"]) for r in rows)))

    doc = write_json()

    lines = ["", "## flashc vs PyTorch SDPA / cuDNN on %s (%s)" % (env["gpu"], env["date"]),
             "ceilings: bf16 GEMM %.0f TFLOPS, fp8 GEMM %.0f TFLOPS, int8 GEMM %s TOPS, copy %.0f GB/s"
             % (ceil["bf16_gemm_tflops"], ceil["fp8_gemm_tflops"],
                ("%.0f" % ceil["int8_gemm_tops"]) if ceil.get("int8_gemm_tops") else "n/a", ceil["copy_gbs"])]
    lines += decode_tables(results, ceil)
    lines += fa3_tables(results, ceil)
    notes = notes_list(results)
    if notes:
        lines += ["", "n/a reasons:"] + notes
    skipped = sum(1 for r in results if r["status"] == "skipped")
    if skipped:
        lines.append("\n%d rows skipped: %s" % (skipped, lost or "time budget of %.0f s spent" % args.budget_s))

    if not args.no_plot:
        try:
            import plot
            png = plot.plot(doc, os.path.join(args.out, stem + ".png"))
            lines.append("\nplot: %s" % png)
        except Exception as e:  # noqa: BLE001
            lines.append("\nplot failed: %s" % short_error(e))
    lines.append("json: %s (%.0f s)" % (json_path, time.time() - t_start))
    log("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
