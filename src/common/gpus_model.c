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
  const double each = tilemm_model_copy_rate (f, rate, threads / gpus > 1 ? threads / gpus : 1);
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

/* The kernels' rate of `type` in the stages: where the facts measured the double kernels with
 * the GPU filled (gpu_filled_flops_per_s, above the one-GPU call's rate, measured on products
 * too small to fill a large GPU), that rate, the other types in the measured ratio to double. */
static double stage_kernel_s (const tilemm_machine_facts *f, tilemm_type type, double flops)
{
  const double measured_s = tilemm_model_kernel_s (f, type, flops);
  const double dbl = flops / tilemm_model_kernel_s (f, TILEMM_DOUBLE, flops);
  if (!(f->gpu_filled_flops_per_s > dbl) || !(measured_s > 0))
    return measured_s;
  return measured_s * dbl / f->gpu_filled_flops_per_s;
}

/* A product's (or a batch's) bytes and flops, all of it. */
static double product_pages (const tilemm_gpus_product *p)
{
  return p->pages > 1 ? p->pages : 1;
}

static double product_bytes (const tilemm_gpus_product *p)
{
  return (double) tilemm_type_size (p->type) * (p->m * p->k + p->k * p->n + p->m * p->n)
         * product_pages (p);
}

static double product_flops (const tilemm_gpus_product *p)
{
  return tilemm_model_flops (p->type, p->m, p->n, p->k) * product_pages (p);
}

/* The stages of p on g GPUs (everything but price->seconds). */
static void price_stages (const tilemm_machine_facts *f, const tilemm_gpus_product *p, int g,
                          tilemm_gpus_price *price)
{
  const double es = (double) tilemm_type_size (p->type), pages = product_pages (p);
  double strip, shared;
  if (pages > 1)
    {
      /* A batch split by pages: each GPU its pages of both operands, nothing shared. */
      strip = es * (p->m * p->k + p->k * p->n) * pages / g;
      shared = 0;
    }
  else
    {
      /* Strips along the longer side (plan.c): the other operand is the one every GPU holds. */
      const double cut = p->m > p->n ? p->m : p->n, side = p->m > p->n ? p->n : p->m;
      strip = es * p->k * cut / g;
      shared = es * p->k * side;
    }
  const double result = es * p->m * p->n * pages / g;
  const int exchange = g > 1 && p->peers && shared > 0;
  const double own_shared = exchange ? shared / g : shared;
  price->gpus = g;
  price->host_bytes = strip + own_shared + result;
  price->peer_bytes = exchange ? shared - own_shared : 0;
  price->kernel_s = stage_kernel_s (f, p->type, product_flops (p) / g);
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
  price->seconds = 0;
}

/* The stages' time of p on g GPUs over its time on one (each the call's fixed cost and its
 * slowest stage). */
static double stages_ratio (const tilemm_machine_facts *f, const tilemm_gpus_product *p, int g)
{
  tilemm_gpus_price one, many;
  price_stages (f, p, 1, &one);
  price_stages (f, p, g, &many);
  const double one_s = f->gpu_call_s + one.pace_s;
  return one_s > 0 ? (f->gpu_call_s + many.pace_s) / one_s : 1;
}

/* Every GPU's call over one GPU's as measured, for the square double product of `flops` read
 * inside the measured sizes (a product outside them: the nearest measured, *at its flops);
 * 0 where several GPUs were not measured. */
static double measured_ratio (const tilemm_machine_facts *f, double flops, double *at)
{
  const tilemm_curve *one = &f->gpu_all_one, *all = &f->gpu_all_every;
  if (f->gpu_all_count < 2 || one->points < 1 || all->points < 1)
    return 0;
  const double lo = one->flops[0] > all->flops[0] ? one->flops[0] : all->flops[0];
  const double hi_one = one->flops[one->points - 1], hi_all = all->flops[all->points - 1];
  const double hi = hi_one < hi_all ? hi_one : hi_all;
  *at = flops < lo ? lo : flops > hi ? hi : flops;
  const double s1 = tilemm_curve_seconds (one, *at), sg = tilemm_curve_seconds (all, *at);
  return s1 > 0 && sg > 0 && isfinite (s1) && isfinite (sg) ? sg / s1 : 0;
}

/* What the measurement of the square double product of `flops` took beyond the stages' ratio
 * on the GPUs measured (the excess: pipelines filling and draining, the teams' starts, the
 * result's pages faulted in; negative where the stages priced it too high), *ratio the
 * measured ratio there, *per_s its bytes over one GPU's call time. */
static double excess_at (const tilemm_machine_facts *f, const tilemm_gpus_product *p,
                         double flops, double *ratio, double *per_s)
{
  double at;
  *ratio = measured_ratio (f, flops, &at);
  const double side = cbrt (at / tilemm_model_flops (TILEMM_DOUBLE, 1, 1, 1));
  const tilemm_gpus_product q = { TILEMM_DOUBLE, side, side, side, p->peers, p->host_threads, 1 };
  const double bytes = 3.0 * 8.0 * side * side;
  const double one_s = tilemm_model_gpu_call_s (f, TILEMM_DOUBLE, bytes, at);
  *per_s = one_s > 0 ? bytes / one_s : 0;
  return *ratio - stages_ratio (f, &q, f->gpu_all_count);
}

/* How the excess shrinks with the bytes a second moved, past the measured sizes: as the two
 * largest measured sizes say, between not at all (0: a ratio that did not improve with size
 * stays as measured) and in proportion (1: what is paid beyond the stages grows with the bytes,
 * not the flops). */
static double excess_trend (const tilemm_machine_facts *f, const tilemm_gpus_product *p)
{
  const tilemm_curve *all = &f->gpu_all_every;
  if (all->points < 2)
    return 1;
  double r_last, r_prev, per_last, per_prev;
  const double e_last = excess_at (f, p, all->flops[all->points - 1], &r_last, &per_last);
  const double e_prev = excess_at (f, p, all->flops[all->points - 2], &r_prev, &per_prev);
  if (!(e_last > 0))
    return 1;
  if (!(e_prev > e_last) || !(per_prev > 0) || !(per_last > per_prev))
    return 0;
  const double trend = log (e_prev / e_last) / log (per_last / per_prev);
  return trend < 0 ? 0 : trend > 1 ? 1 : trend;
}

double tilemm_model_gpus_s (const tilemm_machine_facts *facts, const tilemm_gpus_product *p,
                            double one_s, int gpus)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  double at;
  const double flops = product_flops (p);
  const double ratio_all = gpus > 1 ? measured_ratio (f, flops, &at) : 0;
  /* One GPU, several never measured, or a product smaller than any measured: no gain the
   * facts have not seen. */
  if (!(ratio_all > 0) || flops < at)
    return one_s;
  /* The measured square double product nearest p, on the same links: its excess over the
   * stages is taken to be what any count of GPUs pays beyond theirs, shrinking against the
   * product's time as the bytes it moves a second grow (past the measured sizes, as fast as
   * the largest two measured say): there the ratio tends to the stages'. */
  double ratio, q_per_s;
  const double excess = excess_at (f, p, flops, &ratio, &q_per_s);
  const double per_s = one_s > 0 ? product_bytes (p) / one_s : 0;
  double w = per_s > 0 && q_per_s > 0 ? q_per_s / per_s : 1;
  if (flops > at)
    w = pow (w, excess_trend (f, p));
  const double r = stages_ratio (f, p, gpus) + excess * w;
  const double least = 1.0 / gpus;
  return one_s * (r > least ? r : least);
}

void tilemm_model_gpus_price (const tilemm_machine_facts *facts, const tilemm_gpus_product *p,
                              int gpus, tilemm_gpus_price *price)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const int g = gpus < 1 ? 1 : gpus;
  price_stages (f, p, g, price);
  const double one_s
    = tilemm_model_gpu_call_s (f, p->type, product_bytes (p), product_flops (p));
  price->seconds = tilemm_model_gpus_s (f, p, one_s, g);
}

/* What one of g GPUs does besides the stage that sets its pace: its kernels, bus and peer
 * copies, all of them (the host's copies, every GPU's together, are not its own). */
static double own_stages_s (const tilemm_machine_facts *f, const tilemm_gpus_product *p, int g)
{
  tilemm_gpus_price price;
  price_stages (f, p, g, &price);
  return price.kernel_s + price.bus_s + price.peer_s;
}

int tilemm_model_gpus_that_pay (const tilemm_machine_facts *facts, const tilemm_gpus_product *p,
                                double one_s, int most, double *seconds)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  int best = 1;
  double best_s = one_s;
  for (int g = 2; g <= most && g <= TILEMM_MAX_WORKERS; g++)
    {
      const double s = tilemm_model_gpus_s (f, p, one_s, g);
      /* Counts past one that already pay can price alike where the host's copies, which every
       * count shares, set the pace of each: the one whose GPUs each have less of their own to
       * do drains its pipelines sooner (the stages do not overlap whole).  One GPU is never
       * left for a tie: no gain the model has not seen. */
      const int alike = best > 1 && fabs (s - best_s) <= 1e-9 * best_s;
      if (s < best_s - 1e-9 * best_s
          || (alike && own_stages_s (f, p, g) < own_stages_s (f, p, best)))
        best = g, best_s = s < best_s ? s : best_s;
    }
  if (seconds)
    *seconds = best_s;
  return best;
}

int tilemm_model_product_gpus_that_pay (const tilemm_machine_facts *facts,
                                        const tilemm_gpus_product *p, int most, double *seconds)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  return tilemm_model_gpus_that_pay (
    f, p, tilemm_model_gpu_call_s (f, p->type, product_bytes (p), product_flops (p)), most,
    seconds);
}
