#!/bin/sh
# tests/blas-fallback.sh — libtilemm_blas.so's products when the GPU fails or is not there:
# tests/test_blas's products (?gemm_, ?syrk_, ?herk_ against a long-double reference) with
# TILEMM_BLAS_BACKEND=gpu
#   - test_blas_mock: the library's objects over the stand-in CUDA runtime (tests/mock_cuda), no
#     next BLAS: every product runs the GPU path there (transposed ones through the stand-in's
#     device transpose), silently; with TILEMM_FAULT=memcpy:2 and launch:1 every GPU product
#     fails part way, and each failure must be computed again by tilemm's CPU backend, with
#     exactly one line on stderr for the whole run;
#   - test_blas_devices: the same objects on three stand-in GPUs (MOCK_CUDA_DEVICES=3): products
#     over the devices TILEMM_DEVICES names bitwise GPU 0's, a GPU failing part way computed
#     again by the CPU backend;
#   - test_blas_next: the library with the reference BLAS preloaded after it (its next BLAS):
#     without a GPU (this machine) every product is a device failure handed to the reference
#     dgemm_, dsyrk_, ... with beta and all; with TILEMM_BLAS_BACKEND=auto, the products the GPU
#     does not pay for are delegated there;
#   - test_blas_auto: the same objects with TILEMM_BLAS_BACKEND=auto, products on either side
#     of the crossovers: the plain product of 512 on the stand-in GPU, the rank-k update (dsyrk_,
#     zherk_) of the same size on the host, larger ones on the GPU (read from the trace);
#   - test_blas_precision: TILEMM_PRECISION (tilemm (A, B)'s) set to a bad value changes nothing:
#     silent, right products (the library is native).
# Each run prints "NAME: N passed, N failed, N skipped".
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
builddir=$(cd "${TILEMM_BUILDDIR:-.}" && pwd)
src="$builddir/src"
# The library's mechanics on the built-in model: which side a product takes must not follow the
# stand-in GPU's or this machine's measured speed (test_blas's check.h turns calibration off;
# tests/test_facts.c tests that decisions follow measured facts).
status=0
err=$(mktemp)

# $1 name, $2 most lines allowed on stderr, then the command with its environment.
run () {
  name=$1 most=$2; shift 2
  env TEST_BLAS_QUICK=1 "$@" "$name" 2> "$err"
  code=$?
  said=$(grep -c . "$err")
  if [ "$code" != 0 ]; then
    echo "FAIL: $name: exit status $code"; sed 's/^/    /' "$err" | head -n 5
    echo "$name-stderr: 0 passed, 1 failed, 0 skipped"; status=1
  elif [ "$said" -gt "$most" ] || { [ "$most" = 1 ] && ! grep -q '^tilemm_blas: .* instead (said once)$' "$err"; }; then
    echo "FAIL: $name: stderr has $said lines, want $most:"; sed 's/^/    /' "$err" | head -n 5
    echo "$name-stderr: 0 passed, 1 failed, 0 skipped"; status=1
  else
    echo "$name: stderr: $(head -n 1 "$err")"
  fi
}

if [ -x "$src/test_blas_mock" ]; then
  # (small staging buffers: the stand-in's pinned allocations are plain memory it clears)
  for fault in none memcpy:2 launch:1; do
    f=$fault lines=1; [ "$fault" = none ] && f= lines=0
    run "test_blas_mock_${fault%%:*}" "$lines" TILEMM_STAGING_KB=64 TILEMM_FAULT="$f" \
      TILEMM_BLAS_BACKEND=gpu "$src/test_blas_mock"
  done
  # Three stand-in GPUs: the library's products over the devices TILEMM_DEVICES names, bitwise
  # GPU 0's; one failing part way computed again on the CPU (one line on stderr).
  run test_blas_devices 1 MOCK_CUDA_DEVICES=3 TEST_BLAS_DEVICES=1 TILEMM_STAGING_KB=64 \
    TILEMM_BLAS_BACKEND=gpu "$src/test_blas_mock"
  # "auto" on the stand-in GPU: the plain product of 512 (300 complex) pays there, the rank-k
  # update of the same size (syrk, herk: half the host's flops) does not, that of 640 (400) does.
  # Without a next BLAS, what auto leaves to `*` is tilemm's CPU backend in the trace.
  trace=$(mktemp)
  rm -f "$trace"
  TEST_BLAS_DECISIONS=1 TILEMM_BLAS_TRACE="$trace" TILEMM_BLAS_BACKEND=auto TILEMM_STAGING_KB=64 \
    "$src/test_blas_mock" 2> "$err"
  failed=0
  for want in "dgemm calls 1 cpu 0 gpu 1" "dsyrk calls 3 cpu 2 gpu 1" "zgemm calls 1 cpu 0 gpu 1" \
              "zherk calls 2 cpu 1 gpu 1"; do
    grep -q ": $want next 0 loop 0 fallbacks 0\$" "$trace" 2> /dev/null \
      || { echo "FAIL: test_blas_auto: want \"$want\", the trace has:"; grep -E "calls" "$trace" 2> /dev/null | sed 's/^/    /'; failed=1; }
  done
  if [ -s "$err" ]; then
    echo "FAIL: test_blas_auto: stderr:"; sed 's/^/    /' "$err" | head -n 5; failed=1
  fi
  echo "test_blas_auto: $((1 - failed)) passed, $failed failed, 0 skipped"
  [ "$failed" = 0 ] || status=1
  rm -f "$trace"
else
  echo "SKIP: test_blas_mock: not built (make -C src test_blas_mock)"
  echo "test_blas_mock: 0 passed, 0 failed, 1 skipped"
fi

# TILEMM_PRECISION is tilemm (A, B)'s: the BLAS library stays native and does not read it (a
# malformed value would otherwise fail every call into the fallback, with a line on stderr).
run test_blas_precision 0 TILEMM_PRECISION=bogus TILEMM_BLAS_BACKEND=cpu "$src/test_blas"

ref=""
for f in /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 /usr/lib/*/blas/libblas.so.3 /usr/lib64/libblas.so.3; do
  [ -f "$f" ] && { ref=$f; break; }
done
if [ -z "$ref" ]; then
  echo "SKIP: test_blas_next: no reference libblas.so.3 to be the next BLAS"
  echo "test_blas_next: 0 passed, 0 failed, 1 skipped"
else
  # Preloaded in this order, the reference comes after the library in symbol lookup.
  run test_blas_next_gpu 1 LD_PRELOAD="$src/libtilemm_blas.so $ref" TILEMM_BLAS_BACKEND=gpu \
    "$src/test_blas"
  run test_blas_next_auto 0 LD_PRELOAD="$src/libtilemm_blas.so $ref" TILEMM_BLAS_BACKEND=auto \
    "$src/test_blas"
fi
rm -f "$err"
exit $status
