/* devices.c — what a host may ask about the GPU (backend.h: the probe, the devices, what tilemm
 * holds, the last product's figures, the release at exit), answered through the GPU's table,
 * or TILEMM_ENOGPU and zeros where the build has none; and the entries that run a given
 * low-level plan over several devices (multi.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "backend.h"
#include "front.h"
#include "multi.h"

static const tilemm_backend_ops *gpu (void)
{
  return tilemm_backend_find (TILEMM_BACKEND_CUDA);
}

int tilemm_cuda_built (void)
{
  return gpu () != NULL;
}

tilemm_status tilemm_cuda_probe (tilemm_error *err)
{
  if (gpu ())
    return gpu ()->probe (err);
  tilemm_device_facts facts;
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &facts);
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", facts.why);
}

int tilemm_cuda_device_count (void)
{
  return gpu () ? gpu ()->device_count () : 0;
}

tilemm_status tilemm_cuda_device_info (int index, tilemm_device_info *info, tilemm_error *err)
{
  if (gpu ())
    return gpu ()->device_info (index, info, err);
  return tilemm_cuda_probe (err);
}

int tilemm_cuda_current_device (void)
{
  return gpu () ? gpu ()->current_device () : -1;
}

void tilemm_cuda_release (void)
{
  if (gpu ())
    gpu ()->release ();
}

size_t tilemm_cuda_bytes_held (void)
{
  return gpu () ? gpu ()->bytes_held () : 0;
}

size_t tilemm_cuda_pinned_bytes_held (void)
{
  return gpu () ? gpu ()->pinned_bytes_held () : 0;
}

size_t tilemm_cuda_memory_budget (void)
{
  if (!gpu ())
    return 0;
  tilemm_device_facts facts;
  gpu ()->facts (1, &facts);
  return tilemm_facts_budget (&facts, facts.current);
}

void tilemm_cuda_last_stats (tilemm_cuda_stats *stats)
{
  if (gpu ())
    gpu ()->last_stats (stats);
  else if (stats)
    memset (stats, 0, sizeof *stats);
}

int tilemm_cuda_usable_devices (tilemm_workers *workers)
{
  tilemm_device_facts facts;
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &facts);
  workers->count = facts.usable ? facts.count : 0;
  for (int i = 0; i < workers->count; i++)
    workers->device[i] = facts.device[i];
  return workers->count;
}

tilemm_status tilemm_devices_in_use (tilemm_workers *workers, int *named, tilemm_error *err)
{
  tilemm_options none;
  tilemm_options_init (&none);
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  tilemm_device_facts facts;
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &facts);
  return tilemm_devices_of_call (&none, &settings, &facts, workers, named, err);
}

/* ---------------------------------------------------------------- a given low-level plan */

void tilemm_sim_config_init (tilemm_sim_config *config, int devices)
{
  memset (config, 0, sizeof *config);
  config->devices = devices;
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  config->fail_device = settings.sim_faults.fail_device;
  config->fail_after = settings.sim_faults.fail_after;
  config->slow_device = settings.sim_faults.slow_device;
  config->slow_ms = settings.sim_faults.slow_ms;
}

tilemm_status tilemm_sim_multiply_op (const tilemm_plan *plan, const tilemm_sim_config *config,
                                      tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                      const tilemm_view *b, const tilemm_view *c,
                                      tilemm_multi_report *report, tilemm_error *err)
{
  tilemm_status status = tilemm_check_operands_op (plan, op_a, a, op_b, b, c);
  if (status != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  if (plan->backend != TILEMM_BACKEND_CPU || !config || config->devices < 1
      || config->devices > TILEMM_MAX_WORKERS)
    return tilemm_error_set (err, TILEMM_EINVAL,
                             "simulated devices need a cpu plan and 1 to %d devices",
                             TILEMM_MAX_WORKERS);
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  tilemm_call_plan p;
  tilemm_call_plan_around (&p, plan, op_a, op_b, 0, &settings);
  const tilemm_sim_faults faults = { config->fail_device, config->fail_after,
                                     config->slow_device, config->slow_ms };
  tilemm_call_plan_simulated (&p, config->devices, &faults);
  tilemm_call_facts none;
  memset (&none, 0, sizeof none);
  if ((status = tilemm_call_plan_queue (&p, TILEMM_BACKEND_CPU, &none)) != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  return tilemm_exec_native (TILEMM_BACKEND_CPU, &p, a, b, c, &config->stop, report, err);
}

tilemm_status tilemm_sim_multiply (const tilemm_plan *plan, const tilemm_sim_config *config,
                                   const tilemm_view *a, const tilemm_view *b,
                                   const tilemm_view *c, tilemm_multi_report *report,
                                   tilemm_error *err)
{
  return tilemm_sim_multiply_op (plan, config, TILEMM_OP_NONE, a, TILEMM_OP_NONE, b, c, report,
                                 err);
}

tilemm_status tilemm_cuda_multiply_workers_op (const tilemm_plan *plan,
                                               const tilemm_limits *limits,
                                               const tilemm_workers *workers, int named,
                                               tilemm_op op_a, const tilemm_view *a,
                                               tilemm_op op_b, const tilemm_view *b,
                                               const tilemm_view *c, const tilemm_stop *stop,
                                               tilemm_multi_report *report, tilemm_error *err)
{
  if (report)
    {
      memset (report, 0, sizeof *report);
      report->workers = 1;
      report->failed_worker = -1;
    }
  if (!plan || !workers || workers->count < 1 || workers->count > TILEMM_MAX_WORKERS)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_multiply_workers: bad arguments");
  tilemm_status status = tilemm_check_operands_op (plan, op_a, a, op_b, b, c);
  if (status != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  if ((status = tilemm_cuda_probe (err)) != TILEMM_OK)
    return status;
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  tilemm_call_plan p;
  tilemm_call_plan_around (&p, plan, op_a, op_b, limits ? limits->max_device_bytes : 0,
                           &settings);
  p.workers = *workers;
  p.devices_named = named;
  tilemm_call_facts facts;
  memset (&facts, 0, sizeof facts);
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, workers->count > 1, &facts.gpu);
  tilemm_host_facts_gather (&facts.host);
  if ((status = tilemm_call_plan_queue (&p, TILEMM_BACKEND_CUDA, &facts)) != TILEMM_OK)
    return tilemm_error_set (err, status,
                             "no panel of this product fits each worker's share of the device "
                             "limit (%zu bytes over %d workers): %s",
                             p.device_limit, workers->count, tilemm_strerror (status));
  return tilemm_exec_native (TILEMM_BACKEND_CUDA, &p, a, b, c, stop, report, err);
}

tilemm_status tilemm_cuda_multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                            const tilemm_workers *workers, int named,
                                            const tilemm_view *a, const tilemm_view *b,
                                            const tilemm_view *c, const tilemm_stop *stop,
                                            tilemm_multi_report *report, tilemm_error *err)
{
  return tilemm_cuda_multiply_workers_op (plan, limits, workers, named, TILEMM_OP_NONE, a,
                                          TILEMM_OP_NONE, b, c, stop, report, err);
}
