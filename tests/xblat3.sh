#!/bin/sh
# tests/xblat3.sh — the reference BLAS Level-3 tester (Debian's libblas-test: xblat3s, xblat3d,
# xblat3c, xblat3z, dynamically linked to libblas.so.3) run with libtilemm_blas.so preloaded, so
# its sgemm_/dgemm_/cgemm_/zgemm_ are tilemm's.  A copy of each .in file turns every routine but
# GEMM off (the tester reads one "NAME T|F" line per routine).  A precision passes when
#   - the tester exits normally and reports "?GEMM  PASSED THE TESTS OF ERROR-EXITS" and
#     "?GEMM  PASSED THE COMPUTATIONAL TESTS", with no FAIL anywhere in its output, and
#   - the library's trace (TILEMM_BLAS_TRACE) shows that it took every call the tester counted
#     and ran the products on the backend under test, so the test cannot pass vacuously.
# First on the CPU backend (TILEMM_BLAS_BACKEND=cpu), then on the GPU one (=gpu), which is
# skipped when the library finds no usable GPU, unless TILEMM_XBLAT3_REQUIRE_GPU=1 (then that is
# a failure: for the GPU machine).  Ends with "xblat3: N passed, N failed, N skipped", one count
# per precision and backend; all skipped, with the reason, where libblas-test is not installed.
# XBLAT3_DIR names a folder with the testers (on the GPU machine: tools/pack-blas-tester's).
#
#   tests/xblat3.sh [cpu|gpu]...     (default: cpu gpu)
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
builddir=$(cd "${TILEMM_BUILDDIR:-.}" && pwd)
lib="$builddir/src/libtilemm_blas.so"
work="$builddir/tests/xblat3"
modes=${*:-cpu gpu}
passed=0 failed=0 skipped=0

summary () {
  echo "xblat3: $passed passed, $failed failed, $skipped skipped"
  [ "$failed" = 0 ]
  exit $?
}

# The tester: where $XBLAT3_DIR says, where dpkg put it, or in a multiarch BLAS folder.
find_tester () {
  for dir in ${XBLAT3_DIR:-} \
             $(dpkg -L libblas-test 2>/dev/null | sed -n 's#/xblat3d$##p') \
             /usr/lib/*/blas /usr/lib/blas /usr/lib64/blas; do
    [ -x "$dir/xblat3d" ] && { echo "$dir"; return 0; }
  done
  return 1
}

if ! blasdir=$(find_tester); then
  for mode in $modes; do
    for p in s d c z; do
      echo "SKIP: xblat3 ${p}gemm ($mode): libblas-test (the reference BLAS tester) is not installed"
      skipped=$((skipped + 1))
    done
  done
  summary
fi
if [ ! -f "$lib" ]; then
  echo "FAIL: xblat3: $lib is not built (make -C src blas)"
  failed=1
  summary
fi
echo "xblat3: testers in $blasdir, library $lib"
mkdir -p "$work"

# The tester's input for precision $1, with GEMM the only routine tested and the summary written
# to $1.out in the working folder (the .in may be gzipped elsewhere).
make_input () {
  p=$1 in="$blasdir/${1}blat3.in"
  if [ -f "$in" ]; then cat "$in"; elif [ -f "$in.gz" ]; then gzip -dc "$in.gz"; else return 1; fi \
    | sed -E -e "s/^'[^']*'( +NAME OF SUMMARY)/'$p.out'\1/" \
             -e 's/^([SDCZ][A-Z0-9 ]{5}) T/\1 F/' -e 's/^([SDCZ]GEMM ) F/\1 T/'
}

# One precision $1 on backend $2: prints SKIP or FAIL lines and returns 0 pass, 1 fail, 2 skip.
run_one () {
  p=$1 mode=$2 P=$(echo "$1" | tr a-z A-Z)
  dir="$work/$mode"
  mkdir -p "$dir"
  rm -f "$dir/$p.out" "$dir/$p.trace" "$dir/$p.stderr"
  if ! make_input "$p" > "$dir/$p.in"; then
    echo "FAIL: xblat3 ${p}gemm ($mode): no ${p}blat3.in in $blasdir"; return 1
  fi
  grep -q "^${P}GEMM  T" "$dir/$p.in" \
    || { echo "FAIL: xblat3 ${p}gemm ($mode): could not select ${P}GEMM in the input"; return 1; }
  # An inner shell waits for the tester, so that its note on a tester killed by a signal (the
  # library aborts without a GPU) goes to the void and not into this test's log; the library is
  # preloaded into the tester only (the shell would write the trace too, at its exit).
  # A tester packed with its libraries (tools/pack-blas-tester) finds them in $blasdir/lib.
  libpath=${LD_LIBRARY_PATH:-}
  [ -d "$blasdir/lib" ] && libpath="$blasdir/lib${libpath:+:$libpath}"
  (cd "$dir" && TILEMM_BLAS_BACKEND=$mode TILEMM_BLAS_TRACE="$dir/$p.trace" \
     sh -c 'LD_LIBRARY_PATH="$1" LD_PRELOAD="$2" "$3" < "$4" > "$5" 2> "$6"; exit $?' sh \
       "$libpath" "$lib" "$blasdir/xblat3$p" "$p.in" "$p.stdout" "$p.stderr" 2> /dev/null)
  status=$?
  if [ "$mode" = gpu ] && grep -q "no usable GPU" "$dir/$p.stderr"; then
    why=$(sed -n 's/.*no usable GPU: //p' "$dir/$p.stderr" | head -n 1)
    if [ "${TILEMM_XBLAT3_REQUIRE_GPU:-0}" = 1 ]; then
      echo "FAIL: xblat3 ${p}gemm (gpu): no usable GPU: $why"; return 1
    fi
    echo "SKIP: xblat3 ${p}gemm (gpu): no usable GPU: $why"; return 2
  fi
  out="$dir/$p.out"
  fail () {
    echo "FAIL: xblat3 ${p}gemm ($mode): $*"
    [ -s "$dir/$p.stderr" ] && sed 's/^/    /' "$dir/$p.stderr" | head -n 20
    if grep -q FAIL "$out" 2> /dev/null; then grep -B 2 -A 8 FAIL "$out" | sed 's/^/    /' | head -n 40
    elif [ -f "$out" ]; then tail -n 20 "$out" | sed 's/^/    /'; fi
    return 1
  }
  [ "$status" = 0 ] || { fail "the tester exited with status $status"; return 1; }
  [ -f "$out" ] || { fail "the tester wrote no summary"; return 1; }
  grep -q "FAIL" "$out" "$dir/$p.stdout" && { fail "the tester reports failures"; return 1; }
  grep -q "^ ${P}GEMM  PASSED THE TESTS OF ERROR-EXITS" "$out" \
    || { fail "no passed error-exit tests"; return 1; }
  tested=$(sed -n "s/^ ${P}GEMM  PASSED THE COMPUTATIONAL TESTS ( *\([0-9]*\) CALLS).*/\1/p" "$out")
  [ -n "$tested" ] || { fail "no passed computational tests"; return 1; }
  # "sgemm calls N cpu N gpu N": every call the tester made must have been tilemm's, and the
  # products must have run on the backend under test (and only there).
  [ -f "$dir/$p.trace" ] || { fail "no trace: libtilemm_blas.so was not used"; return 1; }
  set -- $(grep "^${p}gemm " "$dir/$p.trace")
  calls=${3:-0} on_cpu=${5:-0} on_gpu=${7:-0}
  [ "$calls" = "$tested" ] \
    || { fail "the library took $calls calls, the tester counted $tested"; return 1; }
  if [ "$mode" = cpu ]; then mine=$on_cpu other=$on_gpu; else mine=$on_gpu other=$on_cpu; fi
  [ "$mine" -gt 0 ] && [ "$other" = 0 ] \
    || { fail "products: $on_cpu on the CPU, $on_gpu on the GPU"; return 1; }
  echo "xblat3 ${p}gemm ($mode): passed, $calls calls, $mine products on the $mode backend"
  return 0
}

for mode in $modes; do
  case $mode in cpu|gpu) ;; *) echo "xblat3.sh: unknown backend '$mode' (cpu or gpu)"; exit 2 ;; esac
  for p in s d c z; do
    run_one "$p" "$mode"
    case $? in 0) passed=$((passed + 1)) ;; 2) skipped=$((skipped + 1)) ;; *) failed=$((failed + 1)) ;; esac
  done
done
summary
