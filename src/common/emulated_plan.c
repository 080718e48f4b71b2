/* emulated_plan.c — the emulated precision's (Ozaki scheme II, emulated.h) tables and plan:
 * the moduli and Garner's constants, the options, the statistics' merge, and the rule that
 * decides the moduli and bit widths from them, made into branches with the call's plan
 * (tilemm_emu_branches_make) among which the statistics select (tilemm_emu_select).  Every
 * backend runs the plan selected here.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emulated.h"
#include "team_size.h"


/* 256 = 2^8, 255 = 3·5·17, 253 = 11·23, 247 = 13·19, 217 = 7·31, the others prime. */
const int tilemm_emu_moduli[TILEMM_EMU_MAX_MODULI] = {
  256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217,
  211, 199, 197, 193, 191, 181, 179, 173, 167, 163, 157, 151 };

/* (m_0·…·m_{t−1})^-1 mod m_t, computed once offline (tests/test_emulated.c checks each). */
const int tilemm_emu_garner[TILEMM_EMU_MAX_MODULI] = {
  1, 1, 211, 182, 246, 184, 41, 115, 161, 54, 163, 149,
  46, 142, 91, 116, 149, 164, 37, 94, 144, 28, 41, 39 };


/* ---------------------------------------------------------------- options and plan */

void tilemm_emu_default_options (tilemm_emu_options *options, tilemm_type type)
{
  options->moduli = 0;
  options->target_bits = type == TILEMM_SINGLE || type == TILEMM_COMPLEX_SINGLE ? 24 : 53;
  options->guard_bits = 1;
  options->max_moduli = TILEMM_EMU_DEFAULT_MAX_MODULI;
  options->rule = TILEMM_EMU_RULE_CERTIFIED;
}

int tilemm_emu_needs_ratios (const tilemm_emu_options *options)
{
  return options->moduli <= 0
         && (options->rule == TILEMM_EMU_RULE_CERTIFIED
             || options->rule == TILEMM_EMU_RULE_ELEMENTWISE);
}

void tilemm_emu_stats_merge (tilemm_emu_stats *into, const tilemm_emu_stats *from)
{
  into->nonfinite = into->nonfinite || from->nonfinite;
  if (from->inner > into->inner)
    into->inner = from->inner;
  if (from->max_qa > into->max_qa)
    into->max_qa = from->max_qa;
  if (from->max_qb > into->max_qb)
    into->max_qb = from->max_qb;
  if (from->ratio_a > into->ratio_a)
    into->ratio_a = from->ratio_a;
  if (from->ratio_b > into->ratio_b)
    into->ratio_b = from->ratio_b;
}

double tilemm_emu_log2_product (int moduli)
{
  double sum = 0.0;
  for (int l = 0; l < moduli && l < TILEMM_EMU_MAX_MODULI; l++)
    sum += log2 ((double) tilemm_emu_moduli[l]);
  return sum;
}

/* ceil (log2 x) for x >= 1, exactly (frexp, not a rounded logarithm). */
static int ceil_log2 (double x)
{
  int e;
  const double f = frexp (x, &e);
  return f == 0.5 ? e - 1 : e;
}

int tilemm_emu_ratio_bits (double ratio)
{
  return ratio > 1.0 ? ceil_log2 (ratio) : 0;
}

/* Margin against the rounding of the logarithms in the comparison log2 M > needed. */
#define EMU_LOG2_SLACK 1e-9

/* Step 3's shared budget (emulated.h): the sixteenths' tops and the drop table.
 *
 * The truncation error of entry (i, j), in units of 2^(e_a[i] + e_b[j]), is below
 * 2^-pb·Σ_p â_ip + 2^-pa·Σ_p b̂_pj ≤ (rb·2^-pb + ra·2^-pa)·Σ_p â_ip·b̂_pj (ra ≥ Σ b̂ / Σ â·b̂, rb
 * ≥ Σ â / Σ â·b̂: step 2), and the guarantee needs (1 + u)·(ra·2^-pa + rb·2^-pb) ≤ 2^-(t+g) (the
 * final rounding adds u·|y| ≤ u·|C| + u·|y − C|).  The even split gives each term half:
 * pa = t + g + 1 + c_a (c = ceil log2 r).  With r ≤ 2^(c−1+s/16), letting pa go one bit lower
 * leaves ra·2^-pa + rb·2^-pb ≤ 2^-(t+g)·(2^(s_a/16 − 1) + 2^(s_b/16 − 2)), so pa may drop where
 * that sum is at most 1/(1 + u); pb likewise with the roles swapped (pa first where both may: a
 * fixed choice, every backend the same).  Both never drop together: each term alone is above a
 * quarter.  The margin 2^-40 covers 1/(1 + u) ≥ 1 − 2^-53 and the rounding of exp2.  One bit less
 * of pa + pb is one bit less that the moduli must carry: a modulus less where the even split's
 * need sat within a bit above a modulus's capacity. */
#define EMU_BUDGET_MARGIN 0x1p-40

static void shared_budget_make (tilemm_emu_branches *b)
{
  const int f = TILEMM_EMU_FRACTIONS;
  for (int s = 1; s < f; s++)
    /* rounded down twice: at most 2^(s/16) whatever exp2's last bit */
    b->fraction_top[s] = nextafter (nextafter (exp2 ((double) s / f), 0.0), 0.0);
  b->fraction_top[f] = 2.0;
  for (int sa = 1; sa <= f; sa++)
    for (int sb = 1; sb <= f; sb++)
      {
        const double ta = exp2 ((double) sa / f), tb = exp2 ((double) sb / f);
        unsigned char d = 0;
        if (ta / 2 + tb / 4 <= 1.0 - EMU_BUDGET_MARGIN)
          d = 1;
        else if (ta / 4 + tb / 2 <= 1.0 - EMU_BUDGET_MARGIN)
          d = 2;
        b->drop[sa - 1][sb - 1] = d;
      }
}

/* The sixteenth of a ratio of class c (see shared_budget_make): the least s with
 * r ≤ 2^(c−1+s/16); TILEMM_EMU_FRACTIONS for class 0 (r ≤ 1 = 2^(0−1+16/16)). */
static int fraction_of (const tilemm_emu_branches *b, double ratio, int c)
{
  if (c <= 0)
    return TILEMM_EMU_FRACTIONS;
  const double m = ldexp (ratio, 1 - c);   /* in (1, 2], exact */
  for (int s = 1; s < TILEMM_EMU_FRACTIONS; s++)
    if (m <= b->fraction_top[s])
      return s;
  return TILEMM_EMU_FRACTIONS;
}

void tilemm_emu_branches_make (const tilemm_emu_options *options, tilemm_emu_branches *b)
{
  memset (b, 0, sizeof *b);
  b->needs_ratios = tilemm_emu_needs_ratios (options);
  for (int n = 0; n <= TILEMM_EMU_MAX_MODULI; n++)
    b->capacity[n] = tilemm_emu_log2_product (n);
  b->most_moduli = options->max_moduli < TILEMM_EMU_MAX_MODULI ? options->max_moduli
                                                               : TILEMM_EMU_MAX_MODULI;
  b->carried_ratio_bits = TILEMM_EMU_PMAX - (options->target_bits + 1 + options->guard_bits);
  if (options->moduli > 0)
    {
      b->by = TILEMM_EMU_WIDTHS_BY_MODULI;
      b->moduli = options->moduli > TILEMM_EMU_MAX_MODULI ? TILEMM_EMU_MAX_MODULI
                                                          : options->moduli;
      return;
    }
  if (options->rule == TILEMM_EMU_RULE_NATIVE)
    {
      /* Step 3': p = t + g + 2 − h, at least 1, for every h an inner dimension can have. */
      b->by = TILEMM_EMU_WIDTHS_BY_INNER;
      for (int h = 0; h < TILEMM_EMU_WIDTH_CLASSES; h++)
        {
          const int p = options->target_bits + options->guard_bits + 2 - h;
          b->widths[h] = p < 1 ? 1 : p;
        }
      return;
    }
  /* Step 3: pa = t + 1 + g + ceil (log2 ratio_a); a ratio of more bits than the classes is
   * beyond TILEMM_EMU_PMAX for any target (a width class above it says RANGE).  Step 3'': the
   * same, less the inner dimension's bits at selection (less_inner_bits). */
  b->by = TILEMM_EMU_WIDTHS_BY_RATIO;
  b->less_inner_bits = options->rule == TILEMM_EMU_RULE_ELEMENTWISE;
  const int base = options->target_bits + 1 + options->guard_bits;
  for (int c = 0; c < TILEMM_EMU_WIDTH_CLASSES; c++)
    b->widths[c] = base + c;
  shared_budget_make (b);
}

/* The width of a class; beyond the table (a ratio of more bits than any width carries: always
 * above TILEMM_EMU_PMAX, so RANGE) the last class's width one bit more a class, so that even a
 * plan of verdict RANGE holds the widths the rule gives. */
static int width_of (const tilemm_emu_branches *b, int cls)
{
  const int last = TILEMM_EMU_WIDTH_CLASSES - 1;
  return cls <= last ? b->widths[cls < 0 ? 0 : cls] : b->widths[last] + (cls - last);
}

/* Step 3'''s bits: s, the largest integer with 2^s ≤ inner − 1 (0 for an inner dimension of 1
 * or 2; an exact integer of k, so every backend gets the same widths from the same k). */
static int inner_bits (int64_t inner)
{
  int s = 0;
  while (s < 62 && ((int64_t) 2 << s) <= inner - 1)
    s++;
  return s;
}

/* Step 3''s class of an inner dimension: h, the largest integer with 4^h ≤ inner (2^h ≤ √inner;
 * an exact integer of k, so every backend gets the same class from the same k). */
static int inner_class (int64_t inner)
{
  int h = 0;
  while (h < 31 && ((int64_t) 1 << (2 * h + 2)) <= inner)
    h++;
  return h;
}

/* Step 3'': the moduli the bound needs carry more bits than its widths use; the widths take
 * them (pb first, then pa, a bit at a time, none above TILEMM_EMU_PMAX), so the same moduli give
 * a smaller error at no cost.  Wider widths only shrink the truncation, and M still exceeds what
 * the integer product needs: the bound holds. */
static void fill_capacity (tilemm_emu_plan *plan, double log2_nu)
{
  while (plan->log2_product > plan->log2_needed + 1.0 + EMU_LOG2_SLACK)
    {
      if (plan->pb <= plan->pa && plan->pb < TILEMM_EMU_PMAX)
        plan->pb++;
      else if (plan->pa < TILEMM_EMU_PMAX)
        plan->pa++;
      else if (plan->pb < TILEMM_EMU_PMAX)
        plan->pb++;
      else
        return;
      plan->log2_needed = 1.0 + plan->pa + plan->pb + log2_nu;
    }
}

void tilemm_emu_select (const tilemm_emu_branches *b, const tilemm_emu_stats *stats,
                        tilemm_emu_plan *plan)
{
  memset (plan, 0, sizeof *plan);
  plan->threads = b->threads;
  if (stats->nonfinite)
    {
      plan->verdict = TILEMM_EMU_NONFINITE;
      return;
    }
  plan->verdict = TILEMM_EMU_OK;
  if (stats->max_qa == 0 || stats->max_qb == 0)
    {
      /* A or B is all zeros: C is +0 whatever the plan; the cheapest one. */
      plan->moduli = 1;
      plan->pa = plan->pb = 1;
      plan->log2_product = b->capacity[1];
      return;
    }
  /* log2 νa + log2 νb, νa² = max_qa / Q². */
  const double log2_nu = 0.5 * log2 ((double) stats->max_qa) + 0.5 * log2 ((double) stats->max_qb)
                         - 2.0 * log2 ((double) TILEMM_EMU_Q);
  if (b->by == TILEMM_EMU_WIDTHS_BY_MODULI)
    {
      const double log2_m = b->capacity[b->moduli];
      int p = (int) floor ((log2_m - EMU_LOG2_SLACK - 1.0 - log2_nu) / 2.0);
      if (p > TILEMM_EMU_PMAX)
        p = TILEMM_EMU_PMAX;
      plan->moduli = b->moduli;
      plan->pa = plan->pb = p;
      plan->log2_product = log2_m;
      plan->log2_needed = 1.0 + 2.0 * p + log2_nu;
      if (p < 1)
        plan->verdict = TILEMM_EMU_RANGE;
      return;
    }
  if (b->by == TILEMM_EMU_WIDTHS_BY_INNER)
    /* Step 3': from k alone (the ratios are not computed, and not read). */
    plan->pa = plan->pb = width_of (b, inner_class (stats->inner));
  else
    {
      if (!isfinite (stats->ratio_a) || !isfinite (stats->ratio_b))
        {
          plan->verdict = TILEMM_EMU_RANGE;
          return;
        }
      const int ca = tilemm_emu_ratio_bits (stats->ratio_a);
      const int cb = tilemm_emu_ratio_bits (stats->ratio_b);
      plan->pa = width_of (b, ca);
      plan->pb = width_of (b, cb);
      const int drop = b->drop[fraction_of (b, stats->ratio_a, ca) - 1]
                              [fraction_of (b, stats->ratio_b, cb) - 1];
      if (drop == 1)
        plan->pa--;
      else if (drop == 2)
        plan->pb--;
      if (b->less_inner_bits)
        {
          const int s = inner_bits (stats->inner);
          plan->pa = plan->pa - s > 1 ? plan->pa - s : 1;
          plan->pb = plan->pb - s > 1 ? plan->pb - s : 1;
        }
    }
  if (plan->pa > TILEMM_EMU_PMAX || plan->pb > TILEMM_EMU_PMAX)
    {
      plan->verdict = TILEMM_EMU_RANGE;
      return;
    }
  plan->log2_needed = 1.0 + plan->pa + plan->pb + log2_nu;
  for (int n = 1; n <= b->most_moduli; n++)
    if (b->capacity[n] > plan->log2_needed + EMU_LOG2_SLACK)
      {
        plan->moduli = n;
        plan->log2_product = b->capacity[n];
        if (b->less_inner_bits)
          fill_capacity (plan, log2_nu);
        return;
      }
  plan->verdict = TILEMM_EMU_RANGE;
}

void tilemm_emu_decide (const tilemm_emu_options *options, const tilemm_emu_stats *stats,
                        tilemm_emu_plan *plan)
{
  tilemm_emu_branches branches;
  tilemm_emu_branches_make (options, &branches);
  tilemm_emu_select (&branches, stats, plan);
}

int tilemm_emu_typical_moduli (const tilemm_emu_options *options, int64_t inner)
{
  const double q2 = (double) TILEMM_EMU_Q * (double) TILEMM_EMU_Q;
  tilemm_emu_stats typical;
  memset (&typical, 0, sizeof typical);
  typical.inner = inner > 0 ? inner : 1;
  typical.max_qa = typical.max_qb = (int64_t) ceil (q2 * (double) typical.inner / 3.0);
  typical.ratio_a = typical.ratio_b = 2.1;
  tilemm_emu_plan plan;
  tilemm_emu_decide (options, &typical, &plan);
  return plan.verdict == TILEMM_EMU_OK ? plan.moduli : 0;
}

/* ---------------------------------------------------------------- the CPU scheme's loops */

/* Inner steps of one item of `loop` (emulated.h, tilemm_emu_loop). */
static double loop_steps (tilemm_emu_loop loop, int64_t m, int64_t k, int moduli)
{
  const double dm = (double) m, dk = (double) k;
  switch (loop)
    {
    case TILEMM_EMU_LOOP_GATHER:
    case TILEMM_EMU_LOOP_EXPONENTS:
      return dk;
    case TILEMM_EMU_LOOP_QUANTIZE:
      return 4.0 * dk;
    case TILEMM_EMU_LOOP_RATIOS:
    case TILEMM_EMU_LOOP_DOTS:
      return dm * dk;
    case TILEMM_EMU_LOOP_RESIDUES:
      return 8.0 * dk;
    case TILEMM_EMU_LOOP_PAIRS:
      return dm * 16.0 * (double) moduli;
    case TILEMM_EMU_LOOP_EXACT:
      return dm * dk * 8.0;
    default:   /* TILEMM_EMU_LOOP_NONFINITE */
      return 1.0;
    }
}

tilemm_emu_loop_cut tilemm_emu_loop_plan (int threads, tilemm_emu_loop loop, int64_t items,
                                          int64_t m, int64_t k, int moduli)
{
  tilemm_emu_loop_cut cut = { 1, 1 };
  if (items <= 0)
    return cut;
  const double steps = loop_steps (loop, m, k, moduli);
  const double work_s = (double) items * (steps > 1 ? steps : 1) * TILEMM_EMU_STEP_S;
  cut.team = tilemm_team_size (threads, items, work_s);
  cut.per = items;
  if (cut.team > 1)
    {
      cut.per = items / (TILEMM_EMU_CHUNKS_PER_THREAD * (int64_t) cut.team);
      cut.per = cut.per > 0 ? cut.per : 1;
    }
  return cut;
}
