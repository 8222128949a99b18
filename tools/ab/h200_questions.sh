#!/usr/bin/env bash
# scratch (session 59): the two open H200 questions in one call, and nothing on another GPU (their
# answers are the H200's bandwidth): where the Hopper fp8 decode tile should start (dec_rows_ab.sh,
# 16-64 rows, without ncu), then the halves-bw rule's A/B (tools/ab/halves-bw.patch applied to this
# copy of the tree, incremental rebuild). ~250 s on a fresh machine.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in *H200*) ;; *) echo "$name: not an H200, nothing run"; exit 0 ;; esac
NO_NCU=1 bash tools/ab/dec_rows_ab.sh
git apply tools/ab/halves-bw.patch || { echo "halves-bw.patch does not apply"; exit 1; }
AB_ONLY=1 bash tools/ab/halves_bw_run.sh
