## e2e (LABEL, SIZES, CLASSES, REPEATS, WHAT...) — end-to-end timing from Octave, for
## bench/e2e.sh: for each class and size, times each of WHAT on the same fresh random operands
## (warm-up, then the median of REPEATS; at least 25 runs where one takes under 5 ms), checks
## each result against `*`, and prints one line per case:
##   "e2e LABEL WHAT CLASS N MS GFLOPS RELDIFF UPLOAD COMPUTE DOWNLOAD HANDBACK"
## the last four being the medians of tilemm's own split (__tilemm_stats__; NaN where the
## product did not run on the GPU): the GPU backend's critical path, and the rest of the call.
## WHAT: "mtimes" (A * B), "tilemm" (tilemm (A, B), "auto"), "gpu" (backend "gpu"), "quarter"
## (backend "gpu" with max_device_bytes a quarter of A, B and C together), "naive" (the naive
## cuBLAS mex).  e2e ("leak") instead prints the memory held and free around 1,000 mixed calls.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function e2e (label, sizes, classes, repeats, varargin)
  if (strcmp (label, "leak"))
    leak ();
    return;
  endif
  has_stats = ! isempty (which ("__tilemm_stats__"));
  for c = 1:numel (classes)
    for n = sizes
      A = cast (2 * rand (n) - 1, classes{c});
      B = cast (2 * rand (n) - 1, classes{c});
      es = numel (typecast (A(1), "uint8"));
      quarter = es * 3 * n^2 / 4;
      fns = struct ("mtimes", @() A * B, "tilemm", @() tilemm (A, B),
                    "gpu", @() tilemm (A, B, "backend", "gpu"),
                    "quarter", @() tilemm (A, B, "backend", "gpu", "max_device_bytes", quarter),
                    "naive", @() naive_cublas_mex (A, B));
      R = [];
      for w = 1:numel (varargin)
        f = fns.(varargin{w});
        tic (); C = f (); t1 = toc ();   # warm-up
        if (isempty (R))
          R = A * B;
        endif
        reps = repeats;
        if (t1 < 5e-3)
          reps = max (repeats, 25);
        endif
        t = zeros (reps, 1);
        parts = NaN (reps, 4);
        for i = 1:reps
          before = -1;
          if (has_stats)
            before = __tilemm_stats__ ().calls;
          endif
          tic (); C = f (); t(i) = toc ();
          if (has_stats)
            s = __tilemm_stats__ ();
            if (s.calls > before && s.ok)
              parts(i,:) = [s.upload_ms, s.compute_ms, s.download_ms, 1e3 * t(i) - s.backend_ms];
            endif
          endif
        endfor
        rd = double (max (abs (C(:) - R(:))) / max (abs (R(:))));
        p = median (parts, 1);
        printf ("e2e %s %s %s %d %.3f %.1f %.2g %.3f %.3f %.3f %.3f\n", label, varargin{w},
                classes{c}, n, 1e3 * median (t), 2 * n^3 / median (t) / 1e9, rd, p);
        fflush (stdout);
        clear C;
      endfor
    endfor
  endfor
endfunction

## Device and pinned memory held, and the device's free memory, after a warm-up pass over mixed
## products and after 1,000 more calls (with errors among them).
function leak ()
  ops = {{rand(300, 200), rand(200, 250), 0}, {single(rand(129, 65)), single(rand(65, 300)), 0}, ...
         {complex(rand(64), rand(64)), rand(64), 0}, {rand(500, 100), rand(100, 7), 200000}, ...
         {rand(2000), rand(2000), 0}, {single(rand(1500)), single(rand(1500)), 8e6}};
  run = @(o) tilemm (o{1}, o{2}, "backend", "gpu", "max_device_bytes", o{3});
  for i = 1:numel (ops)
    run (ops{i});
  endfor
  s0 = __tilemm_stats__ ();
  errors = 0;
  for t = 1:1000
    run (ops{mod (t, numel (ops)) + 1});
    if (mod (t, 100) == 0)
      try, tilemm (ones (2), ones (2), "backend", "gpu", "max_device_bytes", 8); catch, errors++; end
    endif
  endfor
  s1 = __tilemm_stats__ ();
  printf ("e2e-leak calls %d errors %d | device held %d -> %d | pinned held %d -> %d | device free %d -> %d (total %d)\n",
          s1.calls - s0.calls, errors, s0.device_bytes_held, s1.device_bytes_held,
          s0.pinned_bytes_held, s1.pinned_bytes_held, s0.device_free, s1.device_free,
          s1.device_total);
endfunction
