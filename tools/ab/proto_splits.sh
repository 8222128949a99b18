#!/usr/bin/env bash
# scratch (session 58): the decode prototype's stream at b 8 h 64/8 32k against its key-split count
# (4 = one wave of 2 CTAs per SM; 8-32: more, shorter CTAs), TMA and consumer cp.async producers,
# with and without the math.
P="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels -I include -I tools"
nvidia-smi --query-gpu=name --format=csv,noheader
$P -o /tmp/tma128 tools/sm90_decode_proto.cu & $P -DDEC_NO_MATH -o /tmp/tma128n tools/sm90_decode_proto.cu &
$P -DDEC_CP_ASYNC=3 -o /tmp/cp3 tools/sm90_decode_proto.cu & $P -DDEC_CP_ASYNC=3 -DDEC_NO_MATH -o /tmp/cp3n tools/sm90_decode_proto.cu &
wait
export DEC_BENCH=long DEC_SPLIT_LIST=4,8,16,32
for b in tma128 cp3 tma128n cp3n; do echo "== $b"; timeout 100 /tmp/$b bench | cut -c1-100; done
echo "== quick, cp3 at 2 / 4 / 8 splits"; DEC_BENCH=quick DEC_SPLIT_LIST=2,4,8 timeout 60 /tmp/cp3 bench | cut -c1-100
