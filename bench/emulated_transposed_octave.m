## emulated_transposed_octave (N, REPEATS) — the emulated product with transposed operands
## (tilemm (A, "transpose", B, "none", ...) and the like, the operands stored transposed) beside
## the plain one, from Octave on the default backend: median, min and max of REPEATS tic/toc
## after a warm-up call that also checks the form bitwise against the plain product.  N×N
## N(0,1) operands, double and single.  Run from a built tree:
##   octave-cli --eval "addpath ('src'); addpath ('bench'); emulated_transposed_octave (8192, 5)"
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function emulated_transposed_octave (n, reps)
  for cls = {"double", "single"}
    randn ("state", 7);
    A = cast (randn (n), cls{1}); B = cast (randn (n), cls{1});
    At = A.'; Bt = B.';
    forms = {"A*B", @() tilemm (A, B, "precision", "emulated");
             "A.'*B (A stored transposed)", @() tilemm (At, "transpose", B, "none", "precision", "emulated");
             "A*B.' (B stored transposed)", @() tilemm (A, "none", Bt, "transpose", "precision", "emulated");
             "both", @() tilemm (At, "transpose", Bt, "transpose", "precision", "emulated")};
    ref = forms{1, 2} ();
    for f = 1:rows (forms)
      C = forms{f, 2} ();   # warm-up and check
      same = isequal (C, ref);
      clear C;
      t = zeros (1, reps);
      for r = 1:reps
        tic; C = forms{f, 2} (); t(r) = toc; clear C;
      endfor
      printf ("emulated-transposed %s %d %-30s median_ms %.1f min %.1f max %.1f bitwise %d\n", cls{1}, n,
              forms{f, 1}, 1e3 * median (t), 1e3 * min (t), 1e3 * max (t), same);
    endfor
  endfor
endfunction
