## Copyright (C) 2026 The tilemm developers.
##
## This program is free software: you can redistribute it and/or modify it under the terms of
## the GNU General Public License as published by the Free Software Foundation, either version 3
## of the License, or (at your option) any later version.  See COPYING.

## -*- texinfo -*-
## @deftypefn  {} {@var{p} =} tilemm_precision ()
## @deftypefnx {} {@var{old} =} tilemm_precision (@var{p})
## The precision @code{tilemm} computes in when a call names none: @qcode{"native"} (the
## default: the floating-point product, rounded as @code{*} rounds), @qcode{"emulated"} (Ozaki
## scheme II on exact integer products, see @code{help tilemm} and the manual's section
## ``Emulated precision'') or @qcode{"auto"} (the emulated product where the machine's facts say
## a GPU computes it faster than the native one, at a certified bound at least as tight; native
## elsewhere).
##
## The setting is the environment variable @env{TILEMM_PRECISION}, which @code{tilemm} reads at
## every call (an unset or empty variable means @qcode{"native"}); this function only reads and
## writes it.  With an argument it sets the variable and returns the previous setting.  A call's
## own option @qcode{"precision"} overrides it.  The emulated precision's accuracy level is a
## call's option @qcode{"accuracy"}: target bits (the default certifies every entry within
## @code{u*abs(C) + 2^-(t+1)*abs(A)*abs(B)}), or @qcode{"native"}, cheaper, every entry within
## @code{u*abs(C(i,j)) + (1+u)*2^-(t+1)*k*norm(A(i,:))*norm(B(:,j))}, what native BLAS's bound
## gives each entry through Cauchy--Schwarz (@code{help tilemm}).
##
## Example:
## @example
## @group
## old = tilemm_precision ("emulated");
## C = tilemm (A, B);          # emulated precision
## tilemm_precision (old);
## @end group
## @end example
## @seealso{tilemm, tilemm_info}
## @end deftypefn

function old = tilemm_precision (p)
  old = lower (getenv ("TILEMM_PRECISION"));
  if (isempty (old))
    old = "native";
  endif
  if (nargin == 1)
    if (! ischar (p) || ! any (strcmpi (p, {"native", "emulated", "auto"})))
      error ("tilemm:badoption",
             "tilemm_precision: P must be \"native\", \"emulated\" or \"auto\"");
    endif
    setenv ("TILEMM_PRECISION", lower (p));
  endif
endfunction

%!test
%! saved = getenv ("TILEMM_PRECISION");
%! unwind_protect
%!   setenv ("TILEMM_PRECISION", "");
%!   assert (tilemm_precision (), "native");
%!   assert (tilemm_precision ("Emulated"), "native");
%!   assert (getenv ("TILEMM_PRECISION"), "emulated");
%!   assert (tilemm_precision (), "emulated");
%!   assert (tilemm_precision ("native"), "emulated");
%!   assert (tilemm_precision (), "native");
%!   assert (tilemm_precision ("AUTO"), "native");
%!   assert (tilemm_precision (), "auto");
%! unwind_protect_cleanup
%!   setenv ("TILEMM_PRECISION", saved);
%! end_unwind_protect
%!error <must be "native", "emulated" or "auto"> tilemm_precision ("double")
%!error id=tilemm:badoption tilemm_precision (53)
%!error tilemm_precision ("native", 1)
