## bench/fresh.m — issue 26's fresh operands, taken apart: tilemm (A, B) on the GPU with operands
## reused call after call, reused after an idle pause, fresh (a new rand before each call), and
## fresh copies of reused data (new memory holding old values); per call the median time, the
## host's copy into the staging (__tilemm_stats__'s copy_in_ms) and this process's minor page
## faults during the call (from /proc/self/stat).  bench/fresh.sh runs it under several
## environments (OpenMP's wait policy, glibc's huge-page tunable) in one GPU run.
## Prints "fresh LABEL WHAT CLASS N MEDIAN_MS MIN_MS MAX_MS COPYIN_MEDIAN_MS COPYIN_MAX_MS MINFLT".
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function fresh (label, sizes, classes, repeats)
  for c = 1:numel (classes)
    cls = classes{c};
    for n = sizes
      A = rand (n, cls); B = rand (n, cls);
      C = tilemm (A, B, "backend", "gpu"); C = tilemm (A, B, "backend", "gpu");
      measure (label, "reused", cls, n, repeats, @() {A, B}, 0);
      measure (label, "reused-pause", cls, n, repeats, @() {A, B}, 0.2);
      measure (label, "fresh", cls, n, repeats, @() {rand(n, cls), rand(n, cls)}, 0);
      measure (label, "fresh-copy", cls, n, repeats, @() {A + 0, B + 0}, 0);
    endfor
  endfor
endfunction

function measure (label, what, cls, n, repeats, make, pause_s)
  t = zeros (1, repeats); cin = t; flt = t;
  for r = 1:repeats
    ops = make ();
    if (pause_s > 0)
      pause (pause_s);
    endif
    f0 = minor_faults ();
    tic; C = tilemm (ops{1}, ops{2}, "backend", "gpu"); t(r) = toc;
    flt(r) = minor_faults () - f0;
    s = __tilemm_stats__ (); cin(r) = s.copy_in_ms;
    if (r == 1)
      i = randi (n, 1, 50); j = randi (n, 1, 50);
      R = double (ops{1}(i, :)) * double (ops{2}(:, j));
      if (max (max (abs (double (C(i, j)) - R) ./ abs (R))) > (strcmp (cls, "single") * 1e-4 + 1e-12))
        printf ("fresh %s %s: WRONG entries\n", label, what);
      endif
    endif
    clear C ops;
  endfor
  printf ("fresh %s %s %s %d %.2f %.2f %.2f %.2f %.2f %.0f\n", label, what, cls, n, ...
          1e3 * median (t), 1e3 * min (t), 1e3 * max (t), median (cin), max (cin), median (flt));
  fflush (stdout);
endfunction

function f = minor_faults ()
  s = fileread ("/proc/self/stat");
  rest = s(find (s == ")", 1, "last") + 2:end);
  fields = strsplit (strtrim (rest), " ");
  f = str2double (fields{8});   ## minflt: field 10 of stat, 8th after the command's ")"
endfunction
