#!/usr/bin/env bash
# The whole GPU check in one call, for a machine with a CUDA GPU (the H200 device):
#   scripts/gpu_suite.sh [--build-dir DIR] [--jobs N] [--bench] [--bench-quick] [--bench-only] [--part 1|2]
# 1. builds (unless DIR already holds a build), for the local GPU's architecture only;
# 2. reports the kernels' SASS (HGMMA/QGMMA = Hopper path, HMMA = mma.sync path);
# 3. runs the C test suite (CPU and GPU tests) and the Python tests. test_gpu runs twice: as built
#    (every backend) and, the sm_89 pass, from a second build (DIR/sm89: the portable path alone,
#    its e4m3 kernels compiled as sm_89's code, FLASHC_SM80_E4M3_NATIVE) with the portable path
#    planned as an sm_89 GPU (FLASHC_SM80_AS_CC=89: 99 KB smem, no sm_90-only tile): what Ada runs. With
#    --jobs N > 1 (default: the core count) each pass runs as test_gpu's units (--unit K), N
#    processes at a time beside the other tests: the fp64 reference sets the wall time, not the GPU
#    (the units of both passes, 16 at a time on the H200: ~3.5 min; one at a time: far longer);
# 4. with --bench, the benchmark beside PyTorch SDPA (cuDNN, flash); --bench-only skips step 3.
#    --part 1 runs steps 1-2 and the C tests, --part 2 the sm_89 pass of test_gpu and the
#    Python tests (then the benchmark if asked), for a machine where one call cannot hold both;
# and prints a short summary LAST, and with $OUT set each step's start and result as it goes in
# $OUT/suite-progress.txt. Logs go to $OUT/logs.tar.gz (if $OUT is set, as on the device
# tool, which returns at most 8 files) or to DIR/logs; benchmark JSON/PNG/tables to $OUT or bench/results.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=build-gpu
BENCH=0
TESTS=1
PART=0
JOBS=$(nproc)
BENCH_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD=$2; shift 2 ;;
    --bench) BENCH=1; shift ;;
    --bench-quick) BENCH=1; BENCH_ARGS+=(--quick); shift ;;
    --bench-only) BENCH=1; TESTS=0; shift ;;
    --part) PART=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
LOG=$BUILD/logs
RESULTS=${OUT:-bench/results}
mkdir -p "$LOG" "$RESULTS"
summary=()
# progress, line by line, into $OUT/suite-progress.txt where $OUT is set: a call the device tool
# stops at its time limit still returns how far the suite got and when (session 50 lost one)
T_START=$(date +%s)
progress() { [ -n "${OUT:-}" ] && echo "+$(( $(date +%s) - T_START )) s $*" >>"$OUT/suite-progress.txt"; return 0; }
note() { summary+=("$*"); echo "== $*"; progress "$*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1 | sed 's/^/gpu: /'
if [ ! -x "$BUILD/tests/test_gpu" ]; then
  progress "build: start"
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  t0=$(date +%s)
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DFLASHC_SM80_ARCHS="$cc" >"$LOG/configure.log" 2>&1 &&
    cmake --build "$BUILD" -j"$(nproc)" >"$LOG/build.log" 2>&1 || { tail -40 "$LOG/build.log"; note "build: FAILED"; printf '%s\n' "${summary[@]}"; exit 1; }
  note "build: ok in $(( $(date +%s) - t0 )) s"
fi

lib="$BUILD/libflashc.so"
# SASS instruction counts of the library. cuobjdump takes ~135 s for it (one process, session 53's
# H100), so it runs beside the tests and is waited for before the benchmark and the summary; a
# later call on the same build (--part 2, --bench-only) reuses its dump.
sass_note() {
  note "sass: HGMMA $(grep -c HGMMA "$LOG/sass.txt") QGMMA $(grep -c QGMMA "$LOG/sass.txt") HMMA $(grep -c 'HMMA' "$LOG/sass.txt") IMMA $(grep -c IMMA "$LOG/sass.txt") local-mem(STL) $(grep -c 'STL' "$LOG/sass.txt")$1"
}
SASS_PID=
if command -v cuobjdump >/dev/null; then
  if [ -s "$LOG/sass.txt" ] && [ "$LOG/sass.txt" -nt "$lib" ]; then
    sass_note " (this build's dump, from an earlier call)"
  else
    rm -f "$LOG/sass.txt"
    progress "sass: cuobjdump started beside the tests"
    ( cuobjdump -sass "$lib" >"$LOG/sass.txt.part" 2>/dev/null; mv "$LOG/sass.txt.part" "$LOG/sass.txt" ) &
    SASS_PID=$!
  fi
fi
sass_wait() {
  [ -n "$SASS_PID" ] || return 0
  wait "$SASS_PID" 2>/dev/null
  SASS_PID=
  sass_note ""
}

fails=0
C_TESTS=$TESTS; EXTRA_TESTS=$TESTS
[ "$PART" = 1 ] && EXTRA_TESTS=0
[ "$PART" = 2 ] && C_TESTS=0

# the sm_89 pass's build: the portable path only, for this GPU's arch, e4m3 kernels as sm_89's code
SM89=$BUILD/sm89
if [ $EXTRA_TESTS -eq 1 ] && [ ! -x "$SM89/tests/test_gpu" ]; then
  progress "build (sm_89 pass): start"
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  t0=$(date +%s)
  if cmake -S . -B "$SM89" -DCMAKE_BUILD_TYPE=Release -DFLASHC_SM80_ARCHS="$cc" -DFLASHC_BUILD_SM90=OFF \
       -DFLASHC_BUILD_BENCH=OFF -DFLASHC_SM80_E4M3_NATIVE=ON >"$LOG/configure_sm89.log" 2>&1 &&
     cmake --build "$SM89" -j"$(nproc)" --target test_gpu >"$LOG/build_sm89.log" 2>&1; then
    note "build (sm_89 pass: e4m3 as sm_89's code): ok in $(( $(date +%s) - t0 )) s"
  else
    tail -40 "$LOG/build_sm89.log"; note "build (sm_89 pass): FAILED"; fails=$((fails + 1))
  fi
fi
# one seed for every process (each prints it; a unit alone draws the inputs it draws in a whole run)
export FLASHC_TEST_SEED=${FLASHC_TEST_SEED:-$(( $(od -An -N4 -tu4 /dev/urandom) % 1000000000 ))}
echo "seed: FLASHC_TEST_SEED=$FLASHC_TEST_SEED"

# summary of a finished test log: its last "N passed, M failed, K skipped" line
last_line() { grep -hE '^[A-Za-z_]*:? ?[0-9]+ passed, [0-9]+ failed' "$1" | tail -1; }

# one test_gpu unit of a pass (full | sm89) into $LOG/PASS/uK.log and .rc
unit_job() {
  local pass=$1 k=$2
  if [ "$pass" = sm89 ]; then
    FLASHC_SM80_AS_CC=89 timeout 600 "$SM89/tests/test_gpu" --backend sm80 --unit "$k" >"$LOG/$pass/u$k.log" 2>&1
  else
    timeout 600 "$BUILD/tests/test_gpu" --unit "$k" >"$LOG/$pass/u$k.log" 2>&1
  fi
  echo $? >"$LOG/$pass/u$k.rc"
}
export -f unit_job
export BUILD LOG SM89

# a pass's units merged: totals, failures, and the variants no unit launched (in every "never:" list)
merge_units() {
  local pass=$1 title=$2 n=$3 rc=0 p=0 f=0 sk=0 l r k lp lf lsk
  for k in $(seq 0 $((n - 1))); do
    r=$(cat "$LOG/$pass/u$k.rc" 2>/dev/null || echo 255)
    [ "$r" = 0 ] || [ "$r" = 77 ] || { rc=$r; echo "-- $pass unit $k: rc=$r"; grep -E '^FAIL' "$LOG/$pass/u$k.log" | head -20; tail -5 "$LOG/$pass/u$k.log"; }
    l=$(last_line "$LOG/$pass/u$k.log")
    [ -n "$l" ] || { [ "$rc" = 0 ] && rc=1; echo "-- $pass unit $k: no summary line"; continue; }
    read -r lp _ lf _ lsk _ <<<"$l" # "P passed, F failed, S skipped"
    p=$((p + lp)); f=$((f + lf)); sk=$((sk + lsk))
  done
  cat "$LOG/$pass"/u*.log >"$LOG/test_gpu_$pass.log"
  [ "$rc" = 0 ] || fails=$((fails + 1))
  note "$title: rc=$rc $p passed, $f failed, $sk skipped ($n units, $JOBS jobs)"
  grep -h '^8-bit kernel error' "$LOG/$pass"/u*.log | awk -v t="$title" '
    {m = $0; sub(/.*max /, "", m); sub(/ .*/, "", m); k = $0 ~ /, int8: / ? "int8" : "fp8"; if (m + 0 >= w[k] + 0) w[k] = m}
    END {if (length(w)) printf "%s: 8-bit kernel error, largest unit max: fp8 %s, int8 %s\n", t, w["fp8"], w["int8"]}'
  awk '/^sm80 route coverage/ {
         ++units; split($0, a, " of "); split(a[2], b, " "); total = b[1]
         if (index($0, "never:")) { split(substr($0, index($0, "never:") + 6), v, " "); for (i in v) ++never[v[i]] }
       }
       END {
         if (!units) exit; out = ""; c = 0
         for (x in never) if (never[x] == units) { out = out " " x; print x > list; ++c }
         if (c > 16) out = sprintf(" %d variants, listed in %s", c, list)
         printf "sm80 route coverage (units merged): %d of %d kernel variants launched%s\n", total - c, total, c ? "; never:" out : ""
       }' list="$LOG/$pass/never_launched.txt" "$LOG/$pass"/u*.log
}

# A C test binary run as CTest runs it. The *_asan tests (host code under ASan) run as on a machine
# without a GPU: ASan's shadow memory leaves CUDA no room to initialise (every pointer query
# answers "out of memory", seen on the H200), and host code is what they test.
run_c_test() {
  case "$(basename "$1")" in
    *_asan) CUDA_VISIBLE_DEVICES= ASAN_OPTIONS=detect_leaks=0 FLASHC_FUZZ_ITERS=10000 timeout 600 "$1" ;;
    *) timeout 600 "$1" ;;
  esac
}

if [ "$JOBS" -gt 1 ] && [ -x "$BUILD/tests/test_gpu" ] && [ $((C_TESTS + EXTRA_TESTS)) -gt 0 ]; then
  # the other tests in the background, the units of both passes in one pool
  bg=()
  if [ $C_TESTS -eq 1 ]; then
    for t in "$BUILD"/tests/test_*; do
      name=$(basename "$t")
      case "$name" in *.*|test_gpu) continue ;; esac
      [ -x "$t" ] || continue
      ( run_c_test "$t" >"$LOG/$name.log" 2>&1; echo $? >"$LOG/$name.rc" ) &
      bg+=("$name")
    done
  fi
  if [ $EXTRA_TESTS -eq 1 ] && python3 -c 'import torch, numpy, pytest' 2>/dev/null; then
    ( FLASHC_LIBRARY=$PWD/$lib PYTHONPATH=$PWD/python timeout 400 python3 -m pytest -q tests/python >"$LOG/pytest.log" 2>&1
      echo $? >"$LOG/pytest.rc" ) &
    bg+=(pytest)
  fi
  units=$("$BUILD/tests/test_gpu" --units)
  passes=()
  [ $C_TESTS -eq 1 ] && passes+=(full)
  [ $EXTRA_TESTS -eq 1 ] && [ -x "$SM89/tests/test_gpu" ] && passes+=(sm89)
  t0=$(date +%s)
  progress "test_gpu units (${passes[*]}) and the other tests: start"
  for pass in "${passes[@]}"; do mkdir -p "$LOG/$pass"; rm -f "$LOG/$pass"/u* "$LOG/$pass/never_launched.txt"; done
  for k in $(seq 0 $((units - 1))); do for pass in "${passes[@]}"; do echo "$pass $k"; done; done |
    xargs -P "$JOBS" -n 2 bash -c 'unit_job "$0" "$1"'
  echo "test_gpu units: $(( $(date +%s) - t0 )) s"
  progress "test_gpu units: done in $(( $(date +%s) - t0 )) s"
  wait
  for name in "${bg[@]}"; do
    rc=$(cat "$LOG/$name.rc" 2>/dev/null || echo 255)
    [ "$rc" = 0 ] || { fails=$((fails + 1)); tail -30 "$LOG/$name.log"; }
    if [ "$name" = pytest ]; then note "pytest: rc=$rc $(tail -1 "$LOG/pytest.log")"; else note "$name: rc=$rc $(last_line "$LOG/$name.log")"; fi
  done
  for pass in "${passes[@]}"; do
    if [ "$pass" = full ]; then merge_units full test_gpu "$units"
    else merge_units sm89 "test_gpu --backend sm80 as sm_89 (e4m3 as sm_89's code)" "$units"; fi
  done
  C_TESTS=0; EXTRA_TESTS=0 # done: skip the one-at-a-time runs below
fi

# one process at a time (--jobs 1)
for t in "$BUILD"/tests/test_*; do
  [ $C_TESTS -eq 1 ] || break
  [ -x "$t" ] || continue
  name=$(basename "$t")
  case "$name" in *.*) continue ;; esac # test binaries have no extension (not packed copies, logs)
  run_c_test "$t" >"$LOG/$name.log" 2>&1
  rc=$?
  last=$(last_line "$LOG/$name.log")
  [ $rc -eq 0 ] || fails=$((fails + 1))
  [ $rc -eq 0 ] || tail -30 "$LOG/$name.log"
  note "$name: rc=$rc ${last:-<no summary line>}"
  grep -h "^sm80 route coverage" "$LOG/$name.log" # the variants this pass never launched
done

# the portable path as an sm_89 GPU would plan and run it, on this GPU
if [ $EXTRA_TESTS -eq 1 ] && [ -x "$SM89/tests/test_gpu" ]; then
  FLASHC_SM80_AS_CC=89 timeout 600 "$SM89/tests/test_gpu" --backend sm80 >"$LOG/test_gpu_sm89.log" 2>&1
  rc=$?
  last=$(last_line "$LOG/test_gpu_sm89.log")
  [ $rc -eq 0 ] || { fails=$((fails + 1)); tail -30 "$LOG/test_gpu_sm89.log"; }
  note "test_gpu --backend sm80 as sm_89 (e4m3 as sm_89's code): rc=$rc ${last:-<no summary line>}"
  grep -h "^sm80 route coverage" "$LOG/test_gpu_sm89.log"
fi

if [ $EXTRA_TESTS -eq 1 ] && python3 -c 'import torch, numpy, pytest' 2>/dev/null; then
  FLASHC_LIBRARY=$PWD/$lib PYTHONPATH=$PWD/python timeout 200 python3 -m pytest -q tests/python >"$LOG/pytest.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { fails=$((fails + 1)); tail -30 "$LOG/pytest.log"; }
  note "pytest: rc=$rc $(tail -1 "$LOG/pytest.log")"
fi

sass_wait # before the benchmark: no cuobjdump beside its timings
if [ $BENCH -eq 1 ]; then
  progress "bench: start"
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
