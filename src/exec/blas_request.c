/* blas_request.c — a BLAS call's own arithmetic around its product (front.h: tilemm_blas_request),
 * for the BLAS library (front/blas_product.c), which translates: C := alpha·P + beta·C over the
 * call's block or triangle in the element type's own arithmetic as the reference BLAS does, a
 * strided operand packed for tilemm_run, and the element loop of the last resort.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "host_pool.h"

static int is_zero (tilemm_scalar s)
{
  return s.re == 0 && s.im == 0;
}

/* The rows of column j that the call writes: all of them, or its triangle's. */
static void row_range (const tilemm_blas_request *call, int64_t j, int64_t *first, int64_t *end)
{
  *first = call->uplo == 'L' ? j : 0;
  *end = call->uplo == 'U' ? j + 1 : call->m;
}

/* ---------------------------------------------------------------- C := alpha·P + beta·C */

/* Over the call's block or triangle, in the element type's own arithmetic as the reference
 * does.  P == NULL means P is C itself (beta is 0 then).  beta = 0 never reads C.  Columns in
 * parallel for large C, on the host pool (the update is memory-bound, one thread cannot keep up
 * with the GPU), in the pieces and on the team the caller hands over: the call plan's
 * (update_columns, update_team), or the decision's where there is no product
 * (tilemm_decide_update). */
typedef struct update_job update_job;
struct update_job {
  const tilemm_blas_request *call;
  tilemm_scalar alpha, beta;
  const void *p;
  int64_t ldp;
  void (*columns) (const update_job *u, int64_t first, int64_t last);
};

#define DEFINE_UPDATE_REAL(NAME, T)                                                            \
  static void NAME (const update_job *u, int64_t j0, int64_t j1)                               \
  {                                                                                            \
    const tilemm_blas_request *call = u->call;                                                 \
    const T al = (T) u->alpha.re, be = (T) u->beta.re;                                         \
    const T *p = (const T *) u->p;                                                             \
    const int64_t ldp = u->ldp, ldc = call->ldc;                                               \
    T *c = call->c;                                                                            \
    for (int64_t j = j0; j < j1; j++)                                                          \
      {                                                                                        \
        int64_t first, end;                                                                    \
        row_range (call, j, &first, &end);                                                     \
        T *cj = c + j * ldc;                                                                   \
        const T *pj = p ? p + j * ldp : cj;                                                    \
        if (be == 0)                                                                           \
          for (int64_t i = first; i < end; i++)                                                \
            cj[i] = al * pj[i];                                                                \
        else                                                                                   \
          for (int64_t i = first; i < end; i++)                                                \
            cj[i] = al * pj[i] + be * cj[i];                                                   \
      }                                                                                        \
  }

/* Complex: alpha and beta complex (gemm, syrk), or real (herk: real times complex, no cross
 * terms, as Fortran multiplies a REAL by a COMPLEX); herk's diagonal takes the real parts only
 * and gets a zero imaginary part, as the reference leaves it. */
#define DEFINE_UPDATE_COMPLEX(NAME, T)                                                         \
  static void NAME (const update_job *u, int64_t j0, int64_t j1)                               \
  {                                                                                            \
    const tilemm_blas_request *call = u->call;                                                 \
    const T ar = (T) u->alpha.re, ai = (T) u->alpha.im;                                        \
    const T br = (T) u->beta.re, bi = (T) u->beta.im;                                          \
    const int beta_zero = br == 0 && bi == 0, herk = call->hermitian;                          \
    const T *p = (const T *) u->p;                                                             \
    const int64_t ldp = u->ldp, ldc = call->ldc;                                               \
    T *c = call->c;                                                                            \
    for (int64_t j = j0; j < j1; j++)                                                          \
      {                                                                                        \
        int64_t first, end;                                                                    \
        row_range (call, j, &first, &end);                                                     \
        T *cj = c + 2 * j * ldc;                                                               \
        const T *pj = p ? p + 2 * j * ldp : cj;                                                \
        for (int64_t i = first; i < end; i++)                                                  \
          {                                                                                    \
            const T pr = pj[2 * i], pi = pj[2 * i + 1];                                        \
            T re, im;                                                                          \
            if (herk)                                                                          \
              re = ar * pr, im = ar * pi;                                                      \
            else                                                                               \
              re = ar * pr - ai * pi, im = ar * pi + ai * pr;                                  \
            if (!beta_zero)                                                                    \
              {                                                                                \
                const T cr = cj[2 * i], ci = cj[2 * i + 1];                                    \
                if (herk)                                                                      \
                  re += br * cr, im += br * ci;                                                \
                else                                                                           \
                  re += br * cr - bi * ci, im += br * ci + bi * cr;                            \
              }                                                                                \
            cj[2 * i] = re;                                                                    \
            cj[2 * i + 1] = herk && i == j ? 0 : im;                                           \
          }                                                                                    \
      }                                                                                        \
  }

DEFINE_UPDATE_REAL (update_s, float)
DEFINE_UPDATE_REAL (update_d, double)
DEFINE_UPDATE_COMPLEX (update_c, float)
DEFINE_UPDATE_COMPLEX (update_z, double)

static void update_range (void *ctx, int64_t first, int64_t last)
{
  const update_job *u = (const update_job *) ctx;
  u->columns (u, first, last);
}

void tilemm_blas_update (const tilemm_blas_request *call, tilemm_scalar alpha, const void *p,
                         int64_t ldp, tilemm_scalar beta, int team, int64_t columns)
{
  update_job u = { call, alpha, beta, p, ldp, update_z };
  switch (call->type)
    {
    case TILEMM_SINGLE:
      u.columns = update_s;
      break;
    case TILEMM_DOUBLE:
      u.columns = update_d;
      break;
    case TILEMM_COMPLEX_SINGLE:
      u.columns = update_c;
      break;
    default:
      break;
    }
  tilemm_host_pool_run_ranges (team, call->n, columns, update_range, &u);
}

/* beta = 0 with no product: the call's block or triangle of C zeroed, never read. */
static void zero_columns (const update_job *u, int64_t j0, int64_t j1)
{
  const tilemm_blas_request *call = u->call;
  const size_t es = tilemm_type_size (call->type);
  for (int64_t j = j0; j < j1; j++)
    {
      int64_t first, end;
      row_range (call, j, &first, &end);
      memset ((char *) call->c + (size_t) (j * call->ldc + first) * es, 0,
              (size_t) (end - first) * es);
    }
}

void tilemm_blas_scale_c (const tilemm_blas_request *call, int team, int64_t columns)
{
  const tilemm_scalar zero = { 0, 0 };
  if (is_zero (call->beta))
    {
      /* On the team and in the pieces handed, as the update below (review r6). */
      const update_job u = { call, zero, zero, NULL, call->ldc, zero_columns };
      tilemm_host_pool_run_ranges (team, call->n, columns, update_range, (void *) &u);
      return;
    }
  /* beta·C is alpha·P with alpha = beta and P = C itself, and no beta term. */
  tilemm_blas_update (call, call->beta, NULL, call->ldc, zero, team, columns);
}

/* ---------------------------------------------------------------- the last resort */

static double complex load (tilemm_type type, const void *base, int64_t i, int64_t j, int64_t ld)
{
  const size_t at = (size_t) (i + j * ld);
  switch (type)
    {
    case TILEMM_SINGLE:
      return ((const float *) base)[at];
    case TILEMM_DOUBLE:
      return ((const double *) base)[at];
    case TILEMM_COMPLEX_SINGLE:
      return CMPLX (((const float *) base)[2 * at], ((const float *) base)[2 * at + 1]);
    default:
      return CMPLX (((const double *) base)[2 * at], ((const double *) base)[2 * at + 1]);
    }
}

static void store (tilemm_type type, void *base, int64_t i, int64_t j, int64_t ld,
                   double complex x)
{
  const size_t at = (size_t) (i + j * ld);
  switch (type)
    {
    case TILEMM_SINGLE:
      ((float *) base)[at] = (float) creal (x);
      break;
    case TILEMM_DOUBLE:
      ((double *) base)[at] = creal (x);
      break;
    case TILEMM_COMPLEX_SINGLE:
      ((float *) base)[2 * at] = (float) creal (x), ((float *) base)[2 * at + 1] = (float) cimag (x);
      break;
    default:
      ((double *) base)[2 * at] = creal (x), ((double *) base)[2 * at + 1] = cimag (x);
      break;
    }
}

/* Element (i, l) of op(X), X as stored. */
static double complex op_element (tilemm_type type, tilemm_op op, const void *x, int64_t i,
                                  int64_t l, int64_t ld)
{
  if (op == TILEMM_OP_NONE)
    return load (type, x, i, l, ld);
  const double complex v = load (type, x, l, i, ld);
  return op == TILEMM_OP_CTRANSPOSE ? conj (v) : v;
}

/* The whole call, element by element: where neither the next BLAS nor tilemm's backends could
 * run it (no memory), and for the tiny products of a one-element operand where there is no next
 * BLAS.  Needs no memory, so it cannot fail. */
void tilemm_blas_loop (const tilemm_blas_request *call)
{
  const tilemm_type t = call->type;
  const double complex alpha = CMPLX (call->alpha.re, call->alpha.im);
  const double complex beta = CMPLX (call->beta.re, call->beta.im);
  const int beta_zero = is_zero (call->beta);
  for (int64_t j = 0; j < call->n; j++)
    {
      int64_t first, end;
      row_range (call, j, &first, &end);
      for (int64_t i = first; i < end; i++)
        {
          double complex s = 0;
          for (int64_t l = 0; l < call->k; l++)
            s += op_element (t, call->op_a, call->a, i, l, call->lda)
                 * op_element (t, call->op_b, call->b, l, j, call->ldb);
          const double complex old = beta_zero ? 0 : load (t, call->c, i, j, call->ldc);
          double complex x;
          if (call->hermitian)
            x = CMPLX (call->alpha.re * creal (s) + (beta_zero ? 0 : call->beta.re * creal (old)),
                       i == j ? 0
                              : call->alpha.re * cimag (s)
                                  + (beta_zero ? 0 : call->beta.re * cimag (old)));
          else
            x = alpha * s + (beta_zero ? 0 : beta * old);
          store (t, call->c, i, j, call->ldc, x);
        }
    }
}

/* A stored operand as tilemm_run takes it: itself when contiguous, else a packed copy (*copy,
 * to free), its columns copied on the host pool in the pieces and on the team the plan names
 * (pack_columns, pack_team): a large submatrix's copy is memory-bound, as the update.  NULL when
 * the copy cannot be allocated. */
typedef struct {
  const char *from;
  char *to;
  size_t col_bytes, from_pitch;
} pack_job;

static void pack_range (void *ctx, int64_t first, int64_t last)
{
  const pack_job *p = (const pack_job *) ctx;
  for (int64_t j = first; j < last; j++)
    memcpy (p->to + (size_t) j * p->col_bytes, p->from + (size_t) j * p->from_pitch, p->col_bytes);
}

const void *tilemm_blas_contiguous (tilemm_type type, const void *x, int64_t rows, int64_t cols,
                                    int64_t ld, int team, int64_t columns, void **copy)
{
  *copy = NULL;
  if (ld == rows || cols <= 1)
    return x;
  const size_t es = tilemm_type_size (type);
  char *packed = malloc ((size_t) rows * (size_t) cols * es);
  if (!packed)
    return NULL;
  const pack_job p = { (const char *) x, packed, (size_t) rows * es, (size_t) ld * es };
  tilemm_host_pool_run_ranges (team, cols, columns, pack_range, (void *) &p);
  *copy = packed;
  return packed;
}
