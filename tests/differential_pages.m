## differential_pages (LABEL, BACKEND, COUNT, SEED) — pagemtimes against a loop of Octave's own
## `*` over the pages, differentially, on COUNT generated cases: page shapes from empty through
## 1x1 to larger than a tile, page counts 0, 1 and many, dimensions past the second that expand
## on either side (and 2-D operands), the nine transpose-flag pairs, double and single, real,
## complex and mixed, NaN and Inf placed in real and imaginary parts, one array on both sides
## (X'*X page by page), and the error cases (inner or page dimensions that differ, integer,
## logical, char, sparse and cell operands, a bad transpose word), each with its identifier.
## The reference is the loop a user writes: Z(:,:,i) = X(:,:,i).' * Y(:,:,i) and the like, the
## expression evaluated by Octave's parser (so its compound operators decide) on the pages the
## expansion picks.  Each result is held to the class, size and realness of the loop's, the NaN
## and ±Inf pattern of each part, exact symmetry where `*` gives it, and values within
## 4(k+2)·eps·(|op(X)||op(Y)|) per page, which a wrong page, flag or expansion cannot meet.
## BACKEND is "cpu", "gpu" or "auto".  Prints each failure with its case, then
## "LABEL: N passed, N failed, N skipped" (tests/sum-counts reads it); returns the failures.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function failed = differential_pages (label, backend, count, seed)
  failed = diff_run (label, backend, count, seed, @make_case, @check_case, "pages");
endfunction

## ---------------------------------------------------------------- generation

function x = pick (list)
  x = list{randi (numel (list))};
endfunction

function d = dim ()
  d = pick ({0, 1, 1, 2, 3, 3, 4, 5, 7, 8, 16, 17, 33, 65, 70});
endfunction

function c = make_case ()
  ops = {"none", "transpose", "ctranspose"};
  c.opX = pick (ops); c.opY = pick (ops);
  c.same = false;
  c.expect = "";
  m = dim (); k = dim (); n = dim ();
  if (rand () < 0.25)     # mostly small pages where many of them are
    m = randi (4); k = randi (4); n = randi (4);
  endif
  ## Page dimensions: none (one page), or up to three, each equal, or 1 on one side.
  nd = pick ({0, 1, 1, 1, 2, 3});
  px = ones (1, nd); py = ones (1, nd);
  many = rand () < 0.15;
  for d = 1:nd
    s = pick ({0, 1, 2, 3, 5});
    if (many && d == 1)
      s = pick ({200, 500});
    endif
    switch (pick ({"equal", "equal", "xone", "yone"}))
      case "equal"
        px(d) = s; py(d) = s;
      case "xone"
        py(d) = s;
      case "yone"
        px(d) = s;
    endswitch
  endfor
  if (nd > 0 && rand () < 0.15)   # a 2-D operand multiplies every page of the other
    if (rand () < 0.5)
      px(:) = 1;
    else
      py(:) = 1;
    endif
  endif
  if (max ([m, k, n]) > 30)       # large pages: few of them
    px = min (px, 2); py = min (py, 2);
  endif
  xs = stored (m, k, c.opX); ys = stored (k, n, c.opY);
  c.clsX = pick ({"double", "double", "single"});
  c.clsY = pick ({"double", "double", "single"});
  c.cplxX = rand () < 0.4; c.cplxY = rand () < 0.4;
  c.X = values ([xs, px], c.clsX, c.cplxX);
  c.Y = values ([ys, py], c.clsY, c.cplxY);
  ## One array on both sides, one side transposed: `*` makes each page exactly symmetric.
  if (rand () < 0.08)
    c.same = true;
    c.opX = pick ({"transpose", "ctranspose"}); c.opY = "none";
    if (rand () < 0.5)
      c.opX = "none"; c.opY = pick ({"transpose", "ctranspose"});
    endif
    c.Y = c.X; c.clsY = c.clsX; c.cplxY = c.cplxX;
  endif
  ## The error cases, each with the identifier it must raise.
  if (rand () < 0.1)
    ## (the arrays as they are now: one array on both sides may have changed the flags)
    xs = size (c.X)(1:2); ys = size (c.Y)(1:2);
    kx = diff_ifelse (strcmp (c.opX, "none"), xs(2), xs(1));
    switch (randi (7))
      case 1
        c.Y = values ([stored(kx + 1, max (n, 1), c.opY), py], c.clsY, c.cplxY);
        c.expect = "tilemm:pages:nonconformant";
      case 2
        if (nd == 0)
          px = 2; py = 3;
        else
          px(1) = 2; py(1) = 3;
        endif
        c.X = values ([xs, px], c.clsX, c.cplxX);
        c.Y = values ([ys, py], c.clsY, c.cplxY);
        c.expect = "tilemm:pages:pagedims";
      case 3
        c.X = int8 (real (c.X)); c.expect = "tilemm:pages:class";
      case 4
        c.Y = real (c.Y) > 0; c.expect = "tilemm:pages:class";
      case 5
        c.X = char (65 + zeros (size (c.X))); c.expect = "tilemm:pages:class";
      case 6
        c.Y = sparse (ones (size (c.Y, 1), size (c.Y, 2))); c.expect = "tilemm:pages:sparse";
      case 7
        c.opX = "conjugate"; c.expect = "tilemm:badtranspose";
    endswitch
    c.same = false;
  endif
  c.desc = sprintf ("%s%s %s %s x %s%s %s %s%s%s", class (c.X), cplx_word (c.X),
                    mat2str (size (c.X)), c.opX, class (c.Y), cplx_word (c.Y),
                    mat2str (size (c.Y)), c.opY, diff_ifelse (c.same, " (one array)", ""),
                    diff_ifelse (isempty (c.expect), "", [" expecting " c.expect]));
endfunction

function w = cplx_word (x)
  w = diff_ifelse (isnumeric (x) && iscomplex (x), " complex", "");
endfunction

## A page of op(P) m×k is stored k×m when op transposes.
function s = stored (r, c, op)
  if (strcmp (op, "none"))
    s = [r, c];
  else
    s = [c, r];
  endif
endfunction

## Values of `cls`, complex or not, with NaN and Inf placed now and then in either part.
function x = values (sz, cls, cplx)
  x = randn (sz);
  if (cplx)
    x = complex (x, randn (sz));
  endif
  n = numel (x);
  if (n > 0 && rand () < 0.3)
    specials = [NaN, Inf, -Inf];
    for i = 1:randi (3)
      at = randi (n);
      v = specials(randi (3));
      if (cplx && rand () < 0.5)
        x(at) = complex (real (x(at)), v);
      else
        x(at) = complex (v, imag (x(at)));
      endif
    endfor
    if (! cplx)
      x = real (x);
    endif
  endif
  if (n > 0 && rand () < 0.1)
    x(randi (n)) = 0;
  endif
  x = cast (x, cls);
endfunction

## ---------------------------------------------------------------- checking

function [ok, why] = check_case (c, backend)
  [R, rerr] = loop_reference (c);
  Z = []; zerr = [];
  try
    if (c.same)
      Z = pagemtimes (c.X, c.opX, c.X, c.opY, "backend", backend);
    elseif (strcmp (c.opX, "none") && strcmp (c.opY, "none") && rand () < 0.5)
      Z = pagemtimes (c.X, c.Y, "backend", backend);
    else
      Z = pagemtimes (c.X, c.opX, c.Y, c.opY, "backend", backend);
    endif
  catch e
    zerr = e;
  end_try_catch
  if (! isempty (c.expect))
    ok = ! isempty (zerr) && strcmp (zerr.identifier, c.expect);
    why = "";
    if (! ok)
      if (isempty (zerr))
        why = sprintf ("no error; expected %s", c.expect);
      else
        why = sprintf ("error %s (%s); expected %s", zerr.identifier, zerr.message, c.expect);
      endif
    endif
    return;
  endif
  if (! isempty (zerr))
    ok = false;
    why = sprintf ("pagemtimes failed: %s: %s", zerr.identifier, zerr.message);
    return;
  endif
  if (! isempty (rerr))
    ok = false;
    why = sprintf ("the loop of * failed (%s) where pagemtimes did not", rerr.message);
    return;
  endif
  [ok, why] = compare (Z, R, c);
endfunction

## The pages of Z and, per page, which page of X and of Y it reads (expansion).
function [pz, ix, iy] = page_map (X, Y)
  sx = size (X)(3:end); sy = size (Y)(3:end);
  nd = max (numel (sx), numel (sy));
  sx(end+1:nd) = 1; sy(end+1:nd) = 1;
  pz = max (sx, sy); pz(sx == 0 | sy == 0) = 0;
  pz(end+1:2) = 1;
  sx(end+1:2) = 1; sy(end+1:2) = 1;
  count = prod (pz);
  ix = zeros (count, 1); iy = zeros (count, 1);
  for i = 1:count
    sub = cell (1, numel (pz));
    [sub{:}] = ind2sub (pz, i);
    s = cell2mat (sub);
    s_x = s; s_x(sx == 1) = 1;
    s_y = s; s_y(sy == 1) = 1;
    ix(i) = sub2ind_ (sx, s_x);
    iy(i) = sub2ind_ (sy, s_y);
  endfor
endfunction

function i = sub2ind_ (sz, s)
  i = 1; stride = 1;
  for d = 1:numel (sz)
    i += (s(d) - 1) * stride;
    stride *= sz(d);
  endfor
endfunction

## The loop a user writes, page by page, in the expression's own form.
function [R, err] = loop_reference (c)
  R = []; err = [];
  suffix = struct ("none", "", "transpose", ".'", "ctranspose", "'");
  if (! isempty (c.expect))
    return;
  endif
  try
    X = c.X; Y = c.Y;
    [pz, ix, iy] = page_map (X, Y);
    m = diff_ifelse (strcmp (c.opX, "none"), rows (X), columns (X));
    n = diff_ifelse (strcmp (c.opY, "none"), columns (Y), rows (Y));
    cls = diff_ifelse (isa (X, "single") || isa (Y, "single"), "single", "double");
    R = zeros ([m, n, pz], cls);
    for i = 1:numel (ix)
      Xp = X(:, :, ix(i));
      if (c.same)
        P = eval (["Xp" suffix.(c.opX) " * Xp" suffix.(c.opY)]);
      else
        Yp = Y(:, :, iy(i));
        P = eval (["Xp" suffix.(c.opX) " * Yp" suffix.(c.opY)]);
      endif
      R(:, :, i) = P;
    endfor
  catch e
    err = e;
  end_try_catch
endfunction

function [ok, why] = compare (Z, R, c)
  ok = false;
  if (! strcmp (class (Z), class (R)) || ! isequal (size (Z), size (R)) || isreal (Z) != isreal (R))
    why = sprintf ("pagemtimes gave %s %s (real %d), the loop %s %s (real %d)", class (Z),
                   mat2str (size (Z)), isreal (Z), class (R), mat2str (size (R)), isreal (R));
    return;
  endif
  X = c.X; Y = diff_ifelse (c.same, c.X, c.Y);
  [~, ix, iy] = page_map (X, Y);
  m = rows (R); n = columns (R);
  parts = {@real, @imag};
  for i = 1:numel (ix)
    Zp = double (Z(:, :, i)); Rp = double (R(:, :, i));
    Xp = X(:, :, ix(i)); Yp = Y(:, :, iy(i));
    model = [];
    for q = 1:(1 + ! isreal (Rp))
      zp = parts{q} (Zp); rp = parts{q} (Rp);
      differ = diff_pattern (zp) != diff_pattern (rp);
      if (any (differ(:)) && isempty (model))
        model = ieee_model (Xp, c.opX, Yp, c.opY, c.same);
      endif
      if (any (differ(:)) && ! isempty (model))
        ## As tests/differential.m: where `*` takes a complex or symmetric BLAS product, the
        ## BLAS may give another non-finite value than IEEE arithmetic; tilemm gives IEEE's.
        differ &= diff_pattern (zp) != diff_pattern (parts{q} (model));
      endif
      if (any (differ(:)))
        at = find (differ, 1);
        why = sprintf ("page %d: NaN/Inf pattern of the %s parts differs at %d: pagemtimes %s, * %s",
                       i, {"real", "imaginary"}{q}, at, num2str (Zp(at)), num2str (Rp(at)));
        return;
      endif
    endfor
    if (c.same && ! isempty (Rp))
      herm = isequal (Rp, Rp') && ! isequal (Rp, Rp.');
      mirror = diff_ifelse (herm, @ctranspose, @transpose);
      if (isequal (Rp, mirror (Rp)) && ! isequal (Zp, mirror (Zp)))
        why = sprintf ("page %d: * gives an exactly %s page, pagemtimes does not", i,
                       diff_ifelse (herm, "Hermitian", "symmetric"));
        return;
      endif
    endif
    a = diff_op (diff_mag (Xp), c.opX); b = diff_op (diff_mag (Yp), c.opY);
    k = columns (a);
    bound = a * b;
    tol = 4 * (k + 2) * eps (class (R)) * bound + realmin (class (R));
    fin = isfinite (Rp) & isfinite (Zp);
    err = abs (Zp - Rp);
    bad = fin & ! (err <= tol);
    if (any (bad(:)))
      at = find (bad, 1);
      why = sprintf ("page %d value at %d: pagemtimes %.17g%+.17gi, * %.17g%+.17gi, |diff| %.3g > tol %.3g",
                     i, at, real (Zp(at)), imag (Zp(at)), real (Rp(at)), imag (Rp(at)), err(at),
                     tol(at));
      return;
    endif
  endfor
  ok = true; why = "";
endfunction

## The IEEE value of one page where `*` hands it to a complex or symmetric BLAS product, else []
## (tests/differential.m's rule, for full double or single pages).
function M = ieee_model (A, opA, B, opB, same)
  a = diff_op (A, opA, true); b = diff_op (B, opB, true);
  if (columns (a) != rows (b) || isscalar (a) || isscalar (b))
    M = [];
    return;
  endif
  ca = iscomplex (A); cb = iscomplex (B);
  if (ca != cb)
    same_class = strcmp (class (A), class (B));
    forced = same_class && ((! strcmp (opA, "none") && ! ca && cb) ...
                            || (strcmp (opA, "none") && ! strcmp (opB, "none") && ca && ! cb));
    if (forced || columns (a) > floor (min (rows (a), columns (b)) / 10))
      M = [];
      return;
    endif
  elseif (! ca && ! same)
    M = [];
    return;
  endif
  ar = real (a); ai = imag (a); br = real (b); bi = imag (b);
  if (! ca && ! cb)
    M = ar * (br + 0);
  else
    M = complex (ar * br - ai * bi, ar * bi + ai * br);
  endif
endfunction

