## diff_run.m — for the differential tests (differential.m, differential_pages.m): COUNT cases
## from MAKE_CASE (), each held to CHECK_CASE (case, BACKEND) -> [ok, why]; prints the first 20
## failures, keeps each failing case in $TILEMM_DIFF_SAVE/SAVE_PREFIX_N.mat when that is set (a
## repro), then "LABEL: N passed, N failed, N skipped" (tests/sum-counts reads it); returns the
## failures.  The generators are seeded from SEED, so a run repeats.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function failed = diff_run (label, backend, count, seed, make_case, check_case, save_prefix)
  rand ("state", seed);
  randn ("state", seed);
  passed = failed = 0;
  for t = 1:count
    c = make_case ();
    [ok, why] = check_case (c, backend);
    if (ok)
      passed += 1;
    else
      failed += 1;
      if (failed <= 20)
        printf ("FAIL %s case %d: %s\n  %s\n", label, t, c.desc, why);
      endif
      if (! isempty (getenv ("TILEMM_DIFF_SAVE")))
        save ("-binary", fullfile (getenv ("TILEMM_DIFF_SAVE"),
                                   sprintf ("%s_%d.mat", save_prefix, t)), "c");
      endif
    endif
  endfor
  printf ("%s: %d passed, %d failed, %d skipped\n", label, passed, failed, 0);
endfunction
