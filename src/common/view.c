/* view.c — column-major strided views, sub-views and their row-major reading.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdint.h>

#include "tilemm.h"

static const struct {
  size_t size;
  int is_complex;
  const char *name;
} type_table[TILEMM_NTYPES] = {
  [TILEMM_SINGLE] = { sizeof (float), 0, "single" },
  [TILEMM_DOUBLE] = { sizeof (double), 0, "double" },
  [TILEMM_COMPLEX_SINGLE] = { 2 * sizeof (float), 1, "complex single" },
  [TILEMM_COMPLEX_DOUBLE] = { 2 * sizeof (double), 1, "complex double" },
};

static int type_valid (tilemm_type type)
{
  return (int) type >= 0 && type < TILEMM_NTYPES;
}

size_t tilemm_type_size (tilemm_type type)
{
  return type_valid (type) ? type_table[type].size : 0;
}

int tilemm_type_is_complex (tilemm_type type)
{
  return type_valid (type) ? type_table[type].is_complex : 0;
}

const char *tilemm_type_name (tilemm_type type)
{
  return type_valid (type) ? type_table[type].name : "unknown";
}

tilemm_status tilemm_view_check (const tilemm_view *view)
{
  if (!view || !type_valid (view->type))
    return TILEMM_EINVAL;
  if (view->rows < 0 || view->cols < 0)
    return TILEMM_EINVAL;
  if (view->stride < (view->rows > 1 ? view->rows : 1))
    return TILEMM_EINVAL;
  if (view->rows == 0 || view->cols == 0)
    return TILEMM_OK;
  if (!view->data)
    return TILEMM_EINVAL;
  /* The last element sits at (rows-1) + (cols-1)*stride; its byte offset must fit. */
  const uint64_t limit = (uint64_t) PTRDIFF_MAX / tilemm_type_size (view->type);
  if ((uint64_t) view->rows > limit
      || (uint64_t) (view->cols - 1) > (limit - (uint64_t) view->rows) / (uint64_t) view->stride)
    return TILEMM_EOVERFLOW;
  return TILEMM_OK;
}

tilemm_status tilemm_view_init (tilemm_view *view, tilemm_type type, int64_t rows, int64_t cols,
                                int64_t stride, void *data)
{
  if (!view)
    return TILEMM_EINVAL;
  tilemm_view candidate = { rows, cols, stride, type, data };
  tilemm_status status = tilemm_view_check (&candidate);
  if (status == TILEMM_OK)
    *view = candidate;
  return status;
}

static int64_t clamp (int64_t value, int64_t lo, int64_t hi)
{
  return value < lo ? lo : value > hi ? hi : value;
}

tilemm_view tilemm_view_sub (const tilemm_view *view, int64_t row, int64_t col, int64_t rows,
                             int64_t cols)
{
  tilemm_view sub = *view;
  row = clamp (row, 0, view->rows);
  col = clamp (col, 0, view->cols);
  sub.rows = clamp (rows, 0, view->rows - row);
  sub.cols = clamp (cols, 0, view->cols - col);
  if (view->data)
    sub.data = (char *) view->data
               + (size_t) (row + col * view->stride) * tilemm_type_size (view->type);
  return sub;
}

tilemm_matrix tilemm_row_major_reading (const tilemm_view *view)
{
  tilemm_matrix matrix = { view->cols, view->rows, view->stride, view->data };
  return matrix;
}

/* ---------------------------------------------------------------- the library, ops, operands */

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

/* The CPU backend runs on tilemm's own pool of threads (host_pool.h), not on OpenMP: 0, kept for
 * the callers that ask (tilemm_info's `openmp`). */
int tilemm_openmp_built (void)
{
  return 0;
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

