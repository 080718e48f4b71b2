/* blas_shim.c — sgemm_, dgemm_, cgemm_, zgemm_ through tilemm's core: libtilemm_blas.so.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Reference BLAS semantics (LAPACK 3.x ?gemm.f), so the reference Level-3 tester can be run
 * against tilemm with the library preloaded (tests/xblat3.sh):
 *   - the arguments are checked in the reference order and a bad one is reported through
 *     xerbla_ ("DGEMM ", INFO) with INFO = 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb,
 *     13 ldc; nothing else is touched then;
 *   - quick return when m = 0, n = 0, or (alpha = 0 or k = 0) and beta = 1;
 *   - alpha = 0 or k = 0: C := beta·C, and beta = 0 sets C to zero without reading it;
 *   - otherwise P = op(A)·op(B) is computed by tilemm_multiply_op on the backend chosen below,
 *     and C := alpha·P + beta·C.  When beta = 0, P is written straight into C (tilemm writes its
 *     result whole and never reads it, so a NaN in C cannot propagate) and then scaled by alpha;
 *     otherwise P goes into a scratch buffer of m·n elements, allocated and freed by the call.
 * 'T' and 'C' are the same for real types; 'C' conjugates a complex operand.  Transposed
 * operands are never copied on the host: the CPU backend reads them the other way, the GPU
 * transposes them on the device (tilemm.h, tilemm_op).
 *
 * Environment (read at every call, so nothing is cached between calls):
 *   TILEMM_BLAS_BACKEND  cpu | gpu | auto (default), in any case: the CPU backend, the GPU one,
 *                        or the GPU where tilemm_plan_gpu_pays says it is faster and a GPU is
 *                        usable, else the CPU.  "gpu" without a usable GPU is an error; any
 *                        other value is "auto" with a warning on stderr (once per process).
 *   TILEMM_BLAS_TRACE    a file: at exit, the library writes how many calls each routine took
 *                        and how many products ran on each backend (tests/xblat3.sh checks it,
 *                        so the tester cannot pass without this library having done the work).
 * A failure that BLAS has no way to report (no memory, no GPU when "gpu" was asked for, a CUDA
 * error) prints the reason to stderr and aborts: a wrong C returned silently would be worse.
 */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blas_shim.h"
#include "front.h"
#include "tilemm.h"

/* ---------------------------------------------------------------- trace */

enum { ROUTINE_S, ROUTINE_D, ROUTINE_C, ROUTINE_Z, NROUTINES };
static const char *const routine_name[NROUTINES] = { "sgemm", "dgemm", "cgemm", "zgemm" };

/* Counters for TILEMM_BLAS_TRACE: only ever incremented, written once at exit. */
static atomic_ullong trace_calls[NROUTINES];
static atomic_ullong trace_products[NROUTINES][TILEMM_NBACKENDS];

__attribute__ ((destructor)) static void trace_write (void)
{
  const char *path = getenv ("TILEMM_BLAS_TRACE");
  if (!path || !*path)
    return;
  FILE *f = fopen (path, "w");
  if (!f)
    return;
  for (int r = 0; r < NROUTINES; r++)
    fprintf (f, "%s calls %llu cpu %llu gpu %llu\n", routine_name[r],
             (unsigned long long) atomic_load (&trace_calls[r]),
             (unsigned long long) atomic_load (&trace_products[r][TILEMM_BACKEND_CPU]),
             (unsigned long long) atomic_load (&trace_products[r][TILEMM_BACKEND_CUDA]));
  fclose (f);
}

/* ---------------------------------------------------------------- errors */

/* The library's own handler, for programs that have none; a program's xerbla_ (the tester's)
 * takes precedence, as the executable comes first in symbol lookup. */
__attribute__ ((weak)) void xerbla_ (const char *srname, const int *info, size_t srname_len)
{
  int len = (int) srname_len;
  while (len > 0 && srname[len - 1] == ' ')
    len--;
  fprintf (stderr, " ** On entry to %.*s parameter number %d had an illegal value\n", len, srname,
           *info);
}

static void fail (const char *routine, const char *what)
{
  fprintf (stderr, "tilemm_blas: %s: %s\n", routine, what);
  abort ();
}

/* ---------------------------------------------------------------- scalars */

/* A scalar argument as (re, im) doubles: alpha and beta of every type. */
typedef struct {
  double re, im;
} scalar;

static scalar read_scalar (tilemm_type type, const void *p)
{
  scalar s = { 0, 0 };
  switch (type)
    {
    case TILEMM_SINGLE:
      s.re = *(const float *) p;
      break;
    case TILEMM_DOUBLE:
      s.re = *(const double *) p;
      break;
    case TILEMM_COMPLEX_SINGLE:
      s.re = ((const float *) p)[0];
      s.im = ((const float *) p)[1];
      break;
    default:
      s.re = ((const double *) p)[0];
      s.im = ((const double *) p)[1];
      break;
    }
  return s;
}

static int is_zero (scalar s)
{
  return s.re == 0 && s.im == 0;
}

static int is_one (scalar s)
{
  return s.re == 1 && s.im == 0;
}

/* C := alpha·P + beta·C over m×n, in the element type's own arithmetic, as the reference does.
 * P == NULL means P is C itself (beta is 0 then): C := alpha·C.  beta = 0 never reads C. */
#define DEFINE_UPDATE_REAL(NAME, T)                                                          \
  static void NAME (int m, int n, scalar alpha, const T *p, int ldp, scalar beta, T *c, int ldc) \
  {                                                                                          \
    const T al = (T) alpha.re, be = (T) beta.re;                                             \
    for (int j = 0; j < n; j++)                                                              \
      {                                                                                      \
        T *cj = c + (size_t) j * ldc;                                                        \
        const T *pj = p ? p + (size_t) j * ldp : cj;                                         \
        if (be == 0)                                                                         \
          for (int i = 0; i < m; i++)                                                        \
            cj[i] = al * pj[i];                                                              \
        else                                                                                 \
          for (int i = 0; i < m; i++)                                                        \
            cj[i] = al * pj[i] + be * cj[i];                                                 \
      }                                                                                      \
  }

#define DEFINE_UPDATE_COMPLEX(NAME, T)                                                       \
  static void NAME (int m, int n, scalar alpha, const T *p, int ldp, scalar beta, T *c, int ldc) \
  {                                                                                          \
    const T ar = (T) alpha.re, ai = (T) alpha.im, br = (T) beta.re, bi = (T) beta.im;        \
    const int beta_zero = br == 0 && bi == 0;                                                \
    for (int j = 0; j < n; j++)                                                              \
      {                                                                                      \
        T *cj = c + (size_t) 2 * j * ldc;                                                    \
        const T *pj = p ? p + (size_t) 2 * j * ldp : cj;                                     \
        for (int i = 0; i < m; i++)                                                          \
          {                                                                                  \
            const T pr = pj[2 * i], pi = pj[2 * i + 1];                                      \
            T re = ar * pr - ai * pi, im = ar * pi + ai * pr;                                \
            if (!beta_zero)                                                                  \
              {                                                                              \
                const T cr = cj[2 * i], ci = cj[2 * i + 1];                                  \
                re += br * cr - bi * ci;                                                     \
                im += br * ci + bi * cr;                                                     \
              }                                                                              \
            cj[2 * i] = re;                                                                  \
            cj[2 * i + 1] = im;                                                              \
          }                                                                                  \
      }                                                                                      \
  }

DEFINE_UPDATE_REAL (update_s, float)
DEFINE_UPDATE_REAL (update_d, double)
DEFINE_UPDATE_COMPLEX (update_c, float)
DEFINE_UPDATE_COMPLEX (update_z, double)

/* C := alpha·P + beta·C for any type (see DEFINE_UPDATE_*). */
static void update (tilemm_type type, int m, int n, scalar alpha, const void *p, int ldp,
                    scalar beta, void *c, int ldc)
{
  switch (type)
    {
    case TILEMM_SINGLE:
      update_s (m, n, alpha, p, ldp, beta, c, ldc);
      break;
    case TILEMM_DOUBLE:
      update_d (m, n, alpha, p, ldp, beta, c, ldc);
      break;
    case TILEMM_COMPLEX_SINGLE:
      update_c (m, n, alpha, p, ldp, beta, c, ldc);
      break;
    default:
      update_z (m, n, alpha, p, ldp, beta, c, ldc);
      break;
    }
}

/* C := beta·C, and C := 0 without reading it when beta = 0 (the reference's alpha = 0 branch). */
static void scale_c (tilemm_type type, int m, int n, scalar beta, void *c, int ldc)
{
  if (is_zero (beta))
    {
      const size_t es = tilemm_type_size (type);
      for (int j = 0; j < n; j++)
        memset ((char *) c + (size_t) j * ldc * es, 0, (size_t) m * es);
      return;
    }
  /* beta·C is C := 1·C + … in update's terms: alpha = beta with P = C and beta = 0. */
  update (type, m, n, beta, NULL, ldc, (scalar) { 0, 0 }, c, ldc);
}

/* ---------------------------------------------------------------- backend */

/* A bad TILEMM_BLAS_BACKEND is said once per process: the BLAS interface has no way to return
 * it (xerbla_ names bad arguments, and the variable is none), and a program that makes millions
 * of calls must not print millions of lines. */
static atomic_flag bad_backend_said = ATOMIC_FLAG_INIT;

static tilemm_backend choose_backend (const char *routine, tilemm_type type, int64_t m, int64_t n,
                                      int64_t k)
{
  const char *want = getenv ("TILEMM_BLAS_BACKEND");
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_backend_choice choice = TILEMM_CHOOSE_AUTO;
  /* An unknown value computes on "auto"'s backend, which is always a correct product: the
   * product is still what the program asked for, only the choice of device is not. */
  if (want && *want && !tilemm_backend_choice_from_name (want, &choice)
      && !atomic_flag_test_and_set (&bad_backend_said))
    fprintf (stderr,
             "tilemm_blas: %.5s: TILEMM_BLAS_BACKEND=\"%.64s\" is not cpu, gpu or auto (in any "
             "case); using auto\n",
             routine, want);
  if (choice == TILEMM_CHOOSE_CPU)
    return TILEMM_BACKEND_CPU;
  if (choice == TILEMM_CHOOSE_GPU)
    {
      if (tilemm_cuda_probe (&err) != TILEMM_OK)
        {
          char what[512];
          snprintf (what, sizeof what, "TILEMM_BLAS_BACKEND=gpu, but no usable GPU: %s",
                    err.detail);
          fail (routine, what);
        }
      return TILEMM_BACKEND_CUDA;
    }
  return tilemm_plan_gpu_pays (type, m, n, k) && tilemm_cuda_probe (NULL) == TILEMM_OK
           ? TILEMM_BACKEND_CUDA
           : TILEMM_BACKEND_CPU;
}

/* ---------------------------------------------------------------- ?gemm */

static int same_letter (const char *c, char upper)
{
  return toupper ((unsigned char) *c) == upper;
}

static void gemm (int routine, tilemm_type type, const char *srname, const char *transa,
                  const char *transb, const int *m_, const int *n_, const int *k_,
                  const void *alpha_, const void *a, const int *lda_, const void *b,
                  const int *ldb_, const void *beta_, void *c, const int *ldc_)
{
  const int m = *m_, n = *n_, k = *k_, lda = *lda_, ldb = *ldb_, ldc = *ldc_;
  const int nota = same_letter (transa, 'N'), notb = same_letter (transb, 'N');
  const int nrowa = nota ? m : k, nrowb = notb ? k : n;
  int info = 0;
  if (!nota && !same_letter (transa, 'C') && !same_letter (transa, 'T'))
    info = 1;
  else if (!notb && !same_letter (transb, 'C') && !same_letter (transb, 'T'))
    info = 2;
  else if (m < 0)
    info = 3;
  else if (n < 0)
    info = 4;
  else if (k < 0)
    info = 5;
  else if (lda < (nrowa > 1 ? nrowa : 1))
    info = 8;
  else if (ldb < (nrowb > 1 ? nrowb : 1))
    info = 10;
  else if (ldc < (m > 1 ? m : 1))
    info = 13;
  if (info != 0)
    {
      xerbla_ (srname, &info, strlen (srname));
      return;
    }
  atomic_fetch_add (&trace_calls[routine], 1);

  const scalar alpha = read_scalar (type, alpha_), beta = read_scalar (type, beta_);
  if (m == 0 || n == 0 || ((is_zero (alpha) || k == 0) && is_one (beta)))
    return;
  if (is_zero (alpha) || k == 0)
    {
      scale_c (type, m, n, beta, c, ldc);
      return;
    }

  /* 'C' is the conjugate transpose only for a complex type; for a real one it is 'T'. */
  const int complex_type = tilemm_type_is_complex (type);
  const tilemm_op op_a = nota ? TILEMM_OP_NONE
                         : same_letter (transa, 'C') && complex_type ? TILEMM_OP_CTRANSPOSE
                                                                      : TILEMM_OP_TRANSPOSE;
  const tilemm_op op_b = notb ? TILEMM_OP_NONE
                         : same_letter (transb, 'C') && complex_type ? TILEMM_OP_CTRANSPOSE
                                                                      : TILEMM_OP_TRANSPOSE;
  const tilemm_backend backend = choose_backend (srname, type, m, n, k);
  /* The GPU streams a plain product in panels that fit its memory (the front ends' rule). */
  const tilemm_limits limits = { 0 };
  const int in_place = is_zero (beta);
  void *scratch = NULL;
  if (!in_place && !(scratch = malloc ((size_t) m * (size_t) n * tilemm_type_size (type))))
    fail (srname, "no memory for the product's scratch buffer");

  tilemm_view va, vb, vp;
  tilemm_plan plan;
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_status status;
  if ((status = tilemm_view_init (&va, type, nrowa, nota ? k : m, lda, (void *) a)) != TILEMM_OK
      || (status = tilemm_view_init (&vb, type, nrowb, notb ? n : k, ldb, (void *) b))
           != TILEMM_OK
      || (status = tilemm_view_init (&vp, type, m, n, in_place ? ldc : m,
                                     in_place ? c : scratch))
           != TILEMM_OK
      || (status = tilemm_plan_make (&plan, backend, type, m, n, k, &limits)) != TILEMM_OK)
    tilemm_error_set (&err, status, "%s", tilemm_strerror (status));
  else
    status = tilemm_multiply_op (&plan, op_a, &va, op_b, &vb, &vp, &err);
  if (status != TILEMM_OK)
    {
      free (scratch);
      fail (srname, err.detail[0] ? err.detail : tilemm_strerror (status));
    }
  atomic_fetch_add (&trace_products[routine][backend], 1);

  if (in_place)
    {
      if (!is_one (alpha))
        update (type, m, n, alpha, NULL, ldc, beta, c, ldc);
    }
  else
    update (type, m, n, alpha, scratch, m, beta, c, ldc);
  free (scratch);
}

void sgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
             const float *beta, float *c, const int *ldc)
{
  gemm (ROUTINE_S, TILEMM_SINGLE, "SGEMM ", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
        c, ldc);
}

void dgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *lda, const double *b,
             const int *ldb, const double *beta, double *c, const int *ldc)
{
  gemm (ROUTINE_D, TILEMM_DOUBLE, "DGEMM ", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
        c, ldc);
}

void cgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
             const float *beta, float *c, const int *ldc)
{
  gemm (ROUTINE_C, TILEMM_COMPLEX_SINGLE, "CGEMM ", transa, transb, m, n, k, alpha, a, lda, b,
        ldb, beta, c, ldc);
}

void zgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *lda, const double *b,
             const int *ldb, const double *beta, double *c, const int *ldc)
{
  gemm (ROUTINE_Z, TILEMM_COMPLEX_DOUBLE, "ZGEMM ", transa, transb, m, n, k, alpha, a, lda, b,
        ldb, beta, c, ldc);
}
