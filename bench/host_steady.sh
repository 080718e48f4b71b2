#!/bin/bash
# bench/host_steady.sh — the host side as a user meets it (issue 41), on one machine, in fresh
# processes: OMP_NUM_THREADS and TILEMM_COPY_THREADS unset, the facts measured by the first call
# and stored, then read by every later process.  Steps (all by default; name some to run those):
#   first    a store with no facts: the first 2000 double product against the second, one process
#   steady   PROCS processes (default 5), each double 4096 and 8192 (median of 5 calls each,
#            __tilemm_stats__'s split of the median run)
#   copies   the same products with TILEMM_COPY_THREADS = each of COPY_SETTINGS (default "4 8 16
#            24 32", those above the CPUs left out), one process each: the best setting's figure
#   alternate  PROCS rounds, each a fresh process with the default (unset) and one with each of
#            ALT_SETTINGS (default "16"), alternating, so that the settings meet the same
#            stretches of the machine; per setting, the median over its processes of their
#            medians (the fair "within 1.1x of the best setting": one process a setting, as
#            `copies` runs, meets whatever the machine does in that one process)
#   cpu      the CPU backend's double 256 and 512, each call following a `*` of the same size,
#            median of 21, against the calibrated time (the facts' CPU curve there)
#   bist     `test tilemm_info` (the facts' check among them) ROUNDS times (default 5), each in a
#            fresh process
#   grid     bench/auto_grid.sh with SETTLE=0 (the ways back to back), GRID_TIMEOUT (default 300)
# Usage: bench/host_steady.sh DIR OUT [STEP ...]   (DIR: where tilemm.oct is loaded from: src/ of
# a build, or an installed package's folder; OUT: a folder for the logs, OUT/steady.txt the
# summary lines).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
dir=$(cd "${1:?usage: bench/host_steady.sh DIR OUT [STEP ...]}" && pwd)
out=${2:?usage: bench/host_steady.sh DIR OUT [STEP ...]}
shift 2
steps=${*:-first steady copies cpu bist grid}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
summary=$out/steady.txt
unset OMP_NUM_THREADS TILEMM_COPY_THREADS
export TILEMM_CALIBRATION_DIR=$out/facts
cpus=$(nproc)

say () { echo "$*" | tee -a "$summary"; }

octave_run () {
  octave-cli --no-gui --norc --quiet --eval "addpath ('$dir'); $1" 2>&1 \
    | grep -v "^error: ignoring const execution_exception"
}

# One process: double 4096 and 8192, median of 5 calls after one, the median run's split.
products='
  for n = [4096 8192]
    A = rand (n);  B = rand (n);  C = tilemm (A, B);  t = zeros (1, 5);  s = cell (1, 5);
    for r = 1:5
      tic;  C = tilemm (A, B);  t(r) = toc;  s{r} = __tilemm_stats__ ();
    endfor
    [~, i] = sort (t);  m = s{i(3)};
    printf ("n %d median %.1f ms min %.1f max %.1f | in %.1f compute %.1f out %.1f\n", n, ...
            1e3 * median (t), 1e3 * min (t), 1e3 * max (t), m.copy_in_ms, m.compute_ms, m.copy_out_ms);
  endfor'

say "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU'), $cpus CPUs"
for step in $steps; do
  case "$step" in
    first)
      rm -rf "$TILEMM_CALIBRATION_DIR"
      octave_run '
        A = rand (2000);  B = rand (2000);
        tic;  C = tilemm (A, B);  t1 = toc;  tic;  C = tilemm (A, B);  t2 = toc;
        printf ("first call %.3f s, second %.3f s, first - second %.3f s\n", t1, t2, t1 - t2);' \
        > "$out/first.log"
      say "first: $(grep '^first call' "$out/first.log")"
      grep "^tilemm:" "$out/first.log" | sed 's/^/  /' | tee -a "$summary"
      ;;
    steady)
      for p in $(seq 1 "${PROCS:-5}"); do
        octave_run "$products" > "$out/steady-$p.log"
        say "steady process $p: $(grep '^n ' "$out/steady-$p.log" | sed 's/ | .*//' | paste -sd ';')"
      done
      ;;
    copies)
      for c in ${COPY_SETTINGS:-4 8 16 24 32}; do
        [ "$c" -le "$cpus" ] || continue
        TILEMM_COPY_THREADS=$c octave_run "$products" > "$out/copies-$c.log"
        say "TILEMM_COPY_THREADS=$c: $(grep '^n ' "$out/copies-$c.log" | sed 's/ | .*//' | paste -sd ';')"
      done
      ;;
    alternate)
      : > "$out/alternate.txt"   # this run's lines alone (steady.txt keeps every run's)
      for p in $(seq 1 "${PROCS:-5}"); do
        for c in default ${ALT_SETTINGS:-16}; do
          [ "$c" = default ] || [ "$c" -le "$cpus" ] || continue
          if [ "$c" = default ]; then
            octave_run "$products" > "$out/alt-$c-$p.log"
          else
            TILEMM_COPY_THREADS=$c octave_run "$products" > "$out/alt-$c-$p.log"
          fi
          say "alternate $c process $p: $(grep '^n ' "$out/alt-$c-$p.log" | sed 's/ | .*//' | paste -sd ';')" \
            | tee -a "$out/alternate.txt"
        done
      done
      # per setting and size: the median, the largest and the smallest of the processes' medians
      awk '
        { c = $2; line = $0; sub (/^[^:]*: /, "", line); k = split (line, part, ";");
          for (q = 1; q <= k; q++) { split (part[q], w, " "); v[c, w[2], ++cnt[c, w[2]]] = w[4]; seen[c] = 1; sizes[w[2]] = 1 } }
        END { for (c in seen) for (n in sizes) { m = cnt[c, n]; if (!m) continue;
                for (i = 1; i <= m; i++) x[i] = v[c, n, i];
                for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
                med = (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2;
                printf "alternate summary: %s n %s processes %d median of medians %.1f ms, largest %.1f, smallest %.1f\n", c, n, m, med, x[m], x[1] } }' \
        "$out/alternate.txt" | sort | while read -r line; do say "$line"; done
      ;;
    cpu)
      octave_run '
        c = tilemm_info ().calibration.cpu(2);
        for n = [256 512]
          A = rand (n);  B = rand (n);  t = zeros (1, 21);
          for r = 1:21
            D = A * B;  tic;  C = tilemm (A, B, "backend", "cpu");  t(r) = toc;
          endfor
          f = 2 * n^3;  [~, i] = min (abs (log (c.flops / f)));
          cal = c.seconds(i) * f / c.flops(i);
          printf ("cpu after *: n %d median %.3f ms (min %.3f, max %.3f), calibrated %.3f ms, ratio %.2f\n", ...
                  n, 1e3 * median (t), 1e3 * min (t), 1e3 * max (t), 1e3 * cal, median (t) / cal);
        endfor' > "$out/cpu.log"
      grep "^cpu after" "$out/cpu.log" | while read -r line; do say "$line"; done
      ;;
    bist)
      for r in $(seq 1 "${ROUNDS:-5}"); do
        octave_run "test tilemm_info" > "$out/bist-info-$r.log" 2>&1
        say "test tilemm_info round $r: $(grep -E 'PASSES|FAIL' "$out/bist-info-$r.log" | tail -1)"
        grep -B2 -A4 "^!!!!!" "$out/bist-info-$r.log" | head -20 >> "$summary"
      done
      # (The oct-file's own BIST, tilemm's, is the project's tests/bist.sh: `test` finds no
      # source of a dynamically linked function outside an installed package.)
      ;;
    grid)
      SETTLE=0 GRID_TIMEOUT=${GRID_TIMEOUT:-300} "$here/auto_grid.sh" "$dir" "$out/grid" \
        > "$out/grid.log" 2>&1
      tail -n 4 "$out/grid.log" | while read -r line; do say "grid: $line"; done
      ;;
    *)
      echo "host_steady: no step $step" >&2
      exit 2
      ;;
  esac
done
