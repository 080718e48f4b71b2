/* emulated_cpu.c — the emulated precision (Ozaki scheme II) on the CPU: the exact statistics of
 * emulated.h, Garner's CRT with one rounding, and the product itself (the plan: emulated_plan.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Every real problem (a real product, or one of the two of a complex one) is held as K-major
 * double copies of its operands: row i of A at a + i·k, column j of B at b + j·k (single data
 * is exact in double).  Everything the plan is decided from is an exact integer, so the thread
 * count changes no bit of the statistics nor of C.  The loops run on the host pool (host_pool.h),
 * in the chunks and on the teams the plan cuts for them (tilemm_emu_loop_plan, emulated.h).
 * Ported from the tested CPU reference of wip/ozaki (without its inner-dimension rebalancing,
 * which the contract does not have).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "emulated.h"
#include "exact_dot.h"
#include "host_pool.h"

typedef unsigned __int128 emu_u128;

/* ---------------------------------------------------------------- small pieces */

int tilemm_emu_exponent (double largest_magnitude)
{
  if (largest_magnitude == 0.0)
    return TILEMM_EMU_ZERO_ROW;
  int e;
  frexp (largest_magnitude, &e);   /* largest < 2^e */
  return e;
}

int8_t tilemm_emu_residue (int64_t x, int m)
{
  int64_t r = x % m;   /* (−m, m) */
  if (r < 0)
    r += m;            /* [0, m)  */
  if (r > 127)
    r -= m;            /* [−128, 127] for every m ≤ 256 */
  return (int8_t) r;
}

void tilemm_emu_quantize (double x, int exponent, int *lo, int *hi)
{
  if (x == 0.0 || exponent == TILEMM_EMU_ZERO_ROW)
    {
      *lo = *hi = 0;
      return;
    }
  int ex;
  const double f = frexp (fabs (x), &ex);   /* |x| = f·2^ex, f in [0.5, 1), ex ≤ exponent */
  const int d = ex - exponent;
  if (d <= -7)
    {
      /* Q·x̂ < 127·2^-7 < 1 (x̂ = |x|·2^-exponent is exact only through f, never formed). */
      *lo = 0;
      *hi = 1;
      return;
    }
  const double xh = ldexp (f, d);            /* x̂, exact: f has 53 bits, 2^-6 ≤ 2^d ≤ 1 */
  const double q = (double) TILEMM_EMU_Q;
  const double p = q * xh;                   /* rounded; fma gives the exact sign below   */
  double fl = floor (p), ce = ceil (p);
  if (fma (q, xh, -fl) < 0)
    fl -= 1.0;
  if (fma (q, xh, -ce) > 0)
    ce += 1.0;
  *lo = (int) fl;
  *hi = (int) ce;
}

/* ---------------------------------------------------------------- big integers, rounding */

/* Non-negative integers of 4 × 64-bit limbs, little endian (24 moduli: M < 2^190). */
typedef struct {
  uint64_t w[4];
} emu_big;

static void big_mul_add_small (emu_big *x, uint64_t mul, uint64_t add)
{
  emu_u128 carry = add;
  for (int i = 0; i < 4; i++)
    {
      const emu_u128 t = (emu_u128) x->w[i] * mul + carry;
      x->w[i] = (uint64_t) t;
      carry = t >> 64;
    }
}

static int big_cmp (const emu_big *a, const emu_big *b)
{
  for (int i = 3; i >= 0; i--)
    if (a->w[i] != b->w[i])
      return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

static void big_sub (const emu_big *a, const emu_big *b, emu_big *r)   /* a ≥ b */
{
  uint64_t borrow = 0;
  for (int i = 0; i < 4; i++)
    {
      const uint64_t ai = a->w[i], bi = b->w[i];
      r->w[i] = ai - bi - borrow;
      borrow = (ai < bi) || (ai - bi < borrow);
    }
}


static double crt (const uint8_t *residues, int moduli, int exponent, int single)
{
  int v[TILEMM_EMU_MAX_MODULI] = { 0 };
  if (moduli < 1 || moduli > TILEMM_EMU_MAX_MODULI)
    return 0.0;
  /* Garner: X = v0 + v1·m0 + v2·m0·m1 + …, 0 ≤ v_t < m_t; small integers only (< 2^16). */
  for (int t = 0; t < moduli; t++)
    {
      const int mt = tilemm_emu_moduli[t];
      const int x = residues[t] % mt;
      if (t == 0)
        {
          v[0] = x;
          continue;
        }
      int tmp = v[t - 1] % mt;
      for (int s = t - 2; s >= 0; s--)
        tmp = (tmp * tilemm_emu_moduli[s] + v[s]) % mt;
      v[t] = ((x - tmp) % mt + mt) % mt * tilemm_emu_garner[t] % mt;
    }
  emu_big x = { { (uint64_t) v[moduli - 1], 0, 0, 0 } };
  emu_big m = { { 1, 0, 0, 0 } };
  for (int t = moduli - 2; t >= 0; t--)
    big_mul_add_small (&x, (uint64_t) tilemm_emu_moduli[t], (uint64_t) v[t]);
  for (int t = 0; t < moduli; t++)
    big_mul_add_small (&m, (uint64_t) tilemm_emu_moduli[t], 0);
  emu_big twice = x;
  big_mul_add_small (&twice, 2, 0);
  if (big_cmp (&twice, &m) > 0)   /* X > M/2: the symmetric value is X − M < 0 */
    {
      emu_big mag;
      big_sub (&m, &x, &mag);
      return tilemm_emu_big_to_float (mag.w, 1, exponent, single);
    }
  return tilemm_emu_big_to_float (x.w, 0, exponent, single);
}

double tilemm_emu_crt_double (const uint8_t *residues, int moduli, int exponent)
{
  return crt (residues, moduli, exponent, 0);
}

double tilemm_emu_crt_single (const uint8_t *residues, int moduli, int exponent)
{
  return crt (residues, moduli, exponent, 1);
}

/* ---------------------------------------------------------------- real problems */

/* One real problem: m×k · k×n, both operands K-major doubles (row i of A at a + i·k, column j
 * of B at b + j·k). */
typedef struct {
  int64_t m, n, k;
  double *a, *b;
  int threads;   /* the host's threads its loops may take (the plan's; 0: one) */
} emu_problem;

/* ---------------------------------------------------------------- the loops, on the host pool */

/* body over [0, count) of the items of `loop` (of a real problem of m rows and inner dimension
 * k, a branch of `moduli` moduli: emulated.h, tilemm_emu_loop), in the chunks and on the team the
 * plan's cut gives of the plan's `threads` (tilemm_emu_loop_plan; 0: one). */
static void emu_for (int threads, tilemm_emu_loop loop, int64_t count, int64_t m, int64_t k,
                     int moduli, tilemm_range_fn *body, void *ctx)
{
  if (count <= 0)
    return;
  const tilemm_emu_loop_cut cut = tilemm_emu_loop_plan (threads, loop, count, m, k, moduli);
  tilemm_host_pool_run_ranges (cut.team, count, cut.per, body, ctx);
}

/* The real problems of a product (one, or two for a complex one) and what they share. */
typedef struct {
  int count;
  int single;          /* round C to single */
  int complex_type;
  emu_problem p[2];
} emu_problems;

static void problems_free (emu_problems *ps)
{
  for (int i = 0; i < 2; i++)
    {
      free (ps->p[i].a);
      free (ps->p[i].b);
      ps->p[i].a = ps->p[i].b = NULL;
    }
}

static double *alloc_doubles (int64_t rows, int64_t cols)
{
  const size_t count = (size_t) (rows > 0 ? rows : 1) * (size_t) (cols > 0 ? cols : 1);
  if (rows > 0 && cols > 0 && count / (size_t) rows != (size_t) cols)
    return NULL;
  if (count > SIZE_MAX / sizeof (double))
    return NULL;
  return malloc (count * sizeof (double));
}

/* Part `part` (0 real, 1 imaginary) of element (i, j) of a view, as a double. */
static double view_part (const tilemm_view *v, int64_t i, int64_t j, int part)
{
  const size_t at = (size_t) i + (size_t) j * (size_t) v->stride;
  switch (v->type)
    {
    case TILEMM_SINGLE:
      return ((const float *) v->data)[at];
    case TILEMM_DOUBLE:
      return ((const double *) v->data)[at];
    case TILEMM_COMPLEX_SINGLE:
      return ((const float *) v->data)[2 * at + (size_t) part];
    default:
      return ((const double *) v->data)[2 * at + (size_t) part];
    }
}

/* Part `part` of element (i, j) of op(v), v as stored: read the other way round when op
 * transposes, the imaginary part negated when it conjugates (no copy of v is made). */
static double op_part (tilemm_op op, const tilemm_view *v, int64_t i, int64_t j, int part)
{
  if (op == TILEMM_OP_NONE)
    return view_part (v, i, j, part);
  const double x = view_part (v, j, i, part);
  return part == 1 && op == TILEMM_OP_CTRANSPOSE ? -x : x;
}

/* Rows of op(A) (operand_b 0: row i is op(A)(i, :)) or columns of op(B) (operand_b 1:
 * op(B)(:, j)) as K-major rows of the real problems: real, out[0] row q = the row; complex,
 * out[0] row q = [re −im] (A) or [re im] (B), out[1] row q = [re im] (A) or [im re] (B). */
typedef struct {
  tilemm_op op;
  const tilemm_view *v;
  int operand_b, complex_type;
  int64_t k;
  double **out;
} gather_job;

static void gather_rows (void *ctx, int64_t first, int64_t last)
{
  const gather_job *g = (const gather_job *) ctx;
  const tilemm_op op = g->op;
  const tilemm_view *v = g->v;
  const int operand_b = g->operand_b, complex_type = g->complex_type;
  const int64_t k = g->k;
  double **out = g->out;
  const size_t len = (size_t) (complex_type ? 2 * k : k);
  for (int64_t q = first; q < last; q++)
    for (int64_t p = 0; p < k; p++)
      {
        const int64_t i = operand_b ? p : q, j = operand_b ? q : p;
        const double re = op_part (op, v, i, j, 0);
        const size_t first = (size_t) q * len + (size_t) p, second = first + (size_t) k;
        if (!complex_type)
          {
            out[0][first] = re;
            continue;
          }
        const double im = op_part (op, v, i, j, 1);
        out[0][first] = re;
        out[0][second] = operand_b ? im : -im;
        out[1][first] = operand_b ? im : re;
        out[1][second] = operand_b ? re : im;
      }
}

static void gather (int threads, tilemm_op op, const tilemm_view *v, int operand_b, int64_t count,
                    int64_t k, int complex_type, double *out[2])
{
  gather_job g = { op, v, operand_b, complex_type, k, out };
  emu_for (threads, TILEMM_EMU_LOOP_GATHER, count, 0, k, 0, gather_rows, &g);
}

/* The real problems of C = op_a(A)·op_b(B).  Complex: Re C = [Ar −Ai]·[Br; Bi],
 * Im C = [Ar Ai]·[Bi; Br]. */
static tilemm_status problems_make (int threads, tilemm_op op_a, const tilemm_view *a,
                                    tilemm_op op_b, const tilemm_view *b, emu_problems *ps,
                                    tilemm_error *err)
{
  memset (ps, 0, sizeof *ps);
  ps->complex_type = tilemm_type_is_complex (a->type);
  ps->single = a->type == TILEMM_SINGLE || a->type == TILEMM_COMPLEX_SINGLE;
  ps->count = ps->complex_type ? 2 : 1;
  const int64_t m = tilemm_op_rows (op_a, a), n = tilemm_op_cols (op_b, b);
  const int64_t k = tilemm_op_cols (op_a, a), parts = ps->complex_type ? 2 : 1;
  for (int q = 0; q < ps->count; q++)
    {
      emu_problem *p = &ps->p[q];
      p->m = m;
      p->n = n;
      p->k = parts * k;
      p->threads = threads;
      p->a = alloc_doubles (m, p->k);
      p->b = alloc_doubles (n, p->k);
      if (!p->a || !p->b)
        {
          problems_free (ps);
          return tilemm_error_set (err, TILEMM_ENOMEM, "emulated precision: %s",
                                   tilemm_strerror (TILEMM_ENOMEM));
        }
    }
  double *a_parts[2] = { ps->p[0].a, ps->p[1].a }, *b_parts[2] = { ps->p[0].b, ps->p[1].b };
  gather (threads, op_a, a, 0, m, k, ps->complex_type, a_parts);
  gather (threads, op_b, b, 1, n, k, ps->complex_type, b_parts);
  return TILEMM_OK;
}

/* Step 1: the exponent of each of `count` K-major rows of length k. */
typedef struct {
  const double *x;
  int64_t k;
  int *e;
} exponents_job;

static void exponents_of (void *ctx, int64_t first, int64_t last)
{
  const exponents_job *j = (const exponents_job *) ctx;
  const double *x = j->x;
  const int64_t k = j->k;
  int *e = j->e;
  for (int64_t i = first; i < last; i++)
    {
      double largest = 0.0;
      const double *row = x + (size_t) i * (size_t) k;
      for (int64_t p = 0; p < k; p++)
        if (fabs (row[p]) > largest)
          largest = fabs (row[p]);
      e[i] = tilemm_emu_exponent (largest);
    }
}

static void row_exponents (int threads, const double *x, int64_t count, int64_t k, int *e)
{
  exponents_job j = { x, k, e };
  emu_for (threads, TILEMM_EMU_LOOP_EXPONENTS, count, 0, k, 0, exponents_of, &j);
}

typedef struct {
  const double *x;
  atomic_int bad;
} nonfinite_job;

static void nonfinite_in (void *ctx, int64_t first, int64_t last)
{
  nonfinite_job *j = (nonfinite_job *) ctx;
  int bad = 0;
  for (int64_t q = first; q < last; q++)
    bad = bad || !isfinite (j->x[q]);
  if (bad)
    atomic_store (&j->bad, 1);
}

static int any_nonfinite (int threads, const double *x, size_t count)
{
  nonfinite_job j;
  j.x = x;
  atomic_init (&j.bad, 0);
  emu_for (threads, TILEMM_EMU_LOOP_NONFINITE, (int64_t) count, 0, 0, 0, nonfinite_in, &j);
  return atomic_load (&j.bad);
}

/* lo and hi of every element of `count` K-major rows, the row sums of hi and of hi². */
typedef struct {
  const double *x;
  int64_t k;
  const int *e;
  uint8_t *lo;
  int64_t *sum, *sum_sq;
} quantize_job;

static void quantize_of (void *ctx, int64_t first, int64_t last)
{
  const quantize_job *j = (const quantize_job *) ctx;
  const double *x = j->x;
  const int64_t k = j->k;
  const int *e = j->e;
  uint8_t *lo = j->lo;
  int64_t *sum = j->sum, *sum_sq = j->sum_sq;
  for (int64_t i = first; i < last; i++)
    {
      int64_t s = 0, s2 = 0;
      for (int64_t p = 0; p < k; p++)
        {
          const size_t at = (size_t) i * (size_t) k + (size_t) p;
          int l, h;
          tilemm_emu_quantize (x[at], e[i], &l, &h);
          lo[at] = (uint8_t) l;
          s += h;
          s2 += (int64_t) h * h;
        }
      sum[i] = s;
      sum_sq[i] = s2;
    }
}

static void quantize_rows (int threads, const double *x, int64_t count, int64_t k, const int *e,
                           uint8_t *lo, int64_t *sum, int64_t *sum_sq)
{
  quantize_job j = { x, k, e, lo, sum, sum_sq };
  emu_for (threads, TILEMM_EMU_LOOP_QUANTIZE, count, 0, k, 0, quantize_of, &j);
}

/* Σ_p x[p]·y[p] of unsigned bytes < 128 (lo values), exact: int32 chunks, int64 total. */
static int64_t dot_u8 (const uint8_t *x, const uint8_t *y, int64_t k)
{
  int64_t total = 0;
  for (int64_t p0 = 0; p0 < k; p0 += TILEMM_EMU_KCHUNK)
    {
      const int64_t pe = p0 + TILEMM_EMU_KCHUNK < k ? p0 + TILEMM_EMU_KCHUNK : k;
      int32_t s = 0;
      for (int64_t p = p0; p < pe; p++)
        s += (int32_t) x[p] * (int32_t) y[p];
      total += s;
    }
  return total;
}

/* Steps 1–2's per-row data of one real problem: exponents, lo values, sums of hi and hi². */
typedef struct {
  int *ea, *eb;
  uint8_t *la, *lb;
  int64_t *sa, *qa, *sb, *qb;
} emu_quant;

static void quant_free (emu_quant *q)
{
  free (q->ea);
  free (q->eb);
  free (q->la);
  free (q->lb);
  free (q->sa);
  free (q->qa);
  free (q->sb);
  free (q->qb);
  memset (q, 0, sizeof *q);
}

static tilemm_status quant_make (const emu_problem *p, emu_quant *q, tilemm_error *err)
{
  const size_t ak = (size_t) p->m * (size_t) p->k, bk = (size_t) p->n * (size_t) p->k;
  q->ea = malloc (sizeof (int) * (size_t) (p->m + 1));
  q->eb = malloc (sizeof (int) * (size_t) (p->n + 1));
  q->la = malloc (ak + 1);
  q->lb = malloc (bk + 1);
  q->sa = malloc (sizeof (int64_t) * (size_t) (p->m + 1));
  q->qa = malloc (sizeof (int64_t) * (size_t) (p->m + 1));
  q->sb = malloc (sizeof (int64_t) * (size_t) (p->n + 1));
  q->qb = malloc (sizeof (int64_t) * (size_t) (p->n + 1));
  if (!q->ea || !q->eb || !q->la || !q->lb || !q->sa || !q->qa || !q->sb || !q->qb)
    {
      quant_free (q);
      return tilemm_error_set (err, TILEMM_ENOMEM, "emulated precision: %s",
                               tilemm_strerror (TILEMM_ENOMEM));
    }
  row_exponents (p->threads, p->a, p->m, p->k, q->ea);
  row_exponents (p->threads, p->b, p->n, p->k, q->eb);
  quantize_rows (p->threads, p->a, p->m, p->k, q->ea, q->la, q->sa, q->qa);
  quantize_rows (p->threads, p->b, p->n, p->k, q->eb, q->lb, q->sb, q->qb);
  return TILEMM_OK;
}

/* max_qa and max_qb of step 2 into *st. */
static void quant_maxima (const emu_problem *p, const emu_quant *q, tilemm_emu_stats *st)
{
  for (int64_t i = 0; i < p->m; i++)
    if (q->qa[i] > st->max_qa)
      st->max_qa = q->qa[i];
  for (int64_t j = 0; j < p->n; j++)
    if (q->qb[j] > st->max_qb)
      st->max_qb = q->qb[j];
}

/* Whether some term x_p·y_p is nonzero: a pair with S_ij = 0 and no such term is an exact zero in
 * any plan (every scaled product is 0·b' or a'·0), one with such a term is not bounded by S. */
static int pair_has_term (const double *x, const double *y, int64_t k)
{
  for (int64_t p = 0; p < k; p++)
    if (x[p] != 0.0 && y[p] != 0.0)
      return 1;
  return 0;
}

/* Step 2's ratios over the (row, column) pairs of nonzero rows and columns, merged (max) into
 * *ra and *rb.  exact NULL: every pair counts, S_ij = 0 as +Inf (the whole-product rule).
 * Otherwise pairs no plan within TILEMM_EMU_PMAX carries (S_ij = 0 with a nonzero term, or a
 * ratio of more bits than `carried`, the branches' carried_ratio_bits) are marked in
 * exact[i + j·m] and left out, and pairs of S_ij = 0 with no nonzero term are left out unmarked
 * (exact zeros in any plan). */
typedef struct {
  const emu_problem *p;
  const emu_quant *q;
  int carried;
  uint8_t *exact;
  int locked;             /* lock made: chunks may run at once */
  pthread_mutex_t lock;   /* merges each chunk's maxima into ra, rb */
  double ra, rb;
} ratios_job;

static void ratios_of (void *ctx, int64_t first, int64_t last)
{
  ratios_job *r = (ratios_job *) ctx;
  const emu_problem *p = r->p;
  const emu_quant *q = r->q;
  const int carried = r->carried;
  uint8_t *exact = r->exact;
  double ra = 0.0, rb = 0.0;
  for (int64_t j = first; j < last; j++)
    {
      if (q->eb[j] == TILEMM_EMU_ZERO_ROW)
        continue;
      const size_t col = (size_t) j * (size_t) p->k;
      for (int64_t i = 0; i < p->m; i++)
        {
          if (q->ea[i] == TILEMM_EMU_ZERO_ROW)
            continue;
          const size_t row = (size_t) i * (size_t) p->k, at = (size_t) i + (size_t) j * (size_t) p->m;
          const int64_t s = dot_u8 (q->la + row, q->lb + col, p->k);
          double ra_ = HUGE_VAL, rb_ = HUGE_VAL;
          if (s != 0)
            {
              ra_ = (double) TILEMM_EMU_Q * (double) q->sb[j] / (double) s;
              rb_ = (double) TILEMM_EMU_Q * (double) q->sa[i] / (double) s;
            }
          if (exact && s == 0)
            {
              if (pair_has_term (p->a + row, p->b + col, p->k))
                exact[at] = 1;
              continue;
            }
          if (exact && (tilemm_emu_ratio_bits (ra_) > carried
                        || tilemm_emu_ratio_bits (rb_) > carried))
            {
              exact[at] = 1;
              continue;
            }
          if (ra_ > ra)
            ra = ra_;
          if (rb_ > rb)
            rb = rb_;
        }
    }
  const int locked = r->locked && pthread_mutex_lock (&r->lock) == 0;
  if (ra > r->ra)
    r->ra = ra;
  if (rb > r->rb)
    r->rb = rb;
  if (locked)
    pthread_mutex_unlock (&r->lock);
}

/* Step 2's ratios over the (row, column) pairs of nonzero rows and columns, merged (max) into
 * *ra and *rb.  exact NULL: every pair counts, S_ij = 0 as +Inf (the whole-product rule).
 * Otherwise pairs no plan within TILEMM_EMU_PMAX carries (S_ij = 0 with a nonzero term, or a
 * ratio of more bits than `carried`) are marked in exact[i + j·m] and left out, and pairs of
 * S_ij = 0 with no nonzero term are left out unmarked (exact zeros in any plan).
 * Column after column, each on one thread. */
static void pair_ratios (const emu_problem *p, const emu_quant *q, int carried, uint8_t *exact,
                         double *ra_out, double *rb_out)
{
  ratios_job r;
  r.p = p;
  r.q = q;
  r.carried = carried;
  r.exact = exact;
  r.ra = *ra_out;
  r.rb = *rb_out;
  /* Without a lock to merge under, the columns go on this thread alone. */
  r.locked = pthread_mutex_init (&r.lock, NULL) == 0;
  emu_for (r.locked ? p->threads : 1, TILEMM_EMU_LOOP_RATIOS, p->n, p->m, p->k, 0, ratios_of, &r);
  if (r.locked)
    pthread_mutex_destroy (&r.lock);
  *ra_out = r.ra;
  *rb_out = r.rb;
}

/* Steps 1–2 for one real problem; the ratios (S) only with_ratios (else they stay 0). */
static tilemm_status problem_stats (const emu_problem *p, int with_ratios, tilemm_emu_stats *st,
                                    tilemm_error *err)
{
  memset (st, 0, sizeof *st);
  st->inner = p->k;
  const size_t ak = (size_t) p->m * (size_t) p->k, bk = (size_t) p->n * (size_t) p->k;
  st->nonfinite = any_nonfinite (p->threads, p->a, ak) || any_nonfinite (p->threads, p->b, bk);
  if (st->nonfinite)
    return TILEMM_OK;
  emu_quant q;
  const tilemm_status status = quant_make (p, &q, err);
  if (status != TILEMM_OK)
    return status;
  quant_maxima (p, &q, st);
  if (with_ratios && st->max_qa > 0 && st->max_qb > 0)
    pair_ratios (p, &q, 0, NULL, &st->ratio_a, &st->ratio_b);
  quant_free (&q);
  return TILEMM_OK;
}

/* ---------------------------------------------------------------- the product */

/* Σ_p ra·rb mod m of one row and one column of residues, in [0, m): int32 chunks reduced mod m. */
static int residue_dot (const int8_t *x, const int8_t *y, int64_t k, int m)
{
  int64_t acc = 0;
  for (int64_t p0 = 0; p0 < k; p0 += TILEMM_EMU_KCHUNK)
    {
      const int64_t pe = p0 + TILEMM_EMU_KCHUNK < k ? p0 + TILEMM_EMU_KCHUNK : k;
      int32_t s = 0;
      for (int64_t p = p0; p < pe; p++)
        s += (int32_t) x[p] * (int32_t) y[p];
      acc = (acc + s % m) % m;
    }
  return (int) (acc < 0 ? acc + m : acc);
}

typedef struct {
  const double *x;
  int64_t k;
  const int *e;
  int bits, m;
  int8_t *r;
} residues_job;

static void residues_of (void *ctx, int64_t first, int64_t last)
{
  const residues_job *j = (const residues_job *) ctx;
  const int64_t k = j->k;
  for (int64_t i = first; i < last; i++)
    for (int64_t p = 0; p < k; p++)
      {
        const size_t at = (size_t) i * (size_t) k + (size_t) p;
        const int64_t scaled = j->e[i] == TILEMM_EMU_ZERO_ROW
                                 ? 0
                                 : (int64_t) trunc (ldexp (j->x[at], j->bits - j->e[i]));
        j->r[at] = tilemm_emu_residue (scaled, j->m);
      }
}

/* Steps 4–5 for `count` K-major rows: residues modulo m of trunc (x·2^(bits − e)). */
static void row_residues (int threads, const double *x, int64_t count, int64_t k, const int *e,
                          int bits, int m, int8_t *r)
{
  residues_job j = { x, k, e, bits, m, r };
  emu_for (threads, TILEMM_EMU_LOOP_RESIDUES, count, 0, k, 0, residues_of, &j);
}

/* Part `part` (0 real, 1 imaginary) of C(i, j) := v (rounded to single already when single). */
static void store_part (const tilemm_view *c, int64_t i, int64_t j, int part, int complex_type,
                        int single, double v)
{
  const size_t at = (size_t) i + (size_t) j * (size_t) c->stride;
  const size_t to = complex_type ? 2 * at + (size_t) part : at;
  if (single)
    ((float *) c->data)[to] = (float) v;
  else
    ((double *) c->data)[to] = v;
}

/* Step 6 for one modulus (column after column: res's residue l of every pair), or step 7 (l < 0:
 * every pair's value from its residues, into C's part `part`). */
typedef struct {
  const emu_problem *p;
  const tilemm_emu_plan *plan;
  const int *ea, *eb;
  const int8_t *ra, *rb;
  uint8_t *res;
  int nmod, l, ml;
  int single, complex_type, part;
  const tilemm_view *c;
} pairs_job;

static void residue_dots (void *ctx, int64_t first, int64_t last)
{
  const pairs_job *q = (const pairs_job *) ctx;
  const emu_problem *p = q->p;
  for (int64_t j = first; j < last; j++)
    for (int64_t i = 0; i < p->m; i++)
      q->res[((size_t) i + (size_t) j * (size_t) p->m) * (size_t) q->nmod + (size_t) q->l]
        = (uint8_t) residue_dot (q->ra + (size_t) i * (size_t) p->k,
                                 q->rb + (size_t) j * (size_t) p->k, p->k, q->ml);
}

static void pair_values (void *ctx, int64_t first, int64_t last)
{
  const pairs_job *q = (const pairs_job *) ctx;
  const emu_problem *p = q->p;
  const int nmod = q->nmod;
  for (int64_t j = first; j < last; j++)
    for (int64_t i = 0; i < p->m; i++)
      {
        double v = 0.0;
        if (q->ea[i] != TILEMM_EMU_ZERO_ROW && q->eb[j] != TILEMM_EMU_ZERO_ROW)
          {
            const uint8_t *r = q->res + ((size_t) i + (size_t) j * (size_t) p->m) * (size_t) nmod;
            const int e = q->ea[i] + q->eb[j] - q->plan->pa - q->plan->pb;
            v = q->single ? tilemm_emu_crt_single (r, nmod, e) : tilemm_emu_crt_double (r, nmod, e);
          }
        store_part (q->c, i, j, q->part, q->complex_type, q->single, v);
      }
}

/* Steps 4–7 for one real problem: the part `part` of C (interleaved when complex). */
static tilemm_status problem_run (const tilemm_emu_plan *plan, const emu_problem *p, int single,
                                  int complex_type, int part, const tilemm_view *c,
                                  const tilemm_stop *stop, tilemm_error *err)
{
  const int nmod = plan->moduli;
  const size_t ak = (size_t) p->m * (size_t) p->k, bk = (size_t) p->n * (size_t) p->k;
  const size_t mn = (size_t) p->m * (size_t) p->n;
  int *ea = malloc (sizeof (int) * (size_t) (p->m + 1)), *eb = malloc (sizeof (int) * (size_t) (p->n + 1));
  int8_t *ra = malloc (ak + 1), *rb = malloc (bk + 1);
  uint8_t *res = mn <= SIZE_MAX / (size_t) nmod ? malloc (mn * (size_t) nmod + 1) : NULL;
  tilemm_status status = TILEMM_OK;
  if (!ea || !eb || !ra || !rb || !res)
    status = tilemm_error_set (err, TILEMM_ENOMEM, "emulated precision: %s",
                               tilemm_strerror (TILEMM_ENOMEM));
  else
    {
      row_exponents (p->threads, p->a, p->m, p->k, ea);
      row_exponents (p->threads, p->b, p->n, p->k, eb);
      pairs_job q = { p, plan, ea, eb, ra, rb, res, nmod, 0, 0, single, complex_type, part, c };
      for (int l = 0; l < nmod && status == TILEMM_OK; l++)
        {
          if (tilemm_stop_requested (stop))
            {
              status = tilemm_error_set (err, TILEMM_EINTERRUPTED,
                                         "interrupted at modulus %d of %d", l + 1, nmod);
              break;
            }
          const int ml = tilemm_emu_moduli[l];
          row_residues (p->threads, p->a, p->m, p->k, ea, plan->pa, ml, ra);
          row_residues (p->threads, p->b, p->n, p->k, eb, plan->pb, ml, rb);
          q.l = l;
          q.ml = ml;
          emu_for (p->threads, TILEMM_EMU_LOOP_DOTS, p->n, p->m, p->k, 0, residue_dots, &q);
        }
      if (status == TILEMM_OK)
        emu_for (p->threads, TILEMM_EMU_LOOP_PAIRS, p->n, p->m, 0, nmod, pair_values, &q);
    }
  free (ea);
  free (eb);
  free (ra);
  free (rb);
  free (res);
  return status;
}

/* ---------------------------------------------------------------- entry points */

/* Views of one type forming C = op_a(A)·op_b(B) (c may be NULL). */
static tilemm_status check_views (tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                  const tilemm_view *b, const tilemm_view *c, tilemm_error *err)
{
  tilemm_status s;
  if ((s = tilemm_view_check (a)) != TILEMM_OK || (s = tilemm_view_check (b)) != TILEMM_OK
      || (c && (s = tilemm_view_check (c)) != TILEMM_OK))
    return tilemm_error_set (err, s, "emulated precision: %s", tilemm_strerror (s));
  if ((int) op_a < 0 || op_a >= TILEMM_NOPS || (int) op_b < 0 || op_b >= TILEMM_NOPS)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated precision: %s",
                             tilemm_strerror (TILEMM_EINVAL));
  if (a->type != b->type || (c && c->type != a->type))
    return tilemm_error_set (err, TILEMM_ETYPE, "emulated precision: %s",
                             tilemm_strerror (TILEMM_ETYPE));
  const int64_t m = tilemm_op_rows (op_a, a), n = tilemm_op_cols (op_b, b);
  if (tilemm_op_cols (op_a, a) != tilemm_op_rows (op_b, b)
      || (c && (c->rows != m || c->cols != n)))
    return tilemm_error_set (err, TILEMM_ESHAPE, "emulated precision: %s",
                             tilemm_strerror (TILEMM_ESHAPE));
  return TILEMM_OK;
}

static tilemm_status stats_of (const emu_problems *ps, int with_ratios, tilemm_emu_stats *st,
                               tilemm_error *err)
{
  memset (st, 0, sizeof *st);
  for (int q = 0; q < ps->count; q++)
    {
      tilemm_emu_stats one;
      const tilemm_status s = problem_stats (&ps->p[q], with_ratios, &one, err);
      if (s != TILEMM_OK)
        return s;
      tilemm_emu_stats_merge (st, &one);
    }
  return TILEMM_OK;
}

tilemm_status tilemm_emu_stats_cpu (const tilemm_view *a, const tilemm_view *b,
                                    tilemm_emu_stats *st, tilemm_error *err)
{
  return tilemm_emu_stats_cpu_op (TILEMM_OP_NONE, a, TILEMM_OP_NONE, b, st, err);
}

tilemm_status tilemm_emu_stats_cpu_op (tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                       const tilemm_view *b, tilemm_emu_stats *st,
                                       tilemm_error *err)
{
  /* No plan: everything the statistics can say, on the caller's thread. */
  return tilemm_emu_stats_cpu_planned (1, 1, op_a, a, op_b, b, st, err);
}

tilemm_status tilemm_emu_stats_cpu_planned (int threads, int with_ratios, tilemm_op op_a,
                                            const tilemm_view *a, tilemm_op op_b,
                                            const tilemm_view *b, tilemm_emu_stats *st,
                                            tilemm_error *err)
{
  tilemm_status s = check_views (op_a, a, op_b, b, NULL, err);
  if (s != TILEMM_OK)
    return s;
  emu_problems ps;
  if ((s = problems_make (threads, op_a, a, op_b, b, &ps, err)) != TILEMM_OK)
    return s;
  s = stats_of (&ps, with_ratios, st, err);
  problems_free (&ps);
  return s == TILEMM_OK ? tilemm_error_set (err, TILEMM_OK, NULL) : s;
}

static tilemm_status run_problems (const tilemm_emu_plan *plan, const emu_problems *ps,
                                   const tilemm_view *c, const tilemm_stop *stop,
                                   tilemm_error *err)
{
  for (int q = 0; q < ps->count; q++)
    {
      const tilemm_status s = problem_run (plan, &ps->p[q], ps->single, ps->complex_type, q, c,
                                           stop, err);
      if (s != TILEMM_OK)
        return s;
    }
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

static int plan_runnable (const tilemm_emu_plan *plan)
{
  return plan->verdict == TILEMM_EMU_OK && plan->moduli >= 1
         && plan->moduli <= TILEMM_EMU_MAX_MODULI && plan->pa >= 0
         && plan->pa <= TILEMM_EMU_PMAX && plan->pb >= 0 && plan->pb <= TILEMM_EMU_PMAX;
}

tilemm_status tilemm_emu_run_cpu (const tilemm_emu_plan *plan, const tilemm_view *a,
                                  const tilemm_view *b, const tilemm_view *c, tilemm_error *err)
{
  return tilemm_emu_run_cpu_op (plan, TILEMM_OP_NONE, a, TILEMM_OP_NONE, b, c, err);
}

tilemm_status tilemm_emu_run_cpu_op (const tilemm_emu_plan *plan, tilemm_op op_a,
                                     const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                     const tilemm_view *c, tilemm_error *err)
{
  tilemm_status s = check_views (op_a, a, op_b, b, c, err);
  if (s != TILEMM_OK)
    return s;
  if (!plan_runnable (plan))
    return tilemm_error_set (err, TILEMM_EINVAL,
                             "emulated precision: the plan (verdict %d, %d moduli, pa %d, pb %d) "
                             "cannot run",
                             (int) plan->verdict, plan->moduli, plan->pa, plan->pb);
  if (c->rows == 0 || c->cols == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  emu_problems ps;
  if ((s = problems_make (plan->threads, op_a, a, op_b, b, &ps, err)) != TILEMM_OK)
    return s;
  s = run_problems (plan, &ps, c, NULL, err);
  problems_free (&ps);
  return s;
}

tilemm_status tilemm_cpu_multiply_emulated (const tilemm_plan *plan,
                                            const tilemm_emu_options *options,
                                            const tilemm_emu_branches *branches,
                                            tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                            const tilemm_view *b, const tilemm_view *c,
                                            const tilemm_stop *stop, tilemm_emu_plan *used,
                                            tilemm_error *err)
{
  tilemm_emu_plan local;
  if (!used)
    used = &local;
  memset (used, 0, sizeof *used);
  if (!branches)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated precision: no planned branches");
  tilemm_status s = check_views (op_a, a, op_b, b, c, err);
  if (s != TILEMM_OK)
    return s;
  if (a->type != plan->type)
    return tilemm_error_set (err, TILEMM_ETYPE, "emulated precision: %s",
                             tilemm_strerror (TILEMM_ETYPE));
  if (c->rows == 0 || c->cols == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  emu_problems ps;
  if ((s = problems_make (branches->threads, op_a, a, op_b, b, &ps, err)) == TILEMM_OK)
    {
      tilemm_emu_stats st;
      /* The GPU skips S where the branches do not need it; so does the CPU (same plan either
       * way: the selection reads no ratio then). */
      (void) options;
      if ((s = stats_of (&ps, branches->needs_ratios, &st, err)) == TILEMM_OK)
        {
          tilemm_emu_select (branches, &st, used);
          s = used->verdict == TILEMM_EMU_OK ? run_problems (used, &ps, c, stop, err)
                                             : tilemm_error_set (err, TILEMM_OK, NULL);
        }
      problems_free (&ps);
    }
  return s;
}

/* ---------------------------------------------------------------- pairs the plan cannot carry */

/* Marks in exact[i + j·m] the pairs of one real problem that no plan within TILEMM_EMU_PMAX
 * carries and merges the ratios of the others, and its maxima, into *st (pair_ratios).  Without
 * with_ratios (the native rule of step 3': its p does not depend on the pair, so every pair is
 * carried) only the maxima. */
static tilemm_status mark_uncarried (const emu_problem *p, int with_ratios, int carried,
                                     uint8_t *exact, tilemm_emu_stats *st, tilemm_error *err)
{
  emu_quant q;
  const tilemm_status status = quant_make (p, &q, err);
  if (status != TILEMM_OK)
    return status;
  quant_maxima (p, &q, st);
  if (with_ratios)
    pair_ratios (p, &q, carried, exact, &st->ratio_a, &st->ratio_b);
  quant_free (&q);
  return TILEMM_OK;
}

typedef struct {
  const emu_problems *ps;
  const uint8_t *exact;
  const tilemm_view *c;
} exact_job;

static void exact_columns (void *ctx, int64_t first, int64_t last)
{
  const exact_job *x = (const exact_job *) ctx;
  const emu_problems *ps = x->ps;
  const uint8_t *exact = x->exact;
  const tilemm_view *c = x->c;
  const int64_t m = ps->p[0].m, k = ps->p[0].k;
  for (int64_t j = first; j < last; j++)
    for (int64_t i = 0; i < m; i++)
      {
        if (!exact[(size_t) i + (size_t) j * (size_t) m])
          continue;
        for (int q = 0; q < ps->count; q++)
          {
            const emu_problem *p = &ps->p[q];
            const double v = tilemm_exact_dot (p->a + (size_t) i * (size_t) k, 1,
                                               p->b + (size_t) j * (size_t) k, 1, k, ps->single);
            store_part (c, i, j, q, ps->complex_type, ps->single, v);
          }
      }
}

/* Writes the marked entries of C, each part the exact dot product of its real problem rounded
 * once: column after column on the pool (the marked entries' work, counted as whole columns). */
static void run_exact (const emu_problems *ps, const uint8_t *exact, const tilemm_view *c)
{
  exact_job x = { ps, exact, c };
  emu_for (ps->p[0].threads, TILEMM_EMU_LOOP_EXACT, ps->p[0].n, ps->p[0].m, ps->p[0].k, 0,
           exact_columns, &x);
}

tilemm_status tilemm_emu_multiply_split_cpu (const tilemm_emu_options *options,
                                             const tilemm_emu_branches *branches,
                                             tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                             const tilemm_view *b, const tilemm_view *c,
                                             const tilemm_stop *stop, tilemm_emu_plan *used,
                                             int64_t *exact_entries, tilemm_error *err)
{
  memset (used, 0, sizeof *used);
  *exact_entries = 0;
  if (!branches)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated precision: no planned branches");
  tilemm_status s = check_views (op_a, a, op_b, b, c, err);
  if (s != TILEMM_OK)
    return s;
  if (c->rows == 0 || c->cols == 0)
    return tilemm_error_set (err, TILEMM_OK, NULL);
  emu_problems ps;
  if ((s = problems_make (branches->threads, op_a, a, op_b, b, &ps, err)) != TILEMM_OK)
    return s;
  const size_t mn = (size_t) c->rows * (size_t) c->cols;
  uint8_t *exact = calloc (mn, 1);
  if (!exact)
    {
      problems_free (&ps);
      return tilemm_error_set (err, TILEMM_ENOMEM, "emulated precision: %s",
                               tilemm_strerror (TILEMM_ENOMEM));
    }
  tilemm_emu_stats st;
  memset (&st, 0, sizeof st);
  st.inner = ps.p[0].k;
  (void) options;
  for (int q = 0; q < ps.count && s == TILEMM_OK; q++)
    s = mark_uncarried (&ps.p[q], branches->needs_ratios, branches->carried_ratio_bits, exact,
                        &st, err);
  if (s == TILEMM_OK)
    {
      tilemm_emu_select (branches, &st, used);
      if (used->verdict == TILEMM_EMU_OK)
        s = run_problems (used, &ps, c, stop, err);
      else
        memset (exact, 1, mn);   /* no plan carries even the others: every entry exactly */
    }
  if (s == TILEMM_OK && tilemm_stop_requested (stop))
    s = tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted before the exact entries");
  if (s == TILEMM_OK)
    {
      for (size_t e = 0; e < mn; e++)
        *exact_entries += exact[e];
      run_exact (&ps, exact, c);
      s = tilemm_error_set (err, TILEMM_OK, NULL);
    }
  free (exact);
  problems_free (&ps);
  return s;
}

