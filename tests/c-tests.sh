#!/bin/sh
# Runs the C test programs built in src/ (test_core, test_route, test_multi (several devices,
# simulated), test_pool (the host's threads: the team, the pool, the teams' sizes, beside a
# spinning pool), test_emulated (the emulated precision on the CPU), test_emulated_exact (its
# guarantee against exact products, on the GPU too where one is usable), test_pipeline (the CUDA
# backend's host side on a stand-in runtime), test_exchange (the operand every GPU holds, sent
# once from the host and shared between GPUs, on the stand-in), test_leaks_mock (10,000 mixed calls on it),
# test_cuda, test_emulated_cuda and test_leaks_gpu where CUDA is built (they skip their GPU
# parts without a GPU), and test_blas on the CPU and, where a GPU is usable, on the GPU.
# test_leaks_cpu runs under valgrind in tests/valgrind.sh.  Each prints "NAME: N passed, N
# failed, N skipped".
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
builddir=${TILEMM_BUILDDIR:-.}
# The programs test the mechanics on the built-in model (tests/check.h turns calibration off
# before their main; test_facts keeps it for its own cases).
status=0
for t in test_core test_route test_multi test_facts test_emulated test_emulated_panels test_precision test_pool test_emulated_exact test_pipeline test_executor test_exchange test_pages test_leaks_mock test_cuda test_pages_gpu test_emulated_cuda \
         test_leaks_gpu test_blas; do
  prog="$builddir/src/$t"
  if [ ! -x "$prog" ] && [ "$t" = test_emulated_exact ]; then
    # built only where configure found GMP: say so, never pass it silently
    echo "SKIP: test_emulated_exact: not built (configure found no GMP)"
    echo "test_emulated_exact: 0 passed, 0 failed, 1 skipped"
    continue
  fi
  [ -x "$prog" ] || continue
  "$prog" || status=1
done
# The BLAS library (libtilemm_blas.so) on the CPU backend, then on the GPU one.  Without a usable
# GPU its products all go through the fallback (tests/blas-fallback.sh tests that): a skip here,
# with the reason; with one, any fallback (a line on stderr) is a failure of the GPU path.
# On the CPU backend nothing may fall back either (a line on stderr: a syrk whose decision asks
# for a mirrored product, which the library cannot take, falls back with one).
cpu_err=$(mktemp)
TILEMM_BLAS_BACKEND=cpu "$builddir/src/test_blas" test_blas 2> "$cpu_err" || status=1
if [ -s "$cpu_err" ]; then
  echo "FAIL: test_blas: products fell back from the CPU backend:"; cat "$cpu_err"
  echo "test_blas_cpu_fallbacks: 0 passed, 1 failed, 0 skipped"; status=1
fi
rm -f "$cpu_err"
gpu_err=$(mktemp)
gpu_out=$(TILEMM_BLAS_BACKEND=gpu "$builddir/src/test_blas" test_blas_gpu 2> "$gpu_err")
gpu_status=$?
if grep -q "no usable GPU" "$gpu_err"; then
  echo "SKIP: test_blas_gpu: $(sed -n 's/.*no usable GPU: \(.*\); this and any later.*/\1/p' "$gpu_err" | head -n 1)"
  echo "test_blas_gpu: 0 passed, 0 failed, 1 skipped"
else
  echo "$gpu_out"
  if [ "$gpu_status" != 0 ] || [ -s "$gpu_err" ]; then
    echo "FAIL: test_blas_gpu: products fell back from the GPU:"; cat "$gpu_err"
    echo "test_blas_gpu_fallbacks: 0 passed, 1 failed, 0 skipped"; status=1
  fi
fi
rm -f "$gpu_err"
exit $status
