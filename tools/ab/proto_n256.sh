#!/usr/bin/env bash
# scratch (session 57): 256-key stages (two adjacent 128-byte runs of each V^T row per stage, one
# CTA per SM, 255 registers) against the 128-key tile, L2 promotion off; with and without the math.
P="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels -I include -I tools"
N256="-DDEC_N=256 -DDEC_CTAS_PER_SM=1"
$P -o /tmp/p128 tools/sm90_decode_proto.cu & $P $N256 -o /tmp/p256 tools/sm90_decode_proto.cu &
$P $N256 -DDEC_NO_MATH -o /tmp/p256n tools/sm90_decode_proto.cu & wait
export DEC_BENCH=quick DEC_PROMO=0
for b in p128 p256 p256n; do echo "== $b"; timeout 50 /tmp/$b bench | cut -c1-100; done
