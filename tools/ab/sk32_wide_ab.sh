#!/usr/bin/env bash
# Wide 32-row split-key tile A/B on one library (the rule against dev hook FLASHC_SM80_SK32_WIDE=0):
#   tools/ab/sk32_wide_ab.sh LIB [LOG]
# ab80 per shape (V^T, AB_CHECK=2: elements differing from the 4-warp tile's output and the largest
# difference): the 4-warp 32-row tile (two CTAs per SM, FLASHC_SM80_SK32_WIDE=0) | the rule (int8
# 17-32 rows: the wide 32-row tile, one CTA per SM) | the 4-warp tile again (the noise). Shapes:
# int8 h 64/8 s_q 3-4 where the 32-row tile runs (b 8 32k / 16k, b 16 16k / 8k, b 32 8k), then
# shapes the rule leaves alone (fp8, 64 rows, pages of 256).
set -u
LIB=${1:?usage: tools/ab/sk32_wide_ab.sh LIB [LOG]}
LOG=${2:-${OUT:-/tmp}/sk32_wide_ab.log}
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 \
    -lcudart -ldl -lm || exit 1
{
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for s in int8,128,8,64,8,4,32768,0 int8,128,8,64,8,3,32768,0 int8,128,8,64,8,4,16384,0 \
           int8,128,16,64,8,4,16384,0 int8,128,16,64,8,4,8192,0 int8,128,32,64,8,4,8192,0 \
           fp8,128,8,64,8,4,32768,0 int8,128,32,64,8,8,8192,0 int8,128,8,64,8,4,32768,256; do
    echo "== $s  [SK32_WIDE=0 | rule | SK32_WIDE=0]"
    AB_CHECK=2 AB_VT=1 AB_SHAPES=one AB_ONE=$s LD_LIBRARY_PATH=/usr/local/cuda/lib64 /tmp/ab80 "$LIB@FLASHC_SM80_SK32_WIDE=0" \
        "$LIB" "$LIB@FLASHC_SM80_SK32_WIDE=0" 2>&1 | grep -v '^lib [0-9]:' | tail -3
  done
} > "$LOG" 2>&1
cat "$LOG"
