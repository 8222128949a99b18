#!/usr/bin/env bash
# scratch (session 57, for the next device session): the decode prototype's producer, TMA against
# the portable path's 16-byte cp.async (DEC_CP_ASYNC=1) and V^T by cp.async with K by TMA (=2),
# 128- and 256-key stages, with and without the math; checks of the new variants (odd shapes against
# fp64), then the quick bench set of each (~250 s).
P="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels -I include -I tools"
N256="-DDEC_N=256 -DDEC_CTAS_PER_SM=1"
t0=$(date +%s)
$P -o /tmp/tma128 tools/sm90_decode_proto.cu & $P -DDEC_NO_MATH -o /tmp/tma128n tools/sm90_decode_proto.cu &
$P -DDEC_CP_ASYNC=1 -o /tmp/cp128 tools/sm90_decode_proto.cu & $P -DDEC_CP_ASYNC=1 -DDEC_NO_MATH -o /tmp/cp128n tools/sm90_decode_proto.cu &
$P -DDEC_CP_ASYNC=1 $N256 -o /tmp/cp256 tools/sm90_decode_proto.cu &
$P -DDEC_CP_ASYNC=2 -o /tmp/mix128 tools/sm90_decode_proto.cu & $P -DDEC_CP_ASYNC=2 -DDEC_NO_MATH -o /tmp/mix128n tools/sm90_decode_proto.cu &
wait
for b in tma128 tma128n cp128 cp128n cp256 mix128 mix128n; do [ -x /tmp/$b ] || { echo "build of $b failed"; exit 1; }; done
echo "build $(( $(date +%s) - t0 )) s; STL in the cp128 / mix128 SASS: $(cuobjdump -sass /tmp/cp128 | grep -c STL) / $(cuobjdump -sass /tmp/mix128 | grep -c STL)"
for b in cp128 mix128 cp256; do echo "== check $b"; timeout 90 /tmp/$b check | tail -11; done
export DEC_BENCH=quick
for b in tma128 cp128 mix128 cp256 tma128n cp128n mix128n; do echo "== bench $b"; timeout 60 /tmp/$b bench | cut -c1-100; done
