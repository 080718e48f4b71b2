## bench/pages_large.m — issue 27's large pages: pagemtimes (X, Y) on the GPU for PAGES pages of
## N×N against the same pages as PAGES plain tilemm calls (Z(:,:,i) = tilemm (X(:,:,i), Y(:,:,i))
## into a preallocated Z), end to end (tic/toc, median of REPEATS after a warm-up) and in device
## time (__tilemm_stats__'s backend_ms_sum over the call or calls: pagemtimes' large pages are
## products of their own), and the loop of `*`.  Prints "pageslarge CLASS N PAGES WHAT MEDIAN_MS
## BACKEND_MS MAXRELDIFF COPY_IN_MS COPY_OUT_MS" (device and copy figures: medians of the sums).
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
    line (cls, n, pages, "loop-of-mtimes", t, NaN (3, 1), 0);
    dev = zeros (3, repeats);
    for r = 0:repeats
      Z = zeros (n, n, pages, cls);
      s0 = __tilemm_stats__ ();
      t0 = tic ();
      for i = 1:pages
        Z(:, :, i) = tilemm (X(:, :, i), Y(:, :, i), "backend", "gpu");
      endfor
      if (r > 0) t(r) = toc (t0); dev(:, r) = sums_since (s0); endif
    endfor
    line (cls, n, pages, "plain-tilemm-calls", t, median (dev, 2), reldiff (Z, R));
    for r = 0:repeats
      s0 = __tilemm_stats__ ();
      t0 = tic ();
      Z = pagemtimes (X, Y, "backend", "gpu");
      if (r > 0) t(r) = toc (t0); dev(:, r) = sums_since (s0); endif
    endfor
    line (cls, n, pages, "pagemtimes-gpu", t, median (dev, 2), reldiff (Z, R));
    clear X Y Z R;
  endfor
endfunction

function r = reldiff (Z, R)
  r = double (max (abs (Z(:) - R(:))) / max (abs (R(:))));
endfunction

## The backend, copy-in and copy-out milliseconds of the GPU products since the stats s0.
function d = sums_since (s0)
  s = __tilemm_stats__ ();
  d = [s.backend_ms_sum - s0.backend_ms_sum; s.copy_in_ms_sum - s0.copy_in_ms_sum;
       s.copy_out_ms_sum - s0.copy_out_ms_sum];
endfunction

function line (cls, n, pages, what, t, dev_ms, rel)
  printf ("pageslarge %s %d %d %s %.1f %.1f %.2e %.1f %.1f\n", cls, n, pages, what,
          1e3 * median (t), dev_ms(1), rel, dev_ms(2), dev_ms(3));
  fflush (stdout);
endfunction
