#!/bin/bash
# bench/multi-gpu.sh — one product over several GPUs (issue 9), from Octave: C = tilemm (A, B)
# for n = 16384 double on devices [0] and on [0 1] (and on every usable GPU, the default), median
# of 3 timed calls after a warm-up each, the results compared bit for bit with the one-GPU one.
# For an nvidia-h200-x2 machine; on a machine with one GPU it says so and skips (exit 0), unless
# ONE_GPU=1, which times [0] against two workers on GPU 0 ([0 0]) as a smoke test instead.
#   source .gpu/setup.sh && bench/multi-gpu.sh PKGDIR     (PKGDIR: where tilemm.oct is loaded from)
# Environment: N (default 16384), CLASS (default double), REPEATS (default 3), CONFIGS (Octave cell
# of device lists, default "{[0], [0 1], []}", [] meaning the default: every usable GPU),
# MULTI_TIMEOUT (seconds for the Octave run, default 1200).
# Prints "multi-gpu DEVICES CLASS N MEDIAN_MS GFLOPS SPEEDUP SAME" lines (SAME: 1 when bitwise
# equal to the result on [0]).  Tuning the crossover: TILEMM_MULTI_* in src/common/multi.h.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
pkgdir=$(cd "${1:?usage: bench/multi-gpu.sh PKGDIR}" && pwd)
n=${N:-16384}
cls=${CLASS:-double}
repeats=${REPEATS:-3}
configs=${CONFIGS:-"{[0], [0 1], []}"}

gpus=0
if command -v nvidia-smi > /dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')
fi
if [ "$gpus" -lt 2 ]; then
  if [ "${ONE_GPU:-0}" = 1 ] && [ "$gpus" -ge 1 ]; then
    echo "multi-gpu: $gpus GPU here: timing [0] against two workers on GPU 0 ([0 0]) instead"
    configs="{[0], [0 0]}"
  else
    echo "multi-gpu: $gpus GPU(s) here; this benchmark needs 2 (an nvidia-h200-x2 machine): skipped"
    echo "multi-gpu: (ONE_GPU=1 times two workers on GPU 0 instead, as a smoke test)"
    exit 0
  fi
fi

timeout "${MULTI_TIMEOUT:-1200}" octave-cli --no-gui --norc --quiet --eval "
  addpath ('$pkgdir');
  n = $n; cls = '$cls'; repeats = $repeats; configs = $configs;
  s = tilemm_info ();
  if (! s.gpu_usable)
    printf ('multi-gpu: no usable GPU: %s; skipped\n', s.gpu_reason);
    exit (0);
  endif
  printf ('multi-gpu: %d GPU(s): %s; default workers [%s]\n', numel (s.devices), ...
          strjoin ({s.devices.name}, ', '), num2str (s.devices_in_use));
  rand ('seed', 1);
  A = cast (rand (n), cls);  B = cast (rand (n), cls);
  flops = 2 * n^3;
  ref = []; t_ref = NaN;
  for i = 1:numel (configs)
    d = configs{i};
    if (isempty (d))
      args = {'backend', 'gpu'};  label = 'default';
    else
      args = {'backend', 'gpu', 'devices', d};  label = ['[' num2str(d) ']'];
    endif
    C = tilemm (A, B, args{:});   # warm-up: workspaces, pinned staging, page faults
    t = zeros (1, repeats);
    for r = 1:repeats
      clear C;
      tic; C = tilemm (A, B, args{:}); t(r) = toc;
    endfor
    ms = 1e3 * median (t);
    if (isempty (ref))
      ref = C;  t_ref = ms;
    endif
    same = isequal (C, ref);
    printf ('multi-gpu %-8s %s %d %9.1f %8.1f %5.2f %d\n', label, cls, n, ms, ...
            flops / (ms * 1e-3) / 1e9, t_ref / ms, same);
    if (! same)
      printf ('multi-gpu: %s differs from [0]: max |diff| %g\n', label, max (abs (C(:) - ref(:))));
    endif
    fflush (stdout);
  endfor
" 2>&1 | grep -v "^error: ignoring const execution_exception"
exit "${PIPESTATUS[0]}"
