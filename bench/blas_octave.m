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
## WHAT "sweep" (C = A * B over every size, for "never slower than `*` without the library"):
## one warm-up product of 2048 first, then REPEATS samples a size, none untimed; sizes from
## ONCE_FROM up (7th argument, default Inf) get one sample.  A sample of a small product times a
## loop of CALLS products, each on its own fresh operands made before the loop, so that it takes
## about 5 ms (tic/toc cannot resolve one 2x2 product); its time is per call.  Prints
##   blas LABEL sweep CLASS N MEDIAN_MS MIN_MS CALLS SAMPLES
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function blas_octave (label, sizes, classes, repeats, what, syrk_sizes, once_from)
  if (nargin < 6)
    syrk_sizes = sizes;
  endif
  if (nargin < 7)
    once_from = Inf;
  endif
  whats = ifelse_cell (what);
  for c = 1:numel (classes)
    cls = classes{c};
    for w = 1:numel (whats)
      op = whats{w};
      if (strcmp (op, "sweep"))
        sweep (label, sizes, cls, repeats, once_from);
        continue;
      endif
      these = sizes;
      if (strcmp (op, "syrk"))
        these = syrk_sizes;
      endif
      for n = these
        t = zeros (1, repeats);
        reldiff = NaN;
        for r = 1:repeats + 1   # the first run warms up (GPU context, workspaces), not timed
          ## Only the operands the case reads (making an 8192x8192 one takes ~0.4 s).
          if (! strcmp (op, "alloc"))
            A = rand (n, cls) - 0.5;
          endif
          if (any (strcmp (op, {"mtimes", "tilemm"})))
            B = rand (n, cls) - 0.5;
          endif
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
            if (strcmp (op, "syrk"))
              B = A;
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

function sweep (label, sizes, cls, repeats, once_from)
  A = rand (2048, cls); B = rand (2048, cls);
  C = A * B;   # warm-up: the GPU's context and workspaces where the library sends it
  clear A B C;
  for n = sizes
    ## The expected time of one call (µs of the interpreter, the flops at ~20 GFLOP/s) sets
    ## how many calls one sample loops over: about 5 ms, at most 5000 calls.
    calls = max (1, min (5000, ceil (5e-3 / (2e-6 + 2 * n^3 / 2e10))));
    samples = repeats;
    if (n >= once_from)
      samples = 1;
    endif
    t = zeros (1, samples);
    for r = 1:samples
      As = cell (1, calls); Bs = cell (1, calls);
      for i = 1:calls
        As{i} = rand (n, cls) - 0.5; Bs{i} = rand (n, cls) - 0.5;
      endfor
      if (calls == 1)
        A = As{1}; B = Bs{1}; clear As Bs;
        tic; C = A * B; t(r) = toc;
        clear A B C;
      else
        tic;
        for i = 1:calls
          C = As{i} * Bs{i};
        endfor
        t(r) = toc / calls;
        clear As Bs C;
      endif
    endfor
    printf ("blas %s sweep %s %d %.4f %.4f %d %d\n", label, cls, n, 1e3 * median (t),
            1e3 * min (t), calls, samples);
    fflush (stdout);
  endfor
endfunction

function c = ifelse_cell (what)
  if (iscell (what))
    c = what;
  else
    c = {what};
  endif
endfunction
