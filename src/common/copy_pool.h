/* copy_pool.h — the host threads of the staging copies, which never make the caller wait for a
 * thread that is slow to wake.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Why not an OpenMP parallel region per copy: a region ends only when every thread of its team
 * has run its share, so a copy waits for its slowest thread to wake.  Between two products the
 * team's threads go to sleep, and on a virtual machine a core that went idle can take tens of
 * milliseconds to run again: the first copies of a product that follows a pause (fresh operands
 * made by the script) then cost several times what they cost back to back (bench/RESULTS.md,
 * "Fresh operands").  Here the caller and whichever pool threads are awake share the pieces of a
 * copy; a thread that wakes late finds nothing left and goes back to sleep, and the copy is done
 * when its pieces are, not when its threads have all turned up.  Idle threads spin briefly (a
 * copy's next chunk usually follows within that time), then sleep: nothing is held between
 * copies, so the threads that fault a result's pages in and the driver's keep their cores.
 */
#ifndef TILEMM_COPY_POOL_H
#define TILEMM_COPY_POOL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs piece (arg, i) for every i in [0, pieces), each exactly once, on the calling thread and on
 * up to threads - 1 pool threads (started on first use, at most TILEMM_COPY_POOL_MAX in all), and
 * returns 1 when every piece has run.  Returns 0 having run nothing where the pool cannot take
 * the job: it is busy with another caller's (several GPU workers copying at once), threads < 2,
 * pieces < 2 or above TILEMM_COPY_POOL_MAX_PIECES, or there are no POSIX threads; the caller
 * then runs the pieces its own way. */
int tilemm_copy_pool_run (int threads, int64_t pieces, void (*piece) (void *arg, int64_t i),
                          void *arg);

/* Pool threads running now (0 before the first use and after tilemm_copy_pool_stop). */
int tilemm_copy_pool_threads (void);

/* Stops and joins the pool threads (run when the library is unloaded, so no thread is left in
 * code that is about to go; a later tilemm_copy_pool_run starts them again). */
void tilemm_copy_pool_stop (void);

enum { TILEMM_COPY_POOL_MAX = 64, TILEMM_COPY_POOL_MAX_PIECES = (1 << 20) - 1 };

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_COPY_POOL_H */
