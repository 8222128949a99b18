#!/usr/bin/env bash
# scratch (session 59): the decode tile's consumer patch (tools/ab/sm90-decode-consumer.patch,
# applied by the caller on a branch) against main's tile on one machine. Before the call, locally:
#   git am tools/ab/sm90-decode-consumer.patch   (on a branch)
#   mkdir -p .carry && git show main:kernels/sm90/sm90_decode.cu > .carry/sm90_decode_main.cu
# and run with carry [".carry"]. Builds main's tile first (the library as /tmp/main.so), then the
# patched one (incremental), runs test_gpu units 42 / 36 on the patched build and times main's
# tile | the patched tile | the portable tiles through AUTO with the tile forced (FLASHC_SM90_DECODE).
# SUITE=1: then the GPU suite's part 1 on the patched build (SUITE=2: part 2 only, warm machine).
nvidia-smi --query-gpu=name --format=csv,noheader
if [ "${SUITE:-}" = 2 ]; then
  scripts/gpu_suite.sh --build-dir build-gpu --part 2 > $OUT/p2.log 2>&1; tail -8 $OUT/p2.log; exit 0
fi
[ -f .carry/sm90_decode_main.cu ] || { echo "no .carry/sm90_decode_main.cu"; exit 1; }
cp kernels/sm90/sm90_decode.cu /tmp/sm90_decode_patched.cu
cp .carry/sm90_decode_main.cu kernels/sm90/sm90_decode.cu
. tools/ab/build_gpu.sh
cp -L build-gpu/libflashc.so /tmp/main.so
cp /tmp/sm90_decode_patched.cu kernels/sm90/sm90_decode.cu
cmake --build build-gpu -j16 > build-gpu/logs/build_patched.log 2>&1 &&
  cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests.log 2>&1 ||
  { tail -20 build-gpu/logs/build_patched.log build-gpu/logs/build_tests.log; exit 1; }
O=$(find build-gpu -name 'sm90_decode.cu.o' | head -1)
echo "patched object: QGMMA $(cuobjdump -sass "$O" | grep -c QGMMA), STL $(cuobjdump -sass "$O" | grep -c STL)"
for u in 42 36; do echo "== test_gpu unit $u"; timeout 120 build-gpu/tests/test_gpu --unit $u 2>&1 | grep -E "^FAIL|^unit|passed|failed|Hopper path" | head -20; done
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
echo "== A/B, GB/s of K+V read: [main's tile | patched tile | portable]"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,16384,0 fp8,128,8,64,8,8,8192,0 fp8,128,8,64,8,5,32768,0 \
         fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,2,32768,0 fp8,128,8,64,8,4,16384,0 \
         fp8,128,64,32,8,8,8192,0 fp8,128,8,64,8,8,32768,256 fp8,128,8,64,8,4,32768,256; do
  AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 "/tmp/main.so@FLASHC_SM90_DECODE=1" \
    "$L@FLASHC_SM90_DECODE=1" "$L@FLASHC_SM90_DECODE=0" 2>&1 | grep GB/s | tail -1
done
[ "${SUITE:-}" = 1 ] || exit 0
scripts/gpu_suite.sh --build-dir build-gpu --part 1 > $OUT/p1.log 2>&1; grep -v never: $OUT/p1.log | tail -13
