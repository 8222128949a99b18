#!/usr/bin/env bash
# Coverage-guided fuzzing of the public API on host memory (tests/cpu/test_fuzz.c) under libFuzzer
# with AddressSanitizer and UndefinedBehaviorSanitizer. No GPU needed.
#   scripts/fuzz.sh [--build-dir DIR] [--seconds N] [--jobs N] [--out DIR]
# Instrumented: the host sources (src/*.c), the test helpers, the harness, and the GPU planners'
# host code (sm80_launch.cu, sm90_api.cu, compiled as C++: they hold no device code). The kernels
# are linked uninstrumented from DIR's static library (default build: run the README's build
# first). The corpus is kept in OUT/corpus (default build-fuzz/corpus) across runs; a failing input
# is saved as OUT/crash-* and is replayed with `DIR/tests/test_fuzz OUT/crash-*` (or this build's
# OUT/fuzz_api FILE). Exits non-zero when libFuzzer found a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build
SECONDS_MAX=300
JOBS=$(nproc)
OUTDIR=build-fuzz
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD=$2; shift 2 ;;
    --seconds) SECONDS_MAX=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --out) OUTDIR=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
CLANG=${CLANG:-clang}
CLANGXX=${CLANGXX:-clang++}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
LIB=$BUILD/libflashc_static.a
[ -f "$LIB" ] || { echo "fuzz.sh: $LIB not found; build the library first (cmake --build $BUILD)" >&2; exit 2; }
command -v "$CLANG" >/dev/null || { echo "fuzz.sh: $CLANG not found (libFuzzer needs clang)" >&2; exit 2; }

mkdir -p "$OUTDIR/obj" "$OUTDIR/corpus"
SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
INC="-Iinclude -Isrc -Ikernels -Itests/common -I$CUDA_HOME/include"
for f in src/*.c tests/common/*.c; do
  "$CLANG" -O1 -g -std=c11 $SAN $INC -c "$f" -o "$OUTDIR/obj/$(basename "$f").o"
done
"$CLANG" -O1 -g -std=c11 $SAN $INC -DFLASHC_LIBFUZZER -c tests/cpu/test_fuzz.c -o "$OUTDIR/obj/test_fuzz.c.o"
for f in kernels/sm80/sm80_launch.cu kernels/sm90/sm90_api.cu; do
  "$CLANGXX" -x c++ -std=c++17 -O1 -g $SAN $INC -c "$f" -o "$OUTDIR/obj/$(basename "$f").o"
done
# The archive's own host objects are not pulled in: every symbol they define is already defined.
"$CLANGXX" -fsanitize=fuzzer,address,undefined "$OUTDIR"/obj/*.o "$LIB" -L"$CUDA_HOME/lib64" -lcudart -lm \
  -o "$OUTDIR/fuzz_api"

cd "$OUTDIR"
status=0
./fuzz_api -max_total_time="$SECONDS_MAX" -max_len=512 -jobs="$JOBS" -workers="$JOBS" \
  -artifact_prefix=./ corpus > fuzz.log 2>&1 || status=$?
for f in fuzz-*.log; do [ -f "$f" ] && { grep -h "DONE\|ERROR\|FAIL\|runtime error" "$f" || true; } | tail -3; done
found=$(ls crash-* leak-* timeout-* oom-* 2>/dev/null | tr '\n' ' ' || true)
[ -n "$found" ] && { echo "fuzz.sh: failing inputs: $found"; status=1; }
echo "fuzz.sh: $(ls corpus | wc -l) inputs in $OUTDIR/corpus; exit $status"
exit $status
