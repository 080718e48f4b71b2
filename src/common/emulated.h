/* emulated.h — products of double (or single) accuracy from exact int8 products: Ozaki scheme II
 * (Ozaki, Uchino, Imamura, arXiv 2504.08009 and 2508.03984), the "emulated" precision of tilemm.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * This header is the contract between the plan (plain C, src/common/emulated_plan.c), the CPU
 * backend's implementation (src/cpu/emulated_cpu.c) and the CUDA backend's
 * (src/cuda/emulated_scheme.cu on src/kernels/emulated_cuda.cu's kernels): every number the
 * plan is decided from is an exact integer (or a correctly rounded quotient of two), so the CPU
 * and the GPU decide the same plan from the same data and, since the int8 products are exact and
 * the result is rounded once, produce bitwise the same C.  The tests hold them to that.
 *
 * The scheme, for a real product C = A·B (A m×k, B k×n; complex: see the end):
 *  1. Exponents: e_a[i] is the smallest e with max_p |a_ip| < 2^e (frexp of the row's largest
 *     magnitude); a row of zeros gets TILEMM_EMU_ZERO_ROW.  e_b[j] likewise per column of B.
 *     Normalized magnitudes â_ip = |a_ip|·2^-e_a[i] and b̂_pj = |b_pj|·2^-e_b[j] lie in [0, 1).
 *  2. Statistics (exact integers; Q = TILEMM_EMU_Q = 127):
 *       lo(x) = floor(Q·x) in [0, Q-1],  hi(x) = ceil(Q·x) in [0, Q]
 *       S_ij   = Σ_p lo(â_ip)·lo(b̂_pj)     (one int8 product: a lower bound of Q²·Σ â b̂)
 *       sa_i   = Σ_p hi(â_ip),  sb_j = Σ_p hi(b̂_pj)             (upper bounds of Q·Σ â, Q·Σ b̂)
 *       qa_i   = Σ_p hi(â_ip)², qb_j = Σ_p hi(b̂_pj)²            (upper bounds of Q²·‖â_i‖²)
 *     ratio_a = max over nonzero rows i and nonzero columns j of Q·sb_j / S_ij (+Inf where
 *     S_ij = 0), ratio_b = max of Q·sa_i / S_ij; each quotient is one correctly rounded double
 *     division, so its value does not depend on where it was computed.
 *  3. Plan (tilemm_emu_decide): bit widths pa = t + 1 + g + ceil(log2 ratio_a), pb likewise
 *     (t = target bits, g = guard bits), then the fewest moduli N whose product M satisfies
 *     log2 M > 1 + pa + pb + log2 νa + log2 νb (νa² = max_i qa_i / Q², νb likewise).  With
 *     that, |C_emulated − C| ≤ u|C| + 2^-(t+g)·(|A||B|) componentwise — for t = 53, g = 1 never
 *     worse than the native product's bound γ_k·|A||B|.
     Why (the bound the count rests on): in units of 2^(e_a[i] + e_b[j]), with α = â·2^pa,
     a' = trunc(α) (|α − a'| < 1, |a'| ≤ |α|), β and b' likewise, the exact integer
     X_ij = Σ_p a'_ip·b'_pj has |X_ij| ≤ Σ_p |α||β| = 2^(pa+pb)·Σ_p â_ip·b̂_pj
     ≤ 2^(pa+pb)·‖â_i‖₂‖b̂_j‖₂ ≤ 2^(pa+pb)·νa·νb (Cauchy–Schwarz; hi ≥ Q·x̂), so log2 M above
     1 + pa + pb + log2 νa + log2 νb gives |X_ij| < M/2 and the CRT's symmetric X is X_ij: no
     wrap-around, the count the fewest moduli whose M does that.  The truncation costs
     |Σ αβ − X_ij| < Σ_p (|α_p| + |β_p|), i.e. |y − C_ij| < 2^(e_a+e_b)·(2^-pb·Σ â + 2^-pa·Σ b̂)
     ≤ (rb·2^-pb + ra·2^-pa)·(|A||B|)_ij (step 2: ra ≥ Σ b̂ / Σ â·b̂, rb ≥ Σ â / Σ â·b̂), and the
     final rounding |fl(y) − y| ≤ u|y| ≤ u|C_ij| + u|y − C_ij|: the guarantee holds wherever
     (1 + u)·(ra·2^-pa + rb·2^-pb) ≤ 2^-(t+g).  The even split (each term half of it) is the
     widths above; the shared budget lets one of them go a bit lower where the other term leaves
     room: with r ≤ 2^(c−1+s/16) (c = ceil log2 r, s its sixteenth), pa − 1 keeps the sum within
     2^-(t+g)·(2^(s_a/16 − 1) + 2^(s_b/16 − 2)), allowed where that is ≤ 1 − 2^-40
     (tilemm_emu_branches.drop; pb likewise, pa first).  One bit less of pa + pb is one bit less
     for the moduli: uniform [0, 1) data at k = 4096 (ratios near 2.1) need 16 moduli instead of
     17; at k = 16384 the need (about 126.5 bits) stays above 16 moduli's 125.4.
     pa or pb above TILEMM_EMU_PMAX, or N
 *     above max_moduli, is TILEMM_EMU_RANGE: the caller then runs
 *     tilemm_emu_multiply_split_cpu, which carries what it can and computes the rest exactly.
 *     Any NaN or Inf in A or B is TILEMM_EMU_NONFINITE: the caller computes the rows of A and
 *     columns of B holding them natively (their entries are NaN or Inf, exactly as `*` gives
 *     them) and the rest emulated.
 *     With options.moduli = N > 0 the plan uses exactly N moduli, pa = pb = the most bits that
 *     N moduli carry, and makes no accuracy promise (S is then not needed).
 *  3'. The native-matching rule (options.rule = TILEMM_EMU_RULE_NATIVE, "accuracy", "native"):
 *     the bound native BLAS gives, |C_native − C| ≤ γ_k·(|A||B|) (γ_k = k·u/(1 − k·u)), is
 *     componentwise, and no rule can meet a componentwise bound without a lower bound of
 *     (|A||B|)_ij, which only S gives: a row and a column that meet only through tiny elements
 *     have (|A||B|)_ij as small as you like against their norms.  What native BLAS's bound
 *     implies for every entry through Cauchy–Schwarz, (|A||B|)_ij ≤ ‖a_i‖₂‖b_j‖₂ (a_i row i of
 *     A, b_j column j of B), needs no S: this rule targets
 *       C_emulated = fl(y) with |y − C_ij| ≤ 2^-(t+g)·k·‖a_i‖₂‖b_j‖₂     (k = stats.inner)
 *     and decides pa = pb = p = max(1, t + g + 2 − h), h the largest integer with 4^h ≤ k
 *     (so 2^h ≤ √k; an exact integer of k), and N as in step 3 from log2 M > 1 + 2p +
 *     log2 νa + log2 νb.  S, the ratios and the lo matrices are not computed (tilemm_emu_needs_
 *     ratios); the plan is made from k and max_qa, max_qb alone.
 *     Why the bound holds: with α = a_ip·2^(p − e_a[i]) and a' = trunc(α) (|α − a'| < 1,
 *     |a'| ≤ |α|), β, b' likewise, |αβ − a'b'| ≤ |α||β − b'| + |b'||α − a'| ≤ |α| + |β|, so the
 *     exact integer X (|X| ≤ 2^2p·Σ â b̂ ≤ 2^2p·νa·νb < M/2: the CRT gives it exactly) meets
 *       |y − C_ij| ≤ 2^(e_a[i] + e_b[j])·2^-p·(Σ_p â_ip + Σ_p b̂_pj),   y = X·2^(e_a + e_b − 2p).
 *     Cauchy–Schwarz gives Σ_p â_ip ≤ √k·‖â_i‖₂, and ‖b̂_j‖₂ ≥ max_p b̂_pj ≥ 1/2 (step 1: the
 *     largest magnitude lies in [2^(e−1), 2^e)), so Σ_p â_ip ≤ 2√k·‖â_i‖₂‖b̂_j‖₂, and Σ_p b̂_pj
 *     likewise.  With ‖a_i‖₂‖b_j‖₂ = 2^(e_a[i] + e_b[j])·‖â_i‖₂‖b̂_j‖₂:
 *       |y − C_ij| ≤ 2^-p·(2√k + 2√k)·‖a_i‖₂‖b_j‖₂ = 2^(h − t − g)·√k·‖a_i‖₂‖b_j‖₂
 *                  ≤ 2^-(t+g)·k·‖a_i‖₂‖b_j‖₂                         (2^h ≤ √k).
 *     The exact guarantee, every entry (outside the subnormal range of the result, as for the
 *     native bound): |C_emulated − C_ij| ≤ u·|y| + |y − C_ij|
 *       ≤ u·|C_ij| + (1 + u)·2^-(t+g)·k·‖a_i‖₂‖b_j‖₂,
 *     u = 2^-53 (double) or 2^-24 (single).  For t = 53 (24 for single), g = 1 and k ≥ 2 that
 *     is ≤ (1 + (1 + u)·k/2)·u·‖a_i‖₂‖b_j‖₂ ≤ γ_k·‖a_i‖₂‖b_j‖₂: never worse than what native
 *     BLAS's bound gives for the entry through Cauchy–Schwarz (but not native's componentwise
 *     γ_k·(|A||B|)_ij, which the certified rule of step 3 keeps).  Since log2 νa + log2 νb ≤
 *     log2 k (hi ≤ Q) and 2h > log2 k − 2, log2 M needs less than 2(t + g + 2) + 3: at most 15
 *     moduli for double, 8 for single, whatever k, and the rule never gives TILEMM_EMU_RANGE
 *     for finite data (p ≤ t + g + 2 ≤ TILEMM_EMU_PMAX) under the default max_moduli.
 *  3''. The elementwise native rule (options.rule = TILEMM_EMU_RULE_ELEMENTWISE, "accuracy",
 *     "elementwise"; what "precision", "auto" runs): native BLAS's own bound, elementwise,
 *     |C_native − C| ≤ γ_k·(|A||B|), at the fewest moduli the statistics allow.  Step 3's
 *     rule at a coarser error: its proof holds for any error exponent E in place of t + g, the
 *     guarantee then |C_emulated − C| ≤ u·|C| + 2^-E·(|A||B|).  Take E = t + g − s with s the
 *     largest integer such that 2^s ≤ k − 1 (k = stats.inner ≥ 2; s = 0 for k = 1; an exact
 *     integer of k), i.e. step 3's widths less s bits each: pa = t + 1 + g − s + ceil(log2
 *     ratio_a) (at least 1), pb likewise, the shared budget's drop as in step 3, and N from
 *     log2 M > 1 + pa + pb + log2 νa + log2 νb; then the widths take what those N moduli carry
 *     beyond that (a bit at a time to the narrower, none above TILEMM_EMU_PMAX, while log2 M
 *     stays above the need): the same cost, a smaller error, the same bound (a wider width only
 *     shrinks the truncation).  With t = 53 (24 for single), g = 1 and k ≥ 2:
 *       |C_emulated − C| ≤ u·|C| + 2^(s−54)·(|A||B|) ≤ u·|C| + (k − 1)·(u/2)·(|A||B|)
 *                        ≤ (1 + (k − 1)/2)·u·(|A||B|) ≤ k·u·(|A||B|) < γ_k·(|A||B|)
 *     (|C| ≤ |A||B| elementwise; u = 2^-53, single 2^-24), every entry: never worse than the
 *     native product's bound, where step 3 is 2^s times tighter than it needs to be.  Each bit
 *     of s is two bits fewer for the moduli: uniform [0, 1) data at k = 16384 (s = 13) need
 *     about 100 bits, 13 moduli, against step 3's 17 and step 3''s 15 (which needs no S but
 *     bounds by the norms, not elementwise).  At k = 1 it is step 3.
 *  4. Scaled integers: a'_ip = trunc(a_ip·2^(pa − e_a[i])) (|a'| < 2^pa, int64), b' likewise.
 *  5. Residues: r = a' mod m_l as a symmetric int8 (tilemm_emu_residue), for the first N moduli
 *     of tilemm_emu_moduli.  Stored K-major for both operands (row i of A' contiguous along k,
 *     column j of B' contiguous along k: the "TN" layout the tensor cores want).
 *  6. Per modulus: R_ij = (Σ_p ra_ip·rb_pj) mod m_l in [0, m_l), int8·int8 → int32 in chunks of
 *     at most TILEMM_EMU_KCHUNK terms (|ra·rb| ≤ 2^14), each chunk reduced mod m_l.
 *  7. Per element: Garner's mixed-radix CRT of (R_ij^(0) … R_ij^(N−1)) to X in (−M/2, M/2], then
 *     C_ij = X·2^(e_a[i] + e_b[j] − pa − pb) rounded once (to double, or to single for a
 *     single-accurate product of single operands), overflow to ±Inf, subnormals rounded once.
 *     Rows of zeros and columns of zeros give +0.
 *
 * Complex C = A·B (interleaved parts, Octave's layout): Re C = [Ar −Ai]·[Br; Bi] and
 * Im C = [Ar Ai]·[Bi; Br], two real products of inner dimension 2k, each part rounded once.  The
 * rows of [Ar ∓Ai] have the same magnitudes, and the columns of [Br; Bi] and [Bi; Br] too, so one
 * plan serves both: its statistics are those of the two real problems merged (the larger ratio,
 * row and column sums over 2k).
 */
#ifndef TILEMM_EMULATED_H
#define TILEMM_EMULATED_H

#include <stdint.h>

#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TILEMM_EMU_MAX_MODULI 24 /* the length of tilemm_emu_moduli                         */
#define TILEMM_EMU_PMAX 62       /* most bits of a scaled integer (held in an int64)           */
#define TILEMM_EMU_KCHUNK 131071 /* most int8·int8 terms an int32 holds exactly: 2^14·k < 2^31 */
#define TILEMM_EMU_Q 127         /* the statistics' quantization of magnitudes in [0, 1)       */
#define TILEMM_EMU_ZERO_ROW (-100000) /* e_a / e_b of a row (column) of zeros                  */
#define TILEMM_EMU_DEFAULT_MAX_MODULI 20

/* Pairwise coprime moduli, all ≤ 256 so that symmetric residues fit an int8, largest first. */
extern const int tilemm_emu_moduli[TILEMM_EMU_MAX_MODULI];
/* Garner's constants: tilemm_emu_garner[t] = (m_0·…·m_{t−1})^-1 mod m_t (entry 0 unused). */
extern const int tilemm_emu_garner[TILEMM_EMU_MAX_MODULI];

typedef enum {
  TILEMM_EMU_OK = 0,
  TILEMM_EMU_NONFINITE, /* NaN or Inf among the operands: run the native product   */
  TILEMM_EMU_RANGE      /* the data need more bits or moduli than allowed: native   */
} tilemm_emu_verdict;

/* The automatic rule (step 3 or 3'); options.moduli > 0 overrides either. */
typedef enum {
  TILEMM_EMU_RULE_CERTIFIED = 0, /* step 3: u|C| + 2^-(t+g)·|A||B|, from the statistics S    */
  TILEMM_EMU_RULE_NATIVE,        /* step 3': within 2^-(t+g)·k·‖a_i‖‖b_j‖ before rounding, no S */
  TILEMM_EMU_RULE_ELEMENTWISE    /* step 3'': u|C| + 2^-(t+g−s)·|A||B|, 2^s ≤ k − 1: native
                                    BLAS's elementwise bound γ_k·|A||B|, from S               */
} tilemm_emu_rule;

typedef struct {
  int moduli;      /* 0: automatic (the accuracy rule); N > 0: exactly N moduli, no promise  */
  int target_bits; /* 53: double-accurate, 24: single-accurate                                */
  int guard_bits;  /* bits beyond the target in the automatic rule (1)                       */
  int max_moduli;  /* automatic mode falls back beyond this many (TILEMM_EMU_DEFAULT_MAX_MODULI) */
  tilemm_emu_rule rule; /* the automatic rule (TILEMM_EMU_RULE_CERTIFIED by default)          */
} tilemm_emu_options;

/* The defaults for a product of `type`: target 53 bits for double types, 24 for single. */
void tilemm_emu_default_options (tilemm_emu_options *options, tilemm_type type);

/* What the plan is decided from (step 2), merged over the real problems of one product. */
typedef struct {
  int nonfinite;   /* NaN or Inf in A or B                                                   */
  int64_t inner;   /* k of the real problem (2k for complex)                                 */
  int64_t max_qa;  /* max_i qa_i                                                             */
  int64_t max_qb;  /* max_j qb_j                                                             */
  double ratio_a;  /* see above; 0 when A or B is all zeros, +Inf when unbounded             */
  double ratio_b;
} tilemm_emu_stats;

typedef struct {
  tilemm_emu_verdict verdict;
  int moduli;          /* N                                                                   */
  int pa, pb;          /* bit widths of the scaled integers                                   */
  double log2_product; /* log2 M of the moduli used                                           */
  double log2_needed;  /* what log2 M had to exceed                                           */
  int threads;         /* the CPU scheme's host threads at most (the branches' threads)       */
} tilemm_emu_plan;

/* Merges the statistics of one real problem into *into (max of each field, nonfinite or-ed). */
void tilemm_emu_stats_merge (tilemm_emu_stats *into, const tilemm_emu_stats *from);

/* Whether the plan needs the ratios (S_ij and the lo matrices of step 2): only the certified
 * automatic rule does; a backend computes neither where this is 0 (the ratios are then 0). */
int tilemm_emu_needs_ratios (const tilemm_emu_options *options);

/* The bits step 3 adds to a width for a ratio of the statistics: ceil (log2 ratio), 0 for a
 * ratio of at most 1 (exactly, from frexp). */
int tilemm_emu_ratio_bits (double ratio);

/* The branches of step 3, made once with the call's plan from the options alone (the rule, the
 * target, the guard bits, an explicit moduli count, max_moduli): what every outcome of the
 * statistics takes, so that no rule is applied below the plan.  The backends and the executor
 * compute the statistics and select among the branches (tilemm_emu_select), by the values the
 * branches name: the class of the bit widths (the ratio's bits, step 3; the inner dimension's
 * h, step 3'; none for an explicit count) indexes `widths`, and the moduli are the first entry of
 * `capacity` (log2 M of the first n moduli) above what the widths and νa, νb need.  The plan
 * tilemm_emu_decide gives is bitwise the one selected. */
#define TILEMM_EMU_WIDTH_CLASSES 64
#define TILEMM_EMU_FRACTIONS 16   /* sixteenths of a bit: the shared budget's classes */
typedef enum {
  TILEMM_EMU_WIDTHS_BY_RATIO = 0, /* step 3: pa = widths[ceil log2 ratio_a], pb likewise       */
  TILEMM_EMU_WIDTHS_BY_INNER,     /* step 3': pa = pb = widths[h], 4^h ≤ inner < 4^(h+1)       */
  TILEMM_EMU_WIDTHS_BY_MODULI     /* an explicit count: the widths those moduli carry            */
} tilemm_emu_width_class;
typedef struct {
  tilemm_emu_width_class by;
  int needs_ratios;                      /* the statistics S and the ratios are computed      */
  int less_inner_bits;                   /* BY_RATIO, step 3'': each width less s bits, the
                                            largest s with 2^s ≤ stats.inner − 1 (at least 1
                                            bit left)                                         */
  int widths[TILEMM_EMU_WIDTH_CLASSES];  /* the bit width of each class (> TILEMM_EMU_PMAX:
                                            the data's verdict is TILEMM_EMU_RANGE)          */
  int moduli;                            /* BY_MODULI: the count                              */
  int most_moduli;                       /* the automatic rules' largest count (max_moduli)   */
  int carried_ratio_bits;                /* step 3's largest ratio class a width carries: a
                                            (row, column) pair of more bits is computed
                                            exactly by the split (emulated_cpu.c)           */
  /* Step 3's shared budget (BY_RATIO): a ratio r of class c = ceil log2 r > 0 lies in
   * (2^(c−1), 2^c]; its sixteenth s (1..TILEMM_EMU_FRACTIONS) is the least with
   * r ≤ 2^(c−1+s/16), read against fraction_top[s] (a double at most 2^(s/16)).  drop[sa−1][sb−1]
   * says which width the pair of sixteenths lets go one bit below the even split: 0 neither,
   * 1 pa, 2 pb (emulated.h step 3, "the shared budget"). */
  double fraction_top[TILEMM_EMU_FRACTIONS + 1];
  unsigned char drop[TILEMM_EMU_FRACTIONS][TILEMM_EMU_FRACTIONS];
  double capacity[TILEMM_EMU_MAX_MODULI + 1];  /* log2 of the product of the first n moduli */
  int threads;   /* the host threads the CPU scheme's loops may take, each no more than its work
                    pays for (team_size.h): the call plan's host_threads; 0: one             */
} tilemm_emu_branches;

/* The branches of `options` (the call's plan holds them: plan_emulated, common/call_plan.c). */
void tilemm_emu_branches_make (const tilemm_emu_options *options, tilemm_emu_branches *branches);

/* The branch the statistics select: the plan of the product whose statistics are `stats`
 * (verdict NONFINITE for NaN or Inf, RANGE where no branch carries the data).  A lookup among
 * planned branches, no rule: what the backends' one-pass schemes and the executor's passes
 * call between the statistics and the product. */
void tilemm_emu_select (const tilemm_emu_branches *branches, const tilemm_emu_stats *stats,
                        tilemm_emu_plan *plan);

/* The count the certified rule of `options` gives typical data of inner dimension `inner`
 * (what a model prices before the data are seen): the statistics of uniform [0, 1) operands,
 * ratios a little above 2 and νa² = νb² = inner/3.  0 where they would not run (RANGE). */
int tilemm_emu_typical_moduli (const tilemm_emu_options *options, int64_t inner);

/* Step 3: the plan from the statistics, the branches of `options` made and selected at once
 * (the rule in one call, for the tests and the plan's own sizing; the backends select). */
void tilemm_emu_decide (const tilemm_emu_options *options, const tilemm_emu_stats *stats,
                        tilemm_emu_plan *plan);

/* Step 1 for one value: the exponent of a largest magnitude (TILEMM_EMU_ZERO_ROW for 0). */
int tilemm_emu_exponent (double largest_magnitude);

/* Step 5: the symmetric int8 residue of x modulo m (m ≤ 256). */
int8_t tilemm_emu_residue (int64_t x, int m);

/* Step 7 for one element: Garner's CRT of residues[l] in [0, m_l) (l < moduli), the symmetric
 * integer X, and X·2^exponent rounded once to double or to single (returned as a double that
 * holds the single exactly). */
double tilemm_emu_crt_double (const uint8_t *residues, int moduli, int exponent);
double tilemm_emu_crt_single (const uint8_t *residues, int moduli, int exponent);

/* ---- building blocks beyond the contract's, shared by the CPU product and the tests ---- */

/* log2 of the product of the first `moduli` moduli (host arithmetic; the plan compares it). */
double tilemm_emu_log2_product (int moduli);

/* Step 2 for one element x of a row (column) of exponent e: lo = floor (Q·x̂), hi = ceil (Q·x̂),
 * x̂ = |x|·2^-e, exactly (x̂ is never rounded: a subnormal x or a tiny x̂ included). */
void tilemm_emu_quantize (double x, int exponent, int *lo, int *hi);

/* The correctly rounded (to nearest, ties to even) value of (negative ? −1 : 1)·mag·2^exponent,
 * mag a 256-bit integer (4 little-endian 64-bit limbs), in double (single = 0) or in single
 * (single = 1; returned as the double that holds it): one rounding, subnormals included,
 * overflow to ±Inf. */
double tilemm_emu_big_to_float (const uint64_t mag[4], int negative, int exponent, int single);

/* ---- the CPU scheme's loops: their teams and chunks, the plan's (emulated_plan.c) ---- */

/* The loops of the CPU scheme (emulated_cpu.c) over one real problem m×k · k×n, each over items
 * of a fixed work in inner steps (an element read, a multiply-add of bytes):
 *   GATHER     a row of op(A) (or column of op(B)) into the K-major copies: k steps (the
 *              product's k: a complex element's parts are one step);
 *   EXPONENTS  a row's largest magnitude: k steps;      NONFINITE  an element: 1 step;
 *   QUANTIZE   a row's lo values and sums: 4k steps;     RATIOS     a column of pairs: m·k;
 *   RESIDUES   a row's residues for one modulus: 8k;     DOTS       a column of pairs, one
 *              modulus: m·k;  PAIRS  a column's CRT: 16·m·moduli (the branch's N);
 *   EXACT      a column of exact entries: 8·m·k. */
typedef enum {
  TILEMM_EMU_LOOP_GATHER = 0,
  TILEMM_EMU_LOOP_EXPONENTS,
  TILEMM_EMU_LOOP_NONFINITE,
  TILEMM_EMU_LOOP_QUANTIZE,
  TILEMM_EMU_LOOP_RATIOS,
  TILEMM_EMU_LOOP_RESIDUES,
  TILEMM_EMU_LOOP_DOTS,
  TILEMM_EMU_LOOP_PAIRS,
  TILEMM_EMU_LOOP_EXACT,
  TILEMM_EMU_LOOPS
} tilemm_emu_loop;

/* Seconds of one thread per inner step of a loop, on the fast side: the team is sized by it
 * (team_size.h). */
#define TILEMM_EMU_STEP_S 0.25e-9
/* Chunks per thread of a loop's team: a late thread holds back one chunk. */
#define TILEMM_EMU_CHUNKS_PER_THREAD 8

/* How one loop runs on the host pool: `team` threads claim chunks of `per` items (the last one
 * shorter; tilemm_host_pool_run_ranges cuts them). */
typedef struct {
  int team;
  int64_t per;
} tilemm_emu_loop_cut;

/* The cut of loop `loop` over `items` items (rows, columns or elements, as the loop says) of a
 * real problem of m rows and inner dimension k (the product's k for GATHER), under a branch of
 * `moduli` moduli (PAIRS only), on at most `threads` threads (the plan's: tilemm_emu_branches.
 * threads, tilemm_emu_plan.threads; 0: one): the team its work pays for (tilemm_team_size) and
 * TILEMM_EMU_CHUNKS_PER_THREAD chunks a thread (one chunk for a team of one).  Pure: every input
 * is the plan's (its threads, its panels' shapes, its branches' moduli), so the CPU scheme sizes
 * no team of its own.  items ≤ 0: a team of one, a chunk of one item (the pool then runs none). */
tilemm_emu_loop_cut tilemm_emu_loop_plan (int threads, tilemm_emu_loop loop, int64_t items,
                                          int64_t m, int64_t k, int moduli);

/* ---- the CPU implementation (emulated_cpu.c), also the reference the GPU's tests compare with ---- */

/* Steps 1–2 on the CPU: the statistics of C = A·B (views of one type, A m×k, B k×n; a complex
 * product's two real problems merged).  TILEMM_ENOMEM when host memory runs out. */
tilemm_status tilemm_emu_stats_cpu (const tilemm_view *a, const tilemm_view *b,
                                    tilemm_emu_stats *st, tilemm_error *err);

/* tilemm_emu_stats_cpu of C = op_a(A)·op_b(B), a and b as stored (read the other way round). */
tilemm_status tilemm_emu_stats_cpu_op (tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                       const tilemm_view *b, tilemm_emu_stats *st,
                                       tilemm_error *err);

/* tilemm_emu_stats_cpu_op as a call's plan runs it: its loops on the plan's `threads` (the
 * branches' team, emu_branches.threads; 0 or 1: the caller alone), and S with the ratios only
 * where `with_ratios` (the branches' needs_ratios; without, ratio_a = ratio_b = 0). */
tilemm_status tilemm_emu_stats_cpu_planned (int threads, int with_ratios, tilemm_op op_a,
                                            const tilemm_view *a, tilemm_op op_b,
                                            const tilemm_view *b, tilemm_emu_stats *st,
                                            tilemm_error *err);

/* Steps 4–7 on the CPU with a GIVEN plan (verdict TILEMM_EMU_OK, else TILEMM_EINVAL): C = A·B
 * written whole.  With the plan tilemm_emu_decide gives, bitwise the emulated product of any
 * backend. */
tilemm_status tilemm_emu_run_cpu (const tilemm_emu_plan *plan, const tilemm_view *a,
                                  const tilemm_view *b, const tilemm_view *c, tilemm_error *err);

/* tilemm_emu_run_cpu of C = op_a(A)·op_b(B), a and b as stored. */
tilemm_status tilemm_emu_run_cpu_op (const tilemm_emu_plan *plan, tilemm_op op_a,
                                     const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                     const tilemm_view *c, tilemm_error *err);

/* The product when the whole-product plan cannot carry some (row of A, column of B) pairs
 * (tilemm_emu_decide gives TILEMM_EMU_RANGE for finite operands: a pair whose lo values do not
 * overlap, S_ij = 0, or one whose ratio needs more than TILEMM_EMU_PMAX bits).  Each pair is
 * classified on the CPU: one with S_ij = 0 and no nonzero term is an exact zero in any plan;
 * the plan is made over the ratios of the pairs it can carry; the others' entries are computed
 * exactly (exact_dot.h) and rounded once, so every entry meets the bound of the options' rule
 * (step 3's; under step 3' every pair is carried, p being the same for all, and only a RANGE
 * from max_moduli leaves entries to compute exactly: then all of them).  The plan of the carried
 * entries is the one `branches` select from their statistics (the call's plan's).  *used: the plan of the carried entries (verdict RANGE when none was possible: then
 * every entry is exact); *exact_entries: how many entries were computed exactly.  C =
 * op_a(A)·op_b(B), a and b as stored. */
tilemm_status tilemm_emu_multiply_split_cpu (const tilemm_emu_options *options,
                                             const tilemm_emu_branches *branches,
                                             tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                             const tilemm_view *b, const tilemm_view *c,
                                             const tilemm_stop *stop, tilemm_emu_plan *used,
                                             int64_t *exact_entries, tilemm_error *err);

/* ---- sizing (emulated_sizing.c): what the plan reads ---- */

/* An upper bound of the device bytes one panel of an emulated product holds (rows × cols of C,
 * inner dimension k, `moduli` moduli): A, B and C as they travel (a transposed operand twice: as
 * stored and transposed on the device), the statistics, the residues and the modular products
 * (src/cuda/emulated_scheme.cu's two workspaces). */
double tilemm_emu_panel_bytes (tilemm_type type, int64_t rows, int64_t cols, int64_t k,
                               int moduli, tilemm_op op_a, tilemm_op op_b);

/* C of one panel comes back in at most this many column blocks (tilemm_emu_result_block_cols). */
#define TILEMM_EMU_MAX_BLOCKS 8

/* The columns of each block in which the GPU executor brings an emulated panel's C (rows × cols
 * of `type`) back while the device computes the next blocks, given its staging chunks of
 * chunk_bytes: blocks of at least four chunks (so a block's download keeps the copy engine
 * busy), at most TILEMM_EMU_MAX_BLOCKS, wider than 256 columns only in whole 256-column GEMM
 * tiles.  cols itself: one block. */
int64_t tilemm_emu_result_block_cols (tilemm_type type, int64_t rows, int64_t cols,
                                      size_t chunk_bytes);

/* The GPU's emulated product of one pass pipelined in panels of C's columns: the statistics of
 * panel p (all of A with its columns of B) merged into the earlier panels', its product under
 * the plan those select, while the host sends the columns of B of panel p + 1 and brings C of
 * panel p − 1 back.  Bitwise the product of one panel: each entry depends on its row of A, its
 * column of B and the plan only, and a panel computed under a plan the later panels' statistics
 * changed is computed again under the whole product's (emulated_pipeline.cu).  A real product
 * keeps A's work (exponents, sums, lo(A), residues) from the first panel for the others
 * (emulated_scheme.h, tilemm_emu_cuda_keep); a complex one repeats it in each panel.
 *
 * The plan's rule cuts two panels: a first one narrow enough that its columns of B come up
 * soon, wide enough that its product lasts while the rest of B comes up (the product of a
 * column against the upload of a column of B, from the int8 rate and the bus's, `moduli` the
 * count a product of inner dimension k typically takes), and the rest; and takes them only
 * where the model says the two panels are faster than one (tilemm_emu_pipeline_gain_s).
 * Returns the first panel's columns (0: one panel: B small, or the pipeline not paying). */
#define TILEMM_EMU_PIPE_MIN_BYTES (32 << 20) /* B's bytes below which one panel serves        */
#define TILEMM_EMU_PIPE_MOST 1024         /* most panels a given width may cut C into         */
/* The device memory's rate for the scheme's streaming passes over an operand (scans,
 * conversions, residues): a model constant, an H100's HBM3 at what such kernels reach; no fact
 * measures it. */
#define TILEMM_EMU_DEVICE_BYTES_PER_S 2.5e12
/* The host round trips one more panel adds: its statistics' two synchronisations (the scan's
 * flag, then the sums and ratios) and its product's exponents' one, each a pipeline step's fixed
 * cost (the facts' gpu_step_s) with the device drained. */
#define TILEMM_EMU_PIPE_SYNCS 3

/* The rates the rule weighs: the int8 GEMM's (facts' gpu_int8_ops_per_s), the bus's
 * (gpu_bus_bytes_per_s), a pipeline step's fixed cost (gpu_step_s). */
typedef struct {
  double int8_ops_per_s, bus_bytes_per_s, step_s;
} tilemm_emu_pipe_rates;

/* What two panels (the first `first` columns wide) save against one, in seconds (negative: they
 * lose): the upload of the rest of B hidden behind the first panel's product (the shorter of
 * the two), less what the second panel adds: its host round trips and, where A's work is not
 * kept (a complex product), one more pass of the scheme over A (its real operands formed, its
 * scans, quantization and residues) at TILEMM_EMU_DEVICE_BYTES_PER_S. */
double tilemm_emu_pipeline_gain_s (tilemm_type type, int64_t m, int64_t n, int64_t k, int moduli,
                                   int64_t first, const tilemm_emu_pipe_rates *rates);
int64_t tilemm_emu_pipeline_first (tilemm_type type, int64_t m, int64_t n, int64_t k, int moduli,
                                   const tilemm_emu_pipe_rates *rates);

/* Sets plan's panels for an emulated product op_a(A)·op_b(B) under max_device_bytes (0: one
 * panel): the largest panels, halving the longer side, whose tilemm_emu_panel_bytes at the most
 * moduli `options` allow fit.  TILEMM_EDEVMEM (GPU) or TILEMM_ELIMIT (CPU) when not even one
 * entry fits. */
tilemm_status tilemm_emu_plan_panels (tilemm_plan *plan, const tilemm_emu_options *options,
                                      tilemm_op op_a, tilemm_op op_b, size_t max_device_bytes);

#ifdef __cplusplus
}
#endif

#endif
