## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
##
## multi_gpu (WHAT, CLS, SHAPE, DEVICES, REPEATS) — one line of bench/multi-gpu.sh, in a process
## of its own: a product on the GPUs DEVICES ([] for tilemm's default), a warm-up, then the
## median (and least) of REPEATS timed calls; the result compared bit for bit with the same
## product on GPU 0 alone (computed after the timing, in this process; on [0] itself, a second
## run); and the last timed call's figures, the whole and each device's (__tilemm_stats__).
##   WHAT   "plain": tilemm (A, B), n×n operands; "emulated": the same in emulated precision;
##          "pages": pagemtimes (X, Y) of SHAPE(2) pages of SHAPE(1)×SHAPE(1);
##          "blas": Octave's own A * B with libtilemm_blas.so preloaded (the process started
##          with LD_PRELOAD and TILEMM_BLAS_BACKEND=gpu), its devices set by TILEMM_DEVICES
##   CLS    "double" or "single"
## Prints, for bench/multi-gpu.sh to read:
##   multi-gpu WHAT CLASS SIZE CONFIG MEDIAN_MS MIN_MS GFLOPS SAME DEVICES_RAN
##     (SAME -1 and DEVICES_RAN 0: the default handed the product to the host's `*`)
##   multi-gpu-split WHAT CLASS SIZE CONFIG WALL_MS UPLOAD COMPUTE DOWNLOAD COPY_IN COPY_OUT
##   multi-gpu-device WHAT CLASS SIZE CONFIG GPU PANELS BUSY UPLOAD COMPUTE DOWNLOAD COPY_IN
##     COPY_OUT THREADS BYTES_UP
## (CONFIG: the devices, "0", "0,1", or "default"; SAME: 1 when bitwise equal to GPU 0's; ms
## throughout.)

function multi_gpu (what, cls, shape, devices, repeats)
  if (isempty (devices))
    config = "default";
  else
    config = strjoin (arrayfun (@num2str, devices, "uniformoutput", false), ",");
  endif
  rand ("seed", 1);
  switch (what)
    case {"plain", "emulated", "blas"}
      n = shape(1);
      size_text = sprintf ("%d", n);
      A = rand (n, cls);
      B = rand (n, cls);
      flops = 2 * n^3;
    case "pages"
      n = shape(1);
      size_text = sprintf ("%dx%dx%d", n, n, shape(2));
      A = rand (n, n, shape(2), cls);
      B = rand (n, n, shape(2), cls);
      flops = 2 * n^3 * shape(2);
    otherwise
      error ("multi_gpu: unknown WHAT \"%s\"", what);
  endswitch
  f = @() run_one (what, A, B, devices);
  C = f ();   # warm-up: workspaces, pinned staging, copy teams, page faults
  calls = stats (what).calls;
  t = zeros (repeats, 1);
  for r = 1:repeats
    clear C;
    tic ();
    C = f ();
    t(r) = toc ();
  endfor
  s = stats (what);
  on_gpu = s.calls >= calls + repeats;   # (the default may hand a small product to `*`)
  ## The same product on GPU 0 alone, bit for bit.
  if (isequal (devices, 0))
    C0 = f ();
  else
    C0 = run_one (what, A, B, 0);
  endif
  same = isequal (C, C0) && strcmp (class (C), class (C0));
  if (! on_gpu)
    s.devices = s.devices([]);
    [s.backend_ms, s.upload_ms, s.compute_ms, s.download_ms, s.copy_in_ms, s.copy_out_ms] ...
      = deal (NaN);
    same = -1;   # the host's `*`: another sum, not compared
  endif
  ms = 1e3 * median (t);
  printf ("multi-gpu %s %s %s %s %.2f %.2f %.1f %d %d\n", what, cls, size_text, config, ms,
          1e3 * min (t), flops / median (t) / 1e9, same, numel (s.devices));
  if (! on_gpu)
    s.host_reads = NaN;
  endif
  printf ("multi-gpu-split %s %s %s %s %.2f %.2f %.2f %.2f %.2f %.2f %.2f\n", what, cls, size_text,
          config, s.backend_ms, s.upload_ms, s.compute_ms, s.download_ms, s.copy_in_ms,
          s.copy_out_ms, s.host_reads);
  for d = s.devices
    printf ("multi-gpu-device %s %s %s %s %d %d %.2f %.2f %.2f %.2f %.2f %.2f %d %.0f %.0f\n", what,
            cls, size_text, config, d.device, d.panels, d.busy_ms, d.upload_ms, d.compute_ms,
            d.download_ms, d.copy_in_ms, d.copy_out_ms, d.copy_threads, d.bytes_up, d.peer_bytes);
  endfor
  if (same == 0)
    printf ("multi-gpu-differs %s %s %s %s: max |C - C0| %g\n", what, cls, size_text, config,
            max (abs (double (C(:)) - double (C0(:)))));
  endif
  fflush (stdout);
endfunction

## One call on `devices` ([]: tilemm's default, nothing named).
function C = run_one (what, A, B, devices)
  if (isempty (devices))
    opts = {};
  else
    opts = {"backend", "gpu", "devices", devices};
  endif
  switch (what)
    case "plain"
      C = tilemm (A, B, opts{:});
    case "emulated"
      C = tilemm (A, B, "precision", "emulated", opts{:});
    case "pages"
      C = __tilemm_pages__ (A, "none", B, "none", opts{:});
    case "blas"
      ## The preloaded library reads TILEMM_DEVICES at every call.
      if (isempty (devices))
        unsetenv ("TILEMM_DEVICES");
      else
        setenv ("TILEMM_DEVICES", strjoin (arrayfun (@num2str, devices, "uniformoutput", false), ","));
      endif
      C = A * B;
  endswitch
endfunction

## The last GPU product's figures: tilemm.oct's, or the preloaded BLAS library's.
function s = stats (what)
  if (strcmp (what, "blas"))
    s = __tilemm_stats__ ("blas");
  else
    s = __tilemm_stats__ ();
  endif
endfunction
