#!/usr/bin/env bash
# scratch (session 61): where the portable split-key tiles' interleave wins or loses, by key blocks
# per split: [runs | interleaved] at the rule's splits over s_k 4k-32k, then splits forced
# (FLASHC_SM80_SPLITS) at 4k and 32k. The sm90 tile off (FLASHC_SM90_DECODE=0).
nvidia-smi --query-gpu=name --format=csv,noheader
. tools/ab/build_gpu.sh
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
ab() { AB_BACKEND=auto AB_SHAPES=one AB_ONE=$1 timeout 60 /tmp/ab80 "$L@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0$2" \
         "$L@FLASHC_SM90_DECODE=0$2" 2>&1 | grep GB/s | tail -1 | sed "s/\$/  $2/"; }
echo "== rule's splits"
for dt in fp8 int8; do for sq in 1 4; do for sk in 4096 8192 16384 32768; do ab $dt,128,8,64,8,$sq,$sk,0 ""; done; done; done
for sk in 4096 8192 16384; do ab fp8,128,16,64,8,4,$sk,0 ""; done
echo "== forced splits"
for sk in 4096 32768; do for s in 2 4 8 16; do ab fp8,128,8,64,8,4,$sk,0 "@FLASHC_SM80_SPLITS=$s"; ab fp8,128,8,64,8,1,$sk,0 "@FLASHC_SM80_SPLITS=$s"; done; done
