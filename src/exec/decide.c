/* decide.c — what a call does, decided once (see front.h: tilemm_decide_op): the route of its
 * operands, the precision in effect, the backend (the GPU only where it pays), or `*` itself;
 * then the plan of the product (call_plan.c), made from the facts about the devices that this
 * file gathers from the backends' tables before it, so that the plan reads no device itself.
 * A batch of pages (pagemtimes, tilemm_decide_batch) likewise: its shape, one page's route, the
 * facts, the batch's plan (batch_plan.c) and, for pages run one by one, the page's call plan.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "batch_run.h"
#include "front.h"

/* The settings of the precision in effect (read once a call, by tilemm_precision_in_effect in
 * tilemm_decide_op or tilemm_decide_batch, and handed down): emulated or not and, for emulated,
 * its options; TILEMM_EOPTION where "moduli" or "accuracy" are given without emulated
 * precision, or both together. */
static tilemm_status precision_of_call (const tilemm_options *options, tilemm_precision precision,
                                        tilemm_type type, int *emulated, tilemm_emu_options *emu,
                                        tilemm_error *err)
{
  *emulated = precision == TILEMM_PRECISION_EMULATED;
  if (!*emulated && (options->moduli > 0 || options->accuracy != 0))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "options \"moduli\" and \"accuracy\" apply to the emulated "
                             "precision: add \"precision\", \"emulated\" (or set "
                             "TILEMM_PRECISION=emulated)");
  if (options->moduli > 0 && options->accuracy != 0)
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "give \"moduli\" (an exact count, no accuracy promise) or "
                             "\"accuracy\" (target bits, or \"native\"), not both");
  tilemm_emu_default_options (emu, type);
  emu->moduli = options->moduli;
  if (options->accuracy == TILEMM_ACCURACY_NATIVE)
    emu->rule = TILEMM_EMU_RULE_NATIVE;
  else if (options->accuracy > 0)
    emu->target_bits = options->accuracy;
  return TILEMM_OK;
}

tilemm_status tilemm_decide (const tilemm_operand *a, const tilemm_operand *b,
                             const tilemm_options *options, tilemm_decision *decision,
                             tilemm_error *err)
{
  return tilemm_decide_op (a, TILEMM_OP_NONE, b, TILEMM_OP_NONE, options, decision, err);
}

/* The first decisions of a call: the route of its operands, the precision's settings (from the
 * precision its caller read), and whether it computes (then action is
 * TILEMM_DO_COMPUTE and the backend and plan are left to the caller). */
static tilemm_status decide_route (const tilemm_operand *a, tilemm_op op_a,
                                   const tilemm_operand *b, tilemm_op op_b,
                                   const tilemm_options *options, tilemm_precision precision,
                                   tilemm_decision *decision, tilemm_error *err)
{
  decision->route = tilemm_route_decide_op (a, op_a, b, op_b);
  decision->backend = TILEMM_BACKEND_CPU;
  decision->op_a = op_a;
  decision->op_b = op_b;
  decision->emulated = 0;
  tilemm_emu_default_options (&decision->emu, TILEMM_DOUBLE);
  /* The precision's options are checked at every call, whatever the route. */
  const tilemm_status precision_status
    = precision_of_call (options, precision, decision->route.compute_type, &decision->emulated,
                         &decision->emu, err);
  if (precision_status != TILEMM_OK)
    return precision_status;
  switch (decision->route.action)
    {
    case TILEMM_ROUTE_DELEGATE:
    case TILEMM_ROUTE_NONCONFORMANT:
      /* mtimes raises the nonconformant error itself: its very id and message. */
      decision->action = TILEMM_DO_DELEGATE;
      return TILEMM_OK;
    case TILEMM_ROUTE_EMPTY:
    case TILEMM_ROUTE_ZEROS:
      decision->action = TILEMM_DO_FILL;
      return TILEMM_OK;
    case TILEMM_ROUTE_COMPUTE:
      break;
    }
  decision->action = TILEMM_DO_COMPUTE;
  return TILEMM_OK;
}

/* The facts a plan is made of: the CPU's, and the GPU's when it may run the product (`with_gpu`:
 * not where "cpu" was asked, nor where "auto"'s rule already ruled the GPU out; its memory
 * budgets only where the product's `bytes` near them). */
static void gather_facts (const tilemm_options *options, int with_gpu, double bytes,
                          tilemm_call_facts *facts)
{
  tilemm_backend_facts (TILEMM_BACKEND_CPU, 0, &facts->cpu);
  if (with_gpu && options->backend != TILEMM_CHOOSE_CPU)
    tilemm_backend_facts (TILEMM_BACKEND_CUDA, tilemm_call_plan_needs_budget (bytes),
                          &facts->gpu);
  else
    {
      memset (&facts->gpu, 0, sizeof facts->gpu);
      facts->gpu.current = -1;
    }
}

/* Whether the options leave the backend to "auto" (an unknown choice is "auto" too). */
static int chooses_auto (const tilemm_options *options)
{
  return options->backend != TILEMM_CHOOSE_CPU && options->backend != TILEMM_CHOOSE_GPU;
}

/* The "auto" rule, applied where it is known from the route alone, before any fact about the
 * devices is gathered: the GPU only where it beats `*` (tilemm_plan_auto_gpu_pays: the device
 * model, a rank-k update (syrk, herk: X'·X of one object) as one).  A native product it does not
 * pay for is delegated to `*` (mtimes, the next BLAS) at once: gathering the facts takes the
 * GPU's lock and probes, which a 2x2 product must not pay for.  *gpu_pays: the rule's answer,
 * for the backend once the facts are in.  Returns 1 where the decision is made (delegate). */
static int auto_delegates (const tilemm_options *options, tilemm_decision *decision,
                           int64_t m, int64_t n, int rank_k, int *gpu_pays)
{
  const tilemm_route *r = &decision->route;
  *gpu_pays = chooses_auto (options)
              && tilemm_plan_auto_gpu_pays (r->compute_type, m, n, r->k, rank_k);
  /* Emulated precision is never delegated (`*` is not emulated): it runs on the CPU where the
   * GPU does not pay. */
  if (!chooses_auto (options) || *gpu_pays || decision->emulated)
    return 0;
  decision->action = TILEMM_DO_DELEGATE;
  return 1;
}

tilemm_status tilemm_decide_op (const tilemm_operand *a, tilemm_op op_a, const tilemm_operand *b,
                                tilemm_op op_b, const tilemm_options *options,
                                tilemm_decision *decision, tilemm_error *err)
{
  /* The precision is read (and checked) at every call, whatever the route. */
  tilemm_precision precision;
  tilemm_status status = tilemm_precision_in_effect (options, &precision, err);
  if (status == TILEMM_OK)
    status = decide_route (a, op_a, b, op_b, options, precision, decision, err);
  if (status != TILEMM_OK || decision->action != TILEMM_DO_COMPUTE)
    return status;
  /* A product of one object with one side transposed is the host's rank-k update (syrk, herk):
   * decided as one (tilemm_plan_rank_k_gpu_pays); a host that reads one triangle only (the BLAS
   * library) gets no mirror. */
  const int rank_k = decision->route.mirror != TILEMM_MIRROR_NONE;
  if (options->one_triangle)
    decision->route.mirror = TILEMM_MIRROR_NONE;
  const tilemm_route *r = &decision->route;
  const double m = (double) (r->a_as_pairs || r->a_split ? 2 * r->m : r->m);
  const double n = (double) (r->b_split ? 2 * r->n : r->n), k = (double) r->k;
  int gpu_pays;
  if (auto_delegates (options, decision, (int64_t) m, (int64_t) n, rank_k, &gpu_pays))
    return TILEMM_OK;
  const double es = (double) tilemm_type_size (r->compute_type);
  tilemm_call_facts facts;
  gather_facts (options, 1, es * (m * k + k * n + m * n), &facts);
  /* The environment's settings of the call, once (a product that computes only: a delegated
   * one reads none). */
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  switch (options->backend)
    {
    case TILEMM_CHOOSE_CPU:
      break;
    case TILEMM_CHOOSE_GPU:
      if (!facts.gpu.usable)
        return tilemm_error_set (err, TILEMM_ENOGPU, "%s", facts.gpu.why);
      decision->backend = TILEMM_BACKEND_CUDA;
      break;
    case TILEMM_CHOOSE_AUTO:
    default:
      /* The GPU where the rule says it pays and it is usable; else a native product goes to
       * `*` as where it does not pay, and an emulated one to the CPU (auto_delegates): the
       * answer is bitwise the same on both. */
      if (gpu_pays && facts.gpu.usable)
        decision->backend = TILEMM_BACKEND_CUDA;
      else if (!decision->emulated)
        {
          decision->action = TILEMM_DO_DELEGATE;
          return TILEMM_OK;
        }
      break;
    }
  return tilemm_call_plan_make (&decision->plan, r, decision->backend, op_a, op_b,
                                decision->emulated, &decision->emu, options, &settings, &facts,
                                err);
}

tilemm_status tilemm_decide_batch (const tilemm_operand *x, int x_ndims, const int64_t *x_dims,
                                   tilemm_op op_a, const tilemm_operand *y, int y_ndims,
                                   const int64_t *y_dims, tilemm_op op_b,
                                   const tilemm_options *options, tilemm_batch *batch,
                                   tilemm_error *err)
{
  batch->action = TILEMM_BATCH_COMPUTE;
  tilemm_status status = tilemm_batch_shape_make (x_ndims, x_dims, op_a, y_ndims, y_dims, op_b,
                                                  &batch->shape, err);
  if (status != TILEMM_OK)
    return status;
  const tilemm_batch_shape *s = &batch->shape;
  /* The precision is read and checked at every call, whatever the shape (as tilemm does);
   * once: decide_route takes it for the page. */
  tilemm_precision precision;
  if ((status = tilemm_precision_in_effect (options, &precision, err)) != TILEMM_OK)
    return status;
  if (s->z_pages == 0 || s->m == 0 || s->n == 0 || s->k == 0)
    {
      batch->action = TILEMM_BATCH_FILL;
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  /* (In emulated precision too: one product a term, rounded once, meets its bound.) */
  if (s->k == 1 && (s->m == 1 || s->n == 1))
    {
      batch->action = TILEMM_BATCH_SCALAR;
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  /* One page's product by the rules of `*`. */
  tilemm_operand a = *x, b = *y;
  a.ndims = b.ndims = 2;
  a.rows = s->x_rows, a.cols = s->x_cols;
  b.rows = s->y_rows, b.cols = s->y_cols;
  tilemm_decision *d = &batch->decision;
  memset (&d->plan, 0, sizeof d->plan);
  if ((status = decide_route (&a, op_a, &b, op_b, options, precision, d, err)) != TILEMM_OK)
    return status;
  if (d->action != TILEMM_DO_COMPUTE)
    {
      batch->action = TILEMM_BATCH_BEYOND;
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  const tilemm_route *r = &d->route;
  /* "auto"'s rule for the batch, from its route and page count alone, before the devices are
   * asked: a batch the GPU would not pay for even where it is usable runs on the CPU without
   * the GPU's probe and lock (a few small pages must not pay for them: they cost more than the
   * pages). */
  const int gpu_may_pay = !chooses_auto (options) || tilemm_batch_gpu_pays (r, s->z_pages, 0);
  tilemm_call_facts facts;
  gather_facts (options, gpu_may_pay, (double) s->z_pages * tilemm_batch_page_bytes (r), &facts);
  if (options->backend == TILEMM_CHOOSE_GPU && !facts.gpu.usable)
    return tilemm_error_set (err, TILEMM_ENOGPU, "%s", facts.gpu.why);
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  status = tilemm_batch_plan_make (r, s->z_pages, 0, options->backend, facts.gpu.usable,
                                   options->max_device_bytes,
                                   facts.gpu.usable ? tilemm_facts_budget (&facts.gpu,
                                                                           facts.gpu.current)
                                                    : 0,
                                   settings.pages_alone, &batch->plan, err);
  if (status != TILEMM_OK)
    return status;
  batch->plan.fault = settings.fault;
  /* "auto" in native precision: the host's own `*` page by page where the model finds the loop
   * of it faster than both of ours (as a plain product too small for the GPU goes to `*`);
   * never for emulated pages (`*` is native). */
  if (chooses_auto (options) && !d->emulated
      && tilemm_batch_host_pays (r, s->z_pages, 0, facts.gpu.usable))
    {
      batch->action = TILEMM_BATCH_HOST;
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  d->backend = batch->plan.backend;
  /* Pages one by one: each page's call plan, as a plain call of its shape on that backend gets
   * it (the same facts, limit and devices). */
  if (batch->plan.per_page || d->emulated)
    return tilemm_call_plan_make (&d->plan, r, d->backend, op_a, op_b, d->emulated, &d->emu,
                                  options, &settings, &facts, err);
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

void tilemm_decision_describe (const tilemm_decision *decision, char *buf, size_t size)
{
  if (size > 0)
    buf[0] = '\0';
  if (decision->action == TILEMM_DO_COMPUTE)
    tilemm_call_plan_describe (&decision->plan, decision->backend, decision->emulated,
                               &decision->emu, buf, size);
  else if (size > 0)
    snprintf (buf, size, "action: %s\n",
              decision->action == TILEMM_DO_DELEGATE ? "delegate to mtimes" : "fill");
}
