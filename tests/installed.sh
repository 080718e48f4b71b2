#!/bin/bash
# What users get is what is tested: installs the release tarball with `pkg install` into a
# temporary package prefix, loads it, checks help and doc for every function of its INDEX
# (tests/check_installed_doc.m), and runs the installed package's tests.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eo pipefail
builddir=${TILEMM_BUILDDIR:-.}
srcdir=${TILEMM_SRCDIR:-.}
tarball=${TILEMM_TARBALL:?the release tarball (make dist)}
prefix="$builddir/tests/pkg-prefix"
rm -rf "$prefix"
mkdir -p "$prefix"
${OCTAVE:-octave-cli} --no-gui --norc --no-history --quiet --eval "
  pkg ('prefix', '$prefix', '$prefix');
  pkg ('local_list', '$prefix/octave_packages');
  pkg ('install', '-local', '$tarball');
  pkg ('load', 'tilemm');
  addpath ('$srcdir/tests');
  d = pkg ('describe', 'tilemm');
  printf ('installed tilemm %s in %s\n', d{1}.version, '$prefix');
  doc_failed = check_installed_doc ('installed_doc');
  run_bist ('installed', 'tilemm', 'tilemm_info', 'tilemm_precision', 'tilemm_build', 'tilemm_bench', 'check_doc_examples', 'pagemtimes');
  if (doc_failed > 0) exit (1); endif" 2>&1 | grep -v "^error: ignoring const execution_exception"
