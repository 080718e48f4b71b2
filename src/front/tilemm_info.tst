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
%!                          "precision"; "blas_library"});
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
