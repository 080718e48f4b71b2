## [passed, failed] = count_check (passed, failed, name, what, why) — counts one check of the
## installed package's checks (check_installed_doc, check_no_shadow): passed when WHY is empty,
## else failed, with "FAIL: WHAT NAME: WHY" printed (WHY a string or a cell of strings).
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function [passed, failed] = count_check (passed, failed, name, what, why)
  if (isempty (why))
    passed += 1;
  else
    failed += 1;
    if (iscellstr (why))
      why = strjoin (why, "; ");
    endif
    printf ("FAIL: %s %s: %s\n", what, name, why);
  endif
endfunction
