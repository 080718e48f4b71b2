## run_pkg_test (LABEL) — runs `pkg test tilemm` as its users do (from the current folder, where
## it writes fntests.log), prints its output, and prints "LABEL: N passed, N failed, N skipped"
## from its summary.  It fails when the run ends without its summary (an error outside any test
## block ends pkg test with no failure counted), or when a function of the package's INDEX had no
## test file in the run (NAME.m or NAME.cc-tst: tests that pkg install left out would otherwise
## pass unseen).  Returns the number of failures.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function failed = run_pkg_test (label)
  out = evalc ("pkg test tilemm");
  printf ("%s", out);
  passed = failed = skipped = 0;
  summary = regexp (out, '\nSummary:\s*\n(.*)', "tokens", "once");
  if (isempty (summary))
    printf ("FAIL: pkg test tilemm ended without its summary\n");
    failed = 1;
  else
    passed = count_of (summary{1}, 'PASS');
    failed = count_of (summary{1}, 'FAIL') + count_of (summary{1}, 'REGRESSION');
    skipped = count_of (summary{1}, 'SKIP \([^)]*\)');
    ## The files it ran: test's ">>>>> processing FILE" lines in the log it writes.
    ran = regexp (fileread ("fntests.log"), '(?m)^>>>>> processing .*?([^/\n]+)$', "tokens");
    ran = cellfun (@(t) t{1}, ran, "uniformoutput", false);
    list = pkg ("list", "tilemm");
    index = fileread (fullfile (list{1}.dir, "packinfo", "INDEX"));
    names = regexp (index, '(?m)^\s+(\w+)\s*$', "tokens");
    for n = cellfun (@(t) t{1}, names, "uniformoutput", false)
      if (! any (strcmp ([n{1} ".m"], ran) | strcmp ([n{1} ".cc-tst"], ran)))
        printf ("FAIL: pkg test tilemm ran no tests of %s\n", n{1});
        failed += 1;
      endif
    endfor
  endif
  printf ("%s: %d passed, %d failed, %d skipped\n", label, passed, failed, skipped);
endfunction

## The sum of the summary's lines "  WHAT   N" for WHAT matching the pattern.
function n = count_of (summary, what)
  n = 0;
  for t = regexp (summary, ['(?m)^\s+' what '\s+(\d+)\s*$'], "tokens")
    n += str2double (t{1}{1});
  endfor
endfunction
