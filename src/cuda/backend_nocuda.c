/* backend_nocuda.c — the CUDA backend of a build without CUDA: every call answers TILEMM_ENOGPU,
 * so hosts need no #ifdef and "auto" quietly falls back.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "backend.h"
#include "multi.h"

static const char not_built[] =
  "this tilemm was built without CUDA; reinstall it where the CUDA toolkit is found "
  "(nvcc on PATH, in /usr/local/cuda, or named by CUDA_HOME or NVCC)";

tilemm_status tilemm_cuda_probe (tilemm_error *err)
{
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", not_built);
}

int tilemm_cuda_device_count (void)
{
  return 0;
}

tilemm_status tilemm_cuda_device_info (int index, tilemm_device_info *info, tilemm_error *err)
{
  (void) index;
  (void) info;
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", not_built);
}

int tilemm_cuda_current_device (void)
{
  return -1;
}

tilemm_status tilemm_cuda_multiply (const tilemm_plan *plan, const tilemm_view *a,
                                    const tilemm_view *b, const tilemm_view *c,
                                    const tilemm_stop *stop, tilemm_error *err)
{
  (void) stop;
  (void) plan;
  (void) a;
  (void) b;
  (void) c;
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", not_built);
}

tilemm_status tilemm_cuda_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                       const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                       const tilemm_view *c, tilemm_error *err)
{
  (void) plan;
  (void) op_a;
  (void) a;
  (void) op_b;
  (void) b;
  (void) c;
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", not_built);
}

tilemm_status tilemm_cuda_multiply_emulated (const tilemm_plan *plan,
                                             const tilemm_emu_options *options,
                                             tilemm_emu_decide_fn decide, void *decide_ctx,
                                             tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                             const tilemm_view *b, const tilemm_view *c,
                                             const tilemm_stop *stop, tilemm_emu_plan *used,
                                             tilemm_error *err)
{
  (void) plan;
  (void) options;
  (void) decide;
  (void) decide_ctx;
  (void) op_a;
  (void) a;
  (void) op_b;
  (void) b;
  (void) c;
  (void) stop;
  if (used)
    memset (used, 0, sizeof *used);
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", not_built);
}

void tilemm_cuda_release (void)
{
}

size_t tilemm_cuda_bytes_held (void)
{
  return 0;
}

size_t tilemm_cuda_pinned_bytes_held (void)
{
  return 0;
}

size_t tilemm_cuda_memory_budget (void)
{
  return 0;
}

void tilemm_cuda_last_stats (tilemm_cuda_stats *stats)
{
  if (stats)
    memset (stats, 0, sizeof *stats);
}

int tilemm_cuda_built (void)
{
  return 0;
}

int tilemm_cuda_usable_devices (tilemm_workers *workers)
{
  workers->count = 0;
  return 0;
}

tilemm_status tilemm_cuda_multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                            const tilemm_workers *workers, int named,
                                            const tilemm_view *a, const tilemm_view *b,
                                            const tilemm_view *c, const tilemm_stop *stop,
                                            tilemm_multi_report *report, tilemm_error *err)
{
  (void) plan;
  (void) limits;
  (void) workers;
  (void) named;
  (void) a;
  (void) b;
  (void) c;
  (void) stop;
  if (report)
    memset (report, 0, sizeof *report);
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", not_built);
}

tilemm_status tilemm_cuda_emu_workers (const tilemm_plan *queue, const tilemm_limits *limits,
                                       const tilemm_workers *workers, tilemm_emu_pass *pass,
                                       tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                       const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_multi_report *report,
                                       tilemm_error *err)
{
  (void) queue;
  (void) limits;
  (void) workers;
  (void) pass;
  (void) op_a;
  (void) a;
  (void) op_b;
  (void) b;
  (void) c;
  (void) stop;
  if (report)
    memset (report, 0, sizeof *report);
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", not_built);
}

tilemm_status tilemm_cuda_emu_panel (tilemm_emu_pass *pass, tilemm_op op_a, const tilemm_view *a,
                                     tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                                     const tilemm_stop *stop, tilemm_emu_plan *used,
                                     tilemm_error *err)
{
  (void) pass;
  (void) op_a;
  (void) a;
  (void) op_b;
  (void) b;
  (void) c;
  (void) stop;
  if (used)
    memset (used, 0, sizeof *used);
  return tilemm_error_set (err, TILEMM_ENOGPU, "%s", not_built);
}

tilemm_status tilemm_cuda_multiply_workers_op (const tilemm_plan *plan,
                                               const tilemm_limits *limits,
                                               const tilemm_workers *workers, int named,
                                               tilemm_op op_a, const tilemm_view *a,
                                               tilemm_op op_b, const tilemm_view *b,
                                               const tilemm_view *c, const tilemm_stop *stop,
                                               tilemm_multi_report *report, tilemm_error *err)
{
  (void) op_a;
  (void) op_b;
  return tilemm_cuda_multiply_workers (plan, limits, workers, named, a, b, c, stop, report, err);
}
