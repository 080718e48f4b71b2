#!/bin/bash
# bench/auto_grid.sh — "auto" against every way it chooses among, in one Octave process
# (bench/auto_grid.m): plain products 16..4096 (double, single, real, complex) against `*`,
# "cpu", "gpu"; page batches 4..1024 x 1..1e5 pages against the loop of `*`, pagemtimes "cpu",
# "gpu".  Writes OUT.txt (a line a cell) and OUT.png where gnuplot is installed, else OUT.svg
# (bench/auto_grid_svg.awk): auto's time over the fastest way's, by cell.
#   bench/auto_grid.sh DIR [OUT]   (DIR: where tilemm.oct is loaded from: src/ of a build, or
#                                   the installed package's folder)
# Environment: PLAIN (Octave vector of sizes, default "2.^(4:12)"), PAGE_SIZES (default
# "[4 16 64 256 1024]"), PAGE_COUNTS (default "[1 10 100 1000 1e4 1e5]"), MOST_BYTES (operands
# and result of a page batch at most, default 2^31), SETTLE (seconds of pause before each way,
# default 0.25; 0: the ways back to back), GRID_TIMEOUT (seconds, default 3600).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
dir=$(cd "${1:?usage: bench/auto_grid.sh DIR [OUT]}" && pwd)
out=${2:-auto-grid}
here=$(cd "$(dirname "$0")" && pwd)
timeout "${GRID_TIMEOUT:-3600}" octave-cli --no-gui --norc --quiet --eval "
  addpath ('$dir'); addpath ('$here'); pkg_dir = '$dir';
  if (exist ('pagemtimes') != 2 && exist ('pagemtimes') != 3)
    addpath ('$here/../inst/compat');
  endif
  auto_grid ('$out', ${PLAIN:-2.^(4:12)}, ${PAGE_SIZES:-[4 16 64 256 1024]}, ...
             ${PAGE_COUNTS:-[1 10 100 1000 1e4 1e5]}, ${MOST_BYTES:-2^31}, ${SETTLE:-0.25});
" 2>&1 | grep -v "^error: ignoring const execution_exception"
status=${PIPESTATUS[0]}
if command -v gnuplot > /dev/null 2>&1 && [ -s "$out.txt" ]; then
  gnuplot <<GP
set terminal pngcairo size 1400,700
set output '$out.png'
set title "tilemm \"auto\" over the fastest explicit way, each cell (1 = the fastest; dashed: 10%)"
set ylabel "auto / fastest"
set logscale y
set yrange [0.5:4]
set xtics rotate by 90 font ",7"
set key off
set arrow from graph 0, first 1.1 to graph 1, first 1.1 nohead dt 2
set style fill solid 0.6
plot '$out.txt' every ::1 using 0:12:xticlabels(sprintf("%s %s %s %d x%d", stringcolumn(1), stringcolumn(2), stringcolumn(3), column(4), column(5))) with boxes
GP
  echo "auto_grid: plot $out.png"
elif [ -s "$out.txt" ]; then
  awk -f "$here/auto_grid_svg.awk" "$out.txt" > "$out.svg" && echo "auto_grid: no gnuplot here; plot $out.svg"
fi
exit "$status"
