#!/usr/bin/env bash
# scratch (session 66): for an H200 with under ~400 s left (on any other GPU it ends at once):
# main built, then bench/run_all.sh narrowed to the decode question of issue 5 (flashc_bench's
# decode and paged sets in bf16 and fp8, bench_sdpa.py's decode set beside cuDNN and FA2) into
# $OUT/results. The A/B questions (s63_h200.sh) wait for a call with more time (s65_h200.sh).
T0=$(date +%s)
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) ;; *) nvidia-smi --query-gpu=name --format=csv,noheader | head -1; echo "not an H200: nothing run"; exit 0 ;;
esac
. tools/ab/build_gpu.sh
bindir=$(mktemp -d)
ln -s "$PWD/build-gpu/bench/flashc_bench" "$bindir/flashc_bench"
ln -s "$PWD/build-gpu/libflashc.so" "$bindir/libflashc.so"
# SETS / DTYPES narrow further; NO_SDPA=1 leaves bench_sdpa.py out (flashc_bench alone).
sets=${SETS:-decode paged}; dts=${DTYPES:-bf16 fp8}
echo "== flashc_bench ($sets; $dts) from $(( $(date +%s) - T0 )) s"
if [ -n "${NO_SDPA:-}" ]; then
  mkdir -p "$OUT/results"
  for set in $sets; do for dt in $dts; do for vt in auto 1; do
    [ $dt = bf16 ] && [ $vt = 1 ] && continue
    timeout 60 "$bindir/flashc_bench" --set $set --dtype $dt --vt $vt >> "$OUT/results/flashc_bench.txt" 2>&1
    echo "flashc_bench --set $set --dtype $dt --vt $vt exit $? at $(( $(date +%s) - T0 )) s"
  done; done; done
  cat "$OUT/results/flashc_bench.txt"
else
  FLASHC_BENCH_SETS="$sets" FLASHC_BENCH_DTYPES="$dts" \
    BENCH_SDPA_ARGS="--sets decode --dtypes bf16,fp8" bench/run_all.sh "$bindir" "$OUT/results" | tail -80
fi
echo "total $(( $(date +%s) - T0 )) s"
