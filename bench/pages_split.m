## bench/pages_split.m — where the time of one pagemtimes call goes: REPEATS calls of
## pagemtimes (X, Y, "backend", BACKEND) on PAGES fresh random pages of M×K and K×N (CLS), each
## timed with tic/toc, and the GPU's figures of each (__tilemm_stats__: backend, upload, compute,
## download, host copies in and out, result preparation, panels; summed over the call's GPU
## products).  Prints the medians as one "pagessplit ..." line with named fields.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function pages_split (m, k, n, pages, cls, repeats, backend)
  if (nargin < 7)
    backend = "gpu";
  endif
  X = rand (m, k, pages, cls); Y = rand (k, n, pages, cls);
  Z = pagemtimes (X, Y, "backend", backend);     # warm-up: the device, the pinned staging
  i = randi (pages);
  ref = double (X(:, :, i)) * double (Y(:, :, i));
  err = max (max (abs (double (Z(:, :, i)) - ref))) / max (abs (ref(:)));
  f = {"backend_ms", "upload_ms", "compute_ms", "download_ms", "copy_in_ms", "copy_out_ms", ...
       "result_prep_ms", "panels"};
  v = zeros (numel (f) + 2, repeats);
  for r = 1:repeats
    clear Z;
    s0 = __tilemm_stats__ ();
    t0 = tic ();
    Z = pagemtimes (X, Y, "backend", backend);
    v(1, r) = 1e3 * toc (t0);
    s = __tilemm_stats__ ();
    for j = 1:numel (f)
      v(j + 1, r) = s.(f{j});
    endfor
    v(end, r) = s.calls - s0.calls;
  endfor
  md = median (v, 2);
  printf ("pagessplit %s %dx%dx%d x %d %s: call %.1f ms", cls, m, k, n, pages, backend, md(1));
  for j = 1:numel (f)
    printf (" %s %.2f", f{j}, md(j + 1));
  endfor
  printf (" gpu_products %d relerr %.1e (last product's figures)\n", md(end), err);
  fflush (stdout);
endfunction
