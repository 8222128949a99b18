#!/usr/bin/env bash
# scratch (sessions 58-59): the Hopper fp8 decode tile in the library (landed in session 59): build,
# SASS of the decode object, its test_gpu unit and the Hopper fp8 unit (fwd_kernel.cuh calls the shared P converter), then an A/B of the tile against the portable path
# through the auto backend (FLASHC_SM90_DECODE). ~100 s on a fresh machine. With SUITE=1, then the
# GPU suite's part 1 (SUITE=2: part 2 only, on the same warm machine: no rebuild).
nvidia-smi --query-gpu=name --format=csv,noheader
if [ "${SUITE:-}" = 2 ]; then
  scripts/gpu_suite.sh --build-dir build-gpu --part 2 > $OUT/p2.log 2>&1; tail -8 $OUT/p2.log; exit 0
fi
. tools/ab/build_gpu.sh
cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests.log 2>&1 || { tail -20 build-gpu/logs/build_tests.log; exit 1; }
O=$(find build-gpu -name 'sm90_decode.cu.o' | head -1)
echo "QGMMA in the decode object ($O): $(cuobjdump -sass "$O" | grep -c QGMMA), STL: $(cuobjdump -sass "$O" | grep -c STL)"
for u in 42 36; do echo "== test_gpu unit $u"; timeout 120 build-gpu/tests/test_gpu --unit $u 2>&1 | grep -E "^FAIL|^unit|passed|failed|8-bit kernel error" | head -20; done
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
echo "== A/B auto backend: [FLASHC_SM90_DECODE=0 (portable) | rule | =1]"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,16384,0 fp8,128,8,64,8,5,32768,0 fp8,128,8,64,8,8,8192,0 \
         fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,64,32,8,8,4096,0 fp8,128,8,64,8,8,32768,256 \
         fp8,128,8,64,8,8,32768,128 fp8,128,64,32,8,8,8192,256; do
  AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$s LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 60 /tmp/ab80 \
    "$L@FLASHC_SM90_DECODE=0" "$L" "$L@FLASHC_SM90_DECODE=1" 2>&1 | grep GB/s | tail -1
done
[ "${SUITE:-}" = 1 ] || exit 0
scripts/gpu_suite.sh --build-dir build-gpu --part 1 > $OUT/p1.log 2>&1; grep -v never: $OUT/p1.log | tail -13
