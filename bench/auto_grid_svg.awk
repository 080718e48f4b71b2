# bench/auto_grid_svg.awk — the auto grid's plot where gnuplot is missing: a bar a cell, "auto"'s
# time over the fastest explicit way's on a log scale (0.5 to 4), the 10% line dashed, a failing
# cell red.  Reads the grid's text (bench/auto_grid.m: a header line, then a line a cell).
#   awk -v title="..." -f bench/auto_grid_svg.awk GRID.txt > GRID.svg
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
NR > 1 && NF >= 13 {
  n++
  label[n] = $1 " " $2 " " $3 " " $4 (($5 > 1 || $1 == "pages") ? "x" $5 : "")
  ratio[n] = $12 + 0
  pass[n] = $13 + 0
}
function y_of (r) {
  if (r < lo) r = lo
  if (r > hi) r = hi
  return T + (log (hi) - log (r)) / (log (hi) - log (lo)) * (H - T - B)
}
END {
  if (n == 0) exit 1
  lo = 0.5; hi = 4; L = 60; R = 20; T = 40; B = 190
  bw = 14; W = L + R + n * bw; H = 560
  printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n", W, H
  printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
  printf "<text x=\"%d\" y=\"20\">%s</text>\n", L, (title != "" ? title : "tilemm \"auto\" over the fastest explicit way, each cell (1 = the fastest; dashed: 1.1)")
  split ("0.5 1 1.1 2 4", ticks, " ")
  for (i = 1; i <= 5; i++) {
    yy = y_of (ticks[i])
    printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"%s/><text x=\"5\" y=\"%.1f\">%s</text>\n", L, yy, W - R, yy, (ticks[i] == 1.1 ? "#888" : "#ddd"), (ticks[i] == 1.1 ? " stroke-dasharray=\"4 3\"" : ""), yy + 4, ticks[i]
  }
  base = y_of (1)
  for (i = 1; i <= n; i++) {
    x = L + (i - 1) * bw + 2
    top = y_of (ratio[i])
    y0 = top < base ? top : base
    h = top < base ? base - top : top - base
    printf "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s: %.3f</title></rect>\n", x, y0, bw - 4, (h < 1 ? 1 : h), (pass[i] ? "#1f77b4" : "#d62728"), label[i], ratio[i]
    printf "<text transform=\"translate(%d,%d) rotate(90)\" font-size=\"9\">%s</text>\n", x + 3, H - B + 6, label[i]
  }
  print "</svg>"
}
