/* test_core.c — unit tests of the pure-C core: views, status codes, plans and the CPU backend.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Products are checked against a long-double triple loop on the column-major data, element by
 * element, within the classic bound of recursive summation
 *     |C_ij - ref_ij| <= TOL_FACTOR · eps(type) · k · sum_l |a_il| |b_lj|
 * (for complex, |x| = |re| + |im| and each part is checked), so only rounding can pass, never a
 * wrong index, a missing term or a stale element.  Every C is poisoned with NaN before the
 * product, its gap between rows and stride and a guard after it hold a byte sentinel that must
 * survive, and the gaps of A and B hold NaN, so reading outside a view shows up in the result.
 */
#define _POSIX_C_SOURCE 200809L   /* setenv, unsetenv */
#define _DEFAULT_SOURCE           /* mincore */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "batch.h"
#include "call_plan.h"
#include "check.h"
#include "pages_shape.h"
#include "cpu_isa.h"
#include "device_model.h"
#include "front.h"
#include "ksplit.h"
#include "host_pages.h"
#include "host_pool.h"
#include "host_team.h"
#include "parallel_copy.h"
#include "team_size.h"
#include "tilemm_settings.h"
#include "tilemm.h"

#define TEST_STRINGISE_(x) #x
#define TEST_STRINGISE(x) TEST_STRINGISE_ (x)

#define TOL_FACTOR 4.0L
#define GUARD_ELEMENTS 16     /* elements after the last column of every test matrix */
#define SENTINEL_BYTE 0xA5    /* fills C's gaps and guard: must be unchanged afterwards */

/* ---------------------------------------------------------------- random numbers */

/* xorshift64*: small, seeded, the same sequence everywhere. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static void rng_seed (uint64_t seed)
{
  rng_state = seed ? seed : 0x9E3779B97F4A7C15u;
}

static uint64_t rng_next (void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Du;
}

/* Uniform in [-1, 1]. */
static double rng_uniform (void)
{
  return (double) (rng_next () >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Uniform integer in [lo, hi]. */
static int64_t rng_range (int64_t lo, int64_t hi)
{
  return lo + (int64_t) (rng_next () % (uint64_t) (hi - lo + 1));
}

/* ---------------------------------------------------------------- test matrices */

static const tilemm_type all_types[] = { TILEMM_SINGLE, TILEMM_DOUBLE, TILEMM_COMPLEX_SINGLE,
                                         TILEMM_COMPLEX_DOUBLE };

static int type_parts (tilemm_type type)
{
  return tilemm_type_is_complex (type) ? 2 : 1;
}

static int type_is_float (tilemm_type type)
{
  return type == TILEMM_SINGLE || type == TILEMM_COMPLEX_SINGLE;
}

static long double type_eps (tilemm_type type)
{
  return type_is_float (type) ? FLT_EPSILON : DBL_EPSILON;
}

/* A column-major matrix with its own buffer: stride*cols elements plus a guard. */
typedef struct {
  tilemm_view view;
  size_t bytes;       /* of the whole buffer */
  size_t elements;    /* of the whole buffer, gaps and guard included */
} test_matrix;

static int tm_alloc (test_matrix *t, tilemm_type type, int64_t rows, int64_t cols, int64_t stride)
{
  memset (t, 0, sizeof *t);
  t->elements = (size_t) (stride * cols) + GUARD_ELEMENTS;
  t->bytes = t->elements * tilemm_type_size (type);
  void *data = malloc (t->bytes);
  if (!data)
    return 0;
  if (tilemm_view_init (&t->view, type, rows, cols, stride, data) != TILEMM_OK)
    {
      free (data);
      return 0;
    }
  return 1;
}

static void tm_free (test_matrix *t)
{
  free (t->view.data);
  t->view.data = NULL;
}

/* Scalar `part` of buffer element `index`, whatever the type. */
static long double tm_get_at (const test_matrix *t, size_t index, int part)
{
  const size_t s = index * (size_t) type_parts (t->view.type) + (size_t) part;
  return type_is_float (t->view.type) ? (long double) ((const float *) t->view.data)[s]
                                      : (long double) ((const double *) t->view.data)[s];
}

static void tm_set_at (test_matrix *t, size_t index, int part, double value)
{
  const size_t s = index * (size_t) type_parts (t->view.type) + (size_t) part;
  if (type_is_float (t->view.type))
    ((float *) t->view.data)[s] = (float) value;
  else
    ((double *) t->view.data)[s] = value;
}

static size_t tm_index (const test_matrix *t, int64_t i, int64_t j)
{
  return (size_t) (i + j * t->view.stride);
}

static long double tm_get (const test_matrix *t, int64_t i, int64_t j, int part)
{
  return tm_get_at (t, tm_index (t, i, j), part);
}

static void tm_set (test_matrix *t, int64_t i, int64_t j, int part, double value)
{
  tm_set_at (t, tm_index (t, i, j), part, value);
}

static int tm_in_view (const test_matrix *t, size_t index)
{
  const size_t stride = (size_t) t->view.stride;
  return index / stride < (size_t) t->view.cols && index % stride < (size_t) t->view.rows;
}

/* An operand: fresh random values in the view, NaN in the gaps and guard. */
static void tm_fill_random (test_matrix *t)
{
  const int parts = type_parts (t->view.type);
  for (size_t e = 0; e < t->elements; e++)
    for (int p = 0; p < parts; p++)
      tm_set_at (t, e, p, tm_in_view (t, e) ? rng_uniform () : NAN);
}

/* A result: NaN in the view (every element must be written), the sentinel elsewhere. */
static void tm_poison (test_matrix *t)
{
  memset (t->view.data, SENTINEL_BYTE, t->bytes);
  const int parts = type_parts (t->view.type);
  for (int64_t j = 0; j < t->view.cols; j++)
    for (int64_t i = 0; i < t->view.rows; i++)
      for (int p = 0; p < parts; p++)
        tm_set (t, i, j, p, NAN);
}

/* Whether every byte outside the view still holds the sentinel. */
static int tm_gaps_intact (const test_matrix *t)
{
  const size_t es = tilemm_type_size (t->view.type);
  const unsigned char *bytes = t->view.data;
  for (size_t e = 0; e < t->elements; e++)
    if (!tm_in_view (t, e))
      for (size_t b = 0; b < es; b++)
        if (bytes[e * es + b] != SENTINEL_BYTE)
          return 0;
  return 1;
}

/* ---------------------------------------------------------------- the reference */

typedef struct {
  int64_t mismatches;
  int64_t first_i, first_j;
  long double got, want, bound;
} compare_result;

/* Whether a computed part agrees with the reference: NaN where the reference is NaN, the same
 * infinity, and within the bound otherwise (a NaN result fails the last test too). */
static int part_agrees (long double got, long double want, long double bound)
{
  if (isnan (want))
    return isnan (got);
  if (isinf (want))
    return got == want;
  return fabsl (got - want) <= bound;
}

static void note_mismatch (compare_result *r, int64_t i, int64_t j, long double got,
                           long double want, long double bound)
{
  if (r->mismatches++ == 0)
    {
      r->first_i = i;
      r->first_j = j;
      r->got = got;
      r->want = want;
      r->bound = bound;
    }
}

/* An operand copied for the reference as `lines` contiguous vectors of length k: the rows of A,
 * the columns of B, so every dot product reads both operands contiguously.  Parts are kept in
 * double (exact for float and double data); |re| + |im| only scales the error bound. */
typedef struct {
  int64_t lines, k;
  double *re, *im, *abs;   /* im is NULL for a real type */
} ref_lines;

static void ref_free (ref_lines *r)
{
  free (r->re);
  free (r->im);
  free (r->abs);
}

/* The lines of t: its rows when by_rows, else its columns. */
static int ref_load (ref_lines *r, const test_matrix *t, int by_rows)
{
  const int complex_type = tilemm_type_is_complex (t->view.type);
  r->lines = by_rows ? t->view.rows : t->view.cols;
  r->k = by_rows ? t->view.cols : t->view.rows;
  const size_t count = (size_t) (r->lines * r->k) + 1;
  r->re = malloc (count * sizeof *r->re);
  r->im = complex_type ? malloc (count * sizeof *r->im) : NULL;
  r->abs = malloc (count * sizeof *r->abs);
  if (!r->re || !r->abs || (complex_type && !r->im))
    return 0;
  for (int64_t line = 0; line < r->lines; line++)
    for (int64_t l = 0; l < r->k; l++)
      {
        const size_t e = (size_t) (line * r->k + l);
        const int64_t i = by_rows ? line : l, j = by_rows ? l : line;
        r->re[e] = (double) tm_get (t, i, j, 0);
        r->abs[e] = fabs (r->re[e]);
        if (complex_type)
          {
            r->im[e] = (double) tm_get (t, i, j, 1);
            r->abs[e] += fabs (r->im[e]);
          }
      }
  return 1;
}

typedef struct {
  long double re, im;
  double mag;   /* sum of |a_il| |b_lj| */
} ref_value;

/* sum_l a[l]·b[l] in long double and the magnitude sum in double.  Two partial sums each, in
 * named variables the compiler keeps in registers, so the additions pipeline; the order of
 * summation is irrelevant at this precision. */
static ref_value ref_dot (const ref_lines *a, int64_t i, const ref_lines *b, int64_t j)
{
  const int64_t k = a->k, pairs = k / 2 * 2;
  const double *ar = a->re + i * k, *br = b->re + j * k;
  const double *aa = a->abs + i * k, *ba = b->abs + j * k;
  long double re0 = 0, re1 = 0, im0 = 0, im1 = 0;
  double mag0 = 0, mag1 = 0;
  if (a->im)
    {
      const double *ai = a->im + i * k, *bi = b->im + j * k;
      for (int64_t l = 0; l < pairs; l += 2)
        {
          re0 += (long double) ar[l] * br[l] - (long double) ai[l] * bi[l];
          im0 += (long double) ar[l] * bi[l] + (long double) ai[l] * br[l];
          re1 += (long double) ar[l + 1] * br[l + 1] - (long double) ai[l + 1] * bi[l + 1];
          im1 += (long double) ar[l + 1] * bi[l + 1] + (long double) ai[l + 1] * br[l + 1];
        }
      if (pairs < k)
        {
          re0 += (long double) ar[pairs] * br[pairs] - (long double) ai[pairs] * bi[pairs];
          im0 += (long double) ar[pairs] * bi[pairs] + (long double) ai[pairs] * br[pairs];
        }
    }
  else
    {
      for (int64_t l = 0; l < pairs; l += 2)
        {
          re0 += (long double) ar[l] * br[l];
          re1 += (long double) ar[l + 1] * br[l + 1];
        }
      if (pairs < k)
        re0 += (long double) ar[pairs] * br[pairs];
    }
  for (int64_t l = 0; l < pairs; l += 2)
    {
      mag0 += aa[l] * ba[l];
      mag1 += aa[l + 1] * ba[l + 1];
    }
  if (pairs < k)
    mag0 += aa[pairs] * ba[pairs];
  ref_value v = { re0 + re1, im0 + im1, mag0 + mag1 };
  return v;
}

/* Compares C = A·B with the long-double reference, element by element. */
static compare_result compare_with_reference (const test_matrix *a, const test_matrix *b,
                                              const test_matrix *c)
{
  const int64_t m = a->view.rows, k = a->view.cols, n = b->view.cols;
  const int complex_type = tilemm_type_is_complex (a->view.type);
  /* The bound grows by 1% so that rounding the magnitudes in double can never matter. */
  const long double tol = TOL_FACTOR * type_eps (a->view.type) * (long double) k * 1.01L;
  compare_result r = { 0 };
  ref_lines ra = { 0 }, rb = { 0 };
  if (!ref_load (&ra, a, 1) || !ref_load (&rb, b, 0))
    {
      r.mismatches = -1;
      goto done;
    }
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      {
        const ref_value want = ref_dot (&ra, i, &rb, j);
        const long double bound = tol * (long double) want.mag;
        const long double got_re = tm_get (c, i, j, 0);
        if (!part_agrees (got_re, want.re, bound))
          note_mismatch (&r, i, j, got_re, want.re, bound);
        if (complex_type)
          {
            const long double got_im = tm_get (c, i, j, 1);
            if (!part_agrees (got_im, want.im, bound))
              note_mismatch (&r, i, j, got_im, want.im, bound);
          }
      }
done:
  ref_free (&ra);
  ref_free (&rb);
  return r;
}

/* ---------------------------------------------------------------- running products */

/* The extra stride (beyond rows) of each operand; all zero for tight matrices. */
typedef struct {
  int64_t a, b, c;
} stride_extra;

static const stride_extra tight = { 0, 0, 0 };

/* One product's operands, filled and poisoned, ready to multiply. */
typedef struct {
  test_matrix a, b, c;
  unsigned char *a_copy, *b_copy;   /* to check the operands are left untouched */
} product;

static int product_make (product *p, tilemm_type type, int64_t m, int64_t k, int64_t n,
                         stride_extra extra)
{
  memset (p, 0, sizeof *p);
  if (!tm_alloc (&p->a, type, m, k, (m > 1 ? m : 1) + extra.a)
      || !tm_alloc (&p->b, type, k, n, (k > 1 ? k : 1) + extra.b)
      || !tm_alloc (&p->c, type, m, n, (m > 1 ? m : 1) + extra.c))
    return 0;
  tm_fill_random (&p->a);
  tm_fill_random (&p->b);
  tm_poison (&p->c);
  p->a_copy = malloc (p->a.bytes);
  p->b_copy = malloc (p->b.bytes);
  if (!p->a_copy || !p->b_copy)
    return 0;
  return 1;
}

static void product_free (product *p)
{
  tm_free (&p->a);
  tm_free (&p->b);
  tm_free (&p->c);
  free (p->a_copy);
  free (p->b_copy);
}

/* Remembers A and B and re-poisons C, so one product can be run again (other plans). */
static void product_prepare (product *p)
{
  memcpy (p->a_copy, p->a.view.data, p->a.bytes);
  memcpy (p->b_copy, p->b.view.data, p->b.bytes);
  tm_poison (&p->c);
}

/* Runs plan on the product and checks everything but the values: status, untouched operands,
 * untouched gaps of C.  Returns 1 when all of that holds. */
static int product_run (product *p, const tilemm_plan *plan, const char *what)
{
  product_prepare (p);
  tilemm_error err;
  tilemm_status status = tilemm_multiply (plan, &p->a.view, &p->b.view, &p->c.view, &err);
  int ok = 1;
  CHECK (status == TILEMM_OK && err.status == TILEMM_OK, "%s: status %d (%s)", what, (int) status,
         err.detail);
  ok &= status == TILEMM_OK;
  CHECK (memcmp (p->a_copy, p->a.view.data, p->a.bytes) == 0, "%s: A was modified", what);
  CHECK (memcmp (p->b_copy, p->b.view.data, p->b.bytes) == 0, "%s: B was modified", what);
  CHECK (tm_gaps_intact (&p->c), "%s: C's gap or guard was written", what);
  ok &= memcmp (p->a_copy, p->a.view.data, p->a.bytes) == 0
        && memcmp (p->b_copy, p->b.view.data, p->b.bytes) == 0 && tm_gaps_intact (&p->c);
  return ok;
}

/* Checks C against the reference; returns 1 when it agrees. */
static int product_check_values (const product *p, const char *what)
{
  const compare_result r = compare_with_reference (&p->a, &p->b, &p->c);
  CHECK (r.mismatches == 0,
         "%s: %lld mismatches; first C(%lld,%lld) = %.20Lg, reference %.20Lg, bound %.3Lg", what,
         (long long) r.mismatches, (long long) r.first_i, (long long) r.first_j, r.got, r.want,
         r.bound);
  return r.mismatches == 0;
}

/* Plans, runs and checks one product of fresh random operands. */
static int check_product (tilemm_type type, int64_t m, int64_t k, int64_t n, stride_extra extra,
                          const tilemm_limits *limits)
{
  char what[160];
  snprintf (what, sizeof what, "%s %lldx%lldx%lld strides +%lld/+%lld/+%lld",
            tilemm_type_name (type), (long long) m, (long long) k, (long long) n,
            (long long) extra.a, (long long) extra.b, (long long) extra.c);
  product p;
  tilemm_plan plan;
  int ok = product_make (&p, type, m, k, n, extra);
  CHECK (ok, "%s: out of memory", what);
  if (ok)
    {
      tilemm_status status = tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, m, n, k, limits);
      CHECK (status == TILEMM_OK, "%s: plan status %d", what, (int) status);
      ok = status == TILEMM_OK && product_run (&p, &plan, what) && product_check_values (&p, what);
    }
  product_free (&p);
  return ok;
}

/* ---------------------------------------------------------------- views */

static void test_type_facts (void)
{
  CHECK_CASE ("types: sizes, complexity and names");
  CHECK (tilemm_type_size (TILEMM_SINGLE) == 4, "single size");
  CHECK (tilemm_type_size (TILEMM_DOUBLE) == 8, "double size");
  CHECK (tilemm_type_size (TILEMM_COMPLEX_SINGLE) == 8, "complex single size");
  CHECK (tilemm_type_size (TILEMM_COMPLEX_DOUBLE) == 16, "complex double size");
  CHECK (!tilemm_type_is_complex (TILEMM_SINGLE) && !tilemm_type_is_complex (TILEMM_DOUBLE),
         "real types");
  CHECK (tilemm_type_is_complex (TILEMM_COMPLEX_SINGLE)
           && tilemm_type_is_complex (TILEMM_COMPLEX_DOUBLE), "complex types");
  CHECK (strcmp (tilemm_type_name (TILEMM_SINGLE), "single") == 0, "name");
  CHECK (strcmp (tilemm_type_name (TILEMM_DOUBLE), "double") == 0, "name");
  CHECK (strcmp (tilemm_type_name (TILEMM_COMPLEX_SINGLE), "complex single") == 0, "name");
  CHECK (strcmp (tilemm_type_name (TILEMM_COMPLEX_DOUBLE), "complex double") == 0, "name");

  CHECK_CASE ("types: out-of-range types are size 0, real and unknown");
  const tilemm_type bad[] = { TILEMM_NTYPES, (tilemm_type) -1, (tilemm_type) 1000 };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      CHECK (tilemm_type_size (bad[i]) == 0, "size of type %d", (int) bad[i]);
      CHECK (!tilemm_type_is_complex (bad[i]), "complexity of type %d", (int) bad[i]);
      CHECK (strcmp (tilemm_type_name (bad[i]), "unknown") == 0, "name of type %d", (int) bad[i]);
    }
}

static void test_view_init (void)
{
  double buffer[64];
  tilemm_view v;

  CHECK_CASE ("view_init: accepts a valid view and fills every field");
  memset (&v, 0, sizeof v);
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 3, 4, 5, buffer) == TILEMM_OK, "3x4 stride 5");
  CHECK (v.rows == 3 && v.cols == 4 && v.stride == 5 && v.type == TILEMM_DOUBLE
           && v.data == buffer, "fields %lld %lld %lld", (long long) v.rows, (long long) v.cols,
         (long long) v.stride);
  CHECK (tilemm_view_check (&v) == TILEMM_OK, "check agrees");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 3, 4, 3, buffer) == TILEMM_OK, "stride == rows");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 1, 1, 1, buffer) == TILEMM_OK, "1x1");

  CHECK_CASE ("view_init: rejects negative sizes");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, -1, 4, 5, buffer) == TILEMM_EINVAL, "rows -1");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 3, -1, 5, buffer) == TILEMM_EINVAL, "cols -1");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, INT64_MIN, 1, 5, buffer) == TILEMM_EINVAL, "rows min");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 3, 4, -5, buffer) == TILEMM_EINVAL, "stride -5");

  CHECK_CASE ("view_init: rejects stride < max(rows, 1), including stride 0 with rows 0");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 3, 4, 2, buffer) == TILEMM_EINVAL, "stride 2 < 3");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 0, 4, 0, buffer) == TILEMM_EINVAL, "0 rows stride 0");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 0, 0, 0, NULL) == TILEMM_EINVAL, "0x0 stride 0");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 0, 4, 1, buffer) == TILEMM_OK, "0 rows stride 1");

  CHECK_CASE ("view_init: NULL data only for empty views");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 3, 4, 3, NULL) == TILEMM_EINVAL, "3x4 NULL");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 1, 1, 1, NULL) == TILEMM_EINVAL, "1x1 NULL");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 0, 4, 1, NULL) == TILEMM_OK, "0x4 NULL");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 4, 0, 4, NULL) == TILEMM_OK, "4x0 NULL");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 0, 0, 1, NULL) == TILEMM_OK, "0x0 NULL");

  CHECK_CASE ("view_init: rejects bad types and a NULL view; leaves *view alone on failure");
  CHECK (tilemm_view_init (&v, TILEMM_NTYPES, 1, 1, 1, buffer) == TILEMM_EINVAL, "NTYPES");
  CHECK (tilemm_view_init (&v, (tilemm_type) -1, 1, 1, 1, buffer) == TILEMM_EINVAL, "type -1");
  CHECK (tilemm_view_init (NULL, TILEMM_DOUBLE, 1, 1, 1, buffer) == TILEMM_EINVAL, "NULL view");
  CHECK (tilemm_view_check (NULL) == TILEMM_EINVAL, "check NULL");
  tilemm_view before;
  tilemm_view_init (&v, TILEMM_SINGLE, 2, 2, 2, buffer);
  before = v;
  tilemm_view_init (&v, TILEMM_DOUBLE, 3, 4, 2, buffer);
  CHECK (memcmp (&before, &v, sizeof v) == 0, "view changed by a failed init");
}

static void test_view_overflow (void)
{
  /* The data is never dereferenced: only the arithmetic on the extent is tested. */
  double dummy;
  tilemm_view v;
  const int64_t limit_d = (int64_t) (PTRDIFF_MAX / 8);      /* doubles addressable */
  const int64_t limit_z = (int64_t) (PTRDIFF_MAX / 16);     /* complex doubles     */

  CHECK_CASE ("view_init: byte extent overflow is TILEMM_EOVERFLOW, the largest fit is OK");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 1, limit_d, 1, &dummy) == TILEMM_OK,
         "1 x limit doubles fits");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 1, limit_d + 1, 1, &dummy) == TILEMM_EOVERFLOW,
         "1 x (limit+1) doubles");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, limit_d, 1, limit_d, &dummy) == TILEMM_OK,
         "limit x 1 doubles fits");
  CHECK (tilemm_view_init (&v, TILEMM_COMPLEX_DOUBLE, 1, limit_d, 1, &dummy) == TILEMM_EOVERFLOW,
         "complex double is twice as wide");
  CHECK (tilemm_view_init (&v, TILEMM_COMPLEX_DOUBLE, 1, limit_z, 1, &dummy) == TILEMM_OK,
         "1 x limit complex doubles fits");
  CHECK (tilemm_view_init (&v, TILEMM_DOUBLE, 2, INT64_C (1) << 62, 2, &dummy)
           == TILEMM_EOVERFLOW, "2^62 columns of stride 2");
  CHECK (tilemm_view_init (&v, TILEMM_SINGLE, INT64_MAX, 2, INT64_MAX, &dummy)
           == TILEMM_EOVERFLOW, "INT64_MAX rows");
  CHECK (tilemm_view_init (&v, TILEMM_SINGLE, 1, INT64_MAX, INT64_MAX, &dummy)
           == TILEMM_EOVERFLOW, "INT64_MAX stride and cols");
  CHECK (tilemm_view_init (&v, TILEMM_SINGLE, 0, INT64_MAX, 1, NULL) == TILEMM_OK,
         "an empty view is never too large");
}

static void test_view_sub (void)
{
  double buffer[7 * 5];
  tilemm_view v, s;
  tilemm_view_init (&v, TILEMM_DOUBLE, 6, 5, 7, buffer);

  CHECK_CASE ("view_sub: offset pointer, parent stride, requested size inside the parent");
  s = tilemm_view_sub (&v, 2, 3, 3, 2);
  CHECK (s.data == buffer + 2 + 3 * 7, "offset %td", (double *) s.data - buffer);
  CHECK (s.rows == 3 && s.cols == 2 && s.stride == 7 && s.type == TILEMM_DOUBLE, "shape");
  CHECK (tilemm_view_check (&s) == TILEMM_OK, "sub-view valid");
  s = tilemm_view_sub (&v, 0, 0, 6, 5);
  /* Field by field: the struct's padding bytes are not part of its value. */
  CHECK (s.rows == v.rows && s.cols == v.cols && s.stride == v.stride && s.type == v.type
           && s.data == v.data, "the whole view is itself");

  CHECK_CASE ("view_sub: clamps to the parent's edges");
  s = tilemm_view_sub (&v, 4, 3, 10, 10);
  CHECK (s.rows == 2 && s.cols == 2 && s.data == buffer + 4 + 3 * 7, "overhang %lldx%lld",
         (long long) s.rows, (long long) s.cols);
  s = tilemm_view_sub (&v, 9, 9, 3, 3);
  CHECK (s.rows == 0 && s.cols == 0, "start past the end gives an empty view");
  CHECK (tilemm_view_check (&s) == TILEMM_OK, "and it is valid");
  s = tilemm_view_sub (&v, -3, -1, 2, 2);
  CHECK (s.rows == 2 && s.cols == 2 && s.data == buffer, "negative start clamps to 0");
  s = tilemm_view_sub (&v, 1, 1, -4, -4);
  CHECK (s.rows == 0 && s.cols == 0, "negative size clamps to 0");

  CHECK_CASE ("view_sub: complex elements count once, NULL data stays NULL");
  float cbuf[2 * 4 * 3];
  tilemm_view_init (&v, TILEMM_COMPLEX_SINGLE, 3, 3, 4, cbuf);
  s = tilemm_view_sub (&v, 1, 2, 2, 1);
  CHECK (s.data == cbuf + 2 * (1 + 2 * 4), "complex offset %td", (float *) s.data - cbuf);
  tilemm_view_init (&v, TILEMM_DOUBLE, 0, 5, 1, NULL);
  s = tilemm_view_sub (&v, 0, 2, 0, 2);
  CHECK (s.data == NULL && s.cols == 2 && s.rows == 0, "empty NULL view");
}

static void test_row_major_reading (void)
{
  double buffer[5 * 4];
  for (int i = 0; i < 20; i++)
    buffer[i] = i;
  tilemm_view v;
  tilemm_view_init (&v, TILEMM_DOUBLE, 3, 4, 5, buffer);

  CHECK_CASE ("row_major_reading: the guide's Matrix is the transpose on the same bytes");
  const tilemm_matrix mat = tilemm_row_major_reading (&v);
  CHECK (mat.height == 4 && mat.width == 3 && mat.stride == 5 && mat.elements == buffer,
         "height %lld width %lld stride %lld", (long long) mat.height, (long long) mat.width,
         (long long) mat.stride);
  for (int64_t r = 0; r < mat.height; r++)
    for (int64_t c = 0; c < mat.width; c++)
      CHECK (((double *) mat.elements)[r * mat.stride + c] == buffer[c + r * v.stride],
             "reading (%lld,%lld) is view (%lld,%lld)", (long long) r, (long long) c,
             (long long) c, (long long) r);
  const tilemm_view sub = tilemm_view_sub (&v, 1, 2, 2, 2);
  const tilemm_matrix sm = tilemm_row_major_reading (&sub);
  CHECK (sm.height == 2 && sm.width == 2 && ((double *) sm.elements)[1 * sm.stride + 0] == 16,
         "reading of a sub-view");
}

/* ---------------------------------------------------------------- status */

static void test_status (void)
{
  CHECK_CASE ("status: every code has a message and an identifier-safe reason");
  for (int s = 0; s < TILEMM_NSTATUS; s++)
    {
      const char *message = tilemm_strerror ((tilemm_status) s);
      const char *reason = tilemm_status_reason ((tilemm_status) s);
      CHECK (message && message[0] != '\0', "message of %d", s);
      CHECK (reason && reason[0] != '\0', "reason of %d", s);
      CHECK (reason && strspn (reason, "abcdefghijklmnopqrstuvwxyz") == strlen (reason),
             "reason of %d is \"%s\"", s, reason ? reason : "(null)");
      CHECK (message && strcmp (message, tilemm_strerror (TILEMM_NSTATUS)) != 0,
             "status %d has its own message", s);
    }
  CHECK (strcmp (tilemm_status_reason (TILEMM_ENOGPU), "nogpu") == 0, "nogpu");
  CHECK (strcmp (tilemm_status_reason (TILEMM_ECUDA), "cuda") == 0, "cuda");
  CHECK (strcmp (tilemm_status_reason (TILEMM_NSTATUS), "unknown") == 0, "unknown reason");
  CHECK (tilemm_strerror ((tilemm_status) -1) != NULL, "negative status");
  CHECK (tilemm_status_reason ((tilemm_status) -1) != NULL, "negative status reason");

  CHECK_CASE ("status: tilemm_error_set records the status and formats the detail");
  tilemm_error err;
  memset (&err, 'x', sizeof err);
  CHECK (tilemm_error_set (&err, TILEMM_ECUDA, "cudaMalloc(%s, %zu bytes): %s", "dA",
                           (size_t) 134217728, "out of memory") == TILEMM_ECUDA, "returns status");
  CHECK (err.status == TILEMM_ECUDA, "status recorded");
  CHECK (strcmp (err.detail, "cudaMalloc(dA, 134217728 bytes): out of memory") == 0, "detail \"%s\"",
         err.detail);
  CHECK (tilemm_error_set (&err, TILEMM_OK, NULL) == TILEMM_OK && err.status == TILEMM_OK
           && err.detail[0] == '\0', "NULL format clears the detail");
  CHECK (tilemm_error_set (NULL, TILEMM_ENOMEM, "%d", 1) == TILEMM_ENOMEM, "NULL err");

  CHECK_CASE ("status: a long detail is truncated and terminated");
  char longtext[1000];
  memset (longtext, 'y', sizeof longtext - 1);
  longtext[sizeof longtext - 1] = '\0';
  tilemm_error_set (&err, TILEMM_EINVAL, "%s", longtext);
  CHECK (strlen (err.detail) == sizeof err.detail - 1, "length %zu", strlen (err.detail));

  CHECK_CASE ("library facts: version, backend names, build flags");
  /* The build passes the version bare (-DTILEMM_VERSION=0.1.0) and core.c stringises it. */
  const char *version = tilemm_version ();
  CHECK (version[0] != '\0' && strcmp (version, TEST_STRINGISE (TILEMM_VERSION)) == 0,
         "version \"%s\"", version);
  CHECK (strcmp (tilemm_backend_name (TILEMM_BACKEND_CPU), "cpu") == 0, "cpu");
  CHECK (strcmp (tilemm_backend_name (TILEMM_BACKEND_CUDA), "gpu") == 0, "gpu");
  CHECK (strcmp (tilemm_backend_name (TILEMM_NBACKENDS), "unknown") == 0, "unknown backend");
#ifdef _OPENMP
  CHECK (tilemm_openmp_built () == 1, "built with OpenMP");
#else
  CHECK (tilemm_openmp_built () == 0, "built without OpenMP");
#endif
  CHECK (tilemm_cuda_built () == 0 || tilemm_cuda_built () == 1, "cuda_built is a flag");
}

/* ---------------------------------------------------------------- plans */

static void test_plan_tiles (void)
{
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    {
      const tilemm_type type = all_types[t];
      tilemm_plan plan;
      CHECK_CASE ("plan: tiles of the cpu and gpu backends for %s", tilemm_type_name (type));
      CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, 100, 200, 300, NULL) == TILEMM_OK,
             "cpu plan");
      CHECK (plan.backend == TILEMM_BACKEND_CPU && plan.type == type && plan.m == 100
               && plan.n == 200 && plan.k == 300, "plan records the product");
      CHECK (plan.tile_rows == 64 && plan.tile_cols == 64, "cpu tile %dx%d", plan.tile_rows,
             plan.tile_cols);
      CHECK (plan.tile_depth == (tilemm_type_is_complex (type) ? 32 : 64), "cpu depth %d",
             plan.tile_depth);
      CHECK (plan.threads == 0 && plan.pad == 0, "cpu defaults");
      CHECK (plan.panel_rows == 200 && plan.panel_cols == 100, "one panel");

      tilemm_status status = tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, type, 100, 200, 300,
                                               NULL);
      CHECK (status == TILEMM_OK, "gpu plans are pure: they need no GPU (status %d)", (int) status);
      CHECK (plan.backend == TILEMM_BACKEND_CUDA && plan.variant >= 1, "gpu variant %d",
             plan.variant);
      CHECK (plan.tile_rows >= 1 && plan.tile_cols >= 1 && plan.tile_depth >= 1 && plan.pad >= 0,
             "gpu tile %dx%dx%d pad %d", plan.tile_rows, plan.tile_cols, plan.tile_depth,
             plan.pad);
      CHECK (plan.panel_rows == 200 && plan.panel_cols == 100, "one gpu panel");
    }
}

/* Small products take the small-tile variant where the preferred tiles cannot fill the GPU; where
 * a type has two preferred variants, the larger tiles only where they fill it (single 2048: 128
 * blocks of variant 13, so variant 6). */
static void test_plan_small_products (void)
{
  static const struct {
    tilemm_type type;
    int64_t n;
    int variant;
  } cases[] = {
    /* Complex 1000: 8 × 32 blocks of 128 × 64 reals fill the GPU, so no small tiles there. */
    { TILEMM_SINGLE, 1000, 7 }, { TILEMM_SINGLE, 2048, 6 }, { TILEMM_SINGLE, 4096, 13 },
    { TILEMM_SINGLE, 4097, 6 }, { TILEMM_COMPLEX_SINGLE, 4097, 6 }, { TILEMM_DOUBLE, 4097, 10 },
    { TILEMM_DOUBLE, 1000, 10 },
    { TILEMM_DOUBLE, 8192, 10 }, { TILEMM_COMPLEX_SINGLE, 1000, 6 },
    { TILEMM_COMPLEX_SINGLE, 512, 7 }, { TILEMM_COMPLEX_SINGLE, 4096, 13 },
    { TILEMM_COMPLEX_DOUBLE, 1000, 9 }, { TILEMM_COMPLEX_DOUBLE, 512, 10 },
    { TILEMM_COMPLEX_DOUBLE, 4096, 9 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      tilemm_plan plan;
      CHECK_CASE ("plan: gpu variant for %s n = %lld", tilemm_type_name (cases[i].type),
                  (long long) cases[i].n);
      CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, cases[i].type, cases[i].n, cases[i].n,
                               cases[i].n, NULL) == TILEMM_OK, "plan");
      CHECK (plan.variant == cases[i].variant, "variant %d, want %d", plan.variant,
             cases[i].variant);
    }
  /* The GPU's multiprocessors from the limits (the call plan's, from the devices' facts): 132, an
   * H100's, chooses as no count does; on a GPU of 16 the preferred tiles fill it sooner (single
   * 2048: 128 blocks of variant 13, so 13 there; single 1000: 32, so 13 and not the small 7). */
  static const struct {
    tilemm_type type;
    int64_t n;
    int sms, variant;
  } filled[] = {
    { TILEMM_SINGLE, 2048, 132, 6 },  { TILEMM_SINGLE, 2048, 16, 13 },
    { TILEMM_SINGLE, 1000, 132, 7 },  { TILEMM_SINGLE, 1000, 16, 13 },
    { TILEMM_COMPLEX_DOUBLE, 512, 132, 10 }, { TILEMM_COMPLEX_DOUBLE, 512, 16, 9 },
    { TILEMM_SINGLE, 4096, 0, 13 },   { TILEMM_SINGLE, 4097, 132, 6 },
  };
  for (size_t i = 0; i < sizeof filled / sizeof filled[0]; i++)
    {
      tilemm_plan plan;
      const tilemm_limits on = { 0, NULL, filled[i].sms };
      CHECK_CASE ("plan: gpu variant for %s n = %lld on %d multiprocessors",
                  tilemm_type_name (filled[i].type), (long long) filled[i].n, filled[i].sms);
      CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, filled[i].type, filled[i].n,
                               filled[i].n, filled[i].n, &on) == TILEMM_OK, "plan");
      CHECK (plan.variant == filled[i].variant, "variant %d, want %d", plan.variant,
             filled[i].variant);
    }
  /* Every case above alike with the limits' 132 as with none. */
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      tilemm_plan plan;
      const tilemm_limits h100 = { 0, NULL, 132 };
      CHECK_CASE ("plan: gpu variant for %s n = %lld on 132 multiprocessors",
                  tilemm_type_name (cases[i].type), (long long) cases[i].n);
      CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, cases[i].type, cases[i].n, cases[i].n,
                               cases[i].n, &h100) == TILEMM_OK
               && plan.variant == cases[i].variant,
             "variant %d, want %d", plan.variant, cases[i].variant);
    }
  /* A small C with a long k splits k (variant 11); a short k or a C that fills the GPU does not. */
  static const struct {
    tilemm_type type;
    int64_t m, n, k;
    int variant;
  } skinny[] = {
    { TILEMM_SINGLE, 64, 64, 8192, 11 },         { TILEMM_DOUBLE, 64, 64, 8192, 11 },
    { TILEMM_COMPLEX_SINGLE, 64, 64, 8192, 11 }, { TILEMM_COMPLEX_DOUBLE, 64, 64, 8192, 11 },
    { TILEMM_DOUBLE, 64, 64, 512, 10 },          { TILEMM_SINGLE, 8192, 8192, 64, 13 },
    { TILEMM_DOUBLE, 8192, 8192, 64, 10 },       { TILEMM_DOUBLE, 2000, 2000, 8192, 10 },
  };
  for (size_t i = 0; i < sizeof skinny / sizeof skinny[0]; i++)
    {
      tilemm_plan plan;
      CHECK_CASE ("plan: gpu variant for %s %lldx%lldx%lld", tilemm_type_name (skinny[i].type),
                  (long long) skinny[i].m, (long long) skinny[i].n, (long long) skinny[i].k);
      CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, skinny[i].type, skinny[i].m,
                               skinny[i].n, skinny[i].k, NULL) == TILEMM_OK, "plan");
      CHECK (plan.variant == skinny[i].variant, "variant %d, want %d", plan.variant,
             skinny[i].variant);
    }
}

/* A plan made without facts holds its launches: no fallback, every step's shape with its split of
 * k (the split-k variant's above one for a small C' with a long k, one elsewhere), and the
 * launcher's look-up finds each shape the plan runs and refuses one it does not. */
static void test_plan_launches (void)
{
  const struct {
    tilemm_backend backend;
    tilemm_type type;
    int64_t m, n, k;
    size_t limit;
    int split;
  } cases[] = {
    { TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 64, 64, 8192, 0, 1 },
    { TILEMM_BACKEND_CUDA, TILEMM_COMPLEX_SINGLE, 64, 64, 8192, 0, 1 },
    { TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 2000, 1500, 700, 0, 0 },
    { TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 2000, 1500, 700, 8 << 20, 0 },
    { TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 67, 59, 45, 0, 0 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      tilemm_plan plan;
      const tilemm_limits lim = { cases[i].limit, NULL, 0 };
      CHECK_CASE ("plan: launches of %s %s %lldx%lldx%lld, limit %zu",
                  tilemm_backend_name (cases[i].backend), tilemm_type_name (cases[i].type),
                  (long long) cases[i].m, (long long) cases[i].n, (long long) cases[i].k,
                  cases[i].limit);
      CHECK (tilemm_plan_make (&plan, cases[i].backend, cases[i].type, cases[i].m, cases[i].n,
                               cases[i].k, &lim) == TILEMM_OK, "plan");
      CHECK (plan.kernel_fallback == 0, "a plan without facts falls back");
      int most = 0, shapes = 0;
      for (int64_t r0 = 0; r0 < plan.n; r0 += plan.panel_rows)
        for (int64_t c0 = 0; c0 < plan.m; c0 += plan.panel_cols)
          {
            const int64_t pr = plan.n - r0 < plan.panel_rows ? plan.n - r0 : plan.panel_rows;
            const int64_t pc = plan.m - c0 < plan.panel_cols ? plan.m - c0 : plan.panel_cols;
            const int64_t sr = plan.step_rows < pr ? plan.step_rows : pr;
            const int64_t sc = plan.step_cols < pc ? plan.step_cols : pc;
            for (int64_t r = 0; r < pr; r += sr)
              for (int64_t c = 0; c < pc; c += sc)
                {
                  tilemm_kernel_launch lp;
                  const int64_t h = pr - r < sr ? pr - r : sr, w = pc - c < sc ? pc - c : sc;
                  shapes++;
                  if (!tilemm_plan_launch_of (&plan, h, w, plan.k, &lp))
                    {
                      CHECK (0, "no launch of %lldx%lld in the plan", (long long) h,
                             (long long) w);
                      continue;
                    }
                  CHECK (lp.splits >= 1 && lp.dmma_fallback == 0, "launch %lldx%lld: %d pieces",
                         (long long) h, (long long) w, lp.splits);
                  most = lp.splits > most ? lp.splits : most;
                }
          }
      CHECK (shapes > 0, "no steps");
      CHECK (cases[i].split ? most > 1 : most == 1, "at most %d pieces of k", most);
      tilemm_kernel_launch lp;
      CHECK (tilemm_plan_launch_of (&plan, plan.n, plan.m, plan.k, &lp), "no whole launch");
      CHECK (!tilemm_plan_launch_of (&plan, plan.n, plan.m, plan.k + 1, &lp)
               && !tilemm_plan_launch_of (&plan, plan.n + 1, plan.m, plan.k, &lp),
             "a launch the plan does not run was found");
    }
}

static void test_plan_one_panel (void)
{
  tilemm_plan plan;
  tilemm_panel panel;
  const tilemm_limits none = { 0, NULL, 0 };
  const tilemm_limits roomy = { 8 * (37 * 41 + 41 * 53 + 37 * 53), NULL, 0 };

  CHECK_CASE ("plan: no limit, a zero limit or a roomy one give one whole panel");
  const tilemm_limits *limits[] = { NULL, &none, &roomy };
  for (int i = 0; i < 3; i++)
    {
      CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 37, 53, 41, limits[i])
               == TILEMM_OK, "plan %d", i);
      CHECK (tilemm_plan_panel_count (&plan) == 1, "count %lld",
             (long long) tilemm_plan_panel_count (&plan));
      CHECK (tilemm_plan_panel (&plan, 0, &panel) && panel.row == 0 && panel.col == 0
               && panel.rows == 53 && panel.cols == 37, "panel %lld %lld %lld %lld",
             (long long) panel.row, (long long) panel.col, (long long) panel.rows,
             (long long) panel.cols);
    }

  CHECK_CASE ("plan: an empty product has no panels; out-of-range panels return 0");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 0, 5, 3, NULL) == TILEMM_OK,
         "m = 0");
  CHECK (tilemm_plan_panel_count (&plan) == 0, "no panels for m = 0");
  CHECK (!tilemm_plan_panel (&plan, 0, &panel), "panel 0 of none");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 5, 0, 3, NULL) == TILEMM_OK,
         "n = 0");
  CHECK (tilemm_plan_panel_count (&plan) == 0, "no panels for n = 0");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 5, 4, 0, NULL) == TILEMM_OK,
         "k = 0");
  CHECK (tilemm_plan_panel_count (&plan) == 1, "k = 0 still has a panel to write zeros");
  CHECK (!tilemm_plan_panel (&plan, 1, &panel), "panel 1 of 1");
  CHECK (!tilemm_plan_panel (&plan, -1, &panel), "panel -1");
  CHECK (!tilemm_plan_panel (&plan, INT64_MAX, &panel), "panel INT64_MAX");
}

/* Plans with a limit and checks the panels cover C exactly once, each within the limit. */
static void check_panel_cover (tilemm_backend backend, tilemm_type type, int64_t m, int64_t n,
                               int64_t k, size_t limit)
{
  CHECK_CASE ("plan: %s %s %lldx%lldx%lld in %zu bytes: panels cover C once, each fits",
              tilemm_backend_name (backend), tilemm_type_name (type), (long long) m,
              (long long) k, (long long) n, limit);
  const tilemm_limits limits = { limit, NULL, 0 };
  tilemm_plan plan;
  tilemm_status status = tilemm_plan_make (&plan, backend, type, m, n, k, &limits);
  CHECK (status == TILEMM_OK, "status %d", (int) status);
  if (status != TILEMM_OK)
    return;
  const int64_t count = tilemm_plan_panel_count (&plan);
  CHECK (count > 1, "the limit should force panels (count %lld)", (long long) count);
  unsigned char *marks = calloc ((size_t) (m * n), 1);
  CHECK (marks != NULL, "out of memory");
  if (!marks)
    return;
  const size_t es = tilemm_type_size (type);
  for (int64_t p = 0; p < count; p++)
    {
      tilemm_panel panel;
      CHECK (tilemm_plan_panel (&plan, p, &panel), "panel %lld of %lld", (long long) p,
             (long long) count);
      CHECK (panel.rows >= 1 && panel.cols >= 1 && panel.row >= 0 && panel.col >= 0
               && panel.row + panel.rows <= n && panel.col + panel.cols <= m,
             "panel %lld inside C", (long long) p);
      const size_t bytes = es * (size_t) (panel.rows * k + k * panel.cols + panel.rows * panel.cols);
      CHECK (bytes <= limit, "panel %lld needs %zu bytes > %zu", (long long) p, bytes, limit);
      for (int64_t j = panel.row; j < panel.row + panel.rows && j < n; j++)
        for (int64_t i = panel.col; i < panel.col + panel.cols && i < m; i++)
          if (i >= 0 && j >= 0)
            marks[i + j * m]++;
    }
  CHECK (tilemm_plan_device_bytes (&plan) <= limit, "the GPU would hold %zu bytes > %zu",
         tilemm_plan_device_bytes (&plan), limit);
  CHECK (plan.step_cols == plan.panel_cols && plan.step_rows == plan.panel_rows && plan.slots == 2,
         "panels are steps: %lldx%lld of %lldx%lld, %lld slots", (long long) plan.step_rows,
         (long long) plan.step_cols, (long long) plan.panel_rows, (long long) plan.panel_cols,
         (long long) plan.slots);
  int64_t wrong = 0;
  for (int64_t e = 0; e < m * n; e++)
    wrong += marks[e] != 1;
  CHECK (wrong == 0, "%lld elements of C covered 0 or 2+ times", (long long) wrong);
  free (marks);
}

static void test_plan_panels (void)
{
  check_panel_cover (TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 500, 300, 200, 8 * 100000);
  check_panel_cover (TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 1000, 10, 64, 8 * 5000);
  check_panel_cover (TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 10, 1000, 64, 8 * 5000);
  check_panel_cover (TILEMM_BACKEND_CPU, TILEMM_SINGLE, 129, 257, 1000, 4 * 70000);
  check_panel_cover (TILEMM_BACKEND_CPU, TILEMM_COMPLEX_DOUBLE, 97, 89, 13, 16 * 1000);
  check_panel_cover (TILEMM_BACKEND_CUDA, TILEMM_COMPLEX_SINGLE, 300, 301, 7, 8 * 2000);
  check_panel_cover (TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 4096, 4096, 4096, (size_t) 64 << 20);
  /* The smallest limit that still fits one row of Bᵀ and two slots of a column of Aᵀ and an
   * element of C: k + 2(k + 1) elements. */
  check_panel_cover (TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 5, 7, 1000, 8 * 3002);

  /* The cpu backend has no device memory to run out of: its error is the limit's, not
   * "out of GPU memory". */
  CHECK_CASE ("plan: TILEMM_ELIMIT (cpu), TILEMM_EDEVMEM (gpu) when not even one row and two "
              "slots fit");
  tilemm_plan plan;
  memset (&plan, 0x5A, sizeof plan);
  tilemm_plan before = plan;
  const tilemm_limits tiny = { 8 * 3001, NULL, 0 };
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 5, 7, 1000, &tiny)
           == TILEMM_ELIMIT, "3k+1 doubles cannot hold a row and two slots");
  CHECK (memcmp (&plan, &before, sizeof plan) == 0, "a failed plan leaves *plan alone");
  const tilemm_limits one_byte = { 1, NULL, 0 };
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_SINGLE, 2, 2, 2, &one_byte)
           == TILEMM_EDEVMEM, "one byte");
  const tilemm_limits whole_k = { 16 * 3002, NULL, 0 };
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_COMPLEX_DOUBLE, 3, 3, 1000, &tiny)
           == TILEMM_ELIMIT, "complex elements are 16 bytes");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 5, 7, 1000, &tiny)
           == TILEMM_EDEVMEM, "the gpu's limit");
  CHECK (strstr (tilemm_strerror (TILEMM_ELIMIT), "cpu") != NULL
           && strstr (tilemm_strerror (TILEMM_ELIMIT), "GPU memory") == NULL,
         "the cpu's message names the cpu: %s", tilemm_strerror (TILEMM_ELIMIT));
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_COMPLEX_DOUBLE, 3, 3, 1000, &whole_k)
           == TILEMM_OK, "16*(3k+2) bytes fit");

  CHECK_CASE ("plan: bad arguments are rejected");
  CHECK (tilemm_plan_make (NULL, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 1, 1, 1, NULL)
           == TILEMM_EINVAL, "NULL plan");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, -1, 1, 1, NULL)
           == TILEMM_EINVAL, "m < 0");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 1, -1, 1, NULL)
           == TILEMM_EINVAL, "n < 0");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 1, 1, -1, NULL)
           == TILEMM_EINVAL, "k < 0");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_NTYPES, 1, 1, 1, NULL)
           == TILEMM_EINVAL, "bad type");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, (tilemm_type) -1, 1, 1, 1, NULL)
           == TILEMM_EINVAL, "negative type");
  CHECK (tilemm_plan_make (&plan, TILEMM_NBACKENDS, TILEMM_DOUBLE, 1, 1, 1, NULL)
           == TILEMM_EINVAL, "bad backend");
}

/* One panel: cut into steps of whole tiles, each with at least 128 blocks of the plan's
 * variant (or a single step), every step its own slot, the device holding exactly A, B and C;
 * large products start computing on a part of B, not all of it. */
static void test_plan_steps (void)
{
  static const int64_t shapes[][3] = {
    { 4096, 4096, 4096 }, { 8192, 8192, 8192 }, { 2048, 2048, 2048 }, { 1024, 1024, 1024 },
    { 1000, 17, 40 }, { 100000, 64, 64 }, { 64, 100000, 64 }, { 1, 1, 1 }, { 3000, 5000, 7 },
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    {
      const int64_t m = shapes[i][0], n = shapes[i][1], k = shapes[i][2];
      tilemm_plan plan;
      CHECK_CASE ("plan: gpu double %lldx%lldx%lld in one panel of steps that fill the GPU",
                  (long long) m, (long long) n, (long long) k);
      CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, m, n, k, NULL)
               == TILEMM_OK, "plan");
      CHECK (tilemm_plan_panel_count (&plan) == 1, "one panel");
      const int64_t steps = (plan.m + plan.step_cols - 1) / plan.step_cols;
      const int64_t parts = (plan.n + plan.step_rows - 1) / plan.step_rows;
      CHECK (plan.slots == steps, "%lld steps of %lld, %lld slots", (long long) steps,
             (long long) plan.step_cols, (long long) plan.slots);
      CHECK (plan.step_cols == plan.m || plan.step_cols % plan.tile_cols == 0,
             "steps of %lld rows: whole tiles of %d", (long long) plan.step_cols, plan.tile_cols);
      CHECK (plan.step_rows == plan.n || plan.step_rows % plan.tile_rows == 0,
             "parts of %lld columns: whole tiles of %d", (long long) plan.step_rows,
             plan.tile_rows);
      const int64_t blocks = ((plan.step_rows + plan.tile_rows - 1) / plan.tile_rows)
                             * ((plan.step_cols + plan.tile_cols - 1) / plan.tile_cols);
      CHECK (parts * steps == 1 || blocks >= 128, "%lld x %lld steps of %lld blocks",
             (long long) parts, (long long) steps, (long long) blocks);
      const int64_t all = ((plan.n + plan.tile_rows - 1) / plan.tile_rows)
                          * ((plan.m + plan.tile_cols - 1) / plan.tile_cols);
      if (all >= 4 * 128)
        CHECK (parts * steps >= 4, "%lld blocks: %lld parts of B, %lld steps of A",
               (long long) all, (long long) parts, (long long) steps);
      const size_t whole = 8 * (size_t) (m * k + k * n + m * n);
      CHECK (tilemm_plan_device_bytes (&plan) == whole, "holds %zu bytes, A+B+C = %zu",
             tilemm_plan_device_bytes (&plan), whole);
    }
}

/* Under a limit of a quarter of the data, the panels keep as much of B on the device as they can
 * while two slots of steps still fill the GPU: A goes up a few times, B and C once. */
static void test_plan_streaming (void)
{
  static const int64_t sizes[] = { 4096, 8192 };
  for (size_t i = 0; i < 2; i++)
    {
      const int64_t s = sizes[i];
      const size_t quarter = 8 * (size_t) (3 * s * s) / 4;
      tilemm_plan plan;
      CHECK_CASE ("plan: gpu double %lld^3 in a quarter of its data streams A a few times",
                  (long long) s);
      const tilemm_limits lim = { quarter, NULL, 0 };
      CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, s, s, s, &lim)
               == TILEMM_OK, "plan");
      const int64_t passes = (s + plan.panel_rows - 1) / plan.panel_rows;
      CHECK (passes >= 2 && passes <= 6, "A goes up %lld times (panels of %lld columns of B)",
             (long long) passes, (long long) plan.panel_rows);
      CHECK (tilemm_plan_device_bytes (&plan) <= quarter, "holds %zu > %zu",
             tilemm_plan_device_bytes (&plan), quarter);
      CHECK (plan.slots == 2 && plan.step_cols == plan.panel_cols && plan.step_cols >= 128,
             "steps of %lld rows of A, %lld slots", (long long) plan.step_cols,
             (long long) plan.slots);
    }
  CHECK_CASE ("plan: a limit the whole product fits in gives one panel, as no limit does");
  tilemm_plan a, b;
  const tilemm_limits exact = { 8 * (size_t) (3 * 300 * 300), NULL, 0 };
  CHECK (tilemm_plan_make (&a, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 300, 300, 300, &exact)
           == TILEMM_OK && tilemm_plan_make (&b, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 300, 300,
                                              300, NULL) == TILEMM_OK, "plans");
  CHECK (memcmp (&a, &b, sizeof a) == 0, "same plan");
  CHECK (tilemm_plan_device_bytes (&a) == exact.max_device_bytes, "holds %zu",
         tilemm_plan_device_bytes (&a));
}

/* The one cost model (device_model.h) every time-weighing decision reads, on the built-in facts:
 * its parts add up, and its rates say what they are named for. */
static void test_device_model (void)
{
  CHECK_CASE ("device model: its parts add up, double is the slower kernel, complex counts 4x");
  const tilemm_machine_facts *md = tilemm_facts_builtin ();
  const double f = 1e12;
  CHECK (tilemm_model_flops (TILEMM_COMPLEX_DOUBLE, 10, 20, 30)
           == 4 * tilemm_model_flops (TILEMM_DOUBLE, 10, 20, 30)
         && tilemm_model_flops (TILEMM_SINGLE, 10, 20, 30) == 12000, "flops");
  CHECK (tilemm_model_kernel_s (NULL, TILEMM_DOUBLE, f) > tilemm_model_kernel_s (NULL, TILEMM_SINGLE, f)
           && tilemm_model_kernel_s (NULL, TILEMM_COMPLEX_DOUBLE, f)
                == tilemm_model_kernel_s (NULL, TILEMM_DOUBLE, f),
         "kernels: double %.3g s, single %.3g s", tilemm_model_kernel_s (NULL, TILEMM_DOUBLE, f),
         tilemm_model_kernel_s (NULL, TILEMM_SINGLE, f));
  CHECK (tilemm_model_host_s (NULL, TILEMM_DOUBLE, f) > tilemm_model_host_s (NULL, TILEMM_SINGLE, f),
         "host");
  CHECK (tilemm_model_gpu_call_s (NULL, TILEMM_DOUBLE, 0, 0) == md->gpu_call_s, "an empty call");
  const double bytes = 1e9;
  const double parts = md->gpu_call_s + md->gpu_first_bytes / md->gpu_first_bytes_per_s
                       + tilemm_model_bus_s (NULL, bytes - md->gpu_first_bytes)
                       + tilemm_model_kernel_s (NULL, TILEMM_SINGLE, f);
  CHECK (fabs (tilemm_model_gpu_call_s (NULL, TILEMM_SINGLE, bytes, f) - parts) <= 1e-12 * parts,
         "a call: %.6g s, its parts %.6g s", tilemm_model_gpu_call_s (NULL, TILEMM_SINGLE, bytes, f),
         parts);
  for (int t = 0; t < 2; t++)
    {
      const tilemm_type type = t ? TILEMM_DOUBLE : TILEMM_SINGLE;
      const double panel
        = tilemm_model_kernel_s (NULL, type, tilemm_model_min_panel_flops (NULL, type));
      CHECK (fabs (panel - md->gpu_panel_worth * md->gpu_panel_s) <= 1e-12 * panel,
             "%s: a worker's least panel takes %.3g s of kernels", tilemm_type_name (type), panel);
    }
  /* The crossover is the model's comparison, nothing else: the GPU where it beats the host's
   * product by more than a twentieth (the built-in model knows no CPU backend). */
  for (int64_t s = 64; s <= 2048; s += 64)
    {
      const double b = 8.0 * 3 * (double) s * (double) s;
      const double fl = tilemm_model_flops (TILEMM_DOUBLE, s, s, s);
      CHECK (tilemm_plan_gpu_pays (TILEMM_DOUBLE, s, s, s)
               == (tilemm_model_gpu_call_s (NULL, TILEMM_DOUBLE, b, fl)
                   < tilemm_model_host_s (NULL, TILEMM_DOUBLE, fl) / 1.05),
             "n %lld: the crossover is not the model's", (long long) s);
    }
}

/* "auto" for a rank-k update (X'*X: the host's syrk/herk, half the flops of the plain product,
 * against the GPU running the plain product whole): its own crossover, above the plain one. */
static void test_plan_rank_k_gpu_pays (void)
{
  CHECK_CASE ("plan: a rank-k update is decided as one (syrk/herk: half the host's flops)");
  const tilemm_type types[] = { TILEMM_SINGLE, TILEMM_DOUBLE, TILEMM_COMPLEX_SINGLE,
                                TILEMM_COMPLEX_DOUBLE };
  for (size_t t = 0; t < 4; t++)
    {
      const tilemm_type ty = types[t];
      const char *name = tilemm_type_name (ty);
      CHECK (fabs (tilemm_model_rank_k_flops (ty, 100, 7)
                   - 100.0 * 101.0 * 7.0 * (tilemm_type_is_complex (ty) ? 4 : 1)) < 1e-6,
             "%s: a rank-k update's flops are n(n+1)k multiply-adds", name);
      CHECK (!tilemm_plan_rank_k_gpu_pays (ty, 1, 1), "1x1 %s", name);
      CHECK (!tilemm_plan_rank_k_gpu_pays (ty, 64, 64), "64x64 %s", name);
      CHECK (!tilemm_plan_rank_k_gpu_pays (ty, 4096, 1), "outer product %s", name);
      CHECK (!tilemm_plan_rank_k_gpu_pays (ty, 0, 10) && !tilemm_plan_rank_k_gpu_pays (ty, 10, 0)
               && !tilemm_plan_rank_k_gpu_pays ((tilemm_type) -1, 4096, 4096),
             "bad arguments never pay (%s)", name);
      /* Between the two crossovers (the plain product's ~350-430 real, ~200-250 complex; the
       * rank-k update's ~570-580 real, ~320-350 complex): the plain product pays, the update
       * does not.  A rank-k update decided as the plain product fails here. */
      const int64_t mid = tilemm_type_is_complex (ty) ? 300 : 512;
      CHECK (tilemm_plan_gpu_pays (ty, mid, mid, mid), "%lld^3 %s: the plain product pays",
             (long long) mid, name);
      CHECK (!tilemm_plan_rank_k_gpu_pays (ty, mid, mid),
             "%s: X'*X of %lld x %lld pays on the GPU (the plain product's model?)", name,
             (long long) mid, (long long) mid);
      CHECK (tilemm_plan_rank_k_gpu_pays (ty, 1024, 1024), "1024x1024 %s", name);
      CHECK (tilemm_plan_rank_k_gpu_pays (ty, 4096, 4096), "4096x4096 %s", name);
      CHECK (tilemm_plan_rank_k_gpu_pays (ty, 8192, 8192), "8192x8192 %s", name);
      CHECK (tilemm_plan_rank_k_gpu_pays (ty, 8192, 1024), "8192x1024 %s", name);
      /* The rule is the model's comparison, nothing else, and monotone in size. */
      int flips = 0, paid = 0;
      for (int64_t s = 16; s <= 4096; s += 16)
        {
          const double es = (double) tilemm_type_size (ty);
          const double fl = tilemm_model_flops (ty, s, s, s);
          const int pays = tilemm_plan_rank_k_gpu_pays (ty, s, s);
          CHECK (pays == (tilemm_model_gpu_call_s (NULL, ty, es * 3 * (double) s * s, fl)
                          < tilemm_model_host_s (NULL, ty, tilemm_model_rank_k_flops (ty, s, s))
                              / 1.05),
                 "%s n %lld: the rank-k crossover is not the model's", name, (long long) s);
          flips += pays != paid;
          paid = pays;
        }
      CHECK (flips == 1, "%s: the rank-k crossover flips %d times", name, flips);
    }
}

/* "auto": the GPU where it beats `*` (a model measured on the device). */
static void test_plan_gpu_pays (void)
{
  CHECK_CASE ("plan: auto leaves tiny and small products to mtimes");
  const tilemm_type types[] = { TILEMM_SINGLE, TILEMM_DOUBLE, TILEMM_COMPLEX_SINGLE,
                                TILEMM_COMPLEX_DOUBLE };
  for (size_t t = 0; t < 4; t++)
    {
      CHECK (!tilemm_plan_gpu_pays (types[t], 1, 1, 1), "1x1 %s", tilemm_type_name (types[t]));
      CHECK (!tilemm_plan_gpu_pays (types[t], 2, 2, 2), "2x2 %s", tilemm_type_name (types[t]));
      CHECK (!tilemm_plan_gpu_pays (types[t], 64, 64, 64), "64^3 %s", tilemm_type_name (types[t]));
      CHECK (!tilemm_plan_gpu_pays (types[t], 1000, 1000, 1), "outer product %s",
             tilemm_type_name (types[t]));
      CHECK (!tilemm_plan_gpu_pays (types[t], 100000, 1, 100), "matrix-vector %s",
             tilemm_type_name (types[t]));
    }
  CHECK_CASE ("plan: auto sends large products to the GPU");
  for (size_t t = 0; t < 4; t++)
    {
      CHECK (tilemm_plan_gpu_pays (types[t], 1024, 1024, 1024), "1024^3 %s",
             tilemm_type_name (types[t]));
      CHECK (tilemm_plan_gpu_pays (types[t], 4096, 4096, 4096), "4096^3 %s",
             tilemm_type_name (types[t]));
      CHECK (tilemm_plan_gpu_pays (types[t], 8192, 8192, 8192), "8192^3 %s",
             tilemm_type_name (types[t]));
      CHECK (tilemm_plan_gpu_pays (types[t], 8192, 8192, 1024), "8192x8192x1024 %s",
             tilemm_type_name (types[t]));
    }
  CHECK_CASE ("plan: the crossover is monotone in size and bad arguments never pay");
  for (size_t t = 0; t < 4; t++)
    {
      int paid = 0, flips = 0;
      for (int64_t s = 16; s <= 4096; s += 16)
        {
          const int pays = tilemm_plan_gpu_pays (types[t], s, s, s);
          flips += pays != paid;
          paid = pays;
        }
      CHECK (flips == 1 && paid, "%s: %d flips", tilemm_type_name (types[t]), flips);
    }
  CHECK (!tilemm_plan_gpu_pays (TILEMM_DOUBLE, 0, 100, 100), "m = 0");
  CHECK (!tilemm_plan_gpu_pays (TILEMM_DOUBLE, 100, 100, -1), "k < 0");
  CHECK (!tilemm_plan_gpu_pays (TILEMM_NTYPES, 4096, 4096, 4096), "bad type");
}

/* The result's page preparation changes no byte, with and without threads and huge pages. */
static void test_host_pages (void)
{
  CHECK_CASE ("host pages: advice and background faulting change no data");
  const size_t bytes = (size_t) 9 << 20;
  unsigned char *buffer = malloc (bytes + 3);
  CHECK (buffer != NULL, "out of memory");
  if (!buffer)
    return;
  for (size_t i = 0; i < bytes + 3; i++)
    buffer[i] = (unsigned char) (i * 2654435761u >> 13);
  static const int modes[][2] = { { 0, 0 }, { 1, 0 }, { 0, 3 }, { 1, 4 }, { 1, 64 } };
  for (size_t mode = 0; mode < 5; mode++)
    {
      tilemm_prefault *p = tilemm_prefault_start (buffer + 3, bytes - 5, modes[mode][0],
                                                  modes[mode][1], NULL);
      tilemm_prefault_finish (p);
    }
  tilemm_prefault_finish (tilemm_prefault_start (NULL, 100, 1, 2, NULL));
  tilemm_prefault_finish (tilemm_prefault_start (buffer, 0, 1, 2, NULL));
  size_t changed = 0;
  for (size_t i = 0; i < bytes + 3; i++)
    changed += buffer[i] != (unsigned char) (i * 2654435761u >> 13);
  CHECK (changed == 0, "%zu bytes changed", changed);
  free (buffer);
}

#if defined(__GLIBC__) && defined(__linux__)
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#define FREED_MEMORY_TESTED 1

/* The child of test_keep_freed_memory, a fresh process (its settings read now, as a first call
 * reads them): a large block written and freed, then one as large: 0 when the second's pages are
 * in memory already (the first's, kept), 3 when they are new. */
static int freed_memory_child (void)
{
  tilemm_process_settings_get ();
  const size_t bytes = (size_t) 64 << 20;
  unsigned char *first = malloc (bytes);
  if (!first)
    return 2;
  /* (Through a pointer the compiler cannot see: a block written and freed at once is a dead
   * store it may drop.) */
  void *(*volatile fill) (void *, int, size_t) = memset;
  fill (first, 1, bytes);
  free (first);
  unsigned char *second = malloc (bytes);
  if (!second)
    return 2;
  const size_t page = (size_t) sysconf (_SC_PAGESIZE);
  const uintptr_t begin = ((uintptr_t) second + page - 1) / page * page;
  const uintptr_t end = ((uintptr_t) second + bytes) / page * page;
  const size_t pages = (end - begin) / page;
  unsigned char *in = malloc (pages);
  if (!in || mincore ((void *) begin, end - begin, in) != 0)
    return 2;
  size_t resident = 0;
  for (size_t i = 0; i < pages; i++)
    resident += in[i] & 1;
  return resident * 10 >= pages * 9 ? 0 : 3;
}

/* test_core run again as that child, with TILEMM_KEEP_FREED_MEMORY `value` (NULL: unset): its
 * exit status, -1 where it did not run. */
static int run_freed_memory_child (const char *value)
{
  fflush (NULL);
  const pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      if (value)
        setenv ("TILEMM_KEEP_FREED_MEMORY", value, 1);
      else
        unsetenv ("TILEMM_KEEP_FREED_MEMORY");
      execl ("/proc/self/exe", "test_core", "--freed-memory-child", (char *) NULL);
      _exit (127);
    }
  int status = 0;
  if (waitpid (pid, &status, 0) != pid || !WIFEXITED (status))
    return -1;
  return WEXITSTATUS (status);
}
#endif

static void test_keep_freed_memory (void)
{
  CHECK_CASE ("TILEMM_KEEP_FREED_MEMORY=1: a large block freed gives its pages to the next");
#ifdef FREED_MEMORY_TESTED
#if defined(__SANITIZE_ADDRESS__)
#define FREED_MEMORY_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FREED_MEMORY_SANITIZED 1
#endif
#endif
#ifdef FREED_MEMORY_SANITIZED
  /* (AddressSanitizer's allocator takes glibc's place: no mallopt, freed blocks held back.) */
  check_skip ("TILEMM_KEEP_FREED_MEMORY", "built with AddressSanitizer: its allocator, not glibc's");
  return;
#endif
  const int kept = run_freed_memory_child ("1");
  const int unset = run_freed_memory_child (NULL);
  const int off = run_freed_memory_child ("0");
  CHECK (kept == 0, "set: the second block's pages %s", kept == 3 ? "were new" : "not measured");
  /* The default: the C library gives a large block back, and the next one's pages are new (what
   * the setting is for; were they kept anyway, the check above could not fail). */
  CHECK (unset == 3 && off == 3, "unset: %d, 0: %d (3: new pages)", unset, off);
#else
  check_skip ("TILEMM_KEEP_FREED_MEMORY", "not glibc on Linux: the setting does nothing here");
#endif
}

/* ---------------------------------------------------------------- products */

/* Every m, k, n in 1..40 in double, one counted case per m. */
static void test_exhaustive_small_double (void)
{
  rng_seed (40);
  for (int64_t m = 1; m <= 40; m++)
    {
      CHECK_CASE ("multiply: double, m = %lld, every k and n in 1..40", (long long) m);
      int64_t failures = 0;
      for (int64_t k = 1; k <= 40 && failures < 3; k++)
        for (int64_t n = 1; n <= 40 && failures < 3; n++)
          failures += !check_product (TILEMM_DOUBLE, m, k, n, tight, NULL);
    }
}

/* A dimension that is likely to sit on a tile or SIMD edge, or is simply ragged. */
static int64_t ragged_dimension (void)
{
  static const int64_t edges[] = { 1, 2, 3, 5, 7, 8, 13, 31, 32, 33, 37, 63, 64, 65, 97,
                                   127, 128, 129 };
  const size_t nedges = sizeof edges / sizeof edges[0];
  const uint64_t pick = rng_next () % (nedges + 4);
  return pick < nedges ? edges[pick] : rng_range (1, 150);
}

static void test_random_shapes (void)
{
  rng_seed (2026);
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    for (int s = 0; s < 18; s++)
      {
        const tilemm_type type = all_types[t];
        const int64_t m = ragged_dimension (), k = ragged_dimension (), n = ragged_dimension ();
        /* Every third shape reads from and writes to strided matrices. */
        const stride_extra extra = s % 3 == 2 ? (stride_extra) { rng_range (1, 9),
                                                                 rng_range (1, 9),
                                                                 rng_range (1, 9) }
                                              : tight;
        CHECK_CASE ("multiply: %s random ragged shape %d: %lldx%lldx%lld",
                    tilemm_type_name (type), s, (long long) m, (long long) k, (long long) n);
        check_product (type, m, k, n, extra, NULL);
      }
}

static void test_large_products (void)
{
  rng_seed (517);
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    {
      CHECK_CASE ("multiply: %s 300x517x211", tilemm_type_name (all_types[t]));
      check_product (all_types[t], 300, 517, 211, tight, NULL);
    }
  CHECK_CASE ("multiply: double 1000x1000x1000");
  check_product (TILEMM_DOUBLE, 1000, 1000, 1000, tight, NULL);
  CHECK_CASE ("multiply: single 400x1999x301 (long float sums stay in bound)");
  check_product (TILEMM_SINGLE, 400, 1999, 301, tight, NULL);
}

static void test_strided (void)
{
  rng_seed (77);
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    {
      const tilemm_type type = all_types[t];
      CHECK_CASE ("multiply: %s with strides larger than rows; C's gaps untouched",
                  tilemm_type_name (type));
      check_product (type, 70, 33, 66, (stride_extra) { 3, 1, 5 }, NULL);
      check_product (type, 1, 129, 65, (stride_extra) { 7, 0, 2 }, NULL);
      check_product (type, 65, 1, 1, (stride_extra) { 0, 4, 11 }, NULL);
    }

  CHECK_CASE ("multiply: sub-views of larger matrices, as a host would pass them");
  test_matrix big_a, big_b, big_c;
  tm_alloc (&big_a, TILEMM_DOUBLE, 90, 80, 90);
  tm_alloc (&big_b, TILEMM_DOUBLE, 80, 70, 85);
  tm_alloc (&big_c, TILEMM_DOUBLE, 95, 75, 100);
  tm_fill_random (&big_a);
  tm_fill_random (&big_b);
  tm_poison (&big_c);
  /* A(5:71, 3:52), B(10:59, 1:66), C(2:68, 4:69) in 0-based offsets. */
  test_matrix a = big_a, b = big_b, c = big_c;
  a.view = tilemm_view_sub (&big_a.view, 5, 3, 67, 50);
  b.view = tilemm_view_sub (&big_b.view, 10, 1, 50, 66);
  c.view = tilemm_view_sub (&big_c.view, 2, 4, 67, 66);
  tilemm_plan plan;
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 67, 66, 50, NULL);
  CHECK (tilemm_multiply (&plan, &a.view, &b.view, &c.view, NULL) == TILEMM_OK, "status");
  const compare_result r = compare_with_reference (&a, &b, &c);
  CHECK (r.mismatches == 0, "%lld mismatches", (long long) r.mismatches);
  /* Everything of big C outside the sub-view must still be poison or sentinel. */
  int64_t touched = 0;
  for (int64_t j = 0; j < big_c.view.cols; j++)
    for (int64_t i = 0; i < big_c.view.rows; i++)
      {
        const int inside = i >= 2 && i < 2 + 67 && j >= 4 && j < 4 + 66;
        touched += !inside && !isnan (tm_get (&big_c, i, j, 0));
      }
  CHECK (touched == 0, "%lld elements of C outside the sub-view written", (long long) touched);
  tm_free (&big_a);
  tm_free (&big_b);
  tm_free (&big_c);
}

static void test_k_zero (void)
{
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    {
      const tilemm_type type = all_types[t];
      CHECK_CASE ("multiply: %s with k = 0 gives zeros over a NaN-poisoned C",
                  tilemm_type_name (type));
      test_matrix c;
      tm_alloc (&c, type, 67, 70, 69);
      tm_poison (&c);
      tilemm_view a, b;
      CHECK (tilemm_view_init (&a, type, 67, 0, 67, NULL) == TILEMM_OK, "A 67x0");
      CHECK (tilemm_view_init (&b, type, 0, 70, 1, NULL) == TILEMM_OK, "B 0x70");
      tilemm_plan plan;
      tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, 67, 70, 0, NULL);
      tilemm_error err;
      CHECK (tilemm_multiply (&plan, &a, &b, &c.view, &err) == TILEMM_OK, "status: %s",
             err.detail);
      int64_t nonzero = 0;
      for (int64_t j = 0; j < 70; j++)
        for (int64_t i = 0; i < 67; i++)
          for (int p = 0; p < type_parts (type); p++)
            nonzero += tm_get (&c, i, j, p) != 0;
      CHECK (nonzero == 0, "%lld parts not zero", (long long) nonzero);
      CHECK (tm_gaps_intact (&c), "gaps written");
      tm_free (&c);
    }

  CHECK_CASE ("multiply: m = 0 or n = 0 succeed and write nothing");
  test_matrix c;
  tm_alloc (&c, TILEMM_DOUBLE, 4, 4, 4);
  tm_poison (&c);
  double data[16] = { 0 };
  tilemm_view a, b, c0;
  tilemm_plan plan;
  tilemm_view_init (&a, TILEMM_DOUBLE, 0, 4, 1, NULL);
  tilemm_view_init (&b, TILEMM_DOUBLE, 4, 4, 4, data);
  tilemm_view_init (&c0, TILEMM_DOUBLE, 0, 4, 1, c.view.data);
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 0, 4, 4, NULL);
  CHECK (tilemm_multiply (&plan, &a, &b, &c0, NULL) == TILEMM_OK, "m = 0");
  tilemm_view_init (&a, TILEMM_DOUBLE, 4, 4, 4, data);
  tilemm_view_init (&b, TILEMM_DOUBLE, 4, 0, 4, NULL);
  tilemm_view_init (&c0, TILEMM_DOUBLE, 4, 0, 4, c.view.data);
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 4, 0, 4, NULL);
  CHECK (tilemm_multiply (&plan, &a, &b, &c0, NULL) == TILEMM_OK, "n = 0");
  int64_t written = 0;
  for (int64_t e = 0; e < 16; e++)
    written += !isnan (tm_get_at (&c, (size_t) e, 0));
  CHECK (written == 0, "%lld elements written", (long long) written);
  tm_free (&c);
}

/* Runs a 1×2 times 2×1 double and single product and compares the result to `expect` exactly
 * (NaN to NaN, the same infinity). */
static void check_special_dot (const char *name, const double a[2], const double b[2],
                               double expect_double, float expect_single)
{
  CHECK_CASE ("multiply: NaN/Inf: %s", name);
  for (int t = 0; t < 2; t++)
    {
      const tilemm_type type = t ? TILEMM_DOUBLE : TILEMM_SINGLE;
      double ad[2], bd[2], cd[2] = { NAN, 12345 };
      float af[2], bf[2], cf[2] = { NAN, 12345 };
      for (int i = 0; i < 2; i++)
        {
          ad[i] = a[i];
          bd[i] = b[i];
          af[i] = (float) a[i];
          bf[i] = (float) b[i];
        }
      tilemm_view va, vb, vc;
      tilemm_view_init (&va, type, 1, 2, 1, t ? (void *) ad : (void *) af);
      tilemm_view_init (&vb, type, 2, 1, 2, t ? (void *) bd : (void *) bf);
      tilemm_view_init (&vc, type, 1, 1, 1, t ? (void *) cd : (void *) cf);
      tilemm_plan plan;
      tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, 1, 1, 2, NULL);
      CHECK (tilemm_multiply (&plan, &va, &vb, &vc, NULL) == TILEMM_OK, "status");
      const double got = t ? cd[0] : (double) cf[0];
      const double want = t ? expect_double : (double) expect_single;
      CHECK (isnan (want) ? isnan (got) : got == want, "%s: got %g, want %g",
             tilemm_type_name (type), got, want);
      CHECK (t ? cd[1] == 12345 : cf[1] == 12345, "the element after C was written");
    }
}

static void test_special_values (void)
{
  const double inf = INFINITY;
  check_special_dot ("[NaN 1]*[0;0] = NaN", (double[]) { NAN, 1 }, (double[]) { 0, 0 }, NAN, NAN);
  check_special_dot ("[Inf 1]*[0;1] = NaN", (double[]) { inf, 1 }, (double[]) { 0, 1 }, NAN, NAN);
  check_special_dot ("[Inf 0]*[1;0] = Inf", (double[]) { inf, 0 }, (double[]) { 1, 0 }, inf, inf);
  check_special_dot ("[Inf -Inf]*[1;1] = NaN", (double[]) { inf, -inf }, (double[]) { 1, 1 }, NAN,
                     NAN);
  check_special_dot ("[0 1]*[Inf;2] = NaN", (double[]) { 0, 1 }, (double[]) { inf, 2 }, NAN, NAN);
  CHECK_CASE ("multiply: NaN/Inf: [1e308 1e308]*[10;0] = Inf (and 1e38 in single)");
  {
    double ad[2] = { 1e308, 1e308 }, bd[2] = { 10, 0 }, cd = NAN;
    float af[2] = { 1e38f, 1e38f }, bf[2] = { 10, 0 }, cf = NAN;
    tilemm_view va, vb, vc;
    tilemm_plan plan;
    tilemm_view_init (&va, TILEMM_DOUBLE, 1, 2, 1, ad);
    tilemm_view_init (&vb, TILEMM_DOUBLE, 2, 1, 2, bd);
    tilemm_view_init (&vc, TILEMM_DOUBLE, 1, 1, 1, &cd);
    tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 1, 1, 2, NULL);
    CHECK (tilemm_multiply (&plan, &va, &vb, &vc, NULL) == TILEMM_OK && cd == inf, "double %g",
           cd);
    tilemm_view_init (&va, TILEMM_SINGLE, 1, 2, 1, af);
    tilemm_view_init (&vb, TILEMM_SINGLE, 2, 1, 2, bf);
    tilemm_view_init (&vc, TILEMM_SINGLE, 1, 1, 1, &cf);
    tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_SINGLE, 1, 1, 2, NULL);
    CHECK (tilemm_multiply (&plan, &va, &vb, &vc, NULL) == TILEMM_OK && cf == (float) inf,
           "single %g", (double) cf);
  }

  CHECK_CASE ("multiply: NaN/Inf: complex (Inf+0i)*(0+0i) + (1+1i)*(1+0i) = NaN+NaNi");
  {
    double a[4] = { inf, 0, 1, 1 }, b[4] = { 0, 0, 1, 0 }, c[2] = { 7, 7 };
    tilemm_view va, vb, vc;
    tilemm_plan plan;
    tilemm_view_init (&va, TILEMM_COMPLEX_DOUBLE, 1, 2, 1, a);
    tilemm_view_init (&vb, TILEMM_COMPLEX_DOUBLE, 2, 1, 2, b);
    tilemm_view_init (&vc, TILEMM_COMPLEX_DOUBLE, 1, 1, 1, c);
    tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_COMPLEX_DOUBLE, 1, 1, 2, NULL);
    CHECK (tilemm_multiply (&plan, &va, &vb, &vc, NULL) == TILEMM_OK, "status");
    CHECK (isnan (c[0]) && isnan (c[1]), "got %g%+gi", c[0], c[1]);
    /* (Inf+0i)*(1+0i) = (Inf*1 - 0*0, Inf*0 + 0*1) = Inf + NaN i, as the plain formula gives. */
    b[0] = 1;
    b[2] = 0;
    CHECK (tilemm_multiply (&plan, &va, &vb, &vc, NULL) == TILEMM_OK, "status");
    CHECK (c[0] == inf && isnan (c[1]), "got %g%+gi", c[0], c[1]);
  }
}

/* Inf and NaN at the ragged edges of a product, where tiles are padded with zeros: they must
 * reach exactly the elements a plain dot product reaches, and no others. */
static void test_special_values_at_edges (void)
{
  rng_seed (65);
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    {
      const tilemm_type type = all_types[t];
      CHECK_CASE ("multiply: %s Inf/NaN on ragged tile edges stay in their rows and columns",
                  tilemm_type_name (type));
      const int64_t m = 65, k = 65 + 32, n = 67;
      product p;
      if (!product_make (&p, type, m, k, n, tight))
        {
          CHECK (0, "out of memory");
          product_free (&p);
          continue;
        }
      tm_set (&p.a, m - 1, k - 1, 0, INFINITY);    /* last row of C: ±Inf or NaN        */
      tm_set (&p.b, k - 1, 5, 0, 0);               /* ... NaN in column 5 (Inf*0)      */
      if (type_parts (type) == 2)
        tm_set (&p.b, k - 1, 5, 1, 0);
      tm_set (&p.b, k - 2, n - 1, 0, -INFINITY);   /* last column of C                 */
      tm_set (&p.a, 0, 64, 0, NAN);                /* first row of C, from a later k tile */
      tilemm_plan plan;
      tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, m, n, k, NULL);
      if (product_run (&p, &plan, "edges"))
        product_check_values (&p, "edges");
      CHECK (isnan (tm_get (&p.c, m - 1, 5, 0)), "Inf*0 at the corner is NaN");
      CHECK (!isnan (tm_get (&p.c, m - 2, 5, 0)) && isfinite (tm_get (&p.c, m - 2, 3, 0)),
             "rows without Inf or NaN stay finite");
      product_free (&p);
    }
}

/* Runs one product under several plans and checks every result is bitwise the first. */
static void check_bitwise_plans (tilemm_type type, int64_t m, int64_t k, int64_t n,
                                 const size_t *limits, int nlimits, const int *threads,
                                 int nthreads)
{
  product p;
  if (!product_make (&p, type, m, k, n, (stride_extra) { 1, 2, 3 }))
    {
      CHECK (0, "out of memory");
      product_free (&p);
      return;
    }
  const size_t es = tilemm_type_size (type);
  unsigned char *first = malloc (p.c.bytes);
  tilemm_plan plan;
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, m, n, k, NULL);
  if (first && product_run (&p, &plan, "unpanelled") && product_check_values (&p, "unpanelled"))
    {
      memcpy (first, p.c.view.data, p.c.bytes);
      for (int i = 0; i < nlimits; i++)
        {
          const tilemm_limits lim = { limits[i] * es, NULL, 0 };
          CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, m, n, k, &lim) == TILEMM_OK,
                 "plan");
          CHECK (tilemm_plan_panel_count (&plan) > 1, "limit %zu gives one panel", limits[i]);
          product_run (&p, &plan, "panelled");
          CHECK (memcmp (first, p.c.view.data, p.c.bytes) == 0,
                 "panels of %lldx%lld (limit %zu elements) differ from one panel",
                 (long long) plan.panel_rows, (long long) plan.panel_cols, limits[i]);
        }
      for (int i = 0; i < nthreads; i++)
        {
          tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, m, n, k, NULL);
          plan.threads = threads[i];
          product_run (&p, &plan, "threads");
          CHECK (memcmp (first, p.c.view.data, p.c.bytes) == 0,
                 "%d threads differ from the default", threads[i]);
        }
    }
  free (first);
  product_free (&p);
}

static void test_bitwise_reproducible (void)
{
  rng_seed (1234);
  /* Limits in elements: panels far from tile multiples, down to single rows and columns (one
   * row of Bᵀ and two slots of one column of Aᵀ and one element of C: 3k + 2). */
  const size_t limits[] = { 30000, 9000, 2500, 3 * 131 + 2 };
  const int threads[] = { 1, 2, 3, 7 };
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    {
      CHECK_CASE ("multiply: %s panelled runs are bitwise the unpanelled run",
                  tilemm_type_name (all_types[t]));
      check_bitwise_plans (all_types[t], 150, 131, 97, limits, 4, NULL, 0);
      CHECK_CASE ("multiply: %s plan->threads = 1, 2, 3, 7 are bitwise the default",
                  tilemm_type_name (all_types[t]));
      check_bitwise_plans (all_types[t], 203, 100, 190, NULL, 0, threads, 4);
    }
}

/* Plans whose tiles are not the defaults (odd sizes, single rows) still compute C. */
static void test_other_tiles (void)
{
  static const int shapes[][3] = { { 1, 1, 1 }, { 5, 7, 3 }, { 64, 1, 64 }, { 3, 64, 17 },
                                   { 63, 62, 31 } };
  rng_seed (99);
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    {
      const tilemm_type type = all_types[t];
      CHECK_CASE ("multiply: %s under hand-made plans (odd tiles, tiny panels)",
                  tilemm_type_name (type));
      product p;
      if (!product_make (&p, type, 71, 45, 69, (stride_extra) { 2, 0, 1 }))
        {
          CHECK (0, "out of memory");
          product_free (&p);
          continue;
        }
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        {
          tilemm_plan plan;
          tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, 71, 69, 45, NULL);
          plan.tile_rows = shapes[s][0];
          plan.tile_cols = shapes[s][1];
          /* Complex buffers hold half the depth. */
          plan.tile_depth = shapes[s][2] > 1 ? shapes[s][2] / type_parts (type) : 1;
          plan.panel_rows = 1 + (int64_t) s * 13;
          plan.panel_cols = 70 - (int64_t) s * 9;
          char what[64];
          snprintf (what, sizeof what, "tile %dx%dx%d", plan.tile_rows, plan.tile_cols,
                    plan.tile_depth);
          if (product_run (&p, &plan, what))
            product_check_values (&p, what);
        }
      product_free (&p);
    }

  CHECK_CASE ("multiply: the cpu backend refuses tiles larger than its buffers");
  double x = 1, y = 1, z = 0;
  tilemm_view a, b, c;
  tilemm_view_init (&a, TILEMM_DOUBLE, 1, 1, 1, &x);
  tilemm_view_init (&b, TILEMM_DOUBLE, 1, 1, 1, &y);
  tilemm_view_init (&c, TILEMM_DOUBLE, 1, 1, 1, &z);
  tilemm_plan plan;
  tilemm_error err;
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 1, 1, 1, NULL);
  plan.tile_rows = 65;
  CHECK (tilemm_multiply (&plan, &a, &b, &c, &err) == TILEMM_EINVAL && err.detail[0] != '\0',
         "tile_rows 65");
  plan.tile_rows = 64;
  plan.tile_depth = 0;
  CHECK (tilemm_multiply (&plan, &a, &b, &c, &err) == TILEMM_EINVAL, "tile_depth 0");
  plan.tile_depth = 64;
  CHECK (tilemm_multiply (&plan, &a, &b, &c, &err) == TILEMM_OK && z == 1, "64x64x64 is fine");
  CHECK (err.status == TILEMM_OK, "err records success");
}

/* The comparison must catch a wrong answer: perturb one term of one element and watch it fail. */
static void test_checker_catches_errors (void)
{
  CHECK_CASE ("checker: a tiny perturbation of one term, or one stale element, is caught");
  rng_seed (7);
  product p;
  if (!product_make (&p, TILEMM_DOUBLE, 50, 60, 40, tight))
    {
      CHECK (0, "out of memory");
      product_free (&p);
      return;
    }
  tilemm_plan plan;
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 50, 40, 60, NULL);
  product_run (&p, &plan, "control");
  CHECK (compare_with_reference (&p.a, &p.b, &p.c).mismatches == 0, "the control passes");
  tm_set (&p.a, 17, 23, 0, (double) tm_get (&p.a, 17, 23, 0) * (1 + 1e-9));
  const compare_result r = compare_with_reference (&p.a, &p.b, &p.c);
  CHECK (r.mismatches == 40 && r.first_i == 17, "a 1e-9 change of A(17,23) gives %lld mismatches",
         (long long) r.mismatches);
  tm_set (&p.a, 17, 23, 0, (double) tm_get (&p.a, 17, 23, 0) / (1 + 1e-9));
  tm_poison (&p.c);
  tilemm_multiply (&plan, &p.a.view, &p.b.view, &p.c.view, NULL);
  tm_set (&p.c, 49, 39, 0, NAN);
  CHECK (compare_with_reference (&p.a, &p.b, &p.c).mismatches == 1, "a NaN left in C is caught");
  product_free (&p);
}

/* ---------------------------------------------------------------- errors */

static void test_operand_errors (void)
{
  double da[6] = { 1, 2, 3, 4, 5, 6 }, db[6] = { 1, 2, 3, 4, 5, 6 }, dc[9];
  float fa[6] = { 1, 2, 3, 4, 5, 6 };
  tilemm_view a, b, c, af, bad;
  tilemm_plan plan;
  tilemm_error err;
  tilemm_view_init (&a, TILEMM_DOUBLE, 3, 2, 3, da);
  tilemm_view_init (&b, TILEMM_DOUBLE, 2, 3, 2, db);
  tilemm_view_init (&c, TILEMM_DOUBLE, 3, 3, 3, dc);
  tilemm_view_init (&af, TILEMM_SINGLE, 3, 2, 3, fa);
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 3, 3, 2, NULL);

  CHECK_CASE ("errors: mixed or mismatched types are TILEMM_ETYPE");
  CHECK (tilemm_multiply (&plan, &af, &b, &c, &err) == TILEMM_ETYPE && err.status == TILEMM_ETYPE,
         "single A, double plan");
  CHECK (err.detail[0] != '\0', "a detail is given");
  tilemm_plan splan;
  tilemm_plan_make (&splan, TILEMM_BACKEND_CPU, TILEMM_SINGLE, 3, 3, 2, NULL);
  CHECK (tilemm_multiply (&splan, &a, &b, &c, &err) == TILEMM_ETYPE, "double views, single plan");
  tilemm_view cz = c;
  cz.type = TILEMM_COMPLEX_DOUBLE;
  CHECK (tilemm_multiply (&plan, &a, &b, &cz, &err) == TILEMM_ETYPE, "complex C");

  CHECK_CASE ("errors: disagreeing sizes are TILEMM_ESHAPE");
  tilemm_view b2;
  tilemm_view_init (&b2, TILEMM_DOUBLE, 3, 2, 3, db);
  CHECK (tilemm_multiply (&plan, &a, &b2, &c, &err) == TILEMM_ESHAPE, "inner dimensions");
  tilemm_view c2;
  tilemm_view_init (&c2, TILEMM_DOUBLE, 3, 2, 3, dc);
  CHECK (tilemm_multiply (&plan, &a, &b, &c2, &err) == TILEMM_ESHAPE, "C too narrow");
  tilemm_plan other;
  tilemm_plan_make (&other, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 3, 3, 3, NULL);
  CHECK (tilemm_multiply (&other, &a, &b, &c, &err) == TILEMM_ESHAPE, "plan for another k");
  CHECK (tilemm_check_operands (&plan, &a, &b, &c) == TILEMM_OK, "the right operands pass");

  CHECK_CASE ("errors: NULL or invalid views are TILEMM_EINVAL");
  CHECK (tilemm_multiply (&plan, NULL, &b, &c, &err) == TILEMM_EINVAL, "NULL A");
  CHECK (tilemm_multiply (NULL, &a, &b, &c, &err) == TILEMM_EINVAL, "NULL plan");
  bad = c;
  bad.stride = 2;
  CHECK (tilemm_multiply (&plan, &a, &b, &bad, &err) == TILEMM_EINVAL, "C stride < rows");
  bad = a;
  bad.data = NULL;
  CHECK (tilemm_multiply (&plan, &bad, &b, &c, NULL) == TILEMM_EINVAL, "A without data, NULL err");

  if (tilemm_cuda_built ())
    check_skip ("errors: the gpu backend without CUDA is TILEMM_ENOGPU", "this build has CUDA");
  else
    {
      CHECK_CASE ("errors: the gpu backend without CUDA is TILEMM_ENOGPU");
      tilemm_plan gplan;
      tilemm_plan_make (&gplan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 3, 3, 2, NULL);
      CHECK (tilemm_multiply (&gplan, &a, &b, &c, &err) == TILEMM_ENOGPU, "status");
      CHECK (err.status == TILEMM_ENOGPU && strstr (err.detail, "CUDA") != NULL, "detail \"%s\"",
             err.detail);
    }
}

/* Parallel staging copies: every byte of the block arrives, nothing beside it is touched; on a
 * team of 4 (every other case) or the calling thread alone. */
static void test_parallel_copy (void)
{
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  tilemm_host_team *team = tilemm_host_team_start (4, &host.cpus);
  CHECK_CASE ("parallel copy: a team of 4 on the process's CPUs");
  CHECK (team && tilemm_host_team_size (team) == 4 && tilemm_host_team_fits (team, 3, &host.cpus)
           && !tilemm_host_team_fits (team, 5, &host.cpus),
         "team of %d", tilemm_host_team_size (team));
  static const struct {
    size_t row_bytes, cols, src_pitch, dst_pitch;
    int threads;
  } cases[] = {
    { 1000, 7, 1000, 1000, 1 },        /* contiguous, small: one thread                 */
    { 5 << 20, 2, 5 << 20, 5 << 20, 4 }, /* contiguous, 10 MiB on the team                */
    { 3 << 20, 3, 3 << 20, 3 << 20, 4 }, /* contiguous, 9 MiB in 1 MiB pieces            */
    { 4096, 600, 4104, 4096, 2 },      /* packing columns (host stride > rows)          */
    { 4093, 700, 4093, 4100, 4 },      /* unpacking into a strided destination           */
    { 12345, 99, 12400, 12350, 1 },    /* one thread asked for                           */
    { 4096, 2049, 4096, 4096, 4 },     /* contiguous, 8 MiB + 4 KiB: huge-page pieces   */
    { 4096, 1500, 4104, 8192, 3 },     /* strided, 12 MiB spanned: huge-page columns    */
    { 3000, 3001, 3000, 3000, 4 },     /* contiguous 9 MB, its first piece partial      */
    { 1000, 7, 1000, 1000, 3 },        /* small, yet on the 3 members it is handed      */
    { 4096, 256, 4096, 4096, 0 },      /* members 0: the calling thread alone           */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      CHECK_CASE ("parallel copy %zu: %zu x %zu bytes, pitches %zu/%zu, %d threads", c,
                  cases[c].row_bytes, cases[c].cols, cases[c].src_pitch, cases[c].dst_pitch,
                  cases[c].threads);
      const size_t src_len = cases[c].src_pitch * cases[c].cols;
      const size_t dst_len = cases[c].dst_pitch * cases[c].cols;
      unsigned char *src = malloc (src_len), *dst = malloc (dst_len);
      CHECK (src && dst, "allocation");
      if (!src || !dst)
        {
          free (src);
          free (dst);
          continue;
        }
      for (size_t i = 0; i < src_len; i++)
        src[i] = (unsigned char) (i * 2654435761u >> 13);
      memset (dst, 0xA5, dst_len);
      /* (Cases from 6 on also through the copy into a result's huge pages.) */
      /* The copy runs on exactly the members it is handed (none of its own count: r2). */
      const int handed = cases[c].threads < 1 ? 1 : cases[c].threads;
      int ran;
      if (c >= 6)
        ran = tilemm_parallel_copy_into_huge (team, cases[c].threads, dst, cases[c].dst_pitch, src,
                                              cases[c].src_pitch, cases[c].row_bytes,
                                              cases[c].cols);
      else
        ran = tilemm_parallel_copy_2d (c % 2 ? team : NULL, cases[c].threads, dst,
                                       cases[c].dst_pitch, src, cases[c].src_pitch,
                                       cases[c].row_bytes, cases[c].cols);
      CHECK (ran == handed, "ran on %d members, handed %d", ran, handed);
      size_t wrong = 0, touched = 0;
      for (size_t j = 0; j < cases[c].cols; j++)
        {
          const unsigned char *d = dst + j * cases[c].dst_pitch, *s = src + j * cases[c].src_pitch;
          wrong += memcmp (d, s, cases[c].row_bytes) != 0;
          for (size_t g = cases[c].row_bytes; g < cases[c].dst_pitch; g++)
            touched += d[g] != 0xA5;
        }
      CHECK (wrong == 0, "%zu columns differ", wrong);
      CHECK (touched == 0, "%zu gap bytes written", touched);
      free (src);
      free (dst);
    }
  /* Copies of every alignment of source and destination and of lengths about the size from
   * which the copy streams its stores (its head to a 16-byte boundary, its 64-byte body, its
   * tail): every byte as the source's, none beside the copy written. */
  CHECK_CASE ("parallel copy: streamed stores at every alignment and length");
  {
    static const size_t lengths[] = { 4095, 4096, 4097, 4096 + 63, 4096 + 64 + 15, 65536 + 17,
                                      (1 << 20) + 5 };
    enum { MARGIN = 64 };
    const size_t most = (1 << 20) + 5 + 2 * MARGIN;
    unsigned char *src = malloc (most), *dst = malloc (most);
    size_t bad = 0, tried = 0;
    if (src && dst)
      {
        for (size_t i = 0; i < most; i++)
          src[i] = (unsigned char) (i * 2246822519u >> 11);
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
          for (size_t so = 0; so < 16; so += 5)
            for (size_t dof = 0; dof < 16; dof++)
              {
                const size_t len = lengths[l];
                memset (dst, 0x5A, len + 2 * MARGIN);
                tilemm_parallel_copy_2d (dof % 2 ? team : NULL, dof % 3 + 1, dst + MARGIN + dof, len,
                                         src + so, len, len, 1);
                int ok = memcmp (dst + MARGIN + dof, src + so, len) == 0;
                for (size_t g = 0; g < MARGIN + dof; g++)
                  ok &= dst[g] == 0x5A;
                for (size_t g = MARGIN + dof + len; g < len + 2 * MARGIN; g++)
                  ok &= dst[g] == 0x5A;
                bad += !ok;
                tried++;
              }
      }
    CHECK (src && dst && tried > 0 && bad == 0, "%zu of %zu copies wrong", bad, tried);
    free (src);
    free (dst);
  }
  tilemm_host_team_stop (team);
}

/* The members a staging unit's copy takes are the plan's (tilemm_staging_copy_members, from the
 * staging plan and the worker's copy team), and the same as the rule parallel_copy.c applied
 * itself before (r2): one below 1 MiB, else the team rule on the unit's 64 KiB pieces and its
 * bytes at TILEMM_TEAM_THREAD_BYTES_PER_S; a team of 0 threads (none planned) one.  Written out
 * here as it was, so that a change to either the plan's rule or its figures shows. */
static int copy_members_before (int threads, size_t bytes)
{
  if (threads < 1)
    threads = 1; /* (was: the live team's size; a worker without a team has one member) */
  return bytes < ((size_t) 1 << 20)
           ? 1
           : tilemm_team_size (threads, (int64_t) (bytes / ((size_t) 64 << 10)),
                               (double) bytes / 1.0e9);
}

static void test_staging_copy_members (void)
{
  tilemm_call_settings settings;
  memset (&settings, 0, sizeof settings);
  settings.staging_chunk_bytes = (size_t) 8 << 20;
  settings.staging_chunks = 4;
  tilemm_staging_plan staging;
  tilemm_plan_staging (&settings, &staging);
  static const int teams[] = { 0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 64, 255 };
  static const size_t sizes[] = {
    0, 1, 4096, (256 << 10) - 1, 256 << 10, (1 << 20) - 1, 1 << 20, (1 << 20) + 1,
    1100000, 1500000, 2 << 20, 3 << 20, (4 << 20) + 4096, 8 << 20, 16 << 20, 64 << 20,
    (size_t) 1 << 30,
  };
  int cases = 0, wrong = 0;
  for (size_t t = 0; t < sizeof teams / sizeof teams[0]; t++)
    for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; b++)
      {
        const int planned = tilemm_staging_copy_members (&staging, teams[t], sizes[b]);
        const int before = copy_members_before (teams[t], sizes[b]);
        cases++;
        if (planned != before)
          {
            wrong++;
            CHECK_CASE ("staging copy members: team %d, %zu bytes", teams[t], sizes[b]);
            CHECK (0, "the plan names %d members, the rule before %d", planned, before);
          }
      }
  CHECK_CASE ("staging copy members: %d cases of team and bytes as before", cases);
  CHECK (wrong == 0, "%d of %d differ", wrong, cases);
  /* A few written out: under 1 MiB alone; 1 MiB pays for 10 threads (1e-4 s each at 1 GB/s);
   * a chunk of 8 MiB takes a team of 16 whole. */
  CHECK_CASE ("staging copy members: points written out");
  CHECK (tilemm_staging_copy_members (&staging, 16, (1 << 20) - 1) == 1
           && tilemm_staging_copy_members (&staging, 16, 1 << 20) == 10
           && tilemm_staging_copy_members (&staging, 4, 1 << 20) == 4
           && tilemm_staging_copy_members (&staging, 16, 8 << 20) == 16
           && staging.copy_alone_bytes == (size_t) 1 << 20,
         "%d %d %d %d, alone under %zu", tilemm_staging_copy_members (&staging, 16, (1 << 20) - 1),
         tilemm_staging_copy_members (&staging, 16, 1 << 20),
         tilemm_staging_copy_members (&staging, 4, 1 << 20),
         tilemm_staging_copy_members (&staging, 16, 8 << 20), staging.copy_alone_bytes);
}

static double wall_seconds (void)
{
  struct timespec now;
  timespec_get (&now, TIME_UTC);
  return (double) now.tv_sec + 1e-9 * (double) now.tv_nsec;
}

/* ---------------------------------------------------------------- transposed operands */

/* op(X)(i, l) of a stored view: (i, l), or (l, i) conjugated for TILEMM_OP_CTRANSPOSE. */
static long double op_get (const test_matrix *t, tilemm_op op, int64_t i, int64_t l, int part)
{
  if (op == TILEMM_OP_NONE)
    return tm_get (t, i, l, part);
  const long double v = tm_get (t, l, i, part);
  return op == TILEMM_OP_CTRANSPOSE && part == 1 ? -v : v;
}

/* Elements of C = op_a(A)·op_b(B) (m × n, depth k) that differ from a long-double reference by
 * more than recursive summation's rounding allows (the first few are reported). */
static int64_t op_reference_mismatches (tilemm_type type, tilemm_op op_a, const test_matrix *a,
                                        tilemm_op op_b, const test_matrix *b,
                                        const test_matrix *c, int64_t m, int64_t n, int64_t k)
{
  const int parts = type_parts (type);
  int64_t bad = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      {
        long double re = 0, im = 0, mag = 0;
        for (int64_t l = 0; l < k; l++)
          {
            const long double xr = op_get (a, op_a, i, l, 0), yr = op_get (b, op_b, l, j, 0);
            const long double xi = parts > 1 ? op_get (a, op_a, i, l, 1) : 0;
            const long double yi = parts > 1 ? op_get (b, op_b, l, j, 1) : 0;
            re += xr * yr - xi * yi;
            im += xr * yi + xi * yr;
            mag += (fabsl (xr) + fabsl (xi)) * (fabsl (yr) + fabsl (yi));
          }
        const long double bound = 2 * type_eps (type) * (long double) (k + 2) * mag;
        if (!part_agrees (tm_get (c, i, j, 0), re, bound)
            || (parts > 1 && !part_agrees (tm_get (c, i, j, 1), im, bound)))
          {
            if (bad++ < 3)
              CHECK (0, "C(%lld,%lld) = %Lg, want %Lg", (long long) i, (long long) j,
                     tm_get (c, i, j, 0), re);
          }
      }
  return bad;
}

/* The operands and two results of C = op_a(A)·op_b(B) (m×n, inner k), as stored: A and B with
 * gaps of pad_a and pad_b elements, the results with pad_c, A and B random.  0 (with a failed
 * check) when out of memory. */
static int op_matrices (tilemm_type type, tilemm_op op_a, tilemm_op op_b, int64_t m, int64_t n,
                        int64_t k, int pad_a, int pad_b, int pad_c, test_matrix *a, test_matrix *b,
                        test_matrix *c, test_matrix *c2)
{
  const int ta = op_a != TILEMM_OP_NONE, tb = op_b != TILEMM_OP_NONE;
  const int64_t ra = ta ? k : m, ca = ta ? m : k, rb = tb ? n : k, cb = tb ? k : n;
  if (!tm_alloc (a, type, ra, ca, ra + pad_a) || !tm_alloc (b, type, rb, cb, rb + pad_b)
      || !tm_alloc (c, type, m, n, m + pad_c) || !tm_alloc (c2, type, m, n, m + pad_c))
    {
      CHECK (0, "out of memory");
      return 0;
    }
  tm_fill_random (a);
  tm_fill_random (b);
  return 1;
}

/* C = op_a(A)·op_b(B) on the CPU backend, for stored operands with gaps: against a long-double
 * reference, C's gaps untouched, and bit for bit the same cut into panels. */
static void op_case (tilemm_type type, tilemm_op op_a, tilemm_op op_b, int64_t m, int64_t n,
                     int64_t k)
{
  static const char names[] = "NTC";
  CHECK_CASE ("multiply_op: %s %c%c m=%lld n=%lld k=%lld", tilemm_type_name (type), names[op_a],
              names[op_b], (long long) m, (long long) n, (long long) k);
  test_matrix a, b, c, c2;
  if (!op_matrices (type, op_a, op_b, m, n, k, 3, 1, 2, &a, &b, &c, &c2))
    return;
  tm_poison (&c);
  tm_poison (&c2);
  tilemm_plan whole, panels;
  tilemm_error err = { TILEMM_OK, "" };
  const size_t es = tilemm_type_size (type);
  /* A limit of about a third of the data: several panels. */
  const tilemm_limits limit
    = { es * (size_t) (m * k + k * n + m * n) / 3 + 64 * es, NULL, 0 };
  CHECK (tilemm_plan_make (&whole, TILEMM_BACKEND_CPU, type, m, n, k, NULL) == TILEMM_OK, "plan");
  CHECK (tilemm_plan_make (&panels, TILEMM_BACKEND_CPU, type, m, n, k, &limit) == TILEMM_OK,
         "plan with a limit");
  CHECK (tilemm_multiply_op (&whole, op_a, &a.view, op_b, &b.view, &c.view, &err) == TILEMM_OK,
         "%s", err.detail);
  CHECK (tilemm_multiply_op (&panels, op_a, &a.view, op_b, &b.view, &c2.view, &err) == TILEMM_OK,
         "%s", err.detail);
  const int64_t bad = op_reference_mismatches (type, op_a, &a, op_b, &b, &c, m, n, k);
  CHECK (bad == 0, "%lld elements wrong", (long long) bad);
  CHECK (tm_gaps_intact (&c) && tm_gaps_intact (&c2), "C's gaps were written");
  CHECK (memcmp (c.view.data, c2.view.data, c.bytes) == 0, "panels change the result");
  tm_free (&a);
  tm_free (&b);
  tm_free (&c);
  tm_free (&c2);
}

static void test_multiply_op (void)
{
  static const int64_t shapes[][3] = { { 1, 1, 1 }, { 7, 5, 3 }, { 65, 33, 70 },
                                       { 130, 67, 129 } };
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    for (int x = 0; x < TILEMM_NOPS; x++)
      for (int y = 0; y < TILEMM_NOPS; y++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
          op_case (all_types[t], (tilemm_op) x, (tilemm_op) y, shapes[s][0], shapes[s][1],
                   shapes[s][2]);

  CHECK_CASE ("multiply_op: a stored operand of the wrong shape, or a bad op, is refused");
  double data[64] = { 0 };
  tilemm_view a, b, c;
  tilemm_plan plan;
  tilemm_view_init (&a, TILEMM_DOUBLE, 2, 3, 2, data);   /* op(A) must be 3x2: A stored 2x3 */
  tilemm_view_init (&b, TILEMM_DOUBLE, 2, 4, 2, data);
  tilemm_view_init (&c, TILEMM_DOUBLE, 3, 4, 3, data + 32);
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 3, 4, 2, NULL);
  CHECK (tilemm_multiply_op (&plan, TILEMM_OP_TRANSPOSE, &a, TILEMM_OP_NONE, &b, &c, NULL)
           == TILEMM_OK, "the transposed reading");
  CHECK (tilemm_multiply_op (&plan, TILEMM_OP_NONE, &a, TILEMM_OP_NONE, &b, &c, NULL)
           == TILEMM_ESHAPE, "untransposed A has the wrong shape");
  CHECK (tilemm_multiply_op (&plan, (tilemm_op) 7, &a, TILEMM_OP_NONE, &b, &c, NULL)
           == TILEMM_EINVAL, "bad op");
}

/* ---------------------------------------------------------------- CPU variants (cpu_isa.h) */

/* Elements of two results whose bits differ, any NaN matching any NaN (which operand's payload a
 * NaN carries is the hardware's choice, not the summation's); *first is the first one's index. */
static int64_t bitwise_differences (const test_matrix *x, const test_matrix *y, size_t *first)
{
  const int parts = type_parts (x->view.type);
  const size_t part_bytes = tilemm_type_size (x->view.type) / (size_t) parts;
  int64_t differ = 0;
  for (size_t e = 0; e < x->elements; e++)
    for (int p = 0; p < parts; p++)
      {
        const size_t offset = (e * (size_t) parts + (size_t) p) * part_bytes;
        const int both_nan = isnan (tm_get_at (x, e, p)) && isnan (tm_get_at (y, e, p));
        if (!both_nan
            && memcmp ((const char *) x->view.data + offset,
                       (const char *) y->view.data + offset, part_bytes) != 0)
          {
            if (differ++ == 0)
              *first = e;
          }
      }
  return differ;
}

/* One in about 12 elements of the operand a value at the edge of the type: ±0, ±Inf, a
 * subnormal, or a value whose products overflow. */
static void tm_sprinkle_specials (test_matrix *t)
{
  const double big = type_is_float (t->view.type) ? 1e30 : 1e300;
  const double tiny = type_is_float (t->view.type) ? FLT_MIN / 3 : DBL_MIN / 3;
  const double specials[] = { 0.0, -0.0, INFINITY, -INFINITY, tiny, -tiny, big, -big };
  for (int64_t j = 0; j < t->view.cols; j++)
    for (int64_t i = 0; i < t->view.rows; i++)
      for (int p = 0; p < type_parts (t->view.type); p++)
        if (rng_next () % 12 == 0)
          tm_set (t, i, j, p, specials[rng_next () % 8]);
}

/* C = op_a(A)·op_b(B) by every CPU variant this machine runs: each bit for bit the default
 * variant's result, which agrees with a long-double reference (finite operands).  tile > 0
 * replaces the plan's tiles by tile × (tile + 2) × (tile / 2 + 1) ones; specials puts edge values
 * into the operands. */
static void variant_case (tilemm_type type, tilemm_op op_a, tilemm_op op_b, int64_t m, int64_t n,
                          int64_t k, int tile, int specials)
{
  static const char names[] = "NTC";
  CHECK_CASE ("cpu variants: %s %c%c m=%lld n=%lld k=%lld%s%s", tilemm_type_name (type),
              names[op_a], names[op_b], (long long) m, (long long) n, (long long) k,
              tile ? " odd tiles" : "", specials ? " edge values" : "");
  test_matrix a, b, c, cv;
  if (!op_matrices (type, op_a, op_b, m, n, k, 1, 2, 3, &a, &b, &c, &cv))
    return;
  if (specials)
    {
      tm_sprinkle_specials (&a);
      tm_sprinkle_specials (&b);
    }
  tm_poison (&c);
  tilemm_plan plan;
  tilemm_error err = { TILEMM_OK, "" };
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, type, m, n, k, NULL) == TILEMM_OK, "plan");
  if (tile)
    {
      plan.tile_rows = tile;
      plan.tile_cols = tile + 2;
      plan.tile_depth = tile / 2 + 1;
    }
  CHECK (tilemm_cpu_multiply_isa (TILEMM_CPU_ISA_DEFAULT, &plan, op_a, &a.view, op_b, &b.view,
                                  &c.view, NULL, &err) == TILEMM_OK,
         "default: %s", err.detail);
  if (!specials)
    {
      const int64_t bad = op_reference_mismatches (type, op_a, &a, op_b, &b, &c, m, n, k);
      CHECK (bad == 0, "default: %lld elements wrong", (long long) bad);
    }
  CHECK (tm_gaps_intact (&c), "default: C's gaps were written");
  for (int isa = TILEMM_CPU_ISA_DEFAULT + 1; isa < TILEMM_CPU_NISAS; isa++)
    {
      if (!tilemm_cpu_isa_available ((tilemm_cpu_isa) isa))
        continue;
      const char *name = tilemm_cpu_isa_name ((tilemm_cpu_isa) isa);
      tm_poison (&cv);
      CHECK (tilemm_cpu_multiply_isa ((tilemm_cpu_isa) isa, &plan, op_a, &a.view, op_b, &b.view,
                                      &cv.view, NULL, &err) == TILEMM_OK,
             "%s: %s", name, err.detail);
      CHECK (tm_gaps_intact (&cv), "%s: C's gaps were written", name);
      size_t first = 0;
      const int64_t differ = bitwise_differences (&c, &cv, &first);
      CHECK (differ == 0, "%s differs from the default in %lld parts; first C(%lld,%lld) = %.17Lg, "
                          "default %.17Lg", name, (long long) differ,
             (long long) (first % (size_t) cv.view.stride),
             (long long) (first / (size_t) cv.view.stride), tm_get_at (&cv, first, 0),
             tm_get_at (&c, first, 0));
    }
  tm_free (&a);
  tm_free (&b);
  tm_free (&c);
  tm_free (&cv);
}

/* Products each variant ran in this process, in one array (tilemm_cpu_isa_products). */
static void isa_counts (long counts[TILEMM_CPU_NISAS])
{
  for (int isa = 0; isa < TILEMM_CPU_NISAS; isa++)
    counts[isa] = tilemm_cpu_isa_products ((tilemm_cpu_isa) isa);
}

/* Whether exactly one product ran since `before`, on `isa`; else says which ran. */
static int ran_once_on (const long before[TILEMM_CPU_NISAS], tilemm_cpu_isa isa, char *said,
                        size_t size)
{
  long after[TILEMM_CPU_NISAS];
  isa_counts (after);
  int ok = 1;
  said[0] = '\0';
  for (int v = 0; v < TILEMM_CPU_NISAS; v++)
    {
      const long ran = after[v] - before[v];
      ok &= ran == (v == (int) isa ? 1 : 0);
      const size_t used = strlen (said);
      snprintf (said + used, size - used, " %s %ld", tilemm_cpu_isa_name ((tilemm_cpu_isa) v), ran);
    }
  return ok;
}

/* The variant is the plan's (issue 42): the host's facts name the widest one the CPU runs, a
 * call's plan and a batch's page plan carry it, and the backend runs the variant its plan names,
 * whatever the CPU could run (a plan made without the facts names the default). */
static void test_cpu_variant_of_the_plan (void)
{
  char said[160];
  long before[TILEMM_CPU_NISAS];
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  const tilemm_cpu_isa best = tilemm_cpu_isa_best ();

  CHECK_CASE ("cpu variant: the host's facts name the widest variant the CPU runs");
  CHECK (host.cpu_isa == best && tilemm_cpu_isa_available (host.cpu_isa), "facts %s, widest %s",
         tilemm_cpu_isa_name (host.cpu_isa), tilemm_cpu_isa_name (best));

  CHECK_CASE ("cpu variant: a plan made without the host's facts names the default, and runs it");
  {
    double data[4] = { 1, 2, 3, 4 }, out[4];
    tilemm_view v, c;
    tilemm_view_init (&v, TILEMM_DOUBLE, 2, 2, 2, data);
    tilemm_view_init (&c, TILEMM_DOUBLE, 2, 2, 2, out);
    tilemm_plan plan;
    CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 2, 2, 2, NULL) == TILEMM_OK
             && plan.cpu_isa == TILEMM_CPU_ISA_DEFAULT,
           "tilemm_plan_make names %s", tilemm_cpu_isa_name ((tilemm_cpu_isa) plan.cpu_isa));
    isa_counts (before);
    CHECK (tilemm_cpu_multiply (&plan, &v, &v, &c, NULL, &err) == TILEMM_OK, "%s", err.detail);
    CHECK (ran_once_on (before, TILEMM_CPU_ISA_DEFAULT, said, sizeof said), "ran:%s", said);
    /* Each variant this CPU runs, named by the plan, is the one that runs. */
    for (int isa = 0; isa < TILEMM_CPU_NISAS; isa++)
      {
        if (!tilemm_cpu_isa_available ((tilemm_cpu_isa) isa))
          continue;
        plan.cpu_isa = isa;
        isa_counts (before);
        CHECK (tilemm_cpu_multiply (&plan, &v, &v, &c, NULL, &err) == TILEMM_OK, "%s: %s",
               tilemm_cpu_isa_name ((tilemm_cpu_isa) isa), err.detail);
        CHECK (ran_once_on (before, (tilemm_cpu_isa) isa, said, sizeof said), "plan names %s; ran:%s",
               tilemm_cpu_isa_name ((tilemm_cpu_isa) isa), said);
      }
    /* A variant the CPU lacks is refused, not replaced; an unknown one too. */
    for (int isa = 0; isa <= TILEMM_CPU_NISAS; isa++)
      {
        if (isa < TILEMM_CPU_NISAS && tilemm_cpu_isa_available ((tilemm_cpu_isa) isa))
          continue;
        plan.cpu_isa = isa;
        isa_counts (before);
        CHECK (tilemm_cpu_multiply (&plan, &v, &v, &c, NULL, NULL) == TILEMM_EINVAL
                 && ran_once_on (before, TILEMM_CPU_NISAS, said, sizeof said),
               "plan names %s (not here); ran:%s", tilemm_cpu_isa_name ((tilemm_cpu_isa) isa), said);
      }
  }

  CHECK_CASE ("cpu variant: a call's plan carries the host's variant, and the call runs it");
  {
    double a[64 * 64], b[64 * 64], c[64 * 64];
    for (int i = 0; i < 64 * 64; i++)
      a[i] = b[i] = (double) (i % 7);
    const tilemm_operand da = { TILEMM_CLASS_DOUBLE, 0, 0, 2, 64, 64, 0, NULL, 0 };
    tilemm_options o;
    tilemm_options_init (&o);
    o.backend = TILEMM_CHOOSE_CPU;
    o.precision = TILEMM_PRECISION_NATIVE;
    tilemm_decision d;
    tilemm_status s = tilemm_decide_op (&da, TILEMM_OP_NONE, &da, TILEMM_OP_NONE, &o, &d, &err);
    CHECK (s == TILEMM_OK && d.action == TILEMM_DO_COMPUTE && d.backend == TILEMM_BACKEND_CPU
             && d.plan.native.cpu_isa == (int) host.cpu_isa,
           "status %d (%s): the plan names %s, the host runs %s", (int) s, err.detail,
           tilemm_cpu_isa_name ((tilemm_cpu_isa) d.plan.native.cpu_isa),
           tilemm_cpu_isa_name (host.cpu_isa));
    char words[4096], line[64];
    tilemm_call_plan_describe (&d.plan, d.backend, 0, NULL, words, sizeof words);
    snprintf (line, sizeof line, "cpu: variant %s,", tilemm_cpu_isa_name (host.cpu_isa));
    CHECK (strstr (words, line) != NULL, "the plan in words says it: %s", words);
    isa_counts (before);
    s = tilemm_run (&d, &o, a, b, c, &err);
    CHECK (s == TILEMM_OK && ran_once_on (before, host.cpu_isa, said, sizeof said),
           "status %d (%s); ran:%s", (int) s, err.detail, said);
    /* The plan's word is the one the backend runs: the default, named, whatever the CPU runs. */
    d.plan.native.cpu_isa = d.plan.queue.cpu_isa = TILEMM_CPU_ISA_DEFAULT;
    for (int r = 0; r < 2; r++)
      for (int q = 0; q < 2; q++)
        d.plan.sub[r][q].cpu_isa = TILEMM_CPU_ISA_DEFAULT;
    isa_counts (before);
    s = tilemm_run (&d, &o, a, b, c, &err);
    CHECK (s == TILEMM_OK && ran_once_on (before, TILEMM_CPU_ISA_DEFAULT, said, sizeof said),
           "the plan names default: status %d (%s); ran:%s", (int) s, err.detail, said);
  }

  CHECK_CASE ("cpu variant: a batch's page plan carries the host's variant");
  {
    tilemm_route r;
    memset (&r, 0, sizeof r);
    r.compute_type = TILEMM_DOUBLE;
    r.m = r.n = r.k = 64;
    for (int isa = 0; isa < TILEMM_CPU_NISAS; isa++)
      {
        tilemm_batch_plan bp;
        /* Four pages on two threads, none alone: the pages' own plan, on the CPU. */
        const tilemm_status s = tilemm_batch_plan_make (&r, test_pages_shape (&r, 4), 2, (tilemm_cpu_isa) isa,
                                                        TILEMM_CHOOSE_CPU, 0, 0, 0, 0, NULL, &bp,
                                                        &err);
        CHECK (s == TILEMM_OK && bp.page.cpu_isa == isa, "asked %s, the page plan names %s",
               tilemm_cpu_isa_name ((tilemm_cpu_isa) isa),
               tilemm_cpu_isa_name ((tilemm_cpu_isa) bp.page.cpu_isa));
      }
  }
}

static void test_cpu_variants (void)
{
  int others = 0;
  printf ("test_core: CPU variants:");
  for (int isa = 0; isa < TILEMM_CPU_NISAS; isa++)
    {
      const int here = tilemm_cpu_isa_available ((tilemm_cpu_isa) isa);
      others += isa != TILEMM_CPU_ISA_DEFAULT && here;
      printf (" %s (%s)", tilemm_cpu_isa_name ((tilemm_cpu_isa) isa), here ? "runs" : "not here");
    }
  printf ("; the backend runs %s\n", tilemm_cpu_isa_name (tilemm_cpu_isa_best ()));
  if (!others)
    check_skip ("cpu variants: the wider variants bitwise the default",
                "this machine runs the default variant only");

  CHECK_CASE ("cpu variants: the backend runs the widest variant here; others are refused");
  const tilemm_cpu_isa best = tilemm_cpu_isa_best ();
  CHECK (tilemm_cpu_isa_available (best), "best %s not available", tilemm_cpu_isa_name (best));
  for (int isa = best + 1; isa < TILEMM_CPU_NISAS; isa++)
    CHECK (!tilemm_cpu_isa_available ((tilemm_cpu_isa) isa), "%s is wider and available",
           tilemm_cpu_isa_name ((tilemm_cpu_isa) isa));
  {
    double data[16] = { 0 };
    tilemm_view v;
    tilemm_plan plan;
    tilemm_view_init (&v, TILEMM_DOUBLE, 2, 2, 2, data);
    tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 2, 2, 2, NULL);
    CHECK (tilemm_cpu_multiply_isa (TILEMM_CPU_NISAS, &plan, TILEMM_OP_NONE, &v, TILEMM_OP_NONE,
                                    &v, &v, NULL, NULL) == TILEMM_EINVAL, "an unknown variant");
    for (int isa = 0; isa < TILEMM_CPU_NISAS; isa++)
      if (!tilemm_cpu_isa_available ((tilemm_cpu_isa) isa))
        CHECK (tilemm_cpu_multiply_isa ((tilemm_cpu_isa) isa, &plan, TILEMM_OP_NONE, &v,
                                        TILEMM_OP_NONE, &v, &v, NULL, NULL) == TILEMM_EINVAL,
               "variant %s runs here", tilemm_cpu_isa_name ((tilemm_cpu_isa) isa));
  }

  /* Ragged shapes around the register blocks (4 and 8 rows, 4 to 32 lanes) and the 64-wide
   * tiles, k over one tile depth and not a multiple of it. */
  static const int64_t shapes[][3] = { { 1, 1, 1 }, { 7, 5, 3 }, { 37, 29, 70 },
                                       { 65, 130, 129 }, { 130, 67, 64 } };
  rng_seed (4321);
  for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
    {
      for (int x = 0; x < TILEMM_NOPS; x++)
        for (int y = 0; y < TILEMM_NOPS; y++)
          for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            variant_case (all_types[t], (tilemm_op) x, (tilemm_op) y, shapes[s][0], shapes[s][1],
                          shapes[s][2], 0, 0);
      variant_case (all_types[t], TILEMM_OP_NONE, TILEMM_OP_NONE, 71, 45, 33, 13, 0);
      variant_case (all_types[t], TILEMM_OP_CTRANSPOSE, TILEMM_OP_TRANSPOSE, 30, 41, 19, 1, 0);
      variant_case (all_types[t], TILEMM_OP_NONE, TILEMM_OP_NONE, 90, 77, 100, 0, 1);
      variant_case (all_types[t], TILEMM_OP_TRANSPOSE, TILEMM_OP_CTRANSPOSE, 33, 70, 65, 0, 1);
    }
}

/* ---------------------------------------------------------------- a call plan's launches */

/* Whether plan q holds the launches of its own panels, steps, k and the call's fallback: the same
 * as those filled afresh on a copy (tilemm_plan_launches). */
static int launches_current (const tilemm_plan *q, int fallback)
{
  tilemm_plan fresh = *q;
  fresh.kernel_fallback = fallback;
  tilemm_plan_launches (&fresh);
  if (q->kernel_fallback != fallback || q->launch_heights != fresh.launch_heights
      || q->launch_widths != fresh.launch_widths)
    return 0;
  for (int i = 0; i < TILEMM_PLAN_LAUNCH_SIDES; i++)
    {
      if (i < q->launch_heights && q->launch_rows[i] != fresh.launch_rows[i])
        return 0;
      if (i < q->launch_widths && q->launch_cols[i] != fresh.launch_cols[i])
        return 0;
      for (int j = 0; j < TILEMM_PLAN_LAUNCH_SIDES; j++)
        if (q->ksplit[i][j] != fresh.ksplit[i][j] || q->kchunk[i][j] != fresh.kchunk[i][j])
          return 0;
    }
  return 1;
}

/* Every plan of a call plan is current (launches_current) with the native plan's fallback. */
static void check_call_launches (const tilemm_call_plan *p, int with_emulated, const char *what)
{
  const tilemm_plan *plans[] = { &p->native,    &p->queue,     &p->sub[0][0], &p->sub[0][1],
                                 &p->sub[1][0], &p->sub[1][1], &p->emu_panels, &p->emu_queue };
  static const char *const names[] = { "native", "queue", "sub[0][0]", "sub[0][1]",
                                       "sub[1][0]", "sub[1][1]", "emu_panels", "emu_queue" };
  const int count = with_emulated ? 8 : 6;
  for (int i = 0; i < count; i++)
    CHECK (launches_current (plans[i], p->native.kernel_fallback),
           "%s: the %s plan's launches are not its own (%d heights, %d widths; fallback %d, "
           "the call's %d)",
           what, names[i], plans[i]->launch_heights, plans[i]->launch_widths,
           plans[i]->kernel_fallback, p->native.kernel_fallback);
}

/* The facts of `count` GPUs of compute capability `cc` (and the CPU's), as the executor gathers
 * them (exec/decide.c): a plan is made from them alone. */
static void made_up_facts (tilemm_call_facts *facts, int count, int cc)
{
  memset (facts, 0, sizeof *facts);
  facts->cpu.usable = 1;
  facts->cpu.count = 1;
  facts->cpu.current = -1;
  facts->gpu.usable = 1;
  facts->gpu.total = facts->gpu.count = count;
  for (int i = 0; i < count; i++)
    facts->gpu.device[i] = i, facts->gpu.cc_major[i] = cc;
  facts->gpu.current = 0;
  facts->gpu.staging_chunk_bytes = 4 << 20;
}

/* The emulated product's planned branches (call_plan.h): decided with the plan, before any data
 * are seen, and printed with it: an explicit count of moduli that cannot carry the data takes the
 * native product, the rule's moduli the exact split; NaN or Inf, the native product then the
 * finite lines. */
static void test_emulated_branches (void)
{
  for (int moduli = 0; moduli <= 5; moduli += 5)
    {
      CHECK_CASE ("call plan: the emulated branches, %s moduli", moduli ? "explicit" : "the rule's");
      tilemm_call_facts facts;
      made_up_facts (&facts, 1, 9);
      tilemm_options opt;
      tilemm_options_init (&opt);
      tilemm_route route;
      memset (&route, 0, sizeof route);
      route.action = TILEMM_ROUTE_COMPUTE;
      route.compute_type = TILEMM_DOUBLE;
      route.m = 300, route.n = 200, route.k = 100;
      tilemm_emu_options emu;
      tilemm_emu_default_options (&emu, TILEMM_DOUBLE);
      emu.moduli = moduli;
      tilemm_call_settings settings;
      tilemm_call_settings_read (&settings);
      tilemm_call_plan p;
      tilemm_error err = { TILEMM_OK, "" };
      CHECK (tilemm_call_plan_make (&p, &route, TILEMM_BACKEND_CPU, TILEMM_OP_NONE,
                                    TILEMM_OP_NONE, 1, &emu, &opt, &settings, &facts, &err)
               == TILEMM_OK, "plan: %s", err.detail);
      CHECK (p.emu_on_range == (moduli ? TILEMM_EMU_RANGE_NATIVE : TILEMM_EMU_RANGE_SPLIT),
             "on range: %d", (int) p.emu_on_range);
      CHECK (p.emu_on_nonfinite == TILEMM_EMU_NONFINITE_NATIVE_THEN_FINITE, "on NaN or Inf: %d",
             (int) p.emu_on_nonfinite);
      char text[4096];
      tilemm_call_plan_describe (&p, TILEMM_BACKEND_CPU, 1, &emu, text, sizeof text);
      CHECK (strstr (text, moduli ? "emulated_on_range: the native product"
                                  : "emulated_on_range: the pairs the moduli carry") != NULL
               && strstr (text, "emulated_on_nonfinite: the native product, then") != NULL,
             "the plan in words says no branch:\n%s", text);
    }
}

/* The launches of a call plan are filled once, when its panels, steps and fallback are final
 * (call_plan.c: fill_launches, the last step of tilemm_call_plan_make, tilemm_call_plan_queue
 * and tilemm_call_plan_emulated_around): every plan it holds is current, in the cases where
 * panels, steps or the fallback change after plan.c made a plan: the panels of a transposed GPU
 * product under a limit, several GPU workers, devices below sm_80, the one-panel steps of
 * TILEMM_STEP_COLS and TILEMM_STEP_ROWS, simulated CPU devices, emulated panels under a limit,
 * a low-level entry's emulated plan, and the queue the low-level entries make
 * (tilemm_call_plan_queue). */
static void test_call_plan_launches (void)
{
  const struct {
    const char *what;
    tilemm_backend backend;
    int64_t m, n, k;
    tilemm_op op_a;
    int gpus, cc, named, simulated, emulated;
    size_t limit;
    const char *step_cols, *step_rows;
  } cases[] = {
    { "gpu, one device", TILEMM_BACKEND_CUDA, 2000, 1500, 700, TILEMM_OP_NONE, 1, 9, 0, 0, 0, 0,
      NULL, NULL },
    { "gpu below sm_80", TILEMM_BACKEND_CUDA, 2000, 1500, 700, TILEMM_OP_NONE, 1, 7, 0, 0, 0, 0,
      NULL, NULL },
    { "gpu, steps from the environment", TILEMM_BACKEND_CUDA, 2000, 1500, 700, TILEMM_OP_NONE, 1,
      9, 0, 0, 0, 0, "300", "200" },
    { "gpu, tall-skinny k-heavy (split k)", TILEMM_BACKEND_CUDA, 64, 64, 8192, TILEMM_OP_NONE, 1,
      9, 0, 0, 0, 0, NULL, NULL },
    { "gpu, A transposed under a limit", TILEMM_BACKEND_CUDA, 2000, 1500, 700,
      TILEMM_OP_TRANSPOSE, 1, 9, 0, 0, 0, 8 << 20, NULL, NULL },
    { "gpu, A transposed under a limit, sm_70", TILEMM_BACKEND_CUDA, 2000, 1500, 700,
      TILEMM_OP_TRANSPOSE, 1, 7, 0, 0, 0, 8 << 20, NULL, NULL },
    { "gpu, three workers", TILEMM_BACKEND_CUDA, 4096, 4096, 4096, TILEMM_OP_NONE, 3, 9, 0, 0, 0,
      0, NULL, NULL },
    { "gpu, three named workers under a limit, sm_70", TILEMM_BACKEND_CUDA, 3000, 2500, 900,
      TILEMM_OP_NONE, 3, 7, 1, 0, 0, 16 << 20, NULL, NULL },
    { "gpu, three workers, A transposed", TILEMM_BACKEND_CUDA, 4096, 4096, 4096,
      TILEMM_OP_TRANSPOSE, 3, 9, 1, 0, 0, 32 << 20, NULL, NULL },
    { "cpu, three simulated devices", TILEMM_BACKEND_CPU, 2000, 1500, 700, TILEMM_OP_NONE, 0, 0,
      0, 3, 0, 4 << 20, NULL, NULL },
    { "cpu emulated under a limit", TILEMM_BACKEND_CPU, 300, 200, 100, TILEMM_OP_NONE, 0, 0, 0, 0,
      1, 64 << 10, NULL, NULL },
    { "gpu emulated under a limit, sm_70", TILEMM_BACKEND_CUDA, 1000, 800, 300,
      TILEMM_OP_TRANSPOSE, 1, 7, 0, 0, 1, 4 << 20, NULL, NULL },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      CHECK_CASE ("call plan: launches filled when final, %s", cases[i].what);
      tilemm_call_facts facts;
      made_up_facts (&facts, cases[i].gpus, cases[i].cc);
      tilemm_options opt;
      tilemm_options_init (&opt);
      opt.max_device_bytes = cases[i].limit;
      opt.simulate_devices = cases[i].simulated;
      if (cases[i].named)
        {
          opt.devices.count = cases[i].gpus;
          for (int w = 0; w < cases[i].gpus; w++)
            opt.devices.device[w] = w;
        }
      tilemm_route route;
      memset (&route, 0, sizeof route);
      route.action = TILEMM_ROUTE_COMPUTE;
      route.compute_type = TILEMM_DOUBLE;
      route.m = cases[i].m;
      route.n = cases[i].n;
      route.k = cases[i].k;
      tilemm_emu_options emu;
      tilemm_emu_default_options (&emu, TILEMM_DOUBLE);
      if (cases[i].step_cols)
        setenv ("TILEMM_STEP_COLS", cases[i].step_cols, 1);
      if (cases[i].step_rows)
        setenv ("TILEMM_STEP_ROWS", cases[i].step_rows, 1);
      tilemm_call_settings settings;
      tilemm_call_settings_read (&settings);
      tilemm_call_plan p;
      tilemm_error err = { TILEMM_OK, "" };
      const tilemm_status status
        = tilemm_call_plan_make (&p, &route, cases[i].backend, cases[i].op_a, TILEMM_OP_NONE,
                                 cases[i].emulated, &emu, &opt, &settings, &facts, &err);
      CHECK (status != TILEMM_OK
               || (p.staging.chunks == settings.staging_chunks
                   && p.staging.chunk_bytes == settings.staging_chunk_bytes
                   && p.staging.prepare_result_bytes > 0 && p.on_simulated == (p.simulated > 1)
                   && p.staging.units_per_view == 16
                   && p.staging.least_unit_bytes == (size_t) 256 << 10),
             "the plan's staging: %d chunks of %zu bytes, units %d a view of at least %zu bytes",
             p.staging.chunks, p.staging.chunk_bytes, p.staging.units_per_view,
             p.staging.least_unit_bytes);
      unsetenv ("TILEMM_STEP_COLS");
      unsetenv ("TILEMM_STEP_ROWS");
      CHECK (status == TILEMM_OK, "tilemm_call_plan_make: %s", err.detail);
      if (status != TILEMM_OK)
        continue;
      CHECK (p.native.kernel_fallback == (cases[i].backend == TILEMM_BACKEND_CUDA && cases[i].cc < 8),
             "fallback %d", p.native.kernel_fallback);
      if (cases[i].step_cols)
        CHECK (p.native.step_cols == 300 && p.native.step_rows == 200,
               "TILEMM_STEP_*: steps %lld x %lld", (long long) p.native.step_rows,
               (long long) p.native.step_cols);
      check_call_launches (&p, 1, "tilemm_call_plan_make");
      if (cases[i].emulated)
        {
          /* A low-level entry's emulated plan around the call's native plan. */
          tilemm_call_plan around;
          CHECK (tilemm_call_plan_emulated_around (&around, &p.native, TILEMM_OP_NONE,
                                                   TILEMM_OP_NONE, NULL, 0, &facts, &settings)
                   == TILEMM_OK, "tilemm_call_plan_emulated_around");
          check_call_launches (&around, 1, "tilemm_call_plan_emulated_around");
        }
      /* The queue of the low-level entries (exec/devices.c, exec/multiply.c): a plan for one
       * device, its workers and the facts. */
      tilemm_call_plan q;
      memset (&q, 0, sizeof q);
      q.type = TILEMM_DOUBLE;
      q.m = cases[i].m;
      q.n = cases[i].n;
      q.k = cases[i].k;
      q.op_a = cases[i].op_a;
      q.native = p.native;
      q.native.kernel_fallback = 0;
      q.device_limit = p.device_limit;
      q.workers = p.workers;
      q.devices_named = p.devices_named;
      q.simulated = p.simulated;
      CHECK (tilemm_call_plan_queue (&q, cases[i].backend, &facts) == TILEMM_OK,
             "tilemm_call_plan_queue");
      check_call_launches (&q, 0, "tilemm_call_plan_queue");
    }
}

/* The memory a product may hold on a GPU is the plan's (tilemm_facts_budget): the facts carry
 * the device's free memory (with tilemm's workspaces) and its whole memory, as asked; the
 * driver's margin (a twentieth of the card, 256 MiB at least) is taken off here, not in the
 * backend. */
static void test_facts_budget (void)
{
  CHECK_CASE ("the device budget: the facts' free memory less the plan's margin");
  const size_t gib = (size_t) 1 << 30, mib = (size_t) 1 << 20;
  tilemm_device_facts f;
  memset (&f, 0, sizeof f);
  f.count = 4;
  for (int i = 0; i < 4; i++)
    f.device[i] = i;
  f.memory_total[0] = 80 * gib, f.memory_free[0] = 70 * gib;   /* a twentieth: 4 GiB */
  f.memory_total[1] = 2 * gib, f.memory_free[1] = gib;         /* 256 MiB at least */
  f.memory_total[2] = 8 * gib, f.memory_free[2] = 100 * mib;   /* under the margin: 1 */
  f.memory_total[3] = 0, f.memory_free[3] = 0;                 /* not asked */
  CHECK (tilemm_facts_budget (&f, 0) == 0, "not measured (budgets 0): no budget");
  f.budgets = 1;
  CHECK (tilemm_facts_budget (&f, 0) == 66 * gib, "80 GiB card, 70 free: %zu",
         tilemm_facts_budget (&f, 0));
  CHECK (tilemm_facts_budget (&f, 1) == gib - 256 * mib, "2 GiB card, 1 free: %zu",
         tilemm_facts_budget (&f, 1));
  CHECK (tilemm_facts_budget (&f, 2) == 1, "less free than the margin: 1, %zu",
         tilemm_facts_budget (&f, 2));
  CHECK (tilemm_facts_budget (&f, 3) == 0, "not asked: no budget");
  CHECK (tilemm_facts_budget (&f, 7) == 0, "not a device of the facts: no budget");
}

/* The CPU's call plan of `route` (op_a, op_b) on a host of 16 threads (15 left to the teams,
 * tilemm_team_threads_left), the call's settings and the default options. */
static tilemm_status cpu_call_plan_16 (const tilemm_route *route, tilemm_op op_a, tilemm_op op_b,
                                       tilemm_call_plan *p, tilemm_error *err)
{
  tilemm_options opt;
  tilemm_options_init (&opt);
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  tilemm_call_facts facts;
  memset (&facts, 0, sizeof facts);
  facts.host.threads = 16;
  tilemm_emu_options emu;
  tilemm_emu_default_options (&emu, TILEMM_DOUBLE);
  return tilemm_call_plan_make (p, route, TILEMM_BACKEND_CPU, op_a, op_b, 0, &emu, &opt,
                                &settings, &facts, err);
}

/* The same for a BLAS call's product: one type, computed as it is (a plain route). */
static tilemm_status blas_call_plan_16 (tilemm_type type, int64_t m, int64_t n, int64_t k,
                                        tilemm_op op_a, tilemm_op op_b, tilemm_call_plan *p,
                                        tilemm_error *err)
{
  tilemm_route route;
  memset (&route, 0, sizeof route);
  route.action = TILEMM_ROUTE_COMPUTE;
  route.compute_type = type;
  route.result_complex = tilemm_type_is_complex (type);
  route.m = m, route.n = n, route.k = k;
  return cpu_call_plan_16 (&route, op_a, op_b, p, err);
}

/* A split operand's parts apart and the product's halves back (exec/run.c) run on the teams the
 * call plan names (split_team, join_team: tilemm_parts_team of host_threads), not on a team the
 * executor sizes: a small product's copies on one thread, a large one's on the plan's threads. */
static void test_split_teams (void)
{
  CHECK_CASE ("the call plan names the teams of a split operand's parts");
  struct { int64_t m, n, k; tilemm_op op_b; int b_split, split_team, join_team; } cases[] = {
    { 10, 10, 10, TILEMM_OP_NONE, 1, 1, 1 },
    { 2000, 2000, 2000, TILEMM_OP_NONE, 1, 15, 15 },
    { 2000, 2000, 2000, TILEMM_OP_TRANSPOSE, 1, 15, 15 },
    { 2000, 3, 2000, TILEMM_OP_NONE, 1, 1, 1 },     /* 3 columns of 32 KB: one piece */
    { 2000, 2000, 2000, TILEMM_OP_NONE, 0, 15, 15 }, /* A split */
    { 64, 64, 64, TILEMM_OP_NONE, 0, 1, 1 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      tilemm_route route;
      memset (&route, 0, sizeof route);
      route.action = TILEMM_ROUTE_COMPUTE;
      route.compute_type = TILEMM_DOUBLE;
      route.m = cases[i].m, route.n = cases[i].n, route.k = cases[i].k;
      route.b_split = cases[i].b_split;
      route.a_split = !cases[i].b_split;
      tilemm_call_plan p;
      tilemm_error err = { TILEMM_OK, "" };
      const tilemm_op op_a = cases[i].b_split ? TILEMM_OP_NONE : TILEMM_OP_TRANSPOSE;
      const tilemm_status st = cpu_call_plan_16 (&route, op_a, cases[i].op_b, &p, &err);
      tilemm_emu_options emu;
      tilemm_emu_default_options (&emu, TILEMM_DOUBLE);
      CHECK (st == TILEMM_OK && p.split == (cases[i].b_split ? TILEMM_SPLIT_B : TILEMM_SPLIT_A)
               && p.split_team == cases[i].split_team && p.join_team == cases[i].join_team,
             "%lld x %lld x %lld, %s split: teams %d and %d, want %d and %d (%s)",
             (long long) cases[i].m, (long long) cases[i].n, (long long) cases[i].k,
             cases[i].b_split ? "B" : "A", p.split_team, p.join_team, cases[i].split_team,
             cases[i].join_team, err.detail);
      char text[8192];
      tilemm_call_plan_describe (&p, TILEMM_BACKEND_CPU, 0, &emu, text, sizeof text);
      char want[96];
      snprintf (want, sizeof want, "split_parts: apart on %d thread(s), joined on %d",
                cases[i].split_team, cases[i].join_team);
      CHECK (strstr (text, want) != NULL, "the plan in words: %s", want);
    }
}

/* A batch plan made by its constructor on 8 threads for `route` and `shape` (a host of 9, one
 * left to the process, copy_team.h; a CPU so slow that every batch pays for all 8). */
static tilemm_status plan_on_eight (const tilemm_route *route, const tilemm_batch_shape *shape,
                                    tilemm_batch_plan *bp)
{
  tilemm_machine_facts slow = *tilemm_facts_builtin ();
  slow.cpu_thread_flops_per_s = slow.cpu_small_flops_per_s = 1.0;
  tilemm_error err = { TILEMM_OK, "" };
  memset (bp, 0, sizeof *bp);
  const tilemm_status s = tilemm_batch_plan_make (route, shape, 9, TILEMM_CPU_ISA_DEFAULT,
                                                  TILEMM_CHOOSE_CPU, 0, 0, 0, 0, &slow, bp, &err);
  CHECK (s == TILEMM_OK && bp->threads == 8, "the batch plan on %d threads (%s)", bp->threads,
         err.detail);
  return s;
}

/* The teams and pieces of the host jobs around a product (a batch's split pages and mirror, the
 * CPU batch's claims of the pool, a BLAS call's update of C) are the plans', by the rule of
 * team_size.h on each job's pieces and bytes (8 threads for the batch, 15 for the call). */
static void test_host_job_teams (void)
{
  CHECK_CASE ("the batch plan names the teams of a split batch's pages apart and back");
  {
    /* m = n = k, pages; want: apart and back alike (Y's pages are Z's shape here). */
    struct { int64_t mnk, pages; int over_pages, team, page_team; } cases[] = {
      { 10, 100, 1, 3, 1 },    /* 100 pages of 1600 bytes: 0.32 ms, 3 threads, a page each */
      { 10, 2, 1, 1, 1 },      /* 2 tiny pages: one thread                                  */
      { 1000, 2, 0, 2, 8 },    /* 2 pages of 16 MB: page after page, each on 8              */
      { 1000, 8, 1, 8, 1 },    /* as many pages as threads: a page each                     */
      { 100, 2, 0, 2, 1 },     /* 2 pages of 160 KB: page after page, each one piece        */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      {
        tilemm_route r;
        memset (&r, 0, sizeof r);
        r.action = TILEMM_ROUTE_COMPUTE;
        r.compute_type = TILEMM_DOUBLE;
        r.result_complex = 1;
        r.b_split = 1;
        r.m = r.n = r.k = cases[i].mnk;
        tilemm_batch_shape shape;
        memset (&shape, 0, sizeof shape);
        shape.m = shape.n = shape.k = cases[i].mnk;
        shape.x_rows = shape.x_cols = shape.y_rows = shape.y_cols = cases[i].mnk;
        shape.x_pages = 1;
        shape.y_pages = shape.z_pages = cases[i].pages;
        tilemm_batch_plan bp;
        if (plan_on_eight (&r, &shape, &bp) != TILEMM_OK)
          continue;
        const tilemm_batch_parts *apart = &bp.split_parts, *back = &bp.join_parts;
        CHECK (apart->over_pages == cases[i].over_pages && apart->team == cases[i].team
                 && (cases[i].over_pages || apart->page_team == cases[i].page_team)
                 && back->over_pages == apart->over_pages && back->team == apart->team
                 && back->page_team == apart->page_team,
               "%lld pages of %lld^3: apart %s on %d (a page on %d), back %s on %d (%d); want %s "
               "on %d (%d)",
               (long long) cases[i].pages, (long long) cases[i].mnk,
               apart->over_pages ? "a page each" : "page after page", apart->team,
               apart->page_team, back->over_pages ? "a page each" : "page after page",
               back->team, back->page_team, cases[i].over_pages ? "a page each" : "page after page",
               cases[i].team, cases[i].page_team);
      }
  }

  CHECK_CASE ("the batch plan names the team of the mirror of X'*X pages");
  {
    /* n×n pages of Z; want the mirror's team on 8 threads. */
    struct { int64_t n, pages; int complex_result, mirror, team; } cases[] = {
      { 500, 10, 0, TILEMM_MIRROR_SYMMETRIC, 8 },    /* 20 MB: every thread          */
      { 100, 3, 0, TILEMM_MIRROR_SYMMETRIC, 2 },     /* 0.24 ms: 2 threads           */
      { 100, 2, 0, TILEMM_MIRROR_SYMMETRIC, 1 },     /* 0.16 ms: one                 */
      { 100, 2, 1, TILEMM_MIRROR_HERMITIAN, 2 },     /* complex: twice the bytes     */
      { 500, 10, 0, TILEMM_MIRROR_NONE, 1 },         /* no mirror                    */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      {
        tilemm_route r;
        memset (&r, 0, sizeof r);
        r.action = TILEMM_ROUTE_COMPUTE;
        r.compute_type = cases[i].complex_result ? TILEMM_COMPLEX_DOUBLE : TILEMM_DOUBLE;
        r.result_complex = cases[i].complex_result;
        r.mirror = (tilemm_mirror) cases[i].mirror;
        r.m = r.n = cases[i].n;
        r.k = 7;
        tilemm_batch_shape shape;
        memset (&shape, 0, sizeof shape);
        shape.m = shape.n = cases[i].n;
        shape.z_pages = shape.x_pages = shape.y_pages = cases[i].pages;
        tilemm_batch_plan bp;
        if (plan_on_eight (&r, &shape, &bp) != TILEMM_OK)
          continue;
        CHECK (bp.mirror_team == cases[i].team, "%lld pages %lld x %lld%s: mirror on %d, want %d",
               (long long) cases[i].pages, (long long) cases[i].n, (long long) cases[i].n,
               cases[i].complex_result ? " complex" : "", bp.mirror_team, cases[i].team);
      }
  }

  CHECK_CASE ("the batch plan names the pages a claim of the pool takes on the CPU");
  {
    /* On a host of 8 threads (a batch's team of 7: tilemm_team_threads_left).  A claim is as
     * many pages as pay for it, and few enough that each thread has 4 claims of a group at
     * least: 200 pages of 96^3 in claims of 16 kept 7 threads of 7 busy but for a 13th claim
     * (13 of 15 on a 16-thread host), and 20 pages of 200^3 two of them. */
    struct { int64_t mnk, pages; int64_t per_index; } cases[] = {
      { 8, 200000, TILEMM_BATCH_DIRECT_PER_INDEX }, /* small real pages, computed directly */
      { 40, 20000, TILEMM_BATCH_TILED_PER_INDEX },  /* through the tiled backend           */
      { 96, 200, 7 },                               /* 29 claims: 4 a thread and more      */
      { 200, 20, 1 },                               /* a page a claim                      */
      { 96, 4, 0 },                                 /* page after page, tiles over threads */
      { 500, 2, 0 },                                /* page after page: no claims of pages */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      {
        tilemm_route r;
        memset (&r, 0, sizeof r);
        r.action = TILEMM_ROUTE_COMPUTE;
        r.compute_type = TILEMM_DOUBLE;
        r.m = r.n = r.k = cases[i].mnk;
        tilemm_batch_plan bp;
        tilemm_error err = { TILEMM_OK, "" };
        const tilemm_status s = tilemm_batch_plan_make (&r, test_pages_shape (&r, cases[i].pages), 8, TILEMM_CPU_ISA_DEFAULT,
                                                        TILEMM_CHOOSE_CPU, 0, 0, 0, 0, NULL, &bp,
                                                        &err);
        CHECK (s == TILEMM_OK && bp.pages_per_index == cases[i].per_index,
               "%lld pages of %lld^3: %lld pages a claim (parallel %d, direct %d), want %lld",
               (long long) cases[i].pages, (long long) cases[i].mnk,
               (long long) bp.pages_per_index, bp.parallel_pages, bp.direct_pages,
               (long long) cases[i].per_index);
        if (s == TILEMM_OK && bp.parallel_pages && bp.pages_per_index > 0)
          {
            const int64_t group = bp.pages_per_poll < cases[i].pages ? bp.pages_per_poll
                                                                     : cases[i].pages;
            const int64_t claims = (group + bp.pages_per_index - 1) / bp.pages_per_index;
            const int64_t want = 4 * (int64_t) bp.threads < group ? 4 * (int64_t) bp.threads : group;
            CHECK (claims >= want, "%lld pages of %lld^3 on %d threads: %lld claims a group of "
                   "%lld, want %lld at least", (long long) cases[i].pages,
                   (long long) cases[i].mnk, bp.threads, (long long) claims, (long long) group,
                   (long long) want);
          }
      }
  }

  CHECK_CASE ("the CPU plan names the batches of a panel's tiles and their teams");
  {
    /* threads, tiles down × across, polled, the batch from `first`: want its tiles and team. */
    struct { int threads; int64_t down, across; int polled; int64_t first, count; int team; } cases[] = {
      { 4, 10, 3, 0, 0, 30, 4 },    /* no stop: one batch of every tile                     */
      { 4, 10, 3, 1, 0, 18, 4 },    /* polled: whole rows of at least 4 tiles a thread      */
      { 4, 10, 3, 1, 18, 12, 4 },   /* the last batch: the rows left                        */
      { 4, 1, 2, 0, 0, 2, 2 },      /* fewer tiles than threads: a thread a tile            */
      { 0, 2, 3, 1, 0, 6, 1 },      /* a plan without threads: one, 4 tiles, whole rows     */
      { 8, 4, 40, 1, 120, 40, 8 },  /* a row wider than the batch's tiles: a row a batch    */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      {
        tilemm_plan plan;
        memset (&plan, 0, sizeof plan);
        plan.backend = TILEMM_BACKEND_CPU;
        plan.threads = cases[i].threads;
        int team = -1;
        const int64_t count = tilemm_plan_cpu_tile_batch (&plan, cases[i].down, cases[i].across,
                                                          cases[i].polled, cases[i].first, &team);
        CHECK (count == cases[i].count && team == cases[i].team,
               "%d threads, %lld x %lld tiles%s, from %lld: %lld tiles on %d, want %lld on %d",
               cases[i].threads, (long long) cases[i].down, (long long) cases[i].across,
               cases[i].polled ? " polled" : "", (long long) cases[i].first, (long long) count,
               team, (long long) cases[i].count, cases[i].team);
      }
  }

  CHECK_CASE ("the call plan names the team and pieces of a BLAS call's update of C");
  {
    struct { tilemm_type type; int64_t m, n; int team; } cases[] = {
      { TILEMM_DOUBLE, 10, 10, 1 },            /* 2.4 KB                            */
      { TILEMM_DOUBLE, 2000, 2000, 15 },       /* 96 MB: every thread left          */
      { TILEMM_DOUBLE, 2000, 16, 2 },          /* two pieces of 8 columns           */
      { TILEMM_DOUBLE, 200, 200, 9 },          /* 0.96 ms: 9 threads                */
      { TILEMM_COMPLEX_SINGLE, 200, 200, 9 },  /* the same bytes                    */
      { TILEMM_SINGLE, 200, 200, 4 },          /* half of them                      */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      {
        tilemm_call_plan p;
        tilemm_error err = { TILEMM_OK, "" };
        const tilemm_status st = blas_call_plan_16 (cases[i].type, cases[i].m, cases[i].n, 5,
                                                    TILEMM_OP_NONE, TILEMM_OP_NONE, &p, &err);
        CHECK (st == TILEMM_OK && p.update_team == cases[i].team && p.update_columns == 8,
               "%s %lld x %lld: update on %d in pieces of %lld columns, want %d in 8 (%s)",
               tilemm_type_name (cases[i].type), (long long) cases[i].m, (long long) cases[i].n,
               p.update_team, (long long) p.update_columns, cases[i].team, err.detail);
      }
  }

  CHECK_CASE ("the call plan names the team and pieces of a BLAS call's strided operands packed");
  {
    /* A and B as stored (A k×m where op_a transposes, B n×k where op_b does), each in pieces of
     * 256 KiB of whole columns, on the threads its bytes (read and written) pay for of the 15
     * a 16-thread host leaves. */
    struct { tilemm_type type; int64_t m, n, k; tilemm_op op_a, op_b; int team_a; int64_t cols_a;
             int team_b; int64_t cols_b; } cases[] = {
      { TILEMM_DOUBLE, 10, 10, 10, TILEMM_OP_NONE, TILEMM_OP_NONE, 1, 3276, 1, 3276 },  /* 1.6 KB */
      { TILEMM_SINGLE, 100, 100, 100, TILEMM_OP_NONE, TILEMM_OP_NONE, 1, 655, 1, 655 }, /* one piece */
      { TILEMM_DOUBLE, 2000, 2000, 2000, TILEMM_OP_NONE, TILEMM_OP_NONE, 15, 16, 15, 16 }, /* 64 MB */
      /* A 2000×2000 as stored; B 200×2000: 13 pieces of 163 columns */
      { TILEMM_DOUBLE, 2000, 200, 2000, TILEMM_OP_TRANSPOSE, TILEMM_OP_TRANSPOSE, 15, 16, 13, 163 },
      /* 300×300 complex: 6 pieces of 54 columns */
      { TILEMM_COMPLEX_DOUBLE, 300, 300, 300, TILEMM_OP_NONE, TILEMM_OP_CTRANSPOSE, 6, 54, 6, 54 },
      /* thin: A 2000×10 and B 10×2000 (0.32 MB each) are one piece each: one thread */
      { TILEMM_DOUBLE, 2000, 2000, 10, TILEMM_OP_NONE, TILEMM_OP_NONE, 1, 16, 1, 3276 },
      /* A 20000×10 and B 20000×2 as stored: a piece a column (160 KB each), a thread each */
      { TILEMM_DOUBLE, 10, 2, 20000, TILEMM_OP_TRANSPOSE, TILEMM_OP_NONE, 10, 1, 2, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      {
        tilemm_call_plan p;
        tilemm_error err = { TILEMM_OK, "" };
        const tilemm_status st = blas_call_plan_16 (cases[i].type, cases[i].m, cases[i].n,
                                                    cases[i].k, cases[i].op_a, cases[i].op_b, &p,
                                                    &err);
        CHECK (st == TILEMM_OK && p.pack_team[0] == cases[i].team_a
                 && p.pack_columns[0] == cases[i].cols_a && p.pack_team[1] == cases[i].team_b
                 && p.pack_columns[1] == cases[i].cols_b,
               "%s %lld x %lld x %lld: A packed on %d in %lld columns, B on %d in %lld, want %d "
               "in %lld and %d in %lld (%s)",
               tilemm_type_name (cases[i].type), (long long) cases[i].m, (long long) cases[i].n,
               (long long) cases[i].k, p.pack_team[0], (long long) p.pack_columns[0],
               p.pack_team[1], (long long) p.pack_columns[1], cases[i].team_a,
               (long long) cases[i].cols_a, cases[i].team_b, (long long) cases[i].cols_b,
               err.detail);
      }
  }
}

/* A BLAS call that only zeroes C (alpha = 0 or k = 0, beta = 0: tilemm_blas_scale_c) does it on
 * the team and in the pieces it is handed (the decision's, tilemm_decide_update), as the update
 * does, not on the caller's thread alone (review r6); and writes zeros over NaN in the call's
 * block or triangle only.  The team is seen in the host pool, which grows to a job's members. */
static void test_blas_zero_fill_on_team (void)
{
  CHECK_CASE ("a BLAS call's C := 0 runs on the team the decision names");
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  const int cpus = tilemm_cpu_set_count (&host.cpus);
  const char uplos[3] = { 0, 'U', 'L' };
  enum { M = 9, N = 9, LDC = 11 };
  for (int u = 0; u < 3; u++)
    for (int team = 1; team <= 2; team++)
      {
        double c[LDC * N];
        for (int e = 0; e < LDC * N; e++)
          c[e] = NAN;
        tilemm_blas_request rq;
        memset (&rq, 0, sizeof rq);
        rq.type = TILEMM_DOUBLE;
        rq.uplo = uplos[u];
        rq.m = M;
        rq.n = N;
        rq.c = c;
        rq.ldc = LDC;
        tilemm_host_pool_release ();
        tilemm_blas_scale_c (&rq, team, 2);
        const int members = tilemm_host_pool_size ();
        const int want = team > 1 && cpus >= 2 ? 2 : 1;
        CHECK (members == want, "uplo %c, team %d: the pool has %d members after the fill, want %d",
               uplos[u] ? uplos[u] : '-', team, members, want);
        int64_t wrong = 0;
        for (int j = 0; j < N; j++)
          for (int i = 0; i < LDC; i++)
            {
              const int in = i < M && (uplos[u] != 'U' || i <= j) && (uplos[u] != 'L' || i >= j);
              const double x = c[i + j * LDC];
              if (in ? x != 0 : !isnan (x))
                wrong++;
            }
        CHECK (wrong == 0, "uplo %c, team %d: %lld entries wrong", uplos[u] ? uplos[u] : '-',
               team, (long long) wrong);
      }
  if (cpus < 2)
    printf ("  (one CPU: the team is not seen)\n");
}

/* A BLAS call's strided operand packed (tilemm_blas_contiguous) on the team and in the pieces it
 * is handed (the call plan's pack_team and pack_columns), not on the caller's thread alone: the
 * exact packed matrix, and the team seen in the host pool, as the zero fill's above. */
static void test_blas_pack_on_team (void)
{
  CHECK_CASE ("a BLAS call's strided operand is packed on the team the plan names");
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  const int cpus = tilemm_cpu_set_count (&host.cpus);
  enum { ROWS = 5, COLS = 9, LD = 7 };
  const tilemm_type types[2] = { TILEMM_DOUBLE, TILEMM_COMPLEX_SINGLE };
  for (int t = 0; t < 2; t++)
    for (int team = 1; team <= 2; team++)
      {
        const size_t es = tilemm_type_size (types[t]);
        unsigned char x[LD * COLS * 16];
        for (size_t e = 0; e < sizeof x; e++)
          x[e] = (unsigned char) (e * 37 + 11);
        void *copy = NULL;
        tilemm_host_pool_release ();
        const void *packed = tilemm_blas_contiguous (types[t], x, ROWS, COLS, LD, team, 2, &copy);
        const int members = tilemm_host_pool_size ();
        const int want = team > 1 && cpus >= 2 ? 2 : 1;
        CHECK (packed && packed == copy && members == want,
               "%s, team %d: packed %p (copy %p), the pool has %d members after it, want %d",
               tilemm_type_name (types[t]), team, packed, copy, members, want);
        int64_t wrong = 0;
        for (int j = 0; packed && j < COLS; j++)
          if (memcmp ((const char *) packed + (size_t) j * ROWS * es, x + (size_t) j * LD * es,
                      ROWS * es) != 0)
            wrong++;
        CHECK (wrong == 0, "%s, team %d: %lld columns differ from the operand's",
               tilemm_type_name (types[t]), team, (long long) wrong);
        free (copy);
      }
  /* A contiguous operand is itself, never copied. */
  double y[6] = { 1, 2, 3, 4, 5, 6 };
  void *copy = &copy;
  const void *same = tilemm_blas_contiguous (TILEMM_DOUBLE, y, 3, 2, 3, 2, 2, &copy);
  CHECK (same == y && copy == NULL, "a contiguous operand: %p (copy %p), want itself", same,
         copy);
  if (cpus < 2)
    printf ("  (one CPU: the team is not seen)\n");
}

int main (int argc, char **argv)
{
#ifdef FREED_MEMORY_TESTED
  if (argc == 2 && strcmp (argv[1], "--freed-memory-child") == 0)
    return freed_memory_child ();
#else
  (void) argc;
  (void) argv;
#endif
  const double start = wall_seconds ();
  test_multiply_op ();
  test_cpu_variants ();
  test_cpu_variant_of_the_plan ();
  test_type_facts ();
  test_view_init ();
  test_view_overflow ();
  test_view_sub ();
  test_row_major_reading ();
  test_status ();
  test_plan_tiles ();
  test_plan_one_panel ();
  test_plan_launches ();
  test_call_plan_launches ();
  test_facts_budget ();
  test_split_teams ();
  test_host_job_teams ();
  test_blas_zero_fill_on_team ();
  test_blas_pack_on_team ();
  test_emulated_branches ();
  test_plan_small_products ();
  test_plan_panels ();
  test_plan_steps ();
  test_plan_streaming ();
  test_device_model ();
  test_plan_gpu_pays ();
  test_plan_rank_k_gpu_pays ();
  test_host_pages ();
  test_keep_freed_memory ();
  test_operand_errors ();
  test_checker_catches_errors ();
  test_special_values ();
  test_special_values_at_edges ();
  test_k_zero ();
  test_strided ();
  test_other_tiles ();
  test_bitwise_reproducible ();
  test_random_shapes ();
  test_exhaustive_small_double ();
  test_large_products ();
  test_parallel_copy ();
  test_staging_copy_members ();
  printf ("test_core: %.1f s\n", wall_seconds () - start);
  return check_summary ("test_core");
}
