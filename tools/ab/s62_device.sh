#!/usr/bin/env bash
# scratch (session 61, for the next device session), useful on either card. Main's library first:
# PART2=1: the GPU suite's part 2 on it (pending on main since aff92ec; ~240 s); then the decode
# tile's split target [1 CTA per SM | 2 per SM | rule] and 17-32 rows [portable | rule]; on an
# H200 also both interleaves. Then (PATCHES=0 skips) the solo kernel
# (tools/ab/sm90-decode-solo.patch, applied to this copy): unit "sm90 decode", tile forced [2 per
# SM | 1 per SM | its pair kernel at 1 | its solo kernel at 1], AUTO [main | patch]; then the
# V-rows kernel on top (tools/ab/sm90-decode-vrows.patch): units "sm90 decode" / "... v rows",
# V in K's layout [portable | tile]. VR_SUITE=1: suite part 1 on that build. Last, on an H200:
# the halves-bw A/B (tools/ab/halves-bw.patch). Without part 2 ~420 s on a fresh H100.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$name"
h200=0; case "$name" in *H200*) h200=1 ;; esac
. tools/ab/build_gpu.sh
cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests.log 2>&1 || { tail -20 build-gpu/logs/build_tests.log; exit 1; }
cp -L build-gpu/libflashc.so /tmp/main.so
if [ -n "${PART2:-}" ]; then
  scripts/gpu_suite.sh --build-dir build-gpu --part 2 > $OUT/p2.log 2>&1; grep -v never: $OUT/p2.log | tail -8
fi
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
M=/tmp/main.so
ab() { AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$1 timeout 60 /tmp/ab80 "${@:2}" 2>&1 | grep GB/s | tail -1; }
if [ "${MAIN_AB:-$h200}" = 1 ]; then
echo "== main, tile forced, b 8 h 64/8: [2 splits (1 CTA per SM) | 4 (2 per SM) | rule]"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,16384,0 fp8,128,8,64,8,8,8192,0 fp8,128,8,64,8,4,32768,0 \
         fp8,128,8,64,8,8,32768,256; do
  ab $s "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_SPLITS=2" "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_SPLITS=4" "$M@FLASHC_SM90_DECODE=1"
done
echo "== main, b 16 h 64/8 64 rows 16k [1 | 2 | rule]"
ab fp8,128,16,64,8,8,16384,0 "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_SPLITS=1" "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_SPLITS=2" "$M@FLASHC_SM90_DECODE=1"
echo "== main, 17-32 rows through AUTO: [portable | rule | portable again]"
for s in fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,4,16384,0 fp8,128,8,64,8,4,32768,256 \
         fp8,128,16,64,8,4,32768,0; do
  ab $s "$M@FLASHC_SM90_DECODE=0" "$M" "$M@FLASHC_SM90_DECODE=0"
done
if [ $h200 = 1 ]; then
  echo "== main, portable tiles' interleave (tile off): [runs | interleaved | runs again]"
  for s in fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,4,16384,0 int8,128,8,64,8,4,32768,0 fp8,128,8,64,8,1,32768,0 \
           bf16,128,8,64,8,4,32768,0 fp8,128,8,64,8,4,32768,64; do
    ab $s "$M@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0" "$M@FLASHC_SM90_DECODE=0" "$M@FLASHC_SM80_SK_INTERLEAVE=0@FLASHC_SM90_DECODE=0"
  done
  echo "== main, the tile's interleave (forced): [runs | interleaved | runs again]"
  for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,16384,0 fp8,128,8,64,8,8,32768,256; do
    ab $s "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0" "$M@FLASHC_SM90_DECODE=1" "$M@FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_INTERLEAVE=0"
  done
fi
fi  # MAIN_AB
[ "${PATCHES:-1}" = 0 ] && exit 0
echo "== the solo kernel (tools/ab/sm90-decode-solo.patch)"
git apply tools/ab/sm90-decode-solo.patch 2>/dev/null || patch -p1 -s < tools/ab/sm90-decode-solo.patch ||
  { echo "solo patch does not apply"; exit 1; }
cmake --build build-gpu -j16 > build-gpu/logs/build_solo.log 2>&1 &&
  cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests2.log 2>&1 || { tail -20 build-gpu/logs/build_solo.log; exit 1; }
O=$(find build-gpu -name 'sm90_decode.cu.o' | head -1)
echo "object: QGMMA $(cuobjdump -sass "$O" | grep -c QGMMA), STL $(cuobjdump -sass "$O" | grep -c STL)"
timeout 150 build-gpu/tests/test_gpu --filter "sm90 decode" 2>&1 | grep -E "^FAIL|passed" | head -10
L=build-gpu/libflashc.so
echo "== tile forced: [main, 2 per SM | main, 1 per SM | pair, 1 per SM | solo, 1 per SM]"
for s in fp8,128,8,64,8,8,32768,0:4:2 fp8,128,8,64,8,8,16384,0:4:2 fp8,128,8,64,8,8,8192,0:4:2 fp8,128,8,64,8,5,32768,0:4:2 \
         fp8,128,8,64,8,4,32768,0:4:2 fp8,128,8,64,8,8,32768,256:4:2 fp8,128,16,64,8,8,16384,0:2:1 fp8,128,4,64,8,8,32768,0:8:4; do
  IFS=: read -r sh two one <<< "$s"
  T="FLASHC_SM90_DECODE=1@FLASHC_SM90_DEC_SPLITS"
  ab $sh "$M@$T=$two" "$M@$T=$one" "$L@$T=$one@FLASHC_SM90_DEC_SOLO=0" "$L@$T=$one@FLASHC_SM90_DEC_SOLO=1"
done
echo "== through AUTO: [main | solo patch's rule]"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,8,8192,0 fp8,128,64,32,8,8,8192,0; do
  ab $s "$M" "$L"
done
echo "== the V-rows kernel (tools/ab/sm90-decode-vrows.patch, on the solo patch)"
git apply tools/ab/sm90-decode-vrows.patch 2>/dev/null || patch -p1 -s < tools/ab/sm90-decode-vrows.patch ||
  { echo "v-rows patch does not apply"; exit 1; }
cmake --build build-gpu -j16 > build-gpu/logs/build_vr.log 2>&1 &&
  cmake --build build-gpu -j16 --target test_gpu > build-gpu/logs/build_tests3.log 2>&1 || { tail -20 build-gpu/logs/build_vr.log; exit 1; }
echo "object: QGMMA $(cuobjdump -sass "$O" | grep -c QGMMA), STL $(cuobjdump -sass "$O" | grep -c STL)"
timeout 200 build-gpu/tests/test_gpu --filter "sm90 decode" 2>&1 | grep -E "^FAIL|passed" | head -20
echo "== V in K's layout through AUTO: [portable | V-rows tile | portable again]"
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,8,16384,0 fp8,128,8,64,8,8,8192,0 fp8,128,8,64,8,5,32768,0 \
         fp8,128,8,64,8,8,32768,256 fp8,128,16,64,8,8,16384,0 fp8,128,64,32,8,8,8192,0; do
  AB_BACKEND=auto AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 "$L@FLASHC_SM90_DECODE=0" "$L" "$L@FLASHC_SM90_DECODE=0" 2>&1 | grep GB/s | tail -1
done
[ -n "${VR_SUITE:-}" ] && { scripts/gpu_suite.sh --build-dir build-gpu --part 1 > $OUT/p1.log 2>&1; grep -v never: $OUT/p1.log | tail -13; }
[ $h200 = 1 ] || exit 0
for pt in sm90-decode-vrows sm90-decode-solo; do
  git apply -R tools/ab/$pt.patch 2>/dev/null || patch -p1 -R -s < tools/ab/$pt.patch
done
git apply tools/ab/halves-bw.patch 2>/dev/null || { echo "halves-bw.patch does not apply"; exit 1; }
AB_ONLY=1 bash tools/ab/halves_bw_run.sh
L=build-gpu/libflashc.so
echo "== 16 rows on the H200 (halves-bw build): [portable, rule | tile forced | portable again]"
for s in fp8,128,8,64,8,2,32768,0 fp8,128,8,64,8,2,16384,0 fp8,128,8,32,8,4,32768,0 fp8,128,8,64,8,2,32768,256; do
  ab $s "$L" "$L@FLASHC_SM90_DECODE=1" "$L"
done
