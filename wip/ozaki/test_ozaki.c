/* test_ozaki.c -- tests of the CPU Ozaki-II reference (tilemm issue 11 WIP).
 * Reference: __float128 triple loop (libquadmath not needed: only + and *
 * of __float128, which libgcc provides).  Baseline "*": plain double
 * triple loop in k order.
 * Build: see README.md in this directory.
 */
#include "ozaki.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int npass, nfail, nskip;
static int g_rebalance = 1;  /* oz_opts.rebalance used by accuracy_case */
#define CHECK(cond, ...) do { if (cond) npass++; else { nfail++; \
  printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* ------------------------------------------------------------- random */
static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint64_t rnd64(void) { rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27; return rs * 2685821657736338717ull; }
static double urand(void) { return (double)(rnd64() >> 11) * 0x1p-53; }
static double nrand(void)
{
  double u1 = urand(), u2 = urand();
  if (u1 < 1e-300) u1 = 1e-300;
  return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ------------------------------------------------------- products */
static void native(int m, int n, int k, const double *A, const double *B, double *C)
{
  for (int j = 0; j < n; j++) for (int i = 0; i < m; i++) {
    double s = 0;
    for (int p = 0; p < k; p++) s += A[i + (size_t)p * m] * B[p + (size_t)j * k];
    C[i + (size_t)j * m] = s;
  }
}
static void refq(int m, int n, int k, const double *A, const double *B,
                 __float128 *R, __float128 *S)
{
  for (int j = 0; j < n; j++) for (int i = 0; i < m; i++) {
    __float128 s = 0, a = 0;
    for (int p = 0; p < k; p++) {
      __float128 t = (__float128)A[i + (size_t)p * m] * (__float128)B[p + (size_t)j * k];
      s += t; a += t < 0 ? -t : t;
    }
    R[i + (size_t)j * m] = s; S[i + (size_t)j * m] = a;
  }
}

typedef struct { double rel, relS; } errs;
/* rel: max |c-r|/|r| over r != 0 (entries with r == 0 use |c-r|/S);
 * relS: max |c-r| / (|A||B|)_ij  (normwise-per-entry measure). */
static errs measure(int m, int n, const double *C, const __float128 *R, const __float128 *S)
{
  errs e = {0, 0};
  for (int q = 0; q < m * n; q++) {
    __float128 d = (__float128)C[q] - R[q]; if (d < 0) d = -d;
    __float128 r = R[q] < 0 ? -R[q] : R[q];
    double x;
    if (S[q] == 0) { x = d == 0 ? 0 : INFINITY; if (x > e.rel) e.rel = x; if (x > e.relS) e.relS = x; continue; }
    x = (double)(r > 0 ? d / r : d / S[q]); if (x > e.rel) e.rel = x;
    x = (double)(d / S[q]); if (x > e.relS) e.relS = x;
  }
  return e;
}
/* the rigorous bound of ozaki.c: |c-r| <= u|r|(1+) + 2^-(t+g)|A||B| + ref slack */
static int bound_ok(int m, int n, int k, const double *C, const __float128 *R,
                    const __float128 *S, int t, int g)
{
  for (int q = 0; q < m * n; q++) {
    __float128 d = (__float128)C[q] - R[q]; if (d < 0) d = -d;
    __float128 r = R[q] < 0 ? -R[q] : R[q];
    __float128 b = r * (__float128)ldexp(1.0, -t) * (__float128)1.0000001
                 + S[q] * (__float128)ldexp(1.0, -(t + g))
                 + S[q] * (__float128)k * (__float128)ldexp(1.0, -110)
                 + (__float128)ldexp(1.0, -1074);
    if (d > b) { printf("  bound violated at %d: err %.3e bound %.3e\n", q, (double)d, (double)b); return 0; }
  }
  return 1;
}

/* run ozaki + native on (A,B), report, and assert bound + "not worse" */
static void accuracy_case(const char *name, int m, int n, int k, const double *A, const double *B,
                          int target, int expect_range_ok)
{
  double *Co = calloc((size_t)m * n, sizeof(double)), *Cn = calloc((size_t)m * n, sizeof(double));
  __float128 *R = malloc(sizeof(__float128) * (size_t)m * n), *S = malloc(sizeof(__float128) * (size_t)m * n);
  oz_opts o; oz_default_opts(&o); o.target_bits = target; o.rebalance = g_rebalance;
  oz_info inf;
  int rc = oz_dgemm(m, n, k, A, m, B, k, Co, m, &o, &inf);
  native(m, n, k, A, B, Cn);
  refq(m, n, k, A, B, R, S);
  errs en = measure(m, n, Cn, R, S);
  if (rc == OZ_RANGE) {
    printf("  %-34s m=%d n=%d k=%d: OZ_RANGE (fallback to native), native rel %.2e\n", name, m, n, k, en.rel);
    CHECK(expect_range_ok, "%s: unexpected OZ_RANGE", name);
    goto done;
  }
  CHECK(rc == OZ_OK, "%s: rc=%d", name, rc);
  if (rc != OZ_OK) goto done;
  errs eo = measure(m, n, Co, R, S);
  printf("  %-34s m=%d n=%d k=%d t=%d: N=%2d pA=%d pB=%d%s | rel: ozaki %.2e native %.2e | err/(|A||B|): ozaki %.2e native %.2e\n",
         name, m, n, k, target, inf.nmod, inf.pA, inf.pB, inf.rebalanced ? " (rebal)" : "", eo.rel, en.rel, eo.relS, en.relS);
  CHECK(bound_ok(m, n, k, Co, R, S, target, o.guard_bits), "%s: error bound", name);
  if (target == 53)
    CHECK(eo.rel <= fmax(en.rel, 0x1p-52), "%s: ozaki rel %.3e > native %.3e", name, eo.rel, en.rel);
done:
  free(Co); free(Cn); free(R); free(S);
}

/* ---------------------------------------------------------------- tests */
static void test_moduli(void)
{
  int ok = 1;
  for (int a = 0; a < OZ_MAX_MODULI; a++) for (int b = a + 1; b < OZ_MAX_MODULI; b++) {
    int x = oz_moduli[a], y = oz_moduli[b];
    while (y) { int t = x % y; x = y; y = t; }
    if (x != 1) ok = 0;
  }
  CHECK(ok, "moduli not pairwise coprime");
  double l = 0; for (int t = 0; t < OZ_MAX_MODULI; t++) l += log2(oz_moduli[t]);
  printf("  moduli: %d, log2(product) = %.2f bits\n", OZ_MAX_MODULI, l);
}

static void test_residue(void)
{
  int ok = 1;
  for (int it = 0; it < 200000; it++) {
    int64_t x = (int64_t)(rnd64() >> (rnd64() % 64)) * ((rnd64() & 1) ? 1 : -1);
    int m = oz_moduli[rnd64() % OZ_MAX_MODULI];
    int r = oz_residue_s8(x, m);
    if (r < -128 || r > 127 || (((x % m) - r) % m) != 0) { ok = 0; break; }
  }
  CHECK(ok, "oz_residue_s8 range/congruence");
}

/* exactness of int8 x int8 -> int32 chunked products vs int64 direct */
static void test_s8_gemm(void)
{
  const int m = 4, n = 5;
  for (int kcase = 0; kcase < 3; kcase++) {
    int k = kcase == 0 ? 1000 : kcase == 1 ? 131071 : 300000;
    int8_t *a = malloc((size_t)m * k), *b = malloc((size_t)n * k);
    for (size_t q = 0; q < (size_t)m * k; q++) a[q] = (int8_t)(rnd64() & 255);
    for (size_t q = 0; q < (size_t)n * k; q++) b[q] = (int8_t)(rnd64() & 255);
    /* worst case for int32: rows/cols of -128 (product +2^14 each term) */
    for (int p = 0; p < k; p++) { a[p] = -128; b[p] = -128; a[(size_t)k + p] = -128; b[(size_t)k + p] = 127; }
    int32_t out[20]; int64_t full[20];
    for (int l = 0; l < OZ_MAX_MODULI; l += 7) {
      int md = oz_moduli[l];
      int ok = 1;
      oz_gemm_s8_mod(m, n, k, a, b, md, 0, out, full);
      for (int j = 0; j < n; j++) for (int i = 0; i < m; i++) {
        int64_t s = 0;
        for (int p = 0; p < k; p++) s += (int64_t)a[(size_t)i * k + p] * b[(size_t)j * k + p];
        int64_t r = ((s % md) + md) % md;
        if (s != full[i + j * m] || r != out[i + j * m]) ok = 0;
      }
      CHECK(ok, "s8 gemm exactness k=%d mod=%d", k, md);
      /* odd small chunk must give the same residues */
      int32_t out2[20];
      oz_gemm_s8_mod(m, n, k, a, b, md, 977, out2, NULL);
      CHECK(memcmp(out, out2, sizeof out) == 0, "s8 gemm chunk invariance k=%d", k);
    }
    if (kcase == 2) {  /* int32 overflow would happen without chunking */
      int64_t s = 0; for (int p = 0; p < k; p++) s += 16384;
      printf("  s8 gemm k=%d: worst-case exact sum %lld (> 2^31-1 = %lld), chunked result exact\n",
             k, (long long)s, (long long)2147483647);
    }
    free(a); free(b);
  }
}

/* CRT reconstruction + correctly rounded conversion */
static void test_crt(void)
{
  int ok = 1;
  for (int N = 1; N <= 16; N++) {   /* product of first 16 moduli < 2^127 */
    double l = 0; for (int t = 0; t < N; t++) l += log2(oz_moduli[t]);
    int bits = (int)floor(l) - 2;
    for (int it = 0; it < 3000; it++) {
      unsigned __int128 u = ((unsigned __int128)rnd64() << 64) | rnd64();
      int sh = 128 - (int)(1 + rnd64() % (unsigned)bits);
      __int128 x = (__int128)(u >> sh);
      if (rnd64() & 1) x = -x;
      int32_t res[OZ_MAX_MODULI];
      for (int t = 0; t < N; t++) { int md = oz_moduli[t]; res[t] = (int32_t)(((x % md) + md) % md); }
      double got = oz_crt_to_double(res, N, 0);
      double want = (double)x;    /* libgcc __floattidf: correctly rounded */
      if (got != want) { ok = 0; printf("  crt N=%d: got %.17g want %.17g\n", N, got, want); break; }
      int e = (int)(rnd64() % 200) - 100;
      if (oz_crt_to_double(res, N, e) != ldexp(want, e)) { ok = 0; printf("  crt shift failed\n"); break; }
    }
    if (!ok) break;
  }
  CHECK(ok, "CRT reconstruction == correctly rounded (double)__int128");
  /* hand cases of the single rounding: ties, subnormals, overflow */
  uint64_t w[4] = {0, 0, 0, 0};
  w[0] = (1ull << 53) + 1; CHECK(oz_big_to_double(w, 0, 0) == 0x1p53, "tie to even down");
  w[0] = (1ull << 53) + 3; CHECK(oz_big_to_double(w, 0, 0) == 0x1p53 + 4, "tie to even up");
  w[0] = 3; CHECK(oz_big_to_double(w, 0, -1076) == 0x1p-1074, "subnormal 0.75 ulp");
  w[0] = 1; CHECK(oz_big_to_double(w, 0, -1075) == 0.0, "subnormal tie to 0");
  w[0] = 3; CHECK(oz_big_to_double(w, 1, -1075) == -0x1p-1073, "subnormal tie to even");
  w[0] = 1; CHECK(isinf(oz_big_to_double(w, 0, 1024)), "overflow to Inf");
  w[0] = 0; w[2] = 1; /* 2^128 * 2^-1202 = 2^-1074 */
  CHECK(oz_big_to_double(w, 0, -1202) == 0x1p-1074, "wide limb subnormal");
  /* one rounding, not two: (2^54+2^53... ) mantissa straddling subnormal */
  w[2] = 0; w[0] = (1ull << 60) + (1ull << 7) + 1; /* rounds at bit 8 in subnormal range */
  { double got = oz_big_to_double(w, 0, -1074 - 8);
    double want = ldexp((double)(((1ull << 60) >> 8) + 1), -1074); /* 0.5+ ulp -> up */
    CHECK(got == want, "single rounding into subnormal"); }
}

static void test_integer_exact(void)
{
  int m = 30, n = 20, k = 50;
  double *A = malloc(sizeof(double) * m * k), *B = malloc(sizeof(double) * k * n), *C = malloc(sizeof(double) * m * n);
  for (int q = 0; q < m * k; q++) A[q] = (double)((int64_t)(rnd64() % 200001) - 100000);
  for (int q = 0; q < k * n; q++) B[q] = (double)((int64_t)(rnd64() % 2001) - 1000);
  oz_info inf;
  int rc = oz_dgemm(m, n, k, A, m, B, k, C, m, NULL, &inf);
  int ok = rc == OZ_OK;
  for (int j = 0; ok && j < n; j++) for (int i = 0; i < m; i++) {
    int64_t s = 0; for (int p = 0; p < k; p++) s += (int64_t)A[i + p * m] * (int64_t)B[p + j * k];
    if (C[i + j * m] != (double)s) { ok = 0; break; }
  }
  CHECK(ok, "integer data exact (rc=%d)", rc);
  /* fixed-moduli mode also exact when the integers fit */
  oz_opts o; oz_default_opts(&o); o.nmoduli = 8;
  rc = oz_dgemm(m, n, k, A, m, B, k, C, m, &o, &inf);
  ok = rc == OZ_OK;
  for (int j = 0; ok && j < n; j++) for (int i = 0; i < m; i++) {
    int64_t s = 0; for (int p = 0; p < k; p++) s += (int64_t)A[i + p * m] * (int64_t)B[p + j * k];
    if (C[i + j * m] != (double)s) { ok = 0; break; }
  }
  printf("  integer data: exact with automatic plan and with fixed N=8 (p=%d)\n", inf.pA);
  CHECK(ok, "integer data exact, fixed N=8 (rc=%d)", rc);
  free(A); free(B); free(C);
}

static void test_special(void)
{
  double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4] = {-7, -7, -7, -7};
  A[2] = NAN;
  CHECK(oz_dgemm(2, 2, 2, A, 2, B, 2, C, 2, NULL, NULL) == OZ_NONFINITE && C[0] == -7, "NaN -> OZ_NONFINITE");
  A[2] = 3; B[1] = -INFINITY;
  CHECK(oz_dgemm(2, 2, 2, A, 2, B, 2, C, 2, NULL, NULL) == OZ_NONFINITE, "Inf -> OZ_NONFINITE");
  B[1] = 0;
  double Z[4] = {0, 0, 0, 0};
  CHECK(oz_dgemm(2, 2, 2, Z, 2, B, 2, C, 2, NULL, NULL) == OZ_OK && C[0] == 0 && C[3] == 0, "zero A");
  C[0] = 5;
  CHECK(oz_dgemm(2, 2, 0, A, 2, B, 1, C, 2, NULL, NULL) == OZ_OK && C[0] == 0, "k = 0");
  CHECK(oz_dgemm(2, 2, 2, A, 1, B, 2, C, 2, NULL, NULL) == OZ_BADARG, "bad lda");
  /* leading dimensions: embed in larger arrays */
  int m = 7, n = 5, k = 9, lda = 11, ldb = 13, ldc = 10;
  double *Al = calloc((size_t)lda * k, sizeof(double)), *Bl = calloc((size_t)ldb * n, sizeof(double));
  double *Cl = calloc((size_t)ldc * n, sizeof(double)), *Ap = malloc(sizeof(double) * m * k);
  double *Bp = malloc(sizeof(double) * k * n), *Cp = malloc(sizeof(double) * m * n);
  for (int p = 0; p < k; p++) for (int i = 0; i < m; i++) Ap[i + p * m] = Al[i + p * lda] = nrand();
  for (int j = 0; j < n; j++) for (int p = 0; p < k; p++) Bp[p + j * k] = Bl[p + j * ldb] = nrand();
  oz_dgemm(m, n, k, Al, lda, Bl, ldb, Cl, ldc, NULL, NULL);
  oz_dgemm(m, n, k, Ap, m, Bp, k, Cp, m, NULL, NULL);
  int ok = 1;
  for (int j = 0; j < n; j++) for (int i = 0; i < m; i++) if (Cl[i + j * ldc] != Cp[i + j * m]) ok = 0;
  CHECK(ok, "leading dimensions");
  /* k-chunk invariance of the whole pipeline */
  oz_opts o; oz_default_opts(&o); o.kchunk = 2;
  oz_dgemm(m, n, k, Ap, m, Bp, k, Cl, m, &o, NULL);
  CHECK(memcmp(Cl, Cp, sizeof(double) * m * n) == 0, "kchunk=2 gives identical result");
  free(Al); free(Bl); free(Cl); free(Ap); free(Bp); free(Cp);
}

static void test_accuracy(void)
{
  int m = 48, n = 40, k = 256;
  double *A = malloc(sizeof(double) * 64 * 10000), *B = malloc(sizeof(double) * 64 * 10000);

  for (int q = 0; q < m * k; q++) A[q] = nrand();
  for (int q = 0; q < k * n; q++) B[q] = nrand();
  accuracy_case("N(0,1)", m, n, k, A, B, 53, 0);
  accuracy_case("N(0,1) single-accurate", m, n, k, A, B, 24, 0);
  accuracy_case("N(0,1) k=1", m, n, 1, A, B, 53, 0);
  accuracy_case("N(0,1) k=2", m, n, 2, A, B, 53, 0);

  /* uniform(0,1): no cancellation, native is very accurate here */
  for (int q = 0; q < m * k; q++) A[q] = urand();
  for (int q = 0; q < k * n; q++) B[q] = urand();
  accuracy_case("U(0,1)", m, n, k, A, B, 53, 0);

  /* rows of A and columns of B scaled 1e-100..1e100 */
  for (int i = 0; i < m; i++) { double s = pow(10.0, -100 + 200 * urand()); for (int p = 0; p < k; p++) A[i + p * m] = nrand() * s; }
  for (int j = 0; j < n; j++) { double s = pow(10.0, -100 + 200 * urand()); for (int p = 0; p < k; p++) B[p + j * k] = nrand() * s; }
  accuracy_case("row/col scales 1e-100..1e100", m, n, k, A, B, 53, 0);

  /* entries with exponent spread inside rows: a_ij = N(0,1)*exp(phi*N(0,1))
   * (the paper's phi test); phi=0.5, 2 */
  for (int ph = 0; ph < 2; ph++) {
    double phi = ph ? 2.0 : 0.5;
    for (int q = 0; q < m * k; q++) A[q] = nrand() * exp(phi * nrand());
    for (int q = 0; q < k * n; q++) B[q] = nrand() * exp(phi * nrand());
    accuracy_case(ph ? "exp spread phi=2" : "exp spread phi=0.5", m, n, k, A, B, 53, 1);
  }

  /* inner-dimension scaling A*D, D^-1*B: product well scaled, rows of A
   * span a wide range -> needs many bits; moderate (2^+-8) and extreme */
  for (int ex = 0; ex < 2; ex++) {
    for (int p = 0; p < k; p++) {
      double d = ex ? pow(10.0, -100 + 200 * urand()) : ldexp(1.0, (int)(rnd64() % 17) - 8);
      for (int i = 0; i < m; i++) A[i + p * m] = nrand() * d;
      for (int j = 0; j < n; j++) B[p + j * k] = nrand() / d;
    }
    accuracy_case(ex ? "inner scales 1e-100..1e100" : "inner scales 2^-8..2^8", m, n, k, A, B, 53, 1);
    g_rebalance = 0;
    accuracy_case(ex ? "  same, rebalance off" : "  same, rebalance off", m, n, k, A, B, 53, 1);
    g_rebalance = 1;
  }

  /* ill-conditioned: A = [X X], B = [Y; Z], Z = -Y(1+1e-12 r): C = X(Y+Z)
   * cancels ~12 digits */
  {
    int kh = k / 2;
    for (int p = 0; p < kh; p++) for (int i = 0; i < m; i++) A[i + p * m] = A[i + (p + kh) * m] = nrand();
    for (int j = 0; j < n; j++) for (int p = 0; p < kh; p++) {
      double y = nrand();
      B[p + j * k] = y; B[p + kh + j * k] = -y * (1 + 1e-12 * nrand());
    }
    accuracy_case("ill-conditioned (cancel 1e-12)", m, n, k, A, B, 53, 0);
  }

  /* large k */
  {
    int mm = 8, nn = 8, kk = 10000;
    for (int q = 0; q < mm * kk; q++) A[q] = nrand();
    for (int q = 0; q < kk * nn; q++) B[q] = nrand();
    accuracy_case("N(0,1) large k", mm, nn, kk, A, B, 53, 0);
    for (int q = 0; q < mm * kk; q++) A[q] = urand();
    for (int q = 0; q < kk * nn; q++) B[q] = urand();
    accuracy_case("U(0,1) large k", mm, nn, kk, A, B, 53, 0);
  }

  /* fixed number of moduli (paper's mode; informational, no accuracy
   * guarantee, no assertion) */
  for (int q = 0; q < m * k; q++) A[q] = nrand();
  for (int q = 0; q < k * n; q++) B[q] = nrand();
  {
    double *C = malloc(sizeof(double) * m * n), *Cn = malloc(sizeof(double) * m * n);
    __float128 *R = malloc(sizeof(__float128) * m * n), *S = malloc(sizeof(__float128) * m * n);
    refq(m, n, k, A, B, R, S); native(m, n, k, A, B, Cn);
    errs en = measure(m, n, Cn, R, S);
    for (int N = 8; N <= 20; N += 2) {
      oz_opts o; oz_default_opts(&o); o.nmoduli = N; oz_info inf;
      int rc = oz_dgemm(m, n, k, A, m, B, k, C, m, &o, &inf);
      if (rc != OZ_OK) { printf("  fixed N=%d: rc=%d\n", N, rc); continue; }
      errs e = measure(m, n, C, R, S);
      printf("  fixed N=%2d (p=%2d) N(0,1) k=%d: rel ozaki %.2e (native %.2e), err/(|A||B|) %.2e (native %.2e)\n",
             N, inf.pA, k, e.rel, en.rel, e.relS, en.relS);
    }
    nskip++;  /* counted as skipped: informational only */
    free(C); free(Cn); free(R); free(S);
  }
  free(A); free(B);
}

/* complex through real products: compare with __float128 reference of
 * each part; bound per part uses |Ar||Br|+|Ai||Bi| etc. */
static void test_complex(void)
{
  int m = 20, n = 18, k = 300;
  double *A = malloc(sizeof(double) * 2 * m * k), *B = malloc(sizeof(double) * 2 * k * n);
  double *C = malloc(sizeof(double) * 2 * m * n), *Cn = malloc(sizeof(double) * 2 * m * n);
  for (int q = 0; q < 2 * m * k; q++) A[q] = nrand();
  for (int q = 0; q < 2 * k * n; q++) B[q] = nrand();
  for (int i = 0; i < m; i++) { double s = pow(10.0, -50 + 100 * urand()); for (int p = 0; p < k; p++) { A[2*(i+p*m)] *= s; A[2*(i+p*m)+1] *= s; } }
  oz_info inf;
  int rc = oz_zgemm(m, n, k, A, m, B, k, C, m, NULL, &inf);
  CHECK(rc == OZ_OK, "zgemm rc=%d", rc);
  double eo = 0, en = 0, eoS = 0, enS = 0; int ok = 1;
  for (int j = 0; j < n; j++) for (int i = 0; i < m; i++) {
    __float128 rr = 0, ri = 0, sr = 0, si = 0; double nr = 0, ni = 0;
    for (int p = 0; p < k; p++) {
      double ar = A[2*(i+p*m)], ai = A[2*(i+p*m)+1], br = B[2*(p+j*k)], bi = B[2*(p+j*k)+1];
      __float128 t1 = (__float128)ar * br, t2 = (__float128)ai * bi, t3 = (__float128)ar * bi, t4 = (__float128)ai * br;
      rr += t1 - t2; ri += t3 + t4;
      sr += (t1 < 0 ? -t1 : t1) + (t2 < 0 ? -t2 : t2); si += (t3 < 0 ? -t3 : t3) + (t4 < 0 ? -t4 : t4);
      nr += ar * br - ai * bi; ni += ar * bi + ai * br;   /* naive complex loop */
    }
    double c[2] = {C[2*(i+j*m)], C[2*(i+j*m)+1]}, cn[2] = {nr, ni};
    __float128 r[2] = {rr, ri}, s[2] = {sr, si};
    for (int t = 0; t < 2; t++) {
      __float128 d = (__float128)c[t] - r[t]; if (d < 0) d = -d;
      __float128 dn = (__float128)cn[t] - r[t]; if (dn < 0) dn = -dn;
      __float128 ar = r[t] < 0 ? -r[t] : r[t];
      if (ar > 0) { if ((double)(d / ar) > eo) eo = (double)(d / ar); if ((double)(dn / ar) > en) en = (double)(dn / ar); }
      if (s[t] > 0) { if ((double)(d / s[t]) > eoS) eoS = (double)(d / s[t]); if ((double)(dn / s[t]) > enS) enS = (double)(dn / s[t]); }
      __float128 b = ar * (__float128)0x1.0000002p-53 + s[t] * (__float128)0x1p-54 + s[t] * (__float128)(2 * k) * (__float128)0x1p-110;
      if (d > b) ok = 0;
    }
  }
  printf("  complex (rows 1e-50..1e50)         m=%d n=%d k=%d: N=%d | rel: ozaki %.2e native %.2e | err/(|A||B|): ozaki %.2e native %.2e\n",
         m, n, k, inf.nmod, eo, en, eoS, enS);
  CHECK(ok, "complex error bound");
  CHECK(eo <= fmax(en, 0x1p-52), "complex ozaki rel %.3e > native %.3e", eo, en);
  A[5] = NAN;
  CHECK(oz_zgemm(m, n, k, A, m, B, k, C, m, NULL, NULL) == OZ_NONFINITE, "complex NaN -> OZ_NONFINITE");
  free(A); free(B); free(C); free(Cn);
}

/* extreme magnitudes: results in the subnormal range and beyond DBL_MAX */
static void test_extreme(void)
{
  int m = 16, n = 16, k = 64;
  double *A = malloc(sizeof(double) * m * k), *B = malloc(sizeof(double) * k * n);
  double *C = malloc(sizeof(double) * m * n), *Cn = malloc(sizeof(double) * m * n);
  for (int i = 0; i < m; i++) { double s = pow(10.0, -165 + 330.0 * i / (m - 1)); for (int p = 0; p < k; p++) A[i + p * m] = nrand() * s; }
  for (int j = 0; j < n; j++) { double s = pow(10.0, -165 + 330.0 * j / (n - 1)); for (int p = 0; p < k; p++) B[p + j * k] = nrand() * s; }
  oz_info inf;
  int rc = oz_dgemm(m, n, k, A, m, B, k, C, m, NULL, &inf);
  CHECK(rc == OZ_OK, "extreme rc=%d", rc);
  native(m, n, k, A, B, Cn);
  int ok = 1, nsub = 0, ninf = 0, ninf_nat = 0, nnan_nat = 0; double eo = 0, en = 0;
  for (int q = 0; q < m * n; q++) {
    int i = q % m, j = q / m;
    __float128 r = 0, s = 0;
    for (int p = 0; p < k; p++) { __float128 t = (__float128)A[i + p * m] * B[p + j * k]; r += t; s += t < 0 ? -t : t; }
    __float128 ar = r < 0 ? -r : r;
    if (ar > (__float128)1.7976931348623157e308) {   /* true result overflows */
      ninf++; if (isinf(Cn[q])) ninf_nat++; if (isnan(Cn[q])) nnan_nat++;
      if (!(isinf(C[q]) && (C[q] > 0) == (r > 0))) ok = 0;
      continue;
    }
    if (ar < (__float128)0x1p-1022) nsub++;
    __float128 d = (__float128)C[q] - r; if (d < 0) d = -d;
    __float128 dn = (__float128)Cn[q] - r; if (dn < 0) dn = -dn;
    /* bound incl. the absolute half-ulp of the subnormal range */
    __float128 b = ar * (__float128)0x1.0000002p-53 + s * (__float128)0x1p-54 + (__float128)0x1p-1074 * (__float128)0.5;
    if (d > b) ok = 0;
    if (ar >= (__float128)0x1p-1022) { if ((double)(d / ar) > eo) eo = (double)(d / ar); if ((double)(dn / ar) > en) en = (double)(dn / ar); }
  }
  printf("  extreme (rows/cols 1e-165..1e165)  m=%d n=%d k=%d: N=%d, %d subnormal and %d overflowing exact results"
         " (ozaki +-Inf on all; native Inf on %d, NaN on %d)\n"
         "      rel. error over normal-range results: ozaki %.2e native %.2e\n", m, n, k, inf.nmod, nsub, ninf, ninf_nat, nnan_nat, eo, en);
  CHECK(ok, "extreme: bound (with subnormal half-ulp) / overflow to Inf");
  free(A); free(B); free(C); free(Cn);
}

/* fuzz: many small random problems of mixed kinds; every OZ_OK result
 * must satisfy the rigorous bound, OZ_RANGE is allowed (fallback). */
static void test_fuzz(void)
{
  int nok = 0, nrange = 0, bad = 0, maxN = 0, minN = 99;
  double A[12 * 40], B[40 * 12], C[144];
  __float128 R[144], S[144];
  for (int it = 0; it < 3000; it++) {
    int m = 1 + rnd64() % 12, n = 1 + rnd64() % 12, k = 1 + rnd64() % 40;
    int kind = rnd64() % 5;
    double phi = (rnd64() % 4) * 0.5;
    for (int q = 0; q < m * k; q++) A[q] = nrand() * exp(phi * nrand());
    for (int q = 0; q < k * n; q++) B[q] = nrand() * exp(phi * nrand());
    if (kind == 1) for (int q = 0; q < m * k; q++) if (rnd64() % 3 == 0) A[q] = 0;   /* sparse */
    if (kind == 2) for (int q = 0; q < m * k; q++) A[q] = (double)((int)(rnd64() % 7) - 3);
    if (kind == 3) for (int q = 0; q < k * n; q++) B[q] = ldexp(B[q], (int)(rnd64() % 200) - 100);
    if (kind == 4) for (int q = 0; q < m * k; q++) A[q] = ldexp(1.0, (int)(rnd64() % 60) - 30) * ((rnd64() & 1) ? 1 : -1);
    oz_info inf;
    int rc = oz_dgemm(m, n, k, A, m, B, k, C, m, NULL, &inf);
    if (rc == OZ_RANGE) { nrange++; continue; }
    if (rc != OZ_OK) { bad++; continue; }
    nok++;
    if (inf.nmod > maxN) maxN = inf.nmod;
    if (inf.nmod < minN) minN = inf.nmod;
    refq(m, n, k, A, B, R, S);
    if (!bound_ok(m, n, k, C, R, S, 53, 1)) bad++;
  }
  printf("  fuzz: 3000 problems, %d OZ_OK (moduli %d..%d), %d OZ_RANGE, %d bad\n", nok, minN, maxN, nrange, bad);
  CHECK(bad == 0, "fuzz: %d problems violate the bound / bad rc", bad);
}

int main(void)
{
  printf("test_ozaki: moduli\n");        test_moduli();
  printf("test_ozaki: residues\n");      test_residue();
  printf("test_ozaki: int8 products\n"); test_s8_gemm();
  printf("test_ozaki: CRT\n");           test_crt();
  printf("test_ozaki: integer data\n");  test_integer_exact();
  printf("test_ozaki: special cases\n"); test_special();
  printf("test_ozaki: accuracy (vs __float128 reference; native = double triple loop)\n");
  test_accuracy();
  test_complex();
  test_extreme();
  test_fuzz();
  printf("test_ozaki: %d passed, %d failed, %d skipped\n", npass, nfail, nskip);
  return nfail != 0;
}
