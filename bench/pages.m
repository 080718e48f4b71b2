## pages (CASES, REPEATS, BACKENDS) — times pagemtimes against the loop of `*` it replaces, in
## this one Octave process: for each case [m k n pages] (pages of op(X) m×k and op(Y) k×n,
## double), the loop Z(:,:,i) = X(:,:,i) * Y(:,:,i) into a preallocated Z, and pagemtimes on each
## of BACKENDS ("cpu", "gpu", "auto"; a backend that fails, e.g. "gpu" without a GPU, is
## reported and skipped), the median of REPEATS runs each (one warm-up run first).  Prints a line
##   pages M K N PAGES WHAT MS SPEEDUP MAXRELDIFF
## per measurement (SPEEDUP: the loop's median over this one's; MAXRELDIFF: against the loop's
## result), then a table.  Returns the lines as a struct array.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function rows = pages (cases, repeats, backends)
  if (nargin < 2)
    repeats = 5;
  endif
  if (nargin < 3)
    backends = {"cpu", "gpu", "auto"};
  endif
  rows = struct ("m", {}, "k", {}, "n", {}, "pages", {}, "what", {}, "ms", {}, "speedup", {},
                 "reldiff", {});
  for c = 1:rows_ (cases)
    m = cases(c, 1); k = cases(c, 2); n = cases(c, 3); p = cases(c, 4);
    X = rand (m, k, p); Y = rand (k, n, p);
    [t_loop, R] = time_it (@() loop_of_mtimes (X, Y), repeats);
    rows(end+1) = report (m, k, n, p, "loop", t_loop, t_loop, 0);
    for b = 1:numel (backends)
      try
        [t, Z] = time_it (@() pagemtimes (X, Y, "backend", backends{b}), repeats);
        rel = max (abs (Z(:) - R(:))) / max (abs (R(:)) + realmin);
        rows(end+1) = report (m, k, n, p, backends{b}, t, t_loop, rel);
      catch err
        printf ("pages %d %d %d %d %s failed: %s\n", m, k, n, p, backends{b}, err.message);
      end_try_catch
    endfor
    clear X Y R Z;
  endfor
  print_table (rows, backends);
endfunction

function n = rows_ (x)
  n = size (x, 1);
endfunction

function Z = loop_of_mtimes (X, Y)
  p = size (X, 3);
  Z = zeros (rows (X), columns (Y), p);
  for i = 1:p
    Z(:, :, i) = X(:, :, i) * Y(:, :, i);
  endfor
endfunction

## The median of `repeats` timed runs after one warm-up run (whose result is returned).
function [t, out] = time_it (f, repeats)
  out = f ();
  times = zeros (1, repeats);
  for r = 1:repeats
    t0 = tic ();
    f ();
    times(r) = toc (t0);
  endfor
  t = median (times);
endfunction

function row = report (m, k, n, p, what, t, t_loop, rel)
  row = struct ("m", m, "k", k, "n", n, "pages", p, "what", what, "ms", 1e3 * t,
                "speedup", t_loop / t, "reldiff", rel);
  printf ("pages %d %d %d %d %s %.3f %.2f %.2e\n", m, k, n, p, what, 1e3 * t, t_loop / t, rel);
  fflush (stdout);
endfunction

function print_table (rows, backends)
  printf ("\n%-22s %12s", "case (m k n x pages)", "loop ms");
  for b = 1:numel (backends)
    printf (" %12s %8s", [backends{b} " ms"], "x loop");
  endfor
  printf ("\n");
  keys = unique (arrayfun (@(r) sprintf ("%d %d %d x %d", r.m, r.k, r.n, r.pages), rows,
                           "UniformOutput", false), "stable");
  for i = 1:numel (keys)
    sel = rows(strcmp (arrayfun (@(r) sprintf ("%d %d %d x %d", r.m, r.k, r.n, r.pages), rows,
                                 "UniformOutput", false), keys{i}));
    loop = sel(strcmp ({sel.what}, "loop"));
    printf ("%-22s %12.3f", keys{i}, loop.ms);
    for b = 1:numel (backends)
      r = sel(strcmp ({sel.what}, backends{b}));
      if (isempty (r))
        printf (" %12s %8s", "-", "-");
      else
        printf (" %12.3f %8.2f", r.ms, r.speedup);
      endif
    endfor
    printf ("\n");
  endfor
endfunction
