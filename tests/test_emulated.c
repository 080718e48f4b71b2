/* test_emulated.c — the emulated precision (Ozaki scheme II, src/common/emulated.h) on the CPU: tables,
 * residues, Garner's CRT and its one rounding, the exact statistics, the plan rule, and products
 * against a __float128 reference (only + and · of __float128: libgcc, no libquadmath).
 * Ported from the tests of the CPU reference that preceded it (wip/ozaki/test_ozaki.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _POSIX_C_SOURCE 200809L   /* setenv (check.h) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "call_plan.h"
#include "check.h"
#include "test_random.h"
#include "emulated.h"
#include "team_size.h"
#include "tilemm.h"


/* ---------------------------------------------------------------- products */

/* The emulated product of column-major contiguous operands of `type` (interleaved complex), its
 * loops on at most `threads` host threads (0: the host's). */
static tilemm_status emulated_on (int threads, tilemm_type type, int64_t m, int64_t n, int64_t k,
                                  void *a, void *b, void *c, const tilemm_emu_options *options,
                                  tilemm_emu_plan *used)
{
  tilemm_view va, vb, vc;
  tilemm_plan plan;
  tilemm_emu_options defaults;
  if (!options)
    {
      tilemm_emu_default_options (&defaults, type);
      options = &defaults;
    }
  tilemm_error err = { TILEMM_OK, "" };
  if (tilemm_view_init (&va, type, m, k, m > 0 ? m : 1, a) != TILEMM_OK
      || tilemm_view_init (&vb, type, k, n, k > 0 ? k : 1, b) != TILEMM_OK
      || tilemm_view_init (&vc, type, m, n, m > 0 ? m : 1, c) != TILEMM_OK
      || tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, m, n, k, NULL) != TILEMM_OK)
    return TILEMM_EINVAL;
  plan.threads = threads;
  tilemm_emu_branches branches;   /* as the call's plan holds them */
  tilemm_emu_branches_make (options, &branches);
  const tilemm_status s = tilemm_cpu_multiply_emulated (&plan, options, &branches,
                                                         TILEMM_OP_NONE, &va, TILEMM_OP_NONE,
                                                         &vb, &vc, NULL, used, &err);
  if (s != TILEMM_OK)
    printf ("  emulated: %s\n", err.detail);
  return s;
}

static tilemm_status emulated (tilemm_type type, int64_t m, int64_t n, int64_t k, void *a, void *b,
                               void *c, const tilemm_emu_options *options, tilemm_emu_plan *used)
{
  return emulated_on (0, type, m, n, k, a, b, c, options, used);
}

/* Plain double product in k order (what a naive `*` does), and the __float128 reference with
 * Σ|a||b| (all real, column-major). */
static void native (int m, int n, int k, const double *a, const double *b, double *c)
{
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      {
        double s = 0;
        for (int p = 0; p < k; p++)
          s += a[i + (size_t) p * m] * b[p + (size_t) j * k];
        c[i + (size_t) j * m] = s;
      }
}

static void reference (int m, int n, int k, const double *a, const double *b, __float128 *r,
                       __float128 *s)
{
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      {
        __float128 sum = 0, abs_sum = 0;
        for (int p = 0; p < k; p++)
          {
            const __float128 t = (__float128) a[i + (size_t) p * m] * (__float128) b[p + (size_t) j * k];
            sum += t;
            abs_sum += t < 0 ? -t : t;
          }
        r[i + (size_t) j * m] = sum;
        s[i + (size_t) j * m] = abs_sum;
      }
}

static __float128 qabs (__float128 x)
{
  return x < 0 ? -x : x;
}

/* The guarantee |c − r| ≤ u|r| + 2^-(t+g)·S, with slack for the reference's own rounding. */
static int within_bound (size_t count, const double *c, size_t step, const __float128 *r,
                         const __float128 *s, int k, int t, int g)
{
  for (size_t q = 0; q < count; q++)
    {
      const __float128 d = qabs ((__float128) c[q * step] - r[q]);
      const __float128 bound = qabs (r[q]) * (__float128) ldexp (1.0, -t) * (__float128) 1.0000001
                               + s[q] * (__float128) ldexp (1.0, -(t + g))
                               + s[q] * (__float128) k * (__float128) 0x1p-110
                               + (__float128) 0x1p-1074;
      if (d > bound)
        {
          printf ("  bound violated at %zu: error %.3e, bound %.3e\n", q, (double) d, (double) bound);
          return 0;
        }
    }
  return 1;
}

/* max over elements of |c − r| / S (S = Σ|a||b|; elements with S = 0 must be exact). */
static double error_ratio (size_t count, const double *c, const __float128 *r, const __float128 *s)
{
  double worst = 0;
  for (size_t q = 0; q < count; q++)
    {
      const __float128 d = qabs ((__float128) c[q] - r[q]);
      const double x = s[q] == 0 ? (d == 0 ? 0 : INFINITY) : (double) (d / s[q]);
      if (x > worst)
        worst = x;
    }
  return worst;
}

/* Emulated against the reference and against the plain double product: within the guarantee,
 * and no worse than the plain product (or than u where it is exact). */
static void accuracy_case (const char *name, int m, int n, int k, double *a, double *b,
                           int range_ok)
{
  CHECK_CASE ("accuracy: %s (%dx%dx%d)", name, m, n, k);
  const size_t mn = (size_t) m * n;
  double *c = malloc (sizeof (double) * mn), *cn = malloc (sizeof (double) * mn);
  __float128 *r = malloc (sizeof (__float128) * mn), *s = malloc (sizeof (__float128) * mn);
  tilemm_emu_plan used;
  const tilemm_status st = emulated (TILEMM_DOUBLE, m, n, k, a, b, c, NULL, &used);
  CHECK (st == TILEMM_OK && (used.verdict == TILEMM_EMU_OK
                             || (range_ok && used.verdict == TILEMM_EMU_RANGE)),
         "status %d verdict %d", st, used.verdict);
  if (st == TILEMM_OK && used.verdict == TILEMM_EMU_RANGE)
    printf ("  %-30s RANGE: the native product runs instead\n", name);
  if (st == TILEMM_OK && used.verdict == TILEMM_EMU_OK)
    {
      native (m, n, k, a, b, cn);
      reference (m, n, k, a, b, r, s);
      const double eo = error_ratio (mn, c, r, s), en = error_ratio (mn, cn, r, s);
      printf ("  %-30s N=%2d pa=%d pb=%d  error/(|A||B|): emulated %.2e, plain double %.2e\n", name,
              used.moduli, used.pa, used.pb, eo, en);
      CHECK (within_bound (mn, c, 1, r, s, k, 53, 1), "%s: the guarantee", name);
      CHECK (eo <= fmax (en, 0x1p-53), "%s: emulated %.3e worse than plain %.3e", name, eo, en);
    }
  free (c);
  free (cn);
  free (r);
  free (s);
}

/* ---------------------------------------------------------------- tables and pieces */

static void test_tables (void)
{
  CHECK_CASE ("moduli: pairwise coprime, at most 256, largest first");
  for (int i = 0; i < TILEMM_EMU_MAX_MODULI; i++)
    {
      CHECK (tilemm_emu_moduli[i] <= 256 && tilemm_emu_moduli[i] > 1, "m_%d = %d", i,
             tilemm_emu_moduli[i]);
      if (i > 0)
        CHECK (tilemm_emu_moduli[i] < tilemm_emu_moduli[i - 1], "order at %d", i);
      for (int j = i + 1; j < TILEMM_EMU_MAX_MODULI; j++)
        {
          int x = tilemm_emu_moduli[i], y = tilemm_emu_moduli[j];
          while (y)
            {
              const int t = x % y;
              x = y;
              y = t;
            }
          CHECK (x == 1, "gcd (m_%d, m_%d) = %d", i, j, x);
        }
    }
  CHECK_CASE ("Garner constants: (m_0·…·m_{t-1})·g_t = 1 mod m_t");
  for (int t = 1; t < TILEMM_EMU_MAX_MODULI; t++)
    {
      const int mt = tilemm_emu_moduli[t];
      int prefix = 1;
      for (int s = 0; s < t; s++)
        prefix = prefix * tilemm_emu_moduli[s] % mt;
      CHECK (prefix * tilemm_emu_garner[t] % mt == 1, "t = %d", t);
      CHECK (tilemm_emu_garner[t] >= 0 && tilemm_emu_garner[t] < mt, "t = %d: range", t);
    }
  CHECK_CASE ("log2 of the moduli's products");
  double sum = 0;
  for (int n = 1; n <= TILEMM_EMU_MAX_MODULI; n++)
    {
      sum += log2 ((double) tilemm_emu_moduli[n - 1]);
      CHECK (fabs (tilemm_emu_log2_product (n) - sum) < 1e-12, "n = %d", n);
    }
  CHECK (sum > 184 && sum < 186, "all 24: %.2f bits", sum);
}

static void test_residue (void)
{
  CHECK_CASE ("residues: symmetric int8, congruent");
  for (int it = 0; it < 200000; it++)
    {
      int64_t x = (int64_t) (rnd64 () >> (rnd64 () % 64)) * ((rnd64 () & 1) ? 1 : -1);
      if (it < 4)
        x = it == 0 ? INT64_MAX : it == 1 ? -INT64_MAX : it == 2 ? 0 : -1;
      const int m = tilemm_emu_moduli[rnd64 () % TILEMM_EMU_MAX_MODULI];
      const int r = tilemm_emu_residue (x, m);
      if (r < -128 || r > 127 || ((x % m) - r) % m != 0)
        {
          CHECK (0, "x = %lld, m = %d: %d", (long long) x, m, r);
          break;
        }
    }
}

static void test_exponent_quantize (void)
{
  CHECK_CASE ("exponents: largest < 2^e, zero rows marked");
  CHECK (tilemm_emu_exponent (0.0) == TILEMM_EMU_ZERO_ROW, "zero");
  CHECK (tilemm_emu_exponent (1.0) == 1 && tilemm_emu_exponent (0.75) == 0, "1, 0.75");
  CHECK (tilemm_emu_exponent (0x1p-1074) == -1073, "smallest subnormal");
  CHECK (tilemm_emu_exponent (1.7976931348623157e308) == 1024, "realmax");
  CHECK_CASE ("quantization: lo = floor (Q·x̂), hi = ceil (Q·x̂) exactly");
  int bad = 0;
  for (int it = 0; it < 300000 && !bad; it++)
    {
      const int e = (int) (rnd64 () % 2000) - 1000;
      double xh;   /* x̂ in [0, 1): random, or next to k/127 */
      switch (it % 4)
        {
        case 0:
          xh = urand ();
          break;
        case 1:
          xh = ldexp (urand (), -(int) (rnd64 () % 20));
          break;
        default:
          {
            const double q = (double) (rnd64 () % 127) / 127.0;
            xh = it % 4 == 2 ? nextafter (q, 0.0) : nextafter (q, 1.0);
            if (xh >= 1.0)
              xh = nextafter (1.0, 0.0);
          }
        }
      const double x = ldexp ((rnd64 () & 1) ? -xh : xh, e);
      /* x̂ as the contract defines it, from x exactly (x may have rounded into the subnormals). */
      const __float128 exact = (__float128) fabs (x) * (__float128) ldexp (1.0, -e) * 127;
      int lo, hi;
      tilemm_emu_quantize (x, e, &lo, &hi);
      const int want_lo = (int) (double) exact - ((__float128) (int) (double) exact > exact);
      const int want_hi = want_lo + ((__float128) want_lo < exact);
      if (e <= 1000 && e >= -900 && (lo != want_lo || hi != want_hi))
        {
          CHECK (0, "x = %a, e = %d: lo %d hi %d, want %d %d", x, e, lo, hi, want_lo, want_hi);
          bad = 1;
        }
    }
  int lo, hi;
  tilemm_emu_quantize (0x1p-1074, -10, &lo, &hi);
  CHECK (lo == 0 && hi == 1, "a subnormal far below its row's largest: %d %d", lo, hi);
  tilemm_emu_quantize (0.0, 3, &lo, &hi);
  CHECK (lo == 0 && hi == 0, "zero");
  tilemm_emu_quantize (-1.0, 1, &lo, &hi);   /* x̂ = 1/2: Q/2 = 63.5 */
  CHECK (lo == 63 && hi == 64, "-1 in a row of exponent 1: %d %d", lo, hi);
  tilemm_emu_quantize (ldexp (1.0 / 127.0 * 5.0, 0), 0, &lo, &hi);
  CHECK (hi - lo <= 1 && lo <= 5 && hi >= 5, "5/127: %d %d", lo, hi);
}

/* CRT of a random __int128 against libgcc's correctly rounded conversions. */
static void test_crt (void)
{
  CHECK_CASE ("CRT + one rounding to double and to single == (double), (float) of an __int128");
  int ok = 1;
  for (int n = 1; n <= 16 && ok; n++)   /* the first 16 moduli's product < 2^127 */
    {
      const int bits = (int) floor (tilemm_emu_log2_product (n)) - 2;
      for (int it = 0; it < 2000 && ok; it++)
        {
          const unsigned __int128 u = ((unsigned __int128) rnd64 () << 64) | rnd64 ();
          const int sh = 128 - (int) (1 + rnd64 () % (unsigned) bits);
          __int128 x = (__int128) (u >> sh);
          if (rnd64 () & 1)
            x = -x;
          uint8_t res[TILEMM_EMU_MAX_MODULI];
          for (int t = 0; t < n; t++)
            {
              const int md = tilemm_emu_moduli[t];
              res[t] = (uint8_t) (((x % md) + md) % md);
            }
          const int e = (int) (rnd64 () % 200) - 100;
          ok = tilemm_emu_crt_double (res, n, 0) == (double) x
               && tilemm_emu_crt_double (res, n, e) == ldexp ((double) x, e)
               && tilemm_emu_crt_single (res, n, 0) == (double) (float) x
               && tilemm_emu_crt_single (res, n, e) == (double) ldexpf ((float) x, e);
          CHECK (ok, "n = %d: x = %.17g", n, (double) x);
        }
    }
  CHECK_CASE ("CRT: all 24 moduli, the extremes ±(M−1)/2 and 0");
  {
    /* X ≡ −1 mod every m_l is X = M − 1 in [0, M): the symmetric −1. */
    uint8_t res[TILEMM_EMU_MAX_MODULI];
    for (int t = 0; t < TILEMM_EMU_MAX_MODULI; t++)
      res[t] = (uint8_t) (tilemm_emu_moduli[t] - 1);
    CHECK (tilemm_emu_crt_double (res, TILEMM_EMU_MAX_MODULI, 0) == -1.0, "-1");
    for (int t = 0; t < TILEMM_EMU_MAX_MODULI; t++)
      res[t] = 0;
    CHECK (tilemm_emu_crt_double (res, TILEMM_EMU_MAX_MODULI, 0) == 0.0
             && !signbit (tilemm_emu_crt_double (res, TILEMM_EMU_MAX_MODULI, 0)),
           "+0");
    /* (M−1)/2 (M is even: 256 | M, so M/2 has residues that give the largest positive). */
    for (int t = 0; t < TILEMM_EMU_MAX_MODULI; t++)
      res[t] = 1;
    CHECK (tilemm_emu_crt_double (res, TILEMM_EMU_MAX_MODULI, 0) == 1.0, "1");
  }
  CHECK_CASE ("one rounding to double: ties, subnormals, overflow");
  uint64_t w[4] = { 0, 0, 0, 0 };
  w[0] = (1ull << 53) + 1;
  CHECK (tilemm_emu_big_to_float (w, 0, 0, 0) == 0x1p53, "tie to even, down");
  w[0] = (1ull << 53) + 3;
  CHECK (tilemm_emu_big_to_float (w, 0, 0, 0) == 0x1p53 + 4, "tie to even, up");
  w[0] = 3;
  CHECK (tilemm_emu_big_to_float (w, 0, -1076, 0) == 0x1p-1074, "subnormal, 0.75 ulp");
  w[0] = 1;
  CHECK (tilemm_emu_big_to_float (w, 0, -1075, 0) == 0.0, "subnormal tie to 0");
  w[0] = 3;
  CHECK (tilemm_emu_big_to_float (w, 1, -1075, 0) == -0x1p-1073, "subnormal tie to even");
  w[0] = 1;
  CHECK (isinf (tilemm_emu_big_to_float (w, 0, 1024, 0)), "overflow to Inf");
  CHECK (tilemm_emu_big_to_float (w, 1, 1023, 0) == -0x1p1023, "largest power of two");
  w[0] = (1ull << 53) - 1;   /* (2^53 − 1)·2^971 = realmax; one more half ulp overflows */
  CHECK (tilemm_emu_big_to_float (w, 0, 971, 0) == 1.7976931348623157e308, "realmax");
  w[0] = (1ull << 54) - 1;
  CHECK (isinf (tilemm_emu_big_to_float (w, 0, 970, 0)), "rounds up past realmax: Inf");
  w[0] = 0;
  w[2] = 1;   /* 2^128·2^-1202 = 2^-1074 */
  CHECK (tilemm_emu_big_to_float (w, 0, -1202, 0) == 0x1p-1074, "high limb, subnormal");
  w[2] = 0;
  w[0] = (1ull << 60) + (1ull << 7) + 1;   /* rounds at bit 8 in the subnormal range */
  CHECK (tilemm_emu_big_to_float (w, 0, -1074 - 8, 0)
           == ldexp ((double) (((1ull << 60) >> 8) + 1), -1074),
         "one rounding into the subnormals");
  w[0] = 0;
  CHECK (tilemm_emu_big_to_float (w, 1, 5, 0) == 0.0, "zero");
  CHECK_CASE ("one rounding to single: ties, subnormals, overflow, no double rounding");
  w[0] = (1ull << 24) + 1;
  CHECK (tilemm_emu_big_to_float (w, 0, 0, 1) == 0x1p24, "tie to even, down");
  w[0] = (1ull << 24) + 3;
  CHECK (tilemm_emu_big_to_float (w, 0, 0, 1) == 0x1p24 + 4, "tie to even, up");
  w[0] = 3;
  CHECK (tilemm_emu_big_to_float (w, 0, -151, 1) == 0x1p-149, "subnormal, 0.75 ulp");
  w[0] = 1;
  CHECK (tilemm_emu_big_to_float (w, 0, -150, 1) == 0.0, "subnormal tie to 0");
  CHECK (isinf (tilemm_emu_big_to_float (w, 1, 128, 1)) && tilemm_emu_big_to_float (w, 1, 128, 1) < 0,
         "overflow to -Inf");
  w[0] = (1ull << 25) - 1;
  CHECK (isinf (tilemm_emu_big_to_float (w, 0, 103, 1)), "rounds up past FLT_MAX: Inf");
  /* 1 + 2^-24 + 2^-60: to double first it is 1 + 2^-24 (a single tie, to even: 1); once: up. */
  w[0] = (1ull << 60) + (1ull << 36) + 1;
  CHECK (tilemm_emu_big_to_float (w, 0, -60, 1) == 1.0 + 0x1p-23, "no double rounding: %a",
         tilemm_emu_big_to_float (w, 0, -60, 1));
}

/* ---------------------------------------------------------------- products */

static void test_integers (void)
{
  const int m = 30, n = 20, k = 50;
  double *a = malloc (sizeof (double) * m * k), *b = malloc (sizeof (double) * k * n),
         *c = malloc (sizeof (double) * m * n);
  for (int q = 0; q < m * k; q++)
    a[q] = (double) ((int64_t) (rnd64 () % 200001) - 100000);
  for (int q = 0; q < k * n; q++)
    b[q] = (double) ((int64_t) (rnd64 () % 2001) - 1000);
  for (int fixed = 0; fixed <= 1; fixed++)
    {
      CHECK_CASE ("integer data exact (%s)", fixed ? "8 moduli" : "automatic");
      tilemm_emu_options o;
      tilemm_emu_default_options (&o, TILEMM_DOUBLE);
      o.moduli = fixed ? 8 : 0;
      tilemm_emu_plan used;
      memset (c, 0, sizeof (double) * m * n);
      const tilemm_status s = emulated (TILEMM_DOUBLE, m, n, k, a, b, c, &o, &used);
      CHECK (s == TILEMM_OK && used.verdict == TILEMM_EMU_OK, "status %d verdict %d", s, used.verdict);
      CHECK (!fixed || used.moduli == 8, "moduli %d", used.moduli);
      int exact = 1;
      for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
          {
            int64_t sum = 0;
            for (int p = 0; p < k; p++)
              sum += (int64_t) a[i + p * m] * (int64_t) b[p + j * k];
            exact = exact && c[i + j * m] == (double) sum;
          }
      CHECK (exact, "not exact");
    }
  free (a);
  free (b);
  free (c);
}

static void test_accuracy (void)
{
  const int m = 40, n = 36, kmax = 20000;
  double *a = malloc (sizeof (double) * m * kmax), *b = malloc (sizeof (double) * kmax * n);
  int k = 256;
  for (int q = 0; q < m * k; q++)
    a[q] = nrand ();
  for (int q = 0; q < k * n; q++)
    b[q] = nrand ();
  accuracy_case ("N(0,1)", m, n, k, a, b, 0);
  accuracy_case ("N(0,1), k = 1", m, n, 1, a, b, 0);
  for (int q = 0; q < m * k; q++)
    a[q] = urand ();
  for (int q = 0; q < k * n; q++)
    b[q] = urand ();
  accuracy_case ("U(0,1)", m, n, k, a, b, 0);
  /* rows of A and columns of B scaled from 1e-100 to 1e100, and a row and a column of zeros */
  for (int i = 0; i < m; i++)
    {
      const double s = i == 3 ? 0.0 : pow (10.0, -100 + 200 * urand ());
      for (int p = 0; p < k; p++)
        a[i + p * m] = nrand () * s;
    }
  for (int j = 0; j < n; j++)
    {
      const double s = j == 5 ? 0.0 : pow (10.0, -100 + 200 * urand ());
      for (int p = 0; p < k; p++)
        b[p + j * k] = nrand () * s;
    }
  accuracy_case ("rows/cols scaled 1e-100..1e100", m, n, k, a, b, 0);
  /* exponents spread inside rows: N(0,1)·exp (φ·N(0,1)), the paper's test */
  for (int q = 0; q < m * k; q++)
    a[q] = nrand () * exp (0.5 * nrand ());
  for (int q = 0; q < k * n; q++)
    b[q] = nrand () * exp (0.5 * nrand ());
  accuracy_case ("exponent spread, phi = 0.5", m, n, k, a, b, 0);
  /* φ = 2: the quantized statistics may find no bound (S = 0 somewhere): RANGE is allowed */
  for (int q = 0; q < m * k; q++)
    a[q] = nrand () * exp (2.0 * nrand ());
  for (int q = 0; q < k * n; q++)
    b[q] = nrand () * exp (2.0 * nrand ());
  accuracy_case ("exponent spread, phi = 2", m, n, k, a, b, 1);
  /* ill-conditioned: A = [X −X S], B = [Y; Y; W] shuffled, partial sums 1e16 × the result */
  {
    const int p = 100, r = 20;
    k = 2 * p + r;
    int *perm = malloc (sizeof (int) * k);
    for (int q = 0; q < k; q++)
      perm[q] = q;
    for (int q = k - 1; q > 0; q--)
      {
        const int t = (int) (rnd64 () % (uint64_t) (q + 1)), x = perm[q];
        perm[q] = perm[t];
        perm[t] = x;
      }
    for (int i = 0; i < m; i++)
      for (int q = 0; q < p; q++)
        {
          const double x = 1e8 * (2 * urand () - 1);
          a[i + perm[q] * m] = x;
          a[i + perm[p + q] * m] = -x;
        }
    for (int i = 0; i < m; i++)
      for (int q = 0; q < r; q++)
        a[i + perm[2 * p + q] * m] = 2 * urand () - 1;
    for (int j = 0; j < n; j++)
      {
        for (int q = 0; q < p; q++)
          b[perm[q] + j * k] = b[perm[p + q] + j * k] = 1e8 * (2 * urand () - 1);
        for (int q = 0; q < r; q++)
          b[perm[2 * p + q] + j * k] = 2 * urand () - 1;
      }
    free (perm);
    accuracy_case ("ill-conditioned (cancelling)", m, n, k, a, b, 0);
  }
  k = kmax;
  for (int q = 0; q < 8 * k; q++)
    a[q] = 2 * urand () - 1;
  for (int q = 0; q < k * 6; q++)
    b[q] = 2 * urand () - 1;
  accuracy_case ("large k", 8, 6, k, a, b, 0);
  free (a);
  free (b);
}

/* Step 3's shared budget: for ratios anywhere in [1, 2^6], the widths the plan takes keep the
 * truncation within the guarantee, (1 + u)·(ra·2^-pa + rb·2^-pb) ≤ 2^-(t+g) (in long double,
 * computed here apart from the plan), and are the fewest the ratios' sixteenths allow: neither
 * width one bit lower keeps 2^(c−1+s/16)-bounded ratios within it (c, s computed here from
 * log2). */
static void test_shared_budget (void)
{
  CHECK_CASE ("the shared budget of the widths: within the guarantee, and the fewest bits");
  tilemm_emu_options o;
  tilemm_emu_default_options (&o, TILEMM_DOUBLE);
  const long double target = ldexpl (1.0L, -(o.target_bits + o.guard_bits));
  int dropped = 0, bad = 0;
  for (int q = 0; q < 20000 && bad < 3; q++)
    {
      const double ra = exp2 (6.0 * urand ()), rb = q % 7 == 0 ? ra : exp2 (6.0 * urand ());
      tilemm_emu_stats s = { 0, 100, 100 * 127 * 127, 100 * 127 * 127, ra, rb };
      tilemm_emu_plan plan;
      tilemm_emu_decide (&o, &s, &plan);
      const long double err = (1.0L + ldexpl (1.0L, -53))
                              * (ra * ldexpl (1.0L, -plan.pa) + rb * ldexpl (1.0L, -plan.pb));
      if (plan.verdict != TILEMM_EMU_OK || err > target)
        {
          bad++;
          CHECK (0, "ratios %.17g %.17g: pa %d pb %d exceed the budget", ra, rb, plan.pa, plan.pb);
          continue;
        }
      /* the class bounds: r ≤ 2^(c−1+s/16) */
      long double bound[2];
      const double r[2] = { ra, rb };
      for (int x = 0; x < 2; x++)
        {
          const int c = r[x] > 1 ? (int) ceil (log2 (r[x])) : 0;
          const int sx = c == 0 ? 16 : (int) ceill (16.0L * (log2l (r[x]) - (c - 1)));
          bound[x] = exp2l ((long double) (c - 1) + sx / 16.0L);
        }
      const long double fewer_a = bound[0] * ldexpl (1.0L, -(plan.pa - 1)) + bound[1] * ldexpl (1.0L, -plan.pb);
      const long double fewer_b = bound[0] * ldexpl (1.0L, -plan.pa) + bound[1] * ldexpl (1.0L, -(plan.pb - 1));
      const long double margin = target * (1.0L - ldexpl (1.0L, -40));
      dropped += plan.pa + plan.pb < 2 * 55 + (int) ceil (log2 (ra > 1 ? ra : 1))
                                      + (int) ceil (log2 (rb > 1 ? rb : 1));
      if (fewer_a <= margin * 0.999999L || fewer_b <= margin * 0.999999L)
        {
          bad++;
          CHECK (0, "ratios %.17g %.17g: pa %d pb %d, one bit fewer would do", ra, rb, plan.pa,
                 plan.pb);
        }
    }
  CHECK (dropped > 1000, "the shared budget let a width go a bit lower in %d of 20000 cases",
         dropped);
}

static void test_verdicts (void)
{
  CHECK_CASE ("NaN, Inf: verdict NONFINITE, C untouched");
  double a[4] = { 1, 2, NAN, 4 }, b[4] = { 1, 0, 0, 1 }, c[4] = { -7, -7, -7, -7 };
  tilemm_emu_plan used;
  CHECK (emulated (TILEMM_DOUBLE, 2, 2, 2, a, b, c, NULL, &used) == TILEMM_OK
           && used.verdict == TILEMM_EMU_NONFINITE && c[0] == -7 && c[3] == -7,
         "NaN: verdict %d", used.verdict);
  a[2] = 3;
  b[1] = -INFINITY;
  CHECK (emulated (TILEMM_DOUBLE, 2, 2, 2, a, b, c, NULL, &used) == TILEMM_OK
           && used.verdict == TILEMM_EMU_NONFINITE && c[1] == -7,
         "Inf: verdict %d", used.verdict);
  CHECK_CASE ("a range no plan carries: verdict RANGE, C untouched");
  /* Row [1 2^-80] times column [2^-80; 1]: every lo·lo is 0 (S = 0), unbounded ratio. */
  double ra[2] = { 1.0, 0x1p-80 }, rb[2] = { 0x1p-80, 1.0 }, rc[1] = { -7 };
  CHECK (emulated (TILEMM_DOUBLE, 1, 1, 2, ra, rb, rc, NULL, &used) == TILEMM_OK
           && used.verdict == TILEMM_EMU_RANGE && rc[0] == -7,
         "verdict %d", used.verdict);
  /* Row [1 1/4] times column [1/4; 1]: x̂ = 1/2 and 1/8, S = 2·63·15, sb = 64 + 16: ratio
   * 127·80/1890, finite. */
  double ga[2] = { 1.0, 0.25 }, gb[2] = { 0.25, 1.0 }, gc[1] = { -7 };
  tilemm_emu_stats st;
  tilemm_view va, vb;
  tilemm_view_init (&va, TILEMM_DOUBLE, 1, 2, 1, ga);
  tilemm_view_init (&vb, TILEMM_DOUBLE, 2, 1, 2, gb);
  CHECK (tilemm_emu_stats_cpu (&va, &vb, &st, NULL) == TILEMM_OK && isfinite (st.ratio_a)
           && st.ratio_a > 1,
         "a finite ratio above 1: %g", st.ratio_a);
  CHECK (emulated (TILEMM_DOUBLE, 1, 1, 2, ga, gb, gc, NULL, &used) == TILEMM_OK
           && used.verdict == TILEMM_EMU_OK && gc[0] == 0.5,
         "1/4 + 1/4: verdict %d, %a", used.verdict, gc[0]);
  CHECK (st.ratio_a == 127.0 * 80.0 / 1890.0 && st.ratio_b == st.ratio_a && st.max_qa == 64 * 64 + 16 * 16
           && st.inner == 2 && !st.nonfinite,
         "the statistics: %.17g %.17g %lld", st.ratio_a, st.ratio_b, (long long) st.max_qa);
  CHECK_CASE ("the plan rule: max_moduli, PMAX, zeros");
  tilemm_emu_options o;
  tilemm_emu_default_options (&o, TILEMM_DOUBLE);
  tilemm_emu_stats s = { 0, 100, 100 * 127 * 127, 100 * 127 * 127, 1.0, 1.0 };
  tilemm_emu_plan plan;
  tilemm_emu_decide (&o, &s, &plan);
  CHECK (plan.verdict == TILEMM_EMU_OK && plan.pa == 55 && plan.pb == 55
           && plan.log2_product > plan.log2_needed
           && tilemm_emu_log2_product (plan.moduli - 1) <= plan.log2_needed,
         "ratio 1: pa %d, N %d", plan.pa, plan.moduli);
  o.max_moduli = plan.moduli - 1;
  tilemm_emu_decide (&o, &s, &plan);
  CHECK (plan.verdict == TILEMM_EMU_RANGE, "fewer moduli allowed: %d", plan.verdict);
  tilemm_emu_default_options (&o, TILEMM_DOUBLE);
  s.ratio_a = 0x1p9;   /* 55 + 9 = 64 > 62 */
  tilemm_emu_decide (&o, &s, &plan);
  CHECK (plan.verdict == TILEMM_EMU_RANGE, "pa above PMAX: %d", plan.verdict);
  s.ratio_a = 0x1p7;   /* exactly 62 */
  tilemm_emu_decide (&o, &s, &plan);
  CHECK (plan.verdict == TILEMM_EMU_RANGE || plan.pa == 62, "pa %d", plan.pa);
  s.ratio_a = nextafter (0x1p7, 1e9);   /* ceil (log2) of just above 2^7 is 8 */
  tilemm_emu_decide (&o, &s, &plan);
  CHECK (plan.verdict == TILEMM_EMU_RANGE || plan.pa == 63, "pa %d", plan.pa);
  s.nonfinite = 1;
  tilemm_emu_decide (&o, &s, &plan);
  CHECK (plan.verdict == TILEMM_EMU_NONFINITE, "nonfinite");
  tilemm_emu_stats zero = { 0, 10, 0, 5, 0, 0 };
  tilemm_emu_decide (&o, &zero, &plan);
  CHECK (plan.verdict == TILEMM_EMU_OK, "A all zeros");
  tilemm_emu_default_options (&o, TILEMM_SINGLE);
  CHECK (o.target_bits == 24 && o.guard_bits == 1 && o.max_moduli == TILEMM_EMU_DEFAULT_MAX_MODULI
           && o.moduli == 0,
         "single defaults");
  tilemm_emu_default_options (&o, TILEMM_COMPLEX_DOUBLE);
  CHECK (o.target_bits == 53, "complex double defaults");
  CHECK (o.rule == TILEMM_EMU_RULE_CERTIFIED && tilemm_emu_needs_ratios (&o), "certified default");

  CHECK_CASE ("the native rule (step 3'): p from k alone, no ratios, fewer moduli");
  tilemm_emu_default_options (&o, TILEMM_DOUBLE);
  o.rule = TILEMM_EMU_RULE_NATIVE;
  CHECK (!tilemm_emu_needs_ratios (&o), "the native rule needs no S");
  /* p = t + g + 2 − h, 4^h ≤ k < 4^(h+1): k = 63 → h = 2, 64 → 3, 100 → 3 */
  const int64_t inner[3] = { 63, 64, 100 };
  const int want_p[3] = { 54, 53, 53 };
  for (int q = 0; q < 3; q++)
    {
      tilemm_emu_stats sq = { 0, inner[q], inner[q] * 127 * 127, inner[q] * 127 * 127,
                              HUGE_VAL, HUGE_VAL };   /* ratios unbounded: not read */
      tilemm_emu_decide (&o, &sq, &plan);
      const double need = 1.0 + 2.0 * want_p[q] + log2 ((double) inner[q]);
      CHECK (plan.verdict == TILEMM_EMU_OK && plan.pa == want_p[q] && plan.pb == want_p[q]
               && plan.log2_product > need && tilemm_emu_log2_product (plan.moduli - 1) <= need,
             "k %lld: verdict %d, p %d/%d (want %d), N %d", (long long) inner[q], plan.verdict,
             plan.pa, plan.pb, want_p[q], plan.moduli);
    }
  /* the most any k needs: log2 νaνb ≤ log2 k, 2h > log2 k − 2: 15 moduli double, 8 single */
  for (int64_t kk = 1; kk <= ((int64_t) 1 << 40); kk *= 3)
    for (int single = 0; single < 2; single++)
      {
        tilemm_emu_default_options (&o, single ? TILEMM_SINGLE : TILEMM_DOUBLE);
        o.rule = TILEMM_EMU_RULE_NATIVE;
        tilemm_emu_stats sq = { 0, kk, kk * 127 * 127, kk * 127 * 127, 0, 0 };
        tilemm_emu_decide (&o, &sq, &plan);
        CHECK (plan.verdict == TILEMM_EMU_OK && plan.moduli <= (single ? 8 : 15),
               "k %lld %s: verdict %d, N %d", (long long) kk, single ? "single" : "double",
               plan.verdict, plan.moduli);
      }
  o.moduli = 7;
  CHECK (!tilemm_emu_needs_ratios (&o), "an explicit count needs no S");
  /* random data: fewer moduli than the certified rule, and the CPU backend's plan and bits are
   * those of tilemm_emu_stats_cpu (which does compute S) + decide + run */
  for (int single = 0; single < 2; single++)
    {
      const int m = 12, n = 9, k = 1024;
      const tilemm_type type = single ? TILEMM_SINGLE : TILEMM_DOUBLE;
      const size_t es = single ? sizeof (float) : sizeof (double);
      void *a = malloc (es * m * k), *b = malloc (es * k * n), *c1 = malloc (es * m * n),
           *c2 = malloc (es * m * n);
      for (int q = 0; q < m * k; q++)
        single ? (void) (((float *) a)[q] = (float) nrand ()) : (void) (((double *) a)[q] = nrand ());
      for (int q = 0; q < k * n; q++)
        single ? (void) (((float *) b)[q] = (float) nrand ()) : (void) (((double *) b)[q] = nrand ());
      tilemm_view va, vb, vc;
      tilemm_view_init (&va, type, m, k, m, a);
      tilemm_view_init (&vb, type, k, n, k, b);
      tilemm_view_init (&vc, type, m, n, m, c2);
      tilemm_emu_stats sr;
      CHECK (tilemm_emu_stats_cpu (&va, &vb, &sr, NULL) == TILEMM_OK, "stats");
      tilemm_emu_plan cert, nat, used;
      tilemm_emu_default_options (&o, type);
      tilemm_emu_decide (&o, &sr, &cert);
      o.rule = TILEMM_EMU_RULE_NATIVE;
      tilemm_emu_decide (&o, &sr, &nat);
      CHECK (nat.verdict == TILEMM_EMU_OK && cert.verdict == TILEMM_EMU_OK
               && nat.moduli < cert.moduli && nat.moduli <= (single ? 7 : 15),
             "%s k = %d: native N %d, certified N %d", single ? "single" : "double", k,
             nat.moduli, cert.moduli);
      CHECK (emulated (type, m, n, k, a, b, c1, &o, &used) == TILEMM_OK
               && memcmp (&used, &nat, sizeof used) == 0
               && tilemm_emu_run_cpu (&nat, &va, &vb, &vc, NULL) == TILEMM_OK
               && memcmp (c1, c2, es * m * n) == 0,
             "%s: the backend's plan (N %d, p %d) or bits differ from decide + run's (N %d, p %d)",
             single ? "single" : "double", used.moduli, used.pa, nat.moduli, nat.pa);
      free (a);
      free (b);
      free (c1);
      free (c2);
    }
}

/* Step 3'': step 3's widths less s bits each (2^s ≤ k − 1), its moduli from those. */
static void test_elementwise_rule (void)
{
  CHECK_CASE ("the elementwise native rule (step 3''): step 3 less the inner dimension's bits");
  tilemm_emu_options cert, elem;
  tilemm_emu_plan pc, pe;
  tilemm_emu_default_options (&elem, TILEMM_DOUBLE);
  elem.rule = TILEMM_EMU_RULE_ELEMENTWISE;
  CHECK (tilemm_emu_needs_ratios (&elem), "the elementwise rule reads S");
  /* s, the largest with 2^s ≤ k − 1, computed here independently of the plan's loop */
  const int64_t inner[] = { 1, 2, 3, 4, 5, 9, 1024, 1025, 4096, 16384, 16385, (int64_t) 1 << 31 };
  const int want_s[] = { 0, 0, 1, 1, 2, 3, 9, 10, 11, 13, 14, 30 };
  for (int single = 0; single < 2; single++)
    for (size_t q = 0; q < sizeof inner / sizeof inner[0]; q++)
      {
        const tilemm_type type = single ? TILEMM_SINGLE : TILEMM_DOUBLE;
        tilemm_emu_default_options (&cert, type);
        tilemm_emu_default_options (&elem, type);
        elem.rule = TILEMM_EMU_RULE_ELEMENTWISE;
        /* typical uniform data: νa² = k/3, ratios 2.1 (ratio class 2), and a ratio of a whole
         * power of two (the shared budget's other end) */
        const double ratios[2] = { 2.1, 8.0 };
        for (int r = 0; r < 2; r++)
          {
            const int64_t qq = (int64_t) ceil (127.0 * 127.0 * (double) inner[q] / 3.0);
            tilemm_emu_stats st = { 0, inner[q], qq, qq, ratios[r], ratios[r] };
            tilemm_emu_decide (&cert, &st, &pc);
            tilemm_emu_decide (&elem, &st, &pe);
            /* the bound's widths, the count they need, then the widths those moduli carry */
            const int wa = pc.pa - want_s[q] > 1 ? pc.pa - want_s[q] : 1;
            const int wb = pc.pb - want_s[q] > 1 ? pc.pb - want_s[q] : 1;
            const double log2_nu = log2 ((double) qq) - 2.0 * log2 (127.0);
            const double need = 1.0 + wa + wb + log2_nu;
            int count = 1;
            while (tilemm_emu_log2_product (count) <= need + 1e-9)
              count++;
            const double cap = tilemm_emu_log2_product (count);
            int most = wa + wb;   /* the largest pa + pb the count carries */
            while (1.0 + (most + 1) + log2_nu + 1e-9 < cap && most + 1 <= 2 * TILEMM_EMU_PMAX)
              most++;
            CHECK (pc.verdict == TILEMM_EMU_OK && pe.verdict == TILEMM_EMU_OK
                     && pe.moduli == count && pe.pa >= wa && pe.pb >= wb
                     && pe.pa + pe.pb == most && abs (pe.pa - pe.pb) <= abs (wa - wb) + 1
                     && pe.log2_product > pe.log2_needed && pe.moduli <= pc.moduli,
                   "%s k %lld ratio %g: p %d/%d (the bound's %d/%d, the count's %d in all), N %d "
                   "(want %d; step 3: p %d/%d, N %d)",
                   single ? "single" : "double", (long long) inner[q], ratios[r], pe.pa, pe.pb,
                   wa, wb, most, pe.moduli, count, pc.pa, pc.pb, pc.moduli);
          }
      }
  /* the count the comparison rests on: uniform double at k = 16384, 13 moduli against
   * step 3's 17 */
  tilemm_emu_default_options (&cert, TILEMM_DOUBLE);
  tilemm_emu_default_options (&elem, TILEMM_DOUBLE);
  elem.rule = TILEMM_EMU_RULE_ELEMENTWISE;
  CHECK (tilemm_emu_typical_moduli (&elem, 16384) == 13 && tilemm_emu_typical_moduli (&cert, 16384) == 17,
         "typical k = 16384: elementwise %d moduli, certified %d",
         tilemm_emu_typical_moduli (&elem, 16384), tilemm_emu_typical_moduli (&cert, 16384));
}

static void test_single (void)
{
  CHECK_CASE ("single-accurate single products: the guarantee with t = 24");
  const int m = 33, n = 29, k = 300;
  float *a = malloc (sizeof (float) * m * k), *b = malloc (sizeof (float) * k * n),
        *c = malloc (sizeof (float) * m * n);
  double *ad = malloc (sizeof (double) * m * k), *bd = malloc (sizeof (double) * k * n),
         *cd = malloc (sizeof (double) * m * n);
  __float128 *r = malloc (sizeof (__float128) * m * n), *s = malloc (sizeof (__float128) * m * n);
  for (int q = 0; q < m * k; q++)
    ad[q] = a[q] = (float) (nrand () * exp (nrand ()));
  for (int q = 0; q < k * n; q++)
    bd[q] = b[q] = (float) (nrand () * exp (nrand ()));
  tilemm_emu_plan used;
  CHECK (emulated (TILEMM_SINGLE, m, n, k, a, b, c, NULL, &used) == TILEMM_OK
           && used.verdict == TILEMM_EMU_OK,
         "verdict %d", used.verdict);
  reference (m, n, k, ad, bd, r, s);
  for (int q = 0; q < m * n; q++)
    cd[q] = c[q];
  CHECK (within_bound ((size_t) m * n, cd, 1, r, s, k, 24, 1), "the guarantee");
  CHECK (used.pa <= 40 && used.moduli < 12, "a single plan is cheaper: pa %d, N %d", used.pa,
         used.moduli);
  printf ("  single: N=%d pa=%d pb=%d, error/(|A||B|) %.2e\n", used.moduli, used.pa, used.pb,
          error_ratio ((size_t) m * n, cd, r, s));
  free (a);
  free (b);
  free (c);
  free (ad);
  free (bd);
  free (cd);
  free (r);
  free (s);
}

static void test_complex (void)
{
  for (int single = 0; single <= 1; single++)
    {
      CHECK_CASE ("complex %s: each part within the guarantee", single ? "single" : "double");
      const int m = 17, n = 13, k = 70;
      double *a = malloc (sizeof (double) * 2 * m * k), *b = malloc (sizeof (double) * 2 * k * n),
             *c = malloc (sizeof (double) * 2 * m * n);
      float *af = malloc (sizeof (float) * 2 * m * k), *bf = malloc (sizeof (float) * 2 * k * n),
            *cf = malloc (sizeof (float) * 2 * m * n);
      for (int q = 0; q < 2 * m * k; q++)
        af[q] = (float) (a[q] = single ? (double) (float) nrand () : nrand ());
      for (int q = 0; q < 2 * k * n; q++)
        bf[q] = (float) (b[q] = single ? (double) (float) nrand () : nrand ());
      tilemm_emu_plan used;
      const tilemm_status st
        = single ? emulated (TILEMM_COMPLEX_SINGLE, m, n, k, af, bf, cf, NULL, &used)
                 : emulated (TILEMM_COMPLEX_DOUBLE, m, n, k, a, b, c, NULL, &used);
      CHECK (st == TILEMM_OK && used.verdict == TILEMM_EMU_OK, "verdict %d", used.verdict);
      if (single)
        for (int q = 0; q < 2 * m * n; q++)
          c[q] = cf[q];
      /* Re C = [Ar −Ai]·[Br; Bi], Im C = [Ar Ai]·[Bi; Br] as real problems of inner 2k. */
      double *x = malloc (sizeof (double) * m * 2 * k), *y = malloc (sizeof (double) * 2 * k * n);
      __float128 *r = malloc (sizeof (__float128) * m * n), *s = malloc (sizeof (__float128) * m * n);
      for (int part = 0; part < 2; part++)
        {
          for (int i = 0; i < m; i++)
            for (int p = 0; p < k; p++)
              {
                x[i + p * m] = a[2 * (i + p * m)];
                x[i + (p + k) * m] = (part ? 1 : -1) * a[2 * (i + p * m) + 1];
              }
          for (int j = 0; j < n; j++)
            for (int p = 0; p < k; p++)
              {
                y[p + j * 2 * k] = b[2 * (p + j * k) + part];
                y[p + k + j * 2 * k] = b[2 * (p + j * k) + 1 - part];
              }
          reference (m, n, 2 * k, x, y, r, s);
          CHECK (within_bound ((size_t) m * n, c + part, 2, r, s, 2 * k, single ? 24 : 53, 1),
                 "part %d", part);
        }
      free (x);
      free (y);
      free (r);
      free (s);
      free (a);
      free (b);
      free (c);
      free (af);
      free (bf);
      free (cf);
    }
}

/* The CPU scheme's loops are cut by the plan (tilemm_emu_loop_plan): each loop's team is what
 * its items' work pays for by the one rule (team_size.h), each item's work the loop's own (the
 * table below states it apart from the plan's), TILEMM_EMU_CHUNKS_PER_THREAD chunks a thread,
 * and the pair values' work grows with the branch's moduli. */
static void test_loop_plan (void)
{
  static const tilemm_emu_loop loops[] = {
    TILEMM_EMU_LOOP_GATHER, TILEMM_EMU_LOOP_EXPONENTS, TILEMM_EMU_LOOP_NONFINITE,
    TILEMM_EMU_LOOP_QUANTIZE, TILEMM_EMU_LOOP_RATIOS, TILEMM_EMU_LOOP_RESIDUES,
    TILEMM_EMU_LOOP_DOTS, TILEMM_EMU_LOOP_PAIRS, TILEMM_EMU_LOOP_EXACT };
  static const int threads[] = { 0, 1, 4, 64 };
  static const int64_t shapes[][3] = {   /* items, m, k */
    { 1, 1, 1 }, { 7, 3, 5 }, { 100, 64, 64 }, { 2000, 500, 3000 }, { 100000, 4096, 4096 },
    { 1 << 22, 1, 1 } };
  CHECK_CASE ("the CPU scheme's loops: each cut as its work pays for");
  CHECK (TILEMM_EMU_LOOPS == (int) (sizeof loops / sizeof loops[0]), "every loop tested");
  for (size_t l = 0; l < sizeof loops / sizeof loops[0]; l++)
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
      for (size_t h = 0; h < sizeof shapes / sizeof shapes[0]; h++)
        for (int moduli = 1; moduli <= TILEMM_EMU_MAX_MODULI; moduli += 23)
          {
            const int64_t items = shapes[h][0], m = shapes[h][1], k = shapes[h][2];
            const double dm = (double) m, dk = (double) k;
            double steps = 1.0;
            switch (loops[l])
              {
              case TILEMM_EMU_LOOP_GATHER: case TILEMM_EMU_LOOP_EXPONENTS: steps = dk; break;
              case TILEMM_EMU_LOOP_QUANTIZE: steps = 4 * dk; break;
              case TILEMM_EMU_LOOP_RESIDUES: steps = 8 * dk; break;
              case TILEMM_EMU_LOOP_RATIOS: case TILEMM_EMU_LOOP_DOTS: steps = dm * dk; break;
              case TILEMM_EMU_LOOP_PAIRS: steps = 16 * dm * moduli; break;
              case TILEMM_EMU_LOOP_EXACT: steps = 8 * dm * dk; break;
              default: break;
              }
            const int team = tilemm_team_size (threads[t], items,
                                               (double) items * steps * TILEMM_EMU_STEP_S);
            int64_t per = items;
            if (team > 1)
              per = items / (TILEMM_EMU_CHUNKS_PER_THREAD * team) > 0
                      ? items / (TILEMM_EMU_CHUNKS_PER_THREAD * team) : 1;
            const tilemm_emu_loop_cut cut
              = tilemm_emu_loop_plan (threads[t], loops[l], items, m, k, moduli);
            CHECK (cut.team == team && cut.per == per
                     && cut.team <= (threads[t] > 1 ? threads[t] : 1),
                   "loop %d, %d threads, %lld items (m %lld, k %lld), %d moduli: team %d per "
                   "%lld, want %d %lld", (int) loops[l], threads[t],
                   (long long) items, (long long) m, (long long) k, moduli, cut.team,
                   (long long) cut.per, team, (long long) per);
          }
  /* The pair values of 512 columns of 64 rows: one modulus pays for fewer threads than 24. */
  CHECK_CASE ("the CPU scheme's loops: the pair values' team grows with the branch's moduli");
  const tilemm_emu_loop_cut one = tilemm_emu_loop_plan (64, TILEMM_EMU_LOOP_PAIRS, 512, 64, 0, 1);
  const tilemm_emu_loop_cut all
    = tilemm_emu_loop_plan (64, TILEMM_EMU_LOOP_PAIRS, 512, 64, 0, TILEMM_EMU_MAX_MODULI);
  CHECK (one.team < all.team && all.team > 1, "pair values: team %d with 1 modulus, %d with %d",
         one.team, all.team, TILEMM_EMU_MAX_MODULI);
  const tilemm_emu_loop_cut none = tilemm_emu_loop_plan (8, TILEMM_EMU_LOOP_DOTS, 0, 64, 64, 0);
  CHECK (none.per == 1 && none.team == 1, "no items: team %d, per %lld", none.team,
         (long long) none.per);
}

/* Strided views (leading dimensions larger than the rows) give the same bits as contiguous
 * ones; tilemm_emu_run_cpu with the decided plan gives the same bits as the backend entry;
 * the statistics and C do not depend on the thread count. */
static void test_views_plans_threads (void)
{
  const int m = 23, n = 19, k = 41, lda = 30, ldb = 50, ldc = 25;
  double *a = calloc ((size_t) lda * k, sizeof (double)), *b = calloc ((size_t) ldb * n, sizeof (double));
  double *ap = malloc (sizeof (double) * m * k), *bp = malloc (sizeof (double) * k * n);
  double *c1 = malloc (sizeof (double) * m * n), *c2 = calloc ((size_t) ldc * n, sizeof (double)),
         *c3 = malloc (sizeof (double) * m * n), *c4 = malloc (sizeof (double) * m * n);
  for (int p = 0; p < k; p++)
    for (int i = 0; i < m; i++)
      ap[i + p * m] = a[i + p * lda] = ldexp (nrand (), 7 * i - 60);   /* rows scaled apart */
  for (int j = 0; j < n; j++)
    for (int p = 0; p < k; p++)
      bp[p + j * k] = b[p + j * ldb] = nrand ();
  tilemm_emu_plan used;
  emulated (TILEMM_DOUBLE, m, n, k, ap, bp, c1, NULL, &used);
  tilemm_view va, vb, vc, vap, vbp, vc3;
  tilemm_view_init (&va, TILEMM_DOUBLE, m, k, lda, a);
  tilemm_view_init (&vb, TILEMM_DOUBLE, k, n, ldb, b);
  tilemm_view_init (&vc, TILEMM_DOUBLE, m, n, ldc, c2);
  tilemm_view_init (&vap, TILEMM_DOUBLE, m, k, m, ap);
  tilemm_view_init (&vbp, TILEMM_DOUBLE, k, n, k, bp);
  tilemm_view_init (&vc3, TILEMM_DOUBLE, m, n, m, c3);
  CHECK_CASE ("strided views: the same bits");
  tilemm_error err = { TILEMM_OK, "" };
  CHECK (tilemm_emu_run_cpu (&used, &va, &vb, &vc, &err) == TILEMM_OK, "run: %s", err.detail);
  int same = 1;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      same = same && memcmp (&c1[i + j * m], &c2[i + j * ldc], sizeof (double)) == 0;
  CHECK (same, "differs");
  CHECK_CASE ("tilemm_emu_stats_cpu + tilemm_emu_decide + tilemm_emu_run_cpu: the same plan, bits");
  tilemm_emu_stats st;
  tilemm_emu_options o;
  tilemm_emu_default_options (&o, TILEMM_DOUBLE);
  tilemm_emu_plan plan;
  CHECK (tilemm_emu_stats_cpu (&vap, &vbp, &st, NULL) == TILEMM_OK, "stats");
  tilemm_emu_decide (&o, &st, &plan);
  CHECK (memcmp (&plan, &used, sizeof plan) == 0, "plans differ: N %d/%d", plan.moduli, used.moduli);
  CHECK (tilemm_emu_run_cpu (&plan, &vap, &vbp, &vc3, NULL) == TILEMM_OK
           && memcmp (c1, c3, sizeof (double) * m * n) == 0,
         "C differs");
  tilemm_emu_plan bad = plan;
  bad.verdict = TILEMM_EMU_RANGE;
  CHECK (tilemm_emu_run_cpu (&bad, &vap, &vbp, &vc3, &err) == TILEMM_EINVAL && err.detail[0],
         "a RANGE plan does not run");
  bad = plan;
  bad.moduli = TILEMM_EMU_MAX_MODULI + 1;
  CHECK (tilemm_emu_run_cpu (&bad, &vap, &vbp, &vc3, NULL) == TILEMM_EINVAL, "25 moduli");
  CHECK (tilemm_emu_stats_cpu (&vap, &vap, &st, &err) == TILEMM_ESHAPE, "shapes");
  CHECK_CASE ("1, 2 and 3 threads: the same plan and bits");
  {
    /* Large enough that the loops take more than one thread (team_size.h). */
    const int bm = 130, bn = 120, bk = 100;
    double *ba = malloc (sizeof (double) * bm * bk), *bb = malloc (sizeof (double) * bk * bn);
    double *bc[3] = { malloc (sizeof (double) * bm * bn), malloc (sizeof (double) * bm * bn),
                      malloc (sizeof (double) * bm * bn) };
    CHECK (ba && bb && bc[0] && bc[1] && bc[2], "memory");
    if (ba && bb && bc[0] && bc[1] && bc[2])
      {
        for (int i = 0; i < bm * bk; i++)
          ba[i] = ldexp (nrand (), (i % bm) % 9 - 4);
        for (int i = 0; i < bk * bn; i++)
          bb[i] = nrand ();
        tilemm_emu_plan by[3];
        for (int t = 1; t <= 3; t++)
          CHECK (emulated_on (t, TILEMM_DOUBLE, bm, bn, bk, ba, bb, bc[t - 1], NULL, &by[t - 1])
                   == TILEMM_OK,
                 "C with %d threads", t);
        CHECK (memcmp (bc[0], bc[1], sizeof (double) * bm * bn) == 0
                 && memcmp (bc[0], bc[2], sizeof (double) * bm * bn) == 0,
               "C differs by the threads");
        CHECK (memcmp (&by[0], &by[1], sizeof by[0]) == 0
                 && memcmp (&by[0], &by[2], sizeof by[0]) == 0,
               "plans differ by the threads");
      }
    free (ba), free (bb), free (bc[0]), free (bc[1]), free (bc[2]);
  }
  CHECK_CASE ("fixed moduli: exactly N, more moduli never less accurate here");
  double prev = INFINITY;
  __float128 *r = malloc (sizeof (__float128) * m * n), *s = malloc (sizeof (__float128) * m * n);
  reference (m, n, k, ap, bp, r, s);
  for (int nm = 4; nm <= 16; nm += 4)
    {
      tilemm_emu_default_options (&o, TILEMM_DOUBLE);
      o.moduli = nm;
      CHECK (emulated (TILEMM_DOUBLE, m, n, k, ap, bp, c4, &o, &used) == TILEMM_OK
               && used.verdict == TILEMM_EMU_OK && used.moduli == nm
               && used.log2_needed < used.log2_product,
             "N = %d: verdict %d, %d moduli", nm, used.verdict, used.moduli);
      const double e = error_ratio ((size_t) m * n, c4, r, s);
      CHECK (e <= prev, "N = %d: error %.3e above %.3e", nm, e, prev);
      printf ("  %2d moduli: pa = pb = %d, error/(|A||B|) %.2e\n", nm, used.pa, e);
      prev = e;
    }
  CHECK (prev < 0x1p-50, "16 moduli: %.3e", prev);
  o.moduli = 1;   /* 8 bits: at most a bit or two per operand, or none (RANGE) */
  CHECK (emulated (TILEMM_DOUBLE, m, n, k, ap, bp, c4, &o, &used) == TILEMM_OK && used.moduli == 1
           && (used.verdict == TILEMM_EMU_RANGE || (used.pa >= 1 && used.pa <= 3)),
         "one modulus: verdict %d, pa %d", used.verdict, used.pa);
  free (r);
  free (s);
  free (a);
  free (b);
  free (ap);
  free (bp);
  free (c1);
  free (c2);
  free (c3);
  free (c4);
}

/* Overflow of a finite product: ±Inf, as IEEE rounding gives; subnormal products rounded once. */
static void test_extremes (void)
{
  CHECK_CASE ("overflow to ±Inf, subnormal results, +0 for zero rows");
  double a[6] = { 1e308, -1e308, 0, 1e308, -1e308, 0 }, b[2] = { 1, 1 }, c[3];
  tilemm_emu_plan used;
  CHECK (emulated (TILEMM_DOUBLE, 3, 1, 2, a, b, c, NULL, &used) == TILEMM_OK
           && used.verdict == TILEMM_EMU_OK,
         "verdict %d", used.verdict);
  CHECK (c[0] == INFINITY && c[1] == -INFINITY && c[2] == 0 && !signbit (c[2]), "%g %g %g", c[0],
         c[1], c[2]);
  double sa[2] = { 0x1p-540, 3 * 0x1p-541 }, sb[2] = { 0x1p-540, 0x1p-540 }, sc[1];
  CHECK (emulated (TILEMM_DOUBLE, 1, 1, 2, sa, sb, sc, NULL, &used) == TILEMM_OK
           && used.verdict == TILEMM_EMU_OK,
         "verdict %d", used.verdict);
  /* 2^-1080 + 3·2^-1081 = 5·2^-1081, below half the smallest subnormal (2^-1075): +0 */
  CHECK (sc[0] == 0.0, "%a", sc[0]);
  double ta[2] = { 0x1p-537, 0x1p-537 }, tb[2] = { 0x1p-537, 0x1p-538 }, tc[1];
  emulated (TILEMM_DOUBLE, 1, 1, 2, ta, tb, tc, NULL, &used);
  /* 2^-1074 + 2^-1075: 1.5 smallest subnormals, a tie: to even, 2^-1073 */
  CHECK (tc[0] == 0x1p-1073, "%a", tc[0]);
  float fa[2] = { 3e38f, 3e38f }, fb[2] = { 1, 1 }, fc[1];
  emulated (TILEMM_SINGLE, 1, 1, 2, fa, fb, fc, NULL, &used);
  CHECK (isinf (fc[0]) && fc[0] > 0, "single overflow: %g", fc[0]);
#ifndef __SANITIZE_ADDRESS__
  CHECK_CASE ("host memory exhausted: TILEMM_ENOMEM, nothing written");
  static double tiny[1] = { 1 };
  tilemm_view va, vb;
  /* 2^28 × 2^28 doubles: a valid view whose copy no host can allocate (never read). */
  va.rows = va.cols = va.stride = (int64_t) 1 << 28;
  va.type = TILEMM_DOUBLE;
  va.data = tiny;
  vb = va;
  tilemm_emu_stats st;
  tilemm_error err = { TILEMM_OK, "" };
  CHECK (tilemm_emu_stats_cpu (&va, &vb, &st, &err) == TILEMM_ENOMEM, "status %d", err.status);
#endif
}

/* The pass of statistics of a two-pass emulated product on the CPU's and the simulated devices'
 * tables runs as the call's plan says: on its branches' team, and S with the ratios only where the
 * branches need them (review r5).  Bitwise the statistics without a plan wherever computed. */
extern const tilemm_backend_ops tilemm_cpu_backend_ops;

static void test_stats_as_the_plan_says (void)
{
  const int m = 37, n = 29, k = 300;
  double *a = malloc (sizeof (double) * m * k), *b = malloc (sizeof (double) * k * n);
  for (int i = 0; i < m * k; i++)
    a[i] = nrand ();
  for (int i = 0; i < k * n; i++)
    b[i] = ldexp (nrand (), i % 9);
  tilemm_view va, vb;
  tilemm_view_init (&va, TILEMM_DOUBLE, m, k, m, a);
  tilemm_view_init (&vb, TILEMM_DOUBLE, k, n, k, b);
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_emu_stats whole;
  CHECK (tilemm_emu_stats_cpu (&va, &vb, &whole, &err) == TILEMM_OK && whole.ratio_a > 0
           && whole.ratio_b > 0,
         "the statistics without a plan: %s", err.detail);
  tilemm_emu_options options;
  tilemm_emu_default_options (&options, TILEMM_DOUBLE);
  const tilemm_backend_ops *tables[2] = { &tilemm_cpu_backend_ops, &tilemm_sim_backend_ops };
  for (int t = 0; t < 2; t++)
    for (int threads = 1; threads <= 3; threads += 2)
      for (int ratios = 0; ratios <= 1; ratios++)
        {
          CHECK_CASE ("%s table: the statistics on %d threads, ratios %s", tables[t]->name,
                      threads, ratios ? "needed" : "not needed");
          tilemm_call_plan *plan = calloc (1, sizeof *plan);
          plan->emu_branches.threads = threads;
          plan->emu_branches.needs_ratios = ratios;
          plan->sim_faults.fail_device = plan->sim_faults.slow_device = -1;   /* none */
          void *state = NULL;
          tilemm_emu_stats st;
          memset (&st, 0x5a, sizeof st);   /* poison: every field must be written */
          const int begun = tables[t]->begin (plan, &state, &err) == TILEMM_OK;
          CHECK (begun, "begin: %s", err.detail);
          if (begun)
            {
              const tilemm_status s = tables[t]->emu_stats (state, 0, &options, TILEMM_OP_NONE, &va,
                                                            TILEMM_OP_NONE, &vb, &st, &err);
              CHECK (s == TILEMM_OK, "stats: %s", err.detail);
              CHECK (st.max_qa == whole.max_qa && st.max_qb == whole.max_qb
                       && st.inner == whole.inner && st.nonfinite == whole.nonfinite,
                     "the maxima differ from the statistics without a plan");
              if (ratios)
                CHECK (st.ratio_a == whole.ratio_a && st.ratio_b == whole.ratio_b,
                       "ratios %.17g %.17g, without a plan %.17g %.17g", st.ratio_a, st.ratio_b,
                       whole.ratio_a, whole.ratio_b);
              else
                CHECK (st.ratio_a == 0 && st.ratio_b == 0,
                       "ratios computed where the plan needs none: %g %g", st.ratio_a, st.ratio_b);
              tables[t]->end (state, s);
            }
          free (plan);
        }
  CHECK_CASE ("cpu table: no call plan, a clear error");
  void *state = NULL;
  CHECK (tilemm_cpu_backend_ops.begin (NULL, &state, &err) == TILEMM_EINVAL, "status %d",
         (int) err.status);
  free (a);
  free (b);
}

int main (void)
{
  test_tables ();
  test_residue ();
  test_exponent_quantize ();
  test_crt ();
  test_integers ();
  test_accuracy ();
  test_verdicts ();
  test_shared_budget ();
  test_elementwise_rule ();
  test_single ();
  test_complex ();
  test_views_plans_threads ();
  test_loop_plan ();
  test_extremes ();
  test_stats_as_the_plan_says ();
  return check_summary ("test_emulated");
}
