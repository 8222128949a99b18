#!/usr/bin/env bash
# scratch (session 59, for an H200): is the decode tile's ~3.5 TB/s on the H200 its K / V^T stream
# or its consumer's math? The retired prototype (commit 1908593, the tile's twin) in three builds:
# as is, -DDEC_NO_MATH (the load stream alone) and -DDEC_NO_LOAD (the consumers' math alone on
# whatever the ring holds: the producer arrives without loading; added here), timed on its bench
# set (b 8 h 64/8 4k-32k s_q 1-8, b 16, b 64 h 32/8) with both L2 policies.
# Before the call, on the local machine:
#   mkdir -p .carry && git show 1908593:tools/sm90_decode_proto.cu > .carry/proto.cu
# and run with carry [".carry"]. Outputs of the no-math / no-load builds are wrong by design.
# POLICIES="first normal" for both L2 policies (session 60: both overran a 400 s call on an H100).
nvidia-smi --query-gpu=name --format=csv,noheader
[ -f .carry/proto.cu ] || { echo "no .carry/proto.cu"; exit 1; }
python3 - <<'PY'
s = open('.carry/proto.cu').read()
a = "        mbarrier_arrive_expect_tx(full, DEC_STAGE_BYTES);"
b = "        for (int pn = 0; pn < DEC_PANELS; ++pn) /* adjacent 128-byte runs of each V^T row, back to back */"
assert a in s and b in s
# DEC_NO_LOAD: the producer hands each stage over without moving a byte (the ring keeps its stale
# contents), so the consumers' barriers and code are as built and only the math is timed
s = s.replace(a, "#ifdef DEC_NO_LOAD\n        mbarrier_arrive(full);\n        continue;\n#endif\n" + a)
open('/tmp/proto.cu', 'w').write(s)
PY
for v in "" -DDEC_NO_MATH -DDEC_NO_LOAD; do
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels -I include -I tools $v \
    -o /tmp/proto$v /tmp/proto.cu > /tmp/proto$v.log 2>&1 || { tail -5 /tmp/proto$v.log; exit 1; }
done
for pol in ${POLICIES:-first}; do
  for v in "" -DDEC_NO_MATH -DDEC_NO_LOAD; do
    echo "== ${v:-full} DEC_POLICY=$pol"
    DEC_POLICY=$pol timeout 100 /tmp/proto$v bench 2>&1 | grep -E "GB/s" | sed 's/(batch 0.*//'
  done
done
