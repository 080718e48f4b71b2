#!/bin/bash
# Runs tests/differential.m from the build tree: tilemm against Octave's own `*` on generated
# operands (classes, complexity, diagonal/permutation/range/scalar/sparse operands, shapes from
# empty to larger than a tile, NaN/Inf placement, every transposed form, native and emulated
# precision) on the cpu backend and on "auto", and on the gpu backend where a GPU is usable.
# Fixed seeds, so a failure is reproducible (TILEMM_DIFF_SAVE=DIR keeps its operands).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -o pipefail
builddir=${TILEMM_BUILDDIR:-.}
srcdir=${TILEMM_SRCDIR:-.}
${OCTAVE:-octave-cli} --no-gui --norc --no-history --quiet --eval "
  addpath ('$srcdir/tests'); addpath ('$builddir/src');
  failed = differential ('differential_cpu', 'cpu', ${TILEMM_DIFF_CASES:-2500}, 1);
  failed += differential ('differential_auto', 'auto', ${TILEMM_DIFF_AUTO_CASES:-800}, 2);
  if (getfield (tilemm_info (), 'gpu_usable'))
    failed += differential ('differential_gpu', 'gpu', ${TILEMM_DIFF_CASES:-2500}, 3);
  else
    printf ('SKIP: differential_gpu: no usable GPU\ndifferential_gpu: 0 passed, 0 failed, 1 skipped\n');
  endif
  exit (failed > 0);" 2>&1 | grep -v "^error: ignoring const execution_exception"
