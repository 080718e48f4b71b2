## Copyright (C) 2026 The tilemm developers.
##
## This program is free software: you can redistribute it and/or modify it under the terms of
## the GNU General Public License as published by the Free Software Foundation, either version 3
## of the License, or (at your option) any later version.  See COPYING.

## -*- texinfo -*-
## @deftypefn  {} {} tilemm_bench ()
## @deftypefnx {} {} tilemm_bench (@var{sizes})
## @deftypefnx {} {} tilemm_bench (@var{sizes}, @var{classes})
## @deftypefnx {} {} tilemm_bench (@dots{}, @var{name}, @var{value})
## @deftypefnx {} {@var{results} =} tilemm_bench (@dots{})
## Time @code{tilemm (A, B)} beside @code{A * B} from Octave and print a table.
##
## For each size n in @var{sizes} (default @code{[1024 2048 4096]}) and each class in
## @var{classes} (default @code{@{"double", "single"@}}), square n×n random operands are
## multiplied by both, after a warm-up, @var{repeats} times (default 5); the medians are
## reported in milliseconds and GFLOP/s (2n³ flops), with the speed-up of tilemm over @code{*}
## and the largest relative difference between the two results.
##
## Options:
## @table @asis
## @item @qcode{"backend"}
## passed to tilemm (default @qcode{"auto"}).
## @item @qcode{"repeats"}
## timed runs per case (default 5).
## @item @qcode{"plot"}
## a file name: save a PNG plot of GFLOP/s against n there.
## @end table
##
## With an output, @var{results} is a struct array with fields @code{n}, @code{class},
## @code{tilemm_ms}, @code{mtimes_ms}, @code{tilemm_gflops}, @code{mtimes_gflops},
## @code{speedup} and @code{reldiff}.
##
## Example:
## @c runs: this example is run by the test suite (tests/check_doc_examples.m)
## @example
## tilemm_bench ([256 512], @{"single"@}, "repeats", 3);
## @end example
##
## @seealso{tilemm, tilemm_info}
## @end deftypefn

function results = tilemm_bench (varargin)
  [sizes, classes, backend, repeats, plotfile] = parse_args (varargin{:});
  info = tilemm_info ();
  if (info.gpu_usable)
    where = info.devices(info.device_in_use + 1).name;
  else
    where = "no usable GPU";
  endif
  printf ("tilemm %s, backend \"%s\" (%s); median of %d runs after a warm-up\n",
          info.version, backend, where, repeats);
  printf ("%6s %-7s %12s %12s %12s %12s %8s %10s\n", "n", "class", "tilemm ms",
          "A*B ms", "tilemm GF/s", "A*B GF/s", "speedup", "rel.diff");
  results = struct ("n", {}, "class", {}, "tilemm_ms", {}, "mtimes_ms", {},
                    "tilemm_gflops", {}, "mtimes_gflops", {}, "speedup", {}, "reldiff", {});
  for c = 1:numel (classes)
    for n = sizes(:)'
      A = cast (2 * rand (n) - 1, classes{c});
      B = cast (2 * rand (n) - 1, classes{c});
      C = tilemm (A, B, "backend", backend);   # warm-up: first use sets up buffers
      R = A * B;
      t_tilemm = time_median (@() tilemm (A, B, "backend", backend), repeats);
      t_mtimes = time_median (@() A * B, repeats);
      reldiff = double (max (abs (C(:) - R(:))) / max (abs (R(:))));
      gf = @(t) 2 * n^3 / t / 1e9;
      r = struct ("n", n, "class", classes{c}, "tilemm_ms", 1e3 * t_tilemm,
                  "mtimes_ms", 1e3 * t_mtimes, "tilemm_gflops", gf (t_tilemm),
                  "mtimes_gflops", gf (t_mtimes), "speedup", t_mtimes / t_tilemm,
                  "reldiff", reldiff);
      results(end+1) = r;
      printf ("%6d %-7s %12.2f %12.2f %12.1f %12.1f %7.2fx %10.2g\n", n, classes{c},
              r.tilemm_ms, r.mtimes_ms, r.tilemm_gflops, r.mtimes_gflops, r.speedup, reldiff);
    endfor
  endfor
  if (! isempty (plotfile))
    save_plot (results, classes, plotfile, where);
  endif
  if (nargout == 0)
    clear results;
  endif
endfunction

function t = time_median (f, repeats)
  times = zeros (repeats, 1);
  for i = 1:repeats
    tic ();
    C = f ();
    times(i) = toc ();
  endfor
  t = median (times);
endfunction

function [sizes, classes, backend, repeats, plotfile] = parse_args (varargin)
  sizes = [1024 2048 4096];
  classes = {"double", "single"};
  backend = "auto";
  repeats = 5;
  plotfile = "";
  pos = 0;
  i = 1;
  while (i <= numel (varargin))
    v = varargin{i};
    if (ischar (v) && any (strcmpi (v, {"backend", "repeats", "plot"})))
      if (i == numel (varargin))
        error ("tilemm:badoption", "tilemm_bench: option \"%s\" needs a value", v);
      endif
      value = varargin{i+1};
      switch (lower (v))
        case "backend"
          backend = value;
        case "repeats"
          if (! (isnumeric (value) && isscalar (value) && value >= 1 && value == fix (value)))
            error ("tilemm:badoption", "tilemm_bench: \"repeats\" must be a whole number >= 1");
          endif
          repeats = value;
        case "plot"
          plotfile = value;
      endswitch
      i += 2;
      continue;
    endif
    pos += 1;
    switch (pos)
      case 1
        if (! (isnumeric (v) && all (v(:) >= 1) && all (v(:) == fix (v(:)))))
          error ("tilemm:badoption", "tilemm_bench: SIZES must be whole numbers >= 1");
        endif
        sizes = v;
      case 2
        if (ischar (v))
          v = {v};
        endif
        if (! (iscellstr (v) && all (ismember (v, {"double", "single"}))))
          error ("tilemm:badoption", "tilemm_bench: CLASSES must name \"double\" and/or \"single\"");
        endif
        classes = v;
      otherwise
        error ("tilemm:nargin", "tilemm_bench: too many arguments");
    endswitch
    i += 1;
  endwhile
endfunction

function save_plot (results, classes, plotfile, where)
  h = figure ("visible", "off");
  unwind_protect
    hold on;
    styles = {"-o", "--s"};
    legends = {};
    for c = 1:numel (classes)
      sel = strcmp ({results.class}, classes{c});
      n = [results(sel).n];
      plot (n, [results(sel).tilemm_gflops], styles{1});
      plot (n, [results(sel).mtimes_gflops], styles{2});
      legends = [legends, {["tilemm " classes{c}], ["A*B " classes{c}]}];
    endfor
    xlabel ("n (n×n times n×n)");
    ylabel ("GFLOP/s (median)");
    title (sprintf ("tilemm vs A*B from Octave (%s)", where));
    legend (legends, "location", "northwest");
    grid on;
    print (h, plotfile, "-dpng");
  unwind_protect_cleanup
    close (h);
  end_unwind_protect
endfunction

%!test
%! r = tilemm_bench ([40 65], {"single", "double"}, "backend", "cpu", "repeats", 2);
%! assert (numel (r), 4);
%! assert ({r.class}, {"single", "single", "double", "double"});
%! assert ([r.n], [40 65 40 65]);
%! assert (all ([r.tilemm_ms] > 0 & [r.mtimes_ms] > 0));
%! assert (all ([r.reldiff] < 1e-4));
%!error id=tilemm:badoption tilemm_bench ([10 20], {"int8"})
%!error id=tilemm:badoption tilemm_bench ([10 20], "repeats", 0)
%!error id=tilemm:badoption tilemm_bench (-3)
%!error id=tilemm:nargin tilemm_bench (10, "single", 3)
