/* gpus_model.c — a product priced on g GPUs, stage by stage (see gpus_model.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>

#include "device_model.h"
#include "gpus_model.h"

static const tilemm_machine_facts *facts_or_builtin (const tilemm_machine_facts *f)
{
  return f ? f : tilemm_facts_builtin ();
}

/* The copy curve `rate` (by team size) at a team of `threads`: the largest measured team no
 * larger, a smaller team than any measured in proportion to the smallest; 0 where nothing was
 * measured. */
static double copy_rate (const tilemm_machine_facts *f, const double *rate, double threads)
{
  double at = 0;
  int below = -1, smallest = -1;
  for (int i = 0; i < f->copy_points && i < TILEMM_COPY_POINTS; i++)
    {
      if (!(rate[i] > 0) || f->copy_threads[i] < 1)
        continue;
      if (smallest < 0 || f->copy_threads[i] < f->copy_threads[smallest])
        smallest = i;
      if (f->copy_threads[i] <= threads && (below < 0 || f->copy_threads[i] > f->copy_threads[below]))
        below = i;
    }
  if (below >= 0)
    at = rate[below];
  else if (smallest >= 0)
    at = rate[smallest] * threads / (double) f->copy_threads[smallest];
  return at;
}

/* The best the copy curve `rate` reached with any team (the host's memory: every team together
 * copies no faster). */
static double copy_best (const tilemm_machine_facts *f, const double *rate)
{
  double best = 0;
  for (int i = 0; i < f->copy_points && i < TILEMM_COPY_POINTS; i++)
    best = rate[i] > best ? rate[i] : best;
  return best;
}

/* g teams of threads/g each, together: each as fast as its size gives, all of them no faster
 * than the best measured (0: not measured). */
static double teams_rate (const tilemm_machine_facts *f, const double *rate, int gpus,
                          double threads)
{
  const double each = copy_rate (f, rate, threads / gpus > 1 ? threads / gpus : 1);
  const double best = copy_best (f, rate);
  return gpus * each < best ? gpus * each : best;
}

/* How much slower a GPU's link runs while every one of the first g copies at once than alone
 * (the links' facts where measured, the slowest of them; else 1). */
static double busy_share (const tilemm_machine_facts *f, int gpus)
{
  if (gpus < 2)
    return 1;
  double share = 1;
  for (int i = 0; i < gpus && i < TILEMM_MAX_WORKERS; i++)
    {
      const tilemm_gpu_facts *g = &f->gpu[i];
      if (g->up_bytes_per_s > 0 && g->up_busy_bytes_per_s > 0)
        {
          const double s = g->up_busy_bytes_per_s / g->up_bytes_per_s;
          share = s < share ? s : share;
        }
      if (g->down_bytes_per_s > 0 && g->down_busy_bytes_per_s > 0)
        {
          const double s = g->down_busy_bytes_per_s / g->down_bytes_per_s;
          share = s < share ? s : share;
        }
    }
  return share;
}

void tilemm_model_gpus_price (const tilemm_machine_facts *facts, const tilemm_gpus_product *p,
                              int gpus, tilemm_gpus_price *price)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const int g = gpus < 1 ? 1 : gpus;
  const double es = (double) tilemm_type_size (p->type);
  /* Strips along the longer side (plan.c): the other operand is the one every GPU holds. */
  const double cut = p->m > p->n ? p->m : p->n, side = p->m > p->n ? p->n : p->m;
  const double strip = es * p->k * cut / g, shared = es * p->k * side, result = es * p->m * p->n / g;
  const int exchange = g > 1 && p->peers;
  const double own_shared = exchange ? shared / g : shared;
  price->gpus = g;
  price->host_bytes = strip + own_shared + result;
  price->peer_bytes = exchange ? shared - own_shared : 0;
  const double flops = tilemm_model_flops (p->type, p->m, p->n, p->k);
  price->kernel_s = tilemm_model_kernel_s (f, p->type, flops / g);
  price->bus_s = tilemm_model_bus_s (f, price->host_bytes) / busy_share (f, g);
  /* The host's copies: every GPU's operands into the pinned rings (pages in memory), every
   * part of C out of them (into the result's fresh pages). */
  const double threads = p->host_threads > 0 ? p->host_threads
                         : f->threads > 0   ? f->threads
                                            : 1;
  const double in = teams_rate (f, f->copy_bytes_per_s, g, threads);
  const double out = teams_rate (f, f->copy_fresh_bytes_per_s, g, threads);
  price->host_s = (in > 0 ? g * (strip + own_shared) / in : 0) + (out > 0 ? g * result / out : 0);
  const double peer_rate = f->gpu_peer_bytes_per_s > 0 ? f->gpu_peer_bytes_per_s
                                                       : TILEMM_MODEL_PEER_BYTES_PER_S;
  price->peer_s = price->peer_bytes / peer_rate;
  double pace = price->kernel_s;
  const double stages[] = { price->bus_s, price->host_s, price->peer_s };
  for (int i = 0; i < 3; i++)
    pace = stages[i] > pace ? stages[i] : pace;
  price->pace_s = pace;
  /* One GPU's call as measured, its time past the fixed cost scaled by the paces' ratio. */
  const double bytes = es * (p->m * p->k + p->k * p->n + p->m * p->n);
  const double one_s = tilemm_model_gpu_call_s (f, p->type, bytes, flops);
  if (g == 1)
    {
      price->seconds = one_s;
      return;
    }
  tilemm_gpus_price alone;
  tilemm_model_gpus_price (f, p, 1, &alone);
  const double fixed = f->gpu_call_s;
  const double rest = one_s > fixed ? one_s - fixed : 0;
  const double fixed_g = f->gpu_all_call_s > 0 ? f->gpu_all_call_s : fixed;
  double s = fixed_g + (alone.pace_s > 0 ? rest * pace / alone.pace_s : rest);
  /* Never below what a call on every GPU measured (nor a gain where none was measured). */
  const double measured = tilemm_model_spread_s (f, one_s, fixed, g);
  price->seconds = s > measured ? s : measured;
}

int tilemm_model_product_gpus_that_pay (const tilemm_machine_facts *facts,
                                        const tilemm_gpus_product *p, int most, double *seconds)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  tilemm_gpus_price price;
  tilemm_model_gpus_price (f, p, 1, &price);
  int best = 1;
  double best_s = price.seconds;
  for (int g = 2; g <= most && g <= TILEMM_MAX_WORKERS; g++)
    {
      tilemm_model_gpus_price (f, p, g, &price);
      if (price.seconds < best_s)
        best = g, best_s = price.seconds;
    }
  if (seconds)
    *seconds = best_s;
  return best;
}
