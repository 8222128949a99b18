#!/usr/bin/env bash
# scratch (session 63): the H200 questions on main, most wanted first, each section started only
# while the call is under GUARD seconds (default 280); then, with SUITE=N, that part of the GPU suite
# on main's build if the call is under SUITE_GUARD (default 370; SUITE_H100_ONLY=1: not on an H200).
# Builds main (build-gpu).
# 1. 17-32 rows (the issue's b 8 h 64/8 s_q 3-4) through AUTO [portable | rule], and with V in K's
#    layout [portable | V-rows tile forced]; 2. halves-bw (tools/ab/halves-bw.patch) [main | rule |
#    main]; 3. the split target [rule (2 CTAs per SM) | pair at 1 per SM | solo at 1 per SM]; 4. V
#    rows at 33-64 [portable | tile]; 5. the 16-row rows [halves-bw portable | tile forced]; 6. both
#    interleaves. On an H100 only the V-rows tables (1b, 4) run; with H200_ONLY=1 nothing does (the
#    call ends at once, so that a retry can start another machine).
T0=$(date +%s)
GUARD=${GUARD:-280}
more() { local e=$(( $(date +%s) - T0 )); [ $e -lt ${2:-$GUARD} ] || { echo "-- stop at $e s: $1 skipped"; return 1; }; }
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$name"
h200=0; case "$name" in *H200*) h200=1 ;; esac
[ $h200 = 0 ] && [ -n "${H200_ONLY:-}" ] && { echo "not an H200: nothing asked"; exit 0; }
. tools/ab/build_gpu.sh
cp -L build-gpu/libflashc.so /tmp/main.so
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
M=/tmp/main.so
ab() { AB_BACKEND=auto AB_VT=${VT:-1} AB_SHAPES=one AB_ONE=$1 timeout 60 /tmp/ab80 "${@:2}" 2>&1 | grep GB/s | tail -1; }
if [ $h200 = 1 ]; then
  echo "== 17-32 rows, V^T, through AUTO: [portable | rule | portable again]"
  for s in fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,4,16384,0 fp8,128,8,64,8,4,32768,256; do
    ab $s "$M@FLASHC_SM90_DECODE=0" "$M" "$M@FLASHC_SM90_DECODE=0"
  done
fi
echo "== V in K's layout at 17-32 rows (AUTO: portable): [portable | V-rows tile forced | portable again]"
for s in fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,4,16384,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,4,32768,256 fp8,128,16,64,8,4,16384,0; do
  VT=0 ab $s "$M" "$M@FLASHC_SM90_DECODE=1" "$M"
done
if [ $h200 = 1 ] && more "halves-bw"; then
  git apply tools/ab/halves-bw.patch || { echo "halves-bw.patch does not apply"; exit 1; }
  cmake --build build-gpu -j16 > build-gpu/logs/build_halves.log 2>&1 || { tail -20 build-gpu/logs/build_halves.log; exit 1; }
  cp -L build-gpu/libflashc.so /tmp/halves.so; H=/tmp/halves.so
  git apply -R tools/ab/halves-bw.patch
  echo "== halves-bw: [main | halves-bw rule | main again]"
  for s in fp8,128,8,64,8,1,32768,0 int8,128,8,64,8,1,32768,0 fp8,128,8,64,8,2,32768,0 int8,128,8,64,8,1,16384,0 \
           fp8,128,8,64,8,2,8192,0 int8,128,8,64,8,1,4096,0 fp8,128,8,64,8,1,4096,0 int8,128,64,8,1,1,32768,0; do
    ab $s "$M" "$H" "$M"
  done
fi
T="FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_SPLITS"
[ $h200 = 1 ] && more "split target" && {
  echo "== tile forced: [rule (2 per SM) | pair, 1 per SM | solo, 1 per SM]"
  for s in fp8,128,8,64,8,8,32768,0:2 fp8,128,8,64,8,4,32768,0:2 fp8,128,8,64,8,8,8192,0:2 fp8,128,8,64,8,8,32768,256:2 \
           fp8,128,16,64,8,8,16384,0:1; do
    IFS=: read -r sh one <<< "$s"
    ab $sh "$M@FLASHC_SM90_DECODE=1" "$M@$T=$one" "$M@$T=$one@FLASHC_SM90_DEC_SOLO=1"
  done; }
more "V rows 33-64" && {
  echo "== V in K's layout through AUTO: [portable | V-rows tile | portable again]"
  for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,8192,0 fp8,128,8,64,8,5,32768,0 fp8,128,8,64,8,8,32768,256; do
    VT=0 ab $s "$M@FLASHC_SM90_DECODE=0" "$M" "$M@FLASHC_SM90_DECODE=0"
  done; }
[ $h200 = 1 ] && [ -n "${H:-}" ] && more "16 rows" && {
  echo "== 16 rows: [halves-bw portable | tile forced | halves-bw again]"
  for s in fp8,128,8,64,8,2,32768,0 fp8,128,8,64,8,2,16384,0 fp8,128,8,32,8,4,32768,0 fp8,128,8,64,8,2,32768,256; do
    ab $s "$H" "$H@FLASHC_SM90_DECODE=1" "$H"
  done; }
[ $h200 = 1 ] && more "interleaves" && {
  echo "== portable interleave (tile off): [runs | interleaved | runs again]"
  for s in fp8,128,8,64,8,4,32768,0 int8,128,8,64,8,4,32768,0 bf16,128,8,64,8,4,32768,0 fp8,128,8,64,8,4,32768,64; do
    ab $s "$M@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0" "$M@FLASHC_SM90_DECODE=0" "$M@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0"
  done
  echo "== the tile's interleave (forced): [runs | interleaved | runs again]"
  for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,32768,256; do
    ab $s "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0" "$M@FLASHC_SM90_DECODE=1" "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0"
  done; }
echo "A/B done at $(( $(date +%s) - T0 )) s"
[ -n "${SUITE:-}" ] && { [ -z "${SUITE_H100_ONLY:-}" ] || [ $h200 = 0 ]; } && more "suite part $SUITE" "${SUITE_GUARD:-370}" && {
  cmake --build build-gpu -j16 > build-gpu/logs/build_main3.log 2>&1
  scripts/gpu_suite.sh --build-dir build-gpu --part "$SUITE" > $OUT/p$SUITE.log 2>&1; grep -v never: $OUT/p$SUITE.log | tail -14; }
echo "total $(( $(date +%s) - T0 )) s"
