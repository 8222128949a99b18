#!/usr/bin/env bash
# scratch (session 62): one device call, ordered by what each card alone can answer, each section
# started only while the call is under GUARD seconds (default 470). Builds main (build-gpu).
# H200 first: halves-bw (tools/ab/halves-bw.patch) A/B, the 16-row rows [portable | tile forced],
# then main's 17-32-row rule and split target, both interleaves. Either card then: the solo kernel
# (tools/ab/sm90-decode-solo.patch; unit "sm90 decode", tile forced [main 1/SM | pair 1/SM | solo
# 1/SM], AUTO [main | patch]) and the V-rows kernel on it (units, V in K's layout [portable |
# tile]). PART2=1 (H100): suite part 2 on main last.
T0=$(date +%s)
GUARD=${GUARD:-470}
more() { local e=$(( $(date +%s) - T0 )); [ $e -lt $GUARD ] || { echo "-- stop at $e s: $1 skipped"; return 1; }; }
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$name"
h200=0; case "$name" in *H200*) h200=1 ;; esac
. tools/ab/build_gpu.sh
cp -L build-gpu/libflashc.so /tmp/main.so
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
M=/tmp/main.so
L=build-gpu/libflashc.so
ab() { AB_BACKEND=auto AB_VT=${VT:-1} AB_SHAPES=one AB_ONE=$1 timeout 60 /tmp/ab80 "${@:2}" 2>&1 | grep GB/s | tail -1; }
rebuild() { cmake --build build-gpu -j16 > build-gpu/logs/build_$1.log 2>&1 || { tail -20 build-gpu/logs/build_$1.log; exit 1; }; }
if [ $h200 = 1 ]; then
  git apply tools/ab/halves-bw.patch || { echo "halves-bw.patch does not apply"; exit 1; }
  rebuild halves; cp -L $L /tmp/halves.so; H=/tmp/halves.so
  echo "== halves-bw: [main | halves-bw rule | main again]"
  for s in fp8,128,8,64,8,1,32768,0 int8,128,8,64,8,1,32768,0 fp8,128,8,64,8,2,32768,0 int8,128,8,64,8,1,16384,0 \
           fp8,128,8,64,8,2,8192,0 int8,128,8,64,8,1,4096,0 fp8,128,8,64,8,1,4096,0 int8,128,64,8,1,1,32768,0; do
    ab $s "$M" "$H" "$M"
  done
  echo "== 16 rows: [halves-bw portable | tile forced | halves-bw again]"
  for s in fp8,128,8,64,8,2,32768,0 fp8,128,8,64,8,2,16384,0 fp8,128,8,32,8,4,32768,0 fp8,128,8,64,8,2,32768,256; do
    ab $s "$H" "$H@FLASHC_SM90_DECODE=1" "$H"
  done
  git apply -R tools/ab/halves-bw.patch
  more "main A/B" && {
  echo "== main, 17-32 rows through AUTO: [portable | rule | portable again]"
  for s in fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,4,16384,0 fp8,128,8,64,8,4,32768,256; do
    ab $s "$M@FLASHC_SM90_DECODE=0" "$M" "$M@FLASHC_SM90_DECODE=0"
  done
  echo "== main, tile forced: [1 CTA per SM | 2 per SM | rule]"
  for s in fp8,128,8,64,8,8,32768,0:2:4 fp8,128,8,64,8,8,16384,0:2:4 fp8,128,8,64,8,4,32768,0:2:4; do
    IFS=: read -r sh one two <<< "$s"
    ab $sh "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_SPLITS=$one" "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_SPLITS=$two" "$M@FLASHC_SM90_DECODE=1"
  done
  echo "== main, portable interleave (tile off): [runs | interleaved | runs again]"
  for s in fp8,128,8,64,8,4,32768,0 int8,128,8,64,8,4,32768,0 fp8,128,8,64,8,1,32768,0 bf16,128,8,64,8,4,32768,0 fp8,128,8,64,8,4,32768,64; do
    ab $s "$M@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0" "$M@FLASHC_SM90_DECODE=0" "$M@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0"
  done
  echo "== main, the tile's interleave (forced): [runs | interleaved | runs again]"
  for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,32768,256; do
    ab $s "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0" "$M@FLASHC_SM90_DECODE=1" "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0"
  done; }
fi
more "solo patch" || exit 0
echo "== the solo kernel (tools/ab/sm90-decode-solo.patch)"
git apply tools/ab/sm90-decode-solo.patch || { echo "solo patch does not apply"; exit 1; }
rebuild solo
cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests_solo.log 2>&1 || { tail -20 build-gpu/logs/build_tests_solo.log; exit 1; }
O=$(find build-gpu -name 'sm90_decode.cu.o' | head -1)
echo "object: QGMMA $(cuobjdump -sass "$O" | grep -c QGMMA), STL $(cuobjdump -sass "$O" | grep -c STL)"
timeout 150 build-gpu/tests/test_gpu --filter "sm90 decode" 2>&1 | grep -E "^FAIL|passed|error" | head -10
T="FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_SPLITS"
echo "== tile forced: [main 1/SM | pair 1/SM | solo 1/SM]  (H100 rule: 1/SM; H200: 2/SM)"
for s in fp8,128,8,64,8,8,32768,0:2 fp8,128,8,64,8,8,8192,0:2 fp8,128,8,64,8,4,32768,0:2 fp8,128,8,64,8,8,32768,256:2 fp8,128,16,64,8,8,16384,0:1; do
  IFS=: read -r sh one <<< "$s"
  ab $sh "$M@$T=$one" "$L@$T=$one@FLASHC_SM90_DEC_SOLO=0" "$L@$T=$one@FLASHC_SM90_DEC_SOLO=1"
done
echo "== through AUTO: [main | solo patch]"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,4,32768,0 fp8,128,64,32,8,8,8192,0; do ab $s "$M" "$L"; done
more "v-rows patch" || exit 0
echo "== the V-rows kernel (tools/ab/sm90-decode-vrows.patch)"
git apply tools/ab/sm90-decode-vrows.patch || { echo "v-rows patch does not apply"; exit 1; }
rebuild vr
cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests_vr.log 2>&1 || { tail -20 build-gpu/logs/build_tests_vr.log; exit 1; }
echo "object: QGMMA $(cuobjdump -sass "$O" | grep -c QGMMA), STL $(cuobjdump -sass "$O" | grep -c STL)"
timeout 200 build-gpu/tests/test_gpu --filter "sm90 decode" 2>&1 | grep -E "^FAIL|passed|error" | head -20
echo "== V in K's layout through AUTO: [main (portable) | V-rows tile | main again]"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,8192,0 fp8,128,8,64,8,5,32768,0 fp8,128,8,64,8,8,32768,256 fp8,128,16,64,8,8,16384,0; do
  VT=0 ab $s "$M" "$L" "$M"
done
[ -n "${PART2:-}" ] && more "part 2" && { git apply -R tools/ab/sm90-decode-vrows.patch tools/ab/sm90-decode-solo.patch 2>/dev/null ||
  { git apply -R tools/ab/sm90-decode-vrows.patch; git apply -R tools/ab/sm90-decode-solo.patch; }
  rebuild main2; scripts/gpu_suite.sh --build-dir build-gpu --part 2 > $OUT/p2.log 2>&1; grep -v never: $OUT/p2.log | tail -8; }
echo "total $(( $(date +%s) - T0 )) s"
