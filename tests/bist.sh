#!/bin/bash
# Runs the Octave BIST from the build tree: tilemm (the oct-file front end), tilemm_info and
# tilemm_build, then the tilemm tests again on the mex gateway (src/mex/, the MATLAB front end).
# src/tilemm.cc-tst carries the %! blocks of src/front/tilemm.tst (the BIST of both front ends), and
# src/tilemm_info.m (help and tests) those of tilemm_info.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -o pipefail
builddir=${TILEMM_BUILDDIR:-.}
srcdir=${TILEMM_SRCDIR:-.}
run () {
  ${OCTAVE:-octave-cli} --no-gui --norc --no-history --quiet --eval "
    addpath ('$srcdir/tests'); addpath ('$srcdir/inst'); addpath ('$builddir/src'); $1" 2>&1 |
    grep -v "^error: ignoring const execution_exception"
}
status=0
run "run_bist ('bist', 'tilemm', 'tilemm_info', 'tilemm_precision', 'tilemm_build', 'tilemm_bench', 'check_doc_examples')" || status=1
run "run_bist ('bist_pages', 'pagemtimes')" || status=1
run "addpath ('$builddir/src/mex'); assert (strcmp (mexext (), which ('tilemm')(end-2:end)));
     run_bist ('bist_mex', 'tilemm')" || status=1
exit $status
