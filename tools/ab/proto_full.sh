#!/usr/bin/env bash
# scratch (session 58): the decode prototype's producers (TMA; the consumers' own cp.async,
# DEC_CP_ASYNC=3) on the full shape set beside the portable path (ab80, fp8 V^T), one machine.
P="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels -I include -I tools"
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
( . tools/ab/build_gpu.sh ) > $OUT/libbuild.txt 2>&1 &
lib=$!
$P -o /tmp/tma128 tools/sm90_decode_proto.cu 2>/dev/null & p1=$!
$P -DDEC_CP_ASYNC=3 -o /tmp/cp3 tools/sm90_decode_proto.cu 2>/dev/null & p2=$!
wait $p1 $p2
for b in cp3 tma128; do echo "== $b"; timeout 150 /tmp/$b bench | cut -c1-100; done
wait $lib; cat $OUT/libbuild.txt
[ -f build-gpu/libflashc.so ] || exit 1
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
echo "== portable path, same shapes (lib | lib)"
for s in fp8,128,8,64,8,1,4096,0 fp8,128,8,64,8,4,4096,0 fp8,128,8,64,8,1,32768,0 fp8,128,8,64,8,4,32768,0 \
         fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,4,16384,0 fp8,128,16,64,8,4,16384,0 fp8,128,64,32,8,1,4096,0 \
         fp8,128,64,32,8,4,4096,0 fp8,128,8,64,8,2,32768,0 fp8,128,8,64,8,8,16384,0 fp8,128,64,32,8,8,4096,0; do
  AB_VT=1 AB_SHAPES=one AB_ONE=$s LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 60 /tmp/ab80 "$L" "$L" 2>&1 | grep GB/s | tail -1
done
echo "total $(( $(date +%s) - t0 )) s"
