#!/usr/bin/env python3
"""Render the README's performance tables from a bench_sdpa.py JSON file.

    python3 bench/readme_tables.py bench/results/<date>-h200.json
        [--flashc-bench bench/results/<date>-h200-flashc_bench.json] [--readme README.md] [--only 8bit,...]

Prints three markdown tables (bf16 FA3 grid, 8-bit FA3 grid: flashc fp8 and int8 beside cuDNN
fp8, decode) and, from flashc_bench's JSON (bench/run_all.sh), a fourth: the portable path's
decode and paged-decode rows in bf16 and fp8 (V in K's layout and pre-transposed). With --readme,
replaces the
text between the `<!-- perf:NAME:begin -->` / `<!-- perf:NAME:end -->` markers in that file, so
the README always shows a committed JSON's numbers, never hand-copied ones.
"""
import argparse
import json
import re

SEQLENS_BF16 = [512, 1024, 2048, 4096, 8192, 16384]
SEQLENS_FP8 = [2048, 8192, 16384]
BF16_IMPLS = [("flashc", "flashc"), ("flashc-sm80", "flashc portable (sm80)"), ("sdpa-cudnn", "cuDNN"),
              ("sdpa-flash", "FA2")]
# 8-bit table: (dtype, impl, label)
# fp8 "flashc" gives V in K's layout (the API's default; AUTO: the Hopper path's _vr kernels)
EIGHT_BIT_IMPLS = [("fp8", "flashc-vt", "flashc fp8, V^T"), ("fp8", "flashc", "flashc fp8, V rows"),
                   ("int8", "flashc", "flashc int8 (portable)"), ("fp8", "jax-cudnn-fp8", "cuDNN fp8")]
DECODE_IMPLS = [("flashc", "flashc"), ("sdpa-cudnn", "cuDNN"), ("sdpa-flash", "FA2")]


def fmt_s(s):
    return f"{s // 1024}k" if s >= 1024 else str(s)


def figure(rows, metric="tflops", **key):
    for r in rows:
        if all(r.get(k) == v for k, v in key.items()):
            return r.get(metric) if r.get("status") == "ok" else None
    return None


def fa3_table(rows, seqlens, impls):
    """impls: (dtype, impl, label) triples, one table row each per (d, causal)."""
    lines = []
    for d in (64, 128, 256):
        for causal in (False, True):
            group = []
            for dtype, impl, label in impls:
                vals = [figure(rows, set="fa3", dtype=dtype, d=d, causal=causal, impl=impl, s_q=s)
                        for s in seqlens]
                if not all(v is None for v in vals):
                    group.append((label, vals))
            # bold: the fastest of the (d, causal) group at that length (ties: every one of them)
            best = [max((round(v[i]) for _, v in group if v[i] is not None), default=None)
                    for i in range(len(seqlens))]
            for label, vals in group:
                cells = [fmt_best(v, b) for v, b in zip(vals, best)]
                lines.append(f"| {d} | {'yes' if causal else 'no'} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def fmt_best(v, best):
    if v is None:
        return "n/a"
    return f"**{v:.0f}**" if round(v) == best else f"{v:.0f}"


def decode_table(rows):
    dec = [r for r in rows if r.get("set") == "decode"]
    shapes = []
    for r in dec:
        k = (r["b"], r["h_q"], r["h_kv"], r["s_k"], r["s_q"])
        if k not in shapes:
            shapes.append(k)
    head = "| b | h_q | h_kv | s_k | s_q | " + " | ".join(l for _, l in DECODE_IMPLS) + " |"
    lines = [head, "|" + "---|" * (5 + len(DECODE_IMPLS))]
    for b, hq, hk, sk, sq in shapes:
        cells = []
        for impl, _ in DECODE_IMPLS:
            v = figure(dec, "gbs", b=b, h_q=hq, h_kv=hk, s_k=sk, s_q=sq, impl=impl)
            cells.append(v)
        best = max((round(v) for v in cells if v is not None), default=None)
        cells = [fmt_best(v, best) for v in cells]
        lines.append(f"| {b} | {hq} | {hk} | {fmt_s(sk)} | {sq} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def flashc_decode_table(rows):
    """flashc_bench's decode and paged-decode rows (GB/s of K+V): bf16, fp8 with V in K's layout,
    fp8 with V pre-transposed, one row per shape and cache."""
    dec = [r for r in rows if r.get("set") in ("decode", "paged") and not r.get("causal") and r.get("gbs")]
    cols = [("bf16", 0, "bf16"), ("fp8", 0, "fp8"), ("fp8", 1, "fp8, V^T")]
    shapes = []
    for r in dec:
        k = (r["set"], r["b"], r["h_q"], r["h_kv"], r["s_k"], r["s_q"], r.get("page_size", 0))
        if k not in shapes:
            shapes.append(k)
    head = "| b | h_q | h_kv | s_k | s_q | cache | " + " | ".join(l for _, _, l in cols) + " |"
    lines = [head, "|" + "---|" * (6 + len(cols))]
    for st, b, hq, hk, sk, sq, pg in shapes:
        cells = []
        for dt, vt, _ in cols:
            v = figure(dec, "gbs", set=st, b=b, h_q=hq, h_kv=hk, s_k=sk, s_q=sq, page_size=pg, dtype=dt,
                       v_transposed=vt)
            cells.append("n/a" if v is None else f"{v:.0f}")
        cache = f"pages of {pg}" if pg else "contiguous"
        lines.append(f"| {b} | {hq} | {hk} | {fmt_s(sk)} | {sq} | {cache} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--readme")
    ap.add_argument("--flashc-bench", help="flashc_bench JSON (bench/run_all.sh): the decode8 table")
    ap.add_argument("--only", help="these tables only (comma-separated: bf16, 8bit, decode, decode8)")
    a = ap.parse_args()
    rows = json.load(open(a.json))["results"]
    tables = {
        "bf16": "| d | causal | impl | " + " | ".join(fmt_s(s) for s in SEQLENS_BF16) + " |\n|"
                + "---|" * (3 + len(SEQLENS_BF16)) + "\n"
                + fa3_table(rows, SEQLENS_BF16, [("bf16", i, l) for i, l in BF16_IMPLS]),
        "8bit": "| d | causal | impl | " + " | ".join(fmt_s(s) for s in SEQLENS_FP8) + " |\n|"
                + "---|" * (3 + len(SEQLENS_FP8)) + "\n" + fa3_table(rows, SEQLENS_FP8, EIGHT_BIT_IMPLS),
        "decode": decode_table(rows),
    }
    if a.flashc_bench:
        tables["decode8"] = flashc_decode_table(json.load(open(a.flashc_bench))["results"])
    if a.only:
        keep = a.only.split(",")
        tables = {name: t for name, t in tables.items() if name in keep}
    if not a.readme:
        for name, t in tables.items():
            print(f"## {name}\n{t}\n")
        return
    text = open(a.readme).read()
    for name, t in tables.items():
        pat = re.compile(rf"(<!-- perf:{name}:begin -->\n).*?(<!-- perf:{name}:end -->)", re.S)
        if not pat.search(text):
            raise SystemExit(f"{a.readme}: no perf:{name} markers")
        text = pat.sub(lambda m: m.group(1) + t + "\n" + m.group(2), text)
    open(a.readme, "w").write(text)


if __name__ == "__main__":
    main()
