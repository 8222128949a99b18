#!/usr/bin/env python3
"""Host time per call of the Python package, beside PyTorch SDPA, on a shape whose kernel is
shorter than either call's host time (so the loop is bound by the host, not the GPU).

    python3 bench/host_time.py [--calls N] [--label TEXT]     (FLASHC_LIBRARY: the libflashc.so)

Per function: N calls back to back on the current stream after a warm-up, one synchronize at
the end; the figures are wall time / N in microseconds, of the best and the median of 5 such
loops (the host is shared: the best loop is the steadier of the two). A decode step
of a PyTorch caller without CUDA graphs pays this on every layer, whatever the kernel's speed.
Rows: flash_attn_func (output allocated, and out= given), flash_attn_with_kvcache with a
cache_seqlens tensor (the split-key path, which also allocates a workspace), SDPA with GQA, and
the library's two C calls alone (workspace_size + forward on prepared parameters: the floor
under the Python layer).
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# FLASHC_PYTHON_DIR: another copy of the package to time (an older one, for an A/B).
sys.path.insert(0, os.environ.get("FLASHC_PYTHON_DIR", os.path.join(REPO, "python")))

LOOPS = 5
WARMUP_CALLS = 200
SPIN_CYCLES = 400_000  # ~0.2 ms at 1.98 GHz: longer than a call's host time


def per_call_us(torch, fn, calls):
    for _ in range(WARMUP_CALLS):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(LOOPS):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return min(times), statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--label", default="")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F
    import flashc
    from flashc import _lib, interface

    dev = torch.device("cuda")
    # One query token of 8 sequences, 32 query heads over 8 KV heads, 512 cached keys, d 128:
    # its kernels run a few microseconds, under any call's host time.
    b, s_q, h_q, h_kv, s_k, d = 8, 1, 32, 8, 512, 128
    dt = torch.bfloat16
    q = torch.randn(b, s_q, h_q, d, device=dev, dtype=dt)
    k = torch.randn(b, s_k, h_kv, d, device=dev, dtype=dt)
    v = torch.randn(b, s_k, h_kv, d, device=dev, dtype=dt)
    out = torch.empty_like(q)
    seqlens = torch.full((b,), s_k, device=dev, dtype=torch.int32)
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))  # SDPA's [b, h, s, d] views

    # The library alone: parameters prepared once, then its two calls per step.
    p, Q, (o_t, _), keep, alloc = interface._prepare(q, k, v, out=out)
    lib = _lib.load()
    stream = torch.cuda.current_stream().cuda_stream
    size = ctypes.c_size_t(0)
    _lib.check(lib.flashc_attention_workspace_size(ctypes.byref(p), ctypes.byref(size)))
    ws = torch.empty(max(size.value, 1), dtype=torch.uint8, device=dev)

    def c_calls():
        n = ctypes.c_size_t(0)
        lib.flashc_attention_workspace_size(ctypes.byref(p), ctypes.byref(n))
        lib.flashc_attention_forward(ctypes.byref(p), ws.data_ptr(), n.value, stream)

    rows = [
        ("flashc.flash_attn_func", lambda: flashc.flash_attn_func(q, k, v)),
        ("flashc.flash_attn_func(out=)", lambda: flashc.flash_attn_func(q, k, v, out=out)),
        ("flashc.flash_attn_with_kvcache", lambda: flashc.flash_attn_with_kvcache(q, k, v, cache_seqlens=seqlens)),
        ("SDPA (enable_gqa)", lambda: F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True)),
        ("libflashc's two C calls only", c_calls),
    ]
    # Every flashc row must compute the right thing, or its time means nothing.
    ref = F.scaled_dot_product_attention(qt.float(), kt.float(), vt.float(), enable_gqa=True).transpose(1, 2)
    for name, fn in rows[:3]:
        got = fn()
        err = ((got.float() - ref).norm() / ref.norm()).item()
        if not err < 2e-2:
            raise SystemExit("%s: relative error %.3g against SDPA in float32" % (name, err))
    # The loops measure the host only if the GPU keeps up: its time for one call, for the record.
    gpu_us = []
    for _ in range(50):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        torch.cuda._sleep(SPIN_CYCLES)  # the GPU waits here while the host enqueues the call
        start.record()
        flashc.flash_attn_with_kvcache(q, k, v, cache_seqlens=seqlens)
        end.record()
        end.synchronize()
        gpu_us.append(start.elapsed_time(end) * 1e3)
    label = (" (%s)" % args.label) if args.label else ""
    print("host time per call%s, b %d s_q %d h %d/%d s_k %d d %d bf16, %d calls x %d loops:"
          % (label, b, s_q, h_q, h_kv, s_k, d, args.calls, LOOPS))
    print("| call | us per call, best loop | median loop |")
    print("|---|---|---|")
    for name, fn in rows:
        print("| %s | %.1f | %.1f |" % ((name,) + per_call_us(torch, fn, args.calls)))
    print("GPU time of one flash_attn_with_kvcache call (events, median of 50): %.1f us"
          % statistics.median(gpu_us))
    del keep, alloc, o_t


if __name__ == "__main__":
    main()
