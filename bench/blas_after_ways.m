## blas_after_ways (n, rounds) — issue 41's other episode: Octave's own `*` (the host's BLAS)
## timed as tilemm_info's facts check times it (each round `*`, then tilemm's CPU way, "auto" and
## the GPU way), then right after each of those ways alone, back to back with itself, and after a
## pause that lets every pool fall asleep; beside the model's time of `*`.  One line:
##   blas_after_ways n N model MS check MS star MS after_cpu MS after_auto MS after_gpu MS
##     after_pause MS
## (medians of `rounds`; MS of the `*` calls only).  Then one line a thread of this process:
##   thread TID NAME cpu CPU allowed LIST switches VOLUNTARY INVOLUNTARY
## where it last ran, on which CPUs it may run and how often it gave up or lost its core: the
## BLAS's own threads beside tilemm's team ("tilemm-team") and CUDA's.  Before those, what each
## thread ran (its CPU time, /proc's schedstat) while the process sat idle 0.3 s, and during 200
## `*` back to back:
##   idle_busy TID NAME MS          (a thread that ran over 1 ms while nothing was asked of it)
##   star_threads N of M MS_EACH... (the threads that ran over 1 ms during the `*` calls)
## Then the check's loop and the pause again with each `*` traced alone (print_traced): every
## call's time, and for its slowest and fastest call what each thread ran and how long it waited
## for a CPU (a pool thread that waited there was kept from its core; one that neither ran nor
## waited was asleep and woke late).
## Run it in several fresh processes (bench/device_steps.sh blasepisode): the episodes it looks
## for were a whole process's.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function blas_after_ways (n, rounds)
  A = rand (n);  B = rand (n);
  D = A * B;  C = tilemm (A, B, "backend", "cpu");
  gpu = getfield (tilemm_info (), "gpu_usable");
  if (gpu)
    C = tilemm (A, B, "backend", "gpu");
  endif
  model = plan_model_ms (A, B, "host");
  ways = {@() tilemm(A, B, "backend", "cpu"), @() tilemm(A, B)};
  if (gpu)
    ways{end+1} = @() tilemm (A, B, "backend", "gpu");
  endif
  ## As the facts' check: each round `*` and then every way once.
  check = zeros (rounds, 1);
  for r = 1:rounds
    tic;  D = A * B;  check(r) = toc;
    for w = 1:numel (ways)
      ways{w} ();
    endfor
  endfor
  star = zeros (rounds, 1);
  for r = 1:rounds
    tic;  D = A * B;  star(r) = toc;
  endfor
  after = NaN (rounds, 3);
  for w = 1:numel (ways)
    for r = 1:rounds
      ways{w} ();
      tic;  D = A * B;  after(r, w) = toc;
    endfor
  endfor
  paused = zeros (rounds, 1);
  for r = 1:rounds
    pause (0.3);
    tic;  D = A * B;  paused(r) = toc;
  endfor
  ## The same two places again, each `*` traced alone: what every thread of the process ran and
  ## how long it waited for a CPU while that one call ran (schedstat's first two fields).
  traced_check = traced_calls (A, B, rounds, @() run_ways (ways));
  traced_pause = traced_calls (A, B, rounds, @() pause (0.3));
  assert (norm (C - D, 1) <= 1e-12 * norm (D, 1));
  m = 1e3 * [median(check), median(star), median(after, 1), median(paused)];
  printf ("blas_after_ways n %d model %.3f check %.3f star %.3f after_cpu %.3f after_auto %.3f after_gpu %.3f after_pause %.3f\n",
          n, model, m);
  [tid, name, ran] = ran_during (@() pause (0.3));
  for q = find (ran(:)' > 1)
    printf ("idle_busy %d %s %.1f\n", tid(q), name{q}, ran(q));
  endfor
  [tid, name, ran, took] = ran_during (@() star_calls (A, B, 200));
  worked = sort (ran(ran > 1), "descend");
  printf ("star_threads %d of %d (200 calls, %.3f ms each) ms:%s\n", numel (worked), numel (tid),
          1e3 * took / 200, sprintf (" %.0f", worked));
  print_traced ("check", traced_check);
  print_traced ("pause", traced_pause);
  threads ();
endfunction

function run_ways (ways)
  for w = 1:numel (ways)
    ways{w} ();
  endfor
endfunction

## `count` calls of `*`, each after before (), each with every thread's run and runqueue wait
## (ns) over that call alone and the CPU it was on after it.
function calls = traced_calls (A, B, count, before)
  calls = struct ("ms", cell (count, 1), "tid", [], "name", [], "ran", [], "waited", [], "cpu", []);
  for r = 1:count
    before ();
    [tid, name, run0, wait0] = runtimes ();
    tic;  D = A * B;  t = toc;
    [tid2, ~, run1, wait1, cpu] = runtimes ();
    [tid, i, j] = intersect (tid, tid2);
    calls(r) = struct ("ms", 1e3 * t, "tid", tid, "name", {name(i)}, "ran", run1(j) - run0(i),
                       "waited", wait1(j) - wait0(i), "cpu", cpu(j));
  endfor
endfunction

## One line of every call's ms; then the slowest and the fastest call's threads that ran or
## waited for a CPU over 20 us during it:
##   traced WHERE ms MS...
##   traced_call WHERE slowest|fastest MS ms: TID NAME cpu CPU ran US waited US; ...
function print_traced (where, calls)
  ms = [calls.ms];
  printf ("traced %s ms%s\n", where, sprintf (" %.3f", ms));
  [~, slow] = max (ms);  [~, fast] = min (ms);
  labels = {"slowest", "fastest"};  picks = [slow, fast];
  for p = 1:2
    c = calls(picks(p));
    busy = find (c.ran > 2e4 | c.waited > 2e4);
    parts = arrayfun (@(q) sprintf (" %d %s cpu %d ran %.0f waited %.0f;", c.tid(q), c.name{q},
                                    c.cpu(q), c.ran(q) / 1e3, c.waited(q) / 1e3), busy,
                      "UniformOutput", false);
    printf ("traced_call %s %s %.3f ms:%s\n", where, labels{p}, c.ms, [parts{:}]);
  endfor
endfunction

## What each thread of this process ran while f () did (ms; threads alive before and after),
## and the seconds f () took.
function [tid, name, ms, took] = ran_during (f)
  [tid, name, before] = runtimes ();
  tic;
  f ();
  took = toc;
  [tid2, ~, after] = runtimes ();
  [tid, i, j] = intersect (tid, tid2);
  name = name(i);
  ms = (after(j) - before(i)) / 1e6;
endfunction

function star_calls (A, B, count)
  for r = 1:count
    D = A * B;
  endfor
endfunction

## This process's threads' ids, as /proc/self/task names them.
function ids = task_ids ()
  tasks = dir ("/proc/self/task");
  ids = {tasks(! strncmp ({tasks.name}, ".", 1)).name};
endfunction

## Each thread's id, name, time on a CPU so far and time waiting on a runqueue for one (ns;
## /proc/self/task/TID/schedstat's first two fields, NaN where the kernel keeps no schedstat),
## and (asked for) the CPU it last ran on.
function [tid, name, ns, waited, cpu] = runtimes ()
  ids = task_ids ();
  tid = str2double (ids(:));  name = cell (numel (ids), 1);
  ns = NaN (numel (ids), 1);  waited = ns;  cpu = ns;
  for i = 1:numel (ids)
    name{i} = strtrim (fileread (sprintf ("/proc/self/task/%s/comm", ids{i})));
    f = fopen (sprintf ("/proc/self/task/%s/schedstat", ids{i}), "r");
    if (f >= 0)
      v = fscanf (f, "%f", 2);
      fclose (f);
      ns(i) = v(1);
      if (numel (v) > 1)
        waited(i) = v(2);
      endif
    endif
    if (nargout > 4)
      cpu(i) = last_cpu (ids{i});
    endif
  endfor
endfunction

## The CPU a thread last ran on (field 39 of /proc's stat, counted from its pid).
function cpu = last_cpu (tid)
  stat = fileread (sprintf ("/proc/self/task/%s/stat", tid));
  fields = strsplit (strtrim (stat(find (stat == ")", 1, "last") + 2:end)), " ");
  cpu = str2double (fields{37});
endfunction

function threads ()
  for id = task_ids ()
    tid = id{1};
    stat = fileread (sprintf ("/proc/self/task/%s/stat", tid));
    status = fileread (sprintf ("/proc/self/task/%s/status", tid));
    name = stat(find (stat == "(", 1) + 1:find (stat == ")", 1, "last") - 1);
    cpu = num2str (last_cpu (tid));
    allowed = regexp (status, 'Cpus_allowed_list:\s*(\S+)', "tokens", "once");
    vol = regexp (status, '\nvoluntary_ctxt_switches:\s*(\d+)', "tokens", "once");
    invol = regexp (status, 'nonvoluntary_ctxt_switches:\s*(\d+)', "tokens", "once");
    printf ("thread %s %s cpu %s allowed %s switches %s %s\n", tid, strrep (name, " ", "_"),
            cpu, allowed{1}, vol{1}, invol{1});
  endfor
endfunction
