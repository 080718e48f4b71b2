/* multiply.c — the low-level entry of tilemm.h (tilemm_multiply and its forms): check the
 * operands, then run the given plan through its backend's table, on one device.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "backend.h"
#include "multi.h"
#include "tilemm.h"

#include <string.h>

tilemm_status tilemm_multiply (const tilemm_plan *plan, const tilemm_view *a, const tilemm_view *b,
                               const tilemm_view *c, tilemm_error *err)
{
  return tilemm_multiply_op_stoppable (plan, TILEMM_OP_NONE, a, TILEMM_OP_NONE, b, c, NULL, err);
}

tilemm_status tilemm_multiply_stoppable (const tilemm_plan *plan, const tilemm_view *a,
                                         const tilemm_view *b, const tilemm_view *c,
                                         const tilemm_stop *stop, tilemm_error *err)
{
  return tilemm_multiply_op_stoppable (plan, TILEMM_OP_NONE, a, TILEMM_OP_NONE, b, c, stop, err);
}

tilemm_status tilemm_multiply_op (const tilemm_plan *plan, tilemm_op op_a, const tilemm_view *a,
                                  tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                                  tilemm_error *err)
{
  return tilemm_multiply_op_stoppable (plan, op_a, a, op_b, b, c, NULL, err);
}

tilemm_status tilemm_multiply_op_stoppable (const tilemm_plan *plan, tilemm_op op_a,
                                            const tilemm_view *a, tilemm_op op_b,
                                            const tilemm_view *b, const tilemm_view *c,
                                            const tilemm_stop *stop, tilemm_error *err)
{
  tilemm_status status = tilemm_check_operands_op (plan, op_a, a, op_b, b, c);
  if (status != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  if (plan->m == 0 || plan->n == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  const tilemm_backend_ops *ops = tilemm_backend_find (plan->backend);
  if (!ops)
    return tilemm_exec_no_backend (plan->backend, err);
  /* One device, the whole plan: the backend runs its panels and steps (a transposed product on
   * the GPU too: the pipeline transposes each step's piece on the device). */
  tilemm_call_plan run;
  memset (&run, 0, sizeof run);
  run.type = plan->type;
  run.m = plan->m;
  run.n = plan->n;
  run.k = plan->k;
  run.op_a = op_a;
  run.op_b = op_b;
  run.native = *plan;
  run.workers.count = 1;
  /* The GPU's facts (the caller's device, its compute capability for the plan's fallback),
   * asked once: it takes the GPU's lock. */
  tilemm_call_facts facts;
  memset (&facts, 0, sizeof facts);
  facts.gpu.current = -1;
  if (plan->backend == TILEMM_BACKEND_CUDA)
    tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &facts.gpu);
  tilemm_host_facts_gather (&facts.host);
  run.workers.device[0] = facts.gpu.current >= 0 ? facts.gpu.current : 0;
  facts.gpu.current = run.workers.device[0];
  if ((status = tilemm_call_plan_queue (&run, plan->backend, &facts)) != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  return tilemm_exec_native (plan->backend, &run, a, b, c, stop, NULL, err);
}
