## tilemm.tst — the BIST of tilemm (Octave's %! blocks), for both of its front ends: the
## oct-file (tilemm_oct.cc) and the mex gateway (tilemm.c).  Each block calls `tilemm`, whichever
## of the two comes first on the path (tests/bist.sh runs them on each).
##
## The build writes the %! lines into tilemm.cc-tst beside tilemm.oct, where `test tilemm` and
## `pkg test tilemm` find them, in the build tree and in the installed package alike;
## `test ("src/front/tilemm.tst")` runs them from here (tests/mex-build.sh, against the mex files
## that tilemm_build makes).
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
##
## Every test compares tilemm with the built-in `*` in the same session: class, size, realness,
## sparsity, NaN/Inf placement, and values within an elementwise rounding bound
## 8·eps·k·(|A|·|B|) that a wrong answer cannot meet.  GPU blocks run only where tilemm_info says
## a GPU is usable, and count as skipped elsewhere.

%!function check_product (A, B, varargin)
%!  check_result (tilemm (A, B, varargin{:}), A * B, A, B, "");
%!endfunction
%!function check_result (C, R, A, B, what)
%!  ## C from tilemm against R = A * B (A and B as multiplied, transposed already).
%!  assert (class (C), class (R));
%!  assert (size (C), size (R));
%!  assert (isreal (C), isreal (R));
%!  assert (issparse (C), issparse (R));
%!  ## Which non-finite value an element gets can differ between BLAS libraries: OpenBLAS (on
%!  ## the GPU machine, and Debian's) gives NaN for some elements whose IEEE value is ±Inf (its
%!  ## padded kernels meet an Inf with a zero), the reference BLAS gives ±Inf, as tilemm does.  So
%!  ## the same elements must be non-finite, and where `*` has an Inf tilemm has the same one;
%!  ## check_nonfinite checks tilemm's NaN and Inf against IEEE itself.
%!  assert (isfinite (C), isfinite (R));
%!  for part = {@real, @imag}
%!    P = part{1} (C); Q = part{1} (R); inf = isinf (Q);
%!    assert (P(inf), Q(inf));
%!  endfor
%!  fin = isfinite (R);
%!  if (isinteger (R) || islogical (R) || ischar (R))
%!    assert (C, R);
%!  elseif (any (fin(:)))
%!    Ad = double (full (A)); Bd = double (full (B));
%!    if (isscalar (A) || isscalar (B))
%!      k = 1;
%!    else
%!      k = columns (Ad);
%!    endif
%!    bound = 8 * double (eps (class (R))) * max (k, 1) * (abs (Ad) * abs (Bd));
%!    err = abs (double (C) - double (R));
%!    assert (all (err(fin) <= bound(fin) + realmin ()), true, ...
%!            sprintf ("%smax error %g exceeds bound", what, max (err(fin) - bound(fin))));
%!  endif
%!endfunction

%!function check_same_error (A, B, varargin)
%!  want = ""; got = "";
%!  try, A * B; catch e, want = e; end
%!  try, tilemm (A, B, varargin{:}); catch e, got = e; end
%!  assert (isobject (want) || isstruct (want) || ! ischar (want), true, "A * B did not fail");
%!  assert (! ischar (got), true, "tilemm did not fail");
%!  assert (got.identifier, want.identifier);
%!  assert (got.message, want.message);
%!endfunction

%!function r = rnd (m, n, cls, cplx)
%!  ## Fresh random data in [-1, 1]: never zeros, which hide unwritten outputs.
%!  r = 2 * rand (m, n) - 1;
%!  if (nargin > 3 && cplx)
%!    r = complex (r, 2 * rand (m, n) - 1);
%!  endif
%!  if (nargin > 2)
%!    r = cast (r, cls);
%!  endif
%!endfunction

%!function ok = gpu_usable ()
%!  ## The condition of the GPU blocks (%!testif ; gpu_usable ()).  Octave's test evaluates a
%!  ## condition outside any try, so its error would end the whole run, `pkg test` with it: one
%!  ## that cannot be evaluated skips its block instead, and says why (once).
%!  persistent told = false;
%!  try
%!    ok = getfield (tilemm_info (), "gpu_usable");
%!  catch err
%!    if (! told)
%!      printf ("skipping the GPU blocks: tilemm_info () failed: %s\n", err.message);
%!      told = true;
%!    endif
%!    ok = false;
%!  end_try_catch
%!endfunction

%!function ok = is_oct ()
%!  ## The oct-file front end (Octave's own types and operators); the mex gateway is MATLAB's,
%!  ## whose mex API has no diagonal or permutation matrices and no compound operators.
%!  w = which ("tilemm");
%!  ok = numel (w) > 4 && strcmp (w(end-3:end), ".oct");
%!endfunction

%!demo
%! ## A product on tilemm's tiled kernels (the GPU where usable), checked against `*`.
%! A = rand (2000, 1500);  B = rand (1500, 1800);
%! info = tilemm_info ();
%! if (info.gpu_usable)
%!   where = sprintf ("GPU %d (%s)", info.device_in_use, info.devices(info.device_in_use + 1).name);
%!   backend = "gpu";
%! else
%!   where = "CPU (no usable GPU: tilemm's tiled C backend)";
%!   backend = "cpu";
%! endif
%! C = tilemm (A, B, "backend", backend);          # warm-up: first call sets up
%! tic; C = tilemm (A, B, "backend", backend); t_tilemm = toc;
%! tic; R = A * B; t_mtimes = toc;
%! printf ("tilemm on %s: %.1f ms;  A * B: %.1f ms\n", where, 1e3 * t_tilemm, 1e3 * t_mtimes);
%! printf ("relative difference |C - A*B|_1 / |A*B|_1 = %.2g\n", norm (C - R, 1) / norm (R, 1));

## The rows of octave-semantics.md, one block each, on the "cpu" and "auto" backends.
%!test check_product (single (ones (2)), ones (2), "backend", "cpu");
%!test check_product (ones (2), single (ones (2)), "backend", "cpu");
%!test check_product (single (1+1i), ones (2), "backend", "cpu");
%!test check_product (ones (2), complex (ones (2), 0), "backend", "cpu");
%!test check_product (complex (ones (2), 0), ones (2), "backend", "cpu");
%!test check_product ([1+1i 2], [1; 1], "backend", "cpu");
%!test check_product ([1i 2], [-1i; 0], "backend", "cpu");
%!test check_product (true (2), true (2), "backend", "cpu");
%!test check_product (true (2), single (ones (2)), "backend", "cpu");
%!test check_product ('ab', [1; 2], "backend", "cpu");
%!test check_product (int8 ([1 2]), 2.5, "backend", "cpu");
%!test check_product (2.5, int8 ([1 2]), "backend", "cpu");
%!test check_product (int8 ([1 2]), int8 (3), "backend", "cpu");
%!test check_same_error (int8 ([1 2; 3 4]), int8 ([1 2; 3 4]), "backend", "cpu");
%!test check_same_error (int8 ([1 2; 3 4]), [1 2; 3 4], "backend", "cpu");
%!test check_same_error (int8 ([1 2; 3 4]), single ([1 2; 3 4]), "backend", "cpu");
%!test check_same_error (int8 ([1 2]), int16 (3), "backend", "cpu");
%!test check_product (3, ones (2, 3), "backend", "cpu");
%!test check_product (ones (2, 3), 3, "backend", "cpu");
%!test check_same_error (ones (2, 3), [], "backend", "cpu");
%!test check_same_error ([], ones (2, 3), "backend", "cpu");
%!test check_product (zeros (0, 3), zeros (3, 4), "backend", "cpu");
%!test check_product (zeros (3, 0), zeros (0, 4), "backend", "cpu");
%!test check_product (zeros (3, 0), 5, "backend", "cpu");
%!test check_same_error (ones (2, 2, 2), ones (2, 2), "backend", "cpu");
%!test check_product (ones (2, 2), ones (2, 2, 2), "backend", "cpu");
%!test check_product (ones (4, 2, 2), ones (4, 2), "backend", "cpu");
%!test check_product (sparse (eye (2)), ones (2), "backend", "cpu");
%!test check_product (ones (2), sparse (eye (2)), "backend", "cpu");
%!test check_product (sparse (eye (2)), sparse (eye (2)), "backend", "cpu");
%!test check_product (sparse (eye (2)), 3, "backend", "cpu");
%!test check_same_error (ones (3, 2), ones (4, 5), "backend", "cpu");
%!test check_same_error ({1}, 2, "backend", "cpu");
%!test check_same_error (struct (), 2, "backend", "cpu");
%!test check_product (single (2), ones (2), "backend", "cpu");
%!test check_product (1:3, 2, "backend", "cpu");
%!test check_product ((1:3)', (1:3), "backend", "cpu");
%!test check_product (uint8 (200), uint8 (2), "backend", "cpu");
%!test check_product (int8 (-100), 2.5, "backend", "cpu");
%!test check_product (ones (2), int8 (3), "backend", "cpu");
%!test check_product (zeros (0, 3), zeros (3, 0), "backend", "cpu");
%!test check_product (zeros (2, 0), zeros (0, 2), "backend", "cpu");
%!test check_product (single (zeros (2, 0)), zeros (0, 2), "backend", "cpu");
%!test check_product (ones (1, 0), ones (0, 1), "backend", "cpu");
%!test check_product ([], 5, "backend", "cpu");
%!test check_product (5, [], "backend", "cpu");
%!test check_product ([], [], "backend", "cpu");
%!test check_same_error (single (2), sparse (eye (2)), "backend", "cpu");
%!test check_same_error (single (ones (2)), sparse (eye (2)), "backend", "cpu");
%!test check_same_error (sparse (eye (2)), single (ones (2)), "backend", "cpu");
%!test check_product (NaN, zeros (2), "backend", "cpu");

## The same rows on the default backend ("auto": the GPU where usable, else `*` itself).
%!test check_product (single (ones (2)), ones (2));
%!test check_product (ones (2), complex (ones (2), 0));
%!test check_product ([1i 2], [-1i; 0]);
%!test check_product (true (2), single (ones (2)));
%!test check_product ('ab', [1; 2]);
%!test check_product (zeros (3, 0), zeros (0, 4));
%!test check_product (ones (2, 2), ones (2, 2, 2));
%!test check_same_error (ones (3, 2), ones (4, 5));
%!test check_same_error (int8 ([1 2; 3 4]), [1 2; 3 4]);

## Realness: complex results whose imaginary parts all vanish come back real, as with `*`.
%!assert (isreal (tilemm (complex (ones (2), 0), ones (2), "backend", "cpu")))
%!assert (isreal (tilemm ([1i 2], [-1i; 0], "backend", "cpu")))
%!assert (! isreal (tilemm ([1i 2; 3 4], [1 0; 0 1], "backend", "cpu")))
%!assert (tilemm ([1i 2; 3 4], [1 0; 0 1], "backend", "cpu"), [1i 2; 3 4])

## Every class pair of the kernel's classes, real and complex, on random data.
%!test
%! classes = {"double", "single", "logical", "char"};
%! for i = 1:numel (classes)
%!   for j = 1:numel (classes)
%!     A = rnd (7, 5); B = rnd (5, 6);
%!     switch (classes{i})
%!       case "logical", A = A > 0;
%!       case "char", A = char (65 + floor (26 * abs (A)));
%!       otherwise, A = cast (A, classes{i});
%!     endswitch
%!     switch (classes{j})
%!       case "logical", B = B > 0;
%!       case "char", B = char (65 + floor (26 * abs (B)));
%!       otherwise, B = cast (B, classes{j});
%!     endswitch
%!     check_product (A, B, "backend", "cpu");
%!   endfor
%! endfor
%!test
%! for ca = {"double", "single"}
%!   for cb = {"double", "single"}
%!     for za = [false true]
%!       for zb = [false true]
%!         check_product (rnd (9, 4, ca{1}, za), rnd (4, 11, cb{1}, zb), "backend", "cpu");
%!       endfor
%!     endfor
%!   endfor
%! endfor

## Shapes: primes, vectors, tile edges, larger products.
%!test check_product (rnd (1, 37), rnd (37, 1), "backend", "cpu");
%!test check_product (rnd (37, 1), rnd (1, 41), "backend", "cpu");
%!test check_product (rnd (1, 53), rnd (53, 29), "backend", "cpu");
%!test check_product (rnd (29, 53), rnd (53, 1), "backend", "cpu");
%!test check_product (rnd (63, 64), rnd (64, 65), "backend", "cpu");
%!test check_product (rnd (65, 127), rnd (127, 129), "backend", "cpu");
%!test check_product (rnd (97, 89), rnd (89, 83), "backend", "cpu");
%!test check_product (rnd (97, 89, "single"), rnd (89, 83, "single"), "backend", "cpu");
%!test check_product (rnd (61, 67, "double", true), rnd (67, 71, "double", true), "backend", "cpu");
%!test check_product (rnd (61, 67, "single", true), rnd (67, 71, "single", true), "backend", "cpu");
%!test check_product (rnd (61, 67, "double", true), rnd (67, 71), "backend", "cpu");
%!test check_product (rnd (61, 67), rnd (67, 71, "double", true), "backend", "cpu");
%!test check_product (rnd (61, 67, "single", true), rnd (67, 71), "backend", "cpu");
%!test check_product (rnd (61, 67, "single"), rnd (67, 71, "double", true), "backend", "cpu");
%!test check_product (rnd (300, 2), rnd (2, 301), "backend", "cpu");
%!test check_product (rnd (2, 1000), rnd (1000, 3), "backend", "cpu");
%!test check_product (rnd (257, 263), rnd (263, 269), "backend", "cpu");
%!test check_product (rnd (400, 400, "single"), rnd (400, 400, "single"), "backend", "cpu");
%!test
%! for t = 1:20
%!   m = randi (70); k = randi (70); n = randi (70);
%!   check_product (rnd (m, k), rnd (k, n), "backend", "cpu");
%!   check_product (rnd (m, k, "single", true), rnd (k, n, "single", true), "backend", "cpu");
%! endfor

## NaN and Inf as `*` gives them: no skipped zeros, Inf·0 is NaN, overflow is Inf.
%!test check_product ([NaN 1; 2 3], [0 0; 0 0], "backend", "cpu");
%!test check_product ([Inf 1; 1 1], [0 1; 1 0], "backend", "cpu");
%!test check_product ([Inf 0; 0 1], [1 0; 0 1], "backend", "cpu");
%!test check_product ([Inf -Inf; 1 1], [1 1; 1 1], "backend", "cpu");
%!test check_product ([1e308 1e308; 1 1], [10 1; 0 1], "backend", "cpu");
%!test check_product (single ([3e38 3e38; 1 1]), single ([10 1; 0 1]), "backend", "cpu");
%!test check_product (complex ([Inf 1; 1 1], [0 1; 1 0]), [0 1; 1 1], "backend", "cpu");
%!test
%! A = rnd (40, 33); B = rnd (33, 37);
%! A(5, 7) = NaN; A(11, :) = Inf; B(:, 3) = -Inf; B(20, 30) = 0; A(1, 20) = Inf;
%! check_product (A, B, "backend", "cpu");

## Exact values: products of small integers are exact in double.
%!assert (tilemm ([1 2; 3 4], [5 6; 7 8], "backend", "cpu"), [19 22; 43 50])
%!assert (tilemm (single ([1 2; 3 4]), [5 6; 7 8], "backend", "cpu"), single ([19 22; 43 50]))
%!assert (tilemm ([1+2i 3; 4 5i], [1 1i; 2 3], "backend", "cpu"), [7+2i 7+1i; 4+10i 19i])
%!test
%! A = randi ([-50 50], 45, 70); B = randi ([-50 50], 70, 38);
%! assert (tilemm (A, B, "backend", "cpu"), A * B);

## Numerics: tilemm and `*` against a reference of about twice double precision.  ref_split cuts
## A's rows and B's columns into slices of beta bits, beta = floor ((53 - log2 (k)) / 2), so that
## every product of two slices is a sum of k integer multiples of one unit, below 2^53 units: it is
## exact in ANY order of summation, even computed by `*`.  The slice products are added with
## TwoSum, every rounding error kept: the reference errs by at most u·|A·B| + O(u²)·|A|·|B|,
## far below the errors measured (the first test checks it on data with known answers).
%!function [s, e] = two_sum (a, b)
%!  s = a + b; z = s - a; e = (a - (s - z)) + (b - z);
%!endfunction
%!function S = split_slices (X, dim, beta)
%!  top = 2 .^ ceil (log2 (max (abs (X), [], dim) + realmin));   # per row (dim 2) or column
%!  S = {};
%!  for i = 1:80
%!    if (! any (X(:)))
%!      break;
%!    endif
%!    unit = top * 2^(-beta * i);
%!    s = round (X ./ unit) .* unit;   # at most beta bits of each element, exactly
%!    S{end+1} = s;
%!    X -= s;                          # exact: what is left is below half a unit
%!  endfor
%!endfunction
%!function R = ref_split (A, B)
%!  A = double (A); B = double (B);   # single data is exact in double
%!  if (iscomplex (A) || iscomplex (B))
%!    ar = real (A); ai = imag (A); br = real (B); bi = imag (B);
%!    R = complex (ref_split ([ar, -ai], [br; bi]), ref_split ([ar, ai], [bi; br]));
%!    return;
%!  endif
%!  beta = floor ((53 - ceil (log2 (max (columns (A), 2)))) / 2);
%!  As = split_slices (A, 2, beta); Bs = split_slices (B, 1, beta);
%!  hi = zeros (rows (A), columns (B)); lo = hi;
%!  for i = 1:numel (As)
%!    for j = 1:numel (Bs)
%!      [hi, e] = two_sum (hi, As{i} * Bs{j});
%!      lo += e;
%!    endfor
%!  endfor
%!  R = hi + lo;
%!endfunction
%!function [A, B, S, W] = cancelling (m, p, r, n, cls, scale)
%!  ## Rows whose products cancel: A = [X, -X, S], B = [Y; Y; W], k shuffled, so A·B = S·W
%!  ## exactly while the partial sums reach |X|·|Y| ~ scale², far above the result.
%!  X = scale * (2 * rand (m, p) - 1); Y = scale * (2 * rand (p, n) - 1);
%!  S = 2 * rand (m, r) - 1; W = 2 * rand (r, n) - 1;
%!  q = randperm (2 * p + r);
%!  A = cast ([X, -X, S](:, q), cls); B = cast ([Y; Y; W](q, :), cls);
%!endfunction
%!function check_accuracy (A, B, backend)
%!  ## e = |C - ref| ./ (|A|·|B|) elementwise, u the unit roundoff of the result's class:
%!  ## - the guarantee: e <= (k + 2)·u, twice that for complex (the worst case of any summation
%!  ##   order; complex products add a rounding of their own);
%!  ## - against `*`: max (e) <= max (4·max (e_*), 2·sqrt (k)·u).  Rounding errors of a sum of k
%!  ##   terms add up like a random walk: typically sqrt (k)·u for a sum in k order, as tilemm's
%!  ##   CPU backend and each GPU thread sum, while a BLAS that sums in blocks errs less.  So tilemm
%!  ##   may err up to 4 times as much as `*` (different orders, different luck), or up to twice
%!  ##   the typical error of a plain sum where `*` is luckier than that.
%!  C = tilemm (A, B, "backend", backend);
%!  R = A * B;
%!  assert (class (C), class (R));
%!  ref = ref_split (A, B);
%!  u = double (eps (class (R))) / 2;
%!  k = columns (A);
%!  scale = abs (double (A)) * abs (double (B));
%!  e_t = max ((abs (double (C) - ref) ./ scale)(:));
%!  e_m = max ((abs (double (R) - ref) ./ scale)(:));
%!  worst = (k + 2) * u * (1 + iscomplex (C));
%!  assert (e_t <= worst, sprintf ("%s: error %.3g u above the bound %.3g u", backend, e_t / u, worst / u));
%!  limit = max (4 * e_m, 2 * sqrt (k) * u);
%!  assert (e_t <= limit, sprintf ("%s: error %.3g u, `*` %.3g u: above %.3g u", backend, e_t / u,
%!                                 e_m / u, limit / u));
%!endfunction
%!function check_numerics (backend)
%!  rand ("state", 7);
%!  ## Long dot products: k = 100000 (the result a scalar), every type.
%!  for cls = {"double", "single"}
%!    for z = [false true]
%!      check_accuracy (rnd (1, 100000, cls{1}, z), rnd (100000, 1, cls{1}, z), backend);
%!    endfor
%!    check_accuracy (cast (rand (1, 100000), cls{1}), cast (rand (100000, 1), cls{1}), backend);
%!  endfor
%!  ## Large k in a matrix product: 64×20000 · 20000×64; same-sign data (errors do not cancel).
%!  check_accuracy (rnd (64, 20000), rnd (20000, 64), backend);
%!  check_accuracy (rnd (64, 20000, "single"), rnd (20000, 64, "single"), backend);
%!  check_accuracy (single (rand (64, 20000)), single (rand (20000, 64)), backend);
%!  check_accuracy (rnd (40, 5000, "double", true), rnd (5000, 30, "double", true), backend);
%!  ## Cancellation: partial sums 10^16 (double) or 10^6 (single) times the result.
%!  [A, B] = cancelling (16, 2000, 50, 16, "double", 1e8);
%!  check_accuracy (A, B, backend);
%!  [A, B] = cancelling (16, 2000, 50, 16, "single", 1e3);
%!  check_accuracy (A, B, backend);
%!  [A, B] = cancelling (33, 3000, 40, 65, "double", 1e8);
%!  check_accuracy (complex (A, fliplr (A)), B, backend);
%!  ## Integers: exact in double while |sums| < 2^53, in single while < 2^24, whatever the order.
%!  A = randi ([-2^12, 2^12], 64, 3000); B = randi ([-2^12, 2^12], 3000, 50);
%!  assert (tilemm (A, B, "backend", backend), A * B);
%!  ## Single: |A|, |B| <= 2^5 and k = 3000 keep every partial sum below 2^24, so exact in any order
%!  ## (an earlier version scaled the double data down, whose sums need more bits than single has:
%!  ## it passed only where `*` summed in tilemm's order, not with OpenBLAS on the GPU machine).
%!  As = single (randi ([-2^5, 2^5], 64, 3000)); Bs = single (randi ([-2^5, 2^5], 3000, 50));
%!  assert (tilemm (As, Bs, "backend", backend), As * Bs);
%!  Z = complex (A, randi ([-2^12, 2^12], 64, 3000)); W = complex (B, randi ([-2^12, 2^12], 3000, 50));
%!  assert (tilemm (Z, W, "backend", backend), Z * W);
%!  assert (tilemm (Z, B, "backend", backend), Z * B);
%!  assert (tilemm (A, W, "backend", backend), A * W);
%!endfunction
%!test
%! ## The reference: exact on integers; on cancelling rows it finds S·W, within S·W's own rounding.
%! rand ("state", 3);
%! A = randi ([-2^20, 2^20], 30, 500); B = randi ([-2^20, 2^20], 500, 20);
%! assert (ref_split (A, B), A * B);
%! [A, B, S, W] = cancelling (16, 2000, 50, 16, "double", 1e8);
%! assert (ref_split (A, B), S * W, 2 * 50 * eps);
%! assert (abs (A * B - S * W) > 1e4 * eps);   # what `*` loses there: the test is not trivial
%! a = rand (1, 1000); b = rand (1000, 1);
%! assert (ref_split (a, b), sum (a .* b'), 1000 * eps);
%!test check_numerics ("cpu");
%!testif ; gpu_usable ()
%! check_numerics ("gpu");

## NaN and Inf in larger products (every tile and panel path), for every type: Inf·0 is NaN, a
## NaN anywhere in a sum gives NaN, Inf - Inf is NaN, a finite sum that overflows is ±Inf.  Here
## A holds them; the next test puts them in a complex B.
%!function check_nonfinite (backend, varargin)
%!  for cls = {"double", "single"}
%!    for z = [false true]
%!      A = rnd (70, 90, cls{1}, z); B = rnd (90, 65, cls{1}, z);
%!      A(3, 10) = Inf; B(10, :) = 0; B(10, 7) = 2;     # Inf·0: NaN but in column 7 (Inf)
%!      A(8, 20) = NaN;                                   # row 8 all NaN
%!      A(12, 30:31) = Inf; B(30:31, :) = 1; B(31, 5) = -1;   # Inf - Inf at (12, 5)
%!      check_product (A, B, "backend", backend, varargin{:});
%!      check_product (A, real (B), "backend", backend, varargin{:});
%!      check_product (real (A), B, "backend", backend, varargin{:});
%!      if (! z)   # IEEE's answer, whatever `*` gives (see check_product)
%!        C = tilemm (A, B, "backend", backend, varargin{:});
%!        assert (isnan (C(3, [1:6 8:65])), true (1, 64));   # Inf·0
%!        assert (C(3, 7), cast (Inf, cls{1}));              # Inf·2 + finite
%!        assert (isnan (C(8, :)), true (1, 65));            # NaN anywhere in the sum
%!        assert (C(12, [1:4 6:65]), cast (Inf (1, 64), cls{1}));   # Inf·1 + Inf·1
%!        assert (isnan (C(12, 5)));                         # Inf - Inf
%!        rest = true (70, 65); rest([3 8 12], :) = false;
%!        assert (all (isfinite (C(rest))));
%!      endif
%!    endfor
%!  endfor
%!  ## A finite sum that overflows is ±Inf (IEEE, and tilemm).  Not compared with `*`: OpenBLAS on
%!  ## the GPU machine gives NaN there (seen 2026-11-23), the reference BLAS ±Inf; both non-finite.
%!  for cls = {"double", "single"}
%!    big = realmax (cls{1}) / 2;
%!    A = rnd (30, 12, cls{1}); B = rnd (12, 10, cls{1});
%!    A(20, 1:4) = big; A(21, 1:4) = -big; B(1:4, :) = 0; B(1:4, 9) = 2;
%!    C = tilemm (A, B, "backend", backend, varargin{:});
%!    assert (C(20:21, 9), cast ([Inf; -Inf], cls{1}));
%!    assert (! any (isfinite ((A * B)(20:21, 9))));
%!    fin = true (size (C)); fin(20:21, 9) = false;
%!    assert (all (isfinite (C(fin))));
%!  endfor
%!endfunction
%!test check_nonfinite ("cpu");
%!test check_nonfinite ("cpu", "max_device_bytes", 20000);
%!testif ; gpu_usable ()
%! check_nonfinite ("gpu");
%! check_nonfinite ("gpu", "max_device_bytes", 20000);
%!function check_complex_b_nonfinite (backend)
%!  assert (tilemm ([1 2], [complex(0, Inf); 1], "backend", backend), [1 2] * [complex(0, Inf); 1]);
%!  for cls = {"double", "single"}
%!    A = rnd (20, 30, cls{1}); B = rnd (30, 25, cls{1}, true);
%!    B(4, 6) = complex (1, Inf); B(9, 2) = complex (NaN, 0); B(11, 3) = complex (-Inf, 2);
%!    C = tilemm (A, B, "backend", backend); R = A * B;
%!    assert (isnan (real (C)), isnan (real (R)));
%!    assert (isnan (imag (C)), isnan (imag (R)));
%!    assert (isinf (real (C)), isinf (real (R)));
%!    assert (isinf (imag (C)), isinf (imag (R)));
%!    check_product (A, B, "backend", backend);
%!  endfor
%!  ## With k <= min (m, n) / 10 `*` makes the real operand complex instead (liboctave's rule), and
%!  ## its 0·Inf terms give NaN parts: so must tilemm.
%!  A = ones (300, 20); B = complex (zeros (20, 300), Inf (20, 300));
%!  C = tilemm (A, B, "backend", backend); R = A * B;
%!  assert (isnan (C), isnan (R)); assert (isnan (real (C)), isnan (real (R)));
%!  ## There the parts of a non-finite element depend on the BLAS's complex product (tilemm gives
%!  ## NaN + Inf i, IEEE's (1 + Inf i)(1 + 0i); OpenBLAS's zgemm NaN + NaN i): compare elements.
%!  A = complex (ones (300, 20), Inf (300, 20)); B = ones (20, 300);
%!  C = tilemm (A, B, "backend", backend); R = A * B;
%!  assert (isfinite (C), isfinite (R)); assert (isnan (real (C)), isnan (real (R)));
%!  A = complex (ones (300, 40), Inf (300, 40)); B = ones (40, 300);   # k > 30: two real products
%!  C = tilemm (A, B, "backend", backend); R = A * B;
%!  assert (isnan (real (C)), isnan (real (R))); assert (isinf (imag (C)), isinf (imag (R)));
%!endfunction
%!test
%! ## Non-finite values in a complex B.  `*` multiplies a real A by a complex B as two real
%! ## products (A·real (B), A·imag (B)), and so does tilemm (B's parts copied apart): a part `*`
%! ## leaves finite stays finite (1·(0 + Inf i) is 0 + Inf i, not NaN + Inf i).
%! check_complex_b_nonfinite ("cpu");
%!testif ; gpu_usable ()
%! check_complex_b_nonfinite ("gpu");

## Emulated precision ("precision", "emulated": Ozaki scheme II, src/common/emulated.h).
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", "quad")
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", 53)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", "emulated", "moduli", 0)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", "emulated", "moduli", 25)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", "emulated", "moduli", 2.5)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", "emulated", "accuracy", 0)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", "emulated", "accuracy", 54)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", "emulated", "accuracy", "high")
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", "emulated", "accuracy", "natives")
%!error <must be "elementwise"> tilemm (ones (2), ones (2), "precision", "emulated", "accuracy", "")
%!error <apply to the emulated precision> tilemm (ones (2), ones (2), "accuracy", "native")
%!error <not both> tilemm (ones (2), ones (2), "precision", "emulated", "moduli", 4, "accuracy", "native")
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", "auto", "moduli", 4)
%!error <"emulated" or "auto"> tilemm (ones (2), ones (2), "precision", "fast")
%!testif ; exist ("__tilemm_plan__") > 0
%! ## (The oct-file's plan printer: not in the mex route, which has none.)
%! ## "precision", "auto": the plan says which precision it took and why, and the product is
%! ## that precision's (on the CPU backend always the native one).
%! A = rand (40, 30);  B = rand (30, 20);
%! plan = __tilemm_plan__ (A, B, "precision", "auto");
%! assert (! isempty (strfind (plan, "precision auto: ")));
%! assert (tilemm (A, B, "backend", "cpu", "precision", "auto"), tilemm (A, B, "backend", "cpu"));
%! plan = __tilemm_plan__ (A, B, "backend", "cpu", "precision", "auto");
%! assert (! isempty (strfind (plan, "precision auto: native")));
%!error <apply to the emulated precision> tilemm (ones (2), ones (2), "precision", "native", "moduli", 4)
%!error <apply to the emulated precision> tilemm (ones (2), ones (2), "accuracy", 24)
%!error <not both> tilemm (ones (2), ones (2), "precision", "emulated", "moduli", 4, "accuracy", 24)
%!function check_emulated (A, B, varargin)
%!  ## The guarantee |C - C_exact| <= u|C| + 2^-(t+1)·|A||B| (t: 53 double, 24 single, or the
%!  ## "accuracy" given), against ref_split (itself within u|ref| of the exact product), and no
%!  ## worse than `*` elementwise relative to |A||B| (unless within 2u there).
%!  t = 53 - 29 * isa (A * B, "single");
%!  for i = 1:2:numel (varargin)
%!    if (strcmp (varargin{i}, "accuracy"))
%!      t = varargin{i + 1};
%!    endif
%!  endfor
%!  C = tilemm (A, B, "backend", "cpu", "precision", "emulated", varargin{:});
%!  R = A * B;
%!  assert (class (C), class (R));
%!  assert (size (C), size (R));
%!  ref = ref_split (A, B);
%!  u = double (eps (class (R))) / 2;
%!  scale = abs (double (A)) * abs (double (B));
%!  e_t = abs (double (C) - ref); e_m = abs (double (R) - ref);
%!  slack = 1 + 3 * iscomplex (C);   # |z| against the two parts' bounds
%!  bound = 2 * u * abs (ref) + slack * 2^-(t + 1) * scale + realmin;
%!  assert (all (e_t(:) <= bound(:)), sprintf ("emulated: error %.3g above the guarantee",
%!                                             max (e_t(:) - bound(:))));
%!  if (t >= 53 - 29 * isa (R, "single"))
%!    worst_t = max (e_t(:) ./ scale(:)); worst_m = max (e_m(:) ./ scale(:));
%!    assert (worst_t <= max (worst_m, 2 * u),
%!            sprintf ("emulated: error %.3g u, `*` %.3g u", worst_t / u, worst_m / u));
%!  endif
%!endfunction
%!test
%! rand ("state", 11);
%! check_emulated (rnd (64, 2000), rnd (2000, 64));
%! check_emulated (rand (40, 500), rand (500, 30));
%! check_emulated (rnd (30, 300) .* 10 .^ (40 * rnd (30, 1)), rnd (300, 20) .* 10 .^ (40 * rnd (1, 20)));
%! [A, B] = cancelling (16, 2000, 50, 16, "double", 1e8);
%! check_emulated (A, B);
%! [A, B, S, W] = cancelling (16, 500, 50, 16, "double", 1e8);
%! C = tilemm (A, B, "backend", "cpu", "precision", "emulated");
%! assert (max (abs (C - S * W)(:)) < max (abs (A * B - S * W)(:)) / 1e6);   # not trivial
%!test
%! ## Single, complex, and mixed real and complex operands (the route's real products).
%! rand ("state", 12);
%! check_emulated (rnd (50, 400, "single"), rnd (400, 40, "single"));
%! [A, B] = cancelling (16, 1000, 50, 16, "single", 1e3);
%! check_emulated (A, B);
%! check_emulated (rnd (30, 200, "double", true), rnd (200, 25, "double", true));
%! check_emulated (rnd (30, 200, "single", true), rnd (200, 25, "single", true));
%! check_emulated (rnd (30, 200, "double", true), rnd (200, 25));
%! check_emulated (rnd (30, 200), rnd (200, 25, "double", true));
%! check_emulated (rnd (30, 200, "single", true), rnd (200, 25, "single"));
%!test
%! ## Integer-valued data: exact (every sum below 2^53), real, complex, single.
%! A = randi ([-2^12, 2^12], 64, 3000); B = randi ([-2^12, 2^12], 3000, 50);
%! assert (tilemm (A, B, "backend", "cpu", "precision", "emulated"), A * B);
%! Z = complex (A(:, 1:500), randi ([-2^12, 2^12], 64, 500));
%! W = complex (B(1:500, :), randi ([-2^12, 2^12], 500, 50));
%! assert (tilemm (Z, W, "backend", "cpu", "precision", "emulated"), Z * W);
%! As = single (randi ([-2^5, 2^5], 64, 3000)); Bs = single (randi ([-2^5, 2^5], 3000, 50));
%! assert (tilemm (As, Bs, "backend", "cpu", "precision", "emulated"), As * Bs);
%! assert (tilemm (A, B, "backend", "cpu", "precision", "emulated", "moduli", 8), A * B);
%!test
%! ## NaN and Inf come out as `*` gives them (the native product runs instead).
%! check_nonfinite ("cpu", "precision", "emulated");
%! check_product ([NaN 1; 2 3], [0 0; 0 0], "backend", "cpu", "precision", "emulated");
%! check_product ([Inf -Inf; 1 1], [1 1; 1 1], "backend", "cpu", "precision", "emulated");
%!test
%! ## A range no plan carries in one piece: row 1 of A meets column 1 of B only where one of
%! ## them is below 2^-80 of its largest (no bound from the statistics), so that entry is
%! ## computed exactly and the others emulated.  Row 2 · column 2 is 1e16 + 1 - 1e16 = 1
%! ## exactly, which the emulated precision gets and a sum in k order (native) not.
%! A = [1 2^-80 0; 1e16 1 -1e16]; B = [2^-80 1; 1 1; 0 1];
%! native = tilemm (A, B, "backend", "cpu");
%! assert (native(2, 2), 0);
%! E = tilemm (A, B, "backend", "cpu", "precision", "emulated");
%! assert (E(1, 1), 2^-79);
%! assert (E(2, 2), 1);
%! assert (E(1, 2), 1);
%! assert (E(2, 1), 1e16 * 2^-80 + 1, -eps);
%! assert (tilemm (A(2, :), B(:, 2), "backend", "cpu", "precision", "emulated"), 1);
%!test
%! ## TILEMM_PRECISION: read at every call, overridden by the option; a bad value is an error.
%! [A, B] = cancelling (8, 300, 20, 8, "double", 1e8);
%! native = tilemm (A, B, "backend", "cpu", "precision", "native");
%! emulated = tilemm (A, B, "backend", "cpu", "precision", "emulated");
%! assert (! isequal (native, emulated));
%! old = getenv ("TILEMM_PRECISION");
%! unwind_protect
%!   setenv ("TILEMM_PRECISION", "emulated");
%!   assert (tilemm (A, B, "backend", "cpu"), emulated);
%!   assert (tilemm (A, B, "backend", "cpu", "precision", "native"), native);
%!   four = tilemm (A, B, "backend", "cpu", "moduli", 4);   # accepted: emulated is in effect
%!   assert (! isequal (four, emulated));
%!   setenv ("TILEMM_PRECISION", "NATIVE");
%!   assert (tilemm (A, B, "backend", "cpu"), native);
%!   setenv ("TILEMM_PRECISION", "");
%!   assert (tilemm (A, B, "backend", "cpu"), native);
%!   setenv ("TILEMM_PRECISION", "bogus");
%!   fail ('tilemm (A, B, "backend", "cpu")', "TILEMM_PRECISION");
%! unwind_protect_cleanup
%!   setenv ("TILEMM_PRECISION", old);
%! end_unwind_protect
%!test
%! ## "moduli" (an exact count) and "accuracy" (target bits) change the plan; transposed operands
%! ## and "auto" give the same bits as the plain product on the cpu backend.
%! rand ("state", 13);
%! A = rnd (30, 200); B = rnd (200, 20); ref = ref_split (A, B);
%! err = @(varargin) max (abs (tilemm (A, B, "backend", "cpu", "precision", "emulated", varargin{:}) - ref)(:));
%! assert (err ("moduli", 4) > 1e3 * err ("moduli", 12));
%! assert (err ("moduli", 12) > err ("moduli", 20));
%! assert (err ("accuracy", 24) > 1e3 * err ());
%! check_emulated (A, B, "accuracy", 24);
%! check_emulated (A, B, "accuracy", 40);
%! C = tilemm (A, B, "backend", "cpu", "precision", "emulated");
%! assert (tilemm (A.', "transpose", B, "none", "backend", "cpu", "precision", "emulated"), C);
%! assert (tilemm (A, "none", B', "ctranspose", "backend", "cpu", "precision", "emulated"), C);
%! Z = rnd (30, 200, "double", true); W = rnd (200, 20, "double", true);
%! assert (tilemm (Z', "ctranspose", W.', "transpose", "backend", "cpu", "precision", "emulated"),
%!         tilemm (Z, W, "backend", "cpu", "precision", "emulated"));
%! if (! gpu_usable ())
%!   assert (tilemm (A, B, "precision", "emulated"), C);   # "auto": the CPU, not `*`
%! endif

%!function check_elementwise (A, B)
%!  ## "accuracy", "elementwise" (emulated.h step 3''): every entry within u|C| +
%!  ## 2^-(t+1-s)·(|A||B|) of the exact product, 2^s the largest power of two not above K - 1
%!  ## (K = k, 2k for complex): within native BLAS's gamma_K·|A||B|; against ref_split (itself
%!  ## within u|ref|).
%!  C = tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "elementwise");
%!  R = A * B;
%!  assert (class (C), class (R));
%!  assert (size (C), size (R));
%!  ref = ref_split (A, B);
%!  u = double (eps (class (R))) / 2;
%!  t = 53 - 29 * isa (R, "single");
%!  K = columns (A) * (1 + iscomplex (C));
%!  s = floor (log2 (max (K - 1, 1)));
%!  mag = abs (double (real (A))) * abs (double (real (B))) ...
%!        + abs (double (imag (A))) * abs (double (imag (B)));
%!  magi = abs (double (real (A))) * abs (double (imag (B))) ...
%!         + abs (double (imag (A))) * abs (double (real (B)));
%!  slack = 1 + iscomplex (C);   # |z| against the two parts' bounds
%!  bound = 2 * u * abs (ref) + slack * 2^-(t + 1 - s) * (mag + magi) + realmin;
%!  e = abs (double (C) - ref);
%!  assert (all (e(:) <= bound(:)), sprintf ("elementwise level: error %.3g above its bound",
%!                                           max (e(:) - bound(:))));
%!  ## and so within native's own bound, K·u·|A||B| < gamma_K·|A||B| (K >= 2)
%!  if (K >= 2)
%!    assert (all (e(:) <= 2 * u * abs (ref(:)) + K * u * slack * (mag(:) + magi(:)) + realmin));
%!  endif
%!endfunction
%!test
%! ## The elementwise native level: its bound on random, widely scaled, cancelling, single and
%! ## complex data; fewer bits than the certified rule's; any case of "elementwise".
%! rand ("state", 15);
%! A = rnd (40, 1024); B = rnd (1024, 30);
%! check_elementwise (A, B);
%! assert (! isequal (tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "elementwise"),
%!                    tilemm (A, B, "backend", "cpu", "precision", "emulated")));
%! check_elementwise (rnd (30, 300) .* 10 .^ (40 * rnd (30, 1)), rnd (300, 20) .* 10 .^ (40 * rnd (1, 20)));
%! [A, B] = cancelling (16, 2000, 50, 16, "double", 1e8);
%! check_elementwise (A, B);
%! check_elementwise (rnd (50, 400, "single"), rnd (400, 40, "single"));
%! check_elementwise (rnd (30, 200, "double", true), rnd (200, 25, "double", true));
%! check_elementwise (rnd (30, 200, "single", true), rnd (200, 25, "single", true));
%! check_elementwise (rnd (5, 1), rnd (1, 4));   # k = 1: the certified rule itself
%! A = rnd (20, 100); B = rnd (100, 10);
%! assert (tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "Elementwise"),
%!         tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "elementwise"));
%! C = tilemm ([1 2^-80 0; 1e16 1 -1e16], [2^-80 1; 1 1; 0 1], "backend", "cpu",
%!             "precision", "emulated", "accuracy", "elementwise");
%! assert (all (isfinite (C(:))));
%! check_elementwise ([1 2^-80 0; 1e16 1 -1e16], [2^-80 1; 1 1; 0 1]);

%!function check_native (A, B)
%!  ## "accuracy", "native" (emulated.h step 3'): every entry within u|C| + (1 + u)·2^-(t+1)·K·
%!  ## ‖a_i‖‖b_j‖ of the exact product (K = k, 2k for complex), against ref_split (itself within
%!  ## u|ref|).
%!  C = tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "native");
%!  R = A * B;
%!  assert (class (C), class (R));
%!  assert (size (C), size (R));
%!  ref = ref_split (A, B);
%!  u = double (eps (class (R))) / 2;
%!  t = 53 - 29 * isa (R, "single");
%!  K = columns (A) * (1 + iscomplex (C));
%!  na = sqrt (sum (abs (double (A)) .^ 2, 2)); nb = sqrt (sum (abs (double (B)) .^ 2, 1));
%!  slack = 1 + 3 * iscomplex (C);   # |z| against the two parts' bounds
%!  bound = 2 * u * abs (ref) + slack * (1 + u) * 2^-(t + 1) * K * (na * nb) + realmin;
%!  e = abs (double (C) - ref);
%!  assert (all (e(:) <= bound(:)), sprintf ("native level: error %.3g above its bound",
%!                                           max (e(:) - bound(:))));
%!endfunction
%!test
%! ## The native-matching level: its bound on random, widely scaled, cancelling, single and
%! ## complex data; any case of "native"; integer data it carries exactly (k = 3000: 51 bits).
%! rand ("state", 14);
%! A = rnd (40, 1024); B = rnd (1024, 30);
%! check_native (A, B);
%! ## fewer bits than the certified rule's (51 against 58 here): not its correctly rounded C
%! assert (! isequal (tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "native"),
%!                    tilemm (A, B, "backend", "cpu", "precision", "emulated")));
%! check_native (rnd (30, 300) .* 10 .^ (40 * rnd (30, 1)), rnd (300, 20) .* 10 .^ (40 * rnd (1, 20)));
%! [A, B] = cancelling (16, 2000, 50, 16, "double", 1e8);
%! check_native (A, B);
%! check_native (rnd (50, 400, "single"), rnd (400, 40, "single"));
%! check_native (rnd (30, 200, "double", true), rnd (200, 25, "double", true));
%! check_native (rnd (30, 200, "single", true), rnd (200, 25, "single", true));
%! A = rnd (20, 100); B = rnd (100, 10);
%! assert (tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "NATIVE"),
%!         tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "native"));
%! A = randi ([-2^12, 2^12], 64, 3000); B = randi ([-2^12, 2^12], 3000, 50);
%! assert (tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "native"), A * B);
%! C = tilemm ([1 2^-80 0; 1e16 1 -1e16], [2^-80 1; 1 1; 0 1], "backend", "cpu",
%!             "precision", "emulated", "accuracy", "native");
%! assert (all (isfinite (C(:))));
%!testif ; gpu_usable ()
%! ## The GPU decides the same plan (no statistics GEMM under this level) and gives the same bits.
%! rand ("state", 15);
%! A = rnd (70, 500); B = rnd (500, 40);
%! assert (tilemm (A, B, "backend", "gpu", "precision", "emulated", "accuracy", "native"),
%!         tilemm (A, B, "backend", "cpu", "precision", "emulated", "accuracy", "native"));
%! Z = rnd (30, 200, "single", true); W = rnd (200, 25, "single", true);
%! assert (tilemm (Z, W, "backend", "gpu", "precision", "emulated", "accuracy", "native"),
%!         tilemm (Z, W, "backend", "cpu", "precision", "emulated", "accuracy", "native"));
%!test
%! ## Transposed operands in the emulated precision go in as stored, on every path: read the other
%! ## way round on the cpu backend, over simulated devices and in panels; the same bits as the
%! ## untransposed product.
%! rand ("state", 16);
%! Z = rnd (61, 150, "double", true); W = rnd (150, 47, "double", true);
%! C = tilemm (Z, W, "backend", "cpu", "precision", "emulated");
%! for o = {{"cpu"}, {"cpu", "simulate_devices", 3}, {"cpu", "max_device_bytes", 60000}}
%!   assert (tilemm (Z', "ctranspose", W.', "transpose", "backend", o{1}{:}, "precision", "emulated"), C);
%!   assert (tilemm (Z.', "transpose", W, "none", "backend", o{1}{:}, "precision", "emulated"), C);
%! endfor
%! ## NaN and Inf in transposed operands: their rows and columns as `*` gives them, the rest
%! ## emulated, as for the untransposed operands.
%! Z(3, 7) = NaN; W(5, 2) = Inf; W(9, 40) = NaN;
%! C = tilemm (Z, W, "backend", "cpu", "precision", "emulated");
%! assert (nnz (isnan (C)) > 0 && nnz (isfinite (C)) > 0);
%! assert (tilemm (Z', "ctranspose", W.', "transpose", "backend", "cpu", "precision", "emulated"), C);
%! assert (tilemm (Z.', "transpose", W', "ctranspose", "backend", "cpu", "precision", "emulated"), C);
%! assert (tilemm (Z', "ctranspose", W, "none", "backend", "cpu", "simulate_devices", 3,
%!                  "precision", "emulated"), C);
%!testif ; gpu_usable ()
%! ## ... and transposed on the device by the GPU, whole, in panels and on two workers: the
%! ## cpu's bits.
%! rand ("state", 17);
%! for cls = {"double", "single"}
%!   Z = rnd (300, 700, cls{1}, true); W = rnd (700, 260, cls{1}, true);
%!   A = real (Z); B = real (W);
%!   C = tilemm (Z, W, "backend", "cpu", "precision", "emulated");
%!   R = tilemm (A, B, "backend", "cpu", "precision", "emulated");
%!   for o = {{}, {"max_device_bytes", 2e6}, {"devices", [0 0]}}
%!     assert (tilemm (Z', "ctranspose", W.', "transpose", "backend", "gpu", o{1}{:}, "precision", "emulated"), C);
%!     assert (tilemm (Z, "none", W', "ctranspose", "backend", "gpu", o{1}{:}, "precision", "emulated"), C);
%!     assert (tilemm (A', "transpose", B', "transpose", "backend", "gpu", o{1}{:}, "precision", "emulated"), R);
%!   endfor
%! endfor

## Panels: a small "max_device_bytes" cuts the product into panels; the result is identical.
%!test
%! A = rnd (150, 90); B = rnd (90, 170);
%! whole = tilemm (A, B, "backend", "cpu");
%! for limit = [20000 60000 200000]
%!   assert (tilemm (A, B, "backend", "cpu", "max_device_bytes", limit), whole);
%! endfor
%!test
%! A = rnd (70, 40, "single", true); B = rnd (40, 90, "single", true);
%! assert (tilemm (A, B, "backend", "cpu", "max_device_bytes", 30000),
%!         tilemm (A, B, "backend", "cpu"));
%!error <max_device_bytes> tilemm (ones (2), ones (2), "backend", "cpu", "max_device_bytes", 8)
## On the cpu backend a limit too small for one panel is the option's error and names the cpu:
## no GPU memory ran out (simulated devices and the emulated precision alike).
%!error <"max_device_bytes" is too small .* on the cpu backend> tilemm (ones (2), ones (2), "backend", "cpu", "max_device_bytes", 8)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "backend", "cpu", "max_device_bytes", 8)
%!error id=tilemm:badoption tilemm (ones (200), ones (200), "backend", "cpu", "simulate_devices", 3, "max_device_bytes", 800)
%!error id=tilemm:badoption tilemm (ones (20), ones (20), "backend", "cpu", "precision", "emulated", "max_device_bytes", 100)
%!test
%! try
%!   tilemm (ones (2), ones (2), "backend", "cpu", "max_device_bytes", 8);
%! catch e
%!   assert (isempty (strfind (e.message, "GPU memory")), e.message);
%! end_try_catch

## Bad and odd inputs: every class, real and complex, scalar / vector / matrix / empty / N-D, in
## both orders, on every backend that runs here: exactly what `*` gives, or exactly its error.
%!function x = sample_operand (cls, shape, cplx)
%!  all_dims = struct ("scalar", [1 1], "row", [1 3], "column", [3 1], "matrix", [3 3],
%!                     "empty", [0 3], "nd", [3 3 2]);
%!  dims = all_dims.(shape);
%!  v = reshape (mod (1:prod (dims), 7) - 3, dims);
%!  switch (cls)
%!    case "cell",     x = num2cell (v);
%!    case "struct",   x = struct ("a", num2cell (v));
%!    case "function", x = @sin;
%!    case "sparse",   x = sparse (v(:, :, 1));
%!    case "logical",  x = v > 0;
%!    case "char",     x = char (v + 70);
%!    otherwise,       x = cast (v, cls);
%!  endswitch
%!  if (cplx && (isfloat (x) || strcmp (cls, "sparse")))
%!    x = complex (x, 1);
%!  endif
%!endfunction
%!function check_like_mtimes (A, B, varargin)
%!  want_err = []; got_err = [];
%!  try, R = A * B; catch want_err, end
%!  try, C = tilemm (A, B, varargin{:}); catch got_err, end
%!  if (isempty (want_err))
%!    if (! isempty (got_err))
%!      error ("tilemm failed where * did not: %s", got_err.message);
%!    endif
%!    check_product (A, B, varargin{:});
%!  else
%!    assert (! isempty (got_err), true, "tilemm succeeded where * failed");
%!    assert (got_err.identifier, want_err.identifier);
%!    assert (got_err.message, want_err.message);
%!  endif
%!endfunction
%!test
%! classes = {"double", "single", "logical", "char", "int8", "uint8", "int16", "uint16", ...
%!            "int32", "uint32", "int64", "uint64", "cell", "struct", "function", "sparse"};
%! shapes = {"scalar", "row", "column", "matrix", "empty", "nd"};
%! for backend = {"cpu", "auto"}
%!   for i = 1:numel (classes)
%!     for s = 1:numel (shapes)
%!       for cplx = [false true]
%!         A = sample_operand (classes{i}, shapes{s}, cplx);
%!         for j = [1 2 4 5 16]    # against double, single, char, int8 and sparse partners
%!           for t = {"matrix", "scalar", "column"}
%!             B = sample_operand (classes{j}, t{1}, false);
%!             check_like_mtimes (A, B, "backend", backend{1});
%!             check_like_mtimes (B, A, "backend", backend{1});
%!           endfor
%!         endfor
%!       endfor
%!     endfor
%!   endfor
%! endfor

## Transposes, pagemtimes style: tilemm (A, tA, B, tB) is op(A) * op(B), with op "none",
## "transpose" (A.') or "ctranspose" (A'), in any case; the same class, size, realness and
## values as the expression, and the same errors.
%!function R = op_of (X, t)
%!  switch (lower (t))
%!    case "none",       R = X;
%!    case "transpose",  R = X.';
%!    case "ctranspose", R = X';
%!  endswitch
%!endfunction
%!function check_product_op (A, tA, B, tB, varargin)
%!  Ao = op_of (A, tA); Bo = op_of (B, tB);
%!  check_result (tilemm (A, tA, B, tB, varargin{:}), Ao * Bo, Ao, Bo, [tA " " tB ": "]);
%!endfunction
%!function check_same_error_op (A, tA, B, tB, varargin)
%!  want = []; got = [];
%!  try, op_of (A, tA) * op_of (B, tB); catch want, end
%!  try, tilemm (A, tA, B, tB, varargin{:}); catch got, end
%!  assert (! isempty (want), true, "op(A) * op(B) did not fail");
%!  assert (! isempty (got), true, "tilemm did not fail");
%!  assert (got.identifier, want.identifier);
%!  assert (got.message, want.message);
%!endfunction
%!test
%! ops = {"none", "transpose", "ctranspose"};
%! for cls = {"double", "single"}
%!   for za = [false true]
%!     for zb = [false true]
%!       for i = 1:3
%!         for j = 1:3
%!           m = 9; k = 7; n = 11;
%!           A = rnd (m, k, cls{1}, za); B = rnd (k, n, cls{1}, zb);
%!           if (i > 1), A = A.'; endif
%!           if (j > 1), B = B.'; endif
%!           check_product_op (A, ops{i}, B, ops{j}, "backend", "cpu");
%!         endfor
%!       endfor
%!     endfor
%!   endfor
%! endfor
%!test
%! ## Tile edges and mixed classes: single wins, complex A by real B and the reverse.
%! check_product_op (rnd (130, 65), "transpose", rnd (130, 70), "none", "backend", "cpu");
%! check_product_op (rnd (65, 130, "single", true), "none", rnd (70, 130), "ctranspose", "backend", "cpu");
%! check_product_op (rnd (64, 63, "double", true), "ctranspose", rnd (65, 64, "single", true), "transpose", "backend", "cpu");
%! check_product_op (rnd (33, 40, "double", true), "transpose", rnd (33, 20), "none", "backend", "cpu");
%! check_product_op (rnd (33, 40, "double", true), "ctranspose", rnd (20, 33), "transpose", "backend", "cpu");
%! check_product_op (rnd (40, 33), "transpose", rnd (20, 40, "double", true), "ctranspose", "backend", "cpu");
%! check_product_op (true (6, 5), "transpose", rnd (6, 4, "single"), "none", "backend", "cpu");
%! check_product_op (char (65 + randi (20, 3, 8)), "transpose", rnd (3, 2), "none", "backend", "cpu");
%! check_product_op (rnd (5, 6), "none", char (65 + randi (20, 4, 6)), "transpose", "backend", "cpu");
%!test
%! for t = 1:10
%!   m = randi (70); k = randi (70); n = randi (70);
%!   check_product_op (rnd (k, m, "double", true), "ctranspose", rnd (n, k, "double", true), "ctranspose", "backend", "cpu");
%!   check_product_op (rnd (k, m, "single"), "transpose", rnd (k, n, "single"), "none", "backend", "cpu");
%! endfor
%!test
%! ## Keywords in any case; options after the four arguments; the default ("auto") backend.
%! A = rnd (8, 5); B = rnd (8, 6);
%! check_product_op (A, "Transpose", B, "NONE", "backend", "cpu");
%! check_product_op (A, "CTRANSPOSE", B, "none", "BACKEND", "CPU", "max_device_bytes", 2000);
%! check_product_op (A, "transpose", B, "none");
%! check_product_op (A.', "none", B.', "ctranspose");
%!assert (tilemm ([1 2; 3 4], "transpose", [5 6; 7 8], "none", "backend", "cpu"), [26 30; 38 44])
%!assert (tilemm ([1i 2], "ctranspose", [1 1], "none", "backend", "cpu"), [-1i -1i; 2 2])
%!assert (tilemm ([1i 2], "transpose", [1 1], "none", "backend", "cpu"), [1i 1i; 2 2])
%!assert (tilemm ([1i 1i], "ctranspose", [1i; 2i], "transpose", "backend", "cpu"), [1 2; 1 2])
%!assert (isreal (tilemm ([1i 1i], "ctranspose", [1i; 2i], "transpose", "backend", "cpu")))
%!testif ; exist ("__tilemm_plan__") > 0
%! ## The plan is made once and printed whole: a transposed product under "max_device_bytes" is
%! ## cut into panels like a plain one (the limit holds for every kind of product).
%! A = rnd (300, 200); B = rnd (300, 250);
%! p = __tilemm_plan__ (A, "transpose", B, "none", "backend", "cpu", "max_device_bytes", 100000);
%! t = regexp (p, 'panels: (\d+) panel', "tokens", "once");
%! assert (str2double (t{1}) > 1)
%! assert (! isempty (strfind (p, "op_a transpose")))
%! p = __tilemm_plan__ (A, "transpose", B, "none", "backend", "cpu", "precision", "emulated", ...
%!                      "simulate_devices", 3);
%! assert (! isempty (strfind (p, "emulated_passes: two")))
%! ## The branches the data may take are planned too, before anything runs.
%! assert (! isempty (strfind (p, "emulated_on_range: the pairs the moduli carry emulated")))
%! assert (! isempty (strfind (p, "emulated_on_nonfinite: the native product, then")))
%! p = __tilemm_plan__ (A.', B, "backend", "cpu", "precision", "emulated", "moduli", 5);
%! assert (! isempty (strfind (p, "emulated_on_range: the native product, with a warning")))
%! assert (strtrim (__tilemm_plan__ (3, rnd (3, 3))), "action: delegate to mtimes")
%!testif ; exist ("__tilemm_plan__") > 0 && gpu_usable ()
%! ## On the GPU, a transposed product under a quarter of its data: in panels that fit (the
%! ## pipeline's, its device transposes' scratch counted).
%! A = rnd (700, 600); B = rnd (700, 800);
%! lim = 8 * (600 * 700 + 700 * 800 + 600 * 800) / 4;
%! p = __tilemm_plan__ (A, "transpose", B, "none", "backend", "gpu", "max_device_bytes", lim);
%! t = regexp (p, 'panels: (\d+) panel', "tokens", "once");
%! assert (str2double (t{1}) > 1)
%! check_product_op (A, "transpose", B, "none", "backend", "gpu", "max_device_bytes", lim);
%!test
%! ## NaN and Inf pass through transposed operands as through `*`.
%! A = rnd (20, 30); B = rnd (25, 20);
%! A(3, 7) = NaN; A(:, 11) = Inf; B(4, :) = -Inf;
%! check_product_op (A, "transpose", B, "transpose", "backend", "cpu");
%!test
%! ## Scalars, empties, integers, sparse, logical, char: what the expression gives.
%! for backend = {"cpu", "auto"}
%!   b = {"backend", backend{1}};
%!   check_product_op (2, "transpose", rnd (2, 3), "none", b{:});
%!   check_product_op (1i, "ctranspose", rnd (1, 3, "double", true), "ctranspose", b{:});
%!   check_product_op (rnd (3, 2), "ctranspose", 2 + 1i, "transpose", b{:});
%!   check_product_op (zeros (3, 0), "transpose", zeros (3, 4), "none", b{:});
%!   check_product_op (zeros (0, 3), "transpose", zeros (0, 4), "none", b{:});
%!   check_product_op (single (zeros (0, 2)), "ctranspose", zeros (3, 0), "ctranspose", b{:});
%!   check_product_op ([], "transpose", [], "transpose", b{:});
%!   check_product_op (int8 ([1 2]), "transpose", 3, "none", b{:});
%!   check_product_op (uint8 (200), "ctranspose", uint8 ([2 3]), "transpose", b{:});
%!   check_product_op (sparse ([1 2; 0 3]), "transpose", ones (2), "none", b{:});
%!   check_product_op (ones (2), "none", sparse ([1 2; 0 3]), "ctranspose", b{:});
%!   check_product_op (true (3, 2), "transpose", true (3, 2), "none", b{:});
%!   check_product_op ('ab', "transpose", [1 2], "none", b{:});
%!   check_product_op ([1 2], "none", 'ab', "transpose", b{:});
%!   check_same_error_op (ones (2, 3), "none", ones (2, 3), "none", b{:});
%!   check_same_error_op (ones (2, 3), "transpose", ones (3, 2), "none", b{:});
%!   check_same_error_op (ones (2, 3), "ctranspose", ones (2, 3), "ctranspose", b{:});
%!   check_same_error_op (int8 ([1 2; 3 4]), "transpose", [1 2; 3 4], "none", b{:});
%!   check_same_error_op ({1}, "transpose", 2, "none", b{:});
%!   if (is_oct ())
%!     ## Octave's A.'*B.' is trans_mul (A, B.'), which folds an N-D A to 2-D: no error.
%!     assert (tilemm (ones (2, 2, 2), "transpose", ones (2), "transpose", b{:}), ...
%!             ones (2, 2, 2).' * ones (2).');
%!   else
%!     ## MATLAB transposes, then multiplies: an N-D operand has no transpose.
%!     check_same_error_op (ones (2, 2, 2), "transpose", ones (2), "transpose", b{:});
%!   endif
%! endfor
%!test
%! ## An N-D operand: Octave's A.' * B folds A to 2-D (a compound operator), which tilemm.oct
%! ## follows; the mex gateway (for MATLAB, where it is an error) transposes first and fails.
%! A = rand (2, 3, 2); B = rand (2, 4);
%! w = which ("tilemm");
%! if (strcmp (w(end-3:end), ".oct"))
%!   assert (tilemm (A, "transpose", B, "none"), A.' * B);
%!   assert (tilemm (B, "ctranspose", A, "none"), B' * A);
%! else
%!   fail ('tilemm (A, "transpose", B, "none")', "transpose not defined for N-D objects");
%! endif
%!test
%! ## A char B keeps its meaning unless it is a keyword followed by a fourth argument.
%! assert (tilemm ([1; 2], 'ab', "backend", "cpu"), [1; 2] * 'ab');
%! assert (tilemm ([1; 2], 'none'), [1; 2] * 'none');
%!error id=tilemm:badtranspose tilemm (ones (2), "sideways", ones (2), "none")
%!error id=tilemm:badtranspose tilemm (ones (2), "transpose", ones (2), "flip")
%!error id=tilemm:badtranspose tilemm (ones (2), "transpose", ones (2), 1)
%!error id=tilemm:badtranspose tilemm (ones (2), 1, ones (2), "none")
%!error <tB \(the fourth argument\)> tilemm (ones (2), "none", ones (2), "t")
%!error id=tilemm:badoption tilemm (ones (2), "transpose", ones (2), "none", "backend")
%!error id=tilemm:badoption tilemm (ones (2), "transpose", ones (2), "none", "backend", "tpu")
%!testif ; gpu_usable ()
%! ops = {"none", "transpose", "ctranspose"};
%! for cls = {"double", "single"}
%!   for z = [false true]
%!     for i = 1:3
%!       for j = 1:3
%!         A = rnd (130, 70, cls{1}, z); B = rnd (70, 90, cls{1}, z);
%!         if (i > 1), A = A.'; endif
%!         if (j > 1), B = B.'; endif
%!         check_product_op (A, ops{i}, B, ops{j}, "backend", "gpu");
%!       endfor
%!     endfor
%!   endfor
%! endfor
%! check_product_op (rnd (300, 1000, "double", true), "ctranspose", rnd (300, 900), "none", "backend", "gpu");
%! check_product_op (rnd (1000, 300, "single"), "none", rnd (900, 300, "single", true), "transpose", "backend", "gpu");
%! check_product_op (rnd (5, 1, "double", true), "ctranspose", rnd (3, 5), "transpose", "backend", "gpu");

## Options and arguments.
%!error id=tilemm:nargin tilemm ()
%!error id=tilemm:nargin tilemm (ones (2))
%!error id=tilemm:nargout [a, b] = tilemm (ones (2), ones (2))
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "backend")
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "backend", "tpu")
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "backend", 1)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "nosuchoption", 1)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), 3, "cpu")
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "max_device_bytes", -1)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "max_device_bytes", "big")
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "max_device_bytes", [1 2])
%!error <unknown option "colour"> tilemm (ones (2), ones (2), "colour", "red")
## A NUL ends a C string: "backend\0" must not pass for "backend", nor "cpu\0gpu" for "cpu".
%!error <option 1: the name contains a NUL> tilemm (ones (2), ones (2), ["backend" char(0)], "cpu")
%!error <option 2: the name contains a NUL> tilemm (ones (2), ones (2), "backend", "cpu", [char(0) "x"], 1)
%!error <option "backend": the value contains a NUL> tilemm (ones (2), ones (2), "backend", ["cpu" char(0) "gpu"])
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "precision", ["native" char(0)])
%!error id=tilemm:badoption tilemm (ones (2), "none", ones (2), "none", ["backend" char(0)], "cpu")
%!assert (tilemm (ones (2), ones (2), "BACKEND", "CPU"), [2 2; 2 2])
%!assert (tilemm (ones (2), ones (2), "backend", "cpu", "backend", "auto"), [2 2; 2 2])
%!test
%! if (gpu_usable ())
%!   return;
%! endif
%! id = "";
%! try
%!   tilemm (ones (2), ones (2), "backend", "gpu");
%! catch e
%!   id = e.identifier;
%! end_try_catch
%! assert (id, "tilemm:nogpu");

## tilemm_info
%!test
%! s = tilemm_info ();
%! assert (ischar (s.version) && ! isempty (s.version));
%! assert (islogical (s.cuda_built) && islogical (s.gpu_usable));
%! assert (isstruct (s.devices));
%! assert (isstruct (s.plans) && numel (s.plans) >= 4);
%! if (! s.cuda_built)
%!   assert (s.gpu_usable, false);
%!   assert (numel (s.devices), 0);
%! endif

## GPU: every class, complex, awkward shapes, k = 1, k = 0, tall-skinny, against `*`.
%!testif ; gpu_usable ()
%! for cls = {"double", "single"}
%!   for z = [false true]
%!     for s = [1 15 16 17 31 33 127]
%!       check_product (rnd (s, s + 2, cls{1}, z), rnd (s + 2, s, cls{1}, z), "backend", "gpu");
%!     endfor
%!   endfor
%! endfor
%!testif ; gpu_usable ()
%! check_product (rnd (1000, 1000), rnd (1000, 1000), "backend", "gpu");
%! check_product (rnd (1023, 1000, "single"), rnd (1000, 1023, "single"), "backend", "gpu");
%!testif ; gpu_usable ()
%! check_product (rnd (4097, 300), rnd (300, 129), "backend", "gpu");
%! check_product (rnd (129, 300, "single"), rnd (300, 4097, "single"), "backend", "gpu");
%!testif ; gpu_usable ()
%! check_product (rnd (2000, 64), rnd (64, 2000), "backend", "gpu");
%! check_product (rnd (64, 3000, "single"), rnd (3000, 64, "single"), "backend", "gpu");
%!testif ; gpu_usable ()
%! check_product (rnd (300, 1), rnd (1, 200), "backend", "gpu");
%! check_product (zeros (30, 0), zeros (0, 20), "backend", "gpu");
%!testif ; gpu_usable ()
%! check_product (rnd (130, 70, "double", true), rnd (70, 90), "backend", "gpu");
%! check_product (rnd (130, 70), rnd (70, 90, "single", true), "backend", "gpu");
%! check_product (true (40, 30), rnd (30, 20, "single"), "backend", "gpu");
%!testif ; gpu_usable ()
%! A = rnd (40, 33); B = rnd (33, 37);
%! A(5, 7) = NaN; A(11, :) = Inf; B(:, 3) = -Inf; A(1, 20) = Inf;
%! check_product (A, B, "backend", "gpu");
%!testif ; gpu_usable ()
%! A = rnd (500, 300); B = rnd (300, 400);
%! assert (tilemm (A, B, "backend", "gpu", "max_device_bytes", 400000),
%!         tilemm (A, B, "backend", "gpu"));
%!testif ; gpu_usable ()
%! A = randi ([-50 50], 450, 170); B = randi ([-50 50], 170, 380);
%! assert (tilemm (A, B, "backend", "gpu"), A * B);
%! assert (tilemm (A, B), A * B);

## Larger than the device: a limit of a quarter of the data cuts the product into panels that
## stream through two slots; the result is the in-memory one, bit for bit.
%!test
%! A = rnd (300, 200); B = rnd (200, 250);
%! quarter = 8 * (300 * 200 + 200 * 250 + 300 * 250) / 4;
%! assert (tilemm (A, B, "backend", "cpu", "max_device_bytes", quarter),
%!         tilemm (A, B, "backend", "cpu"));
%!testif ; gpu_usable ()
%! for cls = {"double", "single"}
%!   for z = [false true]
%!     A = rnd (1500, 1300, cls{1}, z); B = rnd (1300, 1700, cls{1}, z);
%!     es = numel (typecast (cast (1, class (A)), "uint8")) * (1 + z);
%!     quarter = es * (1500 * 1300 + 1300 * 1700 + 1500 * 1700) / 4;
%!     whole = tilemm (A, B, "backend", "gpu");
%!     assert (tilemm (A, B, "backend", "gpu", "max_device_bytes", quarter), whole);
%!   endfor
%! endfor
%! check_product (rnd (1500, 1300), rnd (1300, 1700), "backend", "gpu",
%!                "max_device_bytes", 8 * 5e6 / 4);

## __tilemm_stats__ (tilemm.oct only): the last GPU product's time split, memory held.
%!function ok = stats_usable ()
%!  ok = is_oct () && gpu_usable ();
%!endfunction
%!testif ; is_oct ()
%! s = __tilemm_stats__ ();
%! fields = {"calls", "ok", "backend_ms", "upload_ms", "compute_ms", "download_ms", ...
%!           "kernels_ms", "copy_in_ms", "copy_out_ms", "result_prep_ms", "bytes_up", "bytes_down", ...
%!           "panels", "steps", "device_bytes_held", "pinned_bytes_held", "device_free", ...
%!           "device_total"};
%! assert (all (isfield (s, fields)));
%! if (! gpu_usable ())
%!   assert ([s.calls, s.device_bytes_held, s.pinned_bytes_held, s.device_free], [0 0 0 -1]);
%! endif
%!testif ; is_oct ()
%! ## (the mex gateway alone, as MATLAB users have it, has no __tilemm_stats__)
%! fail ("__tilemm_stats__ (1)", "Invalid call");
%!testif ; stats_usable ()
%! ## The breakdown follows the critical path: upload + compute + download = the backend's time.
%! A = rnd (1000, 800); B = rnd (800, 900);
%! C = tilemm (A, B, "backend", "gpu");
%! s = __tilemm_stats__ ();
%! assert (s.ok);
%! assert (s.upload_ms + s.compute_ms + s.download_ms, s.backend_ms, 1e-9);
%! assert (all ([s.upload_ms, s.compute_ms, s.download_ms] >= 0));
%! ## On one device its kernels' own time is the compute window.
%! if (numel (s.devices) == 1)
%!   assert (s.kernels_ms, s.compute_ms);
%! endif
%! assert ([s.bytes_up, s.bytes_down], 8 * [1000 * 800 + 800 * 900, 1000 * 900]);
%! assert (s.device_bytes_held > 0 && s.pinned_bytes_held > 0 && s.device_free > 0);
%! assert (s.device_free <= s.device_total);
%! C = tilemm (A, B, "backend", "gpu", "max_device_bytes", 8 * (1000 * 800 + 800 * 900 + 1000 * 900) / 4);
%! s = __tilemm_stats__ ();
%! assert (s.panels > 1 && s.steps >= s.panels);
%!testif ; stats_usable ()
%! ## A batch's kernels timed on their own: some device time, within the call's.
%! X = 2 * rand (32, 32, 500) - 1; Y = 2 * rand (32, 32, 500) - 1;
%! Z = pagemtimes (X, Y, "backend", "gpu");
%! s = __tilemm_stats__ ();
%! assert (s.ok);
%! assert (s.kernels_ms > 0 && s.kernels_ms <= s.backend_ms);
%!testif ; stats_usable ()
%! ## "auto" leaves a tiny product to mtimes (no GPU call), and sends a large one to the GPU.
%! before = __tilemm_stats__ ().calls;
%! assert (tilemm ([1 2; 3 4], [5 6; 7 8]), [19 22; 43 50]);
%! assert (tilemm (single ([1 2; 3 4]), [5 6; 7 8]), single ([19 22; 43 50]));
%! assert (__tilemm_stats__ ().calls, before);
%! check_product (rnd (2000, 2000), rnd (2000, 2000));
%! assert (__tilemm_stats__ ().calls, before + 1);
%!testif ; stats_usable ()
%! ## No device or pinned memory left behind: 1,000 mixed calls (shapes, classes, panels, errors)
%! ## after a warm-up pass hold the same bytes and leave the same device memory free.
%! ops = {{rnd(300, 200), rnd(200, 250), 0}, {rnd(129, 65, "single"), rnd(65, 300, "single"), 0}, ...
%!        {rnd(64, 64, "double", true), rnd(64, 64), 0}, {rnd(500, 100), rnd(100, 7), 200000}, ...
%!        {rnd(70, 90, "single", true), rnd(90, 33, "single", true), 30000}};
%! run = @(o) tilemm (o{1}, o{2}, "backend", "gpu", "max_device_bytes", o{3});
%! for i = 1:numel (ops)
%!   run (ops{i});
%! endfor
%! s0 = __tilemm_stats__ ();
%! errors = 0;
%! for t = 1:1000
%!   run (ops{mod (t, numel (ops)) + 1});
%!   if (mod (t, 200) == 0)
%!     try, tilemm (ones (2), ones (2), "backend", "gpu", "max_device_bytes", 8); catch, errors++; end
%!     try, tilemm (ones (2, 3), ones (2), "backend", "gpu"); catch, errors++; end
%!   endif
%! endfor
%! s1 = __tilemm_stats__ ();
%! assert (errors, 10);
%! assert (s1.calls - s0.calls >= 1000);
%! assert (s1.device_bytes_held, s0.device_bytes_held);
%! assert (s1.pinned_bytes_held, s0.pinned_bytes_held);
%! assert (abs (s1.device_free - s0.device_free) <= 2^21,
%!         sprintf ("device free %d then %d bytes", s0.device_free, s1.device_free));

## Fault injection on the GPU (TILEMM_FAULT=KIND:N, a hidden test hook: src/common/fault.h): for every
## N, the Nth device allocation, pinned allocation, copy or kernel launch of a product fails; the
## call raises its error, tilemm holds no GPU or pinned memory after it, and the next call is right.
%!function gpu_release ()
%!  ## A product whose first copy fails frees everything tilemm holds (what a fault does).
%!  setenv ("TILEMM_FAULT", "memcpy:1");
%!  unwind_protect
%!    try, tilemm (ones (300), ones (300), "backend", "gpu"); catch, end_try_catch
%!  unwind_protect_cleanup
%!    unsetenv ("TILEMM_FAULT");
%!  end_unwind_protect
%!endfunction
%!testif ; stats_usable ()
%! A = rnd (700, 300); B = rnd (300, 500);
%! limit = floor (8 * (700 * 300 + 300 * 500 + 700 * 500) / 3);  # outside the cell: "f (x)" in {} is two elements
%! opts = {"backend", "gpu", "max_device_bytes", limit};
%! good = tilemm (A, B, opts{:});
%! kinds = {"malloc", "tilemm:outofmemory"; "host", "tilemm:outofmemory";
%!          "memcpy", "tilemm:cuda"; "launch", "tilemm:cuda"};
%! for i = 1:rows (kinds)
%!   injected = 0;
%!   for n = 1:2000
%!     if (any (strcmp (kinds{i, 1}, {"malloc", "host"})))
%!       gpu_release ();   # allocations happen only when nothing is held
%!     endif
%!     id = "";
%!     setenv ("TILEMM_FAULT", sprintf ("%s:%d", kinds{i, 1}, n));
%!     unwind_protect
%!       try
%!         C = tilemm (A, B, opts{:});
%!       catch e
%!         id = e.identifier;
%!       end_try_catch
%!     unwind_protect_cleanup
%!       unsetenv ("TILEMM_FAULT");
%!     end_unwind_protect
%!     if (isempty (id))
%!       assert (C, good);   # fewer than n such operations: nothing failed
%!       break;
%!     endif
%!     injected++;
%!     assert (id, kinds{i, 2});
%!     s = __tilemm_stats__ ();
%!     assert ([s.ok, s.device_bytes_held, s.pinned_bytes_held], [0 0 0]);
%!     assert (tilemm (A, B, opts{:}), good);
%!   endfor
%!   assert (injected > 0, sprintf ("no %s to fail", kinds{i, 1}));
%! endfor

## Leaks on the GPU: 10,000 mixed calls (sizes, single/double/complex, panels, errors: bad options,
## nonconformant operands, a limit too small, injected faults) hold, after the same warm-up pass,
## the same device and pinned bytes, and leave the same device memory free (cudaMemGetInfo).
%!testif ; stats_usable ()
%! rand ("state", 11);
%! ops = {};
%! for cls = {"double", "single"}
%!   for z = [false true]
%!     ops{end+1} = {rnd(90, 70, cls{1}, z), rnd(70, 50, cls{1}, z), 0};
%!     ops{end+1} = {rnd(300, 129, cls{1}, z), rnd(129, 65, cls{1}, !z), 40000};
%!     ops{end+1} = {rnd(1, 2000, cls{1}, z), rnd(2000, 1, cls{1}), 0};
%!   endfor
%! endfor
%! run = @(o) tilemm (o{1}, o{2}, "backend", "gpu", "max_device_bytes", o{3});
%! warm = @() cellfun (run, ops, "UniformOutput", false);
%! dev = tilemm_info ().device_in_use + 1;
%! ## Measured in the same state before and after: everything released, then one warm pass (what
%! ## tilemm keeps depends on the calls before, e.g. a fault frees it all; seen on the H100).
%! gpu_release (); warm ();
%! s0 = __tilemm_stats__ (); free0 = tilemm_info ().devices(dev).free_memory;
%! errors = 0; faults = {"malloc:1", "host:1", "memcpy:3", "launch:2"};
%! for t = 1:10000
%!   o = ops{mod (t, numel (ops)) + 1};
%!   if (mod (t, 101) == 0)
%!     setenv ("TILEMM_FAULT", faults{mod (t, 4) + 1});
%!     try, run (o); catch, errors++; end_try_catch
%!     unsetenv ("TILEMM_FAULT");
%!   elseif (mod (t, 103) == 0)
%!     try, tilemm (o{1}, o{2}, "backend", "gpu", "colour", "red"); catch, errors++; end_try_catch
%!   elseif (mod (t, 107) == 0)
%!     try, tilemm (o{1}, o{1}, "backend", "gpu"); catch, errors++; end_try_catch
%!   elseif (mod (t, 109) == 0)
%!     try, run ({o{1}, o{2}, 8}); catch, errors++; end_try_catch
%!   else
%!     run (o);
%!   endif
%! endfor
%! gpu_release (); warm ();
%! s1 = __tilemm_stats__ (); free1 = tilemm_info ().devices(dev).free_memory;
%! assert (errors >= 250);
%! assert ([s1.device_bytes_held, s1.pinned_bytes_held], [s0.device_bytes_held, s0.pinned_bytes_held]);
%! assert (abs (free1 - free0) <= 2^21, sprintf ("device free %d then %d bytes", free0, free1));


## Several devices (issue 9).  On the CPU, simulated devices run the very split the GPUs run
## (panels from one queue, one thread each): the result must be bitwise that of one device.
%!test
%! for cls = {"double", "single"}
%!   for z = [false true]
%!     A = rnd (300, 170, cls{1}, z); B = rnd (170, 250, cls{1}, z);
%!     one = tilemm (A, B, "backend", "cpu");
%!     for d = [2 3 5]
%!       assert (isequal (tilemm (A, B, "backend", "cpu", "simulate_devices", d), one));
%!     endfor
%!   endfor
%! endfor
%!test
%! A = rnd (200, 90); B = rnd (90, 210);
%! old = getenv ("TILEMM_SIMULATE_DEVICES");
%! unwind_protect
%!   setenv ("TILEMM_SIMULATE_DEVICES", "4");
%!   assert (isequal (tilemm (A, B, "backend", "cpu"),
%!                    tilemm (A, B, "backend", "cpu", "simulate_devices", 0)));
%! unwind_protect_cleanup
%!   setenv ("TILEMM_SIMULATE_DEVICES", old);
%! end_unwind_protect
%!test
%! ## A failure on one simulated device stops them all; the error names the device, and the
%! ## next product is right.
%! A = rnd (400, 50); B = rnd (50, 400);
%! old = getenv ("TILEMM_SIMULATE_FAIL");
%! unwind_protect
%!   setenv ("TILEMM_SIMULATE_FAIL", "1");
%!   try
%!     tilemm (A, B, "backend", "cpu", "simulate_devices", 3);
%!     error ("no error");
%!   catch e
%!     assert (e.identifier, "tilemm:cuda");
%!     assert (! isempty (strfind (e.message, "simulated device 1 (worker 1)")), e.message);
%!   end_try_catch
%! unwind_protect_cleanup
%!   setenv ("TILEMM_SIMULATE_FAIL", old);
%! end_unwind_protect
%! assert (isequal (tilemm (A, B, "backend", "cpu", "simulate_devices", 3),
%!                  tilemm (A, B, "backend", "cpu")));
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "devices", 0.5)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "devices", -1)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "devices", "0;1")
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "devices", {0})
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "devices", 0:16)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "simulate_devices", 2.5)
%!error id=tilemm:badoption tilemm (ones (2), ones (2), "simulate_devices", [2 3])
%!error <known options: .*"devices"> tilemm (ones (2), ones (2), "colour", "red")

## Several workers on GPU 0 ("devices", [0 0]): the multi-worker path (threads, a workspace
## each, the shared queue) on one GPU, bitwise the one-worker product.
%!testif ; gpu_usable ()
%! for cls = {"double", "single"}
%!   for z = [false true]
%!     A = rnd (1500, 1300, cls{1}, z); B = rnd (1300, 1700, cls{1}, z);
%!     one = tilemm (A, B, "backend", "gpu", "devices", 0);
%!     assert (isequal (tilemm (A, B, "backend", "gpu", "devices", [0 0]), one));
%!     assert (isequal (tilemm (A, B, "backend", "gpu", "devices", "0,0,0"), one));
%!   endfor
%! endfor
%!testif ; gpu_usable ()
%! ## Panels of panels: each worker's share of the device under a limit; and TILEMM_DEVICES.
%! A = rnd (2000, 700); B = rnd (700, 1900);
%! one = tilemm (A, B, "backend", "gpu");
%! limit = 8 * (2000 * 700 + 700 * 1900 + 2000 * 1900) / 8;
%! assert (isequal (tilemm (A, B, "backend", "gpu", "devices", [0 0], "max_device_bytes", limit), one));
%! old = getenv ("TILEMM_DEVICES");
%! unwind_protect
%!   setenv ("TILEMM_DEVICES", "0,0");
%!   assert (isequal (tilemm (A, B, "backend", "gpu"), one));
%! unwind_protect_cleanup
%!   setenv ("TILEMM_DEVICES", old);
%! end_unwind_protect
%! assert (isequal (tilemm (A, B, "backend", "gpu"), one));
%!testif ; gpu_usable ()
%! ## A device that is not there is a bad option naming it.
%! n = numel (getfield (tilemm_info (), "devices"));
%! try
%!   tilemm (ones (300), ones (300), "backend", "gpu", "devices", [0 n]);
%!   error ("no error");
%! catch e
%!   assert (e.identifier, "tilemm:badoption");
%!   assert (! isempty (strfind (e.message, sprintf ("CUDA device %d", n))), e.message);
%! end_try_catch
%!testif ; gpu_usable ()
%! ## Every usable GPU (default), as many as the product gains from: bitwise one GPU.
%! A = rnd (3000, 2000); B = rnd (2000, 3000);
%! assert (isequal (tilemm (A, B, "backend", "gpu"), tilemm (A, B, "backend", "gpu", "devices", 0)));
%!testif ; is_oct ()
%! ## Diagonal and permutation matrices are Octave's own types: `*` scales or permutes them
%! ## (no 0·Inf is formed) and keeps their type; so does tilemm, on every backend and precision.
%! backends = {"cpu", "auto"};
%! if (gpu_usable ())
%!   backends{end+1} = "gpu";
%! endif
%! P = eye (3)(:, [2 3 1]);
%! for b = backends
%!   for precision = {"native", "emulated"}
%!     opts = {"backend", b{1}, "precision", precision{1}};
%!     assert (tilemm (eye (2), [Inf 1; 1 1], opts{:}), [Inf 1; 1 1]);
%!     assert (tilemm ([Inf 1; 1 1], diag ([2 3]), opts{:}), [Inf 3; 2 3]);
%!     assert (tilemm (eye (3, 2), [Inf 1; 1 1], opts{:}), [Inf 1; 1 1; 0 0]);
%!     assert (tilemm (single (eye (2)), [1 NaN; 1 1], opts{:}), single (eye (2)) * [1 NaN; 1 1]);
%!     assert (tilemm (single (eye (2)), single ([1 NaN; 1 1]), opts{:}), single ([1 NaN; 1 1]));
%!     assert (tilemm (diag ([1i 2]), [Inf 1; 1 1], opts{:}), diag ([1i 2]) * [Inf 1; 1 1]);
%!     assert (typeinfo (tilemm (eye (3), eye (3), opts{:})), "diagonal matrix");
%!     assert (typeinfo (tilemm (P, P, opts{:})), "permutation matrix");
%!     assert (tilemm (P, [1 2 3; 4 5 Inf; 7 8 9], opts{:}), P * [1 2 3; 4 5 Inf; 7 8 9]);
%!     assert (tilemm ([1 Inf 3], "none", P, "transpose", opts{:}), [1 Inf 3] * P.');
%!     assert (typeinfo (tilemm (eye (3), "transpose", P, "none", opts{:})), ...
%!             typeinfo (eye (3).' * P));
%!   endfor
%! endfor
%!testif ; is_oct ()
%! ## ... in `*`'s time and memory: an n×n identity is never made dense.
%! x = ones (1e5, 1);
%! assert (tilemm (eye (1e5), x, "backend", "cpu"), x);
%! assert (tilemm (x.', diag (2 * x), "backend", "cpu", "precision", "emulated"), 2 * x.');
%!testif ; is_oct ()
%! ## Transposed forms are Octave's operators: complex A * real B.' is two real products whatever
%! ## the shape (liboctave's op-cm-m.cc), so no 0·Inf from a made-up imaginary part.
%! A = complex (ones (40, 3), 1); A(1,1) = complex (Inf, 1); B = ones (40, 3);
%! C = tilemm (A, "none", B, "transpose", "backend", "cpu");
%! R = A * B.';
%! assert (C(1,2), complex (Inf, 3));
%! assert (isequal (isnan (C), isnan (R)) && isequal (isinf (C), isinf (R)));
%! R = ones (2, 40); Z = complex (ones (2, 40), 0); Z(1,1) = complex (1, Inf);
%! assert (tilemm (R, "transpose", Z, "none", "backend", "cpu")(1,1), (R.' * Z)(1,1));
%! ## ... and only where Octave has that operator: logical A has none (transposed, then `*`).
%! L = R > 0;
%! assert (isnan (real (tilemm (L, "transpose", Z, "none", "backend", "cpu")(1,1))));
%! assert (isnan (real ((L.' * Z)(1,1))));
%!testif ; is_oct ()
%! ## Two transposes: Octave evaluates A.'*B.' as trans_mul (A, B.') (real A, complex B: two
%! ## real products), not as (A.')*(B.') (the plain rule: B made complex, so 0·Inf), whether
%! ## tilemm computes it or hands it to Octave ("auto" delegates products this small).
%! R = ones (2, 40); Z = complex (ones (40, 2), 0); Z(1,1) = complex (1, Inf);
%! for b = {"cpu", "auto"}
%!   C = tilemm (R, "transpose", Z, "transpose", "backend", b{1});
%!   assert (C(1,1), complex (2, Inf));
%! endfor
%!error id=tilemm:badtranspose tilemm (ones (2), ["transpose" char(0) "x"], ones (2), "none")
%!error id=tilemm:badtranspose tilemm (ones (2), "none", ones (2), ["none" char(0)])
%!testif ; is_oct ()
%! ## X'*X, X*X', X.'*X of one object are Hermitian (symmetric) exactly, as `*` gives them.
%! ## (Through Octave's mex interface the two arguments arrive as separate copies, so the mex
%! ## gateway cannot see one object there.)
%! for b = {"cpu", "auto"}
%!   X = complex (rand (60, 20), rand (60, 20));
%!   H = tilemm (X, "ctranspose", X, "none", "backend", b{1});
%!   assert (isequal (H, H') && all (imag (diag (H)) == 0));
%!   H = tilemm (X, "none", X, "ctranspose", "backend", b{1});
%!   assert (isequal (H, H') && all (imag (diag (H)) == 0));
%!   S = tilemm (X, "transpose", X, "none", "backend", b{1});
%!   assert (isequal (S, S.'));
%!   Y = rand (20, 60);
%!   S = tilemm (Y, "none", Y, "transpose", "backend", b{1}, "precision", "emulated");
%!   assert (isequal (S, S.'));
%! endfor
%!test
%! ## The emulated bound holds for every entry: a pair of no overlap (here row 2 with column 2)
%! ## no longer sends the whole product to the native one (which gives C(1,1) = 0).
%! C = tilemm ([1e16 1 1 -1e16; 1 0 0 0], [1 0; 1 0; 1 0; 1 1], "backend", "cpu", ...
%!             "precision", "emulated");
%! assert (C, [2 -1e16; 1 0]);
%! ## NaN in a row: that row's entries are NaN as with `*`, the others still emulated.
%! A = [1e16 1 1 -1e16; 1 NaN 0 0]; B = [1 0; 1 0; 1 0; 1 1];
%! C = tilemm (A, B, "backend", "cpu", "precision", "emulated");
%! assert (C(1,:), [2 -1e16]);
%! assert (isnan (C(2,:)));
%!warning <computed natively> ...
%! tilemm (ones (2, 20000), ones (20000, 2), "backend", "cpu", "precision", "emulated", "moduli", 1);
%!warning id=tilemm:emulated:fallback ...
%! tilemm (ones (2, 20000), ones (20000, 2), "backend", "cpu", "precision", "emulated", "moduli", 1);
%!test
%! ## An explicit count of moduli that cannot carry the data says so, and is native there.
%! warning ("off", "tilemm:emulated:fallback", "local");
%! C = tilemm (ones (2, 20000), ones (20000, 2), "backend", "cpu", "precision", "emulated", "moduli", 1);
%! assert (C, 20000 * ones (2));
%!test
%! ## Dimensions BLAS cannot index are `*`'s to answer or refuse.
%! check_same_error (zeros (0, 2^31), zeros (2^31, 0), "backend", "cpu");
%! check_same_error (zeros (0, 2^31), zeros (2^31, 0), "backend", "auto");
