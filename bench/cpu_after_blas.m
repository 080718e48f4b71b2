## cpu_after_blas (sizes, rounds) — issue 41's episode probe: the CPU backend timed right after
## Octave's `*` of the same size (as a script alternating the two runs it, and as the facts'
## check in tilemm_info.m times it), then alone after a pause that lets every pool fall asleep,
## beside the model's time.  One line per size:
##   cpu_after_blas n N star MS cpu_after_star MS cpu_after_pause MS model_cpu MS
## (medians of `rounds`).  Run it in several fresh processes (bench/device_steps.sh episode):
## the episodes it looks for were a whole process's.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function cpu_after_blas (sizes, rounds)
  for n = sizes
    A = rand (n);  B = rand (n);
    C = tilemm (A, B, "backend", "cpu");  D = A * B;
    model = plan_model_ms (A, B, "cpu");
    t = zeros (rounds, 2);
    for r = 1:rounds
      tic;  D = A * B;  t(r, 1) = toc;
      tic;  C = tilemm (A, B, "backend", "cpu");  t(r, 2) = toc;
    endfor
    pause (0.5);
    u = zeros (rounds, 1);
    for r = 1:rounds
      tic;  C = tilemm (A, B, "backend", "cpu");  u(r) = toc;
    endfor
    assert (norm (C - D, 1) <= 1e-12 * norm (D, 1));
    m = 1e3 * median (t, 1);
    printf ("cpu_after_blas n %d star %.3f cpu_after_star %.3f cpu_after_pause %.3f model_cpu %.3f\n",
            n, m(1), m(2), 1e3 * median (u), model);
  endfor
endfunction
