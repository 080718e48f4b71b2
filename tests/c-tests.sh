#!/bin/sh
# Runs the C test programs built in src/ (test_core, test_route, test_pipeline (the CUDA
# backend's host side on a stand-in runtime), test_leaks_mock (10,000 mixed calls on it), and
# test_cuda and test_leaks_gpu where CUDA is built; they skip their GPU parts without a GPU).
# test_leaks_cpu runs under valgrind in tests/valgrind.sh.  Each prints "NAME: N passed, N failed, N skipped".
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
builddir=${TILEMM_BUILDDIR:-.}
status=0
for t in test_core test_route test_pipeline test_leaks_mock test_cuda test_leaks_gpu; do
  prog="$builddir/src/$t"
  [ -x "$prog" ] || continue
  "$prog" || status=1
done
exit $status
