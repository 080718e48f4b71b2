/* tests/emulated_stub.c — TEMPORARY stand-in for src/emulated.c (branch emu-cpu, not merged yet):
 * the tables and host functions of the contract (src/emulated.h) that the GPU side needs, so that
 * tests/test_emulated_cuda.cu and bench/bench_emulated.cu build before the CPU side lands.
 * bench/run-emulated.sh and tests/emu/run-emulated.sh use src/emulated.c instead when it exists.
 * DELETE THIS FILE when src/emulated.c is merged.
 *
 * Written from the contract's text and wip/ozaki's planner (plan_auto, nmoduli mode); the real
 * tilemm_emu_decide may differ in details, which does not matter to the GPU tests: they compare
 * the GPU with the CPU under the same plan.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>
#include <string.h>

#include "emulated.h"

const int tilemm_emu_moduli[TILEMM_EMU_MAX_MODULI] = {
  256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217,
  211, 199, 197, 193, 191, 181, 179, 173, 167, 163, 157, 151 };

/* (m_0·…·m_{t−1})^-1 mod m_t, computed by tests/test_emulated_cuda.cu's check too. */
const int tilemm_emu_garner[TILEMM_EMU_MAX_MODULI] = {
  0, 1, 211, 182, 246, 184, 41, 115, 161, 54, 163, 149, 46, 142, 91, 116, 149, 164, 37, 94, 144, 28, 41, 39
};

void tilemm_emu_default_options (tilemm_emu_options *o, tilemm_type type)
{
  o->moduli = 0;
  o->target_bits = (type == TILEMM_SINGLE || type == TILEMM_COMPLEX_SINGLE) ? 24 : 53;
  o->guard_bits = 1;
  o->max_moduli = TILEMM_EMU_DEFAULT_MAX_MODULI;
}

void tilemm_emu_stats_merge (tilemm_emu_stats *into, const tilemm_emu_stats *from)
{
  into->nonfinite |= from->nonfinite;
  if (from->inner > into->inner) into->inner = from->inner;
  if (from->max_qa > into->max_qa) into->max_qa = from->max_qa;
  if (from->max_qb > into->max_qb) into->max_qb = from->max_qb;
  if (from->ratio_a > into->ratio_a) into->ratio_a = from->ratio_a;
  if (from->ratio_b > into->ratio_b) into->ratio_b = from->ratio_b;
}

static double log2_product (int n)
{
  double s = 0;
  for (int t = 0; t < n; t++) s += log2 ((double) tilemm_emu_moduli[t]);
  return s;
}

void tilemm_emu_decide (const tilemm_emu_options *o, const tilemm_emu_stats *s, tilemm_emu_plan *p)
{
  memset (p, 0, sizeof *p);
  if (s->nonfinite) { p->verdict = TILEMM_EMU_NONFINITE; return; }
  const double lq = log2 ((double) TILEMM_EMU_Q);
  const double lognu = (s->max_qa > 0 ? 0.5 * log2 ((double) s->max_qa) - lq : 0.0)
                     + (s->max_qb > 0 ? 0.5 * log2 ((double) s->max_qb) - lq : 0.0) + 0x1p-20;
  if (o->moduli <= 0)
    {
      if (!isfinite (s->ratio_a) || !isfinite (s->ratio_b)) { p->verdict = TILEMM_EMU_RANGE; return; }
      const int base = o->target_bits + 1 + o->guard_bits;
      p->pa = base + (s->ratio_a > 1 ? (int) ceil (log2 (s->ratio_a)) : 0);
      p->pb = base + (s->ratio_b > 1 ? (int) ceil (log2 (s->ratio_b)) : 0);
      if (p->pa > TILEMM_EMU_PMAX || p->pb > TILEMM_EMU_PMAX) { p->verdict = TILEMM_EMU_RANGE; return; }
      p->log2_needed = 1.0 + p->pa + p->pb + lognu;
      int n;
      for (n = 1; n <= o->max_moduli; n++)
        if (log2_product (n) > p->log2_needed + 1e-9) break;
      if (n > o->max_moduli) { p->verdict = TILEMM_EMU_RANGE; return; }
      p->moduli = n;
    }
  else
    {
      const int n = o->moduli;
      int q = (int) floor ((log2_product (n) - 1e-9 - 1.0 - lognu) / 2.0);
      if (q > TILEMM_EMU_PMAX) q = TILEMM_EMU_PMAX;
      if (q < 1) { p->verdict = TILEMM_EMU_RANGE; return; }
      p->pa = p->pb = q;
      p->log2_needed = 1.0 + 2.0 * q + lognu;
      p->moduli = n;
    }
  p->log2_product = log2_product (p->moduli);
  p->verdict = TILEMM_EMU_OK;
}

int tilemm_emu_exponent (double largest)
{
  int e = TILEMM_EMU_ZERO_ROW;
  if (largest != 0) frexp (largest, &e);
  return e;
}

int8_t tilemm_emu_residue (int64_t x, int m)
{
  int64_t r = x % m;
  if (r < 0) r += m;
  if (r > 127) r -= m;
  return (int8_t) r;
}
