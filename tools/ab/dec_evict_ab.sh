#!/usr/bin/env bash
# scratch (session 59): the decode tile's L2 policy by cache size (SM90_DEC_EVICT_FIRST_MAX_L2X):
# build, test_gpu unit 42 (sm90 decode: both policies), an A/B of the policies through the dev hook
# FLASHC_SM90_DEC_EVICT_FIRST beside the portable tiles and the rule, then (SUITE=1) the GPU
# suite's part 1 on the same build (SUITE=2: part 2 only, on the same warm machine).
nvidia-smi --query-gpu=name --format=csv,noheader
if [ "${SUITE:-}" = 2 ]; then
  scripts/gpu_suite.sh --build-dir build-gpu --part 2 > $OUT/p2.log 2>&1; tail -8 $OUT/p2.log; exit 0
fi
. tools/ab/build_gpu.sh
cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests.log 2>&1 || { tail -20 build-gpu/logs/build_tests.log; exit 1; }
echo "== test_gpu unit 42"
timeout 120 build-gpu/tests/test_gpu --unit 42 2>&1 | grep -E "^FAIL|^unit|passed|failed|Hopper path" | head -20
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
echo "== A/B, GB/s of K+V read: [portable | tile evict-first | tile evict-normal | auto (the rule)]"
for s in fp8,128,8,64,8,8,8192,0 fp8,128,8,64,8,8,12288,0 fp8,128,8,64,8,8,16384,0 fp8,128,8,64,8,8,24576,0 \
         fp8,128,8,64,8,8,32768,0 fp8,128,16,64,8,8,8192,0 fp8,128,4,64,8,8,32768,0 fp8,128,8,64,8,5,32768,0 \
         fp8,128,8,64,8,8,32768,256 fp8,128,64,32,8,8,8192,0 fp8,128,8,64,8,8,8192,0; do
  AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 "$L@FLASHC_SM90_DECODE=0" \
    "$L@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_EVICT_FIRST=1" "$L@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_EVICT_FIRST=0" \
    "$L" 2>&1 | grep GB/s | tail -1
done
[ "${SUITE:-}" = 1 ] || exit 0
scripts/gpu_suite.sh --build-dir build-gpu --part 1 > $OUT/p1.log 2>&1; grep -v never: $OUT/p1.log | tail -13
