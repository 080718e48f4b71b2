/* backend_ops.cu — the GPU's table (backend.h: tilemm_cuda_backend_ops): what the executor asks
 * of the CUDA backend.  Each operation runs one thing on the workspace of its worker (the
 * executor's worker w uses ws_pool[w], handed to what it runs, on its own thread, bound to its
 * device); the product's
 * turn (begin to end) holds ws_mutex, so products take turns on the workspaces.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdlib.h>

#include "batch.h"
#include "executor.h"

using namespace tilemm_cuda;

namespace {

/* One product's state, from begin to end. */
struct product_state
{
  const tilemm_call_plan *plan;           /* the call's plan (NULL: a low-level entry's)   */
  std::chrono::steady_clock::time_point t0;
  int caller_device;
  int used[TILEMM_MAX_WORKERS];           /* the device each worker started on, or -1     */
  tilemm_cuda_stats st[TILEMM_MAX_WORKERS];
  bool streamed;                          /* a panel went through the pipeline: its download
                                             is what is left of the total                 */
};

tilemm_status cuda_probe (tilemm_error *err)
{
  return locked_probe (err);
}

void cuda_facts (int with_budgets, tilemm_device_facts *facts)
{
  memset (facts, 0, sizeof *facts);
  facts->current = -1;
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_error why = { TILEMM_OK, "" };
  if (probe (&why) != TILEMM_OK)
    {
      facts->why_status = why.status;
      snprintf (facts->why, sizeof facts->why, "%s", why.detail);
      return;
    }
  facts->usable = 1;
  tilemm_workers usable;
  usable_devices (&usable, facts->cc_major, &facts->total);
  facts->count = usable.count;
  for (int i = 0; i < usable.count; i++)
    facts->device[i] = usable.device[i];
  int current = -1;
  if (cudaGetDevice (&current) == cudaSuccess)
    facts->current = current;
  cudaGetLastError ();
  facts->staging_chunk_bytes = config ().chunk_bytes;
  facts->wgmma = tilemm_emu_cuda_wgmma_runs ();
  if (with_budgets)
    {
      for (int i = 0; i < usable.count; i++)
        facts->budget[i] = memory_budget (usable.device[i]);
      facts->budgets = 1;
    }
}

tilemm_status cuda_begin (const void *config, void **state, tilemm_error *err)
{
  if (!config)
    return tilemm_error_set (err, TILEMM_EINVAL, "GPU product: no call plan");
  ws_mutex.lock ();
  /* TILEMM_FAULT, a test hook: the call plan's, armed per product (fault.h) */
  tilemm_fault_begin (&((const tilemm_call_plan *) config)->fault);
  tilemm_status status = probe (err);
  product_state *s = status == TILEMM_OK ? (product_state *) calloc (1, sizeof (product_state))
                                         : nullptr;
  if (status == TILEMM_OK && !s)
    status = tilemm_error_set (err, TILEMM_ENOMEM, "no memory for the product's figures");
  int caller = 0;
  if (status == TILEMM_OK && cudaGetDevice (&caller) != cudaSuccess)
    {
      cudaGetLastError ();
      status = tilemm_error_set (err, TILEMM_ECUDA, "cudaGetDevice failed");
    }
  if (status != TILEMM_OK)
    {
      free (s);
      ws_mutex.unlock ();
      return status;
    }
  s->plan = (const tilemm_call_plan *) config;
  s->t0 = std::chrono::steady_clock::now ();
  s->caller_device = caller;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    s->used[w] = -1;
  *state = s;
  return TILEMM_OK;
}

/* The product's end: a stopped product's workspaces drained and kept, a failed one's freed (and
 * a context broken for good reset), the caller's device and workspace back, the figures kept
 * as the last product's (__tilemm_stats__), the turn given up. */
void cuda_end (void *state, tilemm_status status)
{
  product_state *s = (product_state *) state;
  int workers = 0;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    workers += s->used[w] >= 0;
  if (status == TILEMM_EINTERRUPTED)
    for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
      {
        if (s->used[w] < 0 || cudaSetDevice (s->used[w]) != cudaSuccess)
          continue;
        workspace_drain (ws_pool[w]);
      }
  else if (status != TILEMM_OK)
    {
      /* Every workspace (a reset below would orphan those of earlier products' workers). */
      pool_free_all ();
      for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
        if (s->used[w] >= 0 && cudaSetDevice (s->used[w]) == cudaSuccess
            && cudaDeviceSynchronize () != cudaSuccess)
          cudaDeviceReset ();
    }
  cudaSetDevice (s->caller_device);
  cudaGetLastError ();
  tilemm_cuda_stats st;
  memset (&st, 0, sizeof st);
  if (workers <= 1)
    st = s->st[0];
  else /* copies and kernels overlap across devices: only the sums are kept */
    for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
      {
        st.copy_in_ms += s->st[w].copy_in_ms;
        st.copy_out_ms += s->st[w].copy_out_ms;
        st.result_prep_ms += s->st[w].result_prep_ms;
        st.bytes_up += s->st[w].bytes_up;
        st.bytes_down += s->st[w].bytes_down;
        st.panels += s->st[w].panels;
        st.steps += s->st[w].steps;
      }
  st.calls = last_stats.calls + 1;
  st.ok = status == TILEMM_OK;
  st.total_ms = ms_since (s->t0);
  if (workers <= 1 && s->streamed)
    st.download_ms = st.ok ? st.total_ms - st.upload_ms - st.compute_ms : 0;
  accumulate_stats (st);
  last_stats = st;
  free (s);
  ws_mutex.unlock ();
}

/* On the worker's thread: its device (its workspace, ws_pool[worker], is handed to each panel). */
tilemm_status cuda_worker_start (void *state, int worker, int device, tilemm_error *err)
{
  product_state *s = (product_state *) state;
  s->used[worker] = device;
  CUDA_TRY (cudaSetDevice (device), "cudaSetDevice(%d)", device);
  return TILEMM_OK;
}

/* After every worker stopped: a failed product frees the worker's workspace (kept otherwise, so
 * the next product allocates nothing). */
void cuda_worker_finish (void *, int worker, int, int failed)
{
  if (failed)
    pool_free (worker);
}

/* One panel of the native product: the pipeline (panels and steps, stoppable between steps; a
 * transposed operand transposed on the device step by step). */
tilemm_status cuda_product (void *state, int worker, const tilemm_plan *plan, tilemm_op op_a,
                            const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                            const tilemm_view *c, const tilemm_stop *stop, tilemm_error *err)
{
  product_state *s = (product_state *) state;
  workspace &ws = ws_pool[worker];
  bool done;
  const tilemm_status status = entry_checks (plan, c, &done, err);
  if (done)
    return status;
  s->streamed = true;
  return run_pipeline (ws, plan, op_a, a, op_b, b, c, stop, &s->st[worker], err);
}

int64_t block_cols_of (const product_state *s)
{
  return s->plan->emu_block_cols;
}

/* The int8 GEMM the call's plan chose. */
tilemm_emu_gemm gemm_of (const product_state *s)
{
  return s->plan->emu_gemm;
}

tilemm_status cuda_emu_stats (void *state, int worker, const tilemm_emu_options *options,
                              tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                              const tilemm_view *b, tilemm_emu_stats *stats, tilemm_error *err)
{
  product_state *s = (product_state *) state;
  emu_stage stage = { emu_stage::STATS, options, nullptr, 0, gemm_of (s), nullptr, nullptr };
  tilemm_emu_plan used;
  return emu_panel (ws_pool[worker], stage, op_a, a, op_b, b, nullptr, nullptr, stats, &used,
                    &s->st[worker], err);
}

tilemm_status cuda_emu_product (void *state, int worker, const tilemm_emu_plan *plan,
                                tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                const tilemm_view *b, const tilemm_view *c,
                                const tilemm_stop *stop, tilemm_emu_plan *used, tilemm_error *err)
{
  product_state *s = (product_state *) state;
  emu_stage stage = { emu_stage::PRODUCT, nullptr, plan, block_cols_of (s), gemm_of (s), nullptr,
                      nullptr };
  return emu_panel (ws_pool[worker], stage, op_a, a, op_b, b, c, stop, nullptr, used,
                    &s->st[worker], err);
}

tilemm_status cuda_emu_whole (void *state, int worker, const tilemm_emu_options *options,
                              tilemm_emu_decide_fn decide, void *decide_ctx, tilemm_op op_a,
                              const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                              const tilemm_view *c, const tilemm_stop *stop, tilemm_emu_plan *used,
                              tilemm_error *err)
{
  product_state *s = (product_state *) state;
  emu_stage stage = { emu_stage::WHOLE, options, nullptr, block_cols_of (s), gemm_of (s), decide,
                      decide_ctx };
  return emu_panel (ws_pool[worker], stage, op_a, a, op_b, b, c, stop, nullptr, used,
                    &s->st[worker], err);
}

} /* namespace */

extern "C" {

/* Hidden: found only by the module it is linked into (exec/backends.c says why). */
extern const tilemm_backend_ops tilemm_cuda_backend_ops __attribute__ ((visibility ("hidden")));
const tilemm_backend_ops tilemm_cuda_backend_ops = {
  "gpu",
  "GPU",
  cuda_probe,
  cuda_facts,
  cuda_begin,
  cuda_end,
  cuda_worker_start,
  cuda_worker_finish,
  cuda_product,
  cuda_emu_stats,
  cuda_emu_product,
  cuda_emu_whole,
  nullptr, /* the exact part of an emulated product runs on the CPU's table */
  tilemm_cuda_multiply_batch,
  release_all,
  bytes_held,
  pinned_bytes_held,
  copy_last_stats,
  device_count,
  device_info,
  current_device,
  nullptr, /* one variant of the GPU's code */
};

} /* extern "C" */
