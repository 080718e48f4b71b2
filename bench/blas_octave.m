## blas_octave (LABEL, SIZES, CLASSES, REPEATS, WHAT, SYRK_SIZES) — times Octave's `*` (whatever
## BLAS the process has: its own, NVBLAS or libtilemm_blas.so preloaded), A'*A (dsyrk/ssyrk),
## the direct call tilemm (A, B), and the allocation `*` makes before it calls the BLAS, on
## fresh operands for every repeat (as scripts have them), and prints one line per case:
##   blas LABEL WHAT CLASS N MEDIAN_MS MIN_MS RELDIFF
## WHAT: "mtimes" (C = A * B), "syrk" (C = A' * A), "tilemm" (C = tilemm (A, B)), "alloc" (the
## m×n result Octave's `*` allocates and fills with zeros before it calls dgemm_: Octave 7's
## Matrix (m, n) value-initializes every element, single-threaded, first touch of fresh pages).
## RELDIFF: the largest |C - C_ref| / (|A|·|B|) against a product by the process's `*` in the
## first repeat (a sanity check, not a test).  Used by bench/blas_octave.sh.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function blas_octave (label, sizes, classes, repeats, what, syrk_sizes)
  if (nargin < 6)
    syrk_sizes = sizes;
  endif
  whats = ifelse_cell (what);
  for c = 1:numel (classes)
    cls = classes{c};
    for w = 1:numel (whats)
      op = whats{w};
      these = sizes;
      if (strcmp (op, "syrk"))
        these = syrk_sizes;
      endif
      for n = these
        t = zeros (1, repeats);
        reldiff = NaN;
        for r = 1:repeats + 1   # the first run warms up (GPU context, workspaces), not timed
          A = rand (n, cls) - 0.5;
          B = rand (n, cls) - 0.5;
          switch (op)
            case "mtimes"
              tic; C = A * B; e = toc;
            case "syrk"
              tic; C = A' * A; e = toc;
            case "tilemm"
              tic; C = tilemm (A, B); e = toc;
            case "alloc"
              ## zeros (n) is Matrix (n, n, 0.0): the same fill of fresh pages as Matrix (n, n).
              tic; C = zeros (n, cls); e = toc;
          endswitch
          if (r == 1 && ! strcmp (op, "alloc") && n <= 4096)
            if (strcmp (op, "syrk"))
              R = double (A)' * double (A);
            else
              R = double (A) * double (B);
            endif
            reldiff = max (abs (double (C(:)) - R(:))) / (norm (double (A), 1) * norm (double (B), 1) / n + realmin);
          endif
          if (r > 1)
            t(r - 1) = e;
          endif
          clear C A B R;
        endfor
        printf ("blas %s %s %s %d %.2f %.2f %.3g\n", label, op, cls, n, 1e3 * median (t),
                1e3 * min (t), reldiff);
        fflush (stdout);
      endfor
    endfor
  endfor
endfunction

function c = ifelse_cell (what)
  if (iscell (what))
    c = what;
  else
    c = {what};
  endif
endfunction
