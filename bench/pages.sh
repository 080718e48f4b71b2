#!/bin/bash
# bench/pages.sh — pagemtimes against the loop of `*` it replaces (bench/pages.m), in one Octave
# process per part: the issue's cases (10^4 pages of 64x64 double, 10^6 pages of 3x3, 16 pages
# of 2048x2048) and a grid of square page sizes 1x1 to 512x512 by page counts 1 to 10^6 (within
# MAX_BYTES of operands and result), on "cpu", "gpu" and "auto", medians of REPEATS runs.
#   bench/pages.sh                       (tilemm installed: pkg load tilemm)
#   bench/pages.sh BUILDDIR [SRCDIR]     (a build tree: BUILDDIR/src has tilemm.oct, SRCDIR/inst
#                                         pagemtimes; SRCDIR defaults to BUILDDIR)
# Environment: REPEATS (default 5), PARTS (default "issue grid"), SIZES (the grid's sizes,
#   default "[1 2 3 4 8 16 32 64 128 256 512]"), COUNTS (its page counts, default
#   "[1 10 100 1000 10000 100000 1000000]"), MAX_BYTES (default 4e9), BACKENDS (default
#   "{'cpu', 'gpu', 'auto'}"), PAGES_TIMEOUT (seconds per part, default 3000).
# Prints "pages M K N PAGES WHAT MS SPEEDUP MAXRELDIFF" lines, then a table per part.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
  build=$(cd "$1" && pwd)
  src=$(cd "${2:-$1}" && pwd)
  setup="addpath ('$build/src'); addpath ('$src/inst');"
else
  setup="pkg load tilemm;"
fi
repeats=${REPEATS:-5}
parts=${PARTS:-"issue grid"}
sizes=${SIZES:-"[1 2 3 4 8 16 32 64 128 256 512]"}
counts=${COUNTS:-"[1 10 100 1000 10000 100000 1000000]"}
max_bytes=${MAX_BYTES:-4e9}
backends=${BACKENDS:-"{'cpu', 'gpu', 'auto'}"}

run () {
  timeout "${PAGES_TIMEOUT:-3000}" octave-cli --no-gui --norc --quiet --eval "
    $setup addpath ('$here');
    i = tilemm_info (); printf ('pagemtimes: %s; gpu_usable %d; %d threads\n', which ('pagemtimes'), i.gpu_usable, nproc ());
    $1" 2>&1 | grep -v "^error: ignoring const execution_exception"
}

for part in $parts; do
  echo "== pages: $part"
  case $part in
    issue)
      run "pages ([64 64 64 1e4; 3 3 3 1e6; 2048 2048 2048 16], $repeats, $backends);" ;;
    grid)
      run "s = $sizes; c = $counts; cases = zeros (0, 4);
           for n = s
             for p = c
               if (3 * 8 * n * n * p <= $max_bytes)
                 cases(end+1, :) = [n n n p];
               endif
             endfor
           endfor
           pages (cases, $repeats, $backends);" ;;
  esac
done
