#!/usr/bin/env bash
# scratch (session 55): build, A/B of the int8 wide 32-row tile against FLASHC_SM80_SK32_WIDE=0, then
# the GPU suite on the same build (the rule under test is on by default): part 1, flashc_bench's int8
# decode set with the rule and with FLASHC_SM80_SK32_WIDE=0, part 2
. tools/ab/build_gpu.sh
t0=$(date +%s)
tools/ab/sk32_wide_ab.sh build-gpu/libflashc.so $OUT/ab.txt > /dev/null; cat $OUT/ab.txt
echo "A/B $(( $(date +%s) - t0 )) s"
[ -n "${AB_ONLY:-}" ] && exit 0 # AB_ONLY=1: build and A/B only
# the suite only where the wide tile wins the shapes it is for: the mean of the rule column's
# change over the first three (int8 b 8 32k s_q 4 / 3, 16k s_q 4) at least +1.5 %
gain=$(grep "GB/s" $OUT/ab.txt | head -3 | awk -F'|' '{split($3, a, " "); g += a[3] + 0} END {printf "%.2f", g / NR}')
echo "mean gain over the target shapes: $gain %"
awk -v g="$gain" 'BEGIN {exit !(g >= 1.5)}' || { echo "A/B lost: suite skipped"; exit 0; }
scripts/gpu_suite.sh --build-dir build-gpu --part 1 > $OUT/p1.log 2>&1; grep -v never: $OUT/p1.log | tail -13
mv $OUT/logs.tar.gz $OUT/logs-p1.tar.gz 2>/dev/null
for w in rule 0; do
  [ $w = 0 ] && export FLASHC_SM80_SK32_WIDE=0
  build-gpu/bench/flashc_bench --set decode --dtype int8 --vt 1 > $OUT/bench-int8-$w.txt 2>&1
done
unset FLASHC_SM80_SK32_WIDE
for w in rule 0; do echo "-- int8 decode, FLASHC_SM80_SK32_WIDE: $w"; grep "h=64/8" $OUT/bench-int8-$w.txt; done
scripts/gpu_suite.sh --build-dir build-gpu --part 2 > $OUT/p2.log 2>&1; tail -8 $OUT/p2.log
