## differential (LABEL, BACKEND, COUNT, SEED) — tilemm against Octave's own `*`, differentially,
## on COUNT generated products: operands of every class and complexity a user passes (double,
## single, complex, logical, char, integer scalars, sparse), Octave's structured types (diagonal
## and permutation matrices, ranges, scalars, empties), shapes from empty through one to larger
## than a tile, NaN and Inf placed in real and imaginary parts, every transposed form (A.'*B,
## A'*B.', …, and X'*X of one object), in native and emulated precision.  The reference is the
## expression itself ("A.'*B" evaluated by Octave's parser, so its compound operators decide), and
## each result is held to: the same error (identifier and message), class, size, realness,
## sparsity, type (typeinfo: a diagonal stays diagonal), NaN and ±Inf pattern of each part, and
## values within 4(k+2)·eps·(|A||B|) elementwise, which a wrong term, sign or transpose cannot
## meet.  BACKEND is "cpu", "gpu" or "auto".  Prints each failure with a repro, then
## "LABEL: N passed, N failed, N skipped" (tests/sum-counts reads it); returns the failures.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function failed = differential (label, backend, count, seed)
  failed = diff_run (label, backend, count, seed, @make_case, @check_case, "case");
endfunction

## ---------------------------------------------------------------- generation

function c = make_case ()
  ops = {"none", "transpose", "ctranspose"};
  suffix = struct ("none", "", "transpose", ".'", "ctranspose", "'");
  c.precision = pick ({"native", "native", "native", "emulated"});
  if (rand () < 0.12)
    ## X'*X and the like of one object: Octave's symmetric / Hermitian product
    r = dim (); s = dim ();
    c.A = operand ("full", r, s);
    c.same = true;
    if (rand () < 0.5)
      c.opA = pick ({"transpose", "ctranspose"}); c.opB = "none";
    else
      c.opA = "none"; c.opB = pick ({"transpose", "ctranspose"});
    endif
    c.B = c.A;
    c.expr = ["A" suffix.(c.opA) "*A" suffix.(c.opB)];
  else
    c.same = false;
    if (rand () < 0.55)
      c.opA = "none"; c.opB = "none";
    else
      c.opA = pick (ops); c.opB = pick (ops);
    endif
    m = dim (); k = dim (); n = dim ();
    if (rand () < 0.05)
      k = k + 1;   # nonconformant: the error must be `*`'s
    endif
    kindA = kind (); kindB = kind ();
    c.A = operand (kindA, m, k, c.opA);
    c.B = operand (kindB, k, n, c.opB);
    ## Octave 7.3's own `*` of two diagonal matrices, one complex and one not square, leaves
    ## elements off the diagonal uninitialised (different garbage at each call): no reference.
    if (isdiag_type (c.A) && isdiag_type (c.B) && (iscomplex (c.A) || iscomplex (c.B))
        && (rows (c.A) != columns (c.A) || rows (c.B) != columns (c.B)))
      c.B = operand ("full", k, n, c.opB);
    endif
    c.expr = ["A" suffix.(c.opA) "*B" suffix.(c.opB)];
  endif
  c.desc = sprintf ("%s with A %s %s (%s), B %s %s (%s), %s", c.expr, typeinfo (c.A),
                    mat2str (size (c.A)), class (c.A), typeinfo (c.B), mat2str (size (c.B)),
                    class (c.B), c.precision);
endfunction

function t = isdiag_type (x)
  t = ! isempty (strfind (typeinfo (x), "diagonal matrix"));
endfunction

function x = pick (list)
  x = list{randi (numel (list))};
endfunction

## Dimensions: mostly small, with one, empty, tile edges and larger than a tile.
function d = dim ()
  pool = [0 1 1 2 3 4 5 7 8 16 17 31 33 63 64 65 100 129];
  d = pool(randi (numel (pool)));
  if (rand () < 0.03)
    d = 257;
  endif
endfunction

function k = kind ()
  k = pick ({"full", "full", "full", "full", "full", "diag", "diag", "perm", "eye", ...
             "range", "scalar", "sparse", "logical", "char", "intscalar"});
endfunction

## An operand of `kind` that op(x) makes r×c (x is stored c×r when transposed).
function x = operand (kind, r, c, op)
  if (nargin > 3 && ! strcmp (op, "none"))
    [r, c] = deal (c, r);
  endif
  cls = pick ({"double", "double", "single", "complex", "complex single"});
  switch (kind)
    case "full"
      x = values (r, c, cls);
    case "diag"
      v = values (1, min (r, c), cls);
      x = diag (v, r, c);
    case "eye"
      x = eye (r, c);
      if (strcmp (cls, "single"))
        x = single (x);
      endif
    case "perm"
      ## a permutation matrix is square: keep the shape only where it is
      p = randperm (r);
      x = eye (r)(:, p);
      if (r != c)
        x = values (r, c, cls);
      endif
    case "range"
      if (r == 1 && c > 1)
        x = (1:c) * 0.5;
      else
        x = values (r, c, cls);
      endif
    case "scalar"
      x = values (1, 1, cls);
    case "sparse"
      x = sparse (values (r, c, "double") .* (rand (r, c) < 0.3));
    case "logical"
      x = rand (r, c) < 0.5;
    case "char"
      x = char (randi ([32 126], r, c));
    case "intscalar"
      x = int8 (randi ([-5 5]));
    otherwise
      error ("differential: unknown kind %s", kind);
  endswitch
endfunction

## Random values of a class, with NaN and ±Inf placed in some operands (real and imaginary
## parts apart), and exact zeros (structural zeros meet NaN and Inf as `*` multiplies them).
function x = values (r, c, cls)
  x = randn (r, c);
  if (rand () < 0.2)
    x(rand (r, c) < 0.3) = 0;
  endif
  complex_parts = strncmp (cls, "complex", 7);
  if (complex_parts)
    y = randn (r, c);
    if (rand () < 0.2)
      y(rand (r, c) < 0.5) = 0;
    endif
  endif
  specials = [NaN Inf -Inf];
  if (r * c > 0 && rand () < 0.25)
    for q = 1:randi (3)
      x(randi (r * c)) = specials(randi (3));
    endfor
  endif
  if (complex_parts)
    if (r * c > 0 && rand () < 0.25)
      for q = 1:randi (3)
        y(randi (r * c)) = specials(randi (3));
      endfor
    endif
    x = complex (x, y);
  endif
  if (any (strcmp (cls, {"single", "complex single"})))
    x = single (x);
  endif
endfunction

## ---------------------------------------------------------------- checking

function [ok, why] = check_case (c, backend)
  A = c.A; B = c.B;
  opts = {"backend", backend, "precision", c.precision};
  [R, rerr] = reference (c.expr, A, B);
  C = [];
  try
    if (strcmp (c.opA, "none") && strcmp (c.opB, "none"))
      if (c.same)
        C = tilemm (A, A, opts{:});
      else
        C = tilemm (A, B, opts{:});
      endif
    elseif (c.same)
      C = tilemm (A, c.opA, A, c.opB, opts{:});
    else
      C = tilemm (A, c.opA, B, c.opB, opts{:});
    endif
    cerr = [];
  catch e
    cerr = e;
  end_try_catch
  [ok, why] = compare (C, R, cerr, rerr, c);
endfunction

function [R, err] = reference (expr, A, B)
  err = [];
  R = [];
  try
    R = eval (expr);
  catch e
    err = e;
  end_try_catch
endfunction

function [ok, why] = compare (C, R, cerr, rerr, c)
  ok = false;
  if (! isempty (rerr) || ! isempty (cerr))
    if (isempty (rerr))
      why = sprintf ("tilemm failed (%s: %s); * gave %s %s", cerr.identifier, cerr.message,
                     class (R), mat2str (size (R)));
    elseif (isempty (cerr))
      why = sprintf ("* failed (%s: %s); tilemm gave %s %s", rerr.identifier, rerr.message,
                     class (C), mat2str (size (C)));
    elseif (! strcmp (cerr.identifier, rerr.identifier) || ! strcmp (cerr.message, rerr.message))
      why = sprintf ("errors differ: tilemm (%s: %s), * (%s: %s)", cerr.identifier,
                     cerr.message, rerr.identifier, rerr.message);
    else
      ok = true; why = "";
    endif
    return;
  endif
  if (! strcmp (class (C), class (R)) || ! isequal (size (C), size (R))
      || isreal (C) != isreal (R) || issparse (C) != issparse (R)
      || ! strcmp (typeinfo (C), typeinfo (R)))
    why = sprintf ("tilemm gave %s %s %s (real %d), * gave %s %s %s (real %d)", typeinfo (C),
                   class (C), mat2str (size (C)), isreal (C), typeinfo (R), class (R),
                   mat2str (size (R)), isreal (R));
    return;
  endif
  Cf = double (full (C)); Rf = double (full (R));
  parts = {@real, @imag};
  model = [];
  for q = 1:(1 + ! isreal (Rf))
    cp = parts{q} (Cf); rp = parts{q} (Rf);
    differ = diff_pattern (cp) != diff_pattern (rp);
    if (any (differ(:)) && isempty (model))
      model = ieee_model (c);
    endif
    if (any (differ(:)) && ! isempty (model))
      ## The one documented difference: where `*` takes a complex BLAS product (zgemm) or a
      ## symmetric one (syrk/herk), the BLAS may give another non-finite value than IEEE
      ## arithmetic (OpenBLAS: NaN for an Inf; syrk skips zero terms, so no 0·NaN): tilemm
      ## gives the IEEE value, the model's, there and only there.
      mp = parts{q} (model);
      differ &= diff_pattern (cp) != diff_pattern (mp);
    endif
    if (any (differ(:)))
      at = find (differ, 1);
      why = sprintf ("NaN/Inf pattern of the %s parts differs at %d: tilemm %s, * %s",
                     {"real", "imaginary"}{q}, at, num2str (Cf(at)), num2str (Rf(at)));
      return;
    endif
  endfor
  ## X'*X and the like: `*` gives an exactly Hermitian (symmetric) result; so must tilemm.
  if (c.same && ! isempty (R))
    herm = isequal (R, R') && ! isequal (R, R.');
    mirror = diff_ifelse (herm, @ctranspose, @transpose);
    if (isequal (R, mirror (R)) && ! isequal (C, mirror (C)))
      why = sprintf ("* gives an exactly %s result, tilemm does not",
                     diff_ifelse (herm, "Hermitian", "symmetric"));
      return;
    endif
  endif
  bound = magnitude_product (c);
  if (! isempty (bound))
    tol = 4 * (inner (c) + 2) * eps (class (R)) * bound + realmin (class (R));
    fin = isfinite (Rf) & isfinite (Cf);   # the pattern check above holds the others
    err = abs (Cf - Rf);
    bad = fin & ! (err <= tol);
    if (any (bad(:)))
      at = find (bad, 1);
      why = sprintf ("value at %d: tilemm %.17g%+.17gi, * %.17g%+.17gi, |diff| %.3g > tol %.3g",
                     at, real (Cf(at)), imag (Cf(at)), real (Rf(at)), imag (Rf(at)), err(at),
                     tol(at));
      return;
    endif
  endif
  ok = true; why = "";
endfunction

## The IEEE value of op(A)·op(B) where `*` hands it to a complex or symmetric BLAS product,
## else [] (then `*` is IEEE already: real gemm, or two real products).  Complex: its real part
## Σ ar·br − ai·bi and imaginary part Σ ar·bi + ai·br, real operands with made-up zero parts, by
## real products of distinct arrays (gemm, no term skipped).  Octave's rule, written here apart
## from tilemm's route: real·complex takes two real products where k > floor(min(m,n)/10), and
## always for A.'*B, A'*B (A real, B complex) and A*B.', A*B' (A complex, B real) where both
## are full double or both full single arrays (Octave's compound operators; other classes are
## transposed, then multiplied by the plain rule).
function M = ieee_model (c)
  A = c.A;
  if (c.same)
    B = c.A;
  else
    B = c.B;
  endif
  if (! (full_kind (A) && full_kind (B)))
    M = [];
    return;
  endif
  a = diff_op (A, c.opA, true); b = diff_op (B, c.opB, true);
  if (columns (a) != rows (b))
    M = [];
    return;
  endif
  ca = iscomplex (A); cb = iscomplex (B);
  if (ca != cb)
    same_class = isfloat (A) && isfloat (B) && strcmp (class (A), class (B)) ...
                 && ! strcmp (typeinfo (A), "double_range");
    forced = same_class && ((! strcmp (c.opA, "none") && ! ca && cb) ...
                            || (strcmp (c.opA, "none") && ! strcmp (c.opB, "none") && ca && ! cb));
    if (forced || columns (a) > floor (min (rows (a), columns (b)) / 10))
      M = [];
      return;
    endif
  elseif (! ca && ! c.same)
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

function t = full_kind (x)
  t = (isnumeric (x) || islogical (x) || ischar (x)) && ! issparse (x) && ! isscalar (x) ...
      && ! isinteger (x) && ! any (strcmp (typeinfo (x), {"diagonal matrix", ...
           "float diagonal matrix", "complex diagonal matrix", "float complex diagonal matrix", ...
           "permutation matrix"}));
endfunction

function k = inner (c)
  A = c.A;
  if (strcmp (c.opA, "none"))
    k = columns (A);
  else
    k = rows (A);
  endif
endfunction

## |op(A)|·|op(B)| in double with complex magnitudes as |re| + |im| (an upper bound of every
## term's size), NaN and Inf as 0 (their entries are held to the pattern, not a tolerance).
## Empty when a scalar operand makes it elementwise.
function M = magnitude_product (c)
  a = diff_op (diff_mag (c.A), c.opA);
  if (c.same)
    b = diff_op (diff_mag (c.A), c.opB);
  else
    b = diff_op (diff_mag (c.B), c.opB);
  endif
  if (isscalar (a) || isscalar (b) || columns (a) != rows (b))
    M = [];
    return;
  endif
  M = a * b;
endfunction

