/* prepare.c — a call's entry to its decision (front.h: tilemm_decide_op, tilemm_decide;
 * batch_run.h: tilemm_decide_batch): the decision's first step (decide.c: the precision, the
 * route), then the parts of the machine's facts its second step reads, named from the route
 * alone (tilemm_decide_op_parts) and made ready (machine.c: read from the store, or measured by
 * the first call that reads them, with its notice on stderr), then the second step on those
 * facts.  Calibration runs here, before deciding, never from inside it.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "decide.h"

unsigned tilemm_decide_op_parts (const tilemm_options *options, tilemm_precision precision,
                                 const tilemm_route *route)
{
  /* Below this (2048 cubed) a second GPU never pays: every GPU is measured only for a product
   * that may take several. */
  const double several_gpus_may_pay = 8.6e9;
  const double m = (double) (route->a_as_pairs || route->a_split ? 2 * route->m : route->m);
  const double n = (double) (route->b_split ? 2 * route->n : route->n), k = (double) route->k;
  /* "auto" precision weighs the emulated product's int8 GEMM on the GPU besides. */
  const unsigned gpu = TILEMM_FACTS_COPIES | TILEMM_FACTS_GPU
                       | (m * n * k >= several_gpus_may_pay ? TILEMM_FACTS_GPUS : 0u)
                       | (precision == TILEMM_PRECISION_AUTO ? TILEMM_FACTS_INT8 : 0u);
  switch (options->backend)
    {
    case TILEMM_CHOOSE_CPU:
      return 0;
    case TILEMM_CHOOSE_GPU:
      return gpu;
    case TILEMM_CHOOSE_AUTO:
    default:
      return gpu | TILEMM_FACTS_WAYS (route->compute_type);
    }
}

unsigned tilemm_decide_batch_parts (const tilemm_options *options)
{
  return options->backend == TILEMM_CHOOSE_CPU
           ? TILEMM_FACTS_PAGES
           : TILEMM_FACTS_PAGES | TILEMM_FACTS_COPIES | TILEMM_FACTS_GPU;
}

/* The call's options with the settings read at its start that the facts follow: the
 * calibration's (TILEMM_CALIBRATION and the store's folder, tilemm_settings.h), where the
 * options do not hold them already. */
static tilemm_options call_options (const tilemm_options *options)
{
  tilemm_options call = *options;
  tilemm_calibration_in_effect (options, &call.calibration);
  return call;
}

tilemm_status tilemm_decide_op (const tilemm_operand *a, tilemm_op op_a, const tilemm_operand *b,
                                tilemm_op op_b, const tilemm_options *options,
                                tilemm_decision *decision, tilemm_error *err)
{
  tilemm_decide_first first;
  const tilemm_status status
    = tilemm_decide_op_first (a, op_a, b, op_b, options, decision, &first, err);
  if (status != TILEMM_OK || decision->action != TILEMM_DO_COMPUTE)
    return status;
  const tilemm_options call = call_options (options);
  const tilemm_machine_facts *machine = tilemm_machine_facts_with (
    &call, tilemm_decide_op_parts (options, first.precision, &decision->route));
  return tilemm_decide_op_with (options, &first, machine, decision, err);
}

tilemm_status tilemm_decide (const tilemm_operand *a, const tilemm_operand *b,
                             const tilemm_options *options, tilemm_decision *decision,
                             tilemm_error *err)
{
  return tilemm_decide_op (a, TILEMM_OP_NONE, b, TILEMM_OP_NONE, options, decision, err);
}

tilemm_status tilemm_decide_batch (const tilemm_operand *x, int x_ndims, const int64_t *x_dims,
                                   tilemm_op op_a, const tilemm_operand *y, int y_ndims,
                                   const int64_t *y_dims, tilemm_op op_b,
                                   const tilemm_options *options, tilemm_batch *batch,
                                   tilemm_error *err)
{
  tilemm_decide_first first;
  const tilemm_status status = tilemm_decide_batch_first (x, x_ndims, x_dims, op_a, y, y_ndims,
                                                          y_dims, op_b, options, batch, &first,
                                                          err);
  if (status != TILEMM_OK || batch->action != TILEMM_BATCH_COMPUTE)
    return status;
  const tilemm_options call = call_options (options);
  const tilemm_machine_facts *machine
    = tilemm_machine_facts_with (&call, tilemm_decide_batch_parts (options));
  return tilemm_decide_batch_with (options, machine, batch, err);
}
