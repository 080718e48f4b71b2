/* strip_owners.h — a product's strips of C given to its GPU workers in advance, each worker as
 * many as its device's rate earns, so that their kernels finish together.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * A queue that each panel goes to the first worker free balances devices it knows nothing of,
 * but in whole panels: with a few strips a worker, one worker often ends a whole strip after
 * the others, and every strip a worker takes fills and drains its pipeline again (its last
 * blocks of C come back while its kernels stand idle).  Where the workers keep an operand
 * between their panels (strips, call_plan.h), the plan gives each worker a run of strips
 * instead (where the facts measured every device's rate: call_plan.c): devices of one rate one strip each, as equal as the tiles
 * allow, so each pipeline fills and drains once and its result's copy-out overlaps its own
 * remaining steps; devices of different rates four strips a worker on average, each worker a
 * run of them in proportion to its rate.  Pure.
 */
#ifndef TILEMM_STRIP_OWNERS_H
#define TILEMM_STRIP_OWNERS_H

#include <stdint.h>

#include "devices.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rates closer than this (the fastest over the slowest) count as one rate. */
#define TILEMM_STRIP_SAME_RATE 1.1
/* Strips a worker on average where the rates differ. */
#define TILEMM_STRIPS_PER_WORKER_WEIGHTED 4

/* The strips of `plan` (a one-panel plan: the whole product fits a device) for `workers`
 * workers of kernel rates rate[w] (0: not measured; all 0 or NULL: one rate): *queue is `plan`
 * with its panels the strips (along its longer side, in whole tiles) and worker w owns strips
 * first[w] .. first[w + 1] - 1 (at least one each).  Returns 0, *queue untouched, where the
 * side has too few tiles to give every worker a strip. */
int tilemm_strip_owners (tilemm_plan *queue, const tilemm_plan *plan, int workers,
                         const double *rate, int64_t first[TILEMM_MAX_WORKERS + 1]);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_STRIP_OWNERS_H */
