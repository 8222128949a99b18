#!/usr/bin/env python3
"""Plot a bench_sdpa.py result file: TFLOPS vs seqlen, one panel per (head dim, dtype, causal),
one line per implementation; decode rows (GB/s) in an extra panel per dtype.

    python3 bench/plot.py bench/results/<date>-h200.json [-o out.png]
"""
import argparse
import json
import os

SUPTITLE_INCHES = 0.55  # height kept free above the subplots for the two-line title
IMPL_ORDER = ("flashc", "flashc-vt", "flashc-sm80", "sdpa-cudnn", "sdpa-flash", "sdpa-efficient", "jax-cudnn-fp8")
DTYPE_ORDER = ("bf16", "f16", "fp8", "int8")
PANEL_INCHES = 4.0


COLORS = {"flashc": "tab:blue", "flashc-vt": "tab:brown", "flashc-sm80": "tab:cyan", "sdpa-cudnn": "tab:orange", "sdpa-flash": "tab:green",
          "sdpa-efficient": "tab:red", "jax-cudnn-fp8": "tab:purple"}
MIN_FIG_INCHES = 8.0


def _style(impl):
    # flashc stands out; the others are references. Colours are fixed per implementation.
    return {"linewidth": 2.6 if impl in ("flashc", "flashc-vt") else 1.4, "marker": "o", "markersize": 4,
            "color": COLORS.get(impl, "tab:gray")}


def plot(doc, path):
    """Write the figure for result document `doc` (bench_sdpa.py JSON) to `path`; return path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = [r for r in doc.get("results", []) if r.get("status") == "ok"]
    ceil = doc.get("ceilings", {})
    fa3 = [r for r in results if r["set"] == "fa3"]
    dec = [r for r in results if r["set"] == "decode"]
    hdims = sorted({r["d"] for r in fa3})
    rows = sorted({(r["dtype"], r["causal"]) for r in fa3}, key=lambda t: (DTYPE_ORDER.index(t[0]), t[1]))
    dec_dtypes = [d for d in DTYPE_ORDER if any(r["dtype"] == d for r in dec)]
    n_rows = len(rows) + (1 if dec_dtypes else 0)
    n_cols = max(len(hdims), len(dec_dtypes), 1)
    if n_rows == 0:
        n_rows = 1
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(max(PANEL_INCHES * n_cols, MIN_FIG_INCHES), 0.8 * PANEL_INCHES * n_rows + 0.6),
                             squeeze=False)
    for ax in axes.flat:
        ax.set_visible(False)

    for ri, (dt, causal) in enumerate(rows):
        ceiling = ceil.get({"fp8": "fp8_gemm_tflops", "int8": "int8_gemm_tops"}.get(dt, "bf16_gemm_tflops"))
        for ci, d in enumerate(hdims):
            ax = axes[ri][ci]
            sel = [r for r in fa3 if (r["dtype"], r["causal"], r["d"]) == (dt, causal, d)]
            if not sel:
                continue
            ax.set_visible(True)
            for impl in [i for i in IMPL_ORDER if any(r["impl"] == i for r in sel)]:
                pts = sorted((r["s_q"], r["tflops"]) for r in sel if r["impl"] == impl)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=impl, **_style(impl))
            if ceiling:
                ax.axhline(ceiling, color="gray", linestyle=":", linewidth=1)
            ax.set_xscale("log", base=2)
            seqs = sorted({r["s_q"] for r in sel})
            ax.set_xticks(seqs)
            ax.set_xticklabels(["%dk" % (x // 1024) if x >= 1024 else str(x) for x in seqs])
            ax.minorticks_off()
            ax.set_title("%s d=%d %s" % (dt, d, "causal" if causal else "non-causal"), fontsize=10)
            ax.set_xlabel("seqlen (batch x seqlen = 16k)")
            ax.set_ylabel("TOPS" if dt == "int8" else "TFLOPS")
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)

    grid = axes[0][0].get_gridspec()
    for ci, dt in enumerate(dec_dtypes):
        # One decode dtype takes the whole row (its shape labels need the width).
        ax = fig.add_subplot(grid[len(rows), :]) if len(dec_dtypes) == 1 else axes[len(rows)][ci]
        ax.set_visible(True)
        sel = [r for r in dec if r["dtype"] == dt]
        shapes = []
        for r in sel:
            key = (r["b"], r["h_q"], r["h_kv"], r["s_k"], r["s_q"])
            if key not in shapes:
                shapes.append(key)
        x = {k: i for i, k in enumerate(shapes)}
        for impl in [i for i in IMPL_ORDER if any(r["impl"] == i for r in sel)]:
            pts = sorted((x[(r["b"], r["h_q"], r["h_kv"], r["s_k"], r["s_q"])], r["gbs"])
                         for r in sel if r["impl"] == impl)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=impl, linestyle="none", **_style(impl))
        if ceil.get("copy_gbs"):
            ax.axhline(ceil["copy_gbs"], color="gray", linestyle=":", linewidth=1)
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(["b%d\n%d/%d\n%dk q%d" % (b, hq, hk, sk // 1024, sq) for b, hq, hk, sk, sq in shapes],
                           fontsize=6 if len(dec_dtypes) > 1 else 7)
        ax.set_title("decode %s: GB/s of K+V (b/h_q/h_kv, s_k, s_q)" % dt, fontsize=10)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)

    env = doc.get("environment", {})
    fig.suptitle("flashc vs SDPA / cuDNN on %s (%s)\ndotted line: ceiling measured in the same run"
                 % (env.get("gpu", "?"), env.get("date", "?")), fontsize=11)
    # tight_layout ignores the suptitle: keep its two lines clear of the first row's titles
    fig.tight_layout(rect=(0, 0, 1, 1 - SUPTITLE_INCHES / fig.get_figheight()))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json")
    p.add_argument("-o", "--out", help="PNG path (default: the JSON's path with .png)")
    a = p.parse_args()
    with open(a.json) as f:
        doc = json.load(f)
    print(plot(doc, a.out or os.path.splitext(a.json)[0] + ".png"))


if __name__ == "__main__":
    main()
