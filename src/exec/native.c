/* native.c — a call's native product as its plan says: the backend's table (the simulated
 * devices' for a CPU plan with several), its turn, the queue of panels on the plan's workers.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "backend.h"
#include "multi.h"

const tilemm_backend_ops *tilemm_exec_ops (tilemm_backend backend, const tilemm_call_plan *plan)
{
  if (backend == TILEMM_BACKEND_CPU && plan->simulated > 1)
    return &tilemm_sim_backend_ops;
  return tilemm_backend_find (backend);
}

tilemm_status tilemm_exec_native (tilemm_backend backend, const tilemm_call_plan *plan,
                                  const tilemm_view *a, const tilemm_view *b,
                                  const tilemm_view *c, const tilemm_stop *stop,
                                  tilemm_multi_report *report, tilemm_error *err)
{
  if (report)
    {
      memset (report, 0, sizeof *report);
      report->failed_worker = -1;
    }
  if (plan->m == 0 || plan->n == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  const tilemm_backend_ops *ops = tilemm_exec_ops (backend, plan);
  if (!ops)
    return tilemm_exec_no_backend (backend, err);
  void *state = NULL;
  tilemm_status status = ops->begin (plan, &state, err);
  if (status != TILEMM_OK)
    return status;
  tilemm_job job;
  memset (&job, 0, sizeof job);
  job.ops = ops;
  job.state = state;
  job.kind = TILEMM_JOB_NATIVE;
  job.op_a = plan->op_a;
  job.op_b = plan->op_b;
  job.a = a;
  job.b = b;
  job.c = c;
  job.queue = &plan->queue;
  job.sub = plan->sub;
  job.workers = &plan->workers;
  status = tilemm_job_run (&job, stop, report, err);
  ops->end (state, status);
  return status;
}
