#!/usr/bin/env bash
# scratch (session 60): the decode tile's interleaved key splits (split s streams blocks s, s +
# splits, ...) against runs of blocks, one build, by the dev hook FLASHC_SM90_DEC_INTERLEAVE, the
# tile forced (FLASHC_SM90_DECODE=1) through AUTO, also over caches of mixed lengths (AB_USED=ramp,
# beside the portable tiles); then units 42 / 36. SUITE=1: GPU suite part 1
# on the same build (warm machine); SUITE=2: part 2.
nvidia-smi --query-gpu=name --format=csv,noheader
if [ -n "${SUITE:-}" ]; then
  scripts/gpu_suite.sh --build-dir build-gpu --part "$SUITE" > $OUT/p$SUITE.log 2>&1; grep -v never: $OUT/p$SUITE.log | tail -13; exit 0
fi
. tools/ab/build_gpu.sh
cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests.log 2>&1 || { tail -20 build-gpu/logs/build_tests.log; exit 1; }
O=$(find build-gpu -name 'sm90_decode.cu.o' | head -1)
echo "object: QGMMA $(cuobjdump -sass "$O" | grep -c QGMMA), STL $(cuobjdump -sass "$O" | grep -c STL)"
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
echo "== A/B, GB/s of K+V read, tile forced: [runs | interleaved | runs again]"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,2,32768,0 fp8,128,8,64,8,8,16384,0 \
         fp8,128,8,64,8,8,8192,0 fp8,128,8,64,8,8,4096,0 fp8,128,16,64,8,8,16384,0 fp8,128,8,64,8,8,32768,256 \
         fp8,128,8,64,8,8,32768,128 fp8,128,8,64,8,5,32768,0; do
  AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 "$L@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0" \
    "$L@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=1" "$L@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0" 2>&1 | grep GB/s | tail -1
done
echo "== the same with mixed lengths (AB_USED=ramp: sequence i uses sk (i + 1) / b keys)"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,8,32768,256 fp8,128,16,64,8,8,16384,0; do
  AB_USED=ramp AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 "$L@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0" \
    "$L@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=1" "$L@FLASHC_SM90_DECODE=0" 2>&1 | grep GB/s | tail -1
done
for u in 42 36; do echo "== test_gpu unit $u"; timeout 120 build-gpu/tests/test_gpu --unit $u 2>&1 | grep -E "^FAIL|^unit|passed|failed|Hopper path" | head -20; done
