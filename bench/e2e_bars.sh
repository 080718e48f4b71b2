#!/bin/bash
# bench/e2e_bars.sh E2E_TXT — bench/e2e.sh's measurements as a text bar chart (the plot of
# bench/e2e_plot.sh for readers without images, e.g. the info manual): GFLOP/s of the whole
# Octave call for tilemm, `*` with NVBLAS, the naive cuBLAS mex and `*` (OpenBLAS), per class and
# n, bars scaled to the largest figure of each class.  Environment: WIDTH (longest bar, 40),
# TILEMM_LABEL (tilemm's row label, default "tilemm").
# The manual's chart: bench/e2e_bars.sh bench/e2e-2026-11-23.txt > doc/perf-e2e.txt (make plots).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
awk -v width="${WIDTH:-40}" -v tlabel="${TILEMM_LABEL:-tilemm}" '
  $1 != "e2e" { next }
  {
    key = $2 "/" $3
    if (key == "plain/tilemm") w = 1; else if (key == "nvblas/mtimes") w = 2
    else if (key == "plain/naive") w = 3; else if (key == "plain/mtimes") w = 4; else next
    gf[$4, $5, w] = $7
    if ($7 + 0 > top[$4]) top[$4] = $7 + 0
    if (!(($4, $5) in seen)) { seen[$4, $5] = 1; ns[$4] = ns[$4] " " $5 }
    if (!($4 in cseen)) { cseen[$4] = 1; classes[++nc] = $4 }
  }
  END {
    name[1] = tlabel; name[2] = "A*B with NVBLAS"; name[3] = "naive cuBLAS mex"; name[4] = "A*B (OpenBLAS)"
    for (c = 1; c <= nc; c++) {
      cls = classes[c]
      printf "%s%s: GFLOP/s of the whole call (longer is faster)\n", (c > 1 ? "\n" : ""), cls
      k = split (substr (ns[cls], 2), list, " ")
      for (i = 1; i <= k; i++) {
        n = list[i]
        printf "  n = %s\n", n
        for (w = 1; w <= 4; w++) {
          if (!((cls, n, w) in gf)) continue
          len = int (width * gf[cls, n, w] / top[cls] + 0.5)
          bar = ""; for (j = 0; j < len; j++) bar = bar "#"
          printf "    %-22s %-*s %6.0f\n", name[w], width, bar, gf[cls, n, w]
        }
      }
    }
  }' "$1"
