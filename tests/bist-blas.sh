#!/bin/bash
# tests/bist-blas.sh — Octave's BIST run with libtilemm_blas.so preloaded on its CPU backend
# (LD_PRELOAD=src/libtilemm_blas.so, TILEMM_BLAS_BACKEND=cpu), so Octave's own `*`, A'*A, and
# the LAPACK routines under chol, lu, qr, inv, eig, ... multiply through tilemm's ?gemm_, ?syrk_
# and ?herk_: tilemm's BIST (tilemm against `*`, both now tilemm's) and Octave's own tests of the
# functions that call the Level-3 BLAS.  The library's trace (TILEMM_BLAS_TRACE) must show that
# Octave's process computed products on tilemm's CPU backend (else the test ran without it).
# Ends with "bist_blas: N passed, N failed, N skipped".
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -o pipefail
builddir=$(cd "${TILEMM_BUILDDIR:-.}" && pwd)
srcdir=$(cd "${TILEMM_SRCDIR:-.}" && pwd)
lib="$builddir/src/libtilemm_blas.so"
if [ ! -f "$lib" ]; then
  echo "FAIL: bist_blas: $lib is not built (make -C src blas)"
  echo "bist_blas: 0 passed, 1 failed, 0 skipped"; exit 1
fi
octave=${OCTAVE:-octave-cli}
tests=$("$octave" --no-gui --norc --quiet --eval 'disp (fullfile (OCTAVE_HOME, "share", "octave", version, "etc", "tests"))' 2> /dev/null)
octave_tests=""
for f in chol det dot eig hess inv kron lu mgorth pinv qr schur; do
  [ -f "$tests/libinterp/corefcn/$f.cc-tst" ] && octave_tests="$octave_tests, '$tests/libinterp/corefcn/$f.cc-tst'"
done
trace=$(mktemp)
rm -f "$trace"
status=0
TILEMM_BLAS_BACKEND=cpu TILEMM_BLAS_TRACE="$trace" LD_PRELOAD="$lib" \
  "$octave" --no-gui --norc --no-history --quiet --eval "
    addpath ('$srcdir/tests'); addpath ('$srcdir/inst'); addpath ('$builddir/src');
    ## A'*A and A*A' of one matrix are ?syrk/?herk: exactly symmetric (Hermitian), as without the library
    A = rand (300, 200); C = A' * A; assert (isequal (C, C'));
    Z = complex (rand (150, 90), rand (150, 90)); H = Z * Z'; assert (isequal (H, H'));
    assert (H, Z * Z'.', -Inf);   # (a plain product through zgemm, for the values)
    run_bist ('bist_blas_octave', 'tilemm', 'tilemm_info' $octave_tests)" 2>&1 |
  grep -v "^error: ignoring const execution_exception" |
  sed 's/^bist_blas_octave: /bist_blas: /' || status=1
# The trace: Octave's record, with products on the CPU backend from gemm and syrk.
if ! grep -q ' dgemm calls .* cpu [1-9]' "$trace" 2> /dev/null \
   || ! grep -q ' dsyrk calls .* cpu [1-9]' "$trace"; then
  echo "FAIL: bist_blas_trace: the trace shows no dgemm and dsyrk products on tilemm's CPU backend:"
  sed 's/^/    /' "$trace" 2> /dev/null | head -n 10
  echo "bist_blas_trace: 0 passed, 1 failed, 0 skipped"; status=1
else
  echo "bist_blas_trace: $(grep -c ' calls ' "$trace") routines traced in $(sed 's/^tilemm_blas \([0-9]*\) .*/\1/' "$trace" | sort -u | wc -l) process(es)"
  grep ' calls ' "$trace" | sed 's/^/    /'
  echo "bist_blas_trace: 1 passed, 0 failed, 0 skipped"
fi
rm -f "$trace"
exit $status
