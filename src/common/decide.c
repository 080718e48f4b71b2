/* decide.c — what a call does, decided once (see front.h: tilemm_decide_op): the route of its
 * operands, the precision in effect, the backend (the GPU only where it pays), or `*` itself.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
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
  tilemm_error probe_err = { TILEMM_OK, "" };
  switch (options->backend)
    {
    case TILEMM_CHOOSE_CPU:
      return TILEMM_OK;
    case TILEMM_CHOOSE_GPU:
      if (tilemm_cuda_probe (&probe_err) != TILEMM_OK)
        return tilemm_error_set (err, TILEMM_ENOGPU, "%s", probe_err.detail);
      decision->backend = TILEMM_BACKEND_CUDA;
      return TILEMM_OK;
    case TILEMM_CHOOSE_AUTO:
    default:
      /* The GPU only where it beats `*` (tilemm_plan_gpu_pays, measured on the device). */
      /* Emulated precision is never delegated (`*` is not emulated): the CPU where the GPU
       * does not pay or is not usable; the answer is bitwise the same on both. */
      if (tilemm_plan_gpu_pays (decision->route.compute_type,
                                decision->route.a_as_pairs || decision->route.a_split
                                  ? 2 * decision->route.m
                                  : decision->route.m,
                                decision->route.b_split ? 2 * decision->route.n
                                                        : decision->route.n,
                                decision->route.k)
          && tilemm_cuda_probe (&probe_err) == TILEMM_OK)
        decision->backend = TILEMM_BACKEND_CUDA;
      else if (!decision->emulated)
        decision->action = TILEMM_DO_DELEGATE;
      return TILEMM_OK;
    }
}

