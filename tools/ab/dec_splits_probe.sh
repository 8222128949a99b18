#!/usr/bin/env bash
# scratch (session 61): the Hopper decode tile's key splits forced (FLASHC_SM90_DEC_SPLITS) with
# the interleave on: does a deeper split (more CTAs, shorter walks, more neighbouring V^T pieces
# read at once) stream faster? [rule | 2 | 6 | 8 | 12 | 16] per row, the tile forced.
nvidia-smi --query-gpu=name --format=csv,noheader
. tools/ab/build_gpu.sh
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
T="$L@FLASHC_SM90_DECODE=1"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,5,32768,0 fp8,128,8,64,8,8,16384,0 \
         fp8,128,8,64,8,4,16384,0 fp8,128,16,64,8,8,16384,0 fp8,128,8,64,8,8,32768,256 fp8,128,8,64,8,8,8192,0; do
  AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 "$T" "$T@FLASHC_SM90_DEC_SPLITS=2" \
    "$T@FLASHC_SM90_DEC_SPLITS=6" "$T@FLASHC_SM90_DEC_SPLITS=8" "$T@FLASHC_SM90_DEC_SPLITS=12" \
    "$T@FLASHC_SM90_DEC_SPLITS=16" 2>&1 | grep GB/s | tail -1
done
echo "== portable beside (tile off)"
for s in fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,4,16384,0; do
  AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 "$T" "$L@FLASHC_SM90_DECODE=0" 2>&1 | grep GB/s | tail -1
done
