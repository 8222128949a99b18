#!/usr/bin/env bash
# The whole GPU check in one call, for a machine with a CUDA GPU (the H200 device):
#   scripts/gpu_suite.sh [--build-dir DIR] [--bench] [--bench-quick] [--bench-only] [--part 1|2]
# 1. builds (unless DIR already holds a build), for the local GPU's architecture only;
# 2. reports the kernels' SASS (HGMMA/QGMMA = Hopper path, HMMA = mma.sync path);
# 3. runs the C test suite (CPU and GPU tests) and the Python tests;
# 4. with --bench, the benchmark beside PyTorch SDPA (cuDNN, flash); --bench-only skips step 3
#    (tests and benchmark together take ~10 min on the H200: two device calls fit its limit);
#    --part 1 runs steps 1-2 and the C tests, --part 2 the 99 KB-smem pass of test_gpu and the
#    Python tests (then the benchmark if asked): the suite in two calls of under 10 minutes each;
# and prints a short summary LAST. Logs go to $OUT/logs.tar.gz (if $OUT is set, as on the device
# tool, which returns at most 8 files) or to DIR/logs; benchmark JSON/PNG/tables to $OUT or bench/results.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=build-gpu
BENCH=0
TESTS=1
PART=0
BENCH_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD=$2; shift 2 ;;
    --bench) BENCH=1; shift ;;
    --bench-quick) BENCH=1; BENCH_ARGS+=(--quick); shift ;;
    --bench-only) BENCH=1; TESTS=0; shift ;;
    --part) PART=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
LOG=$BUILD/logs
RESULTS=${OUT:-bench/results}
mkdir -p "$LOG" "$RESULTS"
summary=()
note() { summary+=("$*"); echo "== $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1 | sed 's/^/gpu: /'
if [ ! -x "$BUILD/tests/test_gpu" ]; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  t0=$(date +%s)
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DFLASHC_SM80_ARCHS="$cc" >"$LOG/configure.log" 2>&1 &&
    cmake --build "$BUILD" -j"$(nproc)" >"$LOG/build.log" 2>&1 || { tail -40 "$LOG/build.log"; note "build: FAILED"; printf '%s\n' "${summary[@]}"; exit 1; }
  note "build: ok in $(( $(date +%s) - t0 )) s"
fi

lib="$BUILD/libflashc.so"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$lib" >"$LOG/sass.txt" 2>/dev/null
  note "sass: HGMMA $(grep -c HGMMA "$LOG/sass.txt") QGMMA $(grep -c QGMMA "$LOG/sass.txt") HMMA $(grep -c 'HMMA' "$LOG/sass.txt") IMMA $(grep -c IMMA "$LOG/sass.txt") local-mem(STL) $(grep -c 'STL' "$LOG/sass.txt")"
fi

fails=0
C_TESTS=$TESTS; EXTRA_TESTS=$TESTS
[ "$PART" = 1 ] && EXTRA_TESTS=0
[ "$PART" = 2 ] && C_TESTS=0
for t in "$BUILD"/tests/test_*; do
  [ $C_TESTS -eq 1 ] || break
  [ -x "$t" ] || continue
  name=$(basename "$t")
  case "$name" in *.*) continue ;; esac # test binaries have no extension (not packed copies, logs)
  timeout 600 "$t" >"$LOG/$name.log" 2>&1
  rc=$?
  last=$(grep -E '^[A-Za-z_]*:? ?[0-9]+ passed, [0-9]+ failed' "$LOG/$name.log" | tail -1)
  [ $rc -eq 0 ] || fails=$((fails + 1))
  [ $rc -eq 0 ] || tail -30 "$LOG/$name.log"
  note "$name: rc=$rc ${last:-<no summary line>}"
  grep -h "^sm80 route coverage" "$LOG/$name.log" # the variants this pass never launched
done

# the portable path as an sm_86/89 GPU (99 KB smem opt-in) would plan it, on this GPU
if [ $EXTRA_TESTS -eq 1 ] && [ -x "$BUILD/tests/test_gpu" ]; then
  FLASHC_SM80_SMEM_OPTIN=101376 timeout 600 "$BUILD/tests/test_gpu" --backend sm80 >"$LOG/test_gpu_smem99k.log" 2>&1
  rc=$?
  last=$(grep -E '^[A-Za-z_]*:? ?[0-9]+ passed, [0-9]+ failed' "$LOG/test_gpu_smem99k.log" | tail -1)
  [ $rc -eq 0 ] || { fails=$((fails + 1)); tail -30 "$LOG/test_gpu_smem99k.log"; }
  note "test_gpu --backend sm80 as a 99 KB-smem GPU: rc=$rc ${last:-<no summary line>}"
  grep -h "^sm80 route coverage" "$LOG/test_gpu_smem99k.log"
fi

if [ $EXTRA_TESTS -eq 1 ] && python3 -c 'import torch, numpy, pytest' 2>/dev/null; then
  FLASHC_LIBRARY=$PWD/$lib PYTHONPATH=$PWD/python timeout 200 python3 -m pytest -q tests/python >"$LOG/pytest.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { fails=$((fails + 1)); tail -30 "$LOG/pytest.log"; }
  note "pytest: rc=$rc $(tail -1 "$LOG/pytest.log")"
fi

if [ $BENCH -eq 1 ]; then
  bindir=$(mktemp -d)
  ln -s "$PWD/$BUILD/bench/flashc_bench" "$bindir/flashc_bench"
  ln -s "$PWD/$lib" "$bindir/libflashc.so"
  BENCH_SDPA_ARGS="${BENCH_SDPA_ARGS:-} ${BENCH_ARGS[*]:-}" bench/run_all.sh "$bindir" "$RESULTS" | tail -80
  note "bench: results in $RESULTS"
fi

# without the SASS dump (tens of MB: the tarball came back too big to return, session 31)
[ -n "${OUT:-}" ] && tar -czf "$OUT/logs.tar.gz" --exclude=sass.txt -C "$BUILD" logs
echo
echo "==== GPU suite summary ===="
printf '%s\n' "${summary[@]}"
if [ $fails -eq 0 ]; then echo "gpu-suite: PASS"; else echo "gpu-suite: FAIL ($fails)"; fi
exit $((fails > 0))
