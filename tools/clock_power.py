"""Dev tool (not part of the library, CI or the build): SM clock, board power and TFLOPS while one
attention kernel runs back to back, flashc's portable path beside SDPA's flash backend (FA2).

    FLASHC_LIBRARY=build/libflashc.so PYTHONPATH=python python3 tools/clock_power.py \
        [--dims 256,128] [--seqs 512,8192] [--flush none,write] [--secs 2.5]

FA3-grid shapes (batch x seqlen = 16k tokens, h x d = 2048), bf16, non-causal. `nvidia-smi` samples
clocks.sm, power.draw and the temperature every 50 ms while the kernel is launched in groups of
20 (each after a 256 MB memset with --flush write, the benchmark's L2 flush); medians are printed.
Session 29 (docs/sm80.md): back to back, the H200 sits at its ~690 W cap and lowers the clock
(FA2 more than flashc); with the flush both run at 1980 MHz, which isolates kernel efficiency.
"""
import argparse
import statistics
import subprocess
import threading
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashc

SAMPLE_MS = 50
LAUNCHES_PER_GROUP = 20
WARMUP_LAUNCHES = 3
SETTLE_S = 0.3  # samples before the first timed group are dropped
FLUSH_BYTES = 256 << 20
TOKENS, HIDDEN = 16384, 2048  # the FA3 grid


def sample(stop, out):
    """Append [clock MHz, power W, temperature C] rows from nvidia-smi until stop is set."""
    cmd = ["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu", "--format=csv,noheader,nounits",
           "-lms", str(SAMPLE_MS)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    while not stop.is_set():
        line = proc.stdout.readline()
        if not line:
            break
        try:
            out.append([float(x) for x in line.split(",")])
        except ValueError:
            pass  # a header or "[N/A]"
    proc.terminate()


def measure(name, fn, flops, secs, flush):
    for _ in range(WARMUP_LAUNCHES):
        fn()
    torch.cuda.synchronize()
    stop, samples = threading.Event(), []
    sampler = threading.Thread(target=sample, args=(stop, samples))
    sampler.start()
    time.sleep(SETTLE_S)
    samples.clear()
    times_ms = []
    end = time.time() + secs
    while time.time() < end:
        events = []
        for _ in range(LAUNCHES_PER_GROUP):
            if flush is not None:
                flush.zero_()
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            events.append((a, b))
        torch.cuda.synchronize()
        times_ms += [a.elapsed_time(b) for a, b in events]
    stop.set()
    sampler.join()
    med = [statistics.median(s[i] for s in samples) if samples else 0.0 for i in range(2)]
    peak_temp = max((s[2] for s in samples), default=0.0)
    print("%-36s %7.1f TFLOPS  clock %5.0f MHz  power %5.0f W  temp %3.0f C  (%d samples)"
          % (name, flops / (statistics.median(times_ms) * 1e-3) / 1e12, med[0], med[1], peak_temp, len(samples)),
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dims", default="256,128")
    ap.add_argument("--seqs", default="512,8192")
    ap.add_argument("--flush", default="none,write", help="none and/or write (a 256 MB memset per launch)")
    ap.add_argument("--secs", type=float, default=2.5, help="timed seconds per kernel")
    args = ap.parse_args()
    modes = args.flush.split(",")
    if any(m not in ("none", "write") for m in modes):
        ap.error("--flush takes none and/or write, got %r" % args.flush)
    torch.manual_seed(0)
    flush_buf = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    for d in (int(x) for x in args.dims.split(",")):
        for s in (int(x) for x in args.seqs.split(",")):
            b, h = TOKENS // s, HIDDEN // d
            q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            flops = 4 * b * h * s * s * d
            qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)

            def run_flashc():
                return flashc.flash_attn_func(q, k, v, causal=False, backend="sm80")

            def run_fa2():
                with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                    return F.scaled_dot_product_attention(qt, kt, vt)

            for mode in modes:
                flush = flush_buf if mode == "write" else None
                tag = "d%d s%d%s" % (d, s, " flush" if flush is not None else "")
                measure("flashc-sm80 " + tag, run_flashc, flops, args.secs, flush)
                measure("sdpa-flash  " + tag, run_fa2, flops, args.secs, flush)


if __name__ == "__main__":
    main()
