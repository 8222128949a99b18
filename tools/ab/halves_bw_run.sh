#!/usr/bin/env bash
# scratch (session 56): row halves' bandwidth rule (tools/ab/halves-bw.patch, applied by the caller:
# `git am tools/ab/halves-bw.patch` on a branch) on the device: build, the DRAM peak the library
# derives, an A/B of the rule against row halves forced (the rule before the patch at these one-wave
# shapes) and off, then the GPU suite (parts 1 and 2) on the same build.
. tools/ab/build_gpu.sh
cat > /tmp/dram.c <<'C'
#include <stdio.h>
#include <cuda_runtime.h>
int main(void)
{
    int khz = 0, bits = 0;
    cudaError_t a = cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0);
    cudaError_t b = cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, 0);
    printf("memory clock %d kHz (%s), bus %d bits (%s): peak %.0f GB/s\n", khz, cudaGetErrorString(a), bits,
           cudaGetErrorString(b), 2.0 * khz * 1e3 * (bits / 8) / 1e9);
    return 0;
}
C
gcc -O1 -o /tmp/dram /tmp/dram.c -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart && LD_LIBRARY_PATH=/usr/local/cuda/lib64 /tmp/dram
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
t0=$(date +%s)
for s in fp8,128,8,64,8,1,32768,0 int8,128,8,64,8,1,32768,0 fp8,128,8,64,8,2,32768,0 int8,128,8,64,8,1,16384,0 \
         fp8,128,8,64,8,1,16384,0 int8,128,8,64,8,1,8192,0 fp8,128,8,64,8,2,8192,0 int8,128,8,64,8,1,4096,0 \
         fp8,128,8,64,8,1,4096,0 int8,128,64,8,1,1,32768,0; do
  echo "== $s [ROW_HALVES=1 (before) | rule | ROW_HALVES=0]"
  AB_VT=1 AB_SHAPES=one AB_ONE=$s LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 60 /tmp/ab80 "$L@FLASHC_SM80_ROW_HALVES=1" "$L" \
    "$L@FLASHC_SM80_ROW_HALVES=0" 2>&1 | grep -v '^lib [0-9]:' | tail -2
done | tee $OUT/ab.txt | grep GB/s
echo "A/B $(( $(date +%s) - t0 )) s"
[ -n "${AB_ONLY:-}" ] && exit 0
scripts/gpu_suite.sh --build-dir build-gpu --part 1 > $OUT/p1.log 2>&1; grep -v never: $OUT/p1.log | tail -13
mv $OUT/logs.tar.gz $OUT/logs-p1.tar.gz 2>/dev/null
scripts/gpu_suite.sh --build-dir build-gpu --part 2 > $OUT/p2.log 2>&1; tail -8 $OUT/p2.log
