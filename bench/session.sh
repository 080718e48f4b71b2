#!/bin/bash
# bench/session.sh — one run on the GPU machine, from a release tarball: build it as pkg install
# would (configure, make), then the steps named, each logging to $OUT/STEP.log:
#   calibrate  the machine's facts measured (tilemm_info ("calibrate")), printed and kept in
#              $OUT/facts.txt, with the decisions "auto" then makes for a few products
#   facts      tests/test_facts.c and the tilemm_info BIST (the facts true of this machine)
#   grid       bench/auto_grid.sh (PLAIN, PAGE_SIZES, PAGE_COUNTS as there; GRID_OUT names it)
#   multi      bench/multi-gpu.sh on this build (its own environment variables; OUT/multi)
#   e2e        bench/e2e.sh's plain and NVBLAS parts (PARTS), where the script is there
# Usage (from the repository root, .gpu and the tarball carried):
#   source .gpu/setup.sh && bench/session.sh tilemm-0.1.0.tar.gz calibrate grid ...
# Environment: ARCH (configure --with-cuda-arch, default "90"), WORK (default /tmp/tilemm-run),
# OUT (default /tmp/tilemm-out), BUILT (a tree already built from the tarball: no build, the
# tarball argument then unused).  Prints each step's last lines; the build's log on failure.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/tilemm-out}
work=${WORK:-/tmp/tilemm-run}
mkdir -p "$out"
[ -n "${BUILT:-}" ] || { rm -rf "$work"; mkdir -p "$work"; }
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$out/gpus.txt"
nvidia-smi topo -m > "$out/topo.txt" 2>&1 || true
echo "cores $(nproc); $(octave-cli --version | head -1)" | tee -a "$out/gpus.txt"
t0=$(date +%s)
if [ -n "${BUILT:-}" ]; then
  # a tree already built from the tarball (tests/gpu-checks.sh's, say): the steps on it
  cd "$BUILT" || exit 1
  top=$PWD
else
  tar -C "$work" -xzf "$tarball" || exit 1
  cd "$work"/tilemm-* || exit 1
  top=$PWD
  ./configure --with-cuda-arch="${ARCH:-90}" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  make -j"$(nproc)" > "$out/make.log" 2>&1 || { tail -40 "$out/make.log"; exit 1; }
  echo "session: built in $(( $(date +%s) - t0 )) s"
fi
export TILEMM_CALIBRATION_DIR=$out/calibration
run_octave () {
  octave-cli --no-gui --norc --quiet --eval "addpath ('$top/src'); addpath ('$top/inst'); $1" 2>&1 |
    grep -v "^error: ignoring const execution_exception"
}
for step in "$@"; do
  s0=$(date +%s)
  echo "== $step"
  case "$step" in
    calibrate)
      run_octave "
        tic; s = tilemm_info ('calibrate'); t = toc;
        c = s.calibration;
        printf ('calibrated in %.2f s (measured %.2f s): %s\n', t, c.measured_seconds, c.where);
        printf ('key: %s\n', strjoin (cellfun (@(f) [f '=' c.key.(f)], fieldnames (c.key)', 'UniformOutput', false), '; '));
        for t = 1:4
          printf ('host %-15s GFLOP/s %s\n', c.host(t).type, mat2str (c.host(t).gflops, 3));
          printf ('cpu  %-15s GFLOP/s %s\n', c.cpu(t).type, mat2str (c.cpu(t).gflops, 3));
        endfor
        printf ('copy GB/s by threads %s: %s\n', mat2str (c.copy.threads), mat2str (c.copy.gbytes_per_s, 3));
        printf ('cpu batch: page %.3g s, small page %.3g s, thread %.3g GFLOP/s, region %.3g s\n', ...
                c.cpu_batch.page_seconds, c.cpu_batch.small_page_seconds, c.cpu_batch.thread_gflops, c.cpu_batch.region_seconds);
        g = c.gpu;
        printf ('gpu: %d, call %.3g s, bus %.3g GB/s, kernels TF/s %s, all %d: call %.3g s, speedup %.3g; batch call %.3g s, TF/s %s\n', ...
                g.count, g.call_seconds, g.bus_gbytes_per_s, mat2str (g.kernel_tflops, 3), g.all_count, ...
                g.all_call_seconds, g.all_speedup, g.batch_call_seconds, mat2str (g.batch_tflops, 3));
        for t = 1:numel (g.calls)
          printf ('  calls %-15s n %s: ms %s\n', g.calls(t).type, mat2str (round ((g.calls(t).flops / (2 * (1 + 3 * any (t == [3 4])))) .^ (1/3))), ...
                  mat2str (1e3 * g.calls(t).seconds, 3));
        endfor
        for d = g.devices
          printf ('  GPU %d %s: kernels TF/s %s, up %.3g down %.3g GB/s, both busy %.3g / %.3g\n', d.ordinal, d.name, ...
                  mat2str (d.kernel_tflops, 3), d.up_gbytes_per_s, d.down_gbytes_per_s, d.up_busy_gbytes_per_s, d.down_busy_gbytes_per_s);
        endfor
        for n = [64 256 1024 4096 8192]
          text = __tilemm_plan__ (ones (n), ones (n));
          line = regexp (text, 'auto:[^\n]*', 'match', 'once');
          w = regexp (text, 'workers: [^\n]*', 'match', 'once');
          printf ('double %5d: %s; %s\n', n, line, w);
        endfor
      " | tee "$out/calibrate.log"
      cp "$out"/calibration/facts-*.txt "$out/facts.txt" 2>/dev/null
      ;;
    facts)
      make -C src test_facts > "$out/facts-build.log" 2>&1 && src/test_facts 2>&1 | tail -5 | tee "$out/facts.log"
      run_octave "test tilemm_info" | tail -5 | tee -a "$out/facts.log"
      ;;
    grid)
      "$here/auto_grid.sh" "$top/src" "$out/${GRID_OUT:-grid}" > "$out/${GRID_OUT:-grid}.log" 2>&1
      tail -4 "$out/${GRID_OUT:-grid}.log"
      ;;
    multi)
      OUT=$out/multi "$here/multi-gpu.sh" --from-build "$top" > "$out/multi.log" 2>&1
      tail -40 "$out/multi.log"
      ;;
    e2e)
      if [ -x "$here/e2e.sh" ]; then
        PARTS=${PARTS:-plain} "$here/e2e.sh" "$top/src" > "$out/e2e.log" 2>&1
        tail -20 "$out/e2e.log"
      fi
      ;;
    *) echo "session: unknown step $step" ;;
  esac
  echo "session: $step took $(( $(date +%s) - s0 )) s"
done
