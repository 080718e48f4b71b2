## bench/plan_exec.m — the end-to-end figures issue 26 asks to keep, for one build of tilemm
## (bench/plan_exec.sh runs it for the build before and after, in one GPU run): tilemm (A, B) on
## operands reused call after call and on fresh ones (a new rand before each call, and a new one
## read once by the host before the call), the emulated precision, and a transposed product;
## median of `repeats` calls after a warm-up; the host's copy-in time from __tilemm_stats__.
## Prints "planexec LABEL WHAT CLASS N MEDIAN_MS MIN_MS COPYIN_MS RELDIFF".
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function plan_exec (label, sizes, classes, repeats)
  for c = 1:numel (classes)
    cls = classes{c};
    for n = sizes
      A = rand (n, cls); B = rand (n, cls);
      ref = double (A) * double (B);
      C = tilemm (A, B, "backend", "gpu"); C = tilemm (A, B, "backend", "gpu");
      report (label, "reused", cls, n, @() tilemm (A, B, "backend", "gpu"), @() [], repeats, ref);
      ## fresh: new operands before every call, as a script that computes them does
      t = zeros (1, repeats); cin = t; rel = 0;
      for r = 1:repeats
        A = rand (n, cls); B = rand (n, cls);
        tic; C = tilemm (A, B, "backend", "gpu"); t(r) = toc;
        s = __tilemm_stats__ (); cin(r) = s.copy_in_ms;
      endfor
      rel = max (abs (double (C(:)) - reshape (double (A) * double (B), [], 1))) / max (abs (C(:)));
      print_line (label, "fresh", cls, n, t, cin, rel);
      ## fresh, then read once by the host before the call
      for r = 1:repeats
        A = rand (n, cls); B = rand (n, cls); x = sum (A(:)) + sum (B(:));
        tic; C = tilemm (A, B, "backend", "gpu"); t(r) = toc;
        s = __tilemm_stats__ (); cin(r) = s.copy_in_ms;
      endfor
      print_line (label, "fresh-read", cls, n, t, cin, 0);
      A = rand (n, cls); B = rand (n, cls); ref = double (A).' * double (B);
      C = tilemm (A, "transpose", B, "none", "backend", "gpu");
      report (label, "transposed", cls, n, @() tilemm (A, "transpose", B, "none", "backend", "gpu"), ...
              @() [], repeats, ref);
      if (strcmp (cls, "double") || n >= 8192)
        A = rand (n, cls); B = rand (n, cls); ref = double (A) * double (B);
        C = tilemm (A, B, "backend", "gpu", "precision", "emulated");
        report (label, "emulated", cls, n, @() tilemm (A, B, "backend", "gpu", "precision", "emulated"), ...
                @() [], max (3, repeats - 2), ref);
      endif
    endfor
  endfor
endfunction

function report (label, what, cls, n, f, ~, repeats, ref)
  t = zeros (1, repeats); cin = t;
  for r = 1:repeats
    tic; C = f (); t(r) = toc;
    s = __tilemm_stats__ (); cin(r) = s.copy_in_ms;
  endfor
  rel = max (abs (double (C(:)) - ref(:))) / max (abs (ref(:)));
  print_line (label, what, cls, n, t, cin, rel);
endfunction

function print_line (label, what, cls, n, t, cin, rel)
  printf ("planexec %s %s %s %d %.2f %.2f %.2f %.2e\n", label, what, cls, n, 1e3 * median (t), ...
          1e3 * min (t), median (cin), rel);
  fflush (stdout);
endfunction
