#!/usr/bin/env bash
# scratch (session 56): full build, the int8 s_q 1 probe (int8_s1_probe.sh), then the GPU suite
# (parts 1 and 2) on the same build: HEAD's host change is a refactor of pick_variant's wide rule
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
t0=$(date +%s)
mkdir -p build-gpu/logs
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFLASHC_SM80_ARCHS="$cc" > build-gpu/logs/configure.log 2>&1 &&
  cmake --build build-gpu -j16 > build-gpu/logs/build.log 2>&1 || { tail -30 build-gpu/logs/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
SKIP_BUILD=1 bash tools/ab/int8_s1_probe.sh > /dev/null 2>&1; cat $OUT/probe.txt
echo "probe $(( $(date +%s) - t0 )) s"
scripts/gpu_suite.sh --build-dir build-gpu --part 1 > $OUT/p1.log 2>&1; grep -v never: $OUT/p1.log | tail -13
mv $OUT/logs.tar.gz $OUT/logs-p1.tar.gz 2>/dev/null
scripts/gpu_suite.sh --build-dir build-gpu --part 2 > $OUT/p2.log 2>&1; tail -8 $OUT/p2.log
