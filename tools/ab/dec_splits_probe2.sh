#!/usr/bin/env bash
# scratch (session 61): the Hopper decode tile at one CTA per SM (splits = SMs / (b x h_kv)):
# split counts around it, then the tile at that count against the portable tiles at 16-32 rows.
nvidia-smi --query-gpu=name --format=csv,noheader
. tools/ab/build_gpu.sh
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
T="$L@FLASHC_SM90_DECODE=1"
one() { AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$1 timeout 60 /tmp/ab80 "${@:2}" 2>&1 | grep GB/s | tail -1; }
echo "== [rule | 1 | 2 | 3 | 4 splits], tile forced"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,16,64,8,8,16384,0 fp8,128,16,64,8,8,32768,0 fp8,128,8,32,4,8,32768,0 \
         fp8,128,4,64,8,8,32768,0 fp8,128,8,64,8,8,8192,0; do
  one $s "$T" "$T@FLASHC_SM90_DEC_SPLITS=1" "$T@FLASHC_SM90_DEC_SPLITS=2" "$T@FLASHC_SM90_DEC_SPLITS=3" "$T@FLASHC_SM90_DEC_SPLITS=4"
done
echo "== b 8 h 32/4 (32 KV heads) [rule | 4 | 5 | 8]"
one fp8,128,8,32,4,8,32768,0 "$T" "$T@FLASHC_SM90_DEC_SPLITS=4" "$T@FLASHC_SM90_DEC_SPLITS=5" "$T@FLASHC_SM90_DEC_SPLITS=8"
echo "== [portable | tile, rule | tile, SMs/(b h_kv) splits] at 16-32 rows"
for s in fp8,128,8,64,8,2,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,3,16384,0 \
         fp8,128,8,64,8,4,16384,0 fp8,128,8,64,8,4,8192,0 fp8,128,8,64,8,4,32768,256 fp8,128,8,32,8,4,32768,0; do
  one $s "$L@FLASHC_SM90_DECODE=0" "$T" "$T@FLASHC_SM90_DEC_SPLITS=2"
done
for s in fp8,128,16,64,8,4,16384,0 fp8,128,64,32,8,4,8192,0; do
  one $s "$L@FLASHC_SM90_DECODE=0" "$T" "$T@FLASHC_SM90_DEC_SPLITS=1"
done
