## bench/pages_large.m — issue 27's large pages: pagemtimes (X, Y) on the GPU for PAGES pages of
## N×N against the same pages as PAGES plain tilemm calls (Z(:,:,i) = tilemm (X(:,:,i), Y(:,:,i))
## into a preallocated Z), end to end (tic/toc, median of REPEATS after a warm-up) and in device
## time (__tilemm_stats__'s backend_ms: the plain calls' sum; pagemtimes' one batch), and the loop
## of `*`.  Prints "pageslarge CLASS N PAGES WHAT MEDIAN_MS BACKEND_MS MAXRELDIFF".
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function pages_large (n, pages, classes, repeats)
  for c = 1:numel (classes)
    cls = classes{c};
    X = rand (n, n, pages, cls); Y = rand (n, n, pages, cls);
    R = zeros (n, n, pages, cls);
    t = zeros (1, repeats);
    for r = 0:repeats
      t0 = tic ();
      for i = 1:pages
        R(:, :, i) = X(:, :, i) * Y(:, :, i);
      endfor
      if (r > 0) t(r) = toc (t0); endif
    endfor
    line (cls, n, pages, "loop-of-mtimes", t, NaN, 0);
    dev = zeros (1, repeats);
    for r = 0:repeats
      Z = zeros (n, n, pages, cls); d = 0;
      t0 = tic ();
      for i = 1:pages
        Z(:, :, i) = tilemm (X(:, :, i), Y(:, :, i), "backend", "gpu");
        s = __tilemm_stats__ (); d += s.backend_ms;
      endfor
      if (r > 0) t(r) = toc (t0); dev(r) = d; endif
    endfor
    line (cls, n, pages, "plain-tilemm-calls", t, median (dev), reldiff (Z, R));
    for r = 0:repeats
      t0 = tic ();
      Z = pagemtimes (X, Y, "backend", "gpu");
      if (r > 0) t(r) = toc (t0); s = __tilemm_stats__ (); dev(r) = s.backend_ms; endif
    endfor
    line (cls, n, pages, "pagemtimes-gpu", t, median (dev), reldiff (Z, R));
    clear X Y Z R;
  endfor
endfunction

function r = reldiff (Z, R)
  r = double (max (abs (Z(:) - R(:))) / max (abs (R(:))));
endfunction

function line (cls, n, pages, what, t, dev_ms, rel)
  printf ("pageslarge %s %d %d %s %.1f %.1f %.2e\n", cls, n, pages, what, 1e3 * median (t), dev_ms, rel);
  fflush (stdout);
endfunction
