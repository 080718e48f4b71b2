## diff_pattern.m — for the differential tests (differential.m, differential_pages.m): each
## element's kind, 0 finite, 1 NaN, 2 +Inf, 3 -Inf, so two results' NaN/Inf placement compare
## with isequal.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function p = diff_pattern (x)
  p = isnan (x) + 2 * (x == Inf) + 3 * (x == -Inf);
endfunction
