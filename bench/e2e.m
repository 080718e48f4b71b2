## e2e (LABEL, SIZES, CLASSES, REPEATS, WHAT...) — end-to-end timing from Octave, for
## bench/e2e.sh: for each class and size, times each of WHAT ("mtimes", "tilemm", "naive") on the
## same fresh random operands (warm-up, then the median of REPEATS), checks each result against
## `*`, and prints one line per case: "e2e LABEL WHAT CLASS N MS GFLOPS RELDIFF".
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function e2e (label, sizes, classes, repeats, varargin)
  fns = struct ("mtimes", @(A, B) A * B, "tilemm", @(A, B) tilemm (A, B),
                "naive", @(A, B) naive_cublas_mex (A, B));
  for c = 1:numel (classes)
    for n = sizes
      A = cast (2 * rand (n) - 1, classes{c});
      B = cast (2 * rand (n) - 1, classes{c});
      R = [];
      for w = 1:numel (varargin)
        f = fns.(varargin{w});
        C = f (A, B);                 # warm-up
        if (isempty (R))
          R = A * B;
        endif
        t = zeros (repeats, 1);
        for i = 1:repeats
          tic (); C = f (A, B); t(i) = toc ();
        endfor
        rd = double (max (abs (C(:) - R(:))) / max (abs (R(:))));
        printf ("e2e %s %s %s %d %.3f %.1f %.2g\n", label, varargin{w}, classes{c}, n,
                1e3 * median (t), 2 * n^3 / median (t) / 1e9, rd);
        fflush (stdout);
        clear C;
      endfor
    endfor
  endfor
endfunction
