#!/bin/bash
# bench/cpu_backend.sh — the tiled CPU backend against Octave's `*` (the BLAS it links):
# tilemm (A, B, 'backend', 'cpu') vs A * B for square double and single products, and
# pagemtimes (X, Y, 'backend', 'cpu') of PAGES pages vs the loop of `*` over the pages.
# Medians of REPEATS runs (after one warm-up), GF/s counted as 2·m·n·k (8·m·n·k complex).
#   bench/cpu_backend.sh SRCDIR [INSTDIR]   (SRCDIR holds tilemm.oct; INSTDIR the package's
#                                            inst/ for pagemtimes, default SRCDIR/../inst)
# Environment: SIZES (default "[1024 2048 4096]"), CLASSES (default "{'double', 'single'}"),
#   COMPLEX (1: also complex double at SIZES), PAGES (default 16), PAGE_SIZE (default 2048;
#   0 skips the pages part), REPEATS (default 3), MTIMES (0: time the CPU backend only, e.g. to
#   compare two builds case by case).
# On the GPU machine: source .gpu/setup.sh first (Octave, OpenBLAS), then run it on the build's
# src/.  Prints which CPU variant the backend runs (tilemm_info's cpu_variant), then a table.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
if [ $# -lt 1 ] || [ ! -f "$1/tilemm.oct" ]; then
  echo "usage: $0 SRCDIR [INSTDIR]   (SRCDIR/tilemm.oct must exist)" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
inst=$(cd "${2:-$src/../inst}" && pwd)
sizes=${SIZES:-"[1024 2048 4096]"}
classes=${CLASSES:-"{'double', 'single'}"}
complex=${COMPLEX:-0}
pages=${PAGES:-16}
page_size=${PAGE_SIZE:-2048}
repeats=${REPEATS:-3}
mtimes=${MTIMES:-1}

octave-cli --no-gui --norc --quiet --eval "
  addpath ('$src'); addpath ('$inst'); addpath ('$inst/compat');
  function t = median_time (f, repeats)
    f ();                                  # warm-up: first-touch, thread start
    t = zeros (1, repeats);
    for r = 1:repeats
      tic; f (); t(r) = toc;
    endfor
    t = median (t);
  endfunction
  function Z = loop_pages (X, Y)
    Z = zeros (size (X, 1), size (Y, 2), size (X, 3), class (X));
    for p = 1:size (X, 3)
      Z(:, :, p) = X(:, :, p) * Y(:, :, p);
    endfor
  endfunction
  info = tilemm_info ();
  isa_text = '?';
  if (isfield (info, 'cpu_variant')) isa_text = info.cpu_variant; endif
  printf ('cpu backend: %d threads (nproc), variant %s; BLAS: %s\n', nproc (), isa_text, ...
          version ('-blas'));
  printf ('%-28s %10s %10s %10s %10s %8s %10s\n', 'case', 'cpu ms', 'cpu GF/s', ...
          'mtimes ms', 'mtimes GF/s', 'ratio', 'maxreldiff');
  rows = {};
  cls = $classes;
  if ($complex) cls{end+1} = 'complex'; endif
  for c = 1:numel (cls)
    for n = $sizes
      if (strcmp (cls{c}, 'complex'))
        A = complex (rand (n), rand (n)); B = complex (rand (n), rand (n)); flops = 8 * n^3;
      else
        A = rand (n, cls{c}); B = rand (n, cls{c}); flops = 2 * n^3;
      endif
      tc = median_time (@() tilemm (A, B, 'backend', 'cpu'), $repeats);
      tm = NaN; d = NaN;
      if ($mtimes)
        tm = median_time (@() A * B, $repeats);
        C = tilemm (A, B, 'backend', 'cpu'); R = A * B;
        d = max (abs (C(:) - R(:))) / max (abs (R(:)));
      endif
      printf ('%-28s %10.1f %10.1f %10.1f %10.1f %8.2f %10.2g\n', ...
              sprintf ('%s %dx%d', cls{c}, n, n), 1e3 * tc, flops / tc / 1e9, ...
              1e3 * tm, flops / tm / 1e9, tm / tc, d);
      clear A B C R;
    endfor
  endfor
  if ($page_size > 0)
    n = $page_size; np = $pages; flops = 2 * n^3 * np;
    X = rand (n, n, np); Y = rand (n, n, np);
    tc = median_time (@() pagemtimes (X, Y, 'backend', 'cpu'), $repeats);
    tm = NaN; d = NaN;
    if ($mtimes)
      tm = median_time (@() loop_pages (X, Y), $repeats);
      Z = pagemtimes (X, Y, 'backend', 'cpu'); R = loop_pages (X, Y);
      d = max (abs (Z(:) - R(:))) / max (abs (R(:)));
    endif
    printf ('%-28s %10.1f %10.1f %10.1f %10.1f %8.2f %10.2g\n', ...
            sprintf ('pages double %dx%d x%d', n, n, np), 1e3 * tc, flops / tc / 1e9, ...
            1e3 * tm, flops / tm / 1e9, tm / tc, d);
  endif
  printf ('(ratio = mtimes time / cpu time: above 1, the CPU backend is faster)\n');
" 2>&1 | grep -v "^error: ignoring const execution_exception"
