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
## Where the product ran on the GPU, tilemm's own time is split as well (medians, ms): the
## GPU backend's critical path, @emph{upload} (until the first kernel starts), @emph{compute}
## (first kernel start to last kernel end) and @emph{download} (the rest: the last pieces of
## the result coming back into Octave's array), and @emph{hand-back}, the whole call's time
## less the backend's (options, the result's allocation, returning it to Octave).  The split
## needs the Octave front end (@file{tilemm.oct}); elsewhere its columns are NaN.  Where the
## product ran on several GPUs, a line under each size gives each device's own figures
## (medians, ms): the queue panels it took, its busy time, its upload, compute and download,
## its host copies in and out, and its copy team's threads; the split above is then that of the
## device busy longest, beside the wall time of the whole.
##
## Options:
## @table @asis
## @item @qcode{"backend"}
## passed to tilemm (default @qcode{"auto"}).
## @item @qcode{"repeats"}
## timed runs per case (default 5).
## @item @qcode{"max_device_bytes"}
## passed to tilemm (default 0, no limit): a smaller value streams the product through the GPU
## in panels.
## @item @qcode{"devices"}
## passed to tilemm (default @code{[]}: tilemm's default, every usable GPU where its plan says
## they pay): the GPUs the product may use, e.g. @code{[0 1]}.
## @item @qcode{"plot"}
## a file name: save a PNG plot of GFLOP/s against n there (Octave's graphics; without a display,
## @code{graphics_toolkit ("gnuplot")} first where gnuplot is installed).
## @end table
##
## Every argument is checked before anything is measured: an unknown option or a bad value is
## the error @code{tilemm:badoption}, a backend tilemm cannot use that of tilemm
## (@code{tilemm:nogpu} for @qcode{"gpu"} without a usable GPU).  With @qcode{"plot"}, a small
## trial plot is written beside the file first: a folder that does not exist or cannot be
## written is @code{tilemm:badoption}, Octave without a graphics toolkit
## @code{tilemm:nographics}, another failure to draw or print @code{tilemm:plot}.  Should the
## plot still fail after the measurements, that is a warning (@code{tilemm:plot}) and the
## results are kept.
##
## With an output, @var{results} is a struct array with fields @code{n}, @code{class},
## @code{tilemm_ms}, @code{mtimes_ms}, @code{tilemm_gflops}, @code{mtimes_gflops},
## @code{speedup}, @code{reldiff}, the split of tilemm's time @code{upload_ms},
## @code{compute_ms}, @code{download_ms} and @code{handback_ms} (NaN where the product did not
## run on the GPU), and @code{devices}, a struct array of each GPU's medians (fields
## @code{device}, @code{panels}, @code{busy_ms}, @code{upload_ms}, @code{compute_ms},
## @code{download_ms}, @code{copy_in_ms}, @code{copy_out_ms}, @code{copy_threads}; empty where
## the product did not run on the GPU).
##
## Example:
## @c runs: this example is run by the test suite (tests/check_doc_examples.m)
## @example
## @group
## tilemm_bench ([256 512], @{"single"@}, "repeats", 3);
## r = tilemm_bench (200, "double", "backend", "cpu", "repeats", 2);
## printf ("tilemm %.2f ms, A*B %.2f ms, upload %.2f ms\n", r.tilemm_ms, r.mtimes_ms, r.upload_ms);
## @end group
## @end example
##
## @seealso{tilemm, tilemm_info}
## @end deftypefn

function results = tilemm_bench (varargin)
  [sizes, classes, backend, repeats, plotfile, limit, devices] = parse_args (varargin{:});
  ## Everything that could fail after the measurements is tried before them.
  tilemm (ones (2, classes{1}), ones (2, classes{1}), "backend", backend, "devices", devices);
  if (! isempty (plotfile))
    check_plot (plotfile);
  endif
  info = tilemm_info ();
  if (info.gpu_usable)
    where = info.devices(info.device_in_use + 1).name;
  else
    where = "no usable GPU";
  endif
  printf ("tilemm %s, backend \"%s\" (%s); median of %d runs after a warm-up\n",
          info.version, backend, where, repeats);
  stats = stats_function ();
  printf ("%6s %-7s %10s %10s %11s %11s %8s %9s | %8s %8s %8s %9s\n", "n", "class",
          "tilemm ms", "A*B ms", "tilemm GF/s", "A*B GF/s", "speedup", "rel.diff", "upload",
          "compute", "download", "hand-back");
  results = struct ("n", {}, "class", {}, "tilemm_ms", {}, "mtimes_ms", {},
                    "tilemm_gflops", {}, "mtimes_gflops", {}, "speedup", {}, "reldiff", {},
                    "upload_ms", {}, "compute_ms", {}, "download_ms", {}, "handback_ms", {},
                    "devices", {});
  for c = 1:numel (classes)
    for n = sizes(:)'
      A = cast (2 * rand (n) - 1, classes{c});
      B = cast (2 * rand (n) - 1, classes{c});
      f = @() tilemm (A, B, "backend", backend, "max_device_bytes", limit, "devices", devices);
      C = f ();   # warm-up: first use sets up buffers
      R = A * B;
      [t_tilemm, split, per_device] = time_median (f, repeats, stats);
      t_mtimes = time_median (@() A * B, repeats, []);
      reldiff = double (max (abs (C(:) - R(:))) / max (abs (R(:))));
      gf = @(t) 2 * n^3 / t / 1e9;
      r = struct ("n", n, "class", classes{c}, "tilemm_ms", 1e3 * t_tilemm,
                  "mtimes_ms", 1e3 * t_mtimes, "tilemm_gflops", gf (t_tilemm),
                  "mtimes_gflops", gf (t_mtimes), "speedup", t_mtimes / t_tilemm,
                  "reldiff", reldiff, "upload_ms", split(1), "compute_ms", split(2),
                  "download_ms", split(3), "handback_ms", split(4));
      r.devices = per_device;
      results(end+1) = r;
      printf ("%6d %-7s %10.2f %10.2f %11.1f %11.1f %7.2fx %9.2g | %8.2f %8.2f %8.2f %9.2f\n",
              n, classes{c}, r.tilemm_ms, r.mtimes_ms, r.tilemm_gflops, r.mtimes_gflops,
              r.speedup, reldiff, split);
      if (numel (per_device) > 1)
        for d = per_device
          printf (["%17s GPU %d: %d panel(s), busy %.2f ms: upload %.2f, compute %.2f, " ...
                   "download %.2f; host copies in %.2f, out %.2f on %d thread(s)\n"], "",
                  d.device, d.panels, d.busy_ms, d.upload_ms, d.compute_ms, d.download_ms,
                  d.copy_in_ms, d.copy_out_ms, d.copy_threads);
        endfor
      endif
    endfor
  endfor
  if (! isempty (plotfile))
    try
      save_plot (results, classes, plotfile, where);
    catch err
      warning ("tilemm:plot", "tilemm_bench: the plot \"%s\" could not be written: %s",
               plotfile, err.message);
    end_try_catch
  endif
  if (nargout == 0)
    clear results;
  endif
endfunction

## The median time of f (), and with a stats function, the medians of the GPU backend's split
## [upload compute download hand-back] in ms (NaN where a run did not reach the GPU) and of each
## device's figures (a struct array; empty where no run reached the GPU).
function [t, split, per_device] = time_median (f, repeats, stats)
  times = zeros (repeats, 1);
  parts = NaN (repeats, 4);
  fields = {"device", "panels", "busy_ms", "upload_ms", "compute_ms", "download_ms", ...
            "copy_in_ms", "copy_out_ms", "copy_threads"};
  runs = {};
  for i = 1:repeats
    before = [];
    if (! isempty (stats))
      before = stats ().calls;
    endif
    tic ();
    C = f ();
    times(i) = toc ();
    if (! isempty (stats))
      s = stats ();
      if (s.calls > before && s.ok)
        parts(i,:) = [s.upload_ms, s.compute_ms, s.download_ms, 1e3 * times(i) - s.backend_ms];
        if (isfield (s, "devices") && ! isempty (s.devices))
          runs{end+1} = cell2mat (cellfun (@(name) [s.devices.(name)]', fields,
                                           "uniformoutput", false));
        endif
      endif
    endif
  endfor
  t = median (times);
  split = median (parts, 1);
  per_device = struct ("device", {}, "panels", {}, "busy_ms", {}, "upload_ms", {},
                       "compute_ms", {}, "download_ms", {}, "copy_in_ms", {},
                       "copy_out_ms", {}, "copy_threads", {});
  ## The runs that ran on the same devices as the last one: each figure's median, a row a device.
  if (! isempty (runs))
    same = runs(cellfun (@(x) isequal (size (x), size (runs{end})) && isequal (x(:,1), runs{end}(:,1)),
                         runs));
    m = median (cat (3, same{:}), 3);
    for d = 1:rows (m)
      for j = 1:numel (fields)
        per_device(d).(fields{j}) = m(d,j);
      endfor
    endfor
  endif
endfunction

## __tilemm_stats__, when tilemm is the oct-file that defines it; [] otherwise.
function f = stats_function ()
  f = [];
  w = which ("tilemm");
  if (numel (w) > 4 && strcmp (w(end-3:end), ".oct") && ! isempty (which ("__tilemm_stats__")))
    f = @__tilemm_stats__;
  endif
endfunction

function [sizes, classes, backend, repeats, plotfile, limit, devices] = parse_args (varargin)
  sizes = [1024 2048 4096];
  classes = {"double", "single"};
  backend = "auto";
  repeats = 5;
  plotfile = "";
  limit = 0;
  devices = [];
  pos = 0;
  i = 1;
  while (i <= numel (varargin))
    v = varargin{i};
    if (ischar (v) && any (strcmpi (v, {"backend", "repeats", "plot", "max_device_bytes", ...
                                        "devices"})))
      if (i == numel (varargin))
        error ("tilemm:badoption", "tilemm_bench: option \"%s\" needs a value", v);
      endif
      value = varargin{i+1};
      switch (lower (v))
        case "backend"
          if (! (ischar (value) && isrow (value)
                 && any (strcmpi (value, {"auto", "gpu", "cpu"}))))
            error ("tilemm:badoption",
                   "tilemm_bench: \"backend\" must be \"auto\", \"gpu\" or \"cpu\"");
          endif
          backend = value;
        case "repeats"
          if (! (isnumeric (value) && isscalar (value) && value >= 1 && value == fix (value)))
            error ("tilemm:badoption", "tilemm_bench: \"repeats\" must be a whole number >= 1");
          endif
          repeats = value;
        case "plot"
          if (! (ischar (value) && isrow (value)))
            error ("tilemm:badoption", "tilemm_bench: \"plot\" must be a file name");
          endif
          plotfile = value;
        case "max_device_bytes"
          if (! (isnumeric (value) && isscalar (value) && value >= 0 && value == fix (value)))
            error ("tilemm:badoption",
                   "tilemm_bench: \"max_device_bytes\" must be a whole number of bytes >= 0");
          endif
          limit = value;
        case "devices"
          if (! (isnumeric (value) && (isempty (value) || isvector (value))
                 && all (value(:) >= 0) && all (value(:) == fix (value(:)))))
            error ("tilemm:badoption",
                   "tilemm_bench: \"devices\" must list CUDA device ordinals (or be [])");
          endif
          devices = value;
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
        if (ischar (v) && ! any (strcmp (v, {"double", "single"})))
          error ("tilemm:badoption", ["tilemm_bench: \"%s\" is neither a class (\"double\", " ...
                                      "\"single\") nor an option (%s)"], v, known_options ());
        endif
        if (ischar (v))
          v = {v};
        endif
        if (! (iscellstr (v) && ! isempty (v) && all (ismember (v, {"double", "single"}))))
          error ("tilemm:badoption", "tilemm_bench: CLASSES must name \"double\" and/or \"single\"");
        endif
        classes = v;
      otherwise
        if (ischar (v))
          error ("tilemm:badoption", "tilemm_bench: unknown option \"%s\" (options: %s)", v,
                 known_options ());
        endif
        error ("tilemm:nargin", "tilemm_bench: too many arguments");
    endswitch
    i += 1;
  endwhile
endfunction

function s = known_options ()
  s = "\"backend\", \"repeats\", \"max_device_bytes\", \"devices\", \"plot\"";
endfunction

## That the plot can be written, before anything is measured: its folder exists, the file (or
## the folder) can be written, and Octave can draw and print a figure here.
function check_plot (plotfile)
  folder = fileparts (plotfile);
  if (isempty (folder))
    folder = ".";
  endif
  if (isempty (plotfile) || isfolder (plotfile))
    error ("tilemm:badoption", "tilemm_bench: \"plot\" must name a file, not \"%s\"", plotfile);
  endif
  if (! isfolder (folder))
    error ("tilemm:badoption", "tilemm_bench: cannot write the plot \"%s\": no folder \"%s\"",
           plotfile, folder);
  endif
  if (exist (plotfile, "file"))
    [fid, msg] = fopen (plotfile, "r+");   # opened, not truncated
    if (fid < 0)
      error ("tilemm:badoption", "tilemm_bench: cannot write the plot \"%s\": %s", plotfile, msg);
    endif
    fclose (fid);
  endif
  if (isempty (available_graphics_toolkits ()))
    error ("tilemm:nographics", ["tilemm_bench: cannot draw the plot \"%s\": this Octave has " ...
                                 "no graphics toolkit (install gnuplot, then " ...
                                 "graphics_toolkit (\"gnuplot\"))"], plotfile);
  endif
  trial = fullfile (folder, sprintf (".tilemm_bench_trial_%d.png", getpid ()));
  h = [];
  try
    h = figure ("visible", "off");
    plot (1:2);
    print (h, trial, "-dpng");
    close (h);
    h = [];
  catch err
    if (! isempty (h) && ishghandle (h))
      close (h);
    endif
    if (exist (trial, "file"))
      delete (trial);
    endif
    error ("tilemm:plot", "tilemm_bench: cannot write the plot \"%s\" (a trial before measuring): %s",
           plotfile, err.message);
  end_try_catch
  if (! exist (trial, "file"))
    error ("tilemm:plot", "tilemm_bench: cannot write the plot \"%s\": a trial plot in \"%s\" was not written",
           plotfile, folder);
  endif
  delete (trial);
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
%! assert (all (isnan ([r.upload_ms, r.compute_ms, r.download_ms, r.handback_ms])));
%! assert (isempty ([r.devices]));
%!test
%! ## On the GPU: the split of tilemm's time, its parts adding up to no more than the whole.
%! if (! getfield (tilemm_info (), "gpu_usable"))
%!   return;
%! endif
%! r = tilemm_bench (600, "double", "backend", "gpu", "repeats", 3);
%! w = which ("tilemm");
%! if (strcmp (w(end-3:end), ".oct"))
%!   parts = [r.upload_ms, r.compute_ms, r.download_ms, r.handback_ms];
%!   assert (all (isfinite (parts)));
%!   assert (all (parts(1:3) >= 0));
%!   assert (sum (parts(1:3)) <= r.tilemm_ms * 1.5);
%! endif
%! r = tilemm_bench (300, "single", "backend", "gpu", "repeats", 2, "max_device_bytes", 2e5);
%! assert (r.reldiff < 1e-4);
%!error id=tilemm:badoption tilemm_bench (10, "max_device_bytes", -1)
%!error id=tilemm:badoption tilemm_bench (10, "devices", -1)
%!error id=tilemm:badoption tilemm_bench (10, "devices", "0")
%!error id=tilemm:badoption tilemm_bench ([10 20], {"int8"})
%!error id=tilemm:badoption tilemm_bench ([10 20], "repeats", 0)
%!error id=tilemm:badoption tilemm_bench (-3)
%!error id=tilemm:nargin tilemm_bench (10, "single", 3)
## Every argument is checked before anything is measured: sizes of 1e5 would need 80 GB, so
## these would run out of memory (or for hours) if the check came after.
%!error <unknown option "colour"> tilemm_bench (1e5, "double", "colour", "red")
%!error id=tilemm:badoption tilemm_bench (1e5, "double", "colour", "red")
%!error id=tilemm:badoption tilemm_bench (1e5, "colour", "red")
%!error id=tilemm:badoption tilemm_bench (1e5, "double", "backend", "tpu")
%!error id=tilemm:badoption tilemm_bench (1e5, "double", "backend", 3)
%!error id=tilemm:badoption tilemm_bench (1e5, "double", "plot", 3)
%!error id=tilemm:badoption tilemm_bench (1e5, "double", "backend", "cpu", "plot", "/nonexistent-tilemm-folder/p.png")
%!error id=tilemm:badoption tilemm_bench (1e5, "double", "backend", "cpu", "plot", tempdir ())
%!test
%! if (getfield (tilemm_info (), "gpu_usable"))
%!   return;
%! endif
%! try
%!   tilemm_bench (1e5, "double", "backend", "gpu");
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "tilemm:nogpu");
%! end_try_catch
%!test
%! ## A folder that cannot be written (not as root, who can write anywhere).
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   [~, out] = system (sprintf ("chmod a-w '%s'", d));
%!   [fid] = fopen (fullfile (d, "w"), "w");
%!   if (fid >= 0)
%!     fclose (fid);
%!   else
%!     fail (@() tilemm_bench (1e5, "double", "backend", "cpu", "plot", fullfile (d, "p.png")), "cannot write");
%!   endif
%! unwind_protect_cleanup
%!   system (sprintf ("chmod u+w '%s'", d));
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect
%!test
%! ## No graphics toolkit (as in CI's octave-cli): the error comes before the measurements.
%! if (! isempty (available_graphics_toolkits ()))
%!   return;
%! endif
%! f = [tempname() ".png"];
%! try
%!   tilemm_bench (1e5, "double", "backend", "cpu", "plot", f);
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "tilemm:nographics");
%! end_try_catch
%! assert (! exist (f, "file"));
