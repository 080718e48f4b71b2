#!/bin/sh
# tests/emulated-host.sh — the GPU side of the emulated precision (src/cuda/emulated_scheme.cu and
# tests/test_emulated_cuda.cu) built against tests/emu's host emulation of CUDA (the int8 mma.sync
# and ldmatrix per their PTX fragment layouts) under ASan + UBSan, and its cases of A's work kept
# between panels run there (TILEMM_TEST_KEPT_ONLY): so that the build the GPU runs keeps compiling
# and its data-dependent cases keep their data on a machine with no GPU.  The whole program under
# the emulation is tests/emu/run-emulated.sh without the variable (minutes).  Prints
# "emulated_host: N passed, N failed, N skipped".
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
srcdir=${TILEMM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
if ! command -v g++ > /dev/null 2>&1; then
  echo "SKIP: no g++"
  echo "emulated_host: 0 passed, 0 failed, 1 skipped"
  exit 0
fi
build=${TMPDIR:-/tmp}/tilemm-emulated-host.$$
trap 'rm -rf "$build"' EXIT
if ! BUILD="$build" BUILD_ONLY=1 bash "$srcdir/tests/emu/run-emulated.sh" > "$build.log" 2>&1; then
  tail -n 30 "$build.log"; rm -f "$build.log"
  echo "emulated_host: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
rm -f "$build.log"
out=$(TILEMM_TEST_KEPT_ONLY=1 ASAN_OPTIONS=detect_stack_use_after_return=0 "$build/test_emulated_cuda" 2>&1)
status=$?
echo "$out" | grep -v "ASan doesn't fully support"
last=$(echo "$out" | grep "^test_emulated_cuda: [0-9]* passed" | tail -n 1)
if [ -z "$last" ]; then
  echo "emulated_host: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
echo "$last" | sed 's/^test_emulated_cuda:/emulated_host:/'
exit $status
