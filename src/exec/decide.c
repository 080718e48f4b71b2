/* decide.c — what a call does, decided once (see front.h: tilemm_decide_op): the route of its
 * operands, the precision in effect, the backend (the GPU only where it pays), or `*` itself;
 * then the plan of the product (call_plan.c), made from the facts about the devices that this
 * file gathers from the backends' tables before it, so that the plan reads no device itself.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "front.h"

/* The precision of a call and, for emulated, its settings; TILEMM_EOPTION where "moduli" or
 * "accuracy" are given without emulated precision, or both together. */
static tilemm_status precision_of_call (const tilemm_options *options, tilemm_type type,
                                        int *emulated, tilemm_emu_options *emu, tilemm_error *err)
{
  tilemm_precision precision;
  const tilemm_status status = tilemm_precision_in_effect (options, &precision, err);
  if (status != TILEMM_OK)
    return status;
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

tilemm_status tilemm_decide_op (const tilemm_operand *a, tilemm_op op_a, const tilemm_operand *b,
                                tilemm_op op_b, const tilemm_options *options,
                                tilemm_decision *decision, tilemm_error *err)
{
  decision->route = tilemm_route_decide_op (a, op_a, b, op_b);
  decision->backend = TILEMM_BACKEND_CPU;
  decision->op_a = op_a;
  decision->op_b = op_b;
  decision->emulated = 0;
  tilemm_emu_default_options (&decision->emu, TILEMM_DOUBLE);
  /* The precision is read (and checked) at every call, whatever the route. */
  const tilemm_status precision_status
    = precision_of_call (options, decision->route.compute_type, &decision->emulated,
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
  /* A product of one object with one side transposed is the host's rank-k update (syrk, herk):
   * decided as one (tilemm_plan_rank_k_gpu_pays); a host that reads one triangle only (the BLAS
   * library) gets no mirror. */
  const int rank_k = decision->route.mirror != TILEMM_MIRROR_NONE;
  if (options->one_triangle)
    decision->route.mirror = TILEMM_MIRROR_NONE;
  /* The facts: the GPU's when it may run the product, its memory budgets only for a product
   * large enough to near them. */
  const tilemm_route *r = &decision->route;
  const double es = (double) tilemm_type_size (r->compute_type);
  const double m = (double) (r->a_as_pairs || r->a_split ? 2 * r->m : r->m);
  const double n = (double) (r->b_split ? 2 * r->n : r->n), k = (double) r->k;
  tilemm_call_facts facts;
  tilemm_backend_facts (TILEMM_BACKEND_CPU, 0, &facts.cpu);
  const int may_use_gpu = options->backend != TILEMM_CHOOSE_CPU;
  if (may_use_gpu)
    tilemm_backend_facts (TILEMM_BACKEND_CUDA,
                          tilemm_call_plan_needs_budget (es * (m * k + k * n + m * n)),
                          &facts.gpu);
  else
    {
      memset (&facts.gpu, 0, sizeof facts.gpu);
      facts.gpu.current = -1;
    }
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
      /* The GPU only where it beats `*` (tilemm_plan_gpu_pays, or for a rank-k update
       * tilemm_plan_rank_k_gpu_pays: the device model).  Emulated
       * precision is never delegated (`*` is not emulated): the CPU where the GPU does not pay
       * or is not usable; the answer is bitwise the same on both. */
      if ((rank_k ? tilemm_plan_rank_k_gpu_pays (r->compute_type, (int64_t) n, r->k)
                  : tilemm_plan_gpu_pays (r->compute_type, (int64_t) m, (int64_t) n, r->k))
          && facts.gpu.usable)
        decision->backend = TILEMM_BACKEND_CUDA;
      else if (!decision->emulated)
        {
          decision->action = TILEMM_DO_DELEGATE;
          return TILEMM_OK;
        }
      break;
    }
  return tilemm_call_plan_make (&decision->plan, r, decision->backend, op_a, op_b,
                                decision->emulated, &decision->emu, options, &facts, err);
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
