#!/bin/bash
# bench/fresh.sh — issue 26's fresh-operand question on the GPU machine: bench/fresh.m for one
# build under the default environment, OpenMP's active wait policy (copy threads never sleep),
# and glibc's huge-page tunable (large allocations advised for transparent huge pages), two
# Octave processes each, alternating; then bench/fresh_probe.cu (the same copy without Octave).
#   source .gpu/setup.sh && bench/fresh.sh SRC_DIR_WITH_TILEMM_OCT [PROBE_BINARY]
# Environment: SIZES (default "[4096 8192]"), REPEATS (default 7).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(readlink -f "$1")
sizes=${SIZES:-"[4096 8192]"}
repeats=${REPEATS:-7}
run () {   # $1 label, then environment assignments
  local label=$1; shift
  env "$@" timeout 300 octave-cli --no-gui --norc --quiet --eval "addpath ('$src'); addpath ('$here'); fresh ('$label', $sizes, {'double', 'single'}, $repeats)" 2>&1 \
    | grep -v "^error: ignoring const execution_exception"
}
for pass in 1 2; do
  run default-$pass TILEMM_UNUSED=1
  run omp-active-$pass OMP_WAIT_POLICY=active
  run hugetlb-$pass GLIBC_TUNABLES=glibc.malloc.hugetlb=1
done
if [ $# -ge 2 ] && [ -x "$2" ]; then
  OMP_NUM_THREADS=$(nproc) "$2" 128
fi
