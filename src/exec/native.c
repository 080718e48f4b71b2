/* native.c — a call's native product as its plan says: the backend's table (the simulated
 * devices' for a CPU plan with several), its turn, the queue of panels on the plan's workers.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "backend.h"
#include "multi.h"

tilemm_status tilemm_exec_begin (tilemm_backend backend, int simulated,
                                 const tilemm_call_plan *plan, tilemm_job_kind kind,
                                 const tilemm_view *a, const tilemm_view *b,
                                 const tilemm_view *c, tilemm_job *job, tilemm_error *err)
{
  memset (job, 0, sizeof *job);
  job->ops = backend == TILEMM_BACKEND_CPU && simulated ? &tilemm_sim_backend_ops
                                                        : tilemm_backend_find (backend);
  if (!job->ops)
    return tilemm_exec_no_backend (backend, err);
  const tilemm_status status = job->ops->begin (plan, &job->state, err);
  if (status != TILEMM_OK)
    return status;
  job->kind = kind;
  job->op_a = plan->op_a;
  job->op_b = plan->op_b;
  job->a = a;
  job->b = b;
  job->c = c;
  return TILEMM_OK;
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
  tilemm_job job;
  tilemm_status status = tilemm_exec_begin (backend, plan->on_simulated, plan,
                                            TILEMM_JOB_NATIVE, a, b, c, &job, err);
  if (status != TILEMM_OK)
    return status;
  job.queue = &plan->queue;
  job.sub = plan->sub;
  job.workers = &plan->workers;
  job.teams = plan->teams;
  job.exchange = &plan->exchange;
  job.owner_first = plan->queue_owned ? plan->queue_first : NULL;
  status = tilemm_job_run (&job, stop, report, err);
  job.ops->end (job.state, status);
  return status;
}
