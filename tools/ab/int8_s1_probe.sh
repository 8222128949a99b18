#!/usr/bin/env bash
# scratch (session 55): int8 b 8 h 64/8 32k s_q 1 reads 3.0 TB/s on the H200 (fp8 3.84): row halves?
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
t0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFLASHC_SM80_ARCHS="$cc" > /dev/null 2>&1 &&
  cmake --build build-gpu -j16 --target flashc > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
gcc -O2 -std=c11 -o /tmp/ab80 tools/ab80.c -I include -I /usr/local/cuda/include -L /usr/local/cuda/lib64 -lcudart -ldl -lm || exit 1
L=build-gpu/libflashc.so
for s in int8,128,8,64,8,1,32768,0 fp8,128,8,64,8,1,32768,0 int8,128,8,64,8,2,32768,0 int8,128,8,64,8,1,16384,0 \
         int8,128,8,64,8,1,8192,0 int8,128,8,64,8,1,4096,0 int8,128,16,64,8,1,32768,0; do
  echo "== $s [ROW_HALVES=0 | rule | ROW_HALVES=0 SK_WIDE=0 | SPLITS=2]"
  AB_VT=1 AB_SHAPES=one AB_ONE=$s LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 60 /tmp/ab80 "$L@FLASHC_SM80_ROW_HALVES=0" "$L" \
    "$L@FLASHC_SM80_ROW_HALVES=0@FLASHC_SM80_SK_WIDE=0" "$L@FLASHC_SM80_SPLITS=2" 2>&1 | grep -v '^lib [0-9]:' | tail -2
done | tee $OUT/probe.txt
