#!/usr/bin/env bash
# scratch (session 59): where the Hopper fp8 decode tile should start. A/B of the portable tiles
# against the tile forced (FLASHC_SM90_DECODE=0 | =1, through AUTO) at 16-64 packed rows, then
# Nsight Compute on both at 32 and 64 rows (why the tile streams below the portable tiles on the
# H100). Needs ~80 s of build on a fresh machine.
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
[ -e build-gpu/libflashc.so ] && [ -n "${NCU_ONLY:-}" ] || . tools/ab/build_gpu.sh
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
[ -n "${NCU_ONLY:-}" ] || { echo "== A/B auto backend, GB/s of K+V read: [FLASHC_SM90_DECODE=0 (portable) | =1 (tile forced)]"
for s in fp8,128,8,64,8,2,32768,0 fp8,128,8,64,8,3,32768,0 fp8,128,8,64,8,4,32768,0 fp8,128,8,64,8,4,16384,0 \
         fp8,128,8,64,8,4,8192,0 fp8,128,8,64,8,4,4096,0 fp8,128,8,32,8,8,32768,0 fp8,128,64,32,8,4,8192,0 \
         fp8,128,64,32,8,8,8192,0 fp8,128,8,64,8,4,32768,256 fp8,128,8,64,8,8,32768,0; do
  AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$s timeout 60 /tmp/ab80 \
    "$L@FLASHC_SM90_DECODE=0" "$L@FLASHC_SM90_DECODE=1" 2>&1 | grep GB/s | tail -1
done; }
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
[ -n "$NCU" ] || { echo "no ncu"; exit 0; }
[ -z "${NO_NCU:-}" ] || exit 0
n=0
for s in fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,4,32768,0; do
  n=$((n + 1))
  echo "== ncu $s (portable launches first, then the tile's)"
  AB_BACKEND=auto AB_VT=1 AB_SHAPES=one AB_ONE=$s timeout 200 "$NCU" --kernel-name-base function \
    -k regex:'fwd_e4m3|sm90_dec_kernel' --launch-count 6 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section Occupancy --section LaunchStats /tmp/ab80 \
    "$L@FLASHC_SM90_DECODE=0" "$L@FLASHC_SM90_DECODE=1" > $OUT/ncu_$n.txt 2>&1
  grep -E "^  [a-z_0-9]+_kernel|^  flashc_|^  sm90_dec|Duration|DRAM Throughput|Memory Throughput|L2 Hit Rate|L1/TEX Hit|Compute \(SM\) Throughput|Achieved Occupancy|Warp Cycles Per Issued|Registers Per|Grid Size|Block Size|Waves Per SM" $OUT/ncu_$n.txt > /tmp/ncu_lines.txt
  if [ -s /tmp/ncu_lines.txt ]; then head -70 /tmp/ncu_lines.txt; else tail -20 $OUT/ncu_$n.txt; fi
done
