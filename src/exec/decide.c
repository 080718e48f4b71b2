/* decide.c — what a call does, decided once, in two steps (decide.h) that its entry runs
 * (prepare.c: tilemm_decide_op) with the machine's facts made ready between them: first the
 * precision in effect and the route of its operands; then, on the facts it is handed (it
 * measures nothing), the backend (the GPU only where it pays) or `*` itself, and the plan of
 * the product (call_plan.c), made from the facts about the devices that this file gathers from
 * the backends' tables before it, so that the plan reads no device itself.  A batch of pages
 * (pagemtimes, tilemm_decide_batch) likewise: its shape, one page's route; then the batch's
 * plan (batch_plan.c) and, for pages run one by one, the page's call plan.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "batch_run.h"
#include "decide.h"
#include "front.h"
#include "team_size.h"

/* The settings of the precision in effect (read once a call, by tilemm_precision_in_effect in
 * tilemm_decide_op or tilemm_decide_batch, and handed down): the precision table's entry, whether
 * its plan is the emulated one and, for emulated, its options; TILEMM_EOPTION where "moduli" or "accuracy" are given without emulated
 * precision, or both together. */
static tilemm_status precision_of_call (const tilemm_options *options, tilemm_precision precision,
                                        tilemm_type type, tilemm_decision *decision,
                                        tilemm_error *err)
{
  /* The entry of the precision table the plan runs: the caller's own, else the built-in one
   * the option (or TILEMM_PRECISION) names. */
  decision->precision = options->precision_entry ? options->precision_entry
                                                 : tilemm_precision_entry_of (precision);
  int *emulated = &decision->emulated;
  tilemm_emu_options *emu = &decision->emu;
  *emulated = decision->precision->plan_emulated;
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
  else if (options->accuracy == TILEMM_ACCURACY_ELEMENTWISE)
    emu->rule = TILEMM_EMU_RULE_ELEMENTWISE;
  else if (options->accuracy > 0)
    emu->target_bits = options->accuracy;
  return TILEMM_OK;
}

/* "precision", "auto": the precision the plan takes for this product, from the facts
 * (tilemm_plan_precision_auto: the emulated product where a GPU computes it faster at a bound at
 * least as tight), and that precision's settings.  The named backend bounds what is weighed:
 * "cpu" never takes the emulated product (the CPU scheme is a reference), "gpu" weighs the
 * GPU's native product only. */
static void choose_precision (const tilemm_options *options, tilemm_decision *decision,
                              int64_t m, int64_t n, int rank_k)
{
  const tilemm_route *r = &decision->route;
  const int gpus = options->backend == TILEMM_CHOOSE_CPU ? 0 : decision->facts->gpus;
  decision->precision_weighed = 1;
  tilemm_plan_precision_auto (decision->facts, r->compute_type, m, n, r->k, rank_k, gpus,
                              options->backend == TILEMM_CHOOSE_GPU,
                              &decision->precision_choice);
  /* The emulated entry's settings (no "moduli" nor "accuracy" with "auto": checked already). */
  (void) precision_of_call (options, decision->precision_choice.emulated
                                       ? TILEMM_PRECISION_EMULATED : TILEMM_PRECISION_NATIVE,
                            r->compute_type, decision, NULL);
  /* ... under the rule "auto" priced it at: native BLAS's own bound, elementwise. */
  decision->emu.rule = decision->precision_choice.rule;
}

/* Whether "auto" took the emulated precision for this call. */
static int auto_took_emulated (const tilemm_decision *decision)
{
  return decision->precision_weighed && decision->precision_choice.emulated;
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
    = precision_of_call (options, precision, decision->route.compute_type, decision, err);
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

int tilemm_decide_host_threads (int64_t pieces, double one_thread_s)
{
  /* Most such work is too small for a second thread: no system call for it. */
  if (tilemm_team_size (INT_MAX, pieces, one_thread_s) <= 1)
    return 1;
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  return tilemm_team_size (tilemm_team_threads_left (host.threads), pieces, one_thread_s);
}

void tilemm_decide_update (const tilemm_blas_request *request, int *team, int64_t *columns)
{
  *columns = TILEMM_UPDATE_COLUMNS;
  *team = tilemm_update_team (tilemm_decide_host_threads (INT64_MAX, INFINITY),
                              tilemm_type_size (request->type), request->m, request->n);
}

/* The facts a plan is made of: the CPU's, and the GPU's when it may run the product (`with_gpu`:
 * not where "cpu" was asked, nor where "auto"'s rule already ruled the GPU out; its memory
 * budgets only where the product's `bytes` near them). */
static void gather_facts (const tilemm_options *options, int with_gpu, double bytes,
                          tilemm_call_facts *facts)
{
  facts->machine = NULL;
  tilemm_backend_facts (TILEMM_BACKEND_CPU, 0, &facts->cpu);
  tilemm_host_facts_gather (&facts->host);
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
/* Whether the host's own `*` computes the call's precision: the native one only (`*` is not
 * emulated, nor any other entry of the precision table), so only it is ever delegated. */
static int host_computes (const tilemm_decision *decision)
{
  return decision->precision == tilemm_precision_entry_of (TILEMM_PRECISION_NATIVE);
}

static int chooses_auto (const tilemm_options *options)
{
  return options->backend != TILEMM_CHOOSE_CPU && options->backend != TILEMM_CHOOSE_GPU;
}

/* "auto": the way the cost model finds fastest for this product, from the machine's facts
 * (device_model.h: the host's own product, tilemm's CPU backend, the GPUs the facts know of),
 * weighed before any fact about the devices is gathered, so that a product the GPU would not win
 * pays no probe and no lock.  A native product whose best way is the host's is delegated to `*`
 * (mtimes, the next BLAS) at once.  Emulated precision is never delegated (`*` is not emulated):
 * where the GPU does not win it runs on the CPU.  Returns 1 where the decision is made. */
static int auto_weighs (const tilemm_options *options, tilemm_decision *decision, int64_t m,
                        int64_t n, int rank_k)
{
  const tilemm_route *r = &decision->route;
  const tilemm_machine_facts *f = decision->facts;
  decision->auto_weighed = 1;
  tilemm_plan_auto_way (f, r->compute_type, m, n, r->k, rank_k, f->gpus, &decision->way_costs);
  (void) options;
  if (decision->way_costs.best == TILEMM_WAY_HOST && host_computes (decision))
    {
      decision->action = TILEMM_DO_DELEGATE;
      return 1;
    }
  return 0;
}

/* The way "auto" takes once the GPU's facts are in: the GPU where the model chose it and it is
 * usable; else the best of the others (the host's product where it is best, or the CPU). */
static tilemm_way auto_way_after_facts (const tilemm_decision *decision, int gpu_usable)
{
  const tilemm_way_costs *c = &decision->way_costs;
  if (c->best != TILEMM_WAY_GPU || gpu_usable)
    return c->best;
  return c->seconds[TILEMM_WAY_CPU] < c->seconds[TILEMM_WAY_HOST] / 1.05 ? TILEMM_WAY_CPU
                                                                        : TILEMM_WAY_HOST;
}

tilemm_status tilemm_decide_op_first (const tilemm_operand *a, tilemm_op op_a,
                                      const tilemm_operand *b, tilemm_op op_b,
                                      const tilemm_options *options, tilemm_decision *decision,
                                      tilemm_decide_first *first, tilemm_error *err)
{
  /* The precision is read (and checked) at every call, whatever the route. */
  decision->auto_weighed = 0;
  decision->precision_weighed = 0;
  decision->facts = NULL;
  first->rank_k = 0;
  tilemm_status status = tilemm_precision_in_effect (options, &first->precision, err);
  if (status == TILEMM_OK)
    status = decide_route (a, op_a, b, op_b, options, first->precision, decision, err);
  if (status != TILEMM_OK || decision->action != TILEMM_DO_COMPUTE)
    return status;
  /* A product of one object with one side transposed is the host's rank-k update (syrk, herk):
   * decided as one (tilemm_plan_auto_way's rank_k); a host that reads one triangle only (the
   * BLAS library) gets no mirror. */
  first->rank_k = decision->route.mirror != TILEMM_MIRROR_NONE;
  if (options->one_triangle)
    decision->route.mirror = TILEMM_MIRROR_NONE;
  return TILEMM_OK;
}

tilemm_status tilemm_decide_op_with (const tilemm_options *options,
                                     const tilemm_decide_first *first,
                                     const tilemm_machine_facts *machine,
                                     tilemm_decision *decision, tilemm_error *err)
{
  const tilemm_precision precision = first->precision;
  const int rank_k = first->rank_k;
  const tilemm_op op_a = decision->op_a, op_b = decision->op_b;
  const tilemm_route *r = &decision->route;
  const double m = (double) (r->a_as_pairs || r->a_split ? 2 * r->m : r->m);
  const double n = (double) (r->b_split ? 2 * r->n : r->n), k = (double) r->k;
  decision->facts = machine;
  if (precision == TILEMM_PRECISION_AUTO && !options->precision_entry)
    choose_precision (options, decision, (int64_t) m, (int64_t) n, rank_k);
  if (chooses_auto (options)
      && auto_weighs (options, decision, (int64_t) m, (int64_t) n, rank_k))
    return TILEMM_OK;
  /* An emulated product "auto" took was priced on the GPU: it goes there where it is usable. */
  const int gpu_may_run = !chooses_auto (options) || decision->way_costs.best == TILEMM_WAY_GPU
                          || auto_took_emulated (decision);
  const double es = (double) tilemm_type_size (r->compute_type);
  tilemm_call_facts facts;
  gather_facts (options, gpu_may_run, es * (m * k + k * n + m * n), &facts);
  facts.machine = decision->facts;
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
      if (auto_took_emulated (decision))
        {
          if (facts.gpu.usable)
            {
              decision->backend = TILEMM_BACKEND_CUDA;
              break;
            }
          /* priced on a GPU that is not usable now: the native product, its way as weighed */
          decision->precision_choice.emulated = 0;
          snprintf (decision->precision_choice.why, sizeof decision->precision_choice.why,
                    "native: the emulated product was priced on a GPU, and none is usable (%.80s)",
                    facts.gpu.why);
          (void) precision_of_call (options, TILEMM_PRECISION_NATIVE, r->compute_type, decision,
                                    NULL);
        }
      switch (auto_way_after_facts (decision, facts.gpu.usable))
        {
        case TILEMM_WAY_GPU:
          decision->backend = TILEMM_BACKEND_CUDA;
          break;
        case TILEMM_WAY_HOST:
          /* A product of another precision runs on the CPU (an emulated one bitwise the same as
           * on the GPU). */
          if (host_computes (decision))
            {
              decision->action = TILEMM_DO_DELEGATE;
              return TILEMM_OK;
            }
          break;
        case TILEMM_WAY_CPU:
        default:
          break;
        }
      break;
    }
  return tilemm_call_plan_make (&decision->plan, r, decision->backend, op_a, op_b,
                                decision->emulated, &decision->emu, options, &settings, &facts,
                                err);
}

tilemm_status tilemm_decide_batch_first (const tilemm_operand *x, int x_ndims,
                                         const int64_t *x_dims, tilemm_op op_a,
                                         const tilemm_operand *y, int y_ndims,
                                         const int64_t *y_dims, tilemm_op op_b,
                                         const tilemm_options *options, tilemm_batch *batch,
                                         tilemm_decide_first *first, tilemm_error *err)
{
  first->rank_k = 0;
  batch->action = TILEMM_BATCH_COMPUTE;
  tilemm_status status = tilemm_batch_shape_make (x_ndims, x_dims, op_a, y_ndims, y_dims, op_b,
                                                  &batch->shape, err);
  if (status != TILEMM_OK)
    return status;
  const tilemm_batch_shape *s = &batch->shape;
  /* The precision is read and checked at every call, whatever the shape (as tilemm does);
   * once: decide_route takes it for the page. */
  if ((status = tilemm_precision_in_effect (options, &first->precision, err)) != TILEMM_OK)
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
  /* What describe reads of the page's decision, fresh for every batch (a batch weighs no
   * precision of its own: the page's route takes the one in effect). */
  d->auto_weighed = 0;
  d->precision_weighed = 0;
  d->facts = NULL;
  batch->ways_weighed = 0;
  if ((status = decide_route (&a, op_a, &b, op_b, options, first->precision, d, err))
      != TILEMM_OK)
    return status;
  if (d->action != TILEMM_DO_COMPUTE)
    {
      batch->action = TILEMM_BATCH_BEYOND;
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

tilemm_status tilemm_decide_batch_with (const tilemm_options *options,
                                        const tilemm_machine_facts *machine, tilemm_batch *batch,
                                        tilemm_error *err)
{
  tilemm_status status;
  const tilemm_batch_shape *s = &batch->shape;
  tilemm_decision *d = &batch->decision;
  const tilemm_op op_a = d->op_a, op_b = d->op_b;
  const tilemm_route *r = &d->route;
  /* "auto"'s rule for the batch, from its route and page count alone, before the devices are
   * asked: a batch the GPU would not pay for even where it is usable runs on the CPU without
   * the GPU's probe and lock (a few small pages must not pay for them: they cost more than the
   * pages). */
  d->facts = machine;
  const int gpu_may_pay
    = !chooses_auto (options) || (machine->gpus > 0 && tilemm_batch_gpu_pays (r, s->z_pages, 0, machine));
  tilemm_call_facts facts;
  gather_facts (options, gpu_may_pay, (double) s->z_pages * tilemm_batch_page_bytes (r), &facts);
  facts.machine = machine;
  if (options->backend == TILEMM_CHOOSE_GPU && !facts.gpu.usable)
    return tilemm_error_set (err, TILEMM_ENOGPU, "%s", facts.gpu.why);
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  /* An emulated batch runs its pages alone (each an emulated product of its own plan, there is
   * no emulated batched kernel): the batch plan says so in per_page. */
  status = tilemm_batch_plan_make (r, s, facts.host.threads, facts.host.cpu_isa,
                                   options->backend,
                                   facts.gpu.usable,
                                   options->max_device_bytes,
                                   facts.gpu.usable ? tilemm_facts_budget (&facts.gpu,
                                                                           facts.gpu.current)
                                                    : 0,
                                   d->emulated ? 1 : settings.pages_alone, machine,
                                   &batch->plan, err);
  if (status != TILEMM_OK)
    return status;
  batch->plan.fault = settings.fault;
  tilemm_plan_staging (&settings, &batch->plan.staging);
  if (chooses_auto (options) && !d->emulated)
    {
      batch->ways_weighed = 1;
      tilemm_batch_ways (r, s->z_pages, facts.host.threads, facts.gpu.usable, machine,
                         batch->way_s);
    }
  /* "auto" in native precision: the host's own `*` page by page where the model finds the loop
   * of it faster than both of ours (as a plain product too small for the GPU goes to `*`);
   * never for emulated pages (`*` is native). */
  if (chooses_auto (options) && !d->emulated
      && tilemm_batch_host_pays (r, s->z_pages, facts.host.threads, facts.gpu.usable, machine))
    {
      batch->action = TILEMM_BATCH_HOST;
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  d->backend = batch->plan.backend;
  /* The GPUs of a native batch: the call's devices, as many as the batch gains from. */
  if (d->backend == TILEMM_BACKEND_CUDA && !d->emulated)
    {
      tilemm_workers available;
      int named = 0;
      if ((status = tilemm_devices_of_call (options, &settings, &facts.gpu, &available, &named, err))
          != TILEMM_OK)
        return status;
      if (available.count < 1)
        {
          available.count = 1;
          available.device[0] = facts.gpu.current >= 0 ? facts.gpu.current : 0;
        }
      tilemm_batch_plan_devices (&batch->plan, r, s->z_pages, &available, named, &facts.host,
                                 &facts.gpu, machine);
    }
  /* Pages one by one: each page's call plan, as a plain call of its shape on that backend gets
   * it (the same facts, limit and devices). */
  if (batch->plan.per_page)
    return tilemm_call_plan_make (&d->plan, r, d->backend, op_a, op_b, d->emulated, &d->emu,
                                  options, &settings, &facts, err);
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

/* The facts a decision read and, for "auto", what each way cost in the model: a line each. */
static size_t describe_facts (const tilemm_decision *decision, char *buf, size_t size)
{
  size_t used = 0;
  const tilemm_machine_facts *f = decision->facts;
  if (f && size > 0)
    used += (size_t) snprintf (buf, size, "facts: %s (%s)\n", tilemm_facts_origin_name (f->origin),
                               f->where);
  if (decision->precision_weighed && used < size)
    used += (size_t) snprintf (buf + used, size - used, "precision auto: %s\n",
                               decision->precision_choice.why);
  if (decision->auto_weighed && used < size)
    {
      const tilemm_way_costs *c = &decision->way_costs;
      used += (size_t) snprintf (buf + used, size - used, "auto: host %.4g ms, cpu %.4g ms, "
                                 "gpu %.4g ms: %s\n",
                                 1e3 * c->seconds[TILEMM_WAY_HOST], 1e3 * c->seconds[TILEMM_WAY_CPU],
                                 1e3 * c->seconds[TILEMM_WAY_GPU], tilemm_way_name (c->best));
    }
  return used < size ? used : size;
}

void tilemm_decision_describe (const tilemm_decision *decision, char *buf, size_t size)
{
  if (size > 0)
    buf[0] = '\0';
  const size_t used = describe_facts (decision, buf, size);
  if (decision->action == TILEMM_DO_COMPUTE)
    tilemm_call_plan_describe (&decision->plan, decision->backend, decision->emulated,
                               &decision->emu, buf + used, size - used);
  else if (size > used)
    snprintf (buf + used, size - used, "action: %s\n",
              decision->action == TILEMM_DO_DELEGATE ? "delegate to mtimes" : "fill");
}

void tilemm_batch_describe (const tilemm_batch *batch, char *buf, size_t size)
{
  static const char *const actions[] = { "compute", "fill (zeros)", "scalar pages (the host)",
                                         "beyond the product", "the host's * page by page" };
  if (size == 0)
    return;
  buf[0] = '\0';
  size_t used = describe_facts (&batch->decision, buf, size);
  const tilemm_batch_shape *s = &batch->shape;
  if (used < size)
    used += (size_t) snprintf (buf + used, size - used, "pages: %lld of %lld x %lld x %lld\n",
                               (long long) s->z_pages, (long long) s->m, (long long) s->n,
                               (long long) s->k);
  if (batch->ways_weighed && used < size)
    used += (size_t) snprintf (buf + used, size - used,
                               "auto: host loop %.4g ms, cpu batch %.4g ms, gpu batch %.4g ms\n",
                               1e3 * batch->way_s[TILEMM_WAY_HOST],
                               1e3 * batch->way_s[TILEMM_WAY_CPU],
                               1e3 * batch->way_s[TILEMM_WAY_GPU]);
  if (used < size)
    used += (size_t) snprintf (buf + used, size - used, "action: %s\n",
                               (int) batch->action >= 0 && (int) batch->action < 5
                                 ? actions[batch->action] : "?");
  if (batch->action != TILEMM_BATCH_COMPUTE || used >= size)
    return;
  const tilemm_batch_plan *p = &batch->plan;
  used += (size_t) snprintf (buf + used, size - used,
                             "backend: %s\nper_page: %d\npages_per_panel: %lld\n"
                             "parallel_pages: %d\nthreads: %d\ncopy_threads: %d\n"
                             "pages_per_poll: %lld\n",
                             tilemm_backend_name (p->backend), p->per_page,
                             (long long) p->pages_per_panel, p->parallel_pages, p->threads,
                             p->copy_threads, (long long) p->pages_per_poll);
  if (p->backend == TILEMM_BACKEND_CUDA && !p->per_page && used < size)
    used += (size_t) snprintf (buf + used, size - used, "gpu_kernel: %s\n",
                               p->gpu_kernel == TILEMM_BATCHED_SMALL ? "small pages (a thread an element)"
                                                                     : "tiled (a block a 32x32 tile)");
  if (p->per_page && used < size)
    {
      used += (size_t) snprintf (buf + used, size - used, "each page:\n");
      if (used < size)
        tilemm_call_plan_describe (&batch->decision.plan, batch->decision.backend,
                                   batch->decision.emulated, &batch->decision.emu, buf + used,
                                   size - used);
    }
}
