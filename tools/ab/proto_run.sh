#!/usr/bin/env bash
# scratch (session 56): the Hopper fp8 decode prototype (tools/sm90_decode_proto.cu): build, check
# (odd shapes against fp64), bench; then, where build-gpu/libflashc.so exists (after
# halves_bw_run.sh on the same warm machine), the portable path on the same shapes (ab80, fp8 V^T).
t0=$(date +%s)
# PROTO_FLAGS: the variant's -D flags (e.g. -DDEC_CP_ASYNC=1).
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels -I include -I tools -Xptxas -v $PROTO_FLAGS \
  -o /tmp/sm90_decode_proto tools/sm90_decode_proto.cu > $OUT/proto-build.log 2>&1 || { tail -20 $OUT/proto-build.log; exit 1; }
grep -A2 "dec_kernel" $OUT/proto-build.log | grep -E "registers|spill"
echo "build $(( $(date +%s) - t0 )) s"
cuobjdump -sass /tmp/sm90_decode_proto | grep -cE "QGMMA" | sed 's/^/QGMMA in SASS: /'
timeout 120 /tmp/sm90_decode_proto check | tee $OUT/proto-check.txt | tail -12
timeout 240 /tmp/sm90_decode_proto bench | tee $OUT/proto-bench.txt
[ -f build-gpu/libflashc.so ] || exit 0
[ -x /tmp/ab80 ] || gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm
L=build-gpu/libflashc.so
for s in fp8,128,8,64,8,1,4096,0 fp8,128,8,64,8,4,4096,0 fp8,128,8,64,8,1,32768,0 fp8,128,8,64,8,4,32768,0 \
         fp8,128,8,64,8,8,32768,0 fp8,128,8,64,8,4,16384,0 fp8,128,16,64,8,4,16384,0 fp8,128,64,32,8,1,4096,0 \
         fp8,128,64,32,8,4,4096,0; do
  AB_VT=1 AB_SHAPES=one AB_ONE=$s LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 60 /tmp/ab80 "$L" "$L" 2>&1 | grep GB/s | tail -1
done | tee $OUT/proto-portable.txt
