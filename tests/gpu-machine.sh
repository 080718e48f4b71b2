#!/bin/bash
# tests/gpu-machine.sh — the whole test suite on the GPU machine, from the release tarball, with
# the GPU tests executed.  Run from the repository root in a device run that carries .gpu (the
# packed Octave, see shared/docs/gpu-machine.md) and the tarball (make dist):
#   source .gpu/setup.sh && tests/gpu-machine.sh tilemm-0.1.0.tar.gz
# The reference BLAS tester cannot be installed there: tools/pack-blas-tester puts it in
# .gpu/blas-test, and XBLAT3_DIR=$PWD/.gpu/blas-test TILEMM_XBLAT3_REQUIRE_GPU=1 in front of the
# command makes tests/xblat3.sh run it on the GPU backend (and count a missing GPU as a failure).
# Logs go to $OUT (or /tmp/tilemm-gpu-out); the last line sums the counts like tests/run-all.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=${OUT:-/tmp/tilemm-gpu-out}
mkdir -p "$out"
work=${WORK:-/tmp/tilemm-gpu}
rm -rf "$work"; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
tar -C "$work" -xzf "$tarball" || exit 1
cd "$work"/tilemm-* || exit 1
echo "== configure"; ./configure > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
tail -6 "$out/configure.log"
echo "== make"; make -j"$(nproc)" > "$out/make.log" 2>&1 || { tail -30 "$out/make.log"; exit 1; }
echo "== make check"; make -j1 check > "$out/check.log" 2>&1
cp tests/*.log "$out/" 2>/dev/null
echo "== Ctrl-C during a GPU product"
TILEMM_BUILDDIR=$PWD TILEMM_INTERRUPT_BACKEND=gpu tests/interrupt.sh > tests/interrupt-gpu.log 2>&1
cp tests/interrupt-gpu.log "$out/"
tests/sum-counts tests/c-tests.sh.log tests/valgrind.sh.log tests/xblat3.sh.log tests/bist.sh.log \
  tests/interrupt.sh.log tests/interrupt-gpu.log tests/installed.sh.log
