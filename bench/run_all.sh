#!/usr/bin/env bash
# The whole benchmark in one go, time-bounded (about 3 minutes on an H200): flashc_bench over every
# set, then bench_sdpa.py (flashc beside PyTorch SDPA and cuDNN fp8 through JAX, with ceilings).
#
#   bench/run_all.sh [BIN_DIR] [OUT_DIR]
#
# BIN_DIR holds flashc_bench and libflashc.so (default: build/bench and build); OUT_DIR gets the
# logs, JSON and PNG (default: bench/results). Extra arguments for bench_sdpa.py go in
# $BENCH_SDPA_ARGS (e.g. "--quick"), for flashc_bench in $FLASHC_BENCH_ARGS.
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

timeout 150 "$bench_exe" --set all --dtype bf16,fp8 --json "$out/$stem-flashc_bench.json" \
  ${FLASHC_BENCH_ARGS:-} > "$out/$stem-flashc_bench.txt" 2>&1
echo "flashc_bench exit $? ($out/$stem-flashc_bench.txt)"
timeout 330 python3 "$here/bench_sdpa.py" --out "$out" --tag "$stem" ${BENCH_SDPA_ARGS:-} \
  > "$out/$stem-bench_sdpa.txt" 2>&1
echo "bench_sdpa exit $? ($out/$stem-bench_sdpa.txt)"
cat "$out/$stem-flashc_bench.txt"
sed -n '/^## flashc vs/,$p' "$out/$stem-bench_sdpa.txt"
