/* core.c — the one entry point: check the operands, then run the plan's backend.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "backend.h"
#include "tilemm.h"

#ifndef TILEMM_VERSION
#error "TILEMM_VERSION must be defined by the build (-DTILEMM_VERSION=x.y.z, read from DESCRIPTION)"
#endif

/* Given bare (-DTILEMM_VERSION=0.1.0) so no layer of quoting between make, mkoctfile and nvcc
 * can eat it; stringised here. */
#define TILEMM_STRINGISE_(x) #x
#define TILEMM_STRINGISE(x) TILEMM_STRINGISE_ (x)

const char *tilemm_version (void)
{
  return TILEMM_STRINGISE (TILEMM_VERSION);
}

int tilemm_openmp_built (void)
{
#ifdef _OPENMP
  return 1;
#else
  return 0;
#endif
}

int64_t tilemm_op_rows (tilemm_op op, const tilemm_view *view)
{
  return op == TILEMM_OP_NONE ? view->rows : view->cols;
}

int64_t tilemm_op_cols (tilemm_op op, const tilemm_view *view)
{
  return op == TILEMM_OP_NONE ? view->cols : view->rows;
}

tilemm_view tilemm_view_op_sub (tilemm_op op, const tilemm_view *view, int64_t row, int64_t col,
                                int64_t rows, int64_t cols)
{
  return op == TILEMM_OP_NONE ? tilemm_view_sub (view, row, col, rows, cols)
                              : tilemm_view_sub (view, col, row, cols, rows);
}

tilemm_status tilemm_check_operands (const tilemm_plan *plan, const tilemm_view *a,
                                     const tilemm_view *b, const tilemm_view *c)
{
  return tilemm_check_operands_op (plan, TILEMM_OP_NONE, a, TILEMM_OP_NONE, b, c);
}

tilemm_status tilemm_check_operands_op (const tilemm_plan *plan, tilemm_op op_a,
                                        const tilemm_view *a, tilemm_op op_b,
                                        const tilemm_view *b, const tilemm_view *c)
{
  if (!plan || !a || !b || !c)
    return TILEMM_EINVAL;
  tilemm_status status;
  if ((status = tilemm_view_check (a)) != TILEMM_OK || (status = tilemm_view_check (b)) != TILEMM_OK
      || (status = tilemm_view_check (c)) != TILEMM_OK)
    return status;
  if (plan->m > 0 && plan->n > 0 && (plan->panel_rows < 1 || plan->panel_cols < 1))
    return TILEMM_EINVAL; /* a plan whose panels cover nothing would leave C unwritten */
  if (a->type != plan->type || b->type != plan->type || c->type != plan->type)
    return TILEMM_ETYPE;
  if ((int) op_a < 0 || op_a >= TILEMM_NOPS || (int) op_b < 0 || op_b >= TILEMM_NOPS)
    return TILEMM_EINVAL;
  if (tilemm_op_rows (op_a, a) != plan->m || tilemm_op_cols (op_a, a) != plan->k
      || tilemm_op_rows (op_b, b) != plan->k || tilemm_op_cols (op_b, b) != plan->n
      || c->rows != plan->m || c->cols != plan->n)
    return TILEMM_ESHAPE;
  return TILEMM_OK;
}

size_t tilemm_device_limit (tilemm_backend backend, double whole_bytes, size_t asked)
{
  if (backend != TILEMM_BACKEND_CUDA || whole_bytes <= (double) (64u << 20))
    return asked;
  const size_t budget = tilemm_cuda_memory_budget ();
  if (budget > 0 && whole_bytes > (double) budget && (asked == 0 || asked > budget))
    return budget;
  return asked;
}

tilemm_backend tilemm_gpu_if_it_pays (tilemm_type type, int64_t m, int64_t n, int64_t k)
{
  return tilemm_plan_gpu_pays (type, m, n, k) && tilemm_cuda_probe (NULL) == TILEMM_OK
           ? TILEMM_BACKEND_CUDA
           : TILEMM_BACKEND_CPU;
}

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
  switch (plan->backend)
    {
    case TILEMM_BACKEND_CPU:
      return tilemm_cpu_multiply_op (plan, op_a, a, op_b, b, c, stop, err);
    case TILEMM_BACKEND_CUDA:
      /* The plain product streams through the pipeline (stop polled between steps); a
       * transposed one goes through the device transpose in one piece (src/cuda/transposed_product.cu,
       * op_panel), which has no point to stop at. */
      if (op_a == TILEMM_OP_NONE && op_b == TILEMM_OP_NONE)
        return tilemm_cuda_multiply (plan, a, b, c, stop, err);
      return tilemm_cuda_multiply_op (plan, op_a, a, op_b, b, c, err);
    default:
      return tilemm_error_set (err, TILEMM_EBACKEND, "unknown backend %d", (int) plan->backend);
    }
}
