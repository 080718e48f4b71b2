/* blas_product.c — where a BLAS call's product runs, and C updated from it (blas_internal.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The product goes the way of every tilemm front end (src/common/front.h): the operands
 * described as tilemm_operand, the options (the backend from TILEMM_BLAS_BACKEND), one decision
 * by tilemm_decide_op, and tilemm_run for TILEMM_DO_COMPUTE, so a BLAS call gets the plan's
 * panels, workers and transposed operands like `tilemm (A, B)`.  Then
 * C := alpha·P + beta·C over the block (gemm) or triangle (syrk, herk).
 *
 * What tilemm does not compute goes elsewhere, so no product is slower, and none lost, for the
 * library being there:
 *   - TILEMM_DO_DELEGATE (an operand of one element, or "auto" where the GPU does not pay, as for
 *     `*`): the whole call to the next BLAS in the process (blas_next.c).  The decision knows
 *     "auto"'s answer before it gathers any fact about the devices, so a small product pays the
 *     request and the rule only (bench/blas_latency.c);
 *   - a failure (no GPU for TILEMM_BLAS_BACKEND=gpu, a CUDA error, no memory): one line on
 *     stderr per process, then the whole call to the next BLAS;
 *   - where there is no next BLAS (a program linked only to this library): tilemm's CPU backend,
 *     and if even that fails, tilemm's own element loop, which needs no memory.
 * Nothing aborts: under a preloaded Octave that would end the user's session.
 *
 * Strides.  tilemm_run takes its operands contiguous (leading dimension = rows); BLAS allows
 * lda ≥ rows.  A strided operand (a sub-block of a larger matrix) is copied into a contiguous
 * buffer first, and a strided C gets its product in a scratch buffer; Octave's own calls are
 * always contiguous and take neither copy.  (A strided entry to the run path would remove these
 * copies; tilemm_run does not have one yet.)
 *
 * TILEMM_BLAS_TIMES=1 prints, for each product tilemm computes, where its time went on stderr:
 * the decision, the copies of strided operands, the scratch buffer, the run, and the update of C.
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <complex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blas_internal.h"
#include "front.h"

static double now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static int is_zero (blas_scalar s)
{
  return s.re == 0 && s.im == 0;
}

static int is_one (blas_scalar s)
{
  return s.re == 1 && s.im == 0;
}

/* The rows of column j that the call writes: all of them, or its triangle's. */
static void row_range (const blas_call *call, int64_t j, int64_t *first, int64_t *end)
{
  *first = call->uplo == 'L' ? j : 0;
  *end = call->uplo == 'U' ? j + 1 : call->m;
}

/* ---------------------------------------------------------------- C := alpha·P + beta·C */

/* Over the call's block or triangle, in the element type's own arithmetic as the reference
 * does.  P == NULL means P is C itself (beta is 0 then).  beta = 0 never reads C.  Columns in
 * parallel for large C (the update is memory-bound, one thread cannot keep up with the GPU). */
#define DEFINE_UPDATE_REAL(NAME, T)                                                            \
  static void NAME (const blas_call *call, blas_scalar alpha, const T *p, int64_t ldp,         \
                    blas_scalar beta)                                                          \
  {                                                                                            \
    const T al = (T) alpha.re, be = (T) beta.re;                                               \
    T *c = call->c;                                                                            \
    const int64_t n = call->n, ldc = call->ldc;                                                \
    _Pragma ("omp parallel for schedule (dynamic, 8) if (call->m * n > (1 << 18))")            \
    for (int64_t j = 0; j < n; j++)                                                            \
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
  static void NAME (const blas_call *call, blas_scalar alpha, const T *p, int64_t ldp,         \
                    blas_scalar beta)                                                          \
  {                                                                                            \
    const T ar = (T) alpha.re, ai = (T) alpha.im, br = (T) beta.re, bi = (T) beta.im;          \
    const int beta_zero = br == 0 && bi == 0, herk = call->hermitian;                          \
    T *c = call->c;                                                                            \
    const int64_t n = call->n, ldc = call->ldc;                                                \
    _Pragma ("omp parallel for schedule (dynamic, 8) if (call->m * n > (1 << 17))")            \
    for (int64_t j = 0; j < n; j++)                                                            \
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

static void update (const blas_call *call, blas_scalar alpha, const void *p, int64_t ldp,
                    blas_scalar beta)
{
  switch (call->type)
    {
    case TILEMM_SINGLE:
      update_s (call, alpha, p, ldp, beta);
      break;
    case TILEMM_DOUBLE:
      update_d (call, alpha, p, ldp, beta);
      break;
    case TILEMM_COMPLEX_SINGLE:
      update_c (call, alpha, p, ldp, beta);
      break;
    default:
      update_z (call, alpha, p, ldp, beta);
      break;
    }
}

void blas_scale_c (const blas_call *call)
{
  const blas_scalar zero = { 0, 0 };
  if (is_zero (call->beta))
    {
      const size_t es = tilemm_type_size (call->type);
      for (int64_t j = 0; j < call->n; j++)
        {
          int64_t first, end;
          row_range (call, j, &first, &end);
          memset ((char *) call->c + (size_t) (j * call->ldc + first) * es, 0,
                  (size_t) (end - first) * es);
        }
      return;
    }
  /* beta·C is alpha·P with alpha = beta and P = C itself, and no beta term. */
  update (call, call->beta, NULL, call->ldc, zero);
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
static void loop_call (const blas_call *call)
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

/* ---------------------------------------------------------------- tilemm's path */

/* One line per process for all failures: a program making millions of calls must not print
 * millions of lines, and the first says what happened. */
static atomic_flag failure_said = ATOMIC_FLAG_INIT;
static atomic_flag bad_backend_said = ATOMIC_FLAG_INIT;

static const char *upper_name (blas_routine routine, char *buf)
{
  const char *name = blas_routine_name (routine);
  int i = 0;
  for (; name[i] && i < 7; i++)
    buf[i] = (char) (name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
  buf[i] = '\0';
  return buf;
}

static void say_failure (const blas_call *call, const char *what)
{
  if (atomic_flag_test_and_set (&failure_said))
    return;
  char name[8];
  const char *next = blas_next (call->routine) ? blas_next_file (call->routine) : NULL;
  fprintf (stderr,
           "tilemm_blas: %s: %s; this and any later failed product is computed by %s%s "
           "instead (said once)\n",
           upper_name (call->routine, name), what, next ? "the next BLAS, " : "tilemm's CPU backend",
           next ? (*next ? next : "(unknown file)") : "");
}

/* The options of a BLAS call: TILEMM_BLAS_BACKEND's backend (the call's settings, read at every
 * call, so a program may change it between calls), the native precision (BLAS's own rounding: TILEMM_PRECISION,
 * which a user may set for tilemm (A, B), does not turn every BLAS call of the process, LAPACK's
 * small ones included, into emulated products that are never delegated), the rest as any front
 * end's defaults. */
static void call_options (const blas_call *call, const tilemm_blas_settings *settings,
                          tilemm_options *options)
{
  tilemm_options_init (options);
  options->precision = TILEMM_PRECISION_NATIVE;   /* (set, not parsed: every call pays it) */
  const char *want = settings->backend;
  tilemm_backend_choice choice;
  if (!settings->backend_given)
    return;
  if (!tilemm_backend_choice_from_name (want, &choice))
    {
      /* A bad value computes on "auto": the product is still what the program asked for, only
       * the choice of device is not. */
      if (!atomic_flag_test_and_set (&bad_backend_said))
        {
          char name[8];
          fprintf (stderr,
                   "tilemm_blas: %s: TILEMM_BLAS_BACKEND=\"%.64s\" is not cpu, gpu or auto (in "
                   "any case); using auto\n",
                   upper_name (call->routine, name), want);
        }
      return;
    }
  const tilemm_value value = { TILEMM_VALUE_STRING, want, 0.0, NULL, 0 };
  tilemm_options_set (options, "backend", &value, NULL);
}

typedef enum { TILEMM_DONE, TILEMM_DELEGATED, TILEMM_FAILED } attempt;

/* A stored operand as tilemm_run takes it: itself when contiguous, else a packed copy (*copy,
 * to free).  NULL when the copy cannot be allocated. */
static const void *contiguous (tilemm_type type, const void *x, int64_t rows, int64_t cols,
                               int64_t ld, void **copy)
{
  *copy = NULL;
  if (ld == rows || cols <= 1)
    return x;
  const size_t es = tilemm_type_size (type);
  char *packed = malloc ((size_t) rows * (size_t) cols * es);
  if (!packed)
    return NULL;
  for (int64_t j = 0; j < cols; j++)
    memcpy (packed + (size_t) (j * rows) * es, (const char *) x + (size_t) (j * ld) * es,
            (size_t) rows * es);
  *copy = packed;
  return packed;
}

/* The call's product by tilemm under `options`: P = op_a(A)·op_b(B) decided and run, then C
 * updated.  times: print where its time went (TILEMM_BLAS_TIMES).  t0: when the attempt began
 * (the caller's clock, read once a call).  *place: where it ran (TILEMM_DONE); *what: the reason
 * (TILEMM_FAILED). */
static attempt by_tilemm (const blas_call *call, const tilemm_options *options, int times,
                          double t0, blas_place *place, tilemm_backend *tried, char *what,
                          size_t what_len)
{
  const int ta = call->op_a != TILEMM_OP_NONE, tb = call->op_b != TILEMM_OP_NONE;
  const int cplx = tilemm_type_is_complex (call->type);
  const tilemm_class cls = call->type == TILEMM_SINGLE || call->type == TILEMM_COMPLEX_SINGLE
                             ? TILEMM_CLASS_SINGLE
                             : TILEMM_CLASS_DOUBLE;
  const int64_t a_rows = ta ? call->k : call->m, a_cols = ta ? call->m : call->k;
  const int64_t b_rows = tb ? call->n : call->k, b_cols = tb ? call->k : call->n;
  /* A syrk's or herk's operands are one object (A, one side transposed): decided as that rank-k
   * update (half the plain product's flops on the host), and, as only the call's triangle is
   * read, not mirrored (one_triangle: the mirror would copy the other triangle for nothing). */
  const void *identity = call->uplo ? call->a : NULL;
  const tilemm_operand oa = { cls, cplx, 0, 2, a_rows, a_cols, 0, identity, 0 };
  const tilemm_operand ob = { cls, cplx, 0, 2, b_rows, b_cols, 0, identity, 0 };
  tilemm_options triangle = *options;
  triangle.one_triangle = call->uplo != 0;
  options = &triangle;
  tilemm_decision decision;
  tilemm_error err;   /* (not zero-filled: its detail alone is 384 bytes a call) */
  err.status = TILEMM_OK;
  err.detail[0] = '\0';
  *tried = TILEMM_BACKEND_CPU;
  if (tilemm_decide_op (&oa, call->op_a, &ob, call->op_b, options, &decision, &err) != TILEMM_OK)
    {
      snprintf (what, what_len, "%s%s", err.status == TILEMM_ENOGPU ? "no usable GPU: " : "",
                err.detail[0] ? err.detail : tilemm_strerror (err.status));
      return TILEMM_FAILED;
    }
  switch (decision.action)
    {
    case TILEMM_DO_DELEGATE:
      return TILEMM_DELEGATED;
    case TILEMM_DO_FILL:
      /* P = 0 (k = 0; the entry points return earlier, this is for completeness). */
      blas_scale_c (call);
      *place = BLAS_ON_CPU;
      return TILEMM_DONE;
    case TILEMM_DO_COMPUTE:
      break;
    }
  *tried = decision.backend;
  const tilemm_route *r = &decision.route;
  if (r->compute_type != call->type || r->m != call->m || r->n != call->n || r->k != call->k
      || r->a_as_pairs || r->a_split || r->b_split || r->mirror != TILEMM_MIRROR_NONE)
    {
      /* Two operands of one type never convert or split; if a route ever did, the buffers
       * below would not be what it expects. */
      snprintf (what, what_len, "the route of a %s product is not a plain product",
                tilemm_type_name (call->type));
      return TILEMM_FAILED;
    }
  const double t_decided = now ();
  void *copy_a = NULL, *copy_b = NULL, *scratch = NULL;
  const void *a = contiguous (call->type, call->a, a_rows, a_cols, call->lda, &copy_a);
  const void *b = call->b == call->a && call->ldb == call->lda && call->op_b != call->op_a
                      && a_rows == b_rows
                    ? a   /* syrk, herk: B is A */
                    : contiguous (call->type, call->b, b_rows, b_cols, call->ldb, &copy_b);
  const double t_copied = now ();
  /* gemm with beta = 0 on a contiguous C: the product is written straight into C (tilemm writes
   * its result whole and never reads it, so a NaN in C cannot reach it).  syrk and herk write
   * one triangle only: their product goes into a scratch buffer. */
  const int in_place = !call->uplo && is_zero (call->beta) && (call->ldc == call->m || call->n == 1);
  void *p = in_place ? call->c
                     : (scratch = malloc ((size_t) call->m * (size_t) call->n
                                          * tilemm_type_size (call->type)));
  const double t_scratch = now ();
  attempt result = TILEMM_DONE;
  double t_run = t_scratch;
  if (!a || !b || !p)
    {
      snprintf (what, what_len, "no memory for a copy of a strided operand or the product");
      result = TILEMM_FAILED;
    }
  else if (tilemm_run (&decision, options, a, b, p, &err) != TILEMM_OK)
    {
      snprintf (what, what_len, "%s product failed: %s",
                decision.backend == TILEMM_BACKEND_CUDA ? "GPU" : "CPU",
                err.detail[0] ? err.detail : tilemm_strerror (err.status));
      result = TILEMM_FAILED;
    }
  else
    {
      t_run = now ();
      if (!in_place)
        update (call, call->alpha, p, call->m, call->beta);
      else if (!is_one (call->alpha))
        update (call, call->alpha, NULL, call->ldc, call->beta);
      *place = decision.backend == TILEMM_BACKEND_CUDA ? BLAS_ON_GPU : BLAS_ON_CPU;
    }
  free (copy_a);
  free (copy_b);
  free (scratch);
  if (result == TILEMM_DONE)
    {
      const double t_end = now ();
      if (times)
        fprintf (stderr,
                 "tilemm_blas: %s %lldx%lldx%lld on the %s: decide %.3f ms, copy strided operands "
                 "%.3f ms, scratch %.3f ms, run %.3f ms, update C %.3f ms, total "
                 "%.3f ms\n",
                 blas_routine_name (call->routine), (long long) call->m, (long long) call->n,
                 (long long) call->k, *place == BLAS_ON_GPU ? "gpu" : "cpu",
                 1e3 * (t_decided - t0), 1e3 * (t_copied - t_decided),
                 1e3 * (t_scratch - t_copied), 1e3 * (t_run - t_scratch),
                 1e3 * (t_end - t_run), 1e3 * (t_end - t0));
    }
  return result;
}

void blas_run_call (const blas_call *call)
{
  const double t0 = now ();
  tilemm_blas_settings settings;
  tilemm_blas_settings_read (&settings);
  tilemm_options options;
  call_options (call, &settings, &options);
  blas_place place = BLAS_ON_CPU;
  tilemm_backend tried;
  char what[512];   /* (set on failure only) */
  what[0] = '\0';
  attempt result
    = by_tilemm (call, &options, settings.times, t0, &place, &tried, what, sizeof what);
  if (result == TILEMM_FAILED)
    {
      blas_trace_fallback (call->routine);
      say_failure (call, what);
    }
  if (result != TILEMM_DONE && blas_next (call->routine))
    {
      blas_next_call (call);
      place = BLAS_ON_NEXT;
    }
  else if (result != TILEMM_DONE)
    {
      /* No next BLAS: tilemm's CPU backend (for what "auto" delegates, and after a failure),
       * unless that is what was just asked; then, for an operand of one element or after a
       * failure of the CPU backend, the loop. */
      if (options.backend != TILEMM_CHOOSE_CPU)
        {
          options.backend = TILEMM_CHOOSE_CPU;
          result = by_tilemm (call, &options, settings.times, now (), &place, &tried, what,
                              sizeof what);
        }
      if (result != TILEMM_DONE)
        {
          loop_call (call);
          place = BLAS_ON_LOOP;
        }
    }
  blas_trace_product (call->routine, place, call->m, call->n, call->k, now () - t0);
}
