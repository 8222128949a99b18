#!/usr/bin/env bash
# Row halves A/B on one library with tools/ab/row-halves.patch applied (dev hook FLASHC_SM80_ROW_HALVES):
#   tools/ab/row_halves_ab.sh LIB [LOG]
# ab80 (tools/ab80.c, built here with gcc against /usr/local/cuda), per shape: hook 0 (the rule before
# row halves) | unset (the rule) | 1 (row halves on every grid the wide tile holds). Shapes: d128
# b 8 h 64/8 (one wave of pairs on 132 SMs) fp8 / int8, V^T / V rows, s_q 1-2, 4k-32k, pages of 256;
# s_q 4 (32 rows: not row halves) and b 64 h 32/8 4k (two waves: the rule leaves it) as guards;
# then the wide pair of 17-32 rows against the 4-warp pair, split and unsplit.
# Session 53's H100 run: bench/results/2026-12-05-h100-row-halves-ab.txt.
set -u
LIB=${1:?usage: tools/ab/row_halves_ab.sh LIB [LOG]}
LOG=${2:-${OUT:-/tmp}/row_halves_ab.log}
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 \
    -lcudart -ldl -lm || exit 1
run() { # VT "dtype,d,b,h_q,h_kv,s_q,s_k,page"
  echo "== VT=$1 $2  [ROW_HALVES=0 | rule | ROW_HALVES=1]"
  AB_VT=$1 AB_SHAPES=one AB_ONE=$2 LD_LIBRARY_PATH=/usr/local/cuda/lib64 /tmp/ab80 "$LIB@FLASHC_SM80_ROW_HALVES=0" \
      "$LIB" "$LIB@FLASHC_SM80_ROW_HALVES=1" 2>&1 | grep -v '^lib [0-9]:' | tail -1
}
{
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for s in fp8,128,8,64,8,1,4096,0 fp8,128,8,64,8,2,4096,0 int8,128,8,64,8,1,4096,0 fp8,128,8,64,8,1,8192,0 \
           fp8,128,8,64,8,1,12288,0 fp8,128,8,64,8,1,16384,0 fp8,128,8,64,8,1,32768,0 fp8,128,8,64,8,1,4096,256 \
           int8,128,8,64,8,1,32768,256 fp8,128,8,64,8,4,4096,0 fp8,128,64,32,8,1,4096,0; do
    run 1 "$s"
  done
  for s in fp8,128,8,64,8,1,4096,0 int8,128,8,64,8,2,4096,0 fp8,128,8,64,8,1,32768,0; do run 0 "$s"; done
  # session 50's open lead: is the wide pair's gain its one unsplit wave? The 4-warp pair (wide tile
  # off) in the rule's two key splits | unsplit at one CTA per SM | the wide pair (the rule).
  # If the unsplit 4-warp pair gains as much, sm_89 (no wide tile) could take the same rule.
  for s in fp8,128,8,64,8,4,4096,0 int8,128,8,64,8,3,4096,0 fp8,128,8,64,8,4,8192,0; do
    echo "== VT=1 $s  [SK_WIDE=0 | SK_WIDE=0 SPLITS=1 SPLIT_CTAS_PER_SM=1 | rule]"
    AB_VT=1 AB_SHAPES=one AB_ONE=$s LD_LIBRARY_PATH=/usr/local/cuda/lib64 /tmp/ab80 "$LIB@FLASHC_SM80_SK_WIDE=0" \
        "$LIB@FLASHC_SM80_SK_WIDE=0@FLASHC_SM80_SPLITS=1@FLASHC_SM80_SPLIT_CTAS_PER_SM=1" "$LIB" 2>&1 |
        grep -v '^lib [0-9]:' | tail -1
  done
} > "$LOG" 2>&1
cat "$LOG"
