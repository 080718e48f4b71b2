/* plan_unfilled.h — plan.c's plans without their launches, for the plan of a call
 * (call_plan.c), which fills every one of its plans' launches once, when its panels, steps and
 * kernel fallback are final (fill_launches).  The public functions (tilemm_plan_make_op,
 * tilemm_plan_workers, tilemm_plan_for_panel) are these plus tilemm_plan_launches, for callers
 * that run a plan as they get it.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_PLAN_UNFILLED_H
#define TILEMM_PLAN_UNFILLED_H

#include "devices.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tilemm_plan_make_op without the launches. */
tilemm_status tilemm_plan_unfilled_op (tilemm_plan *plan, tilemm_backend backend,
                                       tilemm_type type, int64_t m, int64_t n, int64_t k,
                                       tilemm_op op_a, tilemm_op op_b,
                                       const tilemm_limits *limits);

/* tilemm_plan_workers without the queue's launches (*queue is *plan where it returns 1). */
int tilemm_plan_unfilled_workers (tilemm_plan *queue, const tilemm_plan *plan, int available,
                                  int named, const struct tilemm_machine_facts_s *facts);

/* The same with about `per_worker` panels a worker (tilemm_plan_workers: TILEMM_MULTI_PANELS_
 * PER_WORKER; the emulated passes: 1, each worker's panel kept on its device from the pass of
 * statistics to the pass of products). */
int tilemm_plan_unfilled_queue (tilemm_plan *queue, const tilemm_plan *plan, int available,
                                int named, int per_worker,
                                const struct tilemm_machine_facts_s *facts);

/* tilemm_plan_for_panel without the panel's launches. */
tilemm_status tilemm_plan_unfilled_for_panel (tilemm_plan *sub, const tilemm_plan *parent,
                                              int64_t rows, int64_t cols,
                                              const tilemm_limits *limits);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_PLAN_UNFILLED_H */
