#!/usr/bin/env bash
# The whole benchmark in one go, time-bounded (about 3 minutes on an H200): flashc_bench over every
# set, then bench_sdpa.py (flashc beside PyTorch SDPA and cuDNN fp8 through JAX, with ceilings).
#
#   bench/run_all.sh [BIN_DIR] [OUT_DIR]
#
# BIN_DIR holds flashc_bench and libflashc.so (default: build/bench and build); OUT_DIR gets the
# logs, JSON and PNG (default: bench/results). Extra arguments for bench_sdpa.py go in
# $BENCH_SDPA_ARGS (e.g. "--quick"), for flashc_bench in $FLASHC_BENCH_ARGS; $FLASHC_BENCH_SETS
# lists flashc_bench's sets (default "fa3 decode varlen paged") and $FLASHC_BENCH_DTYPES its dtypes
# (default "bf16 fp8"): each (set, dtype) runs in its own process. BENCH_SDPA=0 runs flashc_bench
# alone (no PyTorch needed; a short device call).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
bin="${1:-}"
out="${2:-$repo/bench/results}"
if [ -n "$bin" ]; then
  bench_exe="$bin/flashc_bench"
  lib="$bin/libflashc.so"
else
  bench_exe="$repo/build/bench/flashc_bench"
  lib="$repo/build/libflashc.so"
fi
mkdir -p "$out"
stem="$(date -u +%Y-%m-%d)-$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 \
        | tr 'A-Z' 'a-z' | sed 's/nvidia//; s/^ *//' | cut -d' ' -f1)"
[ "$stem" = "$(date -u +%Y-%m-%d)-" ] && stem="$(date -u +%Y-%m-%d)-gpu"
export PYTHONUNBUFFERED=1
[ -z "${FLASHC_LIBRARY:-}" ] && [ -e "$lib" ] && export FLASHC_LIBRARY="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")"

# One process per (set, dtype), so each run's buffers are the first allocations of a fresh CUDA
# context (as an engine's KV pool would be): in one process, bf16 pages of 16 read 3.78 TB/s after
# the decode set had allocated and freed up to 69 GB at a time (4.27 in a new process), and fp8
# decode b 64 at 4k / 8k 3.34 / 3.48 after the bf16 decode cases (3.70 / 3.94 alone), at equal
# clocks and temperatures (H200, sessions 10-11, docs/bench.md).
: > "$out/$stem-flashc_bench.txt"
parts=()
# 8-bit decode and paged sets run twice: V in K's layout (--vt auto, what engines' caches hold),
# then V pre-transposed (--vt 1).
for set in ${FLASHC_BENCH_SETS:-fa3 decode varlen paged}; do
  for dt in ${FLASHC_BENCH_DTYPES:-bf16 fp8}; do
    vts=auto
    case "$dt:$set" in fp8:decode | fp8:paged | int8:decode | int8:paged) vts="auto 1" ;; esac
    for vt in $vts; do
      part="$out/$stem-flashc_bench-$set-$dt-vt$vt.json"
      timeout 120 "$bench_exe" --set "$set" --dtype "$dt" --vt "$vt" --json "$part" \
        ${FLASHC_BENCH_ARGS:-} >> "$out/$stem-flashc_bench.txt" 2>&1
      echo "flashc_bench --set $set --dtype $dt --vt $vt exit $?"
      [ -s "$part" ] && parts+=("$part")
    done
  done
done
python3 - "$out/$stem-flashc_bench.json" "${parts[@]}" <<'PY'
import json, os, sys
merged = None
for path in sys.argv[2:]:
    try:
        part = json.load(open(path))
    except ValueError as e:  # a set cut short by its timeout leaves its JSON unfinished
        print("flashc_bench: %s unreadable (%s), left out" % (path, e))
        continue
    if merged is None:
        merged = part
    else:
        merged["results"] += part["results"]
    os.remove(path)
if merged is not None:
    merged["processes"] = "one per (set, dtype)"
    json.dump(merged, open(sys.argv[1], "w"), indent=1)
PY
echo "flashc_bench: $out/$stem-flashc_bench.txt"
[ "${BENCH_SDPA:-1}" = 0 ] && { cat "$out/$stem-flashc_bench.txt"; exit 0; }
timeout 330 python3 "$here/bench_sdpa.py" --out "$out" --tag "$stem" ${BENCH_SDPA_ARGS:-} \
  > "$out/$stem-bench_sdpa.txt" 2>&1
echo "bench_sdpa exit $? ($out/$stem-bench_sdpa.txt)"
cat "$out/$stem-flashc_bench.txt"
sed -n '/^## flashc vs/,$p' "$out/$stem-bench_sdpa.txt"
