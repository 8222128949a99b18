#!/usr/bin/env bash
# scratch (session 61): the decode tile's split rule by DRAM share (one CTA per SM on the H100)
# and 17-32 rows from 16k keys, through AUTO: [before | this rule]. Before = the tile's old
# split count forced (FLASHC_SM90_DEC_SPLITS: 2 per SM) for 33-64 rows, the portable tiles
# (FLASHC_SM90_DECODE=0) for 17-32 rows. Then unit "sm90 decode" and SUITE=1 on the same build.
nvidia-smi --query-gpu=name --format=csv,noheader
. tools/ab/build_gpu.sh
cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests.log 2>&1 || { tail -20 build-gpu/logs/build_tests.log; exit 1; }
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
one() { AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$1 timeout 60 /tmp/ab80 "$2" "$L" "$2" 2>&1 | grep GB/s | tail -1; }
echo "== 33-64 rows: [old splits forced | rule | old again]"
for s in fp8,128,8,64,8,8,32768,0:4 fp8,128,8,64,8,8,16384,0:4 fp8,128,8,64,8,8,8192,0:4 fp8,128,8,64,8,5,32768,0:4 \
         fp8,128,8,64,8,8,32768,256:4 fp8,128,16,64,8,8,16384,0:2 fp8,128,4,64,8,8,32768,0:8; do
  one ${s%:*} "$L@FLASHC_SM90_DEC_SPLITS=${s##*:}"
done
echo "== 17-32 rows: [portable | rule | portable again]"
for s in fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,4,16384,0 fp8,128,8,64,8,4,32768,256 \
         fp8,128,16,64,8,4,32768,0 fp8,128,8,32,4,4,32768,0; do
  one $s "$L@FLASHC_SM90_DECODE=0"
done
echo "== test_gpu unit 'sm90 decode'"
timeout 120 build-gpu/tests/test_gpu --filter "sm90 decode" 2>&1 | grep -E "^FAIL|passed|failed" | head -20
scripts/gpu_suite.sh --build-dir build-gpu --part 1 > $OUT/p1.log 2>&1; grep -v never: $OUT/p1.log | tail -13
