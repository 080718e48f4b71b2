/* decide.h — a call's decision in its two steps around the machine's facts (decide.c), which
 * the call's entry (prepare.c: tilemm_decide_op, tilemm_decide_batch) runs with the facts made
 * ready between them: the first step reads no fact of the machine, the second only reads the
 * facts it is handed; neither measures anything.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_DECIDE_H
#define TILEMM_DECIDE_H

#include "batch_run.h"
#include "front.h"
#include "machine_facts.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the first step hands the second. */
typedef struct {
  tilemm_precision precision;  /* the precision in effect (read once a call)                  */
  int rank_k;                  /* one object times its transpose: the host's rank-k update    */
} tilemm_decide_first;

/* The first step of a plain call: the precision in effect (read and checked), the route, and
 * whether the call computes (decision->action; only then is the second step taken). */
tilemm_status tilemm_decide_op_first (const tilemm_operand *a, tilemm_op op_a,
                                      const tilemm_operand *b, tilemm_op op_b,
                                      const tilemm_options *options, tilemm_decision *decision,
                                      tilemm_decide_first *first, tilemm_error *err);

/* The parts of the machine's facts (machine_facts.h) the second step of a call that computes
 * reads, from its options, the precision in effect (the first step's) and route alone: "auto"
 * its type's ways, the host copies and one GPU's call; a GPU's plan the copies and one GPU's
 * call; every GPU only for a product where several may pay; "precision", "auto" on a GPU the
 * int8 GEMM's rate besides; a named CPU backend none.  Pure. */
unsigned tilemm_decide_op_parts (const tilemm_options *options, tilemm_precision precision,
                                 const tilemm_route *route);

/* The second step: the precision "auto" takes, the backend ("auto": the ways weighed on
 * `machine`), the devices' facts gathered, the plan. */
tilemm_status tilemm_decide_op_with (const tilemm_options *options,
                                     const tilemm_decide_first *first,
                                     const tilemm_machine_facts *machine,
                                     tilemm_decision *decision, tilemm_error *err);

/* The first step of a batch: its shape, the precision in effect, one page's route, and whether
 * the batch computes (batch->action TILEMM_BATCH_COMPUTE; only then is the second step taken). */
tilemm_status tilemm_decide_batch_first (const tilemm_operand *x, int x_ndims,
                                         const int64_t *x_dims, tilemm_op op_a,
                                         const tilemm_operand *y, int y_ndims,
                                         const int64_t *y_dims, tilemm_op op_b,
                                         const tilemm_options *options, tilemm_batch *batch,
                                         tilemm_decide_first *first, tilemm_error *err);

/* The parts a batch's second step reads: its pages' part and, unless "cpu" was asked, the host
 * copies and one GPU's call.  Pure. */
unsigned tilemm_decide_batch_parts (const tilemm_options *options);

/* The second step of a batch: the backend, the batch's plan and its devices, and the page's call
 * plan where pages run one by one, on `machine`. */
tilemm_status tilemm_decide_batch_with (const tilemm_options *options,
                                        const tilemm_machine_facts *machine, tilemm_batch *batch,
                                        tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_DECIDE_H */
