#!/bin/sh
# Runs the C test programs built in src/ (test_core, test_route, test_multi (several devices,
# simulated), test_pipeline (the CUDA
# backend's host side on a stand-in runtime), and test_cuda where CUDA is built; it skips itself
# without a GPU).  Each prints "NAME: N passed, N failed, N skipped".
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
builddir=${TILEMM_BUILDDIR:-.}
status=0
for t in test_core test_route test_multi test_pipeline test_cuda; do
  prog="$builddir/src/$t"
  [ -x "$prog" ] || continue
  "$prog" || status=1
done
exit $status
