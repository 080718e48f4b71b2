/* workers.cu — a product over several workers (GPUs, or several workers of one GPU), each
 * on its own workspace and host thread, through multi.c's runner.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdlib.h>

#include "executor.h"

using namespace tilemm_cuda;

namespace {

/* Device bytes one worker may use on `device` when `sharing` workers share it: the device's free
 * memory plus what tilemm's workspaces hold there, less the driver's margin (as
 * tilemm_cuda_memory_budget), split evenly.  0 when it cannot be asked. */
size_t worker_budget (int device, int sharing)
{
  int current = -1;
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaGetDevice (&current) != cudaSuccess || cudaSetDevice (device) != cudaSuccess
      || cudaMemGetInfo (&free_bytes, &total_bytes) != cudaSuccess)
    {
      cudaGetLastError ();
      if (current >= 0)
        cudaSetDevice (current);
      return 0;
    }
  cudaSetDevice (current);
  size_t usable = free_bytes;
  for (const workspace &w : ws_pool)
    if (w.device == device)
      usable += workspace_bytes (w);
  size_t margin = total_bytes / 20;
  if (margin < ((size_t) 256 << 20))
    margin = (size_t) 256 << 20;
  const size_t share = usable > margin ? (usable - margin) / (size_t) (sharing > 0 ? sharing : 1)
                                       : 1;
  return share > 0 ? share : 1;
}

/* What each worker's thread accumulates. */
struct workers_ctx
{
  tilemm_cuda_stats st[TILEMM_MAX_WORKERS];
  tilemm_emu_pass *emu; /* an emulated product's pass, or NULL for the native product */
};

/* On the worker's thread: its own workspace, its device. */
tilemm_status worker_start (void *, int worker, int device, tilemm_error *err)
{
  ws_now = &ws_pool[worker];
  CUDA_TRY (cudaSetDevice (device), "cudaSetDevice(%d)", device);
  return TILEMM_OK;
}

/* One panel: the one-device pipeline, on the worker's workspace and streams. */
tilemm_status worker_panel (void *p, int worker, int, const tilemm_plan *sub, tilemm_op op_a,
                            const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                            const tilemm_view *c, tilemm_error *err)
{
  workers_ctx *ctx = (workers_ctx *) p;
  if (ctx->emu) /* the panel whole (its plan's own panels are the native product's) */
    {
      const tilemm_stop stopping = { tilemm_multi_stopping, NULL };
      tilemm_emu_plan used;
      return emu_panel (nullptr, nullptr, nullptr, ctx->emu, op_a, a, op_b, b, c, &stopping,
                        &ctx->emu->stats[worker], &used, &ctx->st[worker], err);
    }
  if (op_a != TILEMM_OP_NONE || op_b != TILEMM_OP_NONE)
    return op_panel (sub, op_a, a, op_b, b, c, &ctx->st[worker], err);
  /* Not stoppable part way: a worker thread must not poll the host (its stop callback may read
   * the host's state, which is the calling thread's); a stop is seen after the product. */
  return run_pipeline (sub, a, b, c, NULL, &ctx->st[worker], err);
}

/* After all workers stopped: a failed product frees every worker's workspace (kept otherwise,
 * so the next product allocates nothing). */
void worker_finish (void *, int worker, int, int failed)
{
  if (failed)
    pool_free (worker);
}

} /* namespace */

extern "C" {

static tilemm_status multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                       const tilemm_workers *workers, int named,
                                       tilemm_emu_pass *emu, tilemm_op op_a, const tilemm_view *a,
                                       tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_multi_report *report,
                                       tilemm_error *err);

tilemm_status tilemm_cuda_multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                            const tilemm_workers *workers, int named,
                                            const tilemm_view *a, const tilemm_view *b,
                                            const tilemm_view *c, const tilemm_stop *stop,
                                            tilemm_multi_report *report, tilemm_error *err)
{
  return multiply_workers (plan, limits, workers, named, nullptr, TILEMM_OP_NONE, a,
                           TILEMM_OP_NONE, b, c, stop, report, err);
}

tilemm_status tilemm_cuda_multiply_workers_op (const tilemm_plan *plan,
                                               const tilemm_limits *limits,
                                               const tilemm_workers *workers, int named,
                                               tilemm_op op_a, const tilemm_view *a,
                                               tilemm_op op_b, const tilemm_view *b,
                                               const tilemm_view *c, const tilemm_stop *stop,
                                               tilemm_multi_report *report, tilemm_error *err)
{
  return multiply_workers (plan, limits, workers, named, nullptr, op_a, a, op_b, b, c, stop,
                           report, err);
}


tilemm_status tilemm_cuda_emu_workers (const tilemm_plan *queue, const tilemm_limits *limits,
                                       const tilemm_workers *workers, tilemm_emu_pass *pass,
                                       tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                       const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_multi_report *report,
                                       tilemm_error *err)
{
  if (!pass)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_emu_workers: no pass");
  return multiply_workers (queue, limits, workers, 1, pass, op_a, a, op_b, b, c, stop, report,
                           err);
}


static tilemm_status multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                       const tilemm_workers *workers, int named,
                                       tilemm_emu_pass *emu, tilemm_op op_a, const tilemm_view *a,
                                       tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_multi_report *report,
                                       tilemm_error *err)
{
  if (report)
    {
      memset (report, 0, sizeof *report);
      report->workers = 1;
      report->failed_worker = -1;
    }
  if (!plan || !workers || workers->count < 1 || workers->count > TILEMM_MAX_WORKERS)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_multiply_workers: bad arguments");
  tilemm_plan queue = *plan;
  tilemm_workers use = *workers;
  if (!emu) /* an emulated pass comes with its queue (emulated_panels.c) */
    {
      use.count = tilemm_plan_workers (&queue, plan, workers->count, named);
      /* One worker on the caller's device (or any, when none was named): the one-device path. */
      if (use.count <= 1 && (!named || workers->device[0] == tilemm_cuda_current_device ()))
        return op_a == TILEMM_OP_NONE && op_b == TILEMM_OP_NONE
                 ? tilemm_cuda_multiply (plan, a, b, c, stop, err)
                 : tilemm_cuda_multiply_op (plan, op_a, a, op_b, b, c, err);
    }

  std::lock_guard<std::mutex> lock (ws_mutex);
  bool done;
  tilemm_status status = entry_checks (plan, c, &done, err);
  if (done)
    return status;
  int caller_device = 0;
  CUDA_TRY (cudaGetDevice (&caller_device), "cudaGetDevice");
  /* Each panel's plan fits its worker's share of its device (and the caller's limit). */
  tilemm_limits panel_limits = { limits ? limits->max_device_bytes : 0 };
  for (int w = 0; w < use.count; w++)
    {
      int sharing = 0;
      for (int v = 0; v < use.count; v++)
        sharing += use.device[v] == use.device[w];
      const size_t share = worker_budget (use.device[w], sharing);
      if (share > 0 && (panel_limits.max_device_bytes == 0 || share < panel_limits.max_device_bytes))
        panel_limits.max_device_bytes = share;
    }
  const auto t0 = std::chrono::steady_clock::now ();
  workers_ctx *ctx = (workers_ctx *) calloc (1, sizeof (workers_ctx));
  if (!ctx)
    return tilemm_error_set (err, TILEMM_ENOMEM, "no memory for the workers' statistics");
  ctx->emu = emu;
  const tilemm_device_ops ops = { "GPU", worker_start, worker_panel, worker_finish };
  status = tilemm_multi_run (&queue, &panel_limits, &use, &ops, ctx, op_a, a, op_b, b, c, report,
                             err);
  if (status != TILEMM_OK)
    {
      /* Every workspace is freed (worker_finish; and those of earlier products' workers, which
       * a reset would orphan); a context broken for good is reset. */
      pool_free_all ();
      for (int w = 0; w < use.count; w++)
        if (cudaSetDevice (use.device[w]) == cudaSuccess && cudaDeviceSynchronize () != cudaSuccess)
          cudaDeviceReset ();
      cudaGetLastError ();
    }
  cudaSetDevice (caller_device);
  cudaGetLastError ();
  /* The statistics of the whole product: the workers' sums.  Their copies and kernels overlap
   * across devices, so the split into upload/compute/download is not kept (zero). */
  tilemm_cuda_stats st;
  memset (&st, 0, sizeof st);
  st.calls = last_stats.calls + 1;
  for (int w = 0; w < use.count; w++)
    {
      st.copy_in_ms += ctx->st[w].copy_in_ms;
      st.copy_out_ms += ctx->st[w].copy_out_ms;
      st.result_prep_ms += ctx->st[w].result_prep_ms;
      st.bytes_up += ctx->st[w].bytes_up;
      st.bytes_down += ctx->st[w].bytes_down;
      st.panels += ctx->st[w].panels;
      st.steps += ctx->st[w].steps;
    }
  free (ctx);
  st.ok = status == TILEMM_OK;
  st.total_ms = ms_since (t0);
  last_stats = st;
  return status;
}

} /* extern "C" */
