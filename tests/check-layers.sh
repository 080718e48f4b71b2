#!/bin/bash
# tests/check-layers.sh — the layers' rules (doc/ARCHITECTURE.md), checked on the source text:
# one function per rule, each printing what breaks it ("FAIL rule: file:line: text") and counted
# as one test.  Grep-based on purpose: a rule is a pattern anyone can read and run, and a line
# the pattern misjudges goes on the rule's short allowlist with the reason.
#   tests/check-layers.sh [SRC]     (SRC: the src/ folder to check; default this checkout's)
# Prints "check_layers: N passed, N failed, N skipped" (tests/sum-counts).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-${TILEMM_SRCDIR:-$top}/src}
passed=0 failed=0

# Without what no rule reads: string literals emptied, comments removed (block comments on one
# line, // comments, and the lines of a block comment that start with * or /*).  Lines
# "file:line: text" on stdin and stdout.
strip_noise () {
  sed -E 's#"([^"\\]|\\.)*"#""#g; s#/\*.*\*/##g; s#//.*$##' \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*)' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*$'
}

# The code of files as "file:line: text".
code_of () {
  grep -n '' "$@" /dev/null | strip_noise
}

kernel_files () {
  find "$src/kernels" -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.h' -o -name '*.c' \) | sort
}

# kernels/ allocates nothing: device memory has one owner, the worker's workspace (src/cuda/),
# which passes it in (the split-k scratch, the emulated arena); host memory neither (the stages
# that need host buffers are cuda/'s).  Every way to device, pinned or host memory is refused.
rule_kernels_allocate_nothing () {
  code_of $(kernel_files) \
    | grep -E '\b(cudaMalloc[A-Za-z0-9]*|cudaFree[A-Za-z0-9]*|cudaHostAlloc|cudaHostRegister|cudaMemPool[A-Za-z]*|cuMem[A-Za-z]*Alloc[A-Za-z0-9_]*|cuMemFree[A-Za-z0-9_]*|cuMemCreate|malloc|calloc|realloc|aligned_alloc|posix_memalign|free)[[:space:]]*\(|\bnew[[:space:]]+[A-Za-z_]'

}

# kernels/ stages nothing: operands and results travel in src/cuda/ (the staging), and the
# emulated scheme's statistics come to the host in its stages there (cuda/emulated_scheme.cu);
# it fills nothing either (a kernel's zeroed memory is its caller's cudaMemsetAsync).  Every copy
# and fill API is refused, cudaMemcpyAsync included, and the C library's memcpy, memmove and
# memset (a launcher builds its arguments by value).
rule_kernels_copy_nothing () {
  code_of $(kernel_files) \
    | grep -E '\b(cudaMemcpy[A-Za-z0-9]*|cudaMemset[A-Za-z0-9]*|cuMemcpy[A-Za-z0-9_]*|cuMemset[A-Za-z0-9_]*|memcpy|memmove|memset)[[:space:]]*\('

}

# kernels/ is the lowest layer that calls CUDA: none of its files includes a header of cuda/ (the
# layer above it; cuda_try.h, the launches' checks, lives in kernels/ for that).
rule_kernels_include_no_cuda_header () {
  local names
  names=$(find "$src/cuda" -type f \( -name '*.h' -o -name '*.cuh' \) -printf '%f\n' | sed 's/\./\\./g' | paste -sd '|')
  [ -n "$names" ] || return 0
  grep -nE '#[[:space:]]*include[[:space:]]*"([^"]*/)?('"$names"')"' $(kernel_files) /dev/null
}

# kernels/ decides nothing: no environment read (overrides are read once, into the plan).
rule_kernels_read_no_environment () {
  code_of $(kernel_files) | grep -E '\b(secure_getenv|getenv|setenv|putenv|unsetenv)[[:space:]]*\('

}

# kernels/ keeps no state between calls: no mutable variable at namespace scope (a declaration at
# the start of a line that is not const, constexpr, a type, a function or a template) and no
# mutable static or thread_local one anywhere.
rule_kernels_keep_no_state () {
  local files
  files=$(kernel_files)
  {
    code_of $files | grep -E '^[^:]+:[0-9]+:[[:space:]]*(static[[:space:]]|.*\bthread_local\b)' \
      | grep -vE '^[^:]+:[0-9]+:[[:space:]]*static[[:space:]]+(const|constexpr|inline)\b' \
      | grep -vE '^[^:]+:[0-9]+:[[:space:]]*static[[:space:]][^=;]*\('
    code_of $files \
      | grep -E '^[^:]+:[0-9]+:[A-Za-z_][^(=;]*[[:space:]*&]\**[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(\[[^]]*\])?[[:space:]]*(=[^=]|;)' \
      | grep -vE '^[^:]+:[0-9]+:(const|constexpr|typedef|using|template|namespace|extern|struct|class|enum|union|return|static_assert)\b'
  } | sort -u
}

# ---------------------------------------------------------------- the direction of calls

# The C files of a layer (folders under src/).
layer_files () {
  local d
  for d in "$@"; do
    find "$src/$d" -type f \( -name '*.c' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \) 2>/dev/null
  done | sort
}

# The functions a layer defines, one name a line: a line at column 0 that names tilemm_NAME ( and
# is not a declaration (no ';' at its end), the usual style of every file here.
defined_in () {
  code_of $(layer_files "$@") \
    | grep -E '^[^:]+:[0-9]+:[A-Za-z_].*\btilemm_[a-z0-9_]+[[:space:]]*\(' | grep -vE ';[[:space:]]*$' \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(return|if|else|for|while)\b' \
    | sed -E 's/^[^:]+:[0-9]+:[^(]*\b(tilemm_[a-z0-9_]+)[[:space:]]*\(.*/\1/' | sort -u
}

# Lines of the files of layer(s) $1 (a quoted list) that call a function defined in layer(s) $2.
calls_into () {
  local names pattern
  names=$(defined_in $2)
  [ -n "$names" ] || return 0
  pattern='\b('$(echo "$names" | paste -sd '|')')[[:space:]]*\('
  code_of $(layer_files $1) | grep -E "$pattern" \
    | grep -vE '^[^:]+:[0-9]+:[A-Za-z_].*\btilemm_[a-z0-9_]+[[:space:]]*\(.*[^;][[:space:]]*$' || true
}

# common/ is the bottom layer: it includes no header of a layer above it and calls none of their
# functions (the facts it plans from come in as data, gathered by exec/).
rule_common_calls_nothing_above () {
  grep -nE '#[[:space:]]*include[[:space:]]*"(multi|emulated_passes|batch_run|executor|kernels|transpose|emulated_scheme|emulated_launch|imma_wgmma|batched|backend_cpu_tile|mex_common|blas_shim|blas_internal|cuda_try)\.h"' \
    $(find "$src/common" -type f) /dev/null
  calls_into common "exec cpu cuda kernels front"
}

# The build keeps the layers by its include paths (src/Makefile.in: LAYER_INCLUDES, from
# sources.mk's TILEMM_INCLUDE_DIRS_FOLDER): a file of src/FOLDER/ finds the headers of its
# folder and of the layers below it only, so an upward include by name does not compile.  A header
# named with a path ("../exec/multi.h") is found relative to the including file whatever the
# include paths, so no include of src/ names a folder or climbs out of one (review g7).
# Allowed: none (a system header's own folder, <sys/types.h>, is not src/'s).
rule_includes_name_no_folder () {
  grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*("[^"]*/[^"]*"|<[^>]*\.\./[^>]*>)' \
    "$src" --include='*.c' --include='*.h' --include='*.cc' --include='*.cu' --include='*.cuh' \
    /dev/null
}

# exec/ reaches the backends only through their tables (backend.h): it calls no function that
# cpu/, cuda/ or kernels/ define.
rule_exec_reaches_backends_through_tables () {
  calls_into exec "cpu cuda kernels"
}

# The front ends only translate: they call no backend or kernel function, only the executor's
# entries and the bottom layer's.
rule_front_calls_no_backend () {
  calls_into front "cpu cuda kernels"
}

# The front ends decide nothing: whether the GPU pays ("auto": the device model, the rules
# tilemm_plan_*gpu_pays and tilemm_batch_gpu_pays) is the decision path's (exec/decide.c), which
# applies it before it gathers the devices' facts; a front end builds the request, asks the
# decision and follows it (the BLAS library's hand-off to the next BLAS included).
rule_front_applies_no_rule () {
  code_of $(layer_files front) $(find "$src/front" -type f -name '*.h' | sort) \
    | grep -E '\btilemm_(plan_[a-z0-9_]*gpu_pays|batch_(gpu|host)_pays|model_[a-z0-9_]+)[[:space:]]*\('
}

# A call plan's launches are filled once, by fill_launches (common/call_plan.c), when its
# panels, steps and fallback are final: it is made of plan.c's unfilled plans
# (plan_unfilled.h), never of the public constructors that fill their own.
rule_call_plan_fills_launches_once () {
  code_of "$src/common/call_plan.c" \
    | grep -E '\btilemm_(plan_make|plan_make_op|plan_workers|plan_for_panel)[[:space:]]*\('
}

# cuda/ hands each function the workspace it works on (a worker's, ws_pool[w]): no thread_local
# says which one a thread uses.
rule_cuda_passes_the_workspace () {
  code_of $(layer_files cuda) | grep -E '\bthread_local\b'
}

# The functions with external linkage a layer defines, any name: a definition at column 0 (a
# line naming NAME ( that is not a declaration) not static.  In C++ files (the oct-file's) only
# tilemm_ names: their other functions are in anonymous namespaces.  memset is left out: the BLAS
# library's (front/blas_memset.c) stands in for the C library's, which is what every layer calls.
external_defined_in () {
  local d
  {
    for d in "$@"; do
      code_of $(find "$src/$d" -type f \( -name '*.c' -o -name '*.cu' \) 2>/dev/null | sort) \
        | grep -E '^[^:]+:[0-9]+:[A-Za-z_][A-Za-z0-9_ *]*[ *][A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' \
        | grep -vE '^[^:]+:[0-9]+:(static|typedef|extern|return|if|else|for|while|switch|template)\b' \
        | grep -vE ';[[:space:]]*$' \
        | sed -E 's/^[^:]+:[0-9]+:[^(]*[ *]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(.*/\1/'
    done
    defined_in "$@"
  } | grep -vx 'memset' | sort -u
}

# Lines of the files (and headers) of layer(s) $1 that call one of the names on stdin: indented
# lines (a line at column 0 declares or defines, in this code's style; common/'s headers declare
# the executor's entries, the interfaces between the layers).
# Files after $1 are scanned too (exec_run_files).
calls_of_names () {
  local names pattern layers=$1
  shift
  names=$(cat)
  [ -n "$names" ] || return 0
  pattern='\b('$(echo "$names" | paste -sd '|')')[[:space:]]*\('
  code_of $(layer_files $layers) $(for d in $layers; do find "$src/$d" -type f \( -name '*.h' -o -name '*.cuh' \); done | sort) "$@" \
    | grep -E "$pattern" | grep -vE '^[^:]+:[0-9]+:[A-Za-z_]' || true
}

# The executor's files that run a made plan (the rest of exec/ decides, calibrates or is a
# low-level entry that makes its own plan): they select among the plan's fields and branches and
# call the backends, as the backends run what they are handed.
exec_run_files () {
  printf '%s\n' "$src/exec/run.c" "$src/exec/native.c" "$src/exec/workers.c" "$src/exec/batch.c" \
    "$src/exec/emulated_passes.c" "$src/exec/parts.c" "$src/exec/blas_request.c"
}

# The backends, the kernels and the bottom layer call nothing of the executor or the front ends:
# no function exec/ or front/ defines (every one with external linkage, whatever its name: the
# list is made from their definitions, not written here) is called from cpu/, cuda/, kernels/ or
# common/.  What a backend needs from above comes in its arguments (the plan, the job).
rule_backends_call_nothing_above () {
  external_defined_in exec front | calls_of_names "cpu cuda kernels common"
}

# The decision is the plan's: the backends, the kernels and the executor's files that run a plan
# (exec_run_files) make no plan, read no cost and apply no rule of the policy.  The policy's functions are found in their declarations, not written
# here: every function the headers of the plans and the cost model declare (POLICY_HEADERS:
# tilemm_*plan*_make*, tilemm_call_plan_*, tilemm_model_*, tilemm_*_pays, the ways, the launches'
# and the copy teams' plans, the batch's cuts, ...), and of the other headers of common/ those
# named as the policy's (POLICY_NAMES: the plans of tilemm.h and devices.h, the emulated
# precision's rule tilemm_emu_decide*, its panels' plan and its CPU loops' cuts); less what a
# backend reads a made plan with (POLICY_READERS: a panel of the plan and its steps, its CPU tile
# batches, the emulated CPU loops' cuts, the plan's launch for a shape, a
# batch panel's pages, a plan in words, the shares holding some columns, a staging unit's copy
# members, the moduli a modular GEMM launch takes for a block) and what is no decision
# (a backend's own entry or a size the layers agree on).
POLICY_HEADERS="plan_unfilled.h call_plan.h batch.h device_model.h ksplit.h copy_team.h exchange_plan.h"
POLICY_NAMES='tilemm_plan_[a-z0-9_]+|tilemm_emu_(decide|plan|branches|loop)[a-z0-9_]*'
POLICY_READERS='tilemm_plan_launch_of|tilemm_plan_panel|tilemm_plan_cpu_tile_batch|tilemm_emu_loop_plan|tilemm_plan_panel_count|tilemm_plan_steps|tilemm_plan_transposed_scratch|tilemm_plan_device_bytes|tilemm_call_plan_describe|tilemm_batch_panel_at|tilemm_batch_chunk_cut|tilemm_batch_sources|tilemm_batch_page_bytes|tilemm_batch_shape_make|tilemm_way_name|tilemm_cpu_multiply_batch|tilemm_cuda_launch_scratch_bytes|tilemm_exchange_shares_of|tilemm_staging_copy_members|tilemm_emu_planes_per_launch|tilemm_emu_gemm_grid'
# Allowed: none (a low-level entry's copy team and a batch chunk's panels, the last two, are the
# plan's: the call plan's teams, copy_team.c; the batch plan's chunk cuts, batch_plan.c).
declared_in () {
  sed -E 's#//.*$##' "$@" | tr '\n' ' ' | sed 's#/\*#\n/*#g; s#\*/#*/\n#g' | grep -v '^/\*' \
    | grep -oE '\btilemm_[a-z0-9_]+[[:space:]]*\(' | sed -E 's/[[:space:]]*\($//' | sort -u
}
policy_functions () {
  local h
  {
    for h in $POLICY_HEADERS; do declared_in "$src/common/$h"; done
    declared_in $(find "$src/common" -name '*.h' | sort) | grep -xE "$POLICY_NAMES"
  } | grep -vxE "$POLICY_READERS" | sort -u
}
rule_no_policy_below_the_plan () {
  policy_functions | calls_of_names "cpu cuda kernels" $(exec_run_files)
}

# ---------------------------------------------------------------- the environment

# The environment is read in one place, common/options.c, into the settings (tilemm_settings.h)
# that the plan carries: no other file of any layer calls getenv (the executor decides nothing,
# so it reads no variable; a front end's setting is read there too, tilemm_blas_settings_read).
rule_environment_read_in_options_only () {
  code_of $(layer_files common exec cpu cuda kernels front) \
          $(find "$src" -type f \( -name '*.h' -o -name '*.cuh' \) | sort) \
    | grep -E '\b(secure_getenv|getenv)[[:space:]]*\(' | grep -vE "^$src/common/options\.c:"
}

# The settings reach the backends only as the plan's decisions: cpu/, cuda/ and kernels/ read no
# setting (the process's or a call's, calibration's, the BLAS library's) and gather no host facts
# to plan from; the staging's chunks, the copy teams, the simulated devices and their faults come
# in the call plan (call_plan.h: staging, teams, on_simulated, sim_faults).  Allowed: none.
rule_settings_reach_backends_in_the_plan () {
  code_of $(layer_files cpu cuda kernels) \
          $(find "$src/cpu" "$src/cuda" "$src/kernels" -type f \( -name '*.h' -o -name '*.cuh' \) | sort) \
    | grep -E '\btilemm_(process_settings_get|call_settings_read|blas_settings_read|calibration_[a-z_]+|host_facts_gather|host_threads_setting|simulated_of_call|precision_in_effect)[[:space:]]*\('
}

# Every variable the settings read (common/options.c: getenv and its helpers env_long, env_pair,
# env_text) is listed in doc/ARCHITECTURE.md's settings, so that the table of where each is read
# stays whole.  (Skipped in an unpacked tarball without doc/.)
rule_every_setting_documented () {
  local doc="$src/../doc/ARCHITECTURE.md" name
  [ -f "$doc" ] || return 0
  for name in $(grep -oE '\b(getenv|env_long|env_pair|env_text)[[:space:]]*\([[:space:]]*"[A-Z_]+"' \
                  "$src/common/options.c" | grep -oE '"[A-Z_]+"' | tr -d '"' | sort -u) \
              $(grep -oE '"(TILEMM|OMP)_[A-Z_]+"' "$src/common/options.c" | tr -d '"' | sort -u); do
    grep -q "\b$name\b" "$doc" || echo "$src/common/options.c: $name is read but not in doc/ARCHITECTURE.md"
  done | sort -u
}

# TILEMM_CALIBRATION (and the store's folder) is read once a call, at its start, into the call's
# options (tilemm_options.calibration: tilemm_calibration_in_effect, common/options.c), and the
# machine's facts follow the options' value: the reader is called by the decision's entry
# (exec/prepare.c) and by the entries of the machine's facts (exec/machine.c:
# tilemm_machine_facts_with, tilemm_machine_facts_measure: their options' value where the call's
# start read it, else the environment's now, for a caller that asks for the facts first thing),
# nowhere else, and never inside machine.c's store and measurements, which are handed the value.
# Allowed: none.
rule_calibration_read_at_the_call_start () {
  code_of $(layer_files common exec cpu cuda kernels front) \
    | grep -E '\btilemm_calibration_[a-z_]+[[:space:]]*\(' \
    | grep -vE "^$src/(common/options|exec/prepare)\.c:" | grep -vE "^$src/exec/machine\.c:"
  code_of "$src/exec/machine.c" | awk -v allowed='^tilemm_machine_facts_(with|measure)$' '
    { text = $0; sub (/^[^:]+:[0-9]+:/, "", text) }
    text ~ /^[A-Za-z_].*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(/ && text !~ /;[[:space:]]*$/ {
      name = text; sub (/[[:space:]]*\(.*/, "", name); sub (/.*[ *]/, "", name); fn = name }
    /(^|[^A-Za-z0-9_])tilemm_calibration_[a-z_]+[[:space:]]*\(/ && (text !~ /^[[:space:]]/ || fn !~ allowed) {
      print }'
}

# ---------------------------------------------------------------- the plan, made once

# Calibration is a step before deciding (exec/prepare.c: the parts the decision reads, made
# ready, then the decision's second step on them): the decision (exec/decide.c) and the plans
# (common/) measure nothing and ask for no facts of the machine; they read the facts handed in.
rule_decision_measures_nothing () {
  code_of "$src/exec/decide.c" $(layer_files common) \
    | grep -E '\btilemm_(machine_facts_(with|for|measure)|calibrate[a-z_]*)[[:space:]]*\('
}

# No plan is made below the decision: the executor's files that run a call's plan
# (exec_run_files), the backends and the kernels call no plan
# constructor and apply no rule of "auto".  The decision (exec/decide.c), the low-level entries
# that make their own call's plan (exec/multiply.c, exec/devices.c) and common/ may.
rule_no_plan_made_below_the_decision () {
  code_of $(exec_run_files) $(layer_files cpu cuda kernels) \
    | grep -E '\btilemm_(plan_make(_op)?|plan_for_panel|plan_workers|plan_unfilled_[a-z_]+|plan_launches|plan_copy_teams|plan_staging|call_plan_(make|queue|around|emulated_around|simulated)|batch_plan_(make|devices)|emu_plan_[a-z_]+|plan_[a-z_]*gpu_pays|batch_[a-z_]+_pays|batch_page_alone)[[:space:]]*\('
}

# ---------------------------------------------------------------- one of each

# A front end's help and tests live once, in src/front/NAME.help and NAME.tst: no other .m file
# of src/ carries a copy of them (a stale copy, as a merge once brought back, goes on being
# shipped and read by `help` and `test` while the real ones change).  The .m files checked are
# those git tracks (a checkout) or, in an unpacked tarball, every one but the build's own
# (src/Makefile.in's HELP_FILES, written from NAME.help and NAME.tst).  A copy is a .m that
# shares a front end's @deftypefn line or one of its %! lines (those of 24 characters or
# more: not a bare %!test or %!shared).
tracked_m_files () {
  if git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    git -C "$src" ls-files -- '*.m' | sed "s#^#$src/#"
  else
    local built
    built=$(sed -n 's/^HELP_FILES[[:space:]]*=//p' "$src/Makefile.in" 2> /dev/null)
    find "$src" -type f -name '*.m' | sort | while read -r f; do
      case " $built " in *" ${f#"$src"/} "*) ;; *) echo "$f" ;; esac
    done
  fi
}

rule_no_stale_copy_of_a_front_end () {
  local f lines
  lines=$(mktemp)
  { grep -h '@deftypefn' "$src"/front/*.help; grep -h '^%!' "$src"/front/*.tst; } \
    | awk 'length ($0) >= 24' | sort -u > "$lines"
  for f in $(tracked_m_files); do
    [ -s "$lines" ] || break
    grep -nFx -m 1 -f "$lines" "$f" /dev/null
  done
  rm -f "$lines"
}

# ---------------------------------------------------------------- host threads

# Every host team is sized in the plan (team_size.h) and runs on tilemm's own pool
# (common/host_pool.c, host_team.c): no OpenMP anywhere in src/ (no pragma, _Pragma, omp.h or
# omp_* call: a region of every core, sized at run time, that busy-waits beside the host BLAS's
# threads).  Allowed: none.  Comments and strings are not read (strip_noise); a pragma is
# matched before it (a pragma line is code).
rule_host_threads_are_the_pools () {
  grep -rnE '^[[:space:]]*#[[:space:]]*pragma[[:space:]]+omp\b|_Pragma[[:space:]]*\([[:space:]]*"[[:space:]]*omp\b' \
    "$src" --include='*.c' --include='*.h' --include='*.cc' --include='*.cu' --include='*.cuh' /dev/null
  code_of $(layer_files common exec cpu cuda kernels front) \
          $(find "$src" -type f \( -name '*.h' -o -name '*.cuh' \) | sort) \
    | grep -E '#[[:space:]]*include[[:space:]]*<omp\.h>|\bomp_[a-z_]+[[:space:]]*\('
}

# Every host team's threads are the plan's (team_size.h: tilemm_team_threads_left and
# tilemm_team_size on the facts the plan holds): below the plan nothing sizes a team from the
# host as it is now.  The executor's files that run a plan (run.c, native.c, workers.c, batch.c,
# emulated_passes.c, parts.c, blas_request.c), the backends, the kernels and the plans of common/
# gather no host facts, ask no decision for threads (tilemm_decide_host_threads is the decision's,
# for a front end's host work that has no plan) and count no CPUs (sysconf's processors,
# get_nprocs, the affinity mask, OpenMP's counts, hardware_concurrency).  Allowed: common/
# host_cpus.c (the facts' gathering itself) and host_pool.c (the pool's ceiling, the mask's CPUs:
# the threads it may start, never a job's team, which its caller takes from its plan); host_team.c
# (a team's own size).  A live team's or the pool's size (tilemm_host_team_size,
# tilemm_host_pool_size) taken as a job's threads is sizing from the host as it is now too.
rule_no_team_sized_from_live_host_facts () {
  code_of $(exec_run_files) \
          $(layer_files cpu cuda kernels common) \
    | grep -E '\btilemm_(host_facts_gather|decide_host_threads|team_size_here|host_team_size|host_pool_size)[[:space:]]*\(|\bsysconf[[:space:]]*\([[:space:]]*_SC_NPROCESSORS|\bget_nprocs(_conf)?[[:space:]]*\(|\b(sched|pthread)_getaffinity(_np)?[[:space:]]*\(|\bomp_get_(max_threads|num_threads|num_procs)[[:space:]]*\(|\bhardware_concurrency[[:space:]]*\(' \
    | grep -vE "^$src/common/(host_cpus|host_pool|host_team)\.c:"
}

# ---------------------------------------------------------------- the CPU's variants

# The CPU backend's instruction-set variant is a fact of the host (common/host_cpus.c: detected
# once a gathering, tilemm_host_facts.cpu_isa) that the plan names (tilemm_plan.cpu_isa); the
# backend runs the variant named.  Nothing else detects it: no cpuid (the instruction, the
# compilers' cpuid.h helpers), no __builtin_cpu_supports or __builtin_cpu_init, no
# tilemm_cpu_isa_best, in any layer.  Allowed: common/host_cpus.c and host_cpus.h (the facts'
# gathering and its declarations).  The backend's check that a named variant runs here
# (tilemm_cpu_isa_available: a plan for another CPU is refused, not replaced) chooses nothing.
rule_cpu_variant_detected_in_the_facts_only () {
  {
    code_of $(layer_files common exec cpu cuda kernels front) \
            $(find "$src" -type f \( -name '*.h' -o -name '*.cuh' \) | sort) \
      | grep -E '\b(__builtin_cpu_supports|__builtin_cpu_init|__get_cpuid[a-z_]*|__cpuid[a-z_]*|cpuid|tilemm_cpu_isa_best)\b'
    grep -rnE '\b(asm|__asm__)\b[^;]*\bcpuid\b' "$src" --include='*.c' --include='*.h' \
      --include='*.cc' --include='*.cu' --include='*.cuh' /dev/null
  } | grep -vE "^$src/common/host_cpus\.[ch]:" | sort -u
}

# ---------------------------------------------------------------- the emulated scheme's int8 GEMMs

# The int8 GEMM each GEMM of the emulated scheme runs is named above the backends (common/
# emulated_arena.c: tilemm_emu_gemm_named for the modular GEMMs, tilemm_emu_stats_gemm for the
# statistics'); kernels/ and cuda/ launch the GEMM named or fail, and choose none: no test of a
# GEMM's name joined (&&) to another condition (the shape, k's range, the epilogue), nor (||) to
# a condition on anything but a GEMM (a range check of the names, or whether one of the GEMMs is
# wgmma, tests names only), no GEMM chosen by name, no launcher that picks one
# (launch_imma_auto).  Allowed: the refusal of wgmma where the device cannot run it
# (`&& !tilemm_emu_cuda_wgmma_runs ()`: an error, not a switch).  The moduli a modular GEMM
# launch takes are the plan's reader's (tilemm_emu_planes_per_launch, common/).
rule_no_int8_gemm_chosen_below_the_plan () {
  {
    code_of $(layer_files kernels cuda) \
      | grep -E '\bTILEMM_EMU_GEMM_[A-Z0-9_]+[[:space:]]*&&|&&[^;]*\bTILEMM_EMU_GEMM_[A-Z0-9_]+|\btilemm_emu_gemm_named[[:space:]]*\(|\btilemm_emu_(plan_)?stats_gemm[[:space:]]*\(|\blaunch_imma_auto\b'
    # A line naming a GEMM, one of whose ||'s operands is not about a GEMM.
    code_of $(layer_files kernels cuda) | grep -E '\bTILEMM_EMU_GEMM_[A-Z0-9_]+' | grep -F '||' \
      | awk '{ code = $0; sub (/^[^:]*:[0-9]+:/, "", code); n = split (code, part, /\|\|/);
               for (i = 1; i <= n; i++)
                 if (tolower (part[i]) !~ /gemm/ && part[i] ~ /[^[:space:]()]/) { print; next } }'
  } | grep -vE 'TILEMM_EMU_GEMM_WGMMA[[:space:]]*&&[[:space:]]*!tilemm_emu_cuda_wgmma_runs[[:space:]]*\([[:space:]]*\)[[:space:]]*\)?$' \
    | sort -u
}

# ---------------------------------------------------------------- the batched kernel

# The batched kernel a GPU batch's pages run is the batch plan's (common/batch_plan.c:
# tilemm_batch_plan.gpu_kernel, from one page as the kernels see it): cuda/ hands the launcher the
# plan's kernel and no other, and the launcher (kernels/batched.cu) runs the one named: no test of
# a page's size (m * n against a bound, TILEMM_BATCHED_SMALL_PAGE) chooses one there.
rule_no_batched_kernel_chosen_below_the_plan () {
  code_of $(layer_files cuda) | grep -E '\btilemm_batched_launch[[:space:]]*\(' \
    | grep -vE '\btilemm_batched_launch[[:space:]]*\([[:space:]]*job->plan->gpu_kernel[[:space:]]*,'
  code_of "$src/kernels/batched.cu" \
    | grep -E '\b(m|n)[[:space:]]*\*[[:space:]]*(m|n)\b[[:space:]]*(<|>)|(<|>)=?[[:space:]]*(m|n)[[:space:]]*\*[[:space:]]*(m|n)\b|\bTILEMM_BATCHED_SMALL_PAGE\b'
}

# The sizes cuda/ works with are the plan's (common/copy_team.c, tilemm_plan_staging: the
# staging's chunks, the size from which a result's pages are prepared, the units a view travels
# in; common/call_plan.c, tilemm_facts_budget: the memory a product may hold, the driver's margin
# taken off the facts' free memory): no file of cuda/ writes a byte size of its own (a KiB, MiB
# or GiB shift).  Allowed: cuda/links.cu (the size of the copies that measure the links, for
# the machine's facts).
rule_cuda_sizes_are_the_plans () {
  code_of $(layer_files cuda) | grep -E '<<[[:space:]]*(10|20|30)\b' \
    | grep -vE "^$src/cuda/links\.cu:"
}

# The devices' properties are facts, gathered where the facts are (cuda/device.cu: the probe, each
# device's information and memory budget; cuda/backend_ops.cu: cuda_facts, the peers; cuda/
# links.cu: the links measured for the machine's facts; kernels/imma_wgmma.cu: whether the wgmma
# GEMM runs here, the facts' wgmma, and its persistent grid of one block a multiprocessor): no
# other file of cuda/ or kernels/, nor the executor's files that run a plan (exec_run_files),
# asks a device's properties, its limits, its memory or its peers, so nothing that runs a plan
# reads the device as it is now to choose.  The runtime's queries, its occupancy calculator
# (cudaOccupancy*: the blocks a multiprocessor holds), a kernel's attributes, the driver API's
# (cuDeviceGetAttribute, cuMemGetInfo) and NVML's (nvml*: clocks, power, memory) alike; none of
# the last ones is used today.  Allowed: the files named.
rule_device_facts_gathered_in_the_facts_only () {
  code_of $(layer_files cuda kernels) $(exec_run_files) \
    | grep -E '\b(cudaGetDeviceProperties|cudaDeviceGetAttribute|cudaMemGetInfo|cudaDeviceCanAccessPeer|cudaGetDeviceCount|cudaDriverGetVersion|cudaRuntimeGetVersion|cudaOccupancy[A-Za-z]*|cudaFuncGetAttributes|cudaDeviceGetLimit|cudaDeviceGetP2PAttribute|cuDeviceGetAttribute|cuMemGetInfo(_v2)?|nvml[A-Z][A-Za-z0-9]*)[[:space:]]*\(' \
    | grep -vE "^$src/(cuda/(device|backend_ops|links)|kernels/imma_wgmma)\.cu:"
}

# Lines "file:line: text" on stdin that write a count of tiles, blocks, multiprocessors (SMs) or
# waves against a number (compared, defined, set), a number of 16 or more that is neither a
# power of two nor one less.
multiprocessor_numbers () {
  awk 'function pow2ish (n,   m) {
         m = n + 0
         if (m < 16) return 1
         while (m > 1 && m % 2 == 0) m = m / 2
         if (m == 1) return 1
         m = n + 1
         while (m > 1 && m % 2 == 0) m = m / 2
         return m == 1
       }
       {
         code = $0; sub (/^[^:]*:[0-9]+:/, "", code); rest = tolower (code)
         count = "[a-z_0-9.>-]*(tiles|blocks|sms|multiprocessors|waves)[a-z_0-9]*[]) ]*"
         lit = "[( ]*[0-9][0-9ul *+]*"
         op = " *(<=|>=|==|!=|<|>|=) *"
         def = "#[ ]*define[ ]+[a-z_0-9]*(blocks|sms|multiprocessors|waves)[a-z_0-9]*[ (]+[0-9]+"
         while (match (rest, count op lit) || match (rest, lit op count) || match (rest, def))
           {
             piece = substr (rest, RSTART, RLENGTH)
             rest = substr (rest, RSTART + RLENGTH)
             gsub (/[^0-9]+/, " ", piece)
             k = split (piece, num, " ")
             for (i = 1; i <= k; i++)
               if (!pow2ish (num[i])) { print; next }
           }
       }'
}

# The multiprocessors a device has are a fact, gathered with the others (cuda/device.cu:
# usable_devices, into tilemm_device_facts.multiprocessors; tilemm_device_info): the call plan
# hands the wgmma GEMM's persistent grid (tilemm_emu_gemm_grid of emu_multiprocessors) to the launch through the setup and
# the launch's arguments, so no other file of cuda/ or kernels/ asks the runtime for it.  Nor is
# a count of multiprocessors written as a number (a card's 132, two waves of it 264): no count of
# tiles, blocks, multiprocessors (SMs) or waves is compared with, defined as or set to an integer
# (or a product or sum of integers) in common/, cuda/, kernels/ or the executor's run files,
# except a power of two or one less (a tile's size, a grid's limit) and numbers under 16
# (multiprocessor_numbers).  Allowed: common/cuda_variants.h's TILEMM_CUDA_SMALL_BLOCKS, the
# variant table's fill point where no facts name the GPU (an H100's multiprocessors): the plan
# reads the facts' count from its limits (tilemm_limits.multiprocessors, the fewest of the call's
# GPUs, filled by common/call_plan.c) through one helper (plan.c: plan_multiprocessors), and falls
# back to this define only where the limits carry none (low-level entries, tests and plans made
# without device facts), so the define is the fallback, in the plan's layer.
rule_multiprocessors_gathered_in_the_facts_only () {
  code_of $(layer_files cuda kernels) \
    | grep -E '\b(cudaDevAttrMultiProcessorCount|multiProcessorCount)\b' \
    | grep -vE "^$src/cuda/device\.cu:"
  code_of $(layer_files common cuda kernels) \
          $(find "$src/common" "$src/cuda" "$src/kernels" -type f \( -name '*.h' -o -name '*.cuh' \) | sort) \
          $(exec_run_files) \
    | multiprocessor_numbers \
    | grep -vE "^$src/common/cuda_variants\.h:[0-9]+:#define TILEMM_CUDA_SMALL_BLOCKS 132$" \
    | sort -u
}

# A host job's team is the plan's, not sized where the job runs: the executor's files that run a
# plan, the backends and the kernels apply no rule of team_size.h (tilemm_team_size,
# tilemm_parts_team, tilemm_update_team, tilemm_parts_cols_per_piece, tilemm_pack_team,
# tilemm_pack_cols_per_piece belong to the plans: a split's parts, split_team and join_team; a
# BLAS call's update, update_team; its strided operands packed, pack_team; a batch's split
# pages and mirror, split_parts, join_parts, mirror_team; the CPU backend's tile batches,
# tilemm_plan_cpu_tile_batch; the emulated CPU scheme's loops, tilemm_emu_loop_plan).  Allowed:
# exec/parts.c's pieces of columns (tilemm_parts_cols_per_piece: the same rule the plan sized
# the team with).  The helpers of common/ that the backends call as a plan runs (parallel_copy.c,
# host_pool.c, host_team.c, host_pages.c) are scanned with them, and tilemm_team_threads_left
# (the threads a plan's teams may take) is the plan's too: parallel_copy.c copies on the members
# it is handed (the staging's: tilemm_staging_copy_members, a reader of the staging plan).  The
# front ends are scanned too: they pass the plan's teams (the BLAS library's pack and update).
common_run_files () {
  printf '%s\n' "$src/common/parallel_copy.c" "$src/common/host_pool.c" \
    "$src/common/host_team.c" "$src/common/host_pages.c"
}

rule_no_team_sized_below_the_plan () {
  code_of $(exec_run_files) \
          $(common_run_files) $(layer_files cpu cuda kernels front) \
    | grep -E '\btilemm_(team_size|team_threads_left|parts_team|update_team|parts_cols_per_piece|pack_team|pack_cols_per_piece)[[:space:]]*\(' \
    | grep -vE "^$src/exec/parts\.c:.*\btilemm_parts_cols_per_piece[[:space:]]*\("
}

# Nor is a job's work priced or cut into pieces where it runs: the rule's rates and least share
# (TILEMM_TEAM_THREAD_BYTES_PER_S, _FLOPS_PER_S, TILEMM_TEAM_MIN_SHARE_S) and the plans' piece
# sizes (TILEMM_PARTS_PIECE_BYTES, TILEMM_UPDATE_COLUMNS, TILEMM_BATCH_*_PER_INDEX,
# TILEMM_CPU_POLL_TILES_PER_THREAD; the emulated CPU scheme's TILEMM_EMU_STEP_S and
# TILEMM_EMU_CHUNKS_PER_THREAD) are read in the plans' layer and the decision only, not in the
# executor's run files, the common/ helpers they and the backends call (common_run_files), the
# backends or the kernels.  Allowed: none.
rule_no_job_priced_below_the_plan () {
  code_of $(exec_run_files) \
          $(common_run_files) $(layer_files cpu cuda kernels) \
    | grep -E '\bTILEMM_(TEAM_THREAD_(BYTES|FLOPS)_PER_S|TEAM_MIN_SHARE_S|PARTS_PIECE_BYTES|UPDATE_COLUMNS|BATCH_[A-Z]+_PER_INDEX|CPU_POLL_TILES_PER_THREAD|EMU_STEP_S|EMU_CHUNKS_PER_THREAD)\b'
}

# The CPU's emulated scheme runs its loops on the plan's team (the branches' or the emulated plan's
# `threads`): no call of its loops (problems_make, emu_for, tilemm_emu_stats_cpu_planned) is handed
# a team written as a number, and the CPU's and the simulated devices' tables reach the
# statistics only as the plan says (tilemm_emu_stats_cpu_planned), not through the entries that
# know no plan (tilemm_emu_stats_cpu, _op).  Allowed: the no-plan entry itself, on the caller's
# thread by definition (emulated_cpu.c, review r5).
rule_cpu_emulated_loops_run_the_plans_team () {
  code_of $(layer_files cpu) \
    | grep -E '\b(problems_make|emu_for|tilemm_emu_stats_cpu_planned)[[:space:]]*\([[:space:]]*[0-9]+[[:space:]]*,' \
    | grep -vE "^$src/cpu/emulated_cpu\.c:[0-9]+:[[:space:]]*return tilemm_emu_stats_cpu_planned \(1, 1, op_a, a, op_b, b, st, err\);$"
  code_of "$src/cpu/backend_cpu.c" "$src/cpu/simulated.c" \
    | grep -E '\btilemm_emu_stats_cpu(_op)?[[:space:]]*\('
}

# Each rule prints the lines that break it; a rule that prints nothing passes.
for rule in rule_kernels_allocate_nothing rule_kernels_copy_nothing \
            rule_kernels_read_no_environment rule_kernels_keep_no_state \
            rule_common_calls_nothing_above rule_exec_reaches_backends_through_tables \
            rule_front_calls_no_backend rule_front_applies_no_rule rule_call_plan_fills_launches_once \
            rule_cuda_passes_the_workspace rule_environment_read_in_options_only \
            rule_kernels_include_no_cuda_header rule_no_plan_made_below_the_decision \
            rule_no_stale_copy_of_a_front_end rule_backends_call_nothing_above \
            rule_no_policy_below_the_plan rule_host_threads_are_the_pools \
            rule_settings_reach_backends_in_the_plan rule_every_setting_documented \
            rule_decision_measures_nothing rule_no_team_sized_from_live_host_facts \
            rule_cpu_variant_detected_in_the_facts_only rule_calibration_read_at_the_call_start \
            rule_no_int8_gemm_chosen_below_the_plan rule_no_batched_kernel_chosen_below_the_plan \
            rule_cuda_sizes_are_the_plans rule_device_facts_gathered_in_the_facts_only \
            rule_no_team_sized_below_the_plan rule_no_job_priced_below_the_plan \
            rule_multiprocessors_gathered_in_the_facts_only \
            rule_cpu_emulated_loops_run_the_plans_team rule_includes_name_no_folder; do
  broken=$("$rule")
  if [ -n "$broken" ]; then
    echo "$broken" | sed "s#^#FAIL ${rule#rule_}: #"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
done
echo "check_layers: $passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
