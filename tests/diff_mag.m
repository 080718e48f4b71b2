## diff_mag.m — for the differential tests: |x| as a full double array with complex magnitudes
## as |re| + |im| (an upper bound of every term's size in a product), NaN and Inf as 0 (their
## entries are held to the pattern, not to a tolerance).
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function y = diff_mag (x)
  if (ischar (x) || islogical (x) || isinteger (x))
    x = double (x);
  endif
  x = double (full (x));
  y = abs (real (x)) + abs (imag (x));
  y(! isfinite (y)) = 0;
endfunction
