/* precision_auto.c — "precision", "auto" (precision_auto.h): the emulated product where the
 * model prices it below the native one at a bound at least as tight, native elsewhere.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "device_model.h"
#include "emulated.h"
#include "precision_auto.h"

/* Whether the emulated bound is at least as tight as the native one for inner dimension k.
 * Native BLAS: |C_native − C| ≤ γ_k·(|A||B|), γ_k = k·u/(1 − k·u) ≥ k·u.  The elementwise rule's
 * (emulated.h, step 3''): |C_emu − C| ≤ u·|C| + 2^(s−54)·(|A||B|), 2^s ≤ k − 1 (double; single
 * alike with u = 2^-24), so at most (1 + (k − 1)/2)·u·(|A||B|) ≤ k·u·(|A||B|) for every k ≥ 2
 * (|C| ≤ |A||B|); at k = 1 (s = 0, step 3's 1.5·u) the native product is one rounding of one
 * product, u·|C|, which the emulated bound does not beat. */
static int emulated_bound_at_least_as_tight (int64_t k)
{
  return k >= 2;
}

void tilemm_plan_precision_auto (const tilemm_machine_facts *facts, tilemm_type type, int64_t m,
                                 int64_t n, int64_t k, int rank_k, int gpus, int gpu_only,
                                 tilemm_precision_choice *choice)
{
  memset (choice, 0, sizeof *choice);
  choice->rule = TILEMM_EMU_RULE_ELEMENTWISE;
  choice->native_s = INFINITY;
  choice->emulated_s = INFINITY;
  choice->bound_ok = emulated_bound_at_least_as_tight (k);
  if ((int) type < 0 || type >= TILEMM_NTYPES || m <= 0 || n <= 0 || k <= 0)
    {
      snprintf (choice->why, sizeof choice->why, "native: an empty product");
      return;
    }
  tilemm_way_costs ways;
  tilemm_plan_auto_way (facts, type, m, n, k, rank_k, gpus, &ways);
  choice->native_s = gpu_only ? ways.seconds[TILEMM_WAY_GPU] : ways.seconds[ways.best];
  tilemm_emu_options options;
  tilemm_emu_default_options (&options, type);
  options.rule = choice->rule;
  /* a complex product is two real ones of inner dimension 2k (emulated.h) */
  const int64_t inner = tilemm_type_is_complex (type) ? 2 * k : k;
  choice->moduli = tilemm_emu_typical_moduli (&options, inner);
  if (gpus >= 1 && choice->moduli > 0)
    {
      const double es = (double) tilemm_type_size (type);
      const double bytes = es * ((double) m * (double) k + (double) k * (double) n
                                 + (double) m * (double) n);
      choice->emulated_s = tilemm_model_gpu_emulated_s (facts, type, bytes, (double) m,
                                                        (double) n, (double) k, choice->moduli);
    }
  choice->emulated = choice->bound_ok && choice->emulated_s < choice->native_s;
  if (gpus < 1)
    snprintf (choice->why, sizeof choice->why,
              "native: the emulated product runs fast on a GPU only, and none may run this one");
  else if (!choice->bound_ok)
    snprintf (choice->why, sizeof choice->why,
              "native: k = %lld, where one rounding is tighter than the emulated bound",
              (long long) k);
  else
    snprintf (choice->why, sizeof choice->why,
              "%s: the model gives emulated (%d moduli, on the GPU) %.4g ms, native (%s) %.4g ms;"
              " the emulated bound is at least as tight",
              choice->emulated ? "emulated" : "native", choice->moduli, 1e3 * choice->emulated_s,
              gpu_only ? "gpu" : tilemm_way_name (ways.best), 1e3 * choice->native_s);
}

int64_t tilemm_plan_precision_auto_from (const tilemm_machine_facts *facts, tilemm_type type,
                                         int gpus)
{
  int64_t from = 0;
  for (int64_t n = 65536; n >= 64; n /= 2)
    {
      tilemm_precision_choice c;
      tilemm_plan_precision_auto (facts, type, n, n, n, 0, gpus, 0, &c);
      if (!c.emulated)
        break;
      from = n;
    }
  return from;
}
