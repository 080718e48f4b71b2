/* front.c — the rules of a tilemm call that every front end shares (see front.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "backend.h"
#include "front.h"

const char tilemm_usage[] = "usage: C = tilemm (A, B), tilemm (A, tA, B, tB) or "
                            "tilemm (..., \"backend\", NAME, ...)";
const char tilemm_badtranspose_id[] = "tilemm:badtranspose";

void tilemm_options_init (tilemm_options *options)
{
  options->backend = TILEMM_CHOOSE_AUTO;
  options->max_device_bytes = 0;
}

static int same_ignoring_case (const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (tolower ((unsigned char) *a) != tolower ((unsigned char) *b))
      return 0;
  return *a == *b;
}

int tilemm_op_from_name (const char *text, tilemm_op *op)
{
  static const struct {
    const char *name;
    tilemm_op op;
  } names[] = { { "none", TILEMM_OP_NONE }, { "transpose", TILEMM_OP_TRANSPOSE },
                { "ctranspose", TILEMM_OP_CTRANSPOSE } };
  if (text)
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (same_ignoring_case (text, names[i].name))
        {
          *op = names[i].op;
          return 1;
        }
  return 0;
}

int tilemm_is_op_form (int nargin, const char *second, const char *fourth)
{
  tilemm_op op;
  return nargin >= 4 && (tilemm_op_from_name (second, &op) || tilemm_op_from_name (fourth, &op));
}

tilemm_status tilemm_ops_parse (const char *ta, const char *tb, tilemm_op *op_a, tilemm_op *op_b,
                                tilemm_error *err)
{
  if (!tilemm_op_from_name (ta, op_a))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "tA (the second argument) must be \"none\", \"transpose\" or "
                             "\"ctranspose\"; %s", tilemm_usage);
  if (!tilemm_op_from_name (tb, op_b))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "tB (the fourth argument) must be \"none\", \"transpose\" or "
                             "\"ctranspose\"; %s", tilemm_usage);
  return TILEMM_OK;
}

static tilemm_status set_backend (tilemm_options *options, const tilemm_value *value,
                                  tilemm_error *err)
{
  static const struct {
    const char *name;
    tilemm_backend_choice choice;
  } names[] = { { "auto", TILEMM_CHOOSE_AUTO }, { "cpu", TILEMM_CHOOSE_CPU },
                { "gpu", TILEMM_CHOOSE_GPU } };
  if (value->kind == TILEMM_VALUE_STRING)
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (same_ignoring_case (value->string, names[i].name))
        {
          options->backend = names[i].choice;
          return TILEMM_OK;
        }
  return tilemm_error_set (err, TILEMM_EOPTION,
                           "option \"backend\" must be \"auto\", \"cpu\" or \"gpu\"");
}

static tilemm_status set_byte_count (size_t *bytes, const char *name, const tilemm_value *value,
                                     tilemm_error *err)
{
  const double x = value->number;
  if (value->kind != TILEMM_VALUE_REAL_SCALAR || !(x >= 0) || x > 9.0e18 || x != floor (x))
    return tilemm_error_set (err, TILEMM_EOPTION,
                             "option \"%s\" must be a whole number of bytes >= 0 (0: no limit)",
                             name);
  *bytes = (size_t) x;
  return TILEMM_OK;
}

tilemm_status tilemm_options_set (tilemm_options *options, const char *name,
                                  const tilemm_value *value, tilemm_error *err)
{
  if (same_ignoring_case (name, "backend"))
    return set_backend (options, value, err);
  if (same_ignoring_case (name, "max_device_bytes"))
    return set_byte_count (&options->max_device_bytes, "max_device_bytes", value, err);
  return tilemm_error_set (err, TILEMM_EOPTION,
                           "unknown option \"%s\"; known options: \"backend\", "
                           "\"max_device_bytes\"",
                           name);
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
      if (tilemm_plan_gpu_pays (decision->route.compute_type,
                                decision->route.a_as_pairs ? 2 * decision->route.m
                                                           : decision->route.m,
                                decision->route.n, decision->route.k)
          && tilemm_cuda_probe (&probe_err) == TILEMM_OK)
        decision->backend = TILEMM_BACKEND_CUDA;
      else
        decision->action = TILEMM_DO_DELEGATE;
      return TILEMM_OK;
    }
}

tilemm_status tilemm_run (const tilemm_decision *decision, const tilemm_options *options,
                          const void *a, const void *b, void *c, tilemm_error *err)
{
  const tilemm_route *r = &decision->route;
  const tilemm_type type = r->compute_type;
  /* Complex A times real B: A's (re, im) pairs read as a real (2m)×k matrix, C's as (2m)×n. */
  const int64_t m = r->a_as_pairs ? 2 * r->m : r->m;
  tilemm_view va, vb, vc;
  tilemm_limits limits = { options->max_device_bytes };
  /* A product larger than the GPU's free memory (or a larger limit than it has) is cut into
   * panels that fit what it has. */
  if (decision->backend == TILEMM_BACKEND_CUDA)
    {
      const double es = (double) tilemm_type_size (type);
      const double whole = es * ((double) m * r->k + (double) r->k * r->n + (double) m * r->n);
      if (whole > (double) (64u << 20))
        {
          const size_t budget = tilemm_cuda_memory_budget ();
          if (budget > 0 && whole > (double) budget
              && (limits.max_device_bytes == 0 || limits.max_device_bytes > budget))
            limits.max_device_bytes = budget;
        }
    }
  tilemm_plan plan;
  tilemm_status status;
  /* A transposed operand is passed as stored: A k×m, B n×k (the route never reads a transposed
   * A as pairs). */
  const int ta = decision->op_a != TILEMM_OP_NONE, tb = decision->op_b != TILEMM_OP_NONE;
  if ((status = tilemm_view_init (&va, type, ta ? r->k : m, ta ? m : r->k, ta ? r->k : m,
                                  (void *) a))
        != TILEMM_OK
      || (status = tilemm_view_init (&vb, type, tb ? r->n : r->k, tb ? r->k : r->n,
                                     tb ? r->n : r->k, (void *) b))
           != TILEMM_OK
      || (status = tilemm_view_init (&vc, type, m, r->n, m, c)) != TILEMM_OK
      || (status = tilemm_plan_make (&plan, decision->backend, type, m, r->n, r->k, &limits))
           != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  return tilemm_multiply_op (&plan, decision->op_a, &va, decision->op_b, &vb, &vc, err);
}

int tilemm_imag_all_zero (tilemm_type complex_type, const void *data, size_t count)
{
  if (complex_type == TILEMM_COMPLEX_SINGLE)
    {
      const float *x = (const float *) data;
      for (size_t i = 0; i < count; i++)
        if (x[2 * i + 1] != 0.0f)
          return 0;
    }
  else
    {
      const double *x = (const double *) data;
      for (size_t i = 0; i < count; i++)
        if (x[2 * i + 1] != 0.0)
          return 0;
    }
  return 1;
}

void tilemm_copy_real_parts (tilemm_type complex_type, const void *data, size_t count, void *real)
{
  if (complex_type == TILEMM_COMPLEX_SINGLE)
    {
      const float *x = (const float *) data;
      float *y = (float *) real;
      for (size_t i = 0; i < count; i++)
        y[i] = x[2 * i];
    }
  else
    {
      const double *x = (const double *) data;
      double *y = (double *) real;
      for (size_t i = 0; i < count; i++)
        y[i] = x[2 * i];
    }
}

/* What a user can do about each failure, appended to the message. */
const char *tilemm_advice (tilemm_status status)
{
  switch (status)
    {
    case TILEMM_ENOGPU:
      return "Use the \"cpu\" or \"auto\" backend, or check the driver with nvidia-smi.";
    case TILEMM_EDEVMEM:
      return "Free GPU memory, or set \"max_device_bytes\" so tilemm works in smaller panels.";
    case TILEMM_ENOMEM:
      return "Free memory, or multiply smaller pieces.";
    case TILEMM_ECUDA:
      return "tilemm released its GPU buffers; the next call starts afresh.";
    case TILEMM_EOVERFLOW:
      return "Multiply smaller pieces.";
    default:
      return "";
    }
}
