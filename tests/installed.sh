#!/bin/bash
# What users get is what is tested: installs the release tarball with `pkg install` into a
# temporary package prefix, loads it, checks help and doc for every function of its INDEX
# (tests/check_installed_doc.m), that no file of the package shadows its compiled functions
# (tests/check_no_shadow.m; then a planted shadowing script must make that check fail), and runs
# the installed package's tests as users do, `pkg test tilemm` (tests/run_pkg_test.m).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eo pipefail
builddir=$(cd "${TILEMM_BUILDDIR:-.}" && pwd)
srcdir=$(cd "${TILEMM_SRCDIR:-.}" && pwd)
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
  failed = check_installed_doc ('installed_doc');
  failed += check_no_shadow ('installed_shadow');
  ## The check sees a shadow: a script named like the mex file, at the package's top.
  list = pkg ('list', 'tilemm');
  planted = fullfile (list{1}.dir, 'tilemm_info.m');
  fid = fopen (planted, 'w'); fputs (fid, 'disp (\"planted\")'); fclose (fid);
  caught = evalc ('n_planted = check_no_shadow (\"planted\");');
  delete (planted); rehash ();
  seen = n_planted > 0 && ! isempty (strfind (caught, 'FAIL: placed tilemm_info'));
  ## test NAME finds the oct-file's tests (tilemm.cc-tst) by name, as demo NAME does.
  found = ! isempty (test ('tilemm', 'grabdemo'));
  printf ('installed_self: %d passed, %d failed, 0 skipped\n', seen + found, ! seen + ! found);
  if (! seen) printf ('FAIL: check_no_shadow missed a planted %s:\n%s', planted, caught); endif
  if (! found) printf ('FAIL: test tilemm finds no tests\n'); endif
  failed += ! seen + ! found;
  ## pkg test writes its log (fntests.log) into the current folder.
  cd ('$prefix');
  failed += run_pkg_test ('installed_pkg_test');
  run_bist ('installed_examples', 'check_doc_examples');
  if (failed > 0) exit (1); endif" 2>&1 | grep -v "^error: ignoring const execution_exception"
