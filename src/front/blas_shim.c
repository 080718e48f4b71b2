/* blas_shim.c — the BLAS entry points of libtilemm_blas.so: sgemm_, dgemm_, cgemm_, zgemm_,
 * ssyrk_, dsyrk_, csyrk_, zsyrk_, cherk_, zherk_.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Reference BLAS semantics (LAPACK 3.x ?gemm.f, ?syrk.f, ?herk.f), so the reference Level-3
 * tester runs against tilemm with the library preloaded (tests/xblat3.sh):
 *   - the arguments are checked in the reference order and a bad one is reported through the
 *     process's xerbla_ ("DGEMM ", INFO; see bad_argument), nothing else touched: gemm INFO =
 *     1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc; syrk and herk INFO = 1 uplo,
 *     2 trans, 3 n, 4 k, 7 lda, 10 ldc (trans: N, T or C for ssyrk and dsyrk, N or T for csyrk
 *     and zsyrk, N or C for cherk and zherk);
 *   - quick return when m = 0, n = 0, or (alpha = 0 or k = 0) and beta = 1;
 *   - alpha = 0 or k = 0: C := beta·C, and beta = 0 sets C to zero without reading it;
 *   - otherwise C := alpha·op(A)·op(B) + beta·C (gemm), C := alpha·A·Aᵀ + beta·C or
 *     alpha·Aᵀ·A + beta·C (syrk; Aᴴ for herk, whose alpha and beta are real), over C's m×n
 *     block, or only over the triangle uplo names (syrk, herk; herk's diagonal is left real);
 *     blas_product.c says where the product runs (tilemm's decision and run path, or the next
 *     BLAS in the process) and how C is updated.
 * 'T' and 'C' are the same for real types; 'C' conjugates a complex operand.
 *
 * Environment:
 *   TILEMM_BLAS_BACKEND  cpu | gpu | auto (default), in any case, read at every call: tilemm's
 *                        CPU backend, its GPU one, or the GPU where it pays and the next BLAS
 *                        otherwise.  "gpu" without a usable GPU computes elsewhere, with one
 *                        line on stderr; any other value is "auto", with a warning (once).
 *   TILEMM_BLAS_TRACE    a file: one record per process appended at exit (blas_trace.c).
 *   TILEMM_BLAS_TIMES    1: where each product's time went, on stderr (blas_product.c).
 */
#define _GNU_SOURCE   /* RTLD_DEFAULT */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "blas_internal.h"
#include "blas_shim.h"

/* ---------------------------------------------------------------- errors */

typedef void xerbla_fn (const char *srname, const int *info, size_t srname_len);

/* A bad argument goes to the process's own xerbla_, found where the dynamic linker would find it
 * without this library (the program's, as the reference tester's; Octave's, which raises an
 * Octave error; else the next BLAS's).  The library defines none itself: preloaded, it would
 * come before Octave's in symbol lookup and take its place.  Where the process has none (a
 * program linked only to this library, without -rdynamic), the reference BLAS's message. */
static void bad_argument (const char *srname, int info)
{
  xerbla_fn *handler = (xerbla_fn *) dlsym (RTLD_DEFAULT, "xerbla_");
  if (handler)
    {
      handler (srname, &info, strlen (srname));
      return;
    }
  int len = (int) strlen (srname);
  while (len > 0 && srname[len - 1] == ' ')
    len--;
  fprintf (stderr, " ** On entry to %.*s parameter number %d had an illegal value\n", len, srname,
           info);
}

/* A scalar argument of `type` as (re, im) doubles. */
static tilemm_scalar read_scalar (tilemm_type type, const void *p)
{
  tilemm_scalar s = { 0, 0 };
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

/* A real scalar argument (herk's alpha and beta) of a complex `type`'s precision. */
static tilemm_scalar read_real_scalar (tilemm_type type, const void *p)
{
  tilemm_scalar s = { 0, 0 };
  s.re = type == TILEMM_COMPLEX_SINGLE ? *(const float *) p : *(const double *) p;
  return s;
}

static int is_zero (tilemm_scalar s)
{
  return s.re == 0 && s.im == 0;
}

static int is_one (tilemm_scalar s)
{
  return s.re == 1 && s.im == 0;
}

/* ---------------------------------------------------------------- ?gemm */

static int same_letter (const char *c, char upper)
{
  return toupper ((unsigned char) *c) == upper;
}

/* How a 'T' or 'C' operand enters: 'C' is the conjugate transpose only for a complex type. */
static tilemm_op op_of (const char *trans, tilemm_type type)
{
  if (same_letter (trans, 'N'))
    return TILEMM_OP_NONE;
  return same_letter (trans, 'C') && tilemm_type_is_complex (type) ? TILEMM_OP_CTRANSPOSE
                                                                  : TILEMM_OP_TRANSPOSE;
}

static void gemm (blas_routine routine, tilemm_type type, const char *srname, const char *transa,
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
      bad_argument (srname, info);
      return;
    }
  blas_trace_call (routine);

  const blas_call call = {
    .routine = routine,
    .req = { .type = type, .uplo = 0, .hermitian = 0,
             .op_a = op_of (transa, type), .op_b = op_of (transb, type),
             .a = a, .b = b, .lda = lda, .ldb = ldb, .m = m, .n = n, .k = k,
             .alpha = read_scalar (type, alpha_), .beta = read_scalar (type, beta_),
             .c = c, .ldc = ldc },
    .arg_char = { transa, transb }, .arg_int = { m_, n_, k_, lda_, ldb_, ldc_ },
    .arg_alpha = alpha_, .arg_beta = beta_,
  };
  if (m == 0 || n == 0 || ((is_zero (call.req.alpha) || k == 0) && is_one (call.req.beta)))
    return;
  if (is_zero (call.req.alpha) || k == 0)
    blas_scale_c (&call);
  else
    blas_run_call (&call);
}

void sgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
             const float *beta, float *c, const int *ldc)
{
  gemm (BLAS_SGEMM, TILEMM_SINGLE, "SGEMM ", transa, transb, m, n, k, alpha, a, lda, b, ldb,
        beta, c, ldc);
}

void dgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *lda, const double *b,
             const int *ldb, const double *beta, double *c, const int *ldc)
{
  gemm (BLAS_DGEMM, TILEMM_DOUBLE, "DGEMM ", transa, transb, m, n, k, alpha, a, lda, b, ldb,
        beta, c, ldc);
}

void cgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
             const float *beta, float *c, const int *ldc)
{
  gemm (BLAS_CGEMM, TILEMM_COMPLEX_SINGLE, "CGEMM ", transa, transb, m, n, k, alpha, a, lda, b,
        ldb, beta, c, ldc);
}

void zgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *lda, const double *b,
             const int *ldb, const double *beta, double *c, const int *ldc)
{
  gemm (BLAS_ZGEMM, TILEMM_COMPLEX_DOUBLE, "ZGEMM ", transa, transb, m, n, k, alpha, a, lda, b,
        ldb, beta, c, ldc);
}

/* ---------------------------------------------------------------- ?syrk, ?herk */

/* C := alpha·op(A)·op(A)' + beta·C on the uplo triangle: trans 'N' is A·Aᵀ (A·Aᴴ for herk), A
 * n×k; 'T' or 'C' is Aᵀ·A (Aᴴ·A), A k×n.  hermitian: herk (real alpha and beta, 'C' for the
 * transpose); otherwise syrk ('T', and 'C' for a real type). */
static void rank_k (blas_routine routine, tilemm_type type, int hermitian, const char *srname,
                    const char *uplo, const char *trans, const int *n_, const int *k_,
                    const void *alpha_, const void *a, const int *lda_, const void *beta_,
                    void *c, const int *ldc_)
{
  const int n = *n_, k = *k_, lda = *lda_, ldc = *ldc_;
  const int cplx = tilemm_type_is_complex (type);
  const int notrans = same_letter (trans, 'N');
  /* The transpose letter the routine takes besides 'N': 'C' for herk, 'T' for syrk, and both for
   * a real syrk. */
  const int trans_ok = notrans || (hermitian ? same_letter (trans, 'C')
                                   : same_letter (trans, 'T') || (!cplx && same_letter (trans, 'C')));
  const int nrowa = notrans ? n : k;
  int info = 0;
  if (!same_letter (uplo, 'U') && !same_letter (uplo, 'L'))
    info = 1;
  else if (!trans_ok)
    info = 2;
  else if (n < 0)
    info = 3;
  else if (k < 0)
    info = 4;
  else if (lda < (nrowa > 1 ? nrowa : 1))
    info = 7;
  else if (ldc < (n > 1 ? n : 1))
    info = 10;
  if (info != 0)
    {
      bad_argument (srname, info);
      return;
    }
  blas_trace_call (routine);

  const tilemm_op t = hermitian ? TILEMM_OP_CTRANSPOSE : TILEMM_OP_TRANSPOSE;
  const blas_call call = {
    .routine = routine,
    .req = { .type = type, .uplo = same_letter (uplo, 'U') ? 'U' : 'L', .hermitian = hermitian,
             .op_a = notrans ? TILEMM_OP_NONE : t, .op_b = notrans ? t : TILEMM_OP_NONE,
             .a = a, .b = a, .lda = lda, .ldb = lda, .m = n, .n = n, .k = k,
             .alpha = hermitian ? read_real_scalar (type, alpha_) : read_scalar (type, alpha_),
             .beta = hermitian ? read_real_scalar (type, beta_) : read_scalar (type, beta_),
             .c = c, .ldc = ldc },
    .arg_char = { uplo, trans }, .arg_int = { n_, k_, lda_, ldc_ },
    .arg_alpha = alpha_, .arg_beta = beta_,
  };
  if (n == 0 || ((is_zero (call.req.alpha) || k == 0) && is_one (call.req.beta)))
    return;
  if (is_zero (call.req.alpha) || k == 0)
    blas_scale_c (&call);
  else
    blas_run_call (&call);
}

void ssyrk_ (const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
             const float *a, const int *lda, const float *beta, float *c, const int *ldc)
{
  rank_k (BLAS_SSYRK, TILEMM_SINGLE, 0, "SSYRK ", uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}

void dsyrk_ (const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
             const double *a, const int *lda, const double *beta, double *c, const int *ldc)
{
  rank_k (BLAS_DSYRK, TILEMM_DOUBLE, 0, "DSYRK ", uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}

void csyrk_ (const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
             const float *a, const int *lda, const float *beta, float *c, const int *ldc)
{
  rank_k (BLAS_CSYRK, TILEMM_COMPLEX_SINGLE, 0, "CSYRK ", uplo, trans, n, k, alpha, a, lda, beta,
          c, ldc);
}

void zsyrk_ (const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
             const double *a, const int *lda, const double *beta, double *c, const int *ldc)
{
  rank_k (BLAS_ZSYRK, TILEMM_COMPLEX_DOUBLE, 0, "ZSYRK ", uplo, trans, n, k, alpha, a, lda, beta,
          c, ldc);
}

void cherk_ (const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
             const float *a, const int *lda, const float *beta, float *c, const int *ldc)
{
  rank_k (BLAS_CHERK, TILEMM_COMPLEX_SINGLE, 1, "CHERK ", uplo, trans, n, k, alpha, a, lda, beta,
          c, ldc);
}

void zherk_ (const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
             const double *a, const int *lda, const double *beta, double *c, const int *ldc)
{
  rank_k (BLAS_ZHERK, TILEMM_COMPLEX_DOUBLE, 1, "ZHERK ", uplo, trans, n, k, alpha, a, lda, beta,
          c, ldc);
}
