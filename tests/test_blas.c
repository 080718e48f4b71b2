/* test_blas.c — libtilemm_blas.so's ?gemm_, ?syrk_ and ?herk_ against a long-double reference.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Every routine (s, d, c, z), every pair of 'N', 'T', 'C' (and lower case), alpha and beta
 * among 0, 1 and a general value, sizes across the CPU tile edges, leading dimensions larger
 * than the rows with operands that are sub-blocks of larger matrices; C's elements outside the
 * m×n block must not change, and with beta = 0 a NaN in C must not reach the result.  Then the
 * quick returns and every argument error, which must reach this program's xerbla_ with the
 * reference BLAS's INFO.  The backend is TILEMM_BLAS_BACKEND's (the CPU here; c-tests.sh runs
 * it again with "gpu" where a GPU is).  Then TILEMM_BLAS_BACKEND's values in any case, and bad
 * ones, each in a child process (so an abort is a failed case, not the end of the program).
 * ?syrk_ and ?herk_ likewise: every uplo and trans they take, alpha and beta among 0, 1 and a
 * general value (real for herk), beta = 0 with NaN in C; only the uplo triangle of C may change,
 * herk's diagonal must come out real; their quick returns and argument errors.  Then several
 * threads calling at once, and many calls without the process growing.
 * Usage: test_blas [NAME]  (NAME prefixes the counts).
 */
#define _POSIX_C_SOURCE 200809L   /* fork, setenv, mkstemp, pthreads */
#define _GNU_SOURCE   /* RTLD_DEFAULT, dladdr, MAP_ANONYMOUS */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "blas_shim.h"
#include "check.h"

/* ---------------------------------------------------------------- xerbla */

static int xerbla_calls, xerbla_info;
static char xerbla_name[16];

/* The handler the library finds (dlsym (RTLD_DEFAULT); the program is linked -rdynamic). */
void xerbla_ (const char *srname, const int *info, size_t srname_len)
{
  xerbla_calls++;
  xerbla_info = *info;
  size_t n = srname_len < sizeof xerbla_name - 1 ? srname_len : sizeof xerbla_name - 1;
  memcpy (xerbla_name, srname, n);
  xerbla_name[n] = '\0';
}

/* ---------------------------------------------------------------- typed buffers */

enum { S, D, C, Z };
static const char *const type_name[] = { "sgemm", "dgemm", "cgemm", "zgemm" };
static int is_complex (int t) { return t == C || t == Z; }
static size_t elem_size (int t) { return t == S ? 4 : t == D || t == C ? 8 : 16; }
static double type_eps (int t) { return t == S || t == C ? FLT_EPSILON : DBL_EPSILON; }

static void put (int t, void *buf, size_t i, double re, double im)
{
  switch (t)
    {
    case S: ((float *) buf)[i] = (float) re; break;
    case D: ((double *) buf)[i] = re; break;
    case C: ((float *) buf)[2 * i] = (float) re; ((float *) buf)[2 * i + 1] = (float) im; break;
    default: ((double *) buf)[2 * i] = re; ((double *) buf)[2 * i + 1] = im; break;
    }
}

static void get (int t, const void *buf, size_t i, long double *re, long double *im)
{
  switch (t)
    {
    case S: *re = ((const float *) buf)[i]; *im = 0; break;
    case D: *re = ((const double *) buf)[i]; *im = 0; break;
    case C: *re = ((const float *) buf)[2 * i]; *im = ((const float *) buf)[2 * i + 1]; break;
    default: *re = ((const double *) buf)[2 * i]; *im = ((const double *) buf)[2 * i + 1]; break;
    }
}

static int same_bits (int t, const void *x, const void *y, size_t i)
{
  const size_t es = elem_size (t);
  return memcmp ((const char *) x + i * es, (const char *) y + i * es, es) == 0;
}

static unsigned long long rng_state = 88172645463325252ULL;
static double uniform (void)   /* in [-1, 1) */
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double) (rng_state >> 11) / 4503599627370496.0 - 1.0;
}

static void call_gemm (int t, const char *ta, const char *tb, int m, int n, int k, const double al[2],
                       const void *a, int lda, const void *b, int ldb, const double be[2], void *c,
                       int ldc)
{
  float fa[2] = { (float) al[0], (float) al[1] }, fb[2] = { (float) be[0], (float) be[1] };
  switch (t)
    {
    case S: sgemm_ (ta, tb, &m, &n, &k, fa, a, &lda, b, &ldb, fb, c, &ldc); break;
    case D: dgemm_ (ta, tb, &m, &n, &k, al, a, &lda, b, &ldb, be, c, &ldc); break;
    case C: cgemm_ (ta, tb, &m, &n, &k, fa, a, &lda, b, &ldb, fb, c, &ldc); break;
    default: zgemm_ (ta, tb, &m, &n, &k, al, a, &lda, b, &ldb, be, c, &ldc); break;
    }
}

/* ---------------------------------------------------------------- products */

/* op(X)(i, l) of a stored column-major X (ld), op = 'N', 'T' or 'C' (conjugating if complex). */
static void op_elem (int t, char op, const void *x, int ld, int i, int l, long double *re,
                     long double *im)
{
  const int notrans = op == 'N' || op == 'n';
  get (t, x, notrans ? (size_t) i + (size_t) l * ld : (size_t) l + (size_t) i * ld, re, im);
  if ((op == 'C' || op == 'c') && is_complex (t))
    *im = -*im;
}

/* One product: sub-blocks at an offset inside larger parents, leading dimensions above the
 * rows, C's gaps and the parents' margins filled with sentinels that must survive. */
static void product_case (int t, const char *ta, const char *tb, int m, int n, int k,
                          const double al[2], const double be[2])
{
  CHECK_CASE ("%s %s%s m=%d n=%d k=%d alpha=(%g,%g) beta=(%g,%g)", type_name[t], ta, tb, m, n, k,
              al[0], al[1], be[0], be[1]);
  const int nota = ta[0] == 'N' || ta[0] == 'n', notb = tb[0] == 'N' || tb[0] == 'n';
  const int ra = nota ? m : k, ca = nota ? k : m, rb = notb ? k : n, cb = notb ? n : k;
  const int off = 2;                      /* rows and columns before the sub-block */
  const int lda = ra + off + 3, ldb = rb + off + 1, ldc = m + off + 4;
  const size_t es = elem_size (t);
  const size_t na = (size_t) lda * (ca + off), nb = (size_t) ldb * (cb + off),
               nc = (size_t) ldc * (n + off);
  char *pa = malloc (na * es), *pb = malloc (nb * es), *pc = malloc (nc * es),
       *c0 = malloc (nc * es);
  if (!pa || !pb || !pc || !c0)
    {
      CHECK (0, "out of memory");
      free (pa), free (pb), free (pc), free (c0);
      return;
    }
  const int cplx = is_complex (t);
  for (size_t i = 0; i < na; i++)
    put (t, pa, i, uniform (), cplx ? uniform () : 0);
  for (size_t i = 0; i < nb; i++)
    put (t, pb, i, uniform (), cplx ? uniform () : 0);
  const int beta_zero = be[0] == 0 && be[1] == 0;
  for (size_t i = 0; i < nc; i++)
    put (t, pc, i, uniform (), cplx ? uniform () : 0);
  /* beta = 0: C's block holds NaN, which must not reach the result. */
  if (beta_zero)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++)
        put (t, pc, (size_t) (i + off) + (size_t) (j + off) * ldc, NAN, cplx ? NAN : 0);
  memcpy (c0, pc, nc * es);
  /* Each operand is the sub-block at (off, off) of its parent: element off + off·ld. */
  const char *a = pa + ((size_t) off + (size_t) off * lda) * es;
  const char *b = pb + ((size_t) off + (size_t) off * ldb) * es;
  char *c = pc + ((size_t) off + (size_t) off * ldc) * es;
  const char *cref = c0 + ((size_t) off + (size_t) off * ldc) * es;

  call_gemm (t, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);

  const long double eps = type_eps (t);
  int bad = 0;
  for (int j = 0; j < n && bad < 3; j++)
    for (int i = 0; i < m && bad < 3; i++)
      {
        long double sr = 0, si = 0, mag = 0;
        for (int l = 0; l < k; l++)
          {
            long double xr, xi, yr, yi;
            op_elem (t, ta[0], a, lda, i, l, &xr, &xi);
            op_elem (t, tb[0], b, ldb, l, j, &yr, &yi);
            sr += xr * yr - xi * yi;
            si += xr * yi + xi * yr;
            mag += (fabsl (xr) + fabsl (xi)) * (fabsl (yr) + fabsl (yi));
          }
        long double wr = al[0] * sr - al[1] * si, wi = al[0] * si + al[1] * sr;
        mag *= fabsl ((long double) al[0]) + fabsl ((long double) al[1]);
        if (!beta_zero)
          {
            long double cr, ci;
            get (t, cref, (size_t) i + (size_t) j * ldc, &cr, &ci);
            wr += be[0] * cr - be[1] * ci;
            wi += be[0] * ci + be[1] * cr;
            mag += (fabsl (cr) + fabsl (ci)) * (fabsl ((long double) be[0]) + fabsl ((long double) be[1]));
          }
        long double gr, gi;
        get (t, c, (size_t) i + (size_t) j * ldc, &gr, &gi);
        const long double tol = 4 * eps * (k + 4) * (mag + 1e-30L);
        const int ok = isfinite (gr) && isfinite (gi) && fabsl (gr - wr) <= tol
                       && fabsl (gi - wi) <= tol;
        CHECK (ok, "C(%d,%d) = (%Lg, %Lg), want (%Lg, %Lg), tolerance %Lg", i, j, gr, gi, wr, wi,
               tol);
        bad += !ok;
      }
  /* Nothing outside the m×n block changed: C's gaps, margins and the rest of the parent. */
  size_t outside_changed = 0;
  for (size_t idx = 0; idx < nc; idx++)
    {
      const size_t i = idx % (size_t) ldc, j = idx / (size_t) ldc;
      const int inside = i >= (size_t) off && i < (size_t) (off + m) && j >= (size_t) off
                         && j < (size_t) (off + n);
      if (!inside && !same_bits (t, pc, c0, idx))
        outside_changed++;
    }
  CHECK (outside_changed == 0, "%zu elements of C outside the m x n block changed",
         outside_changed);
  free (pa), free (pb), free (pc), free (c0);
}

/* ---------------------------------------------------------------- quick returns and errors */

static void quick_cases (int t)
{
  const size_t es = elem_size (t);
  double a[2 * 16], b[2 * 16], c[2 * 16], c0[2 * 16];
  for (int i = 0; i < 16; i++)
    {
      put (t, a, i, 1 + i, 0), put (t, b, i, 2 - i, 0), put (t, c, i, NAN, NAN);
    }
  memcpy (c0, c, 16 * es);
  const double one[2] = { 1, 0 }, zero[2] = { 0, 0 }, two[2] = { 2, 0 };

  CHECK_CASE ("%s quick return: m = 0 and n = 0 leave C alone", type_name[t]);
  call_gemm (t, "N", "N", 0, 3, 3, one, a, 1, b, 3, zero, c, 1);
  call_gemm (t, "N", "N", 3, 0, 3, one, a, 3, b, 3, zero, c, 3);
  CHECK (memcmp (c, c0, 16 * es) == 0, "C changed");

  CHECK_CASE ("%s quick return: alpha = 0 or k = 0 with beta = 1 leaves C (NaN) alone",
              type_name[t]);
  call_gemm (t, "N", "N", 3, 3, 3, zero, a, 3, b, 3, one, c, 3);
  call_gemm (t, "T", "C", 3, 3, 0, one, a, 1, b, 1, one, c, 3);
  CHECK (memcmp (c, c0, 16 * es) == 0, "C changed");

  CHECK_CASE ("%s alpha = 0, beta = 0: C is zero, its NaN not read", type_name[t]);
  call_gemm (t, "N", "N", 3, 3, 3, zero, a, 3, b, 3, zero, c, 4);
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++)
      {
        long double re, im;
        get (t, c, (size_t) i + 4 * j, &re, &im);
        CHECK (re == 0 && im == 0, "C(%d,%d) = (%Lg, %Lg)", i, j, re, im);
      }
  long double re, im;
  get (t, c, 3, &re, &im);
  CHECK (isnan (re), "C's gap was written");

  CHECK_CASE ("%s k = 0, beta = 2: C := 2C", type_name[t]);
  for (int i = 0; i < 9; i++)
    put (t, c, i, i, is_complex (t) ? -i : 0);
  call_gemm (t, "N", "N", 3, 3, 0, one, a, 3, b, 1, two, c, 3);
  for (int i = 0; i < 9; i++)
    {
      get (t, c, i, &re, &im);
      CHECK (re == 2 * i && im == (is_complex (t) ? -2 * i : 0), "C[%d] = (%Lg, %Lg)", i, re, im);
    }
}

static void error_case (int t, const char *what, const char *ta, const char *tb, int m, int n,
                        int k, int lda, int ldb, int ldc, int want_info)
{
  static const char *const srname[] = { "SGEMM ", "DGEMM ", "CGEMM ", "ZGEMM " };
  CHECK_CASE ("%s reports %s as INFO = %d", type_name[t], what, want_info);
  double a[2 * 64], b[2 * 64], c[2 * 64], c0[2 * 64];
  for (int i = 0; i < 64; i++)
    put (t, a, i, 1, 0), put (t, b, i, 1, 0), put (t, c, i, 7, 0);
  memcpy (c0, c, sizeof c);
  const double one[2] = { 1, 0 };
  xerbla_calls = 0;
  xerbla_info = 0;
  xerbla_name[0] = '\0';
  call_gemm (t, ta, tb, m, n, k, one, a, lda, b, ldb, one, c, ldc);
  CHECK (xerbla_calls == 1, "xerbla called %d times", xerbla_calls);
  CHECK (xerbla_info == want_info, "INFO = %d", xerbla_info);
  CHECK (strcmp (xerbla_name, srname[t]) == 0, "SRNAME = \"%s\"", xerbla_name);
  CHECK (memcmp (c, c0, sizeof c) == 0, "C changed");
}

static void error_cases (int t)
{
  /* In the reference order: the first bad argument is the one reported. */
  error_case (t, "transa 'X' (before a bad m)", "X", "N", -1, 1, 1, 1, 1, 1, 1);
  error_case (t, "transb 'x'", "N", "x", 1, 1, 1, 1, 1, 1, 2);
  error_case (t, "m < 0", "N", "N", -1, 1, 1, 1, 1, 1, 3);
  error_case (t, "n < 0", "T", "N", 1, -1, 1, 1, 1, 1, 4);
  error_case (t, "k < 0", "N", "C", 1, 1, -1, 1, 1, 1, 5);
  error_case (t, "lda < m ('N')", "N", "N", 4, 2, 3, 3, 3, 4, 8);
  error_case (t, "lda < k ('T')", "T", "N", 4, 2, 3, 2, 3, 4, 8);
  error_case (t, "lda = 0 with m = 0", "N", "N", 0, 2, 3, 0, 3, 1, 8);
  error_case (t, "ldb < k ('N')", "N", "N", 2, 2, 3, 2, 2, 2, 10);
  error_case (t, "ldb < n ('C')", "N", "C", 2, 5, 3, 2, 4, 2, 10);
  error_case (t, "ldc < m", "N", "N", 3, 2, 2, 3, 2, 2, 13);
}

/* ---------------------------------------------------------------- ?syrk, ?herk */

static const char *const rank_k_name[2][4] = { { "ssyrk", "dsyrk", "csyrk", "zsyrk" },
                                               { "", "", "cherk", "zherk" } };

/* ?syrk_ (herk 0) or ?herk_ (herk 1, C and Z only: alpha and beta are their real parts). */
static void call_rank_k (int t, int herk, const char *uplo, const char *trans, int n, int k,
                         const double al[2], const void *a, int lda, const double be[2], void *c,
                         int ldc)
{
  float fa[2] = { (float) al[0], (float) al[1] }, fb[2] = { (float) be[0], (float) be[1] };
  switch (t)
    {
    case S: ssyrk_ (uplo, trans, &n, &k, fa, a, &lda, fb, c, &ldc); break;
    case D: dsyrk_ (uplo, trans, &n, &k, al, a, &lda, be, c, &ldc); break;
    case C:
      if (herk)
        cherk_ (uplo, trans, &n, &k, fa, a, &lda, fb, c, &ldc);
      else
        csyrk_ (uplo, trans, &n, &k, fa, a, &lda, fb, c, &ldc);
      break;
    default:
      if (herk)
        zherk_ (uplo, trans, &n, &k, al, a, &lda, be, c, &ldc);
      else
        zsyrk_ (uplo, trans, &n, &k, al, a, &lda, be, c, &ldc);
      break;
    }
}

/* One rank-k update of a sub-block C (n×n at an offset in a larger parent, ldc > n) from a
 * sub-block A, against the long-double reference over the uplo triangle; everything else of C's
 * parent, the other triangle included, must keep its bits. */
static void rank_k_case (int t, int herk, const char *uplo, const char *trans, int n, int k,
                         const double al[2], const double be[2])
{
  CHECK_CASE ("%s uplo=%s trans=%s n=%d k=%d alpha=(%g,%g) beta=(%g,%g)", rank_k_name[herk][t],
              uplo, trans, n, k, al[0], herk ? 0 : al[1], be[0], herk ? 0 : be[1]);
  const int notrans = trans[0] == 'N' || trans[0] == 'n';
  const int upper = uplo[0] == 'U' || uplo[0] == 'u';
  const int ra = notrans ? n : k, ca = notrans ? k : n;
  const int off = 2, lda = ra + off + 3, ldc = n + off + 4;
  const size_t es = elem_size (t);
  const size_t na = (size_t) lda * (ca + off), nc = (size_t) ldc * (n + off);
  char *pa = malloc (na * es), *pc = malloc (nc * es), *c0 = malloc (nc * es);
  if (!pa || !pc || !c0)
    {
      CHECK (0, "out of memory");
      free (pa), free (pc), free (c0);
      return;
    }
  const int cplx = is_complex (t);
  for (size_t i = 0; i < na; i++)
    put (t, pa, i, uniform (), cplx ? uniform () : 0);
  for (size_t i = 0; i < nc; i++)
    put (t, pc, i, uniform (), cplx ? uniform () : 0);
  const double ali = herk ? 0 : al[1], bei = herk ? 0 : be[1];
  const int beta_zero = be[0] == 0 && bei == 0;
  /* beta = 0: C's whole block holds NaN: the triangle must not read it, the other keeps it. */
  if (beta_zero)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        put (t, pc, (size_t) (i + off) + (size_t) (j + off) * ldc, NAN, cplx ? NAN : 0);
  memcpy (c0, pc, nc * es);
  const char *a = pa + ((size_t) off + (size_t) off * lda) * es;
  char *c = pc + ((size_t) off + (size_t) off * ldc) * es;
  const char *cref = c0 + ((size_t) off + (size_t) off * ldc) * es;

  call_rank_k (t, herk, uplo, trans, n, k, al, a, lda, be, c, ldc);

  /* op(A)(i, l) and its partner: N: A(i,l)·A(j,l) (conjugated for herk); T/C: A(l,i)·A(l,j). */
  const char opa = notrans ? 'N' : herk ? 'C' : 'T';
  const long double eps = type_eps (t);
  int bad = 0;
  for (int j = 0; j < n && bad < 3; j++)
    for (int i = upper ? 0 : j; i < (upper ? j + 1 : n) && bad < 3; i++)
      {
        long double sr = 0, si = 0, mag = 0;
        for (int l = 0; l < k; l++)
          {
            long double xr, xi, yr, yi;
            op_elem (t, opa, a, lda, i, l, &xr, &xi);
            /* op(A)ᵀ(l, j) = op(A)(j, l) for syrk; its conjugate for herk */
            op_elem (t, opa, a, lda, j, l, &yr, &yi);
            if (herk)
              yi = -yi;
            sr += xr * yr - xi * yi;
            si += xr * yi + xi * yr;
            mag += (fabsl (xr) + fabsl (xi)) * (fabsl (yr) + fabsl (yi));
          }
        long double wr = al[0] * sr - ali * si, wi = al[0] * si + ali * sr;
        mag *= fabsl ((long double) al[0]) + fabsl ((long double) ali);
        if (!beta_zero)
          {
            long double cr, ci;
            get (t, cref, (size_t) i + (size_t) j * ldc, &cr, &ci);
            if (herk && i == j && !(al[0] == 0 && be[0] == 1))
              ci = 0;   /* the reference reads the diagonal's real part only */
            wr += be[0] * cr - bei * ci;
            wi += be[0] * ci + bei * cr;
            mag += (fabsl (cr) + fabsl (ci)) * (fabsl ((long double) be[0]) + fabsl ((long double) bei));
          }
        long double gr, gi;
        get (t, c, (size_t) i + (size_t) j * ldc, &gr, &gi);
        const long double tol = 4 * eps * (k + 4) * (mag + 1e-30L);
        int ok = isfinite (gr) && isfinite (gi) && fabsl (gr - wr) <= tol;
        /* herk's diagonal is exactly real, but where the quick return leaves C alone */
        const int quick = al[0] == 0 && be[0] == 1;
        ok = ok && (herk && i == j && !quick ? gi == 0 : fabsl (gi - wi) <= tol);
        CHECK (ok, "C(%d,%d) = (%Lg, %Lg), want (%Lg, %Lg), tolerance %Lg", i, j, gr, gi, wr, wi,
               tol);
        bad += !ok;
      }
  size_t outside_changed = 0;
  for (size_t idx = 0; idx < nc; idx++)
    {
      const long i = (long) (idx % (size_t) ldc) - off, j = (long) (idx / (size_t) ldc) - off;
      const int inside = i >= 0 && i < n && j >= 0 && j < n && (upper ? i <= j : i >= j);
      if (!inside && !same_bits (t, pc, c0, idx))
        outside_changed++;
    }
  CHECK (outside_changed == 0,
         "%zu elements of C outside the %s triangle of the n x n block changed", outside_changed,
         upper ? "upper" : "lower");
  free (pa), free (pc), free (c0);
}

static void rank_k_quick_cases (int t, int herk)
{
  const char *name = rank_k_name[herk][t];
  const size_t es = elem_size (t);
  double a[2 * 16], c[2 * 16], c0[2 * 16];
  for (int i = 0; i < 16; i++)
    put (t, a, i, 1 + i, 0), put (t, c, i, NAN, NAN);
  memcpy (c0, c, 16 * es);
  const double one[2] = { 1, 0 }, zero[2] = { 0, 0 }, two[2] = { 2, 0 };

  CHECK_CASE ("%s quick return: n = 0, or alpha = 0 or k = 0 with beta = 1, leave C alone", name);
  call_rank_k (t, herk, "U", "N", 0, 3, one, a, 1, zero, c, 1);
  call_rank_k (t, herk, "L", "N", 3, 3, zero, a, 3, one, c, 3);
  call_rank_k (t, herk, "U", "N", 3, 0, one, a, 3, one, c, 3);
  CHECK (memcmp (c, c0, 16 * es) == 0, "C changed");

  CHECK_CASE ("%s alpha = 0, beta = 0: the triangle is zero, its NaN not read, the other kept",
              name);
  call_rank_k (t, herk, "L", "N", 3, 3, zero, a, 3, zero, c, 4);
  long double re, im;
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++)
      {
        get (t, c, (size_t) i + 4 * j, &re, &im);
        if (i >= j)
          CHECK (re == 0 && im == 0, "C(%d,%d) = (%Lg, %Lg)", i, j, re, im);
        else
          CHECK (isnan (re), "C(%d,%d) above the lower triangle was written", i, j);
      }

  CHECK_CASE ("%s k = 0, beta = 2: the triangle := 2C%s", name,
              herk ? ", the diagonal's imaginary parts zero" : "");
  for (int i = 0; i < 9; i++)
    put (t, c, i, i, is_complex (t) ? -i - 1 : 0);
  call_rank_k (t, herk, "U", "N", 3, 0, one, a, 3, two, c, 3);
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++)
      {
        const int x = i + 3 * j;
        get (t, c, (size_t) x, &re, &im);
        const int in = i <= j;
        const long double want_im = !is_complex (t) ? 0
                                    : !in           ? -x - 1
                                    : herk && i == j ? 0
                                                     : -2 * (x + 1);
        CHECK (re == (in ? 2 * x : x) && im == want_im, "C(%d,%d) = (%Lg, %Lg)", i, j, re, im);
      }
}

static void rank_k_error_case (int t, int herk, const char *what, const char *uplo,
                               const char *trans, int n, int k, int lda, int ldc, int want_info)
{
  static const char *const srname[2][4] = { { "SSYRK ", "DSYRK ", "CSYRK ", "ZSYRK " },
                                            { "", "", "CHERK ", "ZHERK " } };
  CHECK_CASE ("%s reports %s as INFO = %d", rank_k_name[herk][t], what, want_info);
  double a[2 * 64], c[2 * 64], c0[2 * 64];
  for (int i = 0; i < 64; i++)
    put (t, a, i, 1, 0), put (t, c, i, 7, 0);
  memcpy (c0, c, sizeof c);
  const double one[2] = { 1, 0 };
  xerbla_calls = 0;
  xerbla_info = 0;
  xerbla_name[0] = '\0';
  call_rank_k (t, herk, uplo, trans, n, k, one, a, lda, one, c, ldc);
  CHECK (xerbla_calls == 1, "xerbla called %d times", xerbla_calls);
  CHECK (xerbla_info == want_info, "INFO = %d", xerbla_info);
  CHECK (strcmp (xerbla_name, srname[herk][t]) == 0, "SRNAME = \"%s\"", xerbla_name);
  CHECK (memcmp (c, c0, sizeof c) == 0, "C changed");
}

static void rank_k_error_cases (int t, int herk)
{
  const int cplx = is_complex (t);
  rank_k_error_case (t, herk, "uplo 'X' (before a bad n)", "X", "N", -1, 1, 1, 1, 1);
  rank_k_error_case (t, herk, "trans 'x'", "U", "x", 1, 1, 1, 1, 2);
  if (herk)
    rank_k_error_case (t, herk, "trans 'T' (herk takes N or C)", "U", "T", 1, 1, 1, 1, 2);
  else if (cplx)
    rank_k_error_case (t, herk, "trans 'C' (complex syrk takes N or T)", "L", "C", 1, 1, 1, 1, 2);
  rank_k_error_case (t, herk, "n < 0", "L", "N", -1, 1, 1, 1, 3);
  rank_k_error_case (t, herk, "k < 0", "U", "N", 1, -1, 1, 1, 4);
  rank_k_error_case (t, herk, "lda < n ('N')", "U", "N", 4, 2, 3, 4, 7);
  rank_k_error_case (t, herk, "lda < k (transposed)", "L", herk ? "C" : "T", 2, 4, 3, 2, 7);
  rank_k_error_case (t, herk, "ldc < n", "U", "N", 3, 2, 3, 2, 10);
}

static void rank_k_cases (int t, int herk)
{
  static const int sizes[][2] = { { 1, 1 }, { 3, 2 }, { 7, 9 }, { 1, 5 }, { 17, 33 }, { 70, 130 },
                                  { 65, 1 } };
  const char *const uplos[] = { "U", "L" };
  const char *const trans_real[] = { "N", "T", "C" }, *const trans_syrk[] = { "N", "T" },
                    *const trans_herk[] = { "N", "C" };
  const char *const *trans = herk ? trans_herk : is_complex (t) ? trans_syrk : trans_real;
  const int ntrans = herk || is_complex (t) ? 2 : 3;
  const double alphas[][2] = { { 0, 0 }, { 1, 0 }, { 0.7, is_complex (t) ? -0.9 : 0 } };
  const double betas[][2] = { { 0, 0 }, { 1, 0 }, { 1.3, is_complex (t) ? -1.1 : 0 } };
  for (int u = 0; u < 2; u++)
    for (int x = 0; x < ntrans; x++)
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int p = 0; p < 3; p++)
          for (int q = 0; q < 3; q++)
            rank_k_case (t, herk, uplos[u], trans[x], sizes[s][0], sizes[s][1], alphas[p],
                         betas[q]);
  /* Lower-case letters are the same options. */
  rank_k_case (t, herk, "l", herk ? "c" : "t", 6, 5, alphas[2], betas[2]);
  rank_k_case (t, herk, "u", "n", 6, 5, alphas[2], betas[0]);
  rank_k_quick_cases (t, herk);
  rank_k_error_cases (t, herk);
}

/* ---------------------------------------------------------------- threads, many calls */

/* Each thread its own products, checked exactly: small integers, so every sum is exact. */
static void *thread_calls (void *arg)
{
  const int id = (int) (intptr_t) arg;
  const int m = 19, n = 23, k = 17;
  double a[19 * 17], b[17 * 23], c[19 * 23], s[23 * 23];
  const double one = 1, zero = 0;
  for (int r = 0; r < 200; r++)
    {
      for (int i = 0; i < m * k; i++)
        a[i] = (i * 7 + r + id) % 11 - 5;
      for (int i = 0; i < k * n; i++)
        b[i] = (i * 3 + r * id) % 13 - 6;
      dgemm_ ("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
      for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
          {
            double want = 0;
            for (int l = 0; l < k; l++)
              want += a[i + l * m] * b[l + j * k];
            if (c[i + j * m] != want)
              return (void *) 1;
          }
      /* Bᵀ·B: its upper triangle */
      dsyrk_ ("U", "T", &n, &k, &one, b, &k, &zero, s, &n);
      for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++)
          {
            double want = 0;
            for (int l = 0; l < k; l++)
              want += b[l + i * k] * b[l + j * k];
            if (s[i + j * n] != want)
              return (void *) 1;
          }
    }
  return NULL;
}

static void thread_cases (void)
{
  enum { THREADS = 6 };
  CHECK_CASE ("%d threads calling dgemm_ and dsyrk_ at once, 200 products each, all exact",
              THREADS);
  pthread_t th[THREADS];
  int started = 0, wrong = 0;
  for (int i = 0; i < THREADS; i++)
    started += pthread_create (&th[i], NULL, thread_calls, (void *) (intptr_t) i) == 0;
  for (int i = 0; i < started; i++)
    {
      void *r = NULL;
      pthread_join (th[i], &r);
      wrong += r != NULL;
    }
  CHECK (started == THREADS, "%d threads started", started);
  CHECK (wrong == 0, "%d threads saw a wrong product", wrong);
}

/* The resident set in KiB (Linux; 0 elsewhere). */
static long resident_kib (void)
{
  FILE *f = fopen ("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (!f)
    return 0;
  if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
    resident = 0;
  fclose (f);
  return resident * (sysconf (_SC_PAGESIZE) / 1024);
}

static void many_calls_case (void)
{
  enum { CALLS = 200000 };
  CHECK_CASE ("%d calls (gemm strided and with beta, syrk, herk) leave the process its size",
              4 * CALLS);
  /* Strided operands and beta != 0 take the copies and scratch buffers that could leak. */
  double a[8 * 4], b[8 * 4], c[8 * 4], z[2 * 8 * 4];
  for (int i = 0; i < 32; i++)
    a[i] = i % 5, b[i] = i % 3, c[i] = 1, z[2 * i] = i % 7, z[2 * i + 1] = i % 2;
  const int m = 3, n = 4, k = 4, ld = 8;
  const double one = 1, half = 0.5, zc[2] = { 0.5, 0 };
  double zc_out[2 * 8 * 4];
  long before = 0;
  for (int r = 0; r < CALLS; r++)
    {
      if (r == CALLS / 10)
        before = resident_kib ();
      dgemm_ ("N", "T", &m, &n, &k, &one, a, &ld, b, &ld, &half, c, &ld);
      dsyrk_ ("L", "N", &m, &k, &one, a, &ld, &half, c, &ld);
      zherk_ ("U", "C", &m, &k, &one, z, &ld, &half, zc_out, &ld);
      zsyrk_ ("U", "N", &m, &k, zc, z, &ld, zc, zc_out, &ld);
    }
  const long after = resident_kib ();
  CHECK (after - before < 2048, "the resident set grew by %ld KiB", after - before);
}

/* ---------------------------------------------------------------- TILEMM_BLAS_BACKEND */

/* One dgemm_ with TILEMM_BLAS_BACKEND=value in a child process whose stderr goes to a file:
 * whether it ended normally with the right product, and what it wrote to stderr. */
static int backend_child (const char *value, char *said, size_t said_len)
{
  char path[] = "/tmp/test_blas_stderr_XXXXXX";
  const int fd = mkstemp (path);
  said[0] = '\0';
  if (fd < 0)
    return 0;
  fflush (stdout);
  const pid_t pid = fork ();
  if (pid == 0)
    {
      dup2 (fd, 2);
      setenv ("TILEMM_BLAS_BACKEND", value, 1);
      const int m = 3, n = 2, k = 4;
      const double one = 1, zero = 0;
      double a[12], b[8], c[6];
      for (int i = 0; i < 12; i++)
        a[i] = i + 1;
      for (int i = 0; i < 8; i++)
        b[i] = 1;
      dgemm_ ("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
      /* Row i of A is i+1, i+4, i+7, i+10: its sum is 4i + 22. */
      for (int i = 0; i < 3; i++)
        if (c[i] != 4 * i + 22 || c[3 + i] != 4 * i + 22)
          _exit (2);
      _exit (0);
    }
  int status = -1;
  if (pid > 0)
    waitpid (pid, &status, 0);
  const ssize_t got = pread (fd, said, said_len - 1, 0);
  said[got > 0 ? got : 0] = '\0';
  close (fd);
  unlink (path);
  return pid > 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

static void backend_cases (void)
{
  char said[1024];
  /* The values in any case are the same backends ("gpu" needs a GPU, so it is the next test). */
  static const char *const good[] = { "cpu", "CPU", "Cpu", "auto", "AUTO", "aUtO", "" };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    {
      CHECK_CASE ("TILEMM_BLAS_BACKEND=\"%s\" computes the product, silently", good[i]);
      const int ok = backend_child (good[i], said, sizeof said);
      CHECK (ok, "the child aborted or computed a wrong product; stderr: %s", said);
      CHECK (said[0] == '\0', "stderr: %s", said);
    }
  /* "GPU" is "gpu": the product on the GPU, or, where none is usable, the right product all the
   * same (elsewhere) with one line on stderr that says why: never an abort. */
  CHECK_CASE ("TILEMM_BLAS_BACKEND=\"GPU\" is the gpu backend, or falls back with one line");
  const int gpu_ok = backend_child ("GPU", said, sizeof said);
  CHECK (gpu_ok, "the child aborted or computed a wrong product; stderr: %s", said);
  CHECK (said[0] == '\0'
           || (strstr (said, "tilemm_blas: DGEMM: ") == said && strstr (said, "instead")
               && strchr (said, '\n') == said + strlen (said) - 1),
         "stderr: %s", said);
  /* A bad value: a warning that names it, and the product on "auto"'s backend, no abort. */
  static const char *const bad[] = { "tpu", "cpu ", "cpux", "cp" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      CHECK_CASE ("TILEMM_BLAS_BACKEND=\"%s\" warns and computes on auto", bad[i]);
      const int ok = backend_child (bad[i], said, sizeof said);
      CHECK (ok, "the child aborted or computed a wrong product; stderr: %s", said);
      char want[64];
      snprintf (want, sizeof want, "TILEMM_BLAS_BACKEND=\"%s\" is not cpu, gpu or auto", bad[i]);
      CHECK (strstr (said, want) != NULL && strstr (said, "DGEMM") != NULL, "stderr: %s", said);
    }
}

/* The library's memset (blas_memset.c): the memset this program calls is the library's; a large
 * block is set in parallel slices, so every byte of it, whatever its alignment and length and on
 * fresh pages or resident ones, must hold the value, and no byte beside it may change; small
 * blocks and TILEMM_BLAS_MEMSET=0 go to the C library's. */
static void memset_cases (void)
{
  CHECK_CASE ("memset: the program's memset is the library's (the object that has dgemm_)");
  Dl_info where, library;
  void *found = dlsym (RTLD_DEFAULT, "memset");
  CHECK (found && dladdr (found, &where) && dladdr ((void *) &dgemm_, &library)
           && where.dli_fbase == library.dli_fbase,
         "memset comes from %s", found && dladdr (found, &where) ? where.dli_fname : "nowhere");
  /* Called through a volatile pointer, so the compiler cannot expand it inline. */
  void *(*volatile set) (void *, int, size_t) = memset;
  static const struct { size_t offset, bytes; int value; } cases[] = {
    { 0, 32u << 20, 0 },                    /* exactly the parallel threshold, aligned  */
    { 1, (33u << 20) + 123, 0x5A },         /* unaligned start, ragged end              */
    { 4095, (100u << 20) + 4095, 0 },       /* one byte short of a page, then 100 MiB    */
    { 4097, (64u << 20) - 1, 0xFF },
    { 7, (32u << 20) - 1, 0x11 },           /* one byte under the threshold: the C library's */
    { 3, 1000, 0x22 },
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int fresh = 0; fresh <= 1; fresh++)
      {
        CHECK_CASE ("memset: %zu bytes at offset %zu, value %#x, %s pages", cases[c].bytes,
                    cases[c].offset, (unsigned) cases[c].value, fresh ? "fresh" : "resident");
        const size_t guard = 8192, total = cases[c].offset + cases[c].bytes + 2 * guard;
        unsigned char *block = mmap (NULL, total, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK (block != MAP_FAILED, "mmap of %zu bytes", total);
        if (block == MAP_FAILED)
          continue;
        unsigned char *const at = block + guard + cases[c].offset;
        const unsigned char poison = (unsigned char) (cases[c].value ^ 0xA5);
        /* The guards (and, for resident pages, the block) hold the poison first. */
        const size_t begin = guard + cases[c].offset, end = begin + cases[c].bytes;
        for (size_t i = 0; i < total; i++)
          if (!fresh || i < begin || i >= end)
            block[i] = poison;
        set (at, cases[c].value, cases[c].bytes);
        size_t wrong = 0, touched = 0;
        for (size_t i = 0; i < cases[c].bytes; i++)
          wrong += at[i] != (unsigned char) cases[c].value;
        for (size_t i = 0; i < total; i++)
          touched += (i < begin || i >= end) && block[i] != poison;
        CHECK (wrong == 0, "%zu bytes of the block not set", wrong);
        CHECK (touched == 0, "%zu bytes beside the block changed", touched);
        munmap (block, total);
      }
}

/* TEST_BLAS_DECISIONS=1 (tests/blas-fallback.sh, on the stand-in GPU with
 * TILEMM_BLAS_BACKEND=auto and TILEMM_BLAS_TRACE): only products whose place "auto" decides,
 * on either side of the crossovers, for the script to read from the trace: dgemm_ of 512 (the
 * plain product pays on the GPU) beside dsyrk_ of 512, 'N' and 'T' (the rank-k update, half the
 * host's flops, does not) and of 640 (it does); zgemm_ of 300 (pays) beside zherk_ of 300 (does
 * not) and 400 (does).  Without a next BLAS, what "auto" leaves to `*` runs on tilemm's CPU
 * backend ("cpu" in the trace). */
static void decision_calls (void)
{
  const int n512 = 512, n640 = 640, n300 = 300, n400 = 400;
  const double one = 1, zero = 0, zone[2] = { 1, 0 }, zzero[2] = { 0, 0 };
  double *a = malloc (sizeof (double) * 2 * 640 * 640), *c = malloc (sizeof (double) * 2 * 640 * 640);
  if (!a || !c)
    exit (2);
  for (int i = 0; i < 2 * 640 * 640; i++)
    a[i] = (double) (i % 7) - 3;
  dgemm_ ("N", "N", &n512, &n512, &n512, &one, a, &n512, a, &n512, &zero, c, &n512);
  dsyrk_ ("U", "N", &n512, &n512, &one, a, &n512, &zero, c, &n512);
  dsyrk_ ("L", "T", &n512, &n512, &one, a, &n512, &zero, c, &n512);
  dsyrk_ ("U", "T", &n640, &n640, &one, a, &n640, &zero, c, &n640);
  zgemm_ ("N", "C", &n300, &n300, &n300, zone, a, &n300, a, &n300, zzero, c, &n300);
  zherk_ ("U", "N", &n300, &n300, &one, a, &n300, &zero, c, &n300);
  zherk_ ("L", "C", &n400, &n400, &one, a, &n400, &zero, c, &n400);
  free (a);
  free (c);
}

/* TEST_BLAS_DEVICES=1 (tests/blas-fallback.sh, on three stand-in GPUs: MOCK_CUDA_DEVICES=3,
 * TILEMM_BLAS_BACKEND=gpu): the library's products spread over the devices TILEMM_DEVICES names,
 * as the plan of tilemm (A, B) spreads them, bitwise the products on GPU 0 alone; the figures
 * say every device ran; then a GPU failing part way: the product is computed again by the CPU
 * backend (one line on stderr, said once), bitwise the same, and nothing is left on the devices
 * that tilemm does not hold.  The stand-in's and the library's own functions are found in this
 * program (linked in, -rdynamic). */
typedef struct tilemm_cuda_stats_s stats_t;
static void devices_cases (void)
{
  void (*last_stats) (stats_t *) = (void (*) (stats_t *)) dlsym (RTLD_DEFAULT, "tilemm_cuda_last_stats");
  size_t (*held) (void) = (size_t (*) (void)) dlsym (RTLD_DEFAULT, "tilemm_cuda_bytes_held");
  size_t (*mock_held) (void) = (size_t (*) (void)) dlsym (RTLD_DEFAULT, "mock_cuda_device_bytes");
  void (*fail) (int, int) = (void (*) (int, int)) dlsym (RTLD_DEFAULT, "mock_cuda_fail_device");
  void (*slow) (int, unsigned) = (void (*) (int, unsigned)) dlsym (RTLD_DEFAULT, "mock_cuda_slow_device");
  CHECK_CASE ("devices: the library over three stand-in GPUs");
  CHECK (last_stats && held && mock_held && fail && slow, "not linked with the stand-in runtime");
  if (!last_stats || !held || !mock_held || !fail || !slow)
    return;
  static const struct { int t; const char *ta, *tb; int m, n, k; } cases[] = {
    { D, "N", "N", 300, 900, 50 }, { S, "T", "T", 700, 260, 33 }, { Z, "C", "N", 200, 500, 40 },
    { C, "N", "T", 260, 300, 20 } };
  const double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      const int t = cases[i].t, m = cases[i].m, n = cases[i].n, k = cases[i].k;
      const int ta = cases[i].ta[0] != 'N', tb = cases[i].tb[0] != 'N';
      const int lda = ta ? k : m, ldb = tb ? n : k;
      const size_t es = elem_size (t), reals = is_complex (t) ? 2 : 1;
      const size_t na = (size_t) m * (size_t) k, nb = (size_t) k * (size_t) n;
      const size_t nc = (size_t) m * (size_t) n;
      unsigned char *a = malloc (na * es), *b = malloc (nb * es), *c[3];
      for (int j = 0; j < 3; j++)
        c[j] = malloc (nc * es);
      if (!a || !b || !c[0] || !c[1] || !c[2])
        exit (2);
      for (size_t j = 0; j < na * reals; j++)
        put (t == C || t == S ? S : D, a, j, uniform (), 0);
      for (size_t j = 0; j < nb * reals; j++)
        put (t == C || t == S ? S : D, b, j, uniform (), 0);
      CHECK_CASE ("devices: %s %s%s %dx%dx%d on [0 1 2] is bitwise GPU 0's", type_name[t],
                  cases[i].ta, cases[i].tb, m, n, k);
      static const char *const lists[] = { "0", "0,1,2" };
      for (int j = 0; j < 2; j++)
        {
          setenv ("TILEMM_DEVICES", lists[j], 1);
          memset (c[j], 0x5A, nc * es);
          call_gemm (t, cases[i].ta, cases[i].tb, m, n, k, one, a, lda, b, ldb, zero, c[j], m);
          stats_t st;
          last_stats (&st);
          CHECK (st.ok && st.devices == (j ? 3 : 1), "TILEMM_DEVICES=%s: %d device(s) ran",
                 lists[j], st.devices);
        }
      CHECK (memcmp (c[0], c[1], nc * es) == 0, "not bitwise GPU 0's");
      if (i == 0)
        {
          CHECK_CASE ("devices: GPU 2 failing part way: computed again, nothing left");
          slow (0, 3000);
          slow (1, 3000);
          fail (2, 2);
          memset (c[2], 0x5A, nc * es);
          call_gemm (t, cases[i].ta, cases[i].tb, m, n, k, one, a, lda, b, ldb, zero, c[2], m);
          fail (-1, 0);
          slow (-1, 0);
          stats_t st;
          last_stats (&st);
          CHECK (!st.ok, "the figures say the failed product succeeded");
          CHECK (memcmp (c[0], c[2], nc * es) == 0, "the product computed again differs");
          CHECK (held () == mock_held (), "tilemm holds %zu device bytes, the devices %zu",
                 held (), mock_held ());
        }
      unsetenv ("TILEMM_DEVICES");
      free (a);
      free (b);
      for (int j = 0; j < 3; j++)
        free (c[j]);
    }
}

int main (int argc, char **argv)
{
  const char *name = argc > 1 ? argv[1] : "test_blas";
  if (getenv ("TEST_BLAS_DECISIONS"))
    {
      decision_calls ();
      return 0;
    }
  if (getenv ("TEST_BLAS_DEVICES"))
    {
      devices_cases ();
      return check_summary (name);
    }
  static const char *const ops[] = { "N", "T", "C" };
  static const int sizes[][3] = { { 1, 1, 1 }, { 3, 5, 2 }, { 7, 1, 9 }, { 17, 9, 33 },
                                  { 70, 65, 130 } };
  for (int t = S; t <= Z; t++)
    {
      const double alphas[][2] = { { 0, 0 }, { 1, 0 }, { 0.7, is_complex (t) ? -0.9 : 0 } };
      const double betas[][2] = { { 0, 0 }, { 1, 0 }, { 1.3, is_complex (t) ? -1.1 : 0 } };
      for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++)
          for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int p = 0; p < 3; p++)
              for (int q = 0; q < 3; q++)
                product_case (t, ops[x], ops[y], sizes[s][0], sizes[s][1], sizes[s][2],
                              alphas[p], betas[q]);
      /* Lower-case letters are the same options. */
      product_case (t, "t", "c", 6, 4, 5, alphas[2], betas[2]);
      product_case (t, "n", "t", 6, 4, 5, alphas[2], betas[0]);
      quick_cases (t);
      error_cases (t);
      rank_k_cases (t, 0);
      if (is_complex (t))
        rank_k_cases (t, 1);
    }
  /* (TEST_BLAS_QUICK: runs that repeat the products elsewhere, tests/blas-fallback.sh) */
  if (!getenv ("TEST_BLAS_QUICK"))
    {
      thread_cases ();
      many_calls_case ();
    }
  backend_cases ();
  memset_cases ();
  return check_summary (name);
}
