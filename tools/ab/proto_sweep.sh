#!/usr/bin/env bash
# scratch (session 57): why the fp8 decode prototype streams at 2.2 TB/s where the portable path
# reaches 2.85 (H100): the TMA stream alone (DEC_NO_MATH), L2 promotion, the loads' L2 hint, splits.
P="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels -I include -I tools"
$P -o /tmp/pd tools/sm90_decode_proto.cu && $P -DDEC_NO_MATH -o /tmp/pn tools/sm90_decode_proto.cu || exit 1
export DEC_BENCH=quick
run() { echo "== $*"; env "$@" timeout 60 /tmp/pd bench | cut -c1-75; }
echo "== no math"; timeout 60 /tmp/pn bench | cut -c1-75
run DEC_PROMO=3
run DEC_PROMO=0
run DEC_PROMO=2
run DEC_POLICY=normal
run DEC_PROMO=0 DEC_POLICY=normal
run DEC_SPLITS=8
run DEC_SPLITS=2
echo "== no math, promo 0"; DEC_PROMO=0 timeout 60 /tmp/pn bench | cut -c1-75
