#!/usr/bin/env bash
# scratch (session 58): the decode prototype with the consumers' own cp.async loads (DEC_CP_ASYNC=3,
# the portable path's pipeline shape under QGMMA math) against the TMA producer: build the variants
# and the library (portable path, for ab80) side by side, check, quick bench, then the full shape
# set of the best beside the portable path. On an H200, afterwards: the halves-bw A/B (AB_ONLY).
P="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels -I include -I tools"
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
( . tools/ab/build_gpu.sh ) > $OUT/libbuild.txt 2>&1 &
lib=$!
$P -o /tmp/tma128 tools/sm90_decode_proto.cu & $P -DDEC_NO_MATH -o /tmp/tma128n tools/sm90_decode_proto.cu &
$P -DDEC_CP_ASYNC=3 -o /tmp/cp3 tools/sm90_decode_proto.cu & $P -DDEC_CP_ASYNC=3 -DDEC_NO_MATH -o /tmp/cp3n tools/sm90_decode_proto.cu &
$P -DDEC_CP_ASYNC=3 -DDEC_L2_PREFETCH=1 -o /tmp/cp3p tools/sm90_decode_proto.cu &
$P -DDEC_CP_ASYNC=3 -DDEC_STAGES=4 -DDEC_CTAS_PER_SM=1 -o /tmp/cp3s4 tools/sm90_decode_proto.cu &
$P -DDEC_CP_ASYNC=3 -DDEC_STAGES=4 -DDEC_CTAS_PER_SM=1 -DDEC_NO_MATH -o /tmp/cp3s4n tools/sm90_decode_proto.cu &
wait $(jobs -p | grep -v "^$lib$") 2>/dev/null
for b in tma128 tma128n cp3 cp3n cp3p cp3s4 cp3s4n; do [ -x /tmp/$b ] || { echo "build of $b failed"; exit 1; }; done
echo "proto builds $(( $(date +%s) - t0 )) s; STL in cp3 / cp3s4: $(cuobjdump -sass /tmp/cp3 | grep -c STL) / $(cuobjdump -sass /tmp/cp3s4 | grep -c STL); QGMMA in cp3: $(cuobjdump -sass /tmp/cp3 | grep -c QGMMA)"
for b in cp3 cp3p cp3s4; do echo "== check $b"; timeout 90 /tmp/$b check | tail -11; done
export DEC_BENCH=quick
for b in tma128 cp3 cp3p cp3s4 tma128n cp3n cp3s4n; do echo "== bench $b"; timeout 60 /tmp/$b bench | cut -c1-100; done
unset DEC_BENCH
wait $lib; cat $OUT/libbuild.txt
for b in cp3 cp3s4; do echo "== full bench $b"; timeout 120 /tmp/$b bench | cut -c1-100; done
[ -f build-gpu/libflashc.so ] || exit 0
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
echo "== portable path, same shapes (lib | lib)"
for s in fp8,128,8,64,8,1,4096,0 fp8,128,8,64,8,4,4096,0 fp8,128,8,64,8,1,32768,0 fp8,128,8,64,8,4,32768,0 \
         fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,4,16384,0 fp8,128,16,64,8,4,16384,0 fp8,128,64,32,8,1,4096,0 \
         fp8,128,64,32,8,4,4096,0; do
  AB_VT=1 AB_SHAPES=one AB_ONE=$s LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 60 /tmp/ab80 "$L" "$L" 2>&1 | grep GB/s | tail -1
done
echo "total $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 0
echo "== H200: halves-bw A/B"
git apply tools/ab/halves-bw.patch || patch -p1 < tools/ab/halves-bw.patch || exit 1
AB_ONLY=1 bash tools/ab/halves_bw_run.sh
