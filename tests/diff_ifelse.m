## diff_ifelse.m — for the differential tests: a if cond, else b (an expression where Octave's
## if is a statement).
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function r = diff_ifelse (cond, a, b)
  if (cond)
    r = a;
  else
    r = b;
  endif
endfunction
