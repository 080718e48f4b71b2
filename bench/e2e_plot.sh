#!/bin/bash
# bench/e2e_plot.sh E2E_TXT PNG — the plot of bench/e2e.sh's measurements with gnuplot: GFLOP/s of
# the whole Octave call against n, double and single side by side, for tilemm, `*` (OpenBLAS),
# `*` with NVBLAS and the naive cuBLAS mex.  (tilemm_bench's "plot" option draws its own run
# through Octave's graphics; this plots what the end-to-end run measured, where gnuplot is.)
# Environment: TILEMM_LABEL (tilemm's legend, default "tilemm (pinned staging, overlap)"),
#   PLOT_NOTE (the end of the title: machine and date, default "H100 + 16 cores, Octave 7.3").
# The manual's plot: bench/e2e_plot.sh bench/e2e-2026-11-23.txt doc/perf-e2e.png (make plots).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
txt=$1 png=$2
label=${TILEMM_LABEL:-"tilemm (pinned staging, overlap)"}
note=${PLOT_NOTE:-"H100 + 16 cores, Octave 7.3"}
data=$(mktemp -d)
for cls in double single; do
  for s in "plain tilemm" "plain mtimes" "nvblas mtimes" "plain naive"; do
    set -- $s
    awk -v l="$1" -v w="$2" -v c="$cls" '$1 == "e2e" && $2 == l && $3 == w && $4 == c { print $5, $7 }' \
      "$txt" | sort -n > "$data/$cls-$1-$2.dat"
  done
done
gnuplot <<GP
set terminal pngcairo size 1300,520 font ",10"
set output "$png"
set multiplot layout 1,2 title "Whole Octave call C = f(A, B), n×n times n×n: median GFLOP/s (2n³ flops per call); $note"
set logscale x 2
set xtics (256, 512, 1024, 2048, 4096, 8192)
set xrange [700:11000]
set xlabel "n"
set ylabel "GFLOP/s"
set key top left
set grid
do for [cls in "double single"] {
  set title cls
  plot "$data/".cls."-plain-tilemm.dat" with linespoints lw 2 pt 7 title "$label", \
       "$data/".cls."-nvblas-mtimes.dat" with linespoints lw 2 pt 9 title "A*B with NVBLAS", \
       "$data/".cls."-plain-naive.dat" with linespoints lw 2 pt 5 title "naive cuBLAS mex", \
       "$data/".cls."-plain-mtimes.dat" with linespoints lw 2 pt 13 title "A*B (OpenBLAS)"
}
unset multiplot
GP
rm -rf "$data"
