#!/bin/bash
# bench/blas_device.sh — one unattended device call for bench/blas_octave.sh: builds src/'s
# libtilemm_blas.so (and tilemm.oct) for the H100/H200 where this tree has none yet (a warm
# machine keeps the build between calls), then runs the parts asked, writing the log under $OUT.
#   source .gpu/setup.sh && bench/blas_device.sh sweep            # ~1.5 min (+ ~2-4 min build)
#   source .gpu/setup.sh && bench/blas_device.sh hugetlb          # ~4 min
# PARTS are bench/blas_octave.sh's (sweep, hugetlb, plain, nvblas, tilemm, split); the rest of
# its environment passes through (SWEEP_SIZES, HUGETLB_SIZES, REPEATS, ...).  The build log is
# $OUT/blas_device-build.txt; a failed build ends the call with its last lines.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp}
mkdir -p "$out"
[ $# -gt 0 ] || { echo "usage: bench/blas_device.sh PART..."; exit 2; }
command -v octave-cli > /dev/null || { echo "blas_device.sh: no octave-cli (source .gpu/setup.sh first)"; exit 1; }
if [ ! -f "$root/src/libtilemm_blas.so" ]; then
  echo "blas_device.sh: building src/ ($(nproc) cores)"
  start=$(date +%s)
  if ! (cd "$root/src" && { [ -x configure ] || autoreconf -fi; } && ./configure --with-cuda-arch=90 \
        && make -j"$(nproc)" libtilemm_blas.so tilemm.oct) > "$out/blas_device-build.txt" 2>&1; then
    echo "blas_device.sh: the build failed:"; tail -n 20 "$out/blas_device-build.txt"; exit 1
  fi
  echo "blas_device.sh: built in $(( $(date +%s) - start )) s"
fi
OUT=$out PARTS="$*" exec bash "$root/bench/blas_octave.sh" "$root/src"
