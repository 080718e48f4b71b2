## run_bist (LABEL, NAME, ...) — runs Octave's BIST of each function NAME and prints
## "LABEL: N passed, N failed, N skipped" (the line tests/run-all sums).  Failures are printed in
## full.  Exits with status 1 if any test failed or a function had no tests.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function run_bist (label, varargin)
  passed = failed = skipped = 0;
  for i = 1:numel (varargin)
    name = varargin{i};
    printf ("%s: %s\n", name, which (name));
    [n, nmax, nxfail, nbug, nskip, nrtskip, nregression] = test (name, "quiet", stdout);
    if (nmax == 0)
      printf ("%s: no tests found\n", name);
      failed += 1;
    endif
    ## nmax counts the blocks that ran; skipped ones (false testif) are counted apart.
    skips = nskip + nrtskip;
    passed += n;
    skipped += skips;
    failed += nmax - n - nxfail - nbug;
    printf ("%s: %d passed of %d (%d skipped, %d expected failures, %d known bugs, %d regressions)\n",
            name, n, nmax, skips, nxfail, nbug, nregression);
  endfor
  printf ("%s: %d passed, %d failed, %d skipped\n", label, passed, failed, skipped);
  if (failed > 0)
    exit (1);
  endif
endfunction
