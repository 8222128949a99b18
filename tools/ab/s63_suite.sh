#!/usr/bin/env bash
# scratch (session 63): the GPU suite on main's build, for a warm machine after s63_h200.sh (which
# leaves build-gpu holding the halves-bw build): rebuild main, then part 1 (C tests), then part 2
# (sm_89 pass, pytest) while the call is under GUARD seconds (default 330). PATCH=file: part 1 on
# main + that patch instead (part 2 skipped).
T0=$(date +%s)
GUARD=${GUARD:-330}
[ -n "${PATCH:-}" ] && { git apply "$PATCH" || { echo "$PATCH does not apply"; exit 1; }; }
. tools/ab/build_gpu.sh
scripts/gpu_suite.sh --build-dir build-gpu --part 1 > $OUT/p1.log 2>&1; grep -v never: $OUT/p1.log | tail -16
e=$(( $(date +%s) - T0 ))
if [ -z "${PATCH:-}" ] && [ $e -lt $GUARD ]; then
  mv $OUT/logs.tar.gz $OUT/logs1.tar.gz 2>/dev/null
  scripts/gpu_suite.sh --build-dir build-gpu --part 2 > $OUT/p2.log 2>&1; grep -v never: $OUT/p2.log | tail -12
else echo "-- part 2 skipped at $e s"; fi
echo "total $(( $(date +%s) - T0 )) s"
