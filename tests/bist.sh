#!/bin/bash
# Runs the Octave BIST of the build tree's mex files (src/tilemm.m carries the %! blocks of
# src/tilemm.c, and likewise tilemm_info).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -o pipefail
builddir=${TILEMM_BUILDDIR:-.}
srcdir=${TILEMM_SRCDIR:-.}
${OCTAVE:-octave-cli} --no-gui --norc --no-history --quiet --eval "
  addpath ('$builddir/src'); addpath ('$srcdir/inst'); addpath ('$srcdir/tests');
  run_bist ('bist', 'tilemm', 'tilemm_info', 'tilemm_build')" 2>&1 | grep -v "^error: ignoring const execution_exception"
