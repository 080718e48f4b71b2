#!/bin/bash
# tests/facts-check.sh — the facts' check in tilemm_info's BIST (src/front/tilemm_info.tst: the
# model's times of `*` and of the CPU backend against the same products timed now, "auto" against
# the fastest way) fails on a wrong fact and passes on true ones.  In a calibration folder of its
# own: the facts measured and stored (tilemm_info ("calibrate")), the BIST passes; then every point
# of the host's `*` curves (curve host, curve host_page) is stored 10 times faster than measured,
# and the check must fail in every one of its attempts.  A check that a wrong fact passes, or that
# took its figures from somewhere other than the stored facts, fails here.  Prints
# "facts_check: N passed, N failed, N skipped".
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
builddir=${TILEMM_BUILDDIR:-.}
srcdir=${TILEMM_SRCDIR:-.}
octave=${OCTAVE:-octave-cli}
if ! command -v "$octave" > /dev/null 2>&1 || [ ! -f "$builddir/src/tilemm.oct" ]; then
  echo "SKIP: no Octave or no built src/tilemm.oct"
  echo "facts_check: 0 passed, 0 failed, 1 skipped"
  exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/tilemm-facts-check.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export TILEMM_CALIBRATION_DIR=$dir
passed=0 failed=0
run () {
  "$octave" --no-gui --norc --no-history --quiet --eval "addpath ('$builddir/src'); $1" 2>&1 |
    grep -v "^error: ignoring const execution_exception"
}
check () {   # check WHAT OK: OK is 1 when the case holds
  if [ "$2" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1"; fi
}
# The BIST's outcome as "ok of all" and the facts' check's message, if it failed.
bist () {
  run "[ok, all] = test ('tilemm_info', 'quiet', stdout); printf ('tilemm_info %d of %d\n', ok, all);"
}

run "tilemm_info ('calibrate');" > "$dir/calibrate.log"
facts=$(ls "$dir"/facts-*.txt 2>/dev/null | head -n 1)
check "the facts were stored ($(tail -n 2 "$dir/calibrate.log" | tr '\n' ' '))" $([ -n "$facts" ] && echo 1)
[ -n "$facts" ] || { echo "facts_check: $passed passed, $failed failed, 0 skipped"; exit 1; }

# True facts: every test of tilemm_info passes (the facts' check among them).
true_run=$(bist)
line=$(echo "$true_run" | grep "^tilemm_info [0-9]* of [0-9]*$")
ok=$(echo "$line" | awk '{ print ($2 == $4 && $4 > 0) }')
check "the true facts pass tilemm_info's BIST: ${line:-no summary}" "$ok"
[ "$ok" = 1 ] || echo "$true_run" | tail -n 20

# The wrong fact: the host's `*` stored 10 times faster (each curve point's seconds / 10; a curve
# line is: curve NAME TYPE A B COUNT, then COUNT triples of flops, seconds and episodes).
awk '($1 == "curve" && ($2 == "host" || $2 == "host_page")) { for (i = 8; i <= NF; i += 3) $i = $i / 10 } { print }' \
  "$facts" > "$facts.wrong" && mv "$facts.wrong" "$facts"
wrong_run=$(bist)
line=$(echo "$wrong_run" | grep "^tilemm_info [0-9]* of [0-9]*$")
caught=$(echo "$wrong_run" | grep -c "failed in every attempt")
said=$(echo "$wrong_run" | grep -c "the model says")
check "the wrong fact fails the facts' check in every attempt: ${line:-no summary}" \
  $([ "$caught" -ge 1 ] && [ "$said" -ge 1 ] && echo "$line" | awk '{ exit !($2 == $4 - 1) }' && echo 1)
[ "$caught" -ge 1 ] || echo "$wrong_run" | tail -n 20

# FACTS_CHECK_VERBOSE=1: both runs' whole output.
[ -z "$FACTS_CHECK_VERBOSE" ] || { echo "$true_run"; echo "$wrong_run"; }
echo "facts_check: $passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
