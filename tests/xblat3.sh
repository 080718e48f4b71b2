#!/bin/sh
# tests/xblat3.sh — the reference BLAS Level-3 tester (Debian's libblas-test: xblat3s, xblat3d,
# xblat3c, xblat3z, dynamically linked to libblas.so.3) run with libtilemm_blas.so preloaded, so
# its ?gemm_, ?syrk_ and ?herk_ are tilemm's (and the reference libblas.so.3 is the "next BLAS"
# the library hands what it does not compute).  A copy of each .in file turns every routine off
# but GEMM, SYRK and HERK (the tester reads one "NAME T|F" line per routine).  A routine passes
# when
#   - the tester exits normally and reports "<NAME> PASSED THE TESTS OF ERROR-EXITS" and
#     "<NAME> PASSED THE COMPUTATIONAL TESTS", and no line of its output names it with FAIL, and
#   - the library's trace (TILEMM_BLAS_TRACE: one record, the tester's) shows that it took every
#     call the tester counted and ran the products where the mode says, so the test cannot pass
#     vacuously.
# Modes:
#   cpu  TILEMM_BLAS_BACKEND=cpu: products on tilemm's CPU backend (an operand of one element
#        goes to the next BLAS, as `*` does), none on the GPU, no fallback.
#   gpu  TILEMM_BLAS_BACKEND=gpu: products on the GPU, no fallback.  Where the library finds no
#        usable GPU, every product is a device failure: then this is the fallback's test: every
#        product handed to the next BLAS (the reference) and counted as a fallback (but those
#        of a one-element operand, which go there anyway), the tester's
#        checks passed, and exactly one line on stderr.  (TILEMM_XBLAT3_REQUIRE_GPU=1, for the
#        GPU machine, makes that a failure.)
# Ends with "xblat3: N passed, N failed, N skipped", one count per routine and mode; all skipped,
# with the reason, where libblas-test is not installed.  XBLAT3_DIR names a folder with the
# testers (on the GPU machine: tools/pack-blas-tester's).
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

# The routines tested per precision.
routines () {
  case $1 in s|d) echo "${1}gemm ${1}syrk" ;; *) echo "${1}gemm ${1}herk ${1}syrk" ;; esac
}

if ! blasdir=$(find_tester); then
  for mode in $modes; do
    for p in s d c z; do
      for r in $(routines $p); do
        echo "SKIP: xblat3 $r ($mode): libblas-test (the reference BLAS tester) is not installed"
        skipped=$((skipped + 1))
      done
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

# The tester's input for precision $1, with GEMM, SYRK and HERK the only routines tested and the
# summary written to $1.out in the working folder (the .in may be gzipped elsewhere).  Its
# routine lines are "DGEMM  T PUT F ..." (reference BLAS 3.11) or, with GEMMTR's seven letters,
# "DGEMM   T PUT F ..." (3.12): T and F are swapped in place, the columns kept.
make_input () {
  p=$1 in="$blasdir/${1}blat3.in"
  if [ -f "$in" ]; then cat "$in"; elif [ -f "$in.gz" ]; then gzip -dc "$in.gz"; else return 1; fi \
    | sed -E -e "s/^'[^']*'( +NAME OF SUMMARY)/'$p.out'\1/" \
             -e 's/^([SDCZ][A-Z0-9]+ +)T( PUT F)/\1F\2/' -e 's/^([SDCZ](GEMM|SYRK|HERK) +)F( PUT F)/\1T\3/'
}

# The value after word $2 in line $1 of the trace ("... calls 12 cpu 10 gpu 0 ..."), 0 if none.
field () {
  echo "$1" | awk -v key="$2" '{ for (i = 1; i < NF; i++) if ($i == key) { print $(i + 1); exit } }
                               END { }' | grep . || echo 0
}

# One precision $1 on backend $2: runs the tester once, then judges each routine; prints a line
# per routine and adds to the counts.
run_one () {
  p=$1 mode=$2
  dir="$work/$mode"
  mkdir -p "$dir"
  rm -f "$dir/$p.out" "$dir/$p.trace" "$dir/$p.stderr"
  judge_all () {
    for r in $(routines $p); do
      echo "FAIL: xblat3 $r ($mode): $*"; failed=$((failed + 1))
    done
  }
  if ! make_input "$p" > "$dir/$p.in"; then
    judge_all "no ${p}blat3.in in $blasdir"; return
  fi
  # An inner shell waits for the tester, so that its note on a tester killed by a signal goes
  # to the void and not into this test's log.  The library is preloaded into `timeout` too, as a
  # user's LD_PRELOAD=... timeout 600 prog would: timeout makes no BLAS call, so the trace must
  # still hold one record, the tester's.
  # A tester packed with its libraries (tools/pack-blas-tester) finds them in $blasdir/lib.
  libpath=${LD_LIBRARY_PATH:-}
  [ -d "$blasdir/lib" ] && libpath="$blasdir/lib${libpath:+:$libpath}"
  (cd "$dir" && TILEMM_BLAS_BACKEND=$mode TILEMM_BLAS_TRACE="$dir/$p.trace" \
     sh -c 'LD_LIBRARY_PATH="$1" LD_PRELOAD="$2" timeout 1800 "$3" < "$4" > "$5" 2> "$6"; exit $?' sh \
       "$libpath" "$lib" "$blasdir/xblat3$p" "$p.in" "$p.stdout" "$p.stderr" 2> /dev/null)
  status=$?
  out="$dir/$p.out"
  records=$(sed -n 's/^tilemm_blas \([0-9]*\) .*/\1/p' "$dir/$p.trace" 2> /dev/null | sort -u | wc -l)
  said=$(grep -c '^tilemm_blas:' "$dir/$p.stderr" 2> /dev/null)
  for r in $(routines $p); do
    R=$(echo "$r" | tr a-z A-Z)
    fail () {
      echo "FAIL: xblat3 $r ($mode): $*"
      [ -s "$dir/$p.stderr" ] && sed 's/^/    /' "$dir/$p.stderr" | head -n 20
      if grep -q "$R.*FAIL" "$out" 2> /dev/null; then
        grep -B 12 -A 4 "$R.*FAIL" "$out" | sed 's/^/    /' | head -n 40
      elif [ -f "$out" ]; then tail -n 20 "$out" | sed 's/^/    /'; fi
      failed=$((failed + 1))
    }
    [ "$status" = 0 ] || { fail "the tester exited with status $status"; continue; }
    [ -f "$out" ] || { fail "the tester wrote no summary"; continue; }
    # (a failure names its routine: "******* DSYRK  FAILED ON CALL NUMBER:")
    grep -q "$R.*FAIL" "$out" "$dir/$p.stdout" && { fail "the tester reports failures"; continue; }
    # (the name is padded to six or seven letters: 3.12's single precision pads to seven)
    grep -Eq "^ $R +PASSED THE TESTS OF ERROR-EXITS" "$out" \
      || { fail "no passed error-exit tests"; continue; }
    tested=$(sed -n "s/^ $R  *PASSED THE COMPUTATIONAL TESTS ( *\([0-9]*\) CALLS).*/\1/p" "$out")
    [ -n "$tested" ] || { fail "no passed computational tests"; continue; }
    [ -f "$dir/$p.trace" ] || { fail "no trace: libtilemm_blas.so was not used"; continue; }
    [ "$records" = 1 ] || { fail "the trace holds $records records, not the tester's one"; continue; }
    line=$(grep " $r calls " "$dir/$p.trace")
    calls=$(field "$line" calls) on_cpu=$(field "$line" cpu) on_gpu=$(field "$line" gpu)
    on_next=$(field "$line" next) on_loop=$(field "$line" loop) fallbacks=$(field "$line" fallbacks)
    [ "$calls" = "$tested" ] \
      || { fail "the library took $calls calls, the tester counted $tested"; continue; }
    where="cpu $on_cpu, gpu $on_gpu, next BLAS $on_next, loop $on_loop, fallbacks $fallbacks"
    if [ "$mode" = gpu ] && [ "$on_gpu" = 0 ] && [ "$fallbacks" -gt 0 ]; then
      # No usable GPU: the fallback's test.
      why=$(sed -n 's/^tilemm_blas: [A-Z]*: \(.*\); this and any later.*/\1/p' "$dir/$p.stderr" | head -n 1)
      if [ "${TILEMM_XBLAT3_REQUIRE_GPU:-0}" = 1 ]; then
        fail "no product on the GPU: $why"; continue
      fi
      # (next BLAS ≥ fallbacks: an operand of one element goes there without a failure)
      [ "$on_cpu" = 0 ] && [ "$on_loop" = 0 ] && [ "$on_next" -ge "$fallbacks" ] \
        || { fail "the fallback did not take every product to the next BLAS: $where"; continue; }
      [ "$said" = 1 ] || { fail "$said lines on stderr, not one"; continue; }
      echo "xblat3 $r (gpu): passed through the fallback ($why), $calls calls, $where"
      passed=$((passed + 1)); continue
    fi
    if [ "$mode" = cpu ]; then mine=$on_cpu other=$on_gpu; else mine=$on_gpu other=$on_cpu; fi
    [ "$mine" -gt 0 ] && [ "$other" = 0 ] && [ "$fallbacks" = 0 ] && [ "$on_loop" = 0 ] \
      || { fail "products: $where"; continue; }
    echo "xblat3 $r ($mode): passed, $calls calls, $where"
    passed=$((passed + 1))
  done
}

for mode in $modes; do
  case $mode in cpu|gpu) ;; *) echo "xblat3.sh: unknown backend '$mode' (cpu or gpu)"; exit 2 ;; esac
  for p in s d c z; do
    run_one "$p" "$mode"
  done
done
summary
