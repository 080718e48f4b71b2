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

/* What a batch does. */
typedef enum {
  TILEMM_BATCH_COMPUTE = 0,  /* decision and plan made: tilemm_batch_run                     */
  TILEMM_BATCH_FILL,         /* no pages, empty pages or no inner dimension: Z is zeros (real,
                                as `*` gives them)                                           */
  TILEMM_BATCH_SCALAR,       /* a page of op(X) or of op(Y) is a scalar (k = 1, m or n = 1):
                                `*` multiplies element by element, which the host does over the
                                pages (its IEEE and complex rules are `*`'s own)             */
  TILEMM_BATCH_BEYOND,       /* one page's route computes nothing (too large for the product):
                                an error for the host to raise                               */
  TILEMM_BATCH_HOST          /* "auto": the host's own `*` page by page, where the device model
                                finds the loop of it faster than the CPU's batched path and the
                                GPU's (tilemm_batch_host_pays); the front end runs that loop  */
} tilemm_batch_action;

/* A batch decided (tilemm_decide_batch): one page's decision (its route by the rules of `*` —
 * class, complexity, real and complex operands as pairs or split, the precision — for one
 * page; its backend is the plan's; where the pages run one by one, per_page or emulated, its
 * call plan is the page's on that backend, made from the same facts as a plain call's), the
 * shape, the plan. */
typedef struct {
  tilemm_batch_action action;
  tilemm_decision decision;
  tilemm_batch_shape shape;
  tilemm_batch_plan plan;
  /* "auto": what the cost model said each way costs (seconds: the host's loop of `*`, the CPU's
   * batched path, the GPU's; INFINITY where a way could not run); ways_weighed 0 where none was
   * weighed (a backend named, emulated pages, or no pages to weigh). */
  int ways_weighed;
  double way_s[TILEMM_NWAYS];
} tilemm_batch;

/* Decides a batch Z = pagemtimes (X, op_a, Y, op_b) under `options`, once: the shape (x_dims,
 * y_dims: the arrays' sizes, x_ndims, y_ndims >= 2), the precision, one page's route (x and y
 * describe the arrays: class, complexity, identity, host_two_real; their ndims, rows and cols are
 * read from the sizes), the facts about the devices (through the backends' tables, as
 * tilemm_decide_op gathers them), the batch's plan (tilemm_batch_plan_make) and, where the pages
 * run one by one, the page's call plan (tilemm_call_plan_make).  TILEMM_ESHAPE with
 * batch->shape.bad_dim set (tilemm_batch_shape_make); TILEMM_EOPTION for a bad precision
 * option; TILEMM_ENOGPU for "gpu" without one; TILEMM_EDEVMEM, TILEMM_ELIMIT as the plans say. */
tilemm_status tilemm_decide_batch (const tilemm_operand *x, int x_ndims, const int64_t *x_dims,
                                   tilemm_op op_a, const tilemm_operand *y, int y_ndims,
                                   const int64_t *y_dims, tilemm_op op_b,
                                   const tilemm_options *options, tilemm_batch *batch,
                                   tilemm_error *err);

/* What a batch decided, one decision a line (the hidden __tilemm_pages_plan__ prints it): the
 * action, the facts and the ways' costs, the plan and, for pages one by one, the page's plan. */
void tilemm_batch_describe (const tilemm_batch *batch, char *buf, size_t size);

/* Runs every page of a batch whose route computes (m, n, k > 0): x and y hold X's and Y's pages
 * after the route's conversions (its class; complex when the operand is complex or the route
 * makes it so), z is Z of the route's class, interleaved complex when route.result_complex,
 * written whole.  Native pages run as one batch on plan.backend (split real and complex pages
 * as two real products in one batch of twice the width, as tilemm_run does for one product);
 * pages that run alone (plan.per_page) and emulated pages one by one through tilemm_run with
 * the decision's call plan.  options->stop is polled between groups of pages (between pages
 * when one by one): TILEMM_EINTERRUPTED then (Z partly written). */
tilemm_status tilemm_batch_run (const tilemm_batch *batch, const tilemm_options *options,
                                const void *x, const void *y, void *z, tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_BATCH_RUN_H */
