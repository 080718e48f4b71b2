#!/bin/bash
# bench/plan_exec.sh — issue 26's end-to-end check on the GPU machine, in one run: the release
# tarballs of the build before and after (bench/plan_exec.m on each, twice, alternating, so the
# spread shows), and a transposed product under max_device_bytes with the device's memory sampled
# while it runs (nvidia-smi every 20 ms).
#   source .gpu/setup.sh && bench/plan_exec.sh OLD.tar.gz NEW.tar.gz
# Environment: SIZES (default "[4096 8192]"), REPEATS (default 5), OUT (default /tmp).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
here=$(cd "$(dirname "$0")" && pwd)
sizes=${SIZES:-"[4096 8192]"}
repeats=${REPEATS:-5}
out=${OUT:-/tmp}
work=$(mktemp -d)
build () {   # $1 tarball, $2 folder
  mkdir -p "$2" && tar -C "$2" -xzf "$1" && cd "$2"/tilemm-* \
    && ./configure --with-cuda-arch=90 > "$2/build.log" 2>&1 && make -j"$(nproc)" >> "$2/build.log" 2>&1
}
old_tar=$(readlink -f "$1"); new_tar=$(readlink -f "$2")
( build "$old_tar" "$work/old" ) &
( build "$new_tar" "$work/new" )
wait
old_src=$(ls -d "$work"/old/tilemm-*/src); new_src=$(ls -d "$work"/new/tilemm-*/src)
[ -f "$old_src/tilemm.oct" ] && [ -f "$new_src/tilemm.oct" ] || { echo "plan_exec.sh: a build failed"; tail -5 "$work"/*/build.log; exit 1; }
run () {   # $1 label, $2 src
  timeout 300 octave-cli --no-gui --norc --quiet --eval "addpath ('$2'); addpath ('$here'); plan_exec ('$1', $sizes, {'double', 'single'}, $repeats)" 2>&1 \
    | grep -v "^error: ignoring const execution_exception"
}
{
  run before "$old_src"; run after "$new_src"; run before "$old_src"; run after "$new_src"
} | tee "$out/plan_exec.txt"

echo "== a transposed product under max_device_bytes = 1 GiB, device memory sampled"
limit_run () {   # $1 label, $2 src, $3 op of A
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 20 > "$work/mem-$1.txt" &
  local smi=$!
  timeout 300 octave-cli --no-gui --norc --quiet --eval "addpath ('$2');
    C = tilemm (rand (64), rand (64), 'backend', 'gpu'); pause (0.5);
    m = 12000; k = 10000; n = 14000;
    A = rand (k, m); B = rand (k, n); if (strcmp ('$3', 'none')) A = A.'; end
    tic; C = tilemm (A, '$3', B, 'none', 'backend', 'gpu', 'max_device_bytes', 2^30); t = toc;
    i = randi (m, 1, 200); j = randi (n, 1, 200); 
    if (strcmp ('$3', 'none')) R = A(i, :) * B(:, j); else R = A(:, i).' * B(:, j); end
    printf ('limit %s: %.0f ms, max rel diff on 200x200 entries %.2e\n', '$1', 1e3 * t, max (max (abs (C(i, j) - R) ./ abs (R))));
    pause (0.5);" 2>&1 | grep -v "^error: ignoring const"
  kill $smi; wait $smi 2>/dev/null
  local base peak
  base=$(head -n 20 "$work/mem-$1.txt" | sort -n | head -n 1); peak=$(sort -n "$work/mem-$1.txt" | tail -n 1)
  echo "limit $1: device memory.used MiB: before $base, peak $peak, peak above before $((peak - base)) (limit 1024)"
}
limit_run before-transposed "$old_src" transpose
limit_run after-transposed "$new_src" transpose
limit_run after-plain "$new_src" none
