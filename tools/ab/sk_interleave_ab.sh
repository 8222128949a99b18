#!/usr/bin/env bash
# scratch (session 60, for the next device): the portable split-key tiles' interleaved key splits
# (fwd_splitk.cuh sk_key_walk; default on, dev hook FLASHC_SM80_SK_INTERLEAVE=0 runs) in one build:
# the forced-split cases both ways, then ab80's decode set and the issue's 17-32-row rows
# [runs | interleaved | runs again] (the sm90 tile kept off: FLASHC_SM90_DECODE=0), then mixed
# lengths (AB_USED=ramp). SUITE=1 / SUITE=2: a GPU suite part on the same build (warm machine).
nvidia-smi --query-gpu=name --format=csv,noheader
if [ -n "${SUITE:-}" ]; then
  scripts/gpu_suite.sh --build-dir build-gpu --part "$SUITE" > $OUT/p$SUITE.log 2>&1; grep -v never: $OUT/p$SUITE.log | tail -13; exit 0
fi
. tools/ab/build_gpu.sh
cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests.log 2>&1 || { tail -20 build-gpu/logs/build_tests.log; exit 1; }
echo "== test_gpu --filter 'decode forced' (interleaved and runs)"
timeout 200 build-gpu/tests/test_gpu --filter "decode forced" 2>&1 | grep -E "^FAIL|passed|failed" | head -20
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
A="$L@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0"; B="$L@FLASHC_SM90_DECODE=0"
echo "== ab80 decode set (sm80 backend): [runs | interleaved | runs again]"
AB_SHAPES=decode timeout 150 /tmp/ab80 "$A" "$B" "$A" 2>&1 | grep GB/s
echo "== the issue's rows through AUTO (tile off)"
for s in fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,2,32768,0 fp8,128,8,64,8,4,16384,0 \
         int8,128,8,64,8,4,32768,0 bf16,128,8,64,8,4,32768,0 bf16,128,8,64,8,1,32768,0 fp8,128,8,64,8,4,32768,64 \
         fp8,128,8,64,8,4,32768,16 bf16,128,8,64,8,4,32768,16; do
  AB_BACKEND=auto AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 "$A" "$B" "$A" 2>&1 | grep GB/s | tail -1
done
echo "== mixed lengths (AB_USED=ramp)"
for s in fp8,128,8,64,8,4,32768,0 bf16,128,8,64,8,4,32768,0 fp8,128,8,64,8,4,32768,64; do
  AB_USED=ramp AB_BACKEND=auto AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 "$A" "$B" "$A" 2>&1 | grep GB/s | tail -1
done
