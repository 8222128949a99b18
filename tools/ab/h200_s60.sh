#!/usr/bin/env bash
# scratch (session 60): only on an H200 (else exits at once, ~25 s of device start): the decode
# tile's consumer patch A/B (dec_consumer_ab.sh, no suite: it passed on the H100), then the two
# open H200 questions (h200_questions.sh), ~400 s on a fresh machine. Before the call, locally:
#   git checkout -b s61 && git am tools/ab/sm90-decode-consumer.patch
#   mkdir -p .carry && git show main:kernels/sm90/sm90_decode.cu > .carry/sm90_decode_main.cu
# and run with carry [".carry"].
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in *H200*) ;; *) echo "$name: not an H200, nothing run"; exit 0 ;; esac
bash tools/ab/dec_consumer_ab.sh
bash tools/ab/h200_questions.sh
