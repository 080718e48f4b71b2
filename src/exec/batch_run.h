/* batch_run.h — running a batch of pages (pagemtimes): the executor's entry (src/exec/batch.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_BATCH_RUN_H
#define TILEMM_BATCH_RUN_H

#include "batch.h"
#include "front.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A batch decided: one page's decision (tilemm_decide_op on one page's operands, so the route's
 * rules of `*` — class, complexity, real and complex operands as pairs or split, the precision —
 * are those of one page), the shape, the plan (its backend replaces the decision's). */
typedef struct {
  tilemm_decision decision;
  tilemm_batch_shape shape;
  tilemm_batch_plan plan;
} tilemm_batch;

/* Runs every page of a batch whose route computes (m, n, k > 0): x and y hold X's and Y's pages
 * after the route's conversions (its class; complex when the operand is complex or the route
 * makes it so), z is Z of the route's class, interleaved complex when route.result_complex,
 * written whole.  Native pages run as one batch on plan.backend (split real and complex pages
 * as two real products in one batch of twice the width, as tilemm_run does for one product);
 * emulated pages one by one through tilemm_run.  options->stop is polled between groups of
 * pages: TILEMM_EINTERRUPTED then (Z partly written). */
tilemm_status tilemm_batch_run (const tilemm_batch *batch, const tilemm_options *options,
                                const void *x, const void *y, void *z, tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_BATCH_RUN_H */
