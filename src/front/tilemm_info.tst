## tilemm_info.tst — the BIST of tilemm_info (Octave's %! blocks), for its mex gateway
## (tilemm_info.c).  The build appends the %! lines to the help file tilemm_info.m beside
## tilemm_info.mex, where `test tilemm_info` finds them, in the build tree and in the installed
## package alike.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

%!test
%! s = tilemm_info ();
%! assert (fieldnames (s), {"version"; "cuda_built"; "openmp"; "cpu_variant"; "gpu_usable";
%!                          "gpu_reason"; "devices"; "device_in_use"; "devices_in_use"; "plans";
%!                          "precision"; "blas_library"; "calibration"});
%! assert (any (strcmp (s.cpu_variant, {"default", "avx2", "avx512"})));
%! assert (! isempty (regexp (s.version, '^\d+\.\d+\.\d+', "once")));
%!test
%! ## The precision in effect follows TILEMM_PRECISION, read at every call.
%! old = getenv ("TILEMM_PRECISION");
%! unwind_protect
%!   setenv ("TILEMM_PRECISION", "");
%!   p = getfield (tilemm_info (), "precision");
%!   assert (p.in_effect, "native");
%!   assert ([p.emulated_accuracy_double, p.emulated_accuracy_single], [53, 24]);
%!   assert ([p.emulated_max_moduli, p.moduli_limit], [20, 24]);
%!   assert (! isempty (strfind (p.emulated_backends, "cpu")));
%!   setenv ("TILEMM_PRECISION", "Emulated");
%!   assert (getfield (tilemm_info (), "precision").in_effect, "emulated");
%!   assert (ischar (p.auto) && ! isempty (strfind (p.auto, "square double products")));
%!   setenv ("TILEMM_PRECISION", "AUTO");
%!   assert (getfield (tilemm_info (), "precision").in_effect, "auto");
%!   setenv ("TILEMM_PRECISION", "bogus");
%!   assert (getfield (tilemm_info (), "precision").in_effect, "");
%! unwind_protect_cleanup
%!   setenv ("TILEMM_PRECISION", old);
%! end_unwind_protect
%!test
%! ## The BLAS library, where it was built: beside tilemm_info's own binary, an absolute path.
%! p = tilemm_info ().blas_library;
%! assert (ischar (p));
%! if (! isempty (p))
%!   assert (p(1), "/");
%!   assert (exist (p, "file"), 2);
%!   [d, n, e] = fileparts (p);
%!   assert ([n e], "libtilemm_blas.so");
%! endif
%!error id=tilemm:nargin tilemm_info (1)
%!testif ; ! isempty (strfind (which ("tilemm"), "-api-v"))
%! ## Installed by pkg: the manual sits beside the binary, where `doc tilemm` looks for it.
%! info = fullfile (fileparts (which ("tilemm")), "doc.info");
%! assert (exist (info, "file") == 2);
%! assert (! isempty (strfind (fileread (info), "tilemm_bench")));
%! [status, ~] = system (sprintf ('info --file "%s" --index-search tilemm --output - >/dev/null 2>&1', info));
%! assert (any (status == [0 127]));   # 127: no info program here to ask
%!test
%! s = tilemm_info ();
%! if (s.gpu_usable)
%!   assert (numel (s.devices) >= 1);
%!   assert (any ([s.devices.index] == s.device_in_use));
%!   assert (all ([s.devices.total_memory] > 0));
%!   ## Every usable GPU is in use by default, each with one worker.
%!   assert (! isempty (s.devices_in_use));
%!   assert (all (ismember (s.devices_in_use, [s.devices.index])));
%!   assert (sum ([s.devices.workers]), numel (s.devices_in_use));
%!   assert ([s.devices.in_use], [s.devices.workers] > 0);
%! else
%!   assert (ischar (s.gpu_reason) && ! isempty (s.gpu_reason));
%!   assert (isempty (s.device_in_use));
%!   assert (isempty (s.devices_in_use));
%! endif
%!function ok = gpu_usable ()
%!  ## A %!testif condition: Octave's test evaluates it outside any try, so its error would end
%!  ## the whole run; one that cannot be evaluated skips its block instead, and says why (once).
%!  persistent told = false;
%!  try
%!    ok = getfield (tilemm_info (), "gpu_usable");
%!  catch err
%!    if (! told)
%!      printf ("skipping the GPU blocks: tilemm_info () failed: %s\n", err.message);
%!      told = true;
%!    endif
%!    ok = false;
%!  end_try_catch
%!endfunction
%!testif ; gpu_usable ()
%! ## TILEMM_DEVICES="0,0": two workers on device 0, the others not in use.
%! old = getenv ("TILEMM_DEVICES");
%! unwind_protect
%!   setenv ("TILEMM_DEVICES", "0,0");
%!   s = tilemm_info ();
%!   assert (s.devices_in_use, [0 0]);
%!   assert (s.devices(1).workers, 2);
%!   assert (s.devices(1).in_use, true);
%!   assert (all (! [s.devices(2:end).in_use]));
%! unwind_protect_cleanup
%!   setenv ("TILEMM_DEVICES", old);
%! end_unwind_protect
%!test
%! ## The machine's facts the decisions read: where they came from, what they depend on, and
%! ## (measured) curves that grow with the work.
%! c = tilemm_info ().calibration;
%! assert (any (strcmp (c.origin, {"model", "measured", "stored"})));
%! assert (ischar (c.where) && ! isempty (c.where));
%! assert (all (isfield (c.key, {"tilemm", "build", "cpu", "threads", "env", "gpus", ...
%!                               "host_product"})));
%! assert (c.key.tilemm, tilemm_info ().version);
%! if (! strcmp (c.origin, "model"))
%!   assert (c.host_measured && c.cpu_measured);
%!   assert ({c.host.type}, {"single", "double", "complex single", "complex double"});
%!   for t = 1:4
%!     for curve = {c.host(t), c.host_page(t), c.cpu(t)}
%!       x = curve{1};
%!       assert (numel (x.flops) >= 3 && all (diff (x.flops) > 0));
%!       assert (all (x.seconds > 0) && all (diff (x.seconds) >= 0));
%!       assert (x.gflops, x.flops ./ x.seconds * 1e-9, 1e-12 * max (x.gflops));
%!     endfor
%!   endfor
%!   assert (numel (c.copy.threads) >= 1 && all (c.copy.gbytes_per_s > 0)
%!           && all (c.copy.fresh_gbytes_per_s > 0));
%!   ## Every part measured (tilemm_info reads them all: the nine of TILEMM_FACTS_ALL, the int8
%!   ## GEMM among them); each way's runs' mean over their median.
%!   assert (c.parts, 511);
%!   for t = 1:4
%!     assert (all (c.cpu(t).episodes >= 1) && all (c.host(t).episodes >= 1));
%!   endfor
%!   ## The host's BLAS as its own interface says: OpenBLAS where Octave's `*` calls it.
%!   assert (ischar (c.host_blas.name) && c.host_blas.threads >= 1);
%!   if (! isempty (strfind (c.key.host_product, "openblas")))
%!     assert (strncmp (c.host_blas.name, "openblas", 8), c.host_blas.name);
%!   endif
%!   assert (c.cpu_batch.thread_gflops > 0 && c.cpu_batch.page_seconds > 0);
%!   assert (c.cpu_batch.small_thread_gflops > 0);
%!   assert (c.gpu.measured, getfield (tilemm_info (), "gpu_usable"));
%!   if (c.gpu.measured)
%!     assert (c.gpu.count >= 1 && all (c.gpu.kernel_tflops > 0));
%!     assert (numel (c.gpu.devices), c.gpu.count);
%!   endif
%! endif
%!test
%! ## TILEMM_CALIBRATION=off: the built-in model at once, saying why.
%! old = getenv ("TILEMM_CALIBRATION");
%! unwind_protect
%!   setenv ("TILEMM_CALIBRATION", "off");
%!   c = tilemm_info ().calibration;
%!   assert (c.origin, "model");
%!   assert (! isempty (strfind (c.where, "TILEMM_CALIBRATION")));
%!   assert (! c.host_measured && ! c.cpu_measured && ! c.gpu.measured);
%! unwind_protect_cleanup
%!   setenv ("TILEMM_CALIBRATION", old);
%! end_unwind_protect
%!error id=tilemm:nargin tilemm_info ("bogus")
%!function t = timed (f)
%!  tic;  f ();  t = toc;
%!endfunction
%!testif ; ! strcmp (tilemm_info ().calibration.origin, "model") && exist ("__tilemm_plan__")
%! ## (The oct-file's plan printer: not in the mex route, which has none.)
%! ## The facts are true of this machine: the model's times of `*` and of the CPU backend for a
%! ## product of mid size are within a factor of 4 of the same products timed now, and "auto"
%! ## takes a way within 1.5x (and 0.2 ms) of the fastest one timed now.  Medians of rounds that
%! ## alternate the ways, as the calibration measured them: another library's spinning threads
%! ## or a busy machine slow a run now and then, not the median by 4x.  An episode of the host
%! ## BLAS's pool can slow every `*` of one attempt's rounds, the rounds after it as fast as the
%! ## model (bench/RESULTS.md), so the rounds are taken up to three times and one attempt that
%! ## holds is enough; a wrong fact (`*` stored 10 times faster than it is: tests/facts-check.sh
%! ## plants it) fails all three.
%! n = 256;  A = rand (n);  B = rand (n);
%! text = __tilemm_plan__ (A, B);
%! tok = regexp (text, 'auto: host ([^ ]+) ms, cpu ([^ ]+) ms, gpu ([^ ]+) ms', "tokens", "once");
%! assert (numel (tok), 3, text);
%! model = str2double (tok) / 1e3;
%! ways = {@() A * B, @() tilemm (A, B, "backend", "cpu"), @() tilemm (A, B)};
%! if (getfield (tilemm_info (), "gpu_usable"))
%!   ways{end+1} = @() tilemm (A, B, "backend", "gpu");
%! endif
%! seen = {};
%! for attempt = 1:3
%!   ## Round after round, each way once a round; each way's median.
%!   t = zeros (9, numel (ways));
%!   for round = 1:9
%!     for w = 1:numel (ways)
%!       t(round, w) = timed (ways{w});
%!     endfor
%!   endfor
%!   t = median (t, 1);
%!   host = t(1);  cpu = t(2);  auto = t(3);  fastest = min (t([1 2 4:end]));
%!   wrong = {};
%!   if (! (model(1) / host > 1/4 && model(1) / host < 4))
%!     wrong{end+1} = sprintf ("`*`: the model says %.3g ms, it takes %.3g ms", 1e3 * model(1),
%!                             1e3 * host);
%!   endif
%!   if (! (model(2) / cpu > 1/4 && model(2) / cpu < 4))
%!     wrong{end+1} = sprintf ("cpu: the model says %.3g ms, it takes %.3g ms", 1e3 * model(2),
%!                             1e3 * cpu);
%!   endif
%!   if (! (auto <= 1.5 * fastest + 2e-4))
%!     wrong{end+1} = sprintf ("auto %.3g ms, the fastest way %.3g ms", 1e3 * auto, 1e3 * fastest);
%!   endif
%!   if (isempty (wrong))
%!     break;
%!   endif
%!   seen{end+1} = sprintf ("attempt %d: %s", attempt, strjoin (wrong, "; "));
%! endfor
%! assert (isempty (wrong), sprintf ("the facts' check failed in every attempt:\n%s\n(%s)",
%!                                   strjoin (seen, "\n"), text));
