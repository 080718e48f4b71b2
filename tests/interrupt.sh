#!/bin/bash
# tests/interrupt.sh — Ctrl-C during a long product: an interactive octave-cli (the oct-file
# front end from the build tree) starts a product that runs for several seconds, gets
# SIGINT (what Ctrl-C sends) a second in, must leave the product within a few seconds (tilemm.oct
# polls Octave's interrupt flag between panels, steps and CPU tile rows), return to its prompt,
# and then compute correctly.  Prints "interrupt: N passed, N failed, N skipped".
#   TILEMM_INTERRUPT_BACKEND=gpu tests/interrupt.sh   on the GPU machine (a product in panels)
# The CPU cases include pagemtimes: a batch of pages spread over the threads, and large pages that
# run alone, each a plain product (the stop is polled between groups of pages, between pages and
# inside each page's product).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
builddir=${TILEMM_BUILDDIR:-.}
srcdir=${TILEMM_SRCDIR:-$builddir}
backend=${TILEMM_INTERRUPT_BACKEND:-cpu}
name=interrupt_$backend
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Each case: a name and the Octave lines that set A, B and opts (and mul, the function that
# multiplies: tilemm unless the case says otherwise).
if [ "$backend" = gpu ]; then
  # A 32 MB limit cuts this product into dozens of panel rows, each sending A's 1.9 GB again:
  # seconds on any GPU, far longer than the second before Ctrl-C.
  cases=(gpu 'A = rand (40000, 6000); B = rand (6000, 12000); opts = {"backend", "gpu", "max_device_bytes", 32e6};')
else
  # The CPU backend, then the same product over 3 simulated devices (worker threads that must
  # stop too, although only the calling thread may read Octave's interrupt flag).
  # Each is grown (grow: by the measured time of one product) to run for several seconds on
  # whatever cores the machine has: a product that ends before the second the signal waits for
  # tests nothing (the CPU backend's vector kernels made fixed sizes end in about one).
  square='grow = @(A, B, f) deal (rand (round (rows (A) * f^(1/3))), rand (round (rows (A) * f^(1/3))));'
  more_pages='grow = @(A, B, f) deal (repmat (A, 1, 1, ceil (f)), B);'
  cases=(cpu "A = rand (4000); B = rand (4000); opts = {\"backend\", \"cpu\"}; $square"
         simulated "A = rand (4000); B = rand (4000); opts = {\"backend\", \"cpu\", \"simulate_devices\", 3}; $square"
         pages "A = rand (1024, 1024, 40); B = rand (1024); opts = {\"backend\", \"cpu\"}; mul = @pagemtimes; $more_pages"
         pages_alone "A = rand (1280, 1280, 20); B = rand (1280); opts = {\"backend\", \"cpu\"}; mul = @pagemtimes; $more_pages")
fi
passed=0 failed=0
run_case () {   # run_case NAME PRODUCT
local case_name=$1 product=$2
cat > "$work/session.m" <<OCTAVE
addpath ("$srcdir/inst/compat");
addpath ("$builddir/src");
mul = @tilemm; grow = [];
$product
C = mul (ones (2), ones (2), opts{:});
if (! isempty (grow))   # to at least six seconds here
  t0 = tic; C = mul (A, B, opts{:}); t = toc (t0); clear C;
  if (t < 6) [A, B] = grow (A, B, 6 / t); endif
endif
printf ("ready\n"); fflush (stdout);
t0 = tic;
unwind_protect
  C = mul (A, B, opts{:});
  printf ("finished without interrupt in %.1f s\n", toc (t0));
unwind_protect_cleanup
  printf ("left the product after %.1f s\n", toc (t0)); fflush (stdout);
end_unwind_protect
OCTAVE
cat > "$work/after.m" <<OCTAVE
printf ("back at the prompt\n");
assert (mul ([1 2; 3 4], [5 6; 7 8], opts{:}), [19 22; 43 50]);
X = rand (400); Y = rand (300, 400)';
assert (norm (mul (X, Y, opts{:}) - X * Y, 1) < 1e-12 * norm (abs (X) * abs (Y), 1));
if (strcmp (func2str (mul), "pagemtimes"))
  X = rand (30, 20, 3); Y = rand (20, 10, 3); Z = mul (X, Y, opts{:});
  assert (norm (Z(:,:,3) - X(:,:,3) * Y(:,:,3), 1) < 1e-12 * norm (abs (X(:,:,3)) * abs (Y(:,:,3)), 1));
endif
printf ("next calls fine\n"); fflush (stdout);
OCTAVE
mkfifo "$work/in"
${OCTAVE:-octave-cli} --norc --no-history --interactive --no-line-editing < "$work/in" \
  > "$work/out" 2>&1 &
octave_pid=$!
exec 3> "$work/in"
echo "source ('$work/session.m')" >&3
wait_for () {   # wait_for TEXT SECONDS
  for _ in $(seq 1 $((2 * $2))); do
    grep -q "$1" "$work/out" && return 0
    kill -0 "$octave_pid" 2>/dev/null || return 1
    sleep 0.5
  done
  return 1
}
ok=0
if wait_for ready 120; then
  sleep 1
  kill -INT "$octave_pid"
  if wait_for "left the product" 15; then
    echo "source ('$work/after.m')" >&3
    wait_for "next calls fine" 60 && ok=1
  fi
fi
echo "exit" >&3
exec 3>&-
{ sleep 20; kill "$octave_pid" 2>/dev/null; } &
watchdog=$!
wait "$octave_pid" 2>/dev/null
kill "$watchdog" 2>/dev/null
sed -n '/ready/,$p' "$work/out"
echo   # the session's last prompt has no newline
if [ "$ok" = 1 ] && ! grep -q "finished without interrupt" "$work/out"; then
  passed=$((passed + 1))
else
  echo "FAIL: $name: $case_name: Ctrl-C did not stop the product cleanly (session above)"
  failed=$((failed + 1))
fi
rm -f "$work/in" "$work/out"
}
for ((i = 0; i < ${#cases[@]}; i += 2)); do
  echo "== $name: ${cases[i]}"
  run_case "${cases[i]}" "${cases[i+1]}"
done
echo "$name: $passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
