## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

## -*- texinfo -*-
## @deftypefn  {} {@var{Z} =} pagemtimes (@var{X}, @var{Y})
## @deftypefnx {} {@var{Z} =} pagemtimes (@var{X}, @var{transpX}, @var{Y}, @var{transpY})
## @deftypefnx {} {@var{Z} =} pagemtimes (@dots{}, @var{name}, @var{value}, @dots{})
## Page-wise matrix product, as MATLAB's @code{pagemtimes}: each page
## @code{@var{Z}(:,:,i)} is @code{op(@var{X}(:,:,i)) * op(@var{Y}(:,:,i))}.
##
## @var{transpX} and @var{transpY} (both or neither) are each @qcode{"none"},
## @qcode{"transpose"} or @qcode{"ctranspose"}: the operation applied to every
## page of that operand before the product.
##
## The dimensions past the second expand implicitly: each must be equal in
## @var{X} and @var{Y}, or 1 in one of them (that page, or row of pages, is
## used for every page of the other).  A 2-D operand multiplies every page of
## the other.  @var{Z} has @code{op(@var{X})}'s rows, @code{op(@var{Y})}'s
## columns, and the expanded page dimensions.
##
## @var{X} and @var{Y} are single or double arrays, real or complex, full (as
## MATLAB documents them): integer, logical, char, sparse and other operands are
## errors (@code{tilemm:pages:class}, @code{tilemm:pages:sparse}).  @var{Z} is
## single when either operand is, complex when either is---except that, as the
## loop of @code{*} it replaces leaves it in Octave, a complex result whose
## imaginary parts are all zero is real.  Each page equals what @code{*} gives
## for that page: its values within the product's rounding, its NaN and Inf
## where @code{*} has them, exact zeros where the inner dimension is empty.
## Pages where @code{*} multiplies by a scalar (a 1-by-1 page of
## @code{op(@var{X})} or @code{op(@var{Y})}) are computed by @code{.*}, as
## @code{*} computes them.
##
## Errors: @code{tilemm:pages:nonconformant} when the columns of
## @code{op(@var{X})}'s pages are not the rows of @code{op(@var{Y})}'s;
## @code{tilemm:pages:pagedims} when a page dimension differs and neither
## size is 1; @code{tilemm:badtranspose} for another transpose word.
##
## Options, as for @code{tilemm}: @qcode{"backend"}, @qcode{"auto"} (the
## default: the GPU where the device model says it pays for the whole batch,
## else the CPU), @qcode{"cpu"} (the pages in parallel on the host threads,
## each by the tiled C backend) or @qcode{"gpu"} (the batched GPU product);
## large pages run one after another, each as @code{tilemm} runs one product;
## @qcode{"max_device_bytes"}, the device memory a panel of pages may hold;
## @qcode{"precision"}, @qcode{"emulated"} (each page in tilemm's emulated
## precision, one page after another).
##
## Pages where @code{*} multiplies by a scalar are computed on the host whatever
## the backend, as @code{tilemm} hands scalar products to @code{mtimes}.
##
## This @code{pagemtimes} comes with the tilemm package and is on the path only
## where Octave has none of its own (the package's @file{PKG_ADD} adds its folder
## when @code{exist ("pagemtimes")} finds none), and computes through
## @file{tilemm.oct}.
##
## @seealso{tilemm, mtimes, pagetranspose}
## @end deftypefn

function Z = pagemtimes (X, Y, varargin)
  if (nargin < 2)
    print_usage ();
  endif
  ## Two operands first, with named arguments only: an Octave function call costs several times
  ## a small batch's product, and this is the common call.
  if (nargin == 2 && ! ischar (Y))
    Z = __tilemm_pages__ (X, "none", Y, "none");
  elseif (ischar (Y) || isa (Y, "string"))
    ## pagemtimes (X, transpX, Y, transpY, ...): both transposes, or neither.
    if (nargin < 4 || ! (ischar (varargin{2}) || isa (varargin{2}, "string")))
      error ("tilemm:badtranspose",
             "pagemtimes: give both transpX and transpY (\"none\", \"transpose\" or \"ctranspose\")");
    endif
    Z = __tilemm_pages__ (X, Y, varargin{1}, varargin{2}, varargin{3:end});
  else
    Z = __tilemm_pages__ (X, "none", Y, "none", varargin{:});
  endif
endfunction

%!demo
%! ## 10000 rotations of the plane, each applied to its own point, in one call
%! t = reshape (linspace (0, 2*pi, 10000), 1, 1, []);
%! R = [cos(t), -sin(t); sin(t), cos(t)];     # 2x2x10000
%! p = repmat ([1; 0], 1, 1, 10000);           # 2x1x10000
%! q = pagemtimes (R, p);                      # 2x1x10000: q(:,:,i) = R(:,:,i) * p(:,:,i)
%! plot (squeeze (q(1,1,:)), squeeze (q(2,1,:)));
%! axis equal;
%! title ("pagemtimes: 10000 rotated points");

## The loop of `*` it replaces, for the tests.
%!function Z = loop_pages (X, tX, Y, tY)
%!  f = @(A, t) A;
%!  ops = struct ("none", @(A) A, "transpose", @(A) A.', "ctranspose", @(A) A');
%!  px = size (X)(3:end); py = size (Y)(3:end);
%!  nd = max (numel (px), numel (py));
%!  px(end+1:nd) = 1; py(end+1:nd) = 1;
%!  pz = max (px, py); pz(px == 0 | py == 0) = 0;
%!  pz(end+1:2) = 1;
%!  Z = [];
%!  count = prod (pz);
%!  for i = 1:count
%!    sub = cell (1, numel (pz)); [sub{:}] = ind2sub (pz, i);
%!    sx = sub; sy = sub;
%!    for d = 1:nd
%!      if (px(d) == 1) sx{d} = 1; endif
%!      if (py(d) == 1) sy{d} = 1; endif
%!    endfor
%!    P = ops.(tX) (X(:, :, sx{:})) * ops.(tY) (Y(:, :, sy{:}));
%!    if (i == 1) Z = zeros ([size(P), pz], class (P)); endif
%!    Z(:, :, i) = P;
%!  endfor
%!endfunction

%!test
%! X = reshape (1:12, 2, 2, 3); Y = reshape (12:-1:1, 2, 2, 3);
%! Z = pagemtimes (X, Y);
%! assert (size (Z), [2 2 3]);
%! for i = 1:3
%!   assert (Z(:,:,i), X(:,:,i) * Y(:,:,i));
%! endfor
%!test
%! A = magic (3); Y = rand (3, 4, 5);
%! Z = pagemtimes (A, Y);
%! for i = 1:5
%!   assert (Z(:,:,i), A * Y(:,:,i), 1e-13);
%! endfor
%!test
%! ## implicit expansion: 3x3x2 times 3x3x1x4 gives 3x3x2x4
%! X = ones (3, 3, 2); A = eye (3); Y = cat (4, A, 2*A, 3*A, 4*A);
%! Z = pagemtimes (X, Y);
%! assert (size (Z), [3 3 2 4]);
%! assert (Z(:,:,2,3), 3 * ones (3));
%!test
%! ## the nine transpose pairs on complex pages of several shapes
%! words = {"none", "transpose", "ctranspose"};
%! rand ("seed", 1);
%! for i = 1:3
%!   for j = 1:3
%!     X = complex (rand (4, 4, 3), rand (4, 4, 3));
%!     Y = complex (rand (4, 4, 3), rand (4, 4, 3));
%!     Z = pagemtimes (X, words{i}, Y, words{j}, "backend", "cpu");
%!     assert (Z, loop_pages (X, words{i}, Y, words{j}), 1e-12);
%!   endfor
%! endfor
%!test
%! ## real and complex, single wins, NaN and Inf where `*` has them
%! X = single (rand (3, 5, 4)); X(2, 3, 2) = Inf;
%! Y = complex (rand (5, 2, 4), rand (5, 2, 4)); Y(1, 1, 3) = NaN;
%! Z = pagemtimes (X, Y);
%! R = loop_pages (X, "none", Y, "none");
%! assert (class (Z), "single");
%! assert (iscomplex (Z));
%! assert (isnan (Z), isnan (R));
%! assert (isinf (Z), isinf (R));
%! ok = isfinite (R);
%! assert (Z(ok), R(ok), 1e-5);
%!test
%! ## empty inner dimension: exact zeros; empty page dimension: empty
%! assert (pagemtimes (zeros (2, 0, 3), zeros (0, 4, 3)), zeros (2, 4, 3));
%! assert (size (pagemtimes (zeros (2, 3, 0), zeros (3, 4))), [2 4 0]);
%! assert (pagemtimes (single (zeros (2, 0)), zeros (0, 1, 2)), single (zeros (2, 1, 2)));
%!test
%! ## scalar pages and 1x1 results
%! X = rand (1, 1, 5); Y = rand (1, 3, 5);
%! assert (pagemtimes (X, Y), loop_pages (X, "none", Y, "none"));
%! X = rand (1, 4, 5); Y = rand (4, 1, 5);
%! assert (pagemtimes (X, Y), loop_pages (X, "none", Y, "none"), 1e-14);
%! X = complex (rand (1, 3, 2), 1); Y = complex (2, rand (1, 1, 2));
%! assert (pagemtimes (X, "ctranspose", Y, "ctranspose"), loop_pages (X, "ctranspose", Y, "ctranspose"));
%!test
%! ## pages larger than a tile, and many small ones
%! X = rand (70, 65, 2); Y = rand (65, 90, 2);
%! assert (pagemtimes (X, Y, "backend", "cpu"), loop_pages (X, "none", Y, "none"), 1e-12);
%! X = rand (3, 3, 500); Y = rand (3, 3, 500);
%! assert (pagemtimes (X, Y), loop_pages (X, "none", Y, "none"), 1e-14);
%!test
%! ## one array on both sides: each page exactly symmetric, as X'*X gives it
%! X = complex (rand (5, 3, 4), rand (5, 3, 4));
%! Z = pagemtimes (X, "ctranspose", X, "none");
%! for i = 1:4
%!   assert (Z(:,:,i), Z(:,:,i)');
%! endfor
%!test
%! ## a complex result with no imaginary part is real, as the loop of * leaves it
%! X = complex (rand (2, 2, 3), 0); Y = rand (2, 2, 3);
%! assert (isreal (pagemtimes (X, Y)));
%!test
%! ## emulated precision composes, page by page
%! X = rand (8, 8, 3); Y = rand (8, 8, 3);
%! assert (pagemtimes (X, Y, "precision", "emulated", "backend", "cpu"),
%!         loop_pages (X, "none", Y, "none"), 1e-13);
%!error <give both transpX and transpY> pagemtimes (ones (2), "none", ones (2))
%!error id=tilemm:badtranspose pagemtimes (ones (2), "trans", ones (2), "none")
%!error id=tilemm:badtranspose pagemtimes (ones (2), "none", ones (2), 1)
%!error id=tilemm:pages:nonconformant pagemtimes (ones (2, 3), "transpose", ones (2, 3), "transpose")
%!error id=tilemm:pages:pagedims pagemtimes (ones (2, 2, 1, 3), ones (2, 2, 1, 2))
%!error id=tilemm:pages:class pagemtimes (ones (2), uint8 (ones (2)))
%!error id=tilemm:pages:sparse pagemtimes (ones (2), sparse (ones (2)))
%!error <rows of each page> pagemtimes (ones (2, 3, 2), ones (2, 3, 2))
%!error <dimension 3> pagemtimes (ones (2, 2, 2), ones (2, 2, 3))
%!error <single or double> pagemtimes (int8 (ones (2)), ones (2))
%!error <single or double> pagemtimes (ones (2), true (2))
%!error <single or double> pagemtimes ("ab", ones (2, 2))
%!error <single or double> pagemtimes ({1}, ones (2))
%!error <full array> pagemtimes (sparse (ones (2)), ones (2))
%!error <name, value pairs> pagemtimes (ones (2), ones (2), "backend")
%!error <Invalid call> pagemtimes (ones (2))
%!test
%! if (! getfield (tilemm_info (), "gpu_usable"))
%!   fail ('pagemtimes (ones (2, 2, 2), ones (2, 2, 2), "backend", "gpu")', "GPU|gpu|CUDA");
%! else
%!   X = rand (16, 16, 40); Y = rand (16, 16, 40);
%!   assert (pagemtimes (X, Y, "backend", "gpu"), loop_pages (X, "none", Y, "none"), 1e-12);
%! endif

%!test
%! ## A handle to pagemtimes multiplies pages (an autoload of it from tilemm.oct made the
%! ## handle run tilemm, which hands N-D operands to mtimes).
%! h = @pagemtimes;
%! X = rand (4, 3, 2);  Y = rand (3, 5);
%! Z = h (X, Y);
%! assert (size (Z), [4 5 2]);
%! assert (Z(:,:,2), X(:,:,2) * Y, 1e-12);
%! c = cellfun (@pagemtimes, {X}, {Y}, "UniformOutput", false);
%! assert (c{1}, Z);
%!test
%! ## A few mid-size pages: "auto" may hand them to the host's own * (where the device model
%! ## finds that loop fastest); each page is then exactly the loop's, both sides transposed,
%! ## complex and mixed, X'*X of one array exactly Hermitian, and the same through "cpu".
%! X = complex (rand (90, 70, 3), rand (90, 70, 3));  Yt = rand (80, 70, 3, "single");
%! for t = {{"none", "ctranspose"}, {"ctranspose", "none"}, {"transpose", "transpose"}}
%!   A = X;  if (! strcmp (t{1}{1}, "none")) A = permute (X, [2 1 3]); endif
%!   Y = Yt;  if (strcmp (t{1}{2}, "none")) Y = permute (Yt, [2 1 3]); endif
%!   Z = pagemtimes (A, t{1}{1}, Y, t{1}{2});
%!   assert (class (Z), "single");  assert (iscomplex (Z));  assert (size (Z), [90 80 3]);
%!   R = loop_pages (A, t{1}{1}, Y, t{1}{2});
%!   tol = 4 * 72 * eps ("single") * max (abs (R(:)));
%!   assert (Z, R, tol);
%!   assert (pagemtimes (A, t{1}{1}, Y, t{1}{2}, "backend", "cpu"), R, tol);
%! endfor
%! H = pagemtimes (X, "ctranspose", X, "none");
%! for i = 1:3
%!   assert (H(:,:,i), H(:,:,i)');
%!   assert (H(:,:,i), X(:,:,i)' * X(:,:,i), 8 * 92 * eps * max (max (abs (H(:,:,i)))));
%! endfor
