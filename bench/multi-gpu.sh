#!/bin/bash
# bench/multi-gpu.sh — several GPUs against one, from Octave, for the two-GPU machine (issue 35):
# from the release tarball (built here as `pkg install` builds it: configure, make), one Octave
# process per line, each line on devices [0], [0 1] and tilemm's default, medians of REPEATS
# timed calls after a warm-up, every result compared bit for bit with GPU 0's (bench/multi_gpu.m),
# each line's figures per device (__tilemm_stats__), then a table and a plot of time against n.
#
#   make dist                                              (here: tilemm-0.1.0.tar.gz)
#   source .gpu/setup.sh && bench/multi-gpu.sh tilemm-0.1.0.tar.gz     (on the GPU machine)
#   bench/multi-gpu.sh --build-only tilemm-0.1.0.tar.gz    (the build step alone, anywhere)
#   bench/multi-gpu.sh --from-build DIR                    (lines on a tree already built)
#   bench/multi-gpu.sh --table RESULTS.txt                 (the table again, here)
#   bench/multi-gpu.sh --plot RESULTS.txt PLOT.png         (the plot again, here: gnuplot, else
#                                                           an SVG written by awk)
# The lines (the default; PARTS picks some, e.g. PARTS="sweep pages"):
#   sweep     tilemm (A, B), double, n = SWEEP (256 512 1024 2048 4096 8192 12288 16384)
#   single    single 16384
#   emulated  "precision", "emulated", double 16384
#   pages     pagemtimes 1024x1024 x 64 double, 256x256 x 200 double
#   blas      Octave's A * B with libtilemm_blas.so preloaded (TILEMM_BLAS_BACKEND=gpu, the
#             devices by TILEMM_DEVICES), double 16384
# Each on CONFIGS (default "0;0 1;default").  Environment: REPEATS (3; the sweep's n up to 2048
# take SMALL_REPEATS, 7), SWEEP, CONFIGS, PARTS, OUT (where the results go, default $OUT or
# /tmp/multi-gpu), WORK (the build's folder, default /tmp/tilemm-multi), CUDA_ARCH (90),
# LINE_TIMEOUT (seconds per line, 120).  About 4-5 minutes on 2x H100 with 32 cores (estimated:
# the build about 1.5 minutes, 39 lines of 1-10 s, most of it making 16384^2 operands).
# On a machine with fewer than two GPUs it says so and runs only [0] (a smoke test).
#
# Output: OUT/multi-gpu.txt (every line), OUT/multi-gpu-table.md, OUT/multi-gpu.png (or .svg).
#   multi-gpu WHAT CLASS SIZE CONFIG MEDIAN_MS MIN_MS GFLOPS SAME DEVICES_RAN
#   multi-gpu-split ... WALL UPLOAD COMPUTE DOWNLOAD COPY_IN COPY_OUT HOST_READS  (the whole, ms;
#                       HOST_READS: bytes up over op(A) and op(B)'s bytes, 1 = each read once)
#   multi-gpu-device ... GPU PANELS BUSY UPLOAD COMPUTE DOWNLOAD COPY_IN COPY_OUT THREADS BYTES_UP
#                        PEER_BYTES
# (SAME: 1 bitwise GPU 0's, 0 not, -1 handed to the host's `*` by the default.)
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/multi-gpu}
work=${WORK:-/tmp/tilemm-multi}
repeats=${REPEATS:-3}
small_repeats=${SMALL_REPEATS:-7}
sweep=${SWEEP:-"256 512 1024 2048 4096 8192 12288 16384"}
configs=${CONFIGS:-"0;0 1;default"}
parts=${PARTS:-"sweep single emulated pages blas"}
has () { case " $parts " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
start=$(date +%s)
elapsed () { echo "$(( $(date +%s) - start ))s"; }

# ---------------------------------------------------------------- the plot
# Time against n of the sweep, one line per configuration; gnuplot's PNG where gnuplot is, else
# an SVG drawn here (log2 n across, log ms up).
plot () {
  local txt=$1 png=$2 data
  data=$(mktemp -d)
  awk '$1 == "multi-gpu" && $2 == "plain" && $3 == "double" { print $4, $6 > ("'"$data"'/" $5 ".dat") }' "$txt"
  if ! ls "$data"/*.dat > /dev/null 2>&1; then
    echo "multi-gpu: no sweep lines to plot"
    rm -rf "$data"
    return 1
  fi
  if command -v gnuplot > /dev/null 2>&1; then
    local cmds="" f
    for f in "$data"/*.dat; do
      [ -s "$f" ] || continue
      local c; c=$(basename "$f" .dat)
      sort -n "$f" -o "$f"
      cmds="$cmds${cmds:+, }\"$f\" with linespoints lw 2 title \"$( [ "$c" = default ] && echo default || echo "devices [${c//,/ }]")\""
    done
    [ -n "$cmds" ] || { echo "multi-gpu: nothing to plot"; rm -rf "$data"; return 1; }
    gnuplot <<GP
set terminal pngcairo size 900,560 font ",10"
set output "$png"
set title "tilemm (A, B), double, n×n: median ms of the whole Octave call (bench/multi-gpu.sh)"
set logscale xy 2
set xlabel "n"
set ylabel "ms"
set key top left
set grid
plot $cmds
GP
    echo "multi-gpu: plot $png"
  else
    local svg=${png%.png}.svg
    cat "$data"/*.dat | sort -n | awk -v dir="$data" -v svg="$svg" '
      BEGIN { W = 900; H = 560; L = 70; R = 20; T = 40; B = 50 }
      { n[NR] = $1; ms[NR] = $2 }
      END {
        if (NR == 0) exit 1
        xmin = xmax = log (n[1]) / log (2); ymin = ymax = log (ms[1]) / log (2)
        for (i = 1; i <= NR; i++) {
          x = log (n[i]) / log (2); y = log (ms[i] > 0 ? ms[i] : 1e-3) / log (2)
          if (x < xmin) xmin = x; if (x > xmax) xmax = x; if (y < ymin) ymin = y; if (y > ymax) ymax = y
        }
        ymin = int (ymin - 1); ymax = int (ymax + 1); if (xmax == xmin) xmax = xmin + 1
        printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H > svg
        printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n" > svg
        printf "<text x=\"%d\" y=\"20\">tilemm (A, B), double: median ms of the whole call against n (log scales)</text>\n", L > svg
        for (e = ymin; e <= ymax; e++) {
          yy = H - B - (e - ymin) / (ymax - ymin) * (H - T - B)
          printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"5\" y=\"%.1f\">%g ms</text>\n", L, yy, W - R, yy, yy + 4, 2 ^ e > svg
        }
        for (e = int (xmin); e <= xmax; e++) {
          xx = L + (e - xmin) / (xmax - xmin) * (W - L - R)
          printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%d\">%d</text>\n", xx, T, xx, H - B, xx - 12, H - B + 18, 2 ^ e > svg
        }
        ncol = split ("#1f77b4 #d62728 #2ca02c #9467bd", col, " ")
        cmd = "ls " dir "/*.dat"; k = 0
        while (((cmd) | getline f) > 0) {
          k++; pts = ""; name = f; sub (/.*\//, "", name); sub (/\.dat$/, "", name)
          label = name; gsub (/,/, " ", label)
          sorter = "sort -n \"" f "\""
          while (((sorter) | getline line) > 0) {
            split (line, v, " "); x = log (v[1]) / log (2); y = log (v[2] > 0 ? v[2] : 1e-3) / log (2)
            pts = pts sprintf ("%.1f,%.1f ", L + (x - xmin) / (xmax - xmin) * (W - L - R), H - B - (y - ymin) / (ymax - ymin) * (H - T - B))
          }
          close (sorter)
          printf "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>\n", col[(k - 1) % ncol + 1], pts > svg
          printf "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", L + 10, T + 15 * k, col[(k - 1) % ncol + 1], (name == "default" ? "default" : "devices [" label "]") > svg
        }
        print "</svg>" > svg
      }' && echo "multi-gpu: no gnuplot here; plot $svg"
  fi
  rm -rf "$data"
}

# ---------------------------------------------------------------- the table
table () {
  # One column a configuration, in the order the lines ran; "best" is the fastest explicit one
  # (the default is measured against it), "best vs [0]" its speedup over one GPU.
  local txt=$1
  awk '
    $1 == "multi-gpu" { key = $2 " " $3 " " $4; c = $5
      ms[key "|" c] = $6; same[key "|" c] = $9; ran[key "|" c] = $10
      if (!(key in seen)) { seen[key] = 1; order[++n] = key }
      if (!(c in cseen)) { cseen[c] = 1; conf[++nc] = c } }
    END {
      head = "| product | class | size"; rule = "|---|---|---"
      for (j = 1; j <= nc; j++) { head = head " | [" (conf[j] == "default" ? "default" : conf[j]) "] ms"; rule = rule "|---" }
      print head " | best | best vs [0] | default vs best | bitwise (each config) | GPUs (default) |"
      print rule "|---|---|---|---|---|"
      for (i = 1; i <= n; i++) {
        k = order[i]; split (k, f, " "); line = "| " f[1] " | " f[2] " | " f[3]
        best = ""; bestc = ""; bits = ""
        for (j = 1; j <= nc; j++) {
          v = ms[k "|" conf[j]]; line = line " | " v
          if (v != "") bits = bits (bits == "" ? "" : ", ") same[k "|" conf[j]]
          if (conf[j] != "default" && v != "" && (best == "" || v + 0 < best + 0)) { best = v; bestc = conf[j] }
        }
        one = ms[k "|0"]; def = ms[k "|default"]
        printf "%s | [%s] | %s | %s | %s | %s |\n", line, bestc,
          (one != "" && best != "" ? sprintf ("%.2fx", one / best) : ""),
          (def != "" && best != "" ? sprintf ("%+.1f%%", 100 * (def - best) / best) : ""),
          bits, ran[k "|default"]
      }
    }' "$txt"
}

if [ "${1:-}" = --table ]; then
  table "${2:?usage: bench/multi-gpu.sh --table RESULTS.txt}"
  exit
fi
if [ "${1:-}" = --plot ]; then
  plot "${2:?usage: bench/multi-gpu.sh --plot RESULTS.txt PLOT.png}" "${3:?PLOT.png}"
  exit $?
fi

# ---------------------------------------------------------------- the build
build_only=0
if [ "${1:-}" = --build-only ]; then
  build_only=1
  shift
fi
if [ "${1:-}" = --from-build ]; then
  tree=$(cd "${2:?usage: bench/multi-gpu.sh --from-build DIR}" && pwd)
else
  tarball=$(cd "$(dirname "${1:?usage: bench/multi-gpu.sh TARBALL}")" && pwd)/$(basename "$1")
  rm -rf "$work"
  mkdir -p "$work"
  tar -C "$work" -xzf "$tarball" || exit 1
  tree=$(ls -d "$work"/tilemm-*/ | head -n 1)
  tree=${tree%/}
  echo "multi-gpu: building $tarball in $tree (configure --with-cuda-arch=${CUDA_ARCH:-90}, make)"
  ( cd "$tree" && ./configure --with-cuda-arch="${CUDA_ARCH:-90}" > "$work/configure.log" 2>&1 \
      && make -j"$(nproc)" > "$work/make.log" 2>&1 ) \
    || { tail -n 30 "$work/configure.log" "$work/make.log" 2>/dev/null; exit 1; }
  echo "multi-gpu: built in $(elapsed)"
fi
[ -f "$tree/src/tilemm.oct" ] && [ -f "$tree/src/libtilemm_blas.so" ] \
  || { echo "multi-gpu: no tilemm.oct and libtilemm_blas.so in $tree/src"; exit 1; }
if [ "$build_only" = 1 ]; then
  echo "multi-gpu: built tree $tree (run its lines with --from-build $tree)"
  exit 0
fi

# ---------------------------------------------------------------- the lines
mkdir -p "$out"
txt="$out/multi-gpu.txt"
: > "$txt"
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')
{
  echo "multi-gpu: $(date -u), $(hostname), $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | sort | uniq -c | xargs)"
  echo "multi-gpu: $(nproc) CPUs usable of $(getconf _NPROCESSORS_ONLN), $(lscpu 2> /dev/null | grep -E '^NUMA node\(s\)' | xargs); tree $tree"
  nvidia-smi topo -m 2> /dev/null | sed 's/^/multi-gpu-topo /'
} | tee -a "$txt"
if [ "${gpus:-0}" -lt 2 ]; then
  echo "multi-gpu: fewer than two GPUs here: only [0] (a smoke test of the lines)" | tee -a "$txt"
  configs="0"
fi
lib="$tree/src/libtilemm_blas.so"
line () {   # $1 what, $2 class, $3 shape (Octave), $4 repeats: one Octave process per config
  local what=$1 cls=$2 shape=$3 reps=$4 config devices pre
  IFS=';' read -r -a list <<< "$configs"
  for config in "${list[@]}"; do
    devices="[${config// /,}]"
    [ "$config" = default ] && devices="[]"
    pre=()
    [ "$what" = blas ] && pre=(env LD_PRELOAD="$lib" TILEMM_BLAS_BACKEND=gpu)
    echo "multi-gpu: $(elapsed) $what $cls $shape on $config" >&2
    "${pre[@]}" timeout "${LINE_TIMEOUT:-120}" octave-cli --no-gui --norc --quiet --eval "
      crash_dumps_octave_core (false);   # a line cut by its timeout leaves no operands on disk
      addpath ('$tree/src'); addpath ('$tree/inst'); addpath ('$here');
      multi_gpu ('$what', '$cls', $shape, $devices, $reps);" 2>&1 \
      | grep -v "^error: ignoring const execution_exception" | tee -a "$txt"
  done
}
if has sweep; then
  for n in $sweep; do
    line plain double "$n" "$([ "$n" -le 2048 ] && echo "$small_repeats" || echo "$repeats")"
  done
fi
has single && line plain single 16384 "$repeats"
has emulated && line emulated double 16384 "$repeats"
if has pages; then
  line pages double "[1024 64]" "$repeats"
  line pages double "[256 200]" "$small_repeats"
fi
has blas && line blas double 16384 "$repeats"
echo "multi-gpu: lines done in $(elapsed)" | tee -a "$txt"

table "$txt" | tee "$out/multi-gpu-table.md"
grep -q "^multi-gpu-differs" "$txt" && { echo "multi-gpu: SOME RESULTS DIFFER FROM GPU 0's:"; grep "^multi-gpu-differs" "$txt"; }
plot "$txt" "$out/multi-gpu.png"
echo "multi-gpu: done in $(elapsed); results in $out"
