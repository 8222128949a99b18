#!/usr/bin/env bash
# scratch (session 64): one call for an H200 with little device time left. s63_h200.sh's A/B
# (H200_ONLY: on an H100 the call ends at once), then main rebuilt and the 8-bit decode sets of
# flashc_bench, each in its own process as run_all.sh runs them (the rows every change since the
# last full run touched), while the call is under LIMIT seconds (default 330); logs and JSON to $OUT.
T0=$(date +%s)
LIMIT=${LIMIT:-330}
H200_ONLY=1 GUARD=${GUARD:-200} bash tools/ab/s63_h200.sh || exit 1
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in *H200*) ;; *) exit 0 ;; esac
cmake --build build-gpu -j16 > build-gpu/logs/build_main2.log 2>&1 || { tail -20 build-gpu/logs/build_main2.log; exit 1; }
stem=$(date -u +%Y-%m-%d)-h200
for run in decode:fp8:auto decode:fp8:1 paged:fp8:auto decode:int8:auto paged:fp8:1; do
  IFS=: read -r set dt vt <<< "$run"
  left=$(( LIMIT - ($(date +%s) - T0) ))
  [ $left -gt 40 ] || { echo "-- stop: $run skipped"; continue; }
  timeout $left build-gpu/bench/flashc_bench --set $set --dtype $dt --vt $vt --json $OUT/$stem-$set-$dt-vt$vt.json \
    > $OUT/$stem-$set-$dt-vt$vt.txt 2>&1
  echo "flashc_bench --set $set --dtype $dt --vt $vt exit $? at $(( $(date +%s) - T0 )) s"
  grep -E "GB/s|TB/s" $OUT/$stem-$set-$dt-vt$vt.txt | tail -40
done
echo "total $(( $(date +%s) - T0 )) s"
