/* device_model.c — the one cost model, read from the machine's facts (see device_model.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <limits.h>
#include <math.h>

#include "device_model.h"
#include "gpus_model.h"
#include "team_size.h"

static const tilemm_machine_facts *facts_or_builtin (const tilemm_machine_facts *f)
{
  return f ? f : tilemm_facts_builtin ();
}

/* A rate the facts hold, or the built-in model's where they hold none (a type not measured). */
static double rate_or_builtin (double rate, double builtin)
{
  return rate > 0 ? rate : builtin;
}

double tilemm_model_flops (tilemm_type type, double m, double n, double k)
{
  return 2.0 * m * n * k * (tilemm_type_is_complex (type) ? 4.0 : 1.0);
}

double tilemm_model_rank_k_flops (tilemm_type type, double n, double k)
{
  return n * (n + 1.0) * k * (tilemm_type_is_complex (type) ? 4.0 : 1.0);
}

static int type_index (tilemm_type type)
{
  return (int) type >= 0 && type < TILEMM_NTYPES ? (int) type : TILEMM_DOUBLE;
}

double tilemm_model_kernel_s (const tilemm_machine_facts *facts, tilemm_type type, double flops)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const int t = type_index (type);
  return flops / rate_or_builtin (f->gpu_kernel_flops_per_s[t],
                                  tilemm_facts_builtin ()->gpu_kernel_flops_per_s[t]);
}

double tilemm_model_bus_s (const tilemm_machine_facts *facts, double bytes)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  return bytes / rate_or_builtin (f->gpu_bus_bytes_per_s,
                                  tilemm_facts_builtin ()->gpu_bus_bytes_per_s);
}

/* The copy curve `rate` (by team size) at a team of `threads`: the largest measured team no
 * larger, a smaller team than any measured in proportion to the smallest; 0 where nothing was
 * measured. */
double tilemm_model_copy_rate (const tilemm_machine_facts *f, const double *rate, double threads)
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

double tilemm_model_step_s (const tilemm_machine_facts *facts)
{
  return facts_or_builtin (facts)->gpu_step_s;
}

/* The fitted line: fixed cost, first bytes at the bus's latency, the rest through the staging,
 * the kernels at their rate. */
static double gpu_line_s (const tilemm_machine_facts *f, tilemm_type type, double bytes,
                          double flops)
{
  const double first = bytes < f->gpu_first_bytes ? bytes : f->gpu_first_bytes;
  const double first_s = f->gpu_first_bytes_per_s > 0 ? first / f->gpu_first_bytes_per_s : 0;
  return f->gpu_call_s + first_s + tilemm_model_bus_s (f, bytes - first)
         + tilemm_model_kernel_s (f, type, flops);
}

double tilemm_model_gpu_call_s (const tilemm_machine_facts *facts, tilemm_type type, double bytes,
                                double flops)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const tilemm_curve *curve = &f->gpu_curve[type_index (type)];
  if (curve->points <= 0 || flops > curve->flops[curve->points - 1])
    return gpu_line_s (f, type, bytes, flops);
  /* In the measured range: the square product of as many flops, and the line's price of the
   * bytes this one moves beyond that square's (a skinny product moves more for its flops). */
  const double side = cbrt (flops / tilemm_model_flops (type, 1, 1, 1));
  const double square_bytes = 3.0 * side * side * (double) tilemm_type_size (type);
  const double extra = bytes > square_bytes ? tilemm_model_bus_s (f, bytes - square_bytes) : 0;
  return tilemm_curve_seconds (curve, flops) + extra;
}

/* The stages around the emulated precision's int8 products (scan, conversion to residues, the
 * reconstruction), as a share of those products' time: memory passes that grow with the moduli
 * as the products do. */
#define EMULATED_STAGES_SHARE 0.2

double tilemm_model_gpu_emulated_s (const tilemm_machine_facts *facts, tilemm_type type,
                                    double bytes, double m, double n, double k, int moduli)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const double rate = rate_or_builtin (f->gpu_int8_ops_per_s,
                                       tilemm_facts_builtin ()->gpu_int8_ops_per_s);
  const double products = (double) (moduli + 1) * tilemm_model_flops (type, m, n, k);
  const double device_s = products / rate * (1.0 + EMULATED_STAGES_SHARE);
  /* the native call's line without its kernels, and the statistics' round trip */
  return gpu_line_s (f, type, bytes, 0.0) + f->gpu_call_s + device_s;
}

double tilemm_model_gpu_batch_kernel_s (const tilemm_machine_facts *facts, tilemm_type type,
                                        double flops)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const int t = type_index (type);
  return flops / rate_or_builtin (f->gpu_batch_flops_per_s[t],
                                  tilemm_facts_builtin ()->gpu_batch_flops_per_s[t]);
}

/* Seconds the staging's team takes to copy a batch's operands (resident memory) and its result
 * (new memory, its pages faulted in by the copies) at the host's measured rates for the team's
 * threads (the host's less the reserved, no more than saturate its copies: copy_team.c); 0
 * where the host's copies were not measured. */
static double batch_team_copy_s (const tilemm_machine_facts *f, double bytes, double result_bytes)
{
  double threads = (double) tilemm_team_threads_left (f->threads);
  const int saturating = tilemm_model_copy_saturating_threads (f);
  if (saturating > 0 && threads > saturating)
    threads = saturating;
  const double resident = tilemm_model_copy_rate (f, f->copy_bytes_per_s, threads);
  const double fresh = tilemm_model_copy_rate (f, f->copy_fresh_bytes_per_s, threads);
  if (!(resident > 0))
    return 0;
  return (bytes - result_bytes) / resident + result_bytes / (fresh > 0 ? fresh : resident);
}

double tilemm_model_gpu_batch_s (const tilemm_machine_facts *facts, tilemm_type type,
                                 double bytes, double result_bytes, double flops)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const double call_s
    = rate_or_builtin (f->gpu_batch_call_s, tilemm_facts_builtin ()->gpu_batch_call_s);
  const double kernel_s = tilemm_model_gpu_batch_kernel_s (f, type, flops);
  if (bytes >= TILEMM_BATCH_COPY_TEAM_MIN_BYTES)
    {
      /* The team's copies, the transfers and the kernels of its panels in flight overlap: the
       * longest of the three.  (Priced at the plain line's bus, large batches came out far fast
       * on one machine and far slow on another: that line's bus is the device's transfers, not
       * the host's copies of a new result; bench/RESULTS.md.) */
      const double copies_s = batch_team_copy_s (f, bytes, result_bytes);
      const double bus_s = tilemm_model_bus_s (f, bytes);
      const double longest = copies_s > bus_s ? copies_s : bus_s;
      return call_s + (longest > kernel_s ? longest : kernel_s);
    }
  const double first = bytes < f->gpu_first_bytes ? bytes : f->gpu_first_bytes;
  const double first_s = f->gpu_first_bytes_per_s > 0 ? first / f->gpu_first_bytes_per_s : 0;
  const double rest = bytes - first;
  const double bus_s = f->gpu_batch_bus_bytes_per_s > 0 ? rest / f->gpu_batch_bus_bytes_per_s
                                                        : tilemm_model_bus_s (f, rest);
  return call_s + first_s + bus_s + kernel_s;
}

double tilemm_model_host_s (const tilemm_machine_facts *facts, tilemm_type type, double flops)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const double s = tilemm_curve_seconds (&f->host[type_index (type)], flops);
  return isfinite (s) ? s : tilemm_curve_seconds (&tilemm_facts_builtin ()->host[type_index (type)],
                                                  flops);
}

double tilemm_model_host_page_s (const tilemm_machine_facts *facts, tilemm_type type,
                                 double flops)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const double s = tilemm_curve_seconds (&f->host_page[type_index (type)], flops);
  return isfinite (s) ? s
                      : tilemm_curve_seconds (&tilemm_facts_builtin ()->host_page[type_index (type)],
                                              flops);
}

double tilemm_model_cpu_s (const tilemm_machine_facts *facts, tilemm_type type, double flops)
{
  return tilemm_curve_seconds (&facts_or_builtin (facts)->cpu[type_index (type)], flops);
}

double tilemm_model_cpu_page_s (const tilemm_machine_facts *facts, int small)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  return small ? f->cpu_small_page_s : f->cpu_page_s;
}

double tilemm_model_cpu_thread_flops_per_s (const tilemm_machine_facts *facts)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  return rate_or_builtin (f->cpu_thread_flops_per_s, tilemm_facts_builtin ()->cpu_thread_flops_per_s);
}

double tilemm_model_cpu_small_flops_per_s (const tilemm_machine_facts *facts)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  return rate_or_builtin (f->cpu_small_flops_per_s, tilemm_facts_builtin ()->cpu_small_flops_per_s);
}

double tilemm_model_cpu_region_s (const tilemm_machine_facts *facts)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  return rate_or_builtin (f->cpu_region_s, tilemm_facts_builtin ()->cpu_region_s);
}

double tilemm_model_page_alone_allowance (const tilemm_machine_facts *facts)
{
  return facts_or_builtin (facts)->gpu_measured ? 1.0 : 1.5;
}

double tilemm_model_min_panel_flops (const tilemm_machine_facts *facts, tilemm_type type)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  return f->gpu_panel_worth * f->gpu_panel_s / tilemm_model_kernel_s (f, type, 1.0);
}

int tilemm_model_copy_team (const tilemm_machine_facts *facts, int teams, int threads)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  if (teams < 1)
    teams = 1;
  if (threads < 1)
    threads = 1;
  int share = threads / teams;
  if (share < 1)
    share = 1;
  const int gain = tilemm_facts_copy_saturation (f, share);
  return gain < share ? gain : share;
}

int tilemm_model_copy_saturating_threads (const tilemm_machine_facts *facts)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  /* (Where nothing was measured the saturation is the "most" given, here none: 0, no cap.) */
  return f->copy_points > 0 ? tilemm_facts_copy_saturation (f, INT_MAX) : 0;
}

void tilemm_model_ways (const tilemm_machine_facts *facts, tilemm_type type, double bytes,
                        double flops, double host_flops, int gpus, tilemm_way_costs *costs)
{
  const tilemm_machine_facts *f = facts_or_builtin (facts);
  const int t = type_index (type);
  /* Each way as a script's loop pays it: its typical run times the mean of its runs over that
   * run where it was measured alternating with the others (tilemm_curve's episodes: a way whose
   * runs now and then take several times the typical one costs that on average). */
  costs->seconds[TILEMM_WAY_HOST] = tilemm_model_host_s (f, type, host_flops)
                                    * tilemm_curve_episodes (&f->host[t], host_flops);
  costs->seconds[TILEMM_WAY_CPU] = tilemm_model_cpu_s (f, type, flops)
                                   * tilemm_curve_episodes (&f->cpu[t], flops);
  /* The GPU way on as many of the GPUs as pay (the plan takes that many). */
  costs->seconds[TILEMM_WAY_GPU] = INFINITY;
  if (gpus >= 1)
    {
      /* (The square of as many flops, its peers as the facts measured them: a way is weighed
       * before its devices' links are known.) */
      const double side = cbrt (flops / tilemm_model_flops (type, 1, 1, 1));
      const tilemm_gpus_product p = { type, side, side, side, f->gpu_peer_bytes_per_s > 0, 0, 1 };
      tilemm_model_gpus_that_pay (f, &p, tilemm_model_gpu_call_s (f, type, bytes, flops), gpus,
                                  &costs->seconds[TILEMM_WAY_GPU]);
      costs->seconds[TILEMM_WAY_GPU] *= tilemm_curve_episodes (&f->gpu_curve[t], flops);
    }
  costs->best = TILEMM_WAY_HOST;
  double best = costs->seconds[TILEMM_WAY_HOST] / 1.05;
  for (int w = TILEMM_WAY_CPU; w < TILEMM_NWAYS; w++)
    if (costs->seconds[w] < best)
      {
        best = costs->seconds[w];
        costs->best = (tilemm_way) w;
      }
}

const char *tilemm_way_name (tilemm_way way)
{
  switch (way)
    {
    case TILEMM_WAY_CPU:
      return "cpu";
    case TILEMM_WAY_GPU:
      return "gpu";
    case TILEMM_WAY_HOST:
    default:
      return "host";
    }
}
