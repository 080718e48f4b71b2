/* multiply.c — the low-level entries (tilemm_multiply and its forms, tilemm.h; the GPU's
 * entries of backend.h; the emulated precision over a given plan's panels, emulated_passes.h):
 * check the operands, make the call's plan around the given plan (the call's settings read once,
 * tilemm_settings.h), then run it through its backend's table, as every call runs.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "backend.h"
#include "emulated_passes.h"
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
  if (!tilemm_backend_find (plan->backend))
    return tilemm_exec_no_backend (plan->backend, err);
  /* One device, the whole plan: the backend runs its panels and steps (a transposed product on
   * the GPU too: the pipeline transposes each step's piece on the device). */
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  tilemm_call_plan run;
  tilemm_call_plan_around (&run, plan, op_a, op_b, 0, &settings);
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

/* ---------------------------------------------------------------- the GPU's entries (backend.h) */

/* A GPU plan's product through the executor (tilemm_multiply_op_stoppable); the GPU's entries
 * answer TILEMM_ENOGPU without one, and refuse a plan of another backend. */
static tilemm_status gpu_entry (const tilemm_plan *plan, tilemm_op op_a, const tilemm_view *a,
                                tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                                const tilemm_stop *stop, const char *name, tilemm_error *err)
{
  if (!plan || !a || !b || !c)
    return tilemm_error_set (err, TILEMM_EINVAL, "%s: null argument", name);
  if (plan->backend != TILEMM_BACKEND_CUDA)
    return tilemm_error_set (err, TILEMM_EINVAL, "%s: a plan for the GPU expected", name);
  if (plan->panel_rows < 1 || plan->panel_cols < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "plan with empty panels (%lld x %lld)",
                             (long long) plan->panel_rows, (long long) plan->panel_cols);
  const tilemm_status status = tilemm_cuda_probe (err);
  if (status != TILEMM_OK)
    return status;
  return tilemm_multiply_op_stoppable (plan, op_a, a, op_b, b, c, stop, err);
}

tilemm_status tilemm_cuda_multiply (const tilemm_plan *plan, const tilemm_view *a,
                                    const tilemm_view *b, const tilemm_view *c,
                                    const tilemm_stop *stop, tilemm_error *err)
{
  return gpu_entry (plan, TILEMM_OP_NONE, a, TILEMM_OP_NONE, b, c, stop, "tilemm_cuda_multiply",
                    err);
}

tilemm_status tilemm_cuda_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                       const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                       const tilemm_view *c, tilemm_error *err)
{
  return gpu_entry (plan, op_a, a, op_b, b, c, NULL, "tilemm_cuda_multiply_op", err);
}

/* ---------------------------------------------------------------- the emulated precision */

/* The branches of a low-level entry's call plan, from its options (NULL: the defaults of
 * `type`, written into *defaults, the caller's, and *options then pointing at them), as
 * tilemm_call_plan_make plans a call's: the entry makes its own plan, so it plans these too; the
 * passes and the backends select among them. */
static void emulated_branches (tilemm_call_plan *p, const tilemm_emu_options **options,
                               tilemm_emu_options *defaults, tilemm_type type)
{
  if (!*options)
    {
      tilemm_emu_default_options (defaults, type);
      *options = defaults;
    }
  tilemm_emu_branches_make (*options, &p->emu_branches);
  p->emu_branches.threads = p->host_threads;   /* tilemm_call_plan_emulated_around's */
}

tilemm_status tilemm_emu_multiply_panels (const tilemm_plan *plan,
                                          const tilemm_emu_options *options,
                                          const tilemm_workers *workers, int named, tilemm_op op_a,
                                          const tilemm_view *a, tilemm_op op_b,
                                          const tilemm_view *b, const tilemm_view *c,
                                          const tilemm_stop *stop, tilemm_emu_plan *used,
                                          tilemm_error *err)
{
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  tilemm_call_facts facts;
  memset (&facts, 0, sizeof facts);
  tilemm_backend_facts (plan->backend, 0, &facts.gpu);
  tilemm_host_facts_gather (&facts.host);
  tilemm_call_plan p;
  tilemm_call_plan_emulated_around (&p, plan, op_a, op_b, workers, named, &facts, &settings);
  tilemm_emu_options defaults;
  emulated_branches (&p, &options, &defaults, a->type);
  return tilemm_exec_emulated (plan->backend, &p, options, a, b, c, stop, used, NULL, err);
}

tilemm_status tilemm_cuda_multiply_emulated (const tilemm_plan *plan,
                                             const tilemm_emu_options *options, tilemm_op op_a,
                                             const tilemm_view *a, tilemm_op op_b,
                                             const tilemm_view *b, const tilemm_view *c,
                                             const tilemm_stop *stop, tilemm_emu_plan *used,
                                             tilemm_error *err)
{
  tilemm_emu_plan local;
  if (!used)
    used = &local;
  memset (used, 0, sizeof *used);
  if (!plan || !a || !b || !c)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: null argument");
  if ((int) op_a < 0 || op_a >= TILEMM_NOPS || (int) op_b < 0 || op_b >= TILEMM_NOPS)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: no such operation");
  if (tilemm_op_cols (op_a, a) != tilemm_op_rows (op_b, b) || b->type != a->type
      || c->rows != tilemm_op_rows (op_a, a) || c->cols != tilemm_op_cols (op_b, b)
      || c->type != a->type)
    return tilemm_error_set (err, TILEMM_ESHAPE, "emulated product: operands do not match");
  tilemm_status status = tilemm_cuda_probe (err);
  if (status != TILEMM_OK)
    return status;
  /* One panel, whole, on the caller's device: statistics, plan and product in one pass. */
  tilemm_plan whole = *plan;
  whole.backend = TILEMM_BACKEND_CUDA;
  whole.type = a->type;
  whole.m = c->rows;
  whole.n = c->cols;
  whole.k = tilemm_op_cols (op_a, a);
  whole.panel_rows = whole.n > 0 ? whole.n : 1;
  whole.panel_cols = whole.m > 0 ? whole.m : 1;
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  tilemm_call_facts facts;
  memset (&facts, 0, sizeof facts);
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &facts.gpu);
  tilemm_host_facts_gather (&facts.host);
  tilemm_call_plan p;
  tilemm_call_plan_emulated_around (&p, &whole, op_a, op_b, NULL, 0, &facts, &settings);
  tilemm_emu_options defaults;
  emulated_branches (&p, &options, &defaults, a->type);
  return tilemm_exec_emulated (TILEMM_BACKEND_CUDA, &p, options, a, b, c, stop, used, NULL, err);
}
