#!/bin/bash
# tests/bist-blas.sh — Octave's BIST run with libtilemm_blas.so preloaded on its CPU backend
# (LD_PRELOAD=src/libtilemm_blas.so, TILEMM_BLAS_BACKEND=cpu), so Octave's own `*`, A'*A, and
# the LAPACK routines under chol, lu, qr, inv, eig, ... multiply through tilemm's ?gemm_, ?syrk_
# and ?herk_: tilemm's BIST (tilemm against `*`, both now tilemm's; "bist_blas: ...") and
# Octave's own tests of the functions that call the Level-3 BLAS ("bist_blas_octave: ...": a
# test failing with the library fails only where it passes without it; one failing both ways is
# the machine's, counted as skipped with its reason).  The library's trace (TILEMM_BLAS_TRACE)
# must show that Octave's processes computed products on tilemm's CPU backend
# ("bist_blas_trace: ..."), else the tests ran without it.
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
  [ -f "$tests/libinterp/corefcn/$f.cc-tst" ] && octave_tests="$octave_tests '$tests/libinterp/corefcn/$f.cc-tst'"
done
# Octave's own test files, each run as a whole: "octave_test FILE PASSED OF" lines.
octave_files () {
  "$octave" --no-gui --norc --no-history --quiet --eval "
    for f = {${octave_tests# }}
      [n, m] = test (f{1}, 'quiet', stdout);
      printf ('octave_test %s %d %d\n', f{1}, n, m);
    endfor" 2>&1 | grep '^octave_test '
}
trace=$(mktemp)
rm -f "$trace"
status=0
TILEMM_BLAS_BACKEND=cpu TILEMM_BLAS_TRACE="$trace" LD_PRELOAD="$lib" \
  "$octave" --no-gui --norc --no-history --quiet --eval "
    addpath ('$srcdir/tests'); addpath ('$srcdir/inst'); addpath ('$builddir/src');
    ## A'*A and A*A' of one matrix are ?syrk/?herk: exactly symmetric (Hermitian), as without the library
    A = rand (300, 200); C = A' * A; assert (isequal (C, C'));
    Z = complex (rand (150, 90), rand (150, 90)); H = Z * Z'; assert (isequal (H, H'));
    assert (H, Z * (Z' + 0), -1e-12);   # (a plain product through zgemm, for the values)
    run_bist ('bist_blas', 'tilemm', 'tilemm_info')" 2>&1 |
  grep -v "^error: ignoring const execution_exception" || status=1
# Octave's tests with the library and without it (the machine's own BLAS): a test that fails
# without the library too is the machine's (reported, counted as skipped), one that fails only
# with it is the library's.
with=$(TILEMM_BLAS_BACKEND=cpu TILEMM_BLAS_TRACE="$trace" LD_PRELOAD="$lib" octave_files)
without=$(octave_files)
passed=0 failed=0 skipped=0
while read -r _ file n m; do
  base=$(echo "$without" | awk -v f="$file" '$2 == f { print $3 }')
  base=${base:-0}
  name=$(basename "$file")
  passed=$((passed + n))
  if [ "$n" -lt "$base" ]; then
    echo "FAIL: bist_blas_octave $name: $n of $m pass with the library, $base without"
    failed=$((failed + base - n)); skipped=$((skipped + m - base))
  else
    [ "$n" -lt "$m" ] && echo "SKIP: bist_blas_octave $name: $((m - n)) of $m tests fail without the library too (the machine's BLAS or Octave)"
    skipped=$((skipped + m - n))
  fi
done <<< "$with"
[ -n "$with" ] || { echo "FAIL: bist_blas_octave: Octave's test files did not run"; failed=$((failed + 1)); }
echo "bist_blas_octave: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || status=1
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
