## -*- texinfo -*-
## @deftypefn {} {@var{cells} =} auto_grid (@var{out}, @var{plain_sizes}, @var{page_sizes}, @var{page_counts}, @var{most_bytes}, @var{settle})
## "auto" against every way it chooses among, in one process: for plain products of
## @var{plain_sizes} (double and single, real and complex) Octave's own @code{*}, tilemm's
## @code{"cpu"} and @code{"gpu"} (where a GPU is usable) and @code{"auto"}; for page batches of
## @var{page_sizes} × @var{page_counts} (no more than @var{most_bytes} of operands and result)
## the loop of @code{*} over the pages, @code{pagemtimes} on @code{"cpu"}, @code{"gpu"} and
## @code{"auto"}.  Each way is timed on its own: after a pause of @var{settle} seconds (default
## 0.25: a multithreaded BLAS keeps its threads spinning on every core for about a tenth of a
## second after its last call, OpenMP's and the copy teams' for less, and they would be timed as
## part of the next way; 0 times the ways back to back, as a script alternating them sees them),
## its first run not counted (first touch, workspaces), until it has run @code{7} times or for a
## second; the median of each way.  A cell passes where auto is
## within 10% (or 0.1 ms) of the fastest explicit way and no slower than @code{*} (or its
## loop) by more than that.  Beside each cell's times, the cost model's seconds of the three
## ways and the way it takes (from the plan's text, @code{__tilemm_plan__} and
## @code{__tilemm_pages_plan__}, decided on the same operands): a miss the model priced wrong
## shows as a model that ranks the ways unlike the run.  Prints a line a cell and writes them to
## @var{out}@code{.txt} (a header line, then one line a cell), returns them as a struct array.
## @end deftypefn
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

function cells = auto_grid (out, plain_sizes, page_sizes, page_counts, most_bytes, settle)
  if (nargin < 5)
    most_bytes = 2^31;
  endif
  if (nargin < 6)
    settle = 0.25;
  endif
  info = tilemm_info ();
  gpu = info.gpu_usable;
  printf ("auto_grid: tilemm %s, facts %s (%s), GPU %s, %d threads\n", info.version,
          info.calibration.origin, info.calibration.where,
          ifelse_text (gpu, "usable", "none"), info.calibration.threads);
  fid = fopen ([out ".txt"], "w");
  fprintf (fid, "kind class complexity size pages host_ms cpu_ms gpu_ms auto_ms best ratio_best ratio_host pass model_host_ms model_cpu_ms model_gpu_ms model_way\n");
  cells = struct ("kind", {}, "cls", {}, "cplx", {}, "size", {}, "pages", {}, "t", {},
                  "best", {}, "ratio_best", {}, "ratio_host", {}, "pass", {}, "model", {},
                  "model_way", {});
  rand ("seed", 1);
  classes = {"double", "single"};
  for c = 1:2
    for cplx = 0:1
      for n = plain_sizes
        A = operand (n, n, 1, classes{c}, cplx);  B = operand (n, n, 1, classes{c}, cplx);
        ways = {@() A * B, @() tilemm (A, B, "backend", "cpu"), [], @() tilemm (A, B)};
        if (gpu)
          ways{3} = @() tilemm (A, B, "backend", "gpu");
        endif
        cells(end+1) = cell_of ("plain", classes{c}, cplx, n, 1, time_ways (ways, settle),
                                __tilemm_plan__ (A, B));
        report (fid, cells(end));
      endfor
    endfor
  endfor
  for n = page_sizes
    for p = page_counts
      if (3 * n * n * p * 8 > most_bytes)
        continue;
      endif
      X = operand (n, n, p, "double", 0);  Y = operand (n, n, p, "double", 0);
      ways = {@() page_loop (X, Y), @() pagemtimes (X, Y, "backend", "cpu"), [], ...
              @() pagemtimes (X, Y)};
      if (gpu)
        ways{3} = @() pagemtimes (X, Y, "backend", "gpu");
      endif
      cells(end+1) = cell_of ("pages", "double", 0, n, p, time_ways (ways, settle),
                              __tilemm_pages_plan__ (X, "none", Y, "none"));
      report (fid, cells(end));
    endfor
  endfor
  fclose (fid);
  pass = sum ([cells.pass]);
  printf (["auto_grid: %d of %d cells pass (auto within 10%% or 0.1 ms of the fastest way, " ...
           "never slower than * by more)\n"], pass, numel (cells));
endfunction

function t = ifelse_text (c, a, b)
  if (c)
    t = a;
  else
    t = b;
  endif
endfunction

## Uniform random values in [-1, 1) (never zeros), complex where asked.
function x = operand (m, n, p, cls, cplx)
  x = 2 * rand (m, n, p) - 1;
  if (cplx)
    x = complex (x, 2 * rand (m, n, p) - 1);
  endif
  x = cast (x, cls);
endfunction

function Z = page_loop (X, Y)
  p = size (X, 3);
  Z = zeros (size (X, 1), size (Y, 2), p);
  for i = 1:p
    Z(:,:,i) = X(:,:,i) * Y(:,:,i);
  endfor
endfunction

## Median seconds of each way (NaN where a way is absent): each way on its own, after a pause
## of `settle` seconds (the threads of the way before it gone to sleep), its first run not
## counted (first touch, workspaces, the facts), then until it has run 7 times or for a second.
function med = time_ways (ways, settle)
  k = numel (ways);
  med = NaN (1, k);
  for w = 1:k
    if (isempty (ways{w}))
      continue;
    endif
    if (settle > 0)
      pause (settle);
    endif
    ways{w} ();
    runs = [];
    start = tic ();
    while (numel (runs) < 7 && (numel (runs) < 3 || toc (start) < 1))
      t0 = tic ();  ways{w} ();  runs(end+1) = toc (t0);
    endwhile
    med(w) = median (runs);
  endfor
endfunction

## A cell's times, and the cost model's three ways and its choice as the plan's text gives them
## (`plan`: __tilemm_plan__'s or __tilemm_pages_plan__'s "auto: host ... ms, cpu ... ms, gpu ...
## ms" line; NaN and "-" where the plan weighed no ways): where "auto" misses, whether the model
## priced a way wrong or ranked them right and the run differed.
function c = cell_of (kind, cls, cplx, n, p, t, plan)
  names = {"host", "cpu", "gpu"};
  [fastest, b] = min (t(1:3));
  slack = @(x) max (0.10 * x, 1e-4);
  model = NaN (1, 3);
  way = "-";
  line = regexp (plan, '(?m)^auto: [^\n]*', "match", "once");
  ms = regexp (line, 'host(?: loop)? (\S+) ms, cpu(?: batch)? (\S+) ms, gpu(?: batch)? (\S+) ms',
               "tokens", "once");
  if (numel (ms) == 3)
    model = str2double (ms);
    named = regexp (line, 'ms: (\w+)\s*$', "tokens", "once");
    if (! isempty (named))
      way = named{1};
    else
      [~, w] = min (model);
      way = names{w};
    endif
  endif
  c = struct ("kind", kind, "cls", cls, "cplx", cplx, "size", n, "pages", p, "t", t,
              "best", names{b}, "ratio_best", t(4) / fastest, "ratio_host", t(4) / t(1),
              "pass", t(4) <= fastest + slack (fastest) && t(4) <= t(1) + slack (t(1)),
              "model", model, "model_way", way);
endfunction

function report (fid, c)
  line = sprintf ("%s %s %s %d %d %.4g %.4g %.4g %.4g %s %.3f %.3f %d %.4g %.4g %.4g %s", c.kind,
                  c.cls, ifelse_text (c.cplx, "complex", "real"), c.size, c.pages, 1e3 * c.t,
                  c.best, c.ratio_best, c.ratio_host, c.pass, c.model, c.model_way);
  fprintf (fid, "%s\n", line);
  printf ("%s%s\n", line, ifelse_text (c.pass, "", "   <-- auto not within 10% / 0.1 ms"));
  fflush (stdout);
endfunction
