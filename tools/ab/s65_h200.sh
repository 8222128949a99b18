#!/usr/bin/env bash
# scratch (session 65): one call for an H200 (on any other GPU it ends at once). s63_h200.sh's A/B
# while under GUARD (default 200), then main rebuilt and the full benchmark (bench/run_all.sh:
# flashc_bench's sets, then bench_sdpa.py beside PyTorch SDPA) into $OUT/results, for the README's
# tables. No cuobjdump beside it: the timings run alone. With little time left, narrow the benchmark
# through run_all.sh's own variables, e.g. FLASHC_BENCH_SETS="decode paged" FLASHC_BENCH_DTYPES=fp8
# BENCH_SDPA_ARGS=--quick, or BENCH_SDPA=0 for flashc_bench alone (session 64's s64_h200.sh,
# retired: it ran those sets alone). AB=0 skips the A/B: main built and benchmarked only (with
# FLASHC_BENCH_SETS=decode BENCH_SDPA=0, ~150 s: the decode question of issue 5 for a short call).
# BENCH_GZ=.carry/flashc_bench.gz (carry .carry): no build and no A/B on the device, that
# flashc_bench is unpacked and run alone (BENCH_SDPA=0; ~100 s saved). Make it here from the commit under
# test (~6 min on 2 cores; 116 MB static, 25 MB gzipped, under carry's 64 MiB):
#   cmake -S . -B build-h200 -DCMAKE_BUILD_TYPE=Release -DFLASHC_SM80_ARCHS=90 &&
#   cmake --build build-h200 -j2 --target flashc_bench && mkdir -p .carry &&
#   gzip -9 -c build-h200/bench/flashc_bench > .carry/flashc_bench.gz
T0=$(date +%s)
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) ;; *) nvidia-smi --query-gpu=name --format=csv,noheader | head -1; echo "not an H200: nothing run"; exit 0 ;;
esac
bindir=$(mktemp -d)
if [ -n "${BENCH_GZ:-}" ]; then
  gunzip -c "$BENCH_GZ" > "$bindir/flashc_bench" && chmod +x "$bindir/flashc_bench" || exit 1
  export BENCH_SDPA=0  # no libflashc.so beside it for bench_sdpa.py
else
  if [ "${AB:-1}" = 0 ]; then
    . tools/ab/build_gpu.sh
  else
    GUARD=${GUARD:-200} bash tools/ab/s63_h200.sh || exit 1
    cmake --build build-gpu -j16 > build-gpu/logs/build_main2.log 2>&1 || { tail -20 build-gpu/logs/build_main2.log; exit 1; }
  fi
  ln -s "$PWD/build-gpu/bench/flashc_bench" "$bindir/flashc_bench"
  ln -s "$PWD/build-gpu/libflashc.so" "$bindir/libflashc.so"
fi
echo "== bench/run_all.sh from $(( $(date +%s) - T0 )) s"
bench/run_all.sh "$bindir" "$OUT/results" | tail -60
echo "total $(( $(date +%s) - T0 )) s"
