#!/bin/sh
# tests/bench-build.sh — every benchmark program under bench/ compiled and linked from this tree
# (bench/build-all.sh: the kernel and emulated benchmarks with their test programs, the profiler's
# build, the standalone programs), nothing run: CI has nvcc and no GPU, and a change that breaks
# a benchmark must be red there, not found on the GPU machine.  Each program counts as one test;
# one without nvcc (or mkoctfile, or a BLAS to link) is skipped with the reason.  For sm_90 only
# (ARCH), as the GPU machine's runs build them.  A few minutes: the kernels compile once.
# Ends its log with "bench_build: N passed, N failed, N skipped".
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TILEMM_SRCDIR:-$top}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
out=$(BUILD=$build "$tree/bench/build-all.sh" 2>&1)
echo "$out"
passed=$(echo "$out" | grep -c '^built ')
failed=$(echo "$out" | grep -c '^FAILED ')
skipped=$(echo "$out" | grep -c '^skipped ')
echo "$out" | grep '^FAILED ' | sed 's/^FAILED /FAIL: bench_build: /'
echo "$out" | grep '^skipped ' | sed 's/^skipped /SKIP: bench_build: /'
if [ $((passed + failed + skipped)) = 0 ]; then
  echo "FAIL: bench_build: bench/build-all.sh reported no program"
  failed=1
fi
echo "bench_build: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
[ "$passed" = 0 ] && exit 77
exit 0
