#!/usr/bin/env bash
# scratch (session 61): one call for kind nvidia-h200 that is useful on either card. Both: the
# Hopper tile against the portable tiles at 16-64 packed rows after both interleaves
# (dec_rows_ab.sh, no ncu). H200 only, first: the portable tiles' interleave on the issue's rows
# [runs | interleaved] (the tile off), the Hopper tile's interleave [runs | interleaved]; after the
# rows A/B, halves-bw A/B (h200_questions.sh's second half). ~300 s on a fresh H200.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$name"
. tools/ab/build_gpu.sh
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
ab() { AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$1 timeout 60 /tmp/ab80 "$2" "$3" "$2" 2>&1 | grep GB/s | tail -1; }
case "$name" in *H200*)
  echo "== portable tiles, the issue's rows through AUTO (tile off): [runs | interleaved | runs again]"
  for s in fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,4,16384,0 int8,128,8,64,8,4,32768,0 \
           bf16,128,8,64,8,4,32768,0 fp8,128,8,64,8,4,32768,64 fp8,128,8,64,8,1,32768,0 fp8,128,8,64,8,1,4096,0 \
           fp8,128,16,64,8,4,16384,0 int8,128,8,64,8,4,8192,0; do
    ab $s "$L@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0" "$L@FLASHC_SM90_DECODE=0"
  done
  echo "== ramp"
  for s in fp8,128,8,64,8,4,32768,0 bf16,128,8,64,8,4,32768,0; do
    AB_USED=ramp ab $s "$L@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0" "$L@FLASHC_SM90_DECODE=0"
  done
  echo "== Hopper tile forced: [runs | interleaved | runs again]"
  for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,16384,0 fp8,128,8,64,8,8,8192,0 fp8,128,8,64,8,5,32768,0 \
           fp8,128,8,64,8,8,32768,256; do
    ab $s "$L@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0" "$L@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=1"
  done ;;
esac
NO_NCU=1 bash tools/ab/dec_rows_ab.sh
case "$name" in *H200*)
  git apply tools/ab/halves-bw.patch 2>/dev/null || patch -p1 -s < tools/ab/halves-bw.patch || { echo "halves-bw.patch does not apply"; exit 1; }
  AB_ONLY=1 bash tools/ab/halves_bw_run.sh ;;
esac
