## emulated_octave (SIZES, REPEATS, ACCURACY, CLASSES) — the whole Octave call of the emulated
## precision beside the native one on the GPU, end to end (tic/toc, median of REPEATS after a
## warm-up call), with the emulated call's backend time split from __tilemm_stats__ where it
## reports one.  Fresh random
## N(0,1) operands per size; the emulated result is checked against the native one first
## (relative to |A||B|, it must be far below the native product's own error bound).  Prints
## "emu CLASS N native_ms emulated_ms ratio maxrel" lines (bench/RESULTS.md keeps them).
## ACCURACY (default "": the emulated precision's default rule) is passed as tilemm's "accuracy"
## option ("elementwise": native BLAS's own bound at the fewest moduli); CLASSES (default
## {"double", "single"}) the operands' classes.  The native and emulated calls alternate, so
## both see the same state of the machine.
##
##   source .gpu/setup.sh && octave-cli --eval "addpath PKGDIR; addpath bench; emulated_octave ([8192 16384], 3)"
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function emulated_octave (sizes, repeats, accuracy, classes)
  if (nargin < 2)
    repeats = 3;
  endif
  if (nargin < 3)
    accuracy = "";
  endif
  if (nargin < 4)
    classes = {"double", "single"};
  endif
  emu = {"backend", "gpu", "precision", "emulated"};
  if (! isempty (accuracy))
    emu = [emu, {"accuracy", accuracy}];
  endif
  for cls = classes
    for n = sizes
      A = randn (n, cls{1}); B = randn (n, cls{1});
      native = tilemm (A, B, "backend", "gpu");
      emulated = tilemm (A, B, emu{:});
      scale = abs (double (A(1:64, :))) * abs (double (B(:, 1:64)));
      maxrel = max (max (abs (double (emulated(1:64, 1:64)) - double (native(1:64, 1:64))) ./ scale));
      clear native emulated
      t_native = t_emulated = zeros (repeats, 1);
      splits = "";
      for r = 1:repeats
        tic; C = tilemm (A, B, "backend", "gpu"); t_native(r) = 1e3 * toc; clear C
        tic; C = tilemm (A, B, emu{:}); t_emulated(r) = 1e3 * toc;
        clear C
        s = __tilemm_stats__ ();
        ## steps: the panels' products the pipelined call ran (2 for two panels, 3 where the
        ## first ran again under the whole product's branch; 0 when not pipelined)
        splits = [splits sprintf(" %.1f=%.1f+%.1f+%.1f/%d", t_emulated(r), s.upload_ms, s.compute_ms, ...
                                 s.download_ms, s.steps)];
      endfor
      printf ("emu %s%s %d native_ms %.1f emulated_ms %.1f ratio %.2f maxrel %.2g (last emulated call: backend %.1f ms = up %.1f + scheme %.1f + down %.1f; host copies in %.1f, out %.1f)\n", ...
              cls{1}, accuracy_suffix (accuracy), n, median (t_native), median (t_emulated), median (t_emulated) / median (t_native), ...
              maxrel, s.backend_ms, s.upload_ms, s.compute_ms, s.download_ms, s.copy_in_ms, s.copy_out_ms);
      printf ("  each emulated call (ms = up + scheme + down / panel products):%s\n", splits);
      fflush (stdout);
      clear A B
    endfor
  endfor
endfunction

function t = accuracy_suffix (accuracy)
  t = "";
  if (! isempty (accuracy))
    t = ["/" accuracy];
  endif
endfunction
