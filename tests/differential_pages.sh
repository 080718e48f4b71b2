#!/bin/bash
# Runs tests/differential_pages.m from the build tree: pagemtimes against a loop of Octave's own
# `*` over the pages (page shapes, page counts 0, 1 and many, implicit expansion, the nine
# transpose-flag pairs, classes and complexity, NaN/Inf placement, the error cases) on the cpu
# backend and on "auto", and on the gpu backend where a GPU is usable.  Fixed seeds, so a failure
# is reproducible (TILEMM_DIFF_SAVE=DIR keeps its operands).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -o pipefail
builddir=${TILEMM_BUILDDIR:-.}
srcdir=${TILEMM_SRCDIR:-.}
${OCTAVE:-octave-cli} --no-gui --norc --no-history --quiet --eval "
  addpath ('$srcdir/tests'); addpath ('$srcdir/inst'); addpath ('$builddir/src');
  failed = differential_pages ('differential_pages_cpu', 'cpu', ${TILEMM_DIFF_PAGES_CASES:-1500}, 11);
  failed += differential_pages ('differential_pages_auto', 'auto', ${TILEMM_DIFF_PAGES_AUTO_CASES:-400}, 12);
  if (getfield (tilemm_info (), 'gpu_usable'))
    failed += differential_pages ('differential_pages_gpu', 'gpu', ${TILEMM_DIFF_PAGES_CASES:-1500}, 13);
  else
    printf ('SKIP: differential_pages_gpu: no usable GPU\ndifferential_pages_gpu: 0 passed, 0 failed, 1 skipped\n');
  endif
  exit (failed > 0);" 2>&1 | grep -v "^error: ignoring const execution_exception"
