## bench/pages_split.m — where the time of one pagemtimes call goes: REPEATS calls of
## pagemtimes (X, Y, "backend", BACKEND) on PAGES fresh random pages of M×K and K×N (CLS), each
## timed with tic/toc, and the GPU's figures of each (__tilemm_stats__: backend, upload, compute,
## download, host copies in and out, result preparation, the caller's wait for the copy-out
## thread and that thread's team, panels; summed over the call's GPU products).  Prints the
## medians as one "pagessplit ..." line with named fields per mode.
##
## MODES (optional, a cell of strings) compares the batch's host copies serial and overlapped in
## one process: each mode sets the overrides the batch's plan reads at every call, "" the plan's
## own choice (nothing set), "0" serial (TILEMM_PAGES_OVERLAP=0), "1" overlapped with the plan's
## split of the threads, "1:T" overlapped with T threads copying out (TILEMM_PAGES_COPY_OUT_THREADS),
## "1:T:P" or "0::P" also at least P panels (TILEMM_PAGES_PANELS; the plan's own: 4).
## The modes take turns within each repeat, so drift in the machine reaches them alike; the
## overrides are unset at the end.  Example:
##   pages_split (64, 64, 64, 10000, "double", 9, "gpu", {"0", "1", "1:4", "1:12", "1::8"})
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function pages_split (m, k, n, pages, cls, repeats, backend, modes)
  if (nargin < 7)
    backend = "gpu";
  endif
  if (nargin < 8)
    modes = {""};
  endif
  X = rand (m, k, pages, cls); Y = rand (k, n, pages, cls);
  f = {"backend_ms", "upload_ms", "compute_ms", "download_ms", "copy_in_ms", "copy_out_ms", ...
       "copy_wait_ms", "copy_out_threads", "result_prep_ms", "panels"};
  v = zeros (numel (f) + 2, repeats, numel (modes));
  err = zeros (1, numel (modes));
  unwind_protect
    for mi = 1:numel (modes)   # warm-up of each mode: the device, the pinned staging
      set_mode (modes{mi});
      Z = pagemtimes (X, Y, "backend", backend);
      i = randi (pages);
      ref = double (X(:, :, i)) * double (Y(:, :, i));
      err(mi) = max (max (abs (double (Z(:, :, i)) - ref))) / max (abs (ref(:)));
    endfor
    for r = 1:repeats
      for mi = 1:numel (modes)
        set_mode (modes{mi});
        clear Z;
        s0 = __tilemm_stats__ ();
        t0 = tic ();
        Z = pagemtimes (X, Y, "backend", backend);
        v(1, r, mi) = 1e3 * toc (t0);
        s = __tilemm_stats__ ();
        for j = 1:numel (f)
          v(j + 1, r, mi) = s.(f{j});
        endfor
        v(end, r, mi) = s.calls - s0.calls;
      endfor
    endfor
  unwind_protect_cleanup
    set_mode ("");
  end_unwind_protect
  for mi = 1:numel (modes)
    md = median (v(:, :, mi), 2);
    printf ("pagessplit %s %dx%dx%d x %d %s mode '%s': call %.1f ms (min %.1f)", cls, m, k, n,
            pages, backend, modes{mi}, md(1), min (v(1, :, mi)));
    for j = 1:numel (f)
      printf (" %s %.2f", f{j}, md(j + 1));
    endfor
    printf (" gpu_products %d relerr %.1e (last product's figures)\n", md(end), err(mi));
  endfor
  fflush (stdout);
endfunction

## A mode's overrides (see above): "" none, else "OVERLAP[:COPY_OUT_THREADS[:PANELS]]", an
## empty field leaving that setting to the plan.
function set_mode (mode)
  names = {"TILEMM_PAGES_OVERLAP", "TILEMM_PAGES_COPY_OUT_THREADS", "TILEMM_PAGES_PANELS"};
  parts = strsplit (mode, ":");
  for j = 1:numel (names)
    if (j <= numel (parts) && ! isempty (parts{j}))
      setenv (names{j}, parts{j});
    else
      unsetenv (names{j});
    endif
  endfor
endfunction
