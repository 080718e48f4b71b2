/* copy_team.h — the plan's host side of the GPU's copies: how many host threads copy each
 * worker's operands into its pinned staging and its results out, and on which CPUs; and the
 * staging they copy through (copy_team.c).  Pure.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Workers that copy at once share the host: each gets a slice of the CPUs this process may use
 * (its affinity mask), the slices disjoint, so two GPUs' copies neither serialise on one team nor
 * fight for the same cores; with NUMA nodes a worker's slice comes from its GPU's node.  A team
 * is no larger than its slice, and all of them together no larger than the host's threads.
 */
#ifndef TILEMM_COPY_TEAM_H
#define TILEMM_COPY_TEAM_H

#include "devices.h"
#include "host_cpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One worker's host copy team. */
typedef struct tilemm_copy_team_s {
  int threads;            /* members, the worker's own thread one of them (1: it alone)        */
  tilemm_cpu_set cpus;    /* where the team (and the worker's thread) runs; empty: anywhere    */
} tilemm_copy_team;

/* The threads past which more copy threads add no host copy bandwidth where no machine facts say
 * (a low-level entry's product): 0, no such cap (a worker's team is its whole slice of the
 * host).  A call's plan takes the machine's (tilemm_model_copy_saturating_threads: its host copy
 * bandwidth by thread count, measured). */
#define TILEMM_COPY_SATURATING_THREADS 0

/* The host's CPUs no copy team takes, of `cpus` (the process's threads or its mask's CPUs): one
 * in sixteen from four up, none below.  The teams' threads spin while a product streams, and a
 * team of every core leaves the CUDA driver's threads, the caller's other threads and another
 * library's pool to preempt a member whose share the whole copy then waits for. */
int tilemm_copy_reserved_cpus (int cpus);

/* The teams of `workers` (all of them copying at once), teams[0 .. workers->count - 1], on the
 * host less tilemm_copy_reserved_cpus:
 * - each worker's CPUs: the host's (host->cpus) near its GPU (gpu->local_cpus, where known and
 *   they meet the host's), else the host's; workers whose CPUs are the same share them in
 *   disjoint slices, in worker order; a worker that finds none left takes what is left of the
 *   host's, or else one CPU shared with another;
 * - each team's threads: its slice's CPUs, no more than the host's threads shared among the
 *   workers, `setting` (TILEMM_COPY_THREADS; 0: none) and `saturating` (the cost model's
 *   tilemm_model_copy_saturating_threads; 0: none); at least 1.
 * Unknown host CPUs (an empty set): no pinning, the host's threads shared.  gpu may be NULL (no
 * GPU facts: simulated devices). */
void tilemm_plan_copy_teams (const tilemm_host_facts *host, const tilemm_device_facts *gpu,
                             const tilemm_workers *workers, int setting, int saturating,
                             tilemm_copy_team *teams);

/* The pinned staging every GPU worker of a call copies through: its chunks (each way) and what
 * is done with a large result before the copies into it. */
#define TILEMM_STAGING_MAX_CHUNKS 16
typedef struct tilemm_staging_plan_s {
  size_t chunk_bytes;          /* one pinned chunk: the unit a view travels in               */
  int chunks;                  /* chunks for uploads, as many for downloads (2 to
                                  TILEMM_STAGING_MAX_CHUNKS)                                  */
  size_t prepare_result_bytes; /* a result of at least this many bytes gets its pages prepared
                                  while the device computes (smaller ones are left to the
                                  ordinary page faults)                                       */
  int huge_pages;              /* ... asked as huge pages                                     */
  int prefault_threads;        /* ... and faulted in by this many threads (0: none), no more
                                  than the worker's copy team                                 */
  int units_per_view;          /* a product's operands (and its result) travel in about this
                                  many units each, so that a small product pipelines too ...  */
  size_t least_unit_bytes;     /* ... each of at least this many bytes (a copy's fixed cost)
                                  and at most chunk_bytes                                     */
  size_t copy_alone_bytes;     /* a unit's host copy under this many bytes is the worker's
                                  thread's alone (below it, waking the team costs more than it
                                  saves); from it on, tilemm_staging_copy_members              */
} tilemm_staging_plan;

/* The staging of a call from the settings its plan was made with (tilemm_settings.h: the
 * process's staging settings, as the call read them). */
struct tilemm_call_settings_s;
void tilemm_plan_staging (const struct tilemm_call_settings_s *settings, tilemm_staging_plan *plan);

/* The members of a worker's copy team of `team_threads` (its tilemm_copy_team's threads) that
 * copy one unit of `bytes` through the staging: 1 under staging->copy_alone_bytes, else the
 * team rule's (tilemm_team_size: the unit's pieces of TILEMM_COPY_LEAST_PIECE_BYTES, its bytes
 * at TILEMM_TEAM_THREAD_BYTES_PER_S), no more than the team.  A pure reader of the plan (its
 * staging and its team), as tilemm_plan_panel is of its panels: every input is the plan's, and
 * the staging hands the count to the copy (tilemm_parallel_copy_2d), which runs exactly that. */
int tilemm_staging_copy_members (const tilemm_staging_plan *staging, int team_threads,
                                 size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_COPY_TEAM_H */
