## diff_op.m — for the differential tests: op(x) for op "none", "transpose" or "ctranspose";
## with full_double set, as a full double (or complex double) array, else as stored.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function y = diff_op (x, op, full_double)
  if (nargin > 2 && full_double)
    x = double (full (x));
  endif
  switch (op)
    case "transpose"
      y = x.';
    case "ctranspose"
      y = x';
    otherwise
      y = x;
  endswitch
endfunction
