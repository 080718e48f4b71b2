/* host_pool.h — the process's pool of host threads for tilemm's CPU work: the CPU backend's
 * tiles, a CPU batch's pages, the emulated scheme's loops, the executor's parts apart and back,
 * the BLAS library's memset.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Why not OpenMP: its teams of every core waited at barriers for a descheduled thread (static
 * shares), their idle threads spun beside the host BLAS's own spinning threads, and a parallel
 * region was sized at run time, not by the plan.  The pool is one team of host_team.h (dynamic
 * jobs: a late thread holds back only the index it claimed; idle threads spin briefly, yielding,
 * then sleep; each helper on a CPU of its own next to the caller's), made on first use, kept
 * between calls, grown when a larger team is asked and never larger than the CPUs of the
 * process's affinity mask.  The team of each job is the caller's,
 * which takes it from its plan (team_size.h).
 *
 * Two threads at once: one job holds the pool at a time; a job asked while the pool is busy (a
 * second product on another thread, or a job's index that itself asks for the pool) runs alone
 * on its caller's thread.  Never waiting keeps a job from depending on another's length and a
 * nested job from waiting for its own pool; the result is the same either way.  A forked child
 * runs every job on its caller.  The pool's threads are joined when the library is unloaded (or
 * by tilemm_host_pool_release).
 */
#ifndef TILEMM_HOST_POOL_H
#define TILEMM_HOST_POOL_H

#include <stdint.h>

#include "host_team.h"

#ifdef __cplusplus
extern "C" {
#endif

/* fn (arg, index, member) for every index in [0, count), each once, on at most `threads`
 * threads (the caller is member 0; member < threads).  Returns when every index is done. */
void tilemm_host_pool_run (int threads, int64_t count, tilemm_team_fn fn, void *arg);

/* body (ctx, first, last) over [0, count) in ranges of `per` items ([first, last), the last range
 * shorter), each range one index of a job of tilemm_host_pool_run on `threads` (at most; one where
 * fewer than two are asked).  The pieces and the team are the plan's: what a column loop of the
 * executor or a backend hands the pool. */
typedef void tilemm_range_fn (void *ctx, int64_t first, int64_t last);
void tilemm_host_pool_run_ranges (int threads, int64_t count, int64_t per, tilemm_range_fn *body,
                                  void *ctx);

/* Stops and joins the pool's threads where no job holds the pool (the next job starts it
 * again); the library's unloading does the same. */
void tilemm_host_pool_release (void);

/* Members of the pool now (1 before its first job and after a release); for tests. */
int tilemm_host_pool_size (void);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_HOST_POOL_H */
